"""Benchmark: building the Japanese case-frame lexicon from the two corpora, and loading it
for generation. Not a test: figures vary with the machine.

    python bench/bench_ja_lexicon.py
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    import shutil

    from nligen.data import data_root, lexicons_dir
    from nligen.lang.ja.build import build, default_corpora
    from nligen.lang.ja.lexicon import JaLexicon
    from nligen.lexicon import LexiconSet

    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(lexicons_dir() / "ja" / "curated", Path(tmp) / "ja" / "curated")
        start = time.perf_counter()
        report = build(Path(tmp), default_corpora(data_root()))
        built = time.perf_counter() - start
    print(f"build: {built:.1f} s for {report['stats'].get('sentences', 0)} sentences, "
          f"{report['verbs']} verbs")
    start = time.perf_counter()
    lexicon = JaLexicon.load(LexiconSet([lexicons_dir()]))
    loaded = time.perf_counter() - start
    start = time.perf_counter()
    lexicon.sample_clauses(1000, seed=0)
    sampled = time.perf_counter() - start
    print(f"load: {loaded * 1000:.0f} ms ({len(lexicon.verbs)} verbs); "
          f"1,000 sample clauses: {sampled * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())

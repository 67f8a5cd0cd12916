"""Compiled sidecars of large YAML lexicons (NAME.yaml.compiled.json): read only while they
match the YAML byte for byte, never shadowing an edit; the shipped ones are current."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import yaml

from nligen.lexicon import (
    COMPILE_MIN_BYTES,
    LexiconSet,
    compile_lexicons,
    compiled_path,
    read_lexicon_file,
)

LEXICONS = Path(__file__).resolve().parents[1] / "lexicons"


def test_shipped_sidecars_match_their_yaml():
    large = [p for p in sorted(LEXICONS.rglob("*.yaml")) if p.stat().st_size >= COMPILE_MIN_BYTES]
    assert len(large) >= 5
    for path in large:
        side = compiled_path(path)
        assert side.is_file(), f"{side.name} missing: run `gen lexicon build-ja`"
        payload = json.loads(side.read_text(encoding="utf-8"))
        assert payload["source_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest(), \
            f"{side.name} is stale: run `gen lexicon build-ja`"
        assert payload["data"] == yaml.load(path.read_text(encoding="utf-8"),
                                            Loader=yaml.CSafeLoader)


def _lexicon(folder: Path, entries: list[dict]) -> Path:
    path = folder / "big.yaml"
    path.write_text(yaml.safe_dump({"description": "x", "entries": entries}, allow_unicode=True),
                    encoding="utf-8")
    return path


def test_a_sidecar_is_read_only_while_it_matches_the_yaml(tmp_path):
    path = _lexicon(tmp_path, [{"lemma": "読む"}])
    assert compile_lexicons(tmp_path, min_bytes=1) == [compiled_path(path)]
    # a sidecar with the right hash is what gets read (here doctored to tell them apart)
    side = compiled_path(path)
    payload = json.loads(side.read_text(encoding="utf-8"))
    payload["data"]["entries"] = [{"lemma": "書く"}]
    side.write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")
    assert read_lexicon_file(path, "big").entries == [{"lemma": "書く"}]
    # the YAML edited afterwards: the stale sidecar is ignored
    _lexicon(tmp_path, [{"lemma": "走る"}])
    lex = read_lexicon_file(path, "big")
    assert lex.entries == [{"lemma": "走る"}]
    assert lex.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    side.write_text("{not json", encoding="utf-8")
    assert read_lexicon_file(path, "big").entries == [{"lemma": "走る"}]
    # sidecars are no lexicons of their own
    assert LexiconSet([tmp_path]).available() == ["big"]


def test_compiling_is_deterministic_and_drops_orphans(tmp_path):
    path = _lexicon(tmp_path, [{"lemma": "読む", "args": {"ヲ": "本"}}])
    compile_lexicons(tmp_path, min_bytes=1)
    first = compiled_path(path).read_bytes()
    compile_lexicons(tmp_path, min_bytes=1)
    assert compiled_path(path).read_bytes() == first
    assert compile_lexicons(tmp_path) == [] and not compiled_path(path).exists()  # too small
    compile_lexicons(tmp_path, min_bytes=1)
    path.unlink()
    compile_lexicons(tmp_path, min_bytes=1)
    assert not compiled_path(path).exists()

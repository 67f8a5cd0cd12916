"""Benchmark: `gen stress` on a JSICK-sized file (4,927 premise-hypothesis pairs).

The full JSICK test set is held out, so the file is built from the released stress sample's
sentences (../shared/reference/jsick-stress), cycled to 4,927 rows. One fresh process runs
all nine transform x pair combinations; the figure includes start-up and the analyser's
loading. Reports sentences per second (wall clock) and peak memory. Not a test.

    python bench/bench_stress.py
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROWS = 4927
SAMPLE = (Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "jsick-stress"
          / "jsick_stress_sample.tsv")


def main() -> None:
    with open(SAMPLE, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    pairs = sorted({(r["sentence_A_original"], r["sentence_B"], r["entailment_label_original"])
                    for r in rows})
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "jsick_sized.tsv"
        lines = ["premise\thypothesis\tlabel"]
        lines += ["\t".join(pairs[i % len(pairs)]) for i in range(ROWS)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        code = ("import resource, sys; from nligen.cli import run; rc = run(sys.argv[1:]); "
                "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); "
                "sys.exit(rc)")
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", code, "stress", str(path), "-q",
                               "-o", str(Path(tmp) / "out.jsonl")], capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if proc.returncode != 0:
            raise SystemExit(proc.stderr.strip())
        records = sum(1 for _ in open(Path(tmp) / "out.jsonl", encoding="utf-8"))
    peak_kb = int(proc.stderr.strip().splitlines()[-1])
    print(json.dumps({"sentences": ROWS, "records": records, "seconds": round(seconds, 2),
                      "sentences_per_second": round(ROWS / seconds),
                      "peak_memory_mb": round(peak_kb / 1024, 1)}))


if __name__ == "__main__":
    main()

"""Benchmark: Jamp generation per fragment and for the whole set at the paper's size.

Each run is a fresh process (`gen jamp [--fragment F] --n N -o FILE`): problems per second
(wall clock of the whole command: start-up, lexicon load, generation, writing) and peak
memory (max RSS). The paper's train set has 9,750 problems. Not a test: figures vary
with the machine.

    python bench/bench_jamp.py                 # every fragment (1,000 each) + 10,000 overall
    python bench/bench_jamp.py --n 2000 ordering
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FRAGMENTS = ("now", "ordering", "time_point", "anaphora", "interval", "habituality")


def run(label: str, args: list[str], out: Path) -> dict:
    target = out / f"{label}.jsonl"
    code = ("import resource, sys; from nligen.cli import run; rc = run(sys.argv[1:]); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); "
            "sys.exit(rc)")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, "jamp", *args, "-q", "-o", str(target)],
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{label}: {proc.stderr.strip()}")
    peak_kb = int(proc.stderr.strip().splitlines()[-1])
    problems = sum(1 for _ in target.open(encoding="utf-8"))
    return {"run": label, "problems": problems, "seconds": round(seconds, 2),
            "problems_per_second": round(problems / seconds),
            "peak_memory_mb": round(peak_kb / 1024, 1)}


def main(argv: list[str]) -> int:
    n = 1000
    if len(argv) >= 2 and argv[0] == "--n":
        n, argv = int(argv[1]), argv[2:]
    runs = [(f, ["--fragment", f, "--n", str(n)]) for f in (argv or FRAGMENTS)]
    if not argv:
        runs.append(("all (paper size)", ["--n", "10000"]))
        runs.append(("all, --split fragment_hard", ["--n", "10000", "--split", "fragment_hard"]))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, args in runs:
            r = run(label.split(" ")[0] + str(len(rows)), args, Path(tmp))
            r["run"] = label
            rows.append(r)
            print(f"{label:<28} {r['problems']:>7} problems  {r['seconds']:>6.2f} s  "
                  f"{r['problems_per_second']:>7} problems/s  peak {r['peak_memory_mb']:>6.1f} MB")
    print(json.dumps(rows, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

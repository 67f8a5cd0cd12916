"""Benchmark: WOGLI generation at the paper's size (1,000 premises per pattern).

Runs each set in a fresh process (`gen wogli --set S -o FILE`) and reports problems per
second (wall clock, whole command: start-up, generation, writing) and peak memory
(max RSS). Not a test: figures vary with the machine.

    python bench/bench_wogli.py            # all five paper sets
    python bench/bench_wogli.py dative     # one set
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SETS = ("wogli", "os_hard", "p_subject", "dative", "ditransitive")


def run(set_name: str, out: Path) -> dict:
    target = out / f"{set_name}.jsonl"
    code = ("import resource, sys; from nligen.cli import run; rc = run(sys.argv[1:]); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); "
            "sys.exit(rc)")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, "wogli", "--set", set_name, "-q",
                           "-o", str(target)], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{set_name}: {proc.stderr.strip()}")
    peak_kb = int(proc.stderr.strip().splitlines()[-1])
    problems = sum(1 for _ in target.open(encoding="utf-8"))
    return {"set": set_name, "problems": problems, "seconds": round(seconds, 2),
            "problems_per_second": round(problems / seconds),
            "peak_memory_mb": round(peak_kb / 1024, 1)}


def main(argv: list[str]) -> int:
    sets = argv or list(SETS)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for s in sets:
            rows.append(run(s, Path(tmp)))
            r = rows[-1]
            print(f"{r['set']:<14} {r['problems']:>7} problems  {r['seconds']:>6.2f} s  "
                  f"{r['problems_per_second']:>7} problems/s  peak {r['peak_memory_mb']:>6.1f} MB")
    total = sum(r["problems"] for r in rows)
    seconds = sum(r["seconds"] for r in rows)
    print(f"{'total':<14} {total:>7} problems  {seconds:>6.2f} s  {round(total / seconds):>7} problems/s")
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

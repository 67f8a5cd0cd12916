"""Benchmark: `gen verify --semantics` on the default Jamp set, beside plain `gen verify`.

The default `gen jamp -o DIR/` set (9,944 problems) is written once; then each command runs
in a fresh process: plain verify (labels re-derived from the conditions, the set
regenerated and compared byte for byte) is the baseline measured in the same run, and
`--semantics` adds the model checker's label for every record. Reports seconds, records
per second and peak memory; issue 17 asks for under a minute. Not a test: figures vary
with the machine.

    python bench/bench_semantics.py
    python bench/bench_semantics.py --check-semantics    # also time gen jamp check-semantics
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CODE = ("import resource, sys; from nligen.cli import run; rc = run(sys.argv[1:]); "
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); "
        "sys.exit(rc)")


def timed(label: str, args: list[str], records: int) -> dict:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", CODE, *args], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{label}: exit {proc.returncode}: {proc.stdout[-500:]} "
                         f"{proc.stderr[-500:]}")
    peak_kb = int(proc.stderr.strip().splitlines()[-1])
    return {"run": label, "records": records, "seconds": round(seconds, 2),
            "records_per_second": round(records / seconds),
            "peak_memory_mb": round(peak_kb / 1024, 1)}


def main(argv: list[str]) -> int:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "jamp"
        subprocess.run([sys.executable, "-m", "nligen.cli", "jamp", "-q", "-o", f"{folder}/"],
                       check=True)
        records = sum(1 for _ in (folder / "all.jsonl").open(encoding="utf-8"))
        rows.append(timed("gen verify (baseline)", ["verify", str(folder)], records))
        rows.append(timed("gen verify --semantics", ["verify", str(folder), "--semantics"],
                          records))
        if "--check-semantics" in argv:
            rows.append(timed("gen jamp check-semantics", ["jamp", "check-semantics"], 80))
    for r in rows:
        print(f"{r['run']:<28} {r['records']:>6} records  {r['seconds']:>7.2f} s  "
              f"{r['records_per_second']:>6}/s  peak {r['peak_memory_mb']:>6.1f} MB")
    base, sem = rows[0]["seconds"], rows[1]["seconds"]
    print(f"semantics adds {sem - base:.2f} s ({sem / base:.2f}x the baseline)")
    print(json.dumps(rows, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

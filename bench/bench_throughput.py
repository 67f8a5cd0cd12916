"""Benchmark: nligen's problems per second beside a plain f-string fill, in one run.

Every nligen figure is a whole command in a fresh process (start-up, lexicon load,
generation, writing), with its peak memory (max RSS). The baseline fills a 3-slot
template with f-strings in this process (a premise and a hypothesis per pair, drawn from
word lists, no morphology, labels, dedup or writing): the machine is noisy, so compare
ratios measured in the same run, not absolute times. Issue 14 measured CheckList's bare
``Editor.template`` fill at about 1/7 of such an f-string fill; the CheckList column uses
that ratio.

    python bench/bench_throughput.py            # everything (about 3 minutes)
    python bench/bench_throughput.py --quick    # without the million-problem run
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECKLIST_PER_FSTRING = 1 / 7  # issue 14: CheckList ~160k/s, f-string ~7x faster
README_EXAMPLE = Path(__file__).resolve().parents[1] / "README.md"
PAPER_SETS = ("wogli", "os_hard", "p_subject", "dative", "ditransitive")

_CHILD = ("import resource, sys; from nligen.cli import run; rc = run(sys.argv[1:]); "
          "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "
          "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
          "sys.exit(rc)")


_FSTRING = """
import random, time
rng = random.Random(0)
subjects = [f"Der Mann{i}" for i in range(400)]
verbs = [f"sieht{i}" for i in range(150)]
objects = [f"den Kunden{i}" for i in range(400)]
start = time.perf_counter()
out = []
for _ in range(400_000):
    s, v, o = rng.choice(subjects), rng.choice(verbs), rng.choice(objects)
    out.append((f"{s} {v} {o} .", f"{o} {v} {s} ."))
print(400_000 / (time.perf_counter() - start))
"""


def fstring_rate() -> float:
    """Pairs per second of a plain f-string fill of a WOGLI-shaped pair, in its own
    process (so that this one stays small: a child's peak memory counts the memory of
    the process it was forked from)."""
    proc = subprocess.run([sys.executable, "-c", _FSTRING], capture_output=True, text=True,
                          check=True)
    return float(proc.stdout.strip())


def gen(args: list[str], cwd: Path | None = None) -> dict:
    """One `gen` command in a fresh process: seconds and peak RSS (MB), the larger of the
    process and its worker processes."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _CHILD, *args], capture_output=True,
                          text=True, cwd=cwd)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"gen {' '.join(args)}: {proc.stderr.strip()}")
    own, children = (int(x) for x in proc.stderr.strip().splitlines()[-1].split())
    return {"seconds": round(seconds, 2), "peak_mb": round(max(own, children) / 1024, 1)}


def count_lines(path: Path) -> int:
    with open(path, "rb") as fh:
        return sum(1 for _ in fh)


def readme_example(folder: Path) -> Path:
    """The README's custom template (mine/), written into folder."""
    import re

    text = README_EXAMPLE.read_text(encoding="utf-8")
    for name in ("mine/ages.yaml", "mine/lexicons/people.yaml"):
        body = re.search(r"<!-- example-file: " + re.escape(name) + r" -->\n```yaml\n(.*?)```",
                         text, re.S).group(1)
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")
    return folder / "mine"


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    rows = []
    base = fstring_rate()
    print(f"f-string fill (baseline, this run): {base:,.0f} pairs/s; CheckList taken as "
          f"{base * CHECKLIST_PER_FSTRING:,.0f}/s")
    from nligen.parallel import auto_workers

    print(f"--workers auto (the command line's default) is {auto_workers()} here; the runs "
          "below name their workers")

    def report(name: str, problems: int, r: dict, workers: int | str = 1) -> dict:
        rate = problems / r["seconds"]
        row = {"run": name, "workers": workers, "problems": problems, **r,
               "problems_per_second": round(rate),
               "vs_fstring": round(rate / base, 4),
               "vs_checklist": round(rate / (base * CHECKLIST_PER_FSTRING), 3)}
        rows.append(row)
        print(f"{name:<34} w={workers:<4} {problems:>8,} {r['seconds']:>7.2f} s "
              f"{rate:>9,.0f}/s  {row['vs_checklist']:>5.2f} x CheckList  "
              f"peak {r['peak_mb']:>7.1f} MB")
        return row

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        for workers in (1, 2):
            r = gen(["wogli", "--n", "200000", "--workers", str(workers), "-q", "-o",
                     str(out / "w.jsonl")])
            report("gen wogli --n 200000 -o FILE", 200_000, r, workers)
        one = two = None
        for workers in (1, 2):
            r = gen(["wogli", "--n", "400000", "--workers", str(workers), "-q", "-o",
                     str(out / "w4.jsonl")])
            row = report("gen wogli --n 400000 -o FILE", 400_000, r, workers)
            one, two = (row, two) if workers == 1 else (one, row)
        print(f"  --workers 2 speed-up on 400k: {one['seconds'] / two['seconds']:.2f} x")
        total = seconds = 0.0
        for s in PAPER_SETS:
            target = out / f"{s}.jsonl"
            r = gen(["wogli", "--set", s, "-q", "-o", str(target)])
            total += count_lines(target)
            seconds += r["seconds"]
        report("five WOGLI paper sets (5 processes)", int(total),
               {"seconds": round(seconds, 2), "peak_mb": 0.0}, "auto")
        for workers in (1, 2):
            target = out / "j.jsonl"
            r = gen(["jamp", "--workers", str(workers), "-q", "-o", str(target)])
            report("gen jamp (default set) -o FILE", count_lines(target), r, workers)
        mine = readme_example(out)
        for workers in (1, 2):
            r = gen(["run", str(mine), "--n", "10000", "--workers", str(workers), "-q", "-o",
                     str(out / "m.jsonl")])
            report("gen run mine/ --n 10000 -o FILE", 10_000, r, workers)
        if not quick:
            r = gen(["wogli", "--n", "1000000", "-q", "-o", str(out / "million") + "/"])
            report("gen wogli --n 1000000 -o DIR/", 1_000_000, r, "auto")
    print(json.dumps({"fstring_pairs_per_second": round(base), "runs": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Draw the 100-problem reading sample of the Jamp family (generated/jamp_review.md).

    python bench/jamp_review_sample.py [SEED] > /tmp/sample.md

Problems come from `gen jamp --n 2000 --seed SEED` (default 2027; the first reading, of an
earlier lexicon, used 2026); sub-fragments take turns, and within one the problems are taken
in a seeded order, so every fragment is read.
"""

from __future__ import annotations

import sys

from nligen.families import jamp
from nligen.rng import StableRng


def main(argv: list[str]) -> int:
    seed = int(argv[0]) if argv else 2027
    ds = jamp.generate(n=2000, seed=seed)
    by_sub: dict[str, list[dict]] = {}
    for rec in ds.records:
        by_sub.setdefault(rec["subfragment"], []).append(rec)
    rng = StableRng(seed, "review")
    for recs in by_sub.values():
        rng.shuffle(recs)
    picked = []
    while len(picked) < 100:
        for sub in sorted(by_sub):
            if by_sub[sub] and len(picked) < 100:
                picked.append(by_sub[sub].pop())
    print("| # | id | template | label | premise | hypothesis |")
    print("|---|---|---|---|---|---|")
    for i, r in enumerate(picked, 1):
        print(f"| {i} | {r['id']} | {r['template']} | {r['label']} | {r['premise']} | "
              f"{r['hypothesis']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

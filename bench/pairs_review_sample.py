"""Draw the 100-pair reading sample of the pairs family (generated/pairs_review.md).

    python bench/pairs_review_sample.py LANGUAGE SEED > /tmp/sample.md

Pairs come from `gen pairs --language LANGUAGE --n 2000 --seed SEED`; the paradigms take
turns, and within one the pairs are taken in a seeded order, so every paradigm is read
(7 or 8 pairs each). The first table says what each paradigm tests (its description);
the second lists the pairs: number, paradigm, the good and the bad sentence.
"""

from __future__ import annotations

import sys

from nligen.families import pairs
from nligen.rng import StableRng


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    language, seed = argv[0], int(argv[1])
    ds = pairs.generate(languages=[language], n=2000, seed=seed)
    by_uid: dict[str, list[dict]] = {}
    for rec in ds.records:
        by_uid.setdefault(rec["UID"], []).append(rec)
    rng = StableRng(seed, "review")
    for recs in by_uid.values():
        rng.shuffle(recs)
    picked = []
    while len(picked) < 100:
        for uid in sorted(by_uid):
            if by_uid[uid] and len(picked) < 100:
                picked.append(by_uid[uid].pop())
    from nligen.families import load_family

    described = {t.id: t.description for t in load_family("pairs").templates}
    print("| paradigm | what it tests |")
    print("|---|---|")
    for uid in sorted(by_uid):
        print(f"| {uid} | {' '.join(str(described.get(uid, '')).split())} |")
    print()
    print("| # | paradigm | acceptable sentence | unacceptable sentence |")
    print("|---|---|---|---|")
    for i, r in enumerate(picked, 1):
        print(f"| {i} | {r['UID']} | {r['sentence_good']} | {r['sentence_bad']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Fill in (or check) the case-frame evidence of a curated pair clause lexicon.

    python scripts/pair_clause_evidence.py lexicons/ja/curated/pairs_shika.yaml [--write]

Each entry of lexicons/ja/curated/pairs_{shika,daremo,ichidomo,causative,progressive}.yaml
is a verb with one argument, ``wo`` or ``ni``. Its evidence comes from
lexicons/ja/caseframes.json: ``evidence_frames`` (the verb's frames), ``evidence_case``
(its frames with that case) and ``observed`` (how often that noun fills that case there;
0 for a clause composed by a reader). Without --write, the entries whose evidence is
missing or wrong are listed (exit 1); with --write, the evidence is rewritten in place.
tests/test_pairs.py re-derives it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
CASES = {"wo": "ヲ", "ni": "ニ"}


def load_frames() -> dict[str, dict]:
    data = json.loads((REPO / "lexicons/ja/caseframes.json").read_text(encoding="utf-8"))
    return {e["lemma"]: e for e in data["entries"]}


def evidence(frames: dict[str, dict], entry: dict) -> dict:
    """The evidence fields of ``entry``; raises ValueError naming what is wrong."""
    keys = [k for k in CASES if entry.get(k)]
    if len(keys) != 1:
        raise ValueError("needs exactly one of 'wo' or 'ni'")
    key = keys[0]
    case, noun = CASES[key], entry[key]
    frame = frames.get(entry.get("lemma"))
    if frame is None:
        raise ValueError(f"{entry.get('lemma')!r} is not a verb of caseframes.json")
    in_case = sum(n for cases, n in frame["frames"] if case in cases)
    if not in_case:
        raise ValueError(f"{entry['lemma']} has no {case} frame in caseframes.json")
    slot = frame.get("slots", {}).get(case, {})
    observed = sum(n for word, n, _ in slot.get("nouns", []) if word == noun)
    return {"evidence_frames": int(frame["count"]), "evidence_case": in_case,
            "observed": observed}


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    path, write = Path(argv[0]), "--write" in argv[1:]
    frames = load_frames()
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    out, problems, seen = [], 0, set()
    for number, line in enumerate(lines, 1):
        if not line.startswith("  - {"):
            out.append(line)
            continue
        entry = yaml.safe_load(line[4:])
        try:
            found = evidence(frames, entry)
        except ValueError as err:
            print(f"{path}:{number}: {err}")
            problems += 1
            out.append(line)
            continue
        key = (entry["lemma"], entry.get("wo"), entry.get("ni"))
        if key in seen:
            print(f"{path}:{number}: {entry['lemma']} with {entry.get('wo') or entry.get('ni')} "
                  f"is listed twice")
            problems += 1
        seen.add(key)
        if any(entry.get(k) != v for k, v in found.items()):
            if not write:
                print(f"{path}:{number}: evidence should be {found}")
                problems += 1
            entry = {k: v for k, v in entry.items() if k not in found} | found
            line = "  - " + yaml.safe_dump(entry, allow_unicode=True, default_flow_style=True,
                                           sort_keys=False, width=10_000)
        out.append(line)
    if write:
        path.write_text("".join(out), encoding="utf-8")
    print(f"{path}: {sum(1 for x in out if x.startswith('  - {'))} entries, {problems} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

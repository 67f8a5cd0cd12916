"""``gen lexicon build-de``: build the shipped German lexicons.

Inputs: the curated lists in ``lexicons/de/curated/*.yaml`` (which lemmas, with gloss,
gender, semantic class; no inflected forms) plus german-nouns (noun forms, Wiktionary,
CC BY-SA 4.0) and ablaut (present-tense verb forms). Output: ``lexicons/de/*.json``,
which generation reads. The same inputs give byte-identical files.

Checks made here (a failing entry stops the build with every problem listed):

* nouns: exactly one german-nouns reading for (lemma, gender, pos Substantiv), after the
  ``plural:`` selector for homographs; every case form present;
* names: listed as ``Vorname`` in german-nouns, with no common-noun, surname or place
  homograph;
* verbs: ablaut conjugates them, the 3sg present is one word (no separable prefix), and
  the lemma is not in the list's ``excluded`` (symmetric/reciprocal) list;
* no duplicates; the minimum sizes of issue #2.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ...datafiles import load_yaml
from ...errors import LexiconError
from .sources import (
    ablaut_present, ablaut_version, declension, german_nouns_rows, german_nouns_version,
    is_common_noun_row, row_to_entries, weak_present,
)

BUILD_COMMAND = "gen lexicon build-de"
NOUN_FORMS = ("nom_sg", "acc_sg", "dat_sg", "nom_pl", "acc_pl", "dat_pl")
MINIMUMS = {
    "nouns_human": {"m": 80, "f": 50},
    "first_names": {"m": 60, "f": 60},
    "verbs_transitive": {"all": 80},
    "verbs_dative": {"all": 30},
    "verbs_ditransitive": {"all": 30},
    "direct_objects": {"all": 60},
}
# The objects each verb list takes, in surface order after the verb (clause analysis uses it).
VERB_FRAMES = {"verbs_transitive": ("acc",), "verbs_dative": ("dat",),
               "verbs_ditransitive": ("dat", "acc")}
DITRANSITIVE_CLASSES = ("giving", "taking", "sending", "communication", "secret")


def _load_yaml(path: Path) -> dict:
    try:
        data = load_yaml(path.read_text(encoding="utf-8"), str(path), LexiconError)
    except (OSError, UnicodeDecodeError) as exc:
        raise LexiconError(f"cannot read: {getattr(exc, 'strerror', None) or exc}",
                           str(path)) from None
    if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
        raise LexiconError("expected a mapping with 'entries'", str(path))
    return data


def _noun_index() -> dict[str, list[dict]]:
    """lemma -> german-nouns rows that are common nouns."""
    index: dict[str, list[dict]] = {}
    for row in german_nouns_rows():
        if is_common_noun_row(row):
            index.setdefault(row["lemma"], []).append(row)
    return index


def _resolve_noun(item: dict, rows_by_lemma: dict, problems: list[str]) -> dict | None:
    lemma, gender = item.get("lemma"), item.get("gender")
    if not lemma or gender not in ("m", "f", "n"):
        problems.append(f"{item!r}: needs lemma and gender m/f/n")
        return None
    candidates = []
    for row in rows_by_lemma.get(lemma, []):
        if row["pos"] != "Substantiv":
            continue
        for entry in row_to_entries(row):
            if entry["gender"] == gender and all(entry.get(k) for k in NOUN_FORMS):
                candidates.append(entry)
    # Selectors name the reading meant when Wiktionary has several (homographs, variants).
    select = dict(item.get("select") or {})
    if item.get("plural"):
        select["nom_pl"] = item["plural"]
    for key, value in select.items():
        candidates = [c for c in candidates if c.get(key) == value]
    distinct = {tuple(c[k] for k in NOUN_FORMS): c for c in candidates}
    if not distinct:
        problems.append(f"{lemma} ({gender}): no complete german-nouns reading"
                        + (f" matching {select}" if select else ""))
        return None
    if len(distinct) > 1:
        plurals = sorted({c["nom_pl"] for c in distinct.values()})
        problems.append(f"{lemma} ({gender}): {len(distinct)} german-nouns readings "
                        f"(plurals {', '.join(plurals)}); add 'plural:' to choose one")
        return None
    entry = next(iter(distinct.values()))
    out = {"lemma": lemma, "gender": gender}
    for k in ("gloss",):
        if k in item:
            out[k] = item[k]
    if "classes" in item:
        out["classes"] = list(item["classes"])
    out["declension"] = declension(entry)
    for k in ("nom_sg", "acc_sg", "dat_sg", "gen_sg", "nom_pl", "acc_pl", "dat_pl", "gen_pl"):
        out[k] = entry.get(k, "")
    return out


def _build_nouns(data: dict, rows_by_lemma, problems: list[str], classes: bool = False) -> list[dict]:
    out = []
    seen = set()
    for item in data["entries"]:
        key = (item.get("lemma"), item.get("gender"))
        if key in seen:
            problems.append(f"{key[0]}: listed twice")
            continue
        seen.add(key)
        if classes:
            cls = item.get("classes")
            if not isinstance(cls, list) or not cls or any(c not in DITRANSITIVE_CLASSES for c in cls):
                problems.append(f"{item.get('lemma')}: classes must be drawn from "
                                f"{', '.join(DITRANSITIVE_CLASSES)}")
                continue
        entry = _resolve_noun(item, rows_by_lemma, problems)
        if entry:
            out.append(entry)
    return sorted(out, key=lambda e: (e["gender"], e["lemma"]))


def _build_names(data: dict, rows_by_lemma_all: dict, problems: list[str]) -> list[dict]:
    out = []
    seen = set()
    for item in data["entries"]:
        name, gender = item.get("name"), item.get("gender")
        if not name or gender not in ("m", "f"):
            problems.append(f"{item!r}: needs name and gender m/f")
            continue
        if name in seen:
            problems.append(f"{name}: listed twice")
            continue
        seen.add(name)
        rows = rows_by_lemma_all.get(name, [])
        if not any("Vorname" in r["pos"].split(",") for r in rows):
            problems.append(f"{name}: not a first name (Vorname) in german-nouns")
            continue
        others = sorted({r["pos"] for r in rows if "Vorname" not in r["pos"].split(",")})
        if others:
            problems.append(f"{name}: homograph of a non-name ({'; '.join(others)})")
            continue
        out.append({"name": name, "gender": gender})
    return sorted(out, key=lambda e: (e["gender"], e["name"]))


def _build_verbs(data: dict, problems: list[str], classes: bool = False) -> list[dict]:
    excluded = {e.get("lemma"): e.get("reason", "") for e in data.get("excluded") or []}
    out = []
    seen = set()
    for item in data["entries"]:
        lemma = item.get("lemma")
        if not lemma:
            problems.append(f"{item!r}: needs lemma")
            continue
        if lemma in seen:
            problems.append(f"{lemma}: listed twice")
            continue
        seen.add(lemma)
        if lemma in excluded:
            problems.append(f"{lemma}: also in 'excluded' ({excluded[lemma]})")
            continue
        if classes and item.get("class") not in DITRANSITIVE_CLASSES:
            problems.append(f"{lemma}: class must be one of {', '.join(DITRANSITIVE_CLASSES)}")
            continue
        conjugation = item.get("conjugation", "ablaut")
        if conjugation not in ("ablaut", "weak"):
            problems.append(f"{lemma}: conjugation must be 'ablaut' (default) or 'weak'")
            continue
        try:
            sg, pl = ablaut_present(lemma)
            if conjugation == "weak":
                # The transitive sense of some verbs is weak where ablaut gives the strong
                # intransitive one (erschrecken: erschreckt vs erschrickt).
                sg, pl = weak_present(lemma)
        except LexiconError as exc:
            problems.append(f"{lemma}: {exc.what}")
            continue
        if " " in sg or " " in pl:
            problems.append(f"{lemma}: separable (3sg {sg!r}); simple SVO clauses need one word")
            continue
        if sg == pl:
            problems.append(f"{lemma}: 3sg and 3pl are both {sg!r}")
            continue
        entry = {"lemma": lemma}
        for k in ("gloss", "class", "conjugation"):
            if k in item:
                entry[k] = item[k]
        entry["pres_3sg"] = sg
        entry["pres_3pl"] = pl
        out.append(entry)
    key = (lambda e: (e.get("class", ""), e["lemma"]))
    return sorted(out, key=key)


def _counts(name: str, entries: list[dict]) -> dict[str, int]:
    counts: dict[str, int] = {"all": len(entries)}
    for e in entries:
        for k in ("gender", "class"):
            if k in e:
                counts[f"{k}={e[k]}"] = counts.get(f"{k}={e[k]}", 0) + 1
        for c in e.get("classes", []):
            counts[f"class={c}"] = counts.get(f"class={c}", 0) + 1
    return counts


def _check_minimums(name: str, entries: list[dict], problems: list[str]) -> None:
    for key, minimum in MINIMUMS[name].items():
        have = len(entries) if key == "all" else sum(e.get("gender") == key for e in entries)
        if have < minimum:
            problems.append(f"{name}: {have} entries{'' if key == 'all' else ' of gender ' + key}, "
                            f"need at least {minimum}")


def dump_lexicon(meta: dict, entries: list[dict]) -> str:
    """JSON with one entry per line (readable diffs), deterministic."""
    lines = ["{", '  "meta": ' + json.dumps(meta, ensure_ascii=False, indent=2).replace("\n", "\n  ")
             + ",", '  "entries": [']
    for i, e in enumerate(entries):
        lines.append("    " + json.dumps(e, ensure_ascii=False) + ("," if i < len(entries) - 1 else ""))
    lines += ["  ]", "}", ""]
    return "\n".join(lines)


FILES = {
    # output name: (curated file, kind)
    "nouns_human": ("human_nouns.yaml", "nouns"),
    "first_names": ("first_names.yaml", "names"),
    "verbs_transitive": ("verbs_transitive.yaml", "verbs"),
    "verbs_dative": ("verbs_dative.yaml", "verbs"),
    "verbs_ditransitive": ("verbs_ditransitive.yaml", "verbs_classes"),
    "direct_objects": ("direct_objects.yaml", "nouns_classes"),
}


def build(lexicon_dir: Path, check_only: bool = False) -> dict[str, Any]:
    """Build every German lexicon; return a report {name: counts}. Writes nothing when a
    check fails (LexiconError lists every problem)."""
    from ...writers import write_files_atomically

    curated = lexicon_dir / "de" / "curated"
    rows_by_lemma = _noun_index()
    rows_all: dict[str, list[dict]] = {}
    for row in german_nouns_rows():
        rows_all.setdefault(row["lemma"], []).append(row)
    outputs: dict[str, str] = {}
    report: dict[str, Any] = {}
    problems: list[str] = []
    verb_lists: dict[str, set[str]] = {}
    for name, (src_name, kind) in FILES.items():
        src = curated / src_name
        data = _load_yaml(src)
        before = len(problems)
        if kind == "nouns":
            entries = _build_nouns(data, rows_by_lemma, problems)
        elif kind == "nouns_classes":
            entries = _build_nouns(data, rows_by_lemma, problems, classes=True)
        elif kind == "names":
            entries = _build_names(data, rows_all, problems)
        else:
            entries = _build_verbs(data, problems, classes=(kind == "verbs_classes"))
            verb_lists[name] = {e["lemma"] for e in entries}
        problems[before:] = [f"{src_name}: {p}" for p in problems[before:]]
        _check_minimums(name, entries, problems)
        counts = _counts(name, entries)
        report[name] = counts
        meta = {
            "description": data.get("description", ""),
            "source": data.get("source", ""),
            "license": data.get("license", "CC BY-SA 4.0"),
            "criteria": data.get("criteria", ""),
            "rebuild": BUILD_COMMAND,
            "inputs": {
                "curated": f"lexicons/de/curated/{src_name}",
                "curated_sha256": hashlib.sha256(src.read_bytes()).hexdigest(),
                "german-nouns": german_nouns_version() if "noun" in kind else None,
                "ablaut": ablaut_version() if "verb" in kind else None,
            },
            "counts": counts,
        }
        if name in VERB_FRAMES:
            meta["frame"] = list(VERB_FRAMES[name])
        if data.get("excluded"):
            meta["excluded"] = data["excluded"]
        meta["inputs"] = {k: v for k, v in meta["inputs"].items() if v is not None}
        outputs[f"{name}.json"] = dump_lexicon(meta, entries)
    if problems:
        raise LexiconError(f"the build found {len(problems)} problem(s): " + "; ".join(problems),
                           str(curated))
    if not check_only:
        write_files_atomically(lexicon_dir / "de", outputs)
    return report

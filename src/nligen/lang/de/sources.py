"""Access to the German morphology sources: german-nouns (Wiktionary) and ablaut.

Used by the lexicon builder, and at run time only by ``gen wogli derive`` for words
that are not in the shipped lexicons. Both libraries are imported lazily, here only.
"""

from __future__ import annotations

import csv
from functools import lru_cache
from pathlib import Path
from typing import Iterator

from ...errors import LexiconError

_CASES = (("nom", "nominativ"), ("acc", "akkusativ"), ("dat", "dativ"), ("gen", "genitiv"))
_NUMBERS = (("sg", "singular"), ("pl", "plural"))
_VARIANTS = ("", " 1", " 2", " 3", " 4")
# Rows whose pos includes one of these are names or non-lexical items, not common nouns.
_NOT_COMMON = ("Vorname", "Nachname", "Toponym", "Eigenname", "Abkürzung", "Affix",
               "Suffix", "Gebundenes Lexem", "Buchstabe", "Symbol")


def _missing(what: str) -> LexiconError:
    return LexiconError(f"{what} is not installed (it comes with nligen): pip install {what}")


def german_nouns_csv() -> Path:
    try:
        import german_nouns  # noqa: F401  (the package ships the CSV next to its code)
        from german_nouns.config import CSV_FILE_PATH
    except ImportError:
        raise _missing("german-nouns") from None
    return Path(CSV_FILE_PATH)


def german_nouns_version() -> str:
    try:
        from importlib.metadata import version

        return version("german-nouns")
    except Exception:  # pragma: no cover - metadata missing
        return "unknown"


def ablaut_version() -> str:
    try:
        from importlib.metadata import version

        return version("ablaut")
    except Exception:  # pragma: no cover
        return "unknown"


@lru_cache(maxsize=1)
def german_nouns_rows() -> tuple[dict, ...]:
    with german_nouns_csv().open(encoding="utf-8", newline="") as fh:
        return tuple(csv.DictReader(fh))


def is_common_noun_row(row: dict) -> bool:
    pos = row.get("pos", "")
    parts = pos.split(",")
    return "Substantiv" in parts and not any(p in parts for p in _NOT_COMMON) \
        and "adjektivische Deklination" not in parts


def row_to_entries(row: dict) -> Iterator[dict]:
    """Turn one german-nouns row into lexicon entries (one per gender/form variant).

    A row may carry alternatives as numbered columns ('genus 1', 'nominativ plural 2'...);
    each complete combination becomes an entry. Entries lack a form when Wiktionary does.
    """
    lemma = row["lemma"]
    seen = set()
    for gv in _VARIANTS:
        gender = row.get(f"genus{gv}", "")
        if gender not in ("m", "f", "n"):
            continue
        for pv in _VARIANTS:
            entry = {"lemma": lemma, "gender": gender}
            complete = True
            for case_key, case_name in _CASES:
                for num_key, num_name in _NUMBERS:
                    base = f"{case_name} {num_name}"
                    variant = gv if num_key == "sg" else pv
                    form = (row.get(f"{base}{variant}") or row.get(base)
                            or row.get(f"{base} 1") or "")
                    if num_key == "pl" and pv and not row.get(f"{base}{pv}"):
                        complete = False
                    entry[f"{case_key}_{num_key}"] = form
            if pv and not complete:
                continue
            key = tuple(sorted(entry.items()))
            if key in seen:
                continue
            seen.add(key)
            yield entry


def declension(entry: dict) -> str:
    """'weak' for masculine n-declension (der Kunde / den Kunden), else 'strong' or the
    gender name: what decides whether the singular noun itself marks case."""
    if entry["gender"] == "m" and entry.get("acc_sg") and entry["acc_sg"] != entry["nom_sg"]:
        return "weak"
    return {"m": "strong", "f": "feminine", "n": "neuter"}[entry["gender"]]


@lru_cache(maxsize=1)
def german_nouns_index() -> dict[str, list[dict]]:
    """surface form -> common-noun entries having that form (any case/number)."""
    index: dict[str, list[dict]] = {}
    for row in german_nouns_rows():
        if not is_common_noun_row(row):
            continue
        for entry in row_to_entries(row):
            for key in ("nom_sg", "acc_sg", "dat_sg", "nom_pl", "acc_pl", "dat_pl"):
                form = entry.get(key)
                if form:
                    bucket = index.setdefault(form, [])
                    if entry not in bucket:
                        bucket.append(entry)
    return index


@lru_cache(maxsize=4096)
def ablaut_present(lemma: str) -> tuple[str, str]:
    """(3sg, 3pl) present forms of an infinitive, from ablaut."""
    try:
        import ablaut
    except ImportError:
        raise _missing("ablaut") from None
    try:
        table = ablaut.conjugate(lemma)
    except ValueError as exc:
        raise LexiconError(f"ablaut cannot conjugate {lemma!r}: {exc}") from None
    return table.present[2], table.present[5]


def weak_present(lemma: str) -> tuple[str, str]:
    """(3sg, 3pl) of the regular weak paradigm, for verbs whose transitive sense is weak
    while ablaut gives the strong intransitive one (erschrecken: erschreckt / erschrickt)."""
    if lemma.endswith(("eln", "ern")):
        stem = lemma[:-1]
    elif lemma.endswith("en"):
        stem = lemma[:-2]
    elif lemma.endswith("n"):
        stem = lemma[:-1]
    else:
        raise LexiconError(f"{lemma!r} is not a German infinitive")
    # -et after d/t, and after a consonant + m/n cluster (atmen: atmet, rechnen: rechnet).
    needs_e = stem.endswith(("d", "t")) or (
        len(stem) > 2 and stem[-1] in "mn" and stem[-2] not in "aeiouäöülrmnh")
    return stem + ("et" if needs_e else "t"), lemma


_VOWEL_BACK = (("ie", "e"), ("i", "e"), ("ä", "a"), ("äu", "au"), ("ö", "o"), ("ü", "u"))


def guess_infinitives(form: str) -> list[str]:
    """Candidate infinitives for a present 3sg/3pl form ("empfiehlt" -> "empfehlen")."""
    stems = {form}
    if form.endswith("et"):
        stems.add(form[:-2])
    if form.endswith("t"):
        stems.add(form[:-1])
    if form.endswith("en"):
        stems.add(form[:-2])
    if form.endswith("n"):
        stems.add(form[:-1])
    out: list[str] = []
    for stem in sorted(stems):
        variants = {stem}
        for a, b in _VOWEL_BACK:
            idx = stem.rfind(a)
            if idx >= 0:
                variants.add(stem[:idx] + b + stem[idx + len(a):])
        for v in sorted(variants):
            for ending in ("en", "n", "ern", "eln"):
                cand = v + ending if not v.endswith(ending) else v
                if cand not in out:
                    out.append(cand)
    if form not in out:
        out.insert(0, form)
    return out


def lemma_for_verb_form(form: str) -> tuple[str, str] | None:
    """(lemma, number) for a present 3sg/3pl verb form, via ablaut, or None."""
    for cand in guess_infinitives(form):
        try:
            sg, pl = ablaut_present(cand)
        except LexiconError:
            continue
        if " " in sg:
            continue  # separable verbs do not occur as one token
        if pl == form:
            return cand, "pl"
        if sg == form:
            return cand, "sg"
    return None

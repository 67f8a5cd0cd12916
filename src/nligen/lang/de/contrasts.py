"""German contrasts for minimal pairs: the deliberately wrong forms a pair template's
``contrast: {vary: SLOT, feature: F}`` writes in its bad sentence, and the checks that
the bad form is really not one the good sentence's cell allows.

Every wrong form is still built from paradigms (the determiner table, the lexicon's
noun cells, the verb's two present forms), never typed: a verb in the other number, a
noun phrase in another case, a determiner of another gender, a dative plural without
its -n, a weak masculine noun without its -en. The checks read the noun's whole
paradigm (both numbers), so that a "wrong" form that is right in another cell (*die
Lehrer* is the plural of *der Lehrer*; *den Kunden* is also the dative plural) never
becomes a bad sentence.
"""

from __future__ import annotations

from typing import Any

from ...errors import RenderError
from .. import Contrast
from .morphology import NUMBERS, PRONOUNS, NounPhrase, Verb, determiner


def _same(a: str, b: str) -> bool:
    """Equal but for the capital a sentence's first word takes."""
    return a[:1].lower() + a[1:] == b[:1].lower() + b[1:]


def _verb(value: Any) -> Verb:
    if not isinstance(value, Verb):
        raise RenderError(f"this contrast needs a verb slot (got {type(value).__name__})")
    return value


def _np(value: Any) -> NounPhrase:
    if not isinstance(value, NounPhrase):
        raise RenderError(f"this contrast needs a noun phrase slot (got {type(value).__name__})")
    return value


def _variant(np: NounPhrase, forms: dict[str, str], what: str) -> NounPhrase:
    """``np`` with other forms (same slot, fields and lemmas; its own key)."""
    return NounPhrase(np._slot_name, forms, np.gender, np.number, np.kind, np._fields,
                      identity=np._identity, lemmas=np._lemmas, key=f"{np._key}~{what}",
                      det=np.det, paradigm=np.paradigm)


def _phrase(det: str | None, gender: str, number: str, case: str, noun: str) -> str:
    d = determiner(det, gender, number, case) if det else None
    return f"{d} {noun}" if d else noun


def _cases_of(np: NounPhrase, text: str) -> list[str]:
    """The cases whose form the good sentence wrote."""
    return [c for c, form in np.forms.items() if _same(form, text)]


def _cell_forms(np: NounPhrase, cases: list[str]) -> set[str]:
    """Every form these cases take in the phrase's paradigm, in either number (with its
    determiner kind), or for a pronoun, of any personal pronoun."""
    if np.kind == "pronoun":
        return {forms[c] for forms in PRONOUNS.values() for c in cases}
    if np.kind != "noun" or np.paradigm is None:
        return {np.forms[c] for c in cases}
    out = set()
    for c in cases:
        for number in NUMBERS:
            noun = np.paradigm.get(f"{c}_{number}")
            if isinstance(noun, str) and not (np.det == "indef" and number == "pl"):
                out.add(_phrase(np.det, np.gender, number, c, noun))
    return out


ALL_CASES = ("nom", "acc", "dat", "gen")


def _not_in_cell(np: NounPhrase, good_text: str, bad_text: str, rule: str,
                 anywhere: bool = False) -> str | None:
    """Whether ``bad_text`` is no form the good text's cases allow (in either number);
    ``anywhere``: no form of the noun at all, so that a wrong gender or a missing -n is
    not read as a right form in another case (*dieses Kandidaten* is a genitive)."""
    cases = _cases_of(np, good_text)
    if not cases:
        return f"{good_text!r} is not a form of {np}"
    allowed = _cell_forms(np, list(ALL_CASES) if anywhere else cases)
    if any(_same(bad_text, form) for form in allowed):
        lemma = np.paradigm.get("lemma") if np.paradigm else np
        if anywhere:
            return (f"{bad_text!r} is a form of {lemma} in another case or number: not read "
                    f"as a {rule} error")
        return f"{bad_text!r} is a {'/'.join(cases)} form of {lemma} too: no {rule} error"
    return None


# -- the contrasts ------------------------------------------------------------------

def other_number(value: Any) -> Verb | None:
    """The verb with its singular and plural present forms swapped."""
    verb = _verb(value)
    if verb.forms["sg"] == verb.forms["pl"]:
        return None
    flipped = Verb(verb._slot_name, verb._fields)
    flipped.forms = {"sg": verb.forms["pl"], "pl": verb.forms["sg"]}
    flipped._key = f"{verb._key}~number"
    return flipped


def check_number(good: Any, good_text: str, bad_text: str, context=None,
                 sentences=None) -> str | None:
    verb = _verb(good)
    cells = {verb.forms["sg"]: "sg", verb.forms["pl"]: "pl"}
    if good_text not in cells or bad_text not in cells:
        return f"{good_text!r} / {bad_text!r} are not present forms of {verb._text}"
    if cells[good_text] == cells[bad_text]:
        return f"{bad_text!r} has the number its subject asks for"
    return _object_first_reading(context, sentences, cells[bad_text])


def _written(np: NounPhrase, sentence: str, case: str) -> bool:
    """Whether the phrase's ``case`` form stands in the sentence (as whole words)."""
    return f" {np.forms[case].lower()} " in f" {sentence.lower()} "


def _object_first_reading(context, sentences, number: str) -> str | None:
    """German puts objects first: the bad sentence is fine after all when a phrase of the
    bad verb's number is written in a form that is also its nominative (it can be the
    subject) and the good subject is written in a form that is also its accusative (it
    can be the object): *Jana ignorieren die Trainer* is "the coaches ignore Jana"."""
    if not context or not sentences:
        return None
    bad = sentences[1]
    nps = [v for v in context.values() if isinstance(v, NounPhrase)]
    # a phrase of the bad verb's number written as its nominative can be the subject...
    subjects = [v for v in nps if v.number == number and _written(v, bad, "nom")]
    # ...when the good subject, written as its nominative, is also its accusative
    objects = [v for v in nps if v.number != number and _written(v, bad, "nom")
               and v.forms["nom"] == v.forms["acc"]]
    if subjects and objects:
        return (f"{bad!r} reads with {subjects[0].forms['nom']!r} as its subject and "
                f"{objects[0].forms['acc']!r} as its object")
    return None


def in_case(value: Any, case: str) -> NounPhrase | None:
    """The phrase written in ``case`` wherever it stands."""
    np = _np(value)
    if case not in np.forms:
        raise RenderError(f"{np} has no {case} form")
    return _variant(np, {c: np.forms[case] for c in np.forms}, f"case:{case}")


def check_case(good: Any, good_text: str, bad_text: str, case: str, context=None,
               sentences=None) -> str | None:
    np = _np(good)
    found = _not_in_cell(np, good_text, bad_text, "case")
    if found is None and case == "nom" and context and sentences:
        # the object made nominative can be read as the subject when the real subject's
        # form is also an accusative and the verb fits both (*Diese Köchin vertritt er*:
        # "he stands in for this cook")
        for other in context.values():
            if isinstance(other, NounPhrase) and other is not np \
                    and other.number == np.number and _written(other, sentences[1], "nom") \
                    and other.forms["nom"] == other.forms["acc"]:
                return (f"{sentences[1]!r} reads with {bad_text!r} as its subject and "
                        f"{other.forms['acc']!r} as its object")
    return found


def other_gender(value: Any) -> NounPhrase | None:
    """A singular noun with the determiner of another gender (neuter, or masculine
    for a neuter noun)."""
    np = _np(value)
    if np.kind != "noun" or np.number != "sg" or not np.det or np.paradigm is None:
        return None
    gender = "m" if np.gender == "n" else "n"
    forms = {c: _phrase(np.det, gender, "sg", c, np.paradigm[f"{c}_sg"]) for c in np.forms}
    return _variant(np, forms, f"gender:{gender}")


def check_gender(good: Any, good_text: str, bad_text: str, context=None, sentences=None) -> str | None:
    return _not_in_cell(_np(good), good_text, bad_text, "gender agreement", anywhere=True)


def dative_without_n(value: Any) -> NounPhrase | None:
    """A dative plural with the nominative plural's noun (*den Kinder*)."""
    np = _np(value)
    p = np.paradigm
    if np.kind != "noun" or np.number != "pl" or p is None or p["nom_pl"] == p["dat_pl"]:
        return None
    forms = dict(np.forms)
    forms["dat"] = _phrase(np.det, np.gender, "pl", "dat", p["nom_pl"])
    return _variant(np, forms, "dative_n")


def check_dative_n(good: Any, good_text: str, bad_text: str, context=None, sentences=None) -> str | None:
    return _not_in_cell(_np(good), good_text, bad_text, "dative plural", anywhere=True)


def weak_as_strong(value: Any) -> NounPhrase | None:
    """A weak masculine noun without its -(e)n outside the nominative (*den Student*)."""
    np = _np(value)
    p = np.paradigm
    if np.kind != "noun" or np.number != "sg" or p is None or p.get("declension") != "weak":
        return None
    forms = {c: (f if c == "nom" else _phrase(np.det, np.gender, "sg", c, p["nom_sg"]))
             for c, f in np.forms.items()}
    if forms == np.forms:
        return None
    return _variant(np, forms, "weak")


def check_weak(good: Any, good_text: str, bad_text: str, context=None, sentences=None) -> str | None:
    return _not_in_cell(_np(good), good_text, bad_text, "weak declension", anywhere=True)


CONTRASTS = {
    "number": Contrast(other_number, check_number,
                       "the verb in the other number than its subject"),
    "case": Contrast(in_case, check_case, "the noun phrase in a case its position does not "
                     "take", args=("to",)),
    "gender": Contrast(other_gender, check_gender,
                       "a determiner of another gender than its noun"),
    "dative_n": Contrast(dative_without_n, check_dative_n,
                         "a dative plural without its -n"),
    "weak": Contrast(weak_as_strong, check_weak,
                     "a weak masculine noun without its -(e)n"),
}

"""German noun phrases, pronouns, verb agreement and the word-order ambiguity check.

Determiner forms come from paradigms (stem + ending tables), never from typed-out
phrase lists; noun forms come from the built lexicons (german-nouns), verb forms from
ablaut via the lexicon builder. Third person only: that is what NLI templates need.
"""

from __future__ import annotations

from typing import Any, Mapping

from ...datafiles import printable
from ...errors import LexiconError, RenderError
from ...slots import SlotValue

CASES = ("nom", "acc", "dat", "gen")
GENDERS = ("m", "f", "n")
NUMBERS = ("sg", "pl")

# Strong (pronominal) endings: the der-word paradigm (dieser, jener, jeder...).
# Keys: (gender or "pl", case).
_STRONG = {
    ("m", "nom"): "er", ("m", "acc"): "en", ("m", "dat"): "em", ("m", "gen"): "es",
    ("f", "nom"): "e", ("f", "acc"): "e", ("f", "dat"): "er", ("f", "gen"): "er",
    ("n", "nom"): "es", ("n", "acc"): "es", ("n", "dat"): "em", ("n", "gen"): "es",
    ("pl", "nom"): "e", ("pl", "acc"): "e", ("pl", "dat"): "en", ("pl", "gen"): "er",
}
# The definite article is the der-word paradigm on the stem "d" with three
# idiosyncratic cells (die for -e, das for neuter -es).
_DEFINITE_IRREGULAR = {
    ("f", "nom"): "die", ("f", "acc"): "die", ("pl", "nom"): "die", ("pl", "acc"): "die",
    ("n", "nom"): "das", ("n", "acc"): "das",
}
# ein-words take no ending where der-words have -er/-es in the nominative (and
# neuter accusative); elsewhere the strong endings.
_MIXED_BARE = {("m", "nom"), ("n", "nom"), ("n", "acc")}

DETERMINERS = {
    "def": "der",      # lemma of each determiner kind
    "indef": "ein",
    "dem": "dieser",
}


def determiner(kind: str, gender: str, number: str, case: str) -> str | None:
    """The determiner form, or None where the determiner has no such form (ein + plural)."""
    key = ("pl", case) if number == "pl" else (gender, case)
    if kind == "def":
        return _DEFINITE_IRREGULAR.get(key, "d" + _STRONG[key])
    if kind == "dem":
        return "dies" + _STRONG[key]
    if kind == "indef":
        if number == "pl":
            return None
        return "ein" if key in _MIXED_BARE else "ein" + _STRONG[key]
    raise ValueError(f"unknown determiner kind {kind!r}")


def determiner_analyses() -> dict[str, list[tuple[str, str, str, str]]]:
    """form -> [(kind, gender or 'pl', number, case)] for every determiner form."""
    out: dict[str, list[tuple[str, str, str, str]]] = {}
    for kind in DETERMINERS:
        for number in NUMBERS:
            for gender in (GENDERS if number == "sg" else ("pl",)):
                for case in CASES:
                    form = determiner(kind, gender if number == "sg" else "m", number, case)
                    if form is not None:
                        out.setdefault(form, []).append((kind, gender, number, case))
    return out


# Personal pronouns, third person: a closed class, so a table.
PRONOUNS = {
    ("m", "sg"): {"nom": "er", "acc": "ihn", "dat": "ihm", "gen": "seiner"},
    ("f", "sg"): {"nom": "sie", "acc": "sie", "dat": "ihr", "gen": "ihrer"},
    ("n", "sg"): {"nom": "es", "acc": "es", "dat": "ihm", "gen": "seiner"},
    ("pl", "pl"): {"nom": "sie", "acc": "sie", "dat": "ihnen", "gen": "ihrer"},
}
PRONOUN_LEMMAS = {("m", "sg"): "er", ("f", "sg"): "sie", ("n", "sg"): "es", ("pl", "pl"): "sie"}


class NounPhrase(SlotValue):
    """A third-person noun phrase with its forms in every case it is used in."""

    __slots__ = ("forms", "gender", "number", "kind", "det", "paradigm")

    def __init__(self, slot: str, forms: Mapping[str, str], gender: str, number: str,
                 kind: str, fields: Mapping[str, Any], identity: str,
                 lemmas: tuple[str, ...], key: str, det: str | None = None,
                 paradigm: Mapping[str, Any] | None = None):
        super().__init__(slot, forms["nom"], fields, identity=identity, lemmas=lemmas, key=key)
        self.forms = dict(forms)
        self.gender = gender
        self.number = number
        self.kind = kind  # "noun" | "name" | "pronoun"
        self.det = det  # the determiner kind (def, indef, dem) or None
        # the noun's lexicon entry (nom_sg ... gen_pl): the cells a minimal pair's bad
        # form is checked against (nligen.lang.de.contrasts)
        self.paradigm = paradigm

    def _make_provenance(self) -> dict:
        out = super()._make_provenance()
        out["kind"] = self.kind
        out["forms"] = dict(self.forms)
        return out

    def form(self, case: str) -> str:
        try:
            return self.forms[case]
        except KeyError:
            raise RenderError(f"{self._text!r} has no {case} form") from None


def _text_field(entry: Mapping[str, Any], key: str, lexicon: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value:
        what = "lacks" if value in (None, "") else "has a non-text"
        raise LexiconError(f"entry {printable(str(entry.get('lemma', entry.get('name', '?'))))!r} "
                           f"{what} the form {key}", lexicon or None)
    return value


def noun_phrase(slot: str, entry: Mapping[str, Any], det: str | None, number: str,
                lexicon: str = "") -> NounPhrase:
    """Build a determiner + noun phrase from a noun lexicon entry (forms nom_sg...dat_pl)."""
    _text_field(entry, "lemma", lexicon)
    gender = entry.get("gender")
    if gender not in GENDERS:
        raise LexiconError(f"entry {entry['lemma']!r} needs gender m, f or n", lexicon or None)
    forms = {}
    for case in ("nom", "acc", "dat"):
        noun = _text_field(entry, f"{case}_{number}", lexicon)
        d = determiner(det, gender, number, case) if det else None
        forms[case] = f"{d} {noun}" if d else noun
    fields = {"lemma": entry["lemma"], "gender": gender, "number": number,
              "determiner": det, "noun": entry[f"nom_{number}"]}
    for extra in ("gloss", "declension"):
        if extra in entry:
            fields[extra] = entry[extra]
    return NounPhrase(slot, forms, gender, number, "noun", fields, identity=entry["lemma"],
                      lemmas=(entry["lemma"],), key=f"{det}:{entry['lemma']}:{number}",
                      det=det, paradigm=entry)


def name_phrase(slot: str, entry: Mapping[str, Any], lexicon: str = "") -> NounPhrase:
    name = _text_field(entry, "name", lexicon)
    forms = {"nom": name, "acc": name, "dat": name}
    fields = {"lemma": name, "gender": entry["gender"], "number": "sg", "determiner": None,
              "noun": name}
    return NounPhrase(slot, forms, entry["gender"], "sg", "name", fields, identity=name,
                      lemmas=(name,), key=f"name:{name}")


def pronoun_phrase(slot: str, gender: str, number: str) -> NounPhrase:
    key = ("pl", "pl") if number == "pl" else (gender, "sg")
    forms = {c: PRONOUNS[key][c] for c in ("nom", "acc", "dat")}
    lemma = PRONOUN_LEMMAS[key]
    fields = {"lemma": lemma, "gender": gender if number == "sg" else None, "number": number,
              "determiner": None, "noun": None}
    np = NounPhrase(slot, forms, gender, number, "pronoun", fields,
                    identity=f"pron:{lemma}:{number}", lemmas=(), key=f"pron:{key[0]}:{number}")
    np._pattern = f"pronoun_{lemma}_{number}"  # "sie" stands for sing_fem and pnoun alike
    return np


class Verb(SlotValue):
    __slots__ = ("forms",)

    def __init__(self, slot: str, entry: Mapping[str, Any], lexicon: str = ""):
        for k in ("lemma", "pres_3sg", "pres_3pl"):
            _text_field(entry, k, lexicon)
        super().__init__(slot, entry["lemma"], entry, identity=entry["lemma"],
                         lemmas=(entry["lemma"],), key=f"verb:{entry['lemma']}")
        self.forms = {"sg": entry["pres_3sg"], "pl": entry["pres_3pl"]}

    def agree(self, subject: NounPhrase) -> str:
        return self.forms[subject.number]


# -- filters ------------------------------------------------------------------------

def _np(value: Any, filt: str) -> NounPhrase:
    if not isinstance(value, NounPhrase):
        raise RenderError(f"the {filt} filter needs a noun phrase slot (got {type(value).__name__})")
    return value


def nom(value: Any) -> str:
    return _np(value, "nom").form("nom")


def acc(value: Any) -> str:
    return _np(value, "acc").form("acc")


def dat(value: Any) -> str:
    return _np(value, "dat").form("dat")


def gen(value: Any) -> str:
    """A noun phrase in the genitive (der Freund *der Kinder*), from its noun's paradigm
    and the determiner table (names and pronouns have none here)."""
    np = _np(value, "gen")
    if "gen" in np.forms:
        return np.forms["gen"]
    if np.kind != "noun" or np.paradigm is None or not np.det:
        raise RenderError(f"{np._text!r} has no genitive here (a noun with a determiner has)")
    d = determiner(np.det, np.gender, np.number, "gen")
    noun = np.paradigm.get(f"gen_{np.number}")
    if not d or not isinstance(noun, str):
        raise RenderError(f"{np._text!r} has no genitive form")
    return f"{d} {noun}"


def agree(verb: Any, subject: Any) -> str:
    """Present-tense form of ``verb`` agreeing with ``subject`` (3sg / 3pl)."""
    if not isinstance(verb, Verb):
        raise RenderError(f"the agree filter needs a verb slot (got {type(verb).__name__})")
    return verb.agree(_np(subject, "agree"))


def _number_of(value: Any) -> Any:
    return getattr(value, "number", None)


# What agree reads of its subject: only the number (the engine remembers its forms by
# verb and number; a value of another type is never taken for a noun phrase).
agree.argument_reads = (_number_of,)

FILTERS = {"nom": nom, "acc": acc, "dat": dat, "gen": gen, "agree": agree}


# -- ambiguity ----------------------------------------------------------------------

def marked_order_is_disambiguated(subject: NounPhrase, obj: NounPhrase, case: str) -> bool:
    """Whether "OBJ[case] V(subject) SUBJECT[nom]" cannot be read with OBJ as subject.

    The object-first sentence is ambiguous exactly when the object's ``case`` form equals
    its nominative, the subject's nominative equals its ``case`` form, and the verb has
    the same form for both (same number): then the same string is also the canonical
    sentence with the roles swapped.
    """
    obj_unmarked = obj.form(case) == obj.form("nom")
    subj_unmarked = subject.form("nom") == subject.form(case)
    verb_unmarked = subject.number == obj.number
    return not (obj_unmarked and subj_unmarked and verb_unmarked)


def _signature(np: NounPhrase, case: str) -> tuple:
    return (np.form(case) == np.form("nom"), np.number)


def _validate_disambiguated(args: Mapping[str, Any], slots: Mapping[str, Any]) -> str | None:
    """Problems with the check's arguments (None when fine): called when a template loads."""
    for role in ("subject", "object"):
        slot = args.get(role)
        if not isinstance(slot, str) or slot not in slots:
            return f"{role} must name a slot of the template"
        if slots[slot].kind != "de.np" or slots[slot].slot_refs:
            return f"{role} must be an np slot that depends on no other slot"
    if args.get("case", "acc") not in ("acc", "dat"):
        return "case must be acc or dat"
    extra = set(args) - {"subject", "object", "case"}
    if extra:
        return f"unknown argument(s) {', '.join(sorted(map(str, extra)))}"
    return None


def disambiguated_check(options: Mapping[str, list], args: Mapping[str, Any]) -> bool:
    """Variant check ``de.disambiguated``: keep a variant when EVERY filling of its
    ``subject`` and ``object`` slots makes the object-first order unambiguous.

    args: ``subject`` (slot), ``object`` (slot), ``case`` (acc | dat).
    """
    case = args.get("case", "acc")
    subjects = options[args["subject"]]
    objects = options[args["object"]]
    if not subjects or not objects:
        return False
    # One representative per morphological signature keeps this linear in option counts.
    reps_s = {_signature(s, case): s for s in subjects}
    reps_o = {_signature(o, case): o for o in objects}
    return all(marked_order_is_disambiguated(s, o, case)
               for s in reps_s.values() for o in reps_o.values())


disambiguated_check.validate = _validate_disambiguated

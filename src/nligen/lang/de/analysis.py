"""Analysing simple German clauses back into noun phrases and verbs.

Two users: the ``same_lemmas`` pair check (premise and hypotheses must contain the same
lemmas) and clause analysis for deriving hypotheses from released premises. Words come
from the loaded German lexicons first; unknown nouns and verbs fall back to german-nouns
and ablaut (loaded lazily, only then).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable

from ...errors import AnalysisError, LexiconError
from .morphology import (
    DETERMINERS, PRONOUN_LEMMAS, PRONOUNS, NounPhrase, Verb, determiner_analyses,
    name_phrase, noun_phrase, pronoun_phrase,
)

_DET = determiner_analyses()
_PRONOUN_READINGS: dict[str, list[tuple[str, str, str]]] = {}
for (_g, _n), _forms in PRONOUNS.items():
    for _case, _form in _forms.items():
        if _case != "gen":
            _PRONOUN_READINGS.setdefault(_form, []).append((_g if _n == "sg" else "m", _n, _case))
_PRONOUN_LEMMA = {f: PRONOUN_LEMMAS[key] for key, forms in PRONOUNS.items()
                  for c, f in forms.items() if c != "gen"}
_NOUN_KEYS = ("nom_sg", "acc_sg", "dat_sg", "nom_pl", "acc_pl", "dat_pl")


def tokenize(text: str) -> list[str]:
    tokens = text.split()
    if tokens and tokens[-1] == ".":
        tokens = tokens[:-1]
    elif tokens and tokens[-1].endswith(".") and len(tokens[-1]) > 1:
        tokens[-1] = tokens[-1][:-1]
    return tokens


@dataclass
class WordIndex:
    """Surface form -> lexicon entries, for nouns, names and verbs."""

    nouns: dict[str, list[dict]] = field(default_factory=dict)
    names: dict[str, dict] = field(default_factory=dict)
    verbs: dict[str, list[tuple[dict, str]]] = field(default_factory=dict)

    def add_lexicon_entries(self, entries: Iterable[dict]) -> None:
        for e in entries:
            if "nom_sg" in e and "gender" in e:
                for key in _NOUN_KEYS:
                    if e.get(key):
                        bucket = self.nouns.setdefault(e[key], [])
                        if e not in bucket:
                            bucket.append(e)
            elif "name" in e and "gender" in e:
                self.names.setdefault(e["name"], e)
            elif "pres_3sg" in e and "pres_3pl" in e:
                for form, number in ((e["pres_3sg"], "sg"), (e["pres_3pl"], "pl")):
                    bucket = self.verbs.setdefault(form, [])
                    if all(x[0]["lemma"] != e["lemma"] for x in bucket):
                        bucket.append((e, number))

    frames: dict[str, set[tuple[str, ...]]] = field(default_factory=dict)  # verb lemma -> frames

    @classmethod
    def from_lexicons(cls, lexicons) -> "WordIndex":
        index = cls()
        for name in lexicons.available():
            # de/curated/* are the builder's inputs (lemma lists without forms), not lexicons.
            if name.startswith("de/") and not name.startswith("de/curated/"):
                lex = lexicons.get(name, track=False)  # the analyser checks, it does not generate
                index.add_lexicon_entries(lex.entries)
                frame = lex.meta.get("frame")
                if frame:
                    for e in lex.entries:
                        if "lemma" in e:
                            index.frames.setdefault(e["lemma"], set()).add(tuple(frame))
        return index


class LemmaAnalyser:
    """text -> lemmas, one per token (determiners, pronouns, nouns, names, verbs).

    One lookup table: a token that is ambiguous between lemmas maps to "A|B", so the same
    surface word always counts as the same lemma on both sides of a comparison.
    """

    def __init__(self, index: WordIndex):
        self.index = index
        table: dict[str, set[str]] = {}

        def add(form: str, lemma: str) -> None:
            table.setdefault(form, set()).add(lemma)

        for e, _ in (x for bucket in index.verbs.values() for x in bucket):
            add(e["pres_3sg"], e["lemma"])
            add(e["pres_3pl"], e["lemma"])
        for form, entries in index.nouns.items():
            for e in entries:
                add(form, e["lemma"])
        for name in index.names:
            add(name, name)
        # Function words last: they win over a homographic content word.
        function_words: dict[str, str] = {}
        for form, readings in _DET.items():
            function_words[form] = DETERMINERS[readings[0][0]]
        function_words.update(_PRONOUN_LEMMA)
        self.table = {form: "|".join(sorted(lemmas)) for form, lemmas in table.items()}
        self.table.update(function_words)
        self.function_words = function_words

    @classmethod
    def from_lexicons(cls, lexicons) -> "LemmaAnalyser":
        return cls(WordIndex.from_lexicons(lexicons))

    def lemma(self, token: str, initial: bool) -> str:
        if initial:
            low = token[:1].lower() + token[1:]
            if low in self.function_words:
                return self.function_words[low]
            if low in self.table and token not in self.table:
                return self.table[low]
        return self.table.get(token, token)

    def __call__(self, text: str) -> list[str]:
        tokens = tokenize(text)
        if not tokens:
            return []
        table = self.table  # a token after the first is looked up as it stands
        return [self.lemma(tokens[0], True), *[table.get(t, t) for t in tokens[1:]]]


# -- clause analysis --------------------------------------------------------------------

@dataclass
class NPReading:
    np: NounPhrase
    case: str
    np_type: str
    end: int  # index after the phrase's last token
    source: str  # "lexicon" | "german-nouns" | "name" | "pronoun"


@dataclass
class ClauseReading:
    subject: NPReading
    verb: Verb
    objects: list[NPReading]  # in surface order after the verb

    @property
    def frame(self) -> tuple[str, ...]:
        return tuple(o.case for o in self.objects)


def np_type_of(np: NounPhrase) -> str:
    if np.kind == "name":
        return "pnoun"
    number = "sing" if np.number == "sg" else "plural"
    gender = {"m": "masc", "f": "fem", "n": "neut"}.get(np.gender, "masc")
    return f"{number}_{gender}"


class ClauseAnalyser:
    """Finds the readings of "NP V NP [NP]" clauses (SVO, S V IO DO)."""

    def __init__(self, index: WordIndex, fallback: bool = True):
        self.index = index
        self.fallback = fallback

    def _noun_entries(self, token: str) -> tuple[list[dict], str]:
        entries = self.index.nouns.get(token)
        if entries:
            return entries, "lexicon"
        if self.fallback:
            from .sources import german_nouns_index

            entries = german_nouns_index().get(token)
            if entries:
                return entries, "german-nouns"
        return [], ""

    def noun_phrases(self, tokens: list[str], i: int, slot: str) -> list[NPReading]:
        if i >= len(tokens):
            return []
        tok = tokens[i]
        low = tok[:1].lower() + tok[1:] if i == 0 else tok
        out: list[NPReading] = []
        if low in _DET:
            if i + 1 >= len(tokens):
                return []
            noun = tokens[i + 1]
            entries, source = self._noun_entries(noun)
            for kind, dgender, dnumber, dcase in _DET[low]:
                if dcase == "gen":
                    continue
                for e in entries:
                    key = f"{dcase}_{dnumber}"
                    if e.get(key) != noun:
                        continue
                    if dnumber == "sg" and e["gender"] != dgender:
                        continue
                    try:
                        np = noun_phrase(slot, e, kind, dnumber)
                    except LexiconError:
                        continue
                    if np.form(dcase) != f"{low} {noun}":
                        continue
                    out.append(NPReading(np, dcase, np_type_of(np), i + 2, source))
            return _dedupe(out)
        if low in _PRONOUN_READINGS:
            for gender, number, case in _PRONOUN_READINGS[low]:
                np = pronoun_phrase(slot, gender, number)
                ptype = ("sing_masc" if gender == "m" else "sing_fem" if gender == "f"
                         else "sing_neut") if number == "sg" else "plural"
                out.append(NPReading(np, case, ptype, i + 1, "pronoun"))
            return out
        if tok[:1].isupper():
            entry = self.index.names.get(tok) or {"name": tok, "gender": "?"}
            np = name_phrase(slot, entry)
            for case in ("nom", "acc", "dat"):
                out.append(NPReading(np, case, "pnoun", i + 1, "name"))
        return out

    def verbs(self, token: str, verb_lemma: str | None) -> list[tuple[Verb, str]]:
        found = self.index.verbs.get(token, [])
        if verb_lemma:
            found = [(e, n) for e, n in found if e["lemma"] == verb_lemma]
        if found:
            return [(Verb("V", e), n) for e, n in found]
        if not self.fallback or not token.islower() or token in _auxiliary_forms():
            return []  # finite verbs after the subject are lower case; no auxiliaries
        from .sources import ablaut_present, lemma_for_verb_form, weak_present

        if verb_lemma:
            lemma = verb_lemma
            # The weak paradigm only when the lemma is given: transitive erschrecken is
            # weak (erschreckt) where ablaut gives the strong intransitive erschrickt.
            paradigms = (ablaut_present, weak_present)
        else:
            guess = lemma_for_verb_form(token)
            if guess is None:
                return []
            lemma = guess[0]
            paradigms = (ablaut_present,)
        out = []
        for paradigm in paradigms:
            try:
                sg, pl = paradigm(lemma)
            except LexiconError:
                continue
            entry = {"lemma": lemma, "pres_3sg": sg, "pres_3pl": pl}
            out = [(Verb("V", entry), n) for n, f in (("sg", sg), ("pl", pl)) if f == token]
            if out:
                break
        return out

    def analyse(self, text: str, verb_lemma: str | None = None,
                slots: tuple[str, ...] = ("S", "O", "DO")) -> list[ClauseReading]:
        tokens = tokenize(text)
        if len(tokens) < 3:
            raise AnalysisError(f"too short for a clause: {text!r}")
        readings: list[ClauseReading] = []
        for subj in self.noun_phrases(tokens, 0, slots[0]):
            if subj.case != "nom" or subj.end >= len(tokens):
                continue
            verbs = self.verbs(tokens[subj.end], verb_lemma)
            for verb, vnum in verbs:
                if vnum != subj.np.number:
                    continue
                start = subj.end + 1
                for objs in self._objects(tokens, start, slots[1:]):
                    readings.append(ClauseReading(subj, verb, objs))
        return readings

    def _objects(self, tokens, i, slots) -> list[list[NPReading]]:
        out = []
        for first in self.noun_phrases(tokens, i, slots[0]):
            if first.case not in ("acc", "dat"):
                continue
            if first.end == len(tokens):
                out.append([first])
            elif len(slots) > 1:
                for second in self.noun_phrases(tokens, first.end, slots[1]):
                    if first.case == "dat" and second.case == "acc" and second.end == len(tokens):
                        out.append([first, second])
        return out


# Auxiliaries and modals head no SVO clause with two noun-phrase arguments.
AUXILIARIES = ("sein", "haben", "werden", "können", "müssen", "sollen", "wollen", "dürfen")


@lru_cache(maxsize=1)
def _auxiliary_forms() -> frozenset[str]:
    from .sources import ablaut_present

    forms = set()
    for lemma in AUXILIARIES:
        forms.update(ablaut_present(lemma))
    return frozenset(forms)


def _dedupe(readings: list[NPReading]) -> list[NPReading]:
    seen = set()
    out = []
    for r in readings:
        key = (r.np.forms["nom"], r.np.forms["acc"], r.np.forms["dat"], r.np.number, r.case,
               r.np.gender)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


__all__ = ["LemmaAnalyser", "ClauseAnalyser", "ClauseReading", "NPReading", "WordIndex",
           "np_type_of", "tokenize"]

"""The German layer: paradigms, noun phrases, agreement, ambiguity, pattern computation."""

from __future__ import annotations

import pytest

from nligen.engine import Engine, Selection
from nligen.lang.de.morphology import (
    determiner, marked_order_is_disambiguated, name_phrase, noun_phrase, pronoun_phrase,
)

ARZT = {"lemma": "Arzt", "gender": "m", "nom_sg": "Arzt", "acc_sg": "Arzt", "dat_sg": "Arzt",
        "nom_pl": "Ärzte", "acc_pl": "Ärzte", "dat_pl": "Ärzten"}
KUNDE = {"lemma": "Kunde", "gender": "m", "nom_sg": "Kunde", "acc_sg": "Kunden",
         "dat_sg": "Kunden", "nom_pl": "Kunden", "acc_pl": "Kunden", "dat_pl": "Kunden"}
LEHRERIN = {"lemma": "Lehrerin", "gender": "f", "nom_sg": "Lehrerin", "acc_sg": "Lehrerin",
            "dat_sg": "Lehrerin", "nom_pl": "Lehrerinnen", "acc_pl": "Lehrerinnen",
            "dat_pl": "Lehrerinnen"}
GELD = {"lemma": "Geld", "gender": "n", "nom_sg": "Geld", "acc_sg": "Geld", "dat_sg": "Geld",
        "nom_pl": "Gelder", "acc_pl": "Gelder", "dat_pl": "Geldern"}

# The standard German determiner tables, as grammar books print them.
TABLE = {
    "def": {"m": "der den dem des", "f": "die die der der", "n": "das das dem des",
            "pl": "die die den der"},
    "indef": {"m": "ein einen einem eines", "f": "eine eine einer einer",
              "n": "ein ein einem eines"},
    "dem": {"m": "dieser diesen diesem dieses", "f": "diese diese dieser dieser",
            "n": "dieses dieses diesem dieses", "pl": "diese diese diesen dieser"},
}


@pytest.mark.parametrize("kind", TABLE)
def test_determiner_paradigms_match_the_grammar_tables(kind):
    for gender, forms in TABLE[kind].items():
        number = "pl" if gender == "pl" else "sg"
        got = [determiner(kind, "m" if gender == "pl" else gender, number, case)
               for case in ("nom", "acc", "dat", "gen")]
        assert got == forms.split()
    assert determiner("indef", "m", "pl", "nom") is None


def test_noun_phrases_weak_masculine_and_dative_plural():
    assert noun_phrase("O", KUNDE, "def", "sg").forms == {
        "nom": "der Kunde", "acc": "den Kunden", "dat": "dem Kunden"}
    assert noun_phrase("O", ARZT, "indef", "sg").forms == {
        "nom": "ein Arzt", "acc": "einen Arzt", "dat": "einem Arzt"}
    assert noun_phrase("O", ARZT, "dem", "pl").forms == {
        "nom": "diese Ärzte", "acc": "diese Ärzte", "dat": "diesen Ärzten"}
    assert noun_phrase("O", LEHRERIN, "def", "sg").forms["dat"] == "der Lehrerin"
    assert noun_phrase("O", GELD, "def", "sg").forms["acc"] == "das Geld"


def test_pronouns_and_names():
    assert pronoun_phrase("S", "m", "sg").forms == {"nom": "er", "acc": "ihn", "dat": "ihm"}
    assert pronoun_phrase("S", "f", "sg").forms == {"nom": "sie", "acc": "sie", "dat": "ihr"}
    assert pronoun_phrase("S", "m", "pl").forms == {"nom": "sie", "acc": "sie", "dat": "ihnen"}
    assert name_phrase("S", {"name": "Maria", "gender": "f"}).forms["dat"] == "Maria"


def test_verb_agreement_uses_the_lexicon_forms(shipped_lexicons):
    from nligen.lang.de.morphology import Verb

    verbs = {e["lemma"]: e for e in shipped_lexicons.get("de/verbs_transitive").entries}
    empfehlen = Verb("V", verbs["empfehlen"])
    assert empfehlen.agree(noun_phrase("S", ARZT, "def", "sg")) == "empfiehlt"
    assert empfehlen.agree(noun_phrase("S", ARZT, "def", "pl")) == "empfehlen"
    assert Verb("V", verbs["erschrecken"]).forms["sg"] == "erschreckt"


def test_ambiguity_check():
    fem = noun_phrase("S", LEHRERIN, "def", "sg")
    name = name_phrase("O", {"name": "David", "gender": "m"})
    masc = noun_phrase("O", ARZT, "def", "sg")
    plural = noun_phrase("O", LEHRERIN, "def", "pl")
    assert not marked_order_is_disambiguated(fem, name, "acc")   # Die Lehrerin begrüßt David
    assert marked_order_is_disambiguated(fem, masc, "acc")       # den Arzt
    assert marked_order_is_disambiguated(fem, plural, "acc")     # verb number differs
    other = name_phrase("S", {"name": "Maria", "gender": "f"})
    assert not marked_order_is_disambiguated(other, name, "dat")  # names never mark case
    assert marked_order_is_disambiguated(fem, name, "dat")       # die Lehrerin is no dative
    assert marked_order_is_disambiguated(name, fem, "dat")       # der Lehrerin (dative)


# Reinig & Markert (2023), appendix A, table 6.
PAPER_ACCUSATIVE = {
    "pnoun_v_sing_masc", "pnoun_v_plural_masc", "pnoun_v_plural_fem", "plural_masc_v_pnoun",
    "plural_masc_v_sing_masc", "plural_masc_v_sing_fem", "plural_fem_v_sing_masc",
    "plural_fem_v_sing_fem", "plural_fem_v_pnoun", "sing_masc_v_sing_masc",
    "sing_masc_v_plural_masc", "sing_masc_v_plural_fem", "sing_masc_v_sing_fem",
    "sing_masc_v_pnoun", "sing_fem_v_sing_masc", "sing_fem_v_plural_fem",
    "sing_fem_v_plural_masc",
}
# Table 7: the eight excluded patterns.
PAPER_EXCLUDED = {
    "sing_fem_v_pnoun", "pnoun_v_sing_fem", "pnoun_v_pnoun", "sing_fem_v_sing_fem",
    "plural_fem_v_plural_fem", "plural_masc_v_plural_masc", "plural_masc_v_plural_fem",
    "plural_fem_v_plural_masc",
}
TYPES = ("pnoun", "sing_masc", "sing_fem", "plural_masc", "plural_fem")
PAPER_DATIVE = {f"{s}_v_{o}" for s in TYPES for o in TYPES} - {"pnoun_v_pnoun"}


def computed_patterns(wogli_set, shipped_lexicons, template_id, suffix=""):
    engine = Engine(wogli_set, shipped_lexicons, 0, Selection(templates=[template_id]))
    return {v.name[: len(v.name) - len(suffix)] if suffix else v.name for v in engine.variants}


def test_patterns_are_computed_from_morphology(wogli_set, shipped_lexicons):
    acc = computed_patterns(wogli_set, shipped_lexicons, "wogli.accusative")
    assert acc == PAPER_ACCUSATIVE
    assert len(acc) == 17 and not acc & PAPER_EXCLUDED
    assert computed_patterns(wogli_set, shipped_lexicons, "wogli.p_subject") == PAPER_ACCUSATIVE
    dat = computed_patterns(wogli_set, shipped_lexicons, "wogli.dative", "_dative")
    assert dat == PAPER_DATIVE and len(dat) == 24
    ditrans = computed_patterns(wogli_set, shipped_lexicons, "wogli.ditransitive", "_ditrans")
    assert ditrans == PAPER_DATIVE


def test_template_patterns_are_not_listed_by_hand(wogli_set):
    for t in wogli_set.templates:
        assert t.variants.only is None
        assert t.variants.keep, f"{t.id} must compute its patterns with a check"

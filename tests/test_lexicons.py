"""The shipped German lexicons: sizes, provenance, non-symmetric verbs, forms from the
paradigms, and a byte-identical rebuild."""

from __future__ import annotations

import shutil

import pytest

from nligen.data import lexicons_dir
from nligen.lang.de.build import MINIMUMS, build
from nligen.lang.de.sources import ablaut_present

NAMES = ("nouns_human", "first_names", "verbs_transitive", "verbs_dative",
         "verbs_ditransitive", "direct_objects")


@pytest.fixture(scope="module")
def lexicons(shipped_lexicons):
    return {name: shipped_lexicons.get(f"de/{name}") for name in NAMES}


def test_sizes_meet_the_minimums(lexicons):
    for name, minimums in MINIMUMS.items():
        entries = lexicons[name].entries
        for key, minimum in minimums.items():
            have = len(entries) if key == "all" else sum(e["gender"] == key for e in entries)
            assert have >= minimum, (name, key, have)
    classes = {e["class"] for e in lexicons["verbs_ditransitive"].entries}
    assert classes == {"giving", "taking", "sending", "communication", "secret"}
    for cls in classes:
        objects = [e for e in lexicons["direct_objects"].entries if cls in e["classes"]]
        assert len(objects) >= 10, cls


def test_every_file_states_source_license_and_rebuild_command(lexicons):
    for lex in lexicons.values():
        assert lex.meta["source"] and lex.meta["license"] == "CC BY-SA 4.0"
        assert lex.meta["rebuild"] == "gen lexicon build-de"
        assert lex.meta["criteria"]


def test_verbs_are_non_symmetric_non_separable_and_conjugated_by_ablaut(lexicons):
    for name in ("verbs_transitive", "verbs_dative", "verbs_ditransitive"):
        lex = lexicons[name]
        excluded = {e["lemma"] for e in lex.meta.get("excluded", [])}
        assert {"heiraten", "treffen"} & excluded or name != "verbs_transitive"
        assert "non-symmetric" in lex.meta["criteria"].lower() or "symmetric" in lex.meta["criteria"]
        for e in lex.entries:
            assert e["lemma"] not in excluded
            assert " " not in e["pres_3sg"] and e["pres_3sg"] != e["pres_3pl"]
            if e.get("conjugation") != "weak":
                assert (e["pres_3sg"], e["pres_3pl"]) == ablaut_present(e["lemma"])
    symmetric = {"heiraten", "treffen", "begegnen", "ähneln", "gleichen", "küssen", "umarmen"}
    for name in ("verbs_transitive", "verbs_dative", "verbs_ditransitive"):
        assert not symmetric & {e["lemma"] for e in lexicons[name].entries}


def test_noun_forms_are_complete_and_consistent(lexicons):
    for name in ("nouns_human", "direct_objects"):
        for e in lexicons[name].entries:
            for key in ("nom_sg", "acc_sg", "dat_sg", "nom_pl", "acc_pl", "dat_pl"):
                assert e[key], (e["lemma"], key)
            if e["declension"] == "weak":
                assert e["acc_sg"] == e["dat_sg"] != e["nom_sg"]
            if name == "nouns_human":  # dative plural -n (not after -n or -s plurals)
                plural = e["nom_pl"]
                assert e["dat_pl"] == (plural if plural.endswith(("n", "s")) else plural + "n")
    nouns = {e["lemma"] for e in lexicons["nouns_human"].entries}
    names = {e["name"] for e in lexicons["first_names"].entries}
    assert not nouns & names


def test_rebuild_is_byte_identical(tmp_path):
    src = lexicons_dir()
    (tmp_path / "de").mkdir()
    shutil.copytree(src / "de" / "curated", tmp_path / "de" / "curated")
    report = build(tmp_path)
    assert report["verbs_transitive"]["all"] >= 80
    for name in NAMES:
        assert (tmp_path / "de" / f"{name}.json").read_bytes() == \
            (src / "de" / f"{name}.json").read_bytes(), name

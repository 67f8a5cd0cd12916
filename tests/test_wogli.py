"""The WOGLI family: generation invariants, TSV layout, and derive against the released
samples in ../shared/reference/wogli."""

from __future__ import annotations

import csv
import json
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import run_gen
from nligen.families import wogli
from nligen.lang.de.analysis import LemmaAnalyser

SETS = ("wogli", "os_hard", "p_subject", "dative", "ditransitive")
SAMPLE_FILES = {
    "wogli_sample.tsv": "H1", "wogli_OS_hard_sample.tsv": "H3",
    "wogli_p_subject_sample.tsv": "H1", "wogli_dative_sample.tsv": "H1",
    "wogli_ditransitive_sample.tsv": "H1",
}


def read_tsv(path):
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


@pytest.fixture(scope="module")
def deriver():
    return wogli.Deriver()


@pytest.fixture(scope="module")
def analyser(shipped_lexicons):
    return LemmaAnalyser.from_lexicons(shipped_lexicons)


@pytest.mark.parametrize("name", sorted(SAMPLE_FILES))
def test_derive_reproduces_every_released_hypothesis(reference, deriver, name):
    rows = read_tsv(reference / "wogli" / name)
    assert rows
    mismatches = []
    for row in rows:
        out = deriver.derive(row["premise"], row["pattern"], row["verb_lemma"])
        by_type = {h["type"][:2]: h for h in out["hypotheses"]}
        want = "H2" if row["label"] == "2" else SAMPLE_FILES[name]
        hyp = by_type[want]
        if hyp["text"] != row["hypothesis"] or wogli.LABEL_CODES[hyp["label"]] != int(row["label"]):
            mismatches.append((row["premise"], row["hypothesis"], hyp["text"]))
    assert not mismatches, f"{len(mismatches)} of {len(rows)} differ, e.g. {mismatches[:3]}"


def test_derive_cli_on_a_released_sample_file(reference):
    path = reference / "wogli" / "wogli_dative_sample.tsv"
    proc = run_gen("wogli", "derive", str(path))
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    rows = read_tsv(path)
    assert len(lines) == len(rows)
    for row, out in zip(rows, lines):
        assert out["premise"] == row["premise"] and out["pattern"] == row["pattern"]
        texts = {h["text"] for h in out["hypotheses"]}
        assert row["hypothesis"] in texts
        assert [h["type"] for h in out["hypotheses"]] == ["H1-SO", "H2-OS", "H3-OS"]


def test_derive_falls_back_to_german_nouns_and_ablaut(deriver, shipped_lexicons):
    nouns = {e["lemma"] for e in shipped_lexicons.get("de/nouns_human").entries}
    verbs = {e["lemma"] for name in ("de/verbs_transitive", "de/verbs_dative")
             for e in shipped_lexicons.get(name).entries}
    assert not {"Dachdecker", "Astronaut", "Flötistin"} & nouns
    assert "verprügeln" not in verbs
    out = deriver.derive("Der Dachdecker verprügelt den Astronauten .")
    texts = {h["type"]: h["text"] for h in out["hypotheses"]}
    assert out["pattern"] == "sing_masc_v_sing_masc"
    assert texts == {"H1-SO": "Der Astronaut verprügelt den Dachdecker .",
                     "H2-OS": "Den Astronauten verprügelt der Dachdecker .",
                     "H3-OS": "Den Dachdecker verprügelt der Astronaut ."}
    out = deriver.derive("Die Flötistinnen erschrecken einen Dachdecker .")
    texts = {h["type"]: h["text"] for h in out["hypotheses"]}
    assert texts["H1-SO"] == "Ein Dachdecker erschreckt die Flötistinnen ."


@pytest.mark.parametrize("premise, reason", [
    ("Der Mann sieht den Mann .", "same noun phrase"),
    ("Er sieht ihn .", "same noun phrase"),
    ("Der Mann hilft den Mann .", "dative object"),
    ("Der Mann sieht dem Kunden .", "accusative object"),
    ("Der Mann ist den Kunden .", "unknown verb form"),
    ("Der Mann Sieht den Kunden .", "unknown verb form"),
])
def test_derive_refuses_premises_it_cannot_label(deriver, premise, reason):
    [out] = list(deriver.derive_rows([{"premise": premise}]))
    assert reason in out.get("error", ""), out


def test_derive_pronoun_subject_without_pattern_has_none(deriver):
    out = deriver.derive("Sie warnen den Arzt .")
    assert out["pattern"] is None
    assert out["hypotheses"][0]["text"] == "Der Arzt warnt sie ."
    given = deriver.derive("Sie warnen den Arzt .", "plural_fem_v_sing_masc")
    assert given["pattern"] == "plural_fem_v_sing_masc"


def test_derive_reports_errors_and_continues(deriver):
    rows = [{"premise": "Hallo Welt"}, {"premise": "Die Lehrerin begrüßt Maria ."},
            {"premise": "Der Arzt warnt den Kunden ."}, {"premise": ""}]
    out = list(deriver.derive_rows(rows))
    assert "error" in out[0] and "error" in out[1] and "disambiguate" in out[1]["error"]
    assert "error" not in out[2] and out[2]["pattern"] == "sing_masc_v_sing_masc"
    assert "error" in out[3]


def test_derive_without_premise_column_is_a_usage_error():
    proc = run_gen("wogli", "derive", input="sentence\nDer Arzt warnt den Kunden .\n")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error:") and "premise" in proc.stderr
    assert "Traceback" not in proc.stderr


def _surface(slot, case):
    return slot["forms"][case]


def _check_item_group(records, analyser):
    premise = records[0]["premise"]
    by_type = {r["hypothesis_type"]: r for r in records}
    for r in records:
        assert r["premise"] == premise
        assert Counter(analyser(r["premise"])) == Counter(analyser(r["hypothesis"]))
        assert r["hypothesis"] != premise
    if len(by_type) > 1:
        texts = [r["hypothesis"] for r in records]
        assert len(set(texts)) == len(texts)


def _markers(record):
    """Check H2 keeps the premise's case/number markers and H1/H3 swap them."""
    t = record["template"]
    slots = record["slots"]
    obj = "IO" if t == "wogli.ditransitive" else "O"
    case = "acc" if t in ("wogli.accusative", "wogli.p_subject") else "dat"
    s, o, v = slots["S"], slots[obj], slots["V"]
    verb = {"sg": v["pres_3sg"], "pl": v["pres_3pl"]}
    tail = f" {_surface(slots['DO'], 'acc')}" if t == "wogli.ditransitive" else ""

    def cap(x):
        return x[:1].upper() + x[1:]

    premise = f"{cap(_surface(s, 'nom'))} {verb[s['number']]} {_surface(o, case)}{tail} ."
    assert record["premise"] == premise
    kind = record["hypothesis_type"][:2]
    if kind == "H2":    # same markers, order swapped
        want = f"{cap(_surface(o, case))} {verb[s['number']]} {_surface(s, 'nom')}{tail} ."
    elif kind == "H1":  # roles and markers swapped
        want = f"{cap(_surface(o, 'nom'))} {verb[o['number']]} {_surface(s, case)}{tail} ."
    else:               # H3: object-first order with swapped roles
        want = f"{cap(_surface(s, case))} {verb[o['number']]} {_surface(o, 'nom')}{tail} ."
    assert record["hypothesis"] == want


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(set_name=st.sampled_from(SETS), seed=st.integers(0, 10_000),
       n=st.integers(2, 120))
def test_generated_problems_keep_every_invariant(set_name, seed, n, analyser):
    ds = wogli.generate(sets=[set_name], n=n, seed=seed)
    recs = ds.records
    assert len(recs) == n
    pairs = [(r["premise"], r["hypothesis"]) for r in recs]
    assert len(set(pairs)) == len(pairs), "duplicate pairs"
    groups: dict[str, list] = {}
    for r in recs:
        groups.setdefault(r["premise"], []).append(r)
        assert r["set"] == set_name and r["family"] == "wogli"
        expected = {"H1": "non-entailment", "H2": "entailment", "H3": "non-entailment"}
        assert r["label"] == expected[r["hypothesis_type"][:2]]
        _markers(r)
        spans = r["rationale"]["slots"]
        for slot, info in spans.items():
            for a, b in info["spans"]:
                assert r["hypothesis"][a:b].lower() == info["text"].lower()
    for group in groups.values():
        _check_item_group(group, analyser)
    labels = Counter(r["label"] for r in recs)
    if set_name != "os_hard":
        assert abs(labels["entailment"] - labels["non-entailment"]) <= 1
        per_pattern = Counter((r["pattern"], r["label"]) for r in recs)
        for (pattern, _), _count in per_pattern.items():
            e = per_pattern[(pattern, "entailment")]
            ne = per_pattern[(pattern, "non-entailment")]
            assert abs(e - ne) <= 1
    else:
        assert set(labels) == {"non-entailment"}
    patterns = Counter(r["pattern"] for r in recs)
    assert max(patterns.values()) - min(patterns.values()) <= 2


def test_p_subject_removes_duplicates_made_by_pronominalisation():
    # plural_masc and plural_fem subjects both become "Sie": the two patterns share fillings.
    ds = wogli.generate(sets=["p_subject"], patterns=["plural_masc_v_pnoun", "plural_fem_v_pnoun"],
                        n=4000, seed=2)
    premises = Counter(r["premise"] for r in ds.records)
    assert all(c == 2 for c in premises.values())  # H1 + H2 per premise, never twice
    assert all(p.startswith("Sie ") for p in premises)


@pytest.mark.parametrize("set_name, sample", [
    ("wogli", "wogli_sample.tsv"), ("os_hard", "wogli_OS_hard_sample.tsv"),
    ("p_subject", "wogli_p_subject_sample.tsv"), ("dative", "wogli_dative_sample.tsv"),
    ("ditransitive", "wogli_ditransitive_sample.tsv"),
])
def test_wogli_tsv_has_the_released_columns(reference, set_name, sample):
    header = (reference / "wogli" / sample).read_text(encoding="utf-8").splitlines()[0]
    ds = wogli.generate(sets=[set_name], n=40, seed=1)
    lines = ds.render("wogli-tsv").splitlines()
    assert lines[0] == header
    cols = header.split("\t")
    released = read_tsv(reference / "wogli" / sample)
    for line in lines[1:]:
        row = dict(zip(cols, line.split("\t")))
        assert row["label"] in ("1", "2")
        assert row["pattern"] in {r["pattern"] for r in released}
        premise_tokens = row["premise"].split()
        for col in ("p_subject", "p_object", "p_dir_object", "p_indir_object"):
            if col in row:
                assert row[col] in premise_tokens
        for col in ("p_subject_det", "p_object_det"):
            if row.get(col):
                assert row[col] in [t.lower() for t in premise_tokens]


def test_cli_pattern_example_from_the_issue():
    proc = run_gen("wogli", "--pattern", "sing_masc_v_plural_fem", "--n", "50")
    assert proc.returncode == 0, proc.stderr
    recs = [json.loads(x) for x in proc.stdout.splitlines()]
    assert len(recs) == 50
    assert {r["pattern"] for r in recs} == {"sing_masc_v_plural_fem"}


def test_default_size_is_the_papers(wogli_set):
    """Without --n each set has the paper's size: 1,000 premises per pattern for WOGLI
    (17 patterns, two hypotheses), OS-hard (H3 alone) and p-subject; 150 per pattern for
    WOGLI-dative (7,200 pairs) and 12,000 premises for WOGLI-ditransitive (24,000 pairs).
    A selection of sets of different sizes takes the family's 1,000."""
    assert wogli_set.family["default_units_per_variant"] == 1000
    sizes = {s: len(wogli.generate(sets=[s])) for s in wogli.PAPER_SETS}
    assert sizes == {"wogli": 34_000, "os_hard": 17_000, "p_subject": 34_000,
                     "dative": 7_200, "ditransitive": 24_000}
    assert len(wogli.generate(sets=["dative_os_hard"])) == 3_600
    assert len(wogli.generate(sets=["dative", "ditransitive"])) == 96_000
    assert len(wogli.generate(sets=["dative"], patterns=["sing_masc_v_plural_fem"])) == 300


def test_dative_pattern_names_accept_the_bare_form():
    ds = wogli.generate(sets=["dative"], patterns=["sing_masc_v_plural_fem"], n=4, seed=0)
    assert {r["pattern"] for r in ds.records} == {"sing_masc_v_plural_fem_dative"}

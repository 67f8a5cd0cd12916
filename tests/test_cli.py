"""Command-line behaviour: user errors are one line with exit code 2, never a traceback,
never a partial file."""

from __future__ import annotations

import json
import textwrap

import pytest

from conftest import run_gen


def assert_user_error(proc, *fragments):
    assert proc.returncode == 2, (proc.returncode, proc.stdout[:300], proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ")
    for f in fragments:
        assert f in lines[0], lines[0]


@pytest.mark.parametrize("args, fragments", [
    (["wogli", "--pattern", "sing_fem_v_pnoun"], ["--pattern", "sing_fem_v_pnoun"]),
    (["wogli", "--pattern", "no_such_pattern"], ["unknown pattern"]),
    (["wogli", "--set", "nonsense"], ["--set", "nonsense"]),
    (["wogli", "--n", "0"], ["--n", "positive"]),
    (["wogli", "--n", "-5"], ["--n"]),
    (["wogli", "--n", "many"], ["--n"]),
    (["wogli", "--format", "xml"], ["--format", "xml"]),
    (["wogli", "--split", "random"], ["--split"]),
    (["wogli", "--set", "all", "-o", "file.jsonl"], ["-o", "folder"]),
    (["jamp", "--fragment", "tense"], ["--fragment", "tense"]),
    (["jamp", "label", "no-such-file.tsv"], ["no-such-file.tsv", "cannot read"]),
    (["wogli", "derive", "--set", "nonsense", "no-such-file.tsv"], ["--set", "nonsense"]),
    (["wogli", "derive", "no-such-file.tsv"], ["no-such-file.tsv", "cannot read"]),
    (["list", "nofamily"], ["nofamily"]),
    (["run", "does/not/exist"], ["does/not/exist"]),
    (["validate", "does/not/exist"], ["does/not/exist"]),
])
def test_bad_arguments(args, fragments, tmp_path):
    assert_user_error(run_gen(*args, cwd=tmp_path), *fragments)


PEOPLE = "entries:\n  - {name: Ann}\n  - {name: Bob}\n"


def project(tmp_path, template: str, lexicon: str = PEOPLE, lexicon_name="people.yaml"):
    (tmp_path / "lexicons").mkdir(parents=True, exist_ok=True)
    (tmp_path / "lexicons" / lexicon_name).write_text(lexicon, encoding="utf-8")
    (tmp_path / "t.yaml").write_text(textwrap.dedent(template), encoding="utf-8")
    return tmp_path


GOOD = """
id: t.one
slots: {a: {lexicon: people}}
premise: "{{ a }} sings."
hypothesis: "{{ a }} makes sound."
label: entailment
"""


@pytest.mark.parametrize("template, fragments", [
    ("id: t.one\nslots: [broken\n", ["t.yaml", "malformed YAML", "line"]),
    (GOOD.replace("{{ a }} sings.", "{{ a.__class__.__mro__ }}"), ["t.yaml", "t.one", "premise"]),
    (GOOD.replace("{{ a }} sings.", "{{ lipsum.__globals__ }}"), ["t.yaml", "premise"]),
    (GOOD.replace("{{ a }} sings.", "{% for x in range(9) %}{{ a }}{% endfor %}"),
     ["premise", "loops"]),
    (GOOD.replace("label: entailment",
                  "label: {entailment: \"__import__('os').system('touch pwned') == 0\"}"),
     ["t.one", "label", "function calls"]),
    (GOOD.replace("label: entailment", "label: {entailment: a.name == 'Ann', otherwise: maybe}"),
     ["t.one", "label", "maybe"]),
    (GOOD.replace("{lexicon: people}", "{lexicon: persons}"), ["persons"]),
])
def test_bad_templates(tmp_path, template, fragments):
    root = project(tmp_path, template)
    proc = run_gen("run", str(root), "--n", "2", "-o", str(tmp_path / "out.jsonl"))
    assert_user_error(proc, *fragments)
    assert not (tmp_path / "out.jsonl").exists()
    assert not (tmp_path / "pwned").exists()
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())


GERMAN = """
id: de.one
language: de
slots:
  S: {type: np, np_type: plural_masc, nouns: nouns, determiners: [def]}
  V: {type: verb, lexicon: verbs}
premise: "{{ S|nom|cap }} {{ V|agree(S) }} ."
hypothesis: "{{ S|dat|cap }} ."
label: entailment
"""
NOUNS_MISSING_FORM = """
source: test
license: CC0
entries:
  - {lemma: Arzt, gender: m, nom_sg: Arzt, acc_sg: Arzt, dat_sg: Arzt, nom_pl: Ärzte, acc_pl: Ärzte}
"""
VERBS = "entries:\n  - {lemma: schlafen, pres_3sg: schläft, pres_3pl: schlafen}\n"


def test_lexicon_with_a_missing_form(tmp_path):
    root = project(tmp_path, GERMAN, NOUNS_MISSING_FORM, "nouns.yaml")
    (root / "lexicons" / "verbs.yaml").write_text(VERBS, encoding="utf-8")
    proc = run_gen("run", str(root), "--n", "2", "-o", str(tmp_path / "out.jsonl"))
    assert_user_error(proc, "nouns", "Arzt", "dat_pl")
    assert not (tmp_path / "out.jsonl").exists()


def test_failed_run_leaves_an_existing_file_untouched(tmp_path):
    target = tmp_path / "keep.jsonl"
    target.write_text("old\n", encoding="utf-8")
    proc = run_gen("wogli", "--pattern", "nope", "-o", str(target))
    assert proc.returncode == 2
    assert target.read_text(encoding="utf-8") == "old\n"


def test_capacity_error_names_the_template(tmp_path):
    root = project(tmp_path, GOOD)
    proc = run_gen("run", str(root), "--n", "5")
    assert_user_error(proc, "t.one", "at most 2")


def test_list_shows_every_pattern_with_labels_and_capacity():
    proc = run_gen("list", "wogli", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(x) for x in proc.stdout.splitlines()]
    assert len(rows) == 17 + 17 + 24 + 24
    for row in rows:
        assert row["capacity"] > 1000
        assert set(row["labels"]) == {"entailment", "non-entailment"}
    human = run_gen("list")
    assert human.returncode == 0 and "sing_masc_v_plural_fem" in human.stdout


def test_validate_accepts_the_shipped_family_and_reports_problems(tmp_path):
    proc = run_gen("validate", "templates/wogli")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok: 4 template(s), 82 variant(s)")
    bad = GOOD.replace("label: entailment",
                       "label: {entailment: a.name == 'Zed', otherwise: neutral}")
    root = project(tmp_path, bad)
    proc = run_gen("validate", str(root))
    assert proc.returncode == 2
    assert "entailment never reached" in proc.stderr


def test_help_texts_name_the_contract_options():
    proc = run_gen("wogli", "--help")
    assert proc.returncode == 0
    for opt in ("--pattern", "--set", "--n", "--seed", "--split", "--format", "-o"):
        assert opt in proc.stdout
    assert "derive" in run_gen("--help").stdout


def test_validate_reports_a_dependent_slot_without_options(tmp_path):
    template = """
    id: dep.one
    slots:
      V: {lexicon: verbs}
      O: {lexicon: things, where: {kind: $V.kind}}
    premise: "I {{ V }} the {{ O }}."
    hypothesis: "I do something with the {{ O }}."
    label: entailment
    """
    root = project(tmp_path, template, "entries:\n  - {lemma: eat, kind: food}\n"
                   "  - {lemma: drive, kind: car}\n", "verbs.yaml")
    (root / "lexicons" / "things.yaml").write_text(
        "entries:\n  - {lemma: apple, kind: food}\n", encoding="utf-8")
    proc = run_gen("validate", str(root))
    assert proc.returncode == 2
    assert "slots.O: no options when V='drive'" in proc.stderr
    ok = run_gen("run", str(root), "--n", "1")
    assert ok.returncode == 0 and '"apple"' in ok.stdout

"""Hostile or malformed input: every case ends in one error line with exit code 2, fast,
with no traceback and no file left behind (cases from a review that tried to break it)."""

from __future__ import annotations

import textwrap
import time

import pytest

from conftest import run_gen
from test_cli import assert_user_error

PEOPLE = "entries:\n  - {name: Ann, age: 30}\n  - {name: Bob, age: 40}\n"
BASE = """
id: t.one
slots:
  a: {lexicon: people}
  x: {range: [1, 9]}
premise: "{{ a }} sings."
hypothesis: "{{ a }} makes sound."
label: entailment
"""


def project(tmp_path, template=BASE, lexicon=PEOPLE, lexicon_name="people.yaml", family=None):
    (tmp_path / "lexicons").mkdir(parents=True, exist_ok=True)
    (tmp_path / "lexicons" / lexicon_name).write_text(lexicon, encoding="utf-8")
    (tmp_path / "t.yaml").write_text(textwrap.dedent(template), encoding="utf-8")
    if family is not None:
        (tmp_path / "family.yaml").write_text(family, encoding="utf-8")
    return tmp_path


def run_quickly(*args, limit=30.0, **kwargs):
    start = time.monotonic()
    proc = run_gen(*args, **kwargs)
    assert time.monotonic() - start < limit, "took too long"
    return proc


BILLION_LAUGHS = (
    "id: t.one\nslots:\n  a: {lexicon: people}\n  x: {values: [a, &a [l,l,l,l,l,l,l,l,l],"
    " &b [*a,*a,*a,*a,*a,*a,*a,*a], &c [*b,*b,*b,*b,*b,*b,*b,*b], &d [*c,*c,*c,*c,*c,*c,*c,*c],"
    " &e [*d,*d,*d,*d,*d,*d,*d,*d], &f [*e,*e,*e,*e,*e,*e,*e,*e]]}\n"
    "premise: \"{{ a }}\"\nhypothesis: \"{{ a }}\"\nlabel: entailment\n")


@pytest.mark.parametrize("template, fragments", [
    (BILLION_LAUGHS, ["aliases"]),
    # PyYAML would keep the second label silently
    (BASE + "label: contradiction\n", ["duplicate key 'label' at line 9"]),
    (BASE.replace("{lexicon: people}", "{lexicon: people, lexicon: other}"),
     ["duplicate key 'lexicon' at line 4"]),
    ("id: t.one\ndescription: " + "[" * 5000 + "]" * 5000 + "\n", ["nested"]),
    (BASE.replace("[1, 9]", "[0, 1" + "0" * 5000 + "]"), ["digits"]),
    (BASE.replace("[1, 9]", "[0, 10000000]"), ["range has more than"]),
    (BASE.replace('"{{ a }} sings."', '"' + "{{ (" * 150 + "a" + ")" * 150 + " }}\""),
     ["nested"]),
    (BASE.replace('"{{ a }} sings."', '"' + "{% if a %}" * 150 + "x" + "{% endif %}" * 150
                  + '"'), ["nested"]),
    (BASE.replace('"{{ a }} sings."', '"{{ a' + "|upper" * 300 + ' }}"'), ["nested"]),
    (BASE.replace("label: entailment", "label: {entailment: '" + "-" * 1900 + "x > 0'}"),
     ["nested"]),
    (BASE.replace("label: entailment", "label: {entailment: '1" + "0" * 400 + " / 1 > x', "
                  "otherwise: neutral}"), ["number larger"]),
    (BASE.replace("label: entailment", "label: {entailment: 'day * 1e400 > day', "
                  "otherwise: neutral}"), ["not finite"]),
    (BASE.replace('"{{ a }} sings."', '"{{ a.age.bit_length }}"'), ["cannot write"]),
    (BASE.replace('"{{ a }} sings."', '"{{ \\"\\ue000x\\ue001\\" ~ a }}"'), ["private-use"]),
    (BASE.replace("{lexicon: people}", "{lexicon: people, where: [1]}"), ["where"]),
    (BASE.replace("{lexicon: people}", "{lexicon: people, text: [1]}"), ["text"]),
    (BASE.replace("{lexicon: people}", "{lexicon: {a: 1}}"), ["lexicon"]),
    ("variants: {axes: {a: [" + ",".join(f"v{i}" for i in range(200)) + "], b: ["
     + ",".join(f"w{i}" for i in range(200)) + "]}}\n" + BASE.strip() + "\n", ["variants"]),
])
def test_hostile_templates(tmp_path, template, fragments):
    root = project(tmp_path, template)
    proc = run_quickly("run", str(root), "--n", "2", "-o", str(tmp_path / "out" / "x.jsonl"))
    assert_user_error(proc, *fragments)
    assert not (tmp_path / "out").exists()
    proc = run_quickly("validate", str(root))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_many_distinct_slots_do_not_hang(tmp_path):
    slots = "".join(f"  s{i}: {{lexicon: people}}\n" for i in range(8))
    people = "entries:\n" + "".join(f"  - {{name: P{i}}}\n" for i in range(14))
    template = ("id: t.many\nslots:\n" + slots + "distinct: [[" + ", ".join(f"s{i}" for i in range(8))
                + "]]\npremise: \"{{ s0 }} {{ s1 }}\"\nhypothesis: \"{{ s2 }}\"\nlabel: entailment\n")
    root = project(tmp_path, template, people)
    proc = run_quickly("run", str(root), "--n", "3")
    assert proc.returncode == 0, proc.stderr


def test_unsatisfiable_condition_fails_in_bounded_time(tmp_path):
    template = BASE.replace("[1, 9]", "[0, 9999]").replace(
        "label: entailment", "label: {entailment: x > 20000, otherwise: neutral}")
    proc = run_quickly("run", str(project(tmp_path, template)), "--n", "4", limit=60)
    assert_user_error(proc, "entailment")


def test_huge_n_is_refused_at_once(tmp_path):
    assert_user_error(run_quickly("run", str(project(tmp_path)), "--n", "10000000000",
                                  limit=10), "--n")
    # 2 names x 9 values of x = 18 fillings.
    assert_user_error(run_quickly("run", str(project(tmp_path)), "--n", "40", limit=10),
                      "at most 18")


@pytest.mark.parametrize("family, fragment", [
    ("default_units_per_variant: abc\n", "default_units_per_variant"),
    ("default_units_per_set: {default: 0}\n", "default_units_per_set"),
    ("default_units_per_set: [1]\n", "default_units_per_set"),
    ("splits: [1]\n", "splits"),
    ("language: [1]\n", "language"),
    ("name: [1, 2]\n", "name"),
    ("colour: red\n", "colour"),
])
def test_bad_family_files(tmp_path, family, fragment):
    proc = run_quickly("run", str(project(tmp_path, family=family)), "--n", "2")
    assert_user_error(proc, "family.yaml", fragment)


@pytest.mark.parametrize("lexicon, name, fragment", [
    ("entries:\n  - {name: Ann, born: 2001-01-01}\n", "people.yaml", "date"),
    ("entries:\n  - {name: .nan}\n", "people.yaml", "NaN"),
    ('{"entries": [{"name": NaN}]}', "people.json", "NaN"),
    ('{"entries": ' + "[" * 100000 + "]" * 100000 + "}", "people.json", "JSON"),
    ("name\tname\nAnn\tBob\n", "people.tsv", "repeated"),
    ("name\n" + "x" * 200000 + "\n", "people.tsv", "output longer than"),
    ("entries:\n  - {name: null}\n", "people.yaml", "text or number"),
])
def test_bad_lexicons(tmp_path, lexicon, name, fragment):
    root = project(tmp_path, lexicon=lexicon, lexicon_name=name)
    assert_user_error(run_quickly("run", str(root), "--n", "1"), fragment)


@pytest.mark.parametrize("args, fragment", [
    (["wogli", "--heldout", "pnoun_v_sing_masc"], "--heldout"),
    (["wogli", "--train-size", "10"], "--train-size"),
    (["wogli", "--split", "pattern", "--test-lemmas", "0.5"], "--test-lemmas"),
    (["wogli", "--set", "all"], "-o"),
    (["wogli", "--n", "100", "--split", "pattern", "--train-size", "90"], "--train-size"),
    (["wogli", "--n", "2", "-o", "/tmp/" + "x" * 300 + "/f.jsonl"], "cannot"),
    (["run", ".", "--variant", "nope"], "--variant"),
])
def test_bad_cli_combinations(tmp_path, args, fragment):
    root = project(tmp_path)
    args = [str(root) if a == "." else a for a in args]
    assert_user_error(run_quickly(*args, cwd=tmp_path), fragment)


def test_output_is_utf8_whatever_the_locale():
    a = run_gen("wogli", "--n", "20", env={"PYTHONIOENCODING": "latin-1"})
    b = run_gen("wogli", "--n", "20", env={"PYTHONIOENCODING": "ascii"})
    c = run_gen("wogli", "--n", "20")
    assert a.returncode == b.returncode == c.returncode == 0
    assert a.stdout == b.stdout == c.stdout


def test_derive_input_edge_cases():
    bom = run_gen("wogli", "derive", input="\ufeffpremise\nDer Arzt warnt den Kunden .\n")
    assert bom.returncode == 0 and "Den Kunden warnt der Arzt" in bom.stdout
    long = run_gen("wogli", "derive", input="premise\n" + "x" * 200000
                   + "\nDer Arzt warnt den Kunden .\n")
    lines = long.stdout.splitlines()
    assert long.returncode == 0 and len(lines) == 2
    assert '"error"' in lines[0] and "Den Kunden" in lines[1]


def test_broken_pipe_is_quiet():
    import subprocess
    import sys

    proc = subprocess.run(f"{sys.executable} -m nligen.cli list wogli | head -1", shell=True,
                          capture_output=True, text=True)
    assert proc.stdout.startswith("# wogli") and "Traceback" not in proc.stderr

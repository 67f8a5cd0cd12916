"""Stress transformations (JSICK-style): YAML declarations, the interpreter, gen stress."""

from __future__ import annotations

import csv
import functools
import json
from collections import Counter
from pathlib import Path

import pytest
from conftest import JSICK_STRESS_HIGH_READINGS, JSICK_STRESS_MISSES, REFERENCE, run_gen
from hypothesis import given, settings
from hypothesis import strategies as st

from nligen.data import templates_dir
from nligen.errors import TemplateError
from nligen.stress import (
    Analysers,
    Readings,
    apply,
    load_transformation,
    load_transformations,
    transform,
)

SAMPLE = REFERENCE / "jsick-stress" / "jsick_stress_sample.tsv"
NAMES = {"scrum": "scramble", "ex": "swap", "del": "delete"}


@pytest.fixture(scope="module")
def transformations():
    return load_transformations([templates_dir("stress")])


@pytest.fixture(scope="module")
def chunker():
    from nligen.lang.ja.chunker import Chunker

    return Chunker()


@pytest.fixture(scope="module")
def sample_rows():
    with open(SAMPLE, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


@pytest.fixture(scope="module")
def analysers():
    """attachment -> the Japanese clause analyser, each made once."""
    return Analysers().of("ja")


def readings(analysers, text: str) -> Readings:
    return Readings(text, analysers)


def test_sample_reproduction_per_cell(transformations, analysers, sample_rows):
    """Each transform x pair cell of the released sample, transformed from
    sentence_A_original, equals sentence_A_transformed in at least 95% of its rows; the
    misses and the rows made under the high reading are exactly the named ones."""
    done: Counter = Counter()
    total: Counter = Counter()
    misses, high = [], []
    for row in sample_rows:
        kind, pair = row["transform"].split("_", 1)
        result = transform(transformations[NAMES[kind]], pair.replace("_", "-"),
                           readings(analysers, row["sentence_A_original"]))
        key = (row["transform"], row["pair_ID"])
        total[row["transform"]] += 1
        if result is not None and result.text == row["sentence_A_transformed"]:
            done[row["transform"]] += 1
        else:
            misses.append(key)
        if result is not None and any(c.ambiguous_with for c in result.changes):
            high.append(key)
    assert len(total) == 9 and all(n == 40 for n in total.values())
    assert sorted(misses) == sorted(JSICK_STRESS_MISSES)
    assert sorted(high) == sorted(JSICK_STRESS_HIGH_READINGS)
    for cell, n in total.items():
        assert done[cell] >= 0.95 * n, cell
    assert sum(done.values()) == 357


@functools.lru_cache(maxsize=1)
def _originals() -> list[str]:
    with open(SAMPLE, encoding="utf-8", newline="") as fh:
        return sorted({r["sentence_A_original"]
                       for r in csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)})


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_transformation_properties(transformations, analysers, data):
    sentence = data.draw(st.sampled_from(_originals()))
    pair = data.draw(st.sampled_from(["ga-o", "ga-ni", "ga-de"]))
    attachment = data.draw(st.sampled_from(["low", "high"]))
    analysis = analysers(attachment).analyse(sentence)
    chunker = analysers("low")
    scrambled = apply(transformations["scramble"], pair, analysis)
    swapped = apply(transformations["swap"], pair, analysis)
    deleted = apply(transformations["delete"], pair, analysis)
    # the same pairs are found whatever the operation (first vs all aside)
    assert (scrambled is None) == (swapped is None) == (deleted is None)
    if scrambled is None:
        return
    # scrambling: same characters, every phrase keeps its particle
    assert Counter(scrambled.text) == Counter(sentence)
    for c in scrambled.changes:
        assert c.particles_after == c.particles_before
        assert scrambled.text[slice(*c.subject_span)] == c.subject_original
        assert scrambled.text[slice(*c.argument_span)] == c.argument_original
        assert c.argument_span[1] == c.subject_span[0]  # argument now directly before
    # swapping: exactly two particles per pair change, nothing else
    for c in swapped.changes:
        assert c.particles_after == (c.particles_before[1], "が")
        assert swapped.text[slice(*c.subject_span)].endswith(c.particles_before[1])
    assert len(swapped.text) == len(sentence) + sum(
        len(c.particles_after[0]) + len(c.particles_after[1]) - len(c.particles_before[0])
        - len(c.particles_before[1]) for c in swapped.changes)
    # deleting: exactly the targeted particles go
    removed = sum(len(c.particles_before[0]) + len(c.particles_before[1])
                  for c in deleted.changes)
    assert len(deleted.text) == len(sentence) - removed
    assert Counter(sentence) - Counter(deleted.text) == Counter(
        "".join(c.particles_before[0] + c.particles_before[1] for c in deleted.changes))
    # the transformed sentence still has its predicate
    main = analysis.main_predicate
    verb = sentence[main.start:main.end]
    for result in (scrambled, swapped):
        again = chunker.analyse(result.text).main_predicate
        assert again is not None and result.text[again.start:again.end] == verb
    # After a deletion the bare noun before the verb may fuse with it (スタンド集まっている)
    # or take part of it (男性銃撃っている: 銃撃|って|いる): the verb's text is still there,
    # and the predicate found again ends where it ends.
    again = chunker.analyse(deleted.text).main_predicate
    verb_end = deleted.text.rindex(verb) + len(verb)
    assert again is not None and again.end == verb_end
    # deterministic
    assert apply(transformations["swap"], pair, analysers(attachment).analyse(sentence)) \
        == swapped


def test_not_applicable_without_basic_order(transformations, chunker):
    # object before subject already, and a sentence without any ga-o pair
    for sentence in ("ベッドをある人が整えている", "男性が走っている"):
        assert apply(transformations["scramble"], "ga-o", chunker.analyse(sentence)) is None


@pytest.mark.parametrize("body, fragment", [
    ("id: x\nlanguage: ja\npairs: {ga-o: {subject: が, argument: を}}\nlabel: keep\n",
     "does nothing"),
    ("id: x\nlanguage: ja\npairs: {ga-o: {subject: が}}\nmove: argument_before_subject\n"
     "label: keep\n", "pairs.ga-o"),
    ("id: x\nlanguage: ja\npairs: {ga-o: {subject: が, argument: を}}\nmove: sideways\n"
     "label: keep\n", "move"),
    ("id: x\nlanguage: ja\npairs: {ga-o: {subject: が, argument: を}}\n"
     "particles: {subject: $object}\nlabel: keep\n", "particles"),
    ("id: x\nlanguage: xx\npairs: {ga-o: {subject: が, argument: を}}\n"
     "move: argument_before_subject\nlabel: keep\n", "language"),
    ("id: x\nlanguage: ja\npairs: {ga-o: {subject: が, argument: を}}\nmove: "
     "argument_before_subject\nlabel: keep\nextra: 1\n", "unknown field"),
    ("id: [x\n", "YAML"),
])
def test_bad_transformation_files_are_named(tmp_path, body, fragment):
    path = tmp_path / "t.yaml"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(TemplateError) as info:
        load_transformation(path)
    assert fragment in str(info.value) and "t.yaml" in str(info.value)


def test_a_user_transformation_needs_no_python(tmp_path, chunker):
    (tmp_path / "to_ha.yaml").write_text(
        "id: topicalise\nlanguage: ja\ndescription: subject marked with は\n"
        "pairs: {ga-o: {subject: [が], argument: を}}\noccurrences: first\n"
        "particles: {subject: は}\nlabel: keep\n", encoding="utf-8")
    proc = run_gen("stress", "--transformations", str(tmp_path), "--transform", "topicalise",
                   input="premise\thypothesis\tlabel\n小さな女の子が女性を見ている\t女の子が女性を見ている\tentailment\n")
    assert proc.returncode == 0, proc.stderr
    (record,) = [json.loads(line) for line in proc.stdout.splitlines()]
    assert record["premise"] == "小さな女の子は女性を見ている"
    assert record["label"] == record["label_original"] == "entailment"
    assert record["template"] == record["transform"] == "topicalise"


def test_cli_records_follow_the_contract(tmp_path):
    proc = run_gen("stress", str(SAMPLE), "--premise-col", "sentence_A_original",
                   "--transform", "swap", "--pair", "ga-o", "-o", str(tmp_path / "out.jsonl"))
    assert proc.returncode == 0, proc.stderr
    records = [json.loads(line) for line in
               (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert records and all(r["transform"] == "swap" and r["pair"] == "ga-o" for r in records)
    for r in records:
        assert {"id", "family", "template", "premise", "premise_original", "hypothesis",
                "label", "label_original", "transform", "pair", "rationale", "slots"} <= set(r)
        assert r["family"] == "stress" and r["label"] == "neutral"
        assert r["label_original"] in ("entailment", "neutral", "contradiction")
        for change in r["rationale"]["changes"]:
            for role in ("subject", "argument"):
                (start, end), = change[role]["spans"]
                assert r["premise"][start:end] == change[role]["text"]
    assert "not applicable" in proc.stderr and "bad rows: 0" in proc.stderr


def test_inapplicable_rows_are_counted_or_kept():
    text = "premise\tlabel\n男性が走っている\tneutral\n男性が道を走っている\tneutral\n"
    proc = run_gen("stress", "--transform", "scramble", "--pair", "ga-o", input=text)
    assert [json.loads(x)["premise"] for x in proc.stdout.splitlines()] == ["道を男性が走っている"]
    assert "scramble/ga-o 1" in proc.stderr
    proc = run_gen("stress", "--transform", "scramble", "--pair", "ga-o", "--keep-inapplicable",
                   input=text)
    records = [json.loads(x) for x in proc.stdout.splitlines()]
    assert [r["applicable"] for r in records] == [False, True]
    assert records[0]["premise"] == records[0]["premise_original"] == "男性が走っている"


def test_jsonl_input_and_bad_rows(tmp_path):
    good = json.dumps({"premise": "男性が道を走っている", "hypothesis": "男性が走っている",
                       "label": "entailment"}, ensure_ascii=False)
    path = tmp_path / "in.jsonl"
    path.write_text(f"{good}\n{{not json\n" + json.dumps({"premise": ""}) + "\n",
                    encoding="utf-8")
    proc = run_gen("stress", str(path), "--transform", "delete")
    assert proc.returncode == 0
    assert len(proc.stdout.splitlines()) == 1
    assert f"{path}:2: not JSON" in proc.stderr and f"{path}:3: empty premise" in proc.stderr
    proc = run_gen("stress", str(path), "--transform", "delete", "--strict", "-o",
                   str(tmp_path / "out.jsonl"))
    assert proc.returncode == 2 and proc.stderr.startswith(f"error: {path}:2: not JSON")
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize("args, stdin, fragment", [
    (["--premise-col", "nope"], "premise\nx\n", "no such column 'nope'"),
    ([], "text\nx\n", "no premise column"),
    (["--transform", "shuffle"], "premise\nx\n", "unknown transformation 'shuffle'"),
    (["--pair", "ga-wo"], "premise\nx\n", "unknown pair 'ga-wo'"),
    (["missing.tsv"], None, "missing.tsv"),
])
def test_bad_usage_is_one_line(args, stdin, fragment):
    from test_cli import assert_user_error

    assert_user_error(run_gen("stress", *args, input=stdin or ""), fragment)


def test_tsv_row_with_wrong_field_count_is_named_and_skipped():
    proc = run_gen("stress", "--transform", "delete",
                   input="premise\tlabel\n男性が道を走っている\tneutral\tx\n男性が道を走っている\tneutral\n")
    assert proc.returncode == 0 and len(proc.stdout.splitlines()) == 1
    assert "<stdin>:2: 3 tab-separated fields, the header has 2" in proc.stderr


def test_output_is_deterministic(tmp_path):
    a = run_gen("stress", str(SAMPLE), "--premise-col", "sentence_A_original", "-q")
    b = run_gen("stress", str(SAMPLE), "--premise-col", "sentence_A_original", "-q",
                env={"PYTHONHASHSEED": "123"})
    assert a.returncode == 0 and a.stdout == b.stdout and a.stdout


def test_stress_folder_is_shipped():
    assert sorted(p.stem for p in Path(templates_dir("stress")).glob("*.yaml")) == [
        "delete", "scramble", "swap"]


# -- folders: manifest, card, gen verify ----------------------------------------------------

@pytest.fixture(scope="module")
def stress_folder(tmp_path_factory):
    """The sample's originals transformed into a folder, the input copied beside it so that
    the recorded command (a relative path) runs again from that folder."""
    root = tmp_path_factory.mktemp("stress")
    (root / "sample.tsv").write_bytes(SAMPLE.read_bytes())
    proc = run_gen("stress", "sample.tsv", "--premise-col", "sentence_A_original", "-q",
                   "-o", "out/", cwd=root)
    assert proc.returncode == 0, proc.stderr
    return root


def test_folder_has_data_manifest_and_card(stress_folder):
    out = stress_folder / "out"
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "all.jsonl", "manifest.json"]
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    records = [json.loads(x) for x in (out / "all.jsonl").read_text(encoding="utf-8").splitlines()]
    assert manifest["family"] == "stress"
    assert manifest["command"] == "gen stress sample.tsv --premise-col sentence_A_original"
    assert manifest["input"]["rows"] == 360 and manifest["files"]["all.jsonl"]["records"] == len(records)
    assert sorted(manifest["transformations"]) == ["delete", "scramble", "swap"]
    counted = Counter()
    for key, labels in manifest["counts"].items():
        for label, n in labels.items():
            counted[(key, label)] += n
    assert counted == Counter((f"{r['transform']}/{r['pair']}", r["label"]) for r in records)
    assert manifest["ambiguous"] == sum(
        any("ambiguous" in c["argument"] for c in r["rationale"]["changes"]) for r in records) > 0
    card = (out / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\n") and "path: \"all.jsonl\"" in card
    assert "Yanaka" in card and "| scramble/ga-o |" in card


def test_verify_re_derives_and_reproduces_a_stress_folder(stress_folder, tmp_path):
    proc = run_gen("verify", "out", cwd=stress_folder)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "re-derived from premise_original" in proc.stdout and "3/3 files" in proc.stdout
    # an edited label and an edited premise are named; the input gone, records still checked
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(stress_folder / "out", copy)
    lines = (copy / "all.jsonl").read_text(encoding="utf-8").splitlines()
    first, second = json.loads(lines[0]), json.loads(lines[1])
    first["label"] = "neutral" if first["label"] != "neutral" else "entailment"
    second["premise"] = second["premise_original"]
    lines[0], lines[1] = (json.dumps(r, ensure_ascii=False) for r in (first, second))
    (copy / "all.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = run_gen("verify", str(copy), cwd=tmp_path)
    assert proc.returncode == 1
    assert f"all.jsonl:1: {first['id']}: label" in proc.stdout
    assert f"all.jsonl:2: {second['id']}: premise" in proc.stdout
    assert "input sample.tsv not found" in proc.stdout


def test_stdin_input_is_recorded_and_cannot_be_rerun(tmp_path):
    text = "premise\tlabel\n男性が道を走っている\tentailment\n"
    proc = run_gen("stress", "-q", "-o", str(tmp_path / "out") + "/", input=text)
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["input"]["path"] == "<stdin>"
    proc = run_gen("verify", str(tmp_path / "out"))
    assert proc.returncode == 1 and "read from stdin" in proc.stdout
    assert "3/3 re-derived" in proc.stdout

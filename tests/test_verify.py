"""gen verify: labels re-derived from slots, sets regenerated from their manifest."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import REPO, generate_folder, run_gen
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nligen.tools.verify import RecordChecker, verify, verify_many

JAMP_ARGS = ("jamp", "--n", "60", "--seed", "5", "--split", "fragment_hard")
WOGLI_ARGS = ("wogli", "--set", "os_hard", "--n", "40", "--seed", "2")


@pytest.fixture(scope="module")
def jamp_dir(tmp_path_factory) -> Path:
    return generate_folder(tmp_path_factory.mktemp("v") / "jamp", *JAMP_ARGS)


@pytest.fixture(scope="module")
def wogli_dir(tmp_path_factory) -> Path:
    return generate_folder(tmp_path_factory.mktemp("v") / "wogli", *WOGLI_ARGS)


def _copy(src: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(src, tmp_path / src.name))


def _edit_record(path: Path, index: int, change) -> dict:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    record = json.loads(lines[index])
    change(record)
    lines[index] = json.dumps(record, ensure_ascii=False) + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    return record


def test_fresh_output_passes(jamp_dir, wogli_dir):
    for folder, records in ((jamp_dir, 60), (wogli_dir, 40)):
        report = verify(folder)
        assert report.ok, report.text()
        assert report.records == records and report.labels_checked == records
        assert {f.name for f in report.files} >= {"manifest.json", "README.md"}
        assert all(f.in_folder == f.regenerated for f in report.files)
    proc = run_gen("verify", str(jamp_dir))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.rstrip().endswith("ok")
    assert "60/60 re-derived" in proc.stdout


def test_a_flipped_label_fails_naming_the_record(jamp_dir, tmp_path):
    folder = _copy(jamp_dir, tmp_path)
    rec = _edit_record(folder / "test.jsonl", 3, lambda r: r.update(
        label="entailment" if r["label"] != "entailment" else "contradiction"))
    proc = run_gen("verify", str(folder))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"test.jsonl:4: {rec['id']}: label '{rec['label']}', but template {rec['template']}" \
        in proc.stdout
    assert "test.jsonl: differs; it was changed after generation" in proc.stdout
    assert "labels: 59/60 re-derived" in proc.stdout
    assert proc.stdout.rstrip().endswith("FAILED")
    data = json.loads(run_gen("verify", str(folder), "--json").stdout)
    assert data["ok"] is False and data["reproduced"] is False
    assert [m["id"] for m in data["labels"]["mismatches"]] == [rec["id"]]
    assert data["files"]["train.jsonl"]["reproduced"] is True
    assert data["files"]["test.jsonl"]["reproduced"] is False


def test_wogli_flipped_label_and_edited_hypothesis(wogli_dir, tmp_path):
    folder = _copy(wogli_dir, tmp_path)
    flipped = _edit_record(folder / "all.jsonl", 0, lambda r: r.update(
        label="entailment" if r["label"] == "non-entailment" else "non-entailment"))
    edited = _edit_record(folder / "all.jsonl", 5, lambda r: r.update(
        hypothesis=r["premise"]))
    report = verify(folder)
    assert not report.ok
    by_id = {f.record: f.what for f in report.findings}
    assert set(by_id) == {flipped["id"], edited["id"]}
    assert "but template wogli." in by_id[flipped["id"]]
    assert "hypothesis does not render" in by_id[edited["id"]]


@pytest.mark.parametrize("change, message", [
    # a slot value the lexicon does not give (the text no longer matches the entry)
    (lambda r: r["slots"]["V"].update(lemma="飛ぶ"), "slot 'V' holds a value"),
    # a time expression whose text does not say what its start/end say
    (lambda r: r["slots"]["tp_1"].update(text="1999年"), "slot 'tp_1'"),
    (lambda r: r.update(premise=r["premise"] + "。"), "premise does not render"),
    (lambda r: r.update(template="no.such.template"), "unknown template"),
    (lambda r: r.pop("label"), "no label"),
])
def test_edited_records_are_named(jamp_dir, tmp_path, change, message):
    folder = _copy(jamp_dir, tmp_path)
    lines = (folder / "train.jsonl").read_text(encoding="utf-8").splitlines()
    index = next(i for i, line in enumerate(lines)
                 if '"tp_1"' in line and '"V"' in line)  # a record with a verb and a time point
    rec = _edit_record(folder / "train.jsonl", index, change)
    report = verify(folder)
    assert [f.record for f in report.findings] == [rec["id"]], report.text()
    assert message in report.findings[0].what
    assert report.findings[0].where.endswith(f"train.jsonl:{index + 1}")


def test_edited_readme_is_not_reproduced_but_labels_hold(jamp_dir, tmp_path):
    folder = _copy(jamp_dir, tmp_path)
    with open(folder / "README.md", "a", encoding="utf-8") as fh:
        fh.write("\nedited\n")
    report = verify(folder)
    assert report.labels_ok and not report.reproduced and not report.ok
    assert [f.name for f in report.files if not f.reproduced] == ["README.md"]


def test_tsv_output_checks_the_regenerated_records(tmp_path):
    folder = generate_folder(tmp_path / "tsv", "jamp", "--n", "30", "--seed", "4",
                       "--format", "jamp-tsv")
    report = verify(folder)
    assert report.ok, report.text()
    assert report.labels_source == "regenerated" and report.labels_checked == 30
    text = (folder / "all.tsv").read_text(encoding="utf-8").replace("\tentailment\t",
                                                                    "\tneutral\t", 1)
    (folder / "all.tsv").write_text(text, encoding="utf-8")
    report = verify(folder)
    assert report.labels_ok and not report.reproduced
    assert [f.name for f in report.files if not f.reproduced] == ["all.tsv"]


def _readme_example(root: Path) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for name, body in re.findall(r"<!-- example-file: (\S+) -->\n```yaml\n(.*?)```", readme,
                                 re.DOTALL):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(body, encoding="utf-8")


def test_custom_templates_and_a_changed_condition(tmp_path):
    _readme_example(tmp_path)
    generate_folder(tmp_path / "out", "run", "mine/", "--n", "120", "--seed", "1", "--split",
              "augmentation", cwd=tmp_path)
    proc = run_gen("verify", "out", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    template = tmp_path / "mine" / "ages.yaml"
    template.write_text(template.read_text(encoding="utf-8")
                        .replace("x > y", "x >= y").replace("x <= y", "x < y"), encoding="utf-8")
    proc = run_gen("verify", "out", cwd=tmp_path)
    assert proc.returncode == 1
    assert "manifest: template mine/ages.yaml changed since generation" in proc.stdout
    # Equal ages now give entailment; the set was made when they gave contradiction.
    records = [json.loads(line) for name in ("train.jsonl", "test.jsonl")
               for line in (tmp_path / "out" / name).read_text(encoding="utf-8").splitlines()]
    equal = {r["id"] for r in records if r["slots"]["x"]["value"] == r["slots"]["y"]["value"]}
    assert equal, "the sample should hold problems with equal ages"
    data = json.loads(run_gen("verify", "out", "--json", cwd=tmp_path).stdout)
    mismatches = data["labels"]["mismatches"]
    assert {m["id"] for m in mismatches} == equal
    assert all("label 'contradiction', but template mine.ages gives 'entailment'" in m["what"]
               for m in mismatches)


def test_set_all_folders_are_verified_one_by_one(tmp_path):
    generate_folder(tmp_path / "sets", "wogli", "--set", "all", "--n", "8", "--seed", "3")
    reports = verify_many(tmp_path / "sets")
    assert [Path(r.folder).name for r in reports] == sorted(
        ["wogli", "os_hard", "p_subject", "dative", "ditransitive"])
    assert all(r.ok for r in reports), [r.text() for r in reports if not r.ok]


@pytest.mark.parametrize("setup, fragments", [
    (lambda d: None, ["no such folder"]),
    (lambda d: d.mkdir(), ["no manifest.json"]),
    (lambda d: (d.mkdir(), (d / "manifest.json").write_text("{oops", encoding="utf-8")),
     ["manifest.json", "not JSON"]),
    (lambda d: (d.mkdir(), (d / "manifest.json").write_text("{}", encoding="utf-8")),
     ["manifest.json", "'command'"]),
    (lambda d: (d.mkdir(), (d / "manifest.json").write_text(
        '{"command": "gen audit x", "files": {}}', encoding="utf-8")),
     ["not a generating command"]),
])
def test_bad_input_is_one_line_exit_2(tmp_path, setup, fragments):
    from test_cli import assert_user_error

    folder = tmp_path / "set"
    setup(folder)
    assert_user_error(run_gen("verify", str(folder)), *fragments)


def test_a_line_that_is_not_json_names_file_and_line(jamp_dir, tmp_path):
    from test_cli import assert_user_error

    folder = _copy(jamp_dir, tmp_path)
    lines = (folder / "train.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    lines[6] = "{not json\n"
    (folder / "train.jsonl").write_text("".join(lines), encoding="utf-8")
    assert_user_error(run_gen("verify", str(folder)), "train.jsonl:7", "not JSON")


# -- the checker as a property: every generated record passes, every wrong label fails --

@pytest.fixture(scope="module")
def jamp_checked():
    from nligen.api import lexicon_set_for
    from nligen.families import jamp, load_family

    ds = jamp.generate(n=400, seed=11)
    ts = load_family("jamp")
    return ds.records, RecordChecker(ts, lexicon_set_for(None, ts))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_record_passes_and_every_other_label_is_caught(jamp_checked, data):
    records, checker = jamp_checked
    record = data.draw(st.sampled_from(records))
    assert checker.check(record) is None
    wrong = data.draw(st.sampled_from(
        [lab for lab in ("entailment", "neutral", "contradiction") if lab != record["label"]]))
    why = checker.check(dict(record, label=wrong))
    assert why is not None and f"label {wrong!r}" in why and repr(record["label"]) in why

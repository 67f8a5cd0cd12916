"""`gen export`: llm-jp-eval's evaluation format and lm-evaluation-harness tasks from a
generated folder; `gen eval` reading the harnesses' output back, checked against a real
lm-eval --log_samples file (tests/data/lm_eval, made by make_fixture.sh); one-line errors."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import jinja2
import pytest
import yaml

from nligen.cli import main

FIXTURE = Path(__file__).parent / "data" / "lm_eval"
THREE = ("entailment", "contradiction", "neutral")
TWO = ("entailment", "non-entailment")
LM_EVAL_TASK_KEYS = ("task", "dataset_path", "dataset_kwargs", "output_type", "test_split",
                     "doc_to_text", "doc_to_choice", "doc_to_target", "metric_list")


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def gen(*args: str) -> None:
    assert main([*args, "-q"]) == 0


@pytest.fixture(scope="module")
def jamp_split(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("jamp") / "jamp-hard"
    gen("jamp", "--n", "60", "--split", "fragment_hard", "-o", f"{folder}/")
    return folder


@pytest.fixture(scope="module")
def wogli_split(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("wogli") / "wogli-pattern"
    gen("wogli", "--n", "60", "--split", "pattern", "-o", f"{folder}/")
    return folder


@pytest.fixture(scope="module")
def wogli_all(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("wogli_all") / "w"
    gen("wogli", "--n", "20", "-o", f"{folder}/")
    return folder


def pair(record: dict) -> tuple[str, str]:
    return record["premise"], record["hypothesis"]


# -- llm-jp-eval -----------------------------------------------------------------------------

def test_llm_jp_eval_samples_are_the_test_split_and_few_shots_come_from_train(jamp_split,
                                                                               tmp_path):
    out = tmp_path / "jamp_nligen.json"
    gen("export", "llm-jp-eval", str(jamp_split), "-o", str(out))
    data = json.loads(out.read_text(encoding="utf-8"))
    assert set(data) >= {"instruction", "output_length", "metrics", "few_shots", "samples"}
    assert data["metrics"] == ["exact_match"] and data["output_length"] == 3
    for label in THREE:  # the instruction names the answers, as llm-jp-eval's jamp does
        assert label in data["instruction"]
    test, train = read_jsonl(jamp_split / "test.jsonl"), read_jsonl(jamp_split / "train.jsonl")
    assert len(data["samples"]) == len(test)
    for sample, record in zip(data["samples"], test):
        assert set(sample) == {"input", "output"}
        assert sample["input"] == f"前提：{record['premise']}\n仮説：{record['hypothesis']}"
        assert sample["output"] == record["label"] and sample["output"] in THREE
    train_inputs = {f"前提：{r['premise']}\n仮説：{r['hypothesis']}": r["label"] for r in train}
    test_inputs = {s["input"] for s in data["samples"]}
    assert len(data["few_shots"]) == 4
    for shot in data["few_shots"]:
        assert shot["input"] in train_inputs and shot["input"] not in test_inputs
        assert shot["output"] == train_inputs[shot["input"]]
    # labels in turn: the four shots hold every label train has
    assert {s["output"] for s in data["few_shots"]} == {r["label"] for r in train} & set(THREE)


def test_llm_jp_eval_without_train_has_no_few_shots_and_wogli_is_german_two_way(wogli_all,
                                                                                 tmp_path):
    out = tmp_path / "w.json"
    gen("export", "llm-jp-eval", str(wogli_all), "-o", str(out), "--few-shots", "8")
    data = json.loads(out.read_text(encoding="utf-8"))
    records = read_jsonl(wogli_all / "all.jsonl")
    assert data["few_shots"] == [] and len(data["samples"]) == len(records) == 20
    assert data["output_length"] == 7 and "non-entailment" in data["instruction"]
    for sample, record in zip(data["samples"], records):
        assert sample["input"] == f"Prämisse: {record['premise']}\nHypothese: " \
                                  f"{record['hypothesis']}"
        assert sample["output"] == record["label"] and sample["output"] in TWO


def test_few_shots_option_and_split_option(jamp_split, tmp_path):
    out = tmp_path / "j.json"
    gen("export", "llm-jp-eval", str(jamp_split), "-o", str(out), "--few-shots", "2")
    assert len(json.loads(out.read_text(encoding="utf-8"))["few_shots"]) == 2
    gen("export", "llm-jp-eval", str(jamp_split), "-o", str(out), "--split", "train")
    data = json.loads(out.read_text(encoding="utf-8"))
    assert len(data["samples"]) == len(read_jsonl(jamp_split / "train.jsonl"))
    assert data["few_shots"] == []  # never examples from the split that is evaluated


# -- lm-eval ---------------------------------------------------------------------------------

def load_task_folder(folder: Path) -> tuple[dict, dict[str, dict]]:
    """(group config, {task: config}) of an exported folder, read with yaml.safe_load."""
    configs = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.yaml"))]
    groups = [c for c in configs if "group" in c]
    assert len(groups) == 1, "one group YAML"
    return groups[0], {c["task"]: c for c in configs if "task" in c and "group" not in c}


def check_lm_eval_export(folder: Path, src: Path, field: str, choices: list[str]) -> None:
    group, tasks = load_task_folder(folder)
    test, train = read_jsonl(src / "test.jsonl"), read_jsonl(src / "train.jsonl")
    assert sorted(group["task"]) == sorted(tasks)
    assert group["aggregate_metric_list"][0]["metric"] == "acc"
    values = Counter(r[field] for r in test)
    assert len(tasks) == len(values), f"one subtask per {field}"
    seen_ids: list[str] = []
    for name, config in tasks.items():
        for key in LM_EVAL_TASK_KEYS:
            assert key in config, (name, key)
        assert config["dataset_path"] == "json" and config["output_type"] == "multiple_choice"
        assert config["doc_to_choice"] == choices
        assert config["metric_list"][0]["metric"] == "acc"
        files = config["dataset_kwargs"]["data_files"]
        assert set(files) == {"test", "train"} and config["fewshot_split"] == "train"
        for path in files.values():
            assert Path(path).is_absolute() and Path(path).is_file()
        docs = read_jsonl(Path(files["test"]))
        assert len({d[field] for d in docs}) == 1 and len(docs) == values[docs[0][field]]
        template = jinja2.Template(config["doc_to_text"])
        for doc in docs:
            assert doc["id"] and doc[config["doc_to_target"]] in choices
            assert doc["choice_labels"][choices.index(doc["answer"])] == doc["label"]
            text = template.render(**doc)
            assert doc["premise"] in text and doc["hypothesis"] in text
        seen_ids += [d["id"] for d in docs]
        assert [d["id"] for d in read_jsonl(Path(files["train"]))] == [r["id"] for r in train]
    assert sorted(seen_ids) == sorted(r["id"] for r in test)  # every test problem, once


def test_lm_eval_jamp_one_subtask_per_fragment_japanese_choices(jamp_split, tmp_path):
    gen("export", "lm-eval", str(jamp_split), "-o", f"{tmp_path}/task/")
    check_lm_eval_export(tmp_path / "task", jamp_split, "fragment", ["含意", "矛盾", "中立"])
    group, _ = load_task_folder(tmp_path / "task")
    assert group["group"] == "jamp_hard"  # the folder's name


def test_lm_eval_wogli_one_subtask_per_pattern(wogli_split, tmp_path):
    gen("export", "lm-eval", str(wogli_split), "-o", f"{tmp_path}/task/", "--name", "wog")
    check_lm_eval_export(tmp_path / "task", wogli_split, "pattern", ["Ja", "Nein"])
    group, tasks = load_task_folder(tmp_path / "task")
    assert group["group"] == "wog" and all(t.startswith("wog_") for t in tasks)


def test_lm_eval_data_load_as_lm_eval_loads_them(jamp_split, tmp_path):
    """lm-eval hands dataset_path and dataset_kwargs to datasets.load_dataset."""
    datasets = pytest.importorskip("datasets")
    gen("export", "lm-eval", str(jamp_split), "-o", f"{tmp_path}/task/")
    _, tasks = load_task_folder(tmp_path / "task")
    config = next(iter(tasks.values()))
    loaded = datasets.load_dataset(config["dataset_path"], cache_dir=str(tmp_path / "cache"),
                                   **config["dataset_kwargs"])
    assert set(loaded) == {"test", "train"}
    assert all(row["id"] for row in loaded["test"])


def test_exports_are_byte_identical(jamp_split, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "sub" / "b.json"
    gen("export", "llm-jp-eval", str(jamp_split), "-o", str(a))
    gen("export", "llm-jp-eval", str(jamp_split), "-o", str(b))
    assert a.read_bytes() == b.read_bytes()
    for name in ("x", "y"):  # relative data paths: the same bytes wherever written
        gen("export", "lm-eval", str(jamp_split), "-o", f"{tmp_path}/{name}/",
            "--data-path", ".")
    x = {p.name: p.read_bytes() for p in (tmp_path / "x").iterdir()}
    assert x == {p.name: p.read_bytes() for p in (tmp_path / "y").iterdir()}
    gen("export", "lm-eval", str(jamp_split), "-o", f"{tmp_path}/x/", "--data-path", ".")
    assert x == {p.name: p.read_bytes() for p in (tmp_path / "x").iterdir()}  # again: same


# -- errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("case", ["no-manifest", "missing-src", "unknown-harness", "tsv",
                                  "llm-jp-eval-to-folder", "unknown-split", "file-src"])
def test_bad_input_is_one_line_and_writes_nothing(case, tmp_path, capsys, jamp_split):
    empty = tmp_path / "empty"
    empty.mkdir()
    tsv = tmp_path / "tsv"
    if case == "tsv":  # as gen jamp --format jamp-tsv -o DIR/ writes it
        tsv.mkdir()
        (tsv / "all.tsv").write_text("num\tpremise\thypothesis\tgold_label\n", encoding="utf-8")
        (tsv / "manifest.json").write_text(json.dumps(
            {"family": "jamp", "command": "gen jamp --n 1 --format jamp-tsv",
             "format": "jamp-tsv", "files": {"all.tsv": {"records": 0}}}), encoding="utf-8")
    out = tmp_path / "out"
    args, expected = {
        "no-manifest": (["lm-eval", str(empty), "-o", f"{out}/"],
                        f"error: {empty}: no manifest.json"),
        "missing-src": (["llm-jp-eval", str(tmp_path / "nope"), "-o", f"{out}.json"],
                        f"error: {tmp_path / 'nope'}: no such folder"),
        "unknown-harness": (["helm", str(jamp_split), "-o", f"{out}/"],
                            "error: gen export: argument HARNESS: invalid choice: 'helm'"),
        "tsv": (["lm-eval", str(tsv), "-o", f"{out}/"],
                f"error: {tsv / 'manifest.json'}: format 'jamp-tsv'"),
        "llm-jp-eval-to-folder": (["llm-jp-eval", str(jamp_split), "-o", f"{out}/"],
                                  "error: -o: llm-jp-eval reads one JSON file"),
        "unknown-split": (["lm-eval", str(jamp_split), "-o", f"{out}/", "--split", "dev"],
                          "error: --split: no split 'dev'"),
        "file-src": (["lm-eval", str(jamp_split / "test.jsonl"), "-o", f"{out}/"],
                     "not a folder"),
    }[case]
    assert main(["export", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0]
    assert "Traceback" not in captured.err
    assert not out.exists() and not Path(f"{out}.json").exists()


def test_a_folder_with_other_tasks_is_refused(jamp_split, wogli_split, tmp_path, capsys):
    gen("export", "lm-eval", str(wogli_split), "-o", f"{tmp_path}/t/")
    before = sorted(p.name for p in (tmp_path / "t").iterdir())
    assert main(["export", "lm-eval", str(jamp_split), "-o", f"{tmp_path}/t/"]) == 2
    assert "lm-eval would load too" in capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "t").iterdir()) == before


# -- gen eval on the harnesses' output -------------------------------------------------------

def expected_from_log_samples(path: Path) -> tuple[int, int]:
    """(correct, n) computed from the fixture's own fields: the argmax of each sample's
    log-likelihoods against the index of its target among the choices it scored."""
    correct = n = 0
    for sample in read_jsonl(path):
        scores = [float(r[0][0]) for r in sample["resps"]]
        choices = [sample["arguments"][f"gen_args_{i}"]["arg_1"].strip()
                   for i in range(len(scores))]
        correct += scores.index(max(scores)) == choices.index(sample["target"])
        n += 1
    return correct, n


def run_eval(capsys, gold: Path, pred: Path) -> dict:
    assert main(["eval", "--gold", str(gold), "--pred", str(pred), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_gen_eval_reads_a_real_lm_eval_log_samples_file(capsys, tmp_path):
    gold, samples = FIXTURE / "gold.jsonl", FIXTURE / "samples.jsonl"
    correct, n = expected_from_log_samples(samples)
    assert n == len(read_jsonl(gold)) == 20
    # lm-eval's own per-sample acc agrees with the computation above
    assert correct == sum(s["acc"] for s in read_jsonl(samples))
    result = run_eval(capsys, gold, samples)
    assert (result["correct"], result["n"]) == (correct, n)
    assert result["accuracy"] == correct / n
    assert result["consistency"] is not None and "n_groups" in result
    assert set(result["groups"]["seen"]) == {"seen", "unseen"}
    # lm-eval's --output_path folder: every samples_*.jsonl under it
    out = tmp_path / "out" / "model"
    out.mkdir(parents=True)
    shutil.copy(samples, out / "samples_nligen_fixture_interval_2026.jsonl")
    assert run_eval(capsys, gold, tmp_path / "out")["correct"] == correct


def test_gen_eval_refuses_log_samples_of_another_set(capsys, tmp_path):
    records = read_jsonl(FIXTURE / "gold.jsonl")
    other = "neutral" if records[0]["label"] != "neutral" else "entailment"
    records[0]["label"] = other
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                    encoding="utf-8")
    assert main(["eval", "--gold", str(gold), "--pred", str(FIXTURE / "samples.jsonl")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "predictions for another set" in err[0]
    assert f"{FIXTURE / 'samples.jsonl'}:1" in err[0]


def test_gen_eval_needs_the_doc_id(capsys, tmp_path):
    lines = (FIXTURE / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    sample = json.loads(lines[1])
    del sample["doc"]["id"]
    pred = tmp_path / "samples_x.jsonl"
    pred.write_text("\n".join([lines[0], json.dumps(sample, ensure_ascii=False)]) + "\n",
                    encoding="utf-8")
    assert main(["eval", "--gold", str(FIXTURE / "gold.jsonl"), "--pred", str(pred)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and f"{pred}:2" in err[0] and "no 'id'" in err[0]


def test_gen_eval_reads_llm_jp_eval_generated_output(jamp_split, tmp_path, capsys):
    """llm-jp-eval's offline inference writes the dumped prompts back with each sample's
    generated text (*.eval-generated.json); the samples keep the exported input."""
    exported = tmp_path / "jamp_nligen.json"
    gen("export", "llm-jp-eval", str(jamp_split), "-o", str(exported))
    data = json.loads(exported.read_text(encoding="utf-8"))
    answers = ["entailment", "neutral\n\n理由：…", " contradiction。", "わかりません"]
    samples = [{"input": s["input"], "prompt": "…" + s["input"], "gold": s["output"],
                "generated": answers[i % len(answers)]} for i, s in enumerate(data["samples"])]
    pred = tmp_path / "jamp_nligen.eval-generated.json"
    pred.write_text(json.dumps({"target_dataset": "jamp_nligen", "output_length": 3,
                                "samples": samples}, ensure_ascii=False, indent=1),
                    encoding="utf-8")
    read = {0: "entailment", 1: "neutral", 2: "contradiction", 3: None}
    expected = sum(read[i % 4] == s["gold"] for i, s in enumerate(samples))
    result = run_eval(capsys, jamp_split / "test.jsonl", pred)
    assert result["correct"] == expected and result["n"] == len(samples)
    assert result["no_label"] == sum(1 for i in range(len(samples)) if i % 4 == 3)
    assert sum(row["no label"] for row in result["confusion"].values()) == result["no_label"]

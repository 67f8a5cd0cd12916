"""`gen eval`: accuracy per label, template, fragment, pattern, format, span and
seen/unseen, reproduced exactly on predictions built with a known number of errors; WOGLI's
three-way -> two-way collapse; one-line errors for bad input."""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nligen.cli import main
from nligen.tools.evaluate import DELTA_DEFINITION, evaluate, markdown_report

THREE = ("entailment", "neutral", "contradiction")


def wrong(label: str) -> str:
    """A different three-way label."""
    return THREE[(THREE.index(label) + 1) % 3]


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    return path


CONSISTENCY = ("consistency", "consistent", "n_groups")


def run_eval(capsys, gold: Path, pred: Path, accuracy_only: bool = True) -> dict:
    """gen eval --json's result; with ``accuracy_only``, the grouping tables without their
    consistency columns (test_consistency_over_contrast_groups tests those)."""
    assert main(["eval", "--gold", str(gold), "--pred", str(pred), "--json"]) == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) == 1, "--json prints one object"
    result = json.loads(out)
    if accuracy_only:
        for table in result["groups"].values():
            for entry in table.values():
                for key in CONSISTENCY:
                    entry.pop(key, None)
    return result


def stats(correct: int, n: int) -> dict:
    return {"accuracy": correct / n, "correct": correct, "n": n}


@pytest.fixture(scope="module")
def jamp_gold(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("jamp") / "x.jsonl"
    # 240 problems: some templates get 6, so two of them can take several errors
    assert main(["jamp", "--n", "240", "--seed", "3", "-o", str(path), "-q"]) == 0
    return path


@pytest.fixture(scope="module")
def jamp_split(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("jamp_split")
    assert main(["jamp", "--split", "fragment_hard", "--n", "200", "-o", f"{folder}/",
                 "-q"]) == 0
    return folder / "test.jsonl"


@pytest.fixture(scope="module")
def wogli_gold(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("wogli") / "w.jsonl"
    assert main(["wogli", "--n", "60", "-o", str(path), "-q"]) == 0
    return path


def test_known_errors_per_template_and_label_are_reproduced(jamp_gold, tmp_path, capsys):
    records = read_jsonl(jamp_gold)
    by_template = Counter(r["template"] for r in records)
    (a, n_a), (b, n_b) = by_template.most_common(2)
    k, m = 1, 3  # wrong predictions in template a and template b
    assert n_a > k and n_b > m
    flips = {a: k, b: m}
    preds, wrong_by_label = [], Counter()
    for r in records:
        label = r["label"]
        if flips.get(r["template"], 0) > 0:
            flips[r["template"]] -= 1
            wrong_by_label[label] += 1
            label = wrong(label)
        # labels in any case: "ENTAILMENT", "Entailment"
        label = label.upper() if len(preds) % 2 else label.capitalize()
        preds.append({"id": r["id"], "label": label})
    result = run_eval(capsys, jamp_gold, write_jsonl(tmp_path / "preds.jsonl", preds))

    n = len(records)
    assert (result["accuracy"], result["correct"], result["n"]) == ((n - k - m) / n,
                                                                   n - k - m, n)
    assert result["scheme"] == "three-way" and result["collapsed"] == 0
    templates = result["groups"]["template"]
    assert templates[a] == stats(n_a - k, n_a)
    assert templates[b] == stats(n_b - m, n_b)
    assert all(s == stats(by_template[t], by_template[t])
               for t, s in templates.items() if t not in (a, b))
    gold_labels = Counter(r["label"] for r in records)
    assert result["groups"]["label"] == {
        lab: stats(gold_labels[lab] - wrong_by_label[lab], gold_labels[lab]) for lab in THREE}
    # the Jamp groupings are there, the WOGLI ones and seen (no split) are not
    assert {"fragment", "subfragment", "time_format", "time_span"} <= set(result["groups"])
    assert not {"pattern", "set", "hypothesis_type", "seen"} & set(result["groups"])
    assert result["delta"] is None
    fragment_of = {r["template"]: r["fragment"] for r in records}
    fragments = result["groups"]["fragment"]
    assert fragments[fragment_of[a]]["n"] - fragments[fragment_of[a]]["correct"] >= k
    assert sum(s["n"] - s["correct"] for s in fragments.values()) == k + m
    # now.usage has no time expression: its problems are the "none" time format
    no_time = sum(1 for r in records if r.get("time_format") is None)
    assert result["groups"]["time_format"].get("none", {"n": 0})["n"] == no_time
    confusion = result["confusion"]
    assert sum(confusion[g][g] for g in THREE) == n - k - m
    assert sum(confusion[lab][wrong(lab)] for lab in THREE) == k + m


def test_seen_unseen_delta_on_a_fragment_split(jamp_split, tmp_path, capsys):
    records = read_jsonl(jamp_split)
    seen = [r for r in records if r["seen"]]
    unseen = [r for r in records if not r["seen"]]
    assert seen and unseen
    s_wrong, u_wrong = 1, min(5, len(unseen))
    to_flip = {r["id"] for r in seen[:s_wrong] + unseen[:u_wrong]}
    # one label per line, aligned with the gold file
    pred = tmp_path / "preds.txt"
    pred.write_text("".join((wrong(r["label"]) if r["id"] in to_flip else r["label"]) + "\n"
                            for r in records), encoding="utf-8")
    result = run_eval(capsys, jamp_split, pred)

    seen_stats = stats(len(seen) - s_wrong, len(seen))
    unseen_stats = stats(len(unseen) - u_wrong, len(unseen))
    assert result["groups"]["seen"] == {"seen": seen_stats, "unseen": unseen_stats}
    assert result["delta"] == seen_stats["accuracy"] - unseen_stats["accuracy"]
    assert result["delta_definition"] == DELTA_DEFINITION
    assert result["correct"] == len(records) - s_wrong - u_wrong

    assert main(["eval", "--gold", str(jamp_split), "--pred", str(pred)]) == 0
    report = capsys.readouterr().out
    assert f"| seen | {100 * seen_stats['accuracy']:.2f} | {seen_stats['correct']} | " \
           f"{seen_stats['n']} |" in report
    assert f"| Δ (seen − unseen) | {100 * result['delta']:.2f} |" in report


def test_three_way_predictions_on_wogli_are_collapsed(wogli_gold, tmp_path, capsys):
    records = read_jsonl(wogli_gold)
    preds, k = [], 0
    for i, r in enumerate(records):
        if r["label"] == "non-entailment":  # both count as non-entailment: correct
            label = "contradiction" if i % 2 else "NEUTRAL"
        elif k < 3:  # an entailment predicted as neutral: wrong
            label, k = "neutral", k + 1
        else:
            label = "Entailment"
        preds.append({"id": r["id"], "label": label})
    result = run_eval(capsys, wogli_gold, write_jsonl(tmp_path / "p.jsonl", preds))

    n = len(records)
    n_ne = sum(r["label"] == "non-entailment" for r in records)
    assert result["scheme"] == "two-way"
    assert result["labels"] == ["entailment", "non-entailment"]
    assert result["collapsed"] == n_ne + 3
    assert result["accuracy"] == (n - 3) / n
    assert result["groups"]["label"] == {"entailment": stats(n - n_ne - 3, n - n_ne),
                                         "non-entailment": stats(n_ne, n_ne)}
    types = result["groups"]["hypothesis_type"]  # WOGLI's table 3: SO (NE) and OS (E)
    assert types["H1-SO"] == stats(n_ne, n_ne)
    assert types["H2-OS"] == stats(n - n_ne - 3, n - n_ne)
    assert result["groups"]["set"] == {"wogli": stats(n - 3, n)}
    assert sum(s["n"] for s in result["groups"]["pattern"].values()) == n
    assert not {"fragment", "time_format", "seen"} & set(result["groups"])
    assert result["confusion"] == {"entailment": {"entailment": n - n_ne - 3,
                                                  "non-entailment": 3},
                                   "non-entailment": {"entailment": 0,
                                                      "non-entailment": n_ne}}


def test_markdown_report_is_the_default(wogli_gold, tmp_path, capsys):
    records = read_jsonl(wogli_gold)
    pred = tmp_path / "p.txt"
    pred.write_text("entailment\n" * len(records), encoding="utf-8")
    assert main(["eval", "--gold", str(wogli_gold), "--pred", str(pred)]) == 0
    report = capsys.readouterr().out
    n = len(records)
    n_e = sum(r["label"] == "entailment" for r in records)
    assert report.startswith("# Accuracy of ")
    assert f"| all | {100 * n_e / n:.2f} | {n_e} | {n} |" in report
    for title in ("## By gold label", "## By template", "## By pattern", "## By set",
                  "## By hypothesis type", "## Confusion matrix"):
        assert title in report
    assert "## By fragment" not in report and "Δ" not in report


def test_released_tsv_formats_are_accepted_as_gold(tmp_path, capsys):
    gold = tmp_path / "w.tsv"
    assert main(["wogli", "--n", "20", "--format", "wogli-tsv", "-o", str(gold), "-q"]) == 0
    codes = [line.split("\t")[2] for line in gold.read_text().splitlines()[1:]]
    assert set(codes) == {"1", "2"}  # 1 = non-entailment, 2 = entailment
    pred = tmp_path / "p.txt"
    pred.write_text("".join("entailment\n" for _ in codes), encoding="utf-8")
    result = run_eval(capsys, gold, pred)
    assert result["scheme"] == "two-way"
    assert result["correct"] == codes.count("2") and result["n"] == len(codes)
    assert "pattern" in result["groups"]

    folder = tmp_path / "split"
    assert main(["wogli", "--n", "20", "--split", "pattern", "--format", "tsv", "-o",
                 f"{folder}/", "-q"]) == 0
    rows = (folder / "test.tsv").read_text().splitlines()
    header = rows[0].split("\t")
    cells = [dict(zip(header, row.split("\t"))) for row in rows[1:]]
    write_jsonl(tmp_path / "q.jsonl", ({"id": c["id"], "label": c["label"]} for c in cells))
    result = run_eval(capsys, folder / "test.tsv", tmp_path / "q.jsonl")
    assert result["accuracy"] == 1.0
    assert set(result["groups"]["seen"]) == {"seen" if c["seen"] == "true" else "unseen"
                                             for c in cells}


def one_error_line(capsys, *args: str) -> str:
    assert main(["eval", *args]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("error: ") and "Traceback" not in captured.err
    assert captured.out == ""
    return lines[0]


def gold_and_preds(tmp_path, n=8):
    gold = write_jsonl(tmp_path / "gold.jsonl", (
        {"id": f"x-{i}", "family": "t", "template": "t.a" if i % 2 else "t.b",
         "label": THREE[i % 3], "split": "all"} for i in range(n)))
    preds = [{"id": f"x-{i}", "label": THREE[i % 3]} for i in range(n)]
    return gold, preds


@pytest.mark.parametrize("case", [
    "missing gold", "missing preds", "gold is a folder", "preds not JSON", "gold not JSON",
    "gold without label", "unknown id", "duplicate id", "missing id", "too few labels",
    "too many labels", "unknown label", "two-way label on three-way gold", "no label",
])
def test_bad_input_is_one_line_naming_file_and_line(case, tmp_path, capsys):
    gold, preds = gold_and_preds(tmp_path)
    pred = tmp_path / "preds.jsonl"
    where = f"{pred}:"
    if case == "missing gold":
        gold, where = tmp_path / "nope.jsonl", f"{tmp_path / 'nope.jsonl'}: cannot read"
    elif case == "missing preds":
        pred, where = tmp_path / "nope.txt", f"{tmp_path / 'nope.txt'}: cannot read"
    elif case == "gold is a folder":
        gold, where = tmp_path, f"{tmp_path}: cannot read"
    elif case == "preds not JSON":
        preds[6] = "oops"
        where = f"{pred}:7: not JSON"
    elif case == "gold not JSON":
        gold.write_text(gold.read_text() + "{broken\n")
        where = f"{gold}:9: not JSON"
    elif case == "gold without label":
        lines = gold.read_text().splitlines()
        lines[2] = json.dumps({"id": "x-2", "template": "t.b"})
        gold.write_text("\n".join(lines) + "\n")
        where = f"{gold}:3: record has no 'label'"
    elif case == "unknown id":
        preds[4]["id"] = "x-99"
        where = f"{pred}:5: unknown id 'x-99'"
    elif case == "duplicate id":
        preds[5]["id"] = "x-1"
        where = f"{pred}:6: duplicate id 'x-1' (first on line 2)"
    elif case == "missing id":
        del preds[3]
        where = f"{gold}:4: no prediction for id 'x-3'"
    elif case == "too few labels":
        pred = tmp_path / "preds.txt"
        pred.write_text("entailment\n" * 5)
        where = f"{gold}:6: no prediction: {pred} has 5 labels"
    elif case == "too many labels":
        pred = tmp_path / "preds.txt"
        pred.write_text("entailment\n" * 9)
        where = f"{pred}:9: 9 labels, but {gold} has 8 records"
    elif case == "unknown label":
        preds[2]["label"] = "maybe"
        where = f"{pred}:3: unknown predicted label 'maybe'"
    elif case == "two-way label on three-way gold":
        preds[1]["label"] = "Non-Entailment"
        where = f"{pred}:2: two-way label 'non-entailment' predicted"
    elif case == "no label":
        del preds[0]["label"]
        where = f"{pred}:1: prediction has no 'label'"
    if pred.suffix == ".jsonl":
        pred.write_text("".join((p if isinstance(p, str) else json.dumps(p)) + "\n"
                                for p in preds))
    line = one_error_line(capsys, "--gold", str(gold), "--pred", str(pred))
    assert line.startswith(f"error: {where}"), line


def test_eval_needs_both_files(capsys):
    assert "--pred" in one_error_line(capsys, "--gold", "g.jsonl")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["t.a", "t.b", "t.c"]), st.sampled_from(THREE),
                          st.sampled_from([True, False, None]), st.booleans()),
                min_size=1, max_size=40))
def test_groups_partition_the_items(items):
    """Whatever the data, every grouping splits the items and the correct ones exactly,
    and Δ is the seen group's accuracy minus the unseen group's."""
    with tempfile.TemporaryDirectory() as folder:
        gold = write_jsonl(Path(folder) / "g.jsonl", (
            {"id": f"i{i}", "template": t, "label": lab,
             **({} if seen is None else {"seen": seen})}
            for i, (t, lab, seen, _) in enumerate(items)))
        pred = write_jsonl(Path(folder) / "p.jsonl", (
            {"id": f"i{i}", "label": lab if ok else wrong(lab)}
            for i, (_, lab, _, ok) in enumerate(items)))
        result = evaluate(gold, pred)
    correct = sum(ok for *_, ok in items)
    assert (result["correct"], result["n"]) == (correct, len(items))
    for table in result["groups"].values():
        assert sum(s["n"] for s in table.values()) == len(items)
        assert sum(s["correct"] for s in table.values()) == correct
        assert all(s["accuracy"] == s["correct"] / s["n"] for s in table.values())
    assert ("seen" in result["groups"]) == any(seen is not None for _, _, seen, _ in items)
    seen = result["groups"].get("seen", {})
    if "seen" in seen and "unseen" in seen:
        assert result["delta"] == seen["seen"]["accuracy"] - seen["unseen"]["accuracy"]
    else:
        assert result["delta"] is None
    report = markdown_report(result)
    assert f"| all | {100 * correct / len(items):.2f} | {correct} | {len(items)} |" in report


def test_consistency_over_contrast_groups(wogli_gold, tmp_path, capsys):
    """Every record has a group (a WOGLI premise's hypotheses share one); consistency is
    the share of groups with every member right: 0 when one member of every group is
    wrong, 1 when all are right; per grouping, over the members with that value."""
    records = read_jsonl(wogli_gold)
    groups = Counter(r["group"] for r in records)
    assert all(r.get("group") for r in records) and set(groups.values()) == {2}
    first = set()
    preds = []
    for r in records:
        label = r["label"]
        if r["group"] not in first:  # one member of every group wrong
            first.add(r["group"])
            label = "entailment" if label == "non-entailment" else "non-entailment"
        preds.append({"id": r["id"], "label": label})
    result = run_eval(capsys, wogli_gold, write_jsonl(tmp_path / "p.jsonl", preds),
                      accuracy_only=False)
    assert result["accuracy"] == 0.5
    assert (result["consistency"], result["consistent"], result["n_groups"]) == (
        0.0, 0, len(groups))
    assert all(e["consistency"] == 0.0 for e in result["groups"]["set"].values())
    right = [{"id": r["id"], "label": r["label"]} for r in records]
    result = run_eval(capsys, wogli_gold, write_jsonl(tmp_path / "r.jsonl", right),
                      accuracy_only=False)
    assert result["consistency"] == 1.0 and result["n_groups"] == len(groups)
    assert main(["eval", "--gold", str(wogli_gold), "--pred", str(tmp_path / "p.jsonl")]) == 0
    report = capsys.readouterr().out
    assert f"| all | 50.00 | {len(records) // 2} | {len(records)} | 0.00 | 0 | {len(groups)} |" \
        in report
    # gold without groups: no consistency
    plain = write_jsonl(tmp_path / "g.jsonl", [{k: v for k, v in r.items() if k != "group"}
                                                for r in records])
    result = run_eval(capsys, plain, tmp_path / "r.jsonl", accuracy_only=False)
    assert result["consistency"] is None
    assert "consistency" not in result["groups"]["set"]["wogli"]

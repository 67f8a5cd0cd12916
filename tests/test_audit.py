"""`gen audit`: token–label artifacts, the hypothesis-only baseline, split hygiene, the
plot and the errors."""

from __future__ import annotations

import json
import math
import random
import shutil
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from nligen.cli import main
from nligen.tools.audit import (
    Tokenizer,
    binom_sf,
    log_binom_sf,
    min_significant_p_hat,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def write_jsonl(path: Path, records) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                    encoding="utf-8")
    return path


def run_json(capsys, *args) -> dict:
    assert main(["audit", *map(str, args), "--json"]) == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) == 1, "--json prints one object"
    return json.loads(out)


def assert_one_line_error(capsys, args, *fragments):
    assert main(["audit", *map(str, args)]) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), captured.err
    for f in fragments:
        assert f in lines[0], lines[0]


# -- the binomial test ---------------------------------------------------------------------

def exact_sf(k: int, n: int, p: Fraction) -> Fraction:
    return sum((math.comb(n, j) * p ** j * (1 - p) ** (n - j) for j in range(k, n + 1)),
               Fraction(0))


def test_binomial_tail_matches_a_hand_computed_value():
    # P(X >= 8), X ~ Bin(10, 1/3) = (C(10,8) 2^2 + C(10,9) 2 + C(10,10)) / 3^10 = 201 / 59049
    assert binom_sf(8, 10, 1 / 3) == pytest.approx(201 / 59049, rel=1e-12)
    assert binom_sf(0, 10, 1 / 3) == 1.0
    assert binom_sf(11, 10, 1 / 3) == 0.0


@pytest.mark.parametrize("k, n, p", [(1, 1, Fraction(1, 2)), (3, 10, Fraction(1, 3)),
                                     (2, 10, Fraction(1, 3)), (40, 60, Fraction(1, 3)),
                                     (17, 30, Fraction(1, 2)), (5, 200, Fraction(1, 3)),
                                     (150, 300, Fraction(1, 3))])
def test_binomial_tail_matches_exact_fractions(k, n, p):
    assert binom_sf(k, n, float(p)) == pytest.approx(float(exact_sf(k, n, p)), rel=1e-9)


def test_binomial_tail_in_log_space_does_not_underflow():
    # (1/3)^2000 underflows a float; its logarithm does not.
    assert log_binom_sf(2000, 2000, 1 / 3) == pytest.approx(2000 * math.log(1 / 3), rel=1e-12)


def test_significance_curve_is_the_smallest_significant_p_hat():
    threshold = 0.01 / 300
    for n in (5, 20, 100, 1000):
        p_hat = min_significant_p_hat(n, 1 / 3, threshold)
        if p_hat is None:
            assert binom_sf(n, n, 1 / 3) > threshold
            continue
        k = round(p_hat * n)
        assert binom_sf(k, n, 1 / 3) <= threshold < binom_sf(k - 1, n, 1 / 3)
    assert min_significant_p_hat(3, 1 / 3, threshold) is None  # (1/3)^3 is not small enough


# -- artifacts and the hypothesis-only baseline --------------------------------------------

LABELS = ("entailment", "neutral", "contradiction")
FILLER = [f"w{i}" for i in range(30)]


def planted_records(n=300, seed=0):
    """Balanced labels, random filler hypotheses; 'zorp' only in half the entailments."""
    rng = random.Random(seed)
    records = []
    for i in range(n):
        label = LABELS[i % 3]
        words = rng.sample(FILLER, 4)
        if label == "entailment" and rng.random() < 0.5:
            words.insert(rng.randrange(5), "zorp")
        records.append({"id": f"toy-{i:04d}", "family": "toy", "premise": "A person is here.",
                        "hypothesis": " ".join(words) + " .", "label": label, "split": "all"})
    return records


def test_a_planted_token_is_the_one_significant_artifact(tmp_path, capsys):
    records = planted_records()
    path = write_jsonl(tmp_path / "planted.jsonl", records)
    result = run_json(capsys, path)
    n_zorp = sum("zorp" in r["hypothesis"].split() for r in records)
    assert [(a["token"], a["label"], a["n"]) for a in result["artifacts"]] == [
        ("zorp", "entailment", n_zorp)]
    zorp = result["artifacts"][0]
    assert zorp["p_hat"] == 1.0
    assert zorp["p_value"] == pytest.approx((1 / 3) ** n_zorp, rel=1e-9)
    test = result["artifact_test"]
    assert test["tests"] == test["tokens"] * 3 and test["prior"] == pytest.approx(1 / 3)
    assert test["threshold"] == pytest.approx(0.01 / test["tests"])
    # The shortcut lifts the hypothesis-only model well above the majority class.
    h = result["hypothesis_only"]
    assert h["folds"] == 5 and h["majority"] <= 0.34
    assert h["accuracy"] > h["majority"] + 0.05
    for key in ("artifacts", "hypothesis_only", "overlap", "labels"):
        assert key in result
    assert result["labels"]["overall"] == {"entailment": 100, "neutral": 100,
                                           "contradiction": 100}


def test_japanese_is_tokenised_with_fugashi():
    assert Tokenizer()("エレンは走った。", "ja") == ["エレン", "は", "走っ", "た", "。"]
    assert Tokenizer()("Den Kunden warnt der Arzt .", "de") == [
        "Den", "Kunden", "warnt", "der", "Arzt", "."]


@pytest.fixture(scope="module")
def jamp_balanced(tmp_path_factory):
    # 1,000 problems: at 300 the 5-fold accuracy moves by about 0.04 from seed to seed
    # (0.33-0.45 over seeds 2-12 of one lexicon), at 1,000 by about 0.02. (At 2,000 the
    # token test finds the templates' own words, かけ of かけて, significant.)
    out = tmp_path_factory.mktemp("jamp") / "jamp1000.jsonl"
    assert main(["jamp", "--n", "1000", "--seed", "2", "-q", "-o", str(out)]) == 0
    return out


def test_hypothesis_only_on_a_balanced_jamp_set_has_no_shortcut(jamp_balanced, capsys):
    result = run_json(capsys, jamp_balanced)
    h = result["hypothesis_only"]
    assert h["problems"] == 1000 and h["folds"] == 5
    assert h["majority"] == pytest.approx(max(result["labels"]["overall"].values()) / 1000,
                                          abs=0.02)
    # No strong hypothesis-only shortcut: close to the majority class. Templates with one
    # fixed label, and clause flags that keep some clauses out of some templates (due,
    # since, undated), let a hypothesis's words tell its template and so lift the
    # baseline a little: 1,000 problems, seeds 2-5, 0.41-0.44 against a majority of
    # 0.403 (0.42-0.47 before the continuity templates' .began siblings; 0.41-0.45
    # against 0.387 before the 少なくとも siblings of templates 32-37 took over the
    # default draw). A real shortcut (a
    # token that gives the label away) lifts it far more; the token test below finds none.
    assert 0.1 <= h["accuracy"] <= h["majority"] + 0.08
    assert result["languages"] == {"ja": 1000}
    # The labels are balanced per template, not overall (entailment 0.40, neutral 0.28:
    # the continuity templates draw no neutral), so a token in a quarter of the problems (月) can
    # differ from the uniform prior by that share alone; none may differ from its label's
    # share of the set (default --n 1000 at seed 3 had 作成 in 12 contradictions, 0 else,
    # until the cells of a template took the positions of its walk in turns per block)
    shortcuts = [a for a in result["artifacts"] if a["beyond_label_share"]]
    assert shortcuts == []
    share = {k: v / 1000 for k, v in result["labels"]["overall"].items()}
    assert all(a["p_hat"] < share[a["label"]] + 0.15 for a in result["artifacts"])
    assert result["overlap"] == {}  # one split
    templates = result["labels"]["by"]["template"]
    assert sum(sum(c.values()) for c in templates.values()) == 1000
    assert set(result["labels"]["by"]) >= {"template", "fragment", "subfragment"}


# -- split hygiene -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def jamp_split(tmp_path_factory):
    out = tmp_path_factory.mktemp("split") / "split"
    assert main(["jamp", "--split", "fragment_hard", "--n", "200", "-q", "-o",
                 str(out) + "/"]) == 0
    return out


def test_generated_splits_share_nothing(jamp_split, capsys):
    result = run_json(capsys, jamp_split)
    assert result["overlap"] == {"train|test": {"pairs": 0, "premises": 0, "hypotheses": 0,
                                                "fillings": 0}}
    assert result["records_without_filling"] == 0
    test_size = result["splits"]["test"]
    seen = result["seen"]["test"]
    assert seen["seen"] + seen["unseen"] == test_size and seen["seen"] and seen["unseen"]
    train = result["seen"]["train"]  # train items are seen by definition
    assert train["seen"] == result["splits"]["train"] and not train["unseen"]
    assert result["split_field_mismatch"] == {}
    assert set(result["hypothesis_only"]["per_split"]) == {"train", "test"}


def test_a_copied_record_is_a_leak_of_one(jamp_split, tmp_path, capsys):
    leaky = tmp_path / "leaky"
    shutil.copytree(jamp_split, leaky)
    first_train = (leaky / "train.jsonl").read_text(encoding="utf-8").splitlines()[0]
    with open(leaky / "test.jsonl", "a", encoding="utf-8") as fh:
        fh.write(first_train + "\n")
    result = run_json(capsys, leaky)
    assert result["overlap"] == {"train|test": {"pairs": 1, "premises": 1, "hypotheses": 1,
                                                "fillings": 1}}
    assert result["split_field_mismatch"] == {str(leaky / "test.jsonl"): 1}
    assert main(["audit", str(leaky)]) == 0
    report = capsys.readouterr().out
    assert "| train\\|test | 1 | 1 | 1 | 1 |" in report


def test_fillings_leave_out_time_expressions(tmp_path, capsys):
    base = {"family": "jamp", "label": "entailment", "hypothesis": "h",
            "slots": {"agent_1": {"text": "ベン", "name": "ベン"},
                      "V": {"text": "答える", "lemma": "答える", "ni": "ご相談"},
                      "tp_1": {"text": "23日", "format": "D", "start": "2001-01-23T00:00:00",
                               "end": "2001-01-24T00:00:00"},
                      "interval_1": {"text": "2日間", "number": 2, "unit": "day"}}}
    other = json.loads(json.dumps(base))
    other["slots"]["tp_1"] = {"text": "5日", "format": "D", "start": "2001-01-05T00:00:00",
                              "end": "2001-01-06T00:00:00"}
    other["slots"]["interval_1"] = {"text": "3日間", "number": 3, "unit": "day"}
    write_jsonl(tmp_path / "train.jsonl", [dict(base, premise="p1", split="train")])
    write_jsonl(tmp_path / "test.jsonl", [dict(other, premise="p2", split="test")])
    result = run_json(capsys, tmp_path)
    assert result["overlap"]["train|test"] == {"pairs": 0, "premises": 0, "hypotheses": 1,
                                               "fillings": 1}


# -- plot ----------------------------------------------------------------------------------

def test_plot_writes_a_png(tmp_path, capsys):
    data = write_jsonl(tmp_path / "planted.jsonl", planted_records())
    png = tmp_path / "plots" / "artifacts.png"
    assert main(["audit", str(data), "--plot", str(png)]) == 0
    assert "## Token–label artifacts" in capsys.readouterr().out
    assert png.read_bytes()[:8] == PNG_MAGIC


def test_plot_without_matplotlib_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    """The report still prints; one warning line says how to get the figure (issue 15)."""
    data = write_jsonl(tmp_path / "planted.jsonl", planted_records(30))
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    assert main(["audit", str(data), "--json", "--plot", str(tmp_path / "x.png")]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["artifacts"] is not None
    assert err.count("\n") == 1 and err.startswith("warning: --plot:")
    assert "pip install 'nligen[plot]'" in err
    assert not (tmp_path / "x.png").exists()


# -- errors --------------------------------------------------------------------------------

GOOD = {"id": "x-1", "premise": "a b", "hypothesis": "a", "label": "entailment"}


@pytest.mark.parametrize("lines, fragments", [
    ([json.dumps(GOOD), "{not json"], [":2:", "not JSON"]),
    ([json.dumps(GOOD), "", json.dumps({"premise": "a", "hypothesis": "b"})],
     [":3:", "without 'label'"]),
    ([json.dumps({"premise": "a", "label": "neutral"})], [":1:", "without 'hypothesis'"]),
    ([json.dumps({"hypothesis": "a", "label": "neutral"})], [":1:", "without 'premise'"]),
    ([json.dumps(dict(GOOD, label=3))], [":1:", "'label'"]),
    ([json.dumps([1, 2])], [":1:", "not a JSON object"]),
    ([json.dumps(GOOD), '{"premise": NaN}'], [":2:"]),
])
def test_bad_records_name_file_and_line(tmp_path, capsys, lines, fragments):
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert_one_line_error(capsys, [path], str(path), *fragments)


def test_bad_paths(tmp_path, capsys):
    assert_one_line_error(capsys, [tmp_path / "missing.jsonl"], "missing.jsonl",
                          "no such file")
    (tmp_path / "empty").mkdir()
    assert_one_line_error(capsys, [tmp_path / "empty"], "no *.jsonl")
    (tmp_path / "blank.jsonl").write_text("\n\n", encoding="utf-8")
    assert_one_line_error(capsys, [tmp_path / "blank.jsonl"], "blank.jsonl", "no records")
    (tmp_path / "latin1.jsonl").write_bytes(json.dumps(GOOD).encode() + b"\n\xe9\n")
    assert_one_line_error(capsys, [tmp_path / "latin1.jsonl"], "latin1.jsonl:2", "UTF-8")
    listed = tmp_path / "listed"
    listed.mkdir()
    (listed / "manifest.json").write_text(json.dumps({"files": {"train.jsonl": {}}}),
                                          encoding="utf-8")
    assert_one_line_error(capsys, [listed], "manifest.json", "train.jsonl", "missing")

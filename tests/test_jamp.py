"""The Jamp family: templates, labels re-derived, balance, dedup, splits, label command."""

from __future__ import annotations

import csv
import datetime as dt
import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run_gen
from nligen.families import jamp, load_family
from nligen.slots import SlotValue
from nligen.timeslots import FORMATS, interval_value, point_value


@pytest.fixture(scope="session")
def jamp_set():
    return load_family("jamp")


@pytest.fixture(scope="session")
def released_templates(reference):
    with open(reference / "jamp" / "templates_jamp_v1_5.tsv", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


@pytest.fixture(scope="session")
def dataset():
    return jamp.generate(n=1200, seed=11)


def env_from_record(rec, template):
    """Rebuild a condition environment from a record's slots (time values parsed back)."""
    env = {}
    time = template.time
    for name, prov in rec["slots"].items():
        if time is not None and name in time.points + list(time.derived):
            start, end = dt.datetime.fromisoformat(prov["start"]), dt.datetime.fromisoformat(prov["end"])
            env[name] = point_value(name, start, end, prov["format"], prov["text"])
        elif time is not None and name in time.intervals:
            env[name] = interval_value(name, prov["number"], prov["unit"], prov["text"])
        else:
            env[name] = SlotValue(name, prov["text"], prov)
    return env


def test_every_released_template_is_covered(jamp_set, released_templates):
    ours = {jamp.static_field(t, "jamp_template"): t for t in jamp_set.templates}
    released = {int(r["id"]): r for r in released_templates}
    assert sorted(ours) == sorted(released)
    assert len(ours) == 79
    for number, t in ours.items():
        assert jamp.static_field(t, "category") == released[number]["category"], t.id
        assert t.id.startswith(jamp.static_field(t, "subfragment") + "."), t.id
        assert jamp.static_field(t, "fragment") in jamp.FRAGMENTS
        assert jamp.static_field(t, "difficulty") in ("basic", "challenging")
    # every released category is covered (templates_jamp_v1_5 has 45 distinct ones)
    assert ({jamp.static_field(t, "category") for t in jamp_set.templates}
            == {r["category"] for r in released_templates})


def test_fragment_splits_match_the_release(jamp_set, reference):
    splits = json.loads((reference / "jamp" / "splits_jamp.json").read_text(encoding="utf-8"))
    for name in ("fragment_easy", "fragment_hard"):
        opts = jamp.split_options(jamp_set, name)
        # a Jamp template may be written as two of ours (34 and 34.over): compare numbers
        ours = sorted({jamp.static_field(jamp_set.by_id(t), "jamp_template")
                       for t in opts.restriction.templates})
        assert ours == sorted(set(splits[name]["train_templates"])), name
    from nligen.lang.ja.timetext import FORMAT_NAMES

    for name in ("format_easy", "format_hard"):
        opts = jamp.split_options(jamp_set, name)
        ours = sorted(FORMAT_NAMES[c] for c in opts.restriction.time_formats)
        assert ours == sorted(f for f in splits[name]["train_time_formats"] if f != "None")
    opts = jamp.split_options(jamp_set, "span")
    assert opts.restriction.time_spans == [s for s in splits["span"]["train_time_spans"]
                                           if s != "None"]


def test_labels_follow_the_conditions(dataset, jamp_set):
    assert len(dataset.records) == 1200
    for rec in dataset.records:
        t = jamp_set.by_id(rec["template"])
        assert t.hypotheses[0].rule.decide(env_from_record(rec, t)) == rec["label"], rec
        if t.time is not None and t.time.require is not None:
            assert t.time.require(env_from_record(rec, t)), rec


def test_balance_and_no_duplicates(dataset, jamp_set):
    cells = Counter((r["template"], r["label"]) for r in dataset.records)
    assert max(cells.values()) - min(cells.values()) <= 1
    # every feasible (template, label) pair is there
    feasible = {(t.id, lab) for t in jamp_set.templates
                for lab in t.hypotheses[0].rule.labels if t.draws_label(lab)}
    assert set(cells) == feasible
    pairs = [(r["premise"], r["hypothesis"]) for r in dataset.records]
    assert len(set(pairs)) == len(pairs)


def test_interval_units_fit_the_event(dataset, jamp_set):
    """Durations come from the clause as a reader read it in context (clause_readings.yaml:
    3日以上かけて建物を設計した is not drawn), else from the verb's curated units (9日間で
    音楽を演奏した is not drawn)."""
    import yaml

    from nligen.data import lexicons_dir
    from nligen.lang.ja.lexicon import tuple_key

    curated = lexicons_dir() / "ja" / "curated"
    with open(curated / "verb_classes.yaml", encoding="utf-8") as f:
        units = {e["lemma"]: e.get("durations") for e in yaml.safe_load(f)["entries"]}
    with open(curated / "clause_readings.yaml", encoding="utf-8") as f:
        read = {(e["lemma"], tuple_key(e["args"])): e.get("durations", [])
                for e in yaml.safe_load(f)["entries"]}
    checked = from_reading = 0
    for rec in dataset.records:
        t = jamp_set.by_id(rec["template"])
        if t.time is None or not t.time.intervals:
            continue
        v = rec["slots"]["V"]
        args = {case: v[field] for case, field in (("ヲ", "wo"), ("ニ", "ni"), ("デ", "de"),
                                                   ("ト", "to"), ("カラ", "kara"))
                if field in v}
        key = (v["lemma"], tuple_key(args))
        allowed = read[key] if key in read else units[v["lemma"]]
        if t.time.units_field == ("V", "many_durations"):  # 多くの〈W〉: never hours,
            # and a task of months done to many takes years (3ヶ月以上かけて多くの小説を書いた)
            if allowed and not {"hour", "day"} & set(allowed):
                allowed = ["year"]
            allowed = [u for u in ("day", "month", "year")
                       if u in allowed or (u == "day" and "hour" in allowed)]
        from_reading += key in read
        for name in t.time.intervals:
            assert rec["slots"][name]["unit"] in allowed, rec
            checked += 1
    assert checked > 100 and from_reading > checked // 4


def test_no_past_tense_claim_about_a_day_after_today(dataset):
    """Template 8 (昨日 … 今日は tp_1 だ; hypothesis: tp_2 に V-た) never dates the
    hypothesis after today: 「今日は2月9日だ」 then 「2月16日に…怒った」 read as ill-formed."""
    seen = 0
    for rec in dataset.records:
        if rec["template"] != "anaphora.yesterday.8":
            continue
        slots = rec["slots"]
        assert slots["tp_2"]["start"] <= slots["tp_1"]["start"], rec
        assert slots["tp_2"]["start"] != slots["yesterday"]["start"]
        seen += 1
    assert seen >= 10


def test_time_fields_and_rendering(dataset):
    from nligen.lang.ja.timetext import FORMAT_NAMES, parse_point

    for rec in dataset.records:
        fmt = rec["time_format"]
        assert fmt is None or fmt in FORMAT_NAMES.values()
        assert rec["time_span"] in (None, "random", "short")
        for name, prov in rec["slots"].items():
            if isinstance(prov, dict) and "format" in prov and "start" in prov:
                code, start, end = parse_point(prov["text"])
                assert code == prov["format"] and FORMAT_NAMES[code] == fmt
                assert start.isoformat() == prov["start"] and end.isoformat() == prov["end"]
                assert prov["text"] in rec["premise"] + rec["hypothesis"] or name == "yesterday"


def test_japanese_verbs_analyse_back(dataset):
    from nligen.lang.ja.conjugation import analyse_lemma

    lemmas = {r["slots"]["V"]["lemma"] for r in dataset.records if "V" in r["slots"]}
    assert len(lemmas) > 50
    for lemma in sorted(lemmas)[:80]:
        assert analyse_lemma(lemma) is not None


@pytest.mark.parametrize("split", jamp.SPLITS)
def test_splits_never_leak(split, jamp_set):
    ds = jamp.generate(n=500, seed=5, split=split)
    opts = jamp.split_options(jamp_set, split).restriction
    train = [si for si in ds.items if si.split == "train"]
    test = [si for si in ds.items if si.split == "test"]
    assert len(train) == 400 and len(test) == 100
    for si in train:
        assert opts.seen(si.item), (split, si.item.template.id, si.item.time)
    train_content = {tuple(sorted(v._key for s, v in si.item.filling.items()
                                  if not (si.item.template.time and s in si.item.template.time.names)))
                     for si in train}
    for si in test:
        content = tuple(sorted(v._key for s, v in si.item.filling.items()
                               if not (si.item.template.time and s in si.item.template.time.names)))
        assert content not in train_content
    recs = [r for r in ds.records if r["split"] == "test"]
    if split == "iid":
        assert all("seen" not in r for r in recs)
    else:
        assert {r["seen"] for r in recs} == {True, False}, split


def test_cli_fragments_formats_and_tsv(tmp_path):
    res = run_gen("jamp", "--fragment", "habituality.negation", "--n", "12", "--seed", "3",
                  "--format", "jamp-tsv")
    assert res.returncode == 0, res.stderr
    rows = list(csv.DictReader(res.stdout.splitlines(), delimiter="\t"))
    assert list(rows[0]) == list(jamp.TSV_COLUMNS)
    assert {r["category"].startswith("習慣+否定") for r in rows} == {True}
    res = run_gen("jamp", "--time-format", "年月日", "--time-span", "short", "--n", "20")
    assert res.returncode == 0, res.stderr
    recs = [json.loads(line) for line in res.stdout.splitlines()]
    assert {(r["time_format"], r["time_span"]) for r in recs} == {("年月日", "short")}
    res = run_gen("jamp", "--template", "46", "--n", "4", "--format", "jamp-tsv", "--tokenized")
    assert res.returncode == 0, res.stderr
    assert "昨日 、" in res.stdout
    for bad in (["--fragment", "tense"], ["--time-format", "YQ"], ["--template", "999"],
                ["--split", "fragment_medium"], ["--n", "0"]):
        res = run_gen("jamp", *bad)
        assert res.returncode == 2 and res.stderr.startswith("error: ") and "Traceback" not in res.stderr
        assert len(res.stderr.strip().splitlines()) == 1


def test_list_shows_templates():
    res = run_gen("list", "jamp")
    assert res.returncode == 0, res.stderr
    assert "interval.comparison.26" in res.stdout and "habituality.negation" in res.stdout


def test_label_reproduces_the_released_sample(reference):
    """469 of the released sample's 474 gold labels; every disagreement is a divergence
    from Jamp's released conditions that the template records and README lists (found
    by checking conditions against semantics, issue 17): 32/35/37 label an identical
    pair neutral; 83 rules out a start at the first moment of tp_2."""
    text = (reference / "jamp" / "train_sample.tsv").read_text(encoding="utf-8")
    rows = jamp.read_problem_table(text, "train_sample.tsv")
    results = list(jamp.JampLabeller().label_rows(rows))
    assert all(r["label"] is not None for r in results), [r for r in results if r["label"] is None][:3]
    wrong = [(row, res) for row, res in zip(rows, results) if res["label"] != row["gold_label"]]
    assert len(rows) - len(wrong) == 469
    templates = {t.id: t for t in load_family("jamp").templates}
    for row, res in wrong:
        assert templates[res["template"]].divergence is not None, (row, res)
        if row["template_num"] in ("32", "35", "37"):
            assert row["premise"] == row["hypothesis"] and res["label"] == "entailment"
        else:
            assert row["template_num"] == "83" and (row["gold_label"], res["label"]) == (
                "contradiction", "neutral"), (row, res)


def test_label_without_template_number_and_unmatched():
    res = run_gen("jamp", "label", input="premise\thypothesis\n"
                  "昨日、アリスは会議に出席した。今日は2012年2月16日だ。\tアリスは2012年2月15日に会議に出席した。\n"
                  "これは時間の問題ではない。\tそうだ。\n"
                  "ボブは地獄に一歩足を踏み入れていた。\tボブは現在地獄に一歩足を踏み入れている。\n")
    assert res.returncode == 0, res.stderr
    first, second, third = [json.loads(line) for line in res.stdout.splitlines()]
    assert third["label"] == "neutral" and third["jamp_template"] == 76
    assert first["label"] == "entailment" and first["jamp_template"] in (8, 46)
    assert second["label"] is None and "error" in second
    res = run_gen("jamp", "label", input="premise\n文。\n")
    assert res.returncode == 2 and "hypothesis" in res.stderr


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31), n=st.integers(1, 30))
def test_generated_problems_label_back(seed, n):
    """Our own problems, read back by the label command, get their own labels."""
    ds = jamp.generate(n=n, seed=seed, fragments=["interval", "time_point", "anaphora",
                                                  "ordering", "habituality"])
    labeller = jamp.JampLabeller()
    for rec in ds.records:
        out = labeller.labeller.label(rec["premise"], rec["hypothesis"],
                                      labeller._filter(str(rec["jamp_template"])))
        assert out["label"] == rec["label"], (rec, out)


def test_a_verbs_problems_are_not_all_of_one_label():
    # The deal of a pool is periodic; when cell k of a template took positions k, k+K, ...
    # of its walk, a verb's clauses could all fall on one label (seed 3, --n 1000: all 12
    # 作成する problems of interval.comparison were contradictions, a token shortcut). With
    # three labels at random, 8 or more of one verb all alike has odds of about 1 in 700.
    ds = jamp.generate(n=1000, seed=3)
    labels_of = {}
    for rec in ds.records:
        verb = rec["slots"].get("V")
        if verb is not None:
            labels_of.setdefault((rec["template"].rsplit(".", 1)[0], verb["lemma"]),
                                 Counter())[rec["label"]] += 1
    several = {t.id.rsplit(".", 1)[0] for t in load_family("jamp").templates
               if len({lab for h in t.hypotheses for lab in h.rule.labels
                       if t.draws_label(lab)}) > 1}
    alike = {key: dict(c) for key, c in labels_of.items()
             if key[0] in several and sum(c.values()) >= 8 and len(c) == 1}
    assert not alike

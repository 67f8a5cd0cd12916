"""The second route to a Jamp label (issue 17): semantics blocks, the model checker, and
its agreement with the label conditions."""

from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nligen import time as ntime
from nligen.errors import TemplateError
from nligen.families import load_family
from nligen.rng import StableRng
from nligen.semantics import Atom, Sentence, check, parse_semantics
from nligen.slots import SlotValue
from nligen.timeslots import point_value
from nligen.tools.semantic_check import _FILLING, check_templates

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO.parent / "shared" / "reference" / "jamp" / "train_sample.tsv"
JAMP = load_family("jamp")
WITH_TIME = [t for t in JAMP.templates if t.time is not None and t.time.points]


def gen(*args, check=True):
    return subprocess.run([sys.executable, "-m", "nligen.cli", *args], capture_output=True,
                          text=True, encoding="utf-8", check=check)


def test_every_jamp_template_states_what_its_sentences_mean():
    # Jamp's 79, 34.over, 31.sono, 93.sono, 32, 33, 35, 37 .least and 1, 3, 4, 5 .began
    assert len(JAMP.templates) == 90
    missing = [t.id for t in JAMP.templates if t.semantics is None]
    assert not missing


def test_conditions_and_semantics_agree_on_sampled_and_grid_assignments():
    reports = check_templates(JAMP.templates, samples=60, seed=11)
    assert len(reports) == 90
    disagreements = [d.line() for r in reports for d in r.disagreements]
    assert not disagreements, disagreements[:5]
    assert sum(r.sampled for r in reports) >= 60 * len(WITH_TIME)
    assert all(r.grid for r in reports)


def test_a_wrong_semantics_is_caught_with_a_witness():
    """The check can fail: 28 says 'within interval_1' entails 'within interval_2' when
    interval_1 <= interval_2; a block that claims the converse disagrees."""
    t28 = next(t for t in JAMP.templates if t.id == "interval.comparison.28")
    wrong = parse_semantics({"events": {"e": "process"}, "premises": ["within(e, interval_2)"],
                             "hypothesis": "within(e, interval_1)"}, "test",
                            t28.time.names)
    [report] = check_templates([dataclasses.replace(t28, semantics=wrong)], samples=50)
    assert report.disagreements
    d = report.disagreements[0]
    assert {d.condition, d.semantics} == {"entailment", "neutral"}
    assert "e:" in d.model  # the model names the event's start and end


def _draw(template, seed: int):
    """One assignment of the template's time values, drawn as check-semantics draws."""
    filling = {name: SlotValue(name, name, _FILLING) for name, spec in template.slots.items()
               if spec.kind != "values"}
    for name, spec in template.slots.items():
        if spec.kind == "values" and template.semantics.means.get(name):
            filling[name] = SlotValue(name, sorted(template.semantics.means[name])[seed % 3])
    rng = StableRng(seed, template.id)
    for attempt in range(400):
        draw = template.time.draw(rng, attempt, template.language.time_text, env=filling)
        if draw is not None:
            return {**filling, **draw.values}
    return None


def _shift_years(context, years: int):
    out = dict(context)
    for name, value in context.items():
        fields = getattr(value, "_fields", {})
        if "start" in fields and "format" in fields:
            d = ntime.Duration(months=12 * years)
            out[name] = point_value(name, ntime.add_duration(fields["start"], d),
                                    ntime.add_duration(fields["end"], d), fields["format"],
                                    value._text)
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(WITH_TIME), st.integers(0, 10_000), st.integers(-5, 5))
def test_semantic_labels_do_not_move_when_every_time_shifts_by_whole_years(template, seed,
                                                                          years):
    context = _draw(template, seed)
    if context is None:
        return
    starts = [v._fields["start"] for v in context.values() if "start" in getattr(v, "_fields", {})]
    if any(s.month == 2 and s.day == 29 for s in starts):
        return  # 29 February has no day in most other years
    assert check(template.semantics, _shift_years(context, years)).label == \
        check(template.semantics, context).label


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([t for t in JAMP.templates if t.time is not None]),
       st.integers(0, 10_000))
def test_a_premise_entails_itself(template, seed):
    context = _draw(template, seed) if template.time.points else None
    if context is None:
        return
    sem = template.semantics
    for premise in sem.premises:
        if premise.quantifier:
            continue  # 'every' / 'no' sentences are not existential claims to restate
        itself = dataclasses.replace(sem, hypothesis=premise)
        assert check(itself, context).label == "entailment", (template.id, premise.source)


def _mirror(sentence: Sentence) -> Sentence:
    flip = {"before": "after", "after": "before"}
    atoms = tuple(Atom(flip[a.name], (a.args[1], a.args[0]), a.kinds) if a.name in flip else a
                  for a in sentence.atoms)
    return dataclasses.replace(sentence, atoms=atoms)


@pytest.mark.parametrize("template", [t for t in JAMP.templates
                                      if t.id.startswith("ordering.order_relation")],
                         ids=lambda t: t.id)
def test_mirrored_ordering_gives_the_same_label(template):
    """A before B said as B after A: the label must not change, and must be the
    template's own."""
    sem = template.semantics
    mirrored = dataclasses.replace(sem, premises=[_mirror(p) for p in sem.premises],
                                   hypothesis=_mirror(sem.hypothesis))
    label = check(sem, {}).label
    assert check(mirrored, {}).label == label == template.hypotheses[0].rule.decide({})


@pytest.mark.parametrize("raw, message", [
    ({"events": {"e": "act"}, "premises": ["at(e)"], "hypothesis": "occurs(e)"},
     "at takes 2 argument(s)"),
    ({"events": {"e": "act"}, "premises": ["soon(e)"], "hypothesis": "occurs(e)"},
     "unknown atom 'soon'"),
    ({"events": {"e": "act"}, "premises": ["occurs(f)"], "hypothesis": "occurs(e)"},
     "'f' is not a declared event"),
    ({"events": {"e": "act"}, "premises": ["within(e, interval_1)"], "hypothesis": "occurs(e)"},
     "within does not apply to the act e"),
    ({"events": {"e": "moment"}, "premises": ["occurs(e)"], "hypothesis": "occurs(e)"},
     "kind must be one of"),
    ({"events": {"e": "act"}, "premises": ["at(e, tp_9)"], "hypothesis": "occurs(e)"},
     "'tp_9' is not a time value"),
    ({"events": {"e": "act"}, "premises": ["every e: occurs(f)"], "hypothesis": "occurs(e)"},
     "not a declared event"),
])
def test_a_bad_semantics_block_names_what_is_wrong(raw, message):
    with pytest.raises(TemplateError) as err:
        parse_semantics(raw, "t.yaml: my_template: semantics", ["tp_1", "interval_1"])
    assert message in str(err.value)
    assert "my_template" in (err.value.where or "")


def test_premises_that_contradict_each_other_get_no_semantic_label():
    t1 = next(t for t in JAMP.templates if t.id == "ordering.continuity.1")

    def point(name, year):
        return point_value(name, dt.datetime(year, 1, 1), dt.datetime(year + 1, 1, 1), "Y",
                           f"{year}年")

    context = {"tp_1": point("tp_1", 2010), "tp_2": point("tp_2", 2005),
               "tp_3": point("tp_3", 2007)}
    from nligen.errors import ConditionError

    with pytest.raises(ConditionError, match="no model"):
        check(t1.semantics, context)


@pytest.mark.skipif(not SAMPLE.is_file(), reason="../shared/reference is not beside the repo")
def test_labels_by_semantics_on_the_released_sample_differ_only_where_documented():
    """README lists the divergences from Jamp's released conditions with these counts."""
    out = gen("jamp", "label", "--by", "semantics", str(SAMPLE)).stdout
    results = [json.loads(x) for x in out.splitlines()]
    with SAMPLE.open(encoding="utf-8") as f:
        gold = list(csv.DictReader(f, delimiter="\t"))
    assert len(results) == len(gold) == 474
    kinds: dict[str, int] = {}
    for g, r in zip(gold, results):
        if r["label"] == g["gold_label"]:
            continue
        number = g["template_num"]
        if r["label"] is None and "no model" in r["error"] and number in ("1", "3", "4", "5"):
            kind = "incoherent premises"
        elif number in ("32", "35", "37") and g["premise"] == g["hypothesis"]:
            kind = "equal intervals"
        elif number in ("82", "83"):
            kind = "start at the first moment"
        else:
            kind = f"undocumented: {number} {g['premise']} / {g['hypothesis']}"
        kinds[kind] = kinds.get(kind, 0) + 1
    assert kinds == {"incoherent premises": 13, "equal intervals": 4,
                     "start at the first moment": 1}


def test_gen_jamp_check_semantics_reports_per_template(tmp_path):
    out = gen("jamp", "check-semantics", "--template", "82", "--template", "time_point."
              "unmentioned.23", "--samples", "40", "--json").stdout
    rows = [json.loads(x) for x in out.splitlines()]
    assert [r["template"] for r in rows] == ["interval.comparison.82",
                                             "time_point.unmentioned.23"]
    assert all(r["sampled"] >= 40 and r["disagreements"] == [] for r in rows)
    bad = gen("jamp", "check-semantics", "--template", "999", check=False)
    assert bad.returncode == 2 and "unknown template(s) 999" in bad.stderr


def test_verify_semantics_on_a_jamp_set_and_refused_elsewhere(tmp_path):
    gen("jamp", "--n", "160", "--seed", "4", "-q", "-o", f"{tmp_path / 'j'}/")
    ok = gen("verify", str(tmp_path / "j"), "--semantics")
    assert ok.returncode == 0 and ok.stdout.rstrip().endswith("ok")
    gen("wogli", "--n", "20", "-q", "-o", f"{tmp_path / 'w'}/")
    refused = gen("verify", str(tmp_path / "w"), "--semantics", check=False)
    assert refused.returncode == 2 and "no semantics blocks" in refused.stderr

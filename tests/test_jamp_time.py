"""The time-expression sampler (nligen.timeslots) and its Japanese rendering."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nligen.errors import TemplateError
from nligen.lang.ja.timetext import parse_interval, parse_point, time_text
from nligen.rng import StableRng
from nligen import timeslots
from nligen.timeslots import (
    FORMATS, RANGE_END, RANGE_START, REFERENCE, SHORT_WINDOW, parse_time_block, project,
)
from nligen.timeslots import UNIT_ORDER as UNITS


def spec(**raw):
    return parse_time_block(raw, "t: time", set())


def test_coarse_formats_denote_intervals():
    assert project(dt.datetime(2010, 3, 5, 7), "Y") == (dt.datetime(2010, 1, 1),
                                                       dt.datetime(2011, 1, 1))
    assert project(dt.datetime(2010, 12, 5, 7), "YM") == (dt.datetime(2010, 12, 1),
                                                         dt.datetime(2011, 1, 1))
    # Hidden larger units come from the reference (2001-01-01): "5日7時" is in January 2001.
    assert project(dt.datetime(2010, 3, 5, 7), "DH") == (dt.datetime(2001, 1, 5, 7),
                                                        dt.datetime(2001, 1, 5, 8))
    assert project(dt.datetime(2012, 2, 29), "MD") is None  # no 29 February without a year


def test_japanese_rendering_matches_jamp():
    start = dt.datetime(2010, 3, 5, 7)
    # the clock hour as narrative prose writes it, not Jamp's timetable 2010年3月5日7時
    assert time_text("point", {"start": start, "format": "YMDH"}) == "2010年3月5日の午前7時"
    afternoon = dt.datetime(2010, 3, 5, 15)
    assert time_text("point", {"start": afternoon, "format": "DH"}) == "5日の午後3時"
    assert time_text("point", {"start": afternoon, "format": "H"}) == "午後3時"
    noon = dt.datetime(2010, 3, 5, 12)
    assert time_text("point", {"start": noon, "format": "MDH"}) == "3月5日の正午"
    assert time_text("point", {"start": start, "format": "MD"}) == "3月5日"
    assert time_text("interval", {"number": 6, "unit": "year"}) == "6年間"
    assert time_text("interval", {"number": 3, "unit": "month"}) == "3ヶ月間"
    assert time_text("interval", {"number": 2, "unit": "hour"}) == "2時間"
    assert time_text("unit", {"unit": "month"}) == "月"
    assert parse_point("2010年5日") is None  # a gap is not a format
    # both spellings of a clock hour read back to the same point
    assert parse_point("2010年3月5日7時") == parse_point("2010年3月5日の午前7時")
    assert parse_point("5日15時") == parse_point("5日の午後3時") == parse_point("5日午後3時")
    assert parse_point("3月5日の正午")[1] == dt.datetime(2001, 3, 5, 12)
    assert parse_point("午後13時") is None  # no 13 on a 12-hour clock


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 10**9), attempt=st.integers(0, 20),
       fmt=st.sampled_from(sorted(FORMATS)), span=st.sampled_from(["random", "short"]))
def test_draws_render_parse_back_and_respect_spans(seed, attempt, fmt, span):
    s = spec(points=["a", "b", "c"], intervals=["i", "j"])
    draw = s.draw(StableRng(seed), attempt, time_text, formats=[fmt], spans=[span])
    if draw is None:  # a rejected draw (e.g. 29 February in a format without the year)
        return
    assert draw.format == fmt and draw.span == span
    starts = []
    for name in ("a", "b", "c"):
        v = draw.values[name]
        code, start, end = parse_point(str(v))
        assert (code, start, end) == (fmt, v.start, v.end)
        assert project(start, fmt) == (start, end)
        starts.append(start)
        if "Y" in fmt:
            assert RANGE_START <= start < RANGE_END
        else:
            assert start.year == REFERENCE.year
    units = {draw.values[n].unit for n in ("i", "j")}
    assert len(units) == 1 and units <= set(FORMATS[fmt])  # one unit, shown by the format
    for name in ("i", "j"):
        v = draw.values[name]
        assert parse_interval(str(v)) == (v.number, v.unit)
        assert 1 <= v.number <= (3 if span == "short" else 9)
    if span == "short":  # appendix C: within a third of the unit above the smallest
        window = SHORT_WINDOW[FORMATS[fmt][-1]]
        from nligen.time import add_duration

        assert max(starts) <= add_duration(min(starts), window)


def test_short_year_spans_never_name_years_more_than_40_months_apart():
    # A short span is measured from an hour; 40 months from late in a year reach into a
    # fourth later year, whose start lies 48 months after the first year's (hypothesis
    # found seed=3415). Such draws are refused, every other short year draw is kept.
    s = spec(points=["a", "b", "c"])
    window = SHORT_WINDOW["year"]
    from nligen.time import add_duration

    made = 0
    for seed in range(3000):
        draw = s.draw(StableRng(seed), 0, time_text, formats=["Y"], spans=["short"])
        if draw is None:
            continue
        made += 1
        starts = [draw.values[n].start for n in ("a", "b", "c")]
        assert max(starts) <= add_duration(min(starts), window), seed
    assert made > 2900


def test_derived_points_and_require():
    s = spec(points=["tp_1", "tp_2", {"yesterday": "tp_1 - 1 day"}], formats=["YMD", "MD", "D"],
             require="tp_2.start != yesterday.start")
    made = 0
    for i in range(200):
        draw = s.draw(StableRng(1, i), i, time_text)
        if draw is None:
            continue
        made += 1
        v = draw.values
        assert v["yesterday"].start == v["tp_1"].start - dt.timedelta(days=1)
        assert v["tp_2"].start != v["yesterday"].start
    assert made > 150


def test_nearby_proposals_make_equal_points_reachable():
    s = spec(points=["a", "b"], formats=["YMDH"], spans=["random"])
    equal = sum(1 for i in range(400)
                if (d := s.draw(StableRng(7, i), 20, time_text)) is not None
                and d.values["a"].start == d.values["b"].start)
    assert equal > 10


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 10**9), attempt=st.integers(0, 20),
       fmt=st.sampled_from(sorted(FORMATS)), span=st.sampled_from(["random", "short"]))
def test_shown_hours_stay_in_the_day(seed, attempt, fmt, span):
    hours = spec(points=["a", "b", {"c": "a + 3 hour"}], hours=[8, 20])
    plain = spec(points=["a", "b", {"c": "a + 3 hour"}])
    draw = hours.draw(StableRng(seed), attempt, time_text, formats=[fmt], spans=[span])
    if "hour" not in FORMATS[fmt]:
        # formats without the hour are drawn exactly as without ``hours``
        same = plain.draw(StableRng(seed), attempt, time_text, formats=[fmt], spans=[span])
        assert (draw and {k: str(v) for k, v in draw.values.items()}) == (
            same and {k: str(v) for k, v in same.values.items()})
        return
    if draw is None:
        return
    for v in draw.values.values():
        assert 8 <= v.start.hour <= 20
    assert hours.check(draw.values, {}) is None


def test_shown_hours_are_reachable_and_checked():
    s = spec(points=["a", "b"], formats=["YMDH"], hours=[8, 20])
    seen = {d.values["a"].start.hour for i in range(600)
            if (d := s.draw(StableRng(3, i), i % 12, time_text)) is not None}
    assert seen == set(range(8, 21))  # every hour of the range, no other
    early = dict(s.draw(StableRng(3, 0), 0, time_text).values)
    from nligen.timeslots import point_value

    start = dt.datetime(2010, 3, 5, 4)
    early["a"] = point_value("a", start, start + dt.timedelta(hours=1), "YMDH", "2010年3月5日4時")
    assert "outside the hours 8-20" in s.check(early, {})


def test_interval_max_caps_one_unit_only():
    s = spec(intervals=["i", "j"], interval_max={"hour": 5})
    longest: dict[str, int] = {}
    for i in range(800):
        d = s.draw(StableRng(4, i), i % 12, time_text, spans=["random"])
        if d is None:
            continue
        for name in ("i", "j"):
            v = d.values[name]
            longest[v.unit] = max(longest.get(v.unit, 0), v.number)
        assert s.check(d.values, {}) is None
    assert longest == {"year": 9, "month": 9, "day": 9, "hour": 5}
    from nligen.timeslots import interval_value

    six = {"i": interval_value("i", 6, "hour", "6時間"), "j": interval_value("j", 2, "hour", "2時間")}
    assert "longer than interval_max" in s.check(six, {})


def test_interval_min_raises_one_unit_only_and_short_spans_follow():
    s = spec(intervals=["i", "j"], interval_min={"day": 2})
    shortest: dict[tuple[str, str], int] = {}
    for i in range(1200):
        d = s.draw(StableRng(5, i), i % 12, time_text)
        if d is None:
            continue
        for name in ("i", "j"):
            v = d.values[name]
            key = (v.unit, d.span)
            shortest[key] = min(shortest.get(key, 9), v.number)
        assert s.check(d.values, {}) is None
    assert shortest[("day", "random")] == 2 and shortest[("day", "short")] == 2
    assert all(n == 1 for (unit, _), n in shortest.items() if unit != "day")
    from nligen.timeslots import interval_value

    one = {"i": interval_value("i", 1, "day", "1日間"), "j": interval_value("j", 3, "day", "3日間")}
    assert "shorter than interval_min" in s.check(one, {})


@settings(max_examples=60, deadline=None)
@given(cap_hour=st.integers(1, 9), cap_day=st.integers(1, 9), seed=st.integers(0, 10**6))
def test_interval_longest_caps_each_filling_by_its_own_field(cap_hour, cap_day, seed):
    from nligen.slots import SlotValue
    from nligen.timeslots import interval_value

    s = parse_time_block({"intervals": ["i", "j"], "interval_max": {"hour": 5},
                          "interval_longest": "V.longest"}, "t: time", {"V"})
    v = SlotValue("V", "x", {"longest": {"hour": cap_hour, "day": cap_day}})
    env = {"V": v}
    seen: dict[str, int] = {}
    for i in range(60):
        d = s.draw(StableRng(seed, i), i % 12, time_text, spans=["random"], env=env)
        if d is None:
            continue
        for name in ("i", "j"):
            w = d.values[name]
            seen[w.unit] = max(seen.get(w.unit, 0), w.number)
        assert s.check(d.values, env) is None
    assert seen.get("hour", 0) <= min(5, cap_hour)
    assert seen.get("day", 0) <= cap_day
    # a value beyond this filling's cap is refused on reading back, even within interval_max
    if cap_hour < 5:
        over = {"i": interval_value("i", cap_hour + 1, "hour", "x"),
                "j": interval_value("j", 1, "hour", "x")}
        assert "longer than interval_longest" in s.check(over, env)
        assert s.check(over, {"V": SlotValue("V", "x", {"longest": {}})}) is None


def test_interval_longest_reaches_each_cap_and_leaves_other_units_alone():
    from nligen.slots import SlotValue

    s = parse_time_block({"intervals": ["i"], "interval_longest": "V.longest"}, "t: time", {"V"})
    env = {"V": SlotValue("V", "x", {"longest": {"hour": 2}})}
    seen: dict[str, int] = {}
    for i in range(800):
        d = s.draw(StableRng(9, i), i % 12, time_text, spans=["random"], env=env)
        if d is not None:
            w = d.values["i"]
            seen[w.unit] = max(seen.get(w.unit, 0), w.number)
    assert seen == {"year": 9, "month": 9, "day": 9, "hour": 2}


@settings(max_examples=60, deadline=None)
@given(units=st.lists(st.sampled_from(["year", "month", "day", "hour"]), min_size=1, unique=True),
       grains=st.lists(st.sampled_from(["year", "month", "day", "hour"]), min_size=1,
                       unique=True),
       seed=st.integers(0, 10**6))
def test_units_and_grains_fields_restrict_what_is_drawn(units, grains, seed):
    """units_field / grains_field draw only what the filling allows: the same problems
    ``require: interval_1.unit in V.durations and tp_1.grain in V.grains`` keeps."""
    from nligen.slots import SlotValue

    s = parse_time_block({"points": ["tp_1"], "intervals": ["i"], "units_field": "V.durations",
                          "grains_field": "V.grains"}, "t: time", {"V"})
    env = {"V": SlotValue("V", "x", {"durations": units, "grains": grains})}
    drawn, last = 0, None
    for i in range(40):
        d = s.draw(StableRng(seed, i), i % 12, time_text, env=env)
        if d is None:
            continue
        drawn, last = drawn + 1, d
        assert d.values["i"].unit in units and FORMATS[d.format][-1] in grains
        assert s.check(d.values, env) is None
    possible = any(FORMATS[f][-1] in grains and set(FORMATS[f]) & set(units) for f in FORMATS)
    assert drawn > 0 or not possible
    if drawn:
        other = {"V": SlotValue("V", "x", {"durations": [u for u in UNITS if u not in units]
                                           or ["year"], "grains": grains})}
        if set(units) != set(UNITS):
            assert "does not list" in s.check(last.values, other)


def test_a_matched_cell_takes_its_units_from_match_units_field():
    # 多くの〈W〉: days or longer by default; a released cell in hours takes the clause's units
    from nligen.slots import SlotValue

    s = parse_time_block({"intervals": ["i"], "units_field": "V.many",
                          "match_units_field": "V.durations"}, "t: time", {"V"})
    env = {"V": SlotValue("V", "x", {"many": ["day"], "durations": ["hour", "day"]})}
    assert s.choices(["hour"], None, env) is None
    drawn = [s.draw(StableRng(7, i), i, time_text, formats=["hour"], env=env, requested=True)
             for i in range(10)]
    assert any(d is not None for d in drawn)
    for d in drawn:
        if d is not None:
            assert d.values["i"].unit == "hour"
            assert s.check(d.values, env, requested=True) is None
            assert "does not list" in s.check(d.values, env)


def test_family_time_defaults_reach_every_template(tmp_path):
    from nligen.templates import load_templates

    (tmp_path / "family.yaml").write_text("name: fam\ntime_defaults: {hours: [9, 17]}\n",
                                          encoding="utf-8")
    (tmp_path / "t.yaml").write_text(
        "- id: t.1\n  premises: ['{{ tp_1 }}']\n  hypothesis: '{{ tp_2 }}'\n"
        "  time: {points: [tp_1, tp_2], formats: [DH]}\n  label: neutral\n"
        "- id: t.2\n  premises: ['{{ tp_1 }}']\n  hypothesis: '{{ tp_1 }}'\n"
        "  time: {points: [tp_1], formats: [DH], hours: [10, 11]}\n  label: entailment\n",
        encoding="utf-8")
    by_id = {t.id: t for t in load_templates([tmp_path]).templates}
    assert by_id["t.1"].time.hours == (9, 17)
    assert by_id["t.2"].time.hours == (10, 11)  # a template's own value wins
    (tmp_path / "family.yaml").write_text("name: fam\ntime_defaults: {require: x}\n",
                                          encoding="utf-8")
    with pytest.raises(TemplateError, match="time_defaults: unknown field"):
        load_templates([tmp_path])


@pytest.mark.parametrize("raw, message", [
    ({"points": ["tp_1"], "hours": [20, 8]}, "two hours of the day"),
    ({"points": ["tp_1"], "hours": [8, 24]}, "two hours of the day"),
    ({"points": ["tp_1"], "hours": "day"}, "two hours of the day"),
    ({"intervals": ["i"], "interval_max": {"hour": 10}}, "a number 1-9"),
    ({"intervals": ["i"], "interval_max": {"week": 2}}, "a number 1-9"),
    ({"intervals": ["i"], "interval_min": {"day": 0}}, "a number 1-9"),
    ({"intervals": ["i"], "interval_min": {"hour": 6}, "interval_max": {"hour": 5}},
     "more than interval_max allows"),
    ({"points": ["tp_1"], "formats": ["YQ"]}, "must be a list drawn from"),
    ({"points": ["tp_1", {"tp_2": "tp_9 - 1 day"}]}, "derived point"),
    ({"points": [], "intervals": []}, "declares no points"),
    ({"points": ["day"]}, "already a slot"),
    ({"points": ["tp_1"], "require": "tp_1.start < __import__"}, ""),
    ({"units": ["u"], "spans": ["random"]}, "bare units have no span"),
    ({"intervals": ["i"], "interval_longest": "W.longest"}, "a field of one of the template"),
    ({"intervals": ["i"], "interval_longest": "longest"}, "a field of one of the template"),
    ({"points": ["tp_1"], "interval_longest": "V.longest"}, "draws no intervals"),
    ({"points": ["tp_1"], "units_field": "V.durations"}, "draws no intervals or units"),
    ({"intervals": ["i"], "grains_field": "V.grains"}, "draws no points"),
    ({"points": ["tp_1"], "match_units_field": "V.durations"}, "draws no intervals or units"),
    ({"intervals": ["i"], "match_units_field": "durations"}, "a field of one of the template"),
    ({"points": ["tp_1"], "grains_field": "X.grains"}, "a field of one of the template"),
])
def test_bad_time_blocks_are_refused(raw, message):
    with pytest.raises(Exception) as info:
        parse_time_block(raw, "t: time", {"V"})
    assert isinstance(info.value, (TemplateError,)) or "Condition" in type(info.value).__name__
    assert message in str(info.value)


def _unit_by_unit_projection(moment: dt.datetime, fmt: str):
    """What a time point denotes, written out unit by unit: the units above the format's
    first shown one from the reference, the shown ones from the moment, the rest least."""
    from nligen import time as ntime

    units = FORMATS[fmt]
    first, last = UNITS.index(units[0]), UNITS.index(units[-1])
    parts = []
    for i, unit in enumerate(UNITS):
        if i < first:
            parts.append(getattr(REFERENCE, unit))
        elif i > last:
            parts.append(0 if unit == "hour" else 1)
        else:
            parts.append(getattr(moment, unit))
    try:
        start = dt.datetime(*parts)
    except ValueError:
        return None
    return start, ntime.add_duration(start, ntime.UNITS[units[-1]])


@settings(max_examples=300, deadline=None)
@given(st.integers(0, timeslots.RANGE_HOURS - 1), st.sampled_from(sorted(FORMATS)))
def test_project_is_the_unit_by_unit_projection(hour, fmt):
    """The lean projection every draw uses denotes what the unit-by-unit one does (29
    February without a year included: both None)."""
    moment = RANGE_START + dt.timedelta(hours=hour)
    assert project(moment, fmt) == _unit_by_unit_projection(moment, fmt)
    leap = dt.datetime(2016, 2, 29, hour % 24)
    assert project(leap, fmt) == _unit_by_unit_projection(leap, fmt)
    if fmt in ("MD", "MDH"):  # 29 February in the reference year (2001): no such day
        assert project(leap, fmt) is None

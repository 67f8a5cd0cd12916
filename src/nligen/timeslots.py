"""Time expressions as slots: a template's ``time:`` block (language neutral).

A template declares its time expressions in one block, because they are drawn together:
every time point of a problem shares one *format* and one *span*, and intervals take
their unit from the format::

    time:
      points: [tp_1, tp_2, {yesterday: tp_1 - 1 day}]   # drawn, or derived from another
      intervals: [interval_1, interval_2]               # 1-9 (short: 1-3) of one unit
      units: [unit_1]                                    # a bare unit (毎年: "every year")
      formats: [YMD, MD, D]                              # default: all ten
      match_formats: [YMDH]                              # only when a cell asks (--match)
      interval_units: [year, month, day, hour]           # default: all four
      spans: [random, short]                             # default: both
      require: "tp_2.start != yesterday.start"           # must hold for every draw
      hours: [8, 20]                                     # shown hours (default: 0-23)
      interval_max: {hour: 5}                            # longest interval per unit
      interval_min: {day: 2}                             # shortest interval per unit
      interval_longest: V.longest                        # per filling: a slot's field
      units_field: V.durations                           # per filling: units it takes
      grains_field: V.grains                             # per filling: units points end in

Formats (Jamp, Sugimoto et al. 2023, section 3.2): Y, M, D, H, YM, MD, DH, YMD, MDH,
YMDH. Time points are drawn uniformly from 2000-01-01 0:00 to 2020-12-31 24:00 by the
hour and denote the whole unit they name: "2010年" is [2010-01-01 0:00, 2011-01-01 0:00).
A format that does not show a larger unit (MD shows no year) is read as "the same year
for every time point of the problem": the hidden units are filled from a fixed reference
(2001-01-01, not a leap year, January has 31 days), so a label follows from the text
alone. ``short`` spans (appendix C) put every point within a third of the unit above the
format's smallest one (8 hours, 10 days, 4 months; 40 months for years) of the first,
and never across a hidden unit; short intervals are 1-3 instead of 1-9. ``hours: [a, b]``
keeps every point whose format shows the hour between a時 and b時 inclusive (a family can
set it for all its templates with ``time_defaults``); points of other formats are drawn
as without it. ``interval_max: {hour: 5}`` caps the number of an interval in that unit
(1-5 hours instead of 1-9; a short span's 1-3 stays), and ``interval_min: {day: 2}`` sets
its least (2-9 days, short 2-3: 「1日間」 reads stiff where 「1日」 would be a date).
``interval_longest: V.longest`` names a field of a content slot that maps units to the
longest number that fits this filling (a clause whose event takes an hour or two gets
``{hour: 2}``: 「5時間以内に冷蔵庫を整理した」 is out); it caps the intervals further, and a
unit the field does not name keeps the block's own bounds. ``units_field: V.durations``
and ``grains_field: V.grains`` name fields listing the units an interval may take and the
units a time point may end in for this filling; only those are drawn (what ``require:
interval_1.unit in V.durations`` and ``tp_1.grain in V.grains`` would keep, without
drawing the rest first and throwing it away). ``match_units_field`` names the field a
``--match`` cell that asks for its unit takes instead (a released unit the default draw
leaves out).

Values are :class:`TimePointValue` (fields ``start``, ``end``, ``format``) and
interval :class:`~nligen.slots.SlotValue` objects whose condition value is a
:class:`~nligen.time.Duration`. The language layer renders them (``Language.time_text``).
"""

from __future__ import annotations

import datetime as _dt
import functools
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from . import time as ntime
from .conditions import Condition, get_field
from .errors import ConditionError, TemplateError
from .rng import StableRng
from .slots import SlotValue

UNIT_ORDER = ("year", "month", "day", "hour")
FORMATS: dict[str, tuple[str, ...]] = {
    "Y": ("year",), "M": ("month",), "D": ("day",), "H": ("hour",),
    "YM": ("year", "month"), "MD": ("month", "day"), "DH": ("day", "hour"),
    "YMD": ("year", "month", "day"), "MDH": ("month", "day", "hour"),
    "YMDH": ("year", "month", "day", "hour"),
}
POINT_FORMATS = tuple(FORMATS)
INTERVAL_FORMATS = UNIT_ORDER  # an interval-only problem's format is its unit
SPANS = ("random", "short")
RANGE_START = _dt.datetime(2000, 1, 1)
RANGE_END = _dt.datetime(2021, 1, 1)  # exclusive: 2020-12-31 24:00
RANGE_HOURS = int((RANGE_END - RANGE_START).total_seconds() // 3600)
REFERENCE = _dt.datetime(2001, 1, 1)
SHORT_WINDOW = {
    "year": ntime.Duration(months=40), "month": ntime.Duration(months=4),
    "day": ntime.Duration(0, 10 * 86400), "hour": ntime.Duration(0, 8 * 3600),
}
INTERVAL_RANGE = {"random": (1, 9), "short": (1, 3), None: (1, 9)}
UNIFORM_ATTEMPTS = 8  # draws of independent points before nearby points are proposed too
_DERIVED = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*([+-])\s*(\d{1,3})\s*(year|month|day|hour)s?\s*\Z")
TIME_KEYS = {"points", "intervals", "units", "formats", "match_formats", "interval_units",
             "spans", "require",
             "hours", "interval_max", "interval_min", "interval_longest", "units_field",
             "match_units_field",
             "grains_field"}
# What a family's ``time_defaults`` may set for every template's time block.
TIME_DEFAULT_KEYS = {"hours", "interval_max", "interval_min"}


@functools.lru_cache(maxsize=4096)
def unit_duration(unit: str, k: int = 1) -> ntime.Duration:
    """k units as a duration (immutable: kept, every draw asks for a few)."""
    return ntime.UNITS[unit] * k


def project(moment: _dt.datetime, fmt: str) -> tuple[_dt.datetime, _dt.datetime] | None:
    """The span a time point in this format denotes: shown units from ``moment``, hidden
    larger units from the reference, smaller units at their minimum. None when the shown
    units do not exist in the reference (29 February without a year)."""
    first, last = _SHOWN[fmt]
    # (year, month, day, hour): the reference's above the first shown unit, the moment's
    # from it to the last, the least below (every draw projects its points: kept lean)
    year = moment.year if first == 0 else REFERENCE.year
    month = moment.month if first <= 1 <= last else (REFERENCE.month if first > 1 else 1)
    day = moment.day if first <= 2 <= last else (REFERENCE.day if first > 2 else 1)
    hour = moment.hour if last == 3 else 0
    try:
        start = _dt.datetime(year, month, day, hour)
    except ValueError:
        return None
    step = _STEP[last]
    if step is not None:
        return start, start + step
    return start, ntime.add_duration(start, ntime.UNITS[UNIT_ORDER[last]])


# format -> (index of its first shown unit, of its last) in UNIT_ORDER
_SHOWN = {fmt: (UNIT_ORDER.index(u[0]), UNIT_ORDER.index(u[-1])) for fmt, u in FORMATS.items()}
# a day or an hour is a fixed step; a month or a year is calendar addition
_STEP = (None, None, _dt.timedelta(days=1), _dt.timedelta(hours=1))


def hidden_unit(fmt: str) -> str | None:
    """The unit just above a format's largest shown unit (None when the year is shown)."""
    i = UNIT_ORDER.index(FORMATS[fmt][0])
    return UNIT_ORDER[i - 1] if i else None


class TimePointValue(SlotValue):
    """A time point: its text, and the span it denotes (``start``, ``end``)."""

    __slots__ = ()

    def _make_provenance(self) -> dict:
        f = self._fields
        return {"text": self._text, "format": f["format"], "start": f["start"].isoformat(),
                "end": f["end"].isoformat()}


def point_value(slot: str, start: _dt.datetime, end: _dt.datetime, fmt: str,
                text: str) -> TimePointValue:
    key = f"{fmt}:{start.isoformat()}"
    # grain: the finest unit the text shows (2010年3月5日 -> day), for requires such as
    # ``tp_1.grain in V.grains``
    return TimePointValue(slot, text, {"start": start, "end": end, "format": fmt,
                                       "grain": FORMATS[fmt][-1]},
                          identity=key, key=key,
                          scalar=ntime.TimeSpan(start, end))


# Drawn time values by what they are (slot, format, start, rendering): a coarse format
# has few values (21 years, 12 months), and a value is immutable, so draws share them.
_DRAWN: dict[tuple, SlotValue] = {}
_DRAWN_LIMIT = 200_000


def forget_drawn_values() -> None:
    """Empty the kept values (a new run: see nligen.engine)."""
    _DRAWN.clear()


def _keep(key: tuple, value: SlotValue) -> SlotValue:
    if len(_DRAWN) >= _DRAWN_LIMIT:
        _DRAWN.clear()
    _DRAWN[key] = value
    return value


def rendered_point(slot: str, start: _dt.datetime, end: _dt.datetime, fmt: str,
                   render: "TimeText") -> "TimePointValue":
    """The point [start, end) of format ``fmt``, written by ``render`` (kept for reuse)."""
    key = ("point", slot, fmt, start, render)
    value = _DRAWN.get(key)
    if value is None:
        value = _keep(key, point_value(slot, start, end, fmt,
                                       render("point", {"start": start, "format": fmt})))
    return value  # type: ignore[return-value]


def rendered_interval(slot: str, number: int, unit: str, render: "TimeText") -> "IntervalValue":
    """``number`` ``unit`` s as an interval, written by ``render`` (kept for reuse)."""
    key = ("interval", slot, number, unit, render)
    value = _DRAWN.get(key)
    if value is None:
        shown = {"number": number, "unit": unit}
        value = _keep(key, interval_value(slot, number, unit, render("interval", shown),
                                          render("amount", shown)))
    return value  # type: ignore[return-value]


class IntervalValue(SlotValue):
    __slots__ = ()

    def _make_provenance(self) -> dict:
        f = self._fields
        return {"text": self._text, "number": f["number"], "unit": f["unit"]}


def interval_value(slot: str, number: int, unit: str, text: str,
                   amount: str | None = None) -> IntervalValue:
    """``text`` is the interval as a duration (5日間); ``amount`` the same length as a
    quantity, the form before 以内 / で / 以上 (5日), the text when a language has one form."""
    key = f"{number} {unit}"
    return IntervalValue(slot, text, {"number": number, "unit": unit,
                                      "amount": text if amount is None else amount,
                                      "length": unit_duration(unit, number)},
                         identity=key, key=key, scalar=unit_duration(unit, number))


TimeText = Callable[[str, Mapping[str, Any]], str]


def default_time_text(kind: str, value: Mapping[str, Any]) -> str:
    """ISO-like rendering for templates without a language layer."""
    if kind == "point":
        start, units = value["start"], FORMATS[value["format"]]
        shown = {"year": f"{start.year:04d}", "month": f"{start.month:02d}",
                 "day": f"{start.day:02d}", "hour": f"{start.hour:02d}h"}
        return "-".join(shown[u] for u in units)
    if kind in ("interval", "amount"):
        return f"{value['number']} {value['unit']}{'s' if value['number'] != 1 else ''}"
    return value["unit"]


@dataclass
class TimeDraw:
    """One draw of a template's time block."""

    values: dict[str, SlotValue]
    format: str | None
    span: str | None


@dataclass
class TimeSpec:
    points: list[str]
    derived: dict[str, tuple[str, int, str]]  # name -> (base point, signed count, unit)
    intervals: list[str]
    units: list[str]
    formats: list[str]
    interval_units: list[str]
    spans: list[str]
    require: Condition | None
    where: str
    names: list[str] = field(default_factory=list)
    hours: tuple[int, int] | None = None  # shown hours of day, inclusive (None: all 24)
    interval_max: dict[str, int] = field(default_factory=dict)  # unit -> longest number
    interval_min: dict[str, int] = field(default_factory=dict)  # unit -> shortest number
    # (slot, field): the filling's own longest number per unit (None: no such cap)
    interval_longest: tuple[str, str] | None = None
    units_field: tuple[str, str] | None = None   # (slot, field): units the filling takes
    grains_field: tuple[str, str] | None = None  # (slot, field): units its points end in
    # formats drawn only for a cell that asks for them (a matched set, --match): a
    # released set's formats that read less well and are left out of the default draw
    match_formats: list[str] = field(default_factory=list)
    # (slot, field): the units for a cell that asks for its unit (--match), where the
    # default draw's units_field leaves a released unit out (多くの〈W〉 in hours)
    match_units_field: tuple[str, str] | None = None

    def _units_ref(self, requested: bool) -> tuple[str, str] | None:
        return self.match_units_field if requested and self.match_units_field else self.units_field

    def _field_list(self, ref: tuple[str, str] | None, env: Mapping[str, Any] | None,
                    key: str) -> list | None:
        if ref is None or env is None or ref[0] not in env:
            return None
        value = get_field(env[ref[0]], ref[1])
        if not isinstance(value, (list, tuple)):
            raise ConditionError(f"{ref[0]}.{ref[1]} must list units", f"{self.where}.{key}")
        return list(value)

    def longest(self, unit: str, env: Mapping[str, Any] | None) -> int:
        """The longest interval of ``unit`` for this filling: interval_max, and the
        ``interval_longest`` field of the filling where it names the unit."""
        hi = self.interval_max.get(unit, 9)
        if self.interval_longest is not None and env is not None:
            slot, name = self.interval_longest
            if slot in env:
                caps = get_field(env[slot], name)
                if not isinstance(caps, Mapping):
                    raise ConditionError(f"{slot}.{name} must map units to numbers",
                                         f"{self.where}.interval_longest")
                cap = caps.get(unit)
                if isinstance(cap, int) and not isinstance(cap, bool):
                    hi = min(hi, cap)
        return hi

    @property
    def has_numbers(self) -> bool:
        return bool(self.points or self.intervals)

    def problem_formats(self, allowed: Sequence[str] | None = None,
                        requested: bool = False) -> list[str]:
        """The formats a problem of this template can have (after a run's restriction);
        ``requested``: a cell asks for its format (then match_formats count too)."""
        own = self.formats if self.points else (
            self.interval_units if (self.intervals or self.units) else [])
        if requested:
            own = own + [f for f in self.match_formats if f not in own]
        return [f for f in own if allowed is None or f in allowed]

    def problem_spans(self, allowed: Sequence[str] | None = None) -> list[str | None]:
        if not self.spans:
            return [None]
        return [s for s in self.spans if allowed is None or s in allowed]

    # -- drawing ----------------------------------------------------------------
    def _point_units(self, fmt: str, units: list | None) -> list[str]:
        """The units an interval may take beside points of this format."""
        return [u for u in FORMATS[fmt] if u in self.interval_units
                and (units is None or u in units)]

    def choices(self, formats: Sequence[str] | None = None, spans: Sequence[str] | None = None,
                env: Mapping[str, Any] | None = None, requested: bool = False) -> tuple | None:
        """(formats, spans, units) the draws for this filling choose from, for
        :meth:`draw` (the same for all of them); None when no draw can succeed, whatever
        the random numbers (its clause takes none of the formats or units)."""
        fmts = self.problem_formats(formats, requested)
        units = self._field_list(self._units_ref(requested), env, "units_field")
        grains = self._field_list(self.grains_field, env, "grains_field")
        if self.points and grains is not None and not requested:
            # (a cell that asks for its format takes it whatever the filling's grains)
            fmts = [f for f in fmts if FORMATS[f][-1] in grains]
        elif not self.points and units is not None:
            fmts = [f for f in fmts if f in units]
        span_list = self.problem_spans(spans)
        return (fmts, span_list, units) if fmts and span_list else None

    def draw(self, rng: StableRng, attempt: int, render: TimeText,
             formats: Sequence[str] | None = None, spans: Sequence[str] | None = None,
             env: Mapping[str, Any] | None = None, requested: bool = False,
             choices: tuple | None = None) -> TimeDraw | None:
        """One draw; ``choices``: :meth:`choices` of these arguments, computed once for
        a filling's draws."""
        if choices is None:
            choices = self.choices(formats, spans, env, requested)
            if choices is None:
                return None
        fmts, span_list, units = choices
        fmt = fmts[rng.randbelow(len(fmts))]
        span = span_list[rng.randbelow(len(span_list))]
        values: dict[str, SlotValue] = {}
        if self.points:
            if (self.intervals or self.units) and not self._point_units(fmt, units):
                return None  # no interval unit for this format: fails before any point
            hours = self.hours if "hour" in FORMATS[fmt] else None
            moments = self._draw_moments(rng, fmt, span, attempt >= UNIFORM_ATTEMPTS, hours)
            if moments is None:
                return None
            for name, moment in moments.items():
                proj = project(moment, fmt)
                if proj is None:
                    return None
                values[name] = rendered_point(name, proj[0], proj[1], fmt, render)
            if span == "short" and not self._within_short_window(values.values(), fmt):
                return None  # hours apart, but the years they name lie 4 years apart
            for name in self.derived:
                derived = self.derive(name, values, fmt, render)
                if derived is None:
                    return None  # the shift crosses a unit the format does not show
                values[name] = derived
            if hours is not None and not self._hours_ok(values.values()):
                return None  # a nearby, short-span or derived point left the shown hours
            point_units = self._point_units(fmt, units)
        else:
            point_units = [fmt]
        if self.intervals or self.units:
            if not point_units:
                return None
            unit = point_units[rng.randbelow(len(point_units))]
            lo, hi = INTERVAL_RANGE[span]
            hi = min(hi, self.longest(unit, env))
            lo = max(lo, self.interval_min.get(unit, lo))
            if lo > hi:
                return None  # a short span's 1-3 below this unit's interval_min
            for name in self.intervals:
                number = rng.randint(lo, hi)
                values[name] = rendered_interval(name, number, unit, render)
            for name in self.units:
                values[name] = SlotValue(name, render("unit", {"unit": unit}), {"unit": unit},
                                         identity=unit, key=unit)
        if self.require is not None:
            scope = dict(env or {})
            scope.update(values)
            try:
                if not self.require(scope):
                    return None
            except ConditionError as exc:
                raise ConditionError(exc.what, f"{self.where}.require") from None
        return TimeDraw(values, fmt, span)

    def derive(self, name: str, values: Mapping[str, SlotValue], fmt: str,
               render: TimeText) -> SlotValue | None:
        """The derived point ``name`` (``yesterday: tp_1 - 1 day``) from its base in
        ``values``; None when the shift crosses a unit the format does not show."""
        base, count, unit = self.derived[name]
        start = ntime.add_duration(values[base]._fields["start"], unit_duration(unit, count))
        proj = project(start, fmt)
        if proj is None or proj[0] != start:
            return None
        return rendered_point(name, proj[0], proj[1], fmt, render)

    # -- reading back ----------------------------------------------------------------
    def restore(self, name: str, recorded: Mapping[str, Any], render: TimeText) -> SlotValue:
        """The value a record's ``slots[name]`` describes (the inverse of its provenance),
        with its text rendered afresh. Raises ValueError when the entry is malformed or
        does not denote what its format shows."""
        if name in self.intervals:
            number, unit = recorded["number"], recorded["unit"]
            if not isinstance(number, int) or isinstance(number, bool) or unit not in UNIT_ORDER:
                raise ValueError("number/unit are not an interval")
            shown = {"number": number, "unit": unit}
            return interval_value(name, number, unit, render("interval", shown),
                                  render("amount", shown))
        if name in self.units:
            unit = recorded["unit"]
            if unit not in UNIT_ORDER:
                raise ValueError(f"unknown unit {unit!r}")
            return SlotValue(name, render("unit", {"unit": unit}), {"unit": unit},
                             identity=unit, key=unit)
        fmt = recorded["format"]
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r}")
        start = _dt.datetime.fromisoformat(recorded["start"])
        end = _dt.datetime.fromisoformat(recorded["end"])
        if project(start, fmt) != (start, end):
            raise ValueError(f"start/end are not one {fmt} period")
        return point_value(name, start, end, fmt, render("point", {"start": start, "format": fmt}))

    def check(self, values: Mapping[str, SlotValue], env: Mapping[str, Any],
              requested: bool = False) -> str | None:
        """Why restored time values could not come from this block (None: they could):
        one format for all points, derived points where their base puts them, ``require``;
        ``requested``: the problem's format was asked for (a matched set), whatever the
        filling's grains."""
        formats = {values[p]._fields["format"] for p in self.points + list(self.derived)
                   if p in values}
        if len(formats) > 1:
            return f"time points of different formats ({', '.join(sorted(formats))})"
        if self.hours is not None and formats and "hour" in FORMATS[next(iter(formats))]:
            if not self._hours_ok(values[p] for p in self.points + list(self.derived)
                                  if p in values):
                lo, hi = self.hours
                return f"a time point outside the hours {lo}-{hi}"
        for name, (base, count, unit) in self.derived.items():
            if name in values and base in values:
                want = ntime.add_duration(values[base]._fields["start"], unit_duration(unit, count))
                if values[name]._fields["start"] != want:
                    return f"{name} is not {base} shifted by {count} {unit}"
        for name in self.intervals:
            if name in values:
                f = values[name]._fields
                if f["number"] > self.interval_max.get(f["unit"], f["number"]):
                    return f"{name} is longer than interval_max allows ({f['number']} {f['unit']})"
                if f["number"] > self.longest(f["unit"], env):
                    return (f"{name} is longer than interval_longest allows "
                            f"({f['number']} {f['unit']})")
                if f["number"] < self.interval_min.get(f["unit"], f["number"]):
                    return f"{name} is shorter than interval_min allows ({f['number']} {f['unit']})"
        units = self._field_list(self._units_ref(requested), env, "units_field")
        grains = self._field_list(self.grains_field, env, "grains_field")
        for name in self.intervals + self.units:
            if units is not None and name in values and values[name]._fields["unit"] not in units:
                slot, field_name = self._units_ref(requested)
                return f"{name}: a unit {slot}.{field_name} does not list"
        if grains is not None and formats and FORMATS[next(iter(formats))][-1] not in grains \
                and not requested:
            slot, name = self.grains_field
            return f"time points end in a unit {slot}.{name} does not list"
        scope = dict(env)
        scope.update(values)
        if self.require is not None and all(n in scope for n in self.require.slot_names):
            if not self.require(scope):
                return f"the time block's require does not hold ({self.require.source})"
        return None

    @staticmethod
    def _within_short_window(values: Iterable[SlotValue], fmt: str) -> bool:
        starts = [v._fields["start"] for v in values]
        window = SHORT_WINDOW[FORMATS[fmt][-1]]
        return max(starts) <= ntime.add_duration(min(starts), window)

    def _hours_ok(self, values: Iterable[SlotValue]) -> bool:
        lo, hi = self.hours or (0, 23)
        return all(lo <= v._fields["start"].hour <= hi for v in values)

    def _draw_moments(self, rng: StableRng, fmt: str, span: str | None, nearby: bool,
                      day_hours: tuple[int, int] | None = None
                      ) -> dict[str, _dt.datetime] | None:
        smallest = FORMATS[fmt][-1]
        out: dict[str, _dt.datetime] = {}
        if span == "short":
            window = SHORT_WINDOW[smallest]
            hidden = hidden_unit(fmt)
            for _ in range(20):
                t0 = _uniform_hour(rng, day_hours)
                t_end = ntime.add_duration(t0, window)
                if t_end >= RANGE_END:
                    continue
                if hidden is None or _same(t0, t_end, hidden):
                    break
            else:
                return None
            hours = int((t_end - t0).total_seconds() // 3600)
        for i, name in enumerate(self.points):
            if nearby and i and rng.randbelow(2):
                base = out[self.points[rng.randbelow(i)]]
                unit = FORMATS[fmt][rng.randbelow(len(FORMATS[fmt]))]
                if rng.randbelow(4) == 0:
                    k = 0  # the same time point (equalities decide many labels)
                else:
                    k = rng.randint(-3, 3) if span == "short" else rng.randint(-9, 9)
                try:
                    moment = ntime.add_duration(base, unit_duration(unit, k))
                except ConditionError:
                    return None
                if span == "short" and not t0 <= moment <= t_end:
                    return None
                if not RANGE_START <= moment < RANGE_END:
                    return None
            elif span == "short":
                moment = t0 + _dt.timedelta(hours=rng.randbelow(hours + 1))
            else:
                moment = _uniform_hour(rng, day_hours)
            out[name] = moment
        return out


def _uniform_hour(rng: StableRng, hours: tuple[int, int] | None = None) -> _dt.datetime:
    if hours is None:  # the whole range by the hour, as Jamp draws
        return RANGE_START + _dt.timedelta(hours=rng.randbelow(RANGE_HOURS))
    lo, hi = hours
    day = rng.randbelow(RANGE_HOURS // 24)
    return RANGE_START + _dt.timedelta(days=day, hours=lo + rng.randbelow(hi - lo + 1))


def _same(a: _dt.datetime, b: _dt.datetime, unit: str) -> bool:
    """Whether a and b fall in the same year / month / day (unit = the hidden one)."""
    upto = UNIT_ORDER.index(unit)
    return all(getattr(a, u) == getattr(b, u) for u in UNIT_ORDER[: upto + 1])


def parse_time_block(raw: Any, where: str, taken: set[str]) -> TimeSpec:
    """Check a template's ``time:`` block (errors name the field)."""
    if not isinstance(raw, Mapping):
        raise TemplateError("'time' must be a mapping with points/intervals/units", where)
    bad = set(raw) - TIME_KEYS
    if bad:
        raise TemplateError(f"unknown field(s) {', '.join(sorted(map(str, bad)))} "
                            f"(known: {', '.join(sorted(TIME_KEYS))})", where)
    names: list[str] = []

    def name_ok(name: Any, f: str) -> str:
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise TemplateError(f"{name!r} is not a name", f"{where}.{f}")
        if name in taken or name in names or name in ntime.UNITS:
            raise TemplateError(f"{name!r} is already a slot, axis, time name or unit",
                                f"{where}.{f}")
        names.append(name)
        return name

    def name_list(key: str) -> list[Any]:
        value = raw.get(key, [])
        if not isinstance(value, list) or len(value) > 20:
            raise TemplateError("must be a list of at most 20 names", f"{where}.{key}")
        return value

    points: list[str] = []
    derived: dict[str, tuple[str, int, str]] = {}
    for i, entry in enumerate(name_list("points")):
        f = f"points[{i}]"
        if isinstance(entry, Mapping) and len(entry) == 1:
            (name, rule), = entry.items()
            m = _DERIVED.match(rule) if isinstance(rule, str) else None
            if not m or m.group(1) not in points + list(derived):
                raise TemplateError("a derived point is {name: \"tp_1 - 1 day\"} (an earlier "
                                    "point, + or -, a count, year/month/day/hour)", f"{where}.{f}")
            count = int(m.group(3)) * (-1 if m.group(2) == "-" else 1)
            base = m.group(1)
            while base in derived:  # derive from the drawn point underneath
                b, c, u = derived[base]
                if u != m.group(4):
                    raise TemplateError("chained derivations must use one unit", f"{where}.{f}")
                base, count = b, count + c
            derived[name_ok(name, f)] = (base, count, m.group(4))
        else:
            points.append(name_ok(entry, f))
    intervals = [name_ok(n, f"intervals[{i}]") for i, n in enumerate(name_list("intervals"))]
    units = [name_ok(n, f"units[{i}]") for i, n in enumerate(name_list("units"))]
    if not names:
        raise TemplateError("declares no points, intervals or units", where)

    def choice_list(key: str, known: Sequence[str], default: Sequence[str]) -> list[str]:
        value = raw.get(key, list(default))
        if (not isinstance(value, list) or any(v not in known for v in value)
                or len(set(value)) != len(value)):
            raise TemplateError(f"must be a list drawn from {', '.join(known)}", f"{where}.{key}")
        return list(value)

    formats = choice_list("formats", POINT_FORMATS, POINT_FORMATS)
    match_formats = choice_list("match_formats", POINT_FORMATS, [])
    if match_formats and not points:
        raise TemplateError("the block draws no points", f"{where}.match_formats")
    interval_units = choice_list("interval_units", UNIT_ORDER, UNIT_ORDER)
    spans = choice_list("spans", SPANS, SPANS if (points or intervals) else [])
    if points and not formats or (intervals or units) and not interval_units:
        raise TemplateError("no format left to draw", where)
    if units and not (points or intervals) and spans:
        raise TemplateError("bare units have no span: give 'spans: []'", f"{where}.spans")
    hours = None
    if "hours" in raw:
        value = raw["hours"]
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(h, int) and not isinstance(h, bool) for h in value)
                or not 0 <= value[0] <= value[1] <= 23):
            raise TemplateError("must be [first, last]: two hours of the day, 0-23, in order",
                                f"{where}.hours")
        hours = (value[0], value[1])
        if "hour" not in {u for f in formats + match_formats for u in FORMATS[f]} and points:
            hours = None  # no format shows the hour: nothing to restrict
    bounds: dict[str, dict[str, int]] = {}
    for key, example in (("interval_max", "{hour: 5}"), ("interval_min", "{day: 2}")):
        value = raw.get(key, {})
        if (not isinstance(value, Mapping) or not all(
                u in UNIT_ORDER and isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= 9
                for u, k in value.items())):
            raise TemplateError("must map units (year, month, day, hour) to a number 1-9, "
                                f"e.g. {example}", f"{where}.{key}")
        bounds[key] = dict(value)
    interval_max, interval_min = bounds["interval_max"], bounds["interval_min"]
    for unit, low in interval_min.items():
        if low > interval_max.get(unit, 9):
            raise TemplateError(f"{unit}: more than interval_max allows ({low} > "
                                f"{interval_max[unit]})", f"{where}.interval_min")
    fields: dict[str, tuple[str, str] | None] = {}
    for key, needs in (("units_field", intervals or units), ("grains_field", points),
                       ("match_units_field", intervals or units)):
        fields[key] = None
        if key in raw:
            value = raw[key]
            m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)", value) \
                if isinstance(value, str) else None
            if m is None or m.group(1) not in taken:
                raise TemplateError("must name a field of one of the template's slots, "
                                    "e.g. V.grains", f"{where}.{key}")
            if not needs:
                raise TemplateError("the block draws no " + (
                    "points" if key == "grains_field" else "intervals or units"), f"{where}.{key}")
            fields[key] = (m.group(1), m.group(2))
    longest = None
    if "interval_longest" in raw:
        value = raw["interval_longest"]
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)", value) \
            if isinstance(value, str) else None
        if m is None or m.group(1) not in taken:
            raise TemplateError("must name a field of one of the template's slots, "
                                "e.g. V.longest", f"{where}.interval_longest")
        if not intervals:
            raise TemplateError("the block draws no intervals", f"{where}.interval_longest")
        longest = (m.group(1), m.group(2))
    require = None
    if "require" in raw:
        try:
            require = Condition(raw["require"], allowed_names=set(taken) | set(names))
        except ConditionError as exc:
            raise ConditionError(exc.what, f"{where}.require") from None
    return TimeSpec(points, derived, intervals, units, formats, interval_units, spans,
                    require, where, names, hours if points else None, interval_max,
                    interval_min, longest, fields["units_field"], fields["grains_field"],
                    match_formats, fields["match_units_field"])

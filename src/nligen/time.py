"""Language-neutral time arithmetic for label conditions.

A :class:`Duration` counts calendar months and exact seconds separately, because
"1 month" has no fixed length: ``datetime + Duration(months=1)`` moves the calendar,
and two durations compare only when the answer does not depend on month lengths.
Time points are ``datetime.datetime`` values; a :class:`TimeSpan` is what a time
expression like "2022年3月" denotes: an interval with ``start`` and ``end``.
Renderers for particular languages live in the language layers.
"""

from __future__ import annotations

import calendar
import datetime as _dt
import math
from dataclasses import dataclass

from .errors import ConditionError

_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 7 * 86400}
_MONTHS = {"month": 1, "year": 12}
# Bounds of a month / year in seconds, for comparing mixed durations conservatively.
_MONTH_MIN, _MONTH_MAX = 28 * 86400, 31 * 86400


@dataclass(frozen=True)
class Duration:
    months: int = 0
    seconds: float = 0

    def __add__(self, other):
        if isinstance(other, Duration):
            return Duration(self.months + other.months, self.seconds + other.seconds)
        if isinstance(other, _dt.datetime):
            return add_duration(other, self)
        return NotImplemented

    __radd__ = __add__

    def __sub__(self, other):
        if isinstance(other, Duration):
            return Duration(self.months - other.months, self.seconds - other.seconds)
        return NotImplemented

    def __neg__(self):
        return Duration(-self.months, -self.seconds)

    def __mul__(self, k):
        if isinstance(k, bool) or not isinstance(k, (int, float)):
            return NotImplemented
        if isinstance(k, float) and (not math.isfinite(k) or abs(k) > 1e9):
            raise ConditionError("duration multiple out of range")
        if isinstance(k, int) and abs(k) > 10**9:
            raise ConditionError("duration multiple out of range")
        if isinstance(k, float) and self.months and not k.is_integer():
            raise ConditionError(f"cannot take a fractional multiple of {self}")
        return Duration(int(self.months * k), self.seconds * k)

    __rmul__ = __mul__

    def _bounds(self) -> tuple[float, float]:
        lo = self.seconds + self.months * (_MONTH_MIN if self.months >= 0 else _MONTH_MAX)
        hi = self.seconds + self.months * (_MONTH_MAX if self.months >= 0 else _MONTH_MIN)
        return lo, hi

    def compare(self, other: "Duration") -> int:
        """-1, 0 or 1; raises ConditionError when month lengths would decide."""
        if self.months == other.months:
            return (self.seconds > other.seconds) - (self.seconds < other.seconds)
        if self.seconds == other.seconds:
            return (self.months > other.months) - (self.months < other.months)
        a_lo, a_hi = self._bounds()
        b_lo, b_hi = other._bounds()
        if a_hi < b_lo:
            return -1
        if a_lo > b_hi:
            return 1
        raise ConditionError(f"cannot compare {self} and {other}: it depends on month lengths")

    def __lt__(self, other):
        return self.compare(other) < 0 if isinstance(other, Duration) else NotImplemented

    def __le__(self, other):
        return self.compare(other) <= 0 if isinstance(other, Duration) else NotImplemented

    def __gt__(self, other):
        return self.compare(other) > 0 if isinstance(other, Duration) else NotImplemented

    def __ge__(self, other):
        return self.compare(other) >= 0 if isinstance(other, Duration) else NotImplemented

    def __str__(self) -> str:
        parts = []
        if self.months:
            parts.append(f"{self.months} month(s)")
        if self.seconds or not parts:
            parts.append(f"{self.seconds:g} second(s)")
        return " + ".join(parts)


def add_duration(point: _dt.datetime, d: Duration) -> _dt.datetime:
    """Calendar addition: months first (day clamped to the month's length), then seconds."""
    if d.months:
        total = point.year * 12 + (point.month - 1) + d.months
        year, month = divmod(total, 12)
        if not 1 <= year <= 9999:
            raise ConditionError(f"date out of range adding {d} to {point}")
        day = min(point.day, calendar.monthrange(year, month + 1)[1])
        point = point.replace(year=year, month=month + 1, day=day)
    if d.seconds:
        try:
            point = point + _dt.timedelta(seconds=d.seconds)
        except OverflowError as exc:
            raise ConditionError(f"date out of range adding {d} to {point}") from exc
    return point


def subtract(a, b):
    """``a - b`` for time values: point - duration, point - point, duration - duration."""
    if isinstance(a, _dt.datetime) and isinstance(b, Duration):
        return add_duration(a, -b)
    if isinstance(a, _dt.datetime) and isinstance(b, _dt.datetime):
        return Duration(0, (a - b).total_seconds())
    return NotImplemented


UNITS: dict[str, Duration] = {
    **{name: Duration(0, secs) for name, secs in _SECONDS.items()},
    **{name: Duration(months, 0) for name, months in _MONTHS.items()},
}


@dataclass(frozen=True)
class TimeSpan:
    """A time expression's denotation: the interval [start, end)."""

    start: _dt.datetime
    end: _dt.datetime

    def __condition_field__(self, name: str):
        if name == "start":
            return self.start
        if name == "end":
            return self.end
        if name == "length":
            return Duration(0, (self.end - self.start).total_seconds())
        raise ConditionError(f"a time span has fields start, end and length, not {name!r}")

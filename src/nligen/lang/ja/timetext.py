"""Japanese time expressions: rendering and reading back.

Time points as Jamp writes them, largest unit first with its counter: 2010年, 3月, 5日,
7時, 2010年3月5日7時. Intervals: 6年間, 3ヶ月間, 5日間, 2時間, and as an amount before
以内 / で / 以上 (``interval_1.amount``): 6年, 3ヶ月, 5日, 2時間 ("5日以内に", not Jamp's
"5日間以内に"). Bare units (毎年, 毎月, 毎日): 年, 月, 日, 時. ``parse_point`` /
``parse_interval`` read them back (the label command and the round-trip tests use them).
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Any, Mapping

from ...timeslots import FORMATS, project

POINT_SUFFIX = {"year": "年", "month": "月", "day": "日", "hour": "時"}
INTERVAL_SUFFIX = {"year": "年間", "month": "ヶ月間", "day": "日間", "hour": "時間"}
AMOUNT_SUFFIX = {"year": "年", "month": "ヶ月", "day": "日", "hour": "時間"}
UNIT_WORD = {"year": "年", "month": "月", "day": "日", "hour": "時"}
# Jamp's names for time formats (the time_format column of the released TSV files).
FORMAT_NAMES = {
    **{code: "".join(POINT_SUFFIX[u] for u in units) for code, units in FORMATS.items()},
    "year": "年間", "month": "月間", "day": "日間", "hour": "時間",
}
FORMAT_CODES = {name: code for code, name in FORMAT_NAMES.items()}

_POINT = re.compile(r"(?:(\d{4})年)?(?:(\d{1,2})月)?(?:(\d{1,2})日)?(?:(\d{1,2})時)?")
_INTERVAL_UNITS = {**{v: k for k, v in AMOUNT_SUFFIX.items()},
                   **{v: k for k, v in INTERVAL_SUFFIX.items()}}
# longest suffix first: 日間 before 日
_INTERVAL = re.compile(r"(\d+)(" + "|".join(sorted(_INTERVAL_UNITS, key=len, reverse=True)) + ")")


def time_text(kind: str, value: Mapping[str, Any]) -> str:
    if kind == "point":
        start = value["start"]
        return "".join(f"{getattr(start, u)}{POINT_SUFFIX[u]}" for u in FORMATS[value["format"]])
    if kind == "interval":
        return f"{value['number']}{INTERVAL_SUFFIX[value['unit']]}"
    if kind == "amount":
        return f"{value['number']}{AMOUNT_SUFFIX[value['unit']]}"
    return UNIT_WORD[value["unit"]]


def parse_point(text: str) -> tuple[str, _dt.datetime, _dt.datetime] | None:
    """(format, start, end) of a time point written like 2010年3月5日 (None if it is not
    one, or names a day that does not exist)."""
    m = _POINT.fullmatch(text)
    if not m or not any(m.groups()):
        return None
    code = "".join(c for c, g in zip("YMDH", m.groups()) if g is not None)
    if code not in FORMATS:
        return None  # a gap such as 2010年5日
    values = [int(g) if g is not None else 1 for g in m.groups()]
    if m.group(4) is None:
        values[3] = 0
    try:
        moment = _dt.datetime(values[0] if m.group(1) else 2001, values[1], values[2],
                              values[3])
    except ValueError:
        return None
    proj = project(moment, code)
    if proj is None:
        return None
    return code, proj[0], proj[1]


def parse_interval(text: str) -> tuple[int, str] | None:
    """(number, unit) of an interval written either way: 5日間 or 5日."""
    m = _INTERVAL.fullmatch(text)
    if not m:
        return None
    return int(m.group(1)), _INTERVAL_UNITS[m.group(2)]

"""Japanese time expressions: rendering and reading back.

Time points largest unit first with its counter: 2010年, 3月, 5日, 2010年3月5日. A clock
hour is written as a narrative writer puts it, 午前 / 午後 / 正午 after the date and の:
3月5日の午前9時, 2010年3月5日の午後3時, 5日の正午 (Jamp prints 3月5日9時, timetable
shorthand an outside reader failed eight times at seed 2071; ``parse_point`` reads both).
Intervals: 6年間, 3ヶ月間, 5日間, 2時間, and as an amount before
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

# Jamp's 2010年3月5日7時 and this module's 2010年3月5日の午前7時 / の正午 / の午後3時.
_POINT = re.compile(r"(?:(?P<year>\d{4})年)?(?:(?P<month>\d{1,2})月)?(?:(?P<day>\d{1,2})日)?"
                    r"(?:(?<=日)の(?=午|正|\d))?(?:(?P<noon>正午)|(?P<half>午前|午後)?(?P<hour>\d{1,2})時)?")
_INTERVAL_UNITS = {**{v: k for k, v in AMOUNT_SUFFIX.items()},
                   **{v: k for k, v in INTERVAL_SUFFIX.items()}}
# longest suffix first: 日間 before 日
_INTERVAL_SUFFIXES = "|".join(sorted(_INTERVAL_UNITS, key=len, reverse=True))
_INTERVAL = re.compile(r"(\d+)(" + _INTERVAL_SUFFIXES + ")")
# What time_text writes, as regexes without groups, for the label command to find the
# time expressions in a text (Language.time_patterns): the same spellings parse_point and
# parse_interval read.
TIME_PATTERNS = {
    "point": re.sub(r"\(\?P<\w+>", "(?:", _POINT.pattern),
    "interval": r"\d{1,3}(?:" + _INTERVAL_SUFFIXES + ")",
    "unit": "[" + "".join(UNIT_WORD.values()) + "]",
}


def clock_hour_text(hour: int) -> str:
    """午前9時, 正午, 午後3時 (a 12-hour clock, as narrative prose writes it)."""
    if hour == 12:
        return "正午"
    return f"午前{hour}時" if hour < 12 else f"午後{hour - 12}時"


def time_text(kind: str, value: Mapping[str, Any]) -> str:
    if kind == "point":
        start = value["start"]
        units = FORMATS[value["format"]]
        date = "".join(f"{getattr(start, u)}{POINT_SUFFIX[u]}" for u in units if u != "hour")
        if "hour" not in units:
            return date
        return f"{date}の{clock_hour_text(start.hour)}" if date else clock_hour_text(start.hour)
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
    year, month, day, noon, half, hour = m.groups()
    if half is not None and not 0 <= int(hour) <= 11:
        return None  # 午後13時
    clock = 12 if noon else None if hour is None else int(hour) + (12 if half == "午後" else 0)
    parts = (year, month, day, clock)
    code = "".join(c for c, g in zip("YMDH", parts) if g is not None)
    if code not in FORMATS:
        return None  # a gap such as 2010年5日
    values = [int(g) if g is not None else 1 for g in parts]
    if clock is None:
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

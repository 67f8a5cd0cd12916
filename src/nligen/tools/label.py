"""Labelling existing problems with a family's templates (``gen jamp label``).

Each template's premise and hypothesis texts become regular expressions: literal text
stays literal, a time expression becomes the pattern of its kind (the language layer
reads it back into values), every other placeholder becomes a lazy wildcard, and a
placeholder that occurs twice must match the same text twice. A problem that matches a
template gets its time values recovered, its template's label condition evaluated on
them, and the label written out. Whitespace is ignored (tokenized input works too).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Mapping

from ..errors import ConditionError
from ..semantics import check as semantic_check
from ..slots import SlotValue
from ..templates import Template
from ..timeslots import FORMATS, interval_value, point_value, unit_duration
from .. import time as ntime

_PLACEHOLDER = re.compile(
    r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?\s*(?:\|\s*([A-Za-z_][A-Za-z0-9_]*)\s*)?\}\}")
_JINJA = re.compile(r"\{[{%#]")
_WS = re.compile(r"\s+")

# an interval slot's fields that spell the interval itself (5日間 / 5日)
INTERVAL_SPELLINGS = (None, "amount")

# parse_point(text) -> (format, start, end) | None; parse_interval(text) -> (n, unit) | None
TimeReaders = tuple[Callable[[str], Any], Callable[[str], Any], Mapping[str, str]]


@dataclass
class _Matcher:
    template: Template
    pattern: re.Pattern  # premise NUL hypothesis
    groups: dict[str, str]  # regex group name -> placeholder key (slot, slot.field, slot|filter)
    literal: int  # literal characters: when templates disagree, the most specific wins


def _regex(source: str, template: Template, groups: dict[str, str],
           assigned: dict[str, str], literal_chars: list[int]) -> str | None:
    """The regex of one text; None when it uses Jinja beyond plain placeholders.
    ``literal_chars[0]`` counts the literal characters (how specific the template is)."""
    time = template.time
    # what the language writes for a time expression (any text where it says nothing)
    times = template.language.time_patterns if template.language is not None else {}
    out = []
    pos = 0
    for m in _PLACEHOLDER.finditer(source):
        literal = source[pos:m.start()]
        if _JINJA.search(literal):
            return None
        out.append(re.escape(_WS.sub("", literal)))
        literal_chars[0] += len(_WS.sub("", literal))
        pos = m.end()
        name, fld, flt = m.groups()
        key = name + (f".{fld}" if fld else "") + (f"|{flt}" if flt else "")
        if key in assigned:
            out.append(f"(?P={assigned[key]})")
            continue
        group = f"g{len(groups)}"
        groups[group] = key
        assigned[key] = group
        if time is not None and not fld and not flt and name in time.points + list(time.derived):
            pattern = times.get("point", ".+?")
        elif time is not None and fld in INTERVAL_SPELLINGS and not flt \
                and name in time.intervals:
            pattern = times.get("interval", ".+?")
        elif time is not None and not fld and not flt and name in time.units:
            pattern = times.get("unit", ".+?")
        elif flt and template.language is not None and flt in template.language.filter_patterns:
            pattern = template.language.filter_patterns[flt]
        elif fld and not flt and template.language is not None \
                and fld in template.language.field_patterns:
            pattern = template.language.field_patterns[fld]
        else:
            pattern = ".*?" if name in template.slots and template.slots[name].kind == "values" \
                else ".+?"
        out.append(f"(?P<{group}>{pattern})")
    rest = source[pos:]
    if _JINJA.search(rest):
        return None
    out.append(re.escape(_WS.sub("", rest)))
    literal_chars[0] += len(_WS.sub("", rest))
    return "".join(out)


def build_matchers(templates: Iterable[Template]) -> list[_Matcher]:
    out = []
    for t in templates:
        if len(t.hypotheses) != 1:
            continue
        groups: dict[str, str] = {}
        assigned: dict[str, str] = {}
        literal = [0]
        parts = [_regex(p.source, t, groups, assigned, literal) for p in t.premises]
        if any(p is None for p in parts):
            continue
        premise = re.escape(_WS.sub("", t.premise_separator)).join(parts)  # type: ignore[arg-type]
        hyp = _regex(t.hypotheses[0].text.source, t, groups, dict(assigned), literal)
        if hyp is None:
            continue
        # The hypothesis may refer back to premise groups, so match both as one text.
        out.append(_Matcher(t, re.compile(premise + "\x00" + hyp), groups, literal[0]))
    return out


class Labeller:
    def __init__(self, templates: Iterable[Template], readers: TimeReaders,
                 provenance: Callable[[Template], Any] = lambda t: None,
                 by: str = "condition"):
        """``by``: "condition" (the template's label rule) or "semantics" (the model
        checker on its semantics block, nligen.semantics)."""
        if by not in ("condition", "semantics"):
            raise ValueError(f"by must be condition or semantics, not {by!r}")
        self.by = by
        self.matchers = build_matchers(templates)
        self.parse_point, self.parse_interval, self.unit_words = readers
        self.provenance = provenance

    def label(self, premise: str, hypothesis: str, template_filter: Callable[[Template], bool]
              | None = None) -> dict[str, Any]:
        text = _WS.sub("", premise) + "\x00" + _WS.sub("", hypothesis)
        results = []
        problems = []
        for m in self.matchers:
            if template_filter is not None and not template_filter(m.template):
                continue
            match = m.pattern.fullmatch(text)
            if not match:
                continue
            try:
                label, slots = self._decide(m, match)
            except ConditionError as exc:
                problems.append(f"{m.template.id}: {exc.what}")
                continue
            results.append((m.template, label, slots, m.literal))
        out: dict[str, Any] = {"premise": premise, "hypothesis": hypothesis}
        if len({r[1] for r in results}) > 1:
            # Templates disagree: a template whose literal text is longer is more specific
            # (最初の/最後の, いつも … 遅れて) and is preferred when it alone is the longest.
            top = max(r[3] for r in results)
            if sum(1 for r in results if r[3] == top) == 1:
                results.sort(key=lambda r: -r[3])
                results = [r for r in results if r[3] == top or r[1] == results[0][1]]
        labels = {r[1] for r in results}
        if len(labels) == 1:
            template, label, slots, _ = results[0]
            out.update(label=label, template=template.id, jamp_template=self.provenance(template),
                       slots=slots)
            if len(results) > 1:
                out["also_matches"] = [r[0].id for r in results[1:]]
            return out
        out.update(label=None, template=None, jamp_template=None, slots={})
        if results:
            out["error"] = "ambiguous: " + "; ".join(f"{r[0].id} gives {r[1]}" for r in results)
        elif problems:
            out["error"] = "; ".join(problems)
        else:
            out["error"] = "matches no template" + (" with that template number"
                                                    if template_filter is not None else "")
        return out

    def _decide(self, m: _Matcher, match: re.Match) -> tuple[str, dict[str, Any]]:
        t = m.template
        time = t.time
        env: dict[str, Any] = {}
        slots: dict[str, Any] = {}
        for group, key in m.groups.items():
            value = match.group(group)
            name = key.split(".")[0].split("|")[0]
            # the time value itself, or an interval spelled as its amount (interval_1.amount)
            spelled = key == name or (key.startswith(name + ".") and time is not None
                                      and name in time.intervals
                                      and key[len(name) + 1:] in INTERVAL_SPELLINGS)
            if time is not None and spelled and name in time.names:
                parsed = self._time_value(name, value, time)
                env[name] = parsed
                slots[name] = parsed.provenance()
            else:
                slots[key] = value
                env.setdefault(name, SlotValue(name, value))
        if time is not None:
            for name, (base, count, unit) in time.derived.items():
                if base not in env:
                    continue
                b = env[base]
                start = ntime.add_duration(b._fields["start"], unit_duration(unit, count))
                fmt = b._fields["format"]
                if name in env:  # written in the text: it must be the derived point
                    if env[name]._fields["start"] != start:
                        raise ConditionError(f"{name} is not {base} {count:+d} {unit}")
                    continue
                end = ntime.add_duration(start, ntime.UNITS[FORMATS[fmt][-1]])
                env[name] = point_value(name, start, end, fmt, "")
        if self.by == "semantics":
            if t.semantics is None:
                raise ConditionError("the template has no semantics block")
            label = semantic_check(t.semantics, env).label
        else:
            label = t.hypotheses[0].rule.decide(env)
        if label is None:
            raise ConditionError("no label condition holds")
        return label, slots

    def _time_value(self, name: str, text: str, time) -> SlotValue:
        if name in time.points or name in time.derived:
            parsed = self.parse_point(text)
            if parsed is None:
                raise ConditionError(f"{text!r} is not a time point")
            fmt, start, end = parsed
            return point_value(name, start, end, fmt, text)
        if name in time.intervals:
            parsed = self.parse_interval(text)
            if parsed is None:
                raise ConditionError(f"{text!r} is not an interval")
            return interval_value(name, parsed[0], parsed[1], text)
        unit = self.unit_words.get(text)
        if unit is None:
            raise ConditionError(f"{text!r} is not a time unit")
        return SlotValue(name, text, {"unit": unit}, identity=unit, key=unit)

    def label_rows(self, rows: Iterable[Mapping[str, str]],
                   template_filter_for: Callable[[str | None], Callable | None]
                   ) -> Iterator[dict[str, Any]]:
        for row in rows:
            number = (row.get("template_num") or "").strip() or None
            yield self.label(row.get("premise", ""), row.get("hypothesis", ""),
                             template_filter_for(number))

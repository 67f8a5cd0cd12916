"""Compare each template's label condition with its semantics (``gen jamp check-semantics``).

For every template with a ``semantics:`` block, time values are drawn the way generation
draws them (every format and span the time block allows, the match formats too), and
then a small grid is enumerated exhaustively (every point among a few consecutive days or
months, every interval of 1-3 units). On each assignment the condition and the model
checker (nligen.semantics) each give a label; a disagreement is reported with the time
values and a model that shows the semantic label: one where the premises hold and the
hypothesis fails (against an entailment), or holds (against a contradiction).

Assignments outside the time block's ``require`` are checked too (``gen jamp label``
labels other people's problems with the same conditions), and counted apart.
"""

from __future__ import annotations

import datetime as _dt
import itertools
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from .. import time as ntime
from ..errors import ConditionError
from ..rng import StableRng
from ..semantics import check as semantic_check
from ..slots import SlotValue
from ..timeslots import (FORMATS, TimeSpec, default_time_text, project, rendered_interval,
                         rendered_point, unit_duration)

# what a content slot's fields say in a real filling: every unit, no cap
_FILLING = {"durations": ["hour", "day", "month", "year"], "habits": ["day", "month", "year"],
            "many_durations": ["hour", "day", "month", "year"],
            "grains": ["year", "month", "day", "hour"], "longest": {}}
GRID_START = _dt.datetime(2001, 1, 1)
GRID_POINTS = 4  # consecutive periods each point of the grid ranges over
GRID_NUMBERS = (1, 2, 3)  # interval lengths of the grid


@dataclass
class Disagreement:
    template: str
    values: dict[str, str]
    condition: str
    semantics: str
    model: str
    within_require: bool
    source: str  # "sampled" or "grid"

    def line(self) -> str:
        shown = ", ".join(f"{k}={v}" for k, v in self.values.items())
        where = "" if self.within_require else " [outside require]"
        return (f"{self.template}: {shown}: condition {self.condition}, semantics "
                f"{self.semantics}{where}; model: {self.model}")


@dataclass
class TemplateCheck:
    template: str
    sampled: int = 0
    grid: int = 0
    undecided: int = 0  # assignments the condition cannot compare (month lengths)
    incoherent: int = 0  # assignments whose premises have no model
    disagreements: list[Disagreement] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {"template": self.template, "sampled": self.sampled, "grid": self.grid,
                "undecided": self.undecided, "incoherent": self.incoherent,
                "disagreements": [d.__dict__ for d in self.disagreements]}


def _fillings(template) -> list[dict[str, Any]]:
    """Content slot values for the conditions and the time block: one synthetic filling
    per value of each values slot the semantics reads (以内に / で / 以上かけて)."""
    base = {name: SlotValue(name, name, _FILLING) for name, spec in template.slots.items()
            if spec.kind != "values"}
    chosen = [name for name in (template.semantics.means if template.semantics else {})
              if name in template.slots]
    if not chosen:
        return [base]
    out = []
    tables = [template.semantics.means[name] for name in chosen]
    for texts in itertools.product(*(list(t) for t in tables)):
        filling = dict(base)
        filling.update({name: SlotValue(name, text) for name, text in zip(chosen, texts)})
        out.append(filling)
    return out


def _compare(template, context: Mapping[str, Any], report: TemplateCheck, within: bool,
             source: str) -> None:
    rule = template.hypotheses[0].rule
    try:
        condition = rule.decide(context)
    except ConditionError:
        report.undecided += 1
        return
    if condition is None:
        report.undecided += 1
        return
    try:
        verdict = semantic_check(template.semantics, context)
    except ConditionError:
        # premises that no model satisfies ("2002年以来…現在、2001年"): no label is right;
        # generation never draws them
        report.incoherent += 1
        return
    if verdict.label == condition:
        return
    model = verdict.witness(condition)
    values = {k: getattr(v, "_text", str(v)) for k, v in context.items()
              if template.time is not None and k in template.time.names
              or k in template.semantics.means}
    report.disagreements.append(Disagreement(
        template.id, values, condition, verdict.label,
        model.describe() if model is not None else "(none)", within, source))


def _require_holds(time: TimeSpec, context: Mapping[str, Any]) -> bool:
    if time.require is None:
        return True
    try:
        return bool(time.require(context))
    except ConditionError:
        return False


def _render(template):
    lang = template.language
    return lang.time_text if lang is not None and lang.time_text else default_time_text


def _sample(template, samples: int, seed: int, report: TemplateCheck) -> None:
    time, render = template.time, _render(template)
    cells = []
    for filling in _fillings(template):
        choices = time.choices(env=filling, requested=True)
        if choices is None:
            continue
        fmts, spans, _ = choices
        cells += [(filling, fmt, span) for fmt in fmts for span in spans]
    if not cells:
        return
    per_cell = -(-samples // len(cells))
    for filling, fmt, span in cells:
        rng = StableRng(seed, template.id, fmt, span or "", len(filling))
        got = attempts = 0
        while got < per_cell and attempts < per_cell * 40:
            attempts += 1
            draw = time.draw(rng, attempts, render, formats=[fmt], spans=[span], env=filling,
                             requested=True)
            if draw is None:
                continue
            got += 1
            report.sampled += 1
            _compare(template, {**filling, **draw.values}, report, True, "sampled")


def _grid_values(time: TimeSpec, fmt: str | None, render, points, unit: str | None,
                 numbers) -> dict[str, Any] | None:
    """The time values of one grid assignment (None: a derived point falls outside what
    the format shows)."""
    values: dict[str, Any] = {name: rendered_point(name, s, e, fmt, render)
                              for name, (s, e) in zip(time.points, points)}
    for name in time.derived:
        derived = time.derive(name, values, fmt, render)
        if derived is None:
            return None
        values[name] = derived
    for name, n in zip(time.intervals, numbers):
        values[name] = rendered_interval(name, n, unit, render)
    for name in time.units:
        values[name] = SlotValue(name, render("unit", {"unit": unit}), {"unit": unit},
                                 identity=unit, key=unit)
    return values


def _grid(template, report: TemplateCheck) -> None:
    """Every combination of points among a few consecutive days (or the format's finest
    unit) and intervals of 1-3 units, in each format the template takes."""
    time, render = template.time, _render(template)
    # formats that hide a unit name the same periods as these
    formats = ([f for f in time.problem_formats(requested=True) if f in ("YMD", "YMDH", "YM", "Y")]
               if time.points else [None])
    numbers = list(itertools.product(GRID_NUMBERS, repeat=len(time.intervals)))
    for filling in _fillings(template):
        for fmt in formats:
            periods = [project(ntime.add_duration(GRID_START, unit_duration(FORMATS[fmt][-1], k)),
                               fmt) for k in range(GRID_POINTS)] if fmt else []
            units = ([u for u in FORMATS[fmt] if u in time.interval_units] if fmt
                     else list(time.interval_units))
            if time.intervals and not units:
                continue
            for points, unit, nums in itertools.product(
                    itertools.product(periods, repeat=len(time.points)), units or [None], numbers):
                values = _grid_values(time, fmt, render, points, unit, nums)
                if values is None:
                    continue
                context = {**filling, **values}
                report.grid += 1
                _compare(template, context, report, _require_holds(time, context), "grid")


def check_templates(templates: Iterable, samples: int = 1000, seed: int = 0,
                    grid: bool = True) -> list[TemplateCheck]:
    out = []
    for template in templates:
        if template.semantics is None:
            continue
        report = TemplateCheck(template.id)
        if template.time is None:
            for filling in _fillings(template):
                report.grid += 1
                _compare(template, filling, report, True, "grid")
        else:
            _sample(template, samples, seed, report)
            if grid:
                _grid(template, report)
        out.append(report)
    return out

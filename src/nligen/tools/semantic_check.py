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
from ..timeslots import FORMATS, TimeSpec, interval_value, point_value, project, unit_duration

# what a content slot's fields say in a real filling: every unit, no cap
_FILLING = {"durations": ["hour", "day", "month", "year"], "habits": ["day", "month", "year"],
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


def _sample(template, samples: int, seed: int, report: TemplateCheck) -> None:
    time = template.time
    render = template.language.time_text if template.language and \
        template.language.time_text else None
    from ..timeslots import default_time_text

    render = render or default_time_text
    fillings = _fillings(template)
    cells = []
    for filling in fillings:
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
            context = dict(filling)
            context.update(draw.values)
            report.sampled += 1
            _compare(template, context, report, True, "sampled")


def _grid(template, report: TemplateCheck) -> None:
    """Every combination of points among a few consecutive days (or the format's finest
    unit) and intervals of 1-3 units, in each format the template takes."""
    time = template.time
    fillings = _fillings(template)
    from ..timeslots import default_time_text

    render = (template.language.time_text if template.language and template.language.time_text
              else default_time_text)
    formats = time.problem_formats(requested=True) if time.points else [None]
    for filling in fillings:
        for fmt in formats:
            if fmt is not None and fmt not in ("YMD", "YMDH", "YM", "Y"):
                continue  # formats that hide a unit name the same periods as these
            unit = FORMATS[fmt][-1] if fmt else None
            points = []
            if time.points:
                for k in range(GRID_POINTS):
                    start = ntime.add_duration(GRID_START, unit_duration(unit, k))
                    span = project(start, fmt)
                    points.append(span)
            units = ([u for u in FORMATS[fmt] if u in time.interval_units] if fmt
                     else list(time.interval_units))
            if time.intervals and not units:
                continue
            for point_combo in itertools.product(points, repeat=len(time.points)):
                for iunit in units or [None]:
                    numbers = list(itertools.product(GRID_NUMBERS, repeat=len(time.intervals)))
                    for nums in numbers or [()]:
                        context = dict(filling)
                        for name, (s, e) in zip(time.points, point_combo):
                            context[name] = point_value(name, s, e, fmt, render(
                                "point", {"start": s, "format": fmt}))
                        ok = True
                        for name, (base, count, dunit) in time.derived.items():
                            s = ntime.add_duration(context[base]._fields["start"],
                                                   unit_duration(dunit, count))
                            proj = project(s, fmt)
                            if proj is None or proj[0] != s:
                                ok = False
                                break
                            context[name] = point_value(name, proj[0], proj[1], fmt, render(
                                "point", {"start": proj[0], "format": fmt}))
                        if not ok:
                            continue
                        for name, n in zip(time.intervals, nums):
                            shown = {"number": n, "unit": iunit}
                            context[name] = interval_value(name, n, iunit,
                                                           render("interval", shown),
                                                           render("amount", shown))
                        for name in time.units:
                            context[name] = SlotValue(name, render("unit", {"unit": iunit}),
                                                      {"unit": iunit}, identity=iunit,
                                                      key=iunit)
                        report.grid += 1
                        _compare(template, context, report, _require_holds(time, context),
                                 "grid")


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

"""``gen validate``: lint templates against their lexicons.

For every template and variant: every slot has options in the lexicons, every field a
text reads (``{{ S.plural }}``) exists on every option, a sample filling renders, every
label its rules can give is reached by some filling, and the capacity is not zero.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from .engine import Engine, Selection, Variant
from .errors import NligenError
from .rng import StableRng

LABEL_SAMPLES = 2_000


@dataclass
class Report:
    templates: int = 0
    variants: int = 0
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def validate(paths: Sequence[str | Path] | str | Path, lexicons=None) -> Report:
    from .api import lexicon_set_for
    from .templates import load_templates

    if isinstance(paths, (str, Path)):
        paths = [paths]
    template_set = load_templates(paths)  # schema errors raise here
    lexicon_set = lexicon_set_for(lexicons, template_set)
    report = Report(templates=len(template_set.templates))
    try:
        engine = Engine(template_set, lexicon_set, 0, Selection())
    except NligenError as exc:
        report.problems.append(str(exc))
        return report
    kept_per_template: dict[str, int] = {}
    for v in engine.variants:
        kept_per_template[v.template.id] = kept_per_template.get(v.template.id, 0) + 1
    for t in template_set.templates:
        if t.id not in kept_per_template:
            report.problems.append(f"{t.where}: variants: no variant passes the keep checks")
    report.variants = len(engine.variants)
    for v in engine.variants:
        try:
            _check_variant(engine, v, report)
        except NligenError as exc:
            report.problems.append(str(exc) if exc.where else f"{v.where}: {exc.what}")
    return report


def _check_variant(engine: Engine, v: Variant, report: Report) -> None:
    t = v.template
    for slot in v.order:
        if slot not in v.dependent and not v.options(slot):
            report.problems.append(f"{v.where}: slots.{slot}: no options (empty lexicon "
                                   "selection?)")
            return
    for slot in v.order:
        if slot in v.dependent:
            parents = sorted({ref for ref, _ in t.slots[slot].slot_refs})
            combos: list[dict] = [{}]
            for p in parents:
                combos = [dict(c, **{p: o}) for c in combos for o in v.options(p, c)]
            empty = [c for c in combos if not v.options(slot, c)]
            if empty:
                example = ", ".join(f"{k}={str(o)!r}" for k, o in empty[0].items())
                report.problems.append(f"{v.where}: slots.{slot}: no options when {example} "
                                       f"({len(empty)} of {len(combos)} parent fillings)")
    cap = v.capacity()
    if cap == 0:
        report.problems.append(f"{v.where}: no filling satisfies the slot constraints")
        return
    # Fields read as slot.field in texts must exist on every option.
    texts = list(t.premises) + [h.text for h in t.hypotheses]
    texts += [h.explain for h in t.hypotheses if h.explain]
    texts += [r for r in t.record.values() if hasattr(r, "fields")]
    for h in t.hypotheses:
        texts += [r for r in h.record.values() if hasattr(r, "fields")]
    for text in texts:
        for slot, fields in text.fields.items():
            if slot not in t.slots or slot in v.dependent:
                continue
            for opt in v.options(slot):
                for f in fields:
                    if f not in opt._fields and not hasattr(opt, f):
                        report.problems.append(
                            f"{text.where}: {slot}.{f}: option {str(opt)!r} has no field {f!r}")
                        break
    # Sample fillings: they must render, and every label must be reachable.
    wanted: dict[int, set[str]] = {
        h.index: {lab for lab in h.rule.labels if t.draws_label(lab, requested=True)}
        for h in t.hypotheses}
    reached: dict[int, set[str]] = {h.index: set() for h in t.hypotheses}
    fillings = (v.enumerate() if cap is not None and cap <= LABEL_SAMPLES
                else _samples(v, LABEL_SAMPLES))
    rendered_one = False
    draws = TIME_DRAWS_PER_FILLING if t.time is not None else 1
    # every filling gets draws of its own: keyed on the filling's place in the sample, so
    # that a label reached only by some time values is found whatever the fillings are
    timed = ((i, f, d) for i, f in enumerate(fillings) for d in range(draws))
    for i, filling, d in timed:
        context = dict(filling)
        if t.time is not None:
            drawn = t.time.draw(StableRng("validate-time", t.id, i, d), d,
                                engine.time_text(t), env=filling)
            if drawn is None:
                continue
            context.update(drawn.values)
        context.update(v.axes)
        context["variant"] = v.name
        if not rendered_one:
            for text in texts:
                text.render(context)
            rendered_one = True
        for h in t.hypotheses:
            label = h.rule.decide(context)
            if label is not None:
                reached[h.index].add(label)
        if all(reached[i] >= wanted[i] for i in wanted):
            break
    for h in t.hypotheses:
        missing = wanted[h.index] - reached[h.index]
        if missing:
            name = h.type or f"hypotheses[{h.index}]"
            report.problems.append(
                f"{v.where}: {name}: label(s) {', '.join(sorted(missing))} never reached "
                f"in {'all' if cap is not None and cap <= LABEL_SAMPLES else LABEL_SAMPLES} "
                "fillings")
    report.notes.append(f"{v.where}: capacity {cap if cap is not None else 'unknown'}")


TIME_DRAWS_PER_FILLING = 40  # time-expression draws per sampled filling (time blocks)


def _samples(v: Variant, k: int):
    for i in range(k):
        filling = v.sample(StableRng("validate", v.template.id, v.name, i))
        if filling is not None:
            yield filling

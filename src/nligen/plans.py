"""How a run's units are shared out over its cells (see :meth:`nligen.engine.Engine.plan`).

Three plans:

* **cell** (the default): round robin over the (template, label) cells, every cell the
  same number of units (as the Jamp paper balances);
* **label** (``--balance label``): the labels take turns, so the labels are equal overall
  (within one problem) at every length of the set; within a label its cells follow a
  weighted round robin. The weights are the templates' (:func:`template_weights`):
  fitted so that, where the templates allow it, every label has the same total weight,
  so a template's labels stay balanced too;
* **template** (``--balance template``): the templates take turns, each its cells in
  turn, so every template has the same number of units (within one) however many
  variants and labels it has (minimal-pair paradigms are balanced this way);
* **quota** (``--match``): every cell has its own number of units (:class:`CellQuota`).

The cell and label plans do not depend on the run's size: the first k problems are the
same for any ``--n``. A quota plan is the run's composition itself.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterator, Mapping, Sequence

BALANCES = ("cell", "label", "template")
FIT_ROUNDS = 500  # rounds of fitting template weights (converges in far fewer when it can)


@dataclass(frozen=True)
class CellQuota:
    """How many problems one cell of a matched set has: a template (and variant) with a
    label, and for templates with time expressions their format and span (None: the
    problem has none). ``where`` names the cell as the user wrote it, for messages."""

    template: str
    variant: str
    label: str
    count: int
    time_format: str | None = None
    time_span: str | None = None
    where: str = ""

    def as_json(self) -> list[Any]:
        return [self.template, self.variant, self.label, self.time_format, self.time_span,
                self.count]

    @classmethod
    def from_json(cls, row: Sequence[Any]) -> "CellQuota":
        template, variant, label, fmt, span, count = row
        return cls(template, variant, label, count, fmt, span)


MIN_TEMPLATE_WEIGHT = 0.01  # of the mean weight (1): no template's share falls below it


def template_weights(label_sets: Sequence[Sequence[str]]) -> list[Fraction]:
    """A weight per template (given the labels each can produce) such that every label's
    templates weigh the same in total, where that is possible, and the weights stay as
    even as they can: iterative proportional fitting from equal weights (each template
    scaled by the mean of its labels' correction factors). Only +, * and / on floats, so
    the same weights on every machine; returned as fractions for exact scheduling."""
    labels = sorted({lab for s in label_sets for lab in s})
    weights = [1.0] * len(label_sets)
    for _ in range(FIT_ROUNDS):
        totals = {lab: 0.0 for lab in labels}
        for w, s in zip(weights, label_sets):
            for lab in s:
                totals[lab] += w
        mean = sum(totals.values()) / len(labels)
        factor = {lab: mean / totals[lab] for lab in labels}
        if max(abs(f - 1.0) for f in factor.values()) < 1e-9:
            break
        weights = [w * sum(factor[lab] for lab in s) / len(s) for w, s in zip(weights, label_sets)]
        scale = len(weights) / sum(weights)
        weights = [w * scale for w in weights]
    # Where the labels cannot weigh the same (an entailment-only template beside an
    # entailment/neutral and an entailment/contradiction one), fitting drives a template
    # towards 0: it keeps a floor instead, so every template still comes up.
    weights = [max(w, MIN_TEMPLATE_WEIGHT) for w in weights]
    return [Fraction(w).limit_denominator(1_000_000) for w in weights]


def label_schedule(labels: Sequence[str], weights: Sequence[Fraction]) -> Iterator[int]:
    """Cell indices without end: the labels in turn (in order of first appearance), and
    for each label the next of its cells by stride scheduling on the cells' weights
    (each cell is due every 1/weight; the earliest due goes first, ties by cell order)."""
    due: dict[str, list[tuple[Fraction, int]]] = {}  # label -> heap of (due, cell)
    for c, lab in enumerate(labels):
        due.setdefault(lab, []).append((Fraction(1, 2) / weights[c], c))
    for heap in due.values():
        heapq.heapify(heap)
    while True:
        for heap in due.values():  # labels in order of first appearance
            when, c = heap[0]
            heapq.heapreplace(heap, (when + 1 / weights[c], c))
            yield c


def template_schedule(templates: Sequence[str]) -> Iterator[int]:
    """Cell indices without end: the templates in turn (in order of first appearance),
    each giving the next of its cells in turn."""
    groups: dict[str, list[int]] = {}
    for c, t in enumerate(templates):
        groups.setdefault(t, []).append(c)
    members = list(groups.values())
    turns = [0] * len(members)
    while True:
        for g, cells in enumerate(members):
            yield cells[turns[g] % len(cells)]
            turns[g] += 1


def quota_schedule(quotas: Sequence[int]) -> Iterator[int]:
    """Cell indices: round robin over the cells that still have units to give."""
    rnd = 0
    while True:
        live = [c for c, q in enumerate(quotas) if rnd < q]
        if not live:
            return
        yield from live
        rnd += 1


def split_fixed_counts(labels: Sequence[str], counts: Mapping[str, int]) -> list[tuple[list[int], int]]:
    """Units for a template whose hypotheses have fixed ``labels`` (one unit: one premise
    with each hypothesis) that give exactly ``counts`` problems per label: a list of
    (indices of the hypotheses a unit keeps, units), whole units first. Labels in
    ``counts`` must be among ``labels``."""
    remaining = {lab: k for lab, k in counts.items() if k > 0}
    out: list[tuple[list[int], int]] = []
    while remaining:
        subset = [i for i, lab in enumerate(labels) if lab in remaining]
        per = {lab: sum(1 for i in subset if labels[i] == lab) for lab in remaining}
        units = min(remaining[lab] // per[lab] for lab in remaining)
        if units == 0:  # fewer left of some label than a unit has: keep that many of them
            taken: dict[str, int] = {}
            kept = []
            for i in subset:
                lab = labels[i]
                if taken.get(lab, 0) < remaining[lab]:
                    taken[lab] = taken.get(lab, 0) + 1
                    kept.append(i)
            subset, per = kept, taken
            units = min(remaining[lab] // per[lab] for lab in remaining)
        out.append((subset, units))
        for lab in list(remaining):
            remaining[lab] -= units * per[lab]
            if remaining[lab] == 0:
                del remaining[lab]
    return out

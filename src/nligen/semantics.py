"""What a template's sentences mean on a timeline, and a model checker that labels by it.

A template's ``semantics:`` block restates each premise and the hypothesis as claims about
events on a discrete timeline, written from the sentences and not from the label
condition. The checker enumerates small models (where the events happen, how long they
take, when "now" is) and decides:

- entailment: every model of the premises makes the hypothesis true;
- contradiction: no model of the premises makes it true;
- neutral: some do and some do not.

It is a second, independent route to a label (issue 17): ``gen jamp check-semantics``
compares it with the template's condition, ``gen verify --semantics`` with each record.

The block::

    semantics:
      events: {e: act}              # e: the agent's doing of V; act | process | state
      premises:
        - yesterday(e)              # 昨日、アリスはVした。
        - today(tp_1)               # 今日はtp_1だ。
      hypothesis: at(e, tp_2)       # アリスはtp_2にVした。

An event is declared as a kind, or ``{kind: K, occasions: once|many}``:

- ``act``: happens at an instant (an achievement, or an act dated as a whole);
- ``process``: takes time, from a start to an end (durations, 始めた / 終えた);
- ``state``: holds over an interval (V-ている);
- ``habit``: recurs once per calendar unit, to some recipient (毎日 … に W を V した).

``occasions: once`` (the default) says every sentence speaks of the same occasion (the
deed of その/それ, the first W, a timed act described twice). ``many`` says V may recur:
each sentence that mentions the event asserts an occasion of its own, so 「昨日Vした」 and
「tp_2にVした」 are compatible. The choice is made per template, with the reason beside it.

A sentence is a comma-separated conjunction of atoms, with an optional quantifier over
the occasions of one event: ``every e: late(e)`` (いつも遅れて), ``no e: late(e)``
(決して…遅れてVことはない), ``not: atoms`` (it is not so that…). ``background:`` lists atoms
true in every model (how the events of the sentences relate: ``part_of(f, e)``).

Atoms (S a time point slot, D an interval slot, e and f events):

==========================  ===========================================================
``at(e, S)``                e happens within S (an act's instant; a process wholly)
``starts_in(e, S)``         e starts within S (V-始めた)
``ends_by(e, S)``           e ends by the end of S (tp までに V-終えた)
``within(e, D)``            e takes at most D (D以内に)
``lasts(e, D)``             e takes exactly D (Dで, ちょうどD, Vのに D を費やした)
``lasts_at_least(e, D)``    e takes D or more (D以上かけて, D以上費やした)
``for(e, D)``               e goes on for a stretch of D (a bare D間: a homogeneous
                            activity done for 3 days was done for 2 of them)
``before(e, f)``            e happens before f (an instant strictly earlier)
``after(e, f)``             e happens after f
``occurs(e)``               e happens (no time said)
``part_of(f, e)``           f is part of e (f within e's time)
``today(S)``                now lies in S (今日はSだ)
``now_in(S)``               now lies in S (現在、Sである)
``yesterday(e)``            e happens on the day before the day of now (昨日)
``past(e)``                 e happens before now
``late(e)`` / ``on_time(e)``  e happens late / not late (遅れて / 遅れずに)
``since(e, S)``             the state e began within S and holds from then through now
                            (S以来 V-ている: 以来 marks the onset; no e before it)
``held_at(e, S)``           the state e held at some moment of S (S には V-ていた;
                            S に V した of a since-state)
``holds_now(e)``            the state e holds now (V-ている, 現在 V-ている)
``held_before_now(e)``      the state e held at some moment before now (V-ていた)
``every_unit(e)``           the habit e has an occasion in every unit (毎〈unit〉)
``one_recipient(e)``        one and the same recipient in every unit
==========================  ===========================================================

Choices this semantics makes, where Jamp's labels show a reading:

- Tense is not checked across sentences: a past-tense hypothesis is a claim about its own
  time, and the premises' present (今日は / 現在) does not make a later time impossible.
  Jamp labels 「現在、2004年10月である。… 2017年12月に配達した」 neutral (the V-ing may go
  on), and its template 8 never contradicts a date after today.
- 以来 marks an onset: the state began within the time named and did not hold before.
- Whether an act may recur is said per template (``occasions``), with the reason beside it.
- Durations: a bare 3日間 of a homogeneous activity is a stretch of it (done for 3 days,
  it was done for 2); で, ちょうど and 費やした give the whole deed's length.

The models are finite: every instant is drawn from the problem's own critical points
(the bounds of its time points, those bounds moved by its durations, one second either
side of each, and a point between each two), so two models that differ only between two
critical points are not both tried. Conditions compare the same bounds, so a disagreement
shows in these models.
"""

from __future__ import annotations

import datetime as _dt
import itertools
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping, Sequence

from . import time as ntime
from .errors import ConditionError, TemplateError

KINDS = ("act", "process", "state", "habit")
LABELS = ("entailment", "contradiction", "neutral")
EPOCH = _dt.datetime(2001, 1, 1)
FAR = _dt.datetime(9000, 1, 1)  # a state that holds "up to now and beyond" ends here
SECOND = ntime.Duration(0, 1)
DAY = ntime.Duration(0, 86400)

# atom -> argument kinds: e event, S time point (span), D interval (duration)
ATOMS: dict[str, tuple[str, ...]] = {
    "at": ("e", "S"), "starts_in": ("e", "S"), "ends_by": ("e", "S"),
    "within": ("e", "D"), "lasts": ("e", "D"), "lasts_at_least": ("e", "D"), "for": ("e", "D"),
    "before": ("e", "e"), "after": ("e", "e"), "occurs": ("e",), "part_of": ("e", "e"),
    "today": ("S",), "now_in": ("S",), "yesterday": ("e",), "past": ("e",),
    "late": ("e",), "on_time": ("e",),
    "since": ("e", "S"), "held_at": ("e", "S"), "holds_now": ("e",), "held_before_now": ("e",),
    "every_unit": ("e",), "one_recipient": ("e",),
}
# atoms that need a "now" in the model
_NOW_ATOMS = {"today", "now_in", "yesterday", "past", "since", "holds_now",
              "held_before_now"}
# atoms each kind of event takes
_KIND_ATOMS = {
    "act": {"at", "before", "after", "occurs", "yesterday", "past", "late", "on_time"},
    "process": {"at", "starts_in", "ends_by", "within", "lasts", "lasts_at_least", "for",
                "occurs", "part_of", "past"},
    "state": {"since", "held_at", "holds_now", "held_before_now", "occurs"},
    "habit": {"every_unit", "one_recipient", "occurs"},
}
_ATOM_RE = re.compile(r"\s*([a-z_]+)\s*\(\s*([^()]*?)\s*\)\s*")
_QUANT_RE = re.compile(r"\s*(every|no)\s+([A-Za-z_][A-Za-z0-9_]*)\s*:(.*)$|\s*(not)\s*:(.*)$",
                       re.S)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")


# -- the block ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Atom:
    name: str
    args: tuple[str, ...]
    kinds: tuple[str, ...]  # of the arguments (ATOMS); s_<slot> atoms: those of their atoms

    def __str__(self) -> str:
        return f"{self.name}({', '.join(self.args)})"


@dataclass(frozen=True)
class Sentence:
    """A conjunction of atoms; ``quantifier`` '' (some occasion), 'every', 'no' or 'not'."""

    atoms: tuple[Atom, ...]
    quantifier: str = ""
    bound: str | None = None  # the event 'every' / 'no' ranges over
    source: str = ""

    @property
    def events(self) -> list[str]:
        """The events the sentence's atoms name, in order."""
        out: list[str] = []
        for atom in self.atoms:
            for arg, kind in zip(atom.args, atom.kinds):
                if kind == "e" and arg not in out:
                    out.append(arg)
        return out


@dataclass(frozen=True)
class EventSpec:
    kind: str
    once: bool = True


@dataclass
class Semantics:
    events: dict[str, EventSpec]
    premises: list[Sentence]
    hypothesis: Sentence
    background: list[Sentence] = field(default_factory=list)
    where: str = ""
    # slot -> its text -> the atom it means (a values slot such as 以内に / で / 以上かけて);
    # a sentence writes the atom as s_<slot>(args)
    means: dict[str, dict[str, str]] = field(default_factory=dict)


def parse_semantics(raw: Any, where: str, time_names: Iterable[str] = ()) -> Semantics:
    """A template's ``semantics:`` block; TemplateError names what is wrong."""
    if not isinstance(raw, Mapping):
        raise TemplateError("must be a mapping with events, premises and hypothesis", where)
    unknown = set(raw) - {"events", "premises", "hypothesis", "background", "means"}
    if unknown:
        raise TemplateError(f"unknown key(s) {', '.join(sorted(map(str, unknown)))} "
                            "(known: events, premises, hypothesis, background, means)", where)
    means: dict[str, dict[str, str]] = {}
    for slot, table in (raw.get("means") or {}).items():
        loc = f"{where}.means.{slot}"
        if not isinstance(table, Mapping) or not table or any(
                not isinstance(k, str) or v not in ATOMS for k, v in table.items()):
            raise TemplateError("must map each text of the slot to an atom name", loc)
        if len({ATOMS[v] for v in table.values()}) != 1:
            raise TemplateError("the atoms a slot's texts mean must take the same arguments",
                                loc)
        means[str(slot)] = dict(table)
    events: dict[str, EventSpec] = {}
    declared = raw.get("events")
    if not isinstance(declared, Mapping) or not declared:
        raise TemplateError("'events' must map event names to a kind "
                            f"({', '.join(KINDS)})", f"{where}.events")
    for name, spec in declared.items():
        loc = f"{where}.events.{name}"
        if not isinstance(name, str) or not _NAME.match(name):
            raise TemplateError(f"{name!r} is not an event name", loc)
        if isinstance(spec, str):
            spec = {"kind": spec}
        if not isinstance(spec, Mapping) or set(spec) - {"kind", "occasions"}:
            raise TemplateError("give a kind, or {kind: K, occasions: once|many}", loc)
        if spec.get("kind") not in KINDS:
            raise TemplateError(f"kind must be one of {', '.join(KINDS)}", loc)
        occasions = spec.get("occasions", "once")
        if occasions not in ("once", "many"):
            raise TemplateError("occasions must be once or many", loc)
        events[name] = EventSpec(spec["kind"], occasions == "once")
    known_time = set(time_names)

    def check_atom(name: str, args: tuple[str, ...], loc: str) -> None:
        if len(args) != len(ATOMS[name]):
            raise TemplateError(f"{name} takes {len(ATOMS[name])} argument(s), "
                                f"not {len(args)}", loc)
        for arg, kind in zip(args, ATOMS[name]):
            if kind == "e":
                if arg not in events:
                    raise TemplateError(f"{name}: {arg!r} is not a declared event", loc)
                if name not in _KIND_ATOMS[events[arg].kind]:
                    raise TemplateError(f"{name} does not apply to the "
                                        f"{events[arg].kind} {arg}", loc)
            elif known_time and arg not in known_time:
                raise TemplateError(f"{name}: {arg!r} is not a time value of the "
                                    f"template ({', '.join(sorted(known_time))})", loc)

    def sentence(text: Any, loc: str) -> Sentence:
        if not isinstance(text, str) or not text.strip():
            raise TemplateError("a sentence is a string of atoms", loc)
        quantifier, bound, body = "", None, text
        m = _QUANT_RE.match(text)
        if m:
            if m.group(1):
                quantifier, bound, body = m.group(1), m.group(2), m.group(3)
                if bound not in events:
                    raise TemplateError(f"'{quantifier} {bound}': no event {bound!r}", loc)
            else:
                quantifier, body = "not", m.group(5)
        atoms = []
        for part in _split_atoms(body, loc):
            am = _ATOM_RE.fullmatch(part)
            if not am:
                raise TemplateError(f"{part.strip()!r} is not an atom name(args)", loc)
            name = am.group(1)
            args = tuple(a.strip() for a in am.group(2).split(",")) if am.group(2) else ()
            if name.startswith("s_") and name[2:] in means:
                # an atom the slot's text chooses: checked on one of its atoms
                slot_atoms = set(means[name[2:]].values())
                for chosen in sorted(slot_atoms):
                    check_atom(chosen, args, loc)
                atoms.append(Atom(name, args, ATOMS[min(slot_atoms)]))
                continue
            if name not in ATOMS:
                raise TemplateError(f"unknown atom {name!r} (known: {', '.join(ATOMS)})", loc)
            check_atom(name, args, loc)
            atoms.append(Atom(name, args, ATOMS[name]))
        if quantifier in ("every", "no") and not any(bound in a.args for a in atoms):
            raise TemplateError(f"'{quantifier} {bound}' says nothing about {bound}", loc)
        return Sentence(tuple(atoms), quantifier, bound, text.strip())

    premises_raw = raw.get("premises")
    if isinstance(premises_raw, str):
        premises_raw = [premises_raw]
    if not isinstance(premises_raw, list) or not premises_raw:
        raise TemplateError("'premises' must list one sentence per premise", f"{where}.premises")
    premises = [sentence(p, f"{where}.premises[{i}]") for i, p in enumerate(premises_raw)]
    if "hypothesis" not in raw:
        raise TemplateError("missing 'hypothesis'", where)
    hypothesis = sentence(raw["hypothesis"], f"{where}.hypothesis")
    background_raw = raw.get("background") or []
    if not isinstance(background_raw, list):
        raise TemplateError("'background' must be a list of sentences", f"{where}.background")
    background = [sentence(b, f"{where}.background[{i}]") for i, b in enumerate(background_raw)]
    for b in background:
        if b.quantifier:
            raise TemplateError("a background sentence takes no quantifier", f"{where}.background")
    return Semantics(events, premises, hypothesis, background, where, means)


def _split_atoms(body: str, loc: str) -> list[str]:
    parts, depth, current = [], 0, []
    for ch in body:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    if depth or any(not p.strip() for p in parts):
        raise TemplateError(f"cannot read {body.strip()!r} as atoms separated by commas", loc)
    return parts


# -- values --------------------------------------------------------------------------

def _span(value: Any, name: str) -> tuple[_dt.datetime, _dt.datetime]:
    fields = getattr(value, "_fields", None) or {}
    start, end = fields.get("start"), fields.get("end")
    if not isinstance(start, _dt.datetime) or not isinstance(end, _dt.datetime):
        raise ConditionError(f"{name} is not a time point")
    return start, end


def _duration(value: Any, name: str) -> ntime.Duration:
    from .timeslots import unit_duration

    fields = getattr(value, "_fields", None) or {}
    number, unit = fields.get("number"), fields.get("unit")
    if not isinstance(number, int) or not isinstance(unit, str):
        raise ConditionError(f"{name} is not an interval")
    return unit_duration(unit, number)


# -- models ------------------------------------------------------------------------

@dataclass(frozen=True)
class Occasion:
    start: _dt.datetime
    end: _dt.datetime
    late: bool = False
    habit: bool = False  # one of a habit's cells: in a unit, to a recipient
    unit: int = 0
    recipient: int = 0


@dataclass
class Model:
    now: _dt.datetime | None
    occasions: dict[str, tuple[Occasion, ...]]

    def describe(self) -> str:
        parts = []
        if self.now is not None:
            parts.append(f"now={_iso(self.now)}")
        for name, occ in self.occasions.items():
            shown = []
            for o in occ:
                t = _iso(o.start) if o.start == o.end else f"{_iso(o.start)}..{_iso(o.end)}"
                extra = (" late" if o.late else "") + (
                    f" unit{o.unit}→r{o.recipient}" if o.habit else "")
                shown.append(t + extra)
            parts.append(f"{name}: {'; '.join(shown) if shown else 'none'}")
        return ", ".join(parts)


def _iso(t: _dt.datetime) -> str:
    if t >= FAR:
        return "∞"
    return t.isoformat(timespec="seconds")


@dataclass
class Verdict:
    label: str
    # a model of the premises where the hypothesis holds / fails (None: there is none)
    holds: Model | None
    fails: Model | None

    def witness(self, against: str) -> Model | None:
        """A model that shows this label rather than ``against``: for a neutral verdict
        against an entailment, one where the hypothesis fails; otherwise one of the
        premises whose hypothesis is as this label says."""
        if self.label == "neutral":
            return self.fails if against == "entailment" else self.holds
        return self.holds if self.label == "entailment" else self.fails


class _Scope:
    """The time values of one problem, resolved once."""

    def __init__(self, sem: Semantics, env: Mapping[str, Any]):
        self.spans: dict[str, tuple[_dt.datetime, _dt.datetime]] = {}
        self.durations: dict[str, ntime.Duration] = {}
        for s in [*sem.premises, sem.hypothesis, *sem.background]:
            for atom in s.atoms:
                for arg, kind in zip(atom.args, atom.kinds):
                    if kind == "S" and arg not in self.spans:
                        if arg not in env:
                            raise ConditionError(f"no time value {arg!r}")
                        self.spans[arg] = _span(env[arg], arg)
                    elif kind == "D" and arg not in self.durations:
                        if arg not in env:
                            raise ConditionError(f"no time value {arg!r}")
                        self.durations[arg] = _duration(env[arg], arg)


def _sentences(sem: Semantics) -> list[Sentence]:
    return [*sem.background, *sem.premises, sem.hypothesis]


def _uses(sem: Semantics, names: set[str]) -> bool:
    return any(a.name in names for s in _sentences(sem) for a in s.atoms)


def _candidates(sem: Semantics, scope: _Scope) -> list[_dt.datetime]:
    """The instants a model may use: the critical points of this problem."""
    crit: set[_dt.datetime] = set()
    for start, end in scope.spans.values():
        crit.update((start, end))
    if _uses(sem, {"yesterday", "today"}):
        crit.update([ntime.add_duration(c, -DAY) for c in crit]
                    + [ntime.add_duration(c, DAY) for c in crit])
    base = set(crit) or {EPOCH}
    for d in scope.durations.values():
        for c in list(base):
            crit.add(ntime.add_duration(c, d))
            crit.add(ntime.add_duration(c, -d))
    crit |= base
    if not scope.spans:
        # no dates: enough distinct instants to order every event of the template
        crit.update(EPOCH + _dt.timedelta(hours=k) for k in range(len(sem.events) + 1))
    points = sorted(crit)
    # each critical point, and one instant inside each stretch between two of them (every
    # instant of a stretch compares alike with every critical point)
    out = set(points)
    for a, b in zip(points, points[1:]):
        out.add(a + (b - a) / 2)
    out.add(points[0] - _dt.timedelta(days=400))
    out.add(points[-1] + _dt.timedelta(days=400))
    return sorted(t.replace(microsecond=0) for t in out)


def _occasion_count(sem: Semantics, name: str) -> int:
    """How many occasions a 'many' event needs: one per sentence that mentions it."""
    return max(1, sum(1 for s in _sentences(sem) if name in s.events))


def _event_occasions(sem: Semantics, name: str, spec: EventSpec,
                     cands: Sequence[_dt.datetime], scope: _Scope) -> list:
    """The single occasions an event may have (a habit: its sets of occasions)."""
    late_flags = (False, True) if _uses(sem, {"late", "on_time"}) else (False,)
    if spec.kind == "habit":
        # two units, each with or without an occasion, to recipient 0 or 1
        cells = [Occasion(EPOCH, EPOCH, habit=True, unit=u, recipient=r)
                 for u in (0, 1) for r in (0, 1)]
        return [tuple(c for c, keep in zip(cells, mask) if keep)
                for mask in itertools.product((False, True), repeat=len(cells))]
    singles: list[Occasion] = []
    if spec.kind == "act":
        singles = [Occasion(t, t, late) for t in cands for late in late_flags]
    else:
        durations = list(scope.durations.values())
        for s in cands:
            ends = {t for t in cands if t > s}
            for d in durations:
                e = ntime.add_duration(s, d)
                ends.update((e, e - _dt.timedelta(seconds=1), e + _dt.timedelta(seconds=1)))
            if spec.kind == "state":
                ends.add(FAR)
            singles.extend(Occasion(s, e, late) for e in sorted(ends) if e > s
                           for late in late_flags)
    return singles


def _unary(sem: Semantics) -> dict[str, list[tuple[list[Atom], bool]]]:
    """event -> (its atoms in one sentence, whether that sentence is a premise that
    must hold of the event's occasion) for the existential sentences about it alone."""
    out: dict[str, list[tuple[list[Atom], bool]]] = {n: [] for n in sem.events}
    premises = {id(p) for p in [*sem.background, *sem.premises]}
    for s in _sentences(sem):
        if s.quantifier:
            continue
        for name in sem.events:
            if name not in s.events:
                continue
            # (a sentence that names the event only beside another keeps every occasion)
            own = [a for a in s.atoms if a.kinds and a.kinds[0] == "e" and a.args[0] == name
                   and all(k != "e" for k in a.kinds[1:])]
            out[name].append((own, id(s) in premises))
    return out


def _fits(atoms: Sequence[Atom], name: str, o: Occasion, now, scope: _Scope,
          sem: Semantics) -> bool:
    model = Model(now, {})
    return all(_holds(a, {name: o}, model, scope, sem) for a in atoms)


def models(sem: Semantics, scope: _Scope) -> Iterator[Model]:
    """The models worth trying: occasions that no sentence could use are left out (an
    occasion of a once-event must meet every premise about that event alone; one of a
    many-event, some sentence's atoms), so premises cut the space before it is built."""
    cands = _candidates(sem, scope)
    names = list(sem.events)
    unary = _unary(sem)
    singles = {n: _event_occasions(sem, n, sem.events[n], cands, scope) for n in names}
    uses_now = _uses(sem, _NOW_ATOMS)
    nows: list[_dt.datetime | None] = list(cands) if uses_now else [None]
    for now in nows:
        per_event = []
        for n in names:
            spec, options = sem.events[n], singles[n]
            if spec.kind == "habit":
                per_event.append([tuple(o) for o in options])
                continue
            if spec.once:
                needed = [a for atoms, premise in unary[n] if premise for a in atoms]
                kept = [o for o in options if _fits(needed, n, o, now, scope, sem)]
                per_event.append([(o,) for o in kept])
            else:
                useful = [atoms for atoms, _ in unary[n]]
                kept = [o for o in options
                        if not useful or any(_fits(atoms, n, o, now, scope, sem)
                                             for atoms in useful)]
                k = _occasion_count(sem, n)
                per_event.append(list(itertools.combinations_with_replacement(kept, k)))
        for combo in itertools.product(*per_event):
            yield Model(now, dict(zip(names, combo)))


def _day_of(t: _dt.datetime) -> _dt.datetime:
    return t.replace(hour=0, minute=0, second=0, microsecond=0)


def _holds(atom: Atom, occ: Mapping[str, Occasion], model: Model, scope: _Scope,
           sem: Semantics) -> bool:
    name, args = atom.name, atom.args
    if name == "today" or name == "now_in":
        s, e = scope.spans[args[0]]
        return model.now is not None and s <= model.now < e
    o = occ[args[0]]
    if name == "at":
        s, e = scope.spans[args[1]]
        return s <= o.start and (o.end < e if o.start == o.end else o.end <= e)
    if name == "starts_in":
        s, e = scope.spans[args[1]]
        return s <= o.start < e
    if name == "ends_by":
        return o.end <= scope.spans[args[1]][1]
    if name in ("within", "lasts", "lasts_at_least", "for"):
        target = ntime.add_duration(o.start, scope.durations[args[1]])
        if name == "within":
            return o.end <= target
        if name == "lasts":
            return o.end == target
        return o.end >= target
    if name == "before":
        return o.end < occ[args[1]].start if o.start == o.end else o.end <= occ[args[1]].start
    if name == "after":
        f = occ[args[1]]
        return o.start > f.end if f.start == f.end else o.start >= f.end
    if name == "occurs":
        return True
    if name == "part_of":
        f = occ[args[1]]
        return f.start <= o.start and o.end <= f.end
    if name == "yesterday":
        day = _day_of(model.now)
        return ntime.add_duration(day, -DAY) <= o.start and o.end < day
    if name == "past":
        return o.end < model.now if o.start == o.end else o.end <= model.now
    if name == "late":
        return o.late
    if name == "on_time":
        return not o.late
    if name == "since":
        s, e = scope.spans[args[1]]
        return s <= o.start < e and o.start <= model.now < o.end
    if name == "held_at":
        s, e = scope.spans[args[1]]
        return max(s, o.start) < min(e, o.end)
    if name == "holds_now":
        return o.start <= model.now < o.end
    if name == "held_before_now":
        return o.start < model.now
    raise ConditionError(f"atom {name} has no meaning here")  # a habit atom on an occasion


def _habit_holds(atom: Atom, occasions: Sequence[Occasion]) -> bool:
    if atom.name == "every_unit":
        return {o.unit for o in occasions} == {0, 1}
    if atom.name == "one_recipient":
        return any(all(any(o.unit == u and o.recipient == r for o in occasions) for u in (0, 1))
                   for r in (0, 1))
    return bool(occasions)  # occurs


def _true(sentence: Sentence, model: Model, scope: _Scope, sem: Semantics) -> bool:
    """Whether ``sentence`` holds in ``model``: some choice of occasions of its events
    makes every atom true ('every' / 'no': all / none of the bound event's occasions)."""
    habit_atoms = [a for a in sentence.atoms
                   if a.kinds[0] == "e" and sem.events[a.args[0]].kind == "habit"]
    if habit_atoms:
        ok = all(_habit_holds(a, model.occasions[a.args[0]]) for a in habit_atoms)
        return (not ok) if sentence.quantifier == "not" else ok
    names = sentence.events

    def some(bound_fixed: Mapping[str, Occasion]) -> bool:
        free = [n for n in names if n not in bound_fixed]
        for combo in itertools.product(*(model.occasions[n] for n in free)):
            occ = dict(bound_fixed)
            occ.update(zip(free, combo))
            if all(_holds(a, occ, model, scope, sem) for a in sentence.atoms):
                return True
        return False

    if sentence.quantifier == "every":
        return all(some({sentence.bound: o}) for o in model.occasions[sentence.bound])
    if sentence.quantifier == "no":
        return not any(some({sentence.bound: o}) for o in model.occasions[sentence.bound])
    if sentence.quantifier == "not":
        return not some({})
    return some({})


def resolve(sem: Semantics, env: Mapping[str, Any]) -> Semantics:
    """``sem`` with each slot-chosen atom (s_<slot>) replaced by the atom its text means."""
    if not sem.means:
        return sem
    chosen = {}
    for slot, table in sem.means.items():
        if slot not in env:
            raise ConditionError(f"no value for {slot!r}")
        text = str(env[slot])
        if text not in table:
            raise ConditionError(f"{slot}: {text!r} has no meaning in the semantics block")
        chosen["s_" + slot] = table[text]

    def fix(s: Sentence) -> Sentence:
        return Sentence(tuple(Atom(chosen.get(a.name, a.name), a.args, a.kinds) for a in s.atoms),
                        s.quantifier, s.bound, s.source)

    return Semantics(sem.events, [fix(p) for p in sem.premises], fix(sem.hypothesis),
                     [fix(b) for b in sem.background], sem.where)


def check(sem: Semantics, env: Mapping[str, Any]) -> Verdict:
    """Decide the label of one problem by enumerating its models."""
    sem = resolve(sem, env)
    scope = _Scope(sem, env)
    holds = fails = None
    any_premise_model = False
    for model in models(sem, scope):
        if not all(_true(s, model, scope, sem) for s in [*sem.background, *sem.premises]):
            continue
        any_premise_model = True
        if _true(sem.hypothesis, model, scope, sem):
            holds = holds or model
        else:
            fails = fails or model
        if holds is not None and fails is not None:
            return Verdict("neutral", holds, fails)
    if not any_premise_model:
        raise ConditionError("the premises have no model: they contradict each other")
    return Verdict("entailment" if fails is None else "contradiction", holds, fails)

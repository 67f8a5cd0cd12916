"""The language-neutral generation engine.

Data flow: templates + lexicons -> variants (kept by their checks) -> cells (a variant
with its selected hypotheses, or one cell per wanted label when labels come from
conditions) -> a unit plan for ``n`` problems -> for each unit its own RNG -> fill
slots under constraints -> render -> decide labels -> keep if it is the wanted label,
passes the pair checks and is not a duplicate.

Units are planned round-robin over cells (unit 0 of every cell, then unit 1, ...), so
the first k problems are the same for any ``n`` and label/variant quotas are balanced.
"""

from __future__ import annotations

import gc
import hashlib
import math
from contextlib import contextmanager
from bisect import bisect_right
from collections import Counter
from fractions import Fraction
from dataclasses import dataclass
from itertools import combinations, product
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from .errors import (
    CapacityError, ConditionError, TemplateError,
    UnsatisfiableLabelError, UsageError,
)
from .lexicon import LexiconSet
from .plans import (CellQuota, label_schedule, quota_schedule, split_fixed_counts,
                    template_schedule, template_weights)
from .rng import StablePermutation, StableRng, pair_fingerprint, stable_int
from .slots import BUILTIN_KINDS, SlotContext, SlotValue
from .templates import Hypothesis, Template, TemplateSet, resolve_refs
from .timeslots import default_time_text, forget_drawn_values

ENUMERATE_LIMIT = 200_000   # largest group of dependent slots listed for the permutation walk
RANDOM_ATTEMPTS = 1_000     # tries per unit when a variant must be sampled at random
DISTINCT_TRIES = 64         # redraws of one slot to satisfy `distinct`
MAX_DISTINCT_EDGES = 12     # beyond this, capacity is reported as unknown
LABEL_MISS_BUDGET = 200_000  # fillings walked without the wanted label before giving up
TIME_DRAWS = 64             # time-expression draws per content filling before moving on
TIME_PASSES = 4             # passes over the content fillings of a template with a time block
TIME_MISS_BUDGET = 5_000    # content fillings (x TIME_DRAWS draws) without the wanted label

SideFilter = Callable[[SlotValue], bool]


@contextmanager
def young_collections_rarer(threshold: int = 50_000):
    """Run the cyclic garbage collector's youngest generation every ``threshold``
    allocations instead of every 700 while generating. Generation allocates many small
    objects that live briefly and form no cycles; at the default threshold the collector
    took about half of WOGLI's generation time (42 -> 23 us per pair, measured). The old
    thresholds come back afterwards."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], threshold), *old[1:])
    # What exists now (templates, lexicons, options, walkers: Jamp's are about half a
    # million containers) lives through the run: the collector leaves it alone until the
    # run ends, instead of walking it at every full collection (0.4 s each for Jamp).
    frozen = gc.get_freeze_count() == 0
    if frozen:
        gc.freeze()
    try:
        yield
    finally:
        if frozen:
            gc.unfreeze()
        gc.set_threshold(*old)


def _freeze(value: Any) -> Any:
    if isinstance(value, Mapping):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


class Variant:
    """One (template, variant) combination: its axes, its slot options, its capacity."""

    def __init__(self, template: Template, name: str, axes: Mapping[str, str],
                 lexicons: LexiconSet, side: str = "", side_filter: SideFilter | None = None,
                 shared: dict[tuple, list[SlotValue]] | None = None):
        self.template = template
        self.name = name
        self.axes = dict(axes)
        self.lexicons = lexicons
        self.side = side
        self.side_filter = side_filter
        self._cache: dict[tuple, list[SlotValue]] = {}
        # options by (slot, kind, resolved spec), shared by the variants of an engine: the
        # same spec gives the same values, so every variant and template writing them
        # shares their remembered forms and encoded provenance
        self._shared = shared if shared is not None else {}
        self._static: dict[str, list[SlotValue]] = {}  # options of slots that depend on no slot
        # id(options list) -> (the list, its groups): options lists are cached above, so
        # random sampling groups each one once, not at every draw
        self._grouped: dict[int, tuple[list[SlotValue], list[list[SlotValue]] | None]] = {}
        self._kinds: dict[str, Any] = {}
        self._capacity: int | None | bool = False  # False = not computed yet
        self._walker: FillingWalker | None | bool = False  # False = not built yet
        # how this variant's deal of its evenly walked slot is turned (Engine.spread): how
        # far round the groups in 1/2**32, how many places round each group's members, and
        # that it is the j-th of J variants sharing the deal
        self.spread: tuple[int, int, int, int] = (0, 0, 0, 1)
        # (slot, parts of its deal) when Engine.spread dealt this variant's pool once for all
        # the variants sharing it (_deal_groups ranks every option: a pool of 5,000 clauses
        # is shared by 24 templates)
        self.dealt: tuple[str, list[list[SlotValue]]] | None = None
        slots = template.slots
        self.order = list(slots)
        self.dependent = {s for s, spec in slots.items() if spec.slot_refs}
        self.distinct_peers: dict[str, set[str]] = {s: set() for s in slots}
        for group in template.distinct:
            for a, b in combinations(group, 2):
                self.distinct_peers[a].add(b)
                self.distinct_peers[b].add(a)

    @property
    def where(self) -> str:
        return f"{self.template.where}" + (f" [{self.name}]" if self.name else "")

    # -- options ------------------------------------------------------------------
    def _kind(self, kind: str):
        obj = self._kinds.get(kind)
        if obj is None:
            if kind in BUILTIN_KINDS:
                obj = BUILTIN_KINDS[kind]()
            else:
                obj = self.template.language.slot_kinds[kind.partition(".")[2]]()
            self._kinds[kind] = obj
        return obj

    def options(self, slot: str, chosen: Mapping[str, SlotValue] | None = None) -> list[SlotValue]:
        if slot not in self.dependent:
            static = self._static.get(slot)
            if static is None:
                static = self._static[slot] = self._resolve_options(slot, None)
            return static
        return self._resolve_options(slot, chosen)

    def _resolve_options(self, slot: str, chosen: Mapping[str, SlotValue] | None) -> list[SlotValue]:
        spec_obj = self.template.slots[slot]
        spec = resolve_refs(spec_obj.spec, self.axes, chosen)
        key = (slot, _freeze(spec))
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        shared_key = (slot, spec_obj.kind, key[1])
        opts = self._shared.get(shared_key)
        if opts is None:
            ctx = SlotContext(self.lexicons, slot, f"{self.template.where}: slots.{slot}")
            params = {k: v for k, v in spec.items() if k != "type"}
            opts = self._shared[shared_key] = self._kind(spec_obj.kind).options(params, ctx)
        if self.side_filter is not None:
            opts = [o for o in opts if self.side_filter(o)]
        self._cache[key] = opts
        return opts

    def independent_options(self) -> dict[str, list[SlotValue]]:
        return {s: self.options(s) for s in self.order if s not in self.dependent}

    # -- sampling -----------------------------------------------------------------
    def sample(self, rng: StableRng) -> dict[str, SlotValue] | None:
        chosen: dict[str, SlotValue] = {}
        for slot in self.order:
            opts = self.options(slot, chosen)
            if not opts:
                return None
            cached = self._grouped.get(id(opts))
            if cached is None:
                cached = self._grouped[id(opts)] = (opts, _groups(opts))
            groups = cached[1]
            peers = [chosen[p]._identity for p in self.distinct_peers[slot] if p in chosen]
            for _ in range(DISTINCT_TRIES):
                if groups is not None:  # a group first (evenly), then one of its options
                    members = groups[rng.randbelow(len(groups))]
                    value = members[rng.randbelow(len(members))]
                else:
                    value = opts[rng.randbelow(len(opts))]
                if value._identity not in peers:
                    break
            else:
                return None
            chosen[slot] = value
        return chosen

    def enumerate(self) -> Iterator[dict[str, SlotValue]]:
        """Every filling, in a fixed order (declaration order of slots and options)."""
        return _walk_group(self, self.order)

    # -- walking a keyed permutation of all fillings ----------------------------------
    def _dependency_groups(self) -> list[list[str]]:
        """Slots linked by ``$slot.field`` references, in declaration order."""
        parent = {s: s for s in self.order}

        def find(x):
            while parent[x] != x:
                x = parent[x]
            return x

        for s, spec in self.template.slots.items():
            for ref, _ in spec.slot_refs:
                parent[find(s)] = find(ref)
        groups: dict[str, list[str]] = {}
        for s in self.order:
            groups.setdefault(find(s), []).append(s)
        return list(groups.values())

    def walker(self, seed: Any) -> "FillingWalker | None":
        """A walker over every filling in a seed-dependent order, or None when a group of
        dependent slots is too large to list (then items are sampled at random)."""
        if self._walker is False:
            self._walker = FillingWalker.build(self, seed)
        return self._walker  # type: ignore[return-value]

    # -- capacity -----------------------------------------------------------------
    def capacity(self) -> int | None:
        """Number of distinct fillings (exact), or None if it cannot be computed cheaply."""
        if self._capacity is False:
            self._capacity = self._compute_capacity()
        return self._capacity  # type: ignore[return-value]

    def _compute_capacity(self) -> int | None:
        slots = self.template.slots
        # Connected groups of slots (by dependencies and distinctness); groups multiply.
        parent = {s: s for s in slots}

        def find(s):
            while parent[s] != s:
                parent[s] = parent[parent[s]]
                s = parent[s]
            return s

        def union(a, b):
            parent[find(a)] = find(b)

        for s, spec in slots.items():
            for ref, _ in spec.slot_refs:
                union(s, ref)
        for s, peers in self.distinct_peers.items():
            for p in peers:
                union(s, p)
        groups: dict[str, list[str]] = {}
        for s in self.order:
            groups.setdefault(find(s), []).append(s)
        total = 1
        for members in groups.values():
            count = self._group_capacity(members)
            if count is None:
                return None
            total *= count
        return total

    def _group_capacity(self, members: list[str]) -> int | None:
        has_deps = any(m in self.dependent for m in members)
        if not has_deps:
            opts = {m: self.options(m) for m in members}
            edges = [(a, b) for a, b in combinations(members, 2) if b in self.distinct_peers[a]]
            if len(edges) > MAX_DISTINCT_EDGES:  # inclusion-exclusion is 2**edges terms
                return None
            return _count_with_distinct(opts, edges)
        # With dependencies: count by walking the group's slots (small groups only).
        budget = [2_000_000]

        def walk(i: int, chosen: dict[str, SlotValue]) -> int:
            if i == len(members):
                return 1
            slot = members[i]
            opts = self.options(slot, chosen) if slot in self.dependent else self.options(slot)
            peers = {chosen[p]._identity for p in self.distinct_peers[slot] if p in chosen}
            later_needs = any(slot == ref for m in members[i + 1:]
                              for ref, _ in self.template.slots[m].slot_refs)
            if not later_needs and i == len(members) - 1:
                return sum(1 for v in opts if v._identity not in peers)
            n = 0
            for value in opts:
                budget[0] -= 1
                if budget[0] < 0:
                    raise _TooBig
                if value._identity in peers:
                    continue
                chosen[slot] = value
                n += walk(i + 1, chosen)
                del chosen[slot]
            return n

        try:
            return walk(0, {})
        except _TooBig:
            return None


class _TooBig(Exception):
    pass


MAX_N = 100_000_000


def _check_n(n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
        raise UsageError(f"must be a positive integer (got {n})", "--n")
    if n > MAX_N:
        raise UsageError(f"at most {MAX_N:,} problems per run (got {n:,})", "--n")


class FillingWalker:
    """Every filling of a variant as a point of a mixed-radix index space, visited in the
    order of a keyed permutation. Groups of dependent slots are listed as tuples; the
    ``distinct`` constraints between groups are checked when an index is decoded.

    When one slot's options are grouped (a verb's argument tuples, see SlotValue), that
    slot is walked evenly instead (:class:`_EvenDeal`): a verb comes isqrt(m) times a
    round whatever its number m of options (clauses), its options in turn, and the other
    slots follow a keyed permutation of the rest, shifted by the option's rank and its use.
    The J variants with the same options (Variant.spread) share one deal and the j-th
    walks every J-th place of it from the j-th (:func:`_strided`), so that together they
    bring a verb's clauses back only when the verb has used them all. This is still a
    bijection on the whole index space."""

    def __init__(self, variant: Variant, groups: list[tuple[list[str], list[tuple]]],
                 permutation: StablePermutation, even: int | None = None,
                 deal: "_EvenDeal | None" = None):
        self.variant = variant
        self.groups = groups
        self.permutation = permutation
        self.size = deal.size if deal is not None else permutation.size
        self.even = even  # index of the group walked evenly (its options dealt, `deal`)
        self.deal = deal
        self.checks = [(a, b) for a in variant.order for b in variant.distinct_peers[a]
                       if variant.order.index(a) < variant.order.index(b)]
        # the decoding in slot places (variant.order): groups other than the evenly walked
        # one, last first, each with its members' places, rows and row count
        self._order = list(variant.order)
        place = {s: i for i, s in enumerate(self._order)}
        self._width = len(self._order)
        self._decode = [([place[m] for m in members], rows, len(rows))
                        for g, (members, rows) in reversed(list(enumerate(groups)))
                        if g != even]
        self._even_place = place[groups[even][0][0]] if even is not None else None
        self._checks = [(place[a], place[b]) for a, b in self.checks]

    @classmethod
    def build(cls, variant: Variant, seed: Any) -> "FillingWalker | None":
        groups = []
        size = 1
        even = None
        for members in variant._dependency_groups():
            if len(members) == 1:
                options = variant.options(members[0])
                if even is None and _is_grouped(options):
                    even = len(groups)
                rows = _single_rows(options)
            else:
                rows = []
                for filling in _walk_group(variant, members):
                    rows.append(tuple(filling[m] for m in members))
                    if len(rows) > ENUMERATE_LIMIT:
                        return None
            groups.append((members, rows))
            size *= len(rows)
        if size == 0:
            return None
        rest = size // len(groups[even][1]) if even is not None else size
        deal = None
        if even is not None:
            (slot,), rows = groups[even]
            if variant.dealt is not None and variant.dealt[0] == slot:
                dealt = variant.dealt[1]
            else:
                dealt = _deal_groups([r[0] for r in rows], seed, variant.side, variant.spread)
            deal = _EvenDeal(dealt, rest, variant.spread[2], variant.spread[3])
        return cls(variant, groups, StablePermutation(rest, seed, variant.side,
                                                      variant.template.id, variant.name),
                   even, deal)

    def filling(self, position: int) -> dict[str, SlotValue] | None:
        """The filling at this position of the walk, or None if it breaks ``distinct``."""
        values: list[Any] = [None] * self._width
        if self.deal is None:
            index = self.permutation[position]
        else:
            option, rank, use = self.deal.at(position)
            values[self._even_place] = option
            index = self.permutation[(use + rank) % self.permutation.size]
        for places, rows, count in self._decode:  # mixed radix, last group fastest
            index, i = divmod(index, count)
            row = rows[i]
            if len(places) == 1:
                values[places[0]] = row[0]
            else:
                for place, value in zip(places, row):
                    values[place] = value
        for a, b in self._checks:
            if values[a]._identity == values[b]._identity:
                return None
        return dict(zip(self._order, values))


# Memos of pure functions of their (identical) arguments, kept at module level because
# the walkers and deals that use them are built far from the engine: rows and deal
# layouts by options list, deal ranks by key, drawn time values by what they are
# (timeslots). They hold options lists, so a new engine empties them: a long-lived
# process keeps at most the latest run's.
_DEAL_LAYOUTS: dict[tuple[int, int], tuple] = {}


def _forget_earlier_runs() -> None:
    _DEAL_LAYOUTS.clear()
    _ROWS.clear()
    _RANKS.clear()
    forget_drawn_values()


def _deal_layout(lengths: list[int], rest: int) -> tuple[list[int], list[tuple], int]:
    """(offsets, segments, size) of :class:`_EvenDeal`: the rank of each group's first
    member; (place, first round, active groups) from each round on which a group has
    run out; the number of places."""
    offsets = []
    total = 0
    for n in lengths:
        offsets.append(total)
        total += n
    segments: list[tuple[int, int, tuple[int, ...]]] = []
    place = first_round = 0
    for end in sorted({n * rest for n in lengths}):
        active = tuple([i for i, n in enumerate(lengths) if n * rest > first_round])
        segments.append((place, first_round, active))
        place += (end - first_round) * len(active)
        first_round = end
    return offsets, segments, place


class _EvenDeal:
    """The options of an evenly walked slot as an endless deal in rounds, over parts
    (:func:`_deal_groups`). Round r takes, from every part not yet used up, its member
    r mod m (m: the part's size), so each part comes once a round and its members in turn;
    the k-th use of a member is paired (by FillingWalker) with the k-th filling of the
    other slots, so a part takes part in rounds r < m * rest and the deal has R * rest
    places, one per filling. The j-th of J variants sharing the deal takes its places in
    the order of :func:`_strided`."""

    def __init__(self, groups: list[list[SlotValue]], rest: int, j: int = 0, count: int = 1):
        self.groups = groups
        # the variants of a pool share its deal: its layout is worked out once per rest
        hit = _DEAL_LAYOUTS.get((id(groups), rest))
        if hit is None or hit[0] is not groups:
            hit = (groups, *_deal_layout([len(g) for g in groups], rest))
            _DEAL_LAYOUTS[(id(groups), rest)] = hit
        self.offsets, self.segments, self.size = hit[1], hit[2], hit[3]
        self.starts = [seg[0] for seg in self.segments]
        self.j, self.count = j, count

    def at(self, position: int) -> tuple[SlotValue, int, int]:
        """The option at this position of the variant's walk, its rank and its use."""
        place = _strided(self.size, self.j, self.count, position)
        seg = bisect_right(self.starts, place) - 1
        first, first_round, active = self.segments[seg]
        rnd, i = divmod(place - first, len(active))
        # turned by a pseudo-random amount each round: when a round's parts are a multiple
        # of J (the variants sharing the deal), the j-th variant would otherwise get the
        # same parts every round, and a verb would always go with one template's label
        # (8 parts, templates 17 and 63: 駆けつける 24 of 25 entailment in gen jamp)
        i = (i + _block_turn(len(active), first_round + rnd)) % len(active)
        g = active[i]
        use, member = divmod(first_round + rnd, len(self.groups[g]))
        return self.groups[g][member], self.offsets[g] + member, use


_ROWS: dict[int, tuple[Sequence[SlotValue], list[tuple[SlotValue]]]] = {}


def _single_rows(options: Sequence[SlotValue]) -> list[tuple[SlotValue]]:
    """A one-slot group's rows, [(option,), ...]: variants that share an options list
    (Jamp's templates share their predicate slot's) share its rows."""
    hit = _ROWS.get(id(options))
    if hit is not None and hit[0] is options:
        return hit[1]
    rows = [(o,) for o in options]
    _ROWS[id(options)] = (options, rows)
    return rows


def _is_grouped(options: Sequence[SlotValue]) -> bool:
    """Whether the options are grouped (:func:`_groups` is not None), without grouping."""
    return bool(options) and options[0]._group is not None


def _groups(options: Sequence[SlotValue]) -> list[list[SlotValue]] | None:
    """The options by group, in order of first appearance; None when they are not grouped."""
    if not options or options[0]._group is None:
        return None
    by_group: dict[str, list[SlotValue]] = {}
    for o in options:
        by_group.setdefault(o._group if o._group is not None else o._key, []).append(o)
    return list(by_group.values())


# (seed, side) -> option key -> its rank in a deal (a pure function of the three)
_RANKS: dict[tuple[str, str], dict[str, tuple[int, str]]] = {}


def _deal_groups(options: Sequence[SlotValue], seed: Any, side: str,
                 spread: tuple[int, int, int, int] = (0, 0, 0, 1)) -> list[list[SlotValue]]:
    """The options as the parts :class:`_EvenDeal` deals once a round: groups in a seeded
    order, members in a seeded order within their group, a large group split in parts.
    The order depends on the options' keys only, not on the template, and ``spread``
    (Variant.spread) turns it: the groups start a fraction ``phase / 2**32`` of the way
    round and each group's members ``shift`` places on."""
    memo = _RANKS.setdefault((str(seed), side), {})

    def rank(key: str) -> tuple[int, str]:
        # pools share most options (27 Jamp predicate specs): each key ranked once
        r = memo.get(key)
        if r is None:
            r = memo[key] = (StableRng(seed, side, "rounds", key).randbelow(1 << 62), key)
        return r

    groups = [sorted(g, key=lambda o: rank(o._key))
              for g in _groups(options) or [[o] for o in options]]
    groups.sort(key=lambda g: rank(g[0]._group if g[0]._group is not None else g[0]._key))
    phase, shift = spread[0], spread[1]
    start = len(groups) * phase >> 32
    groups = groups[start:] + groups[:start]
    groups = [g[shift % len(g):] + g[:shift % len(g)] for g in groups]
    # A group of m members comes min(3, isqrt(m)) times a round: as that many parts, each
    # dealt every so-many-th member, placed evenly round the circle from the group's
    # place. A verb with many clauses is drawn more often than one with a single clause,
    # but far less than in proportion (m = 1, 4, 9 or more: once, twice, three times a
    # round), so neither the verbs nor the clauses of a set concentrate (default gen jamp:
    # top verb 1.4 %, top clause 0.3 %; parts in proportion to m gave a top verb of 2.6 %,
    # one part per verb a top clause of 0.65 %).
    count = len(groups)
    parts = []
    for place, g in enumerate(groups):
        n = max(1, min(3, math.isqrt(len(g))))
        for k in range(n):
            turn = Fraction((place * n + k * count) % (count * n), count * n)
            parts.append((turn, place, k, g[k::n]))
    parts.sort(key=lambda part: part[:3])
    return [part[3] for part in parts]


_MASK64 = (1 << 64) - 1


def _block_turn(turns: int, block: int) -> int:
    """A pseudo-random turn for a block of a variant's walk (splitmix64 of the two): the
    cells of the variant take the block's positions in that rotation."""
    z = (turns + (block + 1) * 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def _strided(m: int, shift: int, stride: int, position: int) -> int:
    """Place ``position`` of a permutation of range(m): shift, shift + stride,
    shift + 2 * stride, ... (mod m), then, where stride and m share a factor g, the same
    from shift + 1, ..., shift + g - 1. With shifts j = 0..J-1 and stride J, the first
    m // J places of the J permutations are disjoint, and together their first p places
    are 0 .. p * J - 1."""
    per_coset = m // math.gcd(m, stride)
    coset, step = divmod(position, per_coset)
    return (shift + coset + step * stride) % m


def _walk_group(variant: Variant, members: list[str]) -> Iterator[dict[str, SlotValue]]:
    def walk(i: int, chosen: dict[str, SlotValue]):
        if i == len(members):
            yield dict(chosen)
            return
        slot = members[i]
        opts = variant.options(slot, chosen)
        peers = {chosen[p]._identity for p in variant.distinct_peers[slot] if p in chosen}
        for value in opts:
            if value._identity in peers:
                continue
            chosen[slot] = value
            yield from walk(i + 1, chosen)
        chosen.pop(slot, None)

    yield from walk(0, {})


def _count_with_distinct(opts: Mapping[str, list[SlotValue]], edges: list[tuple[str, str]]) -> int:
    """Exact count of tuples where slots joined by an edge have different identities
    (inclusion-exclusion over subsets of edges)."""
    members = list(opts)
    counts = {m: Counter(v._identity for v in opts[m]) for m in members}
    total = 0
    for r in range(len(edges) + 1):
        for subset in combinations(edges, r):
            parent = {m: m for m in members}

            def find(x):
                while parent[x] != x:
                    x = parent[x]
                return x

            for a, b in subset:
                parent[find(a)] = find(b)
            comps: dict[str, list[str]] = {}
            for m in members:
                comps.setdefault(find(m), []).append(m)
            term = 1
            for comp in comps.values():
                if len(comp) == 1:
                    term *= len(opts[comp[0]])
                else:
                    keys = set.intersection(*(set(counts[m]) for m in comp))
                    s = 0
                    for k in keys:
                        p = 1
                        for m in comp:
                            p *= counts[m][k]
                        s += p
                    term *= s
            total += (-1) ** r * term
    return total


# -- items -----------------------------------------------------------------------

@dataclass(slots=True)
class Item:
    """One (premise, hypothesis, label) with everything records and splits need."""

    template: Template
    variant: Variant
    hypothesis: Hypothesis
    premise: str
    text: str
    label: str
    filling: dict[str, SlotValue]
    spans: dict[str, list[list[int]]]
    explain: str | None
    fields: dict[str, Any]
    unit: tuple  # (side, cell index, unit index): items of one unit share it
    time: tuple = (None, None)  # (format code, span) of the time block's draw

    @property
    def filling_key(self) -> tuple:
        return tuple((s, v._key) for s, v in self.filling.items())

    @property
    def content_key(self) -> tuple:
        """The filling without its time expressions (what a sentence shares across the
        problems built from it)."""
        time_names = set(self.template.time.names) if self.template.time else set()
        return tuple((s, v._key) for s, v in self.filling.items() if s not in time_names)

    @property
    def surface_pattern(self) -> str:
        """The variant as the text shows it: each axis value, or the surface pattern of the
        slot drawn for it when that differs (a pronoun subject stands for several noun-phrase
        types, so p_subject's sing_masc_v_X and pnoun_v_X share "pronoun_er_sg")."""
        spec = self.template.variants
        if spec is None:
            return self.template.id
        parts = []
        for axis, value in self.variant.axes.items():
            shown = value
            for slot, slot_spec in self.template.slots.items():
                if axis in slot_spec.axis_refs and slot in self.filling:
                    shown = self.filling[slot]._pattern or value
                    break
            parts.append(shown)
        return "/".join(parts)

    @property
    def lemmas(self) -> set[str]:
        out: set[str] = set()
        for v in self.filling.values():
            out.update(v._lemmas)
        return out


@dataclass
class Cell:
    variant: Variant
    hypotheses: list[Hypothesis]
    target: str | None  # wanted label for conditional cells; None = emit all hypotheses
    # the K cells of one variant walk its fillings interleaved (each block of K positions
    # gives each cell one), so that the labels of a template do not repeat each other's
    # fillings; which one is turned per block (turns: a seed, _block_turn), since the deal
    # is periodic: with cell k at k, k+K, ..., a verb's clauses could all land on one label
    # (default gen jamp --n 1000 --seed 3: all 12 作成する problems contradiction)
    phase: int = 0
    stride: int = 1
    turns: int = 0
    # how the plan shares out units (nligen.plans): a cell's weight within its label
    # (--balance label), or its own number of units (--match); None: round robin
    weight: Fraction | None = None
    quota: int | None = None
    template_turns: bool = False  # --balance template: the templates take turns
    # a matched cell's time expressions: only this format and span (None: none)
    time_formats: Sequence[str | None] | None = None
    time_spans: Sequence[str | None] | None = None
    cell_name: str = ""  # how a --match file names the cell (for messages)

    def __post_init__(self) -> None:
        # the labels of a cell whose every hypothesis has a fixed label (None: conditions)
        self.fixed_labels = ([h.rule.fixed for h in self.hypotheses]
                             if all(h.rule.fixed is not None for h in self.hypotheses)
                             else None)

    @property
    def pairs_per_unit(self) -> int:
        return len(self.hypotheses) if self.target is None else 1

    @property
    def labels(self) -> list[str]:
        if self.target is not None:
            return [self.target]
        return [h.rule.fixed for h in self.hypotheses]  # type: ignore[misc]


@dataclass
class Selection:
    """Which templates, variants and hypothesis sets take part in a run."""

    sets: Sequence[str] | None = None
    variants: Sequence[str] | None = None
    templates: Sequence[str] | None = None
    variant_option: str = "--variant"  # how the CLI calls the variant filter (WOGLI: --pattern)
    time_formats: Sequence[str] | None = None  # formats a time block may draw (None: all)
    time_spans: Sequence[str] | None = None    # spans a time block may draw (None: all)
    # "cell": every (template, label) cell alike; "label": labels alike; "template":
    # templates alike
    balance: str = "cell"
    quotas: Sequence[CellQuota] | None = None  # a matched set's cells (then no other plan)


class Engine:
    def __init__(self, template_set: TemplateSet, lexicons: LexiconSet, seed: int = 0,
                 selection: Selection | None = None,
                 filling_filter: Callable[[Template, Mapping[str, SlotValue]], bool] | None = None):
        self.template_set = template_set
        # Which content fillings this engine may use (a split keeps train and test apart).
        self.filling_filter = filling_filter
        self.record_defaults = dict(template_set.family.get("record_defaults") or {})
        self.lexicons = lexicons
        self.seed = seed
        self.selection = selection or Selection()
        self._analysers: dict[str, Callable[[str], list[str]]] = {}
        self._options: dict[tuple, list[SlotValue]] = {}  # shared by the variants (Variant)
        self._proofs: dict[tuple, tuple[bool, Variant]] = {}  # same_lemmas, by cell
        self._prepared: dict[tuple, tuple] = {}  # (side, side filter) -> its cells (prepare)
        self._part_lemmas: dict[tuple, list[str]] = {}  # (text, first, last) -> lemmas
        self._slot_proofs: dict[tuple, tuple] = {}  # see _slot_lemmas_agree
        _forget_earlier_runs()
        self.templates = self._select_templates()
        self.variants = self._build_variants()

    # -- selection ----------------------------------------------------------------
    def _select_templates(self) -> list[Template]:
        sel = self.selection
        templates = self.template_set.templates
        if sel.time_formats is not None or sel.time_spans is not None:
            templates = [t for t in templates if t.time is None or (
                t.time.problem_formats(sel.time_formats) and t.time.problem_spans(sel.time_spans))]
        if sel.templates:
            known = {t.id for t in templates}
            for tid in sel.templates:
                if tid not in known:
                    raise UsageError(f"unknown template {tid!r} (known: {', '.join(sorted(known))})",
                                     "--template")
            templates = [t for t in templates if t.id in set(sel.templates)]
        if sel.sets:
            known_sets = self.template_set.sets
            for s in sel.sets:
                if s not in known_sets:
                    raise UsageError(f"unknown set {s!r} (known: {', '.join(known_sets)})", "--set")
            templates = [t for t in templates if any(h.set in sel.sets for h in t.hypotheses)]
        if not templates:
            raise UsageError("no template matches the selection")
        return templates

    def selected_hypotheses(self, template: Template) -> list[Hypothesis]:
        sets = self.selection.sets
        if not sets:
            return list(template.hypotheses)
        return [h for h in template.hypotheses if h.set in sets]

    def _build_variants(self) -> list[Variant]:
        out = []
        for t in self.templates:
            for name, axes in t.variant_names():
                v = Variant(t, name, axes, self.lexicons, shared=self._options)
                if t.variants is not None and not self._keep(v):
                    continue
                out.append(v)
        kept = {v.template.id for v in out}
        for t in self.templates:
            if t.id not in kept:
                raise TemplateError("no variant passes the keep checks", f"{t.where}: variants")
        wanted = self.selection.variants
        if wanted:
            known = [v.name for v in out]
            option = self.selection.variant_option
            for w in wanted:
                if w not in known:
                    noun = "pattern" if option == "--pattern" else "variant"
                    raise UsageError(
                        f"unknown {noun} {w!r} (known: {', '.join(dict.fromkeys(known)) or 'none'})",
                        option,
                    )
            out = [v for v in out if v.name in set(wanted)]
        return out

    def _keep(self, variant: Variant) -> bool:
        spec = variant.template.variants
        if spec.only is not None and variant.name not in spec.only:
            return False
        if not spec.keep:
            return True
        opts = variant.independent_options()
        for check_name, args in spec.keep:
            check = variant.template.language.variant_checks[check_name]
            resolved = resolve_refs(args, variant.axes)
            if not check(opts, resolved):
                return False
        return True

    # -- cells and plans --------------------------------------------------------------
    def cells(self, variants: Sequence[Variant] | None = None) -> list[Cell]:
        variants = variants if variants is not None else self.variants
        if self.selection.quotas is not None:
            out = self._quota_cells(variants)
        else:
            out = []
            for v in variants:
                hyps = self.selected_hypotheses(v.template)
                if not hyps:
                    continue
                if all(h.rule.fixed is not None for h in hyps):
                    out.append(Cell(v, hyps, None))
                else:
                    for h in hyps:
                        for label in h.rule.labels:
                            if v.template.draws_label(label):
                                out.append(Cell(v, [h], label))
        if not out:
            raise UsageError("the selection has no hypotheses to generate")
        if self.selection.balance == "label" and self.selection.quotas is None:
            self._weigh_by_label(out)
        elif self.selection.balance == "template" and self.selection.quotas is None:
            for cell in out:
                cell.template_turns = True
        siblings: dict[int, list[Cell]] = {}
        for cell in out:
            siblings.setdefault(id(cell.variant), []).append(cell)
        for group in siblings.values():
            turns = stable_int(self.seed, "cell turns", group[0].variant.template.id,
                               group[0].variant.name)
            for k, cell in enumerate(group):
                cell.phase, cell.stride, cell.turns = k, len(group), turns
        return out

    @staticmethod
    def _weigh_by_label(cells: list[Cell]) -> None:
        """--balance label: each cell's weight within its label, its template's weight
        (nligen.plans.template_weights). Cells whose unit gives several problems (fixed
        hypotheses, as WOGLI's) fit only when every cell gives the same labels equally
        often: then the round robin over cells balances the labels already."""
        if any(cell.pairs_per_unit > 1 for cell in cells):
            label_sets = {tuple(sorted(Counter(cell.labels).items())) for cell in cells}
            counts = {k for labels in label_sets for _, k in labels}
            if len(label_sets) == 1 and len(counts) == 1:
                return
            raise UsageError("--balance label needs templates that give one problem per "
                             "filling, or premises that each give every label equally "
                             f"often ({cells[0].variant.where} gives "
                             f"{', '.join(cells[0].labels)})", "--balance")
        by_variant: dict[int, list[str]] = {}
        for cell in cells:
            by_variant.setdefault(id(cell.variant), []).append(cell.labels[0])
        keys = list(by_variant)
        weights = dict(zip(keys, template_weights([by_variant[k] for k in keys])))
        for cell in cells:
            cell.weight = weights[id(cell.variant)]

    def _quota_cells(self, variants: Sequence[Variant]) -> list[Cell]:
        """The cells of a matched set (Selection.quotas), each with its number of units;
        every cell the templates cannot give is named, with why, in one error."""
        by_name = {(v.template.id, v.name): v for v in variants}
        problems: list[str] = []
        out: list[Cell] = []
        grouped: dict[tuple, list[CellQuota]] = {}
        for q in self.selection.quotas or ():
            grouped.setdefault((q.template, q.variant), []).append(q)
        for key, quotas in grouped.items():
            v = by_name.get(key)
            if v is None:
                problems.extend(f"{q.where or key}: no such template or pattern in the "
                                "selection" for q in quotas)
                continue
            hyps = self.selected_hypotheses(v.template)
            fine = []
            for q in quotas:
                why = self._unfillable(v, hyps, q)
                if why:
                    problems.append(f"{q.where}: {why}")
                else:
                    fine.append(q)
            if len(fine) < len(quotas):  # named in the error below
                continue
            if all(h.rule.fixed is not None for h in hyps):
                by_time: dict[tuple, list[CellQuota]] = {}
                for q in fine:
                    by_time.setdefault((q.time_format, q.time_span), []).append(q)
                labels = [h.rule.fixed for h in hyps]
                for (fmt, span), group in by_time.items():
                    counts: dict[str, int] = {}
                    for q in group:
                        counts[q.label] = counts.get(q.label, 0) + q.count
                    name = "; ".join(q.where for q in group)
                    for subset, units in split_fixed_counts(labels, counts):  # type: ignore
                        out.append(self._quota_cell(v, [hyps[i] for i in subset], None, units,
                                                    fmt, span, name))
                continue
            for q in fine:
                givers = [h for h in hyps if q.label in h.rule.labels]
                for k, h in enumerate(givers):  # shared out evenly over the hypotheses
                    units = q.count // len(givers) + (k < q.count % len(givers))
                    if units:
                        out.append(self._quota_cell(v, [h], q.label, units, q.time_format,
                                                    q.time_span, q.where))
        if problems:
            shown = "; ".join(problems[:5])
            more = f"; and {len(problems) - 5} more" if len(problems) > 5 else ""
            raise UsageError(f"{len(problems)} cell(s) cannot be filled: {shown}{more}",
                             "--match")
        return out

    @staticmethod
    def _quota_cell(v: Variant, hyps: list[Hypothesis], target: str | None, units: int,
                    fmt: str | None, span: str | None, name: str) -> Cell:
        timed = v.template.time is not None
        return Cell(v, hyps, target, quota=units, cell_name=name,
                    time_formats=[fmt] if timed and fmt is not None else None,
                    time_spans=[span] if timed and span is not None else None)

    @staticmethod
    def _unfillable(v: Variant, hyps: Sequence[Hypothesis], q: CellQuota) -> str | None:
        """Why the variant cannot give the quota's problems (None: it can)."""
        t = v.template
        labels = [lab for h in hyps for lab in h.rule.labels
                  if t.draws_label(lab, requested=True)]
        if q.label not in labels:
            return (f"{t.id} gives only {', '.join(dict.fromkeys(labels)) or 'no label'}, "
                    f"not {q.label}")
        time = t.time
        formats = time.problem_formats(None, True) if time is not None else []
        if q.time_format is None and formats:
            return f"{t.id} always has time expressions (formats {', '.join(formats)})"
        if q.time_format is not None and q.time_format not in formats:
            return (f"{t.id} has no time expressions of format {q.time_format}"
                    + (f" (it has {', '.join(formats)})" if formats else ""))
        spans = time.problem_spans() if time is not None else [None]
        if q.time_span not in spans:
            shown = ", ".join(s or "none" for s in spans)
            return f"{t.id} has no time span {q.time_span or 'none'} (it has {shown})"
        return None

    def spread(self, variants: Sequence[Variant]) -> None:
        """How each variant's deal of its evenly walked slot is turned (Variant.spread):
        the J variants with the same options share one deal, turned from a point drawn per
        set of options, and the j-th takes every J-th option of it from the j-th. Together
        they use the options in the deal's order, so a clause comes back only after every
        clause of the pool has come (the templates of a sub-fragment share a pool; when
        each walked the whole deal, a verb with few clauses repeated them across
        templates), and the verbs are still drawn evenly over the set."""
        by_pool: dict[tuple, list[tuple[Variant, str]]] = {}
        for v in variants:
            for slot in v.order:
                if slot in v.dependent:
                    continue
                options = v.options(slot)
                if _is_grouped(options):
                    by_pool.setdefault(tuple(sorted(o._key for o in options)), []).append((v, slot))
                    break
        for keys, pool in by_pool.items():
            digest = hashlib.sha256("\n".join(keys).encode("utf-8")).hexdigest()
            rng = StableRng(self.seed, "spread", digest)
            start, shift = rng.randbelow(1 << 32), rng.randbelow(1 << 16)
            first, first_slot = pool[0]
            dealt = _deal_groups(first.options(first_slot), self.seed, first.side,
                                 (start, shift, 0, 1))
            for j, (v, slot) in enumerate(pool):
                v.spread = (start, shift, j, len(pool))
                if v.side == first.side:
                    v.dealt = (slot, dealt)

    def check_total(self, n: int) -> None:
        """Refuse, before any work, an n larger than every selected variant can give."""
        _check_n(n)
        if any(v.template.time is not None for v in self.variants):
            return  # time draws multiply the fillings: no bound worth computing first
        bound = 0
        parts = []
        for v in self.variants:
            cap = v.capacity()
            if cap is None:
                return
            pairs = cap * len(self.selected_hypotheses(v.template))
            bound += pairs
            parts.append(f"{v.template.id}{f' [{v.name}]' if v.name else ''}: {pairs:,}")
        if n > bound:
            shown = "; ".join(parts[:5]) + ("; ..." if len(parts) > 5 else "")
            raise CapacityError(f"asked for {n:,} problems but the selection can give at "
                                f"most {bound:,} ({shown})", "--n")

    def default_units_per_cell(self) -> int:
        """Units per cell when a run gives no n: ``default_units_per_variant``, or the
        family's ``default_units_per_set`` when every selected set has the same one (a
        paper's sets of different sizes: WOGLI-dative has 150 premises per pattern)."""
        family = self.template_set.family
        units = int(family.get("default_units_per_variant", 100))
        per_set = family.get("default_units_per_set") or {}
        sets = self.selection.sets or ([family["default_set"]] if family.get("default_set")
                                       else None)
        if per_set and sets:
            chosen = {per_set.get(s, units) for s in sets}
            if len(chosen) == 1:
                return int(chosen.pop())
        return units

    @staticmethod
    def plan(cells: Sequence[Cell], n: int) -> Iterator[tuple[int, int, int]]:
        """The plan (nligen.plans): (cell index, unit index, pairs to keep) until n pairs.
        Round robin over the cells by default; the labels in turn with --balance label;
        each cell its own number of units in a matched set."""
        _check_n(n)
        total = 0
        used = [0] * len(cells)
        for c in Engine._schedule(cells):
            if total >= n:
                return
            cell = cells[c]
            k = min(cell.pairs_per_unit, n - total)
            yield c, used[c], k
            used[c] += 1
            total += k

    @staticmethod
    def _schedule(cells: Sequence[Cell]) -> Iterator[int]:
        if cells and cells[0].quota is not None:
            return quota_schedule([c.quota or 0 for c in cells])
        if cells and cells[0].template_turns:
            return template_schedule([c.variant.template.id for c in cells])
        if cells and cells[0].weight is not None:
            return label_schedule([c.labels[0] for c in cells],
                                  [c.weight or Fraction(1) for c in cells])

        def round_robin() -> Iterator[int]:
            while True:
                yield from range(len(cells))

        return round_robin()

    @staticmethod
    def units_per_cell(cells: Sequence[Cell], n: int) -> list[int]:
        """How many units the plan gives each cell."""
        _check_n(n)
        if cells and (cells[0].quota is not None or cells[0].weight is not None
                      or cells[0].template_turns):
            counts = [0] * len(cells)
            for c, _, _ in Engine.plan(cells, n):
                counts[c] += 1
            return counts
        per_round = sum(c.pairs_per_unit for c in cells)
        full, rest = divmod(n, per_round)
        counts = [full] * len(cells)
        for c, cell in enumerate(cells):
            if rest <= 0:
                break
            counts[c] += 1
            rest -= min(cell.pairs_per_unit, rest)
        return counts

    @staticmethod
    def planned_pairs(cells: Sequence[Cell]) -> int | None:
        """The pairs a matched set's cells give in all (None: the plan has no end)."""
        if not cells or cells[0].quota is None:
            return None
        return sum((c.quota or 0) * c.pairs_per_unit for c in cells)

    # -- generation -----------------------------------------------------------------
    def generate(self, n: int, *, side: str = "", side_filter: SideFilter | None = None,
                 seen_pairs: set | None = None, progress: Callable[[int], None] | None = None
                 ) -> list[Item]:
        """The n items, in plan order (all in memory; :meth:`iter_units` streams them)."""
        items: list[Item] = []
        for unit in self.iter_units(n, side=side, side_filter=side_filter,
                                    seen_pairs=seen_pairs, progress=progress):
            items.extend(unit)
        return items

    def iter_units(self, n: int, *, side: str = "", side_filter: SideFilter | None = None,
                   seen_pairs: set | None = None, progress: Callable[[int], None] | None = None,
                   build: Callable[[int, int], bool] | None = None,
                   first_round_only: bool = False) -> Iterator[list[Item] | int]:
        """The n items unit by unit, in plan order: each unit's kept items.

        ``build(first, count)`` (first: the unit's first item index, count: its items)
        says whether a unit is wanted; an unwanted unit is only *found* (its filling
        walked, its labels decided and its texts put in the dedup set) and yields its
        item count instead of its items. Finding is what later units depend on, so any
        range of items comes out exactly as in a whole run (shards, workers).
        ``first_round_only``: stop after one unit of every cell (a check that fails early
        where a whole run would fail in its first round)."""
        cells = self.prepare(n, side, side_filter)
        seen = seen_pairs if seen_pairs is not None else set()
        pointers = [0] * len(cells)
        done = 0
        with young_collections_rarer():
            visited = 0
            for step, (c, index, keep) in enumerate(self.plan(cells, n)):
                if first_round_only:  # up to the first unit of the last cell to have one
                    if visited == len(cells):
                        return
                    if index > 0:
                        continue
                    visited += 1
                cell = cells[c]
                wanted = build is None or build(done, keep)
                found = self._find_unit(cell, c, index, side, seen, pointers, wanted)
                done += keep
                if wanted:
                    yield self._unit_items(cell, c, index, side, found)[:keep]
                else:
                    yield keep
                if progress is not None and step % 1000 == 0:
                    progress(done)

    def prepare(self, n: int, side: str = "", side_filter: SideFilter | None = None
                ) -> list[Cell]:
        """The cells a run of ``n`` items walks, ready to walk (a side of a split has
        variants of its own, which see only that side's options)."""
        # a run prepares each side twice (its check, then the pass): the cells are kept
        key = (side, id(side_filter))
        hit = self._prepared.get(key)
        if hit is not None and hit[0] is side_filter:
            cells = hit[1]
        else:
            variants = self.variants if not side else [
                Variant(v.template, v.name, v.axes, self.lexicons, side, side_filter,
                        shared=self._options)
                for v in self.variants
            ]
            cells = self.cells(variants)
            self.spread(variants)
            self._prepared[key] = (side_filter, cells)
        self._check_capacity(cells, self.units_per_cell(cells, n))
        return cells

    def _with_time(self, cell: Cell, side: str, filling: dict[str, SlotValue], position: int,
                   draw: int, choices: tuple | None = None):
        """(filling with its time expressions, record time fields, (format, span)); the
        filling alone when the template has no time block; None when the draw fails."""
        t = cell.variant.template
        if t.time is None:
            return filling, {}, (None, None)
        drawn = t.time.draw(
            StableRng(self.seed, side, t.id, cell.variant.name, cell.target or "*", position,
                      draw), draw, self.time_text(t), *self._time_request(cell, filling),
            choices)
        if drawn is None:
            return None
        full = dict(filling)
        full.update(drawn.values)
        return (full, {"time_format": self._format_name(t, drawn.format), "time_span": drawn.span},
                (drawn.format, drawn.span))

    def _time_request(self, cell: Cell, filling: Mapping[str, SlotValue]) -> tuple:
        """(formats, spans, filling, requested) a time draw of the cell is asked for: the
        cell's own (a matched set's) or the run's selection."""
        sel = self.selection
        return (cell.time_formats if cell.time_formats is not None else sel.time_formats,
                cell.time_spans if cell.time_spans is not None else sel.time_spans,
                filling, cell.time_formats is not None)

    def _check_capacity(self, cells: Sequence[Cell], units: Sequence[int]) -> None:
        asked: Counter = Counter()
        for cell, count in zip(cells, units):
            asked[id(cell.variant)] += count
        for cell in cells:
            v = cell.variant
            want = asked.pop(id(v), 0)
            if not want:
                continue
            if v.template.time is not None:
                continue  # time draws multiply the fillings
            cap = v.capacity()
            if cap is not None and want > cap:
                raise CapacityError(
                    f"asked for {want} distinct items but it can give at most {cap}", v.where)

    @staticmethod
    def _context(variant: Variant, filling: Mapping[str, SlotValue]) -> dict[str, Any]:
        """What a template's texts and conditions see: the slots, the variant's axes and
        its name."""
        context: dict[str, Any] = dict(filling)
        context.update(variant.axes)
        context["variant"] = variant.name
        return context

    def _render_unit(self, cell: Cell, context: Mapping[str, Any], spans: bool = True):
        """(premise, [(hypothesis, label, text, spans)]), or (None, None) when a label is not
        the wanted one (labels are decided before anything is rendered). Without ``spans``
        the hypotheses' spans are None (a unit only found, not built)."""
        t = cell.variant.template
        labels = cell.fixed_labels
        if labels is None:  # labels from conditions: decided before anything is rendered
            labels = []
            for h in cell.hypotheses:
                label = h.rule.decide(context)
                if label is None or (cell.target is not None and label != cell.target):
                    return None, None
                labels.append(label)
        premises = t.premises
        premise = (premises[0].render_text(context) if len(premises) == 1 else
                   t.premise_separator.join([p.render_text(context) for p in premises]))
        if spans:
            return premise, [(h, label, *h.text.render(context))
                             for h, label in zip(cell.hypotheses, labels)]
        return premise, [(h, label, h.text.render_text(context), None)
                         for h, label in zip(cell.hypotheses, labels)]

    def _find_unit(self, cell: Cell, c: int, index: int, side: str, seen: set,
                   pointers: list[int], build: bool = True) -> tuple:
        """Walk the cell's fillings to its next unit: the first filling (and time draw)
        that gives the wanted labels and no pair already in ``seen``. Adds the unit's
        pairs to ``seen``; with ``build``, runs the pair checks (else whoever builds the
        unit runs them)."""
        found = self._search(cell, c, index, side, pointers, [0, 0], seen)
        if build:
            self._pair_checks(cell, found[2], found[3])
        seen.update(found[4])
        return found

    def _search(self, cell: Cell, c: int, index: int, side: str, pointers: list[int],
                misses: list[int], seen: set | None) -> tuple:
        """The first filling of the cell's walk (from ``pointers[c]``) and time draw that
        gives a unit (see :meth:`_try_draws`); ``misses`` counts the (label, duplicate)
        misses on the way. Raises when the cell runs out."""
        for position, filling in self._walk(cell, c, index, side, pointers, misses):
            found = self._try_draws(cell, side, filling, position, 0, misses, seen)
            if found is not None:
                return found
            self._label_miss(cell, index, misses)
        raise AssertionError("a walk ends by raising")  # pragma: no cover

    def _walk(self, cell: Cell, c: int, index: int, side: str, pointers: list[int],
              misses: list[int]) -> Iterator[tuple[int, dict[str, SlotValue]]]:
        """The fillings a unit's search tries, in order, with their place (position in
        the walk, or -attempt - 1 for a random draw); ends by raising when the cell has
        none left."""
        v = cell.variant
        t = v.template
        walker = v.walker(self.seed)
        keep = self.filling_filter
        if walker is not None:
            stride = cell.stride if walker.even is not None else 1
            limit = walker.size * (TIME_PASSES if t.time is not None else 1)
            while True:
                block = pointers[c]
                position = block * stride + (
                    (cell.phase + _block_turn(cell.turns, block)) % stride if stride > 1 else 0)
                if position >= limit:
                    self._exhausted(cell, index, misses[0], misses[1], v.capacity())
                filling = walker.filling(position % walker.size)
                pointers[c] += 1
                if filling is not None and (keep is None or keep(t, filling)):
                    yield position, filling
        target = cell.target or "*"
        attempts = RANDOM_ATTEMPTS * (5 if cell.target else 1)
        for attempt in range(attempts):
            filling = v.sample(StableRng(self.seed, side, t.id, v.name, target, index, attempt))
            if filling is None:
                misses[1] += 1
                continue
            if keep is None or keep(t, filling):
                yield -attempt - 1, filling
        self._exhausted(cell, index, misses[0], misses[1], v.capacity())

    def _label_miss(self, cell: Cell, index: int, misses: list[int]) -> None:
        """A filling gave no unit (no draw had the wanted labels or new pairs)."""
        misses[0] += 1
        budget = TIME_MISS_BUDGET if cell.variant.template.time is not None else LABEL_MISS_BUDGET
        if misses[0] > budget:
            self._exhausted(cell, index, misses[0], 0, cell.variant.capacity())

    def _try_draws(self, cell: Cell, side: str, filling: dict[str, SlotValue], position: int,
                   first_draw: int, misses: list[int], seen: set | None) -> tuple | None:
        """The unit this filling gives with the first of its time draws (from
        ``first_draw``) whose labels are the wanted ones and whose pairs are new (not in
        ``seen``, distinct from each other); None when no draw does. ``seen`` None: every
        pair counts as new (a worker's stream, see :meth:`cell_stream`)."""
        v = cell.variant
        time = v.template.time
        choices = None
        if time is not None:
            choices = time.choices(*self._time_request(cell, filling))
            if choices is None:
                return None  # every draw would fail: the same as trying them all
        for draw in range(first_draw, TIME_DRAWS if time is not None else 1):
            timing = self._with_time(cell, side, filling, position, draw, choices)
            if timing is None:
                continue
            full, time_fields, time_key = timing
            context = self._context(v, full)
            try:
                premise, rendered = self._render_unit(cell, context)
            except ConditionError as exc:
                raise ConditionError(exc.what, f"{v.where}: {exc.where or 'label'}") from None
            if rendered is None:
                continue
            pair = v.template.pair
            if pair is not None and pair.problem(context, premise, rendered[0][2],
                                                 rendered[0][3]) is not None:
                continue  # a minimal pair that is not one: never written (nligen.pairs)
            keys = [pair_fingerprint(premise, text) for _, _, text, _ in rendered]
            if (seen is not None and any(k in seen for k in keys)) or len(set(keys)) != len(keys):
                misses[1] += 1
                continue
            return (full, time_fields, premise, rendered, keys, time_key, context,
                    (position, draw))
        return None

    # -- a cell's candidates, for finding in parallel ---------------------------------
    def cell_stream(self, cells: Sequence[Cell], c: int, side: str = "") -> Iterator[tuple]:
        """The units cell ``c`` gives if every unit it finds is taken: each unit's search
        as :meth:`_find_unit` makes it, but with no dedup set (only the cell's own walk
        decides). Yields (index, misses, found) per unit, misses being the (label,
        duplicate) misses of its search; ends with (index, misses, error) when the cell
        runs out, the error being what :meth:`_find_unit` raises. Cells do not depend on
        each other but through the dedup set, so workers find their cells' units apart,
        and :meth:`accept` takes them in plan order."""
        cell = cells[c]
        pointers = [0] * len(cells)
        index = 0
        while True:
            misses = [0, 0]
            try:
                found = self._search(cell, c, index, side, pointers, misses, None)
            except (CapacityError, UnsatisfiableLabelError) as exc:
                yield index, misses, exc
                return
            yield index, misses, found
            index += 1

    def accept(self, cells: Sequence[Cell], c: int, index: int, side: str, seen: set,
               stream: Iterator[tuple]) -> tuple[tuple | None, tuple | None]:
        """Unit ``index`` of cell ``c`` as :meth:`_find_unit` finds it with ``seen``,
        taken from the cell's stream of candidates (index, misses, keys, (position,
        draw), payload), as :meth:`cell_stream` makes them (keys None: the cell ran out,
        the payload being the error). Returns (None, candidate) when the stream's
        candidate is the unit, else (found, None): a candidate whose pairs are not new
        is searched on from where it was found, here, as :meth:`_find_unit` goes on,
        and the stream's next candidate starts where that search leaves the walk."""
        cell = cells[c]
        misses = [0, 0]
        budget = TIME_MISS_BUDGET if cell.variant.template.time is not None else LABEL_MISS_BUDGET
        while True:
            candidate = next(stream)
            _, gap, keys, place, _ = candidate
            misses[0] += gap[0]
            if misses[0] > budget:  # _find_unit gave up within this stretch
                self._exhausted(cell, index, budget + 1, 0, cell.variant.capacity())
            misses[1] += gap[1]
            if keys is None:  # the walk ran out
                self._exhausted(cell, index, misses[0], misses[1], cell.variant.capacity())
            if seen.isdisjoint(keys):
                seen.update(keys)
                return None, candidate
            misses[1] += 1
            position, draw = place
            if position >= 0:  # a walk: the same filling's later draws, then the stream
                walker = cell.variant.walker(self.seed)
                filling = walker.filling(position % walker.size)
                found = self._try_draws(cell, side, filling, position, draw + 1, misses, seen)
                if found is not None:
                    seen.update(found[4])
                    return found, None
                self._label_miss(cell, index, misses)
                continue
            # a random draw: the unit's later attempts (the stream went on to the next unit)
            found = self._resume_random(cells, c, index, side, -position - 1, draw, misses,
                                        seen)
            seen.update(found[4])
            return found, None

    def found_at(self, cells: Sequence[Cell], c: int, index: int, side: str, position: int,
                 draw: int) -> tuple:
        """The found tuple of a unit found elsewhere at (position, draw), made again."""
        cell = cells[c]
        v, t = cell.variant, cell.variant.template
        if position >= 0:
            walker = v.walker(self.seed)
            filling = walker.filling(position % walker.size)
        else:
            filling = v.sample(StableRng(self.seed, side, t.id, v.name, cell.target or "*",
                                         index, -position - 1))
        full, time_fields, time_key = self._with_time(cell, side, filling, position, draw)
        context = self._context(v, full)
        premise, rendered = self._render_unit(cell, context)
        return (full, time_fields, premise, rendered,
                [pair_fingerprint(premise, text) for _, _, text, _ in rendered], time_key,
                context, (position, draw))

    def _resume_random(self, cells: Sequence[Cell], c: int, index: int, side: str,
                       attempt: int, draw: int, misses: list[int], seen: set) -> tuple:
        cell = cells[c]
        v, t = cell.variant, cell.variant.template
        filling = v.sample(StableRng(self.seed, side, t.id, v.name, cell.target or "*", index,
                                     attempt))
        found = self._try_draws(cell, side, filling, -attempt - 1, draw + 1, misses, seen)
        if found is not None:
            return found
        self._label_miss(cell, index, misses)
        target = cell.target or "*"
        keep = self.filling_filter
        for later in range(attempt + 1, RANDOM_ATTEMPTS * (5 if cell.target else 1)):
            filling = v.sample(StableRng(self.seed, side, t.id, v.name, target, index, later))
            if filling is None:
                misses[1] += 1
                continue
            if keep is not None and not keep(t, filling):
                continue
            found = self._try_draws(cell, side, filling, -later - 1, 0, misses, seen)
            if found is not None:
                return found
            self._label_miss(cell, index, misses)
        self._exhausted(cell, index, misses[0], misses[1], v.capacity())

    def _unit_items(self, cell: Cell, c: int, index: int, side: str, found: tuple) -> list[Item]:
        v = cell.variant
        t = v.template
        full, time_fields, premise, rendered, _, time_key, context = found[:7]
        base_fields = dict(self.record_defaults)
        base_fields.update(time_fields)
        if t.record:
            base_fields.update(_record_fields(t.record, context))
        items = []
        for h, label, text, spans in rendered:
            fields = dict(base_fields)
            if h.record:
                fields.update(_record_fields(h.record, context))
            explain = h.explain.render_text(context) if h.explain else None
            items.append(Item(t, v, h, premise, text, label, full, spans, explain,
                              fields, (side, c, index), time_key))
        return items

    def time_text(self, template: Template):
        lang = template.language
        return lang.time_text if lang is not None and lang.time_text else default_time_text

    @staticmethod
    def _format_name(template: Template, fmt: str | None) -> str | None:
        lang = template.language
        if fmt is None or lang is None or not lang.time_format_names:
            return fmt
        return lang.time_format_names.get(fmt, fmt)

    def _exhausted(self, cell: Cell, index: int, label_misses: int, dup_misses: int,
                   cap: int | None) -> None:
        v = cell.variant
        matched = (f" for the --match cell ({cell.cell_name}): its fillings (e.g. the "
                   "units their verbs are dated in) do not fit it" if cell.cell_name else "")
        if cell.target is not None and label_misses and not dup_misses:
            raise UnsatisfiableLabelError(
                f"never produced label {cell.target!r} "
                f"({label_misses} fillings tried; produced {index} before){matched}", v.where)
        cap_text = f"; it has {cap} distinct fillings" if cap is not None else ""
        pair = v.template.pair
        if pair is not None and pair.last_problem is not None:
            cap_text += f"; the last pair that failed its check: {pair.last_problem}"
        raise CapacityError(
            f"ran out of distinct items after {index}"
            + (f" with label {cell.target!r}" if cell.target else "") + cap_text + matched,
            v.where)

    def analyser(self, template: Template) -> Callable[[str], list[str]]:
        code = template.language.code
        fn = self._analysers.get(code)
        if fn is None:
            fn = template.language.lemma_analyser(self.lexicons)
            self._analysers[code] = fn
        return fn

    def _lemmas_proved(self, cell: Cell) -> bool:
        """Whether same_lemmas holds for every filling of the cell (proved once, see
        :func:`prove_same_lemmas`); the proof is kept with the cell's variant."""
        key = (id(cell.variant), tuple(id(h) for h in cell.hypotheses))
        hit = self._proofs.get(key)
        if hit is None:
            proved = prove_same_lemmas(cell.variant, cell.hypotheses,
                                       self.analyser(cell.variant.template), self._part_lemmas,
                                       self._slot_proofs)
            hit = self._proofs[key] = (proved, cell.variant)
        return hit[0]

    def _pair_checks(self, cell: Cell, premise: str, rendered) -> None:
        t = cell.variant.template
        if "distinct_hypotheses" in t.checks:
            for (h1, l1, x1, _), (h2, l2, x2, _) in combinations(rendered, 2):
                if l1 != l2 and x1 == x2:
                    raise TemplateError(
                        f"pair check distinct_hypotheses failed: {h1.type or h1.index} and "
                        f"{h2.type or h2.index} have different labels but the same text {x1!r}",
                        cell.variant.where)
        if "same_lemmas" in t.checks and not self._lemmas_proved(cell):
            analyse = self.analyser(t)
            want = sorted(analyse(premise))  # the same multiset = the same sorted list
            for h, _, text, _ in rendered:
                got = sorted(analyse(text))
                if got != want:
                    raise TemplateError(
                        f"pair check same_lemmas failed for {h.type or h.index}: premise "
                        f"{premise!r} has lemmas {want}, hypothesis {text!r} has {got}",
                        cell.variant.where)


PROOF_LIMIT = 20_000  # value combinations one slot's proof may try, beyond: check each item


def prove_same_lemmas(variant: Variant, hypotheses: Sequence[Hypothesis],
                      analyse: Callable[[str], list[str]], memo: dict,
                      proofs: dict | None = None) -> bool:
    """Whether premise and every hypothesis have the same lemma multiset for *every*
    filling of the variant, shown from its texts' parts: False when it cannot be shown
    this way (the check then runs on every problem, as before).

    For an analyser that reads whitespace-separated tokens one by one (the language's
    ``tokenwise_lemmas``), a text's lemmas are those of its literal tokens and of each
    expression's output, read in its place (first or last token of the text, or
    between). When every expression is set off by whitespace, it suffices that the
    literal tokens have the same lemmas, and that for each slot, for every value it can
    take (and every value of what its filters read of other slots, e.g. a subject's
    number), its outputs in the premise have the same lemmas as in the hypothesis."""
    t = variant.template
    if t.language is None or not t.language.tokenwise_lemmas:
        return False
    sep = t.premise_separator
    if len(t.premises) > 1 and (not sep or sep.strip()):
        return False
    premise = _text_parts([p.parts for p in t.premises], sep)
    if premise is None:
        return False
    base = dict(variant.axes)
    base["variant"] = variant.name

    def lemmas(text: str, first: bool, last: bool) -> list[str]:
        key = (text, first, last)
        out = memo.get(key)
        if out is None:  # read in place: dummy tokens stand for its neighbours
            out = analyse(("" if first else "x ") + text + ("" if last else " y"))
            out = out[(0 if first else 1):(len(out) if last else -1)]
            memo[key] = out
        return out

    for h in hypotheses:
        hyp = _text_parts([h.text.parts], " ")
        if hyp is None:
            return False
        literal = [sorted(w for p, first, last in side if p.literal is not None
                          for w in _literal_lemmas(p.literal, first, last, lemmas))
                   for side in (premise, hyp)]
        if literal[0] != literal[1]:
            return False
        by_slot: dict[str, tuple[list, list]] = {}
        for k, side in enumerate((premise, hyp)):
            for p, first, last in side:
                if p.literal is None:
                    if not p.names:
                        return False  # a constant expression: read as a literal would be
                    by_slot.setdefault(p.names[0], ([], []))[k].append((p, first, last))
        for slot, (in_premise, in_hyp) in by_slot.items():
            if not _slot_lemmas_agree(variant, slot, in_premise, in_hyp, base, lemmas,
                                      proofs):
                return False
    return True


def _text_parts(texts: Sequence[Any], sep: str) -> list[tuple] | None:
    """The parts of texts joined by ``sep``, each with whether it holds the text's first
    and last token: None without a fast plan, or when an expression touches a
    neighbour without whitespace between."""
    parts: list = []
    for k, text_parts in enumerate(texts):
        if text_parts is None:
            return None
        if k:
            parts.append(_literal_part(sep))
        parts.extend(text_parts)
    parts = [p for p in parts if p.literal != ""]
    out = []
    for i, p in enumerate(parts):
        if p.literal is None:
            before = parts[i - 1] if i else None
            after = parts[i + 1] if i + 1 < len(parts) else None
            if before is not None and (before.literal is None or before.literal[-1:].strip()):
                return None
            if after is not None and (after.literal is None or after.literal[:1].strip()):
                return None
        first = not any(q.literal is None or q.literal.strip() for q in parts[:i])
        last = not any(q.literal is None or q.literal.strip() for q in parts[i + 1:])
        out.append((p, first, last))
    return out


def _literal_part(text: str):
    from .render import TextPart

    return TextPart(text, None, (), ())


def _literal_lemmas(text: str, first: bool, last: bool, lemmas) -> list[str]:
    words = text.split()
    out = []
    for k, word in enumerate(words):
        out += lemmas(word, first and k == 0, last and k == len(words) - 1)
    return out


def _slot_lemmas_agree(variant: Variant, slot: str, in_premise: list, in_hyp: list,
                       base: Mapping[str, Any], lemmas, proofs: dict | None = None) -> bool:
    """For every value of ``slot`` (and every value of what its filters read of other
    slots), its outputs have the same lemmas in the premise as in the hypothesis.
    ``proofs`` keeps the answers by what they depend on (the expressions in their
    places, the options lists they range over): variants with the same options of a
    slot (WOGLI's patterns share a noun-phrase type) are proved once."""
    def signature(side):
        return sorted((p.key, first, last) for p, first, last in side)

    if signature(in_premise) == signature(in_hyp):
        return True  # the same expressions in the same places: the same words
    slots = variant.template.slots
    if slot not in slots or slots[slot].slot_refs:
        return False  # not a slot, or one whose options depend on others' values
    reads: dict[str, list] = {}
    for p, _, _ in in_premise + in_hyp:
        others = [n for n in p.names[1:]]
        if not others:
            continue
        projections = dict(p.projections or ())
        for name in others:
            if name not in projections or name not in slots or slots[name].slot_refs:
                return False
            reads.setdefault(name, []).append(projections[name])
    representatives: dict[str, list] = {}
    for name, projs in reads.items():
        seen: dict[tuple, Any] = {}
        for value in variant.options(name):
            seen.setdefault((type(value),) + tuple(r(value) for r in projs), value)
        representatives[name] = list(seen.values())
    values = variant.options(slot)
    combos = len(values)
    for reps in representatives.values():
        combos *= len(reps)
    if combos > PROOF_LIMIT:
        return False
    names = list(representatives)
    key = None
    if proofs is not None:  # the expressions read only slots (checked above), not axes
        key = (variant.template.language.code, slot, id(values),
               tuple((n, id(variant.options(n))) for n in names),
               tuple(signature(in_premise)), tuple(signature(in_hyp)))
        hit = proofs.get(key)
        if hit is not None:
            return hit[0]
    answer = _slot_values_agree(slot, values, representatives, names, in_premise, in_hyp,
                                base, lemmas)
    if key is not None:  # the options lists are kept with the answer, so ids stay theirs
        proofs[key] = (answer, values, [variant.options(n) for n in names])
    return answer


def _slot_values_agree(slot: str, values, representatives, names, in_premise, in_hyp,
                       base, lemmas) -> bool:
    """The proof itself: every value with every combination of representatives."""
    for value in values:
        for chosen in product(*(representatives[n] for n in names)):
            ctx = dict(base)
            ctx.update(zip(names, chosen))
            ctx[slot] = value
            sides = []
            for side in (in_premise, in_hyp):
                words: list[str] = []
                for p, first, last in side:
                    text = p.step(ctx)[0]
                    words += lemmas(text, first, last)
                sides.append(sorted(words))
            if sides[0] != sides[1]:
                return False
    return True


def _record_fields(spec: Mapping[str, Any], context: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (ct.render_text(context) if hasattr(ct, "render_text") else ct)
            for k, ct in spec.items()}


def describe_variants(engine: Engine) -> list[dict[str, Any]]:
    """For `gen list`: each template/variant with its sets, labels and capacity."""
    out = []
    for v in engine.variants:
        hyps = engine.selected_hypotheses(v.template)
        labels: list[str] = []
        for h in hyps:
            for lab in h.rule.labels:
                if lab not in labels:
                    labels.append(lab)
        sets: list[str] = []
        for h in hyps:
            if h.set not in sets:
                sets.append(h.set)
        out.append({
            "template": v.template.id, "variant": v.name, "sets": sets, "labels": labels,
            "hypotheses": [h.type or str(h.index) for h in hyps], "capacity": v.capacity(),
        })
    return out


def iter_units(items: Iterable[Item]) -> list[list[Item]]:
    """Group consecutive items of the same unit."""
    units: list[list[Item]] = []
    for item in items:
        if units and units[-1][0].unit == item.unit:
            units[-1].append(item)
        else:
            units.append([item])
    return units

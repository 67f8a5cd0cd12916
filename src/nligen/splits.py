"""Train/test splits over generated units (a unit = one filling with its hypotheses).

* ``augmentation`` — a stratified train sample in which every variant (pattern) and
  every value of the ``cover`` slots (WOGLI: every verb) occurs; the rest is test
  (Reinig & Markert 2023, section 6).
* ``pattern`` — some variants are held out: their items are test only (``seen: false``);
  the other variants are split between train and test (``seen: true``).
* ``lexical`` — content lemmas (verbs, nouns, names) are partitioned; train items use
  only train lemmas and test items only test lemmas (``seen: false``).

A unit never straddles train and test, so no test filling occurs in train.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from .engine import Engine, Item, Variant, iter_units
from .errors import SplitError, UsageError
from .pipeline import Part, Source, SplitItem
from .records import SINGLE_SPLIT
from .rng import StableRng, stable_int

SPLITS = ("augmentation", "pattern", "lexical")
# Reinig & Markert (2023, section 6): 1,037 of 16,971 premises go to train.
AUGMENTATION_FRACTION = 1037 / 16971


@dataclass
class Restriction:
    """A seen/unseen split by what train may contain (Jamp's splits, section 3.4): train
    uses only these templates / time formats / time spans (None: any); test uses all, and a
    test item is ``seen`` when its template, format and span all occur in train. Content
    fillings (the sentence before time expressions) are partitioned between the sides, so
    no test sentence occurs in train."""

    templates: Sequence[str] | None = None
    time_formats: Sequence[str] | None = None
    time_spans: Sequence[str] | None = None
    test_content_share: float = 0.2

    def seen(self, item: Item) -> bool:
        fmt, span = item.time
        return ((self.templates is None or item.template.id in self.templates)
                and (self.time_formats is None or fmt is None or fmt in self.time_formats)
                and (self.time_spans is None or span is None or span in self.time_spans))


@dataclass
class SplitOptions:
    name: str | None = None
    train_size: int | None = None         # problems in train (augmentation, pattern, lexical)
    heldout: Sequence[str] | None = None  # variants held out (pattern)
    cover: Sequence[str] = field(default_factory=list)  # slots whose lemmas must all be in train
    test_lemma_fraction: float = 0.3      # share of content lemmas reserved for test (lexical)
    train_fraction: float = 0.5           # default share of train problems (pattern, lexical)
    restriction: Restriction | None = None  # a family's named seen/unseen split (Jamp)
    seen_flags: bool = True               # whether test items carry `seen` (restricted splits)


def generate_with_split(engine: Engine, n: int, options: SplitOptions) -> Source:
    """The items of a run with the split ``options.name`` (None: no split), as a source.
    Without a split and with the lexical split, items stream; the augmentation and
    pattern splits assign units only once all of them are made."""
    name = options.name
    if name is None:
        return Source([Part(engine, n, SINGLE_SPLIT)])
    if name not in SPLITS:
        raise UsageError(f"unknown split {name!r} (known: {', '.join(SPLITS)})", "--split")
    if n < 2:
        raise UsageError(f"a split needs at least 2 problems (got {n})", "--n")
    if options.train_size is not None and not 0 < options.train_size < n:
        raise UsageError(f"must be between 1 and n - 1 = {n - 1} (got {options.train_size})",
                         "--train-size")
    if name == "lexical":
        return _lexical(engine, n, options)

    def whole() -> list[SplitItem]:
        units = _split_units(engine.generate(n))
        if len(units) < 2:
            raise SplitError(f"{n} problems make {len(units)} unit(s): too few to split",
                             "--split")
        if name == "augmentation":
            return _augmentation(engine, units, options)
        return _pattern(engine, units, options)

    return Source(whole=whole, n=n)


def generate_restricted(make_engine: Callable[..., Engine], seed: int, n: int,
                        options: SplitOptions) -> Source:
    """Train from a restricted engine, test from the full one, with disjoint content."""
    r = options.restriction
    if n < 2:
        raise UsageError(f"a split needs at least 2 problems (got {n})", "--n")
    if options.train_size is not None and not 0 < options.train_size < n:
        raise UsageError(f"must be between 1 and n - 1 = {n - 1} (got {options.train_size})",
                         "--train-size")
    share = round(r.test_content_share * 1000)

    def on_side(side: str):
        def keep(template, filling) -> bool:
            key = sorted(v._key for v in filling.values())
            is_test = stable_int(seed, "split-content", *key) % 1000 < share
            return is_test == (side == "test")
        return keep

    train_engine = make_engine(templates=r.templates, time_formats=r.time_formats,
                               time_spans=r.time_spans, filling_filter=on_side("train"))
    test_engine = make_engine(filling_filter=on_side("test"))
    n_train = options.train_size if options.train_size is not None else round(
        options.train_fraction * n)
    n_train = min(max(1, n_train), n - 1)
    # Train items of a seen/unseen split are seen by definition; saying so gives every split
    # file the same columns (Hugging Face `datasets` loads splits into one schema).
    flags = options.seen_flags
    return Source([
        Part(train_engine, n_train, "train", side="train",
             seen=(lambda item: True) if flags else None),
        Part(test_engine, n - n_train, "test", side="test",
             seen=r.seen if flags else None),
    ])


def _split_units(items: Sequence[Item]) -> list[list[Item]]:
    """Units that must stay on one side of a split: the items of one filling. Cells of
    different labels can draw the same filling (a template with several conditional
    hypotheses), so units sharing a filling are merged."""
    units = iter_units(items)
    group = _groups_sharing_a_key(
        [[(item.template.id, item.variant.name, item.filling_key) for item in unit]
         for unit in units])
    merged: dict[int, list[Item]] = {}
    for i, unit in enumerate(units):
        merged.setdefault(group[i], []).extend(unit)
    return list(merged.values())


def _groups_sharing_a_key(keys: Sequence[Sequence[Any]]) -> list[int]:
    """For each position, a group number: positions whose key lists share a key are in
    one group (union-find)."""
    parent = list(range(len(keys)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[Any, int] = {}
    for i, own in enumerate(keys):
        for key in own:
            if key in owner:
                parent[find(i)] = find(owner[key])
            else:
                owner[key] = i
    return [find(i) for i in range(len(keys))]


def _units_for(units: Sequence[Sequence[Item]], problems: int) -> int:
    avg = sum(len(u) for u in units) / len(units)
    return max(1, round(problems / avg))


def _by_variant(units: Sequence[Sequence[Item]]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for i, unit in enumerate(units):
        out.setdefault(_variant_key(unit[0]), []).append(i)
    return out


def _variant_key(item: Item) -> str:
    return f"{item.template.id}/{item.variant.name}"


def _augmentation(engine: Engine, units, options: SplitOptions) -> list[SplitItem]:
    by_variant = _by_variant(units)
    cover_of = [
        {lem for s in options.cover if s in u[0].filling for lem in u[0].filling[s]._lemmas}
        for u in units
    ]
    all_cover = set().union(*cover_of) if cover_of else set()
    if options.train_size is not None:
        want = _units_for(units, options.train_size)
    else:
        want = max(math.ceil(AUGMENTATION_FRACTION * len(units)), len(by_variant), len(all_cover))
    if want >= len(units):
        raise SplitError(
            f"the train sample would need {want} of the {len(units)} units; ask for a larger --n"
            + ("" if options.train_size else f" (every one of the {len(all_cover)} "
               f"{'/'.join(options.cover)} values must occur in train)"), "--split augmentation")
    rng = StableRng(engine.seed, "split", "augmentation")
    variants = list(by_variant)
    quota = {v: want // len(variants) + (1 if i < want % len(variants) else 0)
             for i, v in enumerate(variants)}
    pools = {v: list(ix) for v, ix in by_variant.items()}
    for v in variants:
        rng.shuffle(pools[v])
    chosen: set[int] = set()
    uncovered = set(all_cover)
    # Phase 1: coverage. Round-robin over variants; each takes the unit (in its shuffled
    # order) covering most still-uncovered values, preferring variants with quota left.
    progress = True
    while uncovered and progress and len(chosen) < want:
        progress = False
        for v in sorted(variants, key=lambda name: -quota[name]):
            if not uncovered or len(chosen) >= want:
                break
            best, gain = None, 0
            for ix in pools[v]:
                g = len(cover_of[ix] & uncovered)
                if g > gain:
                    best, gain = ix, g
            if best is not None:
                chosen.add(best)
                pools[v].remove(best)
                quota[v] -= 1
                uncovered -= cover_of[best]
                progress = True
    if uncovered:
        raise SplitError(
            f"a train sample of {want} units cannot contain all {len(all_cover)} "
            f"{'/'.join(options.cover)} values ({len(uncovered)} missing, e.g. "
            f"{sorted(uncovered)[0]!r}); ask for a larger --train-size", "--split augmentation")
    # Phase 2: fill each variant's quota.
    for v in variants:
        take = pools[v][:max(0, quota[v])]
        chosen.update(take)
    return [SplitItem(item, "train" if i in chosen else "test", None)
            for i, unit in enumerate(units) for item in unit]


def _pattern(engine: Engine, units, options: SplitOptions) -> list[SplitItem]:
    """Hold out surface patterns: what a pattern looks like in the text decides whether a
    test item's pattern was seen in train (see Item.surface_pattern)."""
    by_key: dict[str, list[int]] = {}
    for i, unit in enumerate(units):
        by_key.setdefault(_surface_key(unit[0]), []).append(i)
    if len(by_key) < 2:
        raise SplitError("a pattern split needs at least two patterns", "--split pattern")
    if options.heldout:
        known = {u[0].variant.name for u in units}
        for h in options.heldout:
            if h not in known:
                raise UsageError(f"unknown pattern {h!r} (known: {', '.join(sorted(known))})",
                                 "--heldout")
        wanted = set(options.heldout)
        heldout = {_surface_key(u[0]) for u in units if u[0].variant.name in wanted}
    else:
        keys = sorted(by_key, key=lambda k: (stable_int(engine.seed, "heldout", k), k))
        heldout = set(keys[:max(1, round(len(keys) / 4))])
    if len(heldout) >= len(by_key):
        raise SplitError("every pattern is held out: nothing left for train", "--heldout")
    seen_keys = [k for k in by_key if k not in heldout]
    seen_units = [ix for k in seen_keys for ix in by_key[k]]
    if options.train_size is not None:
        want = _units_for(units, options.train_size)
        if want >= len(seen_units):
            raise SplitError(
                f"train can hold at most {len(seen_units) - 1} of the {len(seen_units)} units "
                "of patterns that are not held out; ask for a smaller --train-size",
                "--train-size")
    else:
        want = max(1, min(round(options.train_fraction * len(seen_units)), len(seen_units) - 1))
    rng = StableRng(engine.seed, "split", "pattern")
    quota = {k: want // len(seen_keys) + (1 if i < want % len(seen_keys) else 0)
             for i, k in enumerate(seen_keys)}
    # Units of different patterns can share their content words (the same nouns and verb
    # with other determiners or number): such units go to the same side, and a group
    # that touches a held-out pattern stays in test.
    group = _content_groups(units)
    members: dict[int, list[int]] = {}
    for i in range(len(units)):
        members.setdefault(group[i], []).append(i)
    blocked = {group[ix] for k in heldout for ix in by_key[k]}
    chosen: set[int] = set()
    in_key: dict[str, int] = dict.fromkeys(seen_keys, 0)

    def take(i: int, limit: int) -> bool:
        g = group[i]
        if g in blocked or i in chosen or len(chosen) + len(members[g]) > limit:
            return False
        for j in members[g]:
            chosen.add(j)
            in_key[_surface_key(units[j][0])] += 1
        return True

    spare: list[int] = []
    for k in seen_keys:
        pool = list(by_key[k])
        rng.shuffle(pool)
        for pos, i in enumerate(pool):
            if in_key[k] >= quota[k]:
                spare.extend(pool[pos:])
                break
            if not take(i, want):
                spare.append(i)
    for i in spare:  # patterns smaller than their quota
        if len(chosen) >= want:
            break
        take(i, want)
    if not chosen:
        raise SplitError("every unit of the patterns not held out shares its content words "
                         "with a held-out pattern: nothing left for train", "--split pattern")
    out = []
    for i, unit in enumerate(units):
        if _surface_key(unit[0]) in heldout:
            out.extend(SplitItem(item, "test", False) for item in unit)
        elif i in chosen:
            out.extend(SplitItem(item, "train", True) for item in unit)
        else:
            out.extend(SplitItem(item, "test", True) for item in unit)
    return out


def _content_groups(units: Sequence[Sequence[Item]]) -> list[int]:
    """For each unit, a group number: units sharing the content words of their non-time
    slots (per slot: its lemmas) are in one group."""
    keys = []
    for unit in units:
        item = unit[0]
        time_names = set(item.template.time.names) if item.template.time else set()
        keys.append([tuple(sorted((slot, v._lemmas) for slot, v in item.filling.items()
                                  if slot not in time_names))])
    return _groups_sharing_a_key(keys)


def _surface_key(item: Item) -> str:
    return f"{item.template.id}/{item.surface_pattern}"


def all_option_lemmas(variant: Variant) -> set[str]:
    """Every content lemma any filling of the variant can use."""
    lemmas: set[str] = set()
    t = variant.template
    for slot in variant.order:
        if slot not in variant.dependent:
            for o in variant.options(slot):
                lemmas.update(o._lemmas)
    for slot in variant.order:
        if slot in variant.dependent:
            parents = sorted({ref for ref, _ in t.slots[slot].slot_refs})
            combos: list[dict] = [{}]
            for p in parents:
                combos = [dict(c, **{p: o}) for c in combos for o in variant.options(p)]
            for c in combos:
                for o in variant.options(slot, c):
                    lemmas.update(o._lemmas)
    return lemmas


def lexical_partition(engine: Engine, fraction: float) -> set[str]:
    """The content lemmas reserved for test: a fixed share, chosen by stable hash."""
    if not 0 < fraction < 1:
        raise UsageError(f"must be between 0 and 1 (got {fraction})", "--test-lemmas")
    lemmas: set[str] = set()
    for v in engine.variants:
        lemmas |= all_option_lemmas(v)
    ordered = sorted(lemmas, key=lambda lem: (stable_int(engine.seed, "lexical", lem), lem))
    return set(ordered[:max(1, round(fraction * len(ordered)))])


def _lexical(engine: Engine, n: int, options: SplitOptions) -> Source:
    test_lemmas = lexical_partition(engine, options.test_lemma_fraction)

    def train_side(v) -> bool:
        return not any(lem in test_lemmas for lem in v._lemmas)

    def test_side(v) -> bool:
        return all(lem in test_lemmas for lem in v._lemmas)

    n_train = options.train_size if options.train_size is not None else round(
        options.train_fraction * n)
    n_train = min(max(1, n_train), n - 1)
    return Source([
        Part(engine, n_train, "train", side="train", side_filter=train_side,
             seen=lambda item: True),
        Part(engine, n - n_train, "test", side="test", side_filter=test_side,
             seen=lambda item: False),
    ])

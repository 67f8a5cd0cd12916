"""The streaming pipeline: items flow from the engine through splits to the writers.

A run's items form a fixed sequence (index 0 .. n-1). A :class:`Source` makes it afresh
on every pass, unit by unit, and can *find* a unit without *building* it (see
:meth:`nligen.engine.Engine.iter_units`): finding is the part later units depend on
(which filling a cell walks to, which pairs the dedup set holds), building is the rest
(spans, explanations, record fields, records, JSON). So any set of items comes out
exactly as in a whole run, and:

* a whole run streams: memory holds one unit at a time, the dedup set (one 64-bit
  fingerprint per problem) and the tallies of :class:`Tally`;
* ``--shard I/K`` builds items [(I-1)n/K, In/K) and only finds the ones before;
* ``--workers N`` hands out chunks of CHUNK items round robin: each worker finds
  every unit, builds the units of its chunks and sends their text back, which is
  written in order;
* a Dask cluster runs contiguous ranges as tasks (:mod:`nligen.cluster`).

The output never depends on how it was cut: the same bytes from one process, N
workers, K shards concatenated, or a cluster.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Sequence

from .engine import Engine, Item, SideFilter
from .records import RecordEncoder, head_value, make_record, wants_seen
from .rng import StablePermutation
from .writers import TsvFormat, tsv_cell

CHUNK = 5_000           # items a worker builds in one piece
AUDIT_SAMPLE = 10_000   # problems the dataset card's audit reads (all of a smaller set)
TSV_HEAD = 1_000        # records a TSV header's columns are taken from (per file)


@dataclass
class SplitItem:
    item: Item
    split: str
    seen: bool | None


# -- sources --------------------------------------------------------------------------

@dataclass
class Part:
    """Items made by one engine call: ``n`` of them, all going to ``split``."""

    engine: Engine
    n: int
    split: str
    side: str = ""
    side_filter: SideFilter | None = None
    seen: Callable[[Item], bool | None] | None = None  # the test side's seen flag


Unit = tuple[int, "list[SplitItem] | int"]  # (index of its first item, items or their count)


class WatchedSet(set):
    """A dedup set that starts with pairs no problem may equal (``--match``,
    ``--exclude``) and records in ``hits`` each of them a lookup finds. A run with the
    hits alone in its dedup set makes the same problems (every lookup answers alike:
    the other watched pairs were never looked up, or were found after a pair of the run
    itself), so a manifest keeps the hits, not the excluded files."""

    __slots__ = ("watched", "hits")

    def __init__(self, watched: frozenset[int], hits: set[int]):
        super().__init__(watched)
        self.watched = watched
        self.hits = hits

    def __contains__(self, key: object) -> bool:
        if set.__contains__(self, key):
            if key in self.watched:
                self.hits.add(key)  # type: ignore[arg-type]
            return True
        return False

    def isdisjoint(self, keys) -> bool:  # type: ignore[override]
        return not any(k in self for k in keys)


class Source:
    """The items of a run, in order, made afresh on each pass.

    Either parts made one after the other that share one dedup set (a run without a
    split is one part; the lexical and the restricted splits are a train part and a
    test part), or a list made whole once (splits that assign units to train and test
    only when all of them are known)."""

    def __init__(self, parts: Sequence[Part] = (), whole: Callable[[], list[SplitItem]] | None = None,
                 n: int | None = None):
        self.parts = list(parts)
        self._whole = whole
        self._items: list[SplitItem] | None = None
        self.n = n if n is not None else sum(p.n for p in self.parts)
        self.excluded: frozenset[int] = frozenset()  # pair fingerprints no problem may equal
        self.hits: set[int] = set()  # the excluded pairs a pass looked up (WatchedSet)

    def new_seen(self) -> set:
        """A pass's dedup set: empty, or holding the excluded pairs."""
        return WatchedSet(self.excluded, self.hits) if self.excluded else set()

    @property
    def streams(self) -> bool:
        """Whether a pass holds one unit at a time (False: the whole list)."""
        return self._whole is None

    def check(self) -> None:
        """Fail now on what a pass would fail on at its start or in its first round:
        capacities, and a label a cell never produces (the first unit of every cell)."""
        if self._whole is not None:
            self.items()
            return
        seen = self.new_seen()
        for part in self.parts:
            for _ in part.engine.iter_units(part.n, side=part.side, side_filter=part.side_filter,
                                            seen_pairs=seen, first_round_only=True):
                pass

    def items(self) -> list[SplitItem]:
        if self._whole is not None:
            if self._items is None:
                self._items = self._whole()
            return self._items
        return [si for _, unit in self.units() for si in unit]  # type: ignore[union-attr]

    def units(self, build: Callable[[int, int], bool] | None = None) -> Iterator[Unit]:
        """(index of the unit's first item, its items) for a built unit, (index, item
        count) for a unit only found."""
        if self._whole is not None:
            for i, si in enumerate(self.items()):
                yield (i, [si]) if build is None or build(i, 1) else (i, 1)
            return
        seen = self.new_seen()
        offset = 0
        for part in self.parts:
            shifted = None if build is None else (
                lambda first, count, o=offset: build(o + first, count))
            first = offset
            flag = part.seen
            for unit in part.engine.iter_units(part.n, side=part.side,
                                               side_filter=part.side_filter, seen_pairs=seen,
                                               build=shifted):
                if isinstance(unit, int):
                    yield first, unit
                    first += unit
                    continue
                yield first, [SplitItem(item, part.split, flag(item) if flag else None)
                              for item in unit]
                first += len(unit)
            offset += part.n


def iter_items(source: Source, start: int = 0, stop: int | None = None,
               owner: Callable[[int], bool] | None = None) -> Iterator[tuple[int, SplitItem]]:
    """(index, item) for the items in [start, stop) that ``owner`` takes (default all);
    units before ``start`` and units no wanted item is in are found, not built."""
    stop = source.n if stop is None else stop
    if start >= stop:
        return

    def build(first: int, count: int) -> bool:
        lo, hi = max(first, start), min(first + count, stop)
        if lo >= hi:
            return False
        return owner is None or any(owner(i) for i in range(lo, hi))

    units = source.units(build)
    try:
        for first, unit in units:
            if first >= stop:
                break
            if isinstance(unit, int):
                continue
            for k, si in enumerate(unit):
                i = first + k
                if start <= i < stop and (owner is None or owner(i)):
                    yield i, si
    finally:
        units.close()


# -- tallies --------------------------------------------------------------------------

def audit_sample(n: int, seed: int) -> frozenset[int] | None:
    """The indices of the problems the card's audit reads: all (None) up to AUDIT_SAMPLE,
    else AUDIT_SAMPLE of them chosen by a seeded permutation of the run."""
    if n <= AUDIT_SAMPLE:
        return None
    perm = StablePermutation(n, seed, "audit-sample")
    return frozenset(perm[j] for j in range(AUDIT_SAMPLE))


@dataclass
class Tally:
    """What the manifest and the dataset card say about the records, accumulated record
    by record (and mergeable, for workers and shards): counts per split, label and
    template or variant; seen flags; label counts per card field; the audit's sample."""

    card_fields: Sequence[str] = ()
    sample: frozenset[int] | None = None  # None: every record
    full: bool = True                      # False: totals only (a single file, stdout)
    counts: Counter = field(default_factory=Counter)   # (split, label, key) -> n
    seen: Counter = field(default_factory=Counter)     # (split, seen) -> n
    by: Counter = field(default_factory=Counter)       # (field, value, label) -> n
    records: dict[int, dict] = field(default_factory=dict)  # sampled index -> record
    excluded_hits: set[int] = field(default_factory=set)  # see WatchedSet

    def add(self, index: int, si: SplitItem, family: str, split_name: str | None) -> None:
        item = si.item
        self.counts[(si.split, item.label, item.variant.name or item.template.id)] += 1
        if not self.full:
            return
        if wants_seen(si.split, si.seen, split_name):
            self.seen[(si.split, bool(si.seen))] += 1
        for f in self.card_fields:
            value = head_value(item, f, si.split, si.seen, split_name, family)
            if value is not None:
                self.by[(f, str(value), item.label)] += 1
        if self.sample is None or index in self.sample:
            self.records[index] = make_record(family, index, item, si.split, si.seen, split_name)

    def merge(self, other: "Tally") -> None:
        self.counts.update(other.counts)
        self.seen.update(other.seen)
        self.by.update(other.by)
        self.records.update(other.records)
        self.excluded_hits |= other.excluded_hits

    # -- what the manifest says ---------------------------------------------------------
    def splits(self) -> list[str]:
        return sorted({s for s, _, _ in self.counts}, key=lambda s: (s != "train", s))

    def manifest_counts(self) -> dict:
        out: dict[str, dict[str, dict[str, int]]] = {}
        for (split, label, key), k in self.counts.items():
            out.setdefault(split, {}).setdefault(label, {})[key] = k
        return {s: {lab: dict(sorted(v.items())) for lab, v in sorted(d.items())}
                for s, d in sorted(out.items())}

    def totals(self) -> dict:
        out: dict[str, Counter] = {}
        for (split, label, _), k in self.counts.items():
            out.setdefault(split, Counter())[label] += k
        return {s: dict(sorted(out[s].items())) for s in sorted(out)}

    def records_per_split(self) -> Counter:
        out: Counter = Counter()
        for (split, _, _), k in self.counts.items():
            out[split] += k
        return out

    # -- what the card reads -------------------------------------------------------------
    def card_seen(self) -> Counter:
        return Counter(self.seen)

    def card_by(self) -> dict[str, dict[str, Counter]]:
        out: dict[str, dict[str, Counter]] = {f: {} for f in self.card_fields}
        for (f, value, label), k in sorted(self.by.items(), key=lambda kv: kv[0]):
            out[f].setdefault(value, Counter())[label] = k
        return out

    def sampled_records(self) -> list[tuple[int, dict]]:
        return sorted(self.records.items())

    # -- as JSON (a shard's part, merged by `gen merge`) ----------------------------------
    def to_json(self) -> dict:
        return {"card_fields": list(self.card_fields),
                "counts": [[*k, v] for k, v in sorted(self.counts.items())],
                "seen": [[*k, v] for k, v in sorted(self.seen.items())],
                "by": [[*k, v] for k, v in sorted(self.by.items())],
                "records": [[i, r] for i, r in sorted(self.records.items())],
                "excluded_hits": sorted(self.excluded_hits)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Tally":
        t = cls(card_fields=list(data["card_fields"]))
        t.counts = Counter({tuple(row[:3]): row[3] for row in data["counts"]})
        t.seen = Counter({(row[0], row[1]): row[2] for row in data["seen"]})
        t.by = Counter({tuple(row[:3]): row[3] for row in data["by"]})
        t.records = {int(i): r for i, r in data["records"]}
        t.excluded_hits = set(data.get("excluded_hits", ()))
        return t


# -- formatting -----------------------------------------------------------------------

class Formatter:
    """Records as text lines in one format: JSONL, or a TSV layout whose columns were
    fixed beforehand (:func:`tsv_columns`)."""

    def __init__(self, family: str, split_name: str | None, fmt: str,
                 layout: TsvFormat | None = None,
                 columns: Mapping[str, list[str]] | None = None):
        self.family = family
        self.split_name = split_name
        self.fmt = fmt
        self.layout = layout
        self.columns = dict(columns or {})
        self.encoder = RecordEncoder(family, split_name)
        self._heads: dict[str, str | None] = {}

    def text(self, index: int, si: SplitItem, file_key: str) -> str:
        if self.layout is None:
            return self.encoder.line(index, si.item, si.split, si.seen)
        record = make_record(self.family, index, si.item, si.split, si.seen, self.split_name)
        row = self.layout.row(record)
        return "\t".join(tsv_cell(row.get(c)) for c in self.columns[file_key]) + "\n"

    def header(self, file_key: str) -> str:
        return "\t".join(self.columns[file_key]) + "\n"

    # -- lines written before their index is known (parallel finding) -----------------
    # How a line can begin with its index: {"id": "family-000042", family-000042 (a TSV's
    # id column), 42 (Jamp's num column), or not at all.
    HEADS = ("json-id", "tsv-id", "number", "")

    def head_prefix(self, head: str) -> str:
        """What a line begins with before its index."""
        return {"json-id": self.encoder._id_prefix, "tsv-id": f"{self.family}-"}.get(head, "")

    @staticmethod
    def index_bytes(head: str, index: int) -> bytes:
        """The index as a line's beginning writes it."""
        if head in ("json-id", "tsv-id"):
            return b"%06d" % index
        return b"%d" % index if head == "number" else b""

    def head_text(self, head: str, index: int) -> str:
        return self.head_prefix(head) + self.index_bytes(head, index).decode()

    def head(self, si: SplitItem, file_key: str) -> str | None:
        """How the item's line begins with its index (one of HEADS), when nothing else
        in it depends on the index; None when the index shows elsewhere."""
        if file_key in self._heads:
            return self._heads[file_key]
        found = None
        probes = (0, 1, 1_234_567)
        lines = [self.text(i, si, file_key) for i in probes]
        for head in self.HEADS:
            begins = [self.head_text(head, i) for i in probes]
            if all(line.startswith(b) for line, b in zip(lines, begins)) and len(
                    {line[len(b):] for line, b in zip(lines, begins)}) == 1:
                found = head
                break
        self._heads[file_key] = found
        return found

    def rest(self, si: SplitItem, file_key: str, head: str) -> str:
        """The item's line without its beginning (see :meth:`head`)."""
        return self.text(0, si, file_key)[len(self.head_text(head, 0)):]

    def index_at_start(self, job: "Job") -> bool:
        """Whether lines show their index only at their start (so workers can write them
        before they know it), judged on the first item."""
        for index, si in iter_items(job.source, stop=1):
            return self.head(si, si.split if job.per_split else "") is not None
        return False


def tsv_columns(source: Source, family: str, split_name: str | None, layout: TsvFormat,
                per_split: bool) -> tuple[dict[str, list[str]], dict[str, int]]:
    """The columns of each TSV file, from its first TSV_HEAD records as a whole run
    writes them, and the index of each file's first record: ({key: columns},
    {key: index}); a file's key is its split (per_split) or "" (one file)."""
    ranges: list[tuple[int, int]] = []
    if source.streams:  # only the heads are built; the rest is found
        taken: Counter = Counter()
        offset = 0
        for part in source.parts:
            key = part.split if per_split else ""
            take = min(part.n, TSV_HEAD - taken[key])
            if take > 0:
                ranges.append((offset, offset + take))
                taken[key] += take
            offset += part.n
    stop = max((b for _, b in ranges), default=0) if source.streams else None

    def owner(i: int) -> bool:
        return any(a <= i < b for a, b in ranges)

    heads: dict[str, list[dict]] = {}
    first: dict[str, int] = {}
    for index, si in iter_items(source, stop=stop, owner=owner if source.streams else None):
        key = si.split if per_split else ""
        if key not in first:
            first[key] = index
            heads[key] = []
        if len(heads[key]) < TSV_HEAD:
            heads[key].append(make_record(family, index, si.item, si.split, si.seen,
                                          split_name))
    return {k: layout.columns(v) for k, v in heads.items()}, first


# -- producing text ------------------------------------------------------------------------

@dataclass
class Job:
    """What to make: the items [start, stop) of a source, as text in one format, with the
    tally the output needs. ``per_split``: one file per split (a folder), else one file."""

    source: Source
    formatter: Formatter
    start: int
    stop: int
    per_split: bool
    tally: Tally
    firsts: Mapping[str, int] = field(default_factory=dict)  # TSV: index of each file's 1st record


Piece = tuple[dict[str, str], Tally, int]  # (text per file key, tally of the piece, items)


def _key(si: SplitItem, per_split: bool) -> str:
    return si.split if per_split else ""


def pieces_of(job: Job, owner: Callable[[int], bool] | None = None) -> Iterator[tuple[int, Piece]]:
    """The job's items in pieces of up to CHUNK items (a piece never spans two chunks):
    (chunk number, piece), in order. ``owner(chunk)`` picks chunks (workers)."""
    fmt, tally, per_split = job.formatter, job.tally, job.per_split
    family, split_name = fmt.family, fmt.split_name
    texts: dict[str, list[str]] = {}
    part = Tally(tally.card_fields, tally.sample, tally.full)
    current, count = None, 0
    item_owner = None if owner is None else (lambda i: owner(i // CHUNK))
    for index, si in iter_items(job.source, job.start, job.stop, item_owner):
        chunk = index // CHUNK
        if chunk != current:
            if current is not None:
                yield current, ({k: "".join(v) for k, v in texts.items()}, part, count)
                texts, part, count = {}, Tally(tally.card_fields, tally.sample, tally.full), 0
            current = chunk
        key = _key(si, per_split)
        lines = texts.get(key)
        if lines is None:
            lines = texts[key] = []
            if fmt.layout is not None and job.firsts.get(key) == index:
                lines.append(fmt.header(key))
        lines.append(fmt.text(index, si, key))
        part.add(index, si, family, split_name)
        count += 1
    if current is not None:
        yield current, ({k: "".join(v) for k, v in texts.items()}, part, count)

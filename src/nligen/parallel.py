"""``--workers N``: finding and building in N processes, the same bytes as one.

A run's units depend on each other only through the dedup set: which filling a cell
walks to next depends on its own walk, and a unit is dropped when its pairs came
before. So each worker process (and this one, for a small share) takes a share of the
cells and finds *their* units as if every unit were kept (:meth:`Engine.cell_stream`), builds them (items, pair checks,
records, each line without its index) and sends them here. This process takes the units
in plan order (:meth:`Engine.accept`): a unit whose pairs came before is searched on
here, exactly as one process searches, and the worker's next unit starts where that
search leaves the walk, so its stream stays right. Each line then gets its index and
is written in order.

Work is asked for in blocks of about CHUNK items, a few blocks ahead, so memory stays
flat. Formats whose lines show the index anywhere but at their start (none shipped)
are made in one process.
"""

from __future__ import annotations

import gc
import json
import math
import queue
from array import array
from collections import Counter, deque
from itertools import islice
from typing import Any, Iterator

from .engine import young_collections_rarer
from .errors import NligenError
from . import pipeline
from .pipeline import Job, Piece, SplitItem, Tally, pieces_of
from .records import head_value, make_record, wants_seen

AHEAD = 2  # blocks asked for beyond the one being taken
OWN_SHARE = 0.15  # this process's weight in sharing out the cells (a worker's: 1)


AUTO_MAX_WORKERS = 4  # beyond this the one process that takes and writes is the limit


def auto_workers() -> int:
    """The workers ``--workers auto`` uses: the cores this process may run on (at most
    AUTO_MAX_WORKERS), or 1 where processes cannot be forked (the workers inherit the
    loaded templates and lexicons). The bytes written are the same for any number."""
    import multiprocessing as mp
    import os

    if "fork" not in mp.get_all_start_methods():
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(cores, AUTO_MAX_WORKERS))


def produce(job: Job, workers: int = 1) -> Iterator[Piece]:
    """The job's pieces in order, made here or by ``workers`` processes."""
    if workers <= 1 or not job.source.streams or job.stop - job.start <= pipeline.CHUNK \
            or not job.formatter.index_at_start(job):
        for _, piece in pieces_of(job):
            yield piece
        return
    yield from produce_parallel(job, workers)


def produce_parallel(job: Job, workers: int) -> Iterator[Piece]:
    """The job's pieces, found and built by ``workers`` processes (this one takes them
    in order and writes): the same pieces (so the same bytes) as
    :func:`nligen.pipeline.pieces_of`."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")  # workers inherit the loaded templates and lexicons
    inboxes = [ctx.Queue() for _ in range(workers)]
    outboxes = [ctx.Queue() for _ in range(workers)]
    procs = [ctx.Process(target=_worker, args=(job, w, inboxes[w], outboxes[w]), daemon=True)
             for w in range(workers)]
    gc.freeze()  # the workers' collector leaves what exists now alone (no copied pages)
    try:
        for p in procs:
            p.start()
    finally:
        gc.unfreeze()
    try:
        with young_collections_rarer():
            yield from _take(job, _Workers(job, inboxes, outboxes, procs))
    finally:
        for inbox in inboxes:
            inbox.put(None)
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
                p.join()


class _Workers:
    """Which worker finds which cell's units, and the candidates they sent, by (part,
    cell)."""

    def __init__(self, job: Job, inboxes, outboxes, procs):
        self.job = job
        self.inboxes, self.outboxes, self.procs = inboxes, outboxes, procs
        self.count = len(procs)
        self.buffers: dict[tuple[int, int], deque] = {}
        self.asked = [0] * self.count  # requests a worker has not answered yet
        self.owners: dict[int, list[int]] = {}  # part -> owner of each cell

    def assign(self, part: int, cells: int) -> None:
        """Cells to workers in turn, each to the one with the least work for its weight;
        this process (-1) takes a small share too (it waits for the workers a quarter of
        its time)."""
        load = [0.0] * (self.count + 1)  # 0: this process
        weight = [OWN_SHARE] + [1.0] * self.count
        owners = []
        for _ in range(cells):
            k = min(range(self.count + 1), key=lambda i: ((load[i] + 1) / weight[i], -i))
            load[k] += 1
            owners.append(k - 1)
        self.owners[part] = owners

    def ask(self, part: int, counts: dict[int, int], build: bool) -> None:
        shares: dict[int, dict[int, int]] = {}
        owners = self.owners[part]
        for c, k in counts.items():
            if owners[c] >= 0:
                shares.setdefault(owners[c], {})[c] = k
        for w, share in shares.items():
            self.inboxes[w].put((part, share, build))
            self.asked[w] += 1

    def receive(self, w: int) -> None:
        while True:
            try:
                message = self.outboxes[w].get(timeout=1)
                break
            except queue.Empty:
                if not self.procs[w].is_alive():
                    raise RuntimeError("a worker process stopped") from None
        if message[0] == "error":
            raise message[1]
        self.asked[w] -= 1
        part, units = message[1], _unpack(message[2])
        for c, candidates in units.items():
            self.buffers.setdefault((part, c), deque()).extend(candidates)

    def stream(self, part: int, c: int, cells, build: list[bool]) -> Iterator[tuple]:
        """Cell c's candidates, as its worker sent them (asked for more when none are
        left)."""
        w = self.owners[part][c]
        if w < 0:  # found here
            local = _candidates(self.job, self.job.source.parts[part], cells, c)
            next(local)
            while True:
                yield local.send(build[0])
        buffer = self.buffers.setdefault((part, c), deque())
        while True:
            while not buffer:
                if not self.asked[w]:  # a unit was dropped: its cell needs more
                    self.ask(part, {c: 4}, build[0])
                self.receive(w)
            yield buffer.popleft()


def _take(job: Job, workers: _Workers) -> Iterator[Piece]:
    """Take the candidates in plan order, part by part, and yield the pieces."""
    fmt, tally = job.formatter, job.tally
    out = _Out(job)
    seen = job.source.new_seen()
    offset = 0
    for p, part in enumerate(job.source.parts):
        if offset >= job.stop:
            break
        engine = part.engine
        cells = engine.prepare(part.n, part.side, part.side_filter)
        workers.assign(p, len(cells))
        plan = engine.plan(cells, part.n)
        per_step = sum(c.pairs_per_unit for c in cells) / len(cells)
        size = max(len(cells), math.ceil(pipeline.CHUNK / per_step))
        blocks: deque[tuple[list, bool]] = deque()
        asked_until = offset  # index of the first item not asked for yet
        build_now = [True]  # whether extra candidates are asked for built

        def ask_next() -> bool:
            nonlocal asked_until
            steps = list(islice(plan, size))
            if not steps:
                return False
            counts: dict[int, int] = {}
            items = 0
            for c, _, keep in steps:
                counts[c] = counts.get(c, 0) + 1
                items += keep
            build = asked_until + items > job.start and asked_until < job.stop
            workers.ask(p, counts, build)
            blocks.append((steps, build))
            asked_until += items
            return True

        for _ in range(AHEAD + 1):
            if not ask_next():
                break
        streams: dict[int, Iterator[tuple]] = {}
        first = offset
        while blocks and first < job.stop:
            steps, build_now[0] = blocks.popleft()
            ask_next()
            for c, index, keep in steps:
                if first >= job.stop:
                    break
                stream = streams.get(c)
                if stream is None:
                    stream = streams[c] = workers.stream(p, c, cells, build_now)
                found, candidate = engine.accept(cells, c, index, part.side, seen, stream)
                if first + keep > job.start:
                    rows = candidate[4] if candidate is not None else None
                    if rows is None:  # found here, or sent unbuilt: build it here
                        if found is None:
                            found = engine.found_at(cells, c, index, part.side, *candidate[3])
                        rows = [_row(job, si) for si in _built(part, cells, c, index, found)]
                    place = candidate[3] if candidate is not None else found[7]
                    for k in range(keep):
                        if job.start <= first + k < job.stop:
                            piece = out.add(first + k, rows[k], part,
                                            lambda k=k: _built(part, cells, c, index,
                                                               engine.found_at(
                                                                   cells, c, index,
                                                                   part.side, *place))[k])
                            if piece is not None:
                                yield piece
                first += keep
        offset += part.n
    last = out.flush()
    if last is not None:
        yield last
    del fmt, tally


class _Out:
    """Lines and tallies gathered into pieces of CHUNK items."""

    def __init__(self, job: Job):
        self.job = job
        self.fmt = job.formatter
        self.texts: dict[str, list[bytes]] = {}
        self.tally = self._tally()
        self.count = 0
        self._heads: dict[str, bytes] = {}  # a line's beginning before its index
        self._kinds: Counter = Counter()  # (split, label, variant, seen, card values) -> n

    def _tally(self) -> Tally:
        t = self.job.tally
        return Tally(t.card_fields, t.sample, t.full)

    def add(self, index: int, row: tuple, part, item_again) -> Piece | None:
        key, head, rest, label, variant, seen, card = row
        fmt = self.fmt
        lines = self.texts.get(key)
        if lines is None:
            lines = self.texts[key] = []
        if fmt.layout is not None and self.job.firsts.get(key) == index:
            lines.append(fmt.header(key).encode())
        begin = self._heads.get(head)
        if begin is None:
            begin = self._heads[head] = fmt.head_prefix(head).encode()
        start = begin + fmt.index_bytes(head, index)
        lines.append(start)
        lines.append(rest)
        tally = self.tally
        # one count per kind of item here; the tally's counters are filled at the flush
        kind = (part.split, label, variant, seen, card)
        try:
            self._kinds[kind] += 1
        except TypeError:  # a card value that is a list or mapping: kept apart
            card = tuple(None if v is None else str(v) for v in card)
            self._kinds[(part.split, label, variant, seen, card)] += 1
        if tally.full and (tally.sample is None or index in tally.sample):
            if fmt.layout is None:  # a JSON line is the record (RecordEncoder): read back
                tally.records[index] = json.loads(start + rest)
            else:  # built again here (a worker's candidate carries only its line)
                si = item_again()
                tally.records[index] = make_record(fmt.family, index, si.item, si.split,
                                                   si.seen, fmt.split_name)
        self.count += 1
        return self.flush() if self.count >= pipeline.CHUNK else None

    def _count_kinds(self) -> None:
        """The kinds of items counted since the last flush, into the tally (what
        Tally.add counts of each item)."""
        tally, split_name = self.tally, self.fmt.split_name
        for (split, label, variant, seen, card), n in self._kinds.items():
            tally.counts[(split, label, variant)] += n
            if not tally.full:
                continue
            if wants_seen(split, seen, split_name):
                tally.seen[(split, bool(seen))] += n
            for f, value in zip(tally.card_fields, card or ()):
                if value is not None:
                    tally.by[(f, str(value), label)] += n
        self._kinds.clear()

    def flush(self) -> Piece | None:
        if not self.count:
            return None
        self._count_kinds()
        piece = ({k: b"".join(v) for k, v in self.texts.items()}, self.tally, self.count)
        self.texts, self.tally, self.count = {}, self._tally(), 0
        return piece


def _built(part, cells, c: int, index: int, found: tuple) -> list[SplitItem]:
    """The unit's items, built from its found tuple (pair checks included)."""
    engine = part.engine
    cell = cells[c]
    engine._pair_checks(cell, found[2], found[3])
    flag = part.seen
    return [SplitItem(item, part.split, flag(item) if flag else None)
            for item in engine._unit_items(cell, c, index, part.side, found)]


def _row(job: Job, si: SplitItem) -> tuple:
    """What this process writes and tallies of an item: (file key, how its line begins,
    the rest of the line, label, variant or template, seen flag, card field values)."""
    fmt = job.formatter
    key = si.split if job.per_split else ""
    head = fmt.head(si, key)
    item = si.item
    card = None
    if job.tally.full and job.tally.card_fields:
        card = tuple(head_value(item, f, si.split, si.seen, fmt.split_name, fmt.family)
                     for f in job.tally.card_fields)
    # the line encoded here: a worker's encoding is work this process does not do
    return (key, head, fmt.rest(si, key, head).encode(), item.label,
            item.variant.name or item.template.id, si.seen, card)


# -- the worker side -------------------------------------------------------------------

def _worker(job: Job, w: int, inbox, outbox) -> None:
    try:
        with young_collections_rarer():
            _serve(job, inbox, outbox)
    except BaseException as exc:  # noqa: BLE001 - sent to the parent, which raises it
        if not isinstance(exc, NligenError):
            exc = RuntimeError(f"worker {w}: {type(exc).__name__}: {exc}")
        outbox.put(("error", exc))


def _serve(job: Job, inbox, outbox) -> None:
    parts = job.source.parts
    prepared: dict[int, list] = {}
    streams: dict[tuple[int, int], Any] = {}
    while True:
        request = inbox.get()
        if request is None:
            return
        p, share, build = request
        part = parts[p]
        cells = prepared.get(p)
        if cells is None:
            cells = prepared[p] = part.engine.prepare(part.n, part.side, part.side_filter)
        units: dict[int, list] = {}
        for c, k in share.items():
            stream = streams.get((p, c))
            if stream is None:
                stream = streams[(p, c)] = _candidates(job, part, cells, c)
                next(stream)
            units[c] = [stream.send(build) for _ in range(k)]
        outbox.put(("units", p, _pack(units)))


def _pack(units: dict[int, list[tuple]]) -> tuple:
    """A worker's answer as a few flat arrays and one byte string: pickled and read
    back about eight times faster than the tuples themselves (whose pickling took a
    sixth of the time of making them)."""
    numbers, keys, meta_ids, lengths = array("q"), array("Q"), array("q"), array("q")
    metas: dict[tuple, int] = {}
    blob: list[bytes] = []
    errors: dict[int, tuple] = {}
    for c, candidates in units.items():
        for index, misses, found_keys, place, rows in candidates:
            if found_keys is None:
                errors[c] = (index, misses, rows)
                break
            numbers.extend((c, index, misses[0], misses[1], len(found_keys), place[0],
                            place[1], -1 if rows is None else len(rows)))
            keys.extend(found_keys)
            for key, head, rest, label, variant, seen, card in rows or ():
                meta = (key, head, label, variant, seen, card)
                meta_ids.append(metas.setdefault(meta, len(metas)))
                lengths.append(len(rest))
                blob.append(rest)
    return (numbers.tobytes(), keys.tobytes(), meta_ids.tobytes(), lengths.tobytes(),
            list(metas), b"".join(blob), errors)


def _unpack(packed: tuple) -> dict[int, list[tuple]]:
    numbers, keys, meta_ids, lengths = (array(code, data) for code, data in
                                        zip("qQqq", packed[:4]))
    metas, blob, errors = packed[4], memoryview(packed[5]), packed[6]
    units: dict[int, list[tuple]] = {}
    n = k = m = offset = 0
    while n < len(numbers):
        c, index, miss0, miss1, nkeys, position, draw, nrows = numbers[n:n + 8]
        n += 8
        found_keys = list(keys[k:k + nkeys])
        k += nkeys
        rows = None
        if nrows >= 0:
            rows = []
            for _ in range(nrows):
                key, head, label, variant, seen, card = metas[meta_ids[m]]
                end = offset + lengths[m]
                rows.append((key, head, blob[offset:end], label, variant, seen, card))
                offset = end
                m += 1
        units.setdefault(c, []).append((index, [miss0, miss1], found_keys, (position, draw),
                                        rows))
    for c, (index, misses, error) in errors.items():
        units.setdefault(c, []).append((index, misses, None, None, error))
    return units


def _candidates(job: Job, part, cells, c: int):
    """Cell c's candidates as a worker sends them, (index, misses, keys, (position,
    draw), rows): rows (see :func:`_row`) when the value sent in asks for them built,
    else None; after the cell ran out, (index, misses, None, None, error) for ever."""
    engine = part.engine
    build = yield None
    for index, misses, found in engine.cell_stream(cells, c, part.side):
        if isinstance(found, NligenError):
            while True:
                yield index, misses, None, None, found
        rows = None
        if build:
            rows = [_row(job, si) for si in _built(part, cells, c, index, found)]
        build = yield index, misses, found[4], found[7], rows

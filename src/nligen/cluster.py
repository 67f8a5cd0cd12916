"""Generation on a Dask cluster (``--dask ADDRESS``, ``Dataset.write(cluster=...)``).

The items of a run are cut into contiguous ranges; each range is a task that makes the
dataset again from its recipe (a generating command, or the arguments of
:func:`nligen.generate`), finds the units before its range and builds its own
(:mod:`nligen.pipeline`). The client writes the ranges' text in order, as a local run
writes its chunks, so the files are the same bytes. A worker process keeps the datasets
it made, so the templates and lexicons load once per worker, not once per task.

Needs ``dask.distributed`` (``pip install 'nligen[dask]'``).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Iterator

from .errors import UsageError
from .pipeline import CHUNK, Formatter, Job, Piece, Tally, audit_sample, pieces_of

RANGE = 100_000  # items per task at most; more, smaller tasks balance a cluster better
_DATASETS: dict[str, Any] = {}  # a worker's datasets, by recipe


def _client(cluster: Any):
    try:
        from dask.distributed import Client
    except ImportError:
        raise UsageError("needs dask.distributed: pip install 'nligen[dask]'", "--dask") from None
    if isinstance(cluster, Client):
        return cluster, False
    if not isinstance(cluster, str):
        raise UsageError(f"not a scheduler address or a Client: {cluster!r}", "--dask")
    try:
        return Client(cluster, timeout="10s"), True
    except (OSError, TimeoutError) as exc:
        raise UsageError(f"cannot reach the scheduler: {exc}", cluster) from None


def produce_on_cluster(ds, job: Job, cluster: Any) -> Iterator[Piece]:
    """The job's pieces, made by tasks on a Dask cluster, in order."""
    if ds.recipe is None:
        raise UsageError("this dataset cannot be made again on a cluster (made from objects, "
                         "not from template and lexicon paths)", "--dask")
    if not job.source.streams:
        # the split assigns items only once all are made: build here (nothing to share)
        from .parallel import produce

        yield from produce(job)
        return
    client, own = _client(cluster)
    try:
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        total = job.stop - job.start
        count = max(min(2 * workers, math.ceil(total / CHUNK)), math.ceil(total / RANGE))
        bounds = [job.start + k * total // count for k in range(count + 1)]
        fmt = job.formatter
        spec = {"recipe": ds.recipe, "fmt": fmt.fmt, "columns": fmt.columns,
                "per_split": job.per_split, "card_fields": list(job.tally.card_fields),
                "full": job.tally.full, "sampled": job.tally.sample is not None,
                "firsts": dict(job.firsts)}
        window = 2 * workers  # ranges in flight: the client holds a few ranges' text
        futures = [client.submit(build_range, spec, bounds[k], bounds[k + 1], pure=False)
                   for k in range(min(window, count))]
        submitted = len(futures)
        for k in range(count):
            pieces = futures[k].result()
            futures[k] = None  # let the client forget the text once written
            if submitted < count:
                futures.append(client.submit(build_range, spec, bounds[submitted],
                                             bounds[submitted + 1], pure=False))
                submitted += 1
            yield from pieces
    finally:
        if own:
            client.close()


def build_range(spec: dict, start: int, stop: int) -> list[Piece]:
    """A task: the pieces of items [start, stop) of the dataset the recipe makes."""
    make: Callable[..., Any]
    make, kwargs = spec["recipe"]
    key = repr((make.__module__, make.__qualname__, sorted(kwargs.items())))
    ds = _DATASETS.get(key)
    if ds is None:
        ds = _DATASETS[key] = make(**kwargs)
    layout = ds._layout(spec["fmt"])
    formatter = Formatter(ds.family, ds.split_name, spec["fmt"], layout, spec["columns"])
    sample = audit_sample(len(ds), ds.seed) if spec["sampled"] else None
    tally = Tally(spec["card_fields"], sample, spec["full"])
    job = Job(ds.source, formatter, start, stop, spec["per_split"], tally, spec["firsts"])
    pieces = [piece for _, piece in pieces_of(job)]
    if pieces:  # the excluded pairs met on the way (pipeline.WatchedSet)
        pieces[-1][1].excluded_hits.update(ds.source.hits)
    return pieces

"""Fresh sets matched to a released one (``--match FILE``, ``--exclude FILE...``).

A family reads the released file's cells (Jamp: template, label, time format and span;
WOGLI: pattern and label) into :class:`nligen.plans.CellQuota` s; this module reads the
files (TSV with a header, or JSONL), keeps each file's SHA-256 for the manifest, and
fingerprints their (premise, hypothesis) pairs, which no problem of the new set may
equal (:class:`nligen.pipeline.WatchedSet`).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from .datafiles import read_utf8
from .errors import UsageError
from .plans import CellQuota
from .rng import pair_fingerprint


@dataclass
class Table:
    """A file's rows (dicts of strings, with their line numbers) and its digest."""

    name: str
    sha256: str
    rows: list[tuple[int, dict[str, str]]]

    def fingerprints(self) -> set[int]:
        return {pair_fingerprint(row["premise"], row["hypothesis"]) for _, row in self.rows}


@dataclass
class Match:
    """What a matched set is made from: its cells and the pairs it must not repeat."""

    quotas: list[CellQuota]
    excluded: frozenset[int]
    provenance: dict[str, Any] = field(default_factory=dict)  # manifest: files and digests

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> "Match":
        """The match a manifest records (``gen verify`` makes the set again from it,
        without the files): its cells, and the excluded pairs the run met."""
        try:
            quotas = [CellQuota.from_json(row) for row in manifest["match_cells"]]
            hits = frozenset(int(h, 16) for h in manifest.get("excluded_hits", ()))
        except (KeyError, TypeError, ValueError) as exc:
            raise UsageError(f"its match_cells or excluded_hits are not readable ({exc})",
                             "manifest.json") from None
        provenance = {k: manifest[k] for k in ("match", "exclude") if k in manifest}
        return cls(quotas, hits, provenance)


def read_table(path: str | Path, required: Sequence[str]) -> Table:
    """A TSV with a header (or JSONL, one object per line) holding ``required`` columns
    (and premise and hypothesis)."""
    where = str(path)
    raw, text = read_utf8(path, UsageError)
    wanted = list(dict.fromkeys(["premise", "hypothesis", *required]))
    rows = list(_json_rows(text, where) if _looks_like_jsonl(text) else _tsv_rows(text, where))
    if not rows:
        raise UsageError("no problems in the file", where)
    for line, row in rows:
        missing = [c for c in wanted if c not in row]
        if missing:
            raise UsageError(f"line {line} has no {', '.join(missing)} (needs the columns "
                             f"{', '.join(wanted)})", where)
        for c in wanted:
            if not isinstance(row[c], str):
                row[c] = "" if row[c] is None else str(row[c])
    return Table(Path(path).name, hashlib.sha256(raw).hexdigest(), rows)


def _looks_like_jsonl(text: str) -> bool:
    return text.lstrip().startswith("{")


def _json_rows(text: str, where: str) -> Iterator[tuple[int, dict]]:
    for line, content in enumerate(text.splitlines(), start=1):
        if not content.strip():
            continue
        try:
            row = json.loads(content)
        except ValueError as exc:
            raise UsageError(f"line {line} is not JSON: {exc}", where) from None
        if not isinstance(row, dict):
            raise UsageError(f"line {line} is not a JSON object", where)
        yield line, row


def _tsv_rows(text: str, where: str) -> Iterator[tuple[int, dict]]:
    reader = csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    header = next(reader, None)
    if not header or "premise" not in header or "hypothesis" not in header:
        raise UsageError("expected a TSV header with premise and hypothesis columns (or "
                         "JSONL)", where)
    for line, cells in enumerate(reader, start=2):
        if not cells:
            continue
        if len(cells) != len(header):
            raise UsageError(f"line {line} has {len(cells)} cells, the header "
                             f"{len(header)}", where)
        yield line, dict(zip(header, cells))


def read_exclusions(paths: Sequence[str | Path]) -> tuple[set[int], list[dict[str, Any]]]:
    """The pairs of ``--exclude`` files, and what the manifest says of each file."""
    pairs: set[int] = set()
    listed = []
    for path in paths:
        table = read_table(path, ())
        found = table.fingerprints()
        pairs |= found
        listed.append({"file": table.name, "sha256": table.sha256, "pairs": len(found)})
    return pairs, listed


def build_match(table: Table, quotas: list[CellQuota], exclude: Sequence[str | Path] = ()
                ) -> Match:
    """A match from the released file's table and cells, with ``--exclude`` files."""
    pairs = table.fingerprints()
    others, listed = read_exclusions(exclude)
    provenance: dict[str, Any] = {"match": {"file": table.name, "sha256": table.sha256,
                                            "problems": len(table.rows),
                                            "cells": len(quotas)}}
    if listed:
        provenance["exclude"] = listed
    return Match(quotas, frozenset(pairs | others), provenance)


def count_cells(rows: Iterable[tuple[tuple, CellQuota]]) -> list[CellQuota]:
    """The cells of a file's rows, counted: each row is (sort key, its cell with count 1
    and how the file names it); one quota per distinct cell, in the order of the keys."""
    counted: dict[tuple, list] = {}
    for rank, cell in rows:
        key = (cell.template, cell.variant, cell.label, cell.time_format, cell.time_span)
        entry = counted.setdefault(key, [rank, cell, 0])
        entry[2] += 1
    return [replace(cell, count=count)
            for _, cell, count in sorted(counted.values(), key=lambda e: e[0])]

"""Writing datasets: JSONL / TSV files, per-split folders, manifest and dataset card.

Every file is written atomically: to a temporary file in the target folder, renamed
into place only when the whole run succeeded.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from .errors import UsageError

FORMAT_EXT = {"jsonl": "jsonl", "tsv": "tsv"}


@dataclass
class TsvFormat:
    """A TSV layout: a header and a function from record to row values."""

    name: str
    header: Sequence[str] | Callable[[Sequence[Mapping[str, Any]]], Sequence[str]]
    row: Callable[[Mapping[str, Any]], Mapping[str, Any]]

    def columns(self, records: Sequence[Mapping[str, Any]]) -> list[str]:
        return list(self.header(records) if callable(self.header) else self.header)


GENERIC_TSV_COLUMNS = ("id", "premise", "hypothesis", "label", "split", "seen", "template")


def _generic_columns(records: Sequence[Mapping[str, Any]]) -> list[str]:
    cols = list(GENERIC_TSV_COLUMNS)
    for rec in records[:1000]:
        for k, v in rec.items():
            if k not in cols and k not in ("slots", "rationale") and not isinstance(v, (dict, list)):
                cols.append(k)
    if not any("seen" in r for r in records):
        cols.remove("seen")
    return cols


GENERIC_TSV = TsvFormat("tsv", _generic_columns, lambda rec: rec)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    return text.replace("\t", " ").replace("\n", " ").replace("\r", " ")


def render_jsonl(records: Iterable[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def render_tsv(records: Sequence[Mapping[str, Any]], fmt: TsvFormat) -> str:
    cols = fmt.columns(records)
    buf = io.StringIO()
    buf.write("\t".join(cols) + "\n")
    for rec in records:
        row = fmt.row(rec)
        buf.write("\t".join(_cell(row.get(c)) for c in cols) + "\n")
    return buf.getvalue()


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_dir_target(path: str | os.PathLike) -> bool:
    s = os.fspath(path)
    return s.endswith(("/", os.sep)) or os.path.isdir(s)


def write_files_atomically(folder: Path, files: Mapping[str, str]) -> None:
    """Write several text files into ``folder``: all temporary first, then renamed."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create folder: {exc.strerror}", str(folder)) from None
    temps: list[tuple[str, Path]] = []
    try:
        for name, text in files.items():
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
            temps.append((tmp, folder / name))
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
            os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual mode
        for tmp, final in temps:
            os.replace(tmp, final)
    except OSError as exc:
        for tmp, _ in temps:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        raise UsageError(f"cannot write: {exc.strerror}", str(folder)) from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_file_atomically(path: Path, text: str) -> None:
    if path.exists() and path.is_dir():
        raise UsageError("is a folder (end the path with / to write per-split files)", str(path))
    write_files_atomically(path.parent if str(path.parent) else Path("."), {path.name: text})


def write_stdout(text: str) -> None:
    out = sys.stdout
    try:
        out.write(text)
        out.flush()
    except BrokenPipeError:  # `gen ... | head`
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass

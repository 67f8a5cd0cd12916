"""Writing datasets: JSONL / TSV files, per-split folders, manifest and dataset card.

Every file is written atomically: to a temporary file in the target folder, renamed
into place only when the whole run succeeded.
"""

from __future__ import annotations

import hashlib
import os
import queue
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence, Union

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


def tsv_cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    return text.replace("\t", " ").replace("\n", " ").replace("\r", " ")


def is_dir_target(path: str | os.PathLike) -> bool:
    s = os.fspath(path)
    return s.endswith(("/", os.sep)) or os.path.isdir(s)


Content = Union[str, Iterable[str]]


class AtomicFiles:
    """Files written into one folder together, each streamed to a temporary file beside
    its target and renamed into place only by :meth:`commit`; :meth:`abort` (or leaving
    a ``with`` block by an exception) removes the temporary files and any folder this
    created. Each file's SHA-256 is computed as it is written (``hashed``).

    Writing and hashing run in a background thread: both release the GIL on large
    buffers, so they overlap with generation (hashing 450 MB of JSONL took 7 % of a
    WOGLI run's time in the main thread). A bounded queue keeps memory flat."""

    _DONE = object()

    def __init__(self, folder: Path, hashed: bool = True):
        self.folder = folder
        self.hashed = hashed
        self._created = [p for p in [folder, *folder.parents] if not p.exists()]
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            _remove_empty(self._created)
            raise UsageError(f"cannot create folder: {exc.strerror}", str(folder)) from None
        # name -> [file, temp path, sha256 or None, closed]
        self._open: dict[str, list] = {}
        self._digests: dict[str, str | None] = {}
        self._queue: queue.Queue = queue.Queue(maxsize=8)
        self._thread: threading.Thread | None = None
        self._error: OSError | None = None

    def _run(self) -> None:
        while True:
            task = self._queue.get()
            try:
                if task is self._DONE:
                    return
                entry, data = task
                if self._error is None:
                    entry[0].write(data)
                    if entry[2] is not None:
                        entry[2].update(data)
            except OSError as exc:
                self._error = exc
            finally:
                self._queue.task_done()

    def _raise_error(self) -> None:
        if self._error is not None:
            raise UsageError(f"cannot write: {self._error.strerror}", str(self.folder))

    def write(self, name: str, text: str | bytes) -> None:
        """Text (written as UTF-8), or bytes already encoded."""
        self.write_bytes(name, text if isinstance(text, bytes) else text.encode("utf-8"))

    def write_bytes(self, name: str, data: bytes) -> None:
        entry = self._open.get(name)
        if entry is None:
            try:
                fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=self.folder)
            except OSError as exc:
                raise UsageError(f"cannot write: {exc.strerror}", str(self.folder)) from None
            entry = self._open[name] = [os.fdopen(fd, "wb"), tmp,
                                        hashlib.sha256() if self.hashed else None, False]
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="nligen-writer",
                                            daemon=True)
            self._thread.start()
        self._raise_error()
        if data:
            self._queue.put((entry, data))

    def _flush(self) -> None:
        if self._thread is not None:
            self._queue.join()
        self._raise_error()

    def put(self, name: str, content: Content) -> None:
        """A whole file (text, or chunks of text)."""
        self.write(name, "")
        for chunk in ([content] if isinstance(content, str) else content):
            self.write(name, chunk)

    def close(self, name: str) -> str | None:
        """Finish one file (nothing more is written to it); its SHA-256 (None when not
        hashed)."""
        entry = self._open[name]
        if not entry[3]:
            self._flush()
            entry[3] = True
            try:
                entry[0].close()
            except OSError as exc:
                raise UsageError(f"cannot write: {exc.strerror}", str(self.folder)) from None
            os.chmod(entry[1], 0o666 & ~_umask())  # mkstemp makes 0600; give the usual mode
            self._digests[name] = entry[2].hexdigest() if entry[2] is not None else None
        return self._digests[name]

    def digests(self) -> dict[str, str | None]:
        """{name: sha256} of every file so far, in the order they were begun."""
        return {name: self.close(name) for name in self._open}

    def _stop(self) -> None:
        if self._thread is not None:
            self._queue.put(self._DONE)
            self._thread.join()
            self._thread = None

    def commit(self) -> dict[str, str | None]:
        try:
            digests = self.digests()
        except BaseException:
            self.abort()
            raise
        self._stop()
        try:
            for name, entry in self._open.items():
                os.replace(entry[1], self.folder / name)
        except OSError as exc:
            self.abort()
            raise UsageError(f"cannot write: {exc.strerror}", str(self.folder)) from None
        self._open = {}
        return digests

    def abort(self) -> None:
        if self._thread is not None:
            self._error = self._error or OSError(0, "aborted")  # the thread writes no more
            self._stop()
        for entry in self._open.values():
            try:
                entry[0].close()
            except OSError:
                pass
            try:
                os.unlink(entry[1])
            except OSError:
                pass
        self._open = {}
        _remove_empty(self._created)

    def __enter__(self) -> "AtomicFiles":
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is not None:
            self.abort()
        else:
            self._stop()


def write_files_atomically(folder: Path, files: Mapping[str, Content],
                           extra: Callable[[dict[str, str]], Mapping[str, str]] | None = None
                           ) -> dict[str, str]:
    """Write files into ``folder``: each streamed to a temporary file, then all renamed.

    ``extra`` receives the SHA-256 of every file written so far and returns more files
    (a manifest naming the others' hashes). Returns {name: sha256}.
    """
    with AtomicFiles(folder) as out:
        for name, content in files.items():
            out.put(name, content)
        if extra is not None:
            for name, content in extra(out.digests()).items():
                out.put(name, content)
        return out.commit()


def _remove_empty(folders: Sequence[Path]) -> None:
    """Remove folders this run created (innermost first) if they stayed empty."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            pass


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def check_file_target(path: Path) -> None:
    """A file path to write to, not a folder (a user error, said in one line)."""
    try:
        is_dir = path.is_dir()
    except OSError as exc:
        raise UsageError(f"cannot write: {exc.strerror}", str(path)) from None
    if is_dir:
        raise UsageError("is a folder (end the path with / to write per-split files)", str(path))


def write_file_atomically(path: Path, content: Content) -> None:
    check_file_target(path)
    write_files_atomically(path.parent if str(path.parent) else Path("."), {path.name: content})


def stdout_bytes():
    """stdout as bytes: output is UTF-8 with \\n line ends whatever the locale or
    PYTHONIOENCODING say, so the bytes are the same everywhere."""
    sys.stdout.flush()
    return getattr(sys.stdout, "buffer", None)


def write_stdout(content: Content) -> None:
    buffer = stdout_bytes()
    try:
        for chunk in ([content] if isinstance(content, str) else content):
            if buffer is not None:
                buffer.write(chunk.encode("utf-8"))
            else:  # a text-only stream (tests capturing stdout)
                sys.stdout.write(chunk)
        if buffer is not None:
            buffer.flush()
    except BrokenPipeError:  # `gen ... | head`: the reader left; that is not an error
        _silence_stdout()


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass

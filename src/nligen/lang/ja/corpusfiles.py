"""Files of a corpus: plain files, folders and .tar.gz archives, read in a fixed order,
each with the name of the source (corpus) it belongs to, and the problems met on the way."""

from __future__ import annotations

import re
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

_SPLIT_FILE = re.compile(r"(train|valid|dev|test)([-_].*)?")
_VERSION = re.compile(r"-(knp|v?\d+(\.\d+)*)$")
_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".json", ".jsonl", ".txt", ".knp")


@dataclass
class Problem:
    where: str  # file:line
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


def source_name(name: str) -> str:
    """A short, stable source name from a file or archive member path:
    ``jglue-v1.3/jsts-v1.3/train-v1.3.json`` -> ``jsts``, ``wac-knp.tar.gz`` -> ``wac``,
    ``notes/diary.txt`` -> ``diary``."""
    parts = [p for p in name.replace("\\", "/").split("/") if p]
    stem = parts[-1] if parts else ""
    for suffix in _SUFFIXES:
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    # The split files (train/valid/test) of a dataset folder take the folder's name.
    if len(parts) >= 2 and _SPLIT_FILE.fullmatch(stem):
        stem = parts[-2]
    while _VERSION.search(stem):
        stem = _VERSION.sub("", stem)
    return stem or "text"


def read_files(paths: Iterable[str | Path], problems: list[Problem],
               suffixes: tuple[str, ...]) -> Iterator[tuple[str, str, bytes]]:
    """(source, name, bytes) of every file with one of ``suffixes`` in files, folders or
    .tar.gz archives, in sorted order (the same output on every machine). The source is
    the corpus a file belongs to (see source_name)."""
    for path in sorted(Path(p) for p in paths):
        if path.is_dir():
            for f in sorted(path.rglob("*")):
                if f.is_file() and f.name.endswith(suffixes):
                    rel = f.relative_to(path).as_posix()
                    source = source_name(rel) if "/" in rel else source_name(path.name)
                    yield source, str(f), f.read_bytes()
        elif path.name.endswith((".tar.gz", ".tgz", ".tar")):
            # Read members in archive order (seeking back in a gzip stream re-reads it from
            # the start), then visit them sorted by name.
            members: list[tuple[str, bytes]] = []
            try:
                with tarfile.open(path, "r:*") as tar:
                    for m in tar:
                        if m.isfile() and m.name.endswith(suffixes):
                            fh = tar.extractfile(m)
                            if fh is not None:
                                members.append((m.name, fh.read()))
            except (tarfile.TarError, OSError, EOFError) as exc:
                problems.append(Problem(str(path), f"unreadable archive ({exc}); read "
                                                   f"{len(members)} files before"))
            for member, raw in sorted(members):
                # a member of a dataset archive (jglue: jsts/, jnli/ ...) is its own
                # source; a KNP archive (wac-knp.tar.gz) is one source
                source = source_name(path.name) if member.endswith(".knp") \
                    else source_name(member)
                yield source, f"{path.name}:{member}", raw
        elif path.is_file():
            if path.name.endswith(suffixes):
                yield source_name(path.name), str(path), path.read_bytes()
        else:
            problems.append(Problem(str(path), "no such file or folder"))

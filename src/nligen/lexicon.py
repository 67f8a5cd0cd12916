"""Lexicons: data files of entries (one mapping per entry) with their source and license.

Formats, chosen by extension:

* ``.json`` — ``{"meta": {...}, "entries": [{...}, ...]}`` (what the builders write);
* ``.yaml`` / ``.yml`` — the same mapping, or a bare list of entries;
* ``.tsv`` — a header row and one entry per row; lines starting with ``#`` are metadata
  (``# source: ...``).

A lexicon is named by its path below the lexicon directory without extension
(``de/nouns_human``). Files are read once, lazily, and hashed for manifests.

A large YAML lexicon may have a compiled sidecar, ``NAME.yaml.compiled.json``: the parsed
data and the SHA-256 of the YAML it was made from (:func:`compile_lexicons`). It is read
instead of the YAML only while that hash matches, so the YAML stays the source and an
edited file is never shadowed; it only saves the YAML parse (seconds for the curated
Japanese files).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Iterable, Mapping

from .datafiles import load_json, load_yaml
from .errors import LexiconError

LEXICON_SUFFIXES = (".json", ".yaml", ".yml", ".tsv")
COMPILED_SUFFIX = ".compiled.json"
COMPILE_MIN_BYTES = 64 * 1024  # smaller YAML files parse in milliseconds


class Lexicon:
    def __init__(self, name: str, path: Path, meta: dict, entries: list[dict], sha256: str):
        self.name = name
        self.path = path
        self.meta = meta
        self.entries = entries
        self.sha256 = sha256
        self._select_cache: dict[tuple, list[dict]] = {}

    def __len__(self) -> int:
        return len(self.entries)

    def select(self, where: Mapping[str, Any] | None) -> list[dict]:
        """Entries whose fields match ``where``.

        A condition value that is a list means "any of", ``{not: [...]}`` "none of"; an
        entry field that is a list matches when it contains the wanted value.
        """
        if not where:
            return self.entries
        key = tuple(sorted((k, _freeze(v)) for k, v in where.items()))
        cached = self._select_cache.get(key)
        if cached is not None:
            return cached
        out = [e for e in self.entries if all(_matches(e.get(k), v) for k, v in where.items())]
        self._select_cache[key] = out
        return out


def _freeze(v: Any) -> Any:
    if isinstance(v, Mapping):
        return ("not", _freeze(v.get("not")))
    return tuple(v) if isinstance(v, list) else v


def _matches(have: Any, want: Any) -> bool:
    if isinstance(want, Mapping):  # {not: [values]}
        return not _matches(have, want.get("not"))
    wants = want if isinstance(want, (list, tuple)) else [want]
    if isinstance(have, list):
        return any(w in have for w in wants)
    return have in wants


def read_lexicon_file(path: Path, name: str) -> Lexicon:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise LexiconError(f"cannot read: {exc.strerror}", str(path)) from None
    sha = hashlib.sha256(raw).hexdigest()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise LexiconError("not UTF-8 text", str(path)) from None
    suffix = path.suffix.lower()
    if suffix == ".json":
        meta, entries = _split_meta(load_json(text, str(path), LexiconError), path)
    elif suffix in (".yaml", ".yml"):
        data = _compiled(path, sha)
        if data is None:
            data = load_yaml(text, str(path), LexiconError)
        meta, entries = _split_meta(data, path)
    elif suffix == ".tsv":
        meta, entries = _read_tsv(text, path)
    else:
        raise LexiconError(f"unknown lexicon format {suffix!r}", str(path))
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or not entry:
            raise LexiconError(f"entry {i + 1} is not a non-empty mapping", str(path))
    return Lexicon(name, path, meta, entries, sha)


def compiled_path(path: Path) -> Path:
    return path.with_name(path.name + COMPILED_SUFFIX)


def _compiled(path: Path, sha: str) -> Any:
    """The data of ``path``'s compiled sidecar when it was made from these very bytes, else
    None (no sidecar, a stale or unreadable one: the YAML is parsed instead)."""
    import json

    side = compiled_path(path)
    try:
        payload = json.loads(side.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(payload, dict) or payload.get("source_sha256") != sha:
        return None
    return payload.get("data")


def compile_lexicons(folder: Path, min_bytes: int = COMPILE_MIN_BYTES) -> list[Path]:
    """Write a compiled sidecar beside every YAML lexicon of ``folder`` (recursively) of at
    least ``min_bytes``, and remove sidecars whose YAML is gone or now smaller. The same
    files give the same bytes. Returns the sidecars written."""
    import json

    from .writers import write_files_atomically

    written = []
    for side in sorted(Path(folder).rglob("*" + COMPILED_SUFFIX)):
        source = side.with_name(side.name[:-len(COMPILED_SUFFIX)])
        if not source.is_file() or source.stat().st_size < min_bytes:
            side.unlink()
    for path in sorted(Path(folder).rglob("*")):
        if path.suffix.lower() not in (".yaml", ".yml") or not path.is_file() \
                or path.stat().st_size < min_bytes:
            continue
        raw = path.read_bytes()
        data = load_yaml(raw.decode("utf-8"), str(path), LexiconError)
        payload = {"source": path.name, "source_sha256": hashlib.sha256(raw).hexdigest(),
                   "data": data}
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":")) + "\n"
        write_files_atomically(path.parent, {compiled_path(path).name: text})
        written.append(compiled_path(path))
    return written


def _split_meta(data: Any, path: Path) -> tuple[dict, list]:
    if isinstance(data, list):
        return {}, data
    if isinstance(data, dict) and isinstance(data.get("entries"), list):
        meta = data.get("meta")
        if meta is None:
            meta = {k: v for k, v in data.items() if k != "entries"}
        if not isinstance(meta, dict):
            raise LexiconError("'meta' must be a mapping", str(path))
        return meta, data["entries"]
    raise LexiconError("expected a list of entries or a mapping with 'entries'", str(path))


def _read_tsv(text: str, path: Path) -> tuple[dict, list]:
    meta: dict[str, str] = {}
    body = []
    for line in text.splitlines():
        if line.startswith("#"):
            key, _, value = line[1:].partition(":")
            if value:
                meta[key.strip()] = value.strip()
        elif line.strip():
            body.append(line)
    if not body:
        return meta, []
    header = body[0].split("\t")
    if len(set(header)) != len(header) or not all(header):
        raise LexiconError("the header has empty or repeated column names", str(path))
    entries = []
    for number, line in enumerate(body[1:], start=2):
        cells = line.split("\t")
        if len(cells) != len(header):
            raise LexiconError(f"row {number} has {len(cells)} columns, the header "
                               f"{len(header)}", str(path))
        entries.append(dict(zip(header, cells)))
    return meta, entries


class LexiconSet:
    """The lexicons below one or more directories, loaded on first use."""

    def __init__(self, roots: Iterable[Path]):
        self.roots = [Path(r) for r in roots]
        self._loaded: dict[str, Lexicon] = {}
        self._untracked: dict[str, Lexicon] = {}

    def find(self, name: str) -> Path | None:
        if not name or name.startswith(("/", ".")) or ".." in Path(name).parts:
            return None
        for root in self.roots:
            for suffix in LEXICON_SUFFIXES:
                candidate = root / f"{name}{suffix}"
                if candidate.is_file():
                    return candidate
        return None

    def get(self, name: str, track: bool = True) -> Lexicon:
        """The lexicon ``name``. ``track=False`` reads it without counting it among the
        lexicons the output depends on (``used``): e.g. for checks that only verify."""
        lex = self._loaded.get(name) or self._untracked.get(name)
        if lex is not None:
            if track and name not in self._loaded:
                self._loaded[name] = self._untracked.pop(name)
            return lex
        if lex is None:
            path = self.find(name)
            if path is None:
                roots = ", ".join(str(r) for r in self.roots) or "(no lexicon directory)"
                raise LexiconError(f"no lexicon named {name!r} in {roots}")
            lex = read_lexicon_file(path, name)
            (self._loaded if track else self._untracked)[name] = lex
        return lex

    def add(self, lexicon: Lexicon) -> None:
        """Use an in-memory lexicon under its name (a builder checking what it is about to
        write)."""
        self._loaded[lexicon.name] = lexicon

    def available(self) -> list[str]:
        names = set()
        for root in self.roots:
            if not root.is_dir():
                continue
            for path in root.rglob("*"):
                if path.suffix.lower() in LEXICON_SUFFIXES and path.is_file() \
                        and not path.name.endswith(COMPILED_SUFFIX):
                    names.add(path.relative_to(root).with_suffix("").as_posix())
        return sorted(names)

    @property
    def used(self) -> dict[str, Lexicon]:
        """Lexicons read so far (for manifests)."""
        return dict(sorted(self._loaded.items()))

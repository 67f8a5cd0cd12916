"""Reading untrusted YAML and JSON data files safely.

Templates, family files and lexicons come from users. Before PyYAML builds anything, the
event stream is checked: no aliases (``*name``: a few bytes of nested aliases expand to
billions of nodes), bounded nesting depth and size. After loading, every value must be
plain data (text, number, true/false, null, list, mapping with text keys): no dates,
binary or sets, no NaN or infinities, no integers of absurd size. Every failure becomes
one error of the caller's class, naming the file.
"""

from __future__ import annotations

import json
import math
from typing import Any

from .errors import NligenError

MAX_DEPTH = 64
MAX_EVENTS = 5_000_000
MAX_INT_DIGITS = 30


def _loader():
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_utf8(path: Any, error: type[NligenError]) -> tuple[bytes, str]:
    """(bytes, text) of a UTF-8 file (a BOM tolerated); an unreadable or undecodable file
    is ``error`` naming it."""
    from pathlib import Path

    where = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror or exc}", where) from None
    try:
        return raw, raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"not UTF-8 text (byte {exc.start})", where) from None


def load_yaml(text: str, where: str, error: type[NligenError]) -> Any:
    import yaml

    try:
        depth = 0
        events = 0
        # per open collection: for a mapping [next node is a key, keys seen], else None.
        # PyYAML keeps the last of two equal keys silently; a template that says
        # `labels:` twice would lose the first without a word.
        open_nodes: list = []
        for event in yaml.parse(text, Loader=_loader()):
            events += 1
            if isinstance(event, yaml.AliasEvent):
                raise error(f"YAML aliases (*{event.anchor}) are not supported", where)
            if open_nodes and open_nodes[-1] is not None and isinstance(
                    event, (yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                mapping = open_nodes[-1]
                if mapping[0] and isinstance(event, yaml.ScalarEvent):
                    if event.value in mapping[1]:
                        raise error(f"duplicate key {event.value!r} at line "
                                    f"{event.start_mark.line + 1}", where)
                    mapping[1].add(event.value)
                mapping[0] = not mapping[0]
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > MAX_DEPTH:
                    raise error(f"nested more than {MAX_DEPTH} levels deep", where)
                open_nodes.append([True, set()] if isinstance(event, yaml.MappingStartEvent)
                                  else None)
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
                open_nodes.pop()
            if events > MAX_EVENTS:
                raise error("file too large", where)
        data = yaml.load(text, Loader=_loader())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or "syntax error"
        if "nesting depth" in problem:  # newer parsers (PyYAML 6.0.4) stop deep input first
            raise error(f"nested too deeply{line}: {problem}", where) from None
        raise error(f"malformed YAML{line}: {problem}", where) from None
    except (ValueError, RecursionError, MemoryError, OverflowError) as exc:
        raise error(f"cannot load YAML: {printable(str(exc))[:160] or type(exc).__name__}",
                    where) from None
    check_plain(data, where, error)
    return data


def load_json(text: str, where: str, error: type[NligenError]) -> Any:
    def refuse_constant(name: str) -> Any:
        raise error(f"{name} is not a valid value", where)

    try:
        data = json.loads(text, parse_constant=refuse_constant)
    except json.JSONDecodeError as exc:
        raise error(f"malformed JSON: {exc.msg} (line {exc.lineno})", where) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise error(f"cannot load JSON: {printable(str(exc))[:160] or type(exc).__name__}",
                    where) from None
    check_plain(data, where, error)
    return data


def check_plain(data: Any, where: str, error: type[NligenError]) -> None:
    """Every value is JSON-like plain data with bounded integers and finite floats."""
    _check_plain(data, 0, where, error)


_SCALARS = (str, bool, type(None))


def _check_plain(value: Any, depth: int, where: str, error: type[NligenError]) -> None:
    # By container, not by value: most values are texts, passed with one type test (a
    # lexicon of 5 MB is checked in a fifth of the time a value-by-value stack took).
    if depth > MAX_DEPTH:
        raise error(f"nested more than {MAX_DEPTH} levels deep", where)
    kind = type(value)
    if kind is dict:
        for k in value:
            if type(k) is not str and not isinstance(k, (str, int)):
                raise error(f"mapping key {k!r} is not a text", where)
        children = value.values()
    elif kind is list:
        children = value
    else:
        _check_scalar(value, where, error)
        return
    if depth + 1 > MAX_DEPTH and children:
        raise error(f"nested more than {MAX_DEPTH} levels deep", where)
    bits = MAX_INT_DIGITS * 4
    for child in children:
        kind = type(child)
        if kind in _SCALARS:
            continue
        if kind is int:
            if child.bit_length() > bits:
                raise error(f"integer with more than {MAX_INT_DIGITS} digits", where)
        elif kind is dict or kind is list:
            _check_plain(child, depth + 1, where, error)
        else:
            _check_scalar(child, where, error)


def _check_scalar(value: Any, where: str, error: type[NligenError]) -> None:
    if value is None or isinstance(value, (str, bool)):
        return
    if isinstance(value, int):
        if value.bit_length() > MAX_INT_DIGITS * 4:
            raise error(f"integer with more than {MAX_INT_DIGITS} digits", where)
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise error("NaN and infinite numbers are not allowed", where)
        return
    if isinstance(value, (list, dict)):  # a subclass: checked as its kind
        _check_plain(dict(value) if isinstance(value, dict) else list(value), 0, where, error)
        return
    raise error(f"values of type {type(value).__name__} are not allowed (use text)", where)


def printable(text: str) -> str:
    """One line: control characters shown as escapes (for error messages)."""
    return "".join(ch if ch.isprintable() or ch == " " else repr(ch)[1:-1] for ch in text)

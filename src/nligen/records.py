"""Records: the JSON objects of DESIGN.md's record contract, built from generated items.

:func:`make_record` builds a record as a dict. :class:`RecordEncoder` writes the same
record as one JSON line, assembled from pieces encoded once per run (a template's id, a
label, a slot value's provenance) and the few encoded per item (texts, spans), which is
several times faster than encoding a fresh dict per record and gives the same bytes as
``json.dumps(make_record(...), ensure_ascii=False)``.
"""

from __future__ import annotations

import json
from typing import Any

from .engine import Item

SINGLE_SPLIT = "all"
SEEN_UNSEEN = {"pattern", "lexical"}

# One encoder for every value: json.dumps(..., ensure_ascii=False) builds a new one per call.
_ENCODE = json.JSONEncoder(ensure_ascii=False).encode
try:  # the C string encoder behind _ENCODE, called directly for plain strings
    from _json import encode_basestring as _encode_text
except ImportError:  # pragma: no cover - other Pythons
    from json.encoder import py_encode_basestring as _encode_text

# Record keys written before an item's own fields; an item field of the same name takes
# the earlier key's place (dict semantics), which the fast encoder leaves to make_record.
HEAD_KEYS = frozenset({"id", "family", "template", "premise", "hypothesis", "label", "split",
                       "seen", "set", "hypothesis_type"})


def wants_seen(split: str, seen: bool | None, split_name: str | None) -> bool:
    return seen is not None or (split == "test" and split_name in SEEN_UNSEEN)


def _record_head(family: str, index: int, item: Item, split: str, seen: bool | None,
                 split_name: str | None) -> dict:
    t = item.template
    rec: dict[str, Any] = {
        "id": f"{family}-{index:06d}",
        "family": family,
        "template": t.id,
        "premise": item.premise,
        "hypothesis": item.text,
        "label": item.label,
        "split": split,
    }
    if wants_seen(split, seen, split_name):
        rec["seen"] = bool(seen)
    if t.variants is not None:
        rec[t.variants.field] = item.variant.name
    if item.hypothesis.set != "default":
        rec["set"] = item.hypothesis.set
    if item.hypothesis.type:
        rec["hypothesis_type"] = item.hypothesis.type
    rec.update(item.fields)
    return rec


def head_value(item: Item, key: str, split: str, seen: bool | None,
               split_name: str | None, family: str = "") -> Any:
    """The value the record's ``key`` has (None when the record lacks it), without
    building the record: for the tallies of every record."""
    if key in item.fields:
        return item.fields[key]
    t = item.template
    if key == "template":
        return t.id
    if key == "label":
        return item.label
    if key == "split":
        return split
    variant_field = t.variants.field if t.variants is not None else None
    if key == "set" and variant_field != "set":
        return item.hypothesis.set if item.hypothesis.set != "default" else None
    if key == "hypothesis_type" and variant_field != "hypothesis_type":
        return item.hypothesis.type or None
    if key == variant_field and key not in HEAD_KEYS:
        return item.variant.name
    return _record_head(family, 0, item, split, seen, split_name).get(key)


def _slots_read(item: Item) -> list[str]:
    rule = item.hypothesis.rule
    if rule.fixed is None:
        return sorted(rule.slot_names)
    return [s for s in item.filling if s in item.spans]


def _read_text(item: Item, slot: str, spans) -> Any:
    # The text as it stands in the hypothesis (its first span), else the slot's value.
    if spans:
        return item.text[spans[0][0]:spans[0][1]]
    return str(item.filling[slot]) if slot in item.filling else None


def rationale(item: Item) -> dict:
    """What decides the label: the rule, its explanation, the slots it reads."""
    out: dict[str, Any] = {"rule": item.hypothesis.rule.describe()}
    if item.explain:
        out["explain"] = item.explain
    slots_read = {}
    for s in _slots_read(item):
        spans = item.spans.get(s, [])
        slots_read[s] = {"text": _read_text(item, s, spans), "spans": spans}
    out["slots"] = slots_read
    return out


def make_record(family: str, index: int, item: Item, split: str, seen: bool | None,
                split_name: str | None) -> dict:
    """One record of the contract in DESIGN.md (a dict)."""
    rec = _record_head(family, index, item, split, seen, split_name)
    rec["slots"] = {name: v.provenance() for name, v in item.filling.items()}
    rec["rationale"] = rationale(item)
    return rec


def _spans_json(spans: list[list[int]]) -> str:
    return "[" + ", ".join(f"[{a}, {b}]" for a, b in spans) + "]"


class RecordEncoder:
    """Records of one run as JSON lines, byte for byte what encoding
    :func:`make_record`'s dict gives."""

    def __init__(self, family: str, split_name: str | None):
        self.family = family
        self.split_name = split_name
        self._id_prefix = _encode_text(f"{family}-")[:-1]  # '"family-' without its end quote
        self._family = _encode_text(family)
        self._text: dict[Any, str] = {}  # encoded constants: ids, labels, names
        self._rules: dict[int, tuple[str, Any]] = {}  # each hypothesis's rule, described

    def _const(self, value: Any) -> str:
        out = self._text.get(value)
        if out is None:
            out = self._text[value] = _ENCODE(value)
        return out

    def _rule(self, hypothesis) -> str:
        hit = self._rules.get(id(hypothesis))
        if hit is None:  # the hypothesis is kept with its text: its id stays its own
            hit = self._rules[id(hypothesis)] = (_ENCODE(hypothesis.rule.describe()), hypothesis)
        return hit[0]

    def line(self, index: int, item: Item, split: str, seen: bool | None) -> str:
        fields = item.fields
        if not HEAD_KEYS.isdisjoint(fields):
            return _ENCODE(make_record(self.family, index, item, split, seen,
                                       self.split_name)) + "\n"
        const = self._const
        t = item.template
        h = item.hypothesis
        parts = [f'{{"id": {self._id_prefix}{index:06d}", "family": {self._family}, '
                 f'"template": {const(t.id)}, "premise": {_encode_text(item.premise)}, '
                 f'"hypothesis": {_encode_text(item.text)}, "label": {const(item.label)}, '
                 f'"split": {const(split)}']
        if wants_seen(split, seen, self.split_name):
            parts.append(', "seen": true' if seen else ', "seen": false')
        if t.variants is not None:
            name = t.variants.field
            if name in fields:  # the item's own field of that name takes this place
                value = fields[name]
                fields = {k: v for k, v in fields.items() if k != name}
                parts.append(f", {const(name)}: {_ENCODE(value)}")
            else:
                parts.append(f", {const(name)}: {const(item.variant.name)}")
        if h.set != "default":
            parts.append(f', "set": {const(h.set)}')
        if h.type:
            parts.append(f', "hypothesis_type": {const(h.type)}')
        for key, value in fields.items():
            encoded = _encode_text(value) if type(value) is str else _ENCODE(value)
            parts.append(f", {const(key)}: {encoded}")
        parts.append(', "slots": {')
        parts.append(", ".join(f"{const(name)}: {v.provenance_json()}"
                               for name, v in item.filling.items()))
        parts.append(f'}}, "rationale": {{"rule": {self._rule(h)}')
        if item.explain:
            parts.append(f', "explain": {_encode_text(item.explain)}')
        read = []
        for s in _slots_read(item):
            spans = item.spans.get(s, [])
            text = _read_text(item, s, spans)
            read.append(f'{const(s)}: {{"text": {_ENCODE(text)}, "spans": {_spans_json(spans)}}}')
        parts.append(', "slots": {' + ", ".join(read) + "}}}\n")
        return "".join(parts)

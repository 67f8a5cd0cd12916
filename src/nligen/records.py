"""Records: the JSON objects of DESIGN.md's record contract, built from generated items.

:func:`make_record` builds a record as a dict. :class:`RecordEncoder` writes the same
record as one JSON line, assembled from pieces encoded once per run (a template's id, a
label, a slot value's provenance) and the few encoded per item (texts, spans), which is
several times faster than encoding a fresh dict per record and gives the same bytes as
``json.dumps(make_record(...), ensure_ascii=False)``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .engine import Item
from .pairs import pair_record

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
                       "seen", "group", "set", "hypothesis_type"})


def group_id(item: Item) -> str:
    """The item's contrast group (Gardner et al. 2020): the items of one template and
    variant whose slots, time expressions aside, are the same share it: a WOGLI premise's
    hypotheses; a Jamp sentence under different time expressions and labels. A digest, so
    that it is the same however the set is made (workers, shards)."""
    parts = [item.template.id, item.variant.name or ""]
    parts += [f"{slot}={key}" for slot, key in item.content_key]
    return hashlib.blake2b("\x1f".join(parts).encode("utf-8"), digest_size=8).hexdigest()


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
    rec["group"] = group_id(item)
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
    if item.template.pair is not None:  # a minimal pair: BLiMP's record
        return make_record(family, 0, item, split, seen, split_name).get(key)
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
    """One record of the contract in DESIGN.md (a dict); a minimal pair's in BLiMP's
    format (:func:`nligen.pairs.pair_record`)."""
    if item.template.pair is not None:
        return pair_record(family, index, item, split, seen,
                           wants_seen(split, seen, split_name), group_id(item))
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
        self._id_prefix = '{"id": ' + _encode_text(f"{family}-")[:-1]  # without the end quote
        self._text: dict[Any, str] = {}  # encoded constants: field names, slot names
        # (hypothesis, variant, label, split, seen) -> the encoded pieces that depend on nothing
        # else, and the objects the key's ids stand for (kept, so an id stays theirs)
        self._pieces: dict[tuple, tuple[str, str, str, str | None, tuple]] = {}
        self._read: dict[str, str] = {}  # slot -> '"slot": {"text": ' (rationale)
        self._last_unit: tuple = (None, None, "", "", "")

    def _const(self, value: Any) -> str:
        out = self._text.get(value)
        if out is None:
            out = self._text[value] = _ENCODE(value)
        return out

    def _pieces_of(self, item: Item, split: str, seen: bool | None):
        key = (id(item.hypothesis), id(item.variant), item.label, split, seen)
        hit = self._pieces.get(key)
        if hit is not None:
            return hit
        t, h = item.template, item.hypothesis
        after_id = (f'", "family": {_encode_text(self.family)}, "template": {_ENCODE(t.id)}, '
                    '"premise": ')
        head = f', "label": {_ENCODE(item.label)}, "split": {_ENCODE(split)}'
        if wants_seen(split, seen, self.split_name):
            head += ', "seen": true' if seen else ', "seen": false'
        variant_field = variant_key = variant = None
        if t.variants is not None:  # after the group: its key, and the variant's name
            variant_field = t.variants.field
            variant_key = f", {_ENCODE(variant_field)}: "
            variant = _ENCODE(item.variant.name)
        tail = []
        if h.set != "default":
            tail.append(f', "set": {_ENCODE(h.set)}')
        if h.type:
            tail.append(f', "hypothesis_type": {_ENCODE(h.type)}')
        rule = f'}}, "rationale": {{"rule": {_ENCODE(h.rule.describe())}'
        hit = (after_id, head, variant_key, variant, "".join(tail), rule, variant_field,
               (item.hypothesis, item.variant))
        self._pieces[key] = hit
        return hit

    def _unit_pieces(self, item: Item) -> tuple[str, str, str]:
        """The encoded premise, ``slots`` and group of the item's unit: its items share
        the objects they come from, so they are encoded once per unit."""
        last = self._last_unit
        if last[0] is item.filling and last[1] is item.premise:
            return last[2], last[3], last[4]
        slots = ", ".join([v.slot_json(name) for name, v in item.filling.items()])
        premise = _encode_text(item.premise)
        group = f', "group": "{group_id(item)}"'
        self._last_unit = (item.filling, item.premise, premise, slots, group)
        return premise, slots, group

    def _read_prefix(self, slot: str) -> str:
        out = self._read.get(slot)
        if out is None:
            out = self._read[slot] = f'{_ENCODE(slot)}: {{"text": '
        return out

    def line(self, index: int, item: Item, split: str, seen: bool | None) -> str:
        fields = item.fields
        if (fields and not HEAD_KEYS.isdisjoint(fields)) or item.template.pair is not None:
            return _ENCODE(make_record(self.family, index, item, split, seen,
                                       self.split_name)) + "\n"
        (after_id, head, variant_key, variant, tail, rule, variant_field,
         _) = self._pieces_of(item, split, seen)
        if variant_field is not None and variant_field in fields:
            # the item's own field of that name takes the variant's place (dict semantics)
            variant = _ENCODE(fields[variant_field])
            fields = {k: v for k, v in fields.items() if k != variant_field}
        premise, slots, group = self._unit_pieces(item)
        parts = [self._id_prefix, f"{index:06d}", after_id, premise, ', "hypothesis": ',
                 _encode_text(item.text), head, group]
        if variant_key is not None:
            parts += [variant_key, variant]
        parts.append(tail)
        const = self._const
        for key, value in fields.items():
            parts.append(f", {const(key)}: "
                         f"{_encode_text(value) if type(value) is str else _ENCODE(value)}")
        parts += [', "slots": {', slots, rule]
        if item.explain:
            parts.append(f', "explain": {_encode_text(item.explain)}')
        read = []
        spans_of = item.spans
        text = item.text
        for s in _slots_read(item):
            spans = spans_of.get(s)
            if spans:
                a, b = spans[0]
                shown = _encode_text(text[a:b])
                spans_text = f"[[{a}, {b}]]" if len(spans) == 1 else _spans_json(spans)
            else:
                value = item.filling.get(s)
                shown = _ENCODE(str(value) if value is not None else None)
                spans_text = "[]"
            read.append(f'{self._read_prefix(s)}{shown}, "spans": {spans_text}}}')
        parts += [', "slots": {', ", ".join(read), "}}}\n"]
        return "".join(parts)

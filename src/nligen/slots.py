"""Slot values and the built-in slot kinds.

A slot's *options* are materialised once per (template, variant, resolved parameters):
sampling is then an index into a list. Each option is a :class:`SlotValue`:

* its text (what ``{{ slot }}`` renders), its data fields (``{{ slot.plural }}``,
  ``slot.age`` in conditions),
* an ``identity`` (what ``distinct:`` compares: two slots may not share it),
* its content ``lemmas`` (what lexical splits partition and lemma checks count),
* a unique ``key`` (what dedup and split-leak checks compare),
* optionally a ``group``: options of one group are alternatives of one choice (a verb's
  argument tuples). The engine draws groups evenly, then a member, so that a group with
  many options (a verb seen with many objects) does not crowd out the others.

Templates cannot see the underscore attributes (the sandbox forbids them); they see
the text and the fields.

Built-in kinds: ``lexicon:`` (entries of a lexicon, optionally filtered by ``where:``),
``values:`` (an inline list) and ``range:`` (integers). Language layers add their own
kinds (the German ``np``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol

from .errors import LexiconError, TemplateError
from .lexicon import LexiconSet

TEXT_FIELDS = ("text", "surface", "lemma", "name", "id")
MAX_RANGE = 100_000


class SlotValue:
    __slots__ = ("_slot_name", "_text", "_fields", "_identity", "_lemmas", "_key", "_scalar",
                 "_provenance", "_provenance_json", "_slot_json", "_pattern", "_group")

    def __init__(self, slot: str, text: str, fields: Mapping[str, Any] | None = None,
                 identity: str | None = None, lemmas: tuple[str, ...] = (),
                 key: str | None = None, scalar: Any = None, group: str | None = None):
        self._slot_name = slot
        self._text = text
        self._fields = dict(fields or {})
        self._identity = identity if identity is not None else text
        self._lemmas = tuple(lemmas)
        self._key = key if key is not None else text
        self._scalar = scalar
        self._provenance = None
        self._provenance_json = None
        self._slot_json = None
        # What this value looks like at the surface, where that differs from the variant
        # axis it was drawn for (a pronoun stands for several noun-phrase types).
        self._pattern: str | None = None
        self._group = group

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._slot_name}={self._text!r}>"

    def __getattr__(self, name: str) -> Any:
        # Only reached for names that are not real attributes: data fields.
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(name) from None

    def __condition_field__(self, name: str) -> Any:
        if name in self._fields:
            value = self._fields[name]
            return value
        from .errors import ConditionError

        raise ConditionError(
            f"slot {self._slot_name!r} has no field {name!r} "
            f"(fields: {', '.join(sorted(self._fields)) or 'none'})"
        )

    def __condition_value__(self) -> Any:
        return self._scalar if self._scalar is not None else self

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SlotValue):
            return self._key == other._key
        return self._scalar is not None and self._scalar == other

    def __hash__(self) -> int:
        return hash(self._key)

    def provenance(self) -> dict:
        """What records store in ``slots`` (computed once: values are immutable)."""
        if self._provenance is None:
            self._provenance = self._make_provenance()
        return self._provenance

    def provenance_json(self) -> str:
        if self._provenance_json is None:
            self._provenance_json = json.dumps(self.provenance(), ensure_ascii=False)
        return self._provenance_json

    def slot_json(self, name: str) -> str:
        """``"name": provenance`` as a record's ``slots`` writes it."""
        if name != self._slot_name:
            return f"{json.dumps(name, ensure_ascii=False)}: {self.provenance_json()}"
        if self._slot_json is None:
            self._slot_json = f"{json.dumps(name, ensure_ascii=False)}: {self.provenance_json()}"
        return self._slot_json

    def _make_provenance(self) -> dict:
        out: dict[str, Any] = {"text": self._text}
        for k, v in self._fields.items():
            if k != "text":
                out[k] = v
        return out


@dataclass
class SlotContext:
    """What a slot kind may use to build its options."""

    lexicons: LexiconSet
    slot: str
    where: str  # location for error messages: "file: template id: slots.S"


class SlotKind(Protocol):
    """A kind of slot contributed by the engine or a language layer."""

    params: tuple[str, ...]

    def options(self, spec: Mapping[str, Any], ctx: SlotContext) -> list[SlotValue]: ...


def _entry_text(entry: Mapping[str, Any], field: str | None, where: str) -> str:
    for f in [field] if field else TEXT_FIELDS:
        if f in entry:
            value = entry[f]
            if not isinstance(value, (str, int, float)) or isinstance(value, bool):
                raise LexiconError(f"entry field {f!r} must be a text or number, not "
                                   f"{type(value).__name__}", where)
            return str(value)
    if field:
        raise LexiconError(f"an entry has no field {field!r}", where)
    raise LexiconError(f"an entry has none of the fields {', '.join(TEXT_FIELDS)}", where)


class LexiconKind:
    # deal: FIELD groups the entries by that field and deals the groups evenly (each
    # noun once before any comes back, across templates that share the slot), as a
    # Japanese predicate's verbs are dealt
    params = ("lexicon", "where", "text", "identity", "deal")

    def options(self, spec, ctx):
        lex = ctx.lexicons.get(spec["lexicon"])
        entries = lex.select(spec.get("where"))
        text_field = spec.get("text")
        identity_field = spec.get("identity")
        deal = spec.get("deal")
        if deal is not None and not isinstance(deal, str):
            raise TemplateError("'deal' must name a field of the entries", ctx.where)
        out = []
        seen: dict[str, int] = {}
        for entry in entries:
            text = _entry_text(entry, text_field, f"{ctx.where} (lexicon {lex.name})")
            identity = str(entry.get(identity_field, text)) if identity_field else text
            lemma = str(entry.get("lemma", text))
            base = f"{lex.name}:{identity}"
            n = seen.get(base, 0)
            seen[base] = n + 1
            group = None
            if deal is not None:
                if entry.get(deal) is None:
                    raise TemplateError(f"deal: an entry of {lex.name} has no field {deal!r}",
                                        ctx.where)
                group = str(entry[deal])
            out.append(SlotValue(ctx.slot, text, entry, identity=identity, lemmas=(lemma,),
                                 key=base if n == 0 else f"{base}#{n}", group=group))
        return out


class ValuesKind:
    params = ("values", "identity")

    def options(self, spec, ctx):
        out = []
        for i, value in enumerate(spec["values"]):
            if isinstance(value, Mapping):
                text = _entry_text(value, None, ctx.where)
                identity = str(value.get(spec.get("identity") or "", text))
                out.append(SlotValue(ctx.slot, text, value, identity=identity,
                                     lemmas=(str(value.get("lemma", text)),), key=f"{i}:{text}"))
            elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
                text = str(value)
                out.append(SlotValue(ctx.slot, text, {"value": value}, identity=text,
                                     lemmas=(text,) if isinstance(value, str) else (),
                                     key=f"{i}:{text}", scalar=value))
            else:
                raise TemplateError(f"values[{i}] must be a text, number or mapping", ctx.where)
        return out


class RangeKind:
    params = ("range", "step")

    def options(self, spec, ctx):
        lo, hi = spec["range"]
        step = spec.get("step", 1)
        return [SlotValue(ctx.slot, str(v), {"value": v}, identity=str(v), key=str(v), scalar=v)
                for v in range(lo, hi + 1, step)]


def _scalar_ok(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def check_where(spec: Mapping[str, Any], where: str) -> None:
    """``where: {field: value | [values] | {not: [values]} | $axis | $slot.field}``"""
    if "where" not in spec:
        return
    cond = spec["where"]
    if not isinstance(cond, Mapping):
        raise TemplateError("'where' must be a mapping of field: value", where)
    for key, value in cond.items():
        if isinstance(value, Mapping):  # {not: [values]}: any value but these
            if set(value) != {"not"}:
                raise TemplateError(f"where.{key}: a mapping here is {{not: [values]}}", where)
            value = value["not"]
        values = value if isinstance(value, list) else [value]
        if not isinstance(key, str) or not all(_scalar_ok(v) for v in values):
            raise TemplateError(f"where.{key}: must be a value or a list of values", where)


def check_text_param(spec: Mapping[str, Any], name: str, where: str,
                     required: bool = False) -> None:
    if name in spec and not isinstance(spec[name], str) or required and name not in spec:
        raise TemplateError(f"'{name}' must be a text", where)


def validate_builtin(kind: str, spec: Mapping[str, Any], where: str) -> None:
    """Shape checks for the built-in kinds (done when the template loads)."""
    check_where(spec, where)
    if kind == "lexicon":
        if not isinstance(spec.get("lexicon"), str):
            raise TemplateError("'lexicon' must name a lexicon", where)
        check_text_param(spec, "text", where)
        check_text_param(spec, "identity", where)
    elif kind == "values":
        if not isinstance(spec["values"], list) or not spec["values"]:
            raise TemplateError("'values' must be a non-empty list", where)
        check_text_param(spec, "identity", where)
    elif kind == "range":
        rng = spec["range"]
        if (not isinstance(rng, list) or len(rng) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in rng)
                or rng[0] > rng[1]):
            raise TemplateError("'range' must be [low, high] integers with low <= high", where)
        step = spec.get("step", 1)
        if not isinstance(step, int) or isinstance(step, bool) or step <= 0:
            raise TemplateError("'step' must be a positive integer", where)
        if (rng[1] - rng[0]) // step + 1 > MAX_RANGE:
            raise TemplateError(f"range has more than {MAX_RANGE:,} values", where)


BUILTIN_KINDS: dict[str, Callable[[], SlotKind]] = {
    "lexicon": LexiconKind,
    "values": ValuesKind,
    "range": RangeKind,
}

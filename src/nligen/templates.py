"""Template files: schema, loading and validation.

A template file holds one template (a mapping) or a list of them. Everything is checked
when the file loads, and errors name the file, the template id and the field::

    templates/wogli/accusative.yaml: wogli.accusative: hypotheses[1].label: unknown label 'entails'

The schema (see README, "Writing templates"):

.. code-block:: yaml

    id: my.template             # required, unique
    family: mine                # default: the family of the directory (family.yaml) or "custom"
    language: de                # optional language layer (filters, slot kinds, checks)
    set: main                   # default set of its hypotheses
    description: ...
    variants:                   # optional grid of variants (WOGLI's patterns)
      axes: {subj: [a, b], obj: [a, b]}
      name: "{subj}_v_{obj}"
      field: pattern            # record field that holds the variant name
      keep: {check: de.disambiguated, args: {...}}
    slots:
      S: {lexicon: people, where: {gender: f}}
      x: {range: [1, 10]}
      V: {type: de.verb, lexicon: de/verbs}
      DO: {lexicon: objects, where: {classes: $V.class}}   # depends on slot V
    distinct: [[S, O]]          # these slots never share an identity
    checks: [same_lemmas, distinct_hypotheses]
    premise: "{{ S }} ..."      # or premises: [...] (joined by premise_separator)
    hypothesis: "..."           # with label: <label> | {entailment: <condition>, ..., otherwise: neutral}
    hypotheses:                 # or several, each with its own label and set
      - {type: H1, text: "...", label: non-entailment, set: other, explain: "..."}
    record: {verb_lemma: "{{ V.lemma }}"}   # extra record fields (rendered)
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import Any, Iterable, Mapping

from . import time as ntime
from .conditions import Condition, LabelRule
from .datafiles import load_yaml
from .errors import ConditionError, NligenError, TemplateError
from .lang import Language, get_language
from .pairs import PAIR_KEYS, PAIR_LABEL, PairSpec, parse_pair
from .semantics import Semantics, parse_semantics
from .render import CompiledText, Renderer
from .slots import BUILTIN_KINDS, validate_builtin
from .timeslots import TIME_DEFAULT_KEYS, TimeSpec, parse_time_block

LABELS = ("entailment", "neutral", "contradiction", "non-entailment")
MAX_VARIANTS = 10_000
CHECKS = ("same_lemmas", "distinct_hypotheses")
RESERVED_NAMES = {"variant", "True", "False", "None"}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_TEMPLATE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*\Z")
_REF = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?\Z")
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")

TOP_KEYS = {
    "id", "family", "language", "set", "description", "variants", "slots", "distinct",
    "checks", "premise", "premises", "premise_separator", "hypothesis", "label",
    "hypotheses", "record", "explain", "time", "labels", "match_labels", "semantics",
    "divergence",
    *PAIR_KEYS,
}
# a template's departure from the released condition it was transcribed from
DIVERGENCE_KEYS = {"jamp", "why", "example"}
HYP_KEYS = {"type", "text", "label", "set", "explain", "record"}
VARIANT_KEYS = {"axes", "name", "field", "keep", "only"}


@dataclass
class SlotSpec:
    name: str
    kind: str  # "lexicon" | "values" | "range" | "<lang>.<kind>"
    spec: dict
    axis_refs: set[str]
    slot_refs: list[tuple[str, str]]  # (slot, field) this slot's spec reads


@dataclass
class Hypothesis:
    index: int
    type: str | None
    text: CompiledText
    rule: LabelRule
    set: str
    explain: CompiledText | None
    record: dict[str, CompiledText]


@dataclass
class VariantSpec:
    axes: dict[str, list[str]]
    name: str
    field: str
    keep: list[tuple[str, dict]]
    only: list[str] | None


@dataclass
class Template:
    id: str
    family: str
    path: Path
    language: Language | None
    set: str
    description: str
    variants: VariantSpec | None
    slots: dict[str, SlotSpec]
    distinct: list[tuple[str, ...]]
    checks: list[str]
    premises: list[CompiledText]
    premise_separator: str
    hypotheses: list[Hypothesis]
    record: dict[str, Any]  # field -> CompiledText, or a plain value (number, null, ...)
    sha256: str
    renderer: Renderer = field(repr=False)
    time: TimeSpec | None = None
    # Labels generation produces (None: every label the rules can give). A condition may
    # name a label that the time block's `require` rules out in generated problems, so the
    # rule still labels other people's problems correctly (gen jamp label).
    labels: list[str] | None = None
    # More labels, drawn only for a --match cell that asks for one (a label readers dispute
    # but the released set has).
    match_labels: list[str] = field(default_factory=list)
    # A minimal-pair template's contrast (nligen.pairs); None for an NLI template.
    pair: PairSpec | None = None
    # What the sentences mean on a timeline (nligen.semantics); None: not stated.
    semantics: Semantics | None = None
    # Where the label condition departs from the source it was transcribed from:
    # {source's condition key: text, why, example} (listed in README and dataset cards)
    divergence: dict[str, str] | None = None

    @property
    def where(self) -> str:
        return f"{self.path}: {self.id}"

    @property
    def match_only(self) -> bool:
        """Drawn only for --match cells (``labels: []``): a released wording that a
        reworded sibling template replaces in the default draw."""
        return self.labels is not None and not self.labels

    def draws_label(self, label: str, requested: bool = False) -> bool:
        """Whether generation makes problems of ``label``; ``requested``: a --match cell
        asks for it (then ``match_labels`` count too)."""
        return (self.labels is None or label in self.labels
                or (requested and label in self.match_labels))

    @property
    def sets(self) -> list[str]:
        out: list[str] = []
        for h in self.hypotheses:
            if h.set not in out:
                out.append(h.set)
        return out

    def variant_names(self) -> list[tuple[str, dict[str, str]]]:
        """All (name, axes) combinations before ``keep`` filtering, in axis order."""
        if self.variants is None:
            return [("", {})]
        axes = self.variants.axes
        out = []
        for combo in product(*axes.values()):
            values = dict(zip(axes, combo))
            out.append((substitute(self.variants.name, values), values))
        return out


def substitute(fmt: str, values: Mapping[str, str]) -> str:
    """``{name}`` substitution (deliberately not str.format: no attribute access)."""
    return _PLACEHOLDER.sub(lambda m: str(values.get(m.group(1), m.group(0))), fmt)


class _Loc:
    """Builds error locations: file: template id: field."""

    def __init__(self, path: Path, tid: str | None = None):
        self.path, self.tid = path, tid

    def __call__(self, field_name: str | None = None) -> str:
        parts = [str(self.path)]
        if self.tid:
            parts.append(self.tid)
        if field_name:
            parts.append(field_name)
        return ": ".join(parts)


def load_template_file(path: Path, family_defaults: Mapping[str, Any] | None = None) -> list[Template]:
    family_defaults = family_defaults or {}
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise TemplateError(f"cannot read: {exc.strerror}", str(path)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise TemplateError("not UTF-8 text", str(path)) from None
    data = load_yaml(text, str(path), TemplateError)
    sha = hashlib.sha256(raw).hexdigest()
    if isinstance(data, Mapping) and "templates" in data:
        items = _with_defaults(data, str(path))
    elif isinstance(data, Mapping):
        items = [data]
    elif isinstance(data, list) and data:
        items = data
    else:
        raise TemplateError("expected a template (mapping) or a list of templates", str(path))
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise TemplateError(f"item {i + 1} is not a mapping", str(path))
        out.append(parse_template(item, path, sha, family_defaults))
    return out


def _with_defaults(data: Mapping[str, Any], where: str) -> list[Any]:
    """A file ``{defaults: {...}, templates: [...]}``: each template starts from the
    defaults (its own fields win; ``record`` mappings are merged)."""
    bad = set(data) - {"defaults", "templates", "description"}
    if bad:
        raise TemplateError(f"unknown field(s) {', '.join(sorted(map(str, bad)))} beside "
                            "'templates' (known: defaults, description)", where)
    defaults = data.get("defaults") or {}
    items = data["templates"]
    if not isinstance(defaults, Mapping):
        raise TemplateError("'defaults' must be a mapping of template fields", where)
    if not isinstance(items, list) or not items:
        raise TemplateError("'templates' must be a non-empty list of templates", where)
    out = []
    for item in items:
        if not isinstance(item, Mapping):
            out.append(item)
            continue
        merged = dict(defaults)
        merged.update(item)
        if isinstance(defaults.get("record"), Mapping) and isinstance(item.get("record"), Mapping):
            merged["record"] = {**defaults["record"], **item["record"]}
        out.append(merged)
    return out


def parse_template(data: Mapping[str, Any], path: Path, sha256: str = "",
                   family_defaults: Mapping[str, Any] | None = None) -> Template:
    family_defaults = family_defaults or {}
    tid = data.get("id")
    loc = _Loc(path, tid if isinstance(tid, str) else None)
    if not isinstance(tid, str) or not _TEMPLATE_ID.match(tid):
        raise TemplateError("'id' must be a name of letters, digits, '.', '_' or '-'", loc("id"))
    unknown = set(data) - TOP_KEYS
    if unknown:
        raise TemplateError(f"unknown field(s): {', '.join(sorted(map(str, unknown)))}",
                            loc(sorted(map(str, unknown))[0]))

    family = _opt_str(data, "family", loc) or family_defaults.get("name") or "custom"
    description = _opt_str(data, "description", loc) or ""
    default_set = _opt_str(data, "set", loc) or family_defaults.get("default_set") or "default"
    lang_code = _opt_str(data, "language", loc) or family_defaults.get("language")
    language = get_language(lang_code, loc("language")) if lang_code else None

    renderer = Renderer(language.filters if language else None)

    variants = _parse_variants(data.get("variants"), loc, language)
    axis_names = set(variants.axes) if variants else set()

    slots = _parse_slots(data.get("slots"), loc, axis_names, language)
    time_spec = None
    if "time" in data:
        raw_time = data["time"]
        if isinstance(raw_time, Mapping) and family_defaults.get("time_defaults"):
            raw_time = {**family_defaults["time_defaults"], **raw_time}  # the template's own win
        time_spec = parse_time_block(raw_time, loc("time"), set(slots) | axis_names)
    time_names = set(time_spec.names) if time_spec else set()
    known_names = set(slots) | axis_names | time_names | {"variant"}
    for i, (check_name, args) in enumerate(variants.keep if variants else []):
        validate_args = getattr(language.variant_checks[check_name], "validate", None)
        problem = validate_args(args, slots) if validate_args else None
        if problem:
            raise TemplateError(problem, loc(f"variants.keep[{i}].args"))

    distinct = []
    raw_distinct = data.get("distinct", [])
    if not isinstance(raw_distinct, list):
        raise TemplateError("'distinct' must be a list of slot-name lists", loc("distinct"))
    for i, group in enumerate(raw_distinct):
        if (not isinstance(group, list) or len(group) < 2
                or not all(isinstance(g, str) and g in slots for g in group)):
            raise TemplateError("each group must list two or more slot names", loc(f"distinct[{i}]"))
        distinct.append(tuple(group))

    checks = data.get("checks", [])
    if not isinstance(checks, list) or any(c not in CHECKS for c in checks):
        raise TemplateError(f"'checks' must be a list drawn from {', '.join(CHECKS)}", loc("checks"))
    if "same_lemmas" in checks and (language is None or language.lemma_analyser is None):
        raise TemplateError("the same_lemmas check needs a language with a lemma analyser",
                            loc("checks"))

    def compile_text(source: Any, field_name: str) -> CompiledText:
        compiled = renderer.compile(source, loc(field_name))
        unknown_names = compiled.names - known_names
        if unknown_names:
            raise TemplateError(
                f"unknown name(s) {', '.join(sorted(unknown_names))} "
                f"(slots: {', '.join(sorted(slots)) or 'none'})",
                loc(field_name),
            )
        return compiled

    if "good" in data:
        return _pair_template(data, loc, path, sha256, family, language, default_set,
                              description, variants, slots, distinct, checks, renderer,
                              compile_text)
    if "premise" in data and "premises" in data:
        raise TemplateError("give either 'premise' or 'premises', not both", loc("premises"))
    if "premises" in data:
        raw_premises = data["premises"]
        if not isinstance(raw_premises, list) or not 0 < len(raw_premises) <= 50:
            raise TemplateError("'premises' must be a list of 1 to 50 texts", loc("premises"))
        premises = [compile_text(p, f"premises[{i}]") for i, p in enumerate(raw_premises)]
    elif "premise" in data:
        premises = [compile_text(data["premise"], "premise")]
    else:
        raise TemplateError("missing 'premise'", loc("premise"))
    separator = data.get("premise_separator", " ")
    if not isinstance(separator, str) or len(separator) > 20:
        raise TemplateError("'premise_separator' must be a text of at most 20 characters",
                            loc("premise_separator"))

    cond_names = set(slots) | axis_names | time_names
    hypotheses: list[Hypothesis] = []
    if "hypotheses" in data:
        if "hypothesis" in data or "label" in data:
            raise TemplateError("give 'hypotheses' or 'hypothesis' + 'label', not both",
                                loc("hypotheses"))
        raw_h = data["hypotheses"]
        if not isinstance(raw_h, list) or not 0 < len(raw_h) <= 50:
            raise TemplateError("'hypotheses' must be a list of 1 to 50 hypotheses",
                                loc("hypotheses"))
        for i, h in enumerate(raw_h):
            f = f"hypotheses[{i}]"
            if not isinstance(h, Mapping):
                raise TemplateError("must be a mapping with 'text' and 'label'", loc(f))
            bad = set(h) - HYP_KEYS
            if bad:
                raise TemplateError(f"unknown field(s): {', '.join(sorted(map(str, bad)))}", loc(f))
            if "text" not in h or "label" not in h:
                raise TemplateError("needs 'text' and 'label'", loc(f))
            htype = h.get("type")
            if htype is not None and not isinstance(htype, str):
                raise TemplateError("'type' must be a text", loc(f"{f}.type"))
            hset = h.get("set", default_set)
            if not isinstance(hset, str) or not _IDENT.match(hset):
                raise TemplateError("'set' must be a name", loc(f"{f}.set"))
            hypotheses.append(Hypothesis(
                index=i, type=htype, text=compile_text(h["text"], f"{f}.text"),
                rule=_parse_label(h["label"], loc(f"{f}.label"), cond_names),
                set=hset,
                explain=compile_text(h["explain"], f"{f}.explain") if "explain" in h else None,
                record=_parse_record(h.get("record"), compile_text, f"{f}.record", loc),
            ))
    elif "hypothesis" in data:
        if "label" not in data:
            raise TemplateError("missing 'label' for the hypothesis", loc("label"))
        hypotheses.append(Hypothesis(
            index=0, type=None, text=compile_text(data["hypothesis"], "hypothesis"),
            rule=_parse_label(data["label"], loc("label"), cond_names), set=default_set,
            explain=compile_text(data["explain"], "explain") if "explain" in data else None,
            record={},
        ))
    else:
        raise TemplateError("missing 'hypothesis' or 'hypotheses'", loc("hypothesis"))
    types = [h.type for h in hypotheses if h.type]
    if len(types) != len(set(types)):
        raise TemplateError("hypothesis types must be unique", loc("hypotheses"))

    record = _parse_record(data.get("record"), compile_text, "record", loc)

    possible = {lab for h in hypotheses for lab in h.rule.labels}
    gen_labels = data.get("labels")
    if gen_labels is not None:
        # [] with match_labels: a template drawn only for a --match cell (its released
        # surface, when a reworded sibling template serves the default draw)
        if (not isinstance(gen_labels, list)
                or not gen_labels and not data.get("match_labels")
                or any(lab not in possible for lab in gen_labels)):
            raise TemplateError(f"'labels' must list labels the hypotheses can give "
                                f"({', '.join(sorted(possible))}); [] only with "
                                "'match_labels'", loc("labels"))
    match_labels = data.get("match_labels") or []
    if match_labels and (gen_labels is None or not isinstance(match_labels, list)
                         or any(lab not in possible or lab in gen_labels for lab in match_labels)):
        raise TemplateError("'match_labels' must list labels the hypotheses can give "
                            "that 'labels' leaves out", loc("match_labels"))

    semantics = None
    if data.get("semantics") is not None:
        if len(hypotheses) != 1:
            raise TemplateError("a semantics block needs exactly one hypothesis",
                                loc("semantics"))
        semantics = parse_semantics(data["semantics"], loc("semantics"),
                                    time_spec.names if time_spec else [])
        if len(semantics.premises) != len(premises):
            raise TemplateError(f"'premises' must give one sentence per premise "
                                f"({len(premises)}), not {len(semantics.premises)}",
                                loc("semantics.premises"))

    divergence = data.get("divergence")
    if divergence is not None and (
            not isinstance(divergence, Mapping) or set(divergence) != DIVERGENCE_KEYS
            or not all(isinstance(v, str) and v.strip() for v in divergence.values())):
        raise TemplateError(f"'divergence' must give {', '.join(sorted(DIVERGENCE_KEYS))} "
                            "as text", loc("divergence"))

    return Template(
        id=tid, family=family, path=path, language=language, set=default_set,
        description=description, variants=variants, slots=slots, distinct=distinct,
        checks=list(checks), premises=premises, premise_separator=separator,
        hypotheses=hypotheses, record=record, sha256=sha256, renderer=renderer,
        time=time_spec, labels=gen_labels, match_labels=list(match_labels), semantics=semantics,
        divergence=dict(divergence) if divergence else None,
    )


def _pair_template(data, loc, path, sha256, family, language, default_set, description,
                   variants, slots, distinct, checks, renderer, compile_text) -> Template:
    """A minimal-pair template (``good`` + ``contrast``, see nligen.pairs): the good
    sentence as its premise, the bad one as its one hypothesis."""
    fields = parse_pair(data, loc, set(slots), language)
    good = compile_text(fields.pop("good"), "good")
    bad = compile_text(fields.pop("bad"), "good" if fields["kind"] == "vary" else "bad")
    reason_source = fields.pop("reason")
    reason = compile_text(reason_source, "reason") if reason_source else None
    hypothesis = Hypothesis(index=0, type=None, text=bad, rule=LabelRule(fixed=PAIR_LABEL),
                            set=default_set, explain=reason, record={})
    pair = PairSpec(good=good, **fields)
    return Template(
        id=data["id"], family=family, path=path, language=language, set=default_set,
        description=description, variants=variants, slots=slots, distinct=distinct,
        checks=list(checks), premises=[good], premise_separator=" ",
        hypotheses=[hypothesis], record=_parse_record(data.get("record"), compile_text,
                                                      "record", loc),
        sha256=sha256, renderer=renderer, pair=pair)


def _opt_str(data: Mapping, key: str, loc: _Loc) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise TemplateError(f"'{key}' must be a text", loc(key))
    return value


def _parse_record(raw: Any, compile_text, field_name: str, loc: _Loc) -> dict[str, Any]:
    """Extra record fields: a text is rendered per item; a number, true/false or null is
    written as it is."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise TemplateError("must be a mapping of field: text", loc(field_name))
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if not isinstance(key, str) or not _IDENT.match(key):
            raise TemplateError(f"field name {key!r} is not a name", loc(field_name))
        if value is None or isinstance(value, (bool, int)):
            out[key] = value
        elif isinstance(value, (str, float)):
            out[key] = compile_text(str(value), f"{field_name}.{key}")
        else:
            raise TemplateError("must be a text, a number, true/false or null",
                                loc(f"{field_name}.{key}"))
    return out


def _parse_label(raw: Any, where: str, names: set[str]) -> LabelRule:
    if isinstance(raw, str):
        if raw not in LABELS:
            raise TemplateError(f"unknown label {raw!r} (labels: {', '.join(LABELS)})", where)
        return LabelRule(fixed=raw)
    if not isinstance(raw, Mapping) or not raw:
        raise TemplateError("a label is a label name or a mapping label: condition", where)
    conditions = []
    otherwise = None
    for key, value in raw.items():
        if key == "otherwise":
            if value not in LABELS:
                raise TemplateError(f"unknown label {value!r} for otherwise", where)
            otherwise = value
            continue
        if key not in LABELS:
            raise TemplateError(f"unknown label {key!r} (labels: {', '.join(LABELS)})", where)
        try:
            conditions.append((key, Condition(value, allowed_names=names)))
        except ConditionError as exc:
            raise ConditionError(exc.what, f"{where}.{key}") from None
    rule = LabelRule(conditions=conditions, otherwise=otherwise)
    if not rule.labels:
        raise TemplateError("no label can ever hold (every condition is false and no otherwise)",
                            where)
    return rule


def _parse_variants(raw: Any, loc: _Loc, language: Language | None) -> VariantSpec | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise TemplateError("'variants' must be a mapping", loc("variants"))
    bad = set(raw) - VARIANT_KEYS
    if bad:
        raise TemplateError(f"unknown field(s): {', '.join(sorted(bad))}", loc("variants"))
    axes = raw.get("axes")
    if not isinstance(axes, Mapping) or not axes:
        raise TemplateError("'axes' must map axis names to lists of values", loc("variants.axes"))
    clean_axes: dict[str, list[str]] = {}
    for name, values in axes.items():
        if not isinstance(name, str) or not _IDENT.match(name) or name in RESERVED_NAMES:
            raise TemplateError(f"bad axis name {name!r}", loc("variants.axes"))
        if (not isinstance(values, list) or not values
                or not all(isinstance(v, str) for v in values) or len(set(values)) != len(values)):
            raise TemplateError("each axis needs a list of distinct texts", loc(f"variants.axes.{name}"))
        clean_axes[name] = list(values)
    name_fmt = raw.get("name", "_".join("{%s}" % a for a in clean_axes))
    if not isinstance(name_fmt, str):
        raise TemplateError("'name' must be a text like \"{subj}_v_{obj}\"", loc("variants.name"))
    for ph in _PLACEHOLDER.findall(name_fmt):
        if ph not in clean_axes:
            raise TemplateError(f"placeholder {{{ph}}} is not an axis", loc("variants.name"))
    combos = 1
    for values in clean_axes.values():
        combos *= len(values)
    if combos > MAX_VARIANTS:
        raise TemplateError(f"{combos:,} variants: at most {MAX_VARIANTS:,}", loc("variants.axes"))
    field_name = raw.get("field", "variant")
    if not isinstance(field_name, str) or not _IDENT.match(field_name):
        raise TemplateError("'field' must be a name", loc("variants.field"))
    keep_raw = raw.get("keep", [])
    if isinstance(keep_raw, Mapping):
        keep_raw = [keep_raw]
    keep = []
    for i, k in enumerate(keep_raw if isinstance(keep_raw, list) else [None]):
        f = f"variants.keep[{i}]"
        if not isinstance(k, Mapping) or not isinstance(k.get("check"), str):
            raise TemplateError("each keep rule is {check: lang.name, args: {...}}", loc(f))
        check = k["check"]
        lang_code, _, check_name = check.partition(".")
        if language is None or lang_code != language.code or check_name not in language.variant_checks:
            known = sorted(f"{language.code}.{c}" for c in language.variant_checks) if language else []
            raise TemplateError(f"unknown check {check!r} (known: {', '.join(known) or 'none'})", loc(f))
        args = k.get("args", {})
        if not isinstance(args, Mapping):
            raise TemplateError("'args' must be a mapping", loc(f))
        keep.append((check_name, dict(args)))
    only = raw.get("only")
    if only is not None and (not isinstance(only, list) or not all(isinstance(o, str) for o in only)):
        raise TemplateError("'only' must be a list of variant names", loc("variants.only"))
    return VariantSpec(clean_axes, name_fmt, field_name, keep, only)


def _collect_refs(value: Any, axis_refs: set[str], slot_refs: list[tuple[str, str]]) -> None:
    if isinstance(value, str):
        m = _REF.match(value)
        if m:
            if m.group(2):
                slot_refs.append((m.group(1), m.group(2)))
            else:
                axis_refs.add(m.group(1))
    elif isinstance(value, Mapping):
        for v in value.values():
            _collect_refs(v, axis_refs, slot_refs)
    elif isinstance(value, list):
        for v in value:
            _collect_refs(v, axis_refs, slot_refs)


def _parse_slots(raw: Any, loc: _Loc, axis_names: set[str],
                 language: Language | None) -> dict[str, SlotSpec]:
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise TemplateError("'slots' must map slot names to specifications", loc("slots"))
    out: dict[str, SlotSpec] = {}
    for name, spec in raw.items():
        f = f"slots.{name}"
        if not isinstance(name, str) or not _IDENT.match(name):
            raise TemplateError(f"slot name {name!r} is not a name", loc("slots"))
        if name in RESERVED_NAMES or name in ntime.UNITS or name in axis_names:
            raise TemplateError(f"slot name {name!r} is reserved (or an axis/time unit)", loc(f))
        if not isinstance(spec, Mapping):
            raise TemplateError("a slot is a mapping such as {lexicon: NAME}", loc(f))
        spec = dict(spec)
        if "type" in spec:
            kind = spec["type"]
            if not isinstance(kind, str):
                raise TemplateError("'type' must be a text", loc(f"{f}.type"))
            if "." in kind:
                lang_code, _, kind_name = kind.partition(".")
            else:
                lang_code, kind_name = (language.code if language else ""), kind
            if language is None or lang_code != language.code or kind_name not in language.slot_kinds:
                known = sorted(f"{language.code}.{k}" for k in language.slot_kinds) if language else []
                raise TemplateError(
                    f"unknown slot type {kind!r} (known: {', '.join(known + list(BUILTIN_KINDS))})",
                    loc(f"{f}.type"))
            kind = f"{lang_code}.{kind_name}"
            kind_obj = language.slot_kinds[kind_name]()
            allowed = set(kind_obj.params) | {"type", "where"}
            if hasattr(kind_obj, "validate"):
                kind_obj.validate(spec, loc(f))
        else:
            present = [k for k in BUILTIN_KINDS if k in spec]
            if len(present) != 1:
                raise TemplateError(
                    "a slot needs exactly one of 'lexicon', 'values', 'range' or 'type'", loc(f))
            kind = present[0]
            allowed = set(BUILTIN_KINDS[kind]().params) | {"where"}
            validate_builtin(kind, spec, loc(f))
        bad = set(spec) - allowed
        if bad:
            raise TemplateError(f"unknown field(s) {', '.join(sorted(bad))} for a {kind} slot", loc(f))
        axis_refs: set[str] = set()
        slot_refs: list[tuple[str, str]] = []
        _collect_refs(spec, axis_refs, slot_refs)
        for a in axis_refs:
            if a not in axis_names:
                raise TemplateError(f"${a} is not a variant axis", loc(f))
        for s, _ in slot_refs:
            if s not in out:
                raise TemplateError(f"${s}.… must refer to a slot declared before {name}", loc(f))
        out[name] = SlotSpec(name, kind, spec, axis_refs, slot_refs)
    return out


def resolve_refs(value: Any, axes: Mapping[str, str], chosen: Mapping[str, Any] | None = None) -> Any:
    """Replace ``$axis`` and ``$slot.field`` references inside a slot specification."""
    if isinstance(value, str):
        m = _REF.match(value)
        if not m:
            return value
        if m.group(2):
            if chosen is None:
                return value
            return getattr(chosen[m.group(1)], "_fields", {}).get(m.group(2))
        return axes[m.group(1)]
    if isinstance(value, Mapping):
        return {k: resolve_refs(v, axes, chosen) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve_refs(v, axes, chosen) for v in value]
    return value


# -- template sets ---------------------------------------------------------------

@dataclass
class TemplateSet:
    """Templates loaded from a directory (or files), with the family settings found there."""

    templates: list[Template]
    family: dict[str, Any]
    root: Path | None

    def by_id(self, tid: str) -> Template:
        for t in self.templates:
            if t.id == tid:
                return t
        raise TemplateError(f"no template with id {tid!r}")

    @property
    def sets(self) -> list[str]:
        out: list[str] = []
        for t in self.templates:
            for s in t.sets:
                if s not in out:
                    out.append(s)
        return out


FAMILY_FILE = "family.yaml"


FAMILY_KEYS = {
    "name": str, "title": str, "language": str, "default_set": str, "description": str,
    "citation": str, "license": str, "default_units_per_variant": int, "splits": dict,
    "record_defaults": dict, "license_id": str, "bibtex": str, "card_tables": list,
    "tags": list, "time_defaults": dict, "default_units_per_set": dict,
}


def load_family_file(path: Path) -> dict[str, Any]:
    """``family.yaml``: the family's name, language and defaults, checked like a template."""
    where = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TemplateError(f"cannot read: {getattr(exc, 'strerror', None) or exc}", where) from None
    data = load_yaml(text, where, TemplateError)
    if data is None:
        return {}
    if not isinstance(data, Mapping):
        raise TemplateError("family file must be a mapping", where)
    for key, value in data.items():
        kind = FAMILY_KEYS.get(key)
        if kind is None:
            raise TemplateError(f"unknown field {key!r} (known: {', '.join(FAMILY_KEYS)})", where)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise TemplateError(f"{key}: must be {'a text' if kind is str else kind.__name__}",
                                where)
    units = data.get("default_units_per_variant")
    if units is not None and not 0 < units <= 1_000_000:
        raise TemplateError("default_units_per_variant: must be between 1 and 1,000,000", where)
    for name, value in (data.get("default_units_per_set") or {}).items():
        if not isinstance(name, str) or not _IDENT.match(name) or isinstance(value, bool) \
                or not isinstance(value, int) or not 0 < value <= 1_000_000:
            raise TemplateError(f"default_units_per_set.{name}: must map a set name to a "
                                "number between 1 and 1,000,000", where)
    for name in ("name", "default_set"):
        if name in data and not _IDENT.match(data[name]) and not _TEMPLATE_ID.match(data[name]):
            raise TemplateError(f"{name}: must be a name", where)
    for key, value in (data.get("record_defaults") or {}).items():
        if not isinstance(key, str) or not _IDENT.match(key) or not (
                value is None or isinstance(value, (str, int, float, bool))):
            raise TemplateError(f"record_defaults.{key}: must be a plain value", where)
    bad_time = set(data.get("time_defaults") or {}) - TIME_DEFAULT_KEYS
    if bad_time:
        raise TemplateError(f"time_defaults: unknown field(s) {', '.join(sorted(map(str, bad_time)))} "
                            f"(known: {', '.join(sorted(TIME_DEFAULT_KEYS))})", where)
    for split, options in (data.get("splits") or {}).items():
        cover = options.get("cover", []) if isinstance(options, Mapping) else None
        if not isinstance(cover, list) or not all(isinstance(c, str) for c in cover):
            raise TemplateError(f"splits.{split}: must be a mapping like {{cover: [V]}}", where)
    return dict(data)


def load_templates(paths: Iterable[Path | str]) -> TemplateSet:
    """Load templates from files and/or directories (recursively, sorted by path).

    A ``family.yaml`` in a directory sets the family's name, language and defaults.
    """
    templates: list[Template] = []
    family: dict[str, Any] = {}
    root: Path | None = None
    for p in paths:
        p = Path(p)
        if p.is_dir():
            root = root or p
            fam_path = p / FAMILY_FILE
            if fam_path.is_file():
                family = load_family_file(fam_path)
            # A lexicons/ folder inside the template folder holds lexicons, not templates.
            files = sorted(
                f for f in p.rglob("*")
                if f.suffix in (".yaml", ".yml") and f.name != FAMILY_FILE and f.is_file()
                and "lexicons" not in f.relative_to(p).parts[:-1]
            )
            if not files:
                raise TemplateError("no template files (*.yaml) found", str(p))
        elif p.is_file():
            files = [p]
        else:
            raise TemplateError("no such file or directory", str(p))
        for f in files:
            try:
                templates.extend(load_template_file(f, family))
            except NligenError:
                raise
    seen: dict[str, Path] = {}
    for t in templates:
        if t.id in seen:
            raise TemplateError(f"duplicate template id (also in {seen[t.id]})", f"{t.path}: {t.id}")
        seen[t.id] = t.path
    return TemplateSet(templates, family, root)

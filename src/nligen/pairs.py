"""Minimal pairs: templates that give an acceptable and an unacceptable sentence.

A pair template names its contrast instead of writing both sentences (as CLAMS's
``vary:`` does)::

    good: "{{S|nom|cap}} {{V|agree(S)}} {{O|acc}} ."
    contrast: {vary: V, feature: number}

The bad sentence is the good one with every expression of slot ``V`` taking the
language layer's wrong value for the feature (``V|contrast("number")|agree(S)``: the
verb in the other number). A word-order contrast writes the bad sentence and names
what moved::

    good: "Heute {{V|agree(S)}} {{S|nom}} {{O|acc}} ."
    bad:  "Heute {{S|nom}} {{V|agree(S)}} {{O|acc}} ."
    contrast: {move: V}

The engine makes pair templates like any other (one premise, the good sentence; one
hypothesis, the bad one), so balance, dedup, splits, workers, manifests and verify work
unchanged; :meth:`PairSpec.problem` checks every pair before it is kept:

* good and bad differ;
* they differ only in the declared point: outside the varied slot's spans the two
  sentences are the same text; a moved slot is the same text in both, and without it
  the sentences are the same words in the same order;
* the bad form is bad for the stated reason: the language layer's check reads the
  paradigm (a German noun's every cell, a verb's two present forms) and refuses a
  "wrong" form that some other cell allows.

A pair that fails is not written (the filling counts as a miss); a template whose
fillings keep failing stops the run with an error that names it and the last failure.
Records follow BLiMP's JSONL format (:func:`pair_record`), so BLiMP scoring code reads
them unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from .errors import TemplateError

PAIR_KEYS = frozenset({"good", "bad", "contrast", "phenomenon", "field", "reason"})
# The label every pair item carries inside the engine (records do not show it): the bad
# sentence is what a model should not prefer.
PAIR_LABEL = "pair"
# The manifest's ``records`` for a set of pairs (NLI sets have none).
PAIR_RECORDS = "minimal_pairs"
FIELDS = ("morphology", "syntax", "semantics", "syntax_semantics")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_ARG = re.compile(r"\w{1,40}\Z")  # a contrast's argument: a case (ヲ), a form name


@dataclass
class PairSpec:
    """A template's pair: what it contrasts and how the contrast is checked."""

    phenomenon: str
    field: str
    kind: str  # "vary" (a feature of a slot made wrong) or "move" (a slot moved)
    slot: str
    feature: str | None
    args: tuple
    good: Any  # the good sentence's CompiledText (rendered again for its spans)
    check: Callable[..., str | None] | None  # the language's check of a vary contrast
    about: str
    words: Callable[[str], list[str]]
    spaced: bool
    last_problem: str | None = field(default=None, compare=False)

    def describe(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "slot": self.slot}
        if self.feature is not None:
            out["feature"] = self.feature
        if self.args:
            out["to"] = self.args[0]
        out["about"] = self.about
        return out

    def good_spans(self, context: Mapping[str, Any]) -> list[list[int]]:
        return self.good.render(context)[1].get(self.slot, [])

    def problem(self, context: Mapping[str, Any], good: str, bad: str,
                bad_spans: Mapping[str, list[list[int]]]) -> str | None:
        """Why this filling's pair must not be written (None: it may)."""
        found = self._problem(context, good, bad, bad_spans)
        if found is not None:
            self.last_problem = found
        return found

    def _problem(self, context, good, bad, bad_spans) -> str | None:
        if good == bad:
            return f"good and bad are the same sentence ({good!r})"
        gs = self.good_spans(context)
        bs = bad_spans.get(self.slot, [])
        if not gs or len(gs) != len(bs):
            return f"{self.slot} is not written as often in the bad sentence as in the good"
        if self.kind == "vary":
            if _outside(good, gs) != _outside(bad, bs):
                return f"good {good!r} and bad {bad!r} differ outside {self.slot}"
            value = context[self.slot]
            changed = False
            for (a, b), (c, d) in zip(gs, bs):
                g, x = good[a:b], bad[c:d]
                if g != x:
                    changed = True
                    why = (self.check(value, g, x, *self.args, context=context,
                                      sentences=(good, bad)) if self.check else None)
                    if why is not None:
                        return why
            return None if changed else f"{self.slot} reads the same in both sentences"
        # move: the slot's text is the same; without it, the rest is the same words
        if [good[a:b] for a, b in gs] != [bad[c:d] for c, d in bs]:
            return f"the moved {self.slot} reads differently in the bad sentence"
        if self.words(" ".join(_outside(good, gs))) != self.words(" ".join(_outside(bad, bs))):
            return f"good {good!r} and bad {bad!r} differ beyond moving {self.slot}"
        return None


def _outside(text: str, spans: list[list[int]]) -> list[str]:
    """The text around the spans, as pieces."""
    pieces, start = [], 0
    for a, b in sorted(spans):
        pieces.append(text[start:a])
        start = b
    pieces.append(text[start:])
    return pieces


def bad_source(good: str, slot: str, feature: str, args: tuple, where: str) -> str:
    """The good text with each expression written from ``slot`` taking its contrast
    first (``{{V|agree(S)}}`` -> ``{{V|contrast("number")|agree(S)}}``)."""
    call = "contrast(" + ", ".join(_quote(a) for a in (feature, *args)) + ")"
    pattern = re.compile(r"(\{\{-?\s*)" + re.escape(slot) + r"(?=\s*(\||\}\}|-\}\}))")
    out, count = pattern.subn(lambda m: f"{m.group(1)}{slot}|{call}", good)
    if count == 0:
        raise TemplateError(f"the good sentence writes no expression that starts with "
                            f"{slot} ({{{{ {slot}|... }}}})", where)
    return out  # field reads ({{ V.args }}) stay as they are: the same in both sentences


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def parse_pair(data: Mapping[str, Any], loc: Callable[[str], str], slot_names: set[str],
               language: Any) -> dict[str, Any]:
    """The pair fields of a template mapping, checked: the sources of the ``good``,
    ``bad`` and ``reason`` texts and the other :class:`PairSpec` arguments."""
    for key in ("premise", "premises", "hypothesis", "hypotheses", "label", "labels",
                "time", "explain"):
        if key in data:
            raise TemplateError(f"a pair template ('good') takes no '{key}'", loc(key))
    for key in ("phenomenon", "field"):
        value = data.get(key)
        if not isinstance(value, str) or not _NAME.match(value):
            raise TemplateError(f"'{key}' must be a name (letters, digits, '_')", loc(key))
    if data["field"] not in FIELDS:
        raise TemplateError(f"'field' must be one of {', '.join(FIELDS)}", loc("field"))
    good = data.get("good")
    if not isinstance(good, str) or not good.strip():
        raise TemplateError("'good' must be a text", loc("good"))
    if language is None or not getattr(language, "contrasts", None):
        raise TemplateError("a pair template needs a language with contrasts "
                            "(language: de or ja)", loc("language"))
    raw = data.get("contrast")
    if not isinstance(raw, Mapping):
        raise TemplateError("'contrast' must be a mapping: {vary: SLOT, feature: F} or "
                            "{move: SLOT}", loc("contrast"))
    kinds = [k for k in ("vary", "move") if k in raw]
    if len(kinds) != 1:
        raise TemplateError("'contrast' takes one of 'vary' or 'move'", loc("contrast"))
    kind = kinds[0]
    slot = raw[kind]
    if not isinstance(slot, str) or slot not in slot_names:
        raise TemplateError(f"contrast.{kind} must name a slot "
                            f"({', '.join(sorted(slot_names)) or 'none'})", loc(f"contrast.{kind}"))
    reason = data.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise TemplateError("'reason' must be a text", loc("reason"))
    words = language.words or str.split
    if kind == "move":
        extra = set(raw) - {"move"}
        if extra:
            raise TemplateError(f"contrast: unknown field(s) {', '.join(sorted(map(str, extra)))}",
                                loc("contrast"))
        bad = data.get("bad")
        if not isinstance(bad, str) or not bad.strip():
            raise TemplateError("a move contrast needs the bad sentence in 'bad'", loc("bad"))
        return dict(good=good, bad=bad, kind=kind, slot=slot, feature=None, args=(),
                    check=None, about=f"{slot} out of its place", words=words,
                    spaced=language.spaced, phenomenon=data["phenomenon"],
                    field=data["field"], reason=reason)
    if "bad" in data:
        raise TemplateError("a vary contrast makes the bad sentence itself: no 'bad'", loc("bad"))
    feature = raw.get("feature")
    spec = language.contrasts.get(feature) if isinstance(feature, str) else None
    if spec is None:
        raise TemplateError(f"contrast.feature must be one of {', '.join(language.contrasts)} "
                            f"for {language.name}", loc("contrast.feature"))
    extra = set(raw) - {"vary", "feature", *spec.args}
    if extra:
        raise TemplateError(f"contrast: unknown field(s) {', '.join(sorted(map(str, extra)))}",
                            loc("contrast"))
    args = []
    for name in spec.args:
        value = raw.get(name)
        if not isinstance(value, str) or not _ARG.match(value):
            raise TemplateError(f"contrast.{name} must be a word (a case, a form)",
                                loc(f"contrast.{name}"))
        args.append(value)
    bad = bad_source(good, slot, feature, tuple(args), loc("contrast"))
    return dict(good=good, bad=bad, kind=kind, slot=slot, feature=feature, args=tuple(args),
                check=spec.check, about=spec.about, words=words, spaced=language.spaced,
                phenomenon=data["phenomenon"], field=data["field"], reason=reason)


# -- records ------------------------------------------------------------------------

def blimp_fields(good: str, bad: str, words: Callable[[str], list[str]],
                 spaced: bool) -> dict[str, Any]:
    """BLiMP's method fields for a pair. ``one_prefix_method``: the sentences are the
    same words but one (scored by the word after the shared prefix);
    ``two_prefix_method``: they end in the same words and differ before them (scored by
    the first shared word after each prefix). Both need words written apart;
    ``lexically_identical``: the same words, in any order."""
    g, b = words(good), words(bad)
    out: dict[str, Any] = {"simple_LM_method": True, "one_prefix_method": False,
                           "two_prefix_method": False,
                           "lexically_identical": sorted(g) == sorted(b)}
    if not spaced:
        return out
    differ = [i for i, (x, y) in enumerate(zip(g, b)) if x != y]
    if len(g) == len(b) and len(differ) == 1:
        i = differ[0]
        out["one_prefix_method"] = True
        out["one_prefix_prefix"] = " ".join(g[:i])
        out["one_prefix_word_good"] = g[i]
        out["one_prefix_word_bad"] = b[i]
    shared = 0
    while shared < min(len(g), len(b)) and g[-1 - shared] == b[-1 - shared]:
        shared += 1
    if 0 < shared < min(len(g), len(b)) and g[:len(g) - shared] != b[:len(b) - shared]:
        out["two_prefix_method"] = True
        out["two_prefix_prefix_good"] = " ".join(g[:len(g) - shared])
        out["two_prefix_prefix_bad"] = " ".join(b[:len(b) - shared])
        out["two_prefix_word"] = g[len(g) - shared]
    return out


def pair_record(family: str, index: int, item: Any, split: str, seen: bool | None,
                wants_seen: bool, group: str) -> dict[str, Any]:
    """One pair as a record: BLiMP's fields, then the project's."""
    t = item.template
    pair: PairSpec = t.pair
    context = dict(item.filling)
    if t.variants is not None:
        context.update(item.variant.axes)
        context["variant"] = item.variant.name
    rec: dict[str, Any] = {
        "id": f"{family}-{index:06d}",
        "family": family,
        "language": t.language.code,
        "sentence_good": item.premise,
        "sentence_bad": item.text,
        "field": pair.field,
        "linguistics_term": pair.phenomenon,
        "UID": t.id,
        "pairID": str(index),
    }
    rec.update(blimp_fields(item.premise, item.text, pair.words, pair.spaced))
    if t.variants is not None:
        rec[t.variants.field] = item.variant.name
    rec["split"] = split
    if wants_seen:
        rec["seen"] = bool(seen)
    rec["group"] = group
    rec.update(item.fields)
    rec["slots"] = {name: v.provenance() for name, v in item.filling.items()}
    rationale: dict[str, Any] = {}
    if item.explain:
        rationale["rule"] = item.explain
    rationale["contrast"] = pair.describe()
    rationale["good_spans"] = pair.good_spans(context)
    rationale["bad_spans"] = item.spans.get(pair.slot, [])
    rec["rationale"] = rationale
    return rec

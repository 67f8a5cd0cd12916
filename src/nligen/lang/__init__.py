"""Language layers, imported only when a template or family asks for them.

A language layer is a module ``nligen.lang.<code>`` exposing ``LANGUAGE``, a
:class:`Language`: its Jinja filters, its slot kinds, its variant checks (named
predicates a template's ``variants.keep`` can call), and an optional lemma analyser
used by the ``same_lemmas`` pair check. Layers know nothing of families.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ..errors import TemplateError


@dataclass
class Language:
    code: str
    name: str
    filters: dict[str, Callable] = field(default_factory=dict)
    slot_kinds: dict[str, Callable[[], Any]] = field(default_factory=dict)
    # check(name) -> predicate(options: {slot: [SlotValue]}, args: Mapping) -> bool
    variant_checks: dict[str, Callable[[Mapping[str, list], Mapping[str, Any]], bool]] = field(
        default_factory=dict
    )
    # lemma_analyser(lexicons) -> callable(text) -> list of lemmas
    lemma_analyser: Callable[[Any], Callable[[str], list[str]]] | None = None
    # Whether that analyser reads whitespace-separated tokens one at a time (one lemma per
    # token; only a text's first and last token may be read differently): then the
    # same_lemmas check is proved once per variant from the forms each slot value takes
    # (Engine._lemmas_proved) instead of run on every problem.
    tokenwise_lemmas: bool = False
    # time_text(kind, value) renders a time point ("point": start, format), an interval
    # ("interval": number, unit), the same interval as an amount before "within / in / over"
    # ("amount": number, unit) or a bare unit ("unit": unit); see nligen.timeslots.
    time_text: Callable[[str, Mapping[str, Any]], str] | None = None
    # What time_text writes, as regexes without groups (the label command finds time
    # expressions in texts): "point", "interval" (either spelling) and "unit".
    time_patterns: dict[str, str] = field(default_factory=dict)
    # How records name time formats (ja: YMD -> 年月日, year -> 年間).
    time_format_names: dict[str, str] = field(default_factory=dict)
    # What a filter's output looks like, as a regex (the label command matches texts).
    filter_patterns: dict[str, str] = field(default_factory=dict)
    # What a slot field's text looks like when it is not a plain word, as a regex (ja: a
    # predicate's ``args`` are case phrases, empty for a verb without arguments).
    field_patterns: dict[str, str] = field(default_factory=dict)
    # clause_analyser(attachment="low"|"high") -> object whose analyse(text) gives the
    # sentence's case-marked argument phrases and says which depend on one predicate
    # (stress transformations). "high" reads a phrase that may belong to a following
    # relative clause as an argument of the main clause instead (see nligen.stress).
    clause_analyser: Callable[..., Any] | None = None
    # Minimal pairs (nligen.pairs): feature -> Contrast, the deliberately wrong value a
    # pair template's ``contrast: {vary: SLOT, feature: F}`` writes in its bad sentence.
    # The layer's ``contrast`` filter applies them.
    contrasts: dict[str, "Contrast"] = field(default_factory=dict)
    # The words of a text, for the BLiMP fields of a pair (lexically_identical, the
    # prefix methods); None: whitespace-separated tokens.
    words: Callable[[str], list[str]] | None = None
    # Whether words are written apart (one_prefix/two_prefix methods apply).
    spaced: bool = True

    def __post_init__(self):
        if self.contrasts and "contrast" not in self.filters:
            self.filters["contrast"] = contrast_filter(self.contrasts)


@dataclass(frozen=True)
class Contrast:
    """One way a pair's bad sentence differs from its good one.

    ``make(value, *args)`` gives the deliberately wrong value (None when this value has
    no such contrast: the pair is then not made); ``check(good_value, good_text,
    bad_text, *args, context=..., sentences=(good, bad))`` (the context: every slot of
    the pair; the two sentences) says, from the language's paradigms and not from ``make``, why
    ``bad_text`` is not a form the good sentence's cell allows, or returns a problem
    (then the pair is not written). ``about`` names the rule for records and errors."""

    make: Callable[..., Any]
    check: Callable[..., str | None]
    about: str
    args: tuple[str, ...] = ()  # the names of make's extra arguments (``to: acc``)


def contrast_filter(contrasts: Mapping[str, Contrast]) -> Callable:
    """The ``contrast(feature, ...)`` filter over a layer's contrasts: the value with the
    feature made wrong, or the value itself when it has no such contrast (the pair's
    check then finds good == bad and drops it)."""

    def contrast(value, feature, *args):
        spec = contrasts.get(feature)
        if spec is None:
            from ..errors import RenderError

            raise RenderError(f"unknown contrast {feature!r} (known: {', '.join(contrasts)})")
        made = spec.make(value, *args)
        return value if made is None else made

    return contrast


_CACHE: dict[str, Language] = {}


def get_language(code: str, where: str | None = None) -> Language:
    lang = _CACHE.get(code)
    if lang is not None:
        return lang
    if not isinstance(code, str) or not re.fullmatch(r"[a-z]{2,3}", code):
        raise TemplateError(f"language must be a language code like 'de', not {code!r}", where)
    try:
        module = importlib.import_module(f"{__name__}.{code}")
    except ModuleNotFoundError:
        raise TemplateError(f"no language layer for {code!r} (available: {', '.join(available())})",
                            where) from None
    lang = module.LANGUAGE
    _CACHE[code] = lang
    return lang


def available() -> list[str]:
    import pkgutil

    return sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg)

"""Japanese language layer: verb conjugation keyed on UniDic conjugation types.

Filters for templates: one per conjugated form (``{{ vp_1|te }}``, ``{{ vp_1|past }}``,
``{{ vp_1|progressive }}``, ...), each taking a verb slot (its text is the lemma);
``phrase(case)`` (a noun with its particle), ``counter`` (a noun's numeral classifier),
``adjective_past`` (寒かった, 暇だった),
and ``contrast(feature)`` for minimal pairs (:mod:`.contrasts`).
Slot kinds: ``agent`` (a given name) and ``predicate`` (a verb with an observed argument
tuple, see :mod:`.slots`). Time expressions render as Jamp writes them (:mod:`.timetext`).
"""

from __future__ import annotations

from .. import Language
from .conjugation import CHECKED_FORMS, FORMS, ConjugationError, conjugate
from .contrasts import CONTRASTS, adjective_past, counter, phrase, verb_form, words
from .slots import AgentKind, PredicateKind
from .timetext import FORMAT_NAMES, TIME_PATTERNS, time_text


def _form_filter(form: str):
    def apply(value) -> str:
        return verb_form(value, form)  # conjugate(lemma, form), or a pair's wrong form

    apply.__name__ = form
    return apply


def _clause_analyser(attachment: str = "low"):
    from .chunker import Chunker  # fugashi loads only when a stress transformation runs

    return Chunker(attachment=attachment)


LANGUAGE = Language(
    code="ja",
    name="Japanese",
    filters={**{form: _form_filter(form) for form in FORMS + CHECKED_FORMS}, "phrase": phrase,
             "counter": counter, "adjective_past": adjective_past},
    slot_kinds={"agent": AgentKind, "predicate": PredicateKind},
    time_text=time_text,
    time_patterns=TIME_PATTERNS,
    time_format_names=FORMAT_NAMES,
    clause_analyser=_clause_analyser,
    # Endings of the verb forms, so that gen jamp label tells いる from いた, た from る.
    filter_patterns={
        "progressive": r".+?[てで]いる", "progressive_past": r".+?[てで]いた",
        "past": r".+?[ただ]", "te": r".+?[てで]", "plain": r".+?[うくぐすつぬぶむる]",
        "negative": r".+?ない", "negative_zu": r".+?ず",
    },
    field_patterns={"args": r".*?", "many_args": r".*?", "sono_args": r".*?", "those_args": r".*?"},
    contrasts=CONTRASTS,  # minimal pairs (nligen.pairs): polarity, onbin, particle, ...
    words=words,
    spaced=False,
)

__all__ = ["LANGUAGE", "FORMS", "ConjugationError", "conjugate"]

"""German language layer: noun-phrase inflection, pronouns, verb agreement, and the
check that decides whether a word order is morphologically disambiguated.

Filters for templates: ``nom``, ``acc``, ``dat`` (a noun phrase in that case) and
``agree(subject)`` (a verb agreeing with its subject), ``contrast(feature)`` (a minimal
pair's wrong form, see :mod:`.contrasts`). Slot kinds: ``np`` and ``verb``.
Variant check: ``de.disambiguated``.
"""

from __future__ import annotations

from .. import Language
from .contrasts import CONTRASTS
from .morphology import FILTERS, disambiguated_check
from .slots import NounPhraseKind, VerbKind


def _lemma_analyser(lexicons):
    from .analysis import LemmaAnalyser

    return LemmaAnalyser.from_lexicons(lexicons)


LANGUAGE = Language(
    code="de",
    name="German",
    filters=dict(FILTERS),
    slot_kinds={"np": NounPhraseKind, "verb": VerbKind},
    variant_checks={"disambiguated": disambiguated_check},
    lemma_analyser=_lemma_analyser,
    tokenwise_lemmas=True,  # analysis.LemmaAnalyser: a table lookup per token
    contrasts=CONTRASTS,  # minimal pairs: number, case, gender, dative_n, weak
)

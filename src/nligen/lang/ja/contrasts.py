"""Japanese contrasts for minimal pairs: the deliberately wrong forms a pair template's
``contrast: {vary: SLOT, feature: F}`` writes in its bad sentence, and the checks that
the bad form is bad for the stated reason.

* ``polarity``: a negated verb written affirmative (しか / 誰も / 一度も need negation);
* ``onbin``: a 五段 verb's past / te-form with another row's euphonic ending (書いた ->
  *書った; not 行く, whose *行いた is its row's regular form); checked against every form the conjugator makes and
  against UniDic (a "wrong" form UniDic reads as a real past, like あいた of ある ->
  開く, is refused);
* ``particle``: a phrase with another case particle (``{{ B|phrase("ニ") }}``), bad
  only where a slot of the clause rules that case out (a verb that never takes it, or
  a second ヲ object in one clause);
* ``tense``: a past time adverb replaced by its future counterpart (its ``opposite``);
* ``classifier``: a numeral classifier the noun does not take (its ``wrong`` ones);
* ``intransitive``: a transitive verb replaced by its intransitive partner, which takes
  no ヲ object (ドアを閉めた -> *ドアを閉まった).

The wrong values keep the slot, fields and lemmas of the right one; the language's
filters write them (:func:`verb_form`, :func:`phrase`, :func:`counter`).
"""

from __future__ import annotations

from typing import Any, Mapping

from ...errors import RenderError
from ...slots import SlotValue
from .. import Contrast
from .conjugation import FORMS, ConjugationError, _tagger, analyse_lemma, analyses_back, conjugate
from .lexicon import PARTICLES
from .slots import CASE_FIELDS

CASES_BY_PARTICLE = {p: c for c, p in PARTICLES.items()}


class WrongValue(SlotValue):
    """A slot value with some of its written forms made wrong: ``forms`` (verb form ->
    text), ``particle`` (the case its phrase is written with), ``counter``."""

    __slots__ = ("forms", "particle", "counter_text")

    def __init__(self, like: SlotValue, what: str, text: str | None = None,
                 forms: Mapping[str, str] | None = None, particle: str | None = None,
                 counter_text: str | None = None):
        super().__init__(like._slot_name, like._text if text is None else text, like._fields,
                         identity=like._identity, lemmas=like._lemmas,
                         key=f"{like._key}~{what}", group=like._group)
        self.forms = dict(forms or {})
        self.particle = particle
        self.counter_text = counter_text


# -- the filters that write wrong values ---------------------------------------------

def verb_form(value: Any, form: str) -> str:
    """``form`` of the verb ``value`` (its text is the lemma), or its wrong form."""
    if type(value) is WrongValue and form in value.forms:
        return value.forms[form]
    return conjugate(str(value), form)


def phrase(value: Any, case: str | None = None) -> str:
    """The noun phrase of ``case``: a slot's own text (a name) or its field of that case
    (a predicate's ``ni``), with the case's particle. Without ``case``: the one case
    field the value has (a curated clause with either ``wo`` or ``ni``)."""
    if case is None:
        case = _only_case(value)
    if case not in PARTICLES:
        raise RenderError(f"unknown case {case!r} (known: {', '.join(PARTICLES)})")
    noun = _noun(value, case)
    particle = value.particle if type(value) is WrongValue and value.particle else case
    return noun + PARTICLES[particle]


def _only_case(value: Any) -> str:
    fields = getattr(value, "_fields", None) or {}
    cases = [case for case, key in CASE_FIELDS.items() if fields.get(key)]
    if len(cases) != 1:
        raise RenderError(f"{value}: phrase without a case needs exactly one of the fields "
                          f"{', '.join(CASE_FIELDS.values())}, not {len(cases)}")
    return cases[0]


def _noun(value: Any, case: str) -> str:
    fields = getattr(value, "_fields", None) or {}
    noun = fields.get(CASE_FIELDS[case])
    return str(noun) if isinstance(noun, str) and noun else str(value)


def counter(value: Any) -> str:
    """The numeral classifier a noun takes (its ``counter`` field), or the wrong one."""
    if type(value) is WrongValue and value.counter_text:
        return value.counter_text
    fields = getattr(value, "_fields", None) or {}
    found = fields.get("counter")
    if not isinstance(found, str) or not found:
        raise RenderError(f"{value} has no counter field")
    return found


# -- polarity --------------------------------------------------------------------------

def affirmative(value: Any) -> WrongValue | None:
    lemma = str(value)
    try:
        forms = {"negative_past": conjugate(lemma, "past"),
                 "negative": conjugate(lemma, "plain")}
    except ConjugationError:
        return None
    return WrongValue(value, "affirmative", forms=forms)


def check_polarity(good_value, good: str, bad: str, context=None, sentences=None) -> str | None:
    lemma = str(good_value)
    negative = {conjugate(lemma, "negative_past"), conjugate(lemma, "negative")}
    affirmative_forms = {conjugate(lemma, "past"), conjugate(lemma, "plain")}
    if good not in negative:
        return f"{good!r} is not a negated form of {lemma}"
    if bad not in affirmative_forms:
        return f"{bad!r} is not an affirmative form of {lemma}"
    return None


# -- onbin ---------------------------------------------------------------------------

# The wrong euphonic te-ending a pair writes for each 五段 row: another row's (*書った
# takes the ラ row's, *読った too).
_WRONG_TE = {"カ": "って", "ガ": "んで", "サ": "いて", "タ": "いて", "ナ": "って", "バ": "って",
             "マ": "って", "ラ": "いて", "ワア": "いて"}
_EUPHONIC = ("連用形-促音便", "連用形-イ音便", "連用形-撥音便", "連用形-ウ音便")


def wrong_onbin(value: Any) -> WrongValue | None:
    lemma = str(value)
    try:
        info = analyse_lemma(lemma)
    except ConjugationError:
        return None
    if not info.ctype.startswith("五段-"):
        return None
    if info.unidic_lemma in ("行く", "逝く"):
        return None  # *行いた is its row's regular form: bad as an exception, not a wrong row
    row = info.ctype.split("-", 1)[1].removesuffix("行")
    wrong = _WRONG_TE.get(row)
    if wrong is None:
        return None
    stem = info.prefix + info.base[:-1]
    te = stem + wrong
    past = te[:-1] + ("た" if te.endswith("て") else "だ")
    forms = {"te": te, "past": past, "progressive": te + "いる", "progressive_past": te + "いた"}
    return WrongValue(value, "onbin", forms=forms)


def check_onbin(good_value, good: str, bad: str, context=None, sentences=None) -> str | None:
    lemma = str(good_value)
    made = {conjugate(lemma, f) for f in FORMS}
    if good not in made:
        return f"{good!r} is not a form of {lemma}"
    if bad in made:
        return f"{bad!r} is a form of {lemma} too"
    real = _real_verb_form(bad)
    if real is not None:
        return f"UniDic reads {bad!r} as a form of {real}"
    return None


def _real_verb_form(text: str) -> str | None:
    """The verb UniDic reads ``text`` as a real te/ta form of (None: none): a euphonic
    連用形, or the plain 連用形 of a non-五段 verb, before た/だ/て/で."""
    words = list(_tagger()("彼は" + text + "。"))
    # only a verb that starts where the form starts: 作いて is 作 + い (居る) + て, which
    # is no form of any verb written 作…
    if len(words) < 4 or words[0].surface + words[1].surface != "彼は":
        return None
    w, after = words[2], words[3]
    f = w.feature
    if f.pos1 != "動詞" or after.surface not in ("た", "だ", "て", "で"):
        return None
    if f.cForm in _EUPHONIC or (f.cForm == "連用形-一般"
                                and not str(f.cType).startswith("五段")):
        return f.lemma
    return None


# -- particle ------------------------------------------------------------------------

def other_particle(value: Any, case: str) -> WrongValue | None:
    if case not in PARTICLES:
        raise RenderError(f"unknown case {case!r} (known: {', '.join(PARTICLES)})")
    return WrongValue(value, f"particle:{case}", particle=case)


def check_particle(good_value, good: str, bad: str, case: str, context=None, sentences=None) -> str | None:
    if not bad.endswith(PARTICLES[case]):
        return f"{bad!r} does not end in {PARTICLES[case]}"
    if good == bad:
        return "the particle did not change"
    for name, value in (context or {}).items():
        fields = getattr(value, "_fields", None)
        if not isinstance(fields, Mapping):
            continue
        if case in (fields.get("never") or ()):
            return None  # the verb never takes this case (lexicon evidence)
        if case == "ヲ" and value is not good_value and fields.get("wo"):
            # a second ヲ object in one clause; a causative must read as the verb's own
            if sentences and conjugate(str(value), "causative_past") in sentences[0] \
                    and not analyses_back(str(value), "causative_past", {"ヲ": fields["wo"]}):
                return f"UniDic does not read the causative of {value} as {value}"
            return None
    return f"nothing in the clause rules out {PARTICLES[case]} here"


# -- tense, classifier, intransitive -----------------------------------------------------

def opposite_tense(value: Any) -> WrongValue | None:
    fields = getattr(value, "_fields", None) or {}
    opposite = fields.get("opposite")
    if not isinstance(opposite, str) or not opposite:
        raise RenderError(f"{value} has no opposite field (the adverb of the other tense)")
    return WrongValue(value, "tense", text=opposite)


def check_tense(good_value, good: str, bad: str, context=None, sentences=None) -> str | None:
    fields = good_value._fields
    if fields.get("tense") != "past" or bad != fields.get("opposite"):
        return f"{bad!r} is not the future counterpart of the past adverb {good!r}"
    return None


def wrong_counter(value: Any) -> WrongValue | None:
    wrong = (getattr(value, "_fields", None) or {}).get("wrong")
    if not isinstance(wrong, list) or not wrong or not isinstance(wrong[0], str):
        raise RenderError(f"{value} has no wrong counters (field 'wrong')")
    return WrongValue(value, "classifier", counter_text=wrong[0])


def check_counter(good_value, good: str, bad: str, context=None, sentences=None) -> str | None:
    fields = good_value._fields
    allowed = {fields.get("counter"), *(fields.get("also") or ())}
    if good != str(good_value) and good not in allowed:
        return f"{good!r} is not a classifier of {good_value}"
    if bad in allowed:
        return f"{bad!r} is a classifier of {good_value} too"
    return None


def intransitive_partner(value: Any) -> WrongValue | None:
    partner = (getattr(value, "_fields", None) or {}).get("intransitive")
    if not isinstance(partner, str) or not partner:
        raise RenderError(f"{value} has no intransitive field (its partner)")
    return WrongValue(value, "intransitive", text=partner)


_E_ROW = {"う": "え", "く": "け", "ぐ": "げ", "す": "せ", "つ": "て", "ぬ": "ね", "ぶ": "べ",
          "む": "め", "る": "れ"}


def potential(lemma: str) -> str | None:
    """The potential verb of a 五段 verb (焼く -> 焼ける), None for others."""
    info = analyse_lemma(lemma)
    if not info.ctype.startswith("五段-") or info.base[-1] not in _E_ROW:
        return None
    return info.prefix + info.base[:-1] + _E_ROW[info.base[-1]] + "る"


def check_intransitive(good_value, good: str, bad: str, context=None, sentences=None) -> str | None:
    fields = good_value._fields
    partner = fields["intransitive"]
    if bad not in {conjugate(partner, f) for f in FORMS}:
        return f"{bad!r} is not a form of {partner}"
    if partner == potential(str(good_value)):  # 魚を焼けた: "could grill the fish"
        return f"{partner} is also the potential of {good_value}: the bad sentence is fine"
    if "ヲ" not in (fields.get("intransitive_never") or ()):
        return f"nothing says {partner} takes no ヲ object (intransitive_never)"
    return None


# -- adjectives ------------------------------------------------------------------------

def adjective_past(value: Any) -> str:
    """The past of an adjective value (field ``kind``: i 寒い -> 寒かった, na 暇 -> 暇だった),
    or its wrong form."""
    if type(value) is WrongValue and "adjective_past" in value.forms:
        return value.forms["adjective_past"]
    return _adjective_past(str(value), _adjective_kind(value))


def _adjective_kind(value: Any) -> str:
    kind = (getattr(value, "_fields", None) or {}).get("kind")
    if kind not in ("i", "na"):
        raise RenderError(f"{value}: an adjective needs kind i or na")
    return kind


def _adjective_past(text: str, kind: str) -> str:
    if kind == "i":
        if not text.endswith("い") or text in ("いい", "良い"):
            raise RenderError(f"{text!r} is not a regular i-adjective")
        return text[:-1] + "かった"
    return text + "だった"


def other_adjective_class(value: Any) -> WrongValue | None:
    """An i-adjective's past made as a na-adjective's (*寒いだった) and the reverse
    (*暇かった)."""
    text, kind = str(value), _adjective_kind(value)
    wrong = text + "だった" if kind == "i" else text + "かった"
    return WrongValue(value, "adjective_class", forms={"adjective_past": wrong})


def check_adjective(good_value, good: str, bad: str, context=None, sentences=None) -> str | None:
    text, kind = str(good_value), _adjective_kind(good_value)
    if good != _adjective_past(text, kind):
        return f"{good!r} is not the past of the {kind}-adjective {text}"
    if bad == good or bad != text + ("だった" if kind == "i" else "かった"):
        return f"{bad!r} is not {text}'s past made as the other class's"
    # the good past analyses back to the adjective: UniDic reads 寒かっ+た as the 形容詞
    # 寒い, 暇+だっ+た as 暇 (形状詞, or 名詞 where it is both) + だ
    words = list(_tagger()("昨日は" + good + "。"))
    if kind == "i":
        found = any(w.feature.pos1 == "形容詞" and w.surface.startswith(text[:-1])
                    for w in words)
    else:
        found = any(w.surface == text and w.feature.pos1 in ("形状詞", "名詞")
                    and after.surface == "だっ" for w, after in zip(words, words[1:]))
    if not found:
        return f"UniDic does not read {good!r} as the past of {text}"
    return None


CONTRASTS = {
    "polarity": Contrast(affirmative, check_polarity,
                         "an affirmative verb where a negative polarity item needs negation"),
    "onbin": Contrast(wrong_onbin, check_onbin,
                      "a 五段 verb with another row's euphonic te/ta ending"),
    "particle": Contrast(other_particle, check_particle,
                         "a case particle the clause does not allow", args=("to",)),
    "tense": Contrast(opposite_tense, check_tense,
                      "a future time adverb with a past verb"),
    "classifier": Contrast(wrong_counter, check_counter,
                           "a numeral classifier the noun does not take"),
    "intransitive": Contrast(intransitive_partner, check_intransitive,
                             "an intransitive verb given a ヲ object"),
    "adjective_class": Contrast(other_adjective_class, check_adjective,
                                "an adjective's past made as the other class's"),
}


def words(text: str) -> list[str]:
    """The words of a text (UniDic tokens), for BLiMP's lexically_identical."""
    return [w.surface for w in _tagger()(text)]

"""Japanese verb conjugation, keyed on UniDic conjugation types (fugashi + unidic-lite).

``conjugate(lemma, form)`` with forms ``plain`` (書く), ``past`` (書いた), ``te`` (書いて),
``progressive`` (書いている), ``progressive_past`` (書いていた), ``continuative`` (書き,
as in 書き始めた), ``negative`` (書かない), ``negative_zu`` (書かず).

The lemma is analysed once with fugashi; its last verb token gives the conjugation type
(五段-カ行, 上一段-ア行, サ行変格, カ行変格, ...) and everything before it is kept as it is,
so サ変 compounds (到着する) and compound verbs (書き始める) conjugate on their last part.
Irregular cells: 行く (行った), ある (ない / あらず), 来る (こない with kana), 問う (問うた).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ...errors import NligenError

FORMS = ("plain", "past", "te", "progressive", "progressive_past", "continuative",
         "negative", "negative_zu", "negative_past")
# Forms made on request whose UniDic reading is checked where they are used, not
# guaranteed for every verb: UniDic splits many causatives at another stem (乾かさせた as
# 乾か + させ, 出させた as 出す + せる), so a minimal pair checks its causative per verb.
CHECKED_FORMS = ("causative_past",)


class ConjugationError(NligenError):
    """An unknown lemma or form."""

    code = "E700"


# 五段 rows: the vowel-row kana of each column (u, i, a) and the euphonic te/ta ending.
_GODAN = {
    "カ": ("く", "き", "か", "いて"), "ガ": ("ぐ", "ぎ", "が", "いで"),
    "サ": ("す", "し", "さ", "して"), "タ": ("つ", "ち", "た", "って"),
    "ナ": ("ぬ", "に", "な", "んで"), "バ": ("ぶ", "び", "ば", "んで"),
    "マ": ("む", "み", "ま", "んで"), "ラ": ("る", "り", "ら", "って"),
    "ワア": ("う", "い", "わ", "って"),
}
# ウ音便 te-forms of the classical-flavoured ワア-row verbs.
_U_ONBIN = {"問う", "請う", "乞う"}


@lru_cache(maxsize=1)
def _tagger():
    try:
        import fugashi
    except ImportError:
        raise ConjugationError("fugashi is not installed (pip install fugashi unidic-lite)") \
            from None
    try:
        return fugashi.Tagger()
    except RuntimeError as exc:  # no dictionary
        raise ConjugationError(f"fugashi has no dictionary: {exc}") from None


@dataclass(frozen=True)
class VerbInfo:
    lemma: str        # the lemma as given (書き始める, 到着する)
    prefix: str       # what precedes the last verb (書き, 到着)
    base: str         # the last verb's dictionary form as written (始める, する)
    ctype: str        # its UniDic conjugation type (下一段-マ行, サ行変格, ...)
    unidic_lemma: str  # UniDic's lemma of the last verb (為る, 有る, 信ずる)


@lru_cache(maxsize=8192)
def analyse_lemma(lemma: str) -> VerbInfo:
    """UniDic's analysis of a verb lemma (cached)."""
    if not isinstance(lemma, str) or not lemma or len(lemma) > 40:
        raise ConjugationError(f"not a verb lemma: {lemma!r}")
    words = list(_tagger()(lemma + "。"))
    words = [w for w in words if w.surface != "。"]
    if not words:
        raise ConjugationError(f"not a verb: {lemma!r}")
    last = words[-1]
    feature = last.feature
    if feature.pos1 != "動詞" or feature.cForm != "終止形-一般":
        raise ConjugationError(f"not a verb in its dictionary form: {lemma!r} "
                               f"(UniDic reads {last.surface!r} as {feature.pos1})")
    surface = last.surface
    if not lemma.endswith(surface):
        raise ConjugationError(f"cannot split {lemma!r} into stem and verb")
    if (feature.lemma != surface and str(feature.cType).startswith(("下一段", "上一段"))
            and surface.endswith("る") and len(surface) > 1
            and not "\u3040" <= surface[-2] <= "\u30ff"):
        # Alone, 割る reads as an okurigana-less 割れる (下一段: *割た); with an object it
        # is 割る itself (五段). Prefer the reading whose lemma is the word as written.
        # (Only a kanji + る read as 一段 is open to that misreading: 7 of the 4,800
        # case-frame verbs are tagged again, not the 3,137 whose UniDic lemma differs.)
        in_clause = [w for w in _tagger()("彼はそれを" + lemma + "。") if w.surface != "。"]
        if in_clause:
            f = in_clause[-1].feature
            if (in_clause[-1].surface == surface and f.lemma == surface and f.pos1 == "動詞"
                    and f.cForm == "終止形-一般" and f.cType != feature.cType):
                feature = f
    return VerbInfo(lemma, lemma[: len(lemma) - len(surface)], surface, feature.cType,
                    feature.lemma)


def conjugate(lemma: str, form: str) -> str:
    """The ``form`` of verb ``lemma`` (see FORMS). Raises ConjugationError for an unknown
    lemma (not a verb) or form."""
    if form not in FORMS and form not in CHECKED_FORMS:
        raise ConjugationError(f"unknown form {form!r} (forms: "
                               f"{', '.join(FORMS + CHECKED_FORMS)})")
    info = analyse_lemma(lemma)
    return info.prefix + _conjugate_base(info, form)


def _conjugate_base(info: VerbInfo, form: str) -> str:
    base, ctype = info.base, info.ctype
    if form == "plain":
        return base
    if form in ("progressive", "progressive_past"):
        te = _conjugate_base(info, "te")
        return te + ("いる" if form == "progressive" else "いた")
    if form == "past":
        te = _conjugate_base(info, "te")
        return te[:-1] + ("た" if te.endswith("て") else "だ")
    if form == "negative_past":  # 読まない -> 読まなかった (ない conjugates as an adjective)
        return _conjugate_base(info, "negative")[:-1] + "かった"
    if form == "causative_past":
        return _causative_stem(info) + "せた"
    if ctype.startswith("五段-"):
        return _godan(info, form)
    if ctype.startswith(("上一段-", "下一段-")):
        stem = base[:-1]
        return stem + {"te": "て", "continuative": "", "negative": "ない",
                       "negative_zu": "ず"}[form]
    if ctype == "サ行変格":
        return _suru(base, form)
    if ctype == "カ行変格":
        return _kuru(base, form)
    raise ConjugationError(f"{info.lemma!r}: conjugation type {ctype} is not supported")


def _causative_stem(info: VerbInfo) -> str:
    """What -せる follows in the causative: the 未然形 of a 五段 verb (読ま), -さ after the
    others (食べさ, 勉強さ, 来さ)."""
    base, ctype = info.base, info.ctype
    if ctype.startswith("五段-"):
        return _godan(info, "negative_zu")[:-1]  # 読まず -> 読ま (ある: あら)
    if ctype.startswith(("上一段-", "下一段-")):
        return base[:-1] + "さ"
    if ctype == "サ行変格":
        return (base[:-2] + "じさ") if base.endswith("ずる") else base[:-2] + "さ"
    if ctype == "カ行変格":
        return _kuru(base, "negative")[:-2] + "さ"
    raise ConjugationError(f"{info.lemma!r}: conjugation type {ctype} is not supported")


def _godan(info: VerbInfo, form: str) -> str:
    base = info.base
    row = info.ctype.split("-", 1)[1].removesuffix("行")
    try:
        u, i, a, te = _GODAN[row]
    except KeyError:
        raise ConjugationError(f"{info.lemma!r}: conjugation type {info.ctype} is not "
                               "supported") from None
    if not base.endswith(u):
        raise ConjugationError(f"{info.lemma!r} does not end in {u} as {info.ctype} needs")
    stem = base[:-1]
    is_aru = info.unidic_lemma == "有る" and base.endswith("ある")
    if form == "te":
        if info.unidic_lemma == "行く" or info.unidic_lemma == "逝く":
            return stem + "って"  # 行く: 行って, not *行いて
        if base in _U_ONBIN:
            return base + "て"
        return stem + te
    if form == "continuative":
        return stem + i
    if form == "negative":
        return stem[:-1] + "ない" if is_aru and stem.endswith("あ") else stem + a + "ない"
    if form == "negative_zu":
        return stem + a + "ず"
    raise ConjugationError(f"unknown form {form!r}")  # pragma: no cover


def _suru(base: str, form: str) -> str:
    if base.endswith("ずる"):  # 感ずる, 信ずる (サ変 in UniDic): 感じて, 感ぜず
        stem = base[:-2]
        return stem + {"te": "じて", "continuative": "じ", "negative": "じない",
                       "negative_zu": "ぜず"}[form]
    if not base.endswith("する"):
        raise ConjugationError(f"{base!r}: サ行変格 verb not ending in する")
    stem = base[:-2]
    return stem + {"te": "して", "continuative": "し", "negative": "しない",
                   "negative_zu": "せず"}[form]


def _kuru(base: str, form: str) -> str:
    if base.endswith("来る"):
        stem = base[:-2] + "来"
        return stem + {"te": "て", "continuative": "", "negative": "ない",
                       "negative_zu": "ず"}[form]
    if base.endswith("くる"):
        stem = base[:-2]
        return stem + {"te": "きて", "continuative": "き", "negative": "こない",
                       "negative_zu": "こず"}[form]
    raise ConjugationError(f"{base!r}: カ行変格 verb not ending in 来る/くる")


# Contexts in which a form is read as the verb it is: a bare 連用形 would often be read as a
# noun (書き, 話し), and a bare して as a particle, so each form gets a subject and an ending.
_CONTEXT_PREFIX = "彼は"
CONTEXTS = {
    "plain": "{}。", "past": "{}。", "te": "{}、", "progressive": "{}。",
    "progressive_past": "{}。", "continuative": "{}ます。", "negative": "{}。",
    "negative_zu": "{}、", "negative_past": "{}。", "causative_past": "{}。",
}
# Suppletive cells: the negative of ある is the adjective ない (UniDic 無い).
_SUPPLETIVE = {("有る", "negative"): "無い", ("有る", "negative_past"): "無い"}


_PARTICLES = {"ヲ": "を", "ニ": "に", "デ": "で", "ト": "と", "カラ": "から", "ヘ": "へ",
              "ヨリ": "より", "マデ": "まで"}


def analyses_back(lemma: str, form: str, arguments: dict[str, str] | None = None) -> bool:
    """Whether fugashi reads ``conjugate(lemma, form)``, in its context, as a form of the
    same verb (same UniDic lemma as the last verb of ``lemma``).

    ``arguments`` ({"ヲ": "事業"}) go before the verb: some forms are homographs that only
    the arguments tell apart (事業を行った is 行う, 行った alone reads as 行く)."""
    info = analyse_lemma(lemma)
    phrases = "".join(noun + _PARTICLES[case] for case, noun in (arguments or {}).items()
                      if case in _PARTICLES)
    prefix = _CONTEXT_PREFIX + phrases
    text = prefix + CONTEXTS[form].format(conjugate(lemma, form))
    want = _SUPPLETIVE.get((info.unidic_lemma, form), info.unidic_lemma)
    target_start = len(prefix) + len(info.prefix)
    position = 0
    for w in _tagger()(text):
        start, position = position, position + len(w.surface)
        if start >= target_start and w.feature.pos1 in ("動詞", "形容詞"):
            return w.feature.lemma == want
    return False

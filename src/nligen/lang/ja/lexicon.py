"""The Japanese lexicon as generation uses it: case frames, curated verb classes, names.

Loaded once; sampling tables (cumulative weights of observed tuples) are computed at load.
``stats()`` and ``sample_clauses()`` back ``gen lexicon stats`` and ``gen lexicon sample``.
"""

from __future__ import annotations

import bisect
from functools import cached_property, lru_cache
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from ...errors import LexiconError
from ...lexicon import LexiconSet
from ...rng import StableRng
from .caseframes import CASES
from .conjugation import conjugate

# Word order of case phrases in a simple clause: agent first, object right before the verb.
CLAUSE_ORDER = ("ガ", "デ", "カラ", "マデ", "ヘ", "ニ", "ト", "ヨリ", "ヲ")
CLASS_FIELDS = ("transitivity", "aspect", "volitional", "jamp", "deadline", "repeatable",
                "finest")
PARTICLES = {"ガ": "が", "ヲ": "を", "ニ": "に", "デ": "で", "ト": "と", "カラ": "から",
             "ヘ": "へ", "ヨリ": "より", "マデ": "まで"}


@dataclass
class JaVerb:
    lemma: str
    count: int
    frames: list[tuple[tuple[str, ...], int]]
    slots: dict[str, dict[str, Any]]
    tuples: list[tuple[dict[str, str], int]]
    classes: dict[str, Any] = field(default_factory=dict)
    # argument tuples a reader rejected (curated/tuple_blocklist.yaml), as tuple_key()s
    rejected: frozenset = frozenset()
    # argument tuples a reader found natural (curated/reviewed_tuples.yaml); None when the
    # lexicon set has no such list (then every tuple not rejected is used)
    accepted: frozenset | None = None
    # noun -> its semantic features (curated/noun_features.yaml), shared by all verbs
    noun_features: dict[str, frozenset] = field(default_factory=dict)
    # tuple_key() -> how a reader found the clause in the template frames
    # (curated/clause_readings.yaml); a clause without one was not read in context
    readings: dict[tuple, "ClauseReading"] = field(default_factory=dict)
    _cumulative: list[int] = field(default_factory=list)
    _usable: list = field(default_factory=list)
    # frame_tuples' answers by their arguments: the 27 predicate specs of the Jamp
    # templates ask the same frames and restrictions of every verb
    _frame_memo: dict = field(default_factory=dict)

    @property
    def person_agent(self) -> bool:
        """Whether the ガ slot is mostly filled by people (names, person exophora)."""
        ga = self.slots.get("ガ", {})
        nouns = sum(row[1] for row in ga.get("nouns", []))
        return ga.get("person", 0) >= nouns

    @property
    def agentive(self) -> bool:
        """A person is the subject: the curated volitional class, else the corpus evidence,
        or a reader's: a clause read in context without a ガ noun was read with a named
        person as subject (clause_readings.yaml: 「アリスは野球部に所属した」)."""
        if self.classes.get("volitional") or self.person_agent:
            return True
        return any(all(case != "ガ" for case, _ in key) for key in self.readings)

    @cached_property  # asked once per verb by each of the 22 Jamp predicate specs
    def curated_frames(self) -> list[tuple[str, ...]]:
        """The natural clause frames of the curated entry (``frames``, or the older single
        ``frame``), each a tuple of cases in CASES order."""
        frames = self.classes.get("frames")
        if frames is None:
            frames = [self.classes["frame"]] if self.classes.get("frame") else []
        return [tuple(c for c in CASES if c in f) for f in frames]

    def frame_tuples(self, frame: Iterable[str], noun_frequency: dict[str, int] | None = None,
                     min_frequency: int = 1, honorific_nouns: bool = False,
                     restrictions: dict[str, frozenset] | None = None
                     ) -> list[tuple[dict[str, str], int]]:
        """Observed tuples that fill every case of ``frame`` (ガ aside when a person is the
        subject), restricted to that frame, whose nouns are frequent enough in the whole
        corpus (or the tuple was read and accepted) and do not repeat the verb (釣りを釣る),
        not beautified or honorific unless ``honorific_nouns`` (a register rule).
        ``restrictions`` maps a case to the noun features it accepts (any of them); a noun
        of a case without one must not be ``vague`` or ``unfit``. A frame of ガ alone for a
        person subject gives one empty tuple: the verb needs no argument. The answer is kept
        (callers do not change it)."""
        memo_key = (tuple(frame), id(noun_frequency), min_frequency, honorific_nouns,
                    tuple(sorted(restrictions.items())) if restrictions else ())
        hit = self._frame_memo.get(memo_key)
        if hit is not None and hit[1] is noun_frequency:
            return hit[0]
        out = self._frame_tuples(list(frame), noun_frequency, min_frequency, honorific_nouns,
                                 restrictions)
        self._frame_memo[memo_key] = (out, noun_frequency)
        return out

    def _frame_tuples(self, frame, noun_frequency, min_frequency, honorific_nouns,
                      restrictions) -> list[tuple[dict[str, str], int]]:
        agentive = self.agentive
        needed = [c for c in frame if not (c == "ガ" and agentive)]
        if not needed:
            return [({}, self.count)] if agentive else []
        stem = self.lemma[0]
        out = []
        for t, n in self.tuples:
            if not all(c in t for c in needed):
                continue
            if agentive and "ガ" in t:
                continue  # a thing was the subject there: a person would not fit its objects
            kept = {c: w for c, w in t.items() if c in needed}
            if any(_is_kanji(stem) and stem in w for w in kept.values()):
                continue
            key = tuple_key(kept)
            if self.rejected and key in self.rejected:
                continue
            if self.accepted is not None and key not in self.accepted:
                continue  # not read yet
            if self.accepted is None and noun_frequency is not None and any(
                    noun_frequency.get(w, 0) < min_frequency for w in kept.values()):
                continue  # rare nouns are mostly fragments, unless a reader accepted them
            if not self._fits(kept, restrictions):
                continue
            if not honorific_nouns and any(honorific(w) for w in kept.values()):
                continue  # register: no ご要望 or お客様 in plain narration
            out.append((kept, n))
        return out

    def _fits(self, args: dict[str, str], restrictions: dict[str, frozenset] | None) -> bool:
        for case, noun in args.items():
            features = self.noun_features.get(noun, frozenset())
            wanted = restrictions.get(case) if restrictions else None
            if wanted is not None and not features & wanted:
                return False
            if features & (EXCLUDED_FEATURES - (wanted or frozenset())):
                return False  # vague or unfit nouns only where a slot asks for them
        return True

    def usable_tuples(self, noun_frequency: dict[str, int] | None = None,
                      min_frequency: int = 1) -> list[tuple[dict[str, str], int]]:
        """The tuples of every curated frame (or, without one, of the observed cases)."""
        frames = self.curated_frames or [tuple(sorted({c for t, _ in self.tuples for c in t}))]
        out: list[tuple[dict[str, str], int]] = []
        seen: set = set()
        for frame in frames:
            for args, n in self.frame_tuples(frame, noun_frequency, min_frequency):
                key = tuple_key(args)
                if key not in seen:
                    seen.add(key)
                    out.append((args, n))
        return out

    def pick_tuple(self, rng: StableRng, noun_frequency: dict[str, int] | None = None,
                   min_frequency: int = 1) -> dict[str, str] | None:
        """An observed argument tuple, drawn in proportion to its corpus frequency
        (cumulative weights computed once)."""
        usable = self.event_tuples(noun_frequency, min_frequency)
        if not usable:
            return None
        x = rng.randbelow(self._cumulative[-1])
        return usable[bisect.bisect_right(self._cumulative, x)][0]

    def event_tuples(self, noun_frequency: dict[str, int] | None = None,
                     min_frequency: int = 1) -> list[tuple[dict[str, str], int]]:
        """The usable tuples that read as a dated event, the way most templates use a
        clause (no states: 牛を飼った), computed once with their cumulative weights."""
        if not self._cumulative and not self._usable:
            self._usable = [(args, n) for args, n in self.usable_tuples(noun_frequency,
                                                                          min_frequency)
                            if "state" not in getattr(self.readings.get(tuple_key(args)),
                                                      "flags", ())]
            total = 0
            for _, n in self._usable:
                total += n
                self._cumulative.append(total)
        return self._usable


@dataclass(frozen=True)
class ClauseReading:
    """How a reader found one clause (a verb with these arguments) in the frames templates
    put it in (curated/clause_readings.yaml; its criteria say how each was tested):
    ``durations``, the interval units its event takes (3時間で / 3日間); ``habits``, the units
    of a plausible routine (毎日 / 毎月 / 毎年); ``flags``, the frames it reads naturally in
    (``since``: 以来 V-ている, ``now``: 現在 V-ている, ``anaphor``: それを / その〈noun〉,
    ``due``: いつも遅れて V; ``ordinal``: 最初の / 最後の〈ヲ〉, a series read on its own and an
    act done once to each item; ``habit``: some unit of 毎〜, derived from ``habits``; ``state``:
    a state or habit that reads oddly as a dated event, 「12月14日に牛を飼った」, used only
    where a template asks for ``since`` or ``now``; ``telic``: a bare duration does not fit,
    「1時間以上魚を料理した」, for ``exclude_clause``; ``unorderable``: two people's doing of it
    cannot be put in order; ``no_hour``: the act has no clock time of its own, 「18時に小説を
    発表した」; ``undated``: nobody dates it by the calendar at all, a posture or a step of
    seconds inside another activity, 「2月19日に手すりに寄りかかった」, for ``exclude_clause``
    of the templates that date the act; ``posture``: a hold or position of the body,
    サーフボードを抱える, not a deed people take turns at); ``longest``, (unit, number) pairs: the longest interval of a unit that fits
    the event, where it is shorter than 9 (冷蔵庫を整理する: 2 hours)."""

    durations: tuple[str, ...] = ()
    habits: tuple[str, ...] = ()
    flags: frozenset = frozenset()
    longest: tuple[tuple[str, int], ...] = ()


CLAUSE_FLAGS = ("since", "now", "anaphor", "due", "ordinal", "habit", "state", "telic",
                "unorderable", "no_hour", "undated", "posture")
DURATION_UNITS = ("hour", "day", "month", "year")
HABIT_UNITS = ("day", "month", "year")


# A filler must occur at least this often in the whole corpus (any verb, any case): rare
# fillers are mostly extraction fragments (台駅) or too specialised to read naturally.
MIN_NOUN_FREQUENCY = 3


# Semantic noun features (curated/noun_features.yaml; its criteria say what each means).
NOUN_FEATURES = ("person", "animal", "place", "container", "ordered", "due", "concrete",
                 "single", "varied", "gendered", "vague", "unfit")
# Nouns with these features fill a slot only when the slot asks for the feature: a vague
# noun (情報, 機能) reads as unfinished without a modifier, an unfit one is no common noun,
# a gendered one (夫, 髭) mismatches the names, drawn without regard to gender.
EXCLUDED_FEATURES = frozenset({"vague", "unfit", "gendered"})


def case_phrases(args: dict[str, str], modified: str | None = None,
                 modifier: str | None = None, sono: bool = False, many: bool = False,
                 those: Mapping[str, frozenset] | None = None) -> str:
    """The argument phrases of a clause with their particles, in clause order (子供に本を);
    ``modifier`` goes before the noun of case ``modified`` (祖母の手紙を). The phrase an
    anaphor picks up is the ヲ phrase where there is one, else the first: with ``sono``
    その goes before it (担任にその作文を, not その担任に作文を) and takes the place of its
    modifier (その手紙を after 祖母の手紙を: その料理の動画 read as the video of that dish,
    outside reading 2067), with ``many`` 多くの (市場に多くの魚を), and with ``those``
    (noun -> features) it points back to many of them: その〈W〉たち for people, それらの〈W〉
    for the rest (その花 after 多くの花 reads as one flower: outside reading 2065)."""
    cases = [c for c in CLAUSE_ORDER if c in args]
    picked = "ヲ" if "ヲ" in args else cases[0] if cases else None
    pointer = sono or those is not None

    def phrase(c: str) -> str:
        mod = f"{modifier}の" if c == modified and not (pointer and c == picked) else ""
        noun = mod + args[c]
        if c == picked and those is not None:
            person = "person" in those.get(args[c], frozenset())
            noun = f"その{noun}たち" if person else f"それらの{noun}"
        elif c == picked:
            noun = ("その" if sono else "") + ("多くの" if many else "") + noun
        return noun + PARTICLES[c]
    return "".join(phrase(c) for c in cases)


def tuple_key(args: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """An argument tuple as a hashable, order-free key: ((case, noun), ...)."""
    return tuple(sorted(args.items()))


def _curated_tuples(lexicons: LexiconSet, name: str = "ja/curated/tuple_blocklist"
                     ) -> dict[str, set] | None:
    """lemma -> tuple keys listed in a curated tuple list (rejected: tuple_blocklist,
    accepted: reviewed_tuples), or None when the list is not shipped."""
    if not lexicons.find(name):
        return None
    lexicon = lexicons.get(name)
    out: dict[str, set] = {}
    for i, e in enumerate(lexicon.entries):
        lemma, args = e.get("lemma"), e.get("args")
        if not isinstance(lemma, str) or not isinstance(args, dict) or not args or not all(
                isinstance(c, str) and isinstance(w, str) for c, w in args.items()):
            raise LexiconError(f"entry {i + 1}: needs 'lemma' and 'args' ({{case: noun}})",
                               lexicon.name)
        out.setdefault(lemma, set()).add(tuple_key(args))
    return out


def _clause_readings(lexicons: LexiconSet, name: str = "ja/curated/clause_readings"
                     ) -> dict[str, dict[tuple, tuple[dict[str, str], ClauseReading, bool]]]:
    """lemma -> tuple key -> (args, reading, composed) from curated/clause_readings (empty
    when not shipped). A composed clause was written by a reader, not observed in the
    corpora: generation adds it to the verb's tuples."""
    if not lexicons.find(name):
        return {}
    lexicon = lexicons.get(name)
    out: dict[str, dict] = {}
    for i, e in enumerate(lexicon.entries):
        lemma, args = e.get("lemma"), e.get("args")
        durations, habits, flags = (e.get("durations", []), e.get("habits", []),
                                    e.get("flags", []))
        if not isinstance(lemma, str) or not isinstance(args, dict) or not all(
                isinstance(c, str) and c in CASES and isinstance(w, str) and w
                for c, w in args.items()):
            raise LexiconError(f"entry {i + 1}: needs 'lemma' and 'args' ({{case: noun}}; "
                               f"{{}} for ガ alone)", lexicon.name)
        for key, value, known in (("durations", durations, DURATION_UNITS),
                                  ("habits", habits, HABIT_UNITS),
                                  ("flags", flags, CLAUSE_FLAGS)):
            if not isinstance(value, list) or any(x not in known for x in value):
                raise LexiconError(f"entry {i + 1}: '{key}' must be a list of "
                                   f"{', '.join(known)}", lexicon.name)
        longest = e.get("longest", {})
        if not isinstance(longest, dict) or any(
                u not in durations or not isinstance(n, int) or isinstance(n, bool)
                or not 1 <= n <= 9 for u, n in longest.items()):
            raise LexiconError(f"entry {i + 1}: 'longest' must map units of its durations "
                               f"to a number 1-9", lexicon.name)
        reading = ClauseReading(tuple(x for x in DURATION_UNITS if x in durations),
                                tuple(x for x in HABIT_UNITS if x in habits),
                                frozenset(f for f in flags if f != "habit")
                                | ({"habit"} if habits else set()),
                                tuple((u, longest[u]) for u in DURATION_UNITS if u in longest))
        out.setdefault(lemma, {})[tuple_key(args)] = (dict(args), reading,
                                                      bool(e.get("composed", False)))
    return out


def _noun_features(lexicons: LexiconSet) -> dict[str, frozenset]:
    """noun -> its features in ja/curated/noun_features (empty when not shipped)."""
    if not lexicons.find("ja/curated/noun_features"):
        return {}
    lexicon = lexicons.get("ja/curated/noun_features")
    out: dict[str, frozenset] = {}
    for i, e in enumerate(lexicon.entries):
        noun, features = e.get("noun"), e.get("features")
        if not isinstance(noun, str) or not isinstance(features, list) or any(
                f not in NOUN_FEATURES for f in features):
            raise LexiconError(f"entry {i + 1}: needs 'noun' and 'features' (a list of "
                               f"{', '.join(NOUN_FEATURES)})", lexicon.name)
        out[noun] = out.get(noun, frozenset()) | frozenset(features)
    return out


_HONORIFIC_PREFIXES = frozenset({"お", "ご", "御"})
_HONORIFIC_SUFFIXES = ("様", "さま", "さん", "殿")


@lru_cache(maxsize=65536)
def honorific(noun: str) -> bool:
    """A beautified or honorific noun (ご要望, お客様, お話, 助産師さん): UniDic reads a
    prefix お/ご/御 before it, or it ends in an honorific suffix. Plain narration does not
    use these, so predicate slots leave them out unless a template asks for them."""
    from .conjugation import _tagger

    if noun.endswith(_HONORIFIC_SUFFIXES):
        return True
    words = list(_tagger()(noun))
    if len(words) < 2 or words[0].feature.pos1 != "接頭辞" or \
            words[0].surface not in _HONORIFIC_PREFIXES:
        return False
    # ご/御 is honorific (ご要望, ご相談); お before an action noun too (お話, お願い), but
    # お菓子, お皿, お店 are the plain words of everyday narration
    return words[0].surface != "お" or (words[1].feature.pos3 or "") == "サ変可能"


def _is_kanji(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff"


class JaLexicon:
    def __init__(self, verbs: list[JaVerb], names: list[dict], meta: dict,
                 noun_features: dict[str, frozenset] | None = None):
        self.verbs = verbs
        self.names = names
        self.meta = meta
        self.by_lemma = {v.lemma: v for v in verbs}
        self.noun_features: dict[str, frozenset] = noun_features or {}
        self.noun_frequency: dict[str, int] = {}
        self._usable_verbs: list[JaVerb] | None = None
        for v in verbs:
            for slot in v.slots.values():
                for noun, n, *_evidence in slot.get("nouns", []):
                    self.noun_frequency[noun] = self.noun_frequency.get(noun, 0) + n

    @classmethod
    def load(cls, lexicons: LexiconSet) -> "JaLexicon":
        frames = lexicons.get("ja/caseframes")
        classes = {}
        if lexicons.find("ja/curated/verb_classes"):
            for e in lexicons.get("ja/curated/verb_classes").entries:
                if e.get("usable", True):  # rejected verbs are listed with their reason
                    classes[e.get("lemma")] = e
        rejected = _curated_tuples(lexicons) or {}
        accepted = _curated_tuples(lexicons, "ja/curated/reviewed_tuples")
        names = list(lexicons.get("ja/curated/names").entries) if lexicons.find(
            "ja/curated/names") else []
        features = _noun_features(lexicons)
        readings = _clause_readings(lexicons)
        verbs = []
        for e in frames.entries:
            read = readings.get(e.get("lemma"), {}) if isinstance(e, dict) else {}
            # composed clauses join the observed tuples (count 1) as read and accepted
            try:
                composed = []
                if any(made for _a, _r, made in read.values()):
                    observed = {tuple_key(row[0]) for row in e["tuples"]}
                    composed = [(args, 1) for key, (args, _r, made) in sorted(read.items())
                                if made and key not in observed]
                accepted_keys = None if accepted is None else frozenset(
                    accepted.get(e["lemma"], ())) | {tuple_key(a) for a, _ in composed}
                verbs.append(JaVerb(
                    lemma=e["lemma"], count=e["count"],
                    frames=[(tuple(cases), n) for cases, n in e["frames"]],
                    slots=e["slots"],
                    tuples=[(row[0], row[1]) for row in e["tuples"]] + composed,
                    classes=classes.get(e["lemma"], {}),
                    rejected=frozenset(rejected.get(e["lemma"], ())),
                    accepted=accepted_keys, noun_features=features,
                    readings={key: r for key, (_a, r, _m) in read.items()}))
            except (KeyError, TypeError, ValueError):
                raise LexiconError(f"malformed entry {e.get('lemma')!r}", frames.name) from None
        return cls(verbs, names, frames.meta, features)

    def stats(self) -> dict[str, Any]:
        nouns = set()
        frames = 0
        tuples = 0
        for v in self.verbs:
            for slot in v.slots.values():
                nouns.update(row[0] for row in slot.get("nouns", []))
            frames += len(v.frames)
            tuples += len(v.tuples)
        per_class: dict[str, int] = {}
        curated = [v for v in self.verbs if v.classes]
        usable = self.usable_verbs()
        for v in usable:
            for fld in CLASS_FIELDS:
                value = v.classes.get(fld)
                values = value if isinstance(value, list) else [value]
                for x in values:
                    if x is not None:
                        key = f"{fld}={str(x).lower()}"
                        per_class[key] = per_class.get(key, 0) + 1
            for case in sorted({c for f in v.curated_frames for c in f}, key=CASES.index):
                per_class[f"frame_has={case}"] = per_class.get(f"frame_has={case}", 0) + 1
        by_case = {case: sum(1 for v in self.verbs if any(case in f for f, _ in v.frames))
                   for case in CASES}
        return {"verbs": len(self.verbs), "nouns": len(nouns), "frames": frames,
                "tuples": tuples, "curated_verbs": len(curated), "usable_verbs": len(usable),
                "names": len(self.names), "verbs_with_case": by_case,
                "classes": dict(sorted(per_class.items()))}

    def usable_verbs(self) -> list[JaVerb]:
        """The verbs generation uses: curated classes and at least one usable tuple.
        ``classes`` in stats() counts these. Computed once: every predicate slot asks."""
        if self._usable_verbs is None:
            self._usable_verbs = [v for v in self.verbs if v.classes and v.usable_tuples(
                self.noun_frequency, MIN_NOUN_FREQUENCY)]
        return list(self._usable_verbs)

    def sample_clauses(self, n: int, seed: int) -> list[str]:
        """Simple clauses: agent + an observed argument tuple + the verb in the past.
        Curated verbs are preferred (they are the ones templates use). Verbs come in a
        seeded order without repeats (as generation draws them: evenly), so a sample of n
        clauses has n different verbs while the pool lasts. Each verb's place and tuple
        depend on its own key only: a verb added or removed leaves the other clauses as
        they were (a reviewed sample is re-read only where it changed)."""
        # verbs with a clause that reads as a dated event (a verb whose tuples are all
        # states, 研究所に在籍する, would come out bare: 「ミアが在籍した」)
        usable = [v for v in self.usable_verbs()
                  if v.event_tuples(self.noun_frequency, MIN_NOUN_FREQUENCY)]
        pool = sorted(usable or self.verbs,
                      key=lambda v: (StableRng(seed, "ja-sample", v.lemma).randbelow(1 << 30),
                                     v.lemma))
        names = [e["name"] for e in self.names] or ["アリス"]
        out = []
        for i in range(n):
            verb = pool[i % len(pool)]
            rng = StableRng(seed, "ja-sample", verb.lemma, i // len(pool))
            args = dict(verb.pick_tuple(rng, self.noun_frequency, MIN_NOUN_FREQUENCY) or {})
            if verb.agentive:  # people act: the agent is a name, whatever filled ガ in text
                args["ガ"] = names[rng.randbelow(len(names))]
            out.append(case_phrases(args) + conjugate(verb.lemma, "past") + "。")
        return out

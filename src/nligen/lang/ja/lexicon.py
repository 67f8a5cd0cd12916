"""The Japanese lexicon as generation uses it: case frames, curated verb classes, names.

Loaded once; sampling tables (cumulative weights of observed tuples) are computed at load.
``stats()`` and ``sample_clauses()`` back ``gen lexicon stats`` and ``gen lexicon sample``.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any

from ...errors import LexiconError
from ...lexicon import LexiconSet
from ...rng import StableRng
from .caseframes import CASES
from .conjugation import conjugate

# Word order of case phrases in a simple clause: agent first, object right before the verb.
CLAUSE_ORDER = ("ガ", "デ", "カラ", "マデ", "ヘ", "ニ", "ト", "ヨリ", "ヲ")
CLASS_FIELDS = ("transitivity", "aspect", "volitional", "jamp")
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
    _cumulative: list[int] = field(default_factory=list)
    _usable: list = field(default_factory=list)

    @property
    def person_agent(self) -> bool:
        """Whether the ガ slot is mostly filled by people (names, person exophora)."""
        ga = self.slots.get("ガ", {})
        nouns = sum(n for _, n in ga.get("nouns", []))
        return ga.get("person", 0) >= nouns

    @property
    def agentive(self) -> bool:
        """A person is the subject: the curated volitional class, else the corpus evidence."""
        if "volitional" in self.classes:
            return bool(self.classes["volitional"]) or self.person_agent
        return self.person_agent

    def usable_tuples(self, noun_frequency: dict[str, int] | None = None,
                      min_frequency: int = 1) -> list[tuple[dict[str, str], int]]:
        """Observed tuples that fill every case of the verb's clause frame (ガ aside when a
        person is the subject), restricted to that frame, whose nouns are frequent enough
        in the whole corpus and do not repeat the verb (釣りを釣る)."""
        frame = self.classes.get("frame") or sorted({c for t, _ in self.tuples for c in t})
        agentive = self.agentive
        needed = [c for c in frame if not (c == "ガ" and agentive)]
        stem = self.lemma[0]
        out = []
        for t, n in self.tuples:
            if not all(c in t for c in needed):
                continue
            if agentive and "ガ" in t:
                continue  # a thing was the subject there: a person would not fit its objects
            kept = {c: w for c, w in t.items() if c in frame and not (c == "ガ" and self.agentive)}
            if any(_is_kanji(stem) and stem in w for w in kept.values()):
                continue
            if noun_frequency is not None and any(noun_frequency.get(w, 0) < min_frequency
                                                  for w in kept.values()):
                continue
            if self.rejected and tuple_key(kept) in self.rejected:
                continue
            out.append((kept, n))
        return out

    def pick_tuple(self, rng: StableRng, noun_frequency: dict[str, int] | None = None,
                   min_frequency: int = 1) -> dict[str, str] | None:
        """An observed argument tuple, drawn in proportion to its corpus frequency
        (cumulative weights computed once)."""
        if not self._cumulative:
            self._usable = self.usable_tuples(noun_frequency, min_frequency)
            total = 0
            for _, n in self._usable:
                total += n
                self._cumulative.append(total)
        if not self._usable:
            return None
        x = rng.randbelow(self._cumulative[-1])
        return self._usable[bisect.bisect_right(self._cumulative, x)][0]


# A filler must occur at least this often in the whole corpus (any verb, any case): rare
# fillers are mostly extraction fragments (台駅) or too specialised to read naturally.
MIN_NOUN_FREQUENCY = 3


def tuple_key(args: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """An argument tuple as a hashable, order-free key: ((case, noun), ...)."""
    return tuple(sorted(args.items()))


def _rejected_tuples(lexicons: LexiconSet) -> dict[str, set]:
    """lemma -> rejected tuple keys, from ja/curated/tuple_blocklist (if shipped)."""
    if not lexicons.find("ja/curated/tuple_blocklist"):
        return {}
    lexicon = lexicons.get("ja/curated/tuple_blocklist")
    out: dict[str, set] = {}
    for i, e in enumerate(lexicon.entries):
        lemma, args = e.get("lemma"), e.get("args")
        if not isinstance(lemma, str) or not isinstance(args, dict) or not args or not all(
                isinstance(c, str) and isinstance(w, str) for c, w in args.items()):
            raise LexiconError(f"entry {i + 1}: needs 'lemma' and 'args' ({{case: noun}})",
                               lexicon.name)
        out.setdefault(lemma, set()).add(tuple_key(args))
    return out


def _is_kanji(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff"


class JaLexicon:
    def __init__(self, verbs: list[JaVerb], names: list[dict], meta: dict):
        self.verbs = verbs
        self.names = names
        self.meta = meta
        self.by_lemma = {v.lemma: v for v in verbs}
        self.noun_frequency: dict[str, int] = {}
        for v in verbs:
            for slot in v.slots.values():
                for noun, n in slot.get("nouns", []):
                    self.noun_frequency[noun] = self.noun_frequency.get(noun, 0) + n

    @classmethod
    def load(cls, lexicons: LexiconSet) -> "JaLexicon":
        frames = lexicons.get("ja/caseframes")
        classes = {}
        if lexicons.find("ja/curated/verb_classes"):
            for e in lexicons.get("ja/curated/verb_classes").entries:
                classes[e.get("lemma")] = e
        rejected = _rejected_tuples(lexicons)
        names = list(lexicons.get("ja/curated/names").entries) if lexicons.find(
            "ja/curated/names") else []
        verbs = []
        for e in frames.entries:
            try:
                verbs.append(JaVerb(
                    lemma=e["lemma"], count=e["count"],
                    frames=[(tuple(cases), n) for cases, n in e["frames"]],
                    slots=e["slots"], tuples=[(t, n) for t, n in e["tuples"]],
                    classes=classes.get(e["lemma"], {}),
                    rejected=frozenset(rejected.get(e["lemma"], ()))))
            except (KeyError, TypeError, ValueError):
                raise LexiconError(f"malformed entry {e.get('lemma')!r}", frames.name) from None
        return cls(verbs, names, frames.meta)

    def stats(self) -> dict[str, Any]:
        nouns = set()
        frames = 0
        tuples = 0
        for v in self.verbs:
            for slot in v.slots.values():
                nouns.update(n for n, _ in slot.get("nouns", []))
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
            for case in v.classes.get("frame", []):
                per_class[f"frame_has={case}"] = per_class.get(f"frame_has={case}", 0) + 1
        by_case = {case: sum(1 for v in self.verbs if any(case in f for f, _ in v.frames))
                   for case in CASES}
        return {"verbs": len(self.verbs), "nouns": len(nouns), "frames": frames,
                "tuples": tuples, "curated_verbs": len(curated), "usable_verbs": len(usable),
                "names": len(self.names), "verbs_with_case": by_case,
                "classes": dict(sorted(per_class.items()))}

    def usable_verbs(self) -> list[JaVerb]:
        """The verbs generation uses: curated classes and at least one usable tuple.
        ``classes`` in stats() counts these."""
        return [v for v in self.verbs
                if v.classes and v.usable_tuples(self.noun_frequency, MIN_NOUN_FREQUENCY)]

    def sample_clauses(self, n: int, seed: int) -> list[str]:
        """Simple clauses: agent + an observed argument tuple + the verb in the past.
        Curated verbs are preferred (they are the ones templates use)."""
        pool = self.usable_verbs() or self.verbs
        names = [e["name"] for e in self.names] or ["アリス"]
        out = []
        for i in range(n):
            rng = StableRng(seed, "ja-sample", i)
            verb = pool[rng.randbelow(len(pool))]
            args = dict(verb.pick_tuple(rng, self.noun_frequency, MIN_NOUN_FREQUENCY) or {})
            if verb.agentive:  # people act: the agent is a name, whatever filled ガ in text
                args["ガ"] = names[rng.randbelow(len(names))]
            phrases = [args[c] + PARTICLES[c] for c in CLAUSE_ORDER if c in args]
            out.append("".join(phrases) + conjugate(verb.lemma, "past") + "。")
        return out

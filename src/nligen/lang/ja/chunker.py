"""Argument phrases of Japanese clauses, from a rule-based bunsetsu dependency analysis.

The stress transformations (scramble, swap, delete; issue 6) need, for each case-marked
argument, the whole phrase it heads (modifiers and relative clauses included: 「コスチューム
を着た女性が」 is one phrase headed by 女性) and the predicate it depends on. A statistical
parser (GiNZA) gives about the same accuracy on the JSICK stress sample at ~50 sentences/s
and 0.6 GB of extra install; these rules run on the fugashi + unidic-lite tokens the
Japanese layer already loads, at thousands of sentences per second.

How it works:

* **Chunking.** A bunsetsu is content words followed by function words: particles,
  auxiliaries, suffixes and punctuation glue to the left, and so do verbs that continue a
  word (ている, ジャンプ|する, 跳び|込む, compound verbs), noun compounds and the そう of
  嬉しそうに; an adjective stem glues to the noun after it (淡|褐色). An opening bracket
  glues to the right.
* **Kinds.** Each bunsetsu is one of ``case`` (ends in a case particle), ``adn``
  (adnominal: …の, 連体詞, an adjective in 連体形, 形状詞+な), ``coord`` (a noun before 、),
  ``pred`` (a final predicate), ``te`` (a predicate in て/連用/仮定形 or before 、: an
  adverbial, te or coordinate clause), ``rel`` (a predicate directly followed by a noun
  phrase: a relative clause), ``adv`` or ``nom`` (anything else).
* **Dependencies.** Heads are always to the right, so the phrase of a bunsetsu (its
  leftmost descendant up to its particle) is one contiguous span. Adnominals, relative
  clauses and coordinated nouns attach to the nearest following noun; a case phrase to a
  relative clause right after it (or, read high, to the predicate after that: see
  :class:`Chunker`), else to the nearest following ``pred``/``te``; a te clause to the
  nearest following clause predicate once a subject has been seen (so
  「女性が自転車に乗って歩行者用に造られた橋を…」 keeps 乗って in the main clause), else
  to the nearest predicate of any kind: it may belong to a relative clause, as 「毛が長くて
  赤いベストを着た犬が」 and the compound postposition 「道路に沿って馬車を引いている馬に」 do;
  adverbs to the nearest predicate.
* **Fix-ups.** A subject (が/は/も) that the rules leave inside a relative clause moves to
  the predicate that governs the modified noun, when that predicate has no subject of its
  own (always for は and も, which do not occur in relative clauses). A relative clause
  before ため/よう + に is an adverbial clause (「ミキサーに入れるために」). A bare adjective
  after a が phrase and before a non-subject noun phrase is a relative clause with its own
  subject (「丈が高い草の中を」). A copula で after a noun counts as the particle で, as in
  the JSICK data (「うわの空で」). Finally crossing arcs, which the rules produce only on odd
  input, are removed, so any two phrases are disjoint or nested.

Input is one sentence (or a few clauses joined by 、). Text without Japanese clauses
(empty, punctuation only, Latin, lone surrogates) gives an analysis without arguments.

Known weak spots (from the issue-6 research on held-out sentences): ある read as a verb or
a determiner (「あるイベントである人に」 reads イベントである as a relative clause); nouns
other than いっぱい/満杯 that take an argument before の.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise

# Particles that end an argument phrase; the first three mark subjects.
SUBJECT_PARTICLES = ("が", "は", "も")
CASE_PARTICLES = frozenset({"が", "を", "に", "で", "へ", "から", "と", "は", "も", "まで", "より"})
# A relative clause before ため/よう + に is purpose/manner: an adverbial clause.
FORMAL_NOUNS = frozenset({"ため", "よう"})
# Nouns that take an argument and modify a noun with の, like a relative clause:
# 枯れ葉で|いっぱいの|野原 'a field full of dead leaves'.
PREDICATIVE_NOUNS = frozenset({"いっぱい", "一杯", "満杯", "満員"})
# に followed by one of these is part of a compound postposition (に沿って 'along', により
# 'by', について 'about' ...), not a ni-argument. 眠りについている is a verb, hence (?!い).
COMPOUND_POSTPOSITION_TAIL = re.compile(
    r"(よって|より|よる|沿って|沿った|沿い|ついて(?!い)|ついての|対して|対する|向かって(?!い)"
    r"|向けて(?!い)|とって(?!い)|おいて(?!い)|関して)")

_FUNCTION_POS = frozenset({"助詞", "助動詞", "補助記号", "接尾辞", "空白"})
_PREDICATE_KINDS = frozenset({"pred", "te", "rel"})
_CLAUSE_KINDS = frozenset({"pred", "te"})          # predicates that are not relative clauses


@dataclass(frozen=True)
class Argument:
    """A case-marked argument phrase, as character offsets into the analysed text."""

    start: int            # first character of the phrase (its leftmost modifier)
    end: int              # just past its particle
    particle: str         # が, は, も, を, に, で, へ, から, と, まで, より
    particle_start: int
    particle_end: int
    head: str             # surface of the head noun (its bunsetsu without the particle)
    predicate: int        # id of the predicate it depends on
    # Read high (attachment "high"): the relative-clause predicate it would depend on under
    # the other reading of an ambiguous attachment; None when there was no choice.
    alternative_predicate: int | None = None


@dataclass(frozen=True)
class Predicate:
    id: int
    start: int
    end: int              # trailing punctuation excluded
    lemma: str            # dictionary form: 踊る, ジャンプする, 叩き込む
    relative: bool        # a relative-clause (adnominal) predicate
    # "active"; "passive_causative" (置かれる, 乗せられる, 走らせる: the cases differ from the
    # lemma's own frame); "resultative" (置いてある: the が phrase is the object)
    voice: str = "active"


@dataclass
class ClauseAnalysis:
    """The arguments and predicates of one text, and how its clauses hang together."""

    text: str
    # Left to right. Double particles (には, では ...), に of compound postpositions and
    # ため/よう + に are not arguments.
    arguments: list[Argument] = field(default_factory=list)
    predicates: dict[int, Predicate] = field(default_factory=dict)
    # adverbial / te / coordinate clause -> the predicate it attaches to (never a relative
    # clause as the child)
    clause_parent: dict[int, int] = field(default_factory=dict)
    # Some phrase could be read high (see Chunker): a "high" analysis would differ.
    ambiguous: bool = False

    def co_arguments(self, subject: Argument, other: Argument) -> bool:
        """Do both phrases belong to one clause for the purposes of the transformations?

        True when they depend on the same predicate, or when one predicate is a (chain of)
        adverbial/te clause(s) of the other and no predicate on that path, other than the
        subject's own, has a subject of its own: the subject then controls the te clause
        (「女性がバイクに乗って走っている」 pairs 女性が with バイクに). An argument inside a
        relative clause is never a co-argument of the main clause's subject.
        """
        own, theirs = subject.predicate, other.predicate
        if own == theirs:
            return True
        above_theirs = self._clause_chain(theirs)
        above_own = self._clause_chain(own)
        if own in above_theirs:
            path = above_theirs[: above_theirs.index(own) + 1]
        elif theirs in above_own:
            path = above_own[: above_own.index(theirs) + 1]
        else:
            return False
        between = set(path) - {own}
        return not any(argument != subject and argument.particle in ("が", "は")
                       and argument.predicate in between for argument in self.arguments)

    @property
    def main_predicate(self) -> Predicate | None:
        """The last predicate that is not a relative clause."""
        clauses = [p for p in self.predicates.values() if not p.relative]
        return max(clauses, key=lambda p: p.id) if clauses else None

    def _clause_chain(self, predicate: int) -> list[int]:
        chain, seen = [predicate], {predicate}
        while predicate in self.clause_parent and self.clause_parent[predicate] not in seen:
            predicate = self.clause_parent[predicate]
            chain.append(predicate)
            seen.add(predicate)
        return chain


ATTACHMENTS = ("low", "high")


class Chunker:
    """Analyses texts into :class:`ClauseAnalysis`; one tagger, reused across calls.

    ``attachment`` settles a case phrase that follows a subject and precedes a relative
    clause (犬が|草で|覆われた丘を走り上がっている): Japanese syntax lets it depend on the
    relative clause's predicate or on a later one. ``low`` takes the relative clause (the
    reading a native speaker prefers in nearly every case: 草で覆われた丘); ``high`` takes
    the predicate the subject depends on, which is how the JSICK stress data reads it (草で
    犬が覆われた丘を…). Arguments read high carry ``alternative_predicate``.
    """

    def __init__(self, tagger=None, attachment: str = "low"):
        if attachment not in ATTACHMENTS:
            raise ValueError(f"attachment must be one of {', '.join(ATTACHMENTS)}")
        # A fugashi.Tagger (unidic-lite); the Japanese layer's shared one by default,
        # created on first use so that importing this module costs nothing.
        self._tagger = tagger
        self.attachment = attachment

    def analyse(self, text: str) -> ClauseAnalysis:
        tokens = self._tokens(text)
        if tokens is None:
            return ClauseAnalysis(text)
        chunks = _chunk(tokens)
        _classify(chunks)
        high = self.attachment == "high"
        alternatives = _attach(chunks, high)
        _raise_subjects(chunks)
        _uncross(chunks)
        analysis = _analysis(text, chunks, alternatives if high else {})
        analysis.ambiguous = bool(alternatives)
        return analysis

    def _tokens(self, text: str) -> list[_Token] | None:
        """UniDic tokens with character offsets; None when they cannot be aligned."""
        if not text or not text.strip():
            return []
        if self._tagger is None:
            from .conjugation import _tagger
            self._tagger = _tagger()
        try:
            words = self._tagger(text)
        except UnicodeError:                           # lone surrogates: not text
            return None
        tokens, position = [], 0
        for word in words:
            surface = word.surface
            start = text.find(surface, position)
            if not surface or start < 0:
                return None
            feature = word.feature
            position = start + len(surface)
            tokens.append(_Token(surface, start, position, feature.pos1 or "",
                                 feature.pos2 or "", feature.cForm or "",
                                 feature.orthBase or surface))
        return tokens


# -- chunking ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Token:
    surface: str
    start: int
    end: int
    pos1: str
    pos2: str
    form: str             # conjugated form (cForm): 連用形-一般, 連体形-一般, ... or *
    base: str             # dictionary form in the text's spelling (orthBase)

    @property
    def function(self) -> bool:
        return self.pos1 in _FUNCTION_POS

    @property
    def punctuation(self) -> bool:
        return self.pos1 == "補助記号"


@dataclass
class _Bunsetsu:
    tokens: list[_Token]
    kind: str = "nom"
    particle: str = ""    # set for kind case; empty for a double particle (には, では)
    particle_start: int = -1
    particle_end: int = -1
    head: int = -1        # index of the bunsetsu it depends on; -1 for the last one

    @property
    def start(self) -> int:
        return self.tokens[0].start

    @property
    def content(self) -> list[_Token]:
        return [t for t in self.tokens if not t.function]

    @property
    def words(self) -> list[_Token]:
        return [t for t in self.tokens if not t.punctuation]


def _starts_bunsetsu(prev: _Token, cur: _Token) -> bool:
    if cur.pos2 == "括弧開":
        return True
    if prev.pos2 == "括弧開" or prev.pos1 == "接頭辞":
        return False
    if cur.function:
        return False
    if cur.pos1 == "形状詞" and cur.pos2 == "助動詞語幹":
        return False                                   # 嬉し|そう|に
    after_te = prev.pos1 == "助詞" and prev.pos2 == "接続助詞"
    if cur.pos1 in ("動詞", "形容詞") and cur.pos2 == "非自立可能" and after_te:
        return False                                   # ている, でいる, てほしい
    if cur.pos1 == "動詞" and prev.pos1 in ("名詞", "形状詞") and prev.pos2 != "固有名詞":
        return False                                   # ジャンプ|し, 跳び|込ん
    if cur.pos1 == "動詞" and prev.pos1 == "動詞" and prev.form.startswith("連用形"):
        return False                                   # 叩き|込ん
    if cur.pos1 == "名詞" and prev.pos1 == "形容詞" and prev.form.startswith("語幹"):
        return False                                   # 淡|褐色
    # noun compounds, numbers + counters
    return not (cur.pos1 in ("名詞", "代名詞") and prev.pos1 in ("名詞", "代名詞"))


def _chunk(tokens: list[_Token]) -> list[_Bunsetsu]:
    chunks: list[_Bunsetsu] = []
    for token in tokens:
        if not chunks or _starts_bunsetsu(chunks[-1].tokens[-1], token):
            chunks.append(_Bunsetsu([]))
        chunks[-1].tokens.append(token)
    return chunks


# -- kinds ---------------------------------------------------------------------------------


def _starts_noun_phrase(b: _Bunsetsu) -> bool:
    content = b.content
    return bool(content) and content[0].pos1 in ("名詞", "代名詞", "連体詞", "形容詞", "形状詞",
                                                 "接頭辞")


def _is_nominal_head(b: _Bunsetsu) -> bool:
    content = b.content
    return bool(content) and content[-1].pos1 in ("名詞", "代名詞") \
        and b.kind not in _PREDICATE_KINDS


def _classify(chunks: list[_Bunsetsu]) -> None:
    for i, b in enumerate(chunks):
        b.kind = _kind(b, chunks[i + 1] if i + 1 < len(chunks) else None)
    # 入れる|ために: a relative clause before ため/よう + に is adverbial. Done after all kinds
    # are known, because it looks at the particle of the next bunsetsu.
    for b, after in pairwise(chunks):
        content = after.content
        if b.kind == "rel" and content and content[0].surface in FORMAL_NOUNS \
                and after.particle == "に":
            b.kind = "te"
    # 丈が|高い|草: a bare adjective right after a が phrase and before a noun phrase is a
    # relative clause with its own subject, unless that noun phrase is itself a subject
    # (男の子が|赤い|カーペットが|敷かれた). A wrongly caught main subject is moved back up
    # by _raise_subjects.
    next_noun = _next_index(chunks, _is_nominal_head)     # not changed by this loop
    for i in range(1, len(chunks) - 1):
        b, before = chunks[i], chunks[i - 1]
        if b.kind != "adn" or before.kind != "case" or before.particle != "が" \
                or [t.pos1 for t in b.content] != ["形容詞"] \
                or not _starts_noun_phrase(chunks[i + 1]):
            continue
        noun = next_noun[i]
        if noun is not None and not (chunks[noun].kind == "case"
                                     and chunks[noun].particle in SUBJECT_PARTICLES):
            b.kind = "rel"


def _kind(b: _Bunsetsu, following: _Bunsetsu | None) -> str:
    """The bunsetsu's kind; sets its particle for kind ``case``."""
    words, content = b.words, b.content
    if not words:
        return "nom"                                   # punctuation only
    last = words[-1]
    comma = b.tokens[-1].surface == "、"
    predicative = any(t.pos1 in ("動詞", "形容詞") for t in content) or (
        any(t.pos1 == "形状詞" for t in content) and last.pos1 == "助動詞"
        and last.form.startswith("終止"))
    if len(content) == 1 and content[0].pos1 == "形容詞" and content[0] is last and not comma:
        # a bare adjective: 赤い (adnominal) or すばやく (adverbial)
        return "adn" if last.form.startswith(("連体", "終止")) else "adv"
    if last.surface == "に" and any(t.pos2 == "助動詞語幹" for t in b.tokens):
        return "adv"                                   # 嬉しそうに
    if last.surface == "に" and len(words) >= 2 and words[-2].pos1 == "助動詞" \
            and words[-2].base in ("ず", "ぬ"):
        return "te"                                    # 向こう見ずに: 'without looking'
    if len(words) == 2 and last.surface == "の" and words[0].base in PREDICATIVE_NOUNS \
            and following is not None and _starts_noun_phrase(following):
        return "rel"                                   # 枯れ葉で|いっぱいの|野原
    if predicative and (last.pos1 in ("動詞", "形容詞", "助動詞", "接尾辞")
                        or (last.pos1 == "助詞" and last.pos2 == "接続助詞")):
        if last.pos1 == "助詞" or last.form.startswith(("連用形", "仮定形")) or comma:
            return "te"
        if following is not None and _starts_noun_phrase(following):
            return "rel"
        return "pred"
    if content and content[-1].pos1 == "形状詞" and last.pos1 == "助動詞" \
            and last.form.startswith("連体"):
        return "adn"                                   # カラフルな
    if content and content[-1].pos1 == "形容詞":
        return "adn"
    particles = [t for t in b.tokens if t.pos1 == "助詞"]
    if content and content[0].pos1 == "連体詞" and not particles:
        return "adn"
    if content and content[0].pos1 in ("副詞", "接続詞") and not particles:
        return "adv"
    if particles and particles[-1] is last and content:
        if last.surface == "の":
            return "adn"
        if last.surface in CASE_PARTICLES:
            # には, では, からは: not an argument of the transformations; 何か|を, だけ|を are
            before = particles[-2] if len(particles) >= 2 else None
            double = before is not None and before.end == last.start \
                and before.surface in CASE_PARTICLES
            b.particle = "" if double else last.surface
            b.particle_start, b.particle_end = last.start, last.end
            return "case"
    if last.surface == "で" and last.pos1 == "助動詞" and content and content[-1].pos1 == "名詞":
        # copula で after a noun: the JSICK data treats it as the particle で (うわの空で),
        # but before 、 it ends a predicate (ドレスは…ピンク色で、女性に着られている)
        if comma:
            return "te"
        b.particle, b.particle_start, b.particle_end = "で", last.start, last.end
        return "case"
    if comma:
        return "coord"
    return "nom"


# -- dependencies --------------------------------------------------------------------------


def _next_index(chunks: list[_Bunsetsu], wanted) -> list[int | None]:
    """For each position, the nearest later bunsetsu satisfying ``wanted`` (or None)."""
    nearest: list[int | None] = [None] * len(chunks)
    found = None
    for i in range(len(chunks) - 1, -1, -1):
        nearest[i] = found
        if wanted(chunks[i]):
            found = i
    return nearest


def _attach(chunks: list[_Bunsetsu], high: bool = False) -> dict[int, int]:
    """Give every bunsetsu but the last a head to its right. A case phrase after a subject
    and before a relative clause may depend on either; the result maps each such bunsetsu to
    the relative clause. With ``high`` it depends on the next clause predicate instead."""
    n = len(chunks)
    next_clause = _next_index(chunks, lambda b: b.kind in _CLAUSE_KINDS)
    next_predicate = _next_index(chunks, lambda b: b.kind in _PREDICATE_KINDS)
    next_noun = _next_index(chunks, _is_nominal_head)
    next_subject = _next_index(chunks, lambda b: b.kind == "case"
                               and b.particle in SUBJECT_PARTICLES)
    last = n - 1
    subjects_seen = 0
    subjects_on: dict[int, int] = {}                    # head -> subjects attached to it
    alternatives: dict[int, int] = {}
    for i, b in enumerate(chunks[:-1]):
        coordinated = b.kind == "case" and b.particle == "と" and next_noun[i] is not None \
            and (next_predicate[i] is None or next_noun[i] < next_predicate[i])
        if b.kind in ("adn", "rel", "coord") or coordinated:
            b.head = next_noun[i] if next_noun[i] is not None else i + 1
        elif b.kind == "case":
            after = chunks[i + 1]
            relative = None
            if after.kind == "rel":
                relative = i + 1
            elif after.kind == "adv" and i + 2 < n and chunks[i + 2].kind == "rel":
                relative = i + 2                       # 公園で楽しそうに遊ぶ子供
            if relative is not None and subjects_seen \
                    and b.particle not in SUBJECT_PARTICLES and next_clause[i] is not None:
                alternatives[i] = relative
                b.head = next_clause[i] if high else relative
            elif relative is not None:
                b.head = relative
            else:
                b.head = _or(next_clause[i], last)
            if b.particle in SUBJECT_PARTICLES:
                subjects_seen += 1
                subjects_on[b.head] = subjects_on.get(b.head, 0) + 1
        elif b.kind == "te":
            # After a subject (or before 、) a te clause belongs to the main clause; before
            # any subject it may be part of the subject's relative clause. A subject that
            # the rules hung on the te clause itself counts only when no subject follows:
            # 女性が自転車に乗って|造られた橋を (main clause) but 毛が長くて|着た犬が (a
            # relative clause of the subject phrase).
            # A compound postposition (道路に|沿って) is no clause: it stays with the nearest
            # predicate.
            own = subjects_on.get(i, 0)
            postposition = i > 0 and chunks[i - 1].particle == "に" and bool(
                COMPOUND_POSTPOSITION_TAIL.match("".join(t.surface for t in b.tokens)))
            subject_before = subjects_seen - own > 0 or (
                own > 0 and next_subject[i] is None and not postposition)
            if subject_before or b.tokens[-1].surface == "、":
                b.head = _or(next_clause[i], last)
            else:
                b.head = _or(next_predicate[i], last)
        elif b.kind == "adv":
            b.head = _or(next_predicate[i], last)
        else:
            b.head = i + 1                             # bare noun, number ...
    return alternatives


def _or(index: int | None, default: int) -> int:
    return default if index is None else index


def _raise_subjects(chunks: list[_Bunsetsu]) -> None:
    """Move subjects the rules left inside a relative clause up to the governing predicate.

    Relative clauses rarely keep a が subject of their own when the main clause has none,
    and never a は or も subject.
    """
    subjects_on: dict[int, int] = {}                   # predicate -> its が/は subjects
    for b in chunks:
        if b.kind == "case" and b.particle in ("が", "は"):
            subjects_on[b.head] = subjects_on.get(b.head, 0) + 1
    for b in chunks:
        if b.kind != "case" or b.particle not in SUBJECT_PARTICLES or b.head == -1:
            continue
        top = _clause_top(chunks, b.head)
        while chunks[top].kind == "rel":
            governor = _governing_predicate(chunks, top)
            if governor == -1:
                break
            if b.particle == "が" and subjects_on.get(governor, 0):
                break
            if b.particle in ("が", "は"):
                subjects_on[b.head] -= 1
                subjects_on[governor] = subjects_on.get(governor, 0) + 1
            b.head = governor
            top = _clause_top(chunks, governor)


def _clause_top(chunks: list[_Bunsetsu], index: int) -> int:
    """Climb te clauses to the predicate that ends their chain."""
    while chunks[index].kind == "te" and chunks[index].head != -1:
        index = chunks[index].head
    return index


def _governing_predicate(chunks: list[_Bunsetsu], relative: int) -> int:
    """The predicate that governs the noun a relative clause modifies (-1 if none)."""
    index = chunks[relative].head
    while index != -1 and not (chunks[index].kind in _PREDICATE_KINDS and index > relative):
        index = chunks[index].head
    return index


def _uncross(chunks: list[_Bunsetsu]) -> None:
    """Make the tree projective, so that phrases are disjoint or nested.

    The rules can cross arcs in odd input (黒、赤、白、そして|ピンク色で、…: そして hangs on a
    later predicate across ピンク色で, whose phrase starts at 黒). A bunsetsu lying under an
    arc gets a head no further than that arc's head. Heads of open arcs, innermost last,
    never increase along the stack, so its top is the nearest limit.
    """
    open_heads: list[int] = []
    for k, b in enumerate(chunks):
        while open_heads and open_heads[-1] <= k:
            open_heads.pop()
        if b.head == -1:
            continue
        if open_heads and b.head > open_heads[-1]:
            b.head = open_heads[-1]
        open_heads.append(b.head)


# -- result --------------------------------------------------------------------------------


def _analysis(text: str, chunks: list[_Bunsetsu],
              alternatives: dict[int, int] | None = None) -> ClauseAnalysis:
    alternatives = alternatives or {}
    # Leftmost descendant of each bunsetsu: heads lie to the right, so one left-to-right
    # pass sees every child before its head.
    leftmost = list(range(len(chunks)))
    for i, b in enumerate(chunks):
        if b.head != -1:
            leftmost[b.head] = min(leftmost[b.head], leftmost[i])
    predicates = {i: _predicate(i, b) for i, b in enumerate(chunks) if b.kind in _PREDICATE_KINDS}
    arguments = []
    for i, b in enumerate(chunks):
        if b.kind != "case" or not b.particle or b.head not in predicates:
            continue
        if b.particle == "に" and COMPOUND_POSTPOSITION_TAIL.match(text, b.particle_end):
            continue
        head = text[b.words[0].start:b.particle_start].strip()
        if b.particle == "に" and head in FORMAL_NOUNS:
            continue                                   # 入れる|ために: a clause connective
        arguments.append(Argument(
            start=chunks[leftmost[i]].start, end=b.particle_end, particle=b.particle,
            particle_start=b.particle_start, particle_end=b.particle_end, head=head,
            predicate=b.head, alternative_predicate=alternatives.get(i)))
    clause_parent = {i: b.head for i, b in enumerate(chunks)
                     if b.kind == "te" and b.head in predicates}
    return ClauseAnalysis(text, arguments, predicates, clause_parent)


def _predicate(index: int, b: _Bunsetsu) -> Predicate:
    # The lemma is the leading run of content words with its last word in dictionary form:
    # 踊っ|て|いる -> 踊る, ジャンプ|し|て -> ジャンプする, 叩き|込ん|だ -> 叩き込む.
    run = []
    for token in b.tokens:
        if token.function:
            break
        run.append(token)
    run = run or b.words
    lemma = "".join(t.surface for t in run[:-1]) + run[-1].base
    words = b.words
    return Predicate(id=index, start=b.start, end=words[-1].end, lemma=lemma,
                     relative=b.kind == "rel", voice=_voice(b.tokens[len(run):]))


_VOICE_AUXILIARIES = frozenset({"れる", "られる", "せる", "させる"})


def _voice(rest: list[_Token]) -> str:
    """The voice of a predicate from the words after its lemma: 置か|れ|て → passive_causative,
    置い|て|ある → resultative."""
    for i, token in enumerate(rest):
        if token.base in _VOICE_AUXILIARIES and token.pos1 in ("助動詞", "動詞"):
            return "passive_causative"
        if token.base in ("ある", "有る") and i > 0 and rest[i - 1].surface in ("て", "で"):
            return "resultative"
    return "active"

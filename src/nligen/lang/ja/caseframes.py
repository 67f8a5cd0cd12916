"""Case frames from KNP-format corpora with gold predicate-argument (<rel>) annotations.

For every verbal predicate (a tag holding a verb, or a サ変 noun followed by する) the rel
tags name its arguments by case (ガ, ヲ, ニ, ...) and point at the argument's tag by
sentence id and tag id. We collect, per predicate lemma, the case-slot sets (frames), the
head nouns filling each slot with their frequencies, and the argument *tuples* seen
together in one clause. Exophora (著者, 不特定:人 ...) are not nouns: they are counted
apart (a person-type exophor in ガ is evidence of a human agent).

Malformed input (a truncated file, a line with missing fields, an unknown rel type) is
reported with file and line and skipped; the rest of the corpus is read.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from .corpusfiles import Problem, read_files

# Argument cases kept for frames (surface case particles of the verb).
CASES = ("ガ", "ヲ", "ニ", "デ", "ト", "カラ", "ヘ", "ヨリ", "マデ")
# Every rel type of the Kyoto University annotation scheme met in the corpora: others are
# reported as unknown.
KNOWN_REL_TYPES = {
    *CASES, "ノ", "ノ？", "ガ２", "判ガ", "時間", "修飾", "外の関係", "トイウ", "=", "=構",
    "=役", "ニヨッテ", "ニツイテ", "ニカンシテ", "トシテ", "マデニ", "ニタイシテ", "ニオイテ",
    "ニムケテ", "ニトッテ", "ヲツウジテ", "ニアワセテ", "ニトモナッテ", "ニモトヅイテ",
    "ニクワエテ", "ニヨラズ", "ヲメグッテ", "ニカワッテ", "ニソッテ", "ヲノゾイテ", "ニツヅイテ",
    "ヲフクメテ", "ニオウジテ", "ヲハジメテ", "ニカギッテ", "ニアタッテ", "ニマツワル",
    "ニヨル", "ヲモッテ", "ニシタガッテ", "ヲトオシテ", "ニツレテ", "ニムカッテ", "ニカラム",
    "ヲツカッテ", "ヲヌキニシテ", "ニサキダッテ", "ニクラベテ", "トトモニ", "ニカケテ",
    "ニヨリ", "ヲノゾク", "ニナランデ", "ニヒキツヅイテ", "ヲモトニ", "ニトドマラズ",
    "ヨリモ", "トイッタ", "ヲカギリニ", "ヲマエニ", "ニシテ", "ニカギラズ", "ニカンスル", "ニツク",
    "ニタイスル", "ニカワル", "ヲツウジル",
}
# Exophoric antecedents that stand for people (evidence of human, agent-like arguments).
PERSON_EXOPHORA = ("著者", "読者", "不特定:人")
# Personal pronouns (JUMAN files several as 普通名詞): templates use named agents.
PRONOUNS = {"私", "わたし", "僕", "ぼく", "俺", "おれ", "あなた", "君", "きみ", "彼", "彼女",
            "我々", "私たち", "わたしたち", "僕ら", "僕たち", "自分", "自身", "皆", "みんな",
            "皆さん", "みなさん", "あなた方", "彼ら", "誰", "何", "貴方", "貴女", "貴男",
            "貴殿", "貴様", "あんた", "お前", "おまえ", "君たち", "君達", "我", "己", "皆様",
            "みなさま"}
# Heads that make a noun phrase relational or partial rather than a thing (栗以外, 部全般).
RELATIONAL_ENDINGS = ("以外", "以上", "以下", "全般", "自体", "同士", "ごと", "毎", "別", "側")
KEPT_NOUN_CLASSES = {"普通名詞", "サ変名詞"}
PROPER_NOUN_CLASSES = {"固有名詞", "人名", "地名", "組織名"}


@dataclass
class Morpheme:
    surface: str
    lemma: str
    pos: str
    subpos: str
    conj_type: str


@dataclass
class Tag:
    tag_id: int
    morphemes: list[Morpheme]
    rels: list[tuple[str, str, str | None, int | None, int]]  # type, target, sid, id, line
    bunsetsu: int = 0


@dataclass
class Sentence:
    sid: str
    tags: list[Tag]


@dataclass
class FrameCounts:
    count: int = 0
    frames: Counter = field(default_factory=Counter)        # tuple(cases) -> n
    nouns: dict = field(default_factory=lambda: defaultdict(Counter))  # case -> noun -> n
    person: Counter = field(default_factory=Counter)        # case -> n (person fillers)
    tuples: Counter = field(default_factory=Counter)        # tuple((case, noun)...) -> n
    # evidence: which source (corpus) each tuple and each (case, noun) filler came from
    tuple_sources: dict = field(default_factory=lambda: defaultdict(Counter))
    noun_sources: dict = field(default_factory=lambda: defaultdict(Counter))

    def add(self, source: str, cases_present: Iterable[str], filled: dict[str, str]) -> None:
        """One clause of the predicate: the cases it has, and the nouns filling some."""
        self.count += 1
        present = set(cases_present) | set(filled)
        if present:
            self.frames[tuple(c for c in CASES if c in present)] += 1
        for case, word in filled.items():
            self.nouns[case][word] += 1
            self.noun_sources[(case, word)][source] += 1
        if filled:
            key = tuple((c, filled[c]) for c in CASES if c in filled)
            self.tuples[key] += 1
            self.tuple_sources[key][source] += 1


def read_documents(paths: Iterable[str | Path], problems: list[Problem]
                   ) -> Iterator[tuple[str, list[Sentence]]]:
    """(name, sentences) for every .knp document in files, folders or .tar.gz archives."""
    for _source, name, raw in read_files(paths, problems, (".knp",)):
        yield from _document(name, raw, problems)


def _document(name: str, raw: bytes, problems: list[Problem]) -> Iterator[tuple[str, list[Sentence]]]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        problems.append(Problem(name, "not UTF-8"))
        return
    sentences: list[Sentence] = []
    lines = text.split("\n")
    block: list[tuple[int, str]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        block.append((number, line))
        if line.strip() == "EOS":
            sentence = _parse_sentence(name, block, problems)
            if sentence is not None:
                sentences.append(sentence)
            block = []
    if block:
        problems.append(Problem(f"{name}:{block[0][0]}", "truncated sentence (no EOS); skipped"))
    yield name, sentences


def _parse_sentence(name: str, block: list[tuple[int, str]], problems: list[Problem]
                    ) -> Sentence | None:
    """One sentence, parsed by pyknp's BList. A scan of the lines first finds what pyknp
    would choke on or silently misread, so it can be reported with file and line."""
    tag_lines: list[int] = []
    for number, line in block:
        if line.startswith("+ "):
            tag_lines.append(number)
        elif not line.startswith(("#", "* ", "EOS")):
            if len(line.split(" ")) < 11 or not tag_lines:
                problems.append(Problem(f"{name}:{number}", "morpheme line with missing "
                                                             "fields; sentence skipped"))
                return None
    try:
        from pyknp import BList

        blist = BList("\n".join(line for _, line in block) + "\n")
    except Exception as exc:  # pyknp raises assorted errors on malformed input
        problems.append(Problem(f"{name}:{block[0][0]}", f"pyknp cannot read the sentence "
                                                         f"({type(exc).__name__}); skipped"))
        return None
    sid = blist.sid
    if not sid:
        problems.append(Problem(f"{name}:{block[0][0]}", "sentence without S-ID; skipped"))
        return None
    tags: list[Tag] = []
    bunsetsu_of = {}
    for b_index, bnst in enumerate(blist.bnst_list()):
        for ktag in bnst.tag_list():
            bunsetsu_of[ktag.tag_id] = b_index
    for index, ktag in enumerate(blist.tag_list()):
        line = tag_lines[index] if index < len(tag_lines) else block[0][0]
        rels = []
        for rel in ktag.features.rels or []:
            # "≒" marks an approximate antecedent of a known type.
            if rel.atype.rstrip("≒") not in KNOWN_REL_TYPES:
                problems.append(Problem(f"{name}:{line}", f"unknown rel type {rel.atype!r}; "
                                                          "rel skipped"))
                continue
            tid = rel.tid if isinstance(rel.tid, int) and rel.tid >= 0 else None
            rels.append((rel.atype, rel.target, rel.sid or None, tid, line))
        morphemes = [Morpheme(m.midasi, m.genkei, m.hinsi, m.bunrui, m.katuyou1)
                     for m in ktag.mrph_list()]
        tags.append(Tag(index, morphemes, rels, bunsetsu_of.get(ktag.tag_id, index)))
    return Sentence(sid, tags)


def predicate_lemma(tag: Tag) -> str | None:
    """The verb this tag predicates, or None: the first verb; a サ変 noun + する gives
    "noun+する". Passive and causative forms are left out: their cases differ."""
    ms = tag.morphemes
    for i, m in enumerate(ms):
        if m.pos == "動詞":
            if any(x.pos == "接尾辞" and x.lemma in ("れる", "られる", "せる", "させる")
                   for x in ms[i + 1:]):
                return None
            if m.lemma == "する" and i > 0 and ms[i - 1].subpos == "サ変名詞":
                return ms[i - 1].lemma + "する"
            if m.lemma in ("する", "なる", "ある", "いる", "できる"):
                return None  # light verbs: their frames say little
            return m.lemma
    return None


def compound_head(tags: list[Tag], index: int) -> tuple[str, str] | None:
    """The argument's noun: its tag's nouns, preceded by the all-noun tags of the same
    bunsetsu (KNP splits compounds: 行政 + 官, 幼児 + 教育)."""
    head = head_noun(tags[index])
    if head is None:
        return None
    word, cls = head
    i = index - 1
    while i >= 0 and tags[i].bunsetsu == tags[index].bunsetsu:
        prefix = head_noun(tags[i])
        if prefix is None or len(prefix[0]) != sum(len(m.surface) for m in tags[i].morphemes):
            break  # not a pure noun tag (it has particles etc.)
        word = prefix[0] + word
        i -= 1
    return word, cls


def head_noun(tag: Tag) -> tuple[str, str] | None:
    """(noun, class) of an argument tag: its run of nouns with prefixes and noun suffixes,
    e.g. 思想 + 家. None when the head is not a noun."""
    parts: list[str] = []
    cls = None
    for m in tag.morphemes:
        if m.pos == "名詞" or (m.pos == "接尾辞" and m.subpos.startswith("名詞性")) \
                or (m.pos == "接頭辞" and not parts):
            parts.append(m.lemma if m.pos != "接頭辞" else m.surface)
            if m.pos == "名詞":
                cls = m.subpos
        elif parts:
            break
    if not parts or cls is None:
        return None
    return "".join(parts), cls


def _content_noun(tags: list[Tag], index: int, blocklist: frozenset[str],
                  stats: Counter) -> tuple[str, str] | None:
    """The argument noun of a tag if it may fill a slot (filters of the module doc)."""
    noun = compound_head(tags, index)
    if noun is None:
        return None
    word, cls = noun
    if cls not in KEPT_NOUN_CLASSES or word in blocklist:
        stats[f"dropped:{cls}"] += 1
        return None
    return None if not_a_filler(word, stats) else (word, cls)


def not_a_filler(word: str, stats: Counter) -> bool:
    """Whether a noun is a pronoun, a counted thing (１２事業所) or relational (栗以外), so
    that it never fills a slot (counted in ``stats``). For KNP and raw text alike."""
    if word in PRONOUNS:
        stats["dropped:pronoun"] += 1
        return True
    if any(ch.isdigit() for ch in word):
        stats["dropped:numeral"] += 1
        return True
    if word.endswith(RELATIONAL_ENDINGS):
        stats["dropped:relational"] += 1
        return True
    return False


def extract(paths: Iterable[str | Path], blocklist: frozenset[str] = frozenset(),
            no_pairs: Counter | None = None
            ) -> tuple[dict[str, FrameCounts], Counter, list[Problem]]:
    """Case frames of every predicate in the KNP documents of ``paths``; also noun-class
    statistics. Nouns in ``blocklist`` (formal, vague, offensive...) never count as
    fillers. When ``no_pairs`` is given, it collects (head noun, ノ-modifier noun) pairs:
    駅の前 ... Raw text is read by rawtext.extract_raw into the same frames."""
    problems: list[Problem] = []
    frames: dict[str, FrameCounts] = defaultdict(FrameCounts)
    stats: Counter = Counter()
    for source, name, raw in read_files(paths, problems, (".knp",)):
        for _doc, sentences in _document(name, raw, problems):
            _extract_document(source, sentences, frames, stats, blocklist, no_pairs)
    return dict(frames), stats, problems


def _extract_document(source: str, sentences: list[Sentence], frames: dict[str, FrameCounts],
                      stats: Counter, blocklist: frozenset[str], no_pairs: Counter | None) -> None:
    by_sid = {s.sid: s for s in sentences}
    for sentence in sentences:
        stats["sentences"] += 1
        stats[f"sentences:gold:{source}"] += 1
        for tag in sentence.tags:
            if not tag.rels:
                continue
            lemma = predicate_lemma(tag)
            if lemma is None:
                if no_pairs is not None:
                    _collect_no(sentence, by_sid, tag, blocklist, stats, no_pairs)
                continue
            filled: dict[str, str] = {}
            cases_present: set[str] = set()
            counts = frames[lemma]
            for rtype, target, rsid, rid, _line in tag.rels:
                if rtype not in CASES:
                    continue
                cases_present.add(rtype)
                if rsid is None:  # exophora: not a noun
                    if target.rstrip("0123456789０１２３４５６７８９") in PERSON_EXOPHORA:
                        counts.person[rtype] += 1
                    stats["exophora"] += 1
                    continue
                ref = by_sid.get(rsid)
                if ref is None or rid is None or rid >= len(ref.tags):
                    stats["unresolved"] += 1
                    continue
                word_cls = _content_noun(ref.tags, rid, blocklist, stats)
                if word_cls is None:
                    own = head_noun(ref.tags[rid])
                    if own is not None and own[1] == "人名":
                        counts.person[rtype] += 1
                    continue
                filled.setdefault(rtype, word_cls[0])
            counts.add(source, cases_present, filled)


def read_text(text: str, name: str = "<input>") -> tuple[list[Sentence], list[Problem]]:
    """Parse KNP text (for tests and small inputs)."""
    problems: list[Problem] = []
    docs = list(_document(name, text.encode("utf-8"), problems))
    return (docs[0][1] if docs else []), problems


__all__ = ["extract", "read_documents", "read_text", "predicate_lemma", "head_noun", "CASES",
           "FrameCounts", "Problem"]


def _collect_no(sentence: Sentence, by_sid: dict, tag: Tag, blocklist: frozenset[str],
                stats: Counter, no_pairs: Counter) -> None:
    """(head, modifier) for a noun tag annotated with a ノ relation (駅 ← ノ: 東京)."""
    head = _content_noun(sentence.tags, tag.tag_id, blocklist, stats)
    if head is None:
        return
    for rtype, _target, rsid, rid, _line in tag.rels:
        if rtype != "ノ" or rsid is None or rid is None:
            continue
        ref = by_sid.get(rsid)
        if ref is None or rid >= len(ref.tags):
            continue
        modifier = _content_noun(ref.tags, rid, blocklist, stats)
        # KNP also marks ノ inside compounds (外国産 ← 外国): only separate nouns count.
        if modifier is not None and modifier[0] not in head[0] and head[0] not in modifier[0]:
            no_pairs[(head[0], modifier[0])] += 1

"""Predicate-argument tuples from raw Japanese text (``gen lexicon build-ja``).

The KNP corpora carry gold predicate-argument relations; raw text (JGLUE's JSON files,
plain text) does not, so each sentence is parsed with the project's rule-based bunsetsu
chunker (:mod:`.chunker`): a case-marked phrase depends on a predicate, and its particle
gives the case. GiNZA reached about the same accuracy as the chunker on JSICK's caption
sentences at ~50 sentences/s (see the chunker's docstring), which would take the build
past its time budget; the chunker parses JGLUE's 45,892 sentences in about 11 s. Against
the KNP gold relations (``bench/bench_ja_rawtext.py``: the 31,951 KNP sentences re-read as
plain text) 60 % of the (verb, case, noun) triples it keeps are gold triples and it finds
51 % of the gold arguments written before their case particle; part of the misses are
lemma differences (お待ちする where KNP has 待つ). Parsed tuples are therefore evidence for
a reader, not for generation: templates use a tuple only once it is read and listed in
curated/reviewed_tuples.yaml.

Only what the chunker reads reliably is kept: arguments marked by a case particle
(は and も topics are left out: their case is unknown), predicates in the active voice
(passives and causatives change the cases, 置いてある makes the object the subject), and
no light verbs. Each distinct sentence counts once, under the first source it was read
from, so captions repeated across JSTS and JNLI are not counted twice.

Inputs are files, folders or .tar.gz archives holding:

* ``.json`` / ``.jsonl``: one JSON object per line with text fields (``sentence1``,
  ``sentence2``, ``sentence``, ``question``, ``text``), or one JSON document in SQuAD form
  (``data[].paragraphs[].context``, where JSQuAD writes "title [SEP] paragraph");
* ``.txt``: plain UTF-8 text, split into sentences at 。！？ and line ends.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Iterable, Iterator

from .caseframes import FrameCounts, not_a_filler
from .corpusfiles import Problem, read_files

RAW_SUFFIXES = (".json", ".jsonl", ".txt")
TEXT_FIELDS = ("sentence1", "sentence2", "sentence", "question", "text")
PARTICLE_CASES = {"が": "ガ", "を": "ヲ", "に": "ニ", "で": "デ", "と": "ト", "から": "カラ",
                  "へ": "ヘ", "より": "ヨリ", "まで": "マデ"}
# Light and auxiliary verbs: their frames say little (as for the KNP corpora).
LIGHT_VERBS = frozenset({"する", "為る", "なる", "成る", "ある", "有る", "いる", "居る", "できる",
                         "出来る"})
_SENTENCE = re.compile(r"[^。！？!?\n]+[。！？!?]*")
MAX_SENTENCE = 400  # longer "sentences" are tables or lists, not prose


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.findall(text) if s.strip()]


def sentences_of(name: str, raw: bytes, problems: list[Problem]) -> list[str]:
    """The sentences of one raw-text file (see the module doc for the formats)."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        problems.append(Problem(name, "not UTF-8; skipped"))
        return []
    if not name.endswith((".json", ".jsonl")):
        return split_sentences(text)
    out: list[str] = []
    stripped = text.lstrip()
    if stripped.startswith("{") and '"data"' in stripped[:200]:
        try:
            doc = json.loads(text)
        except ValueError as exc:
            problems.append(Problem(name, f"not JSON ({exc.msg}); skipped"))
            return []
        for article in doc.get("data", []) if isinstance(doc, dict) else []:
            for paragraph in article.get("paragraphs", []) if isinstance(article, dict) else []:
                context = paragraph.get("context") if isinstance(paragraph, dict) else None
                if isinstance(context, str):
                    out.extend(split_sentences(context.split("[SEP]", 1)[-1]))
        return out
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            problems.append(Problem(f"{name}:{number}", f"not JSON ({exc.msg}); line skipped"))
            continue
        if not isinstance(obj, dict):
            continue
        for key in TEXT_FIELDS:
            value = obj.get(key)
            if isinstance(value, str):
                out.extend(split_sentences(value))
    return out


class NounReader:
    """The content noun of an argument phrase's head, or None: nouns (a prefix and noun
    suffixes allowed) ending in a common noun; no names, numerals, blocklisted words, nor
    what caseframes.not_a_filler drops. Cached: heads repeat."""

    def __init__(self, blocklist: frozenset[str], stats: Counter):
        from .conjugation import _tagger

        self._tagger = _tagger()
        self._blocklist = blocklist
        self._stats = stats
        self._cache: dict[str, str | None] = {}

    def __call__(self, head: str) -> str | None:
        if head in self._cache:
            return self._cache[head]
        noun = self._read(head)
        self._cache[head] = noun
        return noun

    def _read(self, head: str) -> str | None:
        if not head or len(head) > 20:
            return None
        words = list(self._tagger(head))
        if not words:
            return None
        for i, w in enumerate(words):
            f = w.feature
            if f.pos1 == "名詞" and f.pos2 in ("固有名詞", "数詞"):
                self._stats[f"dropped:{f.pos2}"] += 1
                return None
            if f.pos1 == "接頭辞" and i == 0:
                continue
            if f.pos1 == "接尾辞" and f.pos2 == "名詞的" and i > 0:
                continue
            if f.pos1 != "名詞":
                return None
        last = words[-1].feature
        if last.pos1 == "名詞" and last.pos2 != "普通名詞":
            return None
        if head in self._blocklist or words[-1].surface in self._blocklist:
            self._stats["dropped:blocklist"] += 1
            return None
        return None if not_a_filler(head, self._stats) else head


def extract_raw(paths: Iterable, frames: dict[str, FrameCounts], stats: Counter,
                problems: list[Problem], blocklist: frozenset[str] = frozenset(),
                person_nouns: frozenset[str] = frozenset()) -> None:
    """Add the tuples of the raw-text files in ``paths`` to ``frames``. A ガ phrase
    headed by a person noun (男性, 子供) is person evidence, as a named person is in the
    KNP corpora: it is counted apart and not put into the tuple."""
    from .chunker import Chunker

    chunker = Chunker()
    nouns = NounReader(blocklist, stats)
    seen: set[str] = set()
    for source, name, raw in read_files(paths, problems, RAW_SUFFIXES):
        for sentence in sentences_of(name, raw, problems):
            if sentence in seen or len(sentence) > MAX_SENTENCE:
                continue
            seen.add(sentence)
            stats["sentences"] += 1
            stats[f"sentences:parsed:{source}"] += 1
            for lemma, args, cases in _tuples(chunker.analyse(sentence), nouns):
                counts = frames.setdefault(lemma, FrameCounts())
                if args.get("ガ") in person_nouns:
                    del args["ガ"]
                    counts.person["ガ"] += 1
                counts.add(source, cases, args)


def _tuples(analysis, nouns: NounReader) -> Iterator[tuple[str, dict[str, str], set[str]]]:
    """(lemma, {case: noun}, cases present) for each active, non-light predicate."""
    by_predicate: dict[int, dict[str, str]] = {}
    cases_of: dict[int, set[str]] = {}
    for argument in analysis.arguments:
        case = PARTICLE_CASES.get(argument.particle)
        if case is None:
            continue
        cases_of.setdefault(argument.predicate, set()).add(case)
        noun = nouns(argument.head)
        if noun is not None:
            by_predicate.setdefault(argument.predicate, {}).setdefault(case, noun)
    for pid, predicate in sorted(analysis.predicates.items()):
        if predicate.voice != "active" or predicate.lemma in LIGHT_VERBS:
            continue
        if not all("\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff"
                   for ch in predicate.lemma):
            continue  # Latin letters, digits, symbols: not a verb the lexicon can use
        yield predicate.lemma, dict(by_predicate.get(pid, {})), cases_of.get(pid, set())

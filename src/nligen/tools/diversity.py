"""Lexical diversity of a generated set (part of ``gen audit`` and of the dataset card).

A set that repeats its words and clauses invites lexical shortcuts and says little about
generalisation. Measured per set:

* **content lemmas**: distinct lemmas in premises and hypotheses. Japanese text is
  analysed with fugashi + unidic-lite and nouns and verbs count, proper nouns (the agents'
  names) and numerals (time expressions) left out; other text counts word forms (split at
  whitespace and punctuation, case kept), since no lemmatiser is at hand for every language;
* **type/token ratio** of the same units;
* the share of problems that use the most frequent **clause** (a verb with its arguments:
  住む + 島; for WOGLI the subject, verb and object lemmas), **verb** and **noun**, read
  from the records' ``slots``. A problem counts each once. Records without slots give no
  clause, verb or noun figures.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Iterable, Mapping, Sequence

CASE_KEYS = ("ga", "wo", "ni", "no", "de", "to", "he", "kara", "made", "yori")
_WORD = re.compile(r"\w+", re.UNICODE)
_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
JA_METHOD = "fugashi + unidic-lite lemmas of nouns and verbs (no proper nouns, no numerals)"
OTHER_METHOD = "word forms (whitespace and punctuation, case kept)"


def content_units(record: Mapping[str, Any]) -> tuple[tuple | None, set[str], set[str]]:
    """(clause, verbs, nouns) of a record, from its ``slots``.

    A slot value with a ``lemma`` and no ``noun`` field is a verb (a Japanese predicate
    carries its case arguments as fields ``wo``, ``ni``...: those are nouns); one with a
    ``noun`` field is a noun phrase (names, ``kind: name``, are not nouns). The clause is
    every lemma-bearing slot with its case arguments, in slot-name order."""
    slots = record.get("slots")
    if not isinstance(slots, Mapping):
        return None, set(), set()
    clause: list[tuple] = []
    verbs: set[str] = set()
    nouns: set[str] = set()
    for name in sorted(slots, key=str):
        value = slots[name]
        if not isinstance(value, Mapping) or not isinstance(value.get("lemma"), str):
            continue
        lemma = value["lemma"]
        args = tuple((c, str(value[c])) for c in CASE_KEYS if isinstance(value.get(c), str))
        clause.append((str(name), lemma, *args))
        if "noun" in value:
            if value.get("kind") != "name":
                nouns.add(lemma)
        else:
            verbs.add(lemma)
            nouns.update(a for _, a in args)
    return (tuple(clause) or None), verbs, nouns


class _JapaneseLemmas:
    def __init__(self) -> None:
        from ..lang.ja.conjugation import _tagger

        self._tagger = _tagger()
        self._cache: dict[str, list[str]] = {}

    def __call__(self, text: str) -> list[str]:
        out = self._cache.get(text)
        if out is None:
            out = []
            for word in self._tagger(text):
                f = word.feature
                if f.pos1 in ("名詞", "動詞") and f.pos2 not in ("固有名詞", "数詞"):
                    out.append(f.lemma or word.surface)
            self._cache[text] = out
        return out


def diversity(texts: Iterable[tuple[str, str]], units: Sequence[tuple[tuple | None, set, set]]
              ) -> dict[str, Any]:
    """The diversity figures of problems given as (premise, hypothesis) texts and their
    content units (see content_units), in the same order."""
    japanese: _JapaneseLemmas | None = None
    tokens: Counter = Counter()
    languages: set[str] = set()
    problems = 0
    for premise, hypothesis in texts:
        problems += 1
        for text in (premise, hypothesis):
            if _JAPANESE.search(text):
                languages.add("ja")
                if japanese is None:
                    japanese = _JapaneseLemmas()
                tokens.update(japanese(text))
            else:
                languages.add("other")
                tokens.update(_WORD.findall(text))
    total = sum(tokens.values())
    out: dict[str, Any] = {
        "problems": problems,
        "method": "; ".join(m for lang, m in (("ja", JA_METHOD), ("other", OTHER_METHOD))
                            if lang in languages),
        "content_lemmas": len(tokens),
        "tokens": total,
        "type_token_ratio": round(len(tokens) / total, 4) if total else None,
    }
    counters = {"clause": Counter(), "verb": Counter(), "noun": Counter()}
    with_slots = 0
    for clause, verbs, nouns in units:
        if clause is None:
            continue
        with_slots += 1
        counters["clause"][clause] += 1
        counters["verb"].update(verbs)
        counters["noun"].update(nouns)
    out["problems_with_slots"] = with_slots
    for kind, counter in counters.items():
        if not counter or not problems:
            out[kind] = None
            continue
        key, count = min(counter.items(), key=lambda kv: (-kv[1], repr(kv[0])))
        out[kind] = {"distinct": len(counter), "top": _show(kind, key), "problems": count,
                     "share": round(count / problems, 4)}
    return out


def _show(kind: str, key: Any) -> str:
    if kind != "clause":
        return str(key)
    parts = []
    for _slot, lemma, *args in key:
        parts.append(" + ".join([lemma, *(a for _, a in args)]))
    return "; ".join(parts)


def markdown(result: Mapping[str, Any]) -> list[str]:
    """The diversity figures as Markdown lines (audit report and dataset card)."""
    lines = [f"Distinct content lemmas: **{result['content_lemmas']:,}** ({result['method']}); "
             f"type/token ratio {result['type_token_ratio']}.", ""]
    rows = []
    for kind in ("clause", "verb", "noun"):
        d = result.get(kind)
        if d:
            rows.append(f"| {kind} | {d['distinct']:,} | {d['top']} | {d['problems']:,} | "
                        f"{100 * d['share']:.2f} % |")
    if rows:
        lines += ["| most frequent | distinct | which | problems | share |",
                  "|---|---|---|---|---|", *rows, ""]
    return lines

"""Benchmark: how well the raw-text path of ``gen lexicon build-ja`` (the nligen chunker)
finds predicate-argument tuples, measured against the gold relations of the KNP corpora.

Each KNP sentence is re-read as plain text, as a JGLUE sentence would be, and the
(verb, case, noun) triples the chunker path keeps are compared with the sentence's gold
triples (arguments inside the same sentence; exophora and arguments in other sentences
cannot be found in one sentence's text and are left out of recall).

* precision: share of the chunker's triples that are gold triples of the sentence;
* recall: share of the gold triples the chunker finds; "overt" recall counts only gold
  arguments written right before their case particle (が, を, に, ...), the only ones the
  raw-text path tries to read (topics with は/も, relative clauses and zero pronouns are
  out of its reach by design).

    python bench/bench_ja_rawtext.py [--limit N]

Not a test: a measurement quoted in notes. Figures depend only on the corpora and the code.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter


def main() -> int:
    from nligen.data import data_root
    from nligen.lang.ja.build import default_corpora
    from nligen.lang.ja.caseframes import CASES, compound_head, predicate_lemma, read_documents
    from nligen.lang.ja.chunker import Chunker
    from nligen.lang.ja.rawtext import PARTICLE_CASES, NounReader, _tuples

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=0, help="sentences to read (0: all)")
    args = parser.parse_args()
    knp = [p for p in default_corpora(data_root()) if p.name.endswith("-knp.tar.gz")]
    case_particle = {case: particle for particle, case in PARTICLE_CASES.items()}
    chunker = Chunker()
    stats: Counter = Counter()
    nouns = NounReader(frozenset(), stats)
    counts: Counter = Counter()
    problems: list = []
    start = time.perf_counter()
    for _name, sentences in read_documents(knp, problems):
        for sentence in sentences:
            if args.limit and counts["sentences"] >= args.limit:
                break
            counts["sentences"] += 1
            text = "".join(m.surface for t in sentence.tags for m in t.morphemes)
            gold: set[tuple[str, str, str]] = set()
            overt: set[tuple[str, str, str]] = set()
            for tag in sentence.tags:
                lemma = predicate_lemma(tag)
                if lemma is None:
                    continue
                for rtype, _target, rsid, rid, _line in tag.rels:
                    if rtype not in CASES or rsid != sentence.sid or rid is None \
                            or rid >= len(sentence.tags):
                        continue
                    head = compound_head(sentence.tags, rid)
                    if head is None:
                        continue
                    triple = (lemma, rtype, head[0])
                    gold.add(triple)
                    last = sentence.tags[rid].morphemes[-1]
                    if last.pos == "助詞" and last.surface == case_particle.get(rtype):
                        overt.add(triple)
            found = {(lemma, case, noun)
                     for lemma, filled, _cases in _tuples(chunker.analyse(text), nouns)
                     for case, noun in filled.items()}
            counts["gold"] += len(gold)
            counts["overt"] += len(overt)
            counts["found"] += len(found)
            counts["correct"] += len(found & gold)
            counts["overt_found"] += len(found & overt)
    elapsed = time.perf_counter() - start
    precision = counts["correct"] / max(counts["found"], 1)
    recall = counts["correct"] / max(counts["gold"], 1)
    overt_recall = counts["overt_found"] / max(counts["overt"], 1)
    print(f"{counts['sentences']} KNP sentences re-read as raw text in {elapsed:.1f} s")
    print(f"chunker triples: {counts['found']}, gold triples in the sentence: {counts['gold']} "
          f"(overtly case-marked: {counts['overt']})")
    print(f"precision {precision:.3f}  recall {recall:.3f}  overt recall {overt_recall:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

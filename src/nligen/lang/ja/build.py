"""``gen lexicon build-ja``: the Japanese case-frame lexicon from KNP corpora and raw text.

Reads the corpora (default: the Kyoto University Wikipedia Annotated Corpus and Web
Document Leads Corpus, with gold predicate-argument relations, and JGLUE's caption,
Wikipedia and commonsense-question sentences as raw text, all in ../shared/corpora),
extracts case frames (caseframes.py for KNP, rawtext.py for raw text), keeps verbs UniDic
can conjugate and that pass the thresholds, and writes ``lexicons/ja/caseframes.json``
with provenance: every verb, filler and tuple carries its evidence, the count per source,
and the metadata says which sources are gold and which parsed. The same inputs give the
same bytes, offline.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path
from typing import Any, Iterable

from ...errors import LexiconError
from .caseframes import CASES, extract
from .conjugation import ConjugationError, analyse_lemma
from .rawtext import extract_raw

BUILD_COMMAND = "gen lexicon build-ja"
# Every verb seen at least once is kept: generation uses a verb only once a reader has
# classified it (curated/verb_classes.yaml) and its tuples (curated/reviewed_tuples.yaml).
MIN_VERB_COUNT = 1
# Auxiliary-like and honorific verbs: frequent in web text, but their frames describe the
# construction, not an event (いう as in という; くださる, いただく as politeness).
EXCLUDED_VERBS = {
    "いう", "くださる", "下さる", "いただく", "頂く", "いたす", "致す", "おる", "まいる", "参る",
    "申し上げる", "存じる", "みる", "しまう", "おく", "くる", "いく", "もらう", "あげる", "やる",
}


def default_corpora(repo: Path) -> list[Path]:
    shared = repo.parent / "shared" / "corpora"
    return [shared / "wac-knp.tar.gz", shared / "kwdlc-knp.tar.gz", shared / "jglue-v1.3.tar.gz"]


def _with_evidence(counter, evidence) -> list[list[Any]]:
    """[[key, count, {source: count}], ...] by falling count; ``evidence`` gives a key's
    Counter of sources."""
    return [[k, v, dict(sorted(evidence(k).items()))]
            for k, v in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))]


def load_person_nouns(lexicon_dir: Path) -> frozenset[str]:
    """Nouns with the feature ``person`` in ja/curated/noun_features.yaml (if shipped): a
    raw-text ガ phrase headed by one is evidence of a human agent."""
    from ...datafiles import load_yaml

    path = lexicon_dir / "ja" / "curated" / "noun_features.yaml"
    if not path.is_file():
        return frozenset()
    data = load_yaml(path.read_text(encoding="utf-8"), str(path), LexiconError)
    return frozenset(e["noun"] for e in data.get("entries", [])
                     if "person" in (e.get("features") or []))


def corpus_sources(stats: Counter) -> dict[str, dict[str, Any]]:
    """source name -> how its tuples were found (gold KNP relations or parsed raw text) and
    how many sentences it gave, from the extraction's ``sentences:gold|parsed:SOURCE``
    counts."""
    out: dict[str, dict[str, Any]] = {}
    for key, n in stats.items():
        kind, _, source = key.partition(":")[2].partition(":")
        if key.startswith("sentences:") and source:
            out[source] = {"analysis": "gold (KNP <rel> tags)" if kind == "gold"
                           else "parsed (nligen chunker)", "sentences": n}
    return dict(sorted(out.items()))


def load_blocklist(lexicon_dir: Path) -> frozenset[str]:
    from ...datafiles import load_yaml

    path = lexicon_dir / "ja" / "curated" / "filler_blocklist.yaml"
    try:
        data = load_yaml(path.read_text(encoding="utf-8"), str(path), LexiconError)
    except OSError as exc:
        raise LexiconError(f"cannot read: {exc.strerror}", str(path)) from None
    return frozenset(e["word"] for e in data["entries"])


def build_entries(corpora: Iterable[Path], blocklist: frozenset[str] = frozenset(),
                  no_pairs: Counter | None = None, person_nouns: frozenset[str] = frozenset()
                  ) -> tuple[list[dict], dict, list]:
    corpora = list(corpora)
    frames, stats, problems = extract(corpora, blocklist, no_pairs)
    extract_raw(corpora, frames, stats, problems, blocklist, person_nouns)
    entries = []
    skipped: dict[str, int] = {"rare": 0, "excluded": 0, "not conjugable": 0, "no nouns": 0}
    for lemma in sorted(frames):
        counts = frames[lemma]
        if lemma in EXCLUDED_VERBS:
            skipped["excluded"] += 1
            continue
        if counts.count < MIN_VERB_COUNT:
            skipped["rare"] += 1
            continue
        try:
            info = analyse_lemma(lemma)
        except ConjugationError:
            skipped["not conjugable"] += 1
            continue
        if not counts.tuples:
            skipped["no nouns"] += 1
            continue
        entries.append({
            "lemma": lemma,
            "count": counts.count,
            "ctype": info.ctype,
            "frames": [[list(cases), n] for cases, n in
                       sorted(counts.frames.items(), key=lambda kv: (-kv[1], kv[0]))],
            "slots": {case: {"nouns": _with_evidence(
                                 counts.nouns[case],
                                 lambda noun, case=case: counts.noun_sources[(case, noun)]),
                             "person": counts.person.get(case, 0)}
                      for case in CASES if counts.nouns.get(case) or counts.person.get(case)},
            "tuples": [[dict(t), k, sources] for t, k, sources in
                       _with_evidence(counts.tuples, counts.tuple_sources.__getitem__)],
        })
    return entries, {"stats": dict(sorted(stats.items())), "skipped": skipped}, problems


def build(lexicon_dir: Path, corpora: list[Path], check_only: bool = False) -> dict[str, Any]:
    from ...lexicon import compile_lexicons
    from ...writers import write_files_atomically
    from ..de.build import dump_lexicon

    for c in corpora:
        if not c.exists():
            raise LexiconError("no such corpus file or folder", str(c))
    blocklist_path = lexicon_dir / "ja" / "curated" / "filler_blocklist.yaml"
    blocklist = load_blocklist(lexicon_dir) if blocklist_path.is_file() else frozenset()
    no_pairs: Counter = Counter()
    person_nouns = load_person_nouns(lexicon_dir)
    entries, info, problems = build_entries(corpora, blocklist, no_pairs, person_nouns)
    no_entries = _no_modifier_entries(no_pairs)
    meta = {
        "description": "Japanese verbs with their case frames, slot fillers and observed "
                       "argument tuples, extracted from gold predicate-argument annotations "
                       "and from parsed raw text. Every filler and tuple is [value, count, "
                       "{source: count}]; 'sources' says how each source was analysed.",
        "source": "Kyoto University Wikipedia Annotated Corpus and Kyoto University Web "
                  "Document Leads Corpus (KNP format, gold <rel> tags), read with pyknp; "
                  "JGLUE v1.3 (Kurihara et al. 2022: JSTS and JNLI captions, JSQuAD "
                  "Wikipedia paragraphs, JCommonsenseQA questions), parsed with the nligen "
                  "chunker; conjugation types from UniDic (unidic-lite).",
        "license": "CC BY-SA 4.0",
        "rebuild": BUILD_COMMAND,
        "sources": corpus_sources(info["stats"]),
        "inputs": {**{c.name: hashlib.sha256(c.read_bytes()).hexdigest() if c.is_file()
                      else "folder" for c in corpora},
                   "filler_blocklist": hashlib.sha256(blocklist_path.read_bytes()).hexdigest()
                   if blocklist_path.is_file() else None,
                   # only the person nouns shape the build: other features are read at
                   # generation, so tagging a noun does not force a rebuild
                   "person_nouns": hashlib.sha256("\n".join(sorted(person_nouns)).encode(
                       "utf-8")).hexdigest()},
        "thresholds": {"min_verb_count": MIN_VERB_COUNT, "cases": list(CASES),
                       "filler_blocklist": "lexicons/ja/curated/filler_blocklist.yaml",
                       "excluded_verbs": sorted(EXCLUDED_VERBS)},
        "counts": {"verbs": len(entries), **info["stats"]},
        "skipped": info["skipped"],
        "problems": len(problems),
    }
    meta["usable"] = _usable_counts(lexicon_dir, meta, entries)
    no_meta = {
        "description": "Noun-ノ-noun pairs (the modifier of a head noun: 東京の駅), for "
                       "templates with a ノ-modified argument (np_1 の np_2 を V).",
        "source": meta["source"], "license": meta["license"], "rebuild": BUILD_COMMAND,
        "inputs": meta["inputs"],
        "counts": {"heads": len(no_entries), "pairs": sum(len(e["modifiers"]) for e in no_entries)},
    }
    compiled: list = []
    if not check_only:
        write_files_atomically(lexicon_dir / "ja", {
            "caseframes.json": dump_lexicon(meta, entries),
            "no_modifiers.json": dump_lexicon(no_meta, no_entries)})
        # the curated YAML files, parsed once here rather than at every run
        compiled = compile_lexicons(lexicon_dir / "ja" / "curated")
    return {"verbs": len(entries), "no_heads": len(no_entries), "compiled": len(compiled),
            "problems": [str(p) for p in problems], **info}


def _no_modifier_entries(pairs: Counter) -> list[dict]:
    heads: dict[str, list] = {}
    for (head, modifier), n in pairs.items():
        heads.setdefault(head, []).append([modifier, n])
    return [{"head": head, "modifiers": sorted(mods, key=lambda m: (-m[1], m[0]))}
            for head, mods in sorted(heads.items())]


def _usable_counts(lexicon_dir: Path, meta: dict, entries: list[dict]) -> dict[str, Any]:
    """What generation can use of this lexicon, with the curated classes and names in
    lexicon_dir: the numbers the lexicon's own metadata states."""
    from ...lexicon import Lexicon, LexiconSet
    from .lexicon import JaLexicon

    lexicons = LexiconSet([lexicon_dir])
    lexicons.add(Lexicon("ja/caseframes", lexicon_dir, meta, entries, ""))
    stats = JaLexicon.load(lexicons).stats()
    return {k: stats[k] for k in ("usable_verbs", "names", "classes")}

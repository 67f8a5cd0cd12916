"""WOGLI family glue: generation entry point, WOGLI's TSV layout, and ``derive``.

``derive`` turns released (or any) WOGLI-style premises into their hypotheses: the
premise is analysed into noun phrases and a verb by the German layer, then the family's
own templates render the hypotheses, so generation and derivation cannot drift apart.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Mapping, Sequence

from ..datafiles import printable
from ..errors import AnalysisError, NligenError, UsageError
from ..writers import TsvFormat

# Template of each set, and the suffix its pattern names carry (as in the WOGLI release).
SET_TEMPLATES = {
    "wogli": "wogli.accusative", "os_hard": "wogli.accusative",
    "p_subject": "wogli.p_subject", "p_subject_os_hard": "wogli.p_subject",
    "dative": "wogli.dative", "dative_os_hard": "wogli.dative",
    "ditransitive": "wogli.ditransitive", "ditransitive_os_hard": "wogli.ditransitive",
}
PATTERN_SUFFIX = {"wogli.dative": "_dative", "wogli.ditransitive": "_ditrans"}
FRAME_TEMPLATE = {("acc",): "wogli.accusative", ("dat",): "wogli.dative",
                  ("dat", "acc"): "wogli.ditransitive"}
LABEL_CODES = {"non-entailment": 1, "entailment": 2}
_FRAME_NAMES = {("acc",): "an accusative object", ("dat",): "a dative object",
                ("dat", "acc"): "a dative and an accusative object"}

MAIN_COLUMNS = ("premise", "hypothesis", "label", "pattern", "verb_lemma", "p_subject",
                "p_object", "p_subject_det", "p_object_det")
P_SUBJECT_COLUMNS = ("premise", "hypothesis", "label", "pattern", "verb_lemma")
DITRANSITIVE_COLUMNS = ("premise", "hypothesis", "label", "pattern", "verb_lemma",
                        "p_subject", "p_dir_object", "p_indir_object")


def _noun_and_det(slot: Mapping[str, Any], case: str) -> tuple[str, str]:
    phrase = slot.get("forms", {}).get(case, slot.get("text", ""))
    if slot.get("determiner"):
        det, _, noun = phrase.partition(" ")
        return noun, det.lower()
    return phrase, ""


def _wogli_columns(records: Sequence[Mapping[str, Any]]) -> list[str]:
    templates = {r.get("template") for r in records}
    if templates == {"wogli.ditransitive"}:
        return list(DITRANSITIVE_COLUMNS)
    if templates == {"wogli.p_subject"}:
        return list(P_SUBJECT_COLUMNS)
    cols = list(MAIN_COLUMNS)
    if "wogli.ditransitive" in templates:
        cols += ["p_dir_object", "p_indir_object"]
    return cols


def _wogli_row(rec: Mapping[str, Any]) -> dict[str, Any]:
    row = {"premise": rec["premise"], "hypothesis": rec["hypothesis"],
           "label": LABEL_CODES.get(rec["label"], rec["label"]), "pattern": rec.get("pattern"),
           "verb_lemma": rec.get("verb_lemma")}
    slots = rec.get("slots", {})
    if "S" in slots:
        row["p_subject"], row["p_subject_det"] = _noun_and_det(slots["S"], "nom")
    if rec.get("template") == "wogli.ditransitive":
        row["p_indir_object"], _ = _noun_and_det(slots["IO"], "dat")
        row["p_dir_object"], _ = _noun_and_det(slots["DO"], "acc")
    elif "O" in slots:
        case = "dat" if rec.get("template") == "wogli.dative" else "acc"
        row["p_object"], row["p_object_det"] = _noun_and_det(slots["O"], case)
    return row


TSV_FORMATS = {"wogli-tsv": TsvFormat("wogli-tsv", _wogli_columns, _wogli_row)}


def normalise_patterns(template_set, sets: Sequence[str] | None,
                       patterns: Sequence[str] | None) -> list[str] | None:
    """Accept pattern names with or without the set's suffix (``_dative``, ``_ditrans``)."""
    if not patterns:
        return None
    wanted_sets = list(sets) if sets else [template_set.family.get("default_set", "wogli")]
    suffixes = {PATTERN_SUFFIX.get(SET_TEMPLATES.get(s, ""), "") for s in wanted_sets}
    out = []
    for p in patterns:
        if any(p.endswith(sfx) and sfx for sfx in suffixes) or suffixes == {""}:
            out.append(p)
        else:
            out.extend(p + sfx for sfx in sorted(suffixes))
    return out


# The paper's five evaluation sets (main set and the four generalization sets).
PAPER_SETS = ("wogli", "os_hard", "p_subject", "dative", "ditransitive")


def generate_all(**kwargs) -> dict:
    """Every paper set, each generated on its own (same seed and options): {set: Dataset}."""
    return {name: generate(sets=[name], **kwargs) for name in PAPER_SETS}


def generate(*, patterns=None, sets=None, n=None, seed=0, split=None, split_options=None,
             command=None, arguments=None, lexicons=None, balance="cell", match=None):
    """Library call behind ``gen wogli``. ``match``: a :class:`nligen.matching.Match`
    (:func:`read_match`), the composition of a released file to make afresh."""
    from ..api import generate as api_generate
    from . import load_family

    template_set = load_family("wogli")
    if match is not None and patterns:
        raise UsageError("a matched set takes its patterns from the --match file",
                         "--pattern")
    ds = api_generate(
        template_set, lexicons=lexicons, n=n, seed=seed, sets=sets,
        variants=normalise_patterns(template_set, sets, patterns), split=split,
        split_options=split_options, family="wogli", command=command, arguments=arguments,
        tsv_formats=TSV_FORMATS, variant_option="--pattern", balance=balance,
        quotas=match.quotas if match is not None else None,
        excluded=match.excluded if match is not None else None,
        provenance=match.provenance if match is not None else None)
    ds.recipe = (generate, dict(patterns=patterns, sets=sets, n=n, seed=seed, split=split,
                                split_options=split_options, command=command,
                                arguments=arguments, lexicons=lexicons, balance=balance,
                                match=match))
    return ds


LABEL_NAMES = {str(code): label for label, code in LABEL_CODES.items()}
MATCH_COLUMNS = ("label", "pattern")


def read_match(path, sets=None, exclude=(), template_set=None):
    """The cells of a file in WOGLI's format (premise, hypothesis, label 1 =
    non-entailment / 2 = entailment, pattern, ...): the problems per (pattern, label)
    of one set's template; with the pairs of it and of ``exclude`` files, which the set
    must not repeat (:class:`nligen.matching.Match`)."""
    from ..matching import build_match, count_cells, read_table
    from ..plans import CellQuota
    from . import load_family

    template_set = template_set or load_family("wogli")
    if sets and len(sets) > 1:
        raise UsageError("a WOGLI file is matched within one set", "--set")
    set_name = sets[0] if sets else template_set.family.get("default_set", "wogli")
    template_id = SET_TEMPLATES.get(set_name)
    if template_id is None:
        raise UsageError(f"unknown set {set_name!r} (known: {', '.join(SET_TEMPLATES)})",
                         "--set")
    template = template_set.by_id(template_id)
    known = [name for name, _ in template.variant_names()]
    table = read_table(path, MATCH_COLUMNS)
    rows = []
    for line, row in table.rows:
        where = f"{path}:{line}"
        code, pattern = row["label"].strip(), row["pattern"].strip()
        label = LABEL_NAMES.get(code) or (code if code in LABEL_CODES else None)
        if label is None:
            raise UsageError(f"unknown cell: label {code!r} (known: 1 = non-entailment, "
                             "2 = entailment)", where)
        name = (normalise_patterns(template_set, [set_name], [pattern]) or [pattern])[0]
        if name not in known:
            raise UsageError(f"unknown cell: pattern {pattern!r} is not one of set "
                             f"{set_name}'s ({len(known)} patterns; `gen list wogli`)", where)
        rows.append(((known.index(name), label),
                     CellQuota(template_id, name, label, 1, where=f"{pattern}, label {code}")))
    quotas = count_cells(rows)
    return build_match(table, quotas, exclude)


# -- derive -----------------------------------------------------------------------------

class Deriver:
    """Derives H1/H2/H3 hypotheses from WOGLI-style premises."""

    def __init__(self, template_set=None, lexicons=None):
        from ..lang.de.analysis import ClauseAnalyser, WordIndex
        from ..lexicon import LexiconSet
        from . import load_family

        self.template_set = template_set or load_family("wogli")
        if lexicons is None:
            from ..data import lexicons_dir

            lexicons = LexiconSet([lexicons_dir()])
        self.index = WordIndex.from_lexicons(lexicons)
        self.analyser = ClauseAnalyser(self.index, fallback=True)

    def derive(self, premise: str, pattern: str | None = None, verb_lemma: str | None = None,
               set_name: str | None = None) -> dict[str, Any]:
        from ..lang.de.analysis import np_type_of
        from ..lang.de.morphology import marked_order_is_disambiguated

        if not premise or not premise.strip():
            raise AnalysisError("empty premise")
        readings = self.analyser.analyse(premise, verb_lemma or None,
                                         slots=("S", "O", "DO"))
        if not readings:
            raise AnalysisError(_why_no_reading(self.analyser, premise, verb_lemma))
        frame = _wanted_frame(pattern, set_name)
        if frame is not None:
            readings = [r for r in readings if r.frame == frame]
            if not readings:
                raise AnalysisError(f"no reading with {'+'.join(frame)} object(s) for this verb")
        else:
            lemmas = {r.verb.lemma for r in readings}
            frames = set().union(*(self.index.frames.get(lem, set()) for lem in lemmas))
            if frames:  # a verb of our lexicons: its case frame decides
                readings = [r for r in readings if r.frame in frames]
                if not readings:
                    wanted = " or ".join(_FRAME_NAMES[f] for f in sorted(frames))
                    raise AnalysisError(f"'{'/'.join(sorted(lemmas))}' takes {wanted}, "
                                        "which this premise does not have")
            elif any(r.frame == ("acc",) for r in readings):
                readings = [r for r in readings if r.frame == ("acc",)]
        if pattern:
            base = _strip_suffix(pattern)
            matching = [r for r in readings if _pattern_matches(base, r, np_type_of)]
            if not matching:
                got = sorted({_pattern_of(r, np_type_of) for r in readings})
                raise AnalysisError(f"premise does not fit pattern {pattern!r} (reads as "
                                    f"{', '.join(got)})")
            readings = matching
        template = self.template_set.by_id(FRAME_TEMPLATE[readings[0].frame])
        if readings[0].subject.np.kind == "pronoun" and template.id == "wogli.accusative":
            template = self.template_set.by_id("wogli.p_subject")
        outputs = {}
        for r in readings:
            obj = r.objects[0]
            # Same lemma is fine ("Diese Lehrerinnen nennen dieser Lehrerin ..." in the
            # released data); the same noun phrase is not: the swap would change nothing.
            if r.subject.np.forms == obj.np.forms:
                raise AnalysisError("subject and object are the same noun phrase: swapping "
                                    "them changes nothing")
            if not marked_order_is_disambiguated(r.subject.np, obj.np, obj.case):
                continue
            hyps = self._render(template, r)
            texts = {}
            for h in hyps:  # the family's distinct_hypotheses check, applied here too
                if texts.get(h["text"], h["label"]) != h["label"]:
                    raise AnalysisError(f"two hypotheses with different labels read "
                                        f"{h['text']!r}")
                texts[h["text"]] = h["label"]
            outputs.setdefault(tuple((h["type"], h["text"]) for h in hyps), (r, hyps))
        if not outputs:
            raise AnalysisError("morphology does not disambiguate the object-first order "
                                "(an excluded pattern)")
        if len(outputs) > 1:
            raise AnalysisError(f"ambiguous premise: {len(outputs)} readings give different "
                                "hypotheses; give its pattern or verb_lemma")
        reading, hyps = next(iter(outputs.values()))
        suffix = PATTERN_SUFFIX.get(template.id, "")
        if not pattern and reading.subject.np.kind != "pronoun":
            pattern = _pattern_of(reading, np_type_of) + suffix
        # A pronoun subject stands for several noun-phrase types: without a given pattern
        # it has none (null).
        return {"premise": premise, "pattern": pattern, "hypotheses": hyps}

    def _render(self, template, reading) -> list[dict[str, str]]:
        names = [s for s in template.slots]
        context = {"variant": ""}
        subject_slot, verb_slot, *object_slots = names
        context[subject_slot] = reading.subject.np
        context[verb_slot] = reading.verb
        for slot, obj in zip(object_slots, reading.objects):
            context[slot] = obj.np
        out = []
        for h in template.hypotheses:
            text, _ = h.text.render(context)
            out.append({"type": h.type, "label": h.rule.fixed, "text": text})
        return out

    def derive_rows(self, rows: Iterable[Mapping[str, str]], set_name: str | None = None
                    ) -> Iterator[dict[str, Any]]:
        for row in rows:
            premise = row.get("premise") or ""
            pattern = row.get("pattern") or None
            try:
                yield self.derive(premise, pattern, row.get("verb_lemma") or None, set_name)
            except NligenError as exc:
                yield {"premise": premise, "pattern": pattern, "error": exc.what}


def read_premise_table(text: str, where: str) -> list[dict[str, str]]:
    """Rows of a TSV with a header holding at least a ``premise`` column (tab-separated,
    no quoting, as the WOGLI release; a row with too few cells gets empty ones)."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise UsageError("empty input: expected a TSV header with a 'premise' column", where)
    header = lines[0].split("\t")
    if "premise" not in header:
        raise UsageError(f"no 'premise' column in the header (columns: "
                         f"{printable(', '.join(header))[:200]})", where)
    return [dict(zip(header, line.split("\t") + [""] * len(header))) for line in lines[1:]]


def _strip_suffix(pattern: str) -> str:
    for sfx in ("_dative", "_ditrans"):
        if pattern.endswith(sfx):
            return pattern[: -len(sfx)]
    return pattern


def _wanted_frame(pattern: str | None, set_name: str | None) -> tuple[str, ...] | None:
    if pattern and pattern.endswith("_dative"):
        return ("dat",)
    if pattern and pattern.endswith("_ditrans"):
        return ("dat", "acc")
    if set_name:
        tid = SET_TEMPLATES.get(set_name)
        if tid is None:
            raise UsageError(f"unknown set {set_name!r} (known: {', '.join(SET_TEMPLATES)})", "--set")
        return {v: k for k, v in FRAME_TEMPLATE.items()}.get(
            "wogli.accusative" if tid == "wogli.p_subject" else tid)
    if pattern:
        return ("acc",)
    return None


# A pronoun subject stands for a noun phrase of one of these pattern types.
_PRONOUN_TYPES = {"sing_masc": {"sing_masc", "pnoun"}, "sing_fem": {"sing_fem", "pnoun"},
                  "sing_neut": {"sing_neut"}, "plural": {"plural_masc", "plural_fem"}}


def _pattern_of(reading, np_type_of) -> str:
    return f"{reading.subject.np_type}_v_{reading.objects[0].np_type}"


def _pattern_matches(base: str, reading, np_type_of) -> bool:
    subj, sep, obj = base.partition("_v_")
    if not sep or obj != reading.objects[0].np_type:
        return False
    if reading.subject.np.kind == "pronoun":
        return subj in _PRONOUN_TYPES.get(reading.subject.np_type, set())
    return subj == reading.subject.np_type


def _why_no_reading(analyser, premise: str, verb_lemma: str | None) -> str:
    from ..lang.de.analysis import tokenize

    tokens = tokenize(premise)
    first = analyser.noun_phrases(tokens, 0, "S")
    if not first:
        return f"cannot read {tokens[0]!r} as the start of a noun phrase"
    subj = [r for r in first if r.case == "nom"]
    if not subj:
        return "the first noun phrase is not nominative"
    end = subj[0].end
    if end >= len(tokens):
        return "no verb after the subject"
    if not analyser.verbs(tokens[end], verb_lemma):
        return f"unknown verb form {tokens[end]!r}"
    return "no reading as subject + agreeing verb + object(s)"

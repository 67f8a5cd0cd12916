"""Command lines as library calls: the ``gen`` argument parser, and the datasets its
generating commands (jamp, wogli, run, stress) make.

A manifest records the command that made a folder; :func:`dataset_from_command` rebuilds
that dataset from it (``gen verify``), so the grammar of the command line belongs to the
library, and :mod:`nligen.cli` only runs the commands and prints.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any, Sequence

from .errors import UsageError
from .plans import BALANCES
from .version import __version__


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, no usage dump
        raise UsageError(message, self.prog)


def _int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    return value


def _workers(text: str) -> int | str:
    return "auto" if text == "auto" else _int(text)


def _add_generation_options(p: argparse.ArgumentParser, formats: str) -> None:
    p.add_argument("--n", type=_int, default=None, metavar="N",
                   help="number of problems (pairs) to write; default: the family's size")
    p.add_argument("--seed", type=_int, default=0, metavar="S",
                   help="random seed (default 0); same seed + arguments + version = same bytes")
    p.add_argument("--split", choices=["augmentation", "pattern", "lexical"], default=None,
                   help="train/test split: augmentation (stratified train sample covering "
                        "every pattern and verb), pattern (held-out patterns unseen in train), "
                        "lexical (test verbs and nouns unseen in train)")
    p.add_argument("--train-size", type=_int, default=None, metavar="N",
                   help="problems in train (default: augmentation 6.1%%, others half)")
    p.add_argument("--heldout", action="append", metavar="P",
                   help="with --split pattern: a pattern to hold out (repeatable; default: "
                        "a quarter of the patterns, chosen by seed)")
    p.add_argument("--test-lemmas", type=float, default=None, metavar="F",
                   help="with --split lexical: share of verbs/nouns reserved for test (0.3)")
    _add_balance_option(p)
    p.add_argument("--format", default="jsonl", metavar="FMT", help=formats)
    p.add_argument("-o", "--output", default=None, metavar="PATH",
                   help="FILE, or DIR/ for one file per split + manifest.json + README.md "
                        "(default: JSONL on stdout)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="no progress bar and no summary on stderr")
    _add_run_options(p)


def _add_balance_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--balance", choices=list(BALANCES), default="cell",
                   help="cell (default): every (template, label) cell gets the same number "
                        "of problems, as the Jamp paper does; label: the labels are equal "
                        "overall (within one), templates weighted so that each template's "
                        "labels stay balanced where they can; template: every template "
                        "gets the same number (within one), its cells in turn")


def _add_match_options(p: argparse.ArgumentParser, cells: str) -> None:
    p.add_argument("--match", default=None, metavar="FILE",
                   help=f"make a fresh set with the composition of FILE: {cells}; no "
                        "problem equals a (premise, hypothesis) pair of FILE. The manifest "
                        "records FILE's SHA-256 and the cells, and gen verify makes the set "
                        "again from them")
    p.add_argument("--exclude", action="extend", nargs="+", default=None, metavar="FILE",
                   help="with --match: no problem equals a pair of these files either (TSV "
                        "with premise and hypothesis columns, or JSONL)")


def _shard(text: str) -> tuple[int, int]:
    i, sep, k = text.partition("/")
    try:
        if not sep:
            raise ValueError
        return int(i), int(k)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not I/K (e.g. 2/3): {text!r}") from None


def _add_run_options(p: argparse.ArgumentParser) -> None:
    """How a run is carried out; the bytes written never depend on these."""
    p.add_argument("--workers", type=_workers, default="auto", metavar="N",
                   help="processes that build the problems, or auto (the default: one per "
                        "core, at most 4; a run of up to 5,000 problems uses one); the "
                        "output is the same for any N")
    p.add_argument("--shard", type=_shard, default=None, metavar="I/K",
                   help="write only the I-th of K contiguous pieces (1 <= I <= K); the K "
                        "pieces concatenated in order are the whole file, and `gen merge` "
                        "joins shard folders into the folder a whole run writes")
    p.add_argument("--dask", default=None, metavar="ADDRESS",
                   help="build the problems as tasks on a running Dask scheduler (e.g. "
                        "tcp://host:8786); needs pip install 'nligen[dask]'. Written as by "
                        "a local run: the same bytes")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="gen", description="nligen: generate controlled NLI challenge sets "
                     "from YAML templates and lexicons.")
    parser.add_argument("--version", action="version", version=f"nligen {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    w = sub.add_parser("wogli", help="German word order (WOGLI); `gen wogli derive` derives "
                       "hypotheses from premises",
                       description="Generate the WOGLI family: German SVO premises with "
                       "word-order hypotheses (Reinig & Markert 2023). Sets: wogli "
                       "(default), os_hard, p_subject, dative, ditransitive (and "
                       "p_subject_os_hard, dative_os_hard, ditransitive_os_hard). "
                       "Run `gen list wogli` for the patterns.")
    w.add_argument("--pattern", action="append", metavar="P",
                   help="only this pattern, e.g. sing_masc_v_plural_fem (repeatable)")
    w.add_argument("--set", action="append", metavar="S", dest="sets",
                   help="hypothesis set (default wogli; repeatable); 'all' writes each of "
                        "the paper's five sets into its own folder under -o DIR/")
    _add_match_options(w, "a file in WOGLI's format (premise, hypothesis, label 1 / 2, "
                       "pattern), matched per (pattern, label) within one --set")
    _add_generation_options(w, "jsonl (default), wogli-tsv (WOGLI's columns, label 1 = "
                            "non-entailment, 2 = entailment) or tsv")

    d = sub.add_parser("wogli-derive", help=argparse.SUPPRESS)
    d.prog = "gen wogli derive"
    d.description = ("Read a TSV with a header holding a 'premise' column (optionally "
                     "'pattern' and 'verb_lemma'), from FILE or stdin, and write one JSON "
                     "object per line with the premise's H1/H2/H3 hypotheses. Premises "
                     "that cannot be analysed get an 'error' field.")
    d.add_argument("file", nargs="?", default=None, metavar="FILE")
    d.add_argument("--set", default=None, metavar="S",
                   help="treat premises as belonging to this set (decides the object case)")

    j = sub.add_parser("jamp", help="Japanese temporal inference (Jamp); `gen jamp label` "
                       "labels existing problems, `gen jamp check-semantics` checks each "
                       "template's condition against its semantics",
                       description="Generate the Jamp family: Japanese temporal NLI problems "
                       "from the 79 Jamp templates (Sugimoto et al. 2023), label-balanced "
                       "over (template, label) pairs. Fragments: now, ordering, time_point, "
                       "anaphora, interval, habituality, or a sub-fragment such as "
                       "habituality.negation. Run `gen list jamp` for the templates.")
    j.add_argument("--fragment", action="append", metavar="F", dest="fragments",
                   help="main or sub-fragment (repeatable)")
    j.add_argument("--template", action="append", metavar="ID", dest="template_ids",
                   help="template id (e.g. interval.comparison.26) or Jamp template number "
                        "(repeatable)")
    j.add_argument("--time-format", action="append", metavar="FMT", dest="time_formats",
                   help="only time expressions of this format: Y M D H YM MD DH YMD MDH YMDH, "
                        "year month day hour (intervals), or Jamp's names 年月日, 年間, ... "
                        "(repeatable; selects the templates that have time expressions)")
    j.add_argument("--time-span", choices=["random", "short"], default=None,
                   help="random (time points anywhere in 2000-2020) or short (close together, "
                        "intervals 1-3; Jamp appendix C)")
    j.add_argument("--n", type=_int, default=None, metavar="N",
                   help="number of problems to write; default: the family's size")
    _add_balance_option(j)
    _add_match_options(j, "a file in Jamp's released TSV format (num premise hypothesis "
                       "gold_label template_num time_format time_span category), matched "
                       "per (template_num, gold_label, time_format, time_span)")
    j.add_argument("--seed", type=_int, default=0, metavar="S",
                   help="random seed (default 0); same seed + arguments + version = same bytes")
    j.add_argument("--split", choices=["iid", "fragment_easy", "fragment_hard", "format_easy",
                                       "format_hard", "span"], default=None,
                   help="train/test split of the Jamp paper (section 3.4): train holds only "
                        "basic fragments (fragment_*), single-unit formats (format_hard; "
                        "format_easy adds YM, MD, DH) or random spans (span); test holds "
                        "everything, marked seen/unseen; iid splits at random")
    j.add_argument("--train-size", type=_int, default=None, metavar="N",
                   help="problems in train (default 80%%)")
    j.add_argument("--format", default="jsonl", metavar="FMT",
                   help="jsonl (default), jamp-tsv (Jamp's released columns) or tsv")
    j.add_argument("--tokenized", action="store_true",
                   help="with --format jamp-tsv: space-tokenized premise and hypothesis "
                        "(like the released *_wakati.tsv; fugashi tokens)")
    j.add_argument("-o", "--output", default=None, metavar="PATH",
                   help="FILE, or DIR/ for one file per split + manifest.json + README.md "
                        "(default: JSONL on stdout)")
    j.add_argument("-q", "--quiet", action="store_true",
                   help="no progress bar and no summary on stderr")
    _add_run_options(j)

    jl = sub.add_parser("jamp-label", help=argparse.SUPPRESS)
    jl.prog = "gen jamp label"
    jl.description = ("Read a TSV with a header holding 'premise' and 'hypothesis' (and "
                      "optionally 'template_num', a Jamp template id), from FILE or stdin; "
                      "match each problem against the Jamp templates, recover its time "
                      "expressions, evaluate the template's condition and write one JSON "
                      "object per line: premise, hypothesis, label, template, jamp_template, "
                      "slots. A problem no template matches gets label null and an 'error'.")
    jl.add_argument("file", nargs="?", default=None, metavar="FILE")
    jl.add_argument("--by", choices=("condition", "semantics"), default="condition",
                    help="condition (default): the template's label condition; semantics: "
                         "the model checker on the template's semantics block (what the "
                         "sentences mean), a second route to the label")

    cs = sub.add_parser("jamp-check-semantics", help=argparse.SUPPRESS)
    cs.prog = "gen jamp check-semantics"
    cs.description = ("Compare each Jamp template's label condition with its semantics "
                      "block: draw time values as generation does (every format and span, "
                      "the match formats too), enumerate a small grid exhaustively, label "
                      "each assignment both ways and report every disagreement with its "
                      "time values and a model that shows the semantic label. Exit 0 when "
                      "there is none, 1 otherwise.")
    cs.add_argument("--template", action="append", metavar="ID",
                    help="only this template (repeatable; a template id or a Jamp number)")
    cs.add_argument("--samples", type=int, default=1000, metavar="N",
                    help="sampled assignments per template (default 1000)")
    cs.add_argument("--seed", type=int, default=0, metavar="S")
    cs.add_argument("--json", action="store_true",
                    help="one JSON object per template instead of text")

    r = sub.add_parser("run", help="generate from your own templates",
                       description="Generate from a folder (or file) of your own YAML "
                       "templates and lexicons.")
    r.add_argument("templates", metavar="TEMPLATES_DIR")
    r.add_argument("--lexicons", action="append", metavar="DIR",
                   help="lexicon folder (default: TEMPLATES_DIR/lexicons, ../lexicons, "
                        "then the shipped lexicons)")
    r.add_argument("--set", action="append", metavar="S", dest="sets",
                   help="hypothesis set (default: the family's default, else all)")
    r.add_argument("--template", action="append", metavar="ID", dest="template_ids",
                   help="only this template (repeatable)")
    r.add_argument("--variant", action="append", metavar="V", dest="variants",
                   help="only this variant (repeatable)")
    _add_generation_options(r, "jsonl (default) or tsv")

    pr = sub.add_parser("pairs", help="acceptability minimal pairs (German, Japanese) in "
                        "BLiMP's format",
                        description="Generate acceptability minimal pairs: a good and a bad "
                        "sentence that differ in one declared point, from the paradigms in "
                        "templates/pairs (gen list pairs), balanced per paradigm, as JSONL "
                        "records in BLiMP's format (sentence_good, sentence_bad, field, "
                        "linguistics_term, UID, pairID, ...).")
    pr.add_argument("--language", action="append", choices=["de", "ja"], dest="languages",
                    help="only this language's paradigms (repeatable; default: all)")
    pr.add_argument("--phenomenon", action="append", metavar="P", dest="phenomena",
                    help="only this phenomenon (BLiMP's linguistics_term; repeatable)")
    pr.add_argument("--paradigm", action="append", metavar="ID", dest="paradigms",
                    help="only this paradigm (BLiMP's UID; repeatable)")
    pr.add_argument("--n", type=_int, default=None, metavar="N",
                    help="number of pairs (default: 100 per selected paradigm)")
    pr.add_argument("--seed", type=_int, default=0, metavar="S",
                    help="random seed (default 0); same seed + arguments + version = same bytes")
    pr.add_argument("--split", choices=["lexical"], default=None,
                    help="lexical: test pairs use verbs and nouns never seen in train (test "
                         "records carry seen)")
    pr.add_argument("--train-size", type=_int, default=None, metavar="N",
                    help="pairs in train (default: half)")
    pr.add_argument("--test-lemmas", type=float, default=None, metavar="F",
                    help="with --split lexical: share of verbs/nouns reserved for test (0.3)")
    pr.add_argument("-o", "--output", default=None, metavar="PATH",
                    help="FILE, or DIR/ for one file per split + manifest.json + README.md "
                         "(default: JSONL on stdout)")
    pr.add_argument("-q", "--quiet", action="store_true",
                    help="no progress bar and no summary on stderr")
    pr.set_defaults(format="jsonl", heldout=None)
    _add_run_options(pr)

    v = sub.add_parser("validate", help="lint templates against their lexicons",
                       description="Check templates: schema, every slot resolvable against "
                       "the lexicons, every field present, every label reachable.")
    v.add_argument("path", metavar="PATH")
    v.add_argument("--lexicons", action="append", metavar="DIR")

    ls = sub.add_parser("list", help="templates/patterns with labels and capacity",
                        description="List a family's templates and patterns (variants) with "
                        "their sets, the labels each can produce and its capacity (number "
                        "of distinct fillings).")
    ls.add_argument("family", nargs="?", default=None, metavar="FAMILY")
    ls.add_argument("--json", action="store_true", help="one JSON object per line")

    lx = sub.add_parser("lexicon", help="build and inspect lexicons")
    lsub = lx.add_subparsers(dest="lexicon_command", metavar="ACTION", parser_class=_Parser)
    bd = lsub.add_parser("build-de", help="build lexicons/de/*.json from the curated lists, "
                         "german-nouns and ablaut")
    bd.add_argument("--lexicons", default=None, metavar="DIR",
                    help="lexicon folder (default: the shipped one)")
    bd.add_argument("--check", action="store_true", help="check only, write nothing")
    st_ = lsub.add_parser("stats", help="lexicon statistics")
    st_.add_argument("--lang", required=True, choices=["ja"], help="language")
    st_.add_argument("--json", action="store_true", help="one JSON object")
    sm = lsub.add_parser("sample", help="simple clauses from the lexicon, for reading")
    sm.add_argument("--lang", required=True, choices=["ja"], help="language")
    sm.add_argument("--n", type=_int, default=50, metavar="N")
    sm.add_argument("--seed", type=_int, default=0, metavar="S")
    bj = lsub.add_parser("build-ja", help="build lexicons/ja/caseframes.json from KNP corpora "
                         "(default: ../shared/corpora/*.tar.gz)")
    bj.add_argument("corpora", nargs="*", metavar="CORPUS",
                    help="KNP files, folders or .tar.gz archives")
    bj.add_argument("--lexicons", default=None, metavar="DIR",
                    help="lexicon folder (default: the shipped one)")
    bj.add_argument("--check", action="store_true", help="extract and report, write nothing")

    au = sub.add_parser("audit", help="token-label artifacts, hypothesis-only baseline, "
                        "split overlap and label balance of a generated set",
                        description="Audit a JSONL file, or a folder of split files (those "
                        "its manifest.json lists, else every *.jsonl). Token-label "
                        "artifacts as Gardner et al. (2021) and Jamp appendix D: the tokens "
                        "of premise and hypothesis (Japanese: fugashi + unidic-lite; others: "
                        "whitespace and punctuation), a one-sided exact binomial test of "
                        "p(label | token) against the uniform prior, Bonferroni-corrected "
                        "at alpha = 0.01 over tokens x labels. A hypothesis-only naive Bayes "
                        "baseline (5-fold, folds by sorted id) against the majority class. "
                        "For every pair of splits, the (premise, hypothesis) pairs, "
                        "premises, hypotheses and fillings (the lemmas / names / values of "
                        "the non-time slots) they share, and the seen/unseen counts. Label "
                        "counts per template, fragment, subfragment, pattern, set, ... "
                        "Markdown on stdout.")
    au.add_argument("path", metavar="FILE_OR_DIR")
    au.add_argument("--json", action="store_true",
                    help="one JSON object (artifacts, hypothesis_only, overlap, labels, ...) "
                         "instead of Markdown")
    au.add_argument("--plot", default=None, metavar="PNG",
                    help="also write a plot like Jamp's figure 3 (token frequency against "
                         "p(label | token), with the significance curve); needs matplotlib: "
                         "pip install 'nligen[plot]'")

    vf = sub.add_parser("verify", help="re-derive every label and regenerate a set from "
                        "its manifest",
                        description="Check a folder written with -o DIR/ (or a folder of "
                        "such folders, as --set all writes). Labels: every record is rebuilt "
                        "from its slots and template (each slot value must be one the "
                        "template can take; premise and hypothesis must render again; the "
                        "label rule decides the label afresh); TSV files carry no slots, so "
                        "the regenerated records are checked and tied to the file byte for "
                        "byte. Reproduction: the command in manifest.json is run again and "
                        "every file must be byte-identical. A gen stress folder: every "
                        "record must be what its transformation makes of premise_original, "
                        "and the command is run again when its input file is present and "
                        "unchanged. Exit 0 when both hold, 1 when "
                        "either fails (the failing records and files are named), 2 on "
                        "unreadable input.")
    vf.add_argument("path", metavar="DIR")
    vf.add_argument("--semantics", action="store_true",
                    help="also label every record by its template's semantics block (the "
                         "model checker) and report any record whose label differs")
    vf.add_argument("--json", action="store_true",
                    help="one JSON object per folder (ok, records, labels, reproduced, "
                         "files) instead of text")

    sx = sub.add_parser("stress", help="JSICK-style stress transformations of existing "
                        "Japanese NLI problems (scramble, swap, delete)",
                        description="Transform the premises of an NLI file as the JSICK stress "
                        "test does (Yanaka & Mineshima 2022, section 5): scramble moves the "
                        "argument phrase (with its modifiers) in front of the subject phrase "
                        "and keeps the label; swap exchanges the two case particles and delete "
                        "drops them, both setting the label to neutral (the original stays in "
                        "label_original). Pairs: ga-o, ga-ni, ga-de (a は or も subject counts "
                        "as a subject); only premises with the pair in basic order, both "
                        "arguments of one predicate, are transformed. A phrase between the "
                        "subject and a relative clause (犬が草で覆われた丘を…) is read in the "
                        "relative clause; when that gives no pair, the shipped transformations "
                        "also try it as the main clause's, as the JSICK data does, and say so "
                        "in the record (--attachment low turns this off). Transformations are YAML "
                        "(templates/stress/); add your own with --transformations DIR. Input: "
                        "TSV with a header, or JSONL (FILE or stdin). Output: JSONL records; "
                        "-o DIR/ adds manifest.json and a dataset card, and gen verify DIR "
                        "checks such a folder. "
                        "Rows where nothing applies are skipped and counted on stderr; bad "
                        "rows are reported (file:line) and skipped unless --strict.")
    sx.add_argument("file", nargs="?", default=None, metavar="FILE")
    sx.add_argument("--transform", action="append", metavar="T", dest="transforms",
                    help="scramble, swap, delete or one of yours (repeatable; default: all)")
    sx.add_argument("--pair", action="append", metavar="P", dest="pairs",
                    help="ga-o, ga-ni or ga-de (repeatable; default: all)")
    sx.add_argument("--premise-col", default=None, metavar="C",
                    help="premise column (default: premise, sentence_A, sentence_A_original "
                         "or sentence1, whichever comes first)")
    sx.add_argument("--hypothesis-col", default=None, metavar="C",
                    help="hypothesis column (default: hypothesis, sentence_B or sentence2)")
    sx.add_argument("--label-col", default=None, metavar="C",
                    help="label column (default: label, entailment_label, "
                         "entailment_label_original or gold_label)")
    sx.add_argument("--transformations", action="append", metavar="DIR",
                    help="also load the *.yaml transformations of this folder (repeatable)")
    sx.add_argument("--attachment", choices=("low", "either"), default=None,
                    help="low: a phrase before a relative clause belongs to it; either: "
                         "also try it as an argument of the main clause when low gives no "
                         "pair (default: each transformation's own setting; the shipped ones "
                         "say either)")
    sx.add_argument("--keep-inapplicable", action="store_true",
                    help="also write rows where the transformation does not apply, with "
                         "\"applicable\": false")
    sx.add_argument("--strict", action="store_true",
                    help="stop at the first bad row (exit 2, nothing written)")
    sx.add_argument("-o", "--output", default=None, metavar="PATH",
                    help="write JSONL to this file, or to DIR/all.jsonl with manifest.json "
                         "and a dataset card README.md when PATH ends in / (default: stdout)")
    sx.add_argument("-q", "--quiet", action="store_true", help="no counts on stderr")

    mg = sub.add_parser("merge", help="join shard folders (--shard I/K -o DIR/) into one",
                        description="Join the folders that the K shards of one command wrote "
                        "(gen ... --shard I/K -o DIR_I/) into the folder the whole command "
                        "writes: the split files concatenated in shard order, one "
                        "manifest.json and one dataset card, byte for byte what a run without "
                        "--shard writes; gen verify accepts it. Every shard of the command "
                        "must be given, each once, in any order.")
    mg.add_argument("folders", nargs="+", metavar="SHARD_DIR")
    mg.add_argument("-o", "--output", required=True, metavar="DIR",
                    help="the folder to write (made if missing)")
    mg.add_argument("-q", "--quiet", action="store_true", help="no summary on stderr")

    ex = sub.add_parser("export", help="a generated folder as llm-jp-eval data or "
                        "lm-evaluation-harness tasks",
                        description="Export a folder written with -o DIR/ (JSONL) for an "
                        "evaluation harness. llm-jp-eval: one JSON file in its common "
                        "evaluation format (instruction, output_length, metrics exact_match, "
                        "few_shots from train when the folder has a train split, samples of "
                        "input '前提：…\\n仮説：…' and output label), worded as llm-jp-eval's "
                        "NLI datasets, in the family's language. lm-eval: a folder for "
                        "lm_eval --include_path: one multiple-choice task per fragment "
                        "(jamp), pattern (wogli), transformation (stress) or template (other "
                        "families) and a group over them; Japanese answer choices are "
                        "含意 / 矛盾 / 中立, German Ja / Nein. Each item keeps its record's id, "
                        "so gen eval scores the harness's output per template and group.")
    ex.add_argument("harness", choices=["llm-jp-eval", "lm-eval"], metavar="HARNESS",
                    help="llm-jp-eval or lm-eval")
    ex.add_argument("src", metavar="SRC", help="a folder written by gen ... -o DIR/")
    ex.add_argument("-o", "--output", required=True, metavar="PATH",
                    help="llm-jp-eval: FILE.json (llm-jp-eval names the dataset after it); "
                         "lm-eval: DIR/")
    ex.add_argument("--split", default=None, metavar="S",
                    help="the split to evaluate on (default: test, or the folder's only "
                         "split); train, when another split is evaluated, gives the few-shot "
                         "examples")
    ex.add_argument("--few-shots", type=_int, default=None, metavar="K",
                    help="llm-jp-eval: few-shot examples from train, labels in turn, in file "
                         "order (default 4, llm-jp-eval's default; none without a train split)")
    ex.add_argument("--by", default=None, metavar="FIELD",
                    help="lm-eval: the record field whose values are the subtasks (default: "
                         "fragment, pattern, transform or template, by family)")
    ex.add_argument("--name", default=None, metavar="TASK",
                    help="lm-eval: the group's task name (default: SRC's folder name, e.g. "
                         "jamp_fragment_hard); subtasks are TASK_VALUE")
    ex.add_argument("--data-path", default=None, metavar="PREFIX",
                    help="lm-eval: written before each data file name in the YAML (default: "
                         "DIR's absolute path, so lm_eval runs from anywhere; '.' for a "
                         "folder to move and run from inside)")
    ex.add_argument("-q", "--quiet", action="store_true", help="no summary on stderr")

    ev = sub.add_parser("eval", help="score predictions against a generated set",
                        description="Accuracy of a model's predictions (--pred) on a gold "
                        "record file, or of its sentence scores (--scores) on minimal pairs: "
                        "overall, per gold label, template, fragment / sub-fragment, "
                        "pattern / set / hypothesis type, time format / time span and seen "
                        "/ unseen (only the groupings whose field the gold records have). "
                        "Δ is seen minus unseen accuracy, as in Jamp's table 8. Labels are "
                        "case-insensitive; on two-way gold, neutral and contradiction count "
                        "as non-entailment, as in WOGLI.")
    ev.add_argument("--gold", required=True, metavar="FILE",
                    help="gold records: JSONL as gen writes it, or a .tsv with a header "
                         "(--format tsv, jamp-tsv or wogli-tsv)")
    given = ev.add_mutually_exclusive_group(required=True)
    given.add_argument("--scores", metavar="FILE",
                       help="with a gen pairs gold file: a language model's log-probabilities, "
                            "JSONL {\"sentence\": ..., \"logprob\": ...} per sentence or "
                            "{\"pairID\": ..., \"good\": ..., \"bad\": ...} per pair; a pair "
                            "is right when its good sentence scores higher (a tie is wrong). "
                            "Reports accuracy overall and per phenomenon, paradigm, field "
                            "and seen / unseen")
    given.add_argument("--pred", metavar="FILE",
                    help="predictions: JSONL with 'id' and 'label' per line; one label per "
                         "line aligned with the gold file; lm-evaluation-harness's "
                         "--log_samples output of a gen export lm-eval task (a "
                         "samples_*.jsonl file, or the --output_path folder: every "
                         "samples_*.jsonl under it; the highest-scoring choice is the "
                         "prediction, matched by the doc's id); or llm-jp-eval's generated "
                         "output of a gen export llm-jp-eval file (JSON with samples of "
                         "input and generated text, matched by input)")
    ev.add_argument("--json", action="store_true",
                    help="one JSON object (accuracy, groups, delta, confusion) instead of "
                         "Markdown tables")
    return parser


# Options that say where and how a run is carried out, not what it makes: a manifest's
# command leaves them out, so every way of running a command records the same command.
RUN_OPTIONS_WITH_VALUE = ("-o", "--output", "--workers", "--shard", "--dask")
RUN_FLAGS = ("-q", "--quiet")


def command_line(argv: Sequence[str]) -> str:
    kept = []
    skip = False
    for a in argv:
        if skip:
            skip = False
            continue
        if a in RUN_OPTIONS_WITH_VALUE:
            skip = True
            continue
        if a.startswith(tuple(f"{o}=" for o in RUN_OPTIONS_WITH_VALUE if o.startswith("--"))) \
                or a in RUN_FLAGS:
            continue
        kept.append(a)
    return "gen " + " ".join(shlex.quote(a) for a in kept)


def split_options(args):
    from .splits import SplitOptions

    for flag, value, split in (("--train-size", args.train_size, None),
                               ("--heldout", args.heldout, "pattern"),
                               ("--test-lemmas", args.test_lemmas, "lexical")):
        if value is not None and (args.split is None or split and args.split != split):
            needs = f"--split {split}" if split else "--split"
            raise UsageError(f"only makes sense with {needs}", flag)
    return SplitOptions(train_size=args.train_size, heldout=args.heldout,
                        test_lemma_fraction=0.3 if args.test_lemmas is None else args.test_lemmas)


def _arguments(args, keys) -> dict[str, Any]:
    return {k: getattr(args, k) for k in keys}


def wogli_options(args, argv) -> dict[str, Any]:
    if args.format not in ("jsonl", "tsv", "wogli-tsv"):
        raise UsageError(f"unknown format {args.format!r} (known: jsonl, tsv, wogli-tsv)",
                         "--format")
    arguments = _arguments(args, ("pattern", "sets", "n", "seed", "split", "train_size",
                                  "heldout", "test_lemmas", "format", "balance"))
    if args.balance == "cell":  # the default, as manifests had it before --balance
        del arguments["balance"]
    return dict(patterns=args.pattern, n=args.n, seed=args.seed, split=args.split,
                command=command_line(argv), arguments=arguments,
                split_options=split_options(args), balance=args.balance)


def match_of(args, read, recorded=None):
    """The --match of a command: read from its files, or, when a manifest that recorded
    it is given (gen verify), from the manifest, so the files need not be there."""
    from .matching import Match

    if args.match is None:
        if args.exclude:
            raise UsageError("only makes sense with --match", "--exclude")
        return None
    if recorded is not None and "match_cells" in recorded:
        return Match.from_manifest(recorded)
    return read(args.match, args.exclude or ())


def wogli_dataset(args, argv, recorded=None):
    from .families import wogli

    if args.sets and "all" in args.sets:
        raise UsageError("'all' is not one set (it writes each set into its own folder)",
                         "--set")
    match = match_of(args, lambda path, exclude: wogli.read_match(path, args.sets, exclude),
                     recorded)
    ds = wogli.generate(sets=args.sets, match=match, **wogli_options(args, argv))
    return ds if match is not None else with_recipe(ds, command_line(argv))


def jamp_dataset(args, argv, recorded=None):
    from .families import jamp

    if args.format not in ("jsonl", "tsv", "jamp-tsv"):
        raise UsageError(f"unknown format {args.format!r} (known: jsonl, tsv, jamp-tsv)",
                         "--format")
    if args.tokenized and args.format != "jamp-tsv":
        raise UsageError("only makes sense with --format jamp-tsv", "--tokenized")
    if args.train_size is not None and args.split is None:
        raise UsageError("only makes sense with --split", "--train-size")
    arguments = _arguments(args, ("fragments", "template_ids", "time_formats", "time_span",
                                  "n", "seed", "split", "train_size", "format", "tokenized",
                                  "balance", "match", "exclude"))
    for key, default in (("balance", "cell"), ("match", None), ("exclude", None)):
        if arguments[key] == default:  # the defaults, as manifests had them before
            del arguments[key]
    match = match_of(args, jamp.read_match, recorded)
    ds = jamp.generate(fragments=args.fragments, template_ids=args.template_ids,
                       time_formats=args.time_formats, time_span=args.time_span, n=args.n,
                       seed=args.seed, split=args.split, train_size=args.train_size,
                       command=command_line(argv), arguments=arguments,
                       balance=args.balance, match=match)
    if args.tokenized:
        args.format = "jamp-tsv-tokenized"
    # a matched set's recipe carries its cells (a cluster's workers need not read FILE)
    return ds if match is not None else with_recipe(ds, command_line(argv))


def read_input(file: str | None) -> tuple[str, str]:
    """(text, where) of FILE or stdin, as UTF-8."""
    raw, where = read_raw(file)
    return decode_text(raw, where), where


def read_raw(file: str | None) -> tuple[bytes, str]:
    if file in (None, "-"):
        where = "<stdin>"
        raw = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
    else:
        where = file
        try:
            raw = Path(file).read_bytes()
        except OSError as exc:
            raise UsageError(f"cannot read: {exc.strerror}", where) from None
    return raw, where


def decode_text(raw: bytes, where: str) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(f"not UTF-8 text (byte {exc.start})", where) from None


def run_dataset(args, argv):
    from .api import generate

    arguments = _arguments(args, ("sets", "template_ids", "variants", "n", "seed", "split",
                                  "train_size", "heldout", "test_lemmas", "format", "balance"))
    if args.balance == "cell":  # the default, as manifests had it before --balance
        del arguments["balance"]
    return with_recipe(
        generate(args.templates, lexicons=args.lexicons, n=args.n, seed=args.seed,
                 sets=args.sets, variants=args.variants, template_ids=args.template_ids,
                 split=args.split, split_options=split_options(args),
                 command=command_line(argv), arguments=arguments, balance=args.balance),
        command_line(argv))


def stress_transformations(args) -> dict:
    """{id: Transformation}: the shipped ones and those of --transformations, with
    --attachment applied."""
    from dataclasses import replace

    from .data import templates_dir
    from .stress import load_transformations

    known = load_transformations([templates_dir("stress"), *(args.transformations or [])])
    if args.attachment:
        known = {k: replace(t, attachment=args.attachment) for k, t in known.items()}
    return known


def stress_dataset(args, argv):
    from .errors import InputError
    from .stress import (
        HYPOTHESIS_COLUMNS,
        ID_COLUMNS,
        LABEL_COLUMNS,
        PREMISE_COLUMNS,
        StressSet,
        pick_column,
        read_rows,
        stress_manifest,
        transform_rows,
    )

    known = stress_transformations(args)
    order = [t for t in ("scramble", "swap", "delete") if t in known] + sorted(
        t for t in known if t not in ("scramble", "swap", "delete"))
    for name in args.transforms or []:
        if name not in known:
            raise UsageError(f"unknown transformation {name!r} (known: {', '.join(order)})",
                             "--transform")
    chosen = [known[t] for t in order if not args.transforms or t in args.transforms]
    pair_names = sorted({p for t in chosen for p in t.pairs})
    for pair in args.pairs or []:
        if pair not in pair_names:
            raise UsageError(f"unknown pair {pair!r} (known: {', '.join(pair_names)})",
                             "--pair")
    raw, where = read_raw(args.file)
    text = decode_text(raw, where)
    jsonl = None
    if args.file not in (None, "-"):
        suffix = Path(args.file).suffix.lower()
        jsonl = True if suffix in (".jsonl", ".json") else False if suffix in (
            ".tsv", ".txt") else None
    header, rows = read_rows(text, where, jsonl)
    columns = {
        "premise": pick_column(args.premise_col, PREMISE_COLUMNS, header, rows,
                               "--premise-col", where, True),
        "hypothesis": pick_column(args.hypothesis_col, HYPOTHESIS_COLUMNS, header, rows,
                                  "--hypothesis-col", where, False),
        "label": pick_column(args.label_col, LABEL_COLUMNS, header, rows, "--label-col",
                             where, False),
        "id": pick_column(None, ID_COLUMNS, header, rows, "", where, False),
    }
    records, stats = transform_rows(rows, where, chosen, args.pairs, columns,
                                    keep_inapplicable=args.keep_inapplicable)
    if stats["bad"] and args.strict:
        where_bad, problem = stats["bad"][0]
        raise InputError(problem, where_bad)
    manifest = stress_manifest(command_line(argv), where, raw, chosen, records, stats)
    return StressSet(records, stats, manifest)


def pairs_dataset(args, argv):
    from .families import pairs

    arguments = _arguments(args, ("languages", "phenomena", "paradigms", "n", "seed", "split",
                                  "train_size", "test_lemmas"))
    return with_recipe(
        pairs.generate(languages=args.languages, phenomena=args.phenomena,
                       paradigms=args.paradigms, n=args.n, seed=args.seed, split=args.split,
                       split_options=split_options(args), command=command_line(argv),
                       arguments=arguments),
        command_line(argv))


GENERATING_COMMANDS = {"jamp": jamp_dataset, "wogli": wogli_dataset, "run": run_dataset,
                       "stress": stress_dataset, "pairs": pairs_dataset}


def parse_command(command: str):
    """The parsed arguments and argv of a manifest's ``command`` (a generating command:
    gen jamp / wogli / pairs / run / stress; -o and -q are never recorded)."""
    try:
        words = shlex.split(command)
    except ValueError as exc:
        raise UsageError(f"cannot parse the command: {exc}") from None
    if len(words) < 2 or words[0] not in ("gen", "nligen") or words[1] not in GENERATING_COMMANDS:
        raise UsageError(f"not a generating command (gen jamp / wogli / pairs / run / stress): "
                         f"{command!r}")
    argv = words[1:]
    return build_parser().parse_args(argv), argv


def dataset_from_command(command: str, recorded: dict | None = None):
    """Rebuild, without writing anything, the dataset a manifest's ``command`` made:
    (Dataset, output format). ``recorded``: the manifest, for what it keeps of the
    command's input files (a matched set's cells)."""
    args, argv = parse_command(command)
    make = GENERATING_COMMANDS[args.command]
    ds = make(args, argv, recorded) if args.command in ("jamp", "wogli") else make(args, argv)
    return ds, getattr(args, "format", "jsonl")


def dataset_of_command(command: str):
    """The dataset of a generating command (what a cluster's workers rebuild)."""
    return dataset_from_command(command)[0]


def with_recipe(ds, command: str):
    """The dataset, told how another process makes it again: from its command."""
    ds.recipe = (dataset_of_command, {"command": command})
    return ds


def templates_of_command(command: str):
    """(TemplateSet, LexiconSet) a generating command draws from."""
    from .api import lexicon_set_for
    from .families import load_family
    from .templates import load_templates

    args, _ = parse_command(command)
    if args.command == "run":
        template_set = load_templates([args.templates])
        return template_set, lexicon_set_for(args.lexicons, template_set)
    template_set = load_family(args.command)
    return template_set, lexicon_set_for(None, template_set)


def transformations_of_command(command: str) -> dict:
    """{id: Transformation} a ``gen stress`` command may use (its --attachment applied)."""
    args, _ = parse_command(command)
    return stress_transformations(args)

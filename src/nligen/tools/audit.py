"""Audit a generated NLI set (``gen audit``): token–label artifacts, a hypothesis-only
baseline, split hygiene, lexical diversity and label distributions.

* **Artifacts** follow Gardner et al. (2021) as Jamp applies them (Sugimoto et al. 2023,
  section 3.3.1 and appendix D): the premise and the hypothesis of each problem are
  tokenised, and for every token x and label y the number k of the n problems containing
  x that carry y is tested with a one-sided exact binomial test against the uniform prior
  p0 = 1 / (number of labels). A (token, label) is significant when its p-value is at most
  alpha / m with alpha = 0.01 and m = tokens x labels (Bonferroni over every test made).
  Japanese is tokenised with fugashi + unidic-lite (surface forms, as ``--tokenized``
  writes them; Jamp used Juman++), other languages on whitespace and punctuation (case
  kept: a capitalised determiner marks a fronted argument in WOGLI).
* **Hypothesis-only baseline**: multinomial naive Bayes (add-one smoothing) over
  hypothesis tokens, k-fold cross-validated (folds: problems sorted by id, problem i in
  fold i mod k), against a majority-class predictor on the same folds.
* **Split hygiene**: for every pair of splits, the number of distinct (premise,
  hypothesis) pairs, premises, hypotheses and fillings they share. A *filling* is a
  record's content words: for every slot that is not a time expression (a slot with
  ``start``/``end``, or with a ``unit``: time points, intervals, units), its ``lemma``
  (with a predicate's case arguments, Jamp's ``wo``/``ni``/``no``), else its ``name`` /
  ``value`` / ``text``; the filling is the tuple of (slot, value) over those slots.
* **Diversity** (diversity.py): distinct content lemmas, type/token ratio, and the share
  of problems using the most frequent clause, verb and noun.
* **Labels**: counts per label overall, per split and per template, fragment,
  subfragment, pattern, set, hypothesis type, time format and time span (the fields the
  records have).

Everything is pure Python (``math.lgamma`` and log-space sums for the binomial tail);
matplotlib is imported only by :func:`plot_artifacts`.
"""

from __future__ import annotations

import io
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from ..errors import InputError, UsageError
from .evaluate import json_object
from .diversity import CASE_KEYS, content_units, diversity
from .diversity import markdown as diversity_markdown

ALPHA = 0.01
FOLDS = 5
TOKEN_TEXT = "premise+hypothesis"
LABEL_ORDER = ("entailment", "neutral", "contradiction", "non-entailment")
LABEL_FIELDS = ("template", "fragment", "subfragment", "pattern", "set", "hypothesis_type",
                "time_format", "time_span")
SPLIT_ORDER = ("train", "dev", "validation", "test")
OVERLAP_KINDS = ("pairs", "premises", "hypotheses", "fillings")
# Case arguments of a Japanese predicate slot (jamp: {"lemma": 見る, "wo": 情報, "no": 記事}).
_CASE_SET = frozenset(CASE_KEYS)
FAMILY_LANGUAGE = {"jamp": "ja", "wogli": "de"}
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]")
_WORD = re.compile(r"\w+|[^\w\s]")
_REQUIRED = ("premise", "hypothesis", "label")


@dataclass
class Problem:
    file: str
    line: int
    split: str
    id: str
    family: str
    premise: str
    hypothesis: str
    label: str
    split_field: str | None = None  # the record's own `split`
    seen: bool | None = None
    fields: Mapping[str, str] = field(default_factory=dict)  # the LABEL_FIELDS it has
    filling: tuple | None = None
    units: tuple = (None, frozenset(), frozenset())  # (clause, verbs, nouns): diversity.py

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


# -- reading -------------------------------------------------------------------------------

def input_files(path: str | Path) -> list[Path]:
    """The JSONL files to audit: PATH itself, or the files of a folder (those its
    manifest.json lists, else every *.jsonl in it)."""
    p = Path(path)
    try:
        if p.is_file():
            return [p]
        if not p.is_dir():
            raise InputError("no such file or folder", str(path))
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", str(path)) from None
    manifest = p / "manifest.json"
    if manifest.is_file():
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise InputError(f"cannot read manifest: {exc}", str(manifest)) from None
        listed = data.get("files") if isinstance(data, dict) else None
        if isinstance(listed, dict) and listed:
            files = []
            for name in listed:
                if not str(name).endswith(".jsonl"):
                    raise InputError(f"lists {name!r}: gen audit reads JSONL (generate with "
                                     "--format jsonl)", str(manifest))
                f = p / name
                if not f.is_file():
                    raise InputError(f"lists {name!r}, which is missing", str(manifest))
                files.append(f)
            return files
    files = sorted(f for f in p.glob("*.jsonl") if f.is_file())
    if not files:
        raise InputError("no *.jsonl files in this folder", str(path))
    return files


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a valid value")


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


def read_problems(files: Sequence[Path]) -> list[Problem]:
    """The problems of these JSONL files. With several files, each file is a split named
    by its stem (train.jsonl: train); a single file's problems are grouped by their
    ``split`` field (the stem when a record has none)."""
    problems: list[Problem] = []
    for f in files:
        name = str(f)
        try:
            raw = f.read_bytes()
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}", name) from None
        for number, line in enumerate(raw.split(b"\n"), 1):
            where = f"{name}:{number}"
            if not line.strip():
                continue
            try:
                text = line.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(f"not UTF-8 text (byte {exc.start})", where) from None
            record = json_object(text, where, _DECODER.decode)
            problems.append(problem_from_record(record, name, number,
                                                None if len(files) == 1 else f.stem, f.stem))
    if not problems:
        raise InputError("no records", ", ".join(str(f) for f in files))
    return problems


def problem_from_record(record: Mapping[str, Any], file: str, line: int,
                        split: str | None, fallback_split: str = "all") -> Problem:
    """One record as a Problem. ``split``: the split it belongs to (None: its own
    ``split`` field, else ``fallback_split``)."""
    where = f"{file}:{line}"
    for key in _REQUIRED:
        value = record.get(key)
        if key not in record:
            raise InputError(f"record without {key!r}", where)
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"{key!r} is not a non-empty text", where)
    field_split = record.get("split")
    if not isinstance(field_split, str) or not field_split:
        field_split = None
    rid = record.get("id")
    family = record.get("family")
    seen = record.get("seen")
    return Problem(
        file, line, split or field_split or fallback_split, rid if isinstance(rid, str) else "",
        family if isinstance(family, str) else "", record["premise"],
        record["hypothesis"], record["label"], field_split,
        seen if isinstance(seen, bool) else None,
        {k: str(record[k]) for k in LABEL_FIELDS
         if isinstance(record.get(k), (str, int, float, bool))},
        filling(record), content_units(record))


# -- tokens --------------------------------------------------------------------------------

def language_of(problem: Problem) -> str:
    """ja or de by family; for other families, ja when the text has Japanese script."""
    if problem.family in FAMILY_LANGUAGE:
        return FAMILY_LANGUAGE[problem.family]
    return "ja" if _JAPANESE.search(problem.premise + problem.hypothesis) else "other"


class Tokenizer:
    """Tokens of a text, cached (a premise recurs with each of its hypotheses)."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str], list[str]] = {}
        self._wakati: Callable[[str], str] | None = None

    def __call__(self, text: str, language: str) -> list[str]:
        key = (language, text)
        tokens = self._cache.get(key)
        if tokens is None:
            if language == "ja":
                if self._wakati is None:
                    from ..lang.ja.tokenize import wakati  # loads fugashi once

                    self._wakati = wakati
                tokens = [t for t in self._wakati(text).split(" ") if t]
            else:
                tokens = _WORD.findall(text)
            self._cache[key] = tokens
        return tokens


def _tokenizer_names(problems: Sequence[Problem]) -> dict[str, str]:
    names = {"ja": "fugashi + unidic-lite (surface forms)",
             "de": "whitespace and punctuation (case kept)",
             "other": "whitespace and punctuation (case kept)"}
    return {lang: names[lang] for lang in sorted({language_of(p) for p in problems})}


# -- binomial test -------------------------------------------------------------------------

def _log_pmf(k: int, n: int, p: float) -> float:
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
            + k * math.log(p) + (n - k) * math.log1p(-p))


def log_binom_sf(k: int, n: int, p: float) -> float:
    """log P(X >= k) for X ~ Binomial(n, p), exact (summed in log space)."""
    if k <= 0 or p >= 1.0:
        return 0.0
    if k > n or p <= 0.0:
        return -math.inf
    if k > n * p:  # upper tail: terms fall from k upwards
        odds = p / (1.0 - p)
        total = term = 1.0
        for j in range(k, n):
            term *= (n - j) / (j + 1) * odds
            total += term
            if term < total * 1e-17:
                break
        return _log_pmf(k, n, p) + math.log(total)
    # k at or below the mean: 1 - P(X <= k - 1); lower-tail terms fall from k - 1 downwards
    odds = (1.0 - p) / p
    total = term = 1.0
    for j in range(k - 1, 0, -1):
        term *= j / (n - j + 1) * odds
        total += term
        if term < total * 1e-17:
            break
    cdf = math.exp(_log_pmf(k - 1, n, p)) * total
    return math.log1p(-min(cdf, 1.0)) if cdf < 1.0 else -math.inf


def binom_sf(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p)."""
    return math.exp(log_binom_sf(k, n, p))


def min_significant_p_hat(n: int, p0: float, threshold: float) -> float | None:
    """The smallest k/n whose one-sided p-value is <= threshold, or None."""
    log_thr = math.log(threshold)
    if n <= 0 or log_binom_sf(n, n, p0) > log_thr:
        return None
    lo, hi = max(1, math.floor(n * p0)), n  # sf(hi) <= thr; find the smallest such k
    while lo < hi:
        mid = (lo + hi) // 2
        if log_binom_sf(mid, n, p0) <= log_thr:
            hi = mid
        else:
            lo = mid + 1
    return lo / n


# -- analyses ------------------------------------------------------------------------------

def _label_order(labels: Iterable[str]) -> list[str]:
    rank = {name: i for i, name in enumerate(LABEL_ORDER)}
    return sorted(set(labels), key=lambda y: (rank.get(y, len(rank)), y))


def artifacts(problems: Sequence[Problem], tokenize: Tokenizer, labels: Sequence[str],
              alpha: float = ALPHA) -> tuple[dict[str, Any], list[dict[str, Any]],
                                             dict[str, dict[str, int]]]:
    counts: dict[str, Counter] = defaultdict(Counter)
    for p in problems:
        lang = language_of(p)
        for token in set(tokenize(p.premise, lang)) | set(tokenize(p.hypothesis, lang)):
            counts[token][p.label] += 1
    tests = len(counts) * len(labels)
    p0 = 1.0 / len(labels)
    threshold = alpha / tests if tests else alpha
    method = {"text": TOKEN_TEXT, "tokenizer": _tokenizer_names(problems), "test": "one-sided exact binomial", "alpha": alpha,
              "correction": "bonferroni", "labels": list(labels), "prior": p0,
              "tokens": len(counts), "tests": tests, "threshold": threshold}
    found = []
    if len(labels) > 1:
        log_thr = math.log(threshold)
        share = Counter(p.label for p in problems)
        for token, by_label in counts.items():
            n = sum(by_label.values())
            for y, k in by_label.items():
                if k <= n * p0:
                    continue
                log_p = log_binom_sf(k, n, p0)
                if log_p <= log_thr:
                    # Also significant against the label's share of the whole set? If not,
                    # the token only inherits an overall label imbalance.
                    beyond = log_binom_sf(k, n, share[y] / len(problems)) <= log_thr
                    found.append({"token": token, "label": y, "n": n, "count": k,
                                  "p_hat": k / n, "p_value": math.exp(log_p),
                                  "log10_p_value": log_p / math.log(10),
                                  "beyond_label_share": beyond})
    found.sort(key=lambda a: (a["log10_p_value"], -a["n"], a["token"], a["label"]))
    return method, found, {t: dict(c) for t, c in counts.items()}


def _naive_bayes_fold(token_count: Mapping[str, Counter], class_count: Counter,
                      test: Sequence[tuple[list[str], str]],
                      labels: Sequence[str]) -> tuple[int, int]:
    """(correct NB predictions, correct majority predictions) on test, for a model with
    these training counts."""
    vocab = set().union(*token_count.values())
    size = len(vocab)
    present = [y for y in labels if class_count[y]]
    total = sum(class_count.values())
    prior = {y: math.log(class_count[y] / total) for y in present}
    denom = {y: math.log(sum(token_count[y].values()) + size) for y in present}
    # log p(token | label) with add-one smoothing; a vocabulary token unseen with the label
    # scores -denom; tokens outside the training vocabulary are skipped.
    table = {y: {t: math.log(c + 1) - denom[y] for t, c in token_count[y].items()}
             for y in present}
    majority = max(present, key=lambda y: (class_count[y], -labels.index(y)))
    nb = maj = 0
    for tokens, gold in test:
        known = [t for t in tokens if t in vocab]
        best, best_score = None, -math.inf
        for y in present:
            ty, miss = table[y], -denom[y]
            score = prior[y] + sum(ty.get(t, miss) for t in known)
            if score > best_score:
                best, best_score = y, score
        nb += best == gold
        maj += majority == gold
    return nb, maj


def hypothesis_only(problems: Sequence[Problem], tokenize: Tokenizer, labels: Sequence[str],
                    folds: int = FOLDS) -> dict[str, Any]:
    """k-fold cross-validated naive Bayes on hypothesis tokens vs the majority class."""
    n = len(problems)
    k = min(folds, n)
    result: dict[str, Any] = {"model": "multinomial naive Bayes, add-one smoothing, "
                              "hypothesis tokens", "folds": k, "problems": n,
                              "chance": 1.0 / len(labels)}
    if k < 2:
        result.update(accuracy=None, majority=None)
        return result
    order = sorted(problems, key=lambda p: (p.id, p.file, p.line))
    data = [(tokenize(p.hypothesis, language_of(p)), p.label) for p in order]
    # Fold f holds problems i with i mod k == f; training counts = all counts - fold counts.
    fold_tokens = [{y: Counter() for y in labels} for _ in range(k)]
    fold_classes = [Counter() for _ in range(k)]
    for i, (tokens, y) in enumerate(data):
        fold_tokens[i % k][y].update(tokens)
        fold_classes[i % k][y] += 1
    all_tokens = {y: sum((fold_tokens[f][y] for f in range(k)), Counter()) for y in labels}
    all_classes = sum(fold_classes, Counter())
    nb = maj = 0
    for f in range(k):
        train_tokens = {y: all_tokens[y] - fold_tokens[f][y] for y in labels}
        test = data[f::k]
        a, b = _naive_bayes_fold(train_tokens, all_classes - fold_classes[f], test, labels)
        nb, maj = nb + a, maj + b
    result.update(accuracy=nb / n, majority=maj / n)
    return result


def filling(record: Mapping[str, Any]) -> tuple | None:
    """The record's content words (see the module docstring), or None without slots."""
    slots = record.get("slots")
    if not isinstance(slots, dict):
        return None
    parts = []
    for name in sorted(slots, key=str):
        value = slots[name]
        if isinstance(value, dict):
            if "start" in value or "end" in value or "unit" in value:
                continue  # a time point, interval or unit
            if "lemma" in value:
                cases = _CASE_SET.intersection(value)
                shown: Any = (value["lemma"],) + tuple(
                    f"{c}={value[c]}" for c in CASE_KEYS if c in cases)
            else:
                shown = next((value[k] for k in ("name", "value", "text") if k in value),
                             json.dumps(value, sort_keys=True, ensure_ascii=False))
            if isinstance(shown, (dict, list)):
                shown = json.dumps(shown, sort_keys=True, ensure_ascii=False)
        elif isinstance(value, list):
            shown = json.dumps(value, sort_keys=True, ensure_ascii=False)
        else:
            shown = value
        parts.append((str(name), shown))
    return tuple(parts) or None


def _keys(problems: Sequence[Problem]) -> dict[str, set]:
    keys: dict[str, set] = {kind: set() for kind in OVERLAP_KINDS}
    for p in problems:
        keys["pairs"].add((p.premise, p.hypothesis))
        keys["premises"].add(p.premise)
        keys["hypotheses"].add(p.hypothesis)
        if p.filling is not None:
            keys["fillings"].add(p.filling)
    return keys


def _show(kind: str, key: Any) -> str:
    if kind == "pairs":
        return f"{key[0]} => {key[1]}"
    if kind == "fillings":
        return ", ".join(f"{name}={value if not isinstance(value, tuple) else ' '.join(map(str, value))}"
                         for name, value in key)
    return str(key)


def split_hygiene(groups: Mapping[str, Sequence[Problem]]) -> dict[str, Any]:
    keys = {name: _keys(ps) for name, ps in groups.items()}
    overlap: dict[str, dict[str, int]] = {}
    examples: dict[str, dict[str, list[str]]] = {}
    for a, b in combinations(groups, 2):
        pair = f"{a}|{b}"
        overlap[pair] = {}
        for kind in OVERLAP_KINDS:
            shared = keys[a][kind] & keys[b][kind]
            overlap[pair][kind] = len(shared)
            if shared:
                examples.setdefault(pair, {})[kind] = sorted(_show(kind, s) for s in shared)[:3]
    duplicates = {}
    for name, ps in groups.items():
        seen_pairs = Counter((p.premise, p.hypothesis) for p in ps)
        duplicates[name] = sum(c - 1 for c in seen_pairs.values())
    seen: dict[str, dict[str, int]] = {}
    for name, ps in groups.items():
        flags = Counter(p.seen for p in ps if p.seen is not None)
        if flags:
            seen[name] = {"seen": flags[True], "unseen": flags[False],
                          "without_flag": len(ps) - flags[True] - flags[False]}
    no_filling = sum(1 for ps in groups.values() for p in ps if p.filling is None)
    # A record in train.jsonl whose own field says "test" (split files given separately).
    misplaced = Counter(p.file for ps in groups.values() for p in ps
                        if p.split_field is not None and p.split_field != p.split)
    return {"overlap": overlap, "overlap_examples": examples, "duplicates": duplicates,
            "seen": seen, "records_without_filling": no_filling,
            "split_field_mismatch": dict(misplaced)}


def label_distributions(problems: Sequence[Problem], groups: Mapping[str, Sequence[Problem]],
                        labels: Sequence[str]) -> dict[str, Any]:
    def count(ps: Iterable[Problem]) -> dict[str, int]:
        c = Counter(p.label for p in ps)
        return {y: c[y] for y in labels if c[y]}

    by: dict[str, dict[str, dict[str, int]]] = {}
    for name in LABEL_FIELDS:
        values: dict[str, list[Problem]] = defaultdict(list)
        for p in problems:
            if name in p.fields:
                values[p.fields[name]].append(p)
        if values:
            by[name] = {v: count(ps) for v, ps in sorted(values.items())}
    return {"labels": list(labels), "overall": count(problems),
            "by_split": {name: count(ps) for name, ps in groups.items()}, "by": by}


# -- entry points --------------------------------------------------------------------------

def audit(path: str | Path, alpha: float = ALPHA, folds: int = FOLDS) -> dict[str, Any]:
    """Audit a JSONL file or a folder of split files; see the module docstring.

    The result holds ``artifacts``, ``artifact_test``, ``hypothesis_only``, ``overlap``,
    ``overlap_examples``, ``duplicates``, ``seen``, ``labels``, ``files``, ``records``,
    ``languages`` and ``token_counts`` (every token's label counts, for the plot; the
    CLI's --json leaves it out)."""
    files = input_files(path)
    problems = read_problems(files)
    result = audit_problems(problems, alpha, folds)
    result["path"] = str(path)
    result["files"] = [{"file": str(f), "records": sum(1 for p in problems if p.file == str(f))}
                       for f in files]
    return result


def audit_problems(problems: Sequence[Problem], alpha: float = ALPHA,
                   folds: int = FOLDS) -> dict[str, Any]:
    """The audit of problems already read (grouped into splits by ``Problem.split``)."""
    labels = _label_order(p.label for p in problems)
    found_groups: dict[str, list[Problem]] = {}
    for p in problems:
        found_groups.setdefault(p.split, []).append(p)
    # train first, test last ("train|test"), others in the order met
    rank = {name: i for i, name in enumerate(SPLIT_ORDER)}
    groups = {name: found_groups[name] for name in sorted(
        found_groups, key=lambda s: rank.get(s, rank["test"] - 0.5))}
    tokenize = Tokenizer()
    method, found, token_counts = artifacts(problems, tokenize, labels, alpha)
    result: dict[str, Any] = {
        "path": None,
        "files": [],
        "records": len(problems),
        "splits": {name: len(ps) for name, ps in groups.items()},
        "languages": dict(Counter(language_of(p) for p in problems)),
        "artifact_test": method,
        "artifacts": found,
        "hypothesis_only": hypothesis_only(problems, tokenize, labels, folds),
    }
    if len(groups) > 1:
        result["hypothesis_only"]["per_split"] = {
            name: {k: v for k, v in hypothesis_only(ps, tokenize, labels, folds).items()
                   if k in ("accuracy", "majority", "folds", "problems")}
            for name, ps in groups.items()}
    result.update(split_hygiene(groups))
    result["labels"] = label_distributions(problems, groups, labels)
    result["diversity"] = diversity([(p.premise, p.hypothesis) for p in problems],
                                    [p.units for p in problems])
    result["token_counts"] = token_counts
    return result


def json_report(result: Mapping[str, Any]) -> str:
    """The result as one JSON object (without the per-token counts)."""
    return json.dumps({k: v for k, v in result.items() if k != "token_counts"},
                      ensure_ascii=False, sort_keys=False)


def _cell(value: Any) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f} %"


def _table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def markdown_report(result: Mapping[str, Any], max_artifacts: int = 50) -> str:
    out: list[str] = [f"# Audit of {result['path']}", ""]
    files = ", ".join(f"{f['file']} ({f['records']:,})" for f in result["files"])
    out += [f"{result['records']:,} problems in {files}; splits: "
            + ", ".join(f"{s} {n:,}" for s, n in result["splits"].items())
            + "; languages: " + ", ".join(f"{k} {v:,}" for k, v in result["languages"].items())
            + ".", ""]

    m = result["artifact_test"]
    out += ["## Token–label artifacts", "",
            (f"Tokens of {m['text']} (presence per problem), one-sided exact binomial test "
             f"of p(label | token) against the uniform prior {m['prior']:.3g}; Bonferroni "
             f"over {m['tokens']:,} tokens x {len(m['labels'])} labels = {m['tests']:,} "
             f"tests, significant at p <= {m['alpha']} / {m['tests']:,} = "
             f"{m['threshold']:.3g}."), ""]
    found = result["artifacts"]
    overall = result["labels"]["overall"]
    shares = {y: c / result["records"] for y, c in overall.items()}
    if len(m["labels"]) > 1 and max(shares.values()) - min(shares.values()) > 0.02:
        out += ["The labels are not uniform ("
                + ", ".join(f"{y} {100 * s:.1f} %" for y, s in shares.items())
                + "): a token found in most problems inherits that imbalance. \"beyond label "
                "share\" says whether the token is also significant against its label's share "
                "of the whole set.", ""]
    if len(m["labels"]) < 2:
        out += ["Only one label: nothing to test.", ""]
    elif not found:
        out += ["No token is significantly associated with a label.", ""]
    else:
        shown = found[:max_artifacts]
        out += _table(["token", "label", "n", "count", "p̂", "p-value", "beyond label share"],
                      [(a["token"], a["label"], f"{a['n']:,}", f"{a['count']:,}",
                        f"{a['p_hat']:.3f}",
                        f"{a['p_value']:.2e}" if a["p_value"] > 0
                        else f"1e{a['log10_p_value']:.0f}",
                        "yes" if a["beyond_label_share"] else "no") for a in shown])
        if len(found) > len(shown):
            out.append(f"\n… and {len(found) - len(shown)} more (see --json).")
        out.append("")

    h = result["hypothesis_only"]
    out += ["## Hypothesis-only baseline", "",
            f"{h['model']}, {h['folds']}-fold cross-validation (folds by sorted id).", ""]
    rows = [("all", f"{h['problems']:,}", _pct(h["accuracy"]), _pct(h["majority"]),
             _pct(h["chance"]))]
    for name, s in h.get("per_split", {}).items():
        rows.append((name, f"{s['problems']:,}", _pct(s["accuracy"]), _pct(s["majority"]),
                     _pct(h["chance"])))
    out += _table(["problems", "n", "accuracy", "majority class", "chance"], rows) + [""]

    out += ["## Split hygiene", ""]
    if result["overlap"]:
        out += [("Distinct items shared by two splits (fillings: the content words of the "
                 "non-time slots)."), ""]
        out += _table(["splits", *OVERLAP_KINDS],
                      [(pair, *(counts[k] for k in OVERLAP_KINDS))
                       for pair, counts in result["overlap"].items()])
        for pair, kinds in result["overlap_examples"].items():
            for kind, examples in kinds.items():
                out.append(f"\n{pair} share {kind}, e.g. " + "; ".join(examples))
        out.append("")
    else:
        out += ["One split only: no overlap to check.", ""]
    dup = {k: v for k, v in result["duplicates"].items() if v}
    out += [("Duplicate (premise, hypothesis) pairs within a split: "
             + ", ".join(f"{k} {v}" for k, v in dup.items())) if dup
            else "No (premise, hypothesis) pair occurs twice within a split.", ""]
    for name, count in result["split_field_mismatch"].items():
        out += [f"{name}: {count} record(s) whose `split` field names another split.", ""]
    if result["seen"]:
        out += _table(["split", "seen", "unseen", "without flag"],
                      [(name, s["seen"], s["unseen"], s["without_flag"])
                       for name, s in result["seen"].items()]) + [""]

    out += ["## Diversity", "", *diversity_markdown(result["diversity"])]

    lab = result["labels"]
    labels = lab["labels"]
    out += ["## Label distribution", ""]
    rows = [("all", *(lab["overall"].get(y, 0) for y in labels), result["records"])]
    if len(lab["by_split"]) > 1:
        rows += [(name, *(c.get(y, 0) for y in labels), sum(c.values()))
                 for name, c in lab["by_split"].items()]
    out += _table(["split", *labels, "total"], rows) + [""]
    for name, values in lab["by"].items():
        out += [f"### by {name}", ""]
        out += _table([name, *labels, "total"],
                      [(v, *(c.get(y, 0) for y in labels), sum(c.values()))
                       for v, c in values.items()]) + [""]
    return "\n".join(out).rstrip() + "\n"


# -- plot ----------------------------------------------------------------------------------

def require_matplotlib():
    """matplotlib.pyplot with the Agg backend, or a user error saying how to install it."""
    try:
        import matplotlib
    except ImportError:
        raise UsageError("matplotlib is not installed: pip install 'nligen[plot]'",
                         "--plot") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


_CJK_FONTS = ("Noto Sans CJK JP", "Noto Sans JP", "IPAexGothic", "IPAGothic", "TakaoGothic",
              "Hiragino Sans", "Yu Gothic", "MS Gothic", "Source Han Sans JP")


def plot_artifacts(result: Mapping[str, Any], png_path: str | Path,
                   annotate: int = 15) -> None:
    """A plot like Jamp's figure 3: for every token and label, the token's frequency n
    (log x axis) against p̂ = p(label | token); the curve is the smallest p̂ significant at
    each n; significant tokens are named."""
    plt = require_matplotlib()
    import warnings

    from matplotlib import font_manager

    m = result["artifact_test"]
    labels = m["labels"]
    counts = result["token_counts"]
    installed = {f.name for f in font_manager.fontManager.ttflist}
    family = [f for f in _CJK_FONTS if f in installed] + ["DejaVu Sans"]
    colors = ["tab:green", "tab:orange", "tab:red", "tab:blue", "tab:purple", "tab:brown"]
    with warnings.catch_warnings(), plt.rc_context({"font.family": family}):
        warnings.simplefilter("ignore")  # missing CJK glyphs when no CJK font is installed
        fig, ax = plt.subplots(figsize=(8, 5), dpi=100)
        for i, y in enumerate(labels):
            xs, ys = [], []
            for by_label in counts.values():
                k = by_label.get(y, 0)
                if k:
                    n = sum(by_label.values())
                    xs.append(n)
                    ys.append(k / n)
            ax.scatter(xs, ys, s=8, alpha=0.5, color=colors[i % len(colors)], label=y,
                       linewidths=0)
        n_max = max((sum(c.values()) for c in counts.values()), default=1)
        if len(labels) > 1:
            grid = sorted({max(1, round(10 ** (j / 50)))
                           for j in range(int(50 * math.log10(max(n_max, 2))) + 2)})
            curve = [(n, min_significant_p_hat(n, m["prior"], m["threshold"])) for n in grid]
            curve = [(n, v) for n, v in curve if v is not None]
            if curve:
                ax.plot([c[0] for c in curve], [c[1] for c in curve], color="green",
                        linewidth=1.5, label=f"significant (α = {m['alpha']}, Bonferroni)")
            ax.axhline(m["prior"], color="grey", linewidth=0.8, linestyle="--")
        cjk_font = family[0] != "DejaVu Sans"
        for rank, a in enumerate(result["artifacts"][:annotate], 1):
            # Without a CJK font, Japanese tokens would be boxes: name them by their rank
            # in the report's artifact table instead.
            name = a["token"] if cjk_font or not _JAPANESE.search(a["token"]) else f"#{rank}"
            ax.annotate(name, (a["n"], a["p_hat"]), fontsize=7,
                        xytext=(3, 3), textcoords="offset points")
        ax.set_xscale("log")
        ax.set_xlim(0.8, max(n_max, 2) * 1.5)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("n (problems containing the token)")
        ax.set_ylabel("p̂(label | token)")
        ax.set_title(f"Token–label artifacts: {Path(str(result['path'])).name} "
                     f"({result['records']:,} problems)")
        ax.legend(loc="lower right", fontsize=8)
        fig.tight_layout()
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png")
        plt.close(fig)
    _write_bytes_atomically(Path(png_path), buffer.getvalue())


def _write_bytes_atomically(path: Path, data: bytes) -> None:
    import os
    import tempfile

    try:
        if path.is_dir():
            raise UsageError("is a folder, not a PNG file name", str(path))
        folder = path.parent
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            mask = os.umask(0)
            os.umask(mask)
            os.chmod(tmp, 0o666 & ~mask)  # mkstemp makes 0600; give the usual mode
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError as exc:
        raise UsageError(f"cannot write: {exc.strerror}", str(path)) from None

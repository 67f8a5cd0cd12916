"""``gen eval --gold PAIRS --scores FILE``: a language model's accuracy on minimal pairs.

A pair is right when the model scores its acceptable sentence higher than the
unacceptable one (BLiMP's ``simple_LM_method``; a tie is wrong). The scores are
log-probabilities, one JSON object per line, in either of two shapes (they may be mixed):

* ``{"sentence": "...", "logprob": -23.4}``: a sentence's score, matched to the pairs by
  its text (a sentence scored twice must have the same score);
* ``{"pairID": "17", "good": -23.4, "bad": -25.1}``: one pair's two scores;

or lm-evaluation-harness's ``--log_samples`` output of a ``gen export lm-eval`` pair task
(a ``samples_*.jsonl`` file, or the ``--output_path`` folder: every such file under it):
each sample's doc keeps its ``pairID``, and its two log-likelihoods are the good and the
bad sentence's.

The report gives the accuracy overall and per phenomenon (``linguistics_term``),
paradigm (``UID``), ``field``, split and seen / unseen where the gold records have them.
Every pair of the gold file must be scored.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Any

from ..errors import InputError
from .evaluate import _lm_eval_files, _read_lines, _show, choice_scores, json_object, jsonl_objects

GROUPS = (("phenomenon", "linguistics_term"), ("paradigm", "UID"), ("field", "field"),
          ("split", "split"), ("seen", "seen"))


def _text(record: Mapping[str, Any], key: str, where: str) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not value:
        raise InputError(f"{key!r} must be a non-empty text, not {_show(value)}", where)
    return value


def _pair_id(value: Any, where: str) -> str:
    if isinstance(value, str) and value:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise InputError(f"'pairID' must be a string, not {_show(value)}", where)


def _score(value: Any, where: str, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(f"{what} must be a finite number, not {_show(value)}", where)
    return float(value)


def read_pairs(path: str | os.PathLike) -> list[dict[str, Any]]:
    """The gold pairs of a ``gen pairs`` JSONL file (BLiMP's fields)."""
    name = os.fspath(path)
    pairs: list[dict[str, Any]] = []
    ids: dict[str, int] = {}
    for number, where, record in jsonl_objects(path):
        pair = {"line": number, "good": _text(record, "sentence_good", where),
                "bad": _text(record, "sentence_bad", where),
                "id": _pair_id(record.get("pairID"), where)}
        if pair["id"] in ids:
            raise InputError(f"pairID {pair['id']!r} also on line {ids[pair['id']]}", where)
        ids[pair["id"]] = number
        for group, key in GROUPS:
            value = record.get(key)
            if key == "seen":
                if isinstance(value, bool):
                    pair[group] = "seen" if value else "unseen"
            elif isinstance(value, str) and value:
                pair[group] = value
        pairs.append(pair)
    if not pairs:
        raise InputError("no pairs (gold records with sentence_good and sentence_bad)", name)
    return pairs


def _score_files(path: str | os.PathLike) -> list[tuple[str, list[str]]]:
    if os.path.isdir(path):
        return _lm_eval_files(path)
    return [(os.fspath(path), _read_lines(path))]


def _harness_scores(entry: Mapping[str, Any], where: str) -> tuple[str, float, float]:
    """(pairID, good, bad) of an lm-eval sample: its doc's pairID, its two choices'
    log-likelihoods in the doc's order (sentence_good, sentence_bad)."""
    doc = entry.get("doc")
    if not isinstance(doc, Mapping):
        raise InputError("lm-eval sample without its 'doc'", where)
    responses = entry.get("filtered_resps", entry.get("resps"))
    if not isinstance(responses, list) or len(responses) != 2:
        raise InputError("an lm-eval pair sample has two responses (good, bad)", where)
    good, bad = choice_scores(responses, where)
    return _pair_id(doc.get("pairID"), where), good, bad


def read_scores(path: str | os.PathLike, pairs: list[dict[str, Any]]) -> list[tuple[float, float]]:
    """(good score, bad score) of every gold pair, in order."""
    name = os.fspath(path)
    by_sentence: dict[str, tuple[float, str]] = {}
    by_pair: dict[str, tuple[float, float, str]] = {}
    known = {p["id"] for p in pairs}
    lines = [(f"{file}:{number}", line) for file, file_lines in _score_files(path)
             for number, line in enumerate(file_lines, 1)]
    for where, line in lines:
        if not line.strip():
            continue
        entry = json_object(line, where)
        if "doc" in entry and ("filtered_resps" in entry or "resps" in entry):
            pid, good, bad = _harness_scores(entry, where)
            if pid not in known:
                raise InputError(f"pairID {pid!r} is not in the gold pairs", where)
            if pid in by_pair:
                raise InputError(f"pairID {pid!r} scored twice (also {by_pair[pid][2]})", where)
            by_pair[pid] = (good, bad, where)
        elif "sentence" in entry:
            sentence = _text(entry, "sentence", where)
            score = _score(entry.get("logprob"), where, "'logprob'")
            before = by_sentence.get(sentence)
            if before is not None and before[0] != score:
                raise InputError(f"sentence {_show(sentence)} scored {score} here and "
                                 f"{before[0]} at {before[1]}", where)
            by_sentence[sentence] = (score, where)
        elif "pairID" in entry:
            pid = _pair_id(entry["pairID"], where)
            if pid not in known:
                raise InputError(f"pairID {pid!r} is not in the gold pairs", where)
            if pid in by_pair:
                raise InputError(f"pairID {pid!r} scored twice (also {by_pair[pid][2]})", where)
            by_pair[pid] = (_score(entry.get("good"), where, "'good'"),
                            _score(entry.get("bad"), where, "'bad'"), where)
        else:
            raise InputError("a score line needs 'sentence' and 'logprob', or 'pairID', "
                             "'good' and 'bad'", where)
    out = []
    for p in pairs:
        if p["id"] in by_pair:
            good, bad, _ = by_pair[p["id"]]
        else:
            missing = [s for s in (p["good"], p["bad"]) if s not in by_sentence]
            if missing:
                raise InputError(f"no score for pair {p['id']} (line {p['line']} of the gold): "
                                 f"sentence {_show(missing[0])}", name)
            good, bad = by_sentence[p["good"]][0], by_sentence[p["bad"]][0]
        out.append((good, bad))
    return out


def _stats(right: int, n: int) -> dict[str, Any]:
    return {"accuracy": right / n, "correct": right, "n": n}


def evaluate_scores(gold_path: str | os.PathLike, scores_path: str | os.PathLike) -> dict[str, Any]:
    """Accuracy (good scored higher than bad) overall and per grouping."""
    pairs = read_pairs(gold_path)
    scores = read_scores(scores_path, pairs)
    hits = [good > bad for good, bad in scores]
    groups: dict[str, dict[str, dict[str, Any]]] = {}
    for group, _ in GROUPS:
        values: dict[str, list[bool]] = {}
        for p, hit in zip(pairs, hits):
            if group in p:
                values.setdefault(p[group], []).append(hit)
        if values:
            groups[group] = {v: _stats(sum(h), len(h)) for v, h in sorted(values.items())}
    return {"gold": os.fspath(gold_path), "scores": os.fspath(scores_path),
            "method": "good > bad (simple_LM_method; a tie is wrong)",
            **_stats(sum(hits), len(hits)), "groups": groups}


def markdown_report(result: Mapping[str, Any]) -> str:
    def row(name: str, s: Mapping[str, Any]) -> str:
        return f"| {name} | {100 * s['accuracy']:.2f} | {s['correct']} | {s['n']} |"

    out = [f"# Minimal-pair accuracy of {result['scores']} on {result['gold']}", "",
           "| | accuracy (%) | correct | pairs |", "|---|---:|---:|---:|",
           row("all", result), "", f"A pair is right when {result['method']}.", ""]
    for name, table in result["groups"].items():
        out += [f"## By {name}", "", f"| {name} | accuracy (%) | correct | pairs |",
                "|---|---:|---:|---:|"]
        out += [row(value, stats) for value, stats in table.items()]
        out.append("")
    return "\n".join(out)

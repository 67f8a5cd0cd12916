"""Scoring a model's predictions against a generated challenge set (``gen eval``).

The generator's records already carry every field the papers break accuracy down by, so
the numbers of Jamp's table 8 (seen / unseen accuracy and their difference Δ per split)
and of WOGLI's table 3 (accuracy per set and per hypothesis type) come straight from a
gold file and a predictions file, with no notebook in between.

Predictions are either JSONL (``{"id": ..., "label": ...}`` per line, matched to the gold
records by id) or plain text with one label per line, aligned with the gold records; or
what an evaluation harness wrote for a set exported with ``gen export``:
lm-evaluation-harness's ``--log_samples`` JSONL (a ``samples_*.jsonl`` file, or the folder
holding them; the choice with the highest log-likelihood is the prediction, matched by the
doc's ``id``) or llm-jp-eval's generated output (a JSON object whose ``samples`` hold
``input`` and ``generated``, as llm-jp-eval's offline inference writes
``*.eval-generated.json``; matched by premise and hypothesis). A generated text that is
no label counts as wrong (``no label`` in the confusion matrix).
Labels are compared case-insensitively. Three-way predictions on two-way gold are
collapsed as WOGLI's authors do (section 4: contradiction and neutral become
non-entailment), so a model fine-tuned on XNLI can be scored on WOGLI unchanged.

Every problem with the input is an :class:`~nligen.errors.InputError` whose ``where`` is
``FILE:LINE`` (or ``FILE`` when no line is at fault): the CLI prints it as one line.
"""

from __future__ import annotations

import json
import math
import os
import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..datafiles import read_utf8
from ..errors import InputError

THREE_WAY = ("entailment", "neutral", "contradiction")
TWO_WAY = ("entailment", "non-entailment")
KNOWN_LABELS = ("entailment", "neutral", "contradiction", "non-entailment")
#: spellings of non-entailment used by other datasets (RTE's ``not_entailment``)
LABEL_ALIASES = {"non_entailment": "non-entailment", "not_entailment": "non-entailment",
                 "not-entailment": "non-entailment"}
#: WOGLI's released TSV codes (``--format wogli-tsv``), accepted in gold TSV files
WOGLI_CODES = {"1": "non-entailment", "2": "entailment"}
#: a harness's generated answer that is no label (counted wrong)
NO_LABEL = "no label"
#: Japanese label words a model may answer with (gen export's lm-eval choices)
JA_LABEL_WORDS = {"含意": "entailment", "矛盾": "contradiction", "中立": "neutral",
                  "非含意": "non-entailment"}

#: Groupings reported, in report order. "label" is the gold label; every other grouping is
#: the record field of that name and is reported only when some gold record has the field.
GROUPINGS = ("label", "template", "fragment", "subfragment", "pattern", "set",
             "hypothesis_type", "time_format", "time_span", "seen")
#: the group of records whose field is missing or null (e.g. Jamp's now.usage templates
#: have no time expression, so no time_format)
NONE = "none"
DELTA_DEFINITION = "seen - unseen (as in Jamp's table 8: accuracy on seen minus accuracy " \
                   "on unseen test problems)"
_MISSING = object()


@dataclass
class GoldItem:
    """One gold problem: where it was read, its id and label, and its grouping fields."""

    line: int
    id: str | None
    label: str
    fields: dict[str, Any] = field(default_factory=dict)
    group: str | None = None  # the record's contrast group (``group``), if it has one
    pair: tuple[str, str] | None = None  # (premise, hypothesis), when the gold has them


# -- reading ------------------------------------------------------------------------------

def _read_lines(path: str | os.PathLike) -> list[str]:
    """The file's lines (UTF-8, BOM and CR tolerated). Only ``\\n`` ends a line, so line
    numbers are the ones an editor shows even when a JSON string holds U+2028."""
    _, text = read_utf8(os.fspath(path), InputError)
    return [line.rstrip("\r") for line in text.split("\n")]


def jsonl_objects(path: str | os.PathLike) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """(line number, "FILE:LINE", object) for each non-blank line of a JSONL file; a
    line that is not a JSON object is an InputError naming it."""
    name = os.fspath(path)
    for number, line in enumerate(_read_lines(path), 1):
        if line.strip():
            where = f"{name}:{number}"
            yield number, where, json_object(line, where)


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def json_object(line: str, where: str,
                decode: Callable[[str], Any] = json.loads) -> dict[str, Any]:
    """One JSONL line as a dict, or an InputError naming ``where`` (shared with audit)."""
    try:
        value = decode(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON: {exc.msg} (column {exc.colno})", where) from None
    except (ValueError, RecursionError) as exc:
        raise InputError(f"not JSON: {type(exc).__name__}", where) from None
    if not isinstance(value, dict):
        raise InputError(f"not a JSON object but {type(value).__name__}", where)
    return value


def normalise_label(value: Any) -> str | None:
    """The canonical spelling of a label ("ENTAILMENT" -> "entailment"), or None when it
    is not a known label."""
    if not isinstance(value, str):
        return None
    text = value.strip().lower()
    text = LABEL_ALIASES.get(text, text)
    return text if text in KNOWN_LABELS else None


def _label(value: Any, where: str, what: str) -> str:
    label = normalise_label(value)
    if label is None:
        raise InputError(f"unknown {what} {_show(value)} (known: {', '.join(KNOWN_LABELS)})",
                         where)
    return label


def _item_id(value: Any, where: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise InputError(f"'id' must be a string, not {_show(value)}", where)


def read_gold(path: str | os.PathLike) -> list[GoldItem]:
    """Gold records from a JSONL record file (as the generator writes it) or, for a
    ``.tsv`` file, from a TSV with a header (``--format tsv``, ``jamp-tsv`` or
    ``wogli-tsv``)."""
    if os.fspath(path).lower().endswith(".tsv"):
        return _read_gold_tsv(path)
    name = os.fspath(path)
    items: list[GoldItem] = []
    seen_ids: dict[str, int] = {}
    for number, where, record in jsonl_objects(path):
        if "label" not in record:
            raise InputError("record has no 'label'", where)
        label = _label(record["label"], where, "gold label")
        item_id = _item_id(record["id"], where) if "id" in record else None
        if item_id is not None:
            if item_id in seen_ids:
                raise InputError(f"duplicate id {_show(item_id)} (first on line "
                                 f"{seen_ids[item_id]})", where)
            seen_ids[item_id] = number
        fields = {k: record[k] for k in GROUPINGS[1:] if k in record}
        items.append(GoldItem(number, item_id, label, fields, _group(record.get("group")),
                              _pair(record.get("premise"), record.get("hypothesis"))))
    if not items:
        raise InputError("no gold records", name)
    return items


def _pair(premise: Any, hypothesis: Any) -> tuple[str, str] | None:
    if isinstance(premise, str) and isinstance(hypothesis, str):
        return premise, hypothesis
    return None


def _group(value: Any) -> str | None:
    if value is None or value == "":
        return None
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


# TSV columns that carry a grouping field under another name (Jamp's released columns)
_TSV_FIELD = {"template_num": "template"}


def _read_gold_tsv(path: str | os.PathLike) -> list[GoldItem]:
    """A TSV with a header: ``label`` (or Jamp's ``gold_label``; WOGLI's 1 / 2 codes are
    read as non-entailment / entailment), optional ``id`` and grouping columns. Empty
    cells and Jamp's ``None`` are null; ``seen`` is ``true`` / ``false``."""
    name = os.fspath(path)
    lines = _read_lines(path)
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise InputError("no gold records", name)
    header = lines[0].split("\t")
    label_column = next((c for c in ("label", "gold_label") if c in header), None)
    if label_column is None:
        raise InputError("the header has no 'label' or 'gold_label' column", f"{name}:1")
    items: list[GoldItem] = []
    seen_ids: dict[str, int] = {}
    for number, line in enumerate(lines[1:], 2):
        where = f"{name}:{number}"
        cells = line.split("\t")
        if len(cells) != len(header):
            raise InputError(f"{len(cells)} cells, but the header has {len(header)}", where)
        row = dict(zip(header, cells))
        raw_label = row[label_column].strip()
        label = _label(WOGLI_CODES.get(raw_label, raw_label), where, "gold label")
        item_id = row.get("id") or None
        if item_id is not None:
            if item_id in seen_ids:
                raise InputError(f"duplicate id {_show(item_id)} (first on line "
                                 f"{seen_ids[item_id]})", where)
            seen_ids[item_id] = number
        fields: dict[str, Any] = {}
        for column, cell in row.items():
            key = _TSV_FIELD.get(column, column)
            if key in GROUPINGS[1:]:
                value: Any = None if cell in ("", "None") else cell
                if key == "seen" and value is not None:
                    value = {"true": True, "false": False}.get(value.lower(), value)
                fields[key] = value
        items.append(GoldItem(number, item_id, label, fields, _group(row.get("group")),
                              _pair(row.get("premise"), row.get("hypothesis"))))
    if not items:
        raise InputError("no gold records", name)
    return items


def _is_jsonl(path: str | os.PathLike, lines: list[str]) -> bool:
    if os.fspath(path).lower().endswith((".jsonl", ".json")):
        return True
    first = next((line for line in lines if line.strip()), "")
    return first.lstrip().startswith("{")


def read_predictions(path: str | os.PathLike, gold: list[GoldItem],
                     gold_name: str) -> list[tuple[str, str]]:
    """For each gold item, in gold order: (predicted label, where it was read).

    JSONL predictions are matched by id; every gold item needs exactly one. One label per
    line is matched by position, so its length must equal the gold file's."""
    name = os.fspath(path)
    if os.path.isdir(path):  # lm-eval's --output_path
        return _lm_eval_predictions(_lm_eval_files(path), gold, gold_name)
    lines = _read_lines(path)
    harness = _harness_output(path, lines)
    if harness == "lm-eval":
        return _lm_eval_predictions([(name, lines)], gold, gold_name)
    if harness == "llm-jp-eval":
        return _llm_jp_eval_predictions(name, lines, gold, gold_name)
    if _is_jsonl(path, lines):
        return _keyed_predictions(name, lines, gold, gold_name)
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) > len(gold):
        raise InputError(f"{len(lines)} labels, but {gold_name} has {len(gold)} records "
                         "(one label per line must align with the gold file)",
                         f"{name}:{len(gold) + 1}")
    if len(lines) < len(gold):
        missing = gold[len(lines)]
        raise InputError(f"no prediction: {name} has {len(lines)} labels, but {gold_name} "
                         f"has {len(gold)} records (one label per line must align with the "
                         "gold file)", f"{gold_name}:{missing.line}")
    predictions = []
    for number, line in enumerate(lines, 1):
        where = f"{name}:{number}"
        if not line.strip():
            raise InputError("empty line (one label per line, aligned with the gold file)",
                             where)
        predictions.append((_label(line, where, "predicted label"), where))
    return predictions


def _keyed_predictions(name: str, lines: list[str], gold: list[GoldItem],
                       gold_name: str) -> list[tuple[str, str]]:
    def entries():
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            where = f"{name}:{number}"
            record = json_object(line, where)
            for key in ("id", "label"):
                if key not in record:
                    raise InputError(f"prediction has no {key!r}", where)
            yield (_item_id(record["id"], where),
                   _label(record["label"], where, "predicted label"), where, {})

    return _match_by_id(entries(), gold, gold_name, name,
                        no_id_hint=" (give one label per line instead)")


# -- harness outputs ----------------------------------------------------------------------

_LM_EVAL_KEYS = ("doc_id", "doc")


def _harness_output(path: str | os.PathLike, lines: list[str]) -> str | None:
    """"lm-eval" for lm-evaluation-harness's --log_samples JSONL, "llm-jp-eval" for a JSON
    object with generated samples, None for anything else (read as before)."""
    first = next((line for line in lines if line.strip()), "")
    if not first.lstrip().startswith("{"):
        return None
    try:
        value = json.loads(first)
    except (ValueError, RecursionError):
        value = None
    if isinstance(value, dict):
        if all(k in value for k in _LM_EVAL_KEYS) and (
                "resps" in value or "filtered_resps" in value):
            return "lm-eval"
        return "llm-jp-eval" if _generated_entries(value) is not None else None
    if not os.fspath(path).lower().endswith(".json"):
        return None
    try:  # one JSON object over several lines, as llm-jp-eval writes it
        value = json.loads("\n".join(lines))
    except (ValueError, RecursionError):
        return None
    return "llm-jp-eval" if isinstance(value, dict) and _generated_entries(value) is not None \
        else None


def _lm_eval_files(folder: str | os.PathLike) -> list[tuple[str, list[str]]]:
    """Every samples_*.jsonl under lm-eval's --output_path folder, in path order."""
    try:
        paths = sorted(p for p in Path(folder).rglob("samples_*.jsonl") if p.is_file())
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", os.fspath(folder)) from None
    if not paths:
        raise InputError("no samples_*.jsonl under this folder (run lm_eval with "
                         "--log_samples --output_path FOLDER)", os.fspath(folder))
    return [(str(p), _read_lines(p)) for p in paths]


def _number(value: Any, where: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if math.isnan(number):
        raise InputError(f"log-likelihood {_show(value)} is not a number", where)
    return number


def choice_scores(responses: list, where: str) -> list[float]:
    """The log-likelihood of each choice of an lm-eval multiple-choice sample."""
    scores = []
    for response in responses:
        while isinstance(response, list) and response and isinstance(response[0], list):
            response = response[0]  # 'resps' nests each [loglikelihood, is_greedy] once more
        if not isinstance(response, list) or not response:
            raise InputError(f"response {_show(response)} is not [log-likelihood, "
                             "is_greedy]", where)
        scores.append(_number(response[0], where))
    return scores


def _lm_eval_choice(record: Mapping[str, Any], where: str) -> str:
    """The label an lm-eval sample predicts: its highest-scoring choice (the first of
    equals, as lm-eval's argmax), read back through the doc's ``choice_labels`` (written
    by gen export) or, without them, the choice's text when it is a label; a generated
    answer (generate_until tasks) is read as llm-jp-eval's are."""
    responses = record.get("filtered_resps", record.get("resps"))
    if not isinstance(responses, list) or not responses:
        raise InputError("sample has no responses ('filtered_resps' or 'resps')", where)
    if all(isinstance(r, str) for r in responses):  # generate_until: the generated text
        return generated_label(responses[0])
    scores = choice_scores(responses, where)
    best = scores.index(max(scores))
    doc = record["doc"]
    labels = doc.get("choice_labels")
    if isinstance(labels, list) and len(labels) == len(scores):
        return _label(labels[best], where, "choice label")
    arguments = record.get("arguments")
    choice = None
    if isinstance(arguments, dict):
        args = arguments.get(f"gen_args_{best}")
        choice = args.get("arg_1") if isinstance(args, dict) else None
    elif isinstance(arguments, list) and best < len(arguments):
        args = arguments[best]
        choice = args[1] if isinstance(args, list) and len(args) > 1 else None
    label = normalise_label(choice.strip()) if isinstance(choice, str) else None
    label = label or (JA_LABEL_WORDS.get(choice.strip()) if isinstance(choice, str) else None)
    if label is None:
        raise InputError(f"cannot tell which label choice {best} ({_show(choice)}) stands "
                         "for: the doc has no 'choice_labels' (export the set with gen export "
                         "lm-eval)", where)
    return label


def _lm_eval_predictions(files: list[tuple[str, list[str]]], gold: list[GoldItem],
                         gold_name: str) -> list[tuple[str, str]]:
    def entries():
        for name, lines in files:
            for number, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                where = f"{name}:{number}"
                record = json_object(line, where)
                doc = record.get("doc")
                if not isinstance(doc, dict):
                    raise InputError("not an lm-eval sample (no 'doc' object)", where)
                if "id" not in doc:
                    raise InputError("the sample's doc has no 'id' to match with "
                                     f"{gold_name} (export the set with gen export lm-eval, "
                                     "which keeps each record's id)", where)
                yield (_item_id(doc["id"], where), _lm_eval_choice(record, where), where,
                       doc)

    return _match_by_id(entries(), gold, gold_name, ", ".join(n for n, _ in files))


def _match_by_id(entries, gold: list[GoldItem], gold_name: str, pred_name: str,
                 no_id_hint: str = "") -> list[tuple[str, str]]:
    """Predictions (id, label, where, doc) matched to the gold items by id; a doc that
    carries the item's label, premise or hypothesis must agree with the gold item (ids
    repeat across generated sets, so this catches predictions of another set)."""
    index: dict[str, int] = {}
    for i, item in enumerate(gold):
        if item.id is None:
            raise InputError(f"record has no 'id' to match the predictions of {pred_name} "
                             f"with{no_id_hint}", f"{gold_name}:{item.line}")
        index[item.id] = i
    found: dict[int, tuple[str, str]] = {}
    for item_id, label, where, doc in entries:
        if item_id not in index:
            raise InputError(f"unknown id {_show(item_id)} (not in {gold_name})", where)
        i = index[item_id]
        if i in found:
            first_file, _, first_line = found[i][1].rpartition(":")
            first = (f"on line {first_line}" if first_file == where.rpartition(":")[0]
                     else f"at {found[i][1]}")
            raise InputError(f"duplicate id {_show(item_id)} (first {first})", where)
        _same_item(doc, gold[i], gold_name, where)
        found[i] = (label, where)
    missing = [item for i, item in enumerate(gold) if i not in found]
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise InputError(f"no prediction for id {_show(missing[0].id)} in {pred_name}{more}",
                         f"{gold_name}:{missing[0].line}")
    return [found[i] for i in range(len(gold))]


def _same_item(doc: Mapping[str, Any], item: GoldItem, gold_name: str, where: str) -> None:
    label = normalise_label(doc.get("label"))
    if label is not None and label != item.label:
        raise InputError(f"id {_show(item.id)} is labelled {label} here but {item.label} on "
                         f"{gold_name}:{item.line}: these are predictions for another set",
                         where)
    if item.pair is not None and isinstance(doc.get("premise"), str) and (
            (doc.get("premise"), doc.get("hypothesis")) != item.pair):
        raise InputError(f"id {_show(item.id)} has another premise or hypothesis than on "
                         f"{gold_name}:{item.line}: these are predictions for another set",
                         where)


def generated_label(text: Any) -> str:
    """The label a generated answer gives (its first line, NFKC-normalised, without
    quotes or a final full stop; English or Japanese label words), or :data:`NO_LABEL`."""
    if not isinstance(text, str):
        return NO_LABEL
    text = unicodedata.normalize("NFKC", text)
    first = next((line.strip() for line in text.split("\n") if line.strip()), "")
    first = first.strip(" \t\"'`*「」。.")
    return normalise_label(first) or JA_LABEL_WORDS.get(first) or NO_LABEL


def _generated_entries(data: Mapping[str, Any]) -> list[Any] | None:
    """The generated samples of an llm-jp-eval output object: ``samples`` (the
    ``*.eval-generated.json`` of its offline inference: the dumped prompts with
    ``generated`` added) or ``outputs`` (a list, or lists per dataset, of records with
    ``input`` and ``pred``); None when it has neither."""
    samples = data.get("samples")
    if isinstance(samples, list) and samples and all(
            isinstance(s, dict) and "generated" in s for s in samples):
        return samples
    outputs = data.get("outputs")
    if isinstance(outputs, dict) and outputs and all(isinstance(v, list)
                                                     for v in outputs.values()):
        outputs = [entry for v in outputs.values() for entry in v]
    if isinstance(outputs, list) and outputs and all(
            isinstance(s, dict) and "input" in s and "pred" in s for s in outputs):
        return outputs
    return None


_INPUT_TAG = re.compile(r"^[^:：\n]{1,20}[:：] ?")


def _input_pair(text: Any) -> tuple[str, str] | None:
    """(premise, hypothesis) of an input "TAG：premise\nTAG：hypothesis"."""
    if not isinstance(text, str):
        return None
    lines = text.split("\n")
    if len(lines) != 2 or not all(_INPUT_TAG.match(line) for line in lines):
        return None
    return _INPUT_TAG.sub("", lines[0], count=1), _INPUT_TAG.sub("", lines[1], count=1)


def _llm_jp_eval_predictions(name: str, lines: list[str], gold: list[GoldItem],
                             gold_name: str) -> list[tuple[str, str]]:
    try:
        data = json.loads("\n".join(lines))
    except (ValueError, RecursionError):
        raise InputError("not JSON", name) from None
    entries = _generated_entries(data) or []
    by_pair: dict[tuple[str, str], list[int]] = {}
    for i, item in enumerate(gold):
        if item.pair is None:
            raise InputError(f"record has no premise and hypothesis to match the inputs of "
                             f"{name} with", f"{gold_name}:{item.line}")
        by_pair.setdefault(item.pair, []).append(i)
    found: dict[int, tuple[str, str]] = {}
    for number, entry in enumerate(entries):
        where = f"{name}: sample {number + 1}"
        pair = _input_pair(entry.get("input"))
        if pair is None:
            raise InputError("no 'input' of the form 前提：…\\n仮説：… to match with "
                             f"{gold_name}", where)
        waiting = [i for i in by_pair.get(pair, []) if i not in found]
        if not waiting:
            raise InputError("this input is not in " + gold_name if pair not in by_pair
                             else "duplicate input", where)
        i = waiting[0]
        expected = normalise_label(entry.get("gold"))
        if expected is not None and expected != gold[i].label:
            raise InputError(f"gold {expected} here but {gold[i].label} on {gold_name}:"
                             f"{gold[i].line}: these are predictions for another set", where)
        found[i] = (generated_label(entry.get("generated", entry.get("pred"))), where)
    missing = [item for i, item in enumerate(gold) if i not in found]
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise InputError(f"no prediction for this problem in {name}{more} (llm-jp-eval "
                         "scores max_num_samples samples: set it to -1 for all)",
                         f"{gold_name}:{missing[0].line}")
    return [found[i] for i in range(len(gold))]


# -- scoring ------------------------------------------------------------------------------

def _group_key(name: str, value: Any) -> str:
    if value is None or value is _MISSING:
        return NONE
    if name == "seen" and isinstance(value, bool):
        return "seen" if value else "unseen"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return str(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _natural(text: str) -> list[Any]:
    """Sort key: numbers by value, so template interval.comparison.3 precedes .26."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part)
            for part in re.split(r"(\d+)", text) if part]


#: Jamp's time formats from the smallest to the largest, then its intervals
JAMP_TIME_FORMATS = ("年", "月", "日", "時", "年月", "月日", "日時", "年月日", "月日時", "年月日時",
                     "年間", "ヶ月間", "月間", "日間", "時間")


def _order(name: str, keys: list[str], labels: tuple[str, ...]) -> list[str]:
    """Labels in their usual order, seen before unseen, Jamp's formats by size, the
    rest in natural order; the "none" group last."""
    fixed = {"label": list(labels), "seen": ["seen", "unseen"],
             "time_format": list(JAMP_TIME_FORMATS)}.get(name, [])
    rest = sorted((k for k in keys if k not in fixed and k != NONE), key=_natural)
    return [k for k in fixed if k in keys] + rest + ([NONE] if NONE in keys else [])


def _stats(correct: int, n: int) -> dict[str, Any]:
    return {"accuracy": correct / n, "correct": correct, "n": n}


def _consistency(members: Mapping[str, list[int]]) -> dict[str, Any]:
    """Over contrast groups (group -> its members' hits): the share with every member
    right (Gardner et al. 2020's consistency)."""
    consistent = sum(1 for hits in members.values() if all(hits))
    return {"consistency": consistent / len(members) if members else None,
            "consistent": consistent, "n_groups": len(members)}


def _scheme(gold: list[GoldItem], predicted: list[tuple[str, str]],
            gold_name: str) -> tuple[str, ...]:
    """Two-way when non-entailment occurs and the gold has no neutral / contradiction."""
    three = next((g for g in gold if g.label in ("neutral", "contradiction")), None)
    two = next((g for g in gold if g.label == "non-entailment"), None)
    if three and two:
        raise InputError(f"gold labels mix two-way (non-entailment, line {two.line}) and "
                         f"three-way ({three.label})", f"{gold_name}:{three.line}")
    if three:
        for label, where in predicted:
            if label == "non-entailment":
                raise InputError("two-way label 'non-entailment' predicted, but the gold "
                                 f"labels are three-way ({', '.join(THREE_WAY)})", where)
        return THREE_WAY
    if two or any(label == "non-entailment" for label, _ in predicted):
        return TWO_WAY
    return THREE_WAY


def evaluate(gold_path: str | os.PathLike, pred_path: str | os.PathLike) -> dict[str, Any]:
    """Accuracy of the predictions in ``pred_path`` on the gold records in ``gold_path``.

    Returns one JSON-ready object: ``accuracy``, ``correct`` and ``n`` overall;
    ``groups``: grouping name -> value -> ``{"accuracy", "correct", "n"}``; ``delta``:
    seen minus unseen accuracy (None without both); ``confusion``: gold label ->
    predicted label -> count; ``labels``, ``scheme`` and ``collapsed`` (predictions turned
    into non-entailment). When the gold records have ``group`` (contrast groups), also
    ``consistency`` (the share of groups whose every member is right), ``consistent``
    and ``n_groups``, overall and in each grouping's entries (over the members with that
    value); otherwise these are None (and absent from the entries)."""
    gold_name, pred_name = os.fspath(gold_path), os.fspath(pred_path)
    gold = read_gold(gold_path)
    predicted = read_predictions(pred_path, gold, gold_name)
    labels = _scheme(gold, predicted, gold_name)
    collapsed = 0
    preds = []
    for label, _ in predicted:
        if labels == TWO_WAY and label in ("neutral", "contradiction"):
            label = "non-entailment"
            collapsed += 1
        preds.append(label)

    present = [name for name in GROUPINGS[1:] if any(name in g.fields for g in gold)]
    counts: dict[str, dict[str, list[int]]] = {name: {} for name in ("label", *present)}
    # contrast groups: overall, and within each value of each grouping (a group's members
    # with that value)
    grouped = any(g.group is not None for g in gold)
    members: dict[str, list[int]] = {}
    members_by: dict[str, dict[str, dict[str, list[int]]]] = {name: {} for name in counts}
    no_label = sum(1 for p in preds if p == NO_LABEL)
    columns = list(labels) + ([NO_LABEL] if no_label else [])
    confusion = {g: {p: 0 for p in columns} for g in labels}
    correct_total = 0
    for item, pred in zip(gold, preds):
        hit = int(item.label == pred)
        correct_total += hit
        confusion[item.label][pred] += 1
        # a record without a group is a group of its own
        group = item.group if item.group is not None else f"\x00line {item.line}"
        if grouped:
            members.setdefault(group, []).append(hit)
        for name, table in counts.items():
            value = item.label if name == "label" else item.fields.get(name, _MISSING)
            key = _group_key(name, value)
            cell = table.setdefault(key, [0, 0])
            cell[0] += hit
            cell[1] += 1
            if grouped:
                members_by[name].setdefault(key, {}).setdefault(group, []).append(hit)

    groups = {name: {key: _stats(*table[key]) for key in _order(name, list(table), labels)}
              for name, table in counts.items()}
    if grouped:
        for name, table in groups.items():
            for key, stats in table.items():
                stats.update(_consistency(members_by[name][key]))
    seen = groups.get("seen", {})
    delta = (seen["seen"]["accuracy"] - seen["unseen"]["accuracy"]
             if "seen" in seen and "unseen" in seen else None)
    return {"accuracy": correct_total / len(gold), "correct": correct_total, "n": len(gold),
            "gold": gold_name, "predictions": pred_name,
            "scheme": "two-way" if labels == TWO_WAY else "three-way",
            "labels": list(labels), "collapsed": collapsed,
            **({"no_label": no_label} if no_label else {}),
            "delta": delta, "delta_definition": DELTA_DEFINITION,
            **(_consistency(members) if grouped else
               {"consistency": None, "consistent": None, "n_groups": None}),
            "groups": groups, "confusion": confusion}


# -- report -------------------------------------------------------------------------------

_TITLES = {"label": "gold label", "template": "template", "fragment": "fragment",
           "subfragment": "sub-fragment", "pattern": "pattern", "set": "set",
           "hypothesis_type": "hypothesis type", "time_format": "time format",
           "time_span": "time span", "seen": "seen / unseen"}


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _pct(value: float) -> str:
    return f"{100 * value:.2f}"


def _row(name: str, stats: Mapping[str, Any], grouped: bool = False) -> str:
    row = (f"| {_cell(name)} | {_pct(stats['accuracy'])} | {stats['correct']} | "
           f"{stats['n']} |")
    if grouped:
        row += (f" {_pct(stats['consistency'])} | {stats['consistent']} | "
                f"{stats['n_groups']} |")
    return row


def markdown_report(result: Mapping[str, Any]) -> str:
    """The result of :func:`evaluate` as Markdown: an overview in the layout of Jamp's
    table 8 (all, seen, unseen, Δ), one table per grouping (WOGLI's table 3 is the
    ``set`` and ``hypothesis type`` tables) and the confusion matrix. Accuracy in %."""
    grouped = result.get("consistency") is not None
    head = "| {} | accuracy (%) | correct | n |" + (
        " consistency (%) | consistent | groups |" if grouped else "") + (
        "\n|---|---:|---:|---:|" + ("---:|---:|---:|" if grouped else ""))
    out = [f"# Accuracy of {_cell(result['predictions'])} on {_cell(result['gold'])}", "",
           head.format(""), _row("all", result, grouped)]
    seen = result["groups"].get("seen", {})
    for key in ("seen", "unseen"):
        if key in seen:
            out.append(_row(key, seen[key], grouped))
    if result["delta"] is not None:
        out.append(f"| Δ (seen − unseen) | {_pct(result['delta'])} | | |"
                   + (" | | |" if grouped else ""))
    out.append("")
    note = f"Labels: {result['scheme']} ({', '.join(result['labels'])})."
    if grouped:
        note += (" Consistency: the share of contrast groups (records with the same "
                 "`group`) whose every member is right; in a table, of the members with "
                 "that value.")
    if result["collapsed"]:
        note += (f" {result['collapsed']} three-way predictions (neutral, contradiction) "
                 "were counted as non-entailment, as WOGLI does.")
    if result.get("no_label"):
        note += (f" {result['no_label']} generated answers were no label and count as "
                 f"wrong ({NO_LABEL}).")
    out += [note, ""]
    for name, table in result["groups"].items():
        out += [f"## By {_TITLES.get(name, name)}", "", head.format(_TITLES.get(name, name))]
        out += [_row(key, stats, grouped) for key, stats in table.items()]
        out.append("")
    labels = list(next(iter(result["confusion"].values())))  # + "no label" when it occurs
    out += ["## Confusion matrix (rows: gold, columns: predicted)", "",
            "| gold \\ predicted | " + " | ".join(labels) + " |",
            "|---|" + "---:|" * len(labels)]
    for gold_label, row in result["confusion"].items():
        out.append(f"| {gold_label} | " + " | ".join(str(row[p]) for p in labels) + " |")
    return "\n".join(out) + "\n"

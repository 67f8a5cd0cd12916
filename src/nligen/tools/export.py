"""Exports of a generated folder for the evaluation harnesses people use (``gen export``).

* ``llm-jp-eval``: one JSON file in llm-jp-eval's common evaluation format (``instruction``,
  ``output_length``, ``metrics``, ``few_shots``, ``samples`` of ``{"input", "output"}``),
  worded as llm-jp-eval's own NLI datasets are (see :data:`LLM_JP_EVAL_INSTRUCTIONS`).
* ``lm-eval``: a folder for lm-evaluation-harness's ``--include_path``: one multiple-choice
  task YAML per fragment / pattern / transformation (``dataset_path: json`` over a JSONL
  file beside it), a group YAML over them, the shared train file for few-shot examples
  and a README saying how to run it and score the output with ``gen eval``.

Every exported item keeps its record's ``id`` (in lm-eval's docs, which lm-eval copies into
its ``--log_samples`` output), so ``gen eval`` can score the harness's output per template,
fragment, pattern and contrast group. The engine knows nothing of families: the choices
per family (language, which field makes the subtasks) are the small tables below, with a
generic fallback for families of one's own (subtasks by ``template``; prompts in Japanese
when the premises are written in Japanese, in English otherwise).

Same folder and options, same bytes. Nothing is left behind on failure: files are
written atomically.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from ..errors import InputError, UsageError
from ..pairs import PAIR_RECORDS
from .evaluate import json_object, normalise_label

HARNESSES = ("llm-jp-eval", "lm-eval")

THREE_WAY = ("entailment", "contradiction", "neutral")  # llm-jp-eval's (and JNLI's) order
TWO_WAY = ("entailment", "non-entailment")

# -- per family -----------------------------------------------------------------------------

#: the language prompts are written in, per family (others: see :func:`_language`)
FAMILY_LANGUAGE = {"jamp": "ja", "stress": "ja", "wogli": "de"}
#: the record field whose values become lm-eval subtasks, per family
SUBTASK_FIELD = {"jamp": "fragment", "wogli": "pattern", "stress": "transform"}
GENERIC_SUBTASK_FIELD = "template"
#: the label scheme when the labels alone do not tell (a set with entailment only)
FAMILY_SCHEME = {"jamp": THREE_WAY, "stress": THREE_WAY, "wogli": TWO_WAY}

# -- lm-evaluation-harness: prompts and answer choices ---------------------------------------
#
# Japanese: the answer choices are the Japanese label words 含意 / 矛盾 / 中立 (in JNLI's order,
# as lm-eval's ja_leaderboard_jnli task has them): with English label words many models
# scored at chance on JNLI (Stability-AI/lm-evaluation-harness#110). Two-way Japanese sets
# answer 含意 / 非含意.
# German (WOGLI, two-way): a yes / no question, "Folgt die Hypothese aus der Prämisse?",
# answered Ja (entailment) / Nein (non-entailment), as lm-eval's German XNLI prompt answers
# with Ja / Nein; three-way German sets add Vielleicht (neutral).
# English (sets of one's own): Yes / No, or True / False / Neither as lm-eval's ANLI task.


@dataclass(frozen=True)
class McPrompt:
    """One multiple-choice prompt: the text before the answer, the word per label, and
    what stands between the prompt and the answer."""

    doc_to_text: str
    choices: Mapping[str, str]  # label -> answer word, in choice order
    target_delimiter: str


LM_EVAL_PROMPTS: dict[tuple[str, int], McPrompt] = {
    ("ja", 3): McPrompt("前提：{{premise}}\n仮説：{{hypothesis}}\n"
                        "質問：前提と仮説の関係は含意、矛盾、中立のどれですか。\n答え：",
                        {"entailment": "含意", "contradiction": "矛盾", "neutral": "中立"}, ""),
    ("ja", 2): McPrompt("前提：{{premise}}\n仮説：{{hypothesis}}\n"
                        "質問：前提と仮説の関係は含意、非含意のどちらですか。\n答え：",
                        {"entailment": "含意", "non-entailment": "非含意"}, ""),
    ("de", 3): McPrompt("Prämisse: {{premise}}\nHypothese: {{hypothesis}}\n"
                        "Frage: Ist die Hypothese wahr, wenn die Prämisse wahr ist? Ja, Nein "
                        "oder Vielleicht?\nAntwort:",
                        {"entailment": "Ja", "contradiction": "Nein", "neutral": "Vielleicht"},
                        " "),
    ("de", 2): McPrompt("Prämisse: {{premise}}\nHypothese: {{hypothesis}}\n"
                        "Frage: Folgt die Hypothese aus der Prämisse? Ja oder Nein?\nAntwort:",
                        {"entailment": "Ja", "non-entailment": "Nein"}, " "),
    ("en", 3): McPrompt("Premise: {{premise}}\nHypothesis: {{hypothesis}}\n"
                        "Question: Given the premise, is the hypothesis true, false or "
                        "neither?\nAnswer:",
                        {"entailment": "True", "contradiction": "False", "neutral": "Neither"},
                        " "),
    ("en", 2): McPrompt("Premise: {{premise}}\nHypothesis: {{hypothesis}}\n"
                        "Question: Does the hypothesis follow from the premise? Yes or No?\n"
                        "Answer:",
                        {"entailment": "Yes", "non-entailment": "No"}, " "),
}

# -- llm-jp-eval: instruction and input ------------------------------------------------------
#
# Modelled on the NLI datasets of llm-jp-eval (llm-jp/llm-jp-eval, src/llm_jp_eval/jaster/
# jamp.py, jnli.py, jsick.py and janli.py; formerly src/llm_jp_eval/datasets/): the
# instruction names the answer labels, asks for nothing but the label and lists, under
# 制約：, when to answer which; the outputs are the English label words entailment,
# contradiction, neutral (JaNLI: entailment, non-entailment), which their exact_match
# compares the generated text with; output_length is 3 for three labels and 7 for two (as
# theirs); input is "前提：…\n仮説：…". Our sets keep the same structure, the family's own
# labels as outputs, and German / English wording for German / English sets.

LLM_JP_EVAL_OUTPUT_LENGTH = {3: 3, 2: 7}
LLM_JP_EVAL_DEFAULT_FEW_SHOTS = 4  # llm-jp-eval's default num_few_shots

#: (premise tag, hypothesis tag) of an input, per language
INPUT_TAGS = {"ja": ("前提：", "仮説："), "de": ("Prämisse: ", "Hypothese: "),
              "en": ("Premise: ", "Hypothesis: ")}

#: when entailment holds, in Japanese, per family (the rest: the general wording)
JA_ENTAILMENT = {"jamp": "前提から時間関係の上で仮説が導ける場合"}
JA_ENTAILMENT_DEFAULT = "前提が真であるとき仮説も必ず真になる場合"

LLM_JP_EVAL_INSTRUCTIONS: dict[tuple[str, int], str] = {
    ("ja", 3): ("前提と仮説の関係をentailment、contradiction、neutralのいずれかで答えてください。"
                "ラベルの他には何も出力しないでください。\n\n制約：\n"
                "- {entailment}はentailmentと出力\n"
                "- 前提と仮説が両立しない場合はcontradictionと出力\n"
                "- どちらでもない場合はneutralと出力"),
    ("ja", 2): ("前提と仮説の関係をentailment、non-entailmentのいずれかで答えてください。"
                "ラベルの他には何も出力しないでください。\n\n制約：\n"
                "- {entailment}はentailmentと出力\n"
                "- そうでない場合はnon-entailmentと出力"),
    ("de", 3): ("Bestimme die Beziehung zwischen Prämisse und Hypothese und antworte mit "
                "entailment, contradiction oder neutral. Gib nichts anderes als das Label "
                "aus.\n\nRegeln:\n"
                "- Folgt die Hypothese aus der Prämisse, gib entailment aus\n"
                "- Schließen Prämisse und Hypothese einander aus, gib contradiction aus\n"
                "- Sonst gib neutral aus"),
    ("de", 2): ("Bestimme die Beziehung zwischen Prämisse und Hypothese und antworte mit "
                "entailment oder non-entailment. Gib nichts anderes als das Label aus.\n\n"
                "Regeln:\n"
                "- Folgt die Hypothese aus der Prämisse, gib entailment aus\n"
                "- Sonst gib non-entailment aus"),
    ("en", 3): ("Give the relation between the premise and the hypothesis as entailment, "
                "contradiction or neutral. Output nothing but the label.\n\nRules:\n"
                "- If the hypothesis follows from the premise, output entailment\n"
                "- If the premise and the hypothesis cannot both be true, output "
                "contradiction\n"
                "- Otherwise output neutral"),
    ("en", 2): ("Give the relation between the premise and the hypothesis as entailment or "
                "non-entailment. Output nothing but the label.\n\nRules:\n"
                "- If the hypothesis follows from the premise, output entailment\n"
                "- Otherwise output non-entailment"),
}


# -- reading a generated folder --------------------------------------------------------------

MANIFEST = "manifest.json"
#: record fields an exported lm-eval doc leaves out (large, nested, or for generation only)
_DROPPED_FIELDS = ("slots", "rationale", "source")


@dataclass
class Record:
    where: str  # FILE:LINE
    data: dict[str, Any]


@dataclass
class Source:
    """A generated folder: its manifest, its records per split (in file order), the
    label scheme and the language its prompts are written in."""

    folder: Path
    manifest: dict[str, Any]
    splits: dict[str, list[Record]]
    family: str
    labels: tuple[str, ...]
    language: str
    pairs: bool = False  # minimal pairs (gen pairs): BLiMP's records, no labels

    def default_split(self) -> str:
        if "test" in self.splits:
            return "test"
        if "all" in self.splits:
            return "all"
        if len(self.splits) == 1:
            return next(iter(self.splits))
        raise UsageError(f"{self.folder} has no test split; choose one of "
                         f"{', '.join(self.splits)}", "--split")


def read_source(path: str | os.PathLike) -> Source:
    """The records of a folder written by a generating command with ``-o DIR/``."""
    folder = Path(path)
    shown = os.fspath(path)
    try:
        if not folder.exists():
            raise InputError("no such folder", shown)
        if not folder.is_dir():
            raise InputError("not a folder (gen export reads a folder written with -o DIR/)",
                             shown)
        has_manifest = (folder / MANIFEST).is_file()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", shown) from None
    if not has_manifest:
        try:
            sets = sorted(p.name for p in folder.iterdir() if (p / MANIFEST).is_file())
        except OSError:
            sets = []
        hint = f"; export each of its set folders ({', '.join(sets[:3])}...)" if sets else ""
        raise InputError("no manifest.json (gen export reads a folder written with -o DIR/"
                         f"{hint})", shown)
    where = str(folder / MANIFEST)
    try:
        text = (folder / MANIFEST).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {getattr(exc, 'strerror', None) or exc}",
                         where) from None
    manifest = json_object(text, where)
    files = manifest.get("files")
    if not isinstance(files, dict) or not files:
        raise InputError("no 'files' (object)", where)
    fmt = manifest.get("format", "jsonl")
    if not all(isinstance(n, str) and n and Path(n).name == n for n in files):
        raise InputError("'files' must name files in this folder", where)
    if fmt != "jsonl" or not all(n.endswith(".jsonl") for n in files):
        raise InputError(f"format {fmt!r}: gen export reads JSONL folders (generate with "
                         "--format jsonl)", where)
    if manifest.get("shard") is not None:
        raise InputError("a shard folder (one piece of a run): join the shards with gen "
                         "merge first", where)
    pairs = manifest.get("records") == PAIR_RECORDS
    splits: dict[str, list[Record]] = {}
    for name in files:
        splits[name[: -len(".jsonl")]] = _read_records(folder / name, where, pairs)
    family = manifest.get("family")
    if not isinstance(family, str) or not family:
        raise InputError("no 'family' (string)", where)
    everything = [r for records in splits.values() for r in records]
    if pairs:  # minimal pairs: no labels; the language of the pairs' paradigms
        languages = manifest.get("languages") or []
        return Source(folder, manifest, splits, family, (),
                      languages[0] if len(languages) == 1 else "mul", pairs=True)
    labels = _scheme(family, everything)
    return Source(folder, manifest, splits, family, labels, _language(family, everything))


def _read_records(path: Path, manifest_where: str, pairs: bool = False) -> list[Record]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"lists {path.name!r}, which is missing", manifest_where) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", str(path)) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", str(path)) from None
    records = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        data = json_object(line, where)
        if data.get("applicable") is False:  # gen stress --keep-inapplicable: no problem
            continue
        if pairs:
            for key in ("id", "sentence_good", "sentence_bad", "UID"):
                if not isinstance(data.get(key), str) or not data[key]:
                    raise InputError(f"pair record has no {key!r} (string)", where)
            records.append(Record(where, data))
            continue
        for key in ("id", "premise", "hypothesis"):
            if not isinstance(data.get(key), str) or not data[key]:
                raise InputError(f"record has no {key!r} (string)", where)
        label = normalise_label(data.get("label"))
        if label is None:
            raise InputError(f"unknown label {data.get('label')!r} (known: "
                             f"{', '.join(THREE_WAY + TWO_WAY[1:])})", where)
        data["label"] = label
        records.append(Record(where, data))
    return records


def _scheme(family: str, records: Sequence[Record]) -> tuple[str, ...]:
    three = next((r for r in records if r.data["label"] in ("neutral", "contradiction")), None)
    two = next((r for r in records if r.data["label"] == "non-entailment"), None)
    if three and two:
        raise InputError(f"labels mix two-way (non-entailment, {two.where}) and three-way "
                         f"({three.data['label']})", three.where)
    if three:
        return THREE_WAY
    if two:
        return TWO_WAY
    return FAMILY_SCHEME.get(family, THREE_WAY)


_JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


def _language(family: str, records: Sequence[Record]) -> str:
    """The family's language; for families of one's own, Japanese when most premises are
    written in Japanese script, English otherwise."""
    if family in FAMILY_LANGUAGE:
        return FAMILY_LANGUAGE[family]
    japanese = sum(1 for r in records if _JAPANESE.search(r.data["premise"]))
    return "ja" if records and 2 * japanese > len(records) else "en"


def _evaluated(source: Source, split: str | None) -> tuple[str, list[Record]]:
    name = split if split is not None else source.default_split()
    if name not in source.splits:
        raise UsageError(f"no split {name!r} in {source.folder} (splits: "
                         f"{', '.join(source.splits)})", "--split")
    if not source.splits[name]:
        raise InputError(f"split {name!r} has no problems", str(source.folder))
    return name, source.splits[name]


def _few_shot_pool(source: Source, split: str) -> list[Record]:
    """Train records when the folder has a train split other than the one evaluated."""
    return source.splits.get("train", []) if split != "train" else []


def _balanced_first(records: Sequence[Record], labels: Sequence[str], k: int) -> list[Record]:
    """The first k records taking labels in turn (entailment, contradiction, neutral,
    entailment, ...), each the earliest of its label not yet taken; in file order."""
    queues = {label: [r for r in records if r.data["label"] == label] for label in labels}
    chosen: list[Record] = []
    while len(chosen) < k and any(queues.values()):
        for label in labels:
            if queues[label] and len(chosen) < k:
                chosen.append(queues[label].pop(0))
    order = {id(r): i for i, r in enumerate(records)}
    return sorted(chosen, key=lambda r: order[id(r)])


# -- llm-jp-eval ------------------------------------------------------------------------------

def llm_jp_eval_input(premise: str, hypothesis: str, language: str) -> str:
    tag_p, tag_h = INPUT_TAGS[language]
    return f"{tag_p}{premise}\n{tag_h}{hypothesis}"


def llm_jp_eval_instruction(family: str, language: str, labels: Sequence[str]) -> str:
    text = LLM_JP_EVAL_INSTRUCTIONS[(language, len(labels))]
    return text.replace("{entailment}", JA_ENTAILMENT.get(family, JA_ENTAILMENT_DEFAULT))


def llm_jp_eval_data(source: Source, split: str | None = None,
                     few_shots: int = LLM_JP_EVAL_DEFAULT_FEW_SHOTS) -> dict[str, Any]:
    """llm-jp-eval's common evaluation format of the folder's split (default: test, or
    the only split); few-shot examples from train when the folder has one (none
    otherwise), label-balanced and in file order."""
    if few_shots < 0:
        raise UsageError(f"must be 0 or more (got {few_shots})", "--few-shots")
    name, records = _evaluated(source, split)
    lang, labels = source.language, source.labels

    def sample(r: Record) -> dict[str, str]:
        return {"input": llm_jp_eval_input(r.data["premise"], r.data["hypothesis"], lang),
                "output": r.data["label"]}

    shots = _balanced_first(_few_shot_pool(source, name), labels, few_shots)
    return {
        "instruction": llm_jp_eval_instruction(source.family, lang, labels),
        "output_length": LLM_JP_EVAL_OUTPUT_LENGTH[len(labels)],
        "metrics": ["exact_match"],
        "few_shots": [sample(r) for r in shots],
        "samples": [sample(r) for r in records],
        "label_list": list(labels),
    }


def export_llm_jp_eval(src: str | os.PathLike, output: str | os.PathLike,
                       split: str | None = None,
                       few_shots: int = LLM_JP_EVAL_DEFAULT_FEW_SHOTS) -> dict[str, Any]:
    """Write :func:`llm_jp_eval_data` of ``src`` to the JSON file ``output`` (atomically).
    Returns a summary: split, samples, few_shots, labels."""
    from ..writers import is_dir_target, write_file_atomically

    if is_dir_target(output):
        raise UsageError("llm-jp-eval reads one JSON file per dataset: give -o FILE.json "
                         "(llm-jp-eval names the dataset after the file)", "-o")
    source = read_source(src)
    data = llm_jp_eval_data(source, split, few_shots)
    write_file_atomically(Path(output), json.dumps(data, ensure_ascii=False, indent=4) + "\n")
    return {"split": split or source.default_split(), "samples": len(data["samples"]),
            "few_shots": len(data["few_shots"]), "labels": list(source.labels)}


# -- lm-evaluation-harness --------------------------------------------------------------------

LM_EVAL_METRICS = [{"metric": "acc", "aggregation": "mean", "higher_is_better": True}]
LM_EVAL_TASK_VERSION = 1.0


def _identifier(text: str) -> str:
    name = re.sub(r"[^0-9a-z]+", "_", text.lower()).strip("_")
    return name or "none"


def default_task_name(src: str | os.PathLike) -> str:
    """The task (group) name: the folder's name as an identifier (jamp-fragment_hard:
    jamp_fragment_hard), "nligen_" in front when it does not start with a letter."""
    name = _identifier(Path(os.path.abspath(src)).name)
    return name if name[0].isalpha() else f"nligen_{name}"


def subtask_field(family: str) -> str:
    return SUBTASK_FIELD.get(family, GENERIC_SUBTASK_FIELD)


def _doc(record: Record, prompt: McPrompt) -> dict[str, Any]:
    """A record as an lm-eval doc: its scalar fields (id first), the answer word of its
    label, and the label each answer choice stands for (what gen eval reads back)."""
    data = record.data
    doc: dict[str, Any] = {"id": data["id"], "premise": data["premise"],
                           "hypothesis": data["hypothesis"], "label": data["label"],
                           "answer": prompt.choices[data["label"]],
                           "choice_labels": list(prompt.choices)}
    for key, value in data.items():
        if key not in doc and key not in _DROPPED_FIELDS and (
                value is None or isinstance(value, (str, int, float, bool))):
            doc[key] = value
    return doc


def _jsonl(docs: Iterable[Mapping[str, Any]]) -> str:
    return "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs)


def _yaml(data: Mapping[str, Any], comment: str) -> str:
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    def text(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
        # prompts over several lines as literal blocks (|), as lm-eval's own tasks write them
        style = "|" if "\n" in value else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, text)
    body = yaml.dump(dict(data), Dumper=Dumper, allow_unicode=True, sort_keys=False,
                     width=100)
    return "".join(f"# {line}\n" for line in comment.splitlines()) + body


def _natural(text: str) -> list[Any]:
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", text) if p]


def _prefix_and_provenance(source: Source, data_path: str, name: str,
                           split_name: str) -> tuple[str, str]:
    """What the task YAMLs put before data file names, and the comment they start with."""
    from ..version import __version__

    prefix = data_path.rstrip("/\\")
    prefix = f"{prefix}/" if prefix else ""
    provenance = (f"Written by gen export lm-eval (nligen {__version__}) from the {split_name} "
                  f"split of {source.folder.name}/ ({source.manifest.get('command', '?')}).\n"
                  f"Run: lm_eval --model ... --include_path DIR --tasks {name} --log_samples "
                  "--output_path OUT\nScore: see README.md")
    return prefix, provenance


def lm_eval_files(source: Source, data_path: str, name: str, split: str | None = None,
                  by: str | None = None) -> dict[str, str]:
    """The files of an lm-eval export, {file name: text}: per subtask (a value of ``by``,
    default the family's :data:`SUBTASK_FIELD`) a task YAML and its JSONL docs, a group
    YAML over the subtasks, ``train.jsonl`` when the folder has a train split (few-shot
    examples, ``--num_fewshot K``) and README.md. ``data_path`` is written in front of
    every data file name in the YAML (lm-eval reads data files relative to the directory
    it runs in)."""

    split_name, records = _evaluated(source, split)
    if source.pairs:
        return _pair_files(source, data_path, name, split_name, records, by)
    field = by or subtask_field(source.family)
    if not any(field in r.data for r in records):
        scalar = sorted({k for r in records for k, v in r.data.items()
                         if isinstance(v, str) and k not in ("id", "premise", "hypothesis",
                                                                "label", "family", "split")})
        raise UsageError(f"the records have no field {field!r} to make subtasks of (fields: "
                         f"{', '.join(scalar)})", "--by" if by else str(source.folder))
    prompt = LM_EVAL_PROMPTS[(source.language, len(source.labels))]
    values: dict[str, list[Record]] = {}
    for r in records:
        value = r.data.get(field)
        values.setdefault("none" if value is None else str(value), []).append(r)
    subtasks: dict[str, tuple[str, list[Record]]] = {}
    for value in sorted(values, key=_natural):
        task = f"{name}_{_identifier(value)}"
        base, n = task, 2
        while task in subtasks or task == name:
            task, n = f"{base}_{n}", n + 1
        subtasks[task] = (value, values[value])

    pool = _few_shot_pool(source, split_name)
    prefix, provenance = _prefix_and_provenance(source, data_path, name, split_name)
    files: dict[str, str] = {}
    for task, (value, members) in subtasks.items():
        data_files = {"test": f"{prefix}{task}.test.jsonl"}
        if pool:
            data_files["train"] = f"{prefix}train.jsonl"
        config: dict[str, Any] = {
            "task": task,
            "task_alias": f"{field}: {value}",
            "dataset_path": "json",
            "dataset_kwargs": {"data_files": data_files},
            "output_type": "multiple_choice",
        }
        if pool:
            config.update(training_split="train", fewshot_split="train")
        config.update({
            "test_split": "test",
            "doc_to_text": prompt.doc_to_text,
            "doc_to_choice": list(prompt.choices.values()),
            "doc_to_target": "answer",
            "target_delimiter": prompt.target_delimiter,
            "metric_list": LM_EVAL_METRICS,
            "metadata": {"version": LM_EVAL_TASK_VERSION},
        })
        files[f"{task}.yaml"] = _yaml(config, provenance)
        files[f"{task}.test.jsonl"] = _jsonl(_doc(r, prompt) for r in members)
    if pool:
        files["train.jsonl"] = _jsonl(_doc(r, prompt) for r in pool)
    group = {"group": name,
             "task": list(subtasks),
             "aggregate_metric_list": [{"metric": "acc", "aggregation": "mean",
                                        "weight_by_size": True}],
             "metadata": {"version": LM_EVAL_TASK_VERSION}}
    files[f"{name}.yaml"] = _yaml(group, provenance)
    files["README.md"] = _lm_eval_readme(source, name, split_name, field, subtasks, prompt,
                                         bool(pool), prefix.rstrip("/") or ".")
    return files


# Minimal pairs as lm-eval's own BLiMP tasks write them (lm_eval/tasks/blimp/_template_yaml):
# no prompt, the two sentences as the choices, the acceptable one the target; acc is then
# the share of pairs whose acceptable sentence has the higher log-likelihood.
PAIR_TASK = {"output_type": "multiple_choice", "test_split": "test", "doc_to_text": "",
             "doc_to_target": 0, "doc_to_choice": "{{[sentence_good, sentence_bad]}}",
             "num_fewshot": 0, "should_decontaminate": True,
             "doc_to_decontamination_query": "{{sentence_good}} {{sentence_bad}}"}
PAIR_SUBTASK_FIELD = "UID"


def _pair_files(source: Source, data_path: str, name: str, split_name: str,
                records: Sequence[Record], by: str | None) -> dict[str, str]:
    """An lm-eval export of minimal pairs: a task per paradigm (``UID``, or ``by``), in
    the style of lm-eval's BLiMP tasks, a group over them and README.md."""

    field = by or PAIR_SUBTASK_FIELD
    values: dict[str, list[Record]] = {}
    for r in records:
        value = r.data.get(field)
        if value is None:
            raise UsageError(f"the pairs have no field {field!r} to make subtasks of",
                             "--by" if by else str(source.folder))
        values.setdefault(str(value), []).append(r)
    prefix, provenance = _prefix_and_provenance(source, data_path, name, split_name)
    files: dict[str, str] = {}
    subtasks: dict[str, tuple[str, list[Record]]] = {}
    for value in sorted(values, key=_natural):
        task = f"{name}_{_identifier(value)}"
        subtasks[task] = (value, values[value])
        config = {"task": task, "task_alias": f"{field}: {value}", "dataset_path": "json",
                  "dataset_kwargs": {"data_files": {"test": f"{prefix}{task}.test.jsonl"}},
                  **PAIR_TASK, "metric_list": LM_EVAL_METRICS,
                  "metadata": {"version": LM_EVAL_TASK_VERSION}}
        files[f"{task}.yaml"] = _yaml(config, provenance)
        files[f"{task}.test.jsonl"] = _jsonl(
            {k: v for k, v in r.data.items() if k not in _DROPPED_FIELDS
             and (v is None or isinstance(v, (str, int, float, bool)))}
            for r in values[value])
    files[f"{name}.yaml"] = _yaml({"group": name, "task": list(subtasks),
                                   "aggregate_metric_list": [{"metric": "acc",
                                                              "aggregation": "mean",
                                                              "weight_by_size": True}],
                                   "metadata": {"version": LM_EVAL_TASK_VERSION}}, provenance)
    gold = source.folder / f"{split_name}.jsonl"
    include_path = prefix.rstrip("/") or "."
    files["README.md"] = "\n".join([
        f"# {name}: lm-evaluation-harness tasks", "",
        f"The {split_name} split of `{source.folder.name}/` ({len(records)} minimal pairs) as "
        f"log-likelihood tasks in the style of lm-eval's BLiMP tasks, one per {field} "
        f"({len(subtasks)}), in the group `{name}`: no prompt, the two sentences are the "
        "choices, and acc is the share of pairs whose acceptable sentence has the higher "
        "log-likelihood.", "",
        "```sh",
        f"lm_eval --model hf --model_args pretrained=MODEL --include_path {include_path} "
        f"--tasks {name} --log_samples --output_path OUT/",
        f"gen eval --gold {gold} --scores OUT/",
        "```", "",
        "`gen eval --scores` reads every `samples_*.jsonl` lm-eval wrote under OUT/ (each "
        "doc keeps its record's `pairID`) and reports accuracy per phenomenon, paradigm, "
        "field and seen / unseen.", "",
        f"| task | {field} | pairs |", "|---|---|---:|",
        *(f"| {task} | {value} | {len(m)} |" for task, (value, m) in subtasks.items()), ""])
    return files


def _lm_eval_readme(source: Source, name: str, split: str, field: str,
                    subtasks: Mapping[str, tuple[str, list[Record]]], prompt: McPrompt,
                    few_shot: bool, include_path: str) -> str:
    gold = source.folder / f"{split}.jsonl"
    choices = ", ".join(f"{word} ({label})" for label, word in prompt.choices.items())
    lines = [
        f"# {name}: lm-evaluation-harness tasks",
        "",
        f"The {split} split of `{source.folder.name}/` ({source.family}, "
        f"{sum(len(m) for _, m in subtasks.values())} problems) as multiple-choice tasks, "
        f"one per {field} ({len(subtasks)}), in the group `{name}`. Answer choices: "
        f"{choices}; metric: acc (the choice with the highest log-likelihood).",
        "",
        "```sh",
        f"lm_eval --model hf --model_args pretrained=MODEL --include_path {include_path} "
        f"--tasks {name} "
        + ("--num_fewshot 3 " if few_shot else "") + "--log_samples --output_path OUT/",
        f"gen eval --gold {gold} --pred OUT/",
        "```",
        "",
        "`gen eval` reads every `samples_*.jsonl` lm-eval wrote under OUT/ (each doc keeps "
        "its record's `id`) and reports accuracy per template, "
        f"{field} and contrast group. lm-eval reads the data files named in the YAML "
        "files relative to the directory it runs in: they are written with this folder's "
        "absolute path unless gen export was given --data-path (with --data-path ., run "
        "lm_eval from inside this folder).",
        "",
        "| task | " + field + " | problems |",
        "|---|---|---:|",
        *(f"| {task} | {value} | {len(m)} |" for task, (value, m) in subtasks.items()),
        "",
    ]
    return "\n".join(lines)


def export_lm_eval(src: str | os.PathLike, output: str | os.PathLike, split: str | None = None,
                   by: str | None = None, name: str | None = None,
                   data_path: str | None = None) -> dict[str, Any]:
    """Write :func:`lm_eval_files` of ``src`` into the folder ``output`` (atomically; a
    folder holding other YAML files is refused, as lm-eval would load them too). Returns
    a summary: task, subtasks, split, files."""
    from ..writers import AtomicFiles

    folder = Path(output)
    if folder.exists() and not folder.is_dir():
        raise UsageError("is a file: lm-eval tasks are written into a folder (-o DIR/)",
                         os.fspath(output))
    if name is not None and not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
        raise UsageError(f"not a task name (a letter, then letters, digits or _): {name!r}",
                         "--name")
    source = read_source(src)
    task = name or default_task_name(src)
    files = lm_eval_files(source, os.path.abspath(folder) if data_path is None else data_path,
                          task, split, by)
    if folder.is_dir():
        stale = sorted(p.name for p in folder.iterdir()
                       if p.suffix in (".yaml", ".yml") and p.name not in files)
        if stale:
            raise UsageError(f"holds other task files ({', '.join(stale[:3])}"
                             f"{', ...' if len(stale) > 3 else ''}) that lm-eval would load "
                             "too: use an empty folder", os.fspath(output))
    with AtomicFiles(folder, hashed=False) as out:
        for file_name, text in files.items():
            out.put(file_name, text)
        out.commit()
    subtasks = [f[: -len(".yaml")] for f in files
                if f.endswith(".yaml") and f != f"{task}.yaml"]
    return {"task": task, "subtasks": subtasks, "split": split or source.default_split(),
            "files": list(files)}


def export(harness: str, src: str | os.PathLike, output: str | os.PathLike, *,
           split: str | None = None, few_shots: int | None = None, by: str | None = None,
           name: str | None = None, data_path: str | None = None) -> dict[str, Any]:
    """``gen export HARNESS SRC -o OUTPUT``: dispatch on the harness name; an option the
    harness has no use for is an error, not ignored."""
    if harness == "llm-jp-eval":
        for option, value in (("--by", by), ("--name", name), ("--data-path", data_path)):
            if value is not None:
                raise UsageError("only for gen export lm-eval", option)
        if read_source(src).pairs:
            raise UsageError("minimal pairs have no llm-jp-eval format (they are scored by "
                             "log-likelihood): use gen export lm-eval", "gen export")
        return export_llm_jp_eval(src, output, split, LLM_JP_EVAL_DEFAULT_FEW_SHOTS
                                  if few_shots is None else few_shots)
    if harness == "lm-eval":
        if few_shots is not None:
            raise UsageError("only for gen export llm-jp-eval (lm-eval takes --num_fewshot K "
                             "when it runs)", "--few-shots")
        return export_lm_eval(src, output, split, by, name, data_path)
    raise UsageError(f"unknown harness {harness!r} (known: {', '.join(HARNESSES)})",
                     "gen export")

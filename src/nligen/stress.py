"""Stress transformations of existing NLI problems (JSICK-style scrambling, particle
swapping, particle deletion), declared in YAML and interpreted here.

A transformation file (``templates/stress/*.yaml``, or a folder of your own)::

    id: swap
    language: ja                       # the layer that analyses sentences into arguments
    description: ...
    pairs:                             # --pair NAME: subject particles and argument particle
      ga-o: {subject: [が, は, も], argument: を}
    adjacent: true                     # the argument phrase directly follows the subject's
    occurrences: all                   # first | all subject-argument pairs of a sentence
    move: argument_before_subject      # optional: put the argument phrase first
    particles: {subject: $argument, argument: が}   # optional: new particles ("" deletes;
                                                    # $subject / $argument: the other's)
    label: neutral                     # keep (the original label) or the label to set
    attachment: either                 # optional: low (default) | either, see below

A phrase between the subject and a relative clause can depend on the relative clause or on
the main predicate (犬が|草で|覆われた丘を走り上がっている). ``low`` reads it in the relative
clause, as a reader nearly always does. ``either`` also tries the other (high) reading when
the low one gives no pair: that is how the JSICK stress data was made (草で犬が覆われた丘を
…), and records so made say so in ``rationale.changes[].argument.ambiguous``.

The engine knows nothing of Japanese: the language layer's clause analyser gives each
sentence its case-marked argument phrases (start of the leftmost modifier to the end of
the particle) and says which two depend on the same predicate. A sentence where no pair
is found is *not applicable*; nothing is transformed by force.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .datafiles import load_yaml
from .errors import TemplateError, UsageError

KEYS = {"id", "language", "description", "pairs", "adjacent", "occurrences", "move",
        "particles", "label", "attachment"}
REQUIRED = ("id", "language", "pairs", "label")
MOVES = ("argument_before_subject",)
OCCURRENCES = ("first", "all")
ATTACHMENTS = ("low", "either")
ROLES = ("subject", "argument")
KEEP = "keep"


@dataclass(frozen=True)
class PairSpec:
    name: str
    subject: tuple[str, ...]
    argument: str


@dataclass(frozen=True)
class Transformation:
    id: str
    language: str
    description: str
    pairs: dict[str, PairSpec]
    adjacent: bool
    occurrences: str
    move: str | None
    particles: dict[str, str] | None   # role -> literal particle, "" or "$subject"/"$argument"
    label: str                         # "keep" or a label
    attachment: str                    # "low" or "either" (low, else the high reading)
    path: Path
    sha256: str

    def new_label(self, original: str | None) -> str | None:
        return original if self.label == KEEP else self.label


@dataclass(frozen=True)
class Change:
    """One transformed subject-argument pair, with spans in the transformed sentence."""

    subject: str           # the subject phrase as it now reads
    argument: str
    subject_original: str  # ... and as it read before
    argument_original: str
    subject_span: tuple[int, int]
    argument_span: tuple[int, int]
    particles_before: tuple[str, str]   # (subject's, argument's)
    particles_after: tuple[str, str]
    # Read high: the relative-clause predicate the argument phrase may also depend on.
    ambiguous_with: str | None = None


@dataclass(frozen=True)
class Result:
    text: str
    changes: tuple[Change, ...]


# -- loading ---------------------------------------------------------------------------

def load_transformations(folders: Sequence[str | Path]) -> dict[str, Transformation]:
    """Every *.yaml of the folders (later folders may not reuse an id)."""
    out: dict[str, Transformation] = {}
    for folder in folders:
        folder = Path(folder)
        if not folder.is_dir():
            raise UsageError("no such folder", str(folder))
        for path in sorted(folder.glob("*.yaml")):
            t = load_transformation(path)
            if t.id in out:
                raise TemplateError(f"id {t.id!r} is also used by {out[t.id].path}", str(path))
            out[t.id] = t
    return out


def load_transformation(path: Path) -> Transformation:
    where = str(path)
    try:
        raw_bytes = path.read_bytes()
        text = raw_bytes.decode("utf-8")
    except OSError as exc:
        raise TemplateError(f"cannot read: {exc.strerror}", where) from None
    except UnicodeDecodeError as exc:
        raise TemplateError(f"not UTF-8 text (byte {exc.start})", where) from None
    raw = load_yaml(text, where, TemplateError)
    if not isinstance(raw, dict):
        raise TemplateError("a transformation must be a mapping", where)
    unknown = set(raw) - KEYS
    if unknown:
        raise TemplateError(f"unknown field(s) {', '.join(sorted(map(str, unknown)))} "
                            f"(known: {', '.join(sorted(KEYS))})", where)
    for key in REQUIRED:
        if key not in raw:
            raise TemplateError(f"missing field {key!r}", where)
    tid = raw["id"]
    if not isinstance(tid, str) or not tid.replace("_", "").replace("-", "").isalnum():
        raise TemplateError("'id' must be a name (letters, digits, - and _)", f"{where}: id")
    loc = f"{where}: {tid}"
    language = raw["language"]
    from .lang import get_language

    lang = get_language(language, f"{loc}: language")
    if lang.clause_analyser is None:
        raise TemplateError(f"the {language!r} layer has no clause analyser", f"{loc}: language")
    pairs = _pairs(raw["pairs"], f"{loc}: pairs")
    adjacent = raw.get("adjacent", True)
    if not isinstance(adjacent, bool):
        raise TemplateError("must be true or false", f"{loc}: adjacent")
    occurrences = raw.get("occurrences", "first")
    if occurrences not in OCCURRENCES:
        raise TemplateError(f"must be one of {', '.join(OCCURRENCES)}", f"{loc}: occurrences")
    move = raw.get("move")
    if move is not None and move not in MOVES:
        raise TemplateError(f"must be one of {', '.join(MOVES)}", f"{loc}: move")
    particles = raw.get("particles")
    if particles is not None:
        if not isinstance(particles, dict) or set(particles) - set(ROLES):
            raise TemplateError("must map subject / argument to a particle, \"\" or "
                                "$subject / $argument", f"{loc}: particles")
        for role, value in particles.items():
            if not isinstance(value, str) or (value.startswith("$")
                                              and value[1:] not in ROLES):
                raise TemplateError(f"{role}: must be a particle, \"\" or $subject / $argument",
                                    f"{loc}: particles")
    attachment = raw.get("attachment", "low")
    if attachment not in ATTACHMENTS:
        raise TemplateError(f"must be one of {', '.join(ATTACHMENTS)}", f"{loc}: attachment")
    if move is None and particles is None:
        raise TemplateError("does nothing: give 'move' or 'particles'", loc)
    label = raw["label"]
    if not isinstance(label, str) or not label:
        raise TemplateError("must be 'keep' or a label", f"{loc}: label")
    return Transformation(
        tid, language, str(raw.get("description") or ""), pairs, adjacent, occurrences, move,
        dict(particles) if particles is not None else None, label, attachment, path,
        hashlib.sha256(raw_bytes).hexdigest())


def _pairs(raw: Any, where: str) -> dict[str, PairSpec]:
    if not isinstance(raw, dict) or not raw:
        raise TemplateError("must map pair names to {subject: [particles], argument: "
                            "particle}", where)
    out = {}
    for name, spec in raw.items():
        loc = f"{where}.{name}"
        if not isinstance(spec, dict) or set(spec) != set(ROLES):
            raise TemplateError("must be {subject: [particles], argument: particle}", loc)
        subject = spec["subject"]
        subject = [subject] if isinstance(subject, str) else subject
        if (not isinstance(subject, list) or not subject
                or not all(isinstance(p, str) and p for p in subject)):
            raise TemplateError("subject: must be a particle or a list of particles", loc)
        if not isinstance(spec["argument"], str) or not spec["argument"]:
            raise TemplateError("argument: must be a particle", loc)
        if spec["argument"] in subject:
            raise TemplateError("argument: the same particle as the subject's", loc)
        out[str(name)] = PairSpec(str(name), tuple(subject), spec["argument"])
    return out


# -- applying ----------------------------------------------------------------------------

def find_pairs(t: Transformation, pair: PairSpec, analysis) -> list[tuple[Any, Any]]:
    """(subject, argument) phrases the transformation applies to, left to right."""
    found: list[tuple[Any, Any]] = []
    used: set[int] = set()
    subjects = sorted((a for a in analysis.arguments if a.particle in pair.subject),
                      key=lambda a: a.start)
    for s in subjects:
        if found and s.start < found[-1][1].end:
            continue  # inside a pair already taken
        for o in sorted((a for a in analysis.arguments if a.particle == pair.argument
                         and a.start >= s.end and a.start not in used), key=lambda a: a.start):
            if t.adjacent and o.start != s.end:
                continue
            if analysis.co_arguments(s, o):
                found.append((s, o))
                used.add(o.start)
                break
        if found and t.occurrences == "first":
            break
    return found


class Readings:
    """A sentence's analyses, made on demand: the low reading, and the high one that
    transformations with ``attachment: either`` fall back on."""

    def __init__(self, text: str, analyser_for):
        self.text = text
        self._analyser_for = analyser_for   # attachment ("low"/"high") -> clause analyser
        self._cache: dict[str, Any] = {}

    def __getitem__(self, attachment: str):
        if attachment not in self._cache:
            self._cache[attachment] = self._analyser_for(attachment).analyse(self.text)
        return self._cache[attachment]


class Analysers:
    """Clause analysers per (language, attachment), each made once and reused."""

    def __init__(self):
        self._made: dict[tuple[str, str], Any] = {}

    def of(self, language: str):
        """attachment -> the language's analyser for it (what :class:`Readings` takes)."""
        from .lang import get_language

        def make(attachment: str):
            if (language, attachment) not in self._made:
                self._made[language, attachment] = get_language(language).clause_analyser(
                    attachment=attachment)
            return self._made[language, attachment]
        return make


def transform(t: Transformation, pair_name: str, readings: Readings) -> Result | None:
    """The transformation of a sentence under its preferred reading, else (``either``)
    under the high one; None when neither has the pair."""
    result = apply(t, pair_name, readings["low"])
    if result is None and t.attachment == "either" and getattr(readings["low"], "ambiguous",
                                                                 False):
        result = apply(t, pair_name, readings["high"])
    return result


def apply(t: Transformation, pair_name: str, analysis) -> Result | None:
    """The transformed sentence under one analysis, or None when the transformation does
    not apply."""
    pair = t.pairs[pair_name]
    pairs = find_pairs(t, pair, analysis)
    if not pairs:
        return None
    text = analysis.text
    out: list[str] = []
    changes: list[Change] = []
    cursor = 0
    for s, o in pairs:
        out.append(text[cursor:s.start])
        offset = sum(len(x) for x in out)
        before = (s.particle, o.particle)
        after = _new_particles(t, before)
        subject = text[s.start:s.particle_start] + after[0]
        argument = text[o.start:o.particle_start] + after[1]
        middle = text[s.end:o.start]
        if t.move == "argument_before_subject":
            piece = argument + subject + middle
            arg_span = (offset, offset + len(argument))
            subj_span = (arg_span[1], arg_span[1] + len(subject))
        else:
            piece = subject + middle + argument
            subj_span = (offset, offset + len(subject))
            arg_span = (subj_span[1] + len(middle), subj_span[1] + len(middle) + len(argument))
        out.append(piece)
        ambiguous = None
        if getattr(o, "alternative_predicate", None) is not None:
            relative = analysis.predicates[o.alternative_predicate]
            ambiguous = text[relative.start:relative.end]
        changes.append(Change(subject, argument, text[s.start:s.end], text[o.start:o.end],
                              subj_span, arg_span, before, after, ambiguous))
        cursor = o.end
    out.append(text[cursor:])
    return Result("".join(out), tuple(changes))


def _new_particles(t: Transformation, before: tuple[str, str]) -> tuple[str, str]:
    if t.particles is None:
        return before
    own = dict(zip(ROLES, before))

    def resolve(role: str) -> str:
        value = t.particles.get(role, own[role])
        return own[value[1:]] if value.startswith("$") else value

    return resolve("subject"), resolve("argument")


# -- reading problems and writing records ------------------------------------------------------

PREMISE_COLUMNS = ("premise", "sentence_A", "sentence_A_original", "sentence1")
HYPOTHESIS_COLUMNS = ("hypothesis", "sentence_B", "sentence2")
LABEL_COLUMNS = ("label", "entailment_label", "entailment_label_original", "gold_label")
ID_COLUMNS = ("id", "pair_ID", "pairID")


@dataclass
class Row:
    line: int
    fields: dict[str, Any] | None   # None: a bad row
    problem: str | None = None


def read_rows(text: str, where: str, jsonl: bool | None = None) -> tuple[list[str] | None, list[Row]]:
    """(TSV header or None for JSONL, rows). ``jsonl`` None: JSONL when the first
    non-empty line starts with '{'."""
    from .errors import InputError
    from .tools.evaluate import json_object

    lines = text.splitlines()
    if jsonl is None:
        first = next((ln for ln in lines if ln.strip()), "")
        jsonl = first.lstrip().startswith("{")
    rows: list[Row] = []
    if jsonl:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                rows.append(Row(number, json_object(line, f"{where}:{number}")))
            except InputError as exc:
                rows.append(Row(number, None, exc.what))
        return None, rows
    header: list[str] | None = None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        cells = line.split("\t")
        if header is None:
            header = [c.strip() for c in cells]
            continue
        if len(cells) != len(header):
            rows.append(Row(number, None, f"{len(cells)} tab-separated fields, the header has "
                                          f"{len(header)}"))
        else:
            rows.append(Row(number, dict(zip(header, cells))))
    if header is None:
        raise InputError("empty input (expected a TSV header or JSON lines)", where)
    return header, rows


def pick_column(given: str | None, candidates: Sequence[str], header: Sequence[str] | None,
                rows: Sequence[Row], option: str, where: str, required: bool) -> str | None:
    """The column to read: the one given (which must exist), else the first known name."""
    from .errors import InputError

    if header is None:  # JSONL: the keys of the records
        present: set[str] = set()
        for row in rows:
            if row.fields is not None:
                present.update(row.fields)
    else:
        present = set(header)
    if given is not None:
        if given not in present:
            raise InputError(f"no such column {given!r} (columns: "
                             f"{', '.join(sorted(present)) or 'none'})", f"{where} ({option})")
        return given
    for name in candidates:
        if name in present:
            return name
    if required:
        raise InputError(f"no premise column (looked for {', '.join(candidates)}; name yours "
                         f"with {option})", where)
    return None


def transform_rows(rows: Sequence[Row], where: str, transformations: Sequence[Transformation],
                   pair_names: Sequence[str] | None, columns: Mapping[str, str | None],
                   keep_inapplicable: bool = False) -> tuple[list[dict], dict]:
    """Records for every (row, transformation, pair) that applies, and the run's counts:
    rows, records, bad ([(where, problem)]), inapplicable {transform/pair: n}, ambiguous
    (records made under the high reading of an ambiguous attachment)."""
    analysers = Analysers()
    records: list[dict] = []
    stats: dict[str, Any] = {"rows": len(rows), "bad": [], "inapplicable": {}, "ambiguous": 0}
    for row in rows:
        here = f"{where}:{row.line}"
        if row.fields is None:
            stats["bad"].append((here, row.problem))
            continue
        premise = row.fields.get(columns["premise"])
        if columns["premise"] not in row.fields:
            stats["bad"].append((here, f"no {columns['premise']!r} field"))
            continue
        if not isinstance(premise, str) or not premise.strip():
            stats["bad"].append((here, "empty premise"))
            continue
        premise = premise.strip()
        hypothesis = row.fields.get(columns["hypothesis"]) if columns["hypothesis"] else None
        label = row.fields.get(columns["label"]) if columns["label"] else None
        source_id = row.fields.get(columns["id"]) if columns.get("id") else None
        readings: dict[str, Readings] = {}  # per language, shared by the transformations
        for t in transformations:
            if t.language not in readings:
                readings[t.language] = Readings(premise, analysers.of(t.language))
            for pair in (pair_names or list(t.pairs)):
                if pair not in t.pairs:
                    continue
                result = transform(t, pair, readings[t.language])
                if result is not None and any(c.ambiguous_with for c in result.changes):
                    stats["ambiguous"] += 1
                if result is None:
                    key = f"{t.id}/{pair}"
                    stats["inapplicable"][key] = stats["inapplicable"].get(key, 0) + 1
                    if not keep_inapplicable:
                        continue
                records.append(_record(len(records), t, pair, premise, hypothesis, label,
                                       source_id, row.line, result))
    stats["records"] = len(records)
    return records, stats


def _record(index: int, t: Transformation, pair: str, premise: str, hypothesis: Any,
            label: Any, source_id: Any, line: int, result: Result | None) -> dict:
    applicable = result is not None
    rec: dict[str, Any] = {
        "id": f"stress-{index:06d}",
        "family": "stress",
        "template": t.id,
        "premise": result.text if applicable else premise,
        "premise_original": premise,
        "hypothesis": hypothesis,
        "label": t.new_label(label) if applicable else label,
        "label_original": label,
        "split": "all",
        # the contrast group: the transformed versions of one input row
        "group": f"stress-line-{line}",
        "transform": t.id,
        "pair": pair,
        "applicable": applicable,
        "source": {"line": line, **({"id": source_id} if source_id is not None else {})},
    }
    if not applicable:
        rec["slots"] = {}
        rec["rationale"] = {"rule": f"no {pair} pair of arguments of one predicate"
                            + (" in basic order" if t.adjacent else "")}
        return rec
    slots = {}
    changes = []
    for i, c in enumerate(result.changes, 1):
        slots[f"subject_{i}"] = {"text": c.subject_original, "particle": c.particles_before[0]}
        slots[f"argument_{i}"] = {"text": c.argument_original,
                                  "particle": c.particles_before[1]}
        argument = {"text": c.argument, "spans": [list(c.argument_span)],
                    "particle": [c.particles_before[1], c.particles_after[1]]}
        if c.ambiguous_with:
            argument["ambiguous"] = (f"read as an argument of the main clause; it may also "
                                     f"belong to the relative clause {c.ambiguous_with}")
        changes.append({
            "subject": {"text": c.subject, "spans": [list(c.subject_span)],
                        "particle": [c.particles_before[0], c.particles_after[0]]},
            "argument": argument,
        })
    rec["slots"] = slots
    rule = t.description or t.id
    rec["rationale"] = {"rule": f"{rule}; label {'kept' if t.label == KEEP else t.label}",
                        "changes": changes}
    return rec


# -- a transformed set: writing it, its manifest, checking it -------------------------------

DATA_FILE = "all.jsonl"
CITATION = ("Hitomi Yanaka and Koji Mineshima. 2022. Compositional Evaluation on Japanese "
            "Textual Entailment and Similarity. Transactions of the Association for "
            "Computational Linguistics 10. https://github.com/verypluming/JSICK")
BIBTEX = """@article{yanaka-mineshima-2022-compositional,
  title   = {Compositional Evaluation on {J}apanese Textual Entailment and Similarity},
  author  = {Yanaka, Hitomi and Mineshima, Koji},
  journal = {Transactions of the Association for Computational Linguistics},
  volume  = {10},
  year    = {2022}
}"""


@dataclass
class StressSet:
    """The records of one ``gen stress`` run and what its manifest says of them."""

    records: list[dict]
    stats: dict[str, Any]
    manifest: dict[str, Any]

    def iter_jsonl(self):
        import json

        return (json.dumps(r, ensure_ascii=False) + "\n" for r in self.records)

    def write(self, path: str | Path | None = None, fmt: str = "jsonl") -> list[Path]:
        """Write to stdout (path None), one JSONL file, or a folder (path ending in / or an
        existing folder: all.jsonl + manifest.json + README.md)."""
        import json

        from .writers import (
            is_dir_target,
            write_file_atomically,
            write_files_atomically,
            write_stdout,
        )

        if fmt != "jsonl":
            raise UsageError(f"unknown format {fmt!r} (known: jsonl)", "--format")
        if path is None or str(path) == "-":
            write_stdout(self.iter_jsonl())
            return []
        if not is_dir_target(path):
            write_file_atomically(Path(path), self.iter_jsonl())
            return [Path(path)]

        def meta(digests: Mapping[str, str]) -> dict[str, str]:
            from .card import stress_card

            manifest = dict(self.manifest)
            manifest["files"] = {DATA_FILE: {"records": len(self.records),
                                             "sha256": digests[DATA_FILE]}}
            return {"manifest.json": json.dumps(manifest, ensure_ascii=False, indent=2) + "\n",
                    "README.md": stress_card(manifest, self.records, data_file=DATA_FILE,
                                             citation=CITATION, bibtex=BIBTEX)}

        folder = Path(path)
        digests = write_files_atomically(folder, {DATA_FILE: self.iter_jsonl()}, extra=meta)
        return [folder / name for name in digests]


def stress_manifest(command: str, where: str, raw: bytes, transformations:
                    Sequence[Transformation], records: Sequence[dict], stats: Mapping[str, Any]
                    ) -> dict[str, Any]:
    """What a folder's manifest.json says: the command, the input's SHA-256, every
    transformation file's, and the counts. No times or absolute paths: the same run gives
    the same bytes."""
    from .version import __version__
    from .data import templates_dir

    shipped = Path(templates_dir("stress")).resolve()
    counts: dict[str, dict[str, int]] = {}
    for r in records:
        key = f"{r['transform']}/{r['pair']}"
        label = "not applicable" if not r["applicable"] else (
            "no label" if r["label"] is None else str(r["label"]))
        counts.setdefault(key, {})
        counts[key][label] = counts[key].get(label, 0) + 1

    def shown(path: Path) -> str:
        return f"templates/stress/{path.name}" if path.resolve().parent == shipped else str(path)

    return {
        "nligen_version": __version__,
        "family": "stress",
        "command": command,
        "input": {"path": where, "sha256": hashlib.sha256(raw).hexdigest(),
                  "rows": stats["rows"], "bad_rows": len(stats["bad"])},
        "transformations": {t.id: {"path": shown(t.path), "sha256": t.sha256,
                                   "attachment": t.attachment} for t in transformations},
        "counts": {k: dict(sorted(v.items())) for k, v in sorted(counts.items())},
        "not_applicable": dict(sorted(stats["inapplicable"].items())),
        "ambiguous": stats["ambiguous"],
    }


class StressChecker:
    """Re-derives stress records: each must be what its transformation makes of its
    ``premise_original`` (premise, label, slots, rationale: everything but id and source)."""

    def __init__(self, transformations: Mapping[str, Transformation]):
        self.transformations = transformations
        self._analysers = Analysers()

    def check(self, record: Mapping[str, Any]) -> str | None:
        t = self.transformations.get(record.get("transform"))
        if t is None:
            return f"unknown transformation {record.get('transform')!r}"
        pair = record.get("pair")
        if pair not in t.pairs:
            return f"{t.id} has no pair {pair!r}"
        original = record.get("premise_original")
        if not isinstance(original, str) or not original:
            return "no premise_original"
        result = transform(t, pair, Readings(original, self._analysers.of(t.language)))
        if result is None and record.get("applicable") is not False:
            return f"{t.id}/{pair} does not apply to premise_original"
        source = record.get("source") if isinstance(record.get("source"), dict) else {}
        expected = _record(0, t, pair, original, record.get("hypothesis"),
                           record.get("label_original"), source.get("id"),
                           source.get("line", 0), result)
        for key, value in expected.items():
            if key in ("id", "source"):
                continue
            if record.get(key) != value:
                return (f"{key} {_short(record.get(key))}, but {t.id}/{pair} of "
                        f"premise_original gives {_short(value)}")
        return None


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"

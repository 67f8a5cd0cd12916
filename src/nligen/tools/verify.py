"""``gen verify DIR``: is a generated set what its manifest says it is?

Two independent checks:

* **Labels.** Every record is rebuilt from its ``slots`` and its template: each slot value
  must be one the template's slot can take (looked up among the options the lexicons
  give, so a German noun phrase comes back with its whole paradigm), time expressions are
  parsed back and re-rendered, premise and hypothesis are rendered again and must equal
  the record's, and the hypothesis's label rule decides the label afresh. A JSONL file is
  checked record by record; a TSV file (which carries no slots) is checked through the
  regenerated records, which the reproduction check ties to the file byte for byte.
* **Reproduction.** The manifest's ``command`` is run again into a temporary folder and
  every file it writes (data, manifest.json, README.md) must be byte-identical to the one
  in DIR. A file that differs is named, with what changed in the manifest (version,
  template or lexicon hashes) when that explains it.

Verification failures are findings (exit 1); unreadable input is an InputError (exit 2).
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConditionError, InputError, NligenError, RenderError, UsageError
from ..pairs import PAIR_RECORDS
from .evaluate import json_object

MANIFEST = "manifest.json"
MAX_FINDINGS_SHOWN = 20


@dataclass
class Finding:
    where: str          # "DIR/train.jsonl:12"
    record: str | None  # the record's id
    what: str

    def line(self) -> str:
        return f"{self.where}: {self.record + ': ' if self.record else ''}{self.what}"


@dataclass
class FileCheck:
    name: str
    in_folder: str | None      # sha256 of the file in DIR (None: missing)
    in_manifest: str | None    # what manifest.json lists (data files only)
    regenerated: str | None    # sha256 of the regenerated file (None: not written again)

    @property
    def reproduced(self) -> bool:
        return self.in_folder is not None and self.in_folder == self.regenerated


@dataclass
class VerifyReport:
    folder: str
    command: str
    records: int = 0          # every record read (or regenerated) has its label checked
    # "regenerated" (TSV files carry no slots), "stress", or "pairs" (minimal pairs)
    labels_source: str = "records"
    findings: list[Finding] = field(default_factory=list)
    files: list[FileCheck] = field(default_factory=list)
    regeneration_error: str | None = None
    manifest_changes: list[str] = field(default_factory=list)

    @property
    def labels_checked(self) -> int:
        return self.records

    @property
    def labels_ok(self) -> bool:
        return not self.findings and self.labels_checked > 0

    @property
    def reproduced(self) -> bool:
        return self.regeneration_error is None and bool(self.files) and all(
            f.reproduced for f in self.files)

    @property
    def ok(self) -> bool:
        return self.labels_ok and self.reproduced

    def as_json(self) -> dict[str, Any]:
        return {
            "folder": self.folder, "command": self.command, "ok": self.ok,
            "records": self.records,
            "labels": {"ok": self.labels_ok, "checked": self.labels_checked,
                       "source": self.labels_source,
                       "mismatches": [{"where": f.where, "id": f.record, "what": f.what}
                                      for f in self.findings]},
            "reproduced": self.reproduced,
            "regeneration_error": self.regeneration_error,
            "manifest_changes": self.manifest_changes,
            "files": {f.name: {"sha256": f.in_folder, "manifest": f.in_manifest,
                               "regenerated": f.regenerated, "reproduced": f.reproduced}
                      for f in self.files},
        }

    def text(self) -> str:
        lines = [f"verify {self.folder} (`{self.command}`): {self.records} records"]
        source = {"records": "the records' slots and templates",
                  "regenerated": "the regenerated records' slots (TSV files carry no slots) "
                                 "and templates",
                  "stress": "premise_original and the transformations",
                  "pairs": "the records' slots and paradigms (both sentences rendered again, "
                           "every pair's checks run again)"}[self.labels_source]
        bad = len(self.findings)
        lines.append(f"labels: {self.labels_checked - min(bad, self.labels_checked)}/"
                     f"{self.labels_checked} re-derived from {source}"
                     + (f"; {bad} mismatch{'es' if bad != 1 else ''}:" if bad else ""))
        for f in self.findings[:MAX_FINDINGS_SHOWN]:
            lines.append(f"  {f.line()}")
        if bad > MAX_FINDINGS_SHOWN:
            lines.append(f"  ... {bad - MAX_FINDINGS_SHOWN} more")
        if self.regeneration_error:
            lines.append(f"reproduction: cannot regenerate: {self.regeneration_error}")
        else:
            same = [f.name for f in self.files if f.reproduced]
            lines.append(f"reproduction: {len(same)}/{len(self.files)} files byte-identical "
                         "when regenerated from manifest.json")
            for f in self.files:
                if f.reproduced:
                    continue
                if f.in_folder is None:
                    why = "missing from the folder"
                elif f.regenerated is None:
                    why = "not written by the command"
                elif f.in_manifest is not None and f.in_manifest != f.in_folder:
                    why = "differs; it was changed after generation (sha256 differs from manifest.json)"
                else:
                    why = "differs from the regenerated file"
                lines.append(f"  {f.name}: {why}")
            for change in self.manifest_changes:
                lines.append(f"  manifest: {change}")
        lines.append("ok" if self.ok else "FAILED")
        return "\n".join(lines) + "\n"


# -- label re-derivation ------------------------------------------------------------

class RecordChecker:
    """Rebuilds records from their slots against a template set and its lexicons."""

    def __init__(self, template_set, lexicons, matched: bool = False,
                 semantics: bool = False):
        from ..engine import Engine, Selection

        self.engine = Engine(template_set, lexicons, 0, Selection())
        # also label each record by its template's semantics block (nligen.semantics)
        self.semantics = semantics
        # a matched set's problems have the formats its cells asked for (TimeSpec.check)
        self.matched = matched
        self.templates = {t.id: t for t in self.engine.templates}
        self.variants: dict[str, dict[str, Any]] = {}
        for v in self.engine.variants:
            self.variants.setdefault(v.template.id, {})[v.name] = v
        self._index: dict[int, tuple[list, dict[str, Any]]] = {}

    def _lookup(self, options: list, recorded: Mapping[str, Any]):
        entry = self._index.get(id(options))
        if entry is None or entry[0] is not options:
            index: dict[str, Any] = {}
            for value in options:
                index.setdefault(value.provenance_json(), value)
            entry = self._index[id(options)] = (options, index)
        return entry[1].get(json.dumps(recorded, ensure_ascii=False))

    def check(self, record: Mapping[str, Any]) -> str | None:
        """Why the record's label (or text) does not follow from its slots; None if it does."""
        is_pair = "sentence_good" in record  # a minimal pair, in BLiMP's format
        tid = record.get("UID" if is_pair else "template")
        template = self.templates.get(tid) if isinstance(tid, str) else None
        if template is None:
            return f"unknown {'paradigm' if is_pair else 'template'} {tid!r}"
        if is_pair != (template.pair is not None):
            return (f"a {'pair' if is_pair else 'problem'} record, but {tid} makes "
                    f"{'minimal pairs' if template.pair is not None else 'NLI problems'}")
        if not is_pair and "label" not in record:
            return "no label"
        slots = record.get("slots")
        if not isinstance(slots, dict):
            return "no slots (cannot re-derive the label)"
        variant = self._variant(template, record)
        if isinstance(variant, str):
            return variant
        filling: dict[str, Any] = {}
        for name in variant.order:
            recorded = slots.get(name)
            if not isinstance(recorded, dict):
                return f"slot {name!r} missing"
            value = self._lookup(variant.options(name, filling), recorded)
            if value is None:
                return f"slot {name!r} holds a value the template's slot cannot take"
            filling[name] = value
        for group in template.distinct:
            identities = [filling[s]._identity for s in group if s in filling]
            if len(set(identities)) != len(identities):
                return f"slots {', '.join(group)} share an identity"
        time = template.time
        extra = set(slots) - set(filling) - set(time.names if time else ())
        if extra:
            return f"unknown slot(s) {', '.join(sorted(extra))}"
        if time is not None:
            render = self.engine.time_text(template)
            values = {}
            for name in time.names:
                if name not in slots:
                    continue
                recorded = slots[name]
                try:
                    value = time.restore(name, recorded, render)
                except (KeyError, TypeError, ValueError) as exc:
                    return f"slot {name!r} is not a time expression ({exc})"
                if value._text != recorded.get("text"):
                    return (f"slot {name!r}: text {recorded.get('text')!r} is not how its "
                            f"value is written ({value._text!r})")
                values[name] = value
            why = time.check(values, filling, self.matched)
            if why:
                return why
            filling.update(values)
        context: dict[str, Any] = dict(filling)
        context.update(variant.axes)
        context["variant"] = variant.name
        if is_pair:
            return self._check_pair(template, context, record)
        try:
            premise = template.premise_separator.join(p.render(context)[0]
                                                      for p in template.premises)
            if premise != record.get("premise"):
                return f"premise does not render from the slots (would be {premise!r})"
            labels = set()
            for h in template.hypotheses:
                if "hypothesis_type" in record and h.type != record["hypothesis_type"]:
                    continue
                if h.text.render(context)[0] != record.get("hypothesis"):
                    continue
                label = h.rule.decide(context)
                if label is None:
                    return f"no label rule of {tid} holds for these slots ({h.rule.describe()})"
                labels.add((label, h.rule.describe()))
        except (ConditionError, RenderError) as exc:
            return f"cannot re-derive: {exc}"
        if not labels:
            return "hypothesis does not render from the slots with any of the template's hypotheses"
        if len({lab for lab, _ in labels}) > 1:
            return "the hypothesis text fits hypotheses with different labels"
        label, rule = labels.pop()
        if record["label"] != label:
            return f"label {record['label']!r}, but template {tid} gives {label!r} ({rule})"
        if self.semantics:
            why = self._check_semantics(template, context, record["label"])
            if why:
                return why
        if "same_lemmas" in template.checks:  # generation proves it per variant: check it here
            analyse = self.engine.analyser(template)
            want, got = sorted(analyse(premise)), sorted(analyse(record["hypothesis"]))
            if want != got:
                return f"premise lemmas {want} differ from the hypothesis lemmas {got}"
        return None

    @staticmethod
    def _check_semantics(template, context: Mapping[str, Any], label: str) -> str | None:
        from ..semantics import check as semantic_check

        if template.semantics is None:
            return f"template {template.id} has no semantics block"
        try:
            verdict = semantic_check(template.semantics, context)
        except ConditionError as exc:
            return f"its semantics cannot label it: {exc}"
        if verdict.label == label:
            return None
        witness = verdict.witness(label)
        shown = f" (a model: {witness.describe()})" if witness is not None else ""
        return f"label {label!r}, but its semantics gives {verdict.label!r}{shown}"

    @staticmethod
    def _check_pair(template, context: Mapping[str, Any], record: Mapping[str, Any]) -> str | None:
        """A minimal pair: both sentences render from the slots, and the pair passes the
        checks generation ran (nligen.pairs.PairSpec.problem)."""
        try:
            good = template.premises[0].render(context)[0]
            bad, spans = template.hypotheses[0].text.render(context)
        except RenderError as exc:
            return f"cannot re-derive: {exc}"
        if good != record.get("sentence_good"):
            return f"sentence_good does not render from the slots (would be {good!r})"
        if bad != record.get("sentence_bad"):
            return f"sentence_bad does not render from the slots (would be {bad!r})"
        return template.pair.problem(context, good, bad, spans)

    def _variant(self, template, record):
        variants = self.variants.get(template.id, {})
        if template.variants is None:
            return next(iter(variants.values()))
        name = record.get(template.variants.field)
        if name not in variants:
            return f"unknown {template.variants.field} {name!r} for template {template.id}"
        return variants[name]


# -- the folder -----------------------------------------------------------------------

def _sha256(path: Path) -> str | None:
    try:
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        return h.hexdigest()
    except OSError:
        return None


def read_manifest(folder: Path) -> dict[str, Any]:
    where = str(folder / MANIFEST)
    if not folder.is_dir():
        raise InputError("no such folder", str(folder))
    try:
        text = (folder / MANIFEST).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("no manifest.json (verify needs a folder written with -o DIR/)",
                         str(folder)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {getattr(exc, 'strerror', None) or exc}", where) from None
    manifest = json_object(text, where)
    for key, kind in (("command", str), ("files", dict)):
        if not isinstance(manifest.get(key), kind):
            raise InputError(f"no {key!r} ({kind.__name__})", where)
    return manifest


def _records(path: Path) -> Iterable[tuple[int, dict[str, Any]]]:
    try:
        with open(path, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if line.strip():
                    yield lineno, json_object(line, f"{path}:{lineno}")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start})", str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", str(path)) from None


def verify(folder: str | Path, semantics: bool = False) -> VerifyReport:
    """Check a folder written with ``-o DIR/``: labels re-derived, files reproduced."""
    from ..commands import dataset_from_command, templates_of_command

    folder = Path(folder)
    manifest = read_manifest(folder)
    command = manifest["command"]
    stress = manifest.get("family") == "stress"
    report = VerifyReport(str(folder), command, labels_source="stress" if stress else (
        "pairs" if manifest.get("records") == PAIR_RECORDS else "records"))
    data_files = list(manifest["files"])
    jsonl = [n for n in data_files if n.endswith(".jsonl")]
    try:
        if stress:
            from ..commands import transformations_of_command
            from ..stress import StressChecker

            checker = StressChecker(transformations_of_command(command))
        else:
            template_set, lexicons = templates_of_command(command)
            checker = RecordChecker(template_set, lexicons, matched="match_cells" in manifest,
                                    semantics=semantics)
    except NligenError as exc:
        hint = (" (relative paths in the command are read from the current folder)"
                if command.split()[1:2] == ["run"] else "")
        raise InputError(f"cannot load the templates of {command!r}: {exc}{hint}",
                         str(folder / MANIFEST)) from None
    if semantics and (stress or not any(t.semantics for t in checker.templates.values())):
        raise UsageError("--semantics: the templates of this set have no semantics blocks "
                         "(the Jamp templates do)", str(folder / MANIFEST))
    for name in jsonl:
        path = folder / name
        if not path.is_file():
            continue  # reported as missing by the reproduction check
        for lineno, record in _records(path):
            report.records += 1
            why = checker.check(record)
            if why:
                rid = record.get("id")
                report.findings.append(Finding(f"{path}:{lineno}",
                                               rid if isinstance(rid, str) else None, why))
    dataset = None
    unavailable = _stress_input_unavailable(manifest) if stress else None
    if unavailable:
        report.regeneration_error = unavailable
    else:
        try:
            dataset, fmt = dataset_from_command(command, manifest)
        except NligenError as exc:
            report.regeneration_error = str(exc)
    if dataset is not None:
        if not jsonl:  # TSV: check the labels of the records the command makes
            report.labels_source = "regenerated"
            for record in dataset.iter_records():
                report.records += 1
                why = checker.check(record)
                if why:
                    report.findings.append(Finding(f"{command} (regenerated)", record["id"], why))
        shard = manifest.get("shard")
        piece = None
        if shard is not None:
            if not (isinstance(shard, dict) and type(shard.get("index")) is int
                    and type(shard.get("of")) is int):
                raise InputError("'shard' is not {\"index\": I, \"of\": K}",
                                 str(folder / MANIFEST))
            piece = (shard["index"], shard["of"])
        with tempfile.TemporaryDirectory(prefix="nligen-verify-") as tmp:
            paths = (dataset.write(tmp + "/", fmt, shard=piece) if piece is not None
                     else dataset.write(tmp + "/", fmt))
            written = {p.name: _sha256(p) for p in paths}
            names = list(dict.fromkeys([*data_files, *written, MANIFEST]))
            for name in names:
                listed = manifest["files"].get(name)
                report.files.append(FileCheck(
                    name, _sha256(folder / name),
                    listed.get("sha256") if isinstance(listed, dict) else None,
                    written.get(name)))
            if not all(f.reproduced for f in report.files):
                fresh = json.loads((Path(tmp) / MANIFEST).read_text(encoding="utf-8"))
                report.manifest_changes = _manifest_changes(manifest, fresh)
    return report


def _stress_input_unavailable(manifest: Mapping[str, Any]) -> str | None:
    """Why a ``gen stress`` command cannot be run again here (None: it can)."""
    given = manifest.get("input") if isinstance(manifest.get("input"), dict) else {}
    path = given.get("path")
    if not isinstance(path, str) or path == "<stdin>":
        return "the input was read from stdin, so the command cannot be run again"
    digest = _sha256(Path(path))
    if digest is None:
        return (f"input {path} not found (relative paths are read from the current "
                "folder); records re-derived only")
    if digest != given.get("sha256"):
        return f"input {path} changed since generation (sha256 differs)"
    return None


def _manifest_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """What differs between the recorded manifest and a regenerated one, in words."""
    out = []
    if old.get("nligen_version") != new.get("nligen_version"):
        out.append(f"made by nligen {old.get('nligen_version')}, this is "
                   f"{new.get('nligen_version')}")
    for key in ("templates", "lexicons", "transformations"):
        a, b = old.get(key) or {}, new.get(key) or {}
        for name in sorted(set(a) | set(b)):
            ha = a.get(name, {}).get("sha256") if isinstance(a.get(name), dict) else a.get(name)
            hb = b.get(name, {}).get("sha256") if isinstance(b.get(name), dict) else b.get(name)
            if ha != hb:
                state = "added" if ha is None else "removed" if hb is None else "changed"
                out.append(f"{key[:-1]} {name} {state} since generation")
    if old.get("counts") != new.get("counts") and not out:
        out.append("the per-template counts differ")
    return out


def verify_many(path: str | Path, semantics: bool = False) -> list[VerifyReport]:
    """A folder with manifest.json, or a folder whose subfolders have one (``--set all``)."""
    path = Path(path)
    if path.is_dir() and not (path / MANIFEST).exists():
        subs = sorted(p for p in path.iterdir() if (p / MANIFEST).is_file())
        if subs:
            return [verify(p, semantics) for p in subs]
    return [verify(path, semantics)]

"""The library API: every CLI action is one call here.

    >>> from nligen import generate
    >>> ds = generate("my_templates/", lexicons="my_lexicons/", n=100, seed=1)
    >>> ds.write("out/")            # per-split files + manifest.json + README.md
    >>> ds.records[0]["premise"]
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from .card import dataset_card
from .engine import Engine, Selection, describe_variants
from .errors import SplitError, UsageError
from .lexicon import LexiconSet
from .splits import SEEN_UNSEEN, SplitItem, SplitOptions, generate_restricted, generate_with_split
from .templates import TemplateSet, load_templates
from .version import __version__
from .writers import (
    FORMAT_EXT, GENERIC_TSV, TsvFormat, is_dir_target, iter_tsv, write_file_atomically,
    write_files_atomically, write_stdout,
)


@dataclass
class Dataset:
    """A generated dataset. Records are built on demand from the generated items, so a
    large set is streamed to disk without holding every record in memory."""

    family: str
    items: list[SplitItem]
    split_name: str | None
    manifest: dict
    family_info: dict = field(default_factory=dict)
    tsv_formats: dict[str, TsvFormat] = field(default_factory=dict)
    _records: list[dict] | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.items)

    @property
    def records(self) -> list[dict]:
        """All records as dicts (built once, on first use)."""
        if self._records is None:
            self._records = list(self.iter_records())
        return self._records

    def iter_records(self, split: str | None = None):
        for i, si in enumerate(self.items):
            if split is None or si.split == split:
                yield make_record(self.family, i, si, self.split_name)

    def iter_jsonl(self, split: str | None = None):
        for i, si in enumerate(self.items):
            if split is None or si.split == split:
                yield record_json(self.family, i, si, self.split_name)

    @property
    def splits(self) -> list[str]:
        out = {si.split for si in self.items}
        return sorted(out, key=lambda s: (s != "train", s))

    def formats(self) -> list[str]:
        return ["jsonl", "tsv", *self.tsv_formats]

    def _check_format(self, fmt: str) -> None:
        if fmt not in self.formats():
            raise UsageError(f"unknown format {fmt!r} (known: {', '.join(self.formats())})",
                             "--format")

    def iter_text(self, fmt: str = "jsonl", split: str | None = None):
        """The file content for one split (or all), as chunks of text."""
        self._check_format(fmt)
        if fmt == "jsonl":
            return self.iter_jsonl(split)
        layout = GENERIC_TSV if fmt == "tsv" else self.tsv_formats[fmt]
        return iter_tsv(self.iter_records(split), layout)

    def render(self, fmt: str = "jsonl", split: str | None = None) -> str:
        return "".join(self.iter_text(fmt, split))

    def write(self, path: str | Path | None = None, fmt: str = "jsonl") -> list[Path]:
        """Write to stdout (path None), one file, or a folder (path ending in / or an
        existing folder: one file per split + manifest.json + README.md)."""
        self._check_format(fmt)
        if path is None or str(path) == "-":
            write_stdout(self.iter_text(fmt))
            return []
        if is_dir_target(path):
            folder = Path(path)
            ext = FORMAT_EXT.get(fmt, "tsv")
            files: dict[str, Any] = {}
            counts = Counter(si.split for si in self.items)
            for split in self.splits:
                files[f"{split}.{ext}"] = self.iter_text(fmt, split)
            digests = write_files_atomically(
                folder, files, extra=lambda digests: self._meta_files(fmt, digests, counts, ext))
            return [folder / n for n in digests]
        target = Path(path)
        write_file_atomically(target, self.iter_text(fmt))
        return [target]

    def _meta_files(self, fmt: str, digests: Mapping[str, str], counts: Counter,
                    ext: str) -> dict[str, str]:
        manifest = dict(self.manifest)
        manifest["format"] = fmt
        manifest["files"] = {name: {"records": counts[name[: -len(ext) - 1]], "sha256": digest}
                             for name, digest in digests.items()}
        return {"manifest.json": json.dumps(manifest, ensure_ascii=False, indent=2) + "\n",
                "README.md": dataset_card(self, manifest, ext)}


def _counts(items: Sequence[SplitItem]) -> dict:
    counts: dict[str, dict[str, dict[str, int]]] = {}
    for si in items:
        item = si.item
        key = item.variant.name or item.template.id
        by_label = counts.setdefault(si.split, {}).setdefault(item.label, {})
        by_label[key] = by_label.get(key, 0) + 1
    return {s: {lab: dict(sorted(v.items())) for lab, v in sorted(d.items())}
            for s, d in sorted(counts.items())}


def _record_head(family: str, index: int, si: SplitItem, split_name: str | None) -> dict:
    item = si.item
    t = item.template
    rec: dict[str, Any] = {
        "id": f"{family}-{index:06d}",
        "family": family,
        "template": t.id,
        "premise": item.premise,
        "hypothesis": item.text,
        "label": item.label,
        "split": si.split,
    }
    if si.seen is not None or (si.split == "test" and split_name in SEEN_UNSEEN):
        rec["seen"] = bool(si.seen)
    if t.variants is not None:
        rec[t.variants.field] = item.variant.name
    if item.hypothesis.set != "default":
        rec["set"] = item.hypothesis.set
    if item.hypothesis.type:
        rec["hypothesis_type"] = item.hypothesis.type
    rec.update(item.fields)
    return rec


def _rationale(item) -> dict:
    rule = item.hypothesis.rule
    read = sorted(rule.slot_names) if rule.fixed is None else [
        s for s in item.filling if s in item.spans]
    rationale: dict[str, Any] = {"rule": rule.describe()}
    if item.explain:
        rationale["explain"] = item.explain
    slots_read = {}
    for s in read:
        spans = item.spans.get(s, [])
        # The text as it stands in the hypothesis (its first span), else the slot's value.
        text = item.text[spans[0][0]:spans[0][1]] if spans else (
            str(item.filling[s]) if s in item.filling else None)
        slots_read[s] = {"text": text, "spans": spans}
    rationale["slots"] = slots_read
    return rationale


def make_record(family: str, index: int, si: SplitItem, split_name: str | None) -> dict:
    """One record of the contract in DESIGN.md (a dict)."""
    rec = _record_head(family, index, si, split_name)
    rec["slots"] = {name: v.provenance() for name, v in si.item.filling.items()}
    rec["rationale"] = _rationale(si.item)
    return rec


# One encoder for every line: json.dumps(..., ensure_ascii=False) builds a new one per call.
_ENCODE = json.JSONEncoder(ensure_ascii=False).encode


def record_json(family: str, index: int, si: SplitItem, split_name: str | None) -> str:
    """The same record as one JSON line; slot provenance comes pre-serialised (slot values
    are shared by many records), which makes writing large sets much faster."""
    head = _ENCODE(_record_head(family, index, si, split_name))
    slots = ", ".join(f"{_ENCODE(name)}: {v.provenance_json()}"
                      for name, v in si.item.filling.items())
    rationale = _ENCODE(_rationale(si.item))
    return f'{head[:-1]}, "slots": {{{slots}}}, "rationale": {rationale}}}\n'


def generate(templates: str | Path | Sequence[str | Path] | TemplateSet, *,
             lexicons: str | Path | Sequence[str | Path] | LexiconSet | None = None,
             n: int | None = None, seed: int = 0, sets: Sequence[str] | None = None,
             variants: Sequence[str] | None = None, template_ids: Sequence[str] | None = None,
             split: str | None = None, split_options: SplitOptions | None = None,
             family: str | None = None, command: str | None = None,
             arguments: Mapping[str, Any] | None = None,
             tsv_formats: Mapping[str, TsvFormat] | None = None,
             progress: Callable[[int], None] | None = None,
             variant_option: str = "--variant",
             time_formats: Sequence[str] | None = None,
             time_spans: Sequence[str] | None = None) -> Dataset:
    """Generate a dataset from templates and lexicons.

    ``n`` is the number of problems (pairs); by default the family's
    ``default_units_per_variant`` units of every selected variant. ``sets`` selects
    hypothesis sets (default: the family's ``default_set``, else all).
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise UsageError(f"must be an integer (got {seed!r})", "--seed")
    template_set = templates if isinstance(templates, TemplateSet) else load_templates(
        [templates] if isinstance(templates, (str, Path)) else templates)
    fam = template_set.family
    lexicon_set = lexicon_set_for(lexicons, template_set)
    if not sets and fam.get("default_set"):
        sets = [fam["default_set"]]
    selection = Selection(sets=sets, variants=variants, templates=template_ids,
                          variant_option=variant_option, time_formats=time_formats,
                          time_spans=time_spans)
    engine = Engine(template_set, lexicon_set, seed, selection)
    cells = engine.cells()
    if n is None:
        units = engine.default_units_per_cell()
        n = sum(c.pairs_per_unit for c in cells) * units
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
        raise UsageError(f"must be a positive integer (got {n})", "--n")
    engine.check_total(n)
    options = split_options or SplitOptions()
    options.name = split
    if not options.cover and split == "augmentation":
        options.cover = list(fam.get("splits", {}).get("augmentation", {}).get("cover", []))
    if options.restriction is not None:
        def make_engine(templates=None, time_formats=None, time_spans=None, filling_filter=None):
            chosen = [t for t in (template_ids or [x.id for x in engine.templates])
                      if templates is None or t in templates]
            if not chosen:
                raise SplitError("no selected template may go to train", "--split")
            restricted = Selection(
                sets=sets, variants=variants, templates=chosen, variant_option=variant_option,
                time_formats=_narrow(selection.time_formats, time_formats),
                time_spans=_narrow(selection.time_spans, time_spans))
            return Engine(template_set, lexicon_set, seed, restricted, filling_filter)

        split_items = generate_restricted(make_engine, seed, n, options, progress=progress)
    else:
        split_items = generate_with_split(engine, n, options, progress=progress)
    family_name = family or fam.get("name") or engine.templates[0].family
    manifest = {
        "nligen_version": __version__,
        "family": family_name,
        "command": command,
        "arguments": dict(arguments) if arguments is not None else {
            "n": n, "seed": seed, "sets": list(sets) if sets else None,
            "variants": list(variants) if variants else None, "split": split,
        },
        "seed": seed,
        "n": n,
        "split": split,
        "templates": _template_hashes(engine, template_set),
        "lexicons": {
            name: {"sha256": lex.sha256, "source": lex.meta.get("source"),
                   "license": lex.meta.get("license")}
            for name, lex in lexicon_set.used.items()
        },
        "counts": _counts(split_items),
        "totals": {s: dict(sorted(Counter(si.item.label for si in split_items
                                          if si.split == s).items()))
                   for s in sorted({si.split for si in split_items})},
    }
    return Dataset(family_name, split_items, split, manifest, dict(fam), dict(tsv_formats or {}))


def _narrow(run: Sequence[str] | None, split: Sequence[str] | None) -> list[str] | None:
    """What a restricted train side may use: the run's choice within the split's."""
    if run is None:
        return list(split) if split is not None else None
    return [x for x in run if split is None or x in split]


def lexicon_set_for(lexicons, template_set: TemplateSet) -> LexiconSet:
    """The lexicons a run of ``template_set`` uses: the given folders, else the template
    folder's lexicons/ (or its parent's), else the shipped ones."""
    if isinstance(lexicons, LexiconSet):
        return lexicons
    if lexicons is None:
        roots = []
        if template_set.root is not None:
            for cand in (template_set.root / "lexicons", template_set.root.parent / "lexicons"):
                if cand.is_dir():
                    roots.append(cand)
        if not roots:
            from .data import lexicons_dir

            try:
                roots.append(lexicons_dir())
            except Exception:
                pass
        return LexiconSet(roots)
    paths = [lexicons] if isinstance(lexicons, (str, Path)) else list(lexicons)
    for p in paths:
        if not Path(p).is_dir():
            raise UsageError("no such folder", str(p))
    return LexiconSet(Path(p) for p in paths)


def _template_hashes(engine: Engine, template_set: TemplateSet) -> dict[str, str]:
    """SHA-256 of every template file used, and of the family.yaml whose defaults apply."""
    import hashlib

    from .templates import FAMILY_FILE

    out = {}
    base = template_set.root.parent if template_set.root is not None else None
    paths = [(t.path, t.sha256) for t in engine.templates]
    if template_set.root is not None and (template_set.root / FAMILY_FILE).is_file():
        family_file = template_set.root / FAMILY_FILE
        paths.append((family_file, hashlib.sha256(family_file.read_bytes()).hexdigest()))
    for path, sha in paths:
        try:
            key = path.resolve().relative_to(base.resolve()).as_posix() if base else path.name
        except ValueError:
            key = path.name
        out[key] = sha
    return dict(sorted(out.items()))


def list_variants(templates, *, lexicons=None, sets=None) -> list[dict[str, Any]]:
    template_set = templates if isinstance(templates, TemplateSet) else load_templates(
        [templates] if isinstance(templates, (str, Path)) else templates)
    engine = Engine(template_set, lexicon_set_for(lexicons, template_set), 0, Selection(sets=sets))
    return describe_variants(engine)

"""The library API: every CLI action is one call here.

    >>> from nligen import generate
    >>> ds = generate("my_templates/", lexicons="my_lexicons/", n=100, seed=1)
    >>> ds.write("out/")            # per-split files + manifest.json + README.md
    >>> ds.records[0]["premise"]
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

from .card import DEFAULT_CARD_TABLES, dataset_card
from .engine import Engine, Selection, describe_variants
from .plans import BALANCES, CellQuota
from .errors import SplitError, UsageError
from .lexicon import LexiconSet
from .pairs import PAIR_RECORDS
from .parallel import produce
from .pipeline import (
    Formatter, Job, Source, SplitItem, Tally, audit_sample, iter_items, tsv_columns,
)
from .records import make_record
from .splits import SplitOptions, generate_restricted, generate_with_split
from .templates import TemplateSet, load_templates
from .version import __version__
from .writers import FORMAT_EXT, GENERIC_TSV, TsvFormat

MANIFEST_FILE = "manifest.json"
TALLY_FILE = "tally.json"  # a shard's tally, which `gen merge` adds up


@dataclass
class Dataset:
    """A generated dataset: its items are made afresh, in order, each time they are read
    or written (:mod:`nligen.pipeline`), so a set of any size streams to disk, and the
    same items come out whether one process writes them, N workers, K shards or a
    cluster."""

    family: str
    source: Source
    split_name: str | None
    manifest_base: dict
    family_info: dict = field(default_factory=dict)
    tsv_formats: dict[str, TsvFormat] = field(default_factory=dict)
    seed: int = 0
    # how to make this dataset again in another process: (callable, keyword arguments),
    # both picklable (a cluster's workers rebuild it)
    recipe: tuple[Callable[..., "Dataset"], dict[str, Any]] | None = None
    lexicon_set: LexiconSet | None = field(default=None, repr=False)
    _tally: Tally | None = field(default=None, repr=False)
    _records: list[dict] | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return self.source.n

    @property
    def items(self) -> list[SplitItem]:
        """Every item, in order (all in memory)."""
        return self.source.items()

    @property
    def records(self) -> list[dict]:
        """All records as dicts (built once, on first use; all in memory)."""
        if self._records is None:
            self._records = list(self.iter_records())
        return self._records

    def iter_records(self, split: str | None = None) -> Iterator[dict]:
        for i, si in iter_items(self.source):
            if split is None or si.split == split:
                yield make_record(self.family, i, si.item, si.split, si.seen, self.split_name)

    def iter_jsonl(self, split: str | None = None) -> Iterator[str]:
        return self.iter_text("jsonl", split)

    @property
    def manifest(self) -> dict:
        """What ``manifest.json`` says of the set (without ``format`` and ``files``): its
        counts take one pass over the items unless the set was written already."""
        if self._tally is None:
            tally = Tally(full=False)
            for i, si in iter_items(self.source):
                tally.add(i, si, self.family, self.split_name)
            self._tally = tally
        return self._manifest(self._tally)

    def _manifest(self, tally: Tally) -> dict:
        manifest = dict(self.manifest_base)
        if self.lexicon_set is not None:  # the lexicons read, once every item was made
            manifest["lexicons"] = {
                name: {"sha256": lex.sha256, "source": lex.meta.get("source"),
                       "license": lex.meta.get("license")}
                for name, lex in self.lexicon_set.used.items()}
        manifest["counts"] = tally.manifest_counts()
        manifest["totals"] = tally.totals()
        if self.source.excluded or "match_cells" in manifest:  # what the set is made again
            # from: the excluded pairs the run met (pipeline.WatchedSet)
            hits = tally.excluded_hits | self.source.hits
            manifest["excluded_hits"] = [f"{h:016x}" for h in sorted(hits)]
        return manifest

    @property
    def splits(self) -> list[str]:
        return sorted(self.manifest["totals"], key=lambda s: (s != "train", s))

    def formats(self) -> list[str]:
        if self.manifest_base.get("records") == PAIR_RECORDS:  # (not .manifest: a pass)
            return ["jsonl"]  # BLiMP's format is JSONL
        return ["jsonl", "tsv", *self.tsv_formats]

    def _check_format(self, fmt: str) -> None:
        if fmt not in self.formats():
            raise UsageError(f"unknown format {fmt!r} (known: {', '.join(self.formats())})",
                             "--format")

    def _layout(self, fmt: str) -> TsvFormat | None:
        self._check_format(fmt)
        if fmt == "jsonl":
            return None
        return GENERIC_TSV if fmt == "tsv" else self.tsv_formats[fmt]

    def _job(self, fmt: str, start: int, stop: int, per_split: bool, tally: Tally) -> Job:
        layout = self._layout(fmt)
        columns, firsts = (tsv_columns(self.source, self.family, self.split_name, layout,
                                       per_split) if layout is not None else ({}, {}))
        formatter = Formatter(self.family, self.split_name, fmt, layout, columns)
        return Job(self.source, formatter, start, stop, per_split, tally, firsts)

    def iter_text(self, fmt: str = "jsonl", split: str | None = None) -> Iterator[str]:
        """The file content for one split (or all), as chunks of text."""
        job = self._job(fmt, 0, len(self), split is not None, Tally(full=False))
        for texts, _, _ in produce(job):
            text = texts.get(split if split is not None else "")
            if text:
                yield text

    def render(self, fmt: str = "jsonl", split: str | None = None) -> str:
        return "".join(self.iter_text(fmt, split))

    def write(self, path: str | Path | None = None, fmt: str = "jsonl", *,
              workers: int | str = 1,
              shard: tuple[int, int] | None = None,
              progress: Callable[[int], None] | None = None,
              cluster: Any = None) -> list[Path]:
        """Write to stdout (path None), one file, or a folder (path ending in / or an
        existing folder: one file per split + manifest.json + README.md).

        ``workers``: processes that build the items, or ``"auto"`` (one per core, at
        most 4; the bytes are the same for any number). ``shard=(i, k)``: only the i-th
        of k contiguous pieces (1-based); a folder then holds the piece's files, a manifest naming the piece and its tally,
        for :func:`merge`. ``cluster``: a ``dask.distributed`` Client or scheduler
        address that builds the items instead (:mod:`nligen.cluster`). ``progress`` is
        called with the number of items written so far."""
        from .writers import AtomicFiles, is_dir_target

        check_workers(workers)
        if workers == "auto":
            from .parallel import auto_workers

            workers = auto_workers()
        start, stop = shard_range(len(self), shard) if shard is not None else (0, len(self))
        folder = None if path is None or str(path) == "-" or not is_dir_target(path) else Path(path)
        tally = Tally(list(self.family_info.get("card_tables") or DEFAULT_CARD_TABLES)
                      if folder is not None else (),
                      audit_sample(len(self), self.seed) if folder is not None else None,
                      full=folder is not None)
        job = self._job(fmt, start, stop, folder is not None, tally)
        if cluster is not None:
            from .cluster import produce_on_cluster

            pieces = produce_on_cluster(self, job, cluster)
        else:
            pieces = produce(job, workers)
        if folder is None:
            return self._write_one(path, pieces, tally, progress)
        ext = FORMAT_EXT.get(fmt, "tsv")
        done = 0
        with AtomicFiles(folder) as out:
            for texts, part, count in pieces:
                for key, text in texts.items():
                    out.write(f"{key}.{ext}", text)
                tally.merge(part)
                done += count
                if progress is not None:
                    progress(done)
            tally.excluded_hits |= self.source.hits
            digests = out.digests()
            manifest = self._manifest(tally)
            manifest["format"] = fmt
            per_split = tally.records_per_split()
            manifest["files"] = {f"{s}.{ext}": {"records": per_split[s],
                                                "sha256": digests[f"{s}.{ext}"]}
                                 for s in tally.splits()}
            if shard is not None:
                # what `gen merge` needs for the whole set's manifest and card
                out.put(TALLY_FILE, json.dumps({"family_info": self.family_info,
                                                "tally": tally.to_json()},
                                               ensure_ascii=False) + "\n")
                manifest["shard"] = {"index": shard[0], "of": shard[1], "items": [start, stop],
                                     "tally": {"file": TALLY_FILE,
                                               "sha256": out.close(TALLY_FILE)}}
            else:
                out.put("README.md", dataset_card(self.family, self.family_info, manifest,
                                                  ext, tally, len(self)))
            out.put(MANIFEST_FILE, json.dumps(manifest, ensure_ascii=False, indent=2) + "\n")
            digests = out.commit()
        self._tally = tally if shard is None else self._tally
        return [folder / n for n in digests]

    def _write_one(self, path, pieces, tally: Tally, progress) -> list[Path]:
        """stdout or one file: written whole or not at all (stdout gets the text only
        when the run succeeded, through a temporary file)."""
        from .writers import AtomicFiles, check_file_target, write_stdout

        done = 0
        if path is None or str(path) == "-":
            import tempfile

            with tempfile.TemporaryFile() as spool:
                for texts, part, count in pieces:
                    for text in texts.values():
                        spool.write(text if isinstance(text, bytes) else text.encode("utf-8"))
                    tally.merge(part)
                    done += count
                    if progress is not None:
                        progress(done)
                spool.seek(0)
                write_stdout(_chunks(spool))
            self._tally = tally if tally.counts and done == len(self) else self._tally
            return []
        target = Path(path)
        check_file_target(target)
        with AtomicFiles(target.parent if str(target.parent) else Path("."),
                         hashed=False) as out:
            out.write(target.name, "")
            for texts, part, count in pieces:
                for text in texts.values():
                    out.write(target.name, text)
                tally.merge(part)
                done += count
                if progress is not None:
                    progress(done)
            out.commit()
        if done == len(self):
            self._tally = tally
        return [target]


def _chunks(fh, size: int = 1 << 20) -> Iterator[str]:
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")()  # a block may end inside a character
    while True:
        block = fh.read(size)
        if not block:
            tail = decoder.decode(b"", final=True)
            if tail:
                yield tail
            return
        yield decoder.decode(block)


def check_workers(workers: Any) -> None:
    if workers == "auto":
        return
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise UsageError(f"must be a positive integer or auto (got {workers!r})", "--workers")


def shard_range(n: int, shard: tuple[int, int]) -> tuple[int, int]:
    """Items [start, stop) of shard i of k (1-based): k contiguous pieces, sizes differing
    by at most one."""
    i, k = shard
    if isinstance(k, bool) or not isinstance(k, int) or k < 1 or isinstance(i, bool) \
            or not isinstance(i, int) or not 1 <= i <= k:
        raise UsageError(f"must be I/K with 1 <= I <= K (got {i}/{k})", "--shard")
    if k > n:
        raise UsageError(f"{k} shards of {n} problems: at most one shard per problem", "--shard")
    return (i - 1) * n // k, i * n // k


def merge(folders: Sequence[str | Path], output: str | Path) -> list[Path]:
    """Join the shard folders of one command (``--shard I/K -o DIR/``, any order) into
    ``output``: the split files concatenated in shard order, one manifest and one dataset
    card, byte for byte the folder the command writes without ``--shard``."""
    from .errors import InputError
    from .writers import AtomicFiles

    shards = []
    for folder in folders:
        folder = Path(folder)
        manifest = _read_json(folder / MANIFEST_FILE)
        info = manifest.get("shard")
        if not isinstance(info, dict):
            raise InputError("not a shard folder (its manifest has no 'shard')",
                             str(folder / MANIFEST_FILE))
        shards.append((info["index"], folder, manifest))
    shards.sort(key=lambda s: s[0])
    first = shards[0][2]
    count = first["shard"]["of"]
    for _, folder, manifest in shards:
        for key in ("command", "seed", "n", "format", "nligen_version"):
            if manifest.get(key) != first.get(key):
                raise InputError(f"its {key} differs from that of {shards[0][1]}", str(folder))
        if manifest["shard"]["of"] != count:
            raise InputError(f"a shard of {manifest['shard']['of']}, not of {count}",
                             str(folder))
    indices = [i for i, _, _ in shards]
    if indices != list(range(1, count + 1)):
        missing = sorted(set(range(1, count + 1)) - set(indices))
        twice = sorted({i for i in indices if indices.count(i) > 1})
        problems = []
        if twice:
            problems.append("shard(s) given twice: " + ", ".join(map(str, twice)))
        if missing:
            problems.append("missing shard(s) " + ", ".join(map(str, missing)))
        raise InputError("; ".join(problems) + f" (of {count})", "gen merge")
    tally: Tally | None = None
    fam: dict = {}
    for _, folder, manifest in shards:
        data = _read_json(folder / manifest["shard"]["tally"]["file"])
        part = Tally.from_json(data["tally"])
        fam = data["family_info"]
        if tally is None:
            tally = part
        else:
            tally.merge(part)
    assert tally is not None
    fmt = first["format"]
    ext = FORMAT_EXT.get(fmt, "tsv")
    out_folder = Path(output)
    with AtomicFiles(out_folder) as out:
        for split in tally.splits():
            name = f"{split}.{ext}"
            out.write(name, "")
            for _, folder, manifest in shards:
                if name in manifest["files"]:
                    with open(folder / name, "rb") as fh:
                        for block in iter(lambda: fh.read(1 << 20), b""):
                            out.write_bytes(name, block)
        digests = out.digests()
        manifest = {k: v for k, v in first.items()
                    if k not in ("lexicons", "counts", "totals", "excluded_hits", "format",
                                 "files", "shard")}
        lexicons: dict[str, Any] = {}
        for _, _, m in shards:
            lexicons.update(m.get("lexicons") or {})
        manifest["lexicons"] = dict(sorted(lexicons.items()))
        manifest["counts"] = tally.manifest_counts()
        manifest["totals"] = tally.totals()
        if "excluded_hits" in first:
            manifest["excluded_hits"] = [f"{h:016x}" for h in sorted(tally.excluded_hits)]
        manifest["format"] = fmt
        per_split = tally.records_per_split()
        manifest["files"] = {f"{s}.{ext}": {"records": per_split[s],
                                            "sha256": digests[f"{s}.{ext}"]}
                             for s in tally.splits()}
        out.put("README.md", dataset_card(manifest["family"], fam, manifest, ext, tally,
                                          manifest["n"]))
        out.put(MANIFEST_FILE, json.dumps(manifest, ensure_ascii=False, indent=2) + "\n")
        written = out.commit()
    return [out_folder / n for n in written]


def _read_json(path: Path) -> dict:
    from .errors import InputError

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", str(path)) from None
    except ValueError as exc:
        raise InputError(f"not JSON: {exc}", str(path)) from None
    if not isinstance(data, dict):
        raise InputError("not a JSON object", str(path))
    return data


def generate(templates: str | Path | Sequence[str | Path] | TemplateSet, *,
             lexicons: str | Path | Sequence[str | Path] | LexiconSet | None = None,
             n: int | None = None, seed: int = 0, sets: Sequence[str] | None = None,
             variants: Sequence[str] | None = None, template_ids: Sequence[str] | None = None,
             split: str | None = None, split_options: SplitOptions | None = None,
             family: str | None = None, command: str | None = None,
             arguments: Mapping[str, Any] | None = None,
             tsv_formats: Mapping[str, TsvFormat] | None = None,
             variant_option: str = "--variant",
             time_formats: Sequence[str] | None = None,
             time_spans: Sequence[str] | None = None,
             balance: str = "cell",
             quotas: Sequence[CellQuota] | None = None,
             excluded: frozenset[int] | None = None,
             provenance: Mapping[str, Any] | None = None) -> Dataset:
    """Generate a dataset from templates and lexicons.

    ``n`` is the number of problems (pairs); by default the family's
    ``default_units_per_variant`` units of every selected variant. ``sets`` selects
    hypothesis sets (default: the family's ``default_set``, else all).

    ``balance``: "cell" (every (template, label) cell alike), "label" (labels alike
    overall, templates weighted) or "template" (templates alike; :mod:`nligen.plans`).
    ``quotas``: the problems of each cell (a matched set; then ``n`` is their sum). ``excluded``: pair
    fingerprints (:func:`nligen.rng.pair_fingerprint`) no problem may equal; the
    manifest keeps those the run met. ``provenance``: more manifest entries (what a
    matched set was matched to).
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise UsageError(f"must be an integer (got {seed!r})", "--seed")
    template_set = templates if isinstance(templates, TemplateSet) else load_templates(
        [templates] if isinstance(templates, (str, Path)) else templates)
    fam = template_set.family
    lexicon_set = lexicon_set_for(lexicons, template_set)
    if not sets and fam.get("default_set"):
        sets = [fam["default_set"]]
    if balance not in BALANCES:
        raise UsageError(f"unknown balance {balance!r} (known: {', '.join(BALANCES)})",
                         "--balance")
    if quotas is not None and (split is not None or balance != "cell"):
        raise UsageError("a matched set has its own composition: no --split, no --balance",
                         "--match")
    selection = Selection(sets=sets, variants=variants, templates=template_ids,
                          variant_option=variant_option, time_formats=time_formats,
                          time_spans=time_spans, balance=balance,
                          quotas=list(quotas) if quotas is not None else None)
    engine = Engine(template_set, lexicon_set, seed, selection)
    pair_templates = {t.pair is not None for t in engine.templates}
    if len(pair_templates) > 1:
        raise UsageError("the selected templates mix minimal pairs ('good') and NLI "
                         "problems: make them as two sets", "--template")
    cells = engine.cells()
    matched = engine.planned_pairs(cells)
    if matched is not None:
        if n is not None and n != matched:
            raise UsageError(f"a matched set has {matched} problems (got --n {n})", "--n")
        n = matched
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
                time_spans=_narrow(selection.time_spans, time_spans), balance=balance)
            return Engine(template_set, lexicon_set, seed, restricted, filling_filter)

        source = generate_restricted(make_engine, seed, n, options)
    else:
        source = generate_with_split(engine, n, options)
    if excluded:
        source.excluded = frozenset(excluded)
    source.check()
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
        "balance": balance if quotas is None else "match",
        **(dict(provenance) if provenance else {}),
        "templates": _template_hashes(engine, template_set),
    }
    if True in pair_templates:  # records in BLiMP's format (nligen.pairs)
        manifest["records"] = PAIR_RECORDS
        manifest["languages"] = sorted({t.language.code for t in engine.templates})
    if quotas is not None:  # the composition, so that the set can be made again from it
        manifest["match_cells"] = [q.as_json() for q in quotas]
    recipe = None
    if _plain_paths(templates) and (lexicons is None or _plain_paths(lexicons)):
        recipe = (generate, dict(
            templates=templates, lexicons=lexicons, n=n, seed=seed, sets=sets,
            variants=variants, template_ids=template_ids, split=split,
            split_options=split_options, family=family, command=command,
            arguments=arguments, tsv_formats=tsv_formats, variant_option=variant_option,
            time_formats=time_formats, time_spans=time_spans, balance=balance, quotas=quotas,
            excluded=excluded, provenance=provenance))
    info = dict(fam)
    divergences = {t.id: t.divergence for t in engine.templates if t.divergence}
    if divergences:  # listed in the dataset card
        info["divergences"] = dict(sorted(divergences.items()))
    return Dataset(family_name, source, split, manifest, info, dict(tsv_formats or {}),
                   seed, recipe, lexicon_set=lexicon_set)


def _plain_paths(value: Any) -> bool:
    """Whether ``value`` is a path or a list of paths (what another process can load)."""
    if isinstance(value, (str, Path)):
        return True
    return isinstance(value, (list, tuple)) and all(isinstance(v, (str, Path)) for v in value)


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

"""Command line: a thin layer over library calls (``gen`` and ``nligen`` are the same).

User errors print one line, ``error: <where>: <what>``, on stderr and exit with 2.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Sequence

from .commands import (
    build_parser,
    command_line,
    jamp_dataset,
    pairs_dataset,
    read_input,
    run_dataset,
    split_options,
    stress_dataset,
    wogli_dataset,
    wogli_options,
    with_recipe,
)
from .errors import NligenError, UsageError
from .pairs import PAIR_RECORDS

EXIT_USER_ERROR = 2
EXIT_VERIFY_FAILED = 1


def emit(line: str = "") -> None:
    """One line of output on stdout, as UTF-8 bytes."""
    from .writers import write_stdout

    write_stdout(line + "\n")


class _Progress:
    """A progress bar on stderr (tqdm) while a set is written, when stderr is a terminal
    and --quiet is not given; otherwise nothing."""

    def __init__(self, total: int, args, label: str = "problems"):
        self.bar = None
        if not getattr(args, "quiet", False) and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit=" " + label, file=sys.stderr, leave=False,
                            dynamic_ncols=True)
        self.done = 0

    def __call__(self, done: int) -> None:
        if self.bar is not None:
            self.bar.update(done - self.done)
            self.done = done

    def __enter__(self) -> "_Progress":
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.close()


def _write(ds, args, output) -> None:
    shard = getattr(args, "shard", None)
    if shard is not None and not output:
        raise UsageError("with --shard, give -o FILE or -o DIR/ (shard folders are joined by "
                         "gen merge)", "--shard")
    total = len(ds) if shard is None else None
    with _Progress(total or 0, args) as progress:
        ds.write(output, args.format, workers=args.workers, shard=shard, cluster=args.dask,
                 progress=progress)


def _finish(ds, args) -> None:
    _write(ds, args, args.output)
    if args.output and not args.quiet:
        if args.shard is None:
            counts = ", ".join(f"{s}: {sum(v.values())}"
                               for s, v in ds.manifest["totals"].items())
            what = "pairs" if ds.manifest_base.get("records") == PAIR_RECORDS else "problems"
            print(f"wrote {len(ds)} {what} ({counts}) to {args.output}", file=sys.stderr)
        else:
            from .api import shard_range

            start, stop = shard_range(len(ds), args.shard)
            print(f"wrote problems {start}-{stop - 1} of {len(ds)} (shard "
                  f"{args.shard[0]}/{args.shard[1]}) to {args.output}", file=sys.stderr)


def cmd_wogli(args, argv) -> int:
    from .families import wogli
    from .writers import is_dir_target

    if not (args.sets and "all" in args.sets):
        _finish(wogli_dataset(args, argv), args)
        return 0
    if args.match:
        raise UsageError("a WOGLI file is matched within one set: give --set S", "--match")
    options = wogli_options(args, argv)
    if len(args.sets) > 1:
        raise UsageError("'all' cannot be combined with other sets", "--set")
    if not args.output or not is_dir_target(args.output):
        raise UsageError("with --set all, -o must be a folder (end it with /): each set "
                         "gets its own subfolder", "-o")
    datasets = {}
    for name in wogli.PAPER_SETS:  # check every set before writing anything
        # Each set's manifest records the command that regenerates that set alone.
        per_set = [name if (a == "all" and i and argv[i - 1] == "--set") else a
                   for i, a in enumerate(argv)]
        per_set = [("--set=" + name if a == "--set=all" else a) for a in per_set]
        options.update(command=command_line(per_set), split_options=split_options(args),
                       arguments=dict(options["arguments"], sets=[name]))
        datasets[name] = with_recipe(wogli.generate(sets=[name], **options),
                                     command_line(per_set))
    for name, ds in datasets.items():
        out = str(Path(args.output) / name) + "/"
        _write(ds, args, out)
        if not args.quiet:
            print(f"wrote {len(ds) if args.shard is None else 'a shard of ' + str(len(ds))} "
                  f"problems to {out}", file=sys.stderr)
    return 0


def cmd_merge(args) -> int:
    from .api import merge

    written = merge(args.folders, args.output)
    if not args.quiet:
        print(f"merged {len(args.folders)} shard folders into {args.output} "
              f"({len(written)} files)", file=sys.stderr)
    return 0


def cmd_jamp(args, argv) -> int:
    _finish(jamp_dataset(args, argv), args)
    return 0


def cmd_jamp_label(args) -> int:
    from .families import jamp
    from .writers import write_stdout

    text, where = read_input(args.file)
    rows = jamp.read_problem_table(text, where)
    labeller = jamp.JampLabeller(by=args.by)
    write_stdout(json.dumps(result, ensure_ascii=False) + "\n"
                 for result in labeller.label_rows(rows))
    return 0


def cmd_jamp_check_semantics(args) -> int:
    from .families import jamp

    if args.samples < 1:
        raise UsageError("--samples must be at least 1", "--samples")
    reports = jamp.check_semantics(args.template, samples=args.samples, seed=args.seed)
    for report in reports:
        if args.json:
            emit(json.dumps(report.as_json(), ensure_ascii=False))
            continue
        status = "ok" if not report.disagreements else f"{len(report.disagreements)} disagree"
        emit(f"{report.template:<30} sampled {report.sampled:>5}  grid {report.grid:>4}  "
             f"undecided {report.undecided:>3}  incoherent {report.incoherent:>3}  {status}")
        for d in report.disagreements:
            emit("  " + d.line())
    if not args.json:
        total = sum(len(r.disagreements) for r in reports)
        emit(f"# {len(reports)} templates, {sum(r.sampled for r in reports)} sampled and "
             f"{sum(r.grid for r in reports)} grid assignments, {total} disagreement(s)")
    return 0 if all(not r.disagreements for r in reports) else EXIT_VERIFY_FAILED


def cmd_wogli_derive(args) -> int:
    from .families import wogli

    if args.set is not None and args.set not in wogli.SET_TEMPLATES:
        raise UsageError(f"unknown set {args.set!r} (known: {', '.join(wogli.SET_TEMPLATES)})",
                         "--set")
    text, where = read_input(args.file)
    rows = wogli.read_premise_table(text, where)
    deriver = wogli.Deriver()
    from .writers import write_stdout

    write_stdout(json.dumps(result, ensure_ascii=False) + "\n"
                 for result in deriver.derive_rows(rows, args.set))
    return 0


def cmd_pairs(args, argv) -> int:
    _finish(pairs_dataset(args, argv), args)
    return 0


def cmd_run(args, argv) -> int:
    _finish(run_dataset(args, argv), args)
    return 0


def cmd_stress(args, argv) -> int:
    ds = stress_dataset(args, argv)
    ds.write(args.output)
    stats = ds.stats
    for where_bad, problem in stats["bad"][:20]:
        print(f"warning: {where_bad}: {problem} (row skipped)", file=sys.stderr)
    if len(stats["bad"]) > 20:
        print(f"warning: ... {len(stats['bad']) - 20} more bad rows", file=sys.stderr)
    if not args.quiet:
        skipped = ", ".join(f"{k} {v}" for k, v in sorted(stats["inapplicable"].items()))
        print(f"stress: {stats['rows']} rows, {stats['records']} records written; "
              f"not applicable: {skipped or 'none'}"
              + (" (written with applicable: false)" if args.keep_inapplicable else "")
              + f"; bad rows: {len(stats['bad'])}", file=sys.stderr)
        if stats["ambiguous"]:
            print(f"stress: {stats['ambiguous']} records read a phrase before a relative "
                  "clause as an argument of the main clause (rationale: ambiguous); "
                  "--attachment low leaves them out", file=sys.stderr)
    return 0


def cmd_validate(args) -> int:
    from .validate import validate

    report = validate(args.path, lexicons=args.lexicons)
    for p in report.problems:
        print(f"error: {p}", file=sys.stderr)
    if report.problems:
        return EXIT_USER_ERROR
    emit(f"ok: {report.templates} template(s), {report.variants} variant(s); every slot "
         "resolves and every label is reachable")
    return 0


def cmd_list(args) -> int:
    from .api import list_variants
    from .data import families, templates_dir

    names = [args.family] if args.family else families()
    for name in names:
        if name not in families():
            raise UsageError(f"unknown family {name!r} (known: {', '.join(families())})",
                             "gen list")
        if name == "jamp":
            _list_jamp(args.json)
            continue
        if name == "pairs":
            _list_pairs(args.json)
            continue
        rows = list_variants(templates_dir(name))
        if args.json:
            for row in rows:
                emit(json.dumps({"family": name, **row}, ensure_ascii=False))
            continue
        emit(f"# {name}: {len(rows)} template variant(s)")
        width = max(len(r["variant"] or r["template"]) for r in rows)
        for r in rows:
            cap = "?" if r["capacity"] is None else f"{r['capacity']:,}"
            emit(f"{r['template']:<20} {r['variant'] or '-':<{width}}  sets={','.join(r['sets'])}"
                 f"  labels={','.join(r['labels'])}  capacity={cap}")
    return 0


def _list_pairs(as_json: bool) -> None:
    from .families import pairs

    rows = pairs.describe()
    if as_json:
        for row in rows:
            emit(json.dumps({"family": "pairs", **row}, ensure_ascii=False))
        return
    phenomena = sorted({r["phenomenon"] for r in rows})
    emit(f"# pairs: {len(rows)} paradigms of {len(phenomena)} phenomena "
         "(capacity: distinct fillings; a filling whose pair fails its checks is not written)")
    for r in sorted(rows, key=lambda r: (r["language"], r["phenomenon"], r["paradigm"])):
        cap = "?" if r["capacity"] is None else f"{r['capacity']:,}"
        c = r["contrast"]
        contrast = f"{c['kind']} {c['slot']}" + (f" {c['feature']}" if "feature" in c else "") \
            + (f"->{c['to']}" if "to" in c else "")
        emit(f"{r['language']}  {r['phenomenon']:<26} {r['paradigm']:<40} {r['field']:<11}"
             f" {contrast:<20} capacity={cap}")


def _list_jamp(as_json: bool) -> None:
    from .families import jamp

    rows = jamp.describe()
    if as_json:
        for row in rows:
            emit(json.dumps({"family": "jamp", **row}, ensure_ascii=False))
        return
    emit(f"# jamp: {len(rows)} templates; fragments: {', '.join(jamp.FRAGMENTS)}")
    current = None
    for r in rows:
        if r["subfragment"] != current:
            current = r["subfragment"]
            emit(f"## {current}")
        cap = "?" if r["content_capacity"] is None else f"{r['content_capacity']:,}"
        times = ",".join(r["time_formats"]) or "-"
        emit(f"{r['template']:<28} jamp={r['jamp_template']:<3} {r['difficulty']:<12}"
             f"labels={','.join(r['labels'])}  formats={times}  sentences={cap}  "
             f"{r['category']}")


def cmd_export(args) -> int:
    from .tools.export import export

    summary = export(args.harness, args.src, args.output, split=args.split,
                     few_shots=args.few_shots, by=args.by, name=args.name,
                     data_path=args.data_path)
    if not args.quiet:
        if args.harness == "llm-jp-eval":
            print(f"wrote {summary['samples']} samples ({summary['split']} split) and "
                  f"{summary['few_shots']} few-shot examples to {args.output}", file=sys.stderr)
        else:
            print(f"wrote task group {summary['task']} ({len(summary['subtasks'])} subtasks, "
                  f"{summary['split']} split) to {args.output}", file=sys.stderr)
    return 0


def cmd_eval(args) -> int:
    from .writers import write_stdout

    if args.scores is not None:  # minimal pairs: a language model's sentence scores
        from .tools.pair_scores import evaluate_scores, markdown_report as pair_report

        result = evaluate_scores(args.gold, args.scores)
        if args.json:
            emit(json.dumps(result, ensure_ascii=False))
        else:
            write_stdout(pair_report(result))
        return 0
    from .tools.evaluate import evaluate, markdown_report

    result = evaluate(args.gold, args.pred)
    if args.json:
        emit(json.dumps(result, ensure_ascii=False))
    else:
        write_stdout(markdown_report(result))
    return 0


def cmd_audit(args) -> int:
    from .tools.audit import (
        audit,
        json_report,
        markdown_report,
        plot_artifacts,
        require_matplotlib,
    )
    from .writers import write_stdout

    plot = args.plot
    if plot:
        try:
            require_matplotlib()  # known before the work, not after it
        except UsageError as exc:  # the report still prints; only the figure is missing
            print(f"warning: {exc.where}: {exc.what}; the report is written without it",
                  file=sys.stderr)
            plot = None
    result = audit(args.path)
    if plot:
        plot_artifacts(result, plot)
    if args.json:
        emit(json_report(result))
    else:
        write_stdout(markdown_report(result))
    return 0


def cmd_verify(args) -> int:
    from .tools.verify import verify_many
    from .writers import write_stdout

    reports = verify_many(args.path, semantics=args.semantics)
    for report in reports:
        if args.json:
            emit(json.dumps(report.as_json(), ensure_ascii=False))
        else:
            write_stdout(report.text())
    return 0 if all(r.ok for r in reports) else EXIT_VERIFY_FAILED


def cmd_lexicon(args) -> int:
    if args.lexicon_command == "build-de":
        from .data import lexicons_dir
        from .lang.de.build import build

        root = Path(args.lexicons) if args.lexicons else lexicons_dir()
        report = build(root, check_only=args.check)
        for name, counts in report.items():
            detail = ", ".join(f"{k} {v}" for k, v in counts.items())
            emit(f"{name}: {detail}")
        emit("checked (nothing written)" if args.check else f"wrote {root / 'de'}/*.json")
        return 0
    if args.lexicon_command in ("stats", "sample"):
        from .data import lexicons_dir
        from .lang.ja.lexicon import JaLexicon
        from .lexicon import LexiconSet

        lexicon = JaLexicon.load(LexiconSet([lexicons_dir()]))
        if args.lexicon_command == "stats":
            stats = lexicon.stats()
            if args.json:
                emit(json.dumps(stats, ensure_ascii=False))
            else:
                for key, value in stats.items():
                    emit(f"{key}: {value}")
            return 0
        if args.n <= 0:
            raise UsageError(f"must be a positive integer (got {args.n})", "--n")
        for line in lexicon.sample_clauses(args.n, args.seed):
            emit(line)
        return 0
    if args.lexicon_command == "build-ja":
        from .data import data_root, lexicons_dir
        from .lang.ja.build import build as build_ja
        from .lang.ja.build import default_corpora

        root = Path(args.lexicons) if args.lexicons else lexicons_dir()
        corpora = [Path(c) for c in args.corpora] or default_corpora(data_root())
        report = build_ja(root, corpora, check_only=args.check)
        for problem in report["problems"][:20]:
            print(f"skipped: {problem}", file=sys.stderr)
        if len(report["problems"]) > 20:
            print(f"skipped: ... {len(report['problems']) - 20} more", file=sys.stderr)
        emit(f"verbs: {report['verbs']}; sentences: {report['stats'].get('sentences', 0)}; "
             f"skipped verbs: {report['skipped']}; input problems: {len(report['problems'])}")
        emit("checked (nothing written)" if args.check else
             f"wrote {root / 'ja'}/caseframes.json and {report['compiled']} compiled curated files")
        return 0
    raise UsageError("expected an action: build-de, build-ja, stats or sample", "gen lexicon")


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    # `gen wogli derive ...` is a sub-action of `gen wogli`.
    routed = argv
    if len(argv) >= 2 and argv[0] == "wogli" and argv[1] == "derive":
        routed = ["wogli-derive", *argv[2:]]
    if len(argv) >= 2 and argv[0] == "jamp" and argv[1] == "label":
        routed = ["jamp-label", *argv[2:]]
    if len(argv) >= 2 and argv[0] == "jamp" and argv[1] == "check-semantics":
        routed = ["jamp-check-semantics", *argv[2:]]
    try:
        args = parser.parse_args(routed)
        if args.command is None:
            parser.print_help()
            return EXIT_USER_ERROR
        if args.command == "wogli":
            return cmd_wogli(args, argv)
        if args.command == "wogli-derive":
            return cmd_wogli_derive(args)
        if args.command == "jamp":
            return cmd_jamp(args, argv)
        if args.command == "jamp-label":
            return cmd_jamp_label(args)
        if args.command == "jamp-check-semantics":
            return cmd_jamp_check_semantics(args)
        if args.command == "run":
            return cmd_run(args, argv)
        if args.command == "pairs":
            return cmd_pairs(args, argv)
        if args.command == "validate":
            return cmd_validate(args)
        if args.command == "list":
            return cmd_list(args)
        if args.command == "lexicon":
            return cmd_lexicon(args)
        if args.command == "audit":
            return cmd_audit(args)
        if args.command == "export":
            return cmd_export(args)
        if args.command == "eval":
            return cmd_eval(args)
        if args.command == "verify":
            return cmd_verify(args)
        if args.command == "stress":
            return cmd_stress(args, argv)
        if args.command == "merge":
            return cmd_merge(args)
        raise UsageError(f"unknown command {args.command!r}", "gen")
    except NligenError as exc:
        where = exc.where or ("gen " + (argv[0] if argv else ""))
        _error_line(f"{where}: {exc.what}")
        return EXIT_USER_ERROR
    except (RecursionError, MemoryError) as exc:
        # Input so large or deeply nested that a limit was hit before a check caught it.
        _error_line(f"gen {argv[0] if argv else ''}: input too large or too deeply nested "
                    f"({type(exc).__name__})")
        return EXIT_USER_ERROR
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130


def _error_line(message: str) -> None:
    from .datafiles import printable

    sys.stderr.write(f"error: {printable(message)}\n")
    sys.stderr.flush()


def run(argv: Sequence[str] | None = None) -> int:
    """The console scripts' entry point: :func:`main` in a process that ends after it.

    Loading the templates and lexicons makes Jamp's half a million long-lived objects, and
    the cyclic collector walked all of them at each full collection while they grew (7
    times, 0.65 s of a 4 s run) and once more at exit (0.4 s). Little of what a run makes
    is cyclic garbage, so the process runs without full collections (the young
    generations still collect), and what is left at the end is frozen for the exit."""
    import gc

    old = gc.get_threshold()
    gc.set_threshold(old[0], old[1], FULL_COLLECTIONS_OFF)
    try:
        rc = main(argv)
    finally:
        gc.set_threshold(*old)
    sys.stdout.flush()
    gc.freeze()  # the process ends now: nothing left for the collector's last walk
    return rc


# gen2 threshold of a command-line run: full collections only after this many gen1 ones
FULL_COLLECTIONS_OFF = 1_000_000


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run())

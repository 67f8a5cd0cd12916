"""The streaming pipeline: records, workers, shards, merge, a Dask cluster, atomic output.

The contract (issue 14): the bytes written never depend on how a run is carried out:
one process, N workers, K shards concatenated (or merged), or a cluster.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from nligen import generate
from nligen import parallel, pipeline
from nligen.api import merge, shard_range
from nligen.errors import CapacityError, InputError, UsageError
from nligen.families import jamp, wogli
from nligen.pipeline import iter_items
from nligen.records import RecordEncoder, make_record
from nligen.tools.verify import verify

from conftest import run_gen

PEOPLE = """
source: test
license: CC0
entries:
  - {name: Ann, gender: f}
  - {name: Bob, gender: m}
  - {name: Cleo, gender: f}
  - {name: Dan, gender: m}
  - {name: Eve, gender: f}
  - {name: Finn, gender: m}
  - {name: Gail, gender: f}
  - {name: Hugo, gender: m}
  - {name: Ines, gender: f}
  - {name: Jon, gender: m}
  - {name: Kim, gender: f}
  - {name: Leo, gender: m}
"""

AGES = """
id: toy.ages
slots:
  a: {lexicon: people}
  b: {lexicon: people}
  x: {range: [20, 60]}
  y: {range: [20, 60]}
distinct: [[a, b]]
premises:
  - "{{ a }} is {{ x }}."
  - "{{ b }} is {{ y }}."
hypothesis: "{{ a }} is older than {{ b }}."
label:
  entailment: x > y
  contradiction: x < y
  otherwise: neutral
record:
  gap: "{{ x }}"
"""

# a record field named like the variant field and one named like a head key
CLASHING = """
id: toy.clash
variants:
  axes: {g: [f, m]}
  field: gender
slots:
  a: {lexicon: people, where: {gender: $g}}
  b: {lexicon: people}
distinct: [[a, b]]
premise: "{{ a }} greets {{ b }}."
hypotheses:
  - {type: same, label: entailment, text: "{{ a }} greets someone.", record: {gender: own}}
  - {type: swap, label: neutral, text: "{{ b }} greets {{ a }}.", record: {set: mine}}
"""


def project(tmp_path: Path, **templates: str) -> Path:
    root = tmp_path / "proj"
    (root / "lexicons").mkdir(parents=True, exist_ok=True)
    (root / "lexicons" / "people.yaml").write_text(PEOPLE, encoding="utf-8")
    for name, text in templates.items():
        (root / f"{name}.yaml").write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def _dump(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("make", [
    lambda tmp: wogli.generate(n=400, seed=3, sets=["p_subject"]),
    lambda tmp: wogli.generate(n=300, seed=4, split="lexical"),
    lambda tmp: jamp.generate(n=240, seed=5, split="fragment_hard"),
    lambda tmp: generate(project(tmp, ages=AGES, clash=CLASHING), n=200, seed=6),
], ids=["wogli-p_subject", "wogli-lexical", "jamp-fragment_hard", "custom-clashing-fields"])
def test_encoded_lines_are_the_records_json(make, tmp_path):
    """The fast encoder writes exactly json.dumps of the record dict, for every kind of
    record: conditional labels, time fields, seen flags, fields named like head keys."""
    ds = make(tmp_path)
    encoder = RecordEncoder(ds.family, ds.split_name)
    count = 0
    for index, si in iter_items(ds.source):
        record = make_record(ds.family, index, si.item, si.split, si.seen, ds.split_name)
        assert encoder.line(index, si.item, si.split, si.seen) == _dump(record)
        count += 1
    assert count == len(ds)


def _folder_bytes(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 37 items, so that small runs cross many chunk borders (units straddle
    them)."""
    monkeypatch.setattr(pipeline, "CHUNK", 37)


def test_workers_write_the_same_bytes(small_chunks, tmp_path):
    cases = [
        (wogli.generate(n=700, seed=1, sets=["dative"]), "jsonl", 3),
        (wogli.generate(n=500, seed=2, split="lexical"), "wogli-tsv", 2),
        (jamp.generate(n=300, seed=3, split="format_hard"), "jsonl", 2),
        (generate(project(tmp_path, ages=AGES), n=400, seed=4), "tsv", 3),
    ]
    for k, (ds, fmt, workers) in enumerate(cases):
        one, many = tmp_path / f"one{k}", tmp_path / f"many{k}"
        ds.write(f"{one}/", fmt)
        ds.write(f"{many}/", fmt, workers=workers)
        assert _folder_bytes(one) == _folder_bytes(many), (k, fmt)
        single, whole = tmp_path / f"single{k}.{fmt}", tmp_path / f"whole{k}.{fmt}"
        ds.write(single, fmt, workers=workers)
        ds.write(whole, fmt)
        assert single.read_bytes() == whole.read_bytes()


def test_auto_workers_write_what_one_process_writes(small_chunks, monkeypatch, tmp_path):
    """--workers auto (the command line's default) takes one worker per core: the same
    bytes as one process, on the command line and through the library."""
    assert 1 <= parallel.auto_workers() <= parallel.AUTO_MAX_WORKERS
    monkeypatch.setattr(parallel, "auto_workers", lambda: 3)
    ds = wogli.generate(n=400, seed=5, sets=["dative"])
    ds.write(tmp_path / "auto.jsonl", workers="auto")
    ds.write(tmp_path / "one.jsonl", workers=1)
    assert (tmp_path / "auto.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()
    from nligen.cli import main

    assert main(["wogli", "--set", "dative", "--n", "400", "--seed", "5", "-q",
                 "-o", str(tmp_path / "cli.jsonl")]) == 0
    assert main(["wogli", "--set", "dative", "--n", "400", "--seed", "5", "-q",
                 "--workers", "auto", "-o", str(tmp_path / "cli2.jsonl")]) == 0
    assert (tmp_path / "cli.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()
    assert (tmp_path / "cli2.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()


TWINS = """
source: test
license: CC0
entries:
  - {name: Ann, gender: f}
  - {name: Ann, gender: f}
  - {name: Bob, gender: m}
  - {name: Bob, gender: m}
  - {name: Cleo, gender: f}
  - {name: Dan, gender: m}
"""

# b depends on a (a group of dependent slots: walked as listed rows, or drawn at random
# when the group is too large to list); twin names give the same text from different
# fillings, so units are dropped as duplicates and their cells search on
DEPENDENT = """
id: toy.dependent
slots:
  a: {lexicon: twins}
  b: {lexicon: twins, where: {gender: $a.gender}}
  x: {range: [1, 30]}
distinct: [[a, b]]
premise: "{{ a }} and {{ b }} met {{ x }} times."
hypotheses:
  - {type: met, label: entailment, text: "{{ a }} met {{ b }}."}
  - {type: more, label: neutral, text: "{{ b }} met {{ a }} {{ x }} times or more."}
"""


# a time block: a dropped unit's search goes on with the same filling's next time draw
TIMED = """
id: toy.timed
slots:
  a: {lexicon: twins}
  b: {lexicon: twins}
distinct: [[a, b]]
time: {points: [tp_1, tp_2], formats: [Y]}
premise: "{{ a }} met {{ b }} in {{ tp_1 }}."
hypothesis: "{{ a }} met {{ b }} in {{ tp_2 }}."
label:
  entailment: tp_1.start == tp_2.start
  otherwise: neutral
"""


@pytest.mark.parametrize("template, listed", [(DEPENDENT, True), (DEPENDENT, False),
                                              (TIMED, True)],
                         ids=["walked", "drawn-at-random", "timed"])
def test_workers_search_on_where_one_process_does(template, listed, small_chunks, monkeypatch,
                                                   tmp_path):
    """Units dropped as duplicates (twin names) are searched on by the process that
    takes them (in walked cells, randomly drawn cells and time draws) as one process
    does; the same bytes, and the same error when a cell runs out."""
    from nligen import engine

    if not listed:
        monkeypatch.setattr(engine, "ENUMERATE_LIMIT", 1)
    searched_on = []
    accept = engine.Engine.accept

    def counting(self, *args, **kwargs):
        found, candidate = accept(self, *args, **kwargs)
        searched_on.append(candidate is None)
        return found, candidate

    monkeypatch.setattr(engine.Engine, "accept", counting)
    root = project(tmp_path, t=template)
    (root / "lexicons" / "twins.yaml").write_text(TWINS, encoding="utf-8")
    ds = generate(root, n=150, seed=3)
    pairs = [(r["premise"], r["hypothesis"]) for r in ds.records]
    assert len(set(pairs)) == len(pairs) == 150
    ds.write(tmp_path / "one.jsonl")
    ds.write(tmp_path / "two.jsonl", workers=2)
    ds.write(tmp_path / "three.jsonl", workers=3)
    one = (tmp_path / "one.jsonl").read_bytes()
    assert (tmp_path / "two.jsonl").read_bytes() == one
    assert (tmp_path / "three.jsonl").read_bytes() == one
    if template is TIMED or not listed:
        assert any(searched_on), "no unit was dropped: the test does not test that"
    if template is TIMED:
        errors = []
        for workers in (1, 2):
            with pytest.raises(CapacityError) as info:
                generate(root, n=300, seed=3).write(tmp_path / "x.jsonl", workers=workers)
            errors.append(str(info.value))
        assert errors[0] == errors[1] and "ran out of distinct items after 104" in errors[0]


@settings(max_examples=12, deadline=None)
@given(n=st.integers(min_value=8, max_value=160), k=st.integers(min_value=1, max_value=7),
       seed=st.integers(min_value=0, max_value=50))
def test_shards_concatenate_to_the_whole(n, k, seed, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("shards")
    root = project(tmp, ages=AGES, clash=CLASHING)
    k = min(k, n)
    ranges = [shard_range(n, (i, k)) for i in range(1, k + 1)]
    assert ranges[0][0] == 0 and ranges[-1][1] == n
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    for fmt in ("jsonl", "tsv"):
        whole = tmp / f"whole.{fmt}"
        generate(root, n=n, seed=seed).write(whole, fmt)
        pieces = b""
        for i in range(1, k + 1):
            piece = tmp / f"piece{i}.{fmt}"
            generate(root, n=n, seed=seed).write(piece, fmt, shard=(i, k))
            pieces += piece.read_bytes()
        assert pieces == whole.read_bytes()


def test_shard_folders_merge_into_the_whole_folder(tmp_path):
    """Split files (train and test) concatenate per split, with the TSV header only in
    the piece that holds the split's first record; gen merge rebuilds the folder of a
    whole run, and gen verify accepts both the pieces and the merged folder."""
    args = ["wogli", "--n", "900", "--seed", "7", "--split", "lexical", "--format",
            "wogli-tsv"]
    whole = tmp_path / "whole"
    assert run_gen(*args, "-q", "-o", f"{whole}/").returncode == 0
    shards = []
    for i in (1, 2, 3, 4):
        folder = tmp_path / f"shard{i}"
        proc = run_gen(*args, "--shard", f"{i}/4", "-q", "-o", f"{folder}/")
        assert proc.returncode == 0, proc.stderr
        shards.append(folder)
    for split in ("train", "test"):
        joined = b"".join((s / f"{split}.tsv").read_bytes() for s in shards
                          if (s / f"{split}.tsv").exists())
        assert joined == (whole / f"{split}.tsv").read_bytes()
        headers = [s for s in shards if (s / f"{split}.tsv").exists()
                   and (s / f"{split}.tsv").read_text(encoding="utf-8").startswith("premise")]
        assert len(headers) == 1
    merged = tmp_path / "merged"
    proc = run_gen("merge", *map(str, reversed(shards)), "-q", "-o", str(merged))
    assert proc.returncode == 0, proc.stderr
    assert _folder_bytes(merged) == _folder_bytes(whole)
    assert verify(merged).ok
    assert verify(shards[1]).ok


def test_merge_refuses_an_incomplete_or_mixed_set(tmp_path):
    root = project(tmp_path, ages=AGES)
    for i in (1, 2, 3):
        generate(root, n=60, seed=1).write(f"{tmp_path}/a{i}/", shard=(i, 3))
    generate(root, n=60, seed=2, command="gen run x --seed 2").write(
        f"{tmp_path}/b2/", shard=(2, 3))
    with pytest.raises(InputError, match="missing shard"):
        merge([tmp_path / "a1", tmp_path / "a3"], tmp_path / "out")
    with pytest.raises(InputError, match="given twice"):
        merge([tmp_path / "a1", tmp_path / "a2", tmp_path / "a2"], tmp_path / "out")
    with pytest.raises(InputError, match="differs"):
        merge([tmp_path / "a1", tmp_path / "b2", tmp_path / "a3"], tmp_path / "out")
    with pytest.raises(InputError, match="not a shard folder"):
        generate(root, n=60, seed=1).write(f"{tmp_path}/plain/")
        merge([tmp_path / "plain"], tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_bad_shards_and_workers_are_usage_errors(tmp_path):
    ds = generate(project(tmp_path, ages=AGES), n=10, seed=1)
    for shard in [(0, 3), (4, 3), (1, 0), (1, 11)]:
        with pytest.raises(UsageError, match="--shard"):
            ds.write(tmp_path / "x.jsonl", shard=shard)
    for bad in (0, "all", 1.5, True):
        with pytest.raises(UsageError, match="--workers"):
            ds.write(tmp_path / "x.jsonl", workers=bad)
    proc = run_gen("wogli", "--n", "10", "--workers", "many", "-o", str(tmp_path / "y.jsonl"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "--workers" in proc.stderr
    proc = run_gen("wogli", "--n", "10", "--shard", "2-3", "-o", str(tmp_path / "y.jsonl"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    proc = run_gen("wogli", "--n", "10", "--shard", "1/2")
    assert proc.returncode == 2 and "--shard" in proc.stderr
    assert not list(tmp_path.glob("*.jsonl"))


def test_a_run_that_fails_midway_leaves_nothing(tmp_path):
    """Capacity runs out after the first round: the error comes while writing, and no
    file, folder or stdout text is left."""
    text = AGES.replace("x: {range: [20, 60]}", "x: {range: [20, 21]}").replace(
        "y: {range: [20, 60]}", "y: {range: [20, 21]}")
    root = project(tmp_path, ages=text)
    for target in ("out.jsonl", "out/"):
        with pytest.raises(CapacityError):
            generate(root, n=500, seed=0).write(f"{tmp_path}/deep/{target}", workers=2)
        assert not (tmp_path / "deep").exists()
    proc = run_gen("run", str(root), "--n", "500")
    assert proc.returncode == 2 and proc.stdout == "" and "toy.ages" in proc.stderr


def test_large_sets_audit_a_seeded_sample(monkeypatch, tmp_path):
    """Above AUDIT_SAMPLE problems the card audits a seeded sample and says so; the
    sample is the same for one process, workers and merged shards."""
    monkeypatch.setattr(pipeline, "AUDIT_SAMPLE", 150)
    monkeypatch.setattr(pipeline, "CHUNK", 64)
    make = lambda: wogli.generate(n=400, seed=9)  # noqa: E731
    make().write(f"{tmp_path}/one/")
    card = (tmp_path / "one" / "README.md").read_text(encoding="utf-8")
    assert "seeded sample of 150 of the 400 problems" in card
    make().write(f"{tmp_path}/two/", workers=2)
    for i in (1, 2, 3):
        make().write(f"{tmp_path}/s{i}/", shard=(i, 3))
    merge([tmp_path / f"s{i}" for i in (1, 2, 3)], tmp_path / "merged")
    assert _folder_bytes(tmp_path / "one") == _folder_bytes(tmp_path / "two")
    assert _folder_bytes(tmp_path / "one") == _folder_bytes(tmp_path / "merged")
    small = wogli.generate(n=100, seed=9)
    small.write(f"{tmp_path}/small/")
    assert "seeded sample" not in (tmp_path / "small" / "README.md").read_text(encoding="utf-8")


def test_a_dask_cluster_writes_the_same_bytes(tmp_path):
    distributed = pytest.importorskip("dask.distributed")  # in the test extra
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    try:
        client = distributed.Client(cluster)
        proc = run_gen("wogli", "--n", "3000", "--seed", "4", "--set", "dative",
                       "--dask", cluster.scheduler_address, "-q", "-o", f"{tmp_path}/dask/")
        assert proc.returncode == 0, proc.stderr
        proc = run_gen("wogli", "--n", "3000", "--seed", "4", "--set", "dative", "-q", "-o",
                       f"{tmp_path}/local/")
        assert proc.returncode == 0, proc.stderr
        assert _folder_bytes(tmp_path / "dask") == _folder_bytes(tmp_path / "local")
        # the library call, with a Client, on a Jamp split (train and test parts)
        jamp.generate(n=160, seed=2, split="span").write(f"{tmp_path}/jd/", cluster=client)
        jamp.generate(n=160, seed=2, split="span").write(f"{tmp_path}/jl/")
        assert _folder_bytes(tmp_path / "jd") == _folder_bytes(tmp_path / "jl")
        client.close()
    finally:
        cluster.close()
    proc = run_gen("wogli", "--n", "10", "--dask", "tcp://127.0.0.1:1", "-o",
                   str(tmp_path / "none.jsonl"))
    assert proc.returncode == 2 and "--dask" in proc.stderr or "scheduler" in proc.stderr
    assert not (tmp_path / "none.jsonl").exists()


def test_run_options_stay_out_of_the_manifest(tmp_path):
    base = ["wogli", "--n", "50", "--seed", "1"]
    assert run_gen(*base, "-q", "-o", f"{tmp_path}/a/").returncode == 0
    assert run_gen(*base, "--workers", "2", "-q", "-o", f"{tmp_path}/b/").returncode == 0
    a = json.loads((tmp_path / "a" / "manifest.json").read_text(encoding="utf-8"))
    b = json.loads((tmp_path / "b" / "manifest.json").read_text(encoding="utf-8"))
    assert a == b and a["command"] == "gen wogli --n 50 --seed 1"


def test_stdout_streams_the_same_records(tmp_path):
    proc = run_gen("wogli", "--n", "120", "--seed", "5", "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    wogli.generate(n=120, seed=5).write(tmp_path / "f.jsonl")
    assert proc.stdout == (tmp_path / "f.jsonl").read_text(encoding="utf-8")


def test_same_lemmas_is_proved_per_variant_and_checked_when_it_cannot_be(monkeypatch):
    """WOGLI's same_lemmas check is proved once per variant from the forms each slot
    value takes; an analyser under which one form reads as another lemma makes the
    proof fail, and the check then runs on every problem and stops the run."""
    from nligen import engine
    from nligen.errors import TemplateError

    for sets in (["wogli"], ["p_subject"], ["dative"], ["ditransitive"], ["os_hard"]):
        ds = wogli.generate(n=100, seed=0, sets=sets)
        eng = ds.source.parts[0].engine
        assert all(eng._lemmas_proved(cell) for cell in eng.cells()), sets

    analyser = engine.Engine.analyser

    def misreading(self, template):  # "Den Kunden" at the start reads as another lemma
        analyse = analyser(self, template)
        return lambda text: [("KUNDE" if w == "Kunde" and text.startswith("Den ") else w)
                             for w in analyse(text)]

    monkeypatch.setattr(engine.Engine, "analyser", misreading)
    ds = wogli.generate(n=100, seed=0)
    eng = ds.source.parts[0].engine
    assert not all(eng._lemmas_proved(cell) for cell in eng.cells())
    with pytest.raises(TemplateError, match="same_lemmas"):
        wogli.generate(n=20000, seed=0).write(None)


def test_progress_shows_on_a_terminal_only(tmp_path, monkeypatch, capsys):
    """A progress bar on stderr when it is a terminal (and not with -q); nothing when it
    is a pipe or a file; the data written is the same either way."""
    import io
    import sys

    from nligen.cli import main

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for quiet, want_bar in ((False, True), (True, False)):
        terminal = Terminal()
        monkeypatch.setattr(sys, "stderr", terminal)
        args = ["wogli", "--n", "3000", "--seed", "2", "-o", str(tmp_path / f"{quiet}.jsonl")]
        assert main(args + (["-q"] if quiet else [])) == 0
        shown = terminal.getvalue()
        assert ("problems" in shown and "%" in shown) == want_bar, shown[:200]
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # not a terminal
    assert main(["wogli", "--n", "3000", "--seed", "2", "-o", str(tmp_path / "pipe.jsonl")]) == 0
    assert "%" not in sys.stderr.getvalue()
    assert (tmp_path / "pipe.jsonl").read_bytes() == (tmp_path / "False.jsonl").read_bytes()

"""Issue 15, parts 2 and 3: fresh sets matched to a released file (--match, --exclude)
and overall label balance (--balance label)."""

from __future__ import annotations

import csv
import json
import shutil
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from nligen.cli import main
from nligen.plans import label_schedule, split_fixed_counts, template_weights

WOGLI_LABELS = {"1": "non-entailment", "2": "entailment"}


def read_tsv(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def jamp_cell(rec: dict) -> tuple:
    return (str(rec["jamp_template"]), rec["label"], rec.get("time_format") or "None",
            rec.get("time_span") or "None")


def one_line_error(capsys, argv, *fragments) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for f in fragments:
        assert f in lines[0], lines[0]
    return lines[0]


# -- --match: Jamp ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def jamp_matched(tmp_path_factory, reference):
    release = reference / "jamp" / "train_sample.tsv"
    out = tmp_path_factory.mktemp("match") / "jamp"
    assert main(["jamp", "--match", str(release), "-q", "-o", f"{out}/"]) == 0
    return release, out


def test_jamp_match_gives_every_cell_count_and_no_released_pair(jamp_matched):
    release, out = jamp_matched
    rows = read_tsv(release)
    want = Counter((r["template_num"], r["gold_label"], r["time_format"], r["time_span"])
                   for r in rows)
    records = read_jsonl(out / "all.jsonl")
    assert Counter(jamp_cell(r) for r in records) == want
    released = {(r["premise"], r["hypothesis"]) for r in rows}
    assert not released & {(r["premise"], r["hypothesis"]) for r in records}
    assert len({(r["premise"], r["hypothesis"]) for r in records}) == len(records)


def test_continuity_released_wording_is_drawn_only_for_a_matched_cell(jamp_matched, tmp_path):
    # Jamp's contradiction (a time before the 以来 point) and neutral (a past-tense claim
    # after 現在) are disputed by readers: the released wording is drawn only when a
    # released cell asks for it (labels: [], match_labels), the default draw takes the
    # .began siblings, whose premise says when the practice began (〜始め、それ以来)
    _, out = jamp_matched
    matched = [r for r in read_jsonl(out / "all.jsonl")
               if r["subfragment"] == "ordering.continuity"]
    assert {"contradiction", "neutral"} <= {r["label"] for r in matched}
    assert not any(r["template"].endswith(".began") for r in matched)
    assert main(["jamp", "--fragment", "ordering.continuity", "--n", "200", "-q",
                 "-o", f"{tmp_path}/d/"]) == 0
    records = read_jsonl(tmp_path / "d" / "all.jsonl")
    drawn = Counter(r["label"] for r in records)
    assert set(drawn) == {"entailment", "contradiction"} and sum(drawn.values()) == 200
    assert all(r["template"].endswith(".began") and "始め、" in r["premise"] for r in records)


def test_jamp_match_manifest_records_the_file_and_its_cells(jamp_matched):
    import hashlib

    release, out = jamp_matched
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["balance"] == "match"
    assert manifest["match"]["sha256"] == hashlib.sha256(release.read_bytes()).hexdigest()
    assert manifest["match"]["problems"] == len(read_tsv(release))
    cells = Counter()
    for template, variant, label, fmt, span, count in manifest["match_cells"]:
        cells[(template, label, fmt, span)] += count
    assert sum(cells.values()) == manifest["n"] == len(read_tsv(release))
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "Composition (`--match`)" in card and release.name in card


def test_jamp_match_verifies_and_is_the_same_with_workers(jamp_matched, tmp_path, capsys):
    release, out = jamp_matched
    assert main(["verify", str(out)]) == 0, capsys.readouterr().out
    other = tmp_path / "w2"
    assert main(["jamp", "--match", str(release), "-q", "--workers", "2",
                 "-o", f"{other}/"]) == 0
    for name in ("all.jsonl", "manifest.json", "README.md"):
        assert (other / name).read_bytes() == (out / name).read_bytes()


def test_excluded_pairs_met_are_kept_so_verify_needs_no_file(tmp_path, capsys):
    """A set matched to one we made with the same seed meets many of its pairs; the
    manifest keeps them, and gen verify makes the set again with the file gone."""
    source = tmp_path / "made.tsv"
    assert main(["jamp", "--n", "400", "--format", "jamp-tsv", "-q", "-o", str(source)]) == 0
    extra = tmp_path / "extra.jsonl"
    assert main(["jamp", "--n", "200", "--seed", "5", "-q", "-o", str(extra)]) == 0
    out = tmp_path / "m"
    assert main(["jamp", "--match", str(source), "--exclude", str(extra), "-q",
                 "-o", f"{out}/"]) == 0
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert len(manifest["excluded_hits"]) > 0
    assert manifest["exclude"][0]["file"] == "extra.jsonl"
    records = read_jsonl(out / "all.jsonl")
    forbidden = {(r["premise"], r["hypothesis"]) for r in read_tsv(source)}
    forbidden |= {(r["premise"], r["hypothesis"]) for r in read_jsonl(extra)}
    assert not forbidden & {(r["premise"], r["hypothesis"]) for r in records}
    source.unlink()
    extra.unlink()
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0, capsys.readouterr().out


# -- --match: WOGLI --------------------------------------------------------------------------

@pytest.mark.parametrize("set_name, sample", [("wogli", "wogli_sample.tsv"),
                                              ("dative", "wogli_dative_sample.tsv"),
                                              ("p_subject", "wogli_p_subject_sample.tsv")])
def test_wogli_match_gives_every_pattern_label_count(set_name, sample, reference, tmp_path):
    release = reference / "wogli" / sample
    out = tmp_path / "w"
    assert main(["wogli", "--set", set_name, "--match", str(release), "-q",
                 "-o", f"{out}/"]) == 0
    rows = read_tsv(release)
    records = read_jsonl(out / "all.jsonl")
    want = Counter((r["pattern"], WOGLI_LABELS[r["label"]]) for r in rows)
    assert Counter((r["pattern"], r["label"]) for r in records) == want
    released = {(r["premise"], r["hypothesis"]) for r in rows}
    assert not released & {(r["premise"], r["hypothesis"]) for r in records}


def test_wogli_match_with_counts_out_of_proportion(reference, tmp_path, capsys):
    """A file need not give every premise all its hypotheses: some labels more often."""
    rows = read_tsv(reference / "wogli" / "wogli_sample.tsv")
    kept = [r for k, r in enumerate(rows) if r["label"] == "2" or k % 3 == 0][:150]
    path = tmp_path / "part.tsv"
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]), delimiter="\t",
                           quoting=csv.QUOTE_NONE, lineterminator="\n")
        w.writeheader()
        w.writerows(kept)
    out = tmp_path / "w"
    assert main(["wogli", "--match", str(path), "-q", "-o", f"{out}/"]) == 0
    want = Counter((r["pattern"], WOGLI_LABELS[r["label"]]) for r in kept)
    got = Counter((r["pattern"], r["label"]) for r in read_jsonl(out / "all.jsonl"))
    assert got == want and sum(want.values()) == 150
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0, capsys.readouterr().out


# -- --match: errors -------------------------------------------------------------------------

JAMP_HEADER = "num\tpremise\thypothesis\tgold_label\ttemplate_num\ttime_format\ttime_span\tcategory\n"


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_malformed_match_files_get_one_line(tmp_path, capsys):
    no_columns = write(tmp_path / "a.tsv", "premise\thypothesis\nA\tB\n")
    one_line_error(capsys, ["jamp", "--match", str(no_columns)], "a.tsv", "line 2",
                   "template_num")
    ragged = write(tmp_path / "b.tsv", JAMP_HEADER + "1\tA\tB\tentailment\t0\tNone\n")
    one_line_error(capsys, ["jamp", "--match", str(ragged)], "b.tsv", "line 2 has 6 cells")
    empty = write(tmp_path / "c.tsv", JAMP_HEADER)
    one_line_error(capsys, ["jamp", "--match", str(empty)], "c.tsv", "no problems")
    binary = tmp_path / "d.tsv"
    binary.write_bytes(b"\xff\xfe\x00junk")
    one_line_error(capsys, ["jamp", "--match", str(binary)], "d.tsv", "not UTF-8")
    one_line_error(capsys, ["jamp", "--match", str(tmp_path / "missing.tsv")],
                   "missing.tsv", "cannot read")
    not_wogli = write(tmp_path / "e.tsv", "premise\thypothesis\tlabel\tpattern\n"
                      "A\tB\t3\tsing_masc_v_sing_fem\n")
    one_line_error(capsys, ["wogli", "--match", str(not_wogli)], "e.tsv:2", "label '3'")
    assert not list(tmp_path.glob("out*"))


def test_unknown_and_unfillable_cells_are_named(tmp_path, capsys):
    unknown = write(tmp_path / "u.tsv", JAMP_HEADER + "1\tA\tB\tentailment\t999\tNone\tNone\tx\n")
    one_line_error(capsys, ["jamp", "--match", str(unknown)], "u.tsv:2", "unknown cell",
                   "999")
    label = write(tmp_path / "l.tsv", JAMP_HEADER + "1\tA\tB\tmaybe\t0\tNone\tNone\tx\n")
    one_line_error(capsys, ["jamp", "--match", str(label)], "l.tsv:2", "gold_label 'maybe'")
    # template 0 has no time expressions; template 9 never gives contradiction? (read it)
    unfillable = write(tmp_path / "f.tsv", JAMP_HEADER
                       + "1\tA\tB\tentailment\t0\t年\trandom\tx\n"
                       + "2\tC\tD\tentailment\t0\tNone\tNone\tx\n")
    line = one_line_error(capsys, ["jamp", "--match", str(unfillable), "-o",
                                   str(tmp_path / "out") + "/"],
                          "1 cell(s) cannot be filled", "template 0, entailment, 年, random")
    assert "now.usage.0" in line
    assert not (tmp_path / "out").exists()
    pattern = write(tmp_path / "p.tsv", "premise\thypothesis\tlabel\tpattern\n"
                    "A\tB\t1\tno_such_pattern\n")
    one_line_error(capsys, ["wogli", "--match", str(pattern)], "p.tsv:2", "unknown cell",
                   "no_such_pattern")


def test_match_refuses_options_that_change_the_composition(reference, tmp_path, capsys):
    release = str(reference / "jamp" / "train_sample.tsv")
    one_line_error(capsys, ["jamp", "--match", release, "--fragment", "now"], "--fragment")
    one_line_error(capsys, ["jamp", "--match", release, "--n", "5"], "--n", "474")
    one_line_error(capsys, ["jamp", "--match", release, "--balance", "label"], "--balance")
    one_line_error(capsys, ["jamp", "--exclude", release], "--exclude", "--match")
    one_line_error(capsys, ["wogli", "--set", "all", "--match", release, "-o",
                            str(tmp_path) + "/"], "--match", "--set S")


# -- the plans -------------------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["e", "n", "c"]), min_size=1, max_size=4),
       st.dictionaries(st.sampled_from(["e", "n", "c"]), st.integers(0, 40)))
def test_split_fixed_counts_gives_exactly_the_counts(labels, counts):
    counts = {lab: k for lab, k in counts.items() if lab in labels}
    got = Counter()
    for subset, units in split_fixed_counts(labels, counts):
        assert units > 0 and subset and len(set(subset)) == len(subset)
        assert all(0 <= i < len(labels) for i in subset)
        for i in subset:
            got[labels[i]] += units
    assert got == Counter({lab: k for lab, k in counts.items() if k})


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sets(st.sampled_from(["e", "n", "c"]), min_size=1), min_size=1, max_size=8),
       st.integers(1, 300))
@example([{"e"}, {"e", "n"}, {"e", "c"}], 1)  # labels that cannot weigh the same: a floor
def test_label_schedule_keeps_every_prefix_balanced(label_sets, n):
    label_sets = [sorted(s) for s in label_sets]
    weights = template_weights(label_sets)
    assert all(w > 0 for w in weights)
    cells, cell_weights = [], []
    for s, w in zip(label_sets, weights):
        for lab in s:
            cells.append(lab)
            cell_weights.append(w)
    schedule = label_schedule(cells, cell_weights)
    seen = Counter(cells[next(schedule)] for _ in range(n))
    present = set(cells)
    assert set(seen) <= present
    assert max(seen.values()) - min(seen.get(lab, 0) for lab in present) <= 1


def test_template_weights_keep_a_template_balanced_when_they_can():
    # habituality's label sets: 5 contradiction-only, 3 entailment-only, 2 entailment +
    # neutral, 1 neutral-only: equal label totals exist with the two-label ones balanced
    sets = [["c"]] * 5 + [["e"]] * 3 + [["e", "n"]] * 2 + [["n"]]
    w = template_weights(sets)
    totals = Counter()
    for s, x in zip(sets, w):
        for lab in s:
            totals[lab] += x
    assert max(totals.values()) - min(totals.values()) < Fraction(1, 10_000)


# -- --balance label -------------------------------------------------------------------------

def test_balance_label_on_habituality_gives_equal_labels(tmp_path, capsys):
    out = tmp_path / "h"
    assert main(["jamp", "--fragment", "habituality", "--n", "999", "--balance", "label",
                 "-q", "-o", f"{out}/"]) == 0
    records = read_jsonl(out / "all.jsonl")
    assert Counter(r["label"] for r in records) == {"entailment": 333, "neutral": 333,
                                                    "contradiction": 333}
    per_template: dict[str, Counter] = {}
    for r in records:
        per_template.setdefault(r["template"], Counter())[r["label"]] += 1
    two_label = [c for c in per_template.values() if len(c) > 1]
    assert two_label and all(max(c.values()) - min(c.values()) <= 1 for c in two_label)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["balance"] == "label"
    assert "Balance (`--balance label`)" in (out / "README.md").read_text(encoding="utf-8")
    assert main(["verify", str(out)]) == 0, capsys.readouterr().out


def test_balance_cell_stays_the_default(tmp_path):
    out = tmp_path / "h"
    assert main(["jamp", "--fragment", "habituality", "--n", "1000", "-q",
                 "-o", f"{out}/"]) == 0
    counts = Counter(r["label"] for r in read_jsonl(out / "all.jsonl"))
    assert counts["neutral"] < counts["entailment"]  # as the Jamp paper: cells, not labels
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["balance"] == "cell"


def test_balance_label_keeps_the_first_problems_for_any_n(capsys):
    assert main(["jamp", "--fragment", "habituality", "--n", "60", "--balance", "label"]) == 0
    short = capsys.readouterr().out.splitlines()
    assert main(["jamp", "--fragment", "habituality", "--n", "90", "--balance", "label"]) == 0
    assert capsys.readouterr().out.splitlines()[:60] == short


def test_balance_label_with_premises_of_fixed_labels(capsys):
    # WOGLI's main set: every premise gives one entailment and one non-entailment
    assert main(["wogli", "--n", "40", "--balance", "label"]) == 0
    counts = Counter(json.loads(line)["label"] for line in capsys.readouterr().out.splitlines())
    assert counts["entailment"] == counts["non-entailment"] == 20


def test_matched_shards_merge_into_the_whole_folder(tmp_path, capsys):
    """Each shard meets the excluded pairs up to its end; the merged manifest has them all,
    as the whole run's has."""
    source = tmp_path / "made.tsv"
    assert main(["jamp", "--n", "300", "--format", "jamp-tsv", "-q", "-o", str(source)]) == 0
    whole = tmp_path / "whole"
    assert main(["jamp", "--match", str(source), "-q", "-o", f"{whole}/"]) == 0
    shards = []
    for i in (1, 2, 3):
        shard = tmp_path / f"shard{i}"
        assert main(["jamp", "--match", str(source), "--shard", f"{i}/3", "-q",
                     "-o", f"{shard}/"]) == 0
        shards.append(str(shard))
    merged = tmp_path / "merged"
    assert main(["merge", *shards, "-o", str(merged), "-q"]) == 0
    for name in ("all.jsonl", "manifest.json", "README.md"):
        assert (merged / name).read_bytes() == (whole / name).read_bytes(), name
    assert json.loads((whole / "manifest.json").read_text(encoding="utf-8"))["excluded_hits"]

"""The dataset card written with -o DIR/: Hugging Face front matter, tables, audit, citation;
and the files read as they are by pandas and by Hugging Face `datasets`."""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml
from conftest import REPO, generate_folder


@pytest.fixture(scope="module")
def jamp_split(tmp_path_factory) -> Path:
    return generate_folder(tmp_path_factory.mktemp("card") / "jamp", "jamp", "--n", "300", "--seed", "2",
                  "--split", "fragment_hard")


@pytest.fixture(scope="module")
def wogli_tsv(tmp_path_factory) -> Path:
    return generate_folder(tmp_path_factory.mktemp("card") / "wogli", "wogli", "--n", "120", "--seed", "2",
                  "--format", "wogli-tsv")


def card(folder: Path) -> tuple[dict, str]:
    text = (folder / "README.md").read_text(encoding="utf-8")
    match = re.match(r"---\n(.*?)\n---\n", text, re.DOTALL)
    assert match, "the card starts with YAML front matter"
    return yaml.safe_load(match.group(1)), text[match.end():]


def records(folder: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in (folder / name).read_text(encoding="utf-8").splitlines()]


def test_front_matter_is_hub_metadata(jamp_split, wogli_tsv):
    meta, _ = card(jamp_split)
    assert meta["license"] == "cc-by-sa-4.0"
    assert meta["language"] == ["ja"]
    assert meta["task_categories"] == ["text-classification"]
    assert meta["task_ids"] == ["natural-language-inference"]
    assert meta["size_categories"] == ["n<1K"]
    assert meta["configs"] == [{"config_name": "default", "data_files": [
        {"split": "train", "path": "train.jsonl"}, {"split": "test", "path": "test.jsonl"}]}]
    meta, _ = card(wogli_tsv)
    assert meta["language"] == ["de"]
    # a single split is "train" on the hub ("all" means every split to `datasets`)
    assert meta["configs"][0]["data_files"] == [{"split": "train", "path": "all.tsv"}]
    assert meta["configs"][0]["sep"] == "\t" and meta["configs"][0]["quoting"] == csv.QUOTE_NONE


def test_size_category_boundaries():
    from nligen.card import size_category

    assert [size_category(n) for n in (1, 999, 1000, 9999, 10_000, 34_000, 10**6)] == [
        "n<1K", "n<1K", "1K<n<10K", "1K<n<10K", "10K<n<100K", "10K<n<100K", "1M<n<10M"]


def test_tables_audit_and_citation_follow_the_records(jamp_split):
    manifest = json.loads((jamp_split / "manifest.json").read_text(encoding="utf-8"))
    _, body = card(jamp_split)
    recs = records(jamp_split, "train.jsonl") + records(jamp_split, "test.jsonl")
    for split, labels in manifest["totals"].items():
        row = f"| {split} | {labels.get('entailment', 0)} | {labels.get('neutral', 0)} | " \
              f"{labels.get('contradiction', 0)} | {sum(labels.values())} |"
        assert row in body
    by_fragment = Counter((r["fragment"], r["label"]) for r in recs)
    for fragment in {r["fragment"] for r in recs}:
        counts = [by_fragment[(fragment, y)] for y in ("entailment", "neutral", "contradiction")]
        assert f"| {fragment} | {' | '.join(map(str, counts))} | {sum(counts)} |" in body
    assert f"`{manifest['command']}`" in body and f"Seed {manifest['seed']}" in body
    assert "| train / test | 0 | 0 | 0 | 0 |" in body  # zero split overlap
    assert re.search(r"\*\*Hypothesis-only baseline\*\* .*: \d+\.\d % against \d+\.\d %", body)
    assert "@inproceedings{sugimoto-etal-2023-jamp" in body
    seen = Counter(r["seen"] for r in recs if r["split"] == "test")
    assert f"| test | {seen[True]} | {seen[False]} |" in body


def test_every_split_file_has_the_same_columns(jamp_split):
    columns = [tuple(r) for name in ("train.jsonl", "test.jsonl")
               for r in records(jamp_split, name)]
    # seen/unseen splits mark train items seen, so `datasets` finds one schema
    assert all("seen" in c for c in columns)
    assert len({frozenset(c) for c in columns}) == 1


def test_pandas_reads_the_files_as_they_are(jamp_split, wogli_tsv):
    import pandas as pd  # in the test extra
    for name in ("train.jsonl", "test.jsonl"):
        frame = pd.read_json(jamp_split / name, lines=True)
        recs = records(jamp_split, name)
        assert len(frame) == len(recs)
        assert list(frame["label"]) == [r["label"] for r in recs]
        assert list(frame["premise"]) == [r["premise"] for r in recs]
    frame = pd.read_csv(wogli_tsv / "all.tsv", sep="\t", quoting=csv.QUOTE_NONE,
                        keep_default_na=False)
    lines = (wogli_tsv / "all.tsv").read_text(encoding="utf-8").splitlines()
    assert len(frame) == len(lines) - 1 == 120
    assert list(frame.columns) == lines[0].split("\t")


def test_datasets_reads_the_files_and_the_card(jamp_split, wogli_tsv, tmp_path, monkeypatch):
    import datasets  # in the test extra
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    direct = datasets.load_dataset("json", data_files={
        "train": str(jamp_split / "train.jsonl"), "test": str(jamp_split / "test.jsonl")},
        cache_dir=str(tmp_path / "cache"))
    via_card = datasets.load_dataset(str(jamp_split), cache_dir=str(tmp_path / "cache2"))
    for ds in (direct, via_card):
        for split in ("train", "test"):
            recs = records(jamp_split, f"{split}.jsonl")
            assert ds[split]["label"] == [r["label"] for r in recs]
            assert ds[split]["id"] == [r["id"] for r in recs]
    tsv = datasets.load_dataset(str(wogli_tsv), cache_dir=str(tmp_path / "cache3"))
    assert tsv["train"].num_rows == 120
    assert set(tsv["train"]["label"]) == {1, 2}


def test_custom_templates_get_a_card_without_family_metadata(tmp_path):
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for name, body in re.findall(r"<!-- example-file: (\S+) -->\n```yaml\n(.*?)```", readme,
                                 re.DOTALL):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(body, encoding="utf-8")
    out = generate_folder(tmp_path / "out", "run", "mine/", "--n", "40", "--seed", "1", cwd=tmp_path)
    meta, body = card(out)
    assert meta["license"] == "other" and "language" not in meta
    assert "| mine.ages |" in body  # the default table: labels by template
    assert "@software{nligen" in body

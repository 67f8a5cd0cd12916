"""The README's install (``pip install`` with no extras) gives a working tool: a fresh
virtual environment, the package installed the way a user installs it (not editable,
no test extra), and one example of every subcommand run in it (issue 15).

The test extra hides gaps (it brings matplotlib, pandas, ...), so this runs the
commands from the fresh environment's own ``gen``. It needs PyPI or pip's cache, as
the README's install does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

PREMISES = "premise\nDer Schornsteinfeger begrüßt den Bademeister .\nDie Schneiderin besucht die Bademeister .\n"
GOLD_PRED = '{"id": "wogli-000000", "label": "entailment"}\n'
NLI = "premise\thypothesis\tlabel\n男性がボールを蹴っている。\t男性が遊んでいる。\tentailment\n"


@pytest.fixture(scope="module")
def plain(tmp_path_factory) -> Path:
    """A fresh venv with nligen installed from this checkout without extras."""
    root = tmp_path_factory.mktemp("plain")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
                          str(REPO)], capture_output=True, text=True, timeout=1800)
    assert pip.returncode == 0, pip.stderr[-2000:]
    return venv


def gen(venv: Path, *args: str, cwd: Path, stdin: str | None = None,
        ok: bool = True) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}:{env.get('PATH', '')}"
    proc = subprocess.run([str(venv / "bin" / "gen"), *args], capture_output=True, text=True,
                          input=stdin, cwd=cwd, env=env, timeout=900)
    if ok:
        assert proc.returncode == 0, (args, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    return proc


def test_every_subcommand_works_after_the_plain_install(plain, tmp_path):
    cwd = tmp_path
    python = plain / "bin" / "python"
    missing = subprocess.run([str(python), "-c", "import matplotlib"], capture_output=True)
    assert missing.returncode != 0, "the plain install should not bring matplotlib"

    assert gen(plain, "--version", cwd=cwd).stdout.startswith("nligen ")
    # generation: WOGLI, Jamp, your own templates; a folder with manifest and card
    gen(plain, "wogli", "--set", "dative", "--n", "200", "--seed", "1", "-q", "-o", "w/",
        cwd=cwd)
    assert (cwd / "w" / "manifest.json").is_file() and (cwd / "w" / "README.md").is_file()
    jamp = gen(plain, "jamp", "--fragment", "interval", "--n", "60", "--seed", "2", cwd=cwd)
    assert len(jamp.stdout.splitlines()) == 60
    mine = cwd / "mine"
    (mine / "lexicons").mkdir(parents=True)
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for name in ("mine/ages.yaml", "mine/lexicons/people.yaml"):
        start = readme.index(f"<!-- example-file: {name} -->")
        body = readme[readme.index("```yaml\n", start) + 8:readme.index("```", readme.index(
            "```yaml\n", start) + 8)]
        (cwd / name).write_text(body, encoding="utf-8")
    gen(plain, "validate", "mine/", cwd=cwd)
    gen(plain, "run", "mine/", "--n", "10", "--seed", "1", "-q", "-o", "m.jsonl", cwd=cwd)
    # workers and shards (gen merge)
    gen(plain, "wogli", "--n", "12000", "--workers", "2", "-q", "-o", "w2.jsonl", cwd=cwd)
    for i in (1, 2):
        gen(plain, "wogli", "--n", "300", "--shard", f"{i}/2", "-q", "-o", f"s{i}/", cwd=cwd)
    gen(plain, "merge", "s1/", "s2/", "-q", "-o", "merged/", cwd=cwd)
    # derive: a premise with nouns outside the shipped lexicons needs german-nouns/ablaut
    derived = gen(plain, "wogli", "derive", cwd=cwd, stdin=PREMISES).stdout.splitlines()
    assert len(derived) == 2 and all("error" not in json.loads(d) for d in derived), derived
    # labelling, listing, lexicons
    sample = REPO.parent / "shared" / "reference" / "jamp" / "train_sample.tsv"
    labelled = gen(plain, "jamp", "label", str(sample), cwd=cwd).stdout.splitlines()
    assert labelled and json.loads(labelled[0])["label"] is not None
    gen(plain, "list", "wogli", cwd=cwd)
    gen(plain, "lexicon", "stats", "--lang", "ja", cwd=cwd)
    gen(plain, "lexicon", "sample", "--lang", "ja", "--n", "3", cwd=cwd)
    gen(plain, "lexicon", "build-de", "--check", cwd=cwd)
    # audit (--plot without matplotlib: the report, and a one-line warning), verify, eval
    audited = gen(plain, "audit", "w/", "--plot", "x.png", cwd=cwd)
    assert audited.stdout.strip() and "warning:" in audited.stderr
    assert not (cwd / "x.png").exists()
    assert "ok" in gen(plain, "verify", "merged/", cwd=cwd).stdout
    (cwd / "pred.jsonl").write_text(GOLD_PRED, encoding="utf-8")
    first = (cwd / "w" / "all.jsonl").read_text(encoding="utf-8").splitlines()[0]
    (cwd / "gold.jsonl").write_text(first + "\n", encoding="utf-8")
    gen(plain, "eval", "--gold", "gold.jsonl", "--pred", "pred.jsonl", cwd=cwd)
    # exports for the evaluation harnesses
    gen(plain, "export", "llm-jp-eval", "w/", "-q", "-o", "w.json", cwd=cwd)
    gen(plain, "export", "lm-eval", "w/", "-q", "-o", "lm/", cwd=cwd)
    assert (cwd / "lm" / "w.yaml").is_file() and json.loads(
        (cwd / "w.json").read_text(encoding="utf-8"))["samples"]
    # minimal pairs: both languages, verify, the README's own paradigm, scores, export
    gen(plain, "list", "pairs", cwd=cwd)
    gen(plain, "pairs", "--language", "ja", "--n", "26", "-q", "-o", "pj.jsonl", cwd=cwd)
    gen(plain, "pairs", "--language", "de", "--n", "28", "-q", "-o", "pd/", cwd=cwd)
    assert "ok" in gen(plain, "verify", "pd/", cwd=cwd).stdout
    pair_example = readme[readme.index("```yaml\n", readme.index("<!-- pair-example -->")) + 8:]
    (cwd / "pmine").mkdir()
    (cwd / "pmine" / "agreement.yaml").write_text(pair_example[:pair_example.index("```")],
                                                 encoding="utf-8")
    gen(plain, "run", "pmine/", "--n", "10", "--balance", "template", "-q", "-o", "pm.jsonl",
        cwd=cwd)
    pairs = [json.loads(x) for x in (cwd / "pd" / "all.jsonl").read_text("utf-8").splitlines()]
    (cwd / "scores.jsonl").write_text("".join(
        json.dumps({"pairID": p["pairID"], "good": -1.0, "bad": -2.0}) + "\n" for p in pairs),
        encoding="utf-8")
    scored = gen(plain, "eval", "--gold", "pd/all.jsonl", "--scores", "scores.jsonl", "--json",
                 cwd=cwd)
    assert json.loads(scored.stdout)["accuracy"] == 1.0
    gen(plain, "export", "lm-eval", "pd/", "-q", "-o", "lmp/", cwd=cwd)
    # stress transformations of an NLI file
    (cwd / "nli.tsv").write_text(NLI, encoding="utf-8")
    gen(plain, "stress", "nli.tsv", "-q", "-o", "stress.jsonl", cwd=cwd)
    # a user error: one line, exit 2
    bad = gen(plain, "wogli", "--n", "0", cwd=cwd, ok=False)
    assert bad.returncode == 2 and bad.stderr.startswith("error:")

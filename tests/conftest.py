"""Shared fixtures. ``../shared`` (papers, reference samples) sits beside the repository."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
REFERENCE = SHARED / "reference"


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def reference() -> Path:
    if not REFERENCE.is_dir():
        pytest.fail(f"../shared/reference is missing (expected at {REFERENCE})")
    return REFERENCE


def run_gen(*args: str, input: str | None = None, env: dict | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run the CLI in a fresh process (as a user would)."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    return subprocess.run([sys.executable, "-m", "nligen.cli", *args], capture_output=True,
                          text=True, input=input, env=full_env, cwd=cwd, timeout=600)


def generate_folder(folder: Path, *args: str, cwd: Path | None = None) -> Path:
    """Run a generating command with -o FOLDER/ (quietly); fail the test if it fails."""
    proc = run_gen(*args, "-q", "-o", str(folder) + "/", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return folder


# Rows of the released JSICK stress sample that the low reading (the one a reader prefers)
# does not give. Hand-checked (issue-6 research).
#
# The original tool read these phrases, which sit between the subject and a relative
# clause, as arguments of the main clause. The shipped transformations (attachment:
# either) do the same when the low reading has no pair, so they reproduce these rows and
# mark them ambiguous.
JSICK_STRESS_HIGH_READINGS = {
    ("scrum_ga_ni", "1602"): "速記用に is inside the relative clause 速記用に使われる機械",
    ("scrum_ga_ni", "6953"): "ブランコに is inside the relative clause ブランコに乗っている男の子",
    ("scrum_ga_de", "8286"): "フィールドで is inside the relative clause フィールドで座っている",
    ("scrum_ga_de", "6858"): "草で is inside the relative clause 草で覆われた丘",
    ("scrum_ga_de", "7815"): "水の中で is inside the relative clause 水の中で動いている何か",
    ("ex_ga_o", "6371"): "白いコートを is the object of the relative clause 着ている",
    ("ex_ga_de", "9057"): "青と緑で is inside the relative clause 着色された",
    ("del_ga_o", "9959"): "赤い色を is inside the relative clause 赤い色をしたボール",
    ("del_ga_o", "952"): "アメリカンドッグを is the object of the relative clause 食べている",
}
# ... and the three no reading of ours gives.
JSICK_STRESS_MISSES = {
    ("scrum_ga_de", "9685"): "the de-phrase is put inside the subject phrase: the released "
                             "row cuts the subject after the te clause 着て",
    ("ex_ga_o", "794"): "金色の毛並みを read high although the low reading has a ga-o pair "
                        "(二匹の犬を); the other rows prefer the low reading then (75, 9052)",
    ("del_ga_de", "7905"): "枯れ葉で (in 枯れ葉でいっぱいの野原) read high although the low "
                           "reading has a ga-de pair (…野原で)",
}


@pytest.fixture(scope="session")
def wogli_set():
    from nligen.families import load_family

    return load_family("wogli")


@pytest.fixture(scope="session")
def shipped_lexicons():
    from nligen.data import lexicons_dir
    from nligen.lexicon import LexiconSet

    return LexiconSet([lexicons_dir()])

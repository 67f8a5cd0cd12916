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


# Rows of the released JSICK stress sample where the released data breaks its own rule
# (argument and subject of one predicate, whole phrases): the moved / changed argument sits
# inside a relative clause or modifier, or the subject phrase is cut. Hand-checked (issue-6
# research); our output differs from these by design, except 7905, where the analysis makes
# the same attachment as the original tool.
JSICK_STRESS_ANOMALIES = {
    ("scrum_ga_ni", "1602"): "速記用に is inside the relative clause 速記用に使われる機械",
    ("scrum_ga_ni", "6953"): "ブランコに is inside the relative clause ブランコに乗っている男の子",
    ("scrum_ga_de", "9685"): "de-phrase inserted inside the subject phrase (subject cut after 着て)",
    ("scrum_ga_de", "8286"): "フィールドで is inside the relative clause フィールドで座っている",
    ("scrum_ga_de", "6858"): "草で is inside the relative clause 草で覆われた丘",
    ("scrum_ga_de", "7815"): "水の中で is inside the relative clause 水の中で動いている何か",
    ("ex_ga_o", "6371"): "白いコートを is the object of the relative clause 着ている",
    ("ex_ga_o", "794"): "金色の毛並みを is the object of the relative clause をした",
    ("ex_ga_de", "9057"): "青と緑で is inside the relative clause 着色された",
    ("del_ga_o", "9959"): "赤い色を is inside the relative clause 赤い色をしたボール",
    ("del_ga_o", "952"): "アメリカンドッグを is the object of the relative clause 食べている",
    ("del_ga_de", "7905"): "枯れ葉で is inside the modifier 枯れ葉でいっぱいの野原",
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

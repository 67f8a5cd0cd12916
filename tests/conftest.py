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


@pytest.fixture(scope="session")
def wogli_set():
    from nligen.families import load_family

    return load_family("wogli")


@pytest.fixture(scope="session")
def shipped_lexicons():
    from nligen.data import lexicons_dir
    from nligen.lexicon import LexiconSet

    return LexiconSet([lexicons_dir()])

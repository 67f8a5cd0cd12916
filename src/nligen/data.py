"""Where the shipped templates and lexicons live.

In a source checkout (``pip install -e .``) they are the repository's ``templates/`` and
``lexicons/``; a regular install puts them under ``<prefix>/share/nligen``. The
environment variable ``NLIGEN_DATA`` points elsewhere (a folder holding both).
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache
from pathlib import Path

from .errors import NligenError


@lru_cache(maxsize=None)
def data_root() -> Path:
    candidates = []
    env = os.environ.get("NLIGEN_DATA")
    if env:
        candidates.append(Path(env))
    here = Path(__file__).resolve()
    candidates.append(here.parents[2])  # <repo>/src/nligen/data.py -> <repo>
    candidates.append(Path(sys.prefix) / "share" / "nligen")
    for c in candidates:
        if (c / "templates").is_dir() and (c / "lexicons").is_dir():
            return c
    raise NligenError(
        "cannot find the shipped templates/ and lexicons/ "
        f"(looked in {', '.join(str(c) for c in candidates)}); set NLIGEN_DATA")


def templates_dir(family: str | None = None) -> Path:
    root = data_root() / "templates"
    return root / family if family else root


def lexicons_dir() -> Path:
    return data_root() / "lexicons"


def families() -> list[str]:
    root = templates_dir()
    return sorted(p.name for p in root.iterdir() if p.is_dir() and (p / "family.yaml").is_file())

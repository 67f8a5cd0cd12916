"""Families: the glue between a family's templates/lexicons and the CLI.

A family is a folder ``templates/<name>/`` with a ``family.yaml`` (name, language,
default set, default size, description, citation, license) and its templates. A family
may add a Python module ``nligen.families.<name>`` for what data cannot say: its own TSV
layout, pattern-name conventions, or extra commands (WOGLI's ``derive``).
"""

from __future__ import annotations

import importlib
from typing import Any

from ..errors import UsageError


def family_module(name: str) -> Any | None:
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"{__name__}.{name}":
            return None
        raise


def load_family(name: str):
    """The shipped templates of a family, as a TemplateSet."""
    from ..data import families, templates_dir
    from ..templates import load_templates

    known = families()
    if name not in known:
        raise UsageError(f"unknown family {name!r} (known: {', '.join(known)})")
    return load_templates([templates_dir(name)])

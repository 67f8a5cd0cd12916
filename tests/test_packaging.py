"""A regular (non-editable) install ships the templates and lexicons as data files: every
shipped data file must be matched by the data-files globs in pyproject.toml."""

from __future__ import annotations

import glob

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from conftest import REPO


def test_every_shipped_data_file_is_packaged():
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    data_files = config["tool"]["setuptools"]["data-files"]
    packaged = set()
    for target, patterns in data_files.items():
        assert target.startswith("share/nligen/")
        for pattern in patterns:
            for path in glob.glob(str(REPO / pattern)):
                packaged.add(path)
                rel = path[len(str(REPO)) + 1:]
                assert target == "share/nligen/" + rel.rsplit("/", 1)[0]
    shipped = {str(p) for p in (REPO / "templates").rglob("*.yaml")}
    shipped |= {str(p) for p in (REPO / "lexicons").rglob("*") if p.is_file()}
    assert shipped <= packaged, sorted(shipped - packaged)
    scripts = config["project"]["scripts"]
    assert scripts == {"gen": "nligen.cli:run", "nligen": "nligen.cli:run"}

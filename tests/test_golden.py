"""generated/ holds small samples with their manifests; regenerating them must give the
same bytes."""

from __future__ import annotations

import json
import shlex

import pytest

from conftest import REPO, run_gen

SAMPLES = sorted(p.parent for p in (REPO / "generated").glob("*/manifest.json"))


def test_there_are_samples_for_every_set():
    names = {p.name for p in SAMPLES}
    for s in ("wogli", "os_hard", "p_subject", "dative", "ditransitive"):
        assert f"wogli-{s}" in names
    assert {"jamp", "jamp-fragment_hard", "jamp-tsv"} <= names
    assert {"pairs-de", "pairs-ja"} <= names


@pytest.mark.parametrize("folder", SAMPLES, ids=lambda p: p.name)
def test_sample_regenerates_byte_for_byte(folder, tmp_path):
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    args = shlex.split(manifest["command"])
    assert args[0] == "gen"
    out = tmp_path / "out"
    proc = run_gen(*args[1:], "-q", "-o", f"{out}/")
    assert proc.returncode == 0, proc.stderr
    want = {p.name: p.read_bytes() for p in folder.iterdir()}
    got = {p.name: p.read_bytes() for p in out.iterdir()}
    assert got == want
    for name, info in manifest["files"].items():
        assert info["records"] == len(got[name].decode("utf-8").splitlines()) - (
            1 if name.endswith(".tsv") else 0)

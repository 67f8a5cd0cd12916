"""The README's commands and example stay true: CI runs its test command, and its
custom-template example runs here exactly as written."""

from __future__ import annotations

import json
import re
import shlex

from conftest import REPO, run_gen

README = (REPO / "README.md").read_text(encoding="utf-8")


def fenced_after(marker: str) -> list[tuple[str, str]]:
    """(marker argument, code) for each fenced block preceded by <!-- marker ... -->."""
    pattern = re.compile(r"<!-- " + marker + r"(?::\s*(\S+))? -->\s*```\w*\n(.*?)```", re.S)
    return pattern.findall(README)


def test_ci_runs_the_readme_test_command():
    commands = re.findall(r"```sh\n(python3 -m venv[^\n]*)\n```", README)
    assert len(commands) == 2, "README starts with two set-up commands"
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert ci == commands[1]
    assert "pytest" in commands[1] and "gen wogli" in commands[0]


def test_readme_custom_template_example_runs(tmp_path):
    files = fenced_after("example-file")
    assert {name for name, _ in files} == {"mine/ages.yaml", "mine/lexicons/people.yaml"}
    for name, code in files:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code, encoding="utf-8")
    [(_, commands)] = fenced_after("example-commands")
    outputs = []
    for line in commands.strip().splitlines():
        args = shlex.split(line)
        assert args[0] == "gen"
        proc = run_gen(*args[1:], cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        outputs.append(proc)
    assert outputs[0].stdout.startswith("ok:")
    records = [json.loads(x) for x in outputs[1].stdout.splitlines()]
    assert len(records) == 10
    for r in records:
        x, y = r["slots"]["x"]["value"], r["slots"]["y"]["value"]
        assert r["label"] == ("entailment" if x > y else "contradiction")
    out = tmp_path / "mine-out"
    assert {p.name for p in out.iterdir()} == {"train.jsonl", "test.jsonl", "manifest.json",
                                               "README.md"}


def test_readme_derive_example_is_what_derive_prints():
    block = re.search(r"printf '(.*?)' \| gen wogli derive\n(#.*?)```", README, re.S)
    stdin = block.group(1).encode().decode("unicode_escape")
    shown = json.loads("".join(line[2:] for line in block.group(2).splitlines()))
    proc = run_gen("wogli", "derive", input=stdin)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == shown


def test_readme_lexicon_sizes_match_the_built_lexicons(shipped_lexicons):
    sizes = {name: len(shipped_lexicons.get(f"de/{name}").entries) for name in (
        "nouns_human", "first_names", "verbs_transitive", "verbs_dative",
        "verbs_ditransitive", "direct_objects")}
    text = " ".join(README.split())
    assert f"{sizes['nouns_human']} human nouns" in text
    assert f"{sizes['first_names']} first names" in text
    assert f"{sizes['verbs_transitive']} transitive verbs" in text
    assert f"{sizes['verbs_dative']} dative verbs" in text
    assert f"{sizes['verbs_ditransitive']} ditransitive verbs" in text
    assert f"{sizes['direct_objects']} direct objects" in text

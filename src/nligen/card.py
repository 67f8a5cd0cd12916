"""The dataset card (README.md) written beside the split files of ``-o DIR/``.

Its YAML front matter is the Hugging Face hub's dataset-card metadata (license, language,
task, size category, ``configs`` naming the split files), so a folder pushed to the hub
or read with ``datasets.load_dataset(DIR)`` gets its splits; the body says how the set
was made (command, seed, version), what is in it (label tables per split and per the
family's grouping fields), what ``gen audit`` finds, and whom to cite.

Everything in it is a function of the records, so the card is as reproducible as the
data files.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from .pairs import PAIR_RECORDS


class Tally(Protocol):
    """What a card reads of a set's records (nligen.pipeline.Tally has it)."""

    card_fields: Sequence[str]
    sample: Any  # the indices the audit reads, or None (every record)

    def card_seen(self) -> Counter: ...

    def card_by(self) -> dict[str, dict[str, Counter]]: ...

    def sampled_records(self) -> list[tuple[int, dict]]: ...


# Hugging Face size categories (upper bounds, exclusive).
SIZE_CATEGORIES = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                   (1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M")]
# A single split is called "train" on the hub ("all" means every split to `datasets`).
HUB_SPLIT = {"all": "train"}
DEFAULT_CARD_TABLES = ("template",)
ARTIFACTS_SHOWN = 12
NLIGEN_BIBTEX = """@software{nligen,
  title   = {nligen: controlled natural-language-inference challenge sets from YAML
             templates and lexicons},
  version = {VERSION},
  year    = {2026}
}"""


def size_category(n: int) -> str:
    for bound, name in SIZE_CATEGORIES:
        if n < bound:
            return name
    return "n>10M"


def _yaml_scalar(value: Any) -> str:
    # JSON strings are valid YAML scalars; this keeps quoting exact and dependency-free.
    return json.dumps(value, ensure_ascii=False)


def front_matter(family: str, fam: Mapping[str, Any], manifest: Mapping[str, Any],
                 fmt_ext: str) -> list[str]:
    total = sum(info["records"] for info in manifest.get("files", {}).values()) or manifest["n"]
    lines = ["---", f"pretty_name: {_yaml_scalar(fam.get('title') or f'{family} challenge set')}",
             f"license: {_yaml_scalar(fam.get('license_id') or 'other')}"]
    pairs = manifest.get("records") == PAIR_RECORDS
    languages = manifest.get("languages") or ([fam["language"]] if fam.get("language") else [])
    if languages:
        lines += ["language:"] + [f"- {_yaml_scalar(code)}" for code in languages]
    lines += ["task_categories:", "- text-classification",
              "task_ids:", "- acceptability-classification" if pairs
              else "- natural-language-inference",
              "size_categories:", f"- {size_category(total)}",
              "annotations_creators:", "- machine-generated",
              "language_creators:", "- machine-generated",
              "multilinguality:", "- multilingual" if len(languages) > 1 else "- monolingual",
              "source_datasets:", "- original",
              "tags:"]
    for tag in ["minimal-pairs" if pairs else "nli", "challenge-set", "nligen",
                *fam.get("tags", [family])]:
        lines.append(f"- {_yaml_scalar(tag)}")
    lines += ["configs:", "- config_name: default", "  data_files:"]
    for name in manifest.get("files", {}):
        split = name.rsplit(".", 1)[0]
        lines += [f"  - split: {_yaml_scalar(HUB_SPLIT.get(split, split))}",
                  f"    path: {_yaml_scalar(name)}"]
    if fmt_ext == "tsv":
        lines += ['  sep: "\\t"', "  quoting: 3  # csv.QUOTE_NONE: quotes are text"]
    lines.append("---")
    return lines


def _ordered(labels) -> list[str]:
    """Labels in the usual order (entailment, neutral, contradiction), others after."""
    known = ["entailment", "neutral", "contradiction", "non-entailment"]
    return sorted(set(labels), key=lambda y: (known + [y]).index(y))


def _label_table(header: str, rows: Mapping[str, Counter], labels: Sequence[str]) -> list[str]:
    out = [f"| {header} | " + " | ".join(labels) + " | total |",
           "|---|" + "---|" * (len(labels) + 1)]
    for value, counts in rows.items():
        out.append(f"| {value} | " + " | ".join(str(counts.get(y, 0)) for y in labels)
                   + f" | {sum(counts.values())} |")
    return out


def _problems(tally: Tally) -> list:
    """The problems the audit reads: the sampled records (every record of a set no larger
    than the sample)."""
    from .tools.audit import problem_from_record

    return [problem_from_record(record, record["split"], i + 1, record["split"])
            for i, record in tally.sampled_records()]


def _contents(manifest: Mapping[str, Any], labels: Sequence[str], seen: Counter,
              by: Mapping[str, Mapping[str, Counter]]) -> list[str]:
    totals = manifest["totals"]
    lines = ["## Contents", ""]
    lines += _label_table("split", {s: Counter(c) for s, c in totals.items()}, labels)
    if seen:
        lines += ["", "Seen / unseen (a test item is seen when its template, format, span or "
                  "pattern occurs in train; train items are seen by definition):", "",
                  "| split | seen | unseen |", "|---|---|---|"]
        for split in totals:
            if (split, True) in seen or (split, False) in seen:
                lines.append(f"| {split} | {seen[(split, True)]} | {seen[(split, False)]} |")
    for f, values in by.items():
        if values:
            lines += ["", f"By `{f}` (all splits):", ""]
            lines += _label_table(f, dict(sorted(values.items())), labels)
    lines += ["", "Per-template counts per split are in `manifest.json` (`counts`).", ""]
    return lines


def _audit(problems: list, total: int) -> list[str]:
    from .tools.audit import audit_problems

    result = audit_problems(problems)
    m = result["artifact_test"]
    found = result["artifacts"]
    h = result["hypothesis_only"]
    lines = ["## Audit", "",
             "What `gen audit` finds in these files (run it on the folder for the full "
             "report and `--plot` for a figure like Jamp's figure 3)."
             + ("" if len(problems) >= total else
                f" The figures below read a seeded sample of {len(problems):,} of the "
                f"{total:,} problems, drawn evenly from the whole set; `gen audit` reads "
                "them all."), ""]
    if len(m["labels"]) < 2:
        lines += ["Token–label artifacts: only one label, nothing to test.", ""]
    else:
        beyond = [a for a in found if a["beyond_label_share"]]
        uniform = len(beyond) == len(found)
        lines += [f"**Token–label artifacts** (tokens of {m['text']}; one-sided exact binomial "
                  f"test of p(label | token) against the uniform prior, Bonferroni over "
                  f"{m['tests']:,} tests at α = {m['alpha']}): {len(found)} significant "
                  f"(token, label) pair{'s' if len(found) != 1 else ''}"
                  + ("." if uniform else
                     f", {len(beyond)} of them also against the label's share of the set (the "
                     "labels are not uniform, so a token found in most problems inherits "
                     "their imbalance)."), ""]
        if beyond:
            lines += ["Template words that decide the label by design (negation, aspect and "
                      "time words, fronted case forms) are expected here; a content word "
                      "would be a lexical shortcut. The most frequent"
                      + ("" if uniform else " of those beyond the label share") + ":", "",
                      "| token | label | problems with token | with label | p̂ |",
                      "|---|---|---|---|---|"]
            for a in sorted(beyond, key=lambda a: (-a["n"], a["token"], a["label"]))[
                    :ARTIFACTS_SHOWN]:
                lines.append(f"| {a['token']} | {a['label']} | {a['n']:,} | {a['count']:,} | "
                             f"{a['count'] / a['n']:.3f} |")
            lines.append("")
    from .tools.diversity import markdown as diversity_markdown

    lines += ["**Diversity** (the same words and clauses over and over invite lexical "
              "shortcuts):", "", *diversity_markdown(result["diversity"])]
    lines += [f"**Hypothesis-only baseline** ({h['model']}, {h['folds']}-fold): "
              f"{100 * h['accuracy']:.1f} % against {100 * h['majority']:.1f} % for the "
              f"majority class (chance {100 * h['chance']:.1f} %).", ""]
    if result["overlap"]:
        lines += ["**Split overlap** (distinct items two splits share; fillings are the "
                  "content words of the non-time slots):", "",
                  "| splits | pairs | premises | hypotheses | fillings |", "|---|---|---|---|---|"]
        for pair, counts in result["overlap"].items():
            lines.append(f"| {pair.replace('|', ' / ')} | {counts['pairs']} | {counts['premises']} | "
                         f"{counts['hypotheses']} | {counts['fillings']} |")
        lines.append("")
    return lines


def _loading(manifest: Mapping[str, Any], ext: str) -> list[str]:
    files = list(manifest.get("files", {}))
    data_files = "{" + ", ".join(f'"{HUB_SPLIT.get(n.rsplit(".", 1)[0], n.rsplit(".", 1)[0])}"'
                                 f': "{n}"' for n in files) + "}"
    first = files[0] if files else f"train.{ext}"
    if ext == "tsv":
        return ["```python", "import pandas as pd",
                f'df = pd.read_csv("{first}", sep="\\t", quoting=3, keep_default_na=False)',
                "", "from datasets import load_dataset",
                f'ds = load_dataset("csv", data_files={data_files}, sep="\\t", quoting=3)',
                "```"]
    return ["```python", "import pandas as pd", f'df = pd.read_json("{first}", lines=True)',
            "", "from datasets import load_dataset",
            f'ds = load_dataset("json", data_files={data_files})',
            "```"]


def _balance(manifest: Mapping[str, Any]) -> list[str]:
    """How the problems were shared out over the templates and labels (manifest
    ``balance``; a matched set's file)."""
    balance = manifest.get("balance")
    if balance == "cell":
        return ["Balance (`--balance cell`): every (template, label) cell has the same number "
                "of problems, within one.", ""]
    if balance == "label":
        return ["Balance (`--balance label`): the labels are equal overall, within one; the "
                "templates are weighted so that each template's labels stay balanced where "
                "the selected templates allow it.", ""]
    match = manifest.get("match")
    if balance == "match" and isinstance(match, Mapping):
        excluded = [f"`{e['file']}`" for e in manifest.get("exclude") or ()]
        return [f"Composition (`--match`): the same number of problems per cell as "
                f"`{match['file']}` (sha256 `{str(match['sha256'])[:16]}…`, "
                f"{match['problems']} problems, {match['cells']} cells); no problem equals a "
                f"(premise, hypothesis) pair of it" + (f" or of {', '.join(excluded)}"
                                                     if excluded else "") + ".", ""]
    return []


def dataset_card(family: str, fam: Mapping[str, Any], manifest: Mapping[str, Any], ext: str,
                 tally: Tally, total: int) -> str:
    """The card of a set of ``total`` problems, from its manifest and the tally of its
    records (pipeline.Tally: label counts per field, seen flags, the audit's sample)."""
    if manifest.get("records") == PAIR_RECORDS:
        return pairs_card(family, fam, manifest, ext, tally)
    labels = _ordered(lab for c in manifest["totals"].values() for lab in c)
    lines = _heading(family, fam, manifest, ext, fam.get("title") or f"{family} challenge set")
    lines += _balance(manifest)
    lines += _contents(manifest, labels, tally.card_seen(), tally.card_by())
    lines += ["## Files", ""]
    for name, info in manifest.get("files", {}).items():
        lines.append(f"- `{name}`: {info['records']} problems (sha256 `{info['sha256'][:16]}…`)")
    lines += ["", "Reading them:", ""] + _loading(manifest, ext) + [""]
    lines += _audit(_problems(tally), total)
    lines += _divergences(fam)
    lines += ["## Reproducing", "",
              f"Seed {manifest['seed']}, nligen {manifest['nligen_version']}. The same command, "
              "seed and version give byte-identical files; `manifest.json` records the "
              "arguments and the SHA-256 of every template and lexicon used. `gen verify` "
              "on this folder re-derives every label from its slots and regenerates the "
              "files to compare them byte for byte.", "",
              "## Record format", "",
              "One JSON object per line: `id`, `family`, `template`, `premise`, `hypothesis`, "
              "`label`, `split` (`seen` on both sides of seen/unseen splits), family fields, "
              "`slots` (the filled values) and `rationale` (what decides the label, with "
              "character spans in the hypothesis)." if ext == "jsonl" else
              "Tab-separated with a header; the columns are those of the format named in "
              "`manifest.json` (`format`). The JSONL format also carries `slots` and "
              "`rationale`.", ""]
    lines += _citation_and_license(fam, manifest)
    return "\n".join(lines)


def _divergences(fam: Mapping[str, Any]) -> list[str]:
    """Where the set's templates depart from the released conditions they transcribe
    (each template's ``divergence``), found by checking conditions against semantics."""
    found = fam.get("divergences") or {}
    if not found:
        return []
    lines = ["## Divergences from the released conditions", "",
             "Checked against what the sentences mean (`gen jamp check-semantics`), these "
             "templates label some problems differently from the released condition:", ""]
    for tid, d in found.items():
        lines.append(f"- `{tid}` (released: `{d['jamp']}`): {d['why']}. Example: {d['example']}")
    return lines + [""]


def _heading(family: str, fam: Mapping[str, Any], manifest: Mapping[str, Any], ext: str,
             title: str) -> list[str]:
    """The card's front matter, title, how it was made and the family's description."""
    lines = front_matter(family, fam, manifest, ext)
    lines += ["", f"# {title}", "",
              f"Generated by nligen {manifest['nligen_version']}"
              + (f" with `{manifest['command']}`" if manifest.get("command") else "") + ".", ""]
    if fam.get("description"):
        lines += [str(fam["description"]).strip(), ""]
    return lines


def _citation_and_license(fam: Mapping[str, Any], manifest: Mapping[str, Any]) -> list[str]:
    """The card's last sections: whom to cite (the family's paper, nligen) and the
    license, with the source and license of every lexicon used."""
    lines = ["## Citation", ""]
    if fam.get("citation"):
        lines += [str(fam["citation"]).strip(), ""]
    lines += ["```bibtex"]
    if fam.get("bibtex"):
        lines += [str(fam["bibtex"]).strip(), ""]
    lines += [NLIGEN_BIBTEX.replace("VERSION", str(manifest["nligen_version"])), "```", ""]
    lines += ["## License", ""]
    lines.append(str(fam.get("license", "See the licenses of the templates and lexicons listed "
                                         "in manifest.json.")).strip())
    lines.append("")
    lex = manifest.get("lexicons") or {}
    if lex:
        lines += ["Lexicons used:", ""]
        for name, info in lex.items():
            lines.append(f"- `{name}`: {info.get('source') or 'source not stated'}"
                         f" ({info.get('license') or 'license not stated'})")
        lines.append("")
    return lines


def pairs_card(family: str, fam: Mapping[str, Any], manifest: Mapping[str, Any], ext: str,
               tally: Tally) -> str:
    """The card of a set of minimal pairs (nligen.pairs): pairs per phenomenon and
    paradigm, how every pair was checked, BLiMP's record format."""
    lines = _heading(family, fam, manifest, ext, fam.get("title") or f"{family} minimal pairs")
    lines += ["## Contents", ""]
    per_split = {s: sum(c.values()) for s, c in manifest["totals"].items()}
    lines.append("Pairs per split: " + ", ".join(f"{s} {k:,}" for s, k in per_split.items())
                 + ".")
    seen = tally.card_seen()
    if seen:
        lines.append("Seen/unseen: " + ", ".join(
            f"{split} {'seen' if flag else 'unseen'} {k:,}"
            for (split, flag), k in sorted(seen.items())) + ".")
    lines.append("")
    for name, values in tally.card_by().items():
        if not values:
            continue
        lines += [f"| {name} | pairs |", "|---|---:|"]
        lines += [f"| {value} | {sum(c.values()):,} |" for value, c in values.items()]
        lines.append("")
    lines += ["## Files", ""]
    for name, info in manifest.get("files", {}).items():
        lines.append(f"- `{name}`: {info['records']} pairs (sha256 `{info['sha256'][:16]}…`)")
    lines += ["", "Reading them:", ""] + _loading(manifest, ext) + [""]
    lines += ["## How the pairs were checked", "",
              "Each paradigm names its contrast: a feature of one slot made wrong, or one "
              "slot moved. Before a pair is written, nligen checks that the two sentences "
              "differ, that they differ only there (outside the varied slot the texts are "
              "the same; a moved slot reads the same and the rest keeps its words and "
              "order), and that the bad form is one the paradigm does not allow in that "
              "place (a German noun phrase is checked against every cell of its noun, in "
              "both numbers). A pair that fails is not written. `gen verify` on this folder "
              "checks every pair again and regenerates the files byte for byte.", "",
              "## Record format", "",
              "One JSON object per line, in BLiMP's format: `sentence_good`, "
              "`sentence_bad`, `field`, `linguistics_term` (the phenomenon), `UID` (the "
              "paradigm), `pairID`, `simple_LM_method`, `one_prefix_method`, "
              "`two_prefix_method`, `lexically_identical` (with BLiMP's prefix fields where "
              "a prefix method applies); then `id`, `family`, `language`, `split` (`seen` on "
              "seen/unseen splits), `group`, `slots` (the filled values) and `rationale` "
              "(the rule the bad sentence breaks, the contrast, and the character spans "
              "that differ in each sentence).", ""]
    lines += _citation_and_license(fam, manifest)
    return "\n".join(lines)


def stress_card(manifest: Mapping[str, Any], records: Sequence[Mapping[str, Any]], *,
                data_file: str, citation: str, bibtex: str) -> str:
    """The card of a ``gen stress`` folder: what was transformed, how, the label counts per
    transformation and pair, and whom to cite (``citation``, ``bibtex``: the JSICK paper's;
    ``data_file``: the folder's data file)."""
    total = len(records)
    lines = ["---", f"pretty_name: {_yaml_scalar('JSICK-style stress transformations')}",
             "license: \"other\"", "language:", "- \"ja\"",
             "task_categories:", "- text-classification",
             "task_ids:", "- natural-language-inference",
             "size_categories:", f"- {size_category(total)}",
             "annotations_creators:", "- machine-generated",
             "source_datasets:", "- extended",
             "tags:", "- \"nli\"", "- \"stress-test\"", "- \"nligen\"", "- \"jsick\"",
             "configs:", "- config_name: default", "  data_files:",
             f"  - split: {_yaml_scalar(HUB_SPLIT['all'])}", f"    path: {_yaml_scalar(data_file)}",
             "---", "", "# JSICK-style stress transformations", "",
             f"Made by nligen {manifest['nligen_version']} with `{manifest['command']}` from "
             f"`{manifest['input']['path']}` ({manifest['input']['rows']} rows, sha256 "
             f"`{manifest['input']['sha256'][:16]}…`).", "",
             "Each record is a premise of the input transformed as the JSICK stress test "
             "does (Yanaka & Mineshima 2022, section 5): scramble moves the argument phrase "
             "in front of the subject and keeps the label; swap exchanges the two case "
             "particles and delete drops them, both setting the label the transformation "
             "declares (the input's label stays in `label_original`).", "",
             "## Contents", ""]
    labels = _ordered(str(r["label"]) for r in records if r.get("applicable", True))
    rows = {key: Counter(v) for key, v in manifest["counts"].items()}
    lines += _label_table("transform/pair", rows, labels + (
        ["not applicable"] if any("not applicable" in c for c in rows.values()) else []))
    lines += ["", "Rows where a transformation does not apply (not written unless "
              "`--keep-inapplicable`): "
              + (", ".join(f"{k} {v}" for k, v in manifest["not_applicable"].items()) or "none")
              + ".", ""]
    if manifest.get("ambiguous"):
        lines += [f"{manifest['ambiguous']} records read a phrase that sits between the subject "
                  "and a relative clause as an argument of the main clause, as the JSICK data "
                  "does; their meaning may differ from the original's even where the label is "
                  "kept. They carry `rationale.changes[].argument.ambiguous`; `--attachment "
                  "low` leaves them out.", ""]
    lines += ["Transformations (YAML):", ""]
    for tid, info in manifest["transformations"].items():
        lines.append(f"- `{tid}`: `{info['path']}` (attachment {info['attachment']}, sha256 "
                     f"`{info['sha256'][:16]}…`)")
    lines += ["", "## Files", "",
              f"- `{data_file}`: {total} records (sha256 "
              f"`{manifest['files'][data_file]['sha256'][:16]}…`)", "", "Reading it:", ""]
    lines += _loading(manifest, "jsonl") + [""]
    lines += ["## Reproducing", "",
              "`gen verify` on this folder re-derives every record from its "
              "`premise_original` and, when the input file is where the command names it "
              "and unchanged, runs the command again and compares the files byte for byte.",
              "", "## Record format", "",
              "One JSON object per line: `id`, `family` (`stress`), `template` and `transform` "
              "(the transformation), `pair`, `premise` (transformed), `premise_original`, "
              "`hypothesis`, `label`, `label_original`, `applicable`, `source` (input line and "
              "id), `slots` (the original subject and argument phrases) and `rationale` "
              "(each phrase as it now reads, its span in the premise, its particle before "
              "and after).", "", "## Citation", "", citation, "", "```bibtex", bibtex, "",
              NLIGEN_BIBTEX.replace("VERSION", str(manifest["nligen_version"])), "```", "",
              "## License", "",
              "The premises and hypotheses come from the input file; its license applies "
              "(JSICK is CC BY-SA 4.0). The transformations are CC BY-SA 4.0 (nligen).", ""]
    return "\n".join(lines)

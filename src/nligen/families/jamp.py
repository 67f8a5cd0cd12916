"""Jamp family glue: selection by fragment, the paper's splits, Jamp's TSV layout, ``label``.

Fragments (Sugimoto et al. 2023, appendix A, table 10) have English ids; each template
file is one sub-fragment (``ordering.continuity``) and each template keeps its Jamp id
(``jamp_template``), Jamp's Japanese ``category`` and its ``difficulty`` (section 3.4.1).
"""

from __future__ import annotations

import csv
import io
from typing import Any, Iterable, Mapping, Sequence

from ..errors import UsageError
from ..splits import Restriction, SplitOptions
from ..writers import TsvFormat

FRAGMENTS = {
    "now": "Temporal commonsense: usage of 現在 (now)",
    "ordering": "Temporal ordering: continuity of state, ordering relation",
    "time_point": "Time point: mentioned and unmentioned time points",
    "anaphora": "Temporal anaphora: reference resolution of 昨日 (yesterday)",
    "interval": "Interval: comparison of two intervals, completion of eventuality",
    "habituality": "Habituality: mentioned / unmentioned time point, negation, "
                   "existential quantification",
}
SPLITS = ("iid", "fragment_easy", "fragment_hard", "format_easy", "format_hard", "span")
SINGLE_UNIT_FORMATS = ("Y", "M", "D", "H")
INTERVAL_FORMATS = ("year", "month", "day", "hour")
# fragment_hard trains on fewer tense fragments than fragment_easy (section 3.4.1): these
# basic categories are left out of its train side (splits_jamp.json of the release).
FRAGMENT_HARD_HELD_OUT = (
    "未言及の時点（照応）", "完了", "2区間比較（ちょうど/以上+少なくとも）",
    "2区間比較（ちょうど/ちょうど+ちょうど）", "習慣+存在量化（毎+時間単位）", "順序（推移律不可）",
)
SPAN_CHOICES = ("random", "short")
TSV_COLUMNS = ("num", "premise", "hypothesis", "gold_label", "template_num", "time_format",
               "time_span", "category")


def static_field(template, name: str) -> Any:
    """A template's fixed record field (fragment, category, jamp_template, ...)."""
    value = template.record.get(name)
    if hasattr(value, "source"):
        return value.source if not value.names else None
    return value


def select_templates(template_set, fragments: Sequence[str] | None,
                     template_ids: Sequence[str] | None) -> list[str] | None:
    """Template ids for ``--fragment`` (main or sub-fragment) and ``--template`` (our id or
    a Jamp template number)."""
    if not fragments and not template_ids:
        return None
    templates = template_set.templates
    chosen: list[str] = []
    known_sub = sorted({static_field(t, "subfragment") for t in templates} - {None})
    for f in fragments or []:
        hits = [t.id for t in templates
                if f in (static_field(t, "fragment"), static_field(t, "subfragment"))]
        if not hits:
            raise UsageError(f"unknown fragment {f!r} (main: {', '.join(FRAGMENTS)}; sub: "
                             f"{', '.join(known_sub)})", "--fragment")
        chosen += [h for h in hits if h not in chosen]
    by_jamp = {str(static_field(t, "jamp_template")): t.id for t in templates}
    ids = {t.id for t in templates}
    for tid in template_ids or []:
        target = tid if tid in ids else by_jamp.get(tid)
        if target is None:
            raise UsageError(f"unknown template {tid!r} (give an id such as "
                             f"{templates[0].id} or a Jamp template number; `gen list jamp`)",
                             "--template")
        if target not in chosen:
            chosen.append(target)
    return chosen


def format_codes(values: Sequence[str] | None) -> list[str] | None:
    """``--time-format`` values: codes (YMD, year) or Jamp's names (年月日, 年間)."""
    if not values:
        return None
    from ..lang.ja.timetext import FORMAT_CODES, FORMAT_NAMES

    out = []
    for v in values:
        code = v if v in FORMAT_NAMES else FORMAT_CODES.get(v)
        if code is None:
            raise UsageError(f"unknown time format {v!r} (known: "
                             f"{', '.join(f'{c} ({n})' for c, n in FORMAT_NAMES.items())})",
                             "--time-format")
        if code not in out:
            out.append(code)
    return out


def split_options(template_set, split: str | None, train_size: int | None = None) -> SplitOptions:
    """The paper's splits (section 3.4) as train-side restrictions."""
    if split is None:
        return SplitOptions()
    if split not in SPLITS:
        raise UsageError(f"unknown split {split!r} (known: {', '.join(SPLITS)})", "--split")
    basic = [t.id for t in template_set.templates if static_field(t, "difficulty") == "basic"]
    restriction = {
        "iid": Restriction(),
        "fragment_easy": Restriction(templates=basic),
        "fragment_hard": Restriction(templates=[
            t.id for t in template_set.templates if t.id in basic
            and static_field(t, "category") not in FRAGMENT_HARD_HELD_OUT]),
        # format_easy adds the minimal combinations YM, MD, DH (section 3.4.2).
        "format_easy": Restriction(time_formats=[*SINGLE_UNIT_FORMATS, "YM", "MD", "DH",
                                                 *INTERVAL_FORMATS]),
        "format_hard": Restriction(time_formats=[*SINGLE_UNIT_FORMATS, *INTERVAL_FORMATS]),
        "span": Restriction(time_spans=["random"]),
    }[split]
    return SplitOptions(name=split, train_size=train_size, train_fraction=0.8,
                        restriction=restriction, seen_flags=split != "iid")


def generate(*, fragments=None, template_ids=None, time_formats=None, time_span=None, n=None,
             seed=0, split=None, train_size=None, command=None, arguments=None, lexicons=None,
             balance="cell", match=None):
    """Library call behind ``gen jamp``. ``match``: a :class:`nligen.matching.Match`
    (:func:`read_match`), the composition of a released file to make afresh."""
    from ..api import generate as api_generate
    from . import load_family

    template_set = load_family("jamp")
    if match is not None:
        for flag, value in (("--fragment", fragments), ("--template", template_ids),
                            ("--time-format", time_formats), ("--time-span", time_span),
                            ("--split", split), ("--balance", balance != "cell")):
            if value:
                raise UsageError("a matched set takes its templates, formats and spans from "
                                 "the --match file", flag)
        ds = api_generate(
            template_set, lexicons=lexicons, n=n, seed=seed, family="jamp", command=command,
            arguments=arguments, tsv_formats=TSV_FORMATS, quotas=match.quotas,
            excluded=match.excluded, provenance=match.provenance)
        ds.recipe = (generate, dict(n=n, seed=seed, command=command, arguments=arguments,
                                    lexicons=lexicons, match=match))
        return ds
    if time_span is not None and time_span not in SPAN_CHOICES:
        raise UsageError(f"unknown time span {time_span!r} (known: random, short)",
                         "--time-span")
    chosen = select_templates(template_set, fragments, template_ids)
    codes = format_codes(time_formats)
    if codes is not None or time_span is not None:
        if chosen is None:
            chosen = [t.id for t in template_set.templates]
        fits = [tid for tid in chosen if _fits(template_set.by_id(tid), codes, time_span)]
        if not fits:
            raise UsageError("no selected template has time expressions of that format/span",
                             "--time-format" if codes else "--time-span")
        chosen = fits
    ds = api_generate(
        template_set, lexicons=lexicons, n=n, seed=seed, template_ids=chosen, split=split,
        split_options=split_options(template_set, split, train_size), family="jamp",
        command=command, arguments=arguments, tsv_formats=TSV_FORMATS,
        time_formats=codes, time_spans=[time_span] if time_span else None, balance=balance)
    ds.recipe = (generate, dict(fragments=fragments, template_ids=template_ids,
                                time_formats=time_formats, time_span=time_span, n=n, seed=seed,
                                split=split, train_size=train_size, command=command,
                                arguments=arguments, lexicons=lexicons, balance=balance))
    return ds


# -- matching a released file (--match) ---------------------------------------------------

MATCH_COLUMNS = ("template_num", "gold_label", "time_format", "time_span")
LABELS = ("entailment", "contradiction", "neutral")


def read_match(path, exclude=(), template_set=None):
    """The cells of a file in Jamp's released TSV layout (``num premise hypothesis
    gold_label template_num time_format time_span category``): the problems per
    (template_num, gold_label, time_format, time_span), Jamp's ``None`` for no format
    or span; with the pairs of it and of ``exclude`` files, which the set must not
    repeat (:class:`nligen.matching.Match`)."""
    from ..lang.ja.timetext import FORMAT_CODES
    from ..matching import build_match, count_cells, read_table
    from ..plans import CellQuota
    from . import load_family

    template_set = template_set or load_family("jamp")
    table = read_table(path, MATCH_COLUMNS)
    by_number: dict[str, list] = {}
    for t in template_set.templates:
        by_number.setdefault(str(static_field(t, "jamp_template")), []).append(t)
    order = {t.id: k for k, t in enumerate(template_set.templates)}
    rows = []
    for line, row in table.rows:
        where = f"{path}:{line}"
        number, label = row["template_num"].strip(), row["gold_label"].strip()
        fmt_name, span = row["time_format"].strip(), row["time_span"].strip()
        # of a number's templates, one drawn only for --match cells (labels: []: the
        # released wording where a sibling rewords it, 32 beside 32.least), else the last
        # that draws the label (34.over for 34)
        siblings = by_number.get(number)
        if siblings is None:
            raise UsageError(f"unknown cell: no Jamp template {number!r} (known: "
                             f"{', '.join(sorted(by_number, key=_as_int))})", where)
        if label not in LABELS:
            raise UsageError(f"unknown cell: gold_label {label!r} (known: "
                             f"{', '.join(LABELS)})", where)
        if fmt_name != "None" and fmt_name not in FORMAT_CODES:
            raise UsageError(f"unknown cell: time_format {fmt_name!r} (known: None, "
                             f"{', '.join(FORMAT_CODES)})", where)
        if span not in ("None", *SPAN_CHOICES):
            raise UsageError(f"unknown cell: time_span {span!r} (known: None, "
                             f"{', '.join(SPAN_CHOICES)})", where)
        drawing = [t for t in siblings if t.draws_label(label, requested=True)]
        template = next((t for t in drawing if t.match_only),
                        drawing[-1] if drawing else siblings[-1])
        fmt, span_value = FORMAT_CODES.get(fmt_name), span if span != "None" else None
        rows.append(((order[template.id], LABELS.index(label), fmt or "", span_value or ""),
                     CellQuota(template.id, "", label, 1, fmt, span_value,
                               f"template {number}, {label}, {fmt_name}, {span}")))
    quotas = count_cells(rows)
    return build_match(table, quotas, exclude)


def _as_int(text: str):
    return (0, int(text), "") if text.isdigit() else (1, 0, text)


def _fits(template, codes, span) -> bool:
    """With --time-format/--time-span, only templates whose time expressions can have them."""
    time = template.time
    if time is None:
        return False
    if codes is not None and not time.problem_formats(codes):
        return False
    if span is not None and not time.spans:
        return False
    return True


# -- Jamp's TSV layout -----------------------------------------------------------------

def _jamp_row(rec: Mapping[str, Any]) -> dict[str, Any]:
    return {"num": int(rec["id"].rsplit("-", 1)[1]), "premise": rec["premise"],
            "hypothesis": rec["hypothesis"], "gold_label": rec["label"],
            "template_num": rec.get("jamp_template"),
            "time_format": rec.get("time_format") or "None",
            "time_span": rec.get("time_span") or "None", "category": rec.get("category")}


def _tokenized_row(rec: Mapping[str, Any]) -> dict[str, Any]:
    from ..lang.ja.tokenize import wakati

    row = _jamp_row(rec)
    row["premise"] = wakati(row["premise"])
    row["hypothesis"] = wakati(row["hypothesis"])
    return row


TSV_FORMATS = {
    "jamp-tsv": TsvFormat("jamp-tsv", TSV_COLUMNS, _jamp_row),
    "jamp-tsv-tokenized": TsvFormat("jamp-tsv-tokenized", TSV_COLUMNS, _tokenized_row),
}


# -- listing -------------------------------------------------------------------------------

def describe(lexicons=None) -> list[dict[str, Any]]:
    """For ``gen list jamp``: every template with its fragment, labels and capacity."""
    from ..api import lexicon_set_for
    from ..engine import Engine
    from . import load_family

    template_set = load_family("jamp")
    engine = Engine(template_set, lexicon_set_for(lexicons, template_set))
    out = []
    for v in engine.variants:
        t = v.template
        labels = [lab for h in t.hypotheses for lab in h.rule.labels if t.draws_label(lab)]
        time = t.time
        out.append({
            "template": t.id, "jamp_template": static_field(t, "jamp_template"),
            "fragment": static_field(t, "fragment"), "subfragment": static_field(t, "subfragment"),
            "category": static_field(t, "category"), "difficulty": static_field(t, "difficulty"),
            "labels": list(dict.fromkeys(labels)),
            "time_formats": time.problem_formats() if time else [],
            "time_spans": [s for s in time.problem_spans() if s] if time else [],
            "content_capacity": v.capacity(),
        })
    return out


# -- label -------------------------------------------------------------------------------

def read_problem_table(text: str, where: str) -> list[dict[str, str]]:
    """A TSV with a header holding 'premise' and 'hypothesis' (optionally 'template_num')."""
    reader = csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    if reader.fieldnames is None:
        raise UsageError("empty input: expected a TSV header with premise and hypothesis",
                         where)
    missing = [c for c in ("premise", "hypothesis") if c not in reader.fieldnames]
    if missing:
        raise UsageError(f"the header has no {' or '.join(missing)} column "
                         f"(columns: {', '.join(reader.fieldnames)})", where)
    rows = []
    for i, row in enumerate(reader, start=2):
        if None in row:
            raise UsageError(f"line {i} has more cells than the header", where)
        rows.append({k: (v or "") for k, v in row.items()})
    return rows


class JampLabeller:
    """Labels Jamp-style problems with the family's templates (see nligen.tools.label)."""

    def __init__(self, template_set=None, by: str = "condition"):
        from ..lang.ja.timetext import UNIT_WORD, parse_interval, parse_point
        from ..tools.label import Labeller
        from . import load_family

        self.template_set = template_set or load_family("jamp")
        self.labeller = Labeller(self.template_set.templates,
                                 (parse_point, parse_interval,
                                  {w: u for u, w in UNIT_WORD.items()}),
                                 provenance=lambda t: static_field(t, "jamp_template"), by=by)
        self.known_numbers = {str(static_field(t, "jamp_template"))
                              for t in self.template_set.templates}

    def _filter(self, number: str | None):
        if number is None:
            return None
        return lambda t: str(static_field(t, "jamp_template")) == number

    def label_rows(self, rows: Iterable[Mapping[str, str]]):
        for row in rows:
            number = (row.get("template_num") or "").strip() or None
            if number is not None and number not in self.known_numbers:
                yield {"premise": row.get("premise", ""), "hypothesis": row.get("hypothesis", ""),
                       "label": None, "template": None, "jamp_template": None, "slots": {},
                       "error": f"unknown Jamp template number {number!r}"}
                continue
            yield self.labeller.label(row.get("premise", ""), row.get("hypothesis", ""),
                                      self._filter(number))


def check_semantics(templates: Sequence[str] | None = None, samples: int = 1000, seed: int = 0):
    """Condition against semantics for the chosen templates (ids or Jamp numbers; None:
    all), by nligen.tools.semantic_check."""
    from ..tools.semantic_check import check_templates
    from . import load_family

    chosen = load_family("jamp").templates
    if templates:
        wanted = set(templates)
        known = {t.id for t in chosen} | {str(static_field(t, "jamp_template")) for t in chosen}
        unknown = sorted(wanted - known)
        if unknown:
            raise UsageError(f"unknown template(s) {', '.join(unknown)} (gen list jamp shows "
                             "them)", "--template")
        chosen = [t for t in chosen if t.id in wanted
                  or str(static_field(t, "jamp_template")) in wanted]
    return check_templates(chosen, samples=samples, seed=seed)

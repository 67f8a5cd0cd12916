"""``gen pairs``: acceptability minimal pairs (German and Japanese paradigms).

The paradigms are the pair templates in ``templates/pairs/<language>/`` (see
:mod:`nligen.pairs` for how a template declares its contrast). A run selects them by
language, phenomenon (BLiMP's ``linguistics_term``) and paradigm id (BLiMP's ``UID``),
and the engine makes them balanced per paradigm (``balance="template"``).
"""

from __future__ import annotations

from typing import Any

from ..errors import UsageError

SPLITS = ("lexical",)  # test words never seen in train, with `seen` on test records


def _pick(known: list[str], asked: list[str] | None, option: str) -> set[str] | None:
    if not asked:
        return None
    unknown = [a for a in asked if a not in known]
    if unknown:
        raise UsageError(f"unknown {option.lstrip('-')} {unknown[0]!r} (known: "
                         f"{', '.join(known)})", option)
    return set(asked)


def select(template_set, languages=None, phenomena=None, paradigms=None) -> list[str]:
    """The paradigm ids a selection names (all of them by default), in file order."""
    templates = template_set.templates
    langs = _pick(sorted({t.language.code for t in templates}), languages, "--language")
    terms = _pick(sorted({t.pair.phenomenon for t in templates}), phenomena, "--phenomenon")
    ids = _pick([t.id for t in templates], paradigms, "--paradigm")
    chosen = [t.id for t in templates
              if (langs is None or t.language.code in langs)
              and (terms is None or t.pair.phenomenon in terms)
              and (ids is None or t.id in ids)]
    if not chosen:
        raise UsageError("no paradigm matches --language, --phenomenon and --paradigm together",
                         "--paradigm" if paradigms else "--phenomenon")
    return chosen


def generate(*, languages=None, phenomena=None, paradigms=None, n=None, seed=0, split=None,
             split_options=None, command=None, arguments=None, lexicons=None):
    """Library call behind ``gen pairs``: the selected paradigms, ``n`` pairs in all
    (default: the family's ``default_units_per_variant`` per paradigm), balanced per
    paradigm within one."""
    from ..api import generate as api_generate
    from . import load_family

    template_set = load_family("pairs")
    chosen = select(template_set, languages, phenomena, paradigms)
    if split is not None and split not in SPLITS:
        raise UsageError(f"unknown split {split!r} (known: {', '.join(SPLITS)})", "--split")
    if n is None:
        n = int(template_set.family.get("default_units_per_variant", 100)) * len(chosen)
    ds = api_generate(template_set, lexicons=lexicons, n=n, seed=seed, template_ids=chosen,
                      split=split, split_options=split_options, family="pairs",
                      command=command, arguments=arguments, balance="template")
    ds.recipe = (generate, dict(languages=languages, phenomena=phenomena, paradigms=paradigms,
                                n=n, seed=seed, split=split, split_options=split_options,
                                command=command, arguments=arguments, lexicons=lexicons))
    return ds


def describe(template_set=None) -> list[dict[str, Any]]:
    """One row per paradigm: language, phenomenon, field, contrast and capacity (the
    distinct fillings; a filling whose pair fails its checks is not written, so a
    paradigm may give fewer)."""
    from ..api import list_variants
    from . import load_family

    template_set = template_set or load_family("pairs")
    capacity: dict[str, int | None] = {}
    for row in list_variants(template_set):
        have = capacity.get(row["template"], 0)
        capacity[row["template"]] = (None if have is None or row["capacity"] is None
                                     else have + row["capacity"])
    return [{"paradigm": t.id, "language": t.language.code,
             "phenomenon": t.pair.phenomenon, "field": t.pair.field,
             "contrast": t.pair.describe(), "capacity": capacity.get(t.id)}
            for t in template_set.templates]

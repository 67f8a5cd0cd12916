"""The language-neutral engine on small custom templates."""

from __future__ import annotations

import json
import textwrap
from collections import Counter
from itertools import product
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from nligen import generate
from nligen.engine import _count_with_distinct
from nligen.errors import CapacityError, UnsatisfiableLabelError, UsageError
from nligen.slots import SlotValue

PEOPLE = """
source: test
license: CC0
entries:
  - {name: Ann, gender: f}
  - {name: Bob, gender: m}
  - {name: Cleo, gender: f}
  - {name: Dan, gender: m}
"""

AGES = """
id: toy.ages
slots:
  a: {lexicon: people}
  b: {lexicon: people}
  x: {range: [20, 40]}
  y: {range: [20, 40]}
distinct: [[a, b]]
premises:
  - "{{ a }} is {{ x }}."
  - "{{ b }} is {{ y }}."
hypothesis: "{{ a }} is older than {{ b }}."
label:
  entailment: x > y
  contradiction: x < y
  otherwise: neutral
"""

FIXED = """
id: toy.fixed
variants:
  axes: {g: [f, m]}
  field: gender
slots:
  a: {lexicon: people, where: {gender: $g}}
  b: {lexicon: people}
distinct: [[a, b]]
premise: "{{ a }} greets {{ b }}."
hypotheses:
  - {type: same, label: entailment, text: "{{ a }} greets someone."}
  - {type: swap, label: neutral, text: "{{ b }} greets {{ a }}."}
"""


def project(tmp_path: Path, **templates: str) -> Path:
    (tmp_path / "lexicons").mkdir(parents=True, exist_ok=True)
    (tmp_path / "lexicons" / "people.yaml").write_text(PEOPLE, encoding="utf-8")
    for name, text in templates.items():
        (tmp_path / f"{name}.yaml").write_text(textwrap.dedent(text), encoding="utf-8")
    return tmp_path


def test_conditional_labels_follow_their_conditions_and_balance(tmp_path):
    ds = generate(project(tmp_path, ages=AGES), n=300, seed=4)
    labels = Counter(r["label"] for r in ds.records)
    assert labels == {"entailment": 100, "contradiction": 100, "neutral": 100}
    for r in ds.records:
        x, y = r["slots"]["x"]["value"], r["slots"]["y"]["value"]
        want = "entailment" if x > y else "contradiction" if x < y else "neutral"
        assert r["label"] == want
        assert r["slots"]["a"]["text"] != r["slots"]["b"]["text"]
        assert set(r["rationale"]["slots"]) == {"x", "y"}


def test_no_duplicate_pairs(tmp_path):
    ds = generate(project(tmp_path, ages=AGES), n=600, seed=1)
    pairs = [(r["premise"], r["hypothesis"]) for r in ds.records]
    assert len(pairs) == len(set(pairs))


def test_fixed_label_hypotheses_come_in_groups_with_variants(tmp_path):
    ds = generate(project(tmp_path, fixed=FIXED), n=8, seed=0)
    assert [r["gender"] for r in ds.records] == ["f", "f", "m", "m", "f", "f", "m", "m"]
    assert [r["hypothesis_type"] for r in ds.records] == ["same", "swap"] * 4
    for first, second in zip(ds.records[::2], ds.records[1::2]):
        assert first["premise"] == second["premise"]
    women = {"Ann", "Cleo"}
    assert all(r["slots"]["a"]["text"] in women for r in ds.records if r["gender"] == "f")


def test_capacity_error_names_the_template(tmp_path):
    # 2 women x 3 others = 6 fillings per variant, 12 in all (24 pairs): 26 are too many.
    with pytest.raises(CapacityError) as info:
        generate(project(tmp_path, fixed=FIXED), n=26, seed=0)
    msg = str(info.value)
    assert "toy.fixed [f]: 12" in msg and "at most 24" in msg


def test_capacity_error_names_the_exhausted_variant(tmp_path):
    root = project(tmp_path, fixed=FIXED)
    (root / "lexicons" / "people.yaml").write_text(PEOPLE + "  - {name: Eve, gender: f}\n",
                                                   encoding="utf-8")
    # f: 3 x 4 = 12 fillings, m: 2 x 4 = 8; 36 pairs = 9 units each: m runs out.
    with pytest.raises(CapacityError) as info:
        generate(root, n=36, seed=0)
    msg = str(info.value)
    assert "toy.fixed [m]" in msg and "at most 8" in msg


def test_exhausting_the_capacity_exactly_works(tmp_path):
    ds = generate(project(tmp_path, fixed=FIXED), n=24, seed=0)
    assert len({r["premise"] for r in ds.records}) == 12


def test_unsatisfiable_label_is_reported(tmp_path):
    text = AGES.replace("x: {range: [20, 40]}", "x: {range: [10, 12]}")
    with pytest.raises(UnsatisfiableLabelError, match="entailment"):
        generate(project(tmp_path, ages=text), n=30, seed=0)


@pytest.mark.parametrize("n", [0, -3])
def test_non_positive_n_is_a_usage_error(tmp_path, n):
    with pytest.raises(UsageError, match="--n"):
        generate(project(tmp_path, ages=AGES), n=n)


def _lines(ds):
    return ds.render("jsonl").splitlines()


def test_same_seed_same_bytes_and_prefix_stability(tmp_path):
    root = project(tmp_path, ages=AGES, fixed=FIXED)
    a = generate(root, n=35, seed=7)
    b = generate(root, n=35, seed=7)
    assert a.render() == b.render()
    small = generate(root, n=16, seed=7)
    assert len(_lines(small)) == 16
    for x, y in zip(_lines(small), _lines(a)[:16]):
        assert json.loads(x) == json.loads(y)
    other = generate(root, n=35, seed=8)
    assert other.render() != a.render()


def test_adding_a_template_does_not_change_other_templates_items(tmp_path):
    alone = generate(project(tmp_path / "one", ages=AGES), n=60, seed=3)
    both = generate(project(tmp_path / "two", ages=AGES, fixed=FIXED), n=40, seed=3)

    def key(r):
        return (r["premise"], r["hypothesis"], r["label"])

    ages_alone = [key(r) for r in alone.records]
    ages_both = [key(r) for r in both.records if r["template"] == "toy.ages"]
    assert ages_both[: len(ages_alone)] == ages_alone[: len(ages_both)]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.sampled_from("abcde"), min_size=1, max_size=5), min_size=2,
                max_size=4),
       st.data())
def test_capacity_counting_matches_brute_force(identity_lists, data):
    slots = {f"s{i}": [SlotValue(f"s{i}", f"{k}{j}", identity=k) for j, k in enumerate(ids)]
             for i, ids in enumerate(identity_lists)}
    names = list(slots)
    all_edges = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    edges = data.draw(st.lists(st.sampled_from(all_edges), unique=True))
    brute = sum(
        1 for combo in product(*slots.values())
        if all(combo[names.index(a)]._identity != combo[names.index(b)]._identity
               for a, b in edges)
    )
    assert _count_with_distinct(slots, edges) == brute


# -- the even deal of grouped options (a verb's clauses) ---------------------------------

def _grouped_options(sizes):
    return [SlotValue("V", f"v{g}-{i}", {}, identity=f"v{g}", key=f"v{g}|{i}", group=f"v{g}")
            for g, m in enumerate(sizes) for i in range(m)]


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(1, 12), min_size=1, max_size=8), rest=st.integers(1, 5),
       count=st.integers(1, 4), data=st.data())
def test_even_deal_is_a_bijection_and_pooled_variants_share_it(sizes, rest, count, data):
    from nligen.engine import _deal_groups, _EvenDeal, _strided

    seed = data.draw(st.integers(0, 99))
    parts = _deal_groups(_grouped_options(sizes), seed, "", (seed << 20, seed, 0, count))
    total = sum(sizes)
    deals = [_EvenDeal(parts, rest, j, count) for j in range(count)]
    size = deals[0].size
    assert size == total * rest
    # every (option, use) once: the walker pairs use k with the k-th filling of the rest
    for deal in deals:
        seen = Counter()
        for p in range(size):
            option, rank, use = deal.at(p)
            seen[(option._key, use)] += 1
            assert 0 <= use < rest and 0 <= rank < total
        assert set(seen.values()) == {1} and len(seen) == size
    # the J variants together take the shared deal in order
    steps = size // count
    together = sorted(_strided(size, j, count, p) for j in range(count) for p in range(steps))
    assert together == list(range(steps * count))
    assert sorted(_strided(size, 1 % count, count, p) for p in range(size)) == list(range(size))


def test_even_deal_brings_every_verb_each_round_and_large_ones_up_to_three_times():
    from nligen.engine import _deal_groups, _EvenDeal

    sizes = [1, 2, 4, 9, 25]
    parts = _deal_groups(_grouped_options(sizes), 7, "")
    assert sorted(len(p) for p in parts) == [1, 2, 2, 2, 3, 3, 3, 8, 8, 9]
    deal = _EvenDeal(parts, rest=100)
    rounds = 20  # 10 parts a round
    verbs = Counter(deal.at(p)[0]._group for p in range(10 * rounds))
    assert verbs == {"v0": rounds, "v1": rounds, "v2": 2 * rounds, "v3": 3 * rounds,
                     "v4": 3 * rounds}
    # a verb's clauses come in turn: its three parts (9, 8 and 8 clauses) repeat none in
    # their first eight rounds, and the ninth brings the 25th
    uses = [deal.at(p)[0]._key for p in range(10 * 9) if deal.at(p)[0]._group == "v4"]
    assert len(set(uses[:24])) == 24 and len(set(uses)) == 25


def test_a_new_engine_forgets_the_memos_of_earlier_runs(tmp_path):
    """Walker rows, deal layouts and ranks, and drawn time values are kept at module
    level while a run goes; a new engine empties them, so a long-lived process does not
    keep every earlier run's options alive. The output does not depend on them."""
    from nligen import engine as engine_module, timeslots
    from nligen.families import jamp

    first = [r["hypothesis"] for r in jamp.generate(n=60, seed=7).records]
    jamp_rows = {id(opts) for opts, _ in engine_module._ROWS.values()}
    assert jamp_rows and engine_module._DEAL_LAYOUTS and engine_module._RANKS
    assert timeslots._DRAWN
    generate(project(tmp_path, ages=AGES), n=10, seed=1).records  # a new engine
    assert not {id(opts) for opts, _ in engine_module._ROWS.values()} & jamp_rows
    assert not engine_module._DEAL_LAYOUTS and not timeslots._DRAWN
    again = [r["hypothesis"] for r in jamp.generate(n=60, seed=7).records]
    assert again == first

"""The Japanese lexicon as templates see it (issue 13): the reviewed-tuple gate, the register
rule, noun features as selection restrictions, and interval amounts (5日以内)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from nligen.errors import TemplateError
from nligen.lang.ja.lexicon import (EXCLUDED_FEATURES, NOUN_FEATURES, JaLexicon, honorific,
                                    tuple_key)
from nligen.lang.ja.slots import PredicateKind
from nligen.lang.ja.timetext import parse_interval, time_text
from nligen.lexicon import LexiconSet
from nligen.slots import SlotContext
from nligen.validate import validate

REPO = Path(__file__).resolve().parents[1]
LEXICONS = REPO / "lexicons"


@pytest.fixture(scope="module")
def lexicons():
    return LexiconSet([LEXICONS])


def options(lexicons, **spec):
    PredicateKind.validate(spec, "test")
    return PredicateKind().options(spec, SlotContext(lexicons, "V", "test"))


def curated(name):
    return yaml.safe_load((LEXICONS / "ja" / "curated" / f"{name}.yaml").read_text("utf-8"))


@pytest.mark.parametrize("noun, expected", [
    ("ご要望", True), ("ご相談", True), ("お客様", True), ("お話", True), ("助産師さん", True),
    ("お菓子", False), ("お皿", False), ("本", False), ("手紙", False)])
def test_register_rule(noun, expected):
    assert honorific(noun) is expected


def test_predicate_options_use_only_read_tuples_and_respect_the_register(lexicons):
    accepted = {(e["lemma"], tuple_key(e["args"])) for e in curated("reviewed_tuples")["entries"]}
    # clauses a reader composed count as read (clause_readings.yaml, composed: true)
    accepted |= {(e["lemma"], tuple_key(e["args"])) for e in curated("clause_readings")["entries"]
                 if e.get("composed")}
    rejected = {(e["lemma"], tuple_key(e["args"])) for e in curated("tuple_blocklist")["entries"]}
    features = JaLexicon.load(lexicons).noun_features
    seen = 0
    for cases in ([], ["ヲ"], ["ニ"], ["ニ", "ヲ"], ["デ"]):
        for o in options(lexicons, cases=cases):
            fields = o._fields
            args = {c: fields[f] for c, f in (("ヲ", "wo"), ("ニ", "ni"), ("デ", "de"))
                    if f in fields}
            assert o._group == fields["lemma"]
            if not args:
                continue  # a bare frame needs no reading
            seen += 1
            key = (fields["lemma"], tuple_key(args))
            assert key in accepted and key not in rejected, key
            for noun in args.values():
                assert not honorific(noun), noun
                assert not features.get(noun, frozenset()) & EXCLUDED_FEATURES, noun
    assert seen > 1000  # the gate leaves a real vocabulary, not a handful


@pytest.mark.parametrize("case, feature", [("ニ", "place"), ("ヲ", "ordered"), ("ヲ", "due"),
                                           ("ニ", "container")])
def test_noun_restrictions_hold_on_every_option(lexicons, case, feature):
    features = JaLexicon.load(lexicons).noun_features
    opts = options(lexicons, cases=[case] if case == "ヲ" else [case],
                   nouns={case: feature})
    assert opts, f"no option with a {feature} noun in {case}"
    field = {"ヲ": "wo", "ニ": "ni"}[case]
    for o in opts:
        assert feature in features[o._fields[field]], o._fields
    unrestricted = options(lexicons, cases=[case])
    assert len(unrestricted) > len(opts)


def test_exclude_nouns_leaves_out_nouns_with_the_feature(lexicons):
    features = JaLexicon.load(lexicons).noun_features
    spec = {"cases": ["ニ", "ヲ"], "clause": ["habit"], "nouns": {"ニ": ["place", "container"]}}
    kept = options(lexicons, **spec, exclude_nouns={"ニ": "single"})
    every = options(lexicons, **spec)
    assert kept and len(kept) < len(every)
    assert not any("single" in features.get(o._fields["ni"], ()) for o in kept)
    assert any("single" in features.get(o._fields["ni"], ()) for o in every)  # 玄関, 台所


def test_a_restriction_may_ask_for_vague_nouns(lexicons):
    features = JaLexicon.load(lexicons).noun_features
    vague = options(lexicons, cases=["ヲ"], nouns={"ヲ": "vague"})
    assert all("vague" in features[o._fields["wo"]] for o in vague)


@pytest.mark.parametrize("spec, message", [
    ({"cases": ["ヲ"], "nouns": {"ニ": "place"}}, "nouns.ニ: not one of the clause's cases"),
    ({"cases": ["ヲ"], "nouns": {"ヲ": "places"}}, "nouns.ヲ must be one of"),
    ({"cases": ["ヲ"], "nouns": ["place"]}, "'nouns' must map cases"),
    ({"cases": ["ヲ"], "nouns": {"ヲ": []}}, "nouns.ヲ must be one of"),
    ({"cases": ["ヲ"], "exclude_nouns": {"ニ": "single"}},
     "exclude_nouns.ニ: not one of the clause's cases"),
    ({"cases": ["ヲ"], "exclude_nouns": "single"}, "'exclude_nouns' must map cases"),
])
def test_bad_restrictions_are_template_errors(spec, message):
    with pytest.raises(TemplateError) as exc:
        PredicateKind.validate(spec, "t.yaml: x: slots.V")
    assert message in str(exc.value)


PARTICLE_FIELDS = (("デ", "de", "で"), ("カラ", "kara", "から"), ("ヘ", "he", "へ"),
                   ("ニ", "ni", "に"), ("ト", "to", "と"), ("ヲ", "wo", "を"))  # clause order


def case_phrases(fields):
    """(case, noun, particle) of an option's arguments, in clause order (as args spells)."""
    return [(case, fields[name], particle) for case, name, particle in PARTICLE_FIELDS
            if name in fields]


def test_alternative_frames_offer_each_frame_and_spell_its_arguments(lexicons):
    alternatives = [[], ["ヲ"], ["ニ"]]
    opts = options(lexicons, cases=alternatives, aspect=["activity", "achievement"],
                   volitional=True)
    frames = set()
    for o in opts:
        fields = o._fields
        phrases = case_phrases(fields)
        frames.add(tuple(c for c, *_ in phrases))
        assert fields["args"] == "".join(n + p for _, n, p in phrases), fields
    assert frames == {(), ("ヲ",), ("ニ",)}
    # the same verbs and tuples as the single frames give, no more
    single = {o._key for cases in alternatives for o in options(
        lexicons, cases=cases, aspect=["activity", "achievement"], volitional=True)}
    assert {o._key for o in opts} == single


def test_anaphor_clauses_put_sono_on_the_noun_picked_up(lexicons):
    """その goes before the ヲ phrase (担任にその作文を; その担任に作文を read as broken) and
    before the only phrase of a clause without ヲ (そのメーカーに)."""
    from nligen.lang.ja.lexicon import case_phrases as spell

    assert spell({"ニ": "担任", "ヲ": "作文"}, sono=True) == "担任にその作文を"
    assert spell({"ニ": "メーカー"}, sono=True) == "そのメーカーに"
    assert spell({"ヲ": "手紙"}, "ヲ", "祖母", sono=True) == "その手紙を"  # not その祖母の
    assert spell({"ニ": "祖母", "ヲ": "手紙"}, "ニ", "母方", sono=True) == "母方の祖母にその手紙を"
    opts = options(lexicons, cases=[["ヲ"], ["ニ"], ["ヲ", "ニ"]], clause=["anaphor"],
                   modifiers=True)
    both = [o for o in opts if "wo" in o._fields and "ni" in o._fields]
    assert both, "no clause with both ヲ and ニ"
    for o in opts:
        fields = o._fields
        picked = fields.get("wo") or fields.get("ni") or fields.get("de")
        head = fields["sono_args"].split("その", 1)[1]
        assert head.startswith(picked), fields  # その stands for the noun's modifier
        plain = fields["args"].replace(f"{fields.get('no')}の{picked}", picked, 1) \
            if "no" in fields else fields["args"]
        assert fields["sono_args"].replace("その", "", 1) == plain, fields
    # the field spells the clause: it does not change the option's identity
    plain = {o._key for o in options(lexicons, cases=[["ヲ"], ["ニ"], ["ヲ", "ニ"]],
                                     clause=["anaphor"])}
    assert plain <= {o._key for o in opts}
    assert all("sono_args" not in o._fields for o in options(lexicons, cases=[["ヲ"], ["ニ"]]))


def test_many_and_those_mark_the_noun_the_anaphor_picks_up(lexicons):
    """多くの goes on the ヲ noun of a two-argument clause (市場に多くの魚を, not 多くの市場に
    魚を), and the plural anaphor points back to that noun: その〈W〉たち for people,
    それらの〈W〉 for the rest (その花 after 多くの花 read as one flower)."""
    from nligen.lang.ja.lexicon import case_phrases as spell

    features = {"選手": frozenset({"person"}), "花": frozenset({"concrete"})}
    assert spell({"ニ": "市場", "ヲ": "魚"}, many=True) == "市場に多くの魚を"
    assert spell({"ニ": "市場"}, many=True) == "多くの市場に"
    assert spell({"ヲ": "花"}, those=features) == "それらの花を"
    assert spell({"ヲ": "選手"}, those=features) == "その選手たちを"
    assert spell({"ニ": "市場", "ヲ": "魚"}, those=features) == "市場にそれらの魚を"
    opts = options(lexicons, cases=[["ヲ"], ["ニ"], ["ヲ", "ニ"]], clause=["anaphor"])
    for o in opts:
        fields = o._fields
        assert fields["many_args"].replace("多くの", "", 1) == fields["args"], fields
        assert fields["many_args"].index("多くの") == fields["sono_args"].index("その"), fields
        assert fields["those_args"].startswith(fields["sono_args"].split("その", 1)[0])


def test_flagged_clauses_stay_out_of_the_frames_that_exclude_them(lexicons):
    """Clauses two people cannot do in order (クリスマスを祝う) never fill the ordering
    templates, and acts rarer than a few times a year (パスポートを更新する) are not due."""
    def clauses(opts):
        return {(o._fields["lemma"], o._fields.get("wo") or o._fields.get("ni")) for o in opts}

    order = dict(cases=[[], ["ヲ"], ["ニ"]], aspect=["activity", "achievement"], volitional=True)
    unordered = {("祝う", "クリスマス"), ("寝かせる", "カレー")}
    assert unordered <= clauses(options(lexicons, **order))
    assert not unordered & clauses(options(lexicons, **order, exclude_clause=["unorderable"]))
    due = clauses(options(lexicons, cases=[["ヲ"], ["ニ"]], clause=["due"]))
    assert ("提出する", "宿題") in due
    # one act is due under one verb only: synonyms with the same arguments read as repeats
    for synonyms in (("払う", "支払う", "納める"), ("着く", "到着する"),
                     ("出席する", "参加する", "出る"), ("出す", "提出する"), ("届ける", "配達する")):
        under = {}
        for lemma, noun in due:
            if lemma in synonyms:
                assert noun not in under, (noun, under.get(noun), lemma)
                under[noun] = lemma
    assert sum(noun == "家賃" for lemma, noun in due if lemma in ("払う", "支払う", "納める")) == 1
    assert not {("更新する", "パスポート"), ("出席する", "卒業式"), ("出す", "年賀状")} & due
    with open(REPO / "templates" / "jamp" / "ordering_order_relation.yaml", encoding="utf-8") as f:
        for t in yaml.safe_load(f)["templates"]:
            spec = t["slots"]["V"]
            if "lemmas" not in spec:  # the まで templates draw motion verbs to a place
                assert "unorderable" in spec.get("exclude_clause", []), t["id"]


def test_clause_read_keeps_exactly_the_read_clauses():
    """``clause: [read]`` keeps the clauses with an entry in clause_readings, no other: every
    shipped clause has been read (2026-11-25), so the test takes some entries out."""
    from nligen.lexicon import Lexicon

    shipped = LexiconSet([LEXICONS]).get("ja/curated/clause_readings")
    unread = {("持つ", (("ヲ", "カメラ"),)), ("遊ぶ", ())}
    entries = [e for i, e in enumerate(shipped.entries)
               if (e["lemma"], tuple_key(e["args"])) not in unread and i % 5]
    read = {(e["lemma"], tuple_key(e["args"])) for e in entries}
    lexicons = LexiconSet([LEXICONS])
    lexicons.add(Lexicon(shipped.name, shipped.path, shipped.meta, entries, "test"))

    def key(o):
        f = o._fields
        return f["lemma"], tuple_key({c: f[n] for c, n in (("ヲ", "wo"), ("ニ", "ni"), ("デ", "de"))
                                      if n in f})

    spec = dict(cases=[["ヲ"], ["ニ"], ["デ"]], jamp="cint")
    every = options(lexicons, **spec)
    kept = options(lexicons, **spec, clause=["read"])
    assert kept and len(kept) < len(every)
    assert {o._key for o in kept} == {o._key for o in every if key(o) in read}
    assert ("持つ", (("ヲ", "カメラ"),)) in {key(o) for o in every} - {key(o) for o in kept}


def test_predicate_options_are_built_once_per_spec_and_slot(lexicons):
    spec = dict(cases=[["ヲ"]], jamp="cint")
    first = PredicateKind().options(dict(spec), SlotContext(lexicons, "V", "a.yaml: t.1"))
    again = PredicateKind().options(dict(spec), SlotContext(lexicons, "V", "b.yaml: t.2"))
    assert again is first  # shared by the templates that ask for the same clauses
    other = PredicateKind().options(dict(spec), SlotContext(lexicons, "W", "a.yaml: t.1"))
    assert other is not first and [o._key for o in other] == [o._key for o in first]
    assert all(o._slot_name == "W" for o in other)
    narrower = PredicateKind().options(dict(spec, lemmas=["読む"]), SlotContext(
        lexicons, "V", "a.yaml: t.1"))
    assert {o._fields["lemma"] for o in narrower} == {"読む"}


def test_read_modifiers_come_beside_the_plain_tuple(lexicons):
    accepted = {(e["head"], e["modifier"]) for e in curated("reviewed_modifiers")["entries"]}
    opts = options(lexicons, cases=[["ヲ"], ["ニ"]], modifiers=True)
    plain = {o._key for o in options(lexicons, cases=[["ヲ"], ["ニ"]])}
    modified = [o for o in opts if "no" in o._fields]
    assert modified and plain <= {o._key for o in opts}
    for o in modified:
        fields = o._fields
        heads = [n for _, n, _ in case_phrases(fields)
                 if f"{fields['no']}の{n}" in fields["args"]]
        assert len(heads) == 1 and (heads[0], fields["no"]) in accepted, fields
        assert fields["no"] in o._lemmas  # the modifier counts as a word of the problem
    # a pair is never built with a verb its not_with lists (会議の資料を収集した)
    not_with = {(e["head"], e["modifier"]): set(e["not_with"])
                for e in curated("reviewed_modifiers")["entries"] if "not_with" in e}
    assert ("資料", "会議") in not_with and "収集する" in not_with[("資料", "会議")]
    built = {(n, o._fields["no"], o._fields["lemma"]) for o in modified
             for _, n, _ in case_phrases(o._fields) if f"{o._fields['no']}の{n}" in o._fields["args"]}
    assert not {(h, m, v) for (h, m), verbs in not_with.items() for v in verbs} & built
    assert any((h, m) in not_with for h, m, _ in built)  # the pairs stay with other verbs


def test_clauses_read_without_a_clock_time_are_never_dated_to_the_hour(lexicons):
    readings = {(e["lemma"], tuple_key(e["args"])): e
                for e in curated("clause_readings")["entries"]}
    opts = options(lexicons, cases=[[], ["ヲ"], ["ニ"], ["ヲ", "ニ"], ["デ"]])
    seen = 0
    for o in opts:
        f = o._fields
        e = readings.get((f["lemma"], tuple_key({c: f[n] for c, n in (("ヲ", "wo"), ("ニ", "ni"),
                                                                       ("デ", "de")) if n in f})))
        if e is None:
            continue
        assert f["longest"] == e.get("longest", {}), f
        if "no_hour" in e.get("flags", []):
            seen += 1
            assert "hour" not in f["grains"], f
    assert seen > 1000


@pytest.mark.parametrize("spec, message", [
    ({"cases": [["ヲ"], ["ヲ"]]}, "one per alternative frame"),
    ({"cases": [["ガ"]]}, "one per alternative frame"),
    ({"cases": [["ヲ"], "ニ"]}, "one per alternative frame"),
    ({"cases": [["ヲ"], ["ニ"]], "modifier": "ヲ"}, "in every alternative"),
    ({"cases": ["ヲ"], "modifier": "ヲ", "modifiers": True}, "exclude each other"),
    ({"cases": ["ヲ"], "modifiers": "yes"}, "'modifiers' must be true or false"),
])
def test_bad_alternatives_are_template_errors(spec, message):
    with pytest.raises(TemplateError) as exc:
        PredicateKind.validate(spec, "t.yaml: x: slots.V")
    assert message in str(exc.value)


def test_validate_reports_a_restriction_no_noun_meets(tmp_path):
    (tmp_path / "ja" / "curated").mkdir(parents=True)
    (tmp_path / "ja" / "curated" / "noun_features.yaml").write_text(
        "description: d\nsource: s\nlicense: CC0\nentries:\n"
        "  - {noun: 本, features: [concrete]}\n", encoding="utf-8")
    template = tmp_path / "t.yaml"
    template.write_text(
        "defaults: {language: ja}\ntemplates:\n  - id: t.1\n    slots:\n"
        "      agent_1: {type: agent}\n"
        "      V: {type: predicate, cases: [ニ], nouns: {ニ: place}}\n"
        "    premises: ['{{ agent_1 }}は{{ V.ni }}に{{ V|past }}。']\n"
        "    hypothesis: '{{ agent_1 }}は{{ V|past }}。'\n    label: entailment\n",
        encoding="utf-8")
    report = validate([template], [tmp_path, LEXICONS])
    assert any("nouns.ニ: no noun of ja/curated/noun_features has the feature place" in p
               for p in report.problems), report.problems


def test_noun_features_file_uses_known_features():
    entries = curated("noun_features")["entries"]
    assert len(entries) > 4000
    assert all(isinstance(e["noun"], str) and set(e["features"]) <= set(NOUN_FEATURES)
               for e in entries)
    # one entry per noun: a second one (車 was listed twice) hides what a reader changed
    nouns = [e["noun"] for e in entries]
    assert len(nouns) == len(set(nouns)), sorted({n for n in nouns if nouns.count(n) > 1})


def test_shipped_jamp_templates_validate():
    report = validate([REPO / "templates" / "jamp"])
    assert report.problems == []


@pytest.mark.parametrize("number, unit, interval, amount", [
    (5, "day", "5日間", "5日"), (3, "month", "3ヶ月間", "3ヶ月"), (2, "year", "2年間", "2年"),
    (4, "hour", "4時間", "4時間")])
def test_interval_amounts_render_and_read_back(number, unit, interval, amount):
    value = {"number": number, "unit": unit}
    assert time_text("interval", value) == interval
    assert time_text("amount", value) == amount
    assert parse_interval(interval) == (number, unit)
    assert parse_interval(amount) == (number, unit)


def test_default_jamp_set_keeps_its_breadth_and_spread():
    """The default `gen jamp` set (seed 0) meets issue 13's bounds: at least 2,500 content
    lemmas (2,657; seeds 1-11: 2,660-2,715), the top clause in at most 0.5 % of problems
    and the top verb in at most 2 % (0.40 % and 1.52 %: 11 ordinal works in template 20;
    seeds 1-11: 0.38-0.39 % and 1.41-1.58 %; 1.81-1.97 % before 出向く, 駆けつける, 渡る
    joined 行く in the まで templates 17 and 63); and it keeps most of its verbs (862;
    864-876 at other seeds: the strict
    clause pass of 2026-11-29 made 725 clauses unorderable, taking drawn-out acts such as
    待つ, 眺める, 探す out of the ordering templates, 929-945 before; the undated and posture
    flags of the 2049-2050 readings took postures and routines out of the dating and
    ordering templates, 1,002 before that; the continuity templates' 28 practices lost
    their contradiction cells after the 2056 reading). 88 problems per (template, label)
    cell: 9,592 (the continuity templates' .began siblings and 93.sono took the released
    wordings' cells in 2026-11-29; 9,680 before the 2061 reading gave templates 32, 33,
    35, 37 少なくとも siblings and left 93 its contradiction).
    """
    from nligen.families import jamp
    from nligen.tools.diversity import content_units, diversity

    records = jamp.generate(seed=0).records
    result = diversity([(r["premise"], r["hypothesis"]) for r in records],
                       [content_units(r) for r in records])
    assert len(records) == 9592
    assert result["clause"]["share"] <= 0.005, result["clause"]
    assert result["verb"]["share"] <= 0.02, result["verb"]
    assert result["content_lemmas"] >= 2500, result["content_lemmas"]
    assert result["verb"]["distinct"] >= 850, result["verb"]
    # every interval fits its clause (interval_longest: V.longest) and no clause read as
    # having no clock time is dated to the hour
    readings = {(e["lemma"], tuple_key(e["args"])): e
                for e in curated("clause_readings")["entries"]}
    capped = hourless = 0
    for r in records:
        v = r["slots"]["V"]
        for name, value in r["slots"].items():
            if name.startswith("interval_"):
                assert value["number"] <= v["longest"].get(value["unit"], 9), r["id"]
                capped += value["unit"] in v["longest"]
        key = (v["lemma"], tuple_key({c: v[f] for c, f in (("ヲ", "wo"), ("ニ", "ni"),
                                                            ("デ", "de")) if f in v}))
        if "no_hour" in readings.get(key, {}).get("flags", []):
            hourless += 1
            assert all(t.get("format", "")[-1:] != "H" for t in r["slots"].values()), r["id"]
    assert capped > 200 and hourless > 500, (capped, hourless)

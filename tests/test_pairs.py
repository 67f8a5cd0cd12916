"""Minimal pairs (gen pairs, nligen.pairs): declared contrasts, the pair checks, BLiMP
records, balance, splits, verify, and the German and Japanese paradigms."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nligen.errors import CapacityError, TemplateError, UsageError
from nligen.families import load_family, pairs
from nligen.lang.de.morphology import DETERMINERS, PRONOUNS, determiner
from nligen.lang.ja.conjugation import FORMS, conjugate
from nligen.pairs import blimp_fields
from nligen.templates import load_templates

REPO = Path(__file__).resolve().parents[1]
BLIMP_FIELDS = ("sentence_good", "sentence_bad", "field", "linguistics_term", "UID", "pairID",
                "simple_LM_method", "one_prefix_method", "two_prefix_method",
                "lexically_identical")


def records(language: str, n: int, seed: int = 0, **kw) -> list[dict]:
    return list(pairs.generate(languages=[language], n=n, seed=seed, **kw).records)


@pytest.fixture(scope="module")
def de_records():
    return records("de", 14 * 30, seed=3)


@pytest.fixture(scope="module")
def ja_records():
    return records("ja", 13 * 20, seed=3)


# -- the paradigms ----------------------------------------------------------------------

@pytest.mark.parametrize("language", ["de", "ja"])
def test_each_language_has_8_phenomena_and_12_paradigms(language):
    rows = [r for r in pairs.describe() if r["language"] == language]
    assert len({r["phenomenon"] for r in rows}) >= 8
    assert len(rows) >= 12


@pytest.mark.parametrize("fixture", ["de_records", "ja_records"])
def test_sets_are_balanced_distinct_and_blimp_shaped(fixture, request):
    recs = request.getfixturevalue(fixture)
    per_uid = Counter(r["UID"] for r in recs)
    assert max(per_uid.values()) - min(per_uid.values()) <= 1
    assert all(r["sentence_good"] != r["sentence_bad"] for r in recs)
    keys = [(r["sentence_good"], r["sentence_bad"]) for r in recs]
    assert len(set(keys)) == len(keys)
    for r in recs:
        assert all(f in r for f in BLIMP_FIELDS), r
        assert r["family"] == "pairs" and r["simple_LM_method"] is True
        assert isinstance(r["pairID"], str)
        assert "premise" not in r and "label" not in r
    assert [r["pairID"] for r in recs] == [str(i) for i in range(len(recs))]


def test_default_size_is_100_per_paradigm():
    ds = pairs.generate(languages=["de"], paradigms=["de_verb_final_dass",
                                                     "de_verb_second_adverb"])
    assert len(ds) == 200


# -- the pair checks, re-derived independently ------------------------------------------

def _outside(text, spans):
    pieces, start = [], 0
    for a, b in sorted(spans):
        pieces.append(text[start:a])
        start = b
    return pieces + [text[start:]]


@pytest.mark.parametrize("fixture", ["de_records", "ja_records"])
def test_the_declared_difference_is_the_only_difference(fixture, request):
    for r in request.getfixturevalue(fixture):
        why = r["rationale"]
        good, bad = r["sentence_good"], r["sentence_bad"]
        gs, bs = why["good_spans"], why["bad_spans"]
        assert gs and len(gs) == len(bs)
        if why["contrast"]["kind"] == "vary":
            assert _outside(good, gs) == _outside(bad, bs), r["UID"]
            assert any(good[a:b] != bad[c:d] for (a, b), (c, d) in zip(gs, bs))
        else:  # move: the moved words read the same, the rest keeps its words in order
            assert [good[a:b] for a, b in gs] == [bad[c:d] for c, d in bs]
            assert "".join(_outside(good, gs)).split() == "".join(_outside(bad, bs)).split()
            assert sorted(good.split()) == sorted(bad.split())


def _changed(r):
    """The varied slot's text in the good and the bad sentence, where they differ."""
    why = r["rationale"]
    for (a, b), (x, y) in zip(why["good_spans"], why["bad_spans"]):
        if r["sentence_good"][a:b] != r["sentence_bad"][x:y]:
            return r["sentence_good"][a:b], r["sentence_bad"][x:y]
    raise AssertionError(f"nothing differs in {r['UID']}")


def _de_noun_cells(entry, det, case):
    out = set()
    for number in ("sg", "pl"):
        if det == "indef" and number == "pl":
            continue
        d = determiner(det, entry["gender"], number, case) if det else None
        noun = entry[f"{case}_{number}"]
        out.add(f"{d} {noun}" if d else noun)
    return out


def test_german_good_forms_come_from_paradigms_and_bad_ones_do_not(de_records):
    lex = {e["lemma"]: e for e in yaml.safe_load(
        (REPO / "lexicons/de/nouns_human.json").read_text(encoding="utf-8"))["entries"]}
    for r in de_records:
        c = r["rationale"]["contrast"]
        if c["kind"] != "vary":
            continue
        slot = r["slots"][c["slot"]]
        good, bad = _changed(r)
        low = lambda s: s[:1].lower() + s[1:]  # noqa: E731 - a sentence's first capital
        if c["feature"] == "number":  # the verb: one of its two present forms each
            cells = {slot["pres_3sg"]: "sg", slot["pres_3pl"]: "pl"}
            assert good in cells and bad in cells and cells[good] != cells[bad]
            continue
        if slot["kind"] == "pronoun":
            case = next(k for k, f in slot["forms"].items() if f == low(good))
            allowed = {forms[case] for forms in PRONOUNS.values()}
        else:
            entry = lex[slot["lemma"]]
            case = next(k for k, f in slot["forms"].items() if f == low(good))
            assert low(good) in _de_noun_cells(entry, slot["determiner"], case)
            allowed = _de_noun_cells(entry, slot["determiner"], case)
        assert low(bad) not in allowed, (r["UID"], good, bad)


def test_japanese_good_verbs_analyse_back_and_bad_ones_are_not_forms(ja_records):
    from nligen.lang.ja.conjugation import analyses_back

    seen = Counter()
    for r in ja_records:
        c = r["rationale"]["contrast"]
        good, bad = _changed(r)
        feature = c.get("feature")
        slot = r["slots"][c["slot"]]
        if feature in ("polarity", "onbin"):
            lemma = slot.get("lemma", slot["text"])  # a predicate, or a values slot (ある)
            made = {conjugate(lemma, f) for f in FORMS}
            assert good in made
            form = next(f for f in FORMS if conjugate(lemma, f) == good)
            assert analyses_back(lemma, form)
            if feature == "onbin":
                assert bad not in made
            else:
                assert bad in {conjugate(lemma, "past"), conjugate(lemma, "plain")}
        elif feature == "intransitive":
            assert good == conjugate(slot["lemma"], "past")
            assert bad == conjugate(slot["intransitive"], "past")
        elif feature == "particle":
            assert good.endswith("に") and bad.endswith("を") and good[:-1] == bad[:-1]
            if r["UID"] == "ja_double_o_causative":  # the causative reads as the verb's own
                v = r["slots"]["V"]
                assert analyses_back(v["lemma"], "causative_past", {"ヲ": v["wo"]})
        elif feature == "classifier":
            assert good == slot["counter"] and bad in slot["wrong"]
        elif feature == "tense":
            assert slot["tense"] == "past" and bad == slot["opposite"]
        seen[feature] += 1
    assert set(seen) >= {"polarity", "onbin", "intransitive", "particle", "classifier",
                         "tense", "adjective_class"}


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), language=st.sampled_from(["de", "ja"]))
def test_every_pair_passes_its_checks_again(seed, language):
    """Property: whatever the seed, every written pair passes the pair checks when its
    slots are restored from the record (what gen verify runs)."""
    from nligen.api import lexicon_set_for
    from nligen.tools.verify import RecordChecker

    template_set = load_family("pairs")
    checker = RecordChecker(template_set, lexicon_set_for(None, template_set))
    for r in records(language, 40, seed=seed):
        assert checker.check(r) is None, r


def test_checker_refuses_a_pair_whose_bad_sentence_was_changed(de_records):
    from nligen.api import lexicon_set_for
    from nligen.tools.verify import RecordChecker

    template_set = load_family("pairs")
    checker = RecordChecker(template_set, lexicon_set_for(None, template_set))
    r = dict(de_records[0])
    r["sentence_bad"] = r["sentence_good"]
    assert "sentence_bad does not render" in checker.check(r)


# -- BLiMP fields ------------------------------------------------------------------------

def test_blimp_prefix_methods():
    f = blimp_fields("Der Mann sieht den Hund .", "Der Mann sehen den Hund .", str.split, True)
    assert f["one_prefix_method"] and f["one_prefix_prefix"] == "Der Mann"
    assert (f["one_prefix_word_good"], f["one_prefix_word_bad"]) == ("sieht", "sehen")
    assert f["two_prefix_method"] and f["two_prefix_word"] == "den"
    assert not f["lexically_identical"]
    moved = blimp_fields("Heute sieht er ihn .", "Heute er sieht ihn .", str.split, True)
    assert not moved["one_prefix_method"] and moved["lexically_identical"]
    assert moved["two_prefix_prefix_good"] == "Heute sieht er"
    ja = blimp_fields("犬を買った。", "犬を買いた。", list, False)
    assert ja == {"simple_LM_method": True, "one_prefix_method": False,
                  "two_prefix_method": False, "lexically_identical": False}


# -- the command line, verify, splits, determinism ----------------------------------------

def gen(*args, env=None, check=True):
    return subprocess.run([sys.executable, "-m", "nligen.cli", *args], capture_output=True,
                          text=True, check=check, env=env, cwd=REPO)


def test_gen_pairs_folder_verifies_and_is_the_same_under_any_hash_seed(tmp_path):
    out = tmp_path / "de"
    gen("pairs", "--language", "de", "--n", "140", "--seed", "4", "-q", "-o", f"{out}/")
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["records"] == "minimal_pairs" and manifest["languages"] == ["de"]
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "acceptability-classification" in card and "| UID | pairs |" in card
    v = gen("verify", str(out), check=False)
    assert v.returncode == 0, v.stdout + v.stderr
    data = (out / "all.jsonl").read_bytes()
    for hash_seed in ("1", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        again = gen("pairs", "--language", "de", "--n", "140", "--seed", "4", env=env).stdout
        assert again.encode("utf-8") == data


def test_lexical_split_keeps_test_words_out_of_train(tmp_path):
    out = tmp_path / "lex"
    gen("pairs", "--language", "de", "--paradigm", "de_subject_verb_agreement_simple",
        "--paradigm", "de_case_government_dative_verb", "--n", "200", "--split", "lexical",
        "-q", "-o", f"{out}/")
    train = [json.loads(x) for x in (out / "train.jsonl").read_text("utf-8").splitlines()]
    test = [json.loads(x) for x in (out / "test.jsonl").read_text("utf-8").splitlines()]
    assert train and test and all("seen" in r for r in test)
    lemmas = lambda r: {s.get("lemma") for s in r["slots"].values()}  # noqa: E731
    train_lemmas = set().union(*map(lemmas, train))
    unseen = [r for r in test if not r["seen"]]
    assert unseen and all(not (lemmas(r) & train_lemmas) for r in unseen)
    assert gen("verify", str(out), check=False).returncode == 0


def test_list_and_bad_selections():
    listing = gen("list", "pairs").stdout
    assert "de_dative_plural_n" in listing and "ja_npi_shika" in listing
    bad = gen("pairs", "--phenomenon", "nonsense", check=False)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "unknown phenomenon 'nonsense'" in bad.stderr
    fmt = gen("run", "templates/pairs", "--n", "10", "--format", "tsv", check=False)
    assert fmt.returncode == 2 and "known: jsonl" in fmt.stderr


# -- authoring errors ---------------------------------------------------------------------

GOOD = """
language: de
id: my_pair
phenomenon: subject_verb_agreement
field: morphology
slots:
  S: {type: np, np_type: sing, nouns: de/nouns_human, determiners: [def]}
  V: {type: verb, lexicon: de/verbs_transitive}
  O: {type: np, np_type: sing, nouns: de/nouns_human, determiners: [def]}
good: "{{ S|nom|cap }} {{ V|agree(S) }} {{ O|acc }} ."
contrast: {vary: V, feature: number}
"""


def _load(tmp_path, text):
    path = tmp_path / "t.yaml"
    path.write_text(text, encoding="utf-8")
    return load_templates([path])


@pytest.mark.parametrize("edit, message", [
    (("contrast: {vary: V, feature: number}", "contrast: {vary: V, feature: colour}"),
     "contrast.feature must be one of"),
    (("contrast: {vary: V, feature: number}", "contrast: {vary: X, feature: number}"),
     "contrast.vary must name a slot"),
    (("contrast: {vary: V, feature: number}", "contrast: {move: V}"),
     "a move contrast needs the bad sentence"),
    (("contrast: {vary: V, feature: number}", "contrast: {vary: V, move: V}"),
     "one of 'vary' or 'move'"),
    (("field: morphology", "field: phonology"), "'field' must be one of"),
    (("good:", "premise: x\ngood:"), "takes no 'premise'"),
    (('good: "{{ S|nom|cap }} {{ V|agree(S) }} {{ O|acc }} ."',
      'good: "{{ S|nom|cap }} {{ O|acc }} ."\ncontrast: {vary: V, feature: number}'), None),
])
def test_pair_template_errors_name_the_field(tmp_path, edit, message):
    text = GOOD.replace(*edit)
    if message is None:  # the varied slot is never written: said at load time
        text = text.replace("contrast: {vary: V, feature: number}\n", "", 1)
        message = "writes no expression that starts with V"
    with pytest.raises(TemplateError) as err:
        _load(tmp_path, text)
    assert message in str(err.value)
    assert "my_pair" in (err.value.where or "")


def test_a_paradigm_whose_pairs_always_fail_stops_with_its_name(tmp_path):
    from nligen.api import generate

    text = GOOD.replace("feature: number", "feature: dative_n")  # singular NPs: no -n
    text = text.replace("vary: V", "vary: O")
    ts = _load(tmp_path, text)
    with pytest.raises(CapacityError) as err:
        generate(ts, n=5).records
    assert "my_pair" in err.value.where
    assert "good and bad are the same sentence" in str(err.value)


def test_mixing_pairs_and_nli_templates_is_refused(tmp_path):
    from nligen.api import generate

    nli = GOOD.split("good:")[0].replace("id: my_pair", "id: my_nli").replace(
        "phenomenon: subject_verb_agreement\nfield: morphology\n", "") + (
        'premise: "{{ S|nom|cap }} {{ V|agree(S) }} {{ O|acc }} ."\n'
        'hypothesis: "{{ O|nom|cap }} {{ V|agree(O) }} {{ S|acc }} ."\nlabel: non-entailment\n')
    (tmp_path / "a.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "b.yaml").write_text(nli, encoding="utf-8")
    with pytest.raises(UsageError) as err:
        generate(str(tmp_path), n=4)
    assert "mix minimal pairs" in str(err.value)


def test_ja_lexicon_evidence_is_what_caseframes_say():
    frames = {e["lemma"]: e for e in json.loads(
        (REPO / "lexicons/ja/caseframes.json").read_text(encoding="utf-8"))["entries"]}

    def count(lemma, case):
        return sum(n for cases, n in frames[lemma]["frames"] if case in cases)

    ni = yaml.safe_load((REPO / "lexicons/ja/curated/pairs_ni_verbs.yaml").read_text("utf-8"))
    for e in ni["entries"]:
        assert count(e["lemma"], "ヲ") == e["evidence_wo"] == 0
        assert count(e["lemma"], "ニ") == e["evidence_ni"] > 0
        assert frames[e["lemma"]]["count"] == e["evidence_frames"]
    tr = yaml.safe_load((REPO / "lexicons/ja/curated/pairs_transitivity.yaml").read_text("utf-8"))
    for e in tr["entries"]:
        partner = e["intransitive"]
        if partner in frames:
            assert count(partner, "ヲ") == e["evidence_wo"]
            # none, or a few parse errors (止まる 5 of 452 frames)
            assert e["evidence_wo"] <= max(1, 0.05 * frames[partner]["count"])


CLAUSE_LEXICONS = ("shika", "daremo", "ichidomo", "causative", "progressive")


@pytest.mark.parametrize("name", CLAUSE_LEXICONS)
def test_ja_clause_lexicon_evidence_is_what_caseframes_say(name):
    """The curated clauses of the pair frames: one argument each, verbs of
    caseframes.json with a frame of that case, evidence as that file counts it."""
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        from pair_clause_evidence import evidence, load_frames
    finally:
        sys.path.pop(0)
    frames = load_frames()
    data = yaml.safe_load((REPO / f"lexicons/ja/curated/pairs_{name}.yaml").read_text("utf-8"))
    keys = [(e["lemma"], e.get("wo"), e.get("ni")) for e in data["entries"]]
    assert len(keys) == len(set(keys)), "a clause is listed twice"
    for e in data["entries"]:
        found = evidence(frames, e)  # raises on a verb without the case
        assert {k: e.get(k) for k in found} == found, e
        slot = frames[e["lemma"]]["slots"].get("ヲ" if e.get("wo") else "ニ", {})
        assert (found["observed"] > 0) == any(w == (e.get("wo") or e.get("ni"))
                                              for w, _, _ in slot.get("nouns", []))


def test_ja_causative_and_progressive_clauses_read_back_as_their_verbs():
    from nligen.lang.ja.conjugation import analyse_lemma, analyses_back

    causative = yaml.safe_load(
        (REPO / "lexicons/ja/curated/pairs_causative.yaml").read_text("utf-8"))
    for e in causative["entries"]:
        assert analyses_back(e["lemma"], "causative_past", {"ヲ": e["wo"]}), e
    progressive = yaml.safe_load(
        (REPO / "lexicons/ja/curated/pairs_progressive.yaml").read_text("utf-8"))
    for e in progressive["entries"]:
        assert analyse_lemma(e["lemma"]).ctype.startswith("五段-"), e  # euphonic te-forms
        assert e["lemma"] not in ("行く", "逝く"), e  # 行って: no euphonic contrast


def test_ja_phrase_without_a_case_takes_the_one_argument_and_refuses_two():
    from nligen.errors import RenderError
    from nligen.lang.ja.contrasts import phrase
    from nligen.slots import SlotValue

    assert phrase(SlotValue("V", "出る", {"lemma": "出る", "ni": "電話"})) == "電話に"
    assert phrase(SlotValue("V", "洗う", {"lemma": "洗う", "wo": "皿"})) == "皿を"
    with pytest.raises(RenderError, match="exactly one"):
        phrase(SlotValue("V", "渡す", {"lemma": "渡す", "wo": "本", "ni": "友人"}))


def test_readme_custom_paradigm_example_runs(tmp_path):
    """The README's custom paradigm, as a user copies it."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    start = readme.index("<!-- pair-example -->")
    block = readme[start:].split("```yaml\n", 1)[1].split("```", 1)[0]
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "agreement.yaml").write_text(block, encoding="utf-8")
    out = gen("run", str(folder), "--n", "20", "--balance", "template").stdout
    recs = [json.loads(x) for x in out.splitlines()]
    assert len(recs) == 20 and all(r["sentence_good"] != r["sentence_bad"] for r in recs)
    assert {r["UID"] for r in recs} == {"my_verb_agreement", "my_case_after_mit"}
    assert DETERMINERS  # the layer the example relies on is loaded


# -- gen eval --scores --------------------------------------------------------------------

def test_eval_scores_gives_exactly_the_accuracy_of_a_known_score_file(tmp_path, de_records):
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in de_records[:40]),
                    encoding="utf-8")
    lines, right = [], 0
    for i, r in enumerate(de_records[:40]):
        if i % 3 == 0:  # per pair; a tie (i % 9 == 0) is wrong
            good, bad = -4.0, (-4.0 if i % 9 == 0 else -6.5)
            lines.append({"pairID": r["pairID"], "good": good, "bad": bad})
        else:  # per sentence
            good, bad = -10.0, (-12.0 if i % 2 else -9.5)
            lines += [{"sentence": r["sentence_good"], "logprob": good},
                      {"sentence": r["sentence_bad"], "logprob": bad}]
        right += good > bad
    scores = tmp_path / "scores.jsonl"
    scores.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines),
                      encoding="utf-8")
    out = gen("eval", "--gold", str(gold), "--scores", str(scores), "--json")
    result = json.loads(out.stdout)
    assert (result["correct"], result["n"]) == (right, 40)
    assert result["accuracy"] == right / 40
    per_uid = result["groups"]["paradigm"]
    assert sum(s["n"] for s in per_uid.values()) == 40
    assert sum(s["correct"] for s in per_uid.values()) == right
    text = gen("eval", "--gold", str(gold), "--scores", str(scores)).stdout
    assert f"| all | {100 * right / 40:.2f} | {right} | 40 |" in text


def test_eval_scores_bad_input_is_one_line(tmp_path, de_records):
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps(de_records[0], ensure_ascii=False) + "\n", encoding="utf-8")
    cases = {
        '{"sentence": "x", "logprob": "high"}\n': "'logprob' must be a finite number",
        '{"pairID": "999", "good": 1, "bad": 2}\n': "not in the gold pairs",
        '{"foo": 1}\n': "a score line needs",
        "": "no score for pair 0",
        "[1]\n": "not a JSON object",
    }
    for content, message in cases.items():
        scores = tmp_path / "s.jsonl"
        scores.write_text(content, encoding="utf-8")
        r = gen("eval", "--gold", str(gold), "--scores", str(scores), check=False)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, (content, r.stderr)
        assert message in r.stderr, (content, r.stderr)
    both = gen("eval", "--gold", str(gold), "--scores", "x", "--pred", "y", check=False)
    assert both.returncode == 2 and "not allowed with" in both.stderr


# -- lm-evaluation-harness ----------------------------------------------------------------

PAIR_FIXTURE = REPO / "tests" / "data" / "lm_eval_pairs"


def test_eval_scores_reads_the_harness_samples_and_agrees_with_its_accuracy():
    """tests/data/lm_eval_pairs: a real lm-eval 0.4.13 run of an exported pair set
    (make_fixture.sh); gen eval must give the harness's own acc, overall and per task."""
    harness = json.loads((PAIR_FIXTURE / "results.json").read_text(encoding="utf-8"))
    out = gen("eval", "--gold", str(PAIR_FIXTURE / "gold.jsonl"), "--scores",
              str(PAIR_FIXTURE / "samples.jsonl"), "--json")
    result = json.loads(out.stdout)
    assert result["n"] == 56
    assert result["accuracy"] == pytest.approx(harness["nligen_pairs_fixture"]["acc,none"])
    for uid, stats in result["groups"]["paradigm"].items():
        task = harness[f"nligen_pairs_fixture_{uid}"]
        assert stats["accuracy"] == pytest.approx(task["acc,none"]), uid


def test_export_lm_eval_writes_blimp_style_tasks(tmp_path):
    src = tmp_path / "set"
    gen("pairs", "--language", "ja", "--n", "26", "--seed", "1", "-q", "-o", f"{src}/")
    gen("export", "lm-eval", str(src), "-o", f"{tmp_path / 'task'}/", "--name", "my_pairs", "-q")
    files = sorted(p.name for p in (tmp_path / "task").iterdir())
    assert "my_pairs.yaml" in files and "README.md" in files
    tasks = [f for f in files if f.endswith(".yaml") and f != "my_pairs.yaml"]
    assert len(tasks) == 13
    config = yaml.safe_load((tmp_path / "task" / tasks[0]).read_text(encoding="utf-8"))
    # the keys of lm-eval's own BLiMP tasks (lm_eval/tasks/blimp/_template_yaml)
    assert config["output_type"] == "multiple_choice" and config["doc_to_text"] == ""
    assert config["doc_to_choice"] == "{{[sentence_good, sentence_bad]}}"
    assert config["doc_to_target"] == 0
    doc = json.loads((tmp_path / "task" / tasks[0].replace(".yaml", ".test.jsonl"))
                     .read_text(encoding="utf-8").splitlines()[0])
    assert {"id", "pairID", "sentence_good", "sentence_bad", "UID"} <= set(doc)
    assert "slots" not in doc
    refused = gen("export", "llm-jp-eval", str(src), "-o", str(tmp_path / "x.json"),
                  check=False)
    assert refused.returncode == 2 and "no llm-jp-eval format" in refused.stderr


def test_every_curated_adjective_reads_back_and_has_its_contrast():
    from nligen.lang.ja.contrasts import adjective_past, check_adjective, other_adjective_class
    from nligen.slots import SlotValue

    data = yaml.safe_load((REPO / "lexicons/ja/curated/pairs_adjectives.yaml").read_text("utf-8"))
    for e in data["entries"]:
        value = SlotValue("J", e["text"], e)
        good = adjective_past(value)
        bad = adjective_past(other_adjective_class(value))
        assert check_adjective(value, good, bad) is None, e

"""The Japanese argument-phrase chunker (issue 6): hand-checked analyses, reproduction of
the JSICK stress sample through the shipped transformations (templates/stress), and
invariants over the sample's sentences."""

from __future__ import annotations

import csv
import functools
from collections import defaultdict

import fugashi
import pytest
from conftest import JSICK_STRESS_HIGH_READINGS, JSICK_STRESS_MISSES, REFERENCE
from hypothesis import given, settings
from hypothesis import strategies as st

from nligen.lang.ja.chunker import Argument, Chunker, ClauseAnalysis

SAMPLE = REFERENCE / "jsick-stress" / "jsick_stress_sample.tsv"


def read_sample() -> list[dict]:
    with SAMPLE.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


ROWS = read_sample() if SAMPLE.is_file() else []
ORIGINALS = sorted({row["sentence_A_original"] for row in ROWS})
SENTENCES = sorted(set(ORIGINALS) | {row["sentence_B"] for row in ROWS})


@pytest.fixture(scope="module")
def chunker() -> Chunker:
    return Chunker()


def spans(analysis: ClauseAnalysis) -> list[tuple[str, str, str]]:
    """(phrase, particle, predicate lemma) of every argument, for readable assertions."""
    text = analysis.text
    return [(text[a.start:a.end], a.particle, analysis.predicates[a.predicate].lemma)
            for a in analysis.arguments]


def argument(analysis: ClauseAnalysis, phrase: str) -> Argument:
    found = [a for a in analysis.arguments if analysis.text[a.start:a.end] == phrase]
    assert len(found) == 1, (phrase, spans(analysis))
    return found[0]


# -- hand-checked analyses -----------------------------------------------------------------


def test_relative_clause_belongs_to_the_subject_phrase(chunker):
    text = "コスチュームを着た女性がステージで踊っている"
    analysis = chunker.analyse(text)
    subject = argument(analysis, "コスチュームを着た女性が")
    stage = argument(analysis, "ステージで")
    assert (subject.start, subject.end, subject.particle_start, subject.head) == (0, 12, 11, "女性")
    assert (stage.start, stage.end, stage.particle, stage.head) == (12, 17, "で", "ステージ")
    assert subject.predicate == stage.predicate == analysis.main_predicate.id
    assert analysis.main_predicate.lemma == "踊る"
    assert analysis.main_predicate.relative is False
    assert analysis.co_arguments(subject, stage)
    # コスチュームを is the object of the relative clause 着た, not of 踊る.
    costume = argument(analysis, "コスチュームを")
    predicate = analysis.predicates[costume.predicate]
    assert (predicate.lemma, predicate.relative) == ("着る", True)
    assert not analysis.co_arguments(subject, costume)


def test_topic_subject_with_object(chunker):
    analysis = chunker.analyse("男の子はボールを蹴っている")
    assert spans(analysis) == [("男の子は", "は", "蹴る"), ("ボールを", "を", "蹴る")]
    topic, ball = analysis.arguments
    assert analysis.co_arguments(topic, ball)


def test_ni_argument(chunker):
    analysis = chunker.analyse("女性が馬に乗っている")
    assert spans(analysis) == [("女性が", "が", "乗る"), ("馬に", "に", "乗る")]
    horse = analysis.arguments[1]
    assert (horse.particle_start, horse.particle_end, horse.head) == (4, 5, "馬")


@pytest.mark.parametrize("text, postposition", [
    ("男性が道路に沿って走っている", "道路に"),
    ("男性が退役軍人により表彰されている", "退役軍人に"),
    ("女性が本について話している", "本に"),
])
def test_compound_postposition_is_not_an_argument(chunker, text, postposition):
    analysis = chunker.analyse(text)
    phrases = [phrase for phrase, _, _ in spans(analysis)]
    assert postposition not in phrases
    assert phrases[0] == text[:3]                      # the subject is still found


def test_argument_of_a_relative_clause_is_not_a_main_clause_argument(chunker):
    # 水の中で belongs to 動いている (which modifies 何か) in the low reading; the high one
    # (the reference data's, scrum_ga_de 7815) makes it an argument of 見ている.
    analysis = chunker.analyse("二匹の犬が水の中で動いている何かを見ている")
    dogs = argument(analysis, "二匹の犬が")
    water = argument(analysis, "水の中で")
    thing = argument(analysis, "水の中で動いている何かを")
    assert analysis.predicates[water.predicate].relative
    assert not analysis.co_arguments(dogs, water)
    assert analysis.co_arguments(dogs, thing)
    assert analysis.predicates[dogs.predicate].lemma == "見る"
    assert water.alternative_predicate is None

    high = Chunker(attachment="high").analyse("二匹の犬が水の中で動いている何かを見ている")
    water = argument(high, "水の中で")
    assert high.co_arguments(argument(high, "二匹の犬が"), water)
    assert high.predicates[water.alternative_predicate].lemma == "動く"
    assert argument(high, "動いている何かを").start == water.end


def test_high_reading_needs_a_subject_before_the_phrase():
    # Before the subject, a phrase and its relative clause are part of the subject phrase.
    high = Chunker(attachment="high").analyse("コスチュームを着た女性が歩いている")
    assert argument(high, "コスチュームを").alternative_predicate is None
    assert argument(high, "コスチュームを着た女性が").particle == "が"
    with pytest.raises(ValueError):
        Chunker(attachment="middle")


def test_te_clause_controlled_by_the_subject(chunker):
    analysis = chunker.analyse("女性がバイクに乗って道路を走っている")
    assert spans(analysis) == [("女性が", "が", "乗る"), ("バイクに", "に", "乗る"),
                               ("道路を", "を", "走る")]
    woman, bike, road = analysis.arguments
    assert analysis.clause_parent == {bike.predicate: road.predicate}
    assert analysis.main_predicate.lemma == "走る"
    assert analysis.co_arguments(woman, bike) and analysis.co_arguments(woman, road)


@pytest.mark.parametrize("text, subject, other", [
    # te clause, then a relative clause: 乗って stays in the main clause (ex_ga_ni 523)
    ("ピンク色のボアを着ている女性が自転車に乗って歩行者用に造られた橋を下りている",
     "ピンク色のボアを着ている女性が", "自転車に"),
    # a compound postposition is no clause: 道路に沿って stays in the relative clause
    # (ex_ga_ni 9664)
    ("シャツを着ていない男性が道路に沿って馬車を引いている馬に付き添っている",
     "シャツを着ていない男性が", "道路に沿って馬車を引いている馬に"),
])
def test_te_clause_before_a_relative_clause(chunker, text, subject, other):
    analysis = chunker.analyse(text)
    assert analysis.co_arguments(argument(analysis, subject), argument(analysis, other))


@pytest.mark.parametrize("text, subject, phrase", [
    # a predicative noun + の modifies like a relative clause and takes the で-phrase
    ("犬が枯れ葉でいっぱいの野原で跳びついている", "犬が", "枯れ葉でいっぱいの野原で"),
    # V-ずに is an adverbial clause ('without looking'), not a ni-argument
    ("ある人が向こう見ずに馬に乗っている", "ある人が", "馬に"),
    # copula で before 、 ends a predicate; it is no de-argument
    ("あるドレスは黒、赤、白、そしてピンク色で、女性に着られている", "あるドレスは", "女性に"),
])
def test_phrases_that_are_not_arguments(chunker, text, subject, phrase):
    analysis = chunker.analyse(text)
    own = argument(analysis, subject)
    co_arguments = [text[a.start:a.end] for a in analysis.arguments
                    if a.start >= own.end and analysis.co_arguments(own, a)]
    assert co_arguments == [phrase]


def test_te_clause_inside_the_subject_phrase(chunker):
    # 毛が長くて has its own subject and a subject follows: it modifies 犬 (scrum_ga_de 6473)
    analysis = chunker.analyse("毛が長くて赤いベストを着た犬が草地で走っている")
    dog = argument(analysis, "毛が長くて赤いベストを着た犬が")
    assert analysis.co_arguments(dog, argument(analysis, "草地で"))


def test_te_clause_with_a_subject_of_its_own_does_not_link(chunker):
    analysis = chunker.analyse("犬が走っていて、男性がボールを投げている")
    dog = argument(analysis, "犬が")
    ball = argument(analysis, "ボールを")
    assert analysis.clause_parent == {dog.predicate: ball.predicate}
    assert not analysis.co_arguments(dog, ball)
    assert analysis.co_arguments(argument(analysis, "男性が"), ball)


def test_copula_de_counts_as_the_particle_de(chunker):
    analysis = chunker.analyse("男性がうわの空でギターを弾いている")
    assert spans(analysis) == [("男性が", "が", "弾く"), ("うわの空で", "で", "弾く"),
                               ("ギターを", "を", "弾く")]


def test_purpose_clause_with_tame_ni_is_adverbial(chunker):
    analysis = chunker.analyse("男性が野菜をミキサーに入れるために切っている")
    man = argument(analysis, "男性が")
    mixer = argument(analysis, "ミキサーに")
    insert = analysis.predicates[mixer.predicate]
    assert (insert.lemma, insert.relative) == ("入れる", False)
    assert analysis.clause_parent[insert.id] == analysis.main_predicate.id
    assert analysis.co_arguments(man, mixer)
    assert "ために" not in [phrase for phrase, _, _ in spans(analysis)]


def test_subject_is_raised_out_of_a_relative_clause(chunker):
    # The rules first hang 女の子が on the relative clause 込み合った; no other subject.
    analysis = chunker.analyse("女の子が込み合った列車に乗っている")
    girl = argument(analysis, "女の子が")
    train = argument(analysis, "込み合った列車に")
    assert girl.predicate == train.predicate == analysis.main_predicate.id


def test_adjective_with_its_own_subject_is_a_relative_clause(chunker):
    analysis = chunker.analyse("黒い犬は丈が高い草の中を歩いていない")
    dog = argument(analysis, "黒い犬は")
    grass = argument(analysis, "丈が高い草の中を")
    height = argument(analysis, "丈が")
    assert analysis.predicates[height.predicate].relative
    assert analysis.co_arguments(dog, grass) and not analysis.co_arguments(dog, height)


@pytest.mark.parametrize("text, phrases", [
    ("淡褐色の犬が草地で走っている", ["淡褐色の犬が", "草地で"]),     # adjective stem 淡
    ("誰かが卵を割っている", ["誰かが", "卵を"]),                       # 誰|か|が: not double
    ("誰もボールを蹴っていない", ["誰も", "ボールを"]),
])
def test_phrases(chunker, text, phrases):
    assert [phrase for phrase, _, _ in spans(chunker.analyse(text))] == phrases


def test_double_particles_are_not_arguments(chunker):
    analysis = chunker.analyse("男性が公園では走っている")
    assert [p for _, p, _ in spans(analysis)] == ["が"]


# -- odd input -----------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "", " ", "\n\t", "、。", "！？", "Hello world, this is 3.14!", "1234", "😀", "ａｂｃ",
    "が", "をにで", "\x00男性が走る", "\ud800", "「」",
])
def test_odd_input_gives_an_analysis_without_arguments(chunker, text):
    analysis = chunker.analyse(text)
    assert analysis.text == text
    assert analysis.arguments == []


def test_very_long_text(chunker):
    text = "、".join(ORIGINALS) * 3
    analysis = chunker.analyse(text)
    assert len(analysis.arguments) > 1000
    assert_invariants(analysis)
    assert chunker.analyse("あ" * 20000).arguments == []


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=40))
def test_arbitrary_text_does_not_crash(text):
    assert_invariants(_SHARED.analyse(text))


# -- reproduction of the JSICK stress sample ------------------------------------------------

# Rows the low reading is not meant to give (see conftest).
NOT_LOW = JSICK_STRESS_HIGH_READINGS.keys() | JSICK_STRESS_MISSES.keys()
STRESS_NAMES = {"scrum": "scramble", "ex": "swap", "del": "delete"}
STRESS_TARGETS = ("ga_o", "ga_ni", "ga_de")


@functools.lru_cache(maxsize=1)
def shipped_transformations() -> dict:
    from nligen.data import templates_dir
    from nligen.stress import load_transformations

    return load_transformations([templates_dir("stress")])


def stress_transform(analysis: ClauseAnalysis, kind: str, group: str) -> str | None:
    """The shipped transformation (templates/stress) of an analysed sample sentence."""
    from nligen.stress import apply

    result = apply(shipped_transformations()[STRESS_NAMES[kind]], group.replace("_", "-"),
                   analysis)
    return result.text if result is not None else None


@pytest.fixture(scope="module")
def reproduction(reference, chunker) -> dict[str, list[tuple[str, bool]]]:
    """transform cell -> [(pair_ID, reproduced?)] over the rows of the low reading."""
    analyses = {text: chunker.analyse(text) for text in ORIGINALS}
    cells = defaultdict(list)
    for row in ROWS:
        cell = row["transform"]
        if (cell, row["pair_ID"]) in NOT_LOW:
            continue
        kind, group = cell.split("_", 1)
        got = stress_transform(analyses[row["sentence_A_original"]], kind, group)
        cells[cell].append((row["pair_ID"], got == row["sentence_A_transformed"]))
    return cells


CELLS = [f"{kind}_{group}" for kind in ("scrum", "ex", "del") for group in STRESS_TARGETS]


def test_sample_has_nine_cells_of_forty():
    assert ROWS, f"missing {SAMPLE}"
    counts = defaultdict(int)
    for row in ROWS:
        counts[row["transform"]] += 1
    assert counts == {cell: 40 for cell in CELLS}


def test_low_reading_reproduces_every_row_it_is_meant_to(reproduction):
    # 348 rows; the research prototype got 346 of its 348, the first version of this
    # chunker 347 (ex_ga_ni 523 and del_ga_ni 9664 were te-clause attachments).
    missed = [(cell, pair_id) for cell in CELLS for pair_id, ok in reproduction[cell] if not ok]
    assert sum(len(reproduction[cell]) for cell in CELLS) == 360 - len(NOT_LOW)
    assert missed == []


@pytest.mark.parametrize("key", sorted(JSICK_STRESS_HIGH_READINGS))
def test_high_reading_gives_the_rows_the_low_one_does_not(key):
    (row,) = [r for r in ROWS if (r["transform"], r["pair_ID"]) == key]
    kind, group = key[0].split("_", 1)
    low = Chunker(attachment="low").analyse(row["sentence_A_original"])
    high = Chunker(attachment="high").analyse(row["sentence_A_original"])
    assert stress_transform(low, kind, group) is None
    assert stress_transform(high, kind, group) == row["sentence_A_transformed"]
    assert any(a.alternative_predicate is not None for a in high.arguments)
    assert not any(a.alternative_predicate is not None for a in low.arguments)


# -- invariants ----------------------------------------------------------------------------

_SHARED = Chunker()


def assert_invariants(analysis: ClauseAnalysis) -> None:
    text = analysis.text
    particles = [a.particle_start for a in analysis.arguments]
    assert particles == sorted(particles)
    for a in analysis.arguments:
        assert 0 <= a.start < a.particle_start < a.particle_end == a.end <= len(text)
        assert text[a.particle_start:a.particle_end] == a.particle
        assert a.head and a.head in text[a.start:a.particle_start]
        predicate = analysis.predicates[a.predicate]
        assert predicate.start >= a.end                # heads lie to the right
        assert analysis.co_arguments(a, a)
    # Phrases are disjoint or nested. Nesting is by design: a phrase contains the arguments
    # of its own relative clauses (コスチュームを inside コスチュームを着た女性が), and then
    # the inner phrase ends before the outer one's particle.
    for a in analysis.arguments:
        for b in analysis.arguments:
            if a is b or a.end <= b.start or b.end <= a.start:
                continue
            outer, inner = (a, b) if a.start <= b.start and b.end <= a.end else (b, a)
            assert outer.start <= inner.start and inner.end <= outer.particle_start, (a, b)
    for child, parent in analysis.clause_parent.items():
        assert child < parent and child in analysis.predicates and parent in analysis.predicates
        assert not analysis.predicates[child].relative
    for key, predicate in analysis.predicates.items():
        assert key == predicate.id and 0 <= predicate.start < predicate.end <= len(text)
        assert predicate.lemma


sample_sentence = st.sampled_from(SENTENCES or [""])
# Cut and joined sentences: new contexts for the same words.
sample_text = st.one_of(
    sample_sentence,
    st.tuples(sample_sentence, st.integers(0, 60)).map(lambda t: t[0][:t[1]]),
    st.tuples(sample_sentence, st.integers(0, 60)).map(lambda t: t[0][t[1]:]),
    st.tuples(sample_sentence, sample_sentence, st.sampled_from(["、", "", "。"])).map(
        lambda t: t[0] + t[2] + t[1]),
)


@settings(max_examples=300, deadline=None)
@given(sample_text)
def test_invariants_on_sample_text(text):
    assert_invariants(_SHARED.analyse(text))


# A second chunker on a tagger of its own (the default one shares the Japanese layer's).
_OTHER = Chunker(fugashi.Tagger())


@settings(max_examples=100, deadline=None)
@given(sample_text)
def test_analysis_is_deterministic(text):
    first = _SHARED.analyse(text)
    assert first == _OTHER.analyse(text) == _SHARED.analyse(text)


def test_every_sample_original_has_a_main_predicate(chunker):
    missing = [text for text in ORIGINALS if chunker.analyse(text).main_predicate is None]
    assert not missing
    assert len(ORIGINALS) == 328

"""Case-frame extraction from KNP (issue 3, work in progress): reading, resolution of
arguments, サ変 predicates, exophora, and malformed input reported and skipped."""

from __future__ import annotations

from nligen.lang.ja.caseframes import extract

GOOD = """# S-ID:d1-1
* 1D
+ 1D
アリス ありす アリス 名詞 6 人名 5 * 0 * 0 NIL
が が が 助詞 9 格助詞 1 * 0 * 0 NIL
* 2D
+ 2D
駅 えき 駅 名詞 6 普通名詞 1 * 0 * 0 NIL
に に に 助詞 9 格助詞 1 * 0 * 0 NIL
* -1D
+ -1D <rel type="ガ" target="アリス" sid="d1-1" id="0"/><rel type="ニ" target="駅" sid="d1-1" id="1"/>
到着 とうちゃく 到着 名詞 6 サ変名詞 2 * 0 * 0 NIL
した した する 動詞 2 * 0 サ変動詞 16 タ形 10 NIL
EOS
# S-ID:d1-2
* 1D
+ 1D
手紙 てがみ 手紙 名詞 6 普通名詞 1 * 0 * 0 NIL
を を を 助詞 9 格助詞 1 * 0 * 0 NIL
* -1D
+ -1D <rel type="ヲ" target="手紙" sid="d1-2" id="0"/><rel type="ガ" target="不特定:人"/>
書いた かいた 書く 動詞 2 * 0 子音動詞カ行 2 タ形 10 NIL
EOS
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_frames_tuples_and_sahen_predicates(tmp_path):
    frames, stats, problems = extract([write(tmp_path, "a.knp", GOOD)])
    assert not problems
    assert stats["sentences"] == 2
    arrive = frames["到着する"]
    assert arrive.frames == {("ガ", "ニ"): 1}
    assert dict(arrive.nouns["ニ"]) == {"駅": 1}
    assert "ガ" not in arrive.nouns and arrive.person["ガ"] == 1  # a person name
    write_ = frames["書く"]
    assert dict(write_.nouns["ヲ"]) == {"手紙": 1} and write_.person["ガ"] == 1  # exophor
    assert write_.tuples == {(("ヲ", "手紙"),): 1}


def test_malformed_input_is_reported_and_skipped(tmp_path):
    missing = GOOD.replace("駅 えき 駅 名詞 6 普通名詞 1 * 0 * 0 NIL", "駅 えき 駅")
    unknown = GOOD.replace('rel type="ヲ"', 'rel type="ヲヲヲ"')
    truncated = GOOD[: GOOD.index("EOS\n# S-ID:d1-2")] + "EOS\n" + GOOD.split("EOS\n")[1][:80]
    paths = [write(tmp_path, "b_missing.knp", missing), write(tmp_path, "c_unknown.knp", unknown),
             write(tmp_path, "d_truncated.knp", truncated)]
    frames, stats, problems = extract(paths)
    text = [str(p) for p in problems]
    assert any("b_missing.knp:8" in t and "missing fields" in t for t in text)
    assert any("c_unknown.knp:" in t and "unknown rel type 'ヲヲヲ'" in t for t in text)
    assert any("d_truncated.knp:" in t and "truncated" in t for t in text)
    # The rest of each file was read: the good sentences still count.
    assert stats["sentences"] == 1 + 2 + 1
    assert frames["書く"].count == 2


def test_shipped_lexicon_rebuilds_byte_for_byte(tmp_path, reference):
    from nligen.data import data_root, lexicons_dir
    from nligen.lang.ja.build import build, default_corpora

    import shutil

    shutil.copytree(lexicons_dir() / "ja" / "curated", tmp_path / "ja" / "curated")
    report = build(tmp_path, default_corpora(data_root()))
    assert report["verbs"] >= 300
    shipped = (lexicons_dir() / "ja" / "caseframes.json").read_bytes()
    assert (tmp_path / "ja" / "caseframes.json").read_bytes() == shipped


def test_stats_and_sample_commands():
    import json

    from conftest import run_gen

    stats = run_gen("lexicon", "stats", "--lang", "ja", "--json")
    assert stats.returncode == 0, stats.stderr
    data = json.loads(stats.stdout)
    for key in ("verbs", "nouns", "frames", "tuples", "classes"):
        assert key in data
    assert data["verbs"] >= 300 and data["verbs_with_case"]["ヲ"] >= 100
    a = run_gen("lexicon", "sample", "--lang", "ja", "--n", "12", "--seed", "4")
    b = run_gen("lexicon", "sample", "--lang", "ja", "--n", "12", "--seed", "4")
    assert a.returncode == 0 and a.stdout == b.stdout
    lines = a.stdout.splitlines()
    assert len(lines) == 12 and all(line.endswith("た。") or line.endswith("だ。")
                                    for line in lines)


def test_reviewed_sample_is_current_and_mostly_natural(repo):
    import re

    from conftest import run_gen

    text = (repo / "lexicons" / "ja" / "reviewed_sample.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\s*\d+\. (\S+?) ([✓✗])", text, re.M)
    assert len(rows) == 50
    proc = run_gen("lexicon", "sample", "--lang", "ja", "--n", "50", "--seed", "1")
    assert proc.stdout.splitlines() == [clause for clause, _ in rows]
    natural = sum(mark == "✓" for _, mark in rows)
    # a strict reading by an outside reader (READING.md); author readings ran kinder (46)
    assert natural >= 40
    assert f"Result: {natural} of 50 natural." in text


def test_tuple_blocklist_entries_are_live_and_excluded():
    """Every rejected tuple names a verb of the curated classes (usable, or rejected as a
    whole since) and, for a usable verb, a tuple the corpus gives it (so a stale entry is
    noticed) that no predicate slot ever offers."""
    from nligen.data import lexicons_dir
    from nligen.lang.ja.lexicon import MIN_NOUN_FREQUENCY, JaLexicon, tuple_key
    from nligen.lexicon import LexiconSet

    lexicons = LexiconSet([lexicons_dir()])
    blocklist = lexicons.get("ja/curated/tuple_blocklist")
    assert blocklist.meta.get("source") and blocklist.meta.get("license")
    lex = JaLexicon.load(lexicons)
    assert len(blocklist.entries) > 100
    classified = {c["lemma"]: c for c in lexicons.get("ja/curated/verb_classes").entries}
    for e in blocklist.entries:
        assert e["lemma"] in classified, e
        if not classified[e["lemma"]].get("usable", True):
            continue
        verb = lex.by_lemma[e["lemma"]]
        assert verb.classes, e
        key = tuple_key(e["args"])
        assert key in verb.rejected
        observed = {tuple_key({c: w for c, w in t.items() if c in e["args"]})
                    for t, _ in verb.tuples}
        assert key in observed, e
        usable = {tuple_key(t) for t, _ in verb.usable_tuples(lex.noun_frequency,
                                                              MIN_NOUN_FREQUENCY)}
        assert key not in usable, e

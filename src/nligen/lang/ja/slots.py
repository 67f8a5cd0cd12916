"""Japanese slot kinds: agents (``agent``) and predicates with their arguments (``predicate``).

A ``predicate`` option is one verb together with one observed argument tuple of its case
frame, so the nouns a sentence uses always co-occurred with the verb in the corpus (Jamp's
"randomly select nouns that the selected verb can take as its case", Sugimoto et al. 2023,
section 3.2)::

    V: {type: predicate, cases: [ニ, ヲ], jamp: tp, volitional: true}
    # {{ V.ni }}に{{ V.wo }}を{{ V|past }}   (fields by case: ga wo ni de to kara he yori made)
    V: {type: predicate, cases: [ヲ], jamp: cint, modifier: ヲ}
    # {{ V.no }}の{{ V.wo }}を...   (a ノ-modifier of the ヲ noun a reader accepted,
    #                                ja/curated/reviewed_modifiers; else any seen with it)
    V: {type: predicate, cases: [[ヲ], [ニ]], deadline: true}
    # {{ V.args }}遅れて{{ V|past }}   (alternative frames; args: 報告書を / 会議に)

The agent (ガ) is not part of the tuple: agents are names (``agent`` slots).
"""

from __future__ import annotations

import json

from ...errors import LexiconError, TemplateError
from ...slots import SlotValue
from .caseframes import CASES, PRONOUNS
from .lexicon import CLAUSE_ORDER, case_phrases, tuple_key

CASE_FIELDS = {"ガ": "ga", "ヲ": "wo", "ニ": "ni", "デ": "de", "ト": "to", "カラ": "kara",
               "ヘ": "he", "ヨリ": "yori", "マデ": "made"}
JAMP_CLASSES = ("tp", "nint", "cint")
ASPECTS = ("stative", "activity", "accomplishment", "achievement")
GRAINS = ("year", "month", "day", "hour")  # coarse to fine

_CACHE_ATTR = "_ja_lexicon"


def ja_lexicon(lexicons):
    """The Japanese lexicon of a lexicon set, loaded once per set."""
    from .lexicon import JaLexicon

    lex = getattr(lexicons, _CACHE_ATTR, None)
    if lex is None:
        lex = JaLexicon.load(lexicons)
        setattr(lexicons, _CACHE_ATTR, lex)
    return lex


def _as_list(value, known, name, where):
    values = value if isinstance(value, list) else [value]
    if not values or any(v not in known for v in values):
        raise TemplateError(f"{name} must be one of {', '.join(known)} (or a list of them)", where)
    return values


class AgentKind:
    """``{type: agent}``: a given name from ``ja/curated/names`` (or ``names: LEXICON``)."""

    params = ("names",)

    @staticmethod
    def validate(spec, where):
        if "names" in spec and not isinstance(spec["names"], str):
            raise TemplateError("'names' must name a lexicon", where)

    def options(self, spec, ctx):
        lex = ctx.lexicons.get(spec.get("names", "ja/curated/names"))
        out = []
        for e in lex.entries:
            name = str(e.get("name", ""))
            if name:
                out.append(SlotValue(ctx.slot, name, {"name": name}, identity=name,
                                     lemmas=(name,), key=f"name:{name}"))
        return out


class PredicateKind:
    """``{type: predicate, cases: [...], jamp: tp|nint|cint, aspect: ..., volitional: bool,
    transitivity: transitive|intransitive, modifier: CASE, lemmas: [...],
    exclude_lemmas: [...], deadline: bool, repeatable: bool, honorific: bool,
    nouns: {CASE: FEATURE or [FEATURE, ...]}}``

    ``cases`` are the clause's cases besides ガ; a verb qualifies when its curated frame is
    exactly ガ + these cases and it takes a person as subject. A list of such lists gives
    alternative frames (``cases: [[], [ヲ], [ニ]]``): a verb qualifies with each of its frames
    that is one of them, and the text names the arguments with the field ``args``, the case
    phrases with their particles in clause order (``子供に本を``, empty for ガ alone).
    ``modifiers: true`` adds, beside each tuple, its variants with a ノ-modifier a reader
    accepted before one of its nouns (``ja/curated/reviewed_modifiers``: 祖母の手紙を); they
    show in ``args`` (and the modifier in the field ``no``), so the text must use ``args``.
    With ``clause: [anaphor]`` the field ``sono_args`` is ``args`` with その before the noun
    an anaphor picks up, the ヲ noun where there is one (担任にその作文を), and ``those_args``
    points back to many of them (それらの花を, その選手たちを) after ``many_args``, which
    puts 多くの before that noun (市場に多くの魚を).
    Options are the verb's observed argument tuples (nouns frequent in the corpus, no
    pronouns), grouped by verb so that the engine draws verbs evenly. A verb whose curated entry lists ``durations`` (the
    interval units natural for the event) carries them as the field ``durations``; one with
    ``finest`` carries ``grains``, the time units at which its event may be located.
    ``deadline: true`` keeps verbs whose act has a due time (遅れて V), ``repeatable: true``
    those a person does again and again (毎年 V). Beautified and honorific nouns (ご要望,
    お客様) are left out unless ``honorific: true``: a register rule, not a list.

    ``clause: [FLAG, ...]`` keeps the clauses a reader found natural in the template's frame
    (``ja/curated/clause_readings``: ``since`` for 以来 V-ている, ``now`` for 現在 V-ている,
    ``anaphor`` for それを / その〈noun〉, ``due`` for いつも遅れて V). A clause read in context
    carries its own ``durations`` and ``habits`` (毎日 / 毎月 / 毎年: ``time_unit_1.unit in
    V.habits``); an unread one the verb's ``durations`` and no habits. ``clause: [read]``
    keeps every clause that was read, and no other.

    ``nouns`` are selection restrictions: a case's noun must have one of the listed features
    of ``ja/curated/noun_features`` (``nouns: {ニ: [place, container]}`` for "毎年〈ニ〉に…",
    ``nouns: {ヲ: ordered}`` for "最初の〈ヲ〉"); ``exclude_nouns: {ニ: single}`` rules out nouns
    with a feature. Nouns marked ``vague`` or ``unfit`` fill only a
    case that asks for that feature.
    """

    params = ("cases", "jamp", "aspect", "volitional", "transitivity", "modifier", "lemmas",
              "exclude_lemmas", "deadline", "repeatable", "honorific", "nouns", "exclude_nouns",
              "modifiers",
              "clause", "exclude_clause")

    @staticmethod
    def validate(spec, where):
        alternatives = case_alternatives(spec.get("cases"), where)
        cases = sorted(set().union(*alternatives), key=CASES.index)
        if "jamp" in spec:
            _as_list(spec["jamp"], JAMP_CLASSES, "jamp", where)
        if "aspect" in spec:
            _as_list(spec["aspect"], ASPECTS, "aspect", where)
        for key in ("volitional", "deadline", "repeatable", "honorific", "modifiers"):
            if key in spec and not isinstance(spec[key], bool):
                raise TemplateError(f"'{key}' must be true or false", where)
        if "transitivity" in spec:
            _as_list(spec["transitivity"], ("transitive", "intransitive"), "transitivity", where)
        for key in ("lemmas", "exclude_lemmas"):
            lemmas = spec.get(key)
            if lemmas is not None and (not isinstance(lemmas, list) or not lemmas
                                       or not all(isinstance(x, str) for x in lemmas)):
                raise TemplateError(f"'{key}' must be a list of verb lemmas", where)
        for key in ("clause", "exclude_clause"):
            if key in spec:
                from .lexicon import CLAUSE_FLAGS

                _as_list(spec[key], CLAUSE_FLAGS + (READ,) if key == "clause" else CLAUSE_FLAGS,
                         key, where)
        if "modifier" in spec and spec.get("modifiers"):
            raise TemplateError("'modifier' (one case, every option) and 'modifiers' (read "
                                "modifiers of any case, beside the plain tuple) exclude each "
                                "other", where)
        if "modifier" in spec and any(spec["modifier"] not in a for a in alternatives):
            raise TemplateError("'modifier' must be one of the clause's cases (in every "
                                "alternative)", where)
        for key, example in (("nouns", "{ヲ: ordered, ニ: [place, container]}"),
                             ("exclude_nouns", "{ニ: single}")):
            if key not in spec:
                continue
            from .lexicon import NOUN_FEATURES

            table = spec[key]
            if not isinstance(table, dict) or not table:
                raise TemplateError(f"'{key}' must map cases to noun features ({example})",
                                    where)
            for case, features in table.items():
                if case not in cases:
                    raise TemplateError(f"{key}.{case}: not one of the clause's cases "
                                        f"({', '.join(cases) or 'none'})", where)
                _as_list(features, NOUN_FEATURES, f"{key}.{case}", where)

    def options(self, spec, ctx):
        # Templates of a family share specs (24 ordering templates ask for the same clauses):
        # the options are built once per lexicon set, slot name and spec, not per template.
        cache = getattr(ctx.lexicons, "_ja_predicate_options", None)
        if cache is None:
            cache = {}
            setattr(ctx.lexicons, "_ja_predicate_options", cache)
        key = (ctx.slot, json.dumps(spec, sort_keys=True, ensure_ascii=False, default=str))
        if key not in cache:
            cache[key] = self._build_options(spec, ctx)
        return cache[key]

    def _build_options(self, spec, ctx):
        lex = ja_lexicon(ctx.lexicons)
        alternatives = case_alternatives(spec["cases"], ctx.where)
        jamp = set(spec["jamp"] if isinstance(spec.get("jamp"), list) else
                   [spec["jamp"]] if "jamp" in spec else [])
        aspects = spec.get("aspect")
        aspects = set(aspects if isinstance(aspects, list) else [aspects]) if aspects else None
        trans = spec.get("transitivity")
        trans = set(trans if isinstance(trans, list) else [trans]) if trans else None
        modifier = spec.get("modifier")
        modifiers = None
        if modifier:  # a reader's modifiers where shipped, else every one seen in the corpora
            modifiers = (_read_modifiers(ctx.lexicons)
                         if ctx.lexicons.find("ja/curated/reviewed_modifiers")
                         else _modifier_table(ctx.lexicons, lex))
        read_modifiers = _read_modifiers(ctx.lexicons) if spec.get("modifiers") else None
        not_with = _modifiers_not_with(ctx.lexicons)
        with_args = len(alternatives) > 1 or read_modifiers is not None
        only = set(spec["lemmas"]) if spec.get("lemmas") else None
        excluded = set(spec.get("exclude_lemmas") or ())
        restrictions = {case: frozenset(w if isinstance(w, list) else [w])
                        for case, w in (spec.get("nouns") or {}).items()}
        for case, wanted in restrictions.items():
            if not any(f & wanted for f in lex.noun_features.values()):
                raise TemplateError(f"nouns.{case}: no noun of ja/curated/noun_features has "
                                    f"the feature {' or '.join(sorted(wanted))}", ctx.where)
        avoid = {case: frozenset(w if isinstance(w, list) else [w])
                 for case, w in (spec.get("exclude_nouns") or {}).items()}
        flags = _flag_set(spec.get("clause"))
        unwanted = _flag_set(spec.get("exclude_clause"))
        out: list[SlotValue] = []
        seen: set[str] = set()
        value_memo = _memo(lex, "_option_values")
        clause_memo = _memo(lex, "_verb_clauses")
        honorific = bool(spec.get("honorific"))
        restriction_key = tuple(sorted(restrictions.items()))
        for verb in lex.usable_verbs():
            if only is not None and verb.lemma not in only or verb.lemma in excluded:
                continue
            cls = verb.classes
            frames = [f for f in verb.curated_frames if frozenset(f) - {"ガ"} in alternatives]
            if not frames or not verb.agentive:
                continue
            if jamp and not jamp <= set(cls.get("jamp") or []):
                continue
            if aspects and cls.get("aspect") not in aspects:
                continue
            if any(key in spec and bool(cls.get(key)) != spec[key]
                   for key in ("volitional", "deadline", "repeatable")):
                continue
            if trans and cls.get("transitivity") not in trans:
                continue
            clauses_key = (verb.lemma, tuple(frames), honorific, restriction_key)
            clauses = clause_memo.get(clauses_key)
            if clauses is None:  # specs share frames: a verb's clauses listed once per frame set
                clauses = clause_memo[clauses_key] = _verb_clauses(
                    verb, frames, lex, honorific, restrictions)
            for args, key_args, reading, nouns in clauses:
                if avoid and any(lex.noun_features.get(args.get(case), frozenset()) & unwanted
                                 for case, unwanted in avoid.items()):
                    continue  # a noun the slot rules out (exclude_nouns)
                if flags and (reading is None or not flags <= reading.flags | {READ}):
                    continue  # not read as natural in this frame
                if reading is not None and unwanted & reading.flags:
                    continue  # read as unfit for this frame (telic: no bare duration)
                if reading is not None and "state" in reading.flags and \
                        not flags & {"since", "now", "state"}:
                    continue  # a state, not a dated event ("12月14日に牛を飼った")
                extra: list = [(None, None)]
                if modifier:
                    extra = [(modifier, m) for m in modifiers.get(args[modifier], [])
                             if verb.lemma not in not_with.get((args[modifier], m), ())]
                elif read_modifiers is not None:
                    extra += [(c, m) for c in sorted(args, key=CLAUSE_ORDER.index)
                              for m in read_modifiers.get(args[c], ())
                              if verb.lemma not in not_with.get((args[c], m), ())]
                for mod_case, mod in extra:
                    # the same clause in another spec is the same value (the 27 predicate
                    # specs of the Jamp templates share most clauses): built once
                    memo_key = (ctx.slot, verb.lemma, key_args, mod_case, mod, with_args,
                                with_args and "anaphor" in flags)
                    value = value_memo.get(memo_key)
                    if value is not None:
                        if value._key not in seen:
                            seen.add(value._key)
                            out.append(value)
                        continue
                    fields = {"lemma": verb.lemma, **nouns}
                    if mod is not None:
                        fields["no"] = mod
                    if with_args:
                        fields["args"] = case_phrases(args, mod_case, mod)
                        fields["many_args"] = case_phrases(args, mod_case, mod, many=True)
                        if "anaphor" in flags:  # その on the noun the anaphor picks up
                            fields["sono_args"] = case_phrases(args, mod_case, mod, sono=True)
                            fields["those_args"] = case_phrases(
                                args, mod_case, mod, those=lex.noun_features)
                    key = verb.lemma + "|" + "|".join(f"{k}={v}" for k, v in fields.items()
                                                      if k not in TEXT_FIELDS)
                    if key in seen:
                        continue
                    seen.add(key)
                    lemmas = (verb.lemma, *(v for k, v in fields.items()
                                            if k not in TEXT_FIELDS))
                    if reading is not None:
                        # the interval units natural for this event with these arguments:
                        # ``interval_1.unit in V.durations`` in a time block's require keeps
                        # "3日以上かけて建物を設計した" out; habits the units of 毎〜
                        fields["durations"] = list(reading.durations)
                        fields["habits"] = list(reading.habits)
                    elif cls.get("durations"):
                        fields["durations"] = list(cls["durations"])
                    # 多くの〈W〉を V-た takes longer than one doing: never hours
                    # ("1時間で多くの試合を解説した" failed an outside reading)
                    fields["many_durations"] = many_units(fields.get("durations", ()))
                    # the longest interval per unit where a reader found it shorter than 9
                    # (冷蔵庫を整理する: 2 hours), for ``interval_longest: V.longest``
                    fields["longest"] = dict(reading.longest) if reading is not None else {}
                    # the time units at which the event may be located: "tp_1.grain in
                    # V.grains" keeps "3月5日15時以来ここに住んでいる" out
                    fields["grains"] = clause_grains(cls.get("finest"), reading,
                                                     cls.get("repeatable", True),
                                                     "ni" in fields)
                    # the verb is the group: the engine draws verbs evenly, then a tuple
                    value = SlotValue(ctx.slot, verb.lemma, fields, identity=verb.lemma,
                                      lemmas=lemmas, key=key, group=verb.lemma)
                    value_memo[memo_key] = value
                    out.append(value)
        return out


def _verb_clauses(verb, frames, lex, honorific: bool, restrictions) -> list[tuple]:
    """(args, tuple key, reading, noun fields) of each of the verb's tuples in these
    frames, pronouns and Latin-letter nouns left out."""
    from .lexicon import MIN_NOUN_FREQUENCY

    out = []
    for frame in frames:
        for args, _count in verb.frame_tuples(frame, lex.noun_frequency, MIN_NOUN_FREQUENCY,
                                              honorific, restrictions):
            if any(w in PRONOUNS or _latin(w) for w in args.values()):
                continue
            key_args = tuple_key(args)
            nouns = {CASE_FIELDS[c]: args[c] for c in sorted(args, key=CASES.index)}
            out.append((args, key_args, verb.readings.get(key_args), nouns))
    return out


def _memo(lex, name: str) -> dict:
    """A dict kept on the loaded lexicon (shared by every spec built from it)."""
    memo = getattr(lex, name, None)
    if memo is None:
        memo = {}
        setattr(lex, name, memo)
    return memo


# ``clause: [read]`` keeps only clauses a reader read in context, whatever their flags: a
# frame that must know how the event goes with a bare duration (3日間〈args〉V-た) leaves
# the unread ones out (3日間ジャガイモを持った).
READ = "read"
# fields that spell the clause out rather than name its parts (left out of keys and lemmas)
TEXT_FIELDS = ("lemma", "args", "many_args", "sono_args", "those_args")


def _flag_set(value) -> frozenset:
    """A slot's ``clause`` / ``exclude_clause`` value as a set of flags."""
    if value is None:
        return frozenset()
    return frozenset(value if isinstance(value, list) else [value])


def many_units(units) -> list[str]:
    """The units in which doing it to many things takes time: never hours (a task of
    hours takes days when it is done to many); the task's own longer units; and years
    only for a task of months ("3ヶ月以上かけて多くの小説を書いた" failed outside reading 2066)."""
    if units and not {"hour", "day"} & set(units):
        return ["year"]
    return [g for g in GRAINS if g != "hour" and (g in units or (g == "day" and "hour" in units))]


def clause_grains(finest: str | None, reading, repeatable: bool = True,
                  goal: bool = False) -> list[str]:
    """The time units at which a clause's event may be located (a time point's ``grain``,
    the finest unit its text shows): no finer than the verb's ``finest``; no hour for a
    clause read as having no clock time (flag ``no_hour``: "18時に小説を発表した"), nor for
    an event or state that lasts months or years ("2月19日18時以来球団を応援している"); and no
    coarser than its routine, read in context: a daily act is dated to the day
    ("2016年に事務所に戻った" tells nothing), a monthly one at least to the month
    ("2009年に水道代を払った").

    An everyday act (a repeatable verb) is dated no coarser than its length allows: a
    momentary one (no duration read) to the day ("7月にフリスビーを投げた", "9月にスキーを
    担いだ" failed outside readings), one of hours to the month ("2015年に映画を見た").
    Once-in-a-life events (repeatable: false: 卒業する), works of a career (ordinal) and
    states keep the coarse units. An act due at a place or event (``goal``: a ニ argument,
    職場に着く, 会議に出席する) is dated to the day or the hour: one is late on a day
    ("2020年2月に劇場に着いた" failed an outside reading); one with a due date (家賃を払う)
    keeps the month. A telic event of months or years (戯曲を書く) is dated no finer than
    the month: "2010年3月5日に最初の戯曲を書いた" failed an outside reading."""
    grains = list(GRAINS[:GRAINS.index(finest) + 1] if finest else GRAINS)
    if reading is None:
        return grains
    if "no_hour" in reading.flags:  # read as having no clock time: 「18時に小説を発表した」
        grains = [g for g in grains if g != "hour"]
    if reading.durations and not {"hour", "day"} & set(reading.durations):
        grains = [g for g in grains if g != "hour"]
        if "telic" in reading.flags:  # a work of months is not dated to its day
            grains = [g for g in grains if g != "day"] or grains
    if "day" in reading.habits:
        grains = [g for g in grains if g in ("day", "hour")]
    elif "month" in reading.habits:
        grains = [g for g in grains if g != "year"]
    if repeatable and not reading.flags & {"ordinal", "state"}:
        if not reading.durations:
            finer = [g for g in grains if g in ("day", "hour")]
        elif reading.durations == ("hour",):
            finer = [g for g in grains if g != "year"]
        else:
            finer = grains
        # a verb dated no finer than the month (finest: month) keeps its finest unit
        grains = finer or grains[-1:]
    if goal and "due" in reading.flags:
        grains = [g for g in grains if g in ("day", "hour")] or grains
    return grains


def case_alternatives(cases, where) -> list[frozenset]:
    """A predicate's ``cases`` as alternative case sets: [ヲ] gives one, [[], [ヲ]] two."""
    lists = cases if isinstance(cases, list) and cases and all(
        isinstance(c, list) for c in cases) else [cases]
    out: list[frozenset] = []
    for alt in lists:
        if not isinstance(alt, list) or any(c not in CASES or c == "ガ" for c in alt) \
                or len(set(alt)) != len(alt) or frozenset(alt) in out:
            raise TemplateError(f"'cases' must list the clause's cases besides ガ "
                                f"(from {', '.join(CASES[1:])}); [] for ガ alone; or a list "
                                f"of such lists, one per alternative frame", where)
        out.append(frozenset(alt))
    return out


def _latin(word: str) -> bool:
    """Nouns written in Latin letters (TRUE, CPU) read as foreign material in a sentence."""
    return any("a" <= ch.lower() <= "z" or "ａ" <= ch.lower() <= "ｚ" for ch in word)


def _read_modifiers(lexicons) -> dict[str, tuple[str, ...]]:
    """head noun -> the ノ-modifiers a reader accepted before it (empty when not shipped)."""
    cached = getattr(lexicons, "_ja_read_modifiers", None)
    if cached is not None:
        return cached
    table: dict[str, tuple[str, ...]] = {}
    not_with: dict[tuple[str, str], frozenset] = {}
    if lexicons.find("ja/curated/reviewed_modifiers"):
        lexicon = lexicons.get("ja/curated/reviewed_modifiers")
        for i, e in enumerate(lexicon.entries):
            head, mod, verbs = e.get("head"), e.get("modifier"), e.get("not_with", [])
            if not (isinstance(head, str) and isinstance(mod, str) and head and mod):
                raise LexiconError(f"entry {i + 1}: needs 'head' and 'modifier' (nouns)",
                                   lexicon.name)
            if not isinstance(verbs, list) or not all(isinstance(v, str) for v in verbs):
                raise LexiconError(f"entry {i + 1}: 'not_with' must list verb lemmas",
                                   lexicon.name)
            table[head] = table.get(head, ()) + (mod,)
            if verbs:
                not_with[(head, mod)] = frozenset(verbs)
    setattr(lexicons, "_ja_read_modifiers", table)
    setattr(lexicons, "_ja_modifiers_not_with", not_with)
    return table


def _modifiers_not_with(lexicons) -> dict[tuple[str, str], frozenset]:
    """(head noun, modifier) -> the verbs a reader found the pair unnatural with
    (会議の資料を収集した): ``not_with`` in ja/curated/reviewed_modifiers."""
    _read_modifiers(lexicons)
    return getattr(lexicons, "_ja_modifiers_not_with")


def _modifier_table(lexicons, lex) -> dict[str, list[str]]:
    """head noun -> ノ-modifiers seen with it, frequent nouns only, no pronouns or repeats."""
    from .lexicon import MIN_NOUN_FREQUENCY

    cached = getattr(lexicons, "_ja_modifiers", None)
    if cached is not None:
        return cached
    table: dict[str, list[str]] = {}
    for e in lexicons.get("ja/no_modifiers").entries:
        head = e.get("head")
        mods = [m for m, _n in e.get("modifiers", [])
                if m != head and m not in PRONOUNS
                and lex.noun_frequency.get(m, 0) >= MIN_NOUN_FREQUENCY
                and not _latin(m)]
        if mods:
            table[head] = mods
    setattr(lexicons, "_ja_modifiers", table)
    return table

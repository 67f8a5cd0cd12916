"""German slot kinds: noun phrases (``np``) and verbs (``verb``)."""

from __future__ import annotations

from ...errors import LexiconError, TemplateError
from ...slots import check_text_param, check_where
from .morphology import DETERMINERS, Verb, name_phrase, noun_phrase, pronoun_phrase

# np_type -> (number, genders); "pnoun" = a first name.
NP_TYPES = {
    "sing_masc": ("sg", ("m",)), "sing_fem": ("sg", ("f",)), "sing_neut": ("sg", ("n",)),
    "plural_masc": ("pl", ("m",)), "plural_fem": ("pl", ("f",)), "plural_neut": ("pl", ("n",)),
    "sing": ("sg", ("m", "f", "n")), "plural": ("pl", ("m", "f", "n")),
    "pnoun": ("sg", ("m", "f")),
}


class NounPhraseKind:
    """``{type: np, np_type: sing_masc, nouns: de/nouns_human, names: de/first_names,
    determiners: [def, indef, dem], pronoun: false, where: {...}}``

    Options are every determiner x noun of the type (plural: no indefinite article), or
    every first name for ``pnoun``. With ``pronoun: true`` the options are the personal
    pronouns standing for such phrases (er / sie / sie-plural).
    """

    params = ("np_type", "nouns", "names", "determiners", "pronoun")

    @staticmethod
    def validate(spec, where):
        """Shape checks when the template loads ($axis references are resolved later)."""
        check_where(spec, where)
        np_type = spec.get("np_type")
        if not isinstance(np_type, str) or (np_type not in NP_TYPES and not np_type.startswith("$")):
            raise TemplateError(f"np_type must be one of {', '.join(NP_TYPES)} or $axis", where)
        for name in ("nouns", "names"):
            check_text_param(spec, name, where)
        dets = spec.get("determiners", ["def"])
        if not isinstance(dets, list) or not dets or any(d not in DETERMINERS for d in dets):
            raise TemplateError(f"determiners must be a list drawn from {', '.join(DETERMINERS)}",
                                where)
        if not isinstance(spec.get("pronoun", False), bool):
            raise TemplateError("pronoun must be true or false", where)

    def options(self, spec, ctx):
        np_type = spec.get("np_type")
        if np_type not in NP_TYPES:
            raise TemplateError(f"unknown np_type {np_type!r} (known: {', '.join(NP_TYPES)})",
                                ctx.where)
        number, genders = NP_TYPES[np_type]
        dets = spec.get("determiners", ["def", "indef", "dem"])
        if not isinstance(dets, list) or any(d not in DETERMINERS for d in dets):
            raise TemplateError(f"determiners must be drawn from {', '.join(DETERMINERS)}",
                                ctx.where)
        where = spec.get("where") or {}
        if spec.get("pronoun"):
            if np_type == "pnoun":
                genders = sorted({e["gender"] for e in self._names(spec, ctx, where)})
            return [pronoun_phrase(ctx.slot, g, number) for g in (genders if number == "sg" else ["pl"])]
        if np_type == "pnoun":
            lex_name = spec["names"]
            return [name_phrase(ctx.slot, e, lex_name) for e in self._names(spec, ctx, where)]
        if not spec.get("nouns"):
            raise TemplateError("an np slot needs 'nouns' (a noun lexicon)", ctx.where)
        lex = ctx.lexicons.get(spec["nouns"])
        out = []
        for entry in lex.select(dict(where, gender=list(genders))):
            for d in dets:
                if d == "indef" and number == "pl":
                    continue
                out.append(noun_phrase(ctx.slot, entry, d, number, lex.name))
        return out

    @staticmethod
    def _names(spec, ctx, where):
        if not spec.get("names"):
            raise TemplateError("an np slot of type pnoun needs 'names' (a name lexicon)", ctx.where)
        lex = ctx.lexicons.get(spec["names"])
        entries = lex.select(where)
        for e in entries:
            if not isinstance(e.get("name"), str) or e.get("gender") not in ("m", "f"):
                raise LexiconError("every name entry needs a text 'name' and gender m or f",
                                   lex.name)
        return entries


class VerbKind:
    """``{type: verb, lexicon: de/verbs_transitive, where: {...}}``"""

    params = ("lexicon",)

    @staticmethod
    def validate(spec, where):
        check_where(spec, where)
        check_text_param(spec, "lexicon", where, required=True)

    def options(self, spec, ctx):
        if not spec.get("lexicon"):
            raise TemplateError("a verb slot needs 'lexicon'", ctx.where)
        lex = ctx.lexicons.get(spec["lexicon"])
        return [Verb(ctx.slot, e, lex.name) for e in lex.select(spec.get("where"))]

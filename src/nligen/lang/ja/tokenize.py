"""Space-separated tokens (分かち書き), as in Jamp's released ``*_wakati.tsv`` files.

Jamp tokenized with Juman++; nligen uses fugashi + unidic-lite (the tagger the Japanese
layer already loads), so token boundaries can differ from the release in places.
"""

from __future__ import annotations

from .conjugation import _tagger


def wakati(text: str) -> str:
    return " ".join(word.surface for word in _tagger()(text))

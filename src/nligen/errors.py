"""One base exception for every error a user can cause, with a code and a location.

The CLI prints ``error: <where>: <what>`` and exits 2 for any :class:`NligenError`;
everything else is a bug and keeps its traceback.
"""

from __future__ import annotations


class NligenError(Exception):
    """Base class. ``where`` names the file / template / field / CLI option at fault."""

    code = "E000"

    def __init__(self, what: str, where: str | None = None):
        super().__init__(what)
        self.what = what
        self.where = where

    def __str__(self) -> str:
        return f"{self.where}: {self.what}" if self.where else self.what

    def __reduce__(self):  # pickled whole (a worker process sends it to its parent)
        return type(self), (self.what, self.where)

    def located(self, where: str) -> "NligenError":
        """Return a copy of this error with ``where`` prefixed (outermost context first)."""
        new_where = f"{where}: {self.where}" if self.where else where
        return type(self)(self.what, new_where)


class UsageError(NligenError):
    """Bad command-line arguments or library-call arguments (n <= 0, unknown set...)."""

    code = "E001"


class TemplateError(NligenError):
    """A template file is malformed, fails validation, or tried something forbidden."""

    code = "E100"


class ConditionError(TemplateError):
    """A label condition does not parse, uses a forbidden construct, or fails to evaluate."""

    code = "E110"


class RenderError(TemplateError):
    """A template failed to render (undefined variable, sandbox violation...)."""

    code = "E120"


class LexiconError(NligenError):
    """A lexicon file is missing, malformed, or lacks a form a template needs."""

    code = "E200"


class CapacityError(NligenError):
    """A template cannot yield the number of distinct items asked of it."""

    code = "E300"


class UnsatisfiableLabelError(CapacityError):
    """A template never produced the requested label."""

    code = "E310"


class SplitError(NligenError):
    """A split cannot be built from the requested items (e.g. train too small to cover verbs)."""

    code = "E400"


class InputError(NligenError):
    """Unreadable input file (e.g. for ``gen wogli derive``)."""

    code = "E500"


class AnalysisError(NligenError):
    """A sentence could not be analysed by a language layer."""

    code = "E600"

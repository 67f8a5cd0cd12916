"""nligen: seeded, template-based generation of controlled NLI challenge sets.

Library entry points (imported lazily so ``import nligen`` stays light):

* :func:`nligen.generate` — templates + lexicons -> :class:`nligen.api.Dataset`
* :func:`nligen.load_templates` — load and validate YAML templates
* :func:`nligen.validate` — lint templates against lexicons
"""

from .version import __version__

__all__ = ["__version__", "generate", "load_templates", "validate", "list_variants"]


def __getattr__(name):
    if name in ("generate", "list_variants"):
        from . import api

        return getattr(api, name)
    if name == "load_templates":
        from .templates import load_templates

        return load_templates
    if name == "validate":
        from .validate import validate

        return validate
    raise AttributeError(f"module 'nligen' has no attribute {name!r}")

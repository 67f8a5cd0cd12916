"""The package version (its own module, so that any module can import it without
importing the package's lazy entry points)."""

__version__ = "0.1.0"

"""evalkit's version, in a module of its own so that any module can import it without
importing the package (and its re-exports) first."""

__version__ = "0.11.0"

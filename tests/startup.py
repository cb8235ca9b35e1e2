"""A pytest plugin loaded before every other (``-p tests.startup`` in pytest's options), in
the main process and in each worker.

nbval, loaded next, imports nbformat, which imports jsonschema; jsonschema imports
``rfc3987_syntax`` where it is installed (JupyterLab's jupyter-events installs it) to check
the "iri" string format, and that module compiles a grammar as it is imported: about 2.2 s of
CPU in each of the four processes of a test run. Neither nbformat (draft 4, no format
checker) nor any test checks that format; ``evalkit report`` keeps the module out of its own
process in the same way (``evalkit.cli._without_iri_grammar``, tested in tests/test_cli.py).
"""

import sys

if "jsonschema" not in sys.modules:
    sys.modules.setdefault("rfc3987_syntax", None)  # None: an ImportError, as if absent

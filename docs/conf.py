"""Sphinx configuration of evalkit's documentation (``make docs``).

The site is built offline and opens offline: the theme's files, MathJax and its fonts are
copied into the build; no page loads a script, style or font from another host
(``docs/check_offline.py`` checks every built page). The reference pages on metrics,
definitions, library profiles, the command line and the report parameters are written at
build time from evalkit's own declarations (``_ext/evalkit_pages.py``), so they cannot drift
from the code, and the report notebooks are shown with their committed outputs; the guide's
Python runs at every build (``_ext/guide_code.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import evalkit  # noqa: E402

project = "evalkit"
author = "the evalkit developers"
copyright = "the evalkit developers"
release = version = evalkit.__version__

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "offline_math",
    "evalkit_pages",
    "guide_code",
]

# MyST-NB reads the Markdown pages and the report notebooks (as committed, with their
# outputs: never executed here, so a page shows what the notebooks' regression tests hold)
nb_execution_mode = "off"
nb_merge_streams = True
root_doc = "index"
exclude_patterns = ["_build", "README.md"]  # docs/README.md: how to build, not a page
myst_enable_extensions = ["dollarmath", "deflist", "colon_fence"]
myst_heading_anchors = 3

# The API reference: one page per public name, from the docstrings (numpydoc's sections).
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False}
autodoc_typehints = "none"  # the numpydoc Parameters section states the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()

html_theme = "pydata_sphinx_theme"
html_title = f"evalkit {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": [],
}
html_static_path: list[str] = []
html_copy_source = False
html_show_sourcelink = False

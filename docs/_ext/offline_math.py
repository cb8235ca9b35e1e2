"""MathJax served from the build, not a CDN.

MathJax 3's ``tex-chtml.js`` and the fonts it loads come from the ``sphinx-mathjax-offline``
package (a copy of MathJax's release files); only those are copied into ``_static/mathjax``
(that package's own extension copies every MathJax component, 24 MB). The menu, whose
accessibility options would fetch the speech engine from a CDN, is switched off.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

from sphinx.application import Sphinx

#: What the CommonHTML output needs: the combined component and the web fonts it loads.
FILES = ("tex-chtml.js", "output/chtml/fonts/woff-v2")


def _mathjax_folder() -> Path:
    spec = importlib.util.find_spec("sphinx-mathjax-offline")
    if spec is None or spec.origin is None:
        raise RuntimeError("offline_math: the package sphinx-mathjax-offline is not installed "
                           "(make docs installs it)")
    return Path(spec.origin).parent / "static" / "mathjax"


def _copy(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    source, target = _mathjax_folder(), Path(app.outdir) / "_static" / "mathjax"
    for name in FILES:
        if (source / name).is_dir():
            shutil.copytree(source / name, target / name, dirs_exist_ok=True)
        else:
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source / name, target / name)


def setup(app: Sphinx) -> dict:
    _mathjax_folder()  # fail at once when it is missing
    app.config.mathjax_path = "mathjax/tex-chtml.js"
    app.config.mathjax3_config = {"options": {"enableMenu": False}}
    app.connect("build-finished", _copy)
    return {"parallel_read_safe": True}

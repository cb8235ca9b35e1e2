"""Reports: the notebooks' inputs and parameters, and the runner that renders them to HTML.

``make report`` (or ``evalkit report``) calls :func:`run_reports`, which runs every notebook
with papermill and renders it with nbconvert. Inside a notebook, the first cell checks the
parameters (:func:`check_parameters`), loads the data or the analyst's own split
(:func:`load_inputs`) and the systems to evaluate (:func:`load_systems`,
:func:`load_predictions`), shows who each system covers (:func:`coverage`) and states what the
report is computed on (:func:`run_card`) and what the results say (:func:`findings`: the
best system per metric, the significant differences, what was left out, computed caveats);
the last cell saves the headline numbers
(:func:`write_headline`) that ``index.html`` collects. The at-scale report runs the ranking
evaluation through Spark (:func:`parquet_inputs`, :func:`spark_frames`,
:func:`spark_evaluate_systems`, :func:`spark_curve_bands`) and checks it against the in-memory
engine (:func:`spark_agreement`, :func:`agreement_note`).
"""

from __future__ import annotations

from .._comparison import format_pvalue
from . import (
    _beyond,
    _comparing,
    _findings,
    _groups,
    _inputs,
    _libraries,
    _params,
    _prose,
    _protocols,
    _ranking,
    _rating,
    _runner,
    _runs,
    _show,
    _spark,
    _splitting,
)
from ._beyond import *  # noqa: F403 (its __all__)
from ._comparing import *  # noqa: F403 (its __all__)
from ._findings import *  # noqa: F403 (its __all__)
from ._groups import *  # noqa: F403 (its __all__)
from ._inputs import *  # noqa: F403 (its __all__)
from ._libraries import *  # noqa: F403 (its __all__)
from ._params import *  # noqa: F403 (its __all__)
from ._prose import *  # noqa: F403 (its __all__)
from ._protocols import *  # noqa: F403 (its __all__)
from ._ranking import *  # noqa: F403 (its __all__)
from ._rating import *  # noqa: F403 (its __all__)
from ._runner import *  # noqa: F403 (its __all__)
from ._runs import *  # noqa: F403 (its __all__)
from ._show import *  # noqa: F403 (its __all__)
from ._spark import *  # noqa: F403 (its __all__)
from ._splitting import *  # noqa: F403 (its __all__)

#: Each module's public names, listed once: in its own ``__all__``.
_MODULES = (_beyond, _comparing, _findings, _groups, _inputs, _libraries, _params, _prose,
            _protocols, _ranking, _rating, _runner, _runs, _show, _spark, _splitting)
__all__ = ["format_pvalue", *(name for module in _MODULES for name in module.__all__)]

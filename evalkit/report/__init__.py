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

from ._inputs import (
    ReportInputs,
    coverage,
    load_dataset,
    load_inputs,
    load_predictions,
    load_systems,
    prediction_coverage,
    run_card,
)
from ._params import PARAMETERS, Parameter, ParameterError, check_parameters
from ..compare import format_pvalue
from ._findings import findings
from ._prose import (
    comparison_note,
    cross_validation_note,
    library_note,
    relevance_note,
    summary_note,
    zero_note,
)
from ._tables import (
    beyond_summary,
    beyond_table,
    compare_systems,
    comparison_table,
    cross_validate_baselines,
    curve_bands,
    significance_headline,
    test_users_by_activity,
    classification_summary,
    confusion_table,
    correlation_table,
    evaluate_systems,
    library_table,
    profile_table,
    show,
    make_splits,
    md,
    predicted_rows,
    rating_error_summary,
    rating_error_table,
    sample_lists,
    summary_table,
    threshold_table,
    tie_table,
    topk_confusion_table,
    tradeoff_points,
)
from ._spark import (
    ParquetInputs,
    SparkFrames,
    agreement_note,
    parquet_inputs,
    spark_agreement,
    spark_curve_bands,
    spark_evaluate_systems,
    spark_frames,
    spark_headline,
    spark_note,
    spark_run_card,
)
from ._runner import (
    ReportError,
    find_notebooks,
    list_parameters,
    notebook_parameters,
    read_headlines,
    run_reports,
    tidy_notebooks,
    write_headline,
)

__all__ = [
    "ParquetInputs",
    "SparkFrames",
    "agreement_note",
    "parquet_inputs",
    "spark_agreement",
    "spark_curve_bands",
    "spark_evaluate_systems",
    "spark_frames",
    "spark_headline",
    "spark_note",
    "spark_run_card",
    "beyond_summary",
    "beyond_table",
    "compare_systems",
    "comparison_note",
    "comparison_table",
    "cross_validate_baselines",
    "cross_validation_note",
    "curve_bands",
    "findings",
    "format_pvalue",
    "library_note",
    "relevance_note",
    "significance_headline",
    "summary_note",
    "zero_note",
    "test_users_by_activity",
    "classification_summary",
    "confusion_table",
    "correlation_table",
    "evaluate_systems",
    "library_table",
    "profile_table",
    "show",
    "make_splits",
    "predicted_rows",
    "md",
    "rating_error_summary",
    "rating_error_table",
    "sample_lists",
    "summary_table",
    "threshold_table",
    "tie_table",
    "topk_confusion_table",
    "tradeoff_points",
    "PARAMETERS",
    "Parameter",
    "ParameterError",
    "ReportError",
    "ReportInputs",
    "check_parameters",
    "coverage",
    "find_notebooks",
    "list_parameters",
    "load_dataset",
    "load_inputs",
    "load_predictions",
    "load_systems",
    "notebook_parameters",
    "prediction_coverage",
    "read_headlines",
    "run_card",
    "run_reports",
    "tidy_notebooks",
    "write_headline",
]

"""The docstring entries the report's functions share (:func:`evalkit._docstrings.fill_doc`):
its inputs, each system's lists, predictions and evaluations, and the options every page
takes."""

from __future__ import annotations

from .._docstrings import fragments

_RELEVANT = "A test item is relevant when its rating is at least this; None: every test item."

REPORT_DOCS = fragments(
    inputs="""
    inputs : ReportInputs
        The report's data and split (:func:`load_inputs`).
    """,
    test_interactions="""
    test : pandas.DataFrame
        The test interactions (``user_id, item_id, rating``).
    """,
    test_ratings="""
    test : pandas.DataFrame
        The test ratings (``user_id, item_id, rating``).
    """,
    predictions="""
    predictions : mapping of str to pandas.DataFrame
        Each system's predictions (``user_id, item_id, prediction``), by name
        (:func:`load_predictions`).
    """,
    train="""
    train : pandas.DataFrame, optional
        The training interactions; needed only by ``unknown_items="drop"``.
    """,
    systems="""
    systems : mapping of str to pandas.DataFrame
        Each system's recommendations (``user_id, item_id`` and ``rank`` and/or ``score``), by
        name (:func:`load_systems`).
    """,
    evaluations="""
    evaluations : mapping of str to evalkit.Evaluation
        Each system's evaluation (:func:`evaluate_systems`), by name.
    """,
    k_lists="""
    k : int
        The cutoff: each system's top-``k`` lists.
    """,
    threshold=f"""
    threshold : float or None, default 4.0
        {_RELEVANT}
    """,
    threshold_given=f"""
    threshold : float or None
        {_RELEVANT}
    """,
    rating_threshold="""
    threshold : float
        A rating, true or predicted, is relevant when it is at least this.
    """,
    profile="""
    profile : str, optional
        ``PROFILE``: a library profile (:data:`evalkit.PROFILES`) whose definitions are used;
        default: evalkit's.
    """,
    seed="""
    seed : int, default 0
        Seed of the bootstrap.
    """,
)
REPORT_DOCS["test_predictions"] = REPORT_DOCS["test_ratings"] + "\n" + REPORT_DOCS["predictions"]

"""Pure functions from attention arrays and token labels to numbers, tables and figures.

No Streamlit and no torch in here: everything is testable without a server and reusable in a
notebook. Submodules load lazily, so ``viz.analysis`` costs only numpy.

``viz.model_view`` and ``viz.head_view`` are modules: import their functions from them
(``from viz.model_view import model_view``), since a package attribute cannot be both.
"""
from __future__ import annotations

import importlib

_EXPORTS = {
    "mean_of_heads": "analysis", "entropy": "analysis", "normalised_entropy": "analysis",
    "rollout": "analysis", "head_roles": "analysis", "induction_scores": "analysis",
    "merge_words": "analysis", "merge_tokens": "analysis", "top_keys": "analysis",
    "attention_heatmap": "heatmap",
    "model_view_png": "model_view", "head_view_data": "head_view",
    "weights_table": "table", "to_csv": "table",
    "entropy_vs_temperature": "curves", "bar_chart": "curves",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"viz.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'viz' has no attribute {name!r}")

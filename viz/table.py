"""One query's attention as a table: "when the model processes 'cat': The 0.12, cat 0.35, ..."."""

from __future__ import annotations

import numpy as np
import pandas as pd

DEFAULT_LABELS = {"position": "position", "token": "token", "weight": "weight", "masked": "masked"}
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def weights_table(key_tokens, row, mask_row=None, labels: dict | None = None) -> pd.DataFrame:
    """One row per key token: position (0-based), token, weight (float), masked (bool).

    Column names come from ``labels`` (translated by the page). Masked keys keep their weight,
    which is exactly 0, and are flagged. The page shows it with st.dataframe and a ProgressColumn.
    """
    labels = {**DEFAULT_LABELS, **(labels or {})}
    row = np.asarray(row, dtype=np.float64)
    if row.shape != (len(key_tokens),):
        raise ValueError(f"row {row.shape} does not match {len(key_tokens)} key tokens")
    masked = np.zeros(len(row), bool) if mask_row is None else ~np.asarray(mask_row, bool).reshape(len(row))
    return pd.DataFrame(
        {
            labels["position"]: np.arange(len(row), dtype=np.int64),
            labels["token"]: [str(t) for t in key_tokens],
            labels["weight"]: row,
            labels["masked"]: masked,
        }
    )


def _defuse(value):
    """A cell starting with = + - @ is a formula to a spreadsheet; a leading ' keeps it text."""
    if isinstance(value, str) and len(value) > 1 and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def to_csv(df: pd.DataFrame) -> bytes:
    """CSV bytes, UTF-8 with a BOM so Excel opens Chinese text correctly; token cells that a
    spreadsheet would run as a formula are prefixed with '."""
    safe = df.copy()
    for col in safe.columns:
        if safe[col].dtype == object or pd.api.types.is_string_dtype(safe[col]):
            safe[col] = safe[col].map(_defuse)
    return safe.to_csv(index=False).encode("utf-8-sig")

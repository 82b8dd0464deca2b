"""A chart's text alternative, as data: what a screen reader reads, since it cannot read the chart's
canvas. Language-neutral: each sentence is a string key of ui/strings (alt_heatmap, alt_line, ...)
with its values, numbers already written; ui/layout.py only puts them in the reader's language.

The chart functions that hold the raw arrays attach their sentences to the figure they return
(with_alt: viz/heatmap.py's heatmap, every heatmap in the app, from its values before they are
encoded for the browser; the model view); for any other figure, describe() reads its traces. A
figure's alternative is computed from its own data, never written by hand, so it follows the
sentence shown (tests/test_chart_alt.py).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

import numpy as np

ALT_ROWS = 12  # a heatmap's text alternative names the top column of at most this many rows
_ATTR = "_attn_alt"  # where with_alt keeps the sentences on a figure (plotly lets "_" names through)


@dataclass(frozen=True)
class Sentence:
    """One sentence: a string key and its values. A value that is a list of Sentences is read as
    those sentences joined by "; " (a heatmap's rows, the largest bars)."""

    key: str
    params: dict = field(default_factory=dict)


def with_alt(fig, sentences: list[Sentence]):
    """fig, carrying its text alternative (alt_of reads it back)."""
    setattr(fig, _ATTR, tuple(sentences))
    return fig


def alt_of(fig) -> tuple[Sentence, ...]:
    """The figure's text alternative: the sentences its chart function attached, else describe(fig)."""
    attached = getattr(fig, _ATTR, None)
    return attached if attached is not None else tuple(describe(fig))


def num(v) -> str:
    return f"{float(v):.3g}" if abs(float(v)) < 1000 else f"{float(v):,.0f}"


def label(v) -> str:
    """A tick or category as the reader sees it: plotly's markup and escapes undone, a whole
    float written without its ".0"."""
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return html.unescape(re.sub(r"<[^>]+>", "", str(v))).strip()


def title_sentence(title) -> list[Sentence]:
    return [Sentence("alt_chart_title", {"title": label(title)})] if title else []


def heatmap_sentences(z, rows, cols) -> list[Sentence]:
    """A (rows, cols) matrix (NaN where masked): its size and each row's largest cell. rows, cols:
    the labels as the reader sees them (None: 1, 2, ...)."""
    z = np.asarray(z, dtype=float)
    if z.ndim != 2 or z.size == 0:
        return []
    rows = [str(r) for r in rows] if rows is not None else list(range(1, z.shape[0] + 1))
    cols = [str(c) for c in cols] if cols is not None else list(range(1, z.shape[1] + 1))
    tops = []
    for i in range(min(z.shape[0], ALT_ROWS)):
        row = z[i]
        if not np.isfinite(row).any():
            continue
        j = int(np.nanargmax(np.where(np.isfinite(row), row, -np.inf)))
        tops.append(
            Sentence(
                "alt_heat_top",
                {
                    "row": rows[i] if i < len(rows) else i + 1,
                    "col": cols[j] if j < len(cols) else j + 1,
                    "v": num(row[j]),
                },
            )
        )
    out = [Sentence("alt_heatmap", {"rows": z.shape[0], "cols": z.shape[1], "tops": tops})]
    if z.shape[0] > ALT_ROWS:
        out.append(Sentence("alt_heat_more", {"n": z.shape[0] - ALT_ROWS}))
    return out


def line_sentence(name, xs, ys) -> list[Sentence]:
    """One line: its name, first and last point, and its highest."""
    ys = np.asarray(ys, dtype=float)
    ok = np.isfinite(ys)
    if not ok.any():
        return []
    xs, ys = np.asarray(xs, dtype=object)[ok], ys[ok]
    k = int(np.argmax(ys))
    params = {"x0": label(xs[0]), "y0": num(ys[0]), "x1": label(xs[-1]), "y1": num(ys[-1])}
    params |= {"xmax": label(xs[k]), "ymax": num(ys[k]), "n": len(ys)}
    return [Sentence("alt_line", {"name": label(name) if name else Sentence("alt_line_unnamed"), **params})]


def bars_sentence(name, names, values) -> list[Sentence]:
    """Bars: how many, and the five largest."""
    v = np.asarray(values, dtype=float)
    if v.size == 0:
        return []
    names = [label(n) for n in (names if names is not None else range(len(v)))]
    order = np.argsort(-np.nan_to_num(v, nan=-np.inf))[:5]
    tops = [f"{names[i]} {num(v[i])}" for i in order if i < len(names)]
    return [Sentence("alt_bars", {"name": label(name) if name else "", "n": len(v), "tops": "; ".join(tops)})]


def image_sentence() -> list[Sentence]:
    return [Sentence("alt_image")]


# -- a figure whose chart function attached nothing: read from its traces --------------------------------------
def _values(v):
    """A trace's array as numpy floats (None cells as NaN; ragged rows padded), or an object array for text."""
    if v is None:
        return None
    rows = list(v) if isinstance(v, (list, tuple)) else None
    if rows and all(isinstance(r, (list, tuple, np.ndarray)) for r in rows):  # ragged: masked cells left out
        width = max(len(r) for r in rows)
        v = [[np.nan if x is None else x for x in r] + [np.nan] * (width - len(r)) for r in rows]
    try:
        return np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        a = np.asarray(v, dtype=object)
        try:
            return np.vectorize(lambda x: np.nan if x is None else float(x), otypes=[float])(a)
        except (TypeError, ValueError):
            return a


def _ticks(axis):
    """{tick value: tick text} of an axis that writes its own tick labels (category indices, steps)."""
    vals, text = getattr(axis, "tickvals", None), getattr(axis, "ticktext", None)
    if vals is None or text is None:
        return {}
    return {float(v) if isinstance(v, (int, float)) else v: t for v, t in zip(vals, text)}


def _named(values, ticks: dict) -> list:
    return [ticks.get(float(v) if isinstance(v, (int, float)) else v, v) for v in values]


def describe(fig) -> list[Sentence]:
    """Sentences read from a figure's traces: its title; for a heatmap, its size and each row's
    largest cell; for lines, each line's name, first and last point and its highest; for bars, the
    largest bars; for an image (the model view), what it is."""
    layout = fig.layout
    out = title_sentence(getattr(getattr(layout, "title", None), "text", None))
    for tr in fig.data:
        kind = getattr(tr, "type", "")
        if kind == "heatmap":
            z = _values(tr.z)
            if z is None or z.dtype == object:
                continue
            rows = None if tr.y is None else [label(v) for v in _named(tr.y, _ticks(layout.yaxis))]
            cols = None if tr.x is None else [label(v) for v in _named(tr.x, _ticks(layout.xaxis))]
            out += heatmap_sentences(z, rows, cols)
        elif kind in ("scatter", "scattergl") and getattr(tr, "y", None) is not None:
            if not tr.name and "lines" not in str(tr.mode or "lines"):
                continue  # invisible markers for clicks (the model view's tiles), not data
            y = _values(tr.y)
            if y is None or y.dtype == object or y.size == 0:
                continue
            x = tr.x if tr.x is not None else np.arange(len(y))
            out += line_sentence(tr.name, _named(list(x), _ticks(layout.xaxis)), y)
        elif kind == "bar":
            horizontal = getattr(tr, "orientation", None) == "h"
            v = _values(tr.x if horizontal else tr.y)
            if v is None or v.dtype == object or v.size == 0:
                continue
            names = tr.y if horizontal else tr.x
            ticks = _ticks(layout.yaxis if horizontal else layout.xaxis)
            out += bars_sentence(tr.name, _named(names if names is not None else range(len(v)), ticks), v)
        elif kind == "image":
            out += image_sentence()
    return out

"""Every heatmap in the app is drawn by heatmap() (options: labels, colour scale and range, zero-centred,
values in the cells, masked cells, hover, size, panels side by side); attention_heatmap is its
preset for attention weights. Pure: arrays and labels in, go.Figure out."""

from __future__ import annotations

import base64
import html
import math
import unicodedata

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from viz.alt import heatmap_sentences, title_sentence, with_alt
from viz.colors import COLORSCALE, MASKED, add_hatch, figure, hatch_image


def esc(text) -> str:
    """Plotly renders a subset of HTML in labels and hovers; user text must stay literal text.
    (quote=False: plotly decodes &lt; &gt; &amp; but would print &quot; as is.)"""
    return html.escape(str(text), quote=False)


def tick_step(n: int, max_ticks: int = 80, pixels: float | None = None, font: int = 12) -> int:
    """Label every token up to max_ticks, beyond that every n-th (about 40 labels). With the axis'
    length in ``pixels``, also at least (font + 4) px between two labels, so they never overlap."""
    step = 1 if n <= max_ticks else math.ceil(n / 40)
    if pixels and n:
        step = max(step, math.ceil((font + 4) / (pixels / n)))
    return step


AXIS_X_PX = 560  # the width a heatmap gets in the page's narrower column (at 1280 px)


def label_px(text: str, font: float) -> float:
    """A label's width in px at font px, from above: a Chinese character (East Asian wide or
    full-width) is one em, any other character 0.62 em (wider than the average Latin letter)."""
    return sum(font if unicodedata.east_asian_width(c) in "WF" else 0.62 * font for c in str(text))


def fits_upright(labels, pixels: float, n: int, step: int, font: float) -> bool:
    """Whether every shown column label, written upright, fits the width its tick has (step
    columns of pixels / n): such labels are never rotated (issue 50.6: 狗 / 咬 / 人 were turned
    90 degrees by a rule on the number of columns)."""
    room = pixels / max(n, 1) * step
    return all(label_px(t, font) + 4 <= room for t in labels)


def categories(tokens) -> list[str]:
    """Unique axis categories "token (position)": plotly would merge two equal labels ("the"
    twice) into one row, and the position tells the two apart in the hover too."""
    return [f"{esc(t)} ({i})" for i, t in enumerate(tokens)]


def _z_values(w: np.ndarray, mask: np.ndarray) -> list[list]:
    """z for a matrix with masked cells: nested lists in which a masked cell has no value.

    Plotly shows a hover's fallback text ("masked") only for a cell that has no value at all (a
    NaN in a binary float32 array is a value: its hover reads "NaN"). Where every row's masked
    cells are at its end (causal, right padding: the masks our models make) each row is cut to
    its allowed cells, else a masked cell is None; numbers in float32's shortest exact form.
    """
    allowed = mask.sum(axis=1)
    prefix = np.cumprod(mask, axis=1).sum(axis=1)
    if np.array_equal(allowed, prefix):
        return [list(map(float, w[r, :n].astype(str))) for r, n in enumerate(allowed)]
    text = w.astype(str)
    return [[float(x) if ok else None for x, ok in zip(row, keep)] for row, keep in zip(text, mask)]


def heatmap_weights(fig) -> np.ndarray:
    """The (rows, cols) values a heatmap from heatmap() holds, NaN where masked. fig: the go.Figure,
    or its JSON as a dict (what a page sends: plotly writes a number array as base64)."""
    trace = fig["data"][0] if isinstance(fig, dict) else fig.data[0]
    z = trace["z"]
    if isinstance(z, dict):
        shape = [int(n) for n in str(z["shape"]).split(",")]
        z = np.frombuffer(base64.b64decode(z["bdata"]), dtype=z["dtype"]).reshape(shape)
    if isinstance(z, np.ndarray):
        return z.astype(np.float32)
    out = np.full((len(z), len(trace["x"])), np.nan, dtype=np.float32)  # masked: x is always given
    for r, row in enumerate(z):
        out[r, : len(row)] = [np.nan if x is None else x for x in row]
    return out


def _categories(tokens, positions: str) -> list[str]:
    return [esc(t) for t in tokens] if positions == "none" else categories(tokens)


def _axis(tokens, title: str, pixels: float, positions: str, max_ticks: int) -> dict:
    """A heatmap axis. tokens None: the row or column numbers 0, 1, ... as a numeric axis. Else one
    category per token (see categories; positions "none": the labels are unique names, used as
    they are), labelled every n-th when long (at least font + 4 px apart), at a readable size."""
    common = dict(title=dict(text=esc(title)), automargin=True, showgrid=False, zeroline=False)
    if tokens is None:
        return common
    tokens = list(tokens)
    cats = _categories(tokens, positions)
    shown = cats if positions == "ticks" else [esc(t) for t in tokens]
    font = 12 if len(tokens) <= 40 else 11
    step = tick_step(len(tokens), max_ticks, pixels, font)
    raw = [html.unescape(c) for c in cats] if positions == "ticks" else [str(t) for t in tokens]  # as shown
    return dict(
        common,
        type="category",
        tickmode="array",
        tickvals=cats[::step],
        ticktext=shown[::step],
        tickfont=dict(size=font, color="#222222"),
        upright=fits_upright(raw[::step], pixels, len(tokens), step, font),
    )


def _range(v: np.ndarray, mask, zmin, zmax, zero_centred: bool) -> tuple[float, float]:
    """The colour range: zero_centred -m..m with m the largest |value| shown; else zmin..zmax,
    either one None taken from the values shown."""
    visible = v if mask is None else v[mask]
    visible = visible[np.isfinite(visible)]
    if zero_centred:
        m = float(np.max(np.abs(visible))) if visible.size else 1.0
        m = m if m > 0 else 1.0
        return -m, m
    lo = (float(visible.min()) if visible.size else 0.0) if zmin is None else float(zmin)
    hi = (float(visible.max()) if visible.size else 1.0) if zmax is None else float(zmax)
    return lo, hi


def heatmap(
    values,
    rows=None,
    cols=None,
    *,
    mask=None,
    labels: dict | None = None,
    title: str = "",
    scale=COLORSCALE,
    zmin=0.0,
    zmax=1.0,
    zero_centred: bool = False,
    annotate: bool | None = False,
    cell_format: str = ".2f",
    masked_text: str | None = None,
    hover: str = "%{y} → %{x}: %{z:.4f}",
    hover_text=None,
    positions: str = "hover",
    colorbar: bool = True,
    gaps: int = 0,
    tick_angle: int | None = None,
    height: int | None = None,
    max_ticks: int = 80,
    panel_titles=None,
) -> go.Figure:
    """Every heatmap in the app: a (rows, cols) matrix as a go.Figure, row 0 at the top.

    values: (R, C), or (P, R, C) with ``panel_titles`` (P of them): P heatmaps side by side on one
    colour scale (or one range each: zmin / zmax as P numbers); only the first panel labels its
    rows, and a row of panels labels its columns only when they are numbers.
    rows, cols: the tokens on each side (every label HTML-escaped); None: the numbers 0, 1, ...
    positions: "hover" (tokens can repeat, so the hover names a cell's by its position too,
    "the (4)"), "ticks" (the axis too), "none" (the labels are unique names: Head 1, Layer 2).
    labels: "x", "y" (axis titles), "value" (the colour bar's title), "masked" (the hover of a
    masked cell; without it masked cells have no hover).
    Colour: ``scale`` from zmin to zmax (default 0..1, attention weights; None: from the values
    shown), or -m..m around 0 (``zero_centred``, m the largest |value| shown).
    mask (bool, False = masked): those cells have no value (heatmap_weights reads NaN): the
    hatched grey background shows through, out of the colour range; ``masked_text`` is written
    in them and is their hover (else labels["masked"]).
    annotate: write each value (``cell_format``) in its cell; None: when both sides have at most
    12 cells. hover: the hover template (plotly's %{x}, %{y}, %{z}; %{customdata} is
    ``hover_text``, one string per cell). gaps: px between cells. height: default from the rows.
    """
    labels = {"x": "", "y": "", "value": "", "masked": None, **(labels or {})}
    v = np.asarray(values, dtype=np.float64)
    panels = v[None] if panel_titles is None else v
    if panels.ndim != 3 or (panel_titles is not None and len(panel_titles) != len(panels)):
        raise ValueError(f"values of shape {v.shape} are not one matrix or one per panel title")
    _, n_rows, n_cols = panels.shape
    for side, tokens, n in (("row", rows, n_rows), ("column", cols, n_cols)):
        if tokens is not None and len(tokens) != n:
            raise ValueError(f"{len(tokens)} {side} labels for {n} {side}s: values {v.shape} do not match")
    masked_any = False
    if mask is not None:
        mask = np.asarray(mask, bool)
        if mask.shape != (n_rows, n_cols):
            raise ValueError(f"mask {mask.shape} does not match values {v.shape}")
        masked_any = not mask.all()
    if annotate is None:
        annotate = max(n_rows, n_cols) <= 12
    fallback = masked_text or labels["masked"]
    xcat, ycat = (None if t is None else _categories(t, positions) for t in (cols, rows))
    if xcat is None and masked_any:  # rows cut short: the columns are not all in any one row
        xcat = list(range(n_cols))
    one_range = np.ndim(zmin) == np.ndim(zmax) == 0
    lows, highs = ([z] * len(panels) if np.ndim(z) == 0 else list(z) for z in (zmin, zmax))
    traces = []
    for i, (p, lo, hi) in enumerate(zip(panels, lows, highs)):
        lo, hi = _range(p, mask, lo, hi, zero_centred)
        heat = dict(
            type="heatmap",
            z=_z_values(p.astype(np.float32), mask) if masked_any else p.astype(np.float32),
            zmin=lo,
            zmax=hi,
            colorscale=scale,
            xgap=gaps,
            ygap=gaps,
            showscale=colorbar and one_range and i == len(panels) - 1,
            colorbar=dict(title=dict(text=esc(labels["value"])), thickness=14),
            hoverongaps=fallback is not None,
            hovertemplate=hover + "<extra></extra>",
        )
        heat.update({k: v for k, v in (("x", xcat), ("y", ycat)) if v is not None})
        if fallback is not None:
            heat.update(hovertemplatefallback=esc(fallback))
        if hover_text is not None:
            heat.update(customdata=np.vectorize(esc, otypes=[object])(np.asarray(hover_text, dtype=object)))
        if annotate:
            heat.update(texttemplate=f"%{{z:{cell_format}}}", texttemplatefallback=esc(masked_text or ""))
        traces.append(heat)

    fig_height = height or int(np.clip(160 + 26 * max(n_rows, 1), 320, 900))
    xaxis = _axis(cols, labels["x"], AXIS_X_PX / len(panels), positions, max_ticks)
    yaxis = {**_axis(rows, labels["y"], fig_height - 120, positions, max_ticks), "autorange": "reversed"}
    yaxis.pop("upright", None)
    if xaxis.pop("upright", False):
        tick_angle = 0  # labels that fit upright stay upright, whatever angle is asked for longer ones
    elif tick_angle is None and cols is not None and n_cols > 12:
        tick_angle = -60
    if tick_angle is not None:
        xaxis["tickangle"] = tick_angle
    layout = dict(
        height=fig_height,
        plot_bgcolor=MASKED if masked_any else "white",
        hoverlabel=dict(namelength=-1),
    )
    if title:
        layout["title"] = dict(text=esc(title))
    # the text alternative from the values themselves (masked cells NaN), before plotly holds them
    shown = [np.where(mask, p, np.nan) if masked_any else p for p in panels]
    alt = title_sentence(title) + [s for p in shown for s in heatmap_sentences(p, rows, cols)]
    if panel_titles is None:
        layout.update(xaxis=xaxis, yaxis=yaxis, margin=dict(l=10, r=10, t=50 if title else 20, b=10))
        if masked_any:
            layout["images"] = [hatch_image()]
        return with_alt(figure(traces, layout), alt)
    fig = make_subplots(
        rows=1,
        cols=len(panels),
        subplot_titles=[esc(t).replace("\n", "<br>") for t in panel_titles],
        horizontal_spacing=0.03,
    )
    for i, heat in enumerate(traces):
        fig.add_trace(go.Heatmap(heat), row=1, col=i + 1)
        fig.update_xaxes(xaxis, showticklabels=cols is None, row=1, col=i + 1)
        fig.update_yaxes(yaxis, showticklabels=i == 0, row=1, col=i + 1)
    top = 20 + 20 * max(1 + str(t).count("\n") for t in panel_titles) + (30 if title else 0)
    fig.update_layout(margin=dict(l=10, r=10, t=top, b=10), **layout)
    if masked_any:
        for i in range(len(panels)):
            add_hatch(fig, "x" if i == 0 else f"x{i + 1}", "y" if i == 0 else f"y{i + 1}")
    return with_alt(fig, alt)


DEFAULT_LABELS = {"x": "Key", "y": "Query", "weight": "Weight", "masked": "masked"}


def attention_heatmap(weights_2d, query_tokens, key_tokens, zmax: float | None = None, labels=None, **options):
    """heatmap() for a (Q, K) attention matrix: queries down the side, keys along the bottom, the
    colour fixed to 0..zmax (default 1) so two heatmaps compare, the values written in the cells
    when both sides have at most 12 tokens. labels: "x", "y", "weight" (the colour bar), "masked".
    options: heatmap()'s (mask, title, height, annotate, ...)."""
    labels = {**DEFAULT_LABELS, **(labels or {})}
    options.setdefault("annotate", None)
    return heatmap(
        weights_2d,
        query_tokens,
        key_tokens,
        zmax=1.0 if zmax is None else zmax,
        labels={**labels, "value": labels["weight"]},
        **options,
    )

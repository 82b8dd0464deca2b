"""One colour scale for every attention chart, so a weight has the same colour everywhere."""

from __future__ import annotations

import base64
import io
from functools import lru_cache

import numpy as np
import plotly.graph_objects as go

# ColorBrewer Blues: 0 is near-white (nothing attended), 1 dark blue. Masked cells are a neutral
# grey that is not on this scale, so "masked" never reads as "weight 0".
COLORSCALE = [
    [0.0, "#f7fbff"],
    [0.125, "#deebf7"],
    [0.25, "#c6dbef"],
    [0.375, "#9ecae1"],
    [0.5, "#6baed6"],
    [0.625, "#4292c6"],
    [0.75, "#2171b5"],
    [0.875, "#08519c"],
    [1.0, "#08306b"],
]
MASKED = "#b4b4b4"
MASKED_HATCH = "#8c8c8c"
BACKGROUND = "#ffffff"
HIGHLIGHT = "#e6550d"

# One categorical palette for every line chart and every head colour: Okabe & Ito's colour-blind
# safe set (Okabe, Ito 2008, "Color Universal Design"), without its yellow (#F0E442, 1.2:1 on white),
# ordered so the first lines have the most contrast on white (blue 5.1:1, vermillion 3.8:1, bluish
# green 3.3:1, reddish purple 3.0:1, black; orange and sky blue last, about 2:1). Colour is never the
# only cue: line_style() gives each line a dash pattern and a marker symbol as well.
OKABE_ITO = [
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#000000",  # black
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
]
HEAD_COLORS = OKABE_ITO
# the second cue: with 7 colours and 5 dashes, lines 0..34 each get a different (colour, dash) pair
DASHES = ["solid", "dash", "dot", "dashdot", "longdash"]
SYMBOLS = ["circle", "square", "diamond", "triangle-up", "x", "cross", "triangle-down", "star"]


def line_style(i: int) -> dict:
    """The i-th line's look: colour (OKABE_ITO in turn), dash and marker symbol. Neighbouring lines
    differ in all three; the (colour, dash) pair repeats only after len(OKABE_ITO) * len(DASHES)."""
    n = len(OKABE_ITO)
    return {
        "color": OKABE_ITO[i % n],
        "dash": DASHES[(i + i // n) % len(DASHES)],
        "symbol": SYMBOLS[i % len(SYMBOLS)],
    }


def line_trace_style(i: int, width: float = 2.0, marker_size: int = 7) -> dict:
    """line_style(i) as plotly Scatter keyword arguments (line=..., marker=...)."""
    s = line_style(i)
    return {
        "line": dict(color=s["color"], dash=s["dash"], width=width),
        "marker": dict(color=s["color"], symbol=s["symbol"], size=marker_size),
    }


# One direction for every signed (diverging) scale in the app: ColorBrewer RdBu reversed, blue below
# 0, white at 0, red above (differences B - A, K / V caches, encodings, biases). Colour-blind safe:
# blue and red stay apart for deuteranopia and protanopia, and lightness carries the magnitude.
DIVERGING = [
    [0.0, "#2166ac"],
    [0.1, "#4393c3"],
    [0.2, "#92c5de"],
    [0.35, "#d1e5f0"],
    [0.5, "#f7f7f7"],
    [0.65, "#fddbc7"],
    [0.8, "#f4a582"],
    [0.9, "#d6604d"],
    [1.0, "#b2182b"],
]
# its halves, for data of one sign: white is always 0, blue always below it, red always above
NEGATIVE = [[0.0, "#2166ac"], [0.5, "#92c5de"], [1.0, "#f7f7f7"]]
POSITIVE = [[0.0, "#f7f7f7"], [0.5, "#f4a582"], [1.0, "#b2182b"]]


def hex_to_rgb(color: str) -> tuple[int, int, int]:
    c = color.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


@lru_cache(maxsize=8)
def lut(levels: int = 240) -> np.ndarray:
    """(levels, 3) uint8: COLORSCALE sampled at ``levels`` evenly spaced points of 0..1."""
    stops = np.array([s for s, _ in COLORSCALE])
    rgb = np.array([hex_to_rgb(c) for _, c in COLORSCALE], dtype=np.float64)
    t = np.linspace(0.0, 1.0, levels)
    out = np.stack([np.interp(t, stops, rgb[:, i]) for i in range(3)], axis=-1)
    out = np.round(out).astype(np.uint8)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=1)
def hatch_png_uri(size: int = 400, period: int = 10) -> str:
    """A small PNG of grey diagonal stripes, as a data URI, drawn behind heatmaps so masked
    (transparent, NaN) cells show as hatched."""
    from PIL import Image

    yy, xx = np.mgrid[0:size, 0:size]
    stripe = ((xx + yy) % period) < period // 3
    img = np.empty((size, size, 3), dtype=np.uint8)
    img[...] = hex_to_rgb(MASKED)
    img[stripe] = hex_to_rgb(MASKED_HATCH)
    buf = io.BytesIO()
    Image.fromarray(img).convert("P", palette=Image.Palette.ADAPTIVE, colors=2).save(buf, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def hatch_image(xaxis: str = "x", yaxis: str = "y") -> dict:
    """The hatch (hatch_png_uri) as a layout image behind the plot area of the axes xaxis, yaxis
    ("x2", "y2" for a second panel), so a figure's masked cells show hatched."""
    return dict(
        source=hatch_png_uri(),
        xref=f"{xaxis} domain",
        yref=f"{yaxis} domain",
        x=0,
        y=1,
        sizex=1,
        sizey=1,
        sizing="stretch",
        layer="below",
        xanchor="left",
        yanchor="top",
    )


def add_hatch(fig, xaxis: str = "x", yaxis: str = "y") -> None:
    """Lays the hatch behind the plot area of a plotly figure (see hatch_image)."""
    fig.add_layout_image(hatch_image(xaxis, yaxis))


def figure(data: list[dict], layout: dict) -> go.Figure:
    """A go.Figure from plain trace and layout dicts, without plotly's property-by-property checks.

    Building a heatmap through go.Heatmap(...) and update_layout(...) spent 15-40 ms in plotly's
    validators and property-path parsing, about a quarter of the home page's CPU per new sentence
    (py-spy, 4 sessions); from dicts it takes a fifth of that. What is skipped is checked once in
    the tests instead: tests/test_viz.py validates the figures of every preset with go.Figure(fig.to_dict())
    and compares them with plotly's own build.
    """
    return go.Figure({"data": data, "layout": layout}, _validate=False)


def png_data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")

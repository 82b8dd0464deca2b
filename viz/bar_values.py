"""The numbers written on bar charts (a bar's probability, how many students chose an option):
one style for every such chart, readable on a phone and from the back of a room.

Plotly shrinks a bar's outside text to the bar's width unless told not to (constraintext): on a
390 px phone eight bars' values were drawn at 8.4 px, on a projector at 14 px, whatever font
size the chart asked for. Here they keep their size (VALUE_FONT on a screen; ui.layout.enlarge
raises them to PRESENT_VALUE_FONT on a projector) and are not clipped at the plot's top. More bars
than FLAT_MAX leave a value less room than "0.02" takes at that size (15 bars on half a 1280 px
projector: 0.02 0.02 ... ran into each other): their values stand upright above their bars, and
the chart keeps HEADROOM_UPRIGHT of its range above the tallest bar for them.
"""

from __future__ import annotations

VALUE_FONT = 14  # px: a bar's value on a screen (a phone included: >= 12 px, issue 50 item 9)
PRESENT_VALUE_FONT = 18  # px: on a projector (presentation mode), read from the back of a room
VALUE_INK = "#111"
FLAT_MAX = 8  # bars whose values are written level; more: upright
HEADROOM_UPRIGHT = 1.5  # the y range's top over the tallest bar when values stand upright


def upright(n_bars: int) -> bool:
    return n_bars > FLAT_MAX


def value_style(size: int = VALUE_FONT, n_bars: int = 0) -> dict:
    """go.Bar keyword arguments for values written above n_bars bars at ``size`` px, never shrunk,
    upright where the bars are many."""
    return dict(
        textposition="outside",
        cliponaxis=False,
        constraintext="none",
        textangle=-90 if upright(n_bars) else 0,
        textfont=dict(size=max(int(size), VALUE_FONT), color=VALUE_INK),
    )


def keep_values_large(fig, size: int = PRESENT_VALUE_FONT):
    """Every bar trace that writes values: at least ``size`` px and never shrunk (the projector)."""
    for trace in fig.data:
        if getattr(trace, "type", None) == "bar" and trace.text is not None:
            trace.update(constraintext="none", cliponaxis=False)
            trace.textfont.size = max(size, trace.textfont.size or 0)
    return fig

"""Bar values keep a readable size (viz/bar_values.py; the browser measures them in
the phone and projector walks, tests/browser/screens.py's bar_value_problems): every bar chart that writes values asks plotly not to shrink them
to the bar's width, at >= 12 px on a screen and >= 18 px once enlarged for a projector."""

from __future__ import annotations

import numpy as np

from ui.layout import enlarge
from viz.bar_values import PRESENT_VALUE_FONT
from viz.generation import next_token_bars
from viz.lessons import bars


def charts():
    probs = np.array([0.53, 0.26, 0.02, 0.02, 0.01, 0.01, 0.004, 0.003])
    yield "next_token_bars", next_token_bars([f"t{i}" for i in range(8)], probs)
    yield "lessons.bars", bars([f"option {i}" for i in range(8)], probs)
    yield "lessons.bars counts", bars(["a", "b", "c"], [3, 0, 1], counts=True)


def test_every_bar_value_is_never_shrunk_and_readable():
    seen = 0
    for name, fig in charts():
        for trace in fig.data:
            if trace.type != "bar" or trace.text is None:
                continue
            seen += 1
            assert trace.constraintext == "none" and trace.cliponaxis is False, name
            assert trace.textfont.size >= 12, (name, trace.textfont.size)
            big = enlarge(type(fig)(fig)).data[0]
            assert big.textfont.size >= PRESENT_VALUE_FONT and big.constraintext == "none", name
    assert seen == 3


def test_many_bars_write_their_values_upright_with_room_above():
    """15 bars (the generation page's) leave a value less room than it takes level: upright,
    and the y range holds them above the tallest bar; 8 bars stay level."""
    from viz.bar_values import FLAT_MAX, HEADROOM_UPRIGHT

    probs = np.linspace(0.5, 0.01, 15)
    fig = next_token_bars([f"t{i}" for i in range(15)], probs)
    assert fig.data[0].textangle == -90 and fig.layout.yaxis.range[1] >= HEADROOM_UPRIGHT * 0.5
    few = next_token_bars([f"t{i}" for i in range(FLAT_MAX)], probs[:FLAT_MAX])
    assert few.data[0].textangle == 0

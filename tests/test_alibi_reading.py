"""Where the steep ALiBi heads read near is measured, not said of every layer (issue 46): the help text
said "Steep heads look close by, shallow heads far away" of the trained gpt-alibi, true in its layer 1
only. The page now says what the bias does (definitional) and shows the measured layers and distances,
computed here again with numpy on the traces."""

from __future__ import annotations

import apptest
import numpy as np
import pytest

from analysis import reading_distance as ex
from analysis import timeline
from ui.i18n import TABLE


def distances_by_hand(runner) -> np.ndarray:
    out = []
    for text in timeline.gpt_probe():
        w = np.asarray(runner.trace(text).attention["decoder"].weights, np.float64)
        n = w.shape[-1]
        per_row = [
            [[sum(w[la, h, i, j] * (i - j) for j in range(i + 1)) for i in range(1, n)] for h in range(w.shape[1])]
            for la in range(w.shape[0])
        ]
        out.append(np.mean(per_row, axis=-1))
    return np.mean(out, axis=0)


def test_the_reading_distances_agree_with_numpy_and_layer_1_alone_orders_them(runners):
    r = runners("gpt-alibi")
    d = distances_by_hand(r)
    np.testing.assert_allclose(ex.attention_distances(r), d, atol=1e-9)
    slopes = 2.0 ** (-8.0 * np.arange(1, r.config.num_heads + 1) / r.config.num_heads)  # m_h = 2^(-8h/H)
    ordered, near = ex.alibi_reading(r)
    np.testing.assert_allclose(ordered, d[:, np.argsort(-slopes)], atol=1e-9)
    rising = [la + 1 for la in range(d.shape[0]) if np.all(np.diff(d[la, np.argsort(-slopes)]) > 0)]
    assert near == rising == [1]


def test_steep_reads_near_on_made_up_distances():
    slopes = np.array([0.25, 0.0625, 0.0156])
    assert ex.steep_reads_near(np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [1.0, 3.0, 2.0]]), slopes) == [1]
    assert ex.steep_reads_near(np.array([[2.0, 2.0, 2.0]]), slopes) == []  # equal: not nearer


@pytest.mark.slow  # the positional page's RoPE and ALiBi section (gpt-rope's charts beside it): ~20 s
def test_the_help_says_what_the_bias_does_and_the_page_what_was_measured(runners):
    for lang in ("en", "zh"):
        help_ = TABLE["pos_alibi_help"][lang]
        assert "Steep heads look close by" not in help_ and "斜率大的头只看附近" not in help_
    at = apptest.open_page("pages/positional.py", "gpt", 180, sec="rope")
    ordered, near = ex.alibi_reading(runners("gpt-alibi"))
    want = " < ".join(f"{x:.2f}" for x in ordered[0])
    shown = " ".join(c.value for c in at.caption)
    assert f"in layer {near[0]} only" in shown and want in shown, shown

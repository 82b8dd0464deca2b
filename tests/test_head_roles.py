"""Charts and scores that must not say more than the numbers: head roles without the
causal row 0, cross-attention scored by alignment, not by position. Oracles: plain numpy loops."""

import numpy as np

from analysis.measures import head_roles


def causal_uniform(t: int) -> tuple[np.ndarray, np.ndarray]:
    mask = np.tril(np.ones((t, t), bool))
    w = mask / mask.sum(-1, keepdims=True)
    return w[None, None].astype(np.float32), mask


def test_causal_row_zero_is_not_counted_as_first_or_current():
    w, mask = causal_uniform(6)  # a broad head: row i spreads 1/(i+1) over keys 0..i
    df = head_roles(w, mask)
    first = np.mean([w[0, 0, i, 0] for i in range(1, 6)])  # rows with a choice only
    current = np.mean([w[0, 0, i, i] for i in range(1, 6)])
    assert np.isclose(df.loc[0, "first"], first) and np.isclose(df.loc[0, "current"], current)
    assert df.loc[0, "first"] < 0.5  # with row 0 it was (1 + 0.5+...)/6
    assert df.loc[0, "role"] == "broad"


def test_cross_attention_gets_alignment_not_positions():
    rng = np.random.default_rng(0)
    q, k = 5, 7
    w = np.zeros((1, 2, q, k), np.float32)
    perm = rng.permutation(k)[:q]
    w[0, 0, np.arange(q), perm] = 0.9  # head 1: each row looks at one key
    w[0, 0] += 0.1 / k
    w[0, 0] /= w[0, 0].sum(-1, keepdims=True)
    w[0, 1] = 1.0 / k  # head 2: uniform
    # a peaked row is not an aligned one: without word-alignment scores no head is called "align"
    df = head_roles(w, None, cross=True)
    assert "previous" not in df and "current" not in df and "first" not in df
    assert df["align"].isna().all() and "align" not in df["role"].tolist()
    # with the heads' word-alignment scores (analysis.claims.page_alignment), the column is those
    align = np.array([[0.8, 0.1]])
    df = head_roles(w, None, cross=True, align=align)
    np.testing.assert_allclose(df["align"], align.ravel())
    assert df["role"].tolist() == ["align", "broad"]


def test_chinese_uses_one_term_per_concept():
    """掩码 for mask, 词元 for token, "第 N 个头" for a head, nothing left in English."""
    import re

    from ui.i18n import load_area

    for area in ("architecture", "attention", "common", "generation", "positional", "steps", "temperature"):
        for key, entry in load_area(area).items():
            zh = entry.get("zh", "")
            assert not re.search("遮蔽|遮住|遮挡", zh), (key, zh)
            assert not re.search(r"(?<!第 )头 ?\{", zh), (key, zh)  # "头 {n}" -> "第 {n} 个头"
            assert "Ctrl+Enter 生效" not in zh and zh != "Constitutional AI", (key, zh)
            for word in ("查询词", "下一个词", "每个词"):
                assert word not in zh.replace(word + "元", ""), (key, zh)


def pe(n, d):
    """The tutorial's table, recomputed here with numpy (the oracle)."""
    pos = np.arange(n)[:, None]
    i = np.arange(d)[None, :]
    angle = pos / 10000.0 ** ((i - i % 2) / d)
    return np.where(i % 2 == 0, np.sin(angle), np.cos(angle))


def test_pe_dot_products_use_the_datas_range_not_a_symmetric_one():
    from viz.positional import matrix

    table = pe(20, 128)
    dots = table @ table.T
    fig = matrix(dots, "q", "p", "PE(p)·PE(q)")
    heat = fig.data[0]
    assert dots.min() > 0  # every value shown is positive...
    assert heat.zmin == 0.0 and np.isclose(heat.zmax, dots.max())  # ...so the bar runs 0 to the max
    assert heat.colorscale[0][1].lower() == "#f7f7f7"  # white at 0
    signed = matrix(dots - 40, "q", "p", "x")  # signed data: centred at 0
    assert np.isclose(-signed.data[0].zmin, signed.data[0].zmax)


def test_alibi_heads_each_on_their_own_negative_range():
    from model.positional import alibi_bias, alibi_slopes
    from viz.positional import alibi_grid

    n = 12
    bias = alibi_bias(4, n, n).numpy()[0] if alibi_bias(4, n, n).dim() == 4 else alibi_bias(4, n, n).numpy()
    slopes = alibi_slopes(4).numpy()
    causal = np.tril(np.ones((n, n), bool))
    fig = alibi_grid(bias, slopes, causal)
    for h, trace in enumerate(fig.data):
        assert np.isclose(trace.zmin, -slopes[h] * (n - 1), rtol=1e-5) and trace.zmax == 0.0
        assert trace.colorscale[-1][1].lower() == "#f7f7f7"  # 0 is white, below it blue (as on every page): no red
        assert trace.colorscale[0][1].lower() == "#2166ac"


def test_sin_curves_are_smooth_with_whole_positions_marked():
    from viz.positional import pe_curves

    table = pe(30, 16)
    fig = pe_curves(table, [0, 1])
    lines = [tr for tr in fig.data if tr.mode == "lines"]
    marks = [tr for tr in fig.data if tr.mode == "markers"]
    assert len(lines) == 2 and len(marks) == 2
    x = np.asarray(lines[0].x)
    assert len(x) > 10 * len(table)  # many points per position
    np.testing.assert_allclose(lines[0].y, np.sin(x), atol=1e-9)
    np.testing.assert_allclose(lines[1].y, np.cos(x), atol=1e-9)
    np.testing.assert_allclose(marks[0].y, table[:, 0]) and np.testing.assert_array_equal(marks[0].x, np.arange(30))


def test_long_heatmap_labels_never_overlap():
    from viz.heatmap import AXIS_X_PX, attention_heatmap

    n = 96
    tokens = [f"w{i}" for i in range(n)]
    w = np.full((n, n), 1.0 / n, np.float32)
    fig = attention_heatmap(w, tokens, tokens)
    for axis, pixels in ((fig.layout.yaxis, fig.layout.height - 120), (fig.layout.xaxis, AXIS_X_PX)):
        shown = len(axis.ticktext)
        step = n // shown if n % shown == 0 else -(-n // shown)
        assert step * pixels / n >= axis.tickfont.size + 4, (shown, pixels)
        assert shown >= 20  # still readable: a label every few tokens

import base64
import io
import json

import numpy as np
import pytest
from PIL import Image

from viz.curves import entropy_vs_temperature
from viz.generation import next_token_bars
from viz.head_view import head_view, head_view_data, head_view_spec
from viz.heatmap import attention_heatmap, heatmap_weights
from viz.model_view import model_view, pool
from viz.table import to_csv, weights_table

EVIL = "<img src=x onerror=alert(1)>"
TOKENS = ["The", "cat", "<b>x</b>", "<script>", EVIL, "猫", "😺", "שלום", "the"]


def attention(shape, causal=True, seed=0, sharpness=1):
    rng = np.random.default_rng(seed)
    w = rng.random(shape, dtype=np.float32) ** sharpness
    mask = np.tril(np.ones(shape[-2:], bool)) if causal else np.ones(shape[-2:], bool)
    w = w * mask
    return (w / w.sum(-1, keepdims=True)).astype(np.float32), mask


def figure_strings(fig):
    """Every string in the figure as the browser receives it (plotly's JSON writes < as \\u003c,
    so searching the raw JSON text for "<img" would prove nothing)."""
    out = []

    def walk(node):
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, dict):
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(json.loads(fig.to_json()))
    return out


def model_view_image(weights, mask=None, **kw) -> Image.Image:
    """The PNG a model view figure embeds (its first trace's data URI)."""
    fig = model_view(weights, mask=mask, **kw)
    return Image.open(io.BytesIO(base64.b64decode(fig.data[0].source.split(",", 1)[1])))


def decode_z(fig):
    return heatmap_weights(fig)


# ---- heatmap


def test_heatmap_z_equals_weights_and_masked_cells_are_nan():
    n = len(TOKENS)
    w, mask = attention((n, n))
    fig = attention_heatmap(w, TOKENS, TOKENS, mask=mask, labels={"masked": "已遮蔽"})
    z = decode_z(fig)
    assert z.dtype == np.float32
    np.testing.assert_array_equal(z[mask], w[mask])  # exact float32 values
    assert np.isnan(z[~mask]).all()
    # a causal mask: masked cells carry no value at all, so the hover shows the fallback
    assert [len(row) for row in fig.data[0].z] == list(range(1, n + 1))
    heat = fig.data[0]
    assert (heat.zmin, heat.zmax) == (0.0, 1.0)
    assert heat.hovertemplatefallback == "已遮蔽"
    assert fig.layout.yaxis.autorange == "reversed"  # query 0 at the top
    # duplicate labels stay two rows: coordinates are unique, tick text is the token
    assert len(set(heat.y)) == n
    assert fig.layout.xaxis.ticktext[0] == "The" and fig.layout.xaxis.ticktext[-1] == "the"


def test_heatmap_with_a_mask_that_is_not_a_suffix_leaves_those_cells_empty():
    w, _ = attention((4, 4), causal=False)
    mask = np.ones((4, 4), bool)
    mask[:, 0] = False  # left padding (or gpt-local's window)
    w[:, 0] = 0
    fig = attention_heatmap(w, list("abcd"), list("abcd"), mask=mask, labels={"masked": "已遮蔽"})
    z = decode_z(fig)
    assert np.isnan(z[:, 0]).all()
    np.testing.assert_array_equal(z[:, 1:], w[:, 1:])
    # no value at all (not NaN), so the hover says "masked", not "NaN"
    assert [row[0] for row in fig.data[0].z] == [None] * 4
    assert fig.data[0].hoverongaps and fig.data[0].hovertemplatefallback == "已遮蔽"


def test_heatmap_without_mask_and_zmax():
    w, _ = attention((3, 4), causal=False)
    fig = attention_heatmap(w, ["a", "b", "c"], ["w", "x", "y", "z"], zmax=0.5)
    np.testing.assert_array_equal(decode_z(fig), w)
    assert fig.data[0].zmax == 0.5
    with pytest.raises(ValueError):
        attention_heatmap(w, ["a", "b"], ["w", "x", "y", "z"])


def test_heatmap_labels_are_escaped():
    n = len(TOKENS)
    w, mask = attention((n, n))
    fig = attention_heatmap(
        w,
        TOKENS,
        TOKENS,
        mask=mask,
        title="<i>t</i>",
        labels={"x": "<u>k</u>", "y": "q", "weight": "w", "masked": "<m>"},
    )
    strings = figure_strings(fig)
    joined = "\n".join(strings).replace("<extra></extra>", "")  # our own hover markup
    assert "<" not in joined and ">" not in joined  # no other markup reaches plotly.js
    assert "&lt;img src=x onerror=alert(1)&gt;" in strings  # the tick label, escaped
    assert "&lt;img src=x onerror=alert(1)&gt; (4)" in strings  # the hover category
    assert "&lt;script&gt;" in strings and "&lt;b&gt;x&lt;/b&gt;" in strings
    assert "&lt;i&gt;t&lt;/i&gt;" in strings and "&lt;u&gt;k&lt;/u&gt;" in strings
    assert "&lt;m&gt;" in strings  # the masked hover fallback
    assert "猫" in strings and "😺" in strings and "שלום" in strings


@pytest.mark.parametrize("n", [16, 128, 512])
@pytest.mark.parametrize("causal", [True, False])
def test_heatmap_sizes(n, causal):
    w, mask = attention((n, n), causal=causal)
    tokens = [f"tok{i}" for i in range(n)]
    fig = attention_heatmap(w, tokens, tokens, mask=mask)
    text = fig.to_json()
    assert 300 <= fig.layout.height <= 900
    assert len(fig.layout.xaxis.tickvals) <= 80
    if n == 512:
        # unmasked: float32 as base64 (~1.4 MB); causal: the 131k allowed values as text (~1.7 MB)
        assert len(text) < 2_000_000, len(text)
        assert ('"bdata"' in text) == (not causal)


def test_one_heatmap_function_with_options():
    from viz.heatmap import heatmap

    # signed numbers, zero-centred on the cells shown (the masked -1e9 is out of the range)
    v = np.array([[0.5, -1e9], [-2.0, 1.0]])
    mask = np.array([[True, False], [True, True]])
    fig = heatmap(v, ["a", "b"], ["x", "y"], mask=mask, zero_centred=True, masked_text="−∞", annotate=True)
    heat = fig.data[0]
    assert (heat.zmin, heat.zmax) == (-2.0, 2.0)
    assert heat.texttemplatefallback == "−∞" and heat.hovertemplatefallback == "−∞"
    assert fig.layout.plot_bgcolor == "#b4b4b4" and len(fig.layout.images) == 1  # masked: hatched grey
    # the range from the data, numbered axes, no annotations by default
    fig = heatmap([[1.0, 3.0]], zmin=None, zmax=None, labels={"x": "<d>", "value": "v"})
    assert (fig.data[0].zmin, fig.data[0].zmax) == (1.0, 3.0) and fig.data[0].x is None
    assert fig.layout.xaxis.title.text == "&lt;d&gt;" and not fig.data[0].texttemplate
    # names used as they are; positions on the ticks; per-cell hover text escaped
    fig = heatmap([[0.1, 0.2]], ["Layer 1"], ["Head 1", "Head 2"], positions="none")
    assert list(fig.data[0].x) == ["Head 1", "Head 2"] and list(fig.layout.xaxis.ticktext) == ["Head 1", "Head 2"]
    fig = heatmap([[1, 0]], ["a"], ["a", "b"], positions="ticks", hover_text=[["<ok>", "no"]], hover="%{customdata}")
    assert list(fig.layout.xaxis.ticktext) == ["a (0)", "b (1)"] and fig.data[0].customdata[0][0] == "&lt;ok&gt;"
    # panels side by side: one range each (no colour bar) or one shared range (one colour bar)
    stack = np.stack([np.eye(3), 2 * np.eye(3)])
    fig = heatmap(
        stack, zmin=[0, 0], zmax=[1, 2], panel_titles=["A\nfirst", "<B>"], mask=np.tril(np.ones((3, 3), bool))
    )
    assert [(t.zmin, t.zmax) for t in fig.data] == [(0, 1), (0, 2)] and not any(t.showscale for t in fig.data)
    assert [a.text for a in fig.layout.annotations] == ["A<br>first", "&lt;B&gt;"]
    assert len(fig.layout.images) == 2  # each panel's masked cells hatched
    fig = heatmap(stack, ["a", "b", "c"], ["a", "b", "c"], zmax=2, panel_titles=["A", "B"])
    assert [t.showscale for t in fig.data] == [False, True]
    assert fig.layout.yaxis.showticklabels and not fig.layout.yaxis2.showticklabels
    with pytest.raises(ValueError):
        heatmap(stack)  # three dimensions need panel titles


# ---- model view


def test_model_view_tiles_customdata_and_png():
    n_layers, n_heads, t = 2, 3, 10
    w, mask = attention((n_layers, n_heads, t, t))
    fig = model_view(w, mask=mask, selected=(1, 2), labels={"layer": "层", "head": "头"})
    assert fig.data[0].type == "image"
    assert fig.data[0].source.startswith("data:image/png;base64,")
    markers = fig.data[1]
    assert len(markers.x) == n_layers * n_heads
    assert [list(c) for c in markers.customdata] == [[l, h] for l in range(n_layers) for h in range(n_heads)]
    assert markers.text[5] == "层 2 · 头 3"
    assert list(fig.layout.xaxis.ticktext) == ["头 1", "头 2", "头 3"]
    assert list(fig.layout.yaxis.ticktext) == ["层 1", "层 2"]
    assert len(fig.layout.shapes) == 1  # the highlight

    img = model_view_image(w, mask=mask, selected=(1, 2))
    # 10 tokens are upscaled x4 to 40 px tiles, gaps of 2 px
    assert img.size == (3 * 40 + 4 * 2, 2 * 40 + 3 * 2)


def test_model_view_colours_and_mask():
    t = 64
    w = np.zeros((1, 1, t, t), np.float32)
    w[0, 0, :, 0] = 1.0
    mask = np.tril(np.ones((t, t), bool))
    rgb = np.asarray(model_view_image(w, mask=mask).convert("RGB"))
    gap = 4
    tile = rgb[gap : gap + t, gap : gap + t]
    assert tuple(tile[10, 0]) == (8, 48, 107)  # weight 1: top of the colour scale
    assert tuple(tile[10, 5]) == (247, 251, 255)  # weight 0: bottom of it
    assert tuple(tile[0, 10]) == (180, 180, 180)  # masked: neutral grey


def test_pool_max_keeps_a_diagonal():
    w = np.eye(512, dtype=np.float32)[None, None]
    pooled, allowed = pool(w, 64)
    assert pooled.shape == (1, 1, 64, 64) and allowed.all()
    np.testing.assert_array_equal(np.diagonal(pooled[0, 0]), 1.0)
    mean, _ = pool(w, 64, reduce="mean")
    np.testing.assert_allclose(np.diagonal(mean[0, 0]), 1 / 8)


def test_model_view_scales_to_6x12x512():
    w, mask = attention((6, 12, 512, 512), sharpness=8)
    fig = model_view(w, mask=mask, selected=(0, 0))
    assert len(fig.to_json()) < 1_000_000
    img = Image.open(io.BytesIO(base64.b64decode(fig.data[0].source.split(",", 1)[1])))
    assert img.size == (12 * 64 + 13 * 4, 6 * 64 + 7 * 4)


# ---- head view


def test_head_view_selections_and_threshold():
    heads, t = 4, 12
    w, _ = attention((heads, t, t), sharpness=4)
    tokens = TOKENS + ["a", "b", "c"]
    chart = head_view(w, tokens, tokens, threshold=0.05, top_k=3)
    spec = chart.to_dict()
    params = {p["name"]: p for p in spec["params"]}
    assert params["heads"]["bind"] == "legend"
    assert params["heads"]["select"]["fields"] == ["head"]
    # each hover selection listens only to its own column's marks (checked in a browser: without
    # that, pointing at a left token also sets hover_key and hides every line)
    assert params["hover_query"]["select"]["on"] == "@hv_query_marks:pointerover"
    assert params["hover_key"]["select"]["on"] == "@hv_key_marks:pointerover"
    assert params["hover_key"]["select"]["fields"] == ["key"]
    assert [layer["name"] for layer in spec["layer"]] == ["hv_lines", "hv_query", "hv_key"]
    lines = spec["datasets"][spec["layer"][0]["data"]["name"]]
    assert lines and all(r["weight"] >= 0.05 for r in lines)
    per_query = {}
    for r in lines:
        per_query[(r["head"], r["query"])] = per_query.get((r["head"], r["query"]), 0) + 1
    assert max(per_query.values()) <= 3
    for r in lines[:20]:
        assert r["weight"] == pytest.approx(float(w[r["head"] - 1, r["query"], r["key"]]))
        assert r["query_token"] == tokens[r["query"]]
    tips = spec["layer"][0]["encoding"]["tooltip"]
    assert all(tip["type"] in ("nominal", "quantitative") for tip in tips)


@pytest.mark.parametrize(
    "n, options",
    [
        (6, {}),
        (16, {"font_px": 18}),
        (16, {"height": 300, "labels": {"head": "头"}}),
        (40, {"threshold": 0.05, "top_k": 3}),
        (10, {"heads": [1, 3]}),
    ],
)
def test_head_view_spec_is_altairs_own_build(n, options):
    """head_view_spec reuses one Vega-Lite skeleton per shape and puts the sentence in as named
    datasets: the same spec as Altair's build of head_view (checked against its schema), data included."""

    def resolved(spec):
        spec = {k: v for k, v in spec.items() if k != "$schema"}
        datasets = spec.pop("datasets")
        spec["layer"] = [{**layer, "data": datasets[layer["data"]["name"]]} for layer in spec["layer"]]
        return spec

    w, _ = attention((4, n, n), sharpness=4)
    tokens = [f"t{i % 7}" for i in range(n - 2)] + ["<b>", "猫"]
    assert resolved(head_view_spec(w, tokens, tokens, **options)) == resolved(
        head_view(w, tokens, tokens, **options).to_dict()
    )
    twice = head_view_spec(w[:, ::-1], tokens, tokens, **options)  # the cached skeleton takes no data from the first
    assert resolved(twice) == resolved(head_view(w[:, ::-1], tokens, tokens, **options).to_dict())


def test_head_view_data_caps_lines_for_long_inputs():
    w, _ = attention((12, 512, 512), sharpness=8)
    df = head_view_data(w, [str(i) for i in range(512)], [str(i) for i in range(512)])
    assert len(df) <= 4000
    assert df["weight"].min() >= 0.02
    assert all(str(t) in ("int64", "float64", "object", "str") for t in df.dtypes.astype(str))


# ---- table


def test_weights_table_values_equal_row():
    w, mask = attention((5, 5))
    tokens = ["The", "cat", "sat", "on", "The"]
    df = weights_table(
        tokens, w[2], mask_row=mask[2], labels={"position": "位置", "token": "词元", "weight": "权重", "masked": "遮蔽"}
    )
    assert list(df.columns) == ["位置", "词元", "权重", "遮蔽"]
    np.testing.assert_array_equal(df["权重"].to_numpy(), w[2].astype(np.float64))
    assert df["词元"].tolist() == tokens
    assert df["遮蔽"].tolist() == [False, False, False, True, True]
    assert df["位置"].tolist() == [0, 1, 2, 3, 4]


def test_to_csv_has_bom_and_defuses_formulas():
    df = weights_table(["猫", '=HYPERLINK("x")', "-"], np.array([0.5, 0.25, 0.25]))
    data = to_csv(df)
    assert data.startswith(b"\xef\xbb\xbf")
    text = data.decode("utf-8-sig")
    assert "猫" in text
    assert "'=HYPERLINK" in text
    assert "\n2,-,0.25" in text.replace("\r\n", "\n")


# ---- curves


def test_curves():
    temps = np.array([0.1, 1.0, 10.0])
    fig = entropy_vs_temperature(temps, [0.1, 1.0, 2.0], n_keys=8)
    assert fig.layout.shapes[0].y0 == pytest.approx(np.log(8))
    fig = next_token_bars(["the", "the", EVIL], [0.5, 0.3, 0.2], cut=[False, False, True])
    assert len(fig.data[0].x) == 3  # two equal labels stay two bars
    assert fig.data[0].marker.color[2] == "#b4b4b4"  # cut off: grey
    strings = figure_strings(fig)
    assert EVIL not in strings and "&lt;img src=x onerror=alert(1)&gt;" in strings


def test_head_view_for_a_projector_draws_tokens_and_legend_at_16_px_or_more():
    w = np.random.default_rng(0).random((4, 6, 6))
    w /= w.sum(-1, keepdims=True)
    tokens = ["The", "cat", "sat", "on", "the", "mat"]

    def text_sizes(spec):
        return [layer["mark"]["fontSize"] for layer in spec["layer"] if layer["mark"].get("type") == "text"]

    projector = head_view(w, tokens, tokens, font_px=18).to_dict()
    assert text_sizes(projector) and min(text_sizes(projector)) >= 16
    assert projector["config"]["legend"]["labelFontSize"] >= 16
    default = head_view(w, tokens, tokens).to_dict()
    assert text_sizes(default) == [13, 13] and "legend" not in default["config"]


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"mask": np.tril(np.ones((14, 14), bool)), "labels": {"masked": "masked"}, "title": "L1 <b>H2</b>"},
        {"annotate": True, "zmin": None, "zmax": None, "gaps": 1},
        {"zero_centred": True, "hover_text": np.full((14, 14), "<i>x</i>"), "positions": "ticks"},
        {"mask": np.random.default_rng(1).random((14, 14)) > 0.3, "masked_text": "×"},
    ],
)
def test_heatmap_built_without_validation_is_what_plotly_validates(options):
    """viz.colors.figure skips plotly's property checks for speed: plotly's own validated build of
    the same figure (go.Figure(fig.to_dict())) accepts every property and sends the same JSON."""
    import plotly.graph_objects as go
    import plotly.io as pio

    from viz.heatmap import heatmap

    w = np.random.default_rng(0).random((14, 14))
    tokens = ["the", "cat", "the", "<script>", "猫"] + [f"t{i}" for i in range(9)]
    fig = heatmap(w, tokens, tokens, **options)
    checked = go.Figure(fig.to_dict())  # raises on any invalid property or value
    assert json.loads(pio.to_json(checked, validate=False)) == json.loads(pio.to_json(fig, validate=False))


def test_model_view_built_without_validation_is_what_plotly_validates():
    """The model view is built from dicts too (viz.colors.figure): plotly's validated build accepts it."""
    import plotly.graph_objects as go
    import plotly.io as pio

    w, _ = attention((3, 4, 10, 10), sharpness=4)
    fig = model_view(w, np.tril(np.ones((10, 10), bool)), selected=(1, 2), title="<b>t</b>")
    checked = go.Figure(fig.to_dict())
    assert json.loads(pio.to_json(checked, validate=False)) == json.loads(pio.to_json(fig, validate=False))
    assert checked.layout.shapes[0].line.color and list(checked.data[1].customdata[6]) == [1, 2]


# ---- colour: one colour-blind-safe palette for every line, a second cue, one diverging direction


def _srgb_to_lab(hex_colour):
    r, g, b = (int(hex_colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4))
    lin = [((c + 0.055) / 1.055) ** 2.4 if c > 0.04045 else c / 12.92 for c in (r, g, b)]
    x = (0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]) / 0.95047
    y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    z = (0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]) / 1.08883
    f = [v ** (1 / 3) if v > 216 / 24389 else (24389 / 27 * v + 16) / 116 for v in (x, y, z)]
    return 116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])


def _simulate(hex_colour, kind):
    """Machado, Oliveira, Fernandes 2009 (severity 1.0) on linear RGB: what a dichromat sees."""
    m = {
        "deuteranopia": [
            [0.367322, 0.860646, -0.227968],
            [0.280085, 0.672501, 0.047413],
            [-0.011820, 0.042940, 0.968881],
        ],
        "protanopia": [
            [0.152286, 1.052583, -0.204868],
            [0.114503, 0.786281, 0.099216],
            [-0.003882, -0.048116, 1.051998],
        ],
    }[kind]
    rgb = [int(hex_colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = np.array([((c + 0.055) / 1.055) ** 2.4 if c > 0.04045 else c / 12.92 for c in rgb])
    out = np.clip(np.array(m) @ lin, 0, 1)
    srgb = [1.055 * c ** (1 / 2.4) - 0.055 if c > 0.0031308 else 12.92 * c for c in out]
    return "#" + "".join(f"{round(c * 255):02x}" for c in srgb)


def test_okabe_ito_palette_stays_apart_for_colour_blind_readers():
    """Every pair of line colours stays distinguishable (CIE76 delta E >= 15) under simulated
    deuteranopia and protanopia; plotly's default colours (which the cost and timeline lines used)
    do not (green/red and blue/purple fall under 10)."""
    import plotly.colors

    from viz.colors import OKABE_ITO

    def worst(palette, kind):
        labs = [_srgb_to_lab(_simulate(c, kind)) for c in palette]
        return min(np.linalg.norm(np.subtract(a, b)) for i, a in enumerate(labs) for b in labs[i + 1 :])

    for kind in ("deuteranopia", "protanopia"):
        assert worst(OKABE_ITO, kind) >= 15, kind
        assert worst(plotly.colors.qualitative.Plotly[:7], kind) < 10, kind  # the check can fail


def test_line_styles_differ_by_more_than_colour():
    from viz.colors import DASHES, OKABE_ITO, line_style

    styles = [line_style(i) for i in range(len(OKABE_ITO) * len(DASHES))]
    assert len({(s["color"], s["dash"]) for s in styles}) == len(styles)
    for a, b in zip(styles, styles[1:]):  # neighbours differ in colour, dash and marker
        assert a["color"] != b["color"] and a["dash"] != b["dash"] and a["symbol"] != b["symbol"]
    # lines 7..13 repeat the colours of 0..6 but never their dash
    assert all(styles[i]["dash"] != styles[i + len(OKABE_ITO)]["dash"] for i in range(len(OKABE_ITO)))


def _line_charts():
    from viz.cost import online_steps, per_token_cost, scaling_curves, sweep_panels
    from viz.positional import pe_curves, rope_curves
    from viz.timeline import metric_curves, role_lines

    rng = np.random.default_rng(0)
    ns = [16, 64, 256, 1024]
    steps = [0, 10, 100, 1000]
    table = np.array(
        [
            [
                np.sin(p / 10000 ** (2 * (d // 2) / 8)) if d % 2 == 0 else np.cos(p / 10000 ** (2 * (d // 2) / 8))
                for d in range(8)
            ]
            for p in range(12)
        ]
    )
    return {
        "cost scaling": scaling_curves(
            {"d 128": (ns, rng.random(4)), "d 768": (ns, rng.random(4)), "sparse": (ns, rng.random(4))},
            {"x": "n", "y": "s", "n2": "n²", "n1": "n"},
        ),
        "cost sweep": sweep_panels(
            [8, 16, 32], {"max": ([1, 2, 3], [3, 2, 1]), "grad": ([1, 2, 3], [2, 2, 2])}, ("÷√d", "raw"), {"x": "d_k"}
        ),
        "online softmax": online_steps(
            [{"keys": (0, 4), "max": 1.0, "sum": 2.0}, {"keys": (4, 8), "max": 1.5, "sum": 2.5}],
            {"x": "keys", "max": "m", "sum": "l"},
        ),
        "kv cost": per_token_cost([1, 2, 3], [1, 4, 9], [1, 2, 3], ("without", "with"), {"x": "t", "y": "flops"}),
        "timeline metrics": metric_curves(
            steps, {"loss": [3, 2, 1, 0.5], "held-out": [3.1, 2.2, 1.1, 0.6], "exact": [0, 0.1, None, 1]}
        ),
        "timeline roles (one selected)": role_lines(steps, rng.random((4, 3, 4)), selected=(1, 2), chosen=2),
        "timeline roles": role_lines(steps, rng.random((4, 2, 4))),
        "pe curves": pe_curves(table, [0, 1, 4, 5]),
        "rope": rope_curves(np.arange(8), rng.random((3, 8)), [0, 4, 8]),
        "entropy": entropy_vs_temperature(
            [0.5, 1, 2], [[0.1, 0.5, 1.0], [0.2, 0.6, 1.1]], 4, names=["layer 1", "layer 2"]
        ),
    }


GUIDE_GREYS = {"#888888", "#555555", "#333333"}


@pytest.mark.parametrize("name", list(_line_charts()))
def test_every_line_is_okabe_ito_with_a_second_cue_and_a_legend_entry(name):
    from viz.colors import OKABE_ITO

    fig = _line_charts()[name]
    data = [tr for tr in fig.data if tr.type == "scatter" and "lines" in (tr.mode or "")]
    data = [tr for tr in data if (tr.line.color or "").lower() not in GUIDE_GREYS]  # n², n guides: grey, dotted
    assert len(data) >= 2, name
    looks = set()
    for tr in data:
        assert tr.line.color in OKABE_ITO, (name, tr.name, tr.line.color)
        looks.add((tr.name, tr.line.color, tr.line.dash or "solid"))
    # every differently named line differs from every other in colour AND in dash
    by_name = {n: (c, d) for n, c, d in looks}
    colours = [c for c, _ in by_name.values()]
    dashes = [d for _, d in by_name.values()]
    pairs = list(by_name.values())
    assert len(set(pairs)) == len(pairs), (name, pairs)
    if len(pairs) <= len(OKABE_ITO):
        assert len(set(colours)) == len(colours) and len(set(dashes)) == min(len(dashes), 5), (name, pairs)
    # a legend entry for every named line: the trace's own or a shown trace of its legend group
    shown = {tr.legendgroup or tr.name for tr in fig.data if tr.showlegend is not False}
    for tr in data:
        assert tr.showlegend is not False or (tr.legendgroup and tr.legendgroup in shown), (name, tr.name)


def test_timeline_role_lines_name_every_head_in_the_legend():
    from viz.timeline import role_lines

    fig = role_lines([0, 10, 100], np.random.default_rng(1).random((3, 2, 4)), selected=(0, 1))
    named = [tr.name for tr in fig.data if tr.showlegend is not False]
    assert sorted(named) == sorted(f"L{la} H{h}" for la in (1, 2) for h in (1, 2, 3, 4))
    sel = [tr for tr in fig.data if tr.name == "L1 H2"][0]
    others = [tr for tr in fig.data if tr.name != "L1 H2"]
    assert sel.line.width > max(tr.line.width for tr in others) and sel.mode == "lines+markers"


def _low_high(colorscale):
    return colorscale[0][1].lower(), colorscale[-1][1].lower()


def test_one_direction_for_every_diverging_scale():
    """Blue below 0, red above, white at 0: the positional page (which ran red = negative), the
    difference heatmap, the K/V cache, the step page's signed matrices and ALiBi's biases."""
    from viz.colors import DIVERGING, NEGATIVE, POSITIVE
    from viz.cost import matrix_figure
    from viz.intervene import difference_heatmap
    from viz.positional import alibi_grid, matrix
    from viz.steps import matrix_heatmap

    blue, red, white = "#2166ac", "#b2182b", "#f7f7f7"
    assert _low_high(DIVERGING) == (blue, red) and DIVERGING[len(DIVERGING) // 2] == [0.5, white]
    assert _low_high(NEGATIVE) == (blue, white) and _low_high(POSITIVE) == (white, red)
    signed = np.array([[-1.0, 0.5], [0.25, 1.0]])
    figs = {
        "positional": matrix(signed, "x", "y", "v"),
        "difference": difference_heatmap(signed, ["a", "b"], ["c", "d"]),
        "kv cache": matrix_figure(signed, ["a", "b"], "d", "t"),
        "steps": matrix_heatmap(signed, ["a", "b"]),
    }
    for name, fig in figs.items():
        heat = fig.data[0]
        assert _low_high(heat.colorscale) == (blue, red), name
        assert heat.zmin < 0 < heat.zmax and np.isclose(-heat.zmin, heat.zmax), name
    assert _low_high(matrix(-np.abs(signed), "x", "y", "v").data[0].colorscale) == (blue, white)
    alibi = alibi_grid(-np.abs(signed)[None], [0.5])
    assert _low_high(alibi.data[0].colorscale) == (blue, white)


def test_legend_names_break_to_fit_a_phone():
    """A legend entry never wider than LEGEND_CHARS columns (a Chinese character counts two):
    plotly does not wrap one entry, and the cost page's ran 29 px (English) and 11 px (Chinese)
    past a 390 px phone."""
    from viz.curves import LEGEND_CHARS, _cols, legend_name

    for name in (
        "one attention matrix, d_model 768, 12 heads (BERT-base, GPT-2)",
        "一个注意力矩阵，d_model 768，12 个头（BERT-base、GPT-2）",
        "peak measured, ours: d_model 128, 4 heads",
        "x" * 90,
    ):
        parts = legend_name(name).split("<br>")
        assert len(parts) >= 2 and all(_cols(p) <= LEGEND_CHARS for p in parts), parts
        assert "".join(parts).replace(" ", "") == name.replace(" ", "")  # nothing lost
    assert legend_name("L2 H2") == "L2 H2" and legend_name("<b>") == "&lt;b&gt;"

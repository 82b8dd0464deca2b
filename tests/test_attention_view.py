"""The attention view's payload (viz/attention_view.py): what the browser receives, against
independent recomputations (numpy's softmax of the model's recorded scores)."""

from __future__ import annotations

import numpy as np

import model
from viz.attention_view import at_temperature, difference, layers_to_send, pack, thumbnails, unpack


def test_pack_round_trips_the_float32_weights_mask_and_labels():
    rng = np.random.default_rng(0)
    w = rng.dirichlet(np.ones(5), size=(2, 3, 5)).astype(np.float32)
    mask = np.tril(np.ones((5, 5), bool))
    blob = pack(w, mask, {"view": {"layer": 1}, "q_labels": ["a → b", "猫"]}, layer=1)
    header, arrays = unpack(blob)
    assert header["shape"] == [2, 3, 5, 5] and header["layers"] == [0, 1] and header["q_labels"][1] == "猫"
    for la in (0, 1):
        np.testing.assert_array_equal(np.frombuffer(arrays[f"w{la}"], np.float32).reshape(3, 5, 5), w[la])
    np.testing.assert_array_equal(np.frombuffer(arrays["mask"], np.uint8).reshape(5, 5).astype(bool), mask)
    # every array starts 4-aligned, so the browser's Float32Array can view it
    n = int.from_bytes(blob[4:8], "little")
    base = 8 + n + (-(8 + n)) % 4
    assert base % 4 == 0 and all(off % 4 == 0 for off, _ in header["arrays"].values())


def test_further_sources_travel_beside_the_first_with_their_own_labels_and_shapes():
    """compare's B (another sentence: its own rows and keys) and the temperature page's model
    re-run at T travel in the same payload; past the budget together, only the shown layer."""
    rng = np.random.default_rng(1)
    a = rng.dirichlet(np.ones(4), size=(2, 3, 4)).astype(np.float32)
    b = rng.dirichlet(np.ones(5), size=(2, 3, 5)).astype(np.float32)
    mask_b = np.tril(np.ones((5, 5), bool))
    src = {"weights": b, "mask": mask_b, "q_labels": list("vwxyz"), "k_tokens": list("VWXYZ")}
    header, arrays = unpack(pack(a, None, {"view": {"layer": 0}}, layer=0, sources=[src]))
    (described,) = header["sources"]
    assert described["shape"] == [2, 3, 5, 5] and described["layers"] == [0, 1] and described["q_labels"][4] == "z"
    np.testing.assert_array_equal(np.frombuffer(arrays["s1w1"], np.float32).reshape(3, 5, 5), b[1])
    np.testing.assert_array_equal(np.frombuffer(arrays["s1mask"], np.uint8).reshape(5, 5).astype(bool), mask_b)
    assert "mask" not in arrays and all(off % 4 == 0 for off, _ in header["arrays"].values())
    budget = a.nbytes + b.nbytes - 1  # together one byte over: the shown layer of each
    header, arrays = unpack(pack(a, None, {"view": {"layer": 1}}, layer=1, budget=budget, sources=[src]))
    assert header["layers"] == [1] and header["sources"][0]["layers"] == [1] and "s1w0" not in arrays


def test_difference_is_b_minus_a_on_the_rows_and_keys_both_have():
    a = np.arange(12, dtype=np.float32).reshape(3, 4) / 20
    b = np.ones((4, 3), np.float32) / 3
    diff, mask = difference(b, a, np.tril(np.ones((4, 3), bool)), None)
    assert diff.shape == (3, 3) and mask.shape == (3, 3) and not mask[0, 1] and mask[2, 2]
    np.testing.assert_allclose(diff, b[:3, :3] - a[:, :3])
    assert difference(b, a)[1] is None


def test_past_the_budget_only_the_shown_layer_travels():
    # a 30-layer x 9-head model at 512 tokens would be 283 MB of float32
    assert layers_to_send((30, 9, 512, 512), 7) == [7]
    assert layers_to_send((2, 4, 512, 512), 1) == [1]
    assert layers_to_send((2, 4, 64, 64), 1) == [0, 1]


def test_our_models_send_every_layer_and_a_6x12_model_at_128_tokens_only_the_shown_one():
    """The budget's two sides: every shipped model at its longest sentence keeps its layer choice
    in the browser, with a second run of the same size beside it (compare's B); a 6-layer x 12-head
    trace at 128 tokens (bench/views.py's synthetic model) sends one layer, under 1 MB, where every
    layer was 4.7 MB for each new sentence."""
    from bench import synthetic

    assert model.NAMES
    for name in model.NAMES:
        config, _ = model.registry.read_config(name)
        shape = (config.num_layers, config.num_heads, config.max_seq_len, config.max_seq_len)
        size = int(np.prod(shape)) * 4
        assert layers_to_send(shape, 0, extra_bytes=size) == list(range(config.num_layers)), name
    text = synthetic.sentence(128, "budget")
    att = synthetic.trace(text).attention["encoder"]
    w = np.asarray(att.weights, np.float32)
    assert w.shape[:2] == (6, 12) and w.shape[2] == 128
    blob = pack(w, None, {"view": {"layer": 2}}, 2)
    header, arrays = unpack(blob)
    assert header["layers"] == [2] and len(blob) < 1_000_000
    np.testing.assert_array_equal(np.frombuffer(arrays["w2"], np.float32).reshape(w.shape[1:]), w[2])


def test_thumbnails_mark_fully_masked_blocks():
    w = np.zeros((1, 1, 4, 4), np.float32)
    w[0, 0, np.arange(4), np.arange(4)] = 1.0
    idx, (tq, tk) = thumbnails(w, np.tril(np.ones((4, 4), bool)), size=4)
    assert (tq, tk) == (4, 4)
    assert idx[0, 0, 0, 3] == 255 and idx[0, 0, 2, 2] == 250 and idx[0, 0, 3, 0] == 0


def test_softmax_of_log_weights_at_t_is_the_models_softmax_of_scores_at_t():
    """The identity the browser relies on, on the model's own recorded scores (gpt, decoder)."""
    rec: dict = {}
    tr = model.load("gpt").trace("The cat sat on the mat", record=rec)
    att = tr.attention["decoder"]
    for layer, stack in enumerate(rec["decoder"]):
        s = stack["self_attn"]["scores"][0].double().cpu().numpy()
        for T in (0.3, 2.0, 7.0):
            z = s / T
            e = np.exp(z - z.max(axis=-1, keepdims=True))
            want = e / e.sum(axis=-1, keepdims=True)
            got = at_temperature(att.weights[layer], T, att.mask)
            np.testing.assert_allclose(got, want, atol=1e-6, rtol=0)


def test_bind_view_puts_the_fitted_report_into_the_pages_keys():
    """One binding for every page (ui.attention_view.bind_view): a browser's report, fitted by
    fit_view (a field out of range clamped, the temperature in the link's range), lands in the
    session keys the page named; a field the view does not have is refused when the page binds."""
    import pytest
    import streamlit as st

    from ui.attention_view import bind_view, fit_view

    on_view = bind_view(tab=("t_tab", "t_tab2"), layer="t_layer", head="t_head", q="t_q", ltemp="t_ltemp")
    on_view(fit_view({"tab": "model", "layer": 9, "head": "2", "q": -3, "ltemp": 1e9}, (2, 4, 5, 5)))
    got = {k: st.session_state[k] for k in ("t_tab", "t_tab2", "t_layer", "t_head", "t_q", "t_ltemp")}
    assert got == {"t_tab": "model", "t_tab2": "model", "t_layer": 1, "t_head": 2, "t_q": 0, "t_ltemp": 20.0}
    with pytest.raises(ValueError, match="ttemp"):  # the view's old name for every layer's T (temp now)
        bind_view(ttemp="x")


def test_every_page_binds_the_view_with_bind_view():
    """No page writes its own on_view (five copies of one rule before): each on_view= argument in
    pages/ is a name bound to bind_view(...) in that file."""
    import ast
    from pathlib import Path

    seen = 0
    for path in sorted(Path(__file__).resolve().parent.parent.joinpath("pages").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bound = {
            t.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and getattr(node.value.func, "id", "") == "bind_view"
            for t in node.targets
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "on_view":
                seen += 1
                assert isinstance(node.value, ast.Name) and node.value.id in bound, (
                    f"{path.name}: {ast.unparse(node.value)}"
                )
    assert seen >= 5

"""Positional encoding: the sinusoidal table and its relative-position property, the shipped
GPT's learned positions, RoPE and ALiBi, word order (狗咬人 vs 人咬狗) with and without the
encoding, and the three GPTs on texts longer than they were trained on."""

from __future__ import annotations

from ui import boot  # noqa: F401  (first: on a fresh server, a deep link shows the title and a loading message)

# isort: split

import dataclasses

import numpy as np
import pandas as pd
import streamlit as st

from analysis import experiments as ex
from analysis import reading_distance
from analysis.measures import mean_of_heads
from model.errors import InputError
from model.registry import PRESETS
from ui import cache, page, state, view
from ui.context import model_label
from ui.i18n import t
from ui.layout import copy_link, main_area, page_header, plotly_chart
from ui.run import Context
from ui.safe import md, short
from ui.state import choice, clamped  # parsers for VIEW: a module-level state.x() call reads as drawing
from ui.view import Field
from ui.widgets import (
    PLOTLY_CONFIG,
    head_picker,
    layer_picker,
    section_picker,
    show_empty_hint,
    show_heatmap,
    show_input_error,
    show_model_notices,
)
from viz import positional as vp

SECTIONS = ("sin", "rel", "learned", "rope", "order", "long")
D_MAX, LEN_MAX = 512, 200
DIMS, MAX_DIMS = (0, 1, 10, 30), 8
GPTS = ("gpt", "gpt-rope", "gpt-alibi")
ORDER_A, ORDER_B = "狗咬人", "人咬狗"
BUCKETS = (0, 20, 40, 60, 80, 100, 127)
LONG_TOKENS = 126  # + <s> = 127 positions, inside max_seq_len 128
N_TEXTS = 4  # long texts averaged per bucket
ALIBI_N = 16
# a weight moved this much shows on the heatmaps: below it the rotation "made no visible difference"
ROPE_VISIBLE = 0.05
ROPE_OFFSETS, ROPE_STARTS = np.arange(0, 65), (0, 40)


def int_list(raw: str) -> list[int]:
    return [int(x) for x in raw.split(",") if x.strip()]


def runner_of(ctx: Context, name: str):
    """The named model on ctx's device, or None after a clear message (the shared Context shows
    it); its notices (e.g. random weights before training) as captions."""
    r = dataclasses.replace(ctx, model=name).runner()
    show_model_notices([] if r is None else r.notices)
    return r


# -- cached model computations -------------------------------------------------------------------
@st.cache_data(show_spinner=False, max_entries=16)
def table(d: int, n: int) -> np.ndarray:
    return ex.pe_table(d, n)


@st.cache_data(show_spinner=False, max_entries=4)
def learned(name: str, device: str):
    return ex.learned_positions(cache.runner(name, device))


@st.cache_data(show_spinner=False, max_entries=32)
def word_order(device: str, a: str, b: str) -> dict:
    return ex.word_order(cache.runner("translator", device), a, b)


@st.cache_data(show_spinner=False, max_entries=32)
def translations(device: str, a: str, b: str, use_position: bool) -> list[str]:
    return cache.runner("translator", device).translate([a, b], use_position=use_position)


@st.cache_data(show_spinner=False, max_entries=8)
def long_loss(name: str, device: str, lang: str) -> dict:
    return ex.length_buckets(cache.runner(name, device), lang, BUCKETS, N_TEXTS, LONG_TOKENS)


# the page's view: every setting its link carries (ui/view.py); a section writes only its own
VIEW = (
    Field("sec", "pos_sec", "sin", choice(SECTIONS), omit_default=True),
    Field("d", "pos_d", 128, clamped("d", 1, D_MAX, cast=int), omit_default=True),
    Field("len", "pos_len", 100, clamped("len", 1, LEN_MAX, cast=int), omit_default=True),
    Field("dims", "pos_dims", None, int_list, omit_default=True),  # None: DIMS, the page's choice
    Field("p", "pos_p", 5, clamped("p", 0, 10_000, cast=int), omit_default=True),
    Field("k", "pos_k", 3, clamped("k", 0, 10_000, cast=int), omit_default=True),
    Field("a", "pos_a", ORDER_A, state.text, omit_default=True),
    Field("b", "pos_b", ORDER_B, state.text, omit_default=True),
    Field("olayer", "pos_olayer", None, view.whole, one_based=True),  # None: where order matters most
    Field("ohead", "pos_ohead", None, view.whole_or_mean, one_based=True),
    Field("glayer", "pos_glayer", 0, view.whole, one_based=True, omit_default=True),
    Field("rlayer", "pos_rlayer", 0, view.whole, one_based=True, omit_default=True),  # the real RoPE model's layer
    Field("llang", "pos_llang", "en", choice(("en", "zh")), omit_default=True),
    Field("npos", "pos_npos", 64, clamped("npos", 2, 128, cast=int), omit_default=True),
)


def render(ctx: Context, view: dict) -> None:
    """The page: the section picker, then the one section chosen; each section gives back the
    link values it owns (a section not shown leaves its own as the link has them)."""
    page_header("page_positional", "pos_intro")
    sec = section_picker("pos", SECTIONS)
    url: dict = {"sec": sec}
    if sec in ("sin", "rel"):
        d, n, pe = _table_controls()
        url.update(d=d, len=n)
        url.update(_section_sin(pe, d, n, view) if sec == "sin" else _section_rel(pe, d))
    elif sec == "learned":
        url.update(_section_learned(ctx))
    elif sec == "rope":
        url.update(_section_rope(ctx))
    elif sec == "order":
        url.update(_section_order(ctx, view))
    elif sec == "long":
        url.update(_section_long(ctx))
    state.write_view(VIEW, **url)
    copy_link()


# -- 1. the sinusoidal table ---------------------------------------------------------------------
def _table_controls() -> tuple[int, int, np.ndarray]:
    """d_model and the length, shared by the table and the relative-position sections."""
    c1, c2, _ = st.columns([1, 1, 3])
    d = int(c1.number_input(t("pos_d_model"), 1, D_MAX, step=1, key="pos_d"))
    n = int(c2.number_input(t("pos_length"), 1, LEN_MAX, step=1, key="pos_len"))
    if d % 2:
        st.caption("ⓘ " + t("pos_odd_note"))
    return d, n, table(d, n)


def _section_sin(pe: np.ndarray, d: int, n: int, view: dict) -> dict:
    """The table as a heatmap, then a few of its dimensions as curves; the dimensions shown go into the link."""
    st.markdown(t("pos_formula_intro"))
    st.latex(r"PE_{(pos,\,2i)} = \sin\left(\frac{pos}{10000^{2i/d_{\text{model}}}}\right)")
    st.latex(r"PE_{(pos,\,2i+1)} = \cos\left(\frac{pos}{10000^{2i/d_{\text{model}}}}\right)")
    with main_area():  # presentation mode: under the title, before the formula
        st.subheader(t("pos_heatmap_title", n=n, d=d))
        st.caption(t("pos_heatmap_help"))
        plotly_chart(
            vp.pe_heatmap(
                pe,
                labels={
                    "position": t("pos_axis_position"),
                    "dimension": t("pos_axis_dimension"),
                    "value": t("pos_axis_value"),
                },
            ),
            config=PLOTLY_CONFIG,
            key="pos_heatmap",
        )
    asked = view["dims"] or list(DIMS)
    dims = sorted({x for x in asked if 0 <= x < d})[:MAX_DIMS] or [0]
    if dims != sorted(set(asked)):
        st.caption("ⓘ " + t("pos_dims_dropped", d=d, n=MAX_DIMS))
    st.session_state["pos_dims"] = dims
    st.subheader(t("pos_curves_title"))
    chosen = st.multiselect(
        t("pos_dims"),
        list(range(d)),
        key="pos_dims",
        max_selections=MAX_DIMS,
        format_func=lambda x: t("pos_dim_label", d=x),
    )
    plotly_chart(
        vp.pe_curves(
            pe,
            chosen,
            labels={"position": t("pos_axis_position"), "value": t("pos_axis_value"), "dim": t("pos_dim_label")},
        ),
        config=PLOTLY_CONFIG,
        key="pos_curves",
    )
    return {"dims": None if chosen == list(DIMS) else chosen}


# -- 2. relative positions -----------------------------------------------------------------------
def _section_rel(pe: np.ndarray, d: int) -> dict:
    """Dot products between positions, then the rotation that takes position p to p + k, checked."""
    st.subheader(t("pos_dot_title"))
    st.caption(t("pos_dot_help") + (" " + t("pos_dot_odd") if d % 2 else ""))
    dots = ex.dot_products(pe)
    left, right = st.columns(2, gap="large")
    with left:
        plotly_chart(
            vp.matrix(dots, t("pos_axis_q"), t("pos_axis_p"), t("pos_axis_dot")), config=PLOTLY_CONFIG, key="pos_dots"
        )
    with right:
        plotly_chart(
            vp.dot_vs_offset(dots, labels={"offset": t("pos_axis_offset"), "dot": t("pos_axis_dot")}),
            config=PLOTLY_CONFIG,
            key="pos_dot_offset",
        )

    st.subheader(t("pos_rotation_title"))
    st.markdown(t("pos_rotation_help"))
    st.latex(
        r"\begin{pmatrix}\sin((p+k)\,\omega_i)\\ \cos((p+k)\,\omega_i)\end{pmatrix}"
        r"=\begin{pmatrix}\cos k\omega_i & \sin k\omega_i\\ -\sin k\omega_i & \cos k\omega_i\end{pmatrix}"
        r"\begin{pmatrix}\sin p\,\omega_i\\ \cos p\,\omega_i\end{pmatrix},\qquad"
        r"\omega_i = \frac{1}{10000^{2i/d_{\text{model}}}}"
    )
    c1, c2, _ = st.columns([1, 1, 3])
    p = int(c1.number_input(t("pos_p"), 0, 10_000, step=1, key="pos_p"))
    k = int(c2.number_input(t("pos_k"), 0, 10_000, step=1, key="pos_k"))
    check = ex.rotation_check(d, p, k)
    if check["paired"] == 0:
        st.info(t("pos_rotation_none"), icon="ℹ️")
    else:
        shown = min(d, 8)
        st.caption(t("pos_rotation_first", n=shown, d=d))
        st.dataframe(
            pd.DataFrame(
                {
                    t("pos_col_dim"): np.arange(shown),
                    t("pos_col_pe_p"): check["pe_p"][:shown],
                    t("pos_col_pred"): check["predicted"][:shown],
                    t("pos_col_pe_pk"): check["pe_pk"][:shown],
                }
            ),
            hide_index=True,
            key="pos_rotation",
            column_config={
                c: st.column_config.NumberColumn(format="%.6f")
                for c in (t("pos_col_pe_p"), t("pos_col_pred"), t("pos_col_pe_pk"))
            },
        )
        st.markdown(t("pos_rotation_error", n=check["paired"], err=check["max_error"]))
    return {"p": p, "k": k}


# -- 3. learned positions beside sinusoids --------------------------------------------------------
def _section_learned(ctx: Context) -> dict:
    """The shipped GPT's learned position table beside a sinusoidal one of its size, as similarities."""
    st.markdown(t("pos_learned_intro"))
    gpt = runner_of(ctx, "gpt")
    if gpt is None:
        return {}
    table_l = learned("gpt", ctx.device)
    if table_l is None:
        st.info(t("pos_learned_none"), icon="ℹ️")
        return {}
    npos = int(st.slider(t("pos_learned_show"), 2, table_l.shape[0], key="pos_npos"))
    sims = {
        "l": ex.cosine_similarity(table_l[:npos]),
        "s": ex.cosine_similarity(table(table_l.shape[1], table_l.shape[0])[:npos]),
    }
    left, right = st.columns(2, gap="large")
    for col, key, title in (
        (left, "l", t("pos_learned_title")),
        (right, "s", t("pos_sin_title", d=table_l.shape[1])),
    ):
        with col:
            st.markdown(f"**{title}**")
            plotly_chart(
                vp.matrix(
                    sims[key],
                    t("pos_axis_position"),
                    t("pos_axis_position"),
                    t("pos_axis_similarity"),
                    -1.0,
                    1.0,
                    height=440,
                ),
                config=PLOTLY_CONFIG,
                key=f"pos_sim_{key}",
            )
    st.caption(t("pos_learned_help"))
    return {"npos": npos}


# -- 4. RoPE and ALiBi -------------------------------------------------------------------------
def _section_rope(ctx: Context) -> dict:
    """RoPE's score by offset, the sidebar's real RoPE model with and without its rotation, then ALiBi's biases."""
    st.subheader(t("pos_rope_title"))
    st.markdown(t("pos_rope_help"))
    st.latex(r"q_m \cdot k_n = (R_{m}\,q)\cdot(R_{n}\,k) = q \cdot R_{n-m}\,k")
    d_head = PRESETS["gpt-rope"].d_model // PRESETS["gpt-rope"].num_heads
    scores = ex.rope_scores(d_head, ROPE_OFFSETS, ROPE_STARTS)
    plotly_chart(
        vp.rope_curves(
            ROPE_OFFSETS,
            scores,
            ROPE_STARTS,
            labels={"offset": t("pos_axis_rope_offset"), "score": t("pos_axis_score"), "start": t("pos_rope_start")},
        ),
        config=PLOTLY_CONFIG,
        key="pos_rope",
    )
    st.caption(t("pos_rope_diff", diff=float(np.abs(scores[0] - scores[1]).max())))
    url = _real_rope(ctx)  # its layer, for the link

    st.subheader(t("pos_alibi_title"))
    st.markdown(t("pos_alibi_help"))
    st.latex(r"\text{score}(i, j) = \frac{q_i \cdot k_j}{\sqrt{d_k}} - m_h\,(i - j),\qquad m_h = 2^{-8h/H}")
    bias, slopes = ex.alibi(PRESETS["gpt-alibi"].num_heads, ALIBI_N)
    causal = np.tril(np.ones((ALIBI_N, ALIBI_N), bool))
    plotly_chart(
        vp.alibi_grid(bias, slopes, causal, labels={"head": t("pos_alibi_head"), "bias": t("pos_axis_bias")}),
        config=PLOTLY_CONFIG,
        key="pos_alibi",
    )
    dists, near = alibi_distances(ctx.device)
    if near:  # where the steep heads read near is measured, not said of every layer (issue 46)
        row = " < ".join(f"{x:.2f}" for x in dists[near[0] - 1])
        st.caption(t("pos_alibi_measured", dists=row, near=", ".join(map(str, near))))
    else:
        shown = "; ".join(f"L{la + 1}: " + ", ".join(f"{x:.2f}" for x in d) for la, d in enumerate(dists))
        st.caption(t("pos_alibi_measured_none", dists=shown))
    return url


@st.cache_data(show_spinner=False, max_entries=4)
def alibi_distances(device: str) -> tuple[np.ndarray, list[int]]:
    """The trained gpt-alibi's mean reading distance per (layer, head), its heads from the steepest slope
    to the shallowest, and the layers where that order is the order of the distances."""
    return reading_distance.alibi_reading(cache.runner("gpt-alibi", device))


def _real_rope(ctx: Context) -> dict:
    """The sidebar's model, when it is a real pretrained RoPE decoder (SmolLM2-135M): its attention
    on the sentence with the rotation and without it (cos = 1, sin = 0 in every layer)."""
    real = runner_of(ctx, ctx.model) if ctx.model not in PRESETS and "@" not in ctx.model else None
    if real is None or real.config.positional != "rope" or not real.can_continue_text or not ctx.text.strip():
        return {}
    st.subheader(t("pos_rope_real_title", name=model_label(ctx.model)))
    st.markdown(t("pos_rope_real_help"))
    try:
        on = cache.trace(ctx.model, ctx.device, ctx.text).attention["decoder"]
        off = cache.trace(ctx.model, ctx.device, ctx.text, use_position=False).attention["decoder"]
    except InputError as e:
        show_input_error(e)
        return {}
    c1, _ = st.columns([1, 3])
    with c1:
        rlayer = layer_picker(on.num_layers, "pos_rlayer", "pos_gpts_layer", "pos_layer_n")
    cols = st.columns(2, gap="medium")
    for col, att, label in zip(cols, (on, off), ("pos_rope_real_with", "pos_rope_real_without")):
        with col:
            st.markdown(f"**{t(label)}**")
            show_heatmap(
                mean_of_heads(att.weights)[rlayer],
                att.query_tokens,
                att.key_tokens,
                mask=att.mask,
                key=f"pos_real_{label}",
                height=380,
            )
    st.caption(rope_change_text(on, off, rlayer))
    return {"rlayer": rlayer}


def rope_change_text(on, off, layer: int) -> str:
    """What switching RoPE's rotation off changed, as the page says it: "the trained heads rely on the
    positions" only where some weight moves by ROPE_VISIBLE or more (SmolLM2 on "cat", one token: every
    layer 0.00, its one row can only read itself)."""
    change = np.abs(on.weights - off.weights).max(axis=(1, 2, 3))
    if change.max() < ROPE_VISIBLE:
        return t("pos_rope_real_same", hi=f"{change.max():.2f}", n=len(on.query_tokens))
    return t(
        "pos_rope_real_diff",
        layer=layer + 1,
        diff=f"{change[layer]:.2f}",
        lo=f"{change.min():.2f}",
        hi=f"{change.max():.2f}",
    )


# -- 5. word order: 狗咬人 vs 人咬狗 ------------------------------------------------------------
def _section_order(ctx: Context, view: dict) -> dict:
    """Two sentences in the translator's encoder, with and without the encoding: their attention
    side by side, how far they differ, and what the model writes for each."""
    st.markdown(t("pos_order_intro"))
    st.caption("ⓘ " + t("pos_order_model_note"))
    c1, c2 = st.columns(2)
    a = c1.text_input(t("pos_order_a"), key="pos_a")
    b = c2.text_input(t("pos_order_b"), key="pos_b")
    url: dict = {"a": a, "b": b}
    tr_runner = runner_of(ctx, "translator")
    if tr_runner is None:
        return url
    if not a.strip() or not b.strip():
        st.info(t("pos_empty"), icon="✏️")
        return url
    try:
        result = word_order(ctx.device, a, b)
    except InputError as e:
        show_input_error(e)
        return url
    n_layers, n_heads = tr_runner.config.num_layers, tr_runner.config.num_heads
    if view["olayer"] is None or view["ohead"] is None:
        # start where word order changes the attention most
        diffs = result[True]["diffs"]
        best = np.unravel_index(np.argmax(diffs), diffs.shape) if diffs is not None else (0, 0)
        st.session_state["pos_olayer"], st.session_state["pos_ohead"] = int(best[0]), int(best[1])
    c1, c2, _ = st.columns([1, 1, 2])
    with c1:
        layer = layer_picker(n_layers, "pos_olayer", "pos_order_layer", "pos_layer_n")
    with c2:
        head = head_picker(n_heads, "pos_ohead", True, "pos_order_head", "pos_head_n", "pos_mean_heads")
    url.update(olayer=layer, ohead=head)
    ta, tb = result["tokens"]
    if result["perm"] is None:
        st.info(t("pos_order_not_perm"), icon="ℹ️")
    else:
        st.caption(t("pos_order_perm", perm="B = (" + ", ".join(f"A{j + 1}" for j in result["perm"]) + ")"))
    for use in (False, True):
        st.subheader(t("pos_with" if use else "pos_without"))
        w = result[use]
        pick = (lambda x: mean_of_heads(x)[layer]) if head == "mean" else (lambda x: x[layer, head])
        left, right = st.columns(2, gap="large")
        with left:
            show_heatmap(pick(w["a"]), ta, ta, key=f"pos_order_a_{use}", title=short(a, 40), height=330)
        with right:
            show_heatmap(pick(w["b"]), tb, tb, key=f"pos_order_b_{use}", title=short(b, 40), height=330)
        if w["diff"] is not None:
            verdict = t("pos_order_same") if w["diff"] < 1e-5 else t("pos_order_differs")
            st.markdown(t("pos_order_diff", diff=w["diff"]) + f" — {verdict}")
    st.subheader(t("pos_translations"))
    rows = {t("pos_col_sentence"): [a, b]}
    for use in (False, True):
        rows[t("pos_with" if use else "pos_without")] = translations(ctx.device, a, b, use)
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key="pos_translations")
    return url


# -- 6. three GPTs on one sentence; texts longer than they were trained on ------------------------
def _section_long(ctx: Context) -> dict:
    """The three GPTs' attention on the sidebar's sentence, then their loss on texts longer than
    they were trained on."""
    st.markdown(t("pos_gpts_intro"))
    runners = {name: runner_of(ctx, name) for name in GPTS}
    ok = [name for name, r in runners.items() if r is not None]
    if not ok:
        return {}
    c1, _ = st.columns([1, 3])
    with c1:
        layer = layer_picker(runners[ok[0]].config.num_layers, "pos_glayer", "pos_gpts_layer", "pos_layer_n")
    cols = st.columns(len(ok), gap="medium")
    for col, name in zip(cols, ok):
        with col:
            st.markdown(f"**{model_label(name)}**")
            try:
                tr = cache.trace(name, ctx.device, ctx.text) if ctx.text.strip() else None
            except InputError as e:
                show_input_error(e)
                tr = None
            if tr is None:
                show_empty_hint(ctx.presentation)
                continue
            att = tr.attention["decoder"]
            show_heatmap(
                mean_of_heads(att.weights)[min(layer, att.num_layers - 1)],
                att.query_tokens,
                att.key_tokens,
                mask=att.mask,
                key=f"pos_gpt_{name}",
                height=380,
            )

    st.subheader(t("pos_long_title"))
    lang = st.radio(
        t("pos_long_lang"), ("en", "zh"), key="pos_llang", horizontal=True, format_func=lambda x: t(f"pos_lang_{x}")
    )
    st.markdown(t("pos_long_help", n=LONG_TOKENS, k=N_TEXTS))
    with st.spinner():
        results = {name: long_loss(name, ctx.device, lang) for name in ok}
    names = [f"{BUCKETS[i] + 1}–{BUCKETS[i + 1]}" for i in range(len(BUCKETS) - 1)]
    bars = {model_label(nm): r["long"] for nm, r in results.items()}
    # the three read short texts equally well (their "alone" losses differ by hundredths): one line
    alone = {t("pos_alone_mean"): np.mean([r["alone"] for r in results.values()], axis=0)}
    plotly_chart(
        vp.loss_by_bucket(
            names, bars, dashed=alone, labels={"bucket": t("pos_axis_bucket"), "loss": t("pos_axis_loss")}
        ),
        config=PLOTLY_CONFIG,
        key="pos_long",
    )
    df = pd.DataFrame(
        {
            t("pos_long_table_model"): list(bars),
            **{nm: [float(v[i]) for v in bars.values()] for i, nm in enumerate(names)},
            t("pos_long_table_alone"): [float(np.nanmean(r["alone"])) for r in results.values()],
        }
    )
    st.dataframe(
        df,
        hide_index=True,
        width="stretch",
        key="pos_long_table",
        column_config={c: st.column_config.NumberColumn(format="%.2f") for c in df.columns[1:]},
    )
    pieces = results[ok[0]]["pieces"]
    with st.expander(t("pos_long_text")):
        st.markdown(md((" " if lang == "en" else "").join(pieces)))
    return {"glayer": layer, "llang": lang}


if __name__ == "__main__":  # Streamlit runs the file as the page (ui/page.py)
    page.show(render, VIEW)

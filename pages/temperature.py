"""Temperature: one head at T = 1 beside the same head at T (the model re-run), the entropy of its
rows against T, the tutorial's table at both, what T does to the output, and, as a separate knob,
the sampling temperature with top-k and top-p."""

from __future__ import annotations

from ui import boot  # noqa: F401  (first: on a fresh server, a deep link shows the title and a loading message)

# isort: split

import dataclasses
import math

import numpy as np
import pandas as pd
import streamlit as st

from analysis import experiments as ex
from analysis.measured import TEMPERATURE_EXACT_MATCH
from model import KINDS
from model.errors import InputError
from ui import cache, state
from ui.context import partial
from ui.i18n import t
from ui.layout import copy_link, main_area, page_header, plotly_chart
from ui.rows import row_labels
from ui.run import current
from ui.safe import md
from ui.widgets import (
    PLOTLY_CONFIG,
    head_picker,
    kind_picker,
    layer_picker,
    row_picker,
    sampling_knobs,
    show_heatmap,
    show_input_error,
    show_row_table,
)
from viz.curves import entropy_vs_temperature
from viz.generation import compare_bars, next_token_bars, top_indices

# a log-spaced grid with 1 on it: each step multiplies T by about 1.4
TEMPS = (0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0)
T_MIN, T_MAX = TEMPS[0], TEMPS[-1]
CURVE_TEMPS = ex.log_temperatures(T_MIN, T_MAX, 41)
AXIS_TEMPS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0)
SWEEP_TEMPS = (0.05, 0.3, 1.0, 3.0, 20.0)
STEMP_MAX = 5.0
N_BARS = 15


def temperature_param(raw: str) -> float:
    v = state.clamped("temp", T_MIN, T_MAX)(raw)
    nearest = min(TEMPS, key=lambda g: abs(math.log(g) - math.log(v)))
    if abs(nearest - v) > 1e-9 * nearest:
        state.notice(t("temp_snapped", value=f"{v:g}", shown=f"{nearest:g}"))
    return nearest


def scope_param(raw: str):
    if raw == "all":
        return "all"
    v = int(raw) - 1
    if v < 0:
        raise ValueError(raw)
    return v


# -- cached model computations (strings and numbers in, numpy out) ------------------------------
@st.cache_data(show_spinner=False, max_entries=32)
def scores(name: str, device: str, text: str) -> dict:
    return ex.attention_scores(cache.runner(name, device), text)


@st.cache_data(show_spinner=False, max_entries=64)
def gpt_logits(name: str, device: str, text: str, temperature: float = 1.0, temperature_layer=None):
    return ex.gpt_next_token_logits(
        cache.runner(name, device), text, temperature=temperature, temperature_layer=temperature_layer
    )


@st.cache_data(show_spinner=False, max_entries=32)
def translations(name: str, device: str, text: str, temps: tuple, temperature_layer=None) -> list[str]:
    m = cache.runner(name, device)
    return [m.translate([text], temperature=tt, temperature_layer=temperature_layer)[0] for tt in temps]


def t_label(v: float) -> str:
    return t("temp_t_one") if v == 1.0 else f"{v:g}"


ctx = current()

# -- the view's settings from the link ---------------------------------------------------------
state.url_param("temp", 1.0, temperature_param, key="temp_t")
state.url_param("tlayer", "all", scope_param, key="temp_scope")
state.url_param("kind", None, state.choice(KINDS), key="temp_kind")
state.url_param("layer", None, lambda raw: int(raw) - 1, key="temp_layer")
state.url_param("head", 0, lambda raw: int(raw) - 1, key="temp_head")
state.url_param("q", None, int, key="temp_q")
state.url_param("sweep", False, state.flag, key="temp_sweep")
state.url_param("stemp", 1.0, state.clamped("stemp", 0.0, STEMP_MAX), key="temp_stemp")
state.url_param("topk", 0, state.clamped("topk", 0, 1_000_000, int), key="temp_topk")
state.url_param("topp", 1.0, state.clamped("topp", 0.01, 1.0), key="temp_topp")

page_header("page_temperature", "temp_intro")
st.latex(r"\text{Attention}(Q, K, V) = \text{softmax}\left(\frac{QK^T}{\sqrt{d_k}\;\cdot\;T}\right)V")
st.caption(t("temp_formula_caption"))

runner = ctx.runner()
if runner is None:
    copy_link()
    st.stop()
n_layers, n_heads = runner.config.num_layers, runner.config.num_heads
translator = runner.kind == "translator"


@partial
def explorer(runner, n_layers: int, n_heads: int, translator: bool) -> None:
    """Everything below the formula: moving T or changing the layer, head, query or sampling
    knobs reruns only this (ui.context.partial), not the sidebar and the rest of the app."""
    # -- temperature and where it applies ----------------------------------------------------------
    state.fit(
        "temp_scope",
        ["all", *range(n_layers)],
        lambda v: t("temp_scope_all") if v == "all" else t("temp_layer_n", n=v + 1),
    )
    area = main_area()  # presentation mode: T and the two heatmaps under the title, before the rest
    c_t, c_reset, c_scope = area.columns([6, 1.4, 2.6], vertical_alignment="bottom")
    with c_t:
        T = st.select_slider(t("temp_t"), options=list(TEMPS), key="temp_t", format_func=t_label, help=t("temp_t_help"))
    with c_reset:
        st.button(
            t("temp_reset"), key="temp_reset", disabled=T == 1.0, on_click=lambda: st.session_state.update(temp_t=1.0)
        )
    with c_scope:
        scope = st.selectbox(
            t("temp_scope"),
            ["all", *range(n_layers)],
            key="temp_scope",
            format_func=lambda v: t("temp_scope_all") if v == "all" else t("temp_scope_layer", n=v + 1),
            help=t("temp_scope_help_translator" if translator else "temp_scope_help_gpt"),
        )
    t_layer = None if scope == "all" else scope

    base = ctx.trace()
    if base is None:
        copy_link()
        st.stop()
    hot = base
    if T != 1.0:
        try:
            hot = cache.trace(ctx.model, ctx.device, ctx.text, temperature=T, temperature_layer=t_layer)
        except InputError as e:
            show_input_error(e)

    # -- which head ---------------------------------------------------------------------------------
    kinds = base.kinds()
    if st.session_state.get("temp_layer") is None:
        st.session_state["temp_layer"] = n_layers - 1
    c_kind, c_layer, c_head = st.columns([4, 2, 2], vertical_alignment="bottom")
    with c_kind:
        kind = kind_picker(kinds, "temp_kind", "temp_kind")
    with c_layer:
        layer = layer_picker(n_layers, "temp_layer", "temp_layer", "temp_layer_n")
    with c_head:
        head = head_picker(n_heads, "temp_head", label_key="temp_head", item_key="temp_head_n")

    att1, attT = base.attention[kind], hot.attention[kind]
    w1, wT = att1.weights[layer, head], attT.weights[layer, head]
    title = t(
        "temp_heat_title",
        kind=t(f"kind_{kind}"),
        layer=t("temp_layer_n", n=layer + 1),
        head=t("temp_head_n", n=head + 1),
    )
    area.subheader(title)
    for col, title, a, w, key in zip(
        area.columns(2, gap="large"),
        (t("temp_at_one"), t("temp_at_t", t=f"{T:g}")),
        (att1, attT),
        (w1, wT),
        ("temp_heat_1", "temp_heat_t"),
    ):
        with col:
            st.markdown("**" + title + "**")
            show_heatmap(
                w, row_labels(a), a.key_tokens, mask=a.mask, key=key, zmax=1.0, writes=a.query_written is not None
            )
    # the notes under the two heatmaps, not between the title and them: with a room open at
    # 1280 x 800 the charts' x axis then stays on the projector's first screen (issue 37: y 995)
    area.caption(t("temp_same_scale") + ("" if T != 1.0 else " " + t("temp_move_slider")))
    if T != 1.0 and t_layer is not None and t_layer != layer:
        area.caption("ⓘ " + t("temp_not_applied", scope=t("temp_scope_layer", n=t_layer + 1)))
    if attT.query_tokens != att1.query_tokens or attT.key_tokens != att1.key_tokens:
        area.caption("ⓘ " + t("temp_tokens_differ"))

    # -- the chosen query: the tutorial's table at both temperatures --------------------------------
    q_tokens = att1.query_tokens
    if st.session_state.get("temp_q") is None:
        st.session_state["temp_q"] = min(1, len(q_tokens) - 1)
    state.fit("temp_q", range(len(q_tokens)), lambda v: t("temp_query_n", n=v))
    q = row_picker(t("temp_query"), row_labels(att1), "temp_q")
    st.subheader(t("temp_table_title"))
    left, right = st.columns(2, gap="large")
    with left:
        st.markdown("**" + t("temp_at_one") + "**")
        show_row_table(att1, w1, q, key="temp_table_1", with_csv=False)
    with right:
        st.markdown("**" + t("temp_at_t", t=f"{T:g}") + "**")
        qT = min(q, len(attT.query_tokens) - 1)
        show_row_table(attT, wT, qT, key="temp_table_t", with_csv=False)

    # -- entropy against temperature -----------------------------------------------------------------
    st.subheader(t("temp_entropy_title"))
    st.markdown(t("temp_entropy_help"))
    s = scores(ctx.model, ctx.device, base.input_text)[kind][layer, head]  # (Q, K)
    if s.shape == w1.shape:
        ev = ex.entropy_view(s, CURVE_TEMPS, q, T)
        fig = entropy_vs_temperature(
            CURVE_TEMPS,
            [ev["row"], ev["mean"]],
            ev["n_q"],
            names=[t("temp_curve_row", token=q_tokens[q]), t("temp_curve_mean")],
            labels={
                "temperature": t("temp_axis_t"),
                "entropy": t("temp_axis_entropy"),
                "uniform": t("temp_uniform"),
                "uniform_mean": t("temp_uniform_mean"),
                "now": t("temp_now"),
            },
            mean_limit=ev["mean_limit"] if abs(ev["mean_limit"] - ev["limit"]) > 1e-9 else None,
            now=T,
            log_ticks=AXIS_TEMPS,
            y_top=ev["top"],
        )
        plotly_chart(fig, config=PLOTLY_CONFIG, key="temp_entropy")
        st.caption(
            t(
                "temp_entropy_values",
                token=md(q_tokens[q]),
                h1=ev["h1"],
                ht=ev["hT"],
                t=f"{T:g}",
                n=ev["n_q"],
                limit=ev["limit"],
            )
        )

    # -- what it does to the output --------------------------------------------------------------------
    st.subheader(t("temp_output_title"))
    if translator:
        left, right = st.columns(2, gap="large")
        left.markdown("**" + t("temp_translation_one") + "**")
        left.markdown("> " + (md(base.output_text) or t("temp_empty")))
        right.markdown("**" + t("temp_translation_t", t=f"{T:g}") + "**")
        right.markdown("> " + (md(hot.output_text) or t("temp_empty")))
        em = TEMPERATURE_EXACT_MATCH  # measured offline (analysis/measured.py), one table to update
        st.caption(
            t(
                "temp_translation_help",
                n=f"{em['n']:,}",
                figures=", ".join(f"{t('temp_at_t', t=f'{k:g}')}: {v:.2f}" for k, v in em["by_t"].items()),
            )
        )
        if st.toggle(t("temp_sweep"), key="temp_sweep"):
            texts = translations(ctx.model, ctx.device, base.input_text, SWEEP_TEMPS, t_layer)
            st.dataframe(
                pd.DataFrame({t("temp_sweep_col_t"): [f"{v:g}" for v in SWEEP_TEMPS], t("temp_sweep_col_text"): texts}),
                hide_index=True,
                width="stretch",
                key="temp_sweep_table",
            )
    elif runner.kind != "gpt":
        # an encoder (BERT, MiniLM) reads the text and writes nothing: there is no next token to show
        st.info(t("temp_encoder_no_output"), icon="ℹ️")
    else:
        st.markdown("**" + t("temp_next_title") + "**")
        st.caption(t("temp_next_help"))
        p1 = ex.softmax_at(gpt_logits(ctx.model, ctx.device, base.input_text), 1.0)
        pT = ex.softmax_at(gpt_logits(ctx.model, ctx.device, base.input_text, T, t_layer), 1.0) if T != 1.0 else p1
        idx = top_indices(p1 + pT, N_BARS)
        fig = compare_bars(
            runner.tokenizer.labels(idx.tolist()),
            p1[idx],
            pT[idx],
            labels={
                "a": t("temp_at_one"),
                "b": t("temp_at_t", t=f"{T:g}"),
                "token": t("temp_bars_token"),
                "probability": t("temp_bars_probability"),
            },
        )
        plotly_chart(fig, config=PLOTLY_CONFIG, key="temp_next")

    # -- sampling temperature: a separate knob ------------------------------------------------------
    st.divider()
    st.subheader(t("temp_sampling_title"))
    st.markdown(t("temp_sampling_intro"))
    gpt_ctx = ctx
    if runner.kind != "gpt":  # a translator or an encoder does not continue text: our GPT does
        st.caption("ⓘ " + t("temp_sampling_gpt_note" if translator else "temp_sampling_gpt_note_encoder"))
        gpt_ctx = dataclasses.replace(ctx, model="gpt")
    gpt = gpt_ctx.runner()
    if gpt is not None:
        stemp, top_k, top_p = sampling_knobs("temp", gpt.tokenizer.vocab_size, STEMP_MAX, st.columns(3))
        logits = gpt_logits(gpt_ctx.model, gpt_ctx.device, base.input_text)
        final, kept, before = ex.sampling_view(
            logits, float(stemp), int(top_k) or None, None if top_p >= 1.0 else float(top_p)
        )
        idx = top_indices(before, N_BARS)
        shown = np.where(kept[idx], final[idx], before[idx])
        fig = next_token_bars(
            gpt.tokenizer.labels(idx.tolist()),
            shown,
            cut=~kept[idx],
            labels={
                "cut": t("temp_bars_cut"),
                "kept": t("temp_bars_kept"),
                "chosen": t("temp_bars_chosen"),
                "token": t("temp_bars_token"),
                "probability": t("temp_bars_probability"),
            },
        )
        plotly_chart(fig, config=PLOTLY_CONFIG, key="temp_sampling")
        st.caption(t("temp_bars_caption") + " " + t("temp_sampling_kept", n=int(kept.sum()), p=float(final.max())))
    else:
        stemp, top_k, top_p = (st.session_state[k] for k in ("temp_stemp", "temp_topk", "temp_topp"))

    state.set_url(
        temp=None if T == 1.0 else T,
        tlayer=None if scope == "all" else scope + 1,
        kind=kind if len(kinds) > 1 else None,
        layer=layer + 1,
        head=head + 1,
        q=q,
        sweep=True if translator and st.session_state.get("temp_sweep") else None,
        stemp=None if stemp == 1.0 else float(stemp),
        topk=int(top_k) or None,
        topp=None if top_p >= 1.0 else float(top_p),
    )
    copy_link()


explorer(runner, n_layers, n_heads, translator)

"""Temperature: one head at T = 1 beside the same head at T (the model re-run), the entropy of its
rows against T, the tutorial's table at both, what T does to the output, and, as a separate knob,
the sampling temperature with top-k and top-p."""

from __future__ import annotations

from ui import boot  # noqa: F401  (first: on a fresh server, a deep link shows the title and a loading message)

# isort: split

import dataclasses

import numpy as np
import pandas as pd
import streamlit as st

from analysis import experiments as ex
from analysis.measured import TEMPERATURE_EXACT_MATCH
from model.errors import InputError
from ui import cache, page, state, view
from ui.attention_view import attention_view, bind_view, live_model
from ui.context import partial, text_box_key
from ui.i18n import t
from ui.layout import copy_link, main_area, page_header, plotly_chart
from ui.rows import row_labels
from ui.run import Context
from ui.safe import md
from ui.view import Field
from ui.widgets import PLOTLY_CONFIG, kind_picker, sampling_knobs, show_input_error
from viz.curves import entropy_vs_temperature
from viz.generation import compare_bars, next_token_bars, top_indices

T_MIN, T_MAX = view.T_MIN, view.T_MAX  # the browser's slider spans the same range
CURVE_TEMPS = ex.log_temperatures(T_MIN, T_MAX, 41)
AXIS_TEMPS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0)
SWEEP_TEMPS = (0.05, 0.3, 1.0, 3.0, 20.0)
N_BARS = 15


def layer_or_all(raw: str):
    """?tlayer=all or a layer from 1: where T applies."""
    if raw == "all":
        return "all"
    v = int(raw)
    if v < 1:
        raise ValueError(raw)
    return v


# the page's view: every setting its link carries (ui/view.py); T is the attention view's slider
VIEW = (
    view.temperature("temp_t"),
    Field("tlayer", "temp_scope", "all", layer_or_all, one_based=True, omit_default=True),
    view.kind("temp_kind"),
    view.layer("temp_layer", None),  # None: the last layer
    view.head("temp_head"),
    Field("q", "temp_q", None, int),  # None: the second row
    Field("sweep", "temp_sweep", False, state.flag, omit_default=True),
    *view.sampling("temp"),
)


def exact_layers(runner, kind: str, t_layer: int | None) -> list[int]:
    """The layers of this kind where the browser's softmax(log w / T), T in that one attention
    alone, is what the model computes with T where the page applies it (the scope): the scope's
    own layer, whose inputs the temperature does not reach. Not so for the translator's
    decoder and cross-attention: its "layer n" is also the encoder's layer n, which changes what
    every cross-attention reads, and through them every decoder layer after the first."""
    if t_layer is None:
        return []
    if runner.kind == "translator" and (kind == "cross" or (kind == "decoder" and t_layer > 0)):
        return []
    return [t_layer]


# the attention view's report, when the reader lets go of the slider (or picks a layer, head or row
# there): the page's T, layer, head and row, so the link, the room, the model re-run at T where the
# scope says, the entropy curve and the output follow. The slider is the view's ltemp (in the browser
# it applies T to the shown layer's weights, exact in that layer: exact_layers); the page takes it
# as its own T, which the model re-runs at where the scope puts it
take_view = bind_view(ltemp="temp_t", layer="temp_layer", head="temp_head", q="temp_q")


# -- cached model computations (strings and numbers in, numpy out) ------------------------------
@st.cache_data(show_spinner=False, max_entries=32)
def scores(name: str, device: str, text: str, kind: str, layer: int, head: int):
    """The one head's scores the page shows (a real model's every head is 170 MB of float64)."""
    return ex.head_scores(cache.runner(name, device), text, kind, layer, head)


@st.cache_data(show_spinner=False, max_entries=64)
def next_labels(name: str, device: str, text: str, candidates: tuple) -> list[str]:
    """The bars' labels: each candidate read after the text (a byte piece shows its character)."""
    return ex.gpt_next_labels(cache.runner(name, device), text, candidates)


@st.cache_data(show_spinner=False, max_entries=64)
def gpt_logits(name: str, device: str, text: str, temperature: float = 1.0, temperature_layer=None):
    return ex.gpt_next_token_logits(
        cache.runner(name, device), text, temperature=temperature, temperature_layer=temperature_layer
    )


@st.cache_data(show_spinner=False, max_entries=32)
def translations(name: str, device: str, text: str, temps: tuple, temperature_layer=None) -> list[str]:
    m = cache.runner(name, device)
    return [m.translate([text], temperature=tt, temperature_layer=temperature_layer)[0] for tt in temps]


def render(ctx: Context, view: dict) -> None:
    """The page: the formula, then the explorer (page.show has read the link's view into the session,
    where the explorer's widgets and the attention view find it)."""
    page_header("page_temperature", "temp_intro")
    st.latex(r"\text{Attention}(Q, K, V) = \text{softmax}\left(\frac{QK^T}{\sqrt{d_k}\;\cdot\;T}\right)V")
    st.caption(t("temp_formula_caption"))

    runner = ctx.runner()
    if runner is None:
        copy_link()
        return
    explorer(ctx, runner, runner.config.num_layers, runner.config.num_heads, runner.kind == "translator")


@partial
def explorer(ctx: Context, runner, n_layers: int, n_heads: int, translator: bool) -> None:
    """Everything below the formula: moving T or changing the layer, head, query or sampling
    knobs reruns only this (ui.context.partial), not the sidebar and the rest of the app."""
    # -- where T applies, and which kind -------------------------------------------------------------
    scopes = ["all", *range(n_layers)]
    state.fit("temp_scope", scopes, lambda v: t("temp_scope_all") if v == "all" else t("temp_layer_n", n=v + 1))
    base = ctx.trace()
    if base is None:
        copy_link()
        st.stop()
    kinds = base.kinds()
    if st.session_state.get("temp_layer") is None:
        st.session_state["temp_layer"] = n_layers - 1
    # the view's layer and head pickers are in the browser: fitted here (a link's head 99 on a
    # 4-head model: Head 4, with a notice), as the server's pickers did
    layer = state.fit("temp_layer", range(n_layers), lambda v: t("temp_layer_n", n=v + 1))
    head = state.fit("temp_head", range(n_heads), lambda v: t("temp_head_n", n=v + 1))
    T = float(st.session_state["temp_t"])
    area = main_area()  # presentation mode: the heatmaps under the title, before the rest
    # on a projector the scope and kind pickers go under the view, so that with a room's banner
    # the heatmaps' bottom edge stays on the first screen at 1280 x 800 (issue 37)
    first, then = area.container(), area.container()
    c_scope, c_kind = (then if ctx.presentation else first).columns([3, 5], vertical_alignment="bottom")
    with c_scope:
        scope = st.selectbox(
            t("temp_scope"),
            scopes,
            key="temp_scope",
            format_func=lambda v: t("temp_scope_all") if v == "all" else t("temp_scope_layer", n=v + 1),
            help=t("temp_scope_help_translator" if translator else "temp_scope_help_gpt"),
        )
    with c_kind:
        kind = kind_picker(kinds, "temp_kind", "temp_kind")
    t_layer = None if scope == "all" else scope
    hot = base
    if T != 1.0:  # the model re-run with T where the scope says (what the right-hand view shows on release)
        try:
            hot = cache.trace(ctx.model, ctx.device, ctx.text, temperature=T, temperature_layer=t_layer)
        except InputError as e:
            show_input_error(e)

    att1, attT = base.attention[kind], hot.attention[kind]
    q_tokens = att1.query_tokens
    if st.session_state.get("temp_q") is None:
        st.session_state["temp_q"] = min(1, len(q_tokens) - 1)
    q = state.fit("temp_q", range(len(q_tokens)), lambda v: t("temp_query_n", n=v))
    suffix = "_translator" if translator else ""  # its layer n: three attentions (issue 46)
    where = (
        t("temp_note_server_all")
        if t_layer is None
        else t("temp_note_server_layer" + suffix).replace("{scope}", str(t_layer + 1))
    )
    pending = (
        t("temp_note_pending_all")
        if t_layer is None
        else t("temp_note_pending_layer" + suffix).replace("{scope}", str(t_layer + 1))
    )
    # the model re-run at T in the reader's browser (our own models: ui/attention_view/live.js), as
    # the sentence is typed and the slider moves; the server's run follows on release
    live = live_model(ctx.model, kind, text_box_key(), ctx.text, knobs=False)
    in_browser = (
        t("temp_note_live_all")
        if t_layer is None
        else t("temp_note_live_layer" + suffix).replace("{scope}", str(t_layer + 1))
    )
    at_t = {"title": t("temp_at_t"), "short": t("temp_at_t"), "src": 0, "temp": "view", "scope": scope}
    at_t["exact"] = exact_layers(runner, kind, t_layer)
    at_t["notes"] = {"one": t("temp_note_one"), "browser": t("temp_note_browser"), "server": where, "pending": pending}
    if live:
        at_t["notes"].update(live=in_browser, live_pending=t("temp_note_live_pending"))
    sources = ()
    if hot is not base:
        at_t.update(hot=1, hot_t=T)
        sources = (
            {
                "weights": attT.weights,
                "mask": attT.mask,
                "q_labels": row_labels(attT),
                "k_tokens": list(attT.key_tokens),
            },
        )
    with first:
        attention_view(
            att1.weights,
            att1.mask,
            kind=kind,
            q_tokens=list(q_tokens),
            k_tokens=list(att1.key_tokens),
            q_labels=row_labels(att1),
            q_written=None if att1.query_written is None else list(att1.query_written),
            view={"tab": "heatmap", "layer": layer, "head": head, "q": q, "ltemp": T},
            key="temp_view",
            on_view=take_view,
            present=ctx.presentation,
            sources=sources,
            panels=[
                {"title": t("temp_at_one"), "short": t("temp_at_t").replace("{t}", "1"), "src": 0, "temp": 1.0},
                at_t,
            ],
            mean=False,
            live=live,
        )
    # the notes under the two heatmaps, not between the title and them: with a room open at
    # 1280 x 800 the view's bottom edge then stays on the projector's first screen (issue 37)
    area.caption(t("temp_same_scale") + ("" if T != 1.0 else " " + t("temp_move_slider")))
    if T != 1.0 and t_layer is not None and t_layer != layer:
        area.caption(
            "ⓘ " + t(not_applied_key(t_layer, layer, kind, translator), scope=t("temp_scope_layer", n=t_layer + 1))
        )
    if attT.query_tokens != att1.query_tokens or attT.key_tokens != att1.key_tokens:
        area.caption("ⓘ " + t("temp_tokens_differ"))

    entropy_section(ctx, base, att1, kind, layer, head, q, T)
    output_section(ctx, runner, translator, base, hot, T, t_layer)
    stemp, top_k, top_p = sampling_section(ctx, runner, translator, base)

    state.write_view(
        VIEW,
        temp=round(T, 3),
        tlayer=scope,
        kind=kind if len(kinds) > 1 else None,
        layer=layer,
        head=head,
        q=q,
        sweep=bool(translator and st.session_state.get("temp_sweep")),
        stemp=float(stemp),
        topk=int(top_k),
        topp=float(top_p),
    )
    copy_link()


def entropy_section(ctx: Context, base, att1, kind: str, layer: int, head: int, q: int, T: float) -> None:
    """Entropy against temperature: the row q's and the mean row's, from the one head's scores
    (att1: the attention of this kind at T = 1)."""
    q_tokens, w1 = att1.query_tokens, att1.weights[layer, head]
    st.subheader(t("temp_entropy_title"))
    st.markdown(t("temp_entropy_help"))
    s = scores(ctx.model, ctx.device, base.input_text, kind, layer, head)  # (Q, K)
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


def output_section(ctx: Context, runner, translator: bool, base, hot, T: float, t_layer: int | None) -> None:
    """What T does to the output: the translation at 1 and at T (and a sweep), or the next token's
    probabilities at 1 and at T (hot: the trace at T where the scope says); an encoder writes nothing."""
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
            next_labels(ctx.model, ctx.device, base.input_text, tuple(idx.tolist())),
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


def sampling_section(ctx: Context, runner, translator: bool, base) -> tuple:
    """The sampling temperature, a separate knob, with top-k and top-p, on our GPT (the sentence's
    next token); returns the knobs' (temperature, k, p) for the link."""
    st.divider()
    st.subheader(t("temp_sampling_title"))
    st.markdown(t("temp_sampling_intro"))
    gpt_ctx = ctx
    if runner.kind != "gpt":  # a translator or an encoder does not continue text: our GPT does
        st.caption("ⓘ " + t("temp_sampling_gpt_note" if translator else "temp_sampling_gpt_note_encoder"))
        gpt_ctx = dataclasses.replace(ctx, model="gpt")
    gpt = gpt_ctx.runner()
    if gpt is not None:
        stemp, top_k, top_p = sampling_knobs("temp", gpt.tokenizer.vocab_size, st.columns(3))
        logits = gpt_logits(gpt_ctx.model, gpt_ctx.device, base.input_text)
        final, kept, before = ex.sampling_view(
            logits, float(stemp), int(top_k) or None, None if top_p >= 1.0 else float(top_p)
        )
        idx = top_indices(before, N_BARS)
        shown = np.where(kept[idx], final[idx], before[idx])
        fig = next_token_bars(
            next_labels(gpt_ctx.model, gpt_ctx.device, base.input_text, tuple(idx.tolist())),
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

    return stemp, top_k, top_p


def not_applied_key(t_layer: int, layer: int, kind: str, translator: bool) -> str:
    """The note where T is in another layer than the one shown. A layer after it cannot reach it (a
    layer reads only the layers below it): the weights stay as at T = 1, except in the translator's
    decoder, whose cross-attention reads the encoder's last layer and whose tokens are its translation."""
    after = t_layer > layer and (not translator or kind == "encoder")
    return "temp_not_applied_after" if after else "temp_not_applied"


if __name__ == "__main__":  # Streamlit runs the file as the page (ui/page.py)
    page.show(render, VIEW)

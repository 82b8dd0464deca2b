"""Step by step: the tutorial's recipe for one head of one layer, one step at a time, on the
sidebar's sentence: tokens, embeddings + position, Q K V, QK^T, / sqrt(d_k), mask, softmax,
weights x V, concat + W^O, residual + LayerNorm + FFN. Each step: its formula, the numbers the
model computed (analysis/walkthrough.py), and the lines of model/ that computed them, read now."""

from __future__ import annotations

from ui import boot  # noqa: F401  (first: on a fresh server, a deep link shows the title and a loading message)

# isort: split

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from analysis.walkthrough import STEPS, Walkthrough, record, shared_head, walk
from model.errors import InputError, ModelFileError
from ui import cache, page, state, view
from ui.attention_view import attention_view, bind_view
from ui.context import model_label
from ui.i18n import t
from ui.layout import copy_link, main_area, page_header, plotly_chart, present_figure
from ui.rows import ARROW
from ui.run import Context
from ui.safe import md
from ui.state import choice
from ui.view import Field
from ui.widgets import (
    PLOTLY_CONFIG,
    number_picker,
    show_empty_hint,
    show_input_error,
    show_model_notices,
    token_picker,
)
from viz.steps import matrix_heatmap, shapes_figure

N = len(STEPS)

# what a class clicks before the page draws its main chart: the widget's key (or its start) and
# how many clicks; the screen walks click it first (tests/browser/screens.py, first_action)
FIRST_CHART_AFTER = ("steps_next", 5)  # Next, five times: the charts begin at the mask step, 6 of 10


@st.cache_data(show_spinner=False, max_entries=8)  # a translator's recording: a few MB
def recording(name: str, device: str, text: str):
    """One recorded forward pass per (model, sentence): every layer and head is picked from it."""
    return record(cache.runner(name, device), text)


@st.cache_data(show_spinner=False, max_entries=32)  # one head's numbers: up to about 1 MB
def walkthrough(name: str, device: str, text: str, kind: str, layer: int, head: int):
    return walk(cache.runner(name, device), recording(name, device, text), kind, layer, head)


@st.cache_data(show_spinner=False, max_entries=32)
def shared(name: str, device: str, text: str, layer: int, head: int):
    return shared_head(cache.runner(name, device), text, layer, head)


def shared_head_texts(sh, rope: bool) -> dict[str, str]:
    """What the step page says of a Hugging Face decoder's head, by the model's make-up: "after RoPE"
    only where it rotates q and k (not GPT-2: learned positions), grouped-query attention and keys
    "shared by" other query heads only where it has fewer key/value heads than query heads (GPT-2 and
    other multi-head models: each head its own)."""
    name, suffix = model_label(sh.model), "" if rope else "_plain"
    if sh.num_kv_heads < sh.num_heads:
        heads = ", ".join(str(h + 1) for h in sh.sharing)
        kv = dict(g=sh.kv_head + 1, heads=heads)
        make_up = t(
            "steps_gqa",
            q=sh.num_heads,
            kv=sh.num_kv_heads,
            group=sh.num_heads // sh.num_kv_heads,
            head=sh.head + 1,
            **kv,
        )
        k, v = t("steps_hf_k", **kv), t("steps_hf_v", **kv)
    else:
        make_up = t("steps_mha", q=sh.num_heads)
        k, v = t("steps_hf_k_own", head=sh.head + 1), t("steps_hf_v_own", head=sh.head + 1)
    d = sh.q.shape[-1]
    # "(= 1/sqrt(d_k))" only where the model's scale is that one (Gemma 2's query_pre_attn_scalar is not)
    scores = "steps_hf_scores" if abs(sh.scaling * d**0.5 - 1) < 1e-6 else "steps_hf_scores_own"
    return {
        "intro": t(f"steps_hf_intro{suffix}", name=name),
        "make_up": make_up,
        "q": t(f"steps_hf_q{suffix}", head=sh.head + 1),
        "k": k,
        "v": v,
        "scores": t(scores, scaling=f"{sh.scaling:.4f}", d=d, inv=f"{d**-0.5:.4f}"),
    }


def show_shared_head(sh, present: bool, rope: bool) -> None:
    """A Hugging Face decoder has none of the tutorial's code: its head is shown as its attention
    function computed it, with grouped-query attention as it is (the key and value it shares)."""
    said = shared_head_texts(sh, rope)
    st.markdown(said["intro"])
    st.markdown(said["make_up"])
    toks = sh.tokens
    matrix(sh.q, toks, "steps_hf_q", title=said["q"])
    c_k, c_v = st.columns(2)
    with c_k:
        matrix(sh.k, toks, "steps_hf_k", title=said["k"])
    with c_v:
        matrix(sh.v, toks, "steps_hf_v", title=said["v"])
    st.markdown(said["scores"])
    matrix(sh.scaled, toks, "steps_hf_scaled", columns=toks, mask=sh.mask)
    n = len(toks)
    if st.session_state.get("steps_q") is not None:  # a link's or the reader's row, fitted to this sentence
        state.fit("steps_q", range(n), lambda i: f"{t('query_token')} {i}", fallback=min(1, n - 1))
    q = st.session_state.get("steps_q")
    # rows as the tokens read (this page has no written token for a Hugging Face decoder's rows)
    weights_view(sh.weights, sh.mask, "decoder", toks, toks, toks, None, min(1, n - 1) if q is None else q, sh, present)
    numbers(sh.weights, toks, toks, key="steps_hf_df_weights")
    st.caption(t("steps_hf_check", diff=f"{sh.check:.1e}"))


def go(delta: int) -> None:
    """Previous / Next: the step delta places away, within the ten."""
    at = STEPS.index(st.session_state.get("steps_step", STEPS[0]))
    st.session_state["steps_step"] = STEPS[min(max(at + delta, 0), N - 1)]


def numbered_step(raw: str) -> str:
    """An old link's ?step=N (1 to 10), the step's name now (?stage=NAME)."""
    return STEPS[state.integer(1, N)(raw) - 1]


def rows(tokens) -> list[str]:
    return [f"{i} {tok}" for i, tok in enumerate(tokens)]


# the row the reader picked in the attention view (a click, a tap, an arrow key), once they let go:
# the page's row, so the pills, the link's ?q= and the weighted step show the same one
take_row = bind_view(q="steps_q")


def weights_view(
    weights, mask, kind: str, q_tokens, k_tokens, q_labels, q_written, q: int, where, present: bool
) -> None:
    """The step's weight matrix A, one head's (Q, K), drawn in the browser (ui/attention_view,
    compact: the heatmap and, beside it, the tutorial's table of the selected row): a click, a tap
    or an arrow key moves the row there at once, and take_row then makes it the page's. where: the
    layer and head shown (its .layer, .head, 0-based), which the view's exports and text
    alternative name as the reader counts them; present: presentation mode. No temperature slider:
    the formula above states the one T these weights were computed at (the server's), and a second
    T beside it would disagree.
    Like chart(), in presentation mode the step's first chart goes under the step's title."""
    with main_area(first=True):
        attention_view(
            np.asarray(weights, dtype=np.float32)[None, None],
            None if mask is None else np.asarray(mask, bool),
            kind=kind,
            q_tokens=list(q_tokens),
            k_tokens=list(k_tokens),
            q_labels=list(q_labels),
            q_written=None if q_written is None else list(q_written),
            view={"tab": "heatmap", "layer": 0, "head": 0, "q": int(q), "ltemp": 1.0},
            key="steps_view",
            on_view=take_row,
            present=present,
            temperature=False,
            compact=True,
            mean=False,
            first_layer=where.layer,
            head_as=where.head + 1,
        )


def chart(fig, key: str, lead: bool = True) -> None:
    """lead: in presentation mode the step's first such chart goes under the step's title (a
    diagram of shapes, lead=False, stays where it is: the model's numbers go first)."""
    with main_area(first=True) if lead else st.container():
        plotly_chart(present_figure(fig), config=PLOTLY_CONFIG, key=key)


def numbers(values, row_tokens, columns=None, key: str | None = None) -> pd.DataFrame:
    """The matrix as a table, rounded to 4 decimals: the same numbers as the chart above it."""
    v = np.round(np.asarray(values, dtype=np.float64), 4)
    cols = rows(columns) if columns is not None else [str(j) for j in range(v.shape[1])]
    df = pd.DataFrame(v, index=rows(row_tokens), columns=cols)
    st.dataframe(df, key=key, height=min(3 + 35 * (len(df) + 1), 420))
    return df


def shape(name: str, a) -> str:
    return f"`{name}`: " + t("steps_shape", shape=" × ".join(str(n) for n in np.shape(a)))


def show_code(step_key: str, w) -> None:
    st.markdown("**" + t("steps_code") + "**")
    for sn in w.code[step_key]:
        last = sn.first_line + sn.text.count("\n")
        st.caption(t("steps_code_from", path=md(sn.path), name=md(sn.name), first=sn.first_line, last=last))
        st.code(sn.text, language="python", wrap_lines=True)


def matrix(values, row_tokens, key: str, title: str = "", columns=None, **kw) -> None:
    fig = matrix_heatmap(values, row_tokens, columns=columns, title=title, labels=mlabels(columns), **kw)
    chart(fig, key)


def mlabels(columns=None) -> dict:
    return {
        "x": t("axis_key") if columns is not None else t("steps_axis_dim"),
        "y": t("steps_axis_token"),
        "value": t("steps_value"),
        "masked": t("masked"),
        "head": t("steps_head_short"),
        "seq": "seq_len",
        "heads": "heads",
    }


# -- the page's view: every setting its link carries (ui/view.py; bad values: default + notice) ---
VIEW = (
    # ?stage=softmax: the step by its name (a number would move if a step were added); links from
    # before said ?step=7, and ?step= is a training or decoding step on other pages (docs/architecture.md)
    Field("stage", "steps_step", STEPS[0], choice(STEPS), old="step", from_old=numbered_step),
    view.kind("steps_kind"),
    view.layer("steps_layer"),
    view.head("steps_head"),
    view.row("steps_q"),  # None: the page's choice, the second token
)


def render(ctx: Context, view: dict) -> None:
    """The page: the formula, the attention, layer and head, the step, then that step's formula,
    numbers and code; the copy-link box at the end, however far the page got."""
    page_header("page_steps", "steps_intro")
    # on a phone the formulas at full size (ui/layout.py draws every page's at 80 %, whose subscripts are
    # 9.5 px): this page's formulas are written to fit 356 px so (the widest, 312 px; the wide ones on
    # two lines), and a subscript is then 11.9 px. Their boxes do not scroll: a box as wide as its
    # formula scrolled by the 2 px a glyph (K's ⊤) stands out, a region no keyboard reaches (axe-core)
    st.html(
        "<style>@media (max-width: 480px) {[data-testid='stMain'] .katex-display > .katex"
        " {font-size: 1em !important;} [data-testid='stMain'] .katex-display {overflow: visible !important;}}</style>"
    )
    st.latex(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\left(\frac{QK^{\top}}{\sqrt{d_k}}\right)V")
    runner = ctx.runner()
    if runner is not None:  # None: the model could not be loaded, and ctx.runner() said why
        _one_head(ctx, runner, view)
    copy_link()


def _one_head(ctx: Context, runner, view: dict) -> None:
    """Which attention, layer, head and step (into the link), then that step of that head, or why
    it cannot be shown (no sentence, a sentence the model refuses, a broken model file)."""
    kind, layer, head = _section_head(runner)
    step = _section_step(ctx, view)
    state.write_view(
        VIEW,
        stage=STEPS[step - 1],
        kind=kind if len(runner.kinds) > 1 else None,
        layer=layer,
        head=head,
        q=view["q"],
    )

    if not ctx.text.strip():
        show_empty_hint(ctx.presentation)
        return
    if not runner.has_tutorial_code and runner.can_continue_text:  # a Hugging Face decoder (SmolLM2)
        try:
            show_shared_head(
                shared(ctx.model, ctx.device, ctx.text, layer, head),
                ctx.presentation,
                runner.config.positional == "rope",
            )
        except InputError as e:
            show_input_error(e)
        return
    try:
        with st.spinner(t("steps_running")):
            w = walkthrough(ctx.model, ctx.device, ctx.text, kind, layer, head)
    except InputError as e:
        show_input_error(e)
        return
    except ModelFileError as e:
        st.error(t("model_file_error", path=md(e.path), command=e.rebuild), icon="🚫")
        return
    show_model_notices(w.notices)
    _section_walk(ctx, w, step, view)


def _section_head(runner) -> tuple[str, int, int]:
    """Which attention, layer and head: the model's own, a link's fitted to them (with a notice)."""
    cfg = runner.config
    kinds = runner.kinds
    state.fit("steps_kind", kinds, lambda k: t(f"kind_{k}"))
    state.fit("steps_layer", range(cfg.num_layers), lambda i: t("steps_layer_n", n=i + 1, total=cfg.num_layers))
    state.fit("steps_head", range(cfg.num_heads), lambda i: t("steps_head_n", n=i + 1, total=cfg.num_heads))

    c_kind, c_layer, c_head = st.columns([4, 2, 2], vertical_alignment="bottom")
    with c_kind:
        if len(kinds) > 1:
            kind = st.radio(
                t("steps_kind"), kinds, format_func=lambda k: t(f"kind_{k}"), key="steps_kind", horizontal=True
            )
        else:  # a GPT has one attention: say which instead of offering a choice of one
            kind = kinds[0]
            st.markdown(f"**{t('steps_kind')}:** {t(f'kind_{kind}')}")
    with c_layer:
        layer = number_picker("steps_layer", cfg.num_layers, "steps_layer", "steps_layer_n")
    with c_head:
        head = number_picker("steps_head", cfg.num_heads, "steps_head", "steps_head_n")
    return kind, layer, head


def _section_step(ctx: Context, view: dict) -> int:
    """Previous / the step's menu / Next, and the progress bar; the step, from 1."""
    step = STEPS.index(view["stage"]) + 1
    c_prev, c_pick, c_next = main_area().columns([1, 4, 1], vertical_alignment="bottom")
    with c_prev:
        st.button(
            t("steps_prev"),
            key="steps_prev",
            on_click=go,
            args=(-1,),
            disabled=step <= 1,
            shortcut="Left",
            width="stretch",
            help=t("steps_keys_help"),
        )
    with c_pick:
        # on a projector without its label (each option says "Step 6 of 10: ..."), so that the step's
        # first table or chart starts higher on the first screen
        name = st.selectbox(
            t("steps_step"),
            STEPS,
            key="steps_step",
            format_func=lambda k: t("steps_step_of", n=STEPS.index(k) + 1, total=N, title=t(f"steps_title_{k}")),
            label_visibility="collapsed" if ctx.presentation else "visible",
        )
        step = STEPS.index(name) + 1
    with c_next:
        st.button(
            t("steps_next"),
            key="steps_next",
            on_click=go,
            args=(1,),
            disabled=step >= N,
            shortcut="Right",
            width="stretch",
            help=t("steps_keys_help"),
        )
    st.progress(step / N)
    return step


def _section_walk(ctx: Context, w: Walkthrough, step: int, view: dict) -> None:
    """Where this head is (model, attention, sizes), then the step's title and the step itself."""
    T, S = len(w.query_tokens), len(w.key_tokens)
    qt = w.query_tokens
    # decoder and cross rows are steps that write the next token: the page's (cached) trace of the
    # same text says which, and rows are labelled "reads → writes" as on every other page
    wr = None
    if w.kind in ("decoder", "cross"):
        try:
            same = cache.trace(ctx.model, ctx.device, ctx.text).attention.get(w.kind)
            wr = same.query_written if same is not None and list(same.query_tokens) == list(qt) else None
        except InputError:
            wr = None
    q_rows = list(qt) if wr is None else [f"{a}{ARROW}{b}" for a, b in zip(qt, wr)]
    st.caption(
        t(
            "steps_where",
            model=model_label(w.model),
            kind=t(f"kind_{w.kind}"),
            layer=w.layer + 1,
            layers=w.num_layers,
            head=w.head + 1,
            heads=w.num_heads,
            d_model=w.d_model,
            d_k=w.d_k,
            T=T,
            S=S,
        )
    )
    if w.output_text:
        st.caption(t("steps_translation", text=md(w.output_text)))

    if view["q"] is not None:  # a link's or the reader's row, fitted to this sentence
        state.fit("steps_q", range(T), lambda i: f"{t('query_token')} {i}", fallback=min(1, T - 1))

    key = STEPS[step - 1]
    main_area().subheader(f"{step}. {t(f'steps_title_{key}')}")
    formula = st.container()
    wide = st.container()  # a step's full-width part, above the two columns (softmax: the weights' view)
    left, right = st.columns([3, 2], gap="large")
    STEP_VIEWS[key](Step(w, formula, wide, left, right, q_rows, wr, ctx.presentation))


# -- the ten steps: one function each, picked from STEP_VIEWS by the step's key ----------------


@dataclass(frozen=True)
class Step:
    """What a step draws from: the head's numbers and the places under the step's title."""

    w: Walkthrough  # the numbers the model computed for this head (its .kind, .layer, .head)
    formula: DeltaGenerator  # the step's formulas, under its title
    wide: DeltaGenerator  # its full-width part, above the two columns
    left: DeltaGenerator  # its numbers
    right: DeltaGenerator  # the lines of model/ that computed them
    q_rows: list[str]  # the query rows as the heatmap names them ("reads → writes" where known)
    written: list[str] | None  # what each query row writes (decoder and cross rows), else None
    present: bool  # presentation mode


def step_tokens(s: Step) -> None:
    w = s.w
    qt, kt, kind = w.query_tokens, w.key_tokens, w.kind
    s.formula.latex(
        r"\text{text} \;\rightarrow\; [t_1, \dots, t_n] \;\rightarrow\; [\mathrm{id}_1, \dots, \mathrm{id}_n]"
    )
    with s.left:
        if w.arch == "gpt":
            st.markdown(t("steps_tokens_gpt"))
        elif kind == "encoder":
            st.markdown(t("steps_tokens_encoder"))
        else:
            st.markdown(t("steps_tokens_translator_target"))
        sides = (
            [("query", qt, w.query_ids)] if kind != "cross" else [("query", qt, w.query_ids), ("key", kt, w.key_ids)]
        )
        # this step's numbers are the tables of ids: on a projector they go under the step's title
        with main_area(first=True):
            for side, toks, ids in sides:
                if kind == "cross":
                    st.markdown("**" + t(f"steps_tokens_{side}_side") + "**")
                df = pd.DataFrame({t("col_position"): range(len(toks)), t("col_token"): toks, t("steps_col_id"): ids})
                # every row shown up to 11 tokens (a projector's rows are taller than 35 px), then a scroll
                height = "content" if len(df) <= 11 else 420
                st.dataframe(df, hide_index=True, key=f"steps_tokens_{side}", height=height)
                st.caption(t("steps_n_tokens", n=len(toks)))
    with s.right:
        show_code("tokens", w)


def step_embed(s: Step) -> None:
    w = s.w
    qt, kt, kind = w.query_tokens, w.key_tokens, w.kind
    scheme = w.positional
    emb = r"\mathrm{Embedding}(\mathrm{ids})" + (r"\cdot\sqrt{d_{\text{model}}}" if w.arch == "transformer" else "")
    if scheme == "sinusoidal":
        s.formula.latex(r"X^{(0)} = " + emb + r" + PE")
        # one line each, and d for d_model in the exponent: a subscript of an exponent is drawn at
        # half size, 7 px on a phone (below 11 px); at full size on one line it would not fit 356 px
        s.formula.latex(r"PE_{(pos,\,2i)} = \sin\left(\frac{pos}{10000^{2i/d}}\right)")
        s.formula.latex(r"PE_{(pos,\,2i+1)} = \cos\left(\frac{pos}{10000^{2i/d}}\right)")
        s.formula.latex(r"d = d_{\text{model}} = %d" % w.d_model)
    elif scheme == "learned":
        s.formula.latex(r"X^{(0)} = " + emb + r" + P_{\text{learned}}[pos]")
    else:
        s.formula.latex(r"X^{(0)} = " + emb)
    with s.left:
        st.markdown(t(f"steps_embed_{scheme}"))
        if w.arch == "transformer":
            st.caption(t("steps_embed_scaled", d=w.d_model, s=f"{math.sqrt(w.d_model):.3f}"))
        streams = [("query", qt, w.query_embed, w.query_position, w.query_input)]
        if kind == "cross":
            streams.append(("key", kt, w.key_embed, w.key_position, w.key_input))
        tabs = st.tabs([t(f"steps_stream_{s[0]}") for s in streams]) if len(streams) > 1 else [st.container()]
        for tab, (side, toks, e, p, x0) in zip(tabs, streams):
            with tab:
                st.markdown(shape("Embedding", e))
                matrix(e, toks, f"steps_emb_{side}")
                if p is not None:
                    st.markdown(shape("PE", p))
                    matrix(p, toks, f"steps_pe_{side}")
                    st.markdown(shape("X⁽⁰⁾", x0))
                    matrix(x0, toks, f"steps_x0_{side}")
                with st.expander(t("steps_numbers", name="X⁽⁰⁾")):
                    numbers(x0, toks, key=f"steps_df_x0_{side}")
    with s.right:
        show_code("embed", w)


def step_qkv(s: Step) -> None:
    w = s.w
    qt, kt, kind, layer, head, T = w.query_tokens, w.key_tokens, w.kind, w.layer, w.head, len(w.query_tokens)
    rope = w.positional == "rope"
    if kind == "cross":
        s.formula.latex(r"Q = H W^Q,\quad K = M W^K,\quad V = M W^V")
    else:
        s.formula.latex(r"Q = X W^Q,\quad K = X W^K,\quad V = X W^V")
    if rope:
        s.formula.latex(r"q_m \leftarrow R_{\Theta,m}\, q_m,\qquad k_n \leftarrow R_{\Theta,n}\, k_n")
    with s.left:
        which = "gpt" if w.pre_ln else "cross" if kind == "cross" else "first" if layer == 0 else "later"
        st.markdown(t(f"steps_x_{which}", layer=layer + 1, prev=layer))
        st.markdown(shape("X" if kind != "cross" else "H", w.X))
        matrix(w.X, qt, "steps_X")
        if kind == "cross":
            st.markdown(shape("M", w.X_kv))
            matrix(w.X_kv, kt, "steps_M")
        st.markdown(t("steps_linear", d=w.d_model))
        st.markdown("**" + t("steps_split_title") + "**")
        st.caption(t("steps_split_help", h=w.num_heads, d_k=w.d_k, d=w.d_model, head=head + 1))
        chart(shapes_figure(T, w.d_model, w.num_heads, chosen=head, labels=mlabels()), "steps_split", lead=False)
        tabs = st.tabs(["Q", "K", "V"])
        for tab, name, full, part, pre, toks in zip(
            tabs,
            "QKV",
            (w.Q_full, w.K_full, w.V_full),
            (w.q, w.k, w.v),
            (w.q_unrotated, w.k_unrotated, None),
            (qt, kt, kt),
        ):
            with tab:
                st.markdown(shape(name, full) + " · " + t("steps_bands", head=head + 1))
                matrix(full, toks, f"steps_{name}_full", head_bands=w.num_heads, chosen_head=head)
                if pre is not None:
                    st.markdown(
                        t("steps_rope_before", name=name.lower()) + " · " + shape(f"{name.lower()}_{head + 1}", pre)
                    )
                    matrix(pre, toks, f"steps_{name}_pre")
                    st.markdown(t("steps_rope_after", name=name.lower()))
                st.markdown(shape(f"{name}_{head + 1}", part))
                matrix(part, toks, f"steps_{name}_head")
                with st.expander(t("steps_numbers", name=f"{name}_{head + 1}")):
                    numbers(part, toks, key=f"steps_df_{name}")
    with s.right:
        show_code("qkv", w)


def score_step(s: Step, explain: str, symbol: str, values, name: str, code: str) -> None:
    """A step whose result is one query x key matrix (S, S'): what it does, the matrix's shape, the
    matrix and its numbers (keyed steps_NAME, steps_df_NAME), beside the code of step `code`."""
    w = s.w
    qt, kt = w.query_tokens, w.key_tokens
    with s.left:
        st.markdown(explain)
        st.markdown(shape(symbol, values))
        matrix(values, qt, f"steps_{name}", columns=kt)
        numbers(values, qt, kt, key=f"steps_df_{name}")
    with s.right:
        show_code(code, w)


def step_scores(s: Step) -> None:
    w = s.w
    head = w.head
    s.formula.latex(r"S = Q_{%d} K_{%d}^{\top}" % (head + 1, head + 1))
    score_step(s, t("steps_scores_explain", d_k=w.d_k), "S", w.scores, "scores", "scores")


def step_scale(s: Step) -> None:
    w = s.w
    head = w.head
    s.formula.latex(
        r"S' = \frac{Q_{%d} K_{%d}^{\top}}{\sqrt{d_k}} = \frac{S}{\sqrt{%d}} = \frac{S}{%.3f}"
        % (head + 1, head + 1, w.d_k, math.sqrt(w.d_k))
    )
    explain = t(
        "steps_scale_explain",
        d_k=w.d_k,
        s=f"{math.sqrt(w.d_k):.3f}",
        before=f"{np.std(w.scores):.3f}",
        after=f"{np.std(w.scaled):.3f}",
    )
    score_step(s, explain, "S'", w.scaled, "scaled", "scale")


def step_mask(s: Step) -> None:
    w = s.w
    qt, kt, head, T = w.query_tokens, w.key_tokens, w.head, len(w.query_tokens)
    lines = []
    if w.bias is not None:
        lines.append(
            r"S'_{ij} \leftarrow S'_{ij} - m_{%d}\,|i - j|,\quad m_{%d} = %.4g"
            % (head + 1, head + 1, float(-w.bias[min(1, T - 1), 0]) if T > 1 else 0.0)
        )
    if w.mask_kind == "causal":
        lines.append(r"S'_{ij} \leftarrow -10^{9}\quad \text{if } j > i")
    else:
        lines.append(r"S'_{ij} \leftarrow -10^{9}\quad \text{if key } j \text{ is } \langle\mathrm{pad}\rangle")
    for line in lines:
        s.formula.latex(line)
    with s.left:
        st.markdown(t(f"steps_mask_{w.mask_kind}"))
        if w.bias is not None:
            st.markdown(t("steps_alibi", head=head + 1) + " · " + shape("bias", w.bias))
            matrix(w.bias, qt, "steps_bias", columns=kt)
        st.markdown(t("steps_mask_matrix") + " · " + shape("mask", w.mask))
        st.dataframe(
            pd.DataFrame(np.where(w.mask, "✓", "✗"), index=rows(qt), columns=rows(kt)),
            key="steps_df_maskmatrix",
            height=min(3 + 35 * (T + 1), 420),
        )
        st.markdown(shape("S' (" + t("steps_after_mask") + ")", w.masked))
        matrix(w.masked, qt, "steps_masked", columns=kt, mask=w.mask, masked_text=t("steps_masked_value"))
        numbers(w.masked, qt, kt, key="steps_df_masked")
    with s.right:
        show_code("mask", w)


def step_softmax(s: Step) -> None:
    w = s.w
    qt, kt, kind, T = w.query_tokens, w.key_tokens, w.kind, len(w.query_tokens)
    temp = "" if w.temperature == 1.0 else f"/{w.temperature:g}"
    s.formula.latex(
        # exp(...) rather than e^{...}: an exponent's subscript is drawn at half size (7 px on a phone)
        r"A_{ij} = \mathrm{softmax}_j(S'_{ij}%s) = \frac{\exp(S'_{ij}%s)}{\sum_{k} \exp(S'_{ik}%s)}"
        % (temp, temp, temp)
    )
    with s.wide:  # the view holds the heatmap and the row's table side by side: the page's full width
        st.markdown(t("steps_softmax_explain"))
        st.markdown(shape("A", w.weights))
        q = token_picker(qt, "steps_q", default=min(1, T - 1), labels=s.q_rows)
        weights_view(w.weights, None if w.mask.all() else w.mask, kind, qt, kt, s.q_rows, s.written, q, w, s.present)
        sums = w.weights.sum(-1)
        st.caption(t("steps_row_sums", lo=f"{sums.min():.6f}", hi=f"{sums.max():.6f}"))
    with s.left:
        # every weight to 4 decimals (the chart's cells show 2 where they fit, its table one row):
        # the model's own numbers, readable and copyable; rows named as the heatmap names them
        numbers(w.weights, s.q_rows, kt, key="steps_df_weights")
    with s.right:
        show_code("softmax", w)


def step_weighted(s: Step) -> None:
    w = s.w
    qt, kt, head, T = w.query_tokens, w.key_tokens, w.head, len(w.query_tokens)
    s.formula.latex(
        r"\mathrm{head}_{%d} = A\,V_{%d},\qquad \mathrm{head}_{%d}[i] = \sum_j A_{ij}\, V_{%d}[j]"
        % (head + 1, head + 1, head + 1, head + 1)
    )
    with s.left:
        st.markdown(t("steps_weighted_explain"))
        q = token_picker(qt, "steps_q", default=min(1, T - 1), labels=s.q_rows)
        top = np.argsort(-w.weights[q])[:3]
        st.markdown(
            t(
                "steps_weighted_row",
                token=md(qt[q]),
                parts=" + ".join(f"{w.weights[q, j]:.3f}·V[{md(kt[j])}]" for j in top),
            )
        )
        st.markdown(
            shape("A", w.weights)
            + " · "
            + shape(f"V_{head + 1}", w.v)
            + " → "
            + shape(f"head_{head + 1}", w.head_output)
        )
        matrix(w.v, kt, "steps_V_again", title=f"V_{head + 1}")
        matrix(w.head_output, qt, "steps_head_output", title=f"head_{head + 1} = A V_{head + 1}")
        with st.expander(t("steps_numbers", name=f"head_{head + 1}"), expanded=True):
            numbers(w.head_output, qt, key="steps_df_head_output")
    with s.right:
        show_code("weighted", w)


def step_concat(s: Step) -> None:
    w = s.w
    qt, head, T = w.query_tokens, w.head, len(w.query_tokens)
    # two lines: on one, at a phone's 11 px subscripts, it would be wider than the screen
    s.formula.latex(
        r"\begin{aligned}&\mathrm{MultiHead}(Q, K, V)\\"
        r"&\quad= \mathrm{Concat}(\mathrm{head}_1, \ldots, \mathrm{head}_{%d})\,W^O\end{aligned}" % w.num_heads
    )
    with s.left:
        st.markdown(t("steps_concat_explain", h=w.num_heads, d_k=w.d_k, d=w.d_model))
        merge = shapes_figure(T, w.d_model, w.num_heads, chosen=head, merge=True, labels=mlabels())
        chart(merge, "steps_merge", lead=False)
        st.markdown(shape("Concat", w.concat) + " · " + t("steps_bands", head=head + 1))
        matrix(w.concat, qt, "steps_concat", head_bands=w.num_heads, chosen_head=head)
        st.markdown(shape("MultiHead = Concat·W^O + b", w.output))
        matrix(w.output, qt, "steps_output")
        with st.expander(t("steps_numbers", name="MultiHead")):
            numbers(w.output, qt, key="steps_df_output")
    with s.right:
        show_code("concat", w)


def step_ffn(s: Step) -> None:
    w = s.w
    qt, kind, layer = w.query_tokens, w.kind, w.layer
    if w.pre_ln:
        s.formula.latex(r"x \leftarrow x + \mathrm{Sublayer}(\mathrm{LayerNorm}(x))")
    else:
        s.formula.latex(r"\mathrm{Output} = \mathrm{LayerNorm}(x + \mathrm{Sublayer}(x))")
    with s.left:
        st.markdown(t("steps_ffn_pre_ln" if w.pre_ln else f"steps_ffn_post_ln_{kind}"))
        tabs = st.tabs([t(f"steps_post_{p.key}") for p in w.post])
        for tab, p in zip(tabs, w.post):
            with tab:
                st.latex(p.latex)
                st.markdown(shape(t(f"steps_post_{p.key}"), p.value))
                matrix(p.value, qt, f"steps_post_{p.key}")
                with st.expander(t("steps_numbers", name=t(f"steps_post_{p.key}"))):
                    numbers(p.value, qt, key=f"steps_df_post_{p.key}")
        last = layer == w.num_layers - 1
        st.info(t("steps_next_layer_last" if last else "steps_next_layer", n=layer + 2), icon="➡️")
    with s.right:
        show_code("ffn", w)


STEP_VIEWS = {
    "tokens": step_tokens,
    "embed": step_embed,
    "qkv": step_qkv,
    "scores": step_scores,
    "scale": step_scale,
    "mask": step_mask,
    "softmax": step_softmax,
    "weighted": step_weighted,
    "concat": step_concat,
    "ffn": step_ffn,
}  # one per analysis.walkthrough.STEPS


if __name__ == "__main__":  # Streamlit runs the file as the page (ui/page.py)
    page.show(render, VIEW)

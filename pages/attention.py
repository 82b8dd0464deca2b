"""Attention explorer: every layer and head of one attention kind, as a heatmap, the tutorial's
table, the model view (all heads; a click picks one), the head view (lines), rollout and head
roles, with every view setting in the URL."""

from __future__ import annotations

from ui import boot  # noqa: F401  (first: on a fresh server, a deep link shows the title and a loading message)

# isort: split

import functools

import numpy as np
import streamlit as st

from analysis import claims
from analysis import experiments as ex
from analysis.measures import (
    head_roles,
    induction_scores,
    merge_tokens,
    merge_words,
    rollout,
    word_groups,
)
from model.attention import ABLATIONS
from model.intervention import parse_head
from ui import cache, page, state, view
from ui import intervene as ui_iv
from ui.attention_view import TABS as VIEW_TABS
from ui.attention_view import attention_view, bind_view, live_model
from ui.context import model_label, partial, text_box_key
from ui.grammar import output_markdown
from ui.i18n import t
from ui.layout import PRESENT_MIN_FONT, copy_link, main_area, page_header, plotly_chart, present_figure
from ui.rows import row_labels, rows_caption, written
from ui.run import Context
from ui.state import choice
from ui.view import Field
from ui.widgets import (
    PLOTLY_CONFIG,
    download,
    heatmap_labels,
    image_format_picker,
    kind_picker,
    translated,
)
from viz.attention_view import THUMB
from viz.head_view import head_view_spec
from viz.heatmap import attention_heatmap

INDUCTION_PERIOD = 10
HEAD_VIEW_TOP_K, HEAD_VIEW_THRESHOLD, HEAD_VIEW_SHORT = 5, 0.02, 30
PAGE_TABS = ("views", "agg", "export")
TABS = (*VIEW_TABS, *PAGE_TABS[1:])  # what the link's "tab" may name (the view's tabs switch in the browser)
# a link written before the view's tabs were named for what they draw (2026-12-04): its head view
# was "lines" ("head" was the heatmap, the default, which a link never carried)
OLD_TABS = {"lines": "head"}


def _tab(raw: str) -> str:
    """The link's "tab": a tab of the view or of the page, or an old link's name for one."""
    return choice(TABS)(OLD_TABS.get(raw, raw))


# -- the page's view: every setting its link carries (ui/view.py; bad values: default + notice) ---
VIEW = (
    view.kind("att_kind"),  # None: the model's first kind
    view.layer("att_layer", None),  # None: the last layer
    view.head("att_head", "mean"),
    view.row("att_q", 1),
    Field("words", "att_words", False, state.flag, omit_default=True),
    Field("tab", "att_tab_id", VIEW_TABS[0], _tab, omit_default=True),
    view.temperature("att_temp"),  # every layer's, applied on the server (the trace is recomputed)
    view.layer_temperature("att_ltemp"),  # the shown layer's own, applied in the browser
    # the attention view's knobs (the in-browser model answers them at once; the server's trace too)
    Field("off", "att_off", [], ui_iv.parse_off, omit_default=True),  # heads switched off, "decoder:1:2,..."
    Field("how", "att_how", "zero", choice(ABLATIONS), omit_default=True),
    Field("nopos", "att_nopos", False, state.flag, omit_default=True),  # positions off
)


@functools.cache
def vega_converter():
    """vl_convert, or None: optional, Vega-Lite to SVG/PNG on the server, offline (Altair's own converter)."""
    try:
        import vl_convert
    except ImportError:
        return None
    return vl_convert


@st.cache_data(show_spinner=False, max_entries=8)
def induction(name: str, device: str, period: int = INDUCTION_PERIOD) -> np.ndarray:
    """(layers, heads) induction scores: the model reads <s> r r for fixed random ordinary tokens r."""
    weights, offset = ex.induction_probe(cache.runner(name, device), period)
    return induction_scores(weights, period, offset=offset)


@st.cache_data(show_spinner=False, max_entries=64)
def lines_spec(
    layer_weights: np.ndarray, q_tokens: tuple, k_tokens: tuple, labels: tuple, presenting: bool = False
) -> dict:
    """The head view's Vega-Lite spec; a rerun that keeps the layer (another head or query) reuses it."""
    rows = max(len(q_tokens), len(k_tokens))
    return head_view_spec(
        layer_weights,
        list(q_tokens),
        list(k_tokens),
        threshold=HEAD_VIEW_THRESHOLD,
        top_k=HEAD_VIEW_TOP_K,
        labels=dict(labels),
        font_px=PRESENT_MIN_FONT + 2 if presenting else 13,  # a projector's labels: 16 px and more
        # a short sentence's 18 px rows would crowd its lines together
        height=int(rows * min(40, 600 / rows)) if rows < HEAD_VIEW_SHORT else None,
    )


def plotly_config(image_format: str, filename: str) -> dict:
    # plotly.js writes the PNG or SVG in the browser: works offline, no server-side renderer
    return {
        **PLOTLY_CONFIG,
        "toImageButtonOptions": {**PLOTLY_CONFIG["toImageButtonOptions"], "format": image_format, "filename": filename},
    }


def layer_label(i: int) -> str:
    return t("att_layer_n", n=i + 1)


def head_label(h) -> str:
    return t("att_mean_heads") if h == "mean" else t("att_head_n", n=h + 1)


# the attention view's report, when the reader lets go: its layer, head, row, tab and the shown
# layer's temperature become the page's (the link, the room and the tables follow)
take_view = bind_view(
    tab=("att_tab_id", "_att_view_tab"),
    layer="att_layer",
    head="att_head",
    q="att_q",
    ltemp="att_ltemp",
    temp="att_temp",
    off="att_off",
    how="att_how",
    nopos="att_nopos",
    text=state.TEXT_KEY,  # a sentence typed and run in the browser, written back when the box is left
)


def knobs(view: dict) -> dict:
    """The trace's settings for the view's every-layer T, heads off and positions off (defaults left out)."""
    out = {} if view["temp"] == 1.0 else {"temperature": view["temp"]}
    if view["off"]:
        out.update(ablate=tuple(parse_head(h) for h in view["off"]), how=view["how"])
    if view["nopos"]:
        out["use_position"] = False
    return out


def toggle_words() -> None:
    """Keep the same query when switching between tokens and words."""
    groups, q = st.session_state.get("_att_groups"), st.session_state.get("att_q")
    if not groups or q is None:
        return
    if st.session_state.get("att_words"):  # tokens -> words
        st.session_state["att_q"] = groups[min(q, len(groups) - 1)]
    elif q in groups:  # words -> the word's first token
        st.session_state["att_q"] = groups.index(q)


def render(ctx: Context, view: dict) -> None:
    """The page: the sentence's attention at the link's temperature, what was measured on a real
    pretrained model, then the explorer (controls, the attention view and the page's tabs)."""
    temperature = view["temp"]
    page_header("page_attention", "att_intro")

    runner = ctx.runner()
    tr = None
    if runner is not None:
        tr = ctx.trace(**knobs(view))
    if tr is None:
        copy_link()
        return
    if getattr(runner, "packaged", None) is not None:  # a real pretrained model: what was measured on it
        measured_on_it(ctx)

    if temperature != 1.0:
        st.caption("🌡️ " + t("att_temp_note", temp=f"{temperature:g}"))
    if tr.output_text:
        st.markdown(output_markdown(tr, "att_translation"))  # off-language: not "Translation"
    explorer(ctx, tr, runner, view)


def measured_on_it(ctx: Context) -> None:
    """The expander of what analysis.claims measured on this real pretrained model."""
    found = cache.measured_claims(ctx.model, ctx.device)
    with st.expander(t("att_real_measured", name=model_label(ctx.model))):
        for key, c in found.items():
            n = c.numbers
            heads = ", ".join(t("att_real_head", layer=la + 1, head=h + 1) for _, la, h in c.heads[:4])
            if key == "sink":
                # numbers per kind (analysis.claims._merge); a decoder has the one kind
                share = float(np.nanmean(np.concatenate([np.ravel(v) for v in n["share"].values()])))
                uniform = float(np.nanmean(np.concatenate([np.ravel(v) for v in n["uniform"].values()])))
                st.markdown(
                    t(
                        f"att_real_sink_{c.holds}",
                        n=len(c.heads),
                        total=sum(np.size(v) for v in n["ratio"].values()),
                        share=f"{share:.2f}",
                        uniform=f"{uniform:.2f}",
                    )
                )
            elif key == "previous":
                st.markdown(t(f"att_real_{key}_{c.holds}", heads=heads, best=f"{n['max']:.2f}", min=n["min"]))
            elif key == "induction":  # the first token and the row itself left aside (issue 49)
                la, h = n["best"]
                st.markdown(
                    t(
                        f"att_real_induction_{c.holds}",
                        heads=heads,
                        min=n["min"],
                        best=f"{n['best_share']:.2f}",
                        best_head=t("att_real_head", layer=la + 1, head=h + 1),
                        top=n["best_top"],
                        sink=f"{n['best_sink']:.2f}",
                    )
                )
            elif key == "reach":
                st.markdown(reach_text(c))
            elif key == "pronoun_it" and n.get("found"):
                best = np.unravel_index(int(np.argmax(n["noun"])), n["noun"].shape)
                st.markdown(
                    t(
                        pronoun_key(c),
                        heads=heads,
                        noun=f"{n['noun'][best]:.2f}",
                        other=f"{n['other'][best]:.2f}",
                        mean_noun=f"{n['mean_noun']:.3f}",
                        mean_other=f"{n['mean_other']:.3f}",
                        min=n["min"],  # the sentence where no head links them (Gemma) names the bar
                    )
                )


def pronoun_key(c) -> str:
    """The sentence of pronoun_it's verdict: where heads link "it" to "animal", whether the mean of every
    head leans to "animal" too (then "not the model as a whole" would be false) or not (SmolLM2: 0.042
    against 0.053 on "street")."""
    if c.holds and c.numbers["mean_noun"] > c.numbers["mean_other"]:
        return "att_real_pronoun_True_mean"
    return f"att_real_pronoun_{c.holds}"


def reach_text(c) -> str:
    """How far back the layers read (analysis.claims.reach), by layer type: the page's sentence on it."""
    n = c.numbers
    fields = dict(
        n_en=n["tokens"][0], n_zh=n["tokens"][-1], glob=f"{n['global']:.1f}" if n["global"] is not None else "—"
    )
    if not n["n_local"]:
        return t("att_real_reach_global", **fields)
    return t(
        f"att_real_reach_{c.holds}",
        n_local=n["n_local"],
        n_global=n["n_global"],
        local=f"{n['local']:.1f}",
        **fields,
    )


@partial
def explorer(ctx: Context, tr, runner, page_view: dict) -> None:
    """Everything below the sentence: a change of kind, layer, head, query, tab or tile reruns
    only this (ui.context.partial), not the sidebar and the model."""
    # the view reported knobs the model must be run again for (every layer's T, heads off,
    # positions): the trace is the whole page's, so the whole page runs again
    keys = {"temp": "att_temp", "off": "att_off", "how": "att_how", "nopos": "att_nopos"}
    changed = any(st.session_state.get(key, page_view[name]) != page_view[name] for name, key in keys.items())
    if changed or st.session_state.get(state.TEXT_KEY, ctx.text) != ctx.text:
        st.rerun(scope="app")
    # -- controls --------------------------------------------------------------------------------
    kinds = tr.kinds()
    n_layers, n_heads = runner.config.num_layers, runner.config.num_heads
    if st.session_state.get("att_layer") is None:  # the last layer first; the pickers fit a link's values
        st.session_state["att_layer"] = n_layers - 1

    # on a projector the controls go without their labels (the options say what they are) and the
    # explanation, so that the first screen at 1280 x 800 reaches the chart
    shown = "collapsed" if ctx.presentation else "visible"
    c_kind, c_words = st.columns([3, 1], vertical_alignment="bottom")
    with c_kind:
        kind = kind_picker(kinds, "att_kind", label_visibility=shown)
    with c_words:
        words = st.toggle(t("att_words"), key="att_words", help=t("att_words_help"), on_change=toggle_words)
    if not ctx.presentation:
        # the gpt-local aside is about this project's models; a Hugging Face decoder gets the plain line
        ours = getattr(runner, "has_tutorial_code", False)
        st.caption(t(f"att_explain_{kind}" if ours or kind != "decoder" else "att_explain_decoder_other"))
    # layer, head and row are chosen in the attention view (in the browser); a link's values that
    # this model lacks are fitted here, with the notice the pickers gave
    layer = state.fit("att_layer", range(n_layers), layer_label)
    head = state.fit("att_head", ["mean", *range(n_heads)], head_label)

    att = tr.attention[kind]
    weights, mask = att.weights, att.mask
    q_tokens, k_tokens = att.query_tokens, att.key_tokens
    st.session_state["_att_groups"] = word_groups(att.query_words).tolist() if att.query_words else None
    if words:
        weights, mask = merge_words(weights, att.query_words, att.key_words, mask)
        q_tokens = att.query_word_labels or merge_tokens(q_tokens, att.query_words)
        k_tokens = att.key_word_labels or merge_tokens(k_tokens, att.key_words)
    # decoder and cross rows: "reads → writes"; q_tokens stay what each row reads (the table's heading)
    q_labels, q_written = row_labels(att, words), written(att, words)
    writes = q_written is not None

    if st.session_state.get("att_q") is None:
        st.session_state["att_q"] = st.session_state.get("_att_q_last", 1)
    q = state.fit("att_q", range(len(q_tokens)), lambda i: f"{t('att_what_q')} {i}")
    st.session_state["_att_q_last"] = q

    layer_w = weights[layer]  # (heads, Q, K)
    image_format = st.session_state.get("att_img", "png")

    def heatmap(w, key, filename):
        fig = attention_heatmap(w, q_labels, k_tokens, mask=mask, labels=heatmap_labels(writes))
        plotly_chart(present_figure(fig), config=plotly_config(image_format, filename), key=key)
        return fig

    # on_change="rerun": only the open tab is computed and sent
    tab_views, tab_agg, tab_export = st.tabs(page_tabs(), key="att_tab", on_change="rerun")
    with tab_views:
        if tab_views.open:
            # on a projector the chart comes first and its explanations after it
            if writes and not ctx.presentation:
                st.caption(rows_caption(att))
            if not ctx.presentation:
                st.caption(t("att_view_help"))
            with main_area():  # presentation mode: under the title, before the controls
                attention_view(
                    weights,
                    mask,
                    kind=kind,
                    q_tokens=q_tokens,
                    k_tokens=k_tokens,
                    q_labels=q_labels,
                    q_written=q_written,
                    view={
                        "tab": st.session_state.get("_att_view_tab", VIEW_TABS[0]),
                        "layer": layer,
                        "head": head,
                        "q": q,
                        "ltemp": st.session_state.get("att_ltemp", 1.0),
                        "temp": page_view["temp"],
                        "off": page_view["off"],
                        "how": page_view["how"],
                        "nopos": page_view["nopos"],
                    },
                    key="att_view",
                    on_view=take_view,
                    present=ctx.presentation,
                    temperature=not words,  # merged words' weights are sums, not one softmax
                    # our own models run in the reader's browser too (not merged words: sums of weights)
                    live=None
                    if words
                    else live_model(
                        ctx.model,
                        kind,
                        text_box_key(),
                        ctx.text,
                        # a sentence of up to THUMB tokens is drawn nowhere else on the page (no
                        # output line; past THUMB the caption below says the model view pools)
                        whole=0 if tr.output_text or max(len(q_tokens), len(k_tokens)) > THUMB else THUMB,
                    ),
                )
            if ctx.presentation:
                st.caption((rows_caption(att) + " " if writes else "") + t("att_view_help"))
            if max(len(q_tokens), len(k_tokens)) > THUMB:
                st.caption(t("att_model_view_pooled", n=THUMB))

    with tab_agg:
        if tab_agg.open:
            rollout_and_roles(ctx, runner, tr, att, kind, words, heatmap)

    with tab_export:
        if tab_export.open:
            exports(ctx, tr, layer_w, q_labels, k_tokens, writes)

    state.write_view(
        VIEW,
        kind=kind if len(kinds) > 1 else None,
        layer=layer,
        head=head,
        q=q,
        words=words,
        tab=st.session_state["att_tab_id"],
        temp=page_view["temp"],
        off=page_view["off"],
        how=page_view["how"],
        nopos=page_view["nopos"],
        ltemp=None if words else st.session_state.get("att_ltemp", 1.0),  # merged words: no one softmax
    )
    copy_link()


def page_tabs() -> list[str]:
    """The page tabs' labels, the link's "tab" opening its tab (and a tab the reader opened
    becoming the link's)."""
    # the first tab is the attention view, whose own tabs (heatmap, model view, head view) switch
    # in the browser; the link's "tab" names either one of those or a page tab, by a name that
    # does not change with the language
    tab_labels = [t(f"att_tab_{name}") for name in PAGE_TABS]
    tab_id = st.session_state.get("att_tab_id", VIEW_TABS[0])
    if tab_id in VIEW_TABS:
        st.session_state["_att_view_tab"] = tab_id
    page_tab = "views" if tab_id in VIEW_TABS else tab_id
    opened = st.session_state.get("att_tab")
    if opened in tab_labels and st.session_state.get("att_tab_linked") == tab_id:
        chosen = PAGE_TABS[tab_labels.index(opened)]
        if chosen != page_tab:  # the reader opened another page tab
            st.session_state["att_tab_id"] = (
                st.session_state.get("_att_view_tab", VIEW_TABS[0]) if chosen == "views" else chosen
            )
    else:
        st.session_state["att_tab"] = tab_labels[PAGE_TABS.index(page_tab)]
    st.session_state["att_tab_linked"] = st.session_state["att_tab_id"]
    return tab_labels


def rollout_and_roles(ctx: Context, runner, tr, att, kind: str, words: bool, heatmap) -> None:
    """The aggregates tab: attention rollout through the layers, then every head's role.
    heatmap(w, key, filename) draws a chart with the explorer's rows, columns and image format."""
    st.subheader(t("att_rollout"))
    if kind == "cross":
        st.info(t("att_rollout_none"), icon="ℹ️")
    else:
        st.caption(t("att_rollout_help"))
        r = rollout(att.weights)
        if words:
            r, _ = merge_words(r, att.query_words, att.key_words)
        left, _ = st.columns([3, 2])
        with left:
            heatmap(r, "att_rollout", "attention_rollout")

    st.subheader(t("att_roles"))
    st.markdown(t("att_roles_help"))
    ind = None
    if runner.can_continue_text:
        st.markdown(t("att_induction_help", n=INDUCTION_PERIOD))
        ind = induction(ctx.model, ctx.device)
    # cross heads are labelled "align" by word alignment on this sentence (analysis.claims), not peakedness
    aligned = claims.page_alignment(runner, ctx.text, tr.output_text, att) if kind == "cross" else None
    roles = head_roles(att.weights, att.mask, induction=ind, cross=kind == "cross", align=aligned)
    roles["layer"] += 1
    roles["head"] += 1
    roles["role"] = [t(f"att_role_{r}") for r in roles["role"]]
    score_cols = [c for c in ("previous", "current", "first", "align", "broad", "induction") if c in roles]
    roles = translated(
        roles[["layer", "head", "role", "score", *score_cols]],
        {
            "layer": "att_col_layer",
            "head": "att_col_head",
            "role": "att_col_role",
            "score": "att_col_score",
            **{c: f"att_role_{c}" for c in score_cols},
        },
    )
    bars = {
        t(f"att_role_{c}"): st.column_config.ProgressColumn(
            t(f"att_role_{c}"), format="%.2f", min_value=0.0, max_value=1.0
        )
        for c in score_cols
    }
    st.dataframe(
        roles,
        hide_index=True,
        width="stretch",
        height="content",
        key="att_roles",
        column_config={**bars, t("att_col_score"): st.column_config.NumberColumn(format="%.2f")},
    )


def exports(ctx: Context, tr, layer_w: np.ndarray, q_labels: list, k_tokens: list, writes: bool) -> None:
    """The export tab: the trace as JSON, and the shown layer's head view (layer_w: heads, Q, K)
    as SVG and PNG when vl_convert is installed."""
    st.markdown(t("att_export_intro"))
    image_format_picker("att_img")
    vl_convert = vega_converter()
    with st.container(horizontal=True):
        download(
            t("att_download_json"),
            tr.dumps,
            f"attention_{ctx.model}.json",
            key="att_json",
            help=t("att_download_json_help"),
        )
        if vl_convert is not None:
            line_labels = (
                ("head", t("att_head")),
                ("query", t("axis_query_writes" if writes else "axis_query")),
                ("key", t("axis_key")),
                ("weight", t("weight")),
            )
            lines = lines_spec(layer_w, tuple(q_labels), tuple(k_tokens), line_labels)
            download(
                t("att_download_svg"),
                lambda: vl_convert.vegalite_to_svg(lines),
                "attention_head_view.svg",
                "att_svg",
            )
            download(
                t("att_download_png"),
                lambda: vl_convert.vegalite_to_png(lines, scale=2),
                "attention_head_view.png",
                "att_png",
            )
    if vl_convert is None:
        st.caption(t("att_no_svg"))


if __name__ == "__main__":  # Streamlit runs the file as the page (ui/page.py)
    page.show(render, VIEW)

"""Intervene: switch heads off, or move one row's weight onto another key, and see what the model then
writes beside the untouched run; the importance of every head drawn over the model view."""

from __future__ import annotations

from ui import boot  # noqa: F401  (first: on a fresh server, a deep link shows the title and a loading message)

# isort: split

import json

import numpy as np
import pandas as pd
import streamlit as st

from analysis import claims
from analysis.intervene import align
from model.attention import ABLATIONS
from model.errors import InputError
from model.intervention import all_heads, has_reference, head_name, parse_head, reference_sentences
from ui import intervene as ui_iv
from ui import page, rows, state, view, widgets
from ui.i18n import t
from ui.layout import copy_link, main_area, page_header, plotly_chart, present_figure
from ui.run import Context
from ui.safe import md
from ui.state import choice  # a parser for VIEW: a module-level state.x() call reads as drawing
from ui.view import Field
from viz.generation import compare_bars
from viz.intervene import difference_heatmap, difference_table, marked_model_view
from viz.table import to_csv

MODES = ("ablate", "edit")
TILE = 48


def toggle_tile(widget_key: str, kind: str) -> None:
    """A click on a model-view tile switches that head off (or back on)."""
    event = st.session_state.get(widget_key)
    for p in (event or {}).get("selection", {}).get("points", []):
        data = p.get("customdata")
        if data is not None and len(data) == 2:
            name = head_name(kind, int(data[0]), int(data[1]))
            off = list(st.session_state.get("iv_off", []))
            st.session_state["iv_off"] = [h for h in off if h != name] if name in off else off + [name]
            st.session_state["iv_focus"] = name
            st.session_state["iv_mv_gen"] = st.session_state.get("iv_mv_gen", 0) + 1
            return


def set_off(heads: list[str]) -> None:
    st.session_state["iv_off"] = heads


# the page's view: every setting its link carries (ui/view.py), the usual values left out of it
VIEW = (
    Field("mode", "iv_mode", "ablate", choice(MODES), omit_default=True),
    Field("off", "iv_off", [], ui_iv.parse_off, omit_default=True),  # heads switched off, "cross:1:2,..."
    Field("how", "iv_how", "zero", choice(ABLATIONS), omit_default=True),
    Field("ikind", "iv_kind", None, view.KIND),
    Field("imp", "iv_imp", False, state.flag, omit_default=True),
    Field("edit", "iv_edit", None, ui_iv.parse_edit),  # kind:layer:row:key
    Field("dhead", "iv_dhead", None, ui_iv.parse_dhead),
    Field("step", "iv_step", 0, view.count, omit_default=True),  # the decoding step shown (0: the first)
)


def render(ctx: Context, view: dict) -> None:
    """The page: the attention kind, the intervention (heads off, or one row's weight moved), the
    two runs side by side, the difference downstream, the importance table and the exports."""
    edit_linked = state.linked("iv_edit")  # a link's edit opens on its attention kind, once
    page_header("page_intervene", "iv_intro")
    runner = ctx.runner()
    base = ctx.trace() if runner is not None else None
    if base is None:
        copy_link()
        return

    kinds = base.kinds()
    kind = _kind_picker(kinds, edit_linked)
    att0 = base.attention[kind]

    off, dropped = ui_iv.fitted(view["off"] or [], runner)
    if dropped:
        st.warning(t("iv_heads_dropped", heads=md(", ".join(dropped)), model=md(ctx.model)), icon="⚠️")
    st.session_state["iv_off"] = off

    mode = st.segmented_control(
        t("iv_mode"), MODES, format_func=lambda m: t(f"iv_mode_{m}"), key="iv_mode", required=True
    )
    st.caption(t(f"iv_mode_{mode}_help"))

    image_format = st.session_state.get("iv_img", "png")
    how = view["how"]
    edit_api = None
    if mode == "ablate":
        how, off = _section_ablate(runner, att0, kind)
    else:
        edit_api = _section_edit(base, att0, kind, view["edit"], image_format)

    # -- the intervened run ------------------------------------------------------------------------------
    off_t = tuple(off) if mode == "ablate" else ()
    try:
        run = ui_iv.Run(ctx.model, ctx.device, ctx.text, off_t, how, edit_api)
        tr = ui_iv.trace(run)
        target = out0 = out1 = None
        if runner.kind == "translator":
            target = tuple(ui_iv.outputs(run.untouched())["ids"])
        if runner.kind != "encoder":  # an encoder (a Hugging Face BERT) writes nothing: attention change only
            out0 = ui_iv.outputs(run.untouched(), target)
            out1 = ui_iv.outputs(run, target)
    except InputError as err:
        widgets.show_input_error(err)
        copy_link()
        return
    touched = bool(off_t) or edit_api is not None

    # presentation mode: under the title, in halves: the model view's tiles stay square, so its height
    # sets its width (about 420 px for 2 x 4 heads), and the next-token bars take the room it leaves
    # (issue 37: at 1920 x 1080 the plot areas took 25 % + 27 % of the width)
    left, right = main_area().columns([1, 1] if ctx.presentation else [3, 2], gap="large")
    with left:
        imp = _model_view(ctx, att0, kind, off_t, how, mode == "ablate" and out0 is not None, image_format)
    with right:
        _outputs(ctx, runner, base, tr, out0, out1, touched, view["step"], image_format)

    diff_csv = _section_difference(base, tr, kinds, kind, touched, view["dhead"], image_format)
    if imp is not None:
        _importance_table(imp)
    _exports(ctx, run, imp, diff_csv)

    e = st.session_state.get("iv_edit") if mode == "edit" else None
    state.write_view(
        VIEW,
        mode=mode,
        off=list(off_t),
        how=how,
        ikind=kind if len(kinds) > 1 else None,
        imp=bool(st.session_state.get("iv_imp") and mode == "ablate"),
        edit=None if e is None else f"{e[0]}:{e[1]}:{e[2]}:{e[3]}",
        dhead=st.session_state.get("iv_dhead") if touched else None,
        step=st.session_state.get("iv_step") or 0,
    )
    copy_link()


# -- which attention kind the model view shows -----------------------------------------------------
def _kind_picker(kinds: list[str], edit_linked: bool) -> str:
    """The kind picker, on the kind of the link's edit when the link brought one, else the
    session's, else cross-attention where the model has it."""
    if edit_linked and st.session_state.get("iv_edit"):  # a link's edit opens on its attention kind
        st.session_state["iv_kind"] = parse_head(st.session_state["iv_edit"][0])[0]
    if st.session_state.get("iv_kind") not in kinds:
        st.session_state["iv_kind"] = "cross" if "cross" in kinds else kinds[0]
    return widgets.kind_picker(kinds, "iv_kind")


# -- ablate: heads switched off --------------------------------------------------------------------
def _section_ablate(runner, att0, kind: str) -> tuple[str, list[str]]:
    """The heads to switch off and how; the focus head and its buttons; the sink heads found.
    Returns (how, the heads off)."""
    L, H = att0.num_layers, att0.num_heads
    all_names = [head_name(*h) for h in all_heads(runner)]
    c_off, c_how = st.columns([3, 2], vertical_alignment="bottom")
    with c_off:
        st.multiselect(
            t("iv_off"),
            all_names,
            format_func=ui_iv.head_label,
            key="iv_off",
            placeholder=t("iv_off_none"),
            help=t("iv_off_help"),
        )
    with c_how:
        how = st.radio(
            t("iv_how"),
            ABLATIONS,
            format_func=lambda h: t(f"iv_how_{h}"),
            key="iv_how",
            horizontal=True,
            # "mean" is the held-out reference on our models, a running mean on a Hugging Face one
            help=t(
                "iv_how_help",
                mean=t("iv_how_mean_reference", n=reference_sentences(runner))
                if has_reference(runner)
                else t("iv_how_mean_running"),
            ),
        )
    off = st.session_state["iv_off"]
    kind_names = [head_name(kind, la, h) for la in range(L) for h in range(H)]
    if st.session_state.get("iv_focus") not in kind_names:
        st.session_state["iv_focus"] = off[-1] if off and off[-1] in kind_names else kind_names[-1]
    # the sink button only where this model has sink heads on this sentence (analysis.claims: first-token
    # share >= SINK_FACTOR x uniform); where it has none the button is absent and the caption says so
    sink = claims.sink_claim(att0.weights, att0.mask, kind)
    sinks = [head_name(*h) for h in sink.heads]
    with st.container(horizontal=True, vertical_alignment="bottom"):
        if sinks:
            st.button(
                t("iv_sink"),
                key="iv_sink_btn",
                icon="🕳️",
                help=t("iv_sink_help", factor=claims.SINK_FACTOR),
                on_click=set_off,
                args=(sinks,),
            )
        st.selectbox(t("iv_focus"), kind_names, format_func=ui_iv.head_label, key="iv_focus", width=340)
        widgets.action_button(
            "iv_only",
            "🎯",
            lambda: set_off([n for n in kind_names if n != st.session_state["iv_focus"]]),
            key="iv_only_btn",
        )
        widgets.action_button("iv_clear", "↩️", set_off, ([],), key="iv_clear_btn", explain=False, disabled=not off)
    if not sinks and sink.numbers["max_ratio"] is None:
        st.caption(t("iv_no_sink_short", kind=t(f"kind_{kind}")))
    elif not sinks:
        st.caption(t("iv_no_sink", kind=t(f"kind_{kind}"), factor=claims.SINK_FACTOR, max=sink.numbers["max_ratio"]))
    else:  # the measurement behind the button, on this sentence and kind
        ratio = sink.numbers["ratio"]
        top_l, top_h = (int(i) for i in np.unravel_index(int(np.nanargmax(ratio)), ratio.shape))
        st.caption(
            t(
                "iv_sink_found",
                n=len(sinks),
                kind=t(f"kind_{kind}"),
                token=att0.key_tokens[0],
                factor=claims.SINK_FACTOR,
                layer=top_l + 1,
                head=top_h + 1,
                max=sink.numbers["max_ratio"],
                heads=", ".join(ui_iv.head_label(n) for n in sinks),
            )
        )
    return how, off


# -- edit: one row of one head, key `from`'s weight moved onto key `to` ----------------------------
def _section_edit(base, att0, kind: str, e, image_format: str) -> tuple:
    """The head, row and keys of the edit (e: the view's, else a row of the last layer), and that
    row before and after. Returns the edit as the model API takes it."""
    L, H = att0.num_layers, att0.num_heads
    if e is None or ui_iv.edit_of(e, base) is None:
        q_last = len(att0.query_tokens) - 1
        row = att0.weights[L - 1, 0, q_last]
        src = int(np.argmax(row))
        e = (head_name(kind, L - 1, 0), q_last, src, 0 if src != 0 else min(1, len(att0.key_tokens) - 1))
    e_kind, e_layer, e_head = parse_head(e[0])
    if e_kind != kind:
        e = (head_name(kind, min(e_layer, L - 1), min(e_head, H - 1)), 0, 0, 0)
        e_kind, e_layer, e_head = parse_head(e[0])
    att_e = base.attention[e_kind]
    q_labels = rows.unique(rows.row_labels(att_e))
    k_labels = rows.unique(list(att_e.key_tokens))
    c1, c2, c3, c4 = st.columns(4, vertical_alignment="bottom")
    with c1:
        e_layer = widgets.layer_picker(L, "iv_e_layer", index=min(e_layer, L - 1))
    with c2:
        e_head = widgets.head_picker(H, "iv_e_head", index=min(e_head, H - 1))
    q = min(e[1], len(q_labels) - 1)
    with c3:
        q = st.selectbox(
            t("iv_edit_row"), list(range(len(q_labels))), index=q, format_func=lambda i: q_labels[i], key="iv_e_q"
        )
    visible = [j for j in range(len(k_labels)) if att_e.mask is None or att_e.mask[q, j]]
    with c4:
        src = st.selectbox(
            t("iv_edit_from"),
            visible,
            index=visible.index(e[2]) if e[2] in visible else 0,
            format_func=lambda j: k_labels[j],
            key="iv_e_from",
        )
    dst = (
        st.pills(
            t("iv_edit_to"),
            visible,
            format_func=lambda j: md(k_labels[j]),
            key="iv_e_to",
            default=e[3] if e[3] in visible else visible[-1],
            selection_mode="single",
        )
        or visible[-1]
    )
    e = (head_name(kind, e_layer, e_head), q, src, dst)
    st.session_state["iv_edit"] = e
    edit_api = ui_iv.edit_of(e, base)
    before = att_e.weights[e_layer, e_head, q]
    fig = compare_bars(
        [k_labels[j] for j in visible],
        before[visible],
        np.asarray(edit_api[4])[visible],
        labels={"a": t("iv_edit_before"), "b": t("iv_edit_after"), "token": t("axis_key"), "probability": t("weight")},
        height=280,
    )
    st.markdown(t("iv_edit_title", head=ui_iv.head_label(e[0]), row=md(q_labels[q])))
    plotly_chart(present_figure(fig), config=ui_iv.image_config(image_format, "edited_row"), key="iv_edit_bars")
    return edit_api


# -- the two runs side by side -----------------------------------------------------------------------
def _model_view(ctx: Context, att0, kind: str, off_t: tuple, how: str, offer_importance: bool, image_format: str):
    """The untouched run's model view, the heads switched off marked, and (toggled on) every
    head's importance written over it; a click on a tile switches that head. Returns the
    importance, or None."""
    L, H = att0.num_layers, att0.num_heads
    st.markdown("**" + t("iv_model_view", kind=t(f"kind_{kind}")) + "**")
    imp = None
    if offer_importance:
        if st.toggle(t("iv_importance"), key="iv_imp", help=t("iv_importance_help")):
            try:
                imp = ui_iv.importance(ctx.model, ctx.device, ctx.text, how)
            except InputError as err:
                widgets.show_input_error(err)
        st.caption(t("iv_model_view_help"))
    grid = imp.grid(kind, L, H) if imp is not None else None
    mine = [parse_head(h)[1:] for h in off_t if parse_head(h)[0] == kind]
    fig = marked_model_view(
        att0.weights,
        att0.mask,
        off=mine,
        scores=grid,
        tile=TILE,
        labels={"layer": t("att_layer_n"), "head": t("att_head_n")},
    )
    mv_key = f"iv_mv_{st.session_state.get('iv_mv_gen', 0)}"
    plotly_chart(
        present_figure(fig),
        config=ui_iv.image_config(image_format, "intervene_model_view"),
        key=mv_key,
        on_select=lambda: toggle_tile(mv_key, kind),
        selection_mode="points",
    )
    if imp is not None:
        st.caption(t("iv_importance_translator" if imp.delta_logp is not None else "iv_importance_gpt"))
    return imp


def _outputs(ctx: Context, runner, base, tr, out0, out1, touched: bool, step: int, image_format: str) -> None:
    """What the untouched and the intervened run write, and their next-token probabilities (the
    translator's at the decoding step chosen)."""
    st.markdown("**" + t("iv_outputs") + "**")
    if out0 is None:
        st.info(t("iv_encoder_only"), icon="ℹ️")
        return
    if runner.kind == "translator":
        st.markdown(t("iv_untouched_output", text=md(base.output_text)))
        changed = tr.output_text != base.output_text
        st.markdown(t("iv_touched_output", text=md(tr.output_text)) + (" ⚠️" if changed else ""))
        if touched:
            st.caption(t("iv_changed" if changed else "iv_same"))
        steps = rows.unique(out0["labels"])
        st.session_state["iv_step"] = min(step, len(steps) - 1)
        step = st.selectbox(
            t("iv_step"), list(range(len(steps))), format_func=lambda i: steps[i], key="iv_step", help=t("iv_step_help")
        )
        p0, p1 = out0["probs"][step], out1["probs"][step]
        read = out0["ids"][: step + 1]  # the decoder's tokens before the step's
    else:
        for key, out in (("iv_untouched_continuation", out0), ("iv_touched_continuation", out1)):
            st.markdown(
                t(key, text=md(ctx.text), more=md(out["continuation"]) if out["continuation"] else t("iv_ends"))
            )
        p0, p1 = out0["probs"][0], out1["probs"][0]
        read = runner.prompt_ids(ctx.text)[1]
    labels, a, b = ui_iv.top_tokens(runner, p0, p1, read)
    bars = compare_bars(
        labels,
        a,
        b,
        labels={
            "a": t("iv_untouched"),
            "b": t("iv_touched"),
            "token": t("iv_next_token"),
            "probability": t("iv_probability"),
        },
    )
    plotly_chart(present_figure(bars), config=ui_iv.image_config(image_format, "next_token"), key="iv_bars")
    st.caption(t("iv_bars_help"))


# -- the difference downstream -----------------------------------------------------------------------
def _section_difference(base, tr, kinds: list[str], kind: str, touched: bool, dhead, image_format: str):
    """One head's weights, intervened minus untouched, beside every head's largest change.
    Returns that head's difference as a table (for the CSV), or None when nothing was touched."""
    st.subheader(t("iv_difference"))
    if not touched:
        st.info(t("iv_nothing_off"), icon="ℹ️")
        return None
    att0 = base.attention[kind]
    L, H = att0.num_layers, att0.num_heads
    d_names = [head_name(k, la, h) for k in kinds for la in range(L) for h in range(H)]
    if dhead not in d_names:
        st.session_state["iv_dhead"] = head_name(kind, L - 1, 0)
    c_sel, _ = st.columns([2, 3])
    with c_sel:
        dhead = st.selectbox(t("iv_diff_head"), d_names, format_func=ui_iv.head_label, key="iv_dhead")
    dk, dl, dh = parse_head(dhead)
    a_att, b_att = base.attention[dk], tr.attention[dk]
    wa, wb, mask, cut = align(a_att.weights, b_att.weights, a_att.mask, b_att.mask)
    if cut or a_att.query_tokens != b_att.query_tokens:
        st.caption("ⓘ " + t("iv_aligned", a=len(a_att.query_tokens), b=len(b_att.query_tokens)))
    q_n, k_n = wa.shape[-2:]
    diff = wb - wa
    cd, cm = st.columns([3, 2], gap="large")
    with cd:
        heat = difference_heatmap(
            diff[dl, dh],
            rows.row_labels(a_att)[:q_n],
            list(a_att.key_tokens)[:k_n],
            mask=mask,
            title=t("iv_diff_title", head=ui_iv.head_label(dhead)),
            labels={**widgets.heatmap_labels(a_att.query_written is not None), "weight": t("iv_delta")},
        )
        plotly_chart(
            present_figure(heat), config=ui_iv.image_config(image_format, "attention_difference"), key="iv_diff_heat"
        )
        st.caption(t("iv_diff_help"))
    with cm:
        st.markdown("**" + t("iv_diff_all", kind=t(f"kind_{dk}")) + "**")
        plotly_chart(
            present_figure(
                marked_model_view(
                    np.abs(diff),
                    mask,
                    zmax=max(float(np.abs(diff).max()), 1e-6),
                    tile=TILE,
                    selected=(dl, dh),
                    labels={"layer": t("att_layer_n"), "head": t("att_head_n")},
                )
            ),
            config=ui_iv.image_config(image_format, "difference_model_view"),
            key="iv_diff_mv",
        )
        st.caption(t("iv_diff_all_help"))
    return difference_table(
        diff[dl, dh], rows.row_labels(a_att)[:q_n], list(a_att.key_tokens)[:k_n], wa[dl, dh], wb[dl, dh], mask
    )


# -- the importance table and exports ----------------------------------------------------------------
def _importance_table(imp) -> None:
    st.subheader(t("iv_importance_table"))
    table = imp.to_json()["heads"]
    shown = [
        {
            t("iv_col_head"): ui_iv.head_label(r["head"]),
            t("iv_col_score"): r["score"],
            t("iv_col_changed"): r["changed"],
            t("iv_col_output"): r["output"],
        }
        for r in table
    ]
    shown.sort(key=lambda r: -r[t("iv_col_score")])
    st.dataframe(
        shown,
        hide_index=True,
        width="stretch",
        key="iv_imp_table",
        column_config={t("iv_col_score"): st.column_config.NumberColumn(format="%.4f")},
    )


def _exports(ctx: Context, run, imp, diff_table) -> None:
    """The image format of the figures' camera button, and the downloads: both runs as JSON, the
    difference shown (when something was touched) and the importance (when computed) as CSV."""
    with st.expander(t("iv_export"), icon="⬇️"):
        widgets.image_format_picker("iv_img")

        def payload() -> str:
            # written on click from the caches: a session keeps the keys, not two traces as JSON (a
            # 1,100-character MiniLM text made about 200 MB of it per session, issue 32)
            out = {"untouched": ctx.trace().to_json(), "intervened": ui_iv.trace(run).to_json()}
            if imp is not None:
                out["importance"] = imp.to_json()
            return json.dumps(out, ensure_ascii=False)

        with st.container(horizontal=True):
            widgets.download(t("iv_download_json"), payload, "intervene.json", "iv_json")
            if diff_table is not None:
                widgets.download(t("iv_download_csv"), to_csv(diff_table), "attention_difference.csv", "iv_csv")
            if imp is not None:
                widgets.download(
                    t("iv_download_importance"),
                    to_csv(pd.DataFrame(imp.to_json()["heads"])),
                    "head_importance.csv",
                    "iv_imp_csv",
                )


if __name__ == "__main__":  # Streamlit runs the file as the page (ui/page.py)
    page.show(render, VIEW)

"""Compare: two runs side by side and their difference on one diverging scale: two sentences, two
models, two temperatures, with and without positions, or the trained model against its untrained start."""

from __future__ import annotations

from ui import boot  # noqa: F401  (first: on a fresh server, a deep link shows the title and a loading message)

# isort: split

import json

import numpy as np
import streamlit as st

import model
from analysis.intervene import align
from analysis.measures import mean_of_heads
from model.errors import InputError
from model.registry import read_config
from pages.compare_parts.choices import TEMPS, one_of_temps, opening_pair, pair_text, second_sentence, untrained_of
from ui import intervene as ui_iv
from ui import page, rows, state, view
from ui.attention_view import attention_view, bind_view, live_model
from ui.context import model_label, text_box_key
from ui.i18n import t
from ui.layout import copy_link, main_area, page_header, plotly_chart, present_figure
from ui.messages import notice_text
from ui.run import Context
from ui.safe import md
from ui.state import choice  # a parser: state.choice(...) in VIEW reads as a session call to tests/test_render.py
from ui.view import Field
from ui.widgets import download, image_format_picker, kind_picker, show_input_error
from viz.attention_view import at_temperature
from viz.intervene import difference_table, marked_model_view
from viz.table import to_csv

WHAT = ("sentences", "models", "temperatures", "positions", "trained")
TILE = 40

# the page's view: every setting its link carries (ui/view.py). Sentence B's default and the
# opening view (kind, layer, head) are measured at run time (analysis/contrast.py): a link and a
# session that give none read None, and render puts the opening pair's there (_opening).
VIEW = (
    Field("cmp", "cmp_what", "sentences", choice(WHAT), omit_default=True),
    Field("text2", "cmp_text2", None, state.text),  # default: the opening pair's B
    Field("model2", "cmp_model2", None, choice(model.NAMES)),
    Field("ta", "cmp_ta", 1.0, one_of_temps, omit_default=True),
    Field("tb", "cmp_tb", 3.0, one_of_temps),
    Field("ckind", "cmp_kind", None, view.KIND),  # default: the opening pair's
    Field("clayer", "cmp_layer", None, view.whole, one_based=True),  # default: the opening pair's, else the last
    Field("chead", "cmp_head", None, view.whole_or_mean, one_based=True),  # default: the opening pair's, else mean
    view.layer_temperature("cmp_ltemp"),  # A's and B's shown layer, at one T, in the browser
    view.row("cmp_q"),  # the row chosen in the view: in the link, so a room's students see it (issue 50.8)
)


def render(ctx: Context, view: dict) -> None:
    """The page, as the reader sees it: what is compared, the two runs' outputs, A, B and B - A in
    one view, the difference in every head, the exports."""
    pair = _opening(ctx, view)
    page_header("page_compare", "cmp_intro")
    runner = ctx.runner()
    if runner is None or ctx.trace() is None:
        copy_link()
        return

    what, a, b, labels = _section_what(ctx, runner, pair)
    runs = _section_runs(ctx, runner, what, a, b, labels)
    if runs is None:  # sentence B cannot be read: the reason is shown
        copy_link()
        return
    args_a, args_b, tra, trb = runs

    kinds = [k for k in tra.kinds() if k in trb.kinds()]
    n_layers = min(tra.attention[kinds[0]].num_layers, trb.attention[kinds[0]].num_layers)
    n_heads = min(tra.attention[kinds[0]].num_heads, trb.attention[kinds[0]].num_heads)
    if st.session_state.get("cmp_layer") is None:
        st.session_state["cmp_layer"] = n_layers - 1
    # the layer and head pickers are the view's, in the browser: fitted here (a link's layer past
    # this model's), with the notice the server's pickers gave
    layer = state.fit("cmp_layer", range(n_layers), lambda v: t("att_layer_n", n=v + 1))
    head = state.fit(
        "cmp_head",
        ["mean", *range(n_heads)],
        lambda v: t("att_mean_heads") if v == "mean" else t("att_head_n", n=v + 1),
    )
    kind = kind_picker(kinds, "cmp_kind", "att_kind")
    # A and B at one T in the shown layer (the browser's slider); where they already differ in T
    # (every layer, the model re-run), no second temperature on top
    browser_t = what != "temperatures"
    T = float(st.session_state.get("cmp_ltemp", 1.0)) if browser_t else 1.0

    att_a, att_b = tra.attention[kind], trb.attention[kind]
    wa_all, wb_all, mask = _aligned(att_a, att_b, n_layers, n_heads)
    # both runs as the view shows them: the shown layer at its T
    wa_t, wb_t = at_t(wa_all, layer, T), at_t(wb_all, layer, T)

    live = _live(ctx, what, a, b, kind, runner)
    _section_view(ctx, att_a, att_b, kind, layer, head, T, browser_t, labels, n_layers, n_heads, wa_all.shape[-2], live)
    _section_all_heads(wa_t, wb_t, mask, layer, head)
    _section_exports(args_a, args_b, what, labels, att_a, wa_t, wb_t, mask, layer, head)

    state.write_view(
        VIEW,
        cmp=what,
        text2=b["text"] if what == "sentences" else None,
        model2=b["name"] if what == "models" else None,
        ta=a["temperature"] if what == "temperatures" else None,
        tb=b["temperature"] if what == "temperatures" else None,
        ckind=kind if len(kinds) > 1 else None,
        clayer=layer,
        chead=head,
        ltemp=round(T, 3) if browser_t else None,
        q=st.session_state.get("cmp_q"),
    )
    copy_link()


def _opening(ctx: Context, view: dict):
    """The measured opening pair (None for a model that cannot load here: the page says so below),
    and the view's defaults from it: sentence B, then, where B is the pair's, its kind, layer and
    head (view[...] is None where neither the link nor this session chose)."""
    try:  # sentence B's default: a measured pair whose B - A shows (analysis/contrast.py)
        pair = opening_pair(ctx.model, ctx.device, ctx.text)
    except Exception:  # a model that cannot load here: the page says so below
        pair = None
    if view["text2"] is None:
        st.session_state["cmp_text2"] = pair.b if pair else second_sentence(ctx.text)
    opening = pair if pair is not None and pair.b == st.session_state.get("cmp_text2") else None  # its view too
    if opening is not None and view["ckind"] is None:
        st.session_state["cmp_kind"] = opening.kind
    if opening is not None and view["clayer"] is None:  # else the last layer, once the runs are known
        st.session_state["cmp_layer"] = opening.layer
    if view["chead"] is None:
        st.session_state["cmp_head"] = "mean" if opening is None or opening.head is None else opening.head
    return pair


# the attention view's report when the reader lets go: its layer, head, row and T become the page's
# (the link, the room, the model view of every head and the CSV follow)
take_view = bind_view(layer="cmp_layer", head="cmp_head", q="cmp_q", ltemp="cmp_ltemp")


# -- what is compared: A is the sidebar's run, B differs in one thing ---------------------------------
def _section_what(ctx: Context, runner, pair) -> tuple[str, dict, dict, tuple[str, str]]:
    """The comparison picker and B's input for it. Returns (what, run A, run B, their labels)."""
    untrained = untrained_of(ctx.model)
    same_kind = [n for n in model.NAMES if n != ctx.model and read_config(n)[0].arch == runner.config.arch]
    # a comparison this model cannot make is not offered (a dead end would leave the pickers below
    # unrendered, and Streamlit then forgets their values)
    options = [w for w in WHAT if (w != "trained" or untrained) and (w != "models" or same_kind)]
    if st.session_state.get("cmp_what") not in options:
        st.session_state["cmp_what"] = "sentences"
    what = st.segmented_control(
        t("cmp_what"), options, format_func=lambda w: t(f"cmp_what_{w}"), key="cmp_what", required=True
    )
    if not same_kind:
        st.caption("ⓘ " + t("cmp_no_other_model", model=md(ctx.model)))

    a = dict(name=ctx.model, text=ctx.text, temperature=1.0, use_position=True)
    b = dict(a)
    labels = (ctx.model, ctx.model)
    if what == "sentences":
        c1, c2 = st.columns(2)
        with c1:
            st.text_input(t("cmp_text_a"), value=ctx.text, disabled=True, help=t("cmp_text_a_help"))
        with c2:
            b["text"] = st.text_input(t("cmp_text_b"), key="cmp_text2")
        labels = (ctx.text, b["text"])
        if pair is not None and b["text"] == pair.b:
            st.caption(pair_text(pair))
    elif what == "models":
        if st.session_state.get("cmp_model2") not in same_kind:
            st.session_state["cmp_model2"] = same_kind[0]
        b["name"] = st.selectbox(t("cmp_model_b"), same_kind, key="cmp_model2", format_func=model_label)
        labels = (model_label(ctx.model), model_label(b["name"]))
    elif what == "temperatures":
        c1, c2 = st.columns(2)
        with c1:
            a["temperature"] = st.select_slider(t("cmp_temp_a"), options=TEMPS, key="cmp_ta")
        with c2:
            b["temperature"] = st.select_slider(t("cmp_temp_b"), options=TEMPS, key="cmp_tb")
        labels = (f"T = {a['temperature']:g}", f"T = {b['temperature']:g}")
    elif what == "positions":
        b["use_position"] = False
        labels = (t("cmp_with_positions"), t("cmp_without_positions"))
    else:
        b["name"] = untrained
        labels = (t("cmp_trained"), t("cmp_untrained"))
    return what, a, b, labels


def _section_runs(ctx: Context, runner, what: str, a: dict, b: dict, labels: tuple[str, str]):
    """The two runs, B's notices and both outputs. Returns (A's trace arguments, B's, A's trace,
    B's), or None after saying why B cannot be read."""
    try:
        args_a = (ui_iv.Run(a["name"], ctx.device, a["text"]), a["temperature"], a["use_position"])
        tra = ui_iv.trace(*args_a)
        # the untrained model reads the trained one's translation (teacher forcing): its own greedy
        # output is noise (byte pieces, up to the longest output), so B - A would compare unrelated rows
        forced = tra.output_text if what == "trained" and runner.kind == "translator" else None
        args_b = (ui_iv.Run(b["name"], ctx.device, b["text"]), b["temperature"], b["use_position"], forced)
        trb = ui_iv.trace(*args_b)
    except InputError as err:
        show_input_error(err)
        return None

    if what == "sentences":  # sentence A's notices are shown with the page's header; B's here
        for note in trb.notices:
            if getattr(note, "code", None) in ("outside_language", "unseen_words"):
                st.warning(t("cmp_b_note", note=notice_text(note)), icon="⚠️")
    if forced is not None:
        st.caption(t("cmp_forced"))
    if tra.output_text or trb.output_text:
        c1, c2 = st.columns(2)
        c1.markdown(t("cmp_output", run=md(labels[0]), text=md(tra.output_text)))
        c2.markdown(t("cmp_output", run=md(labels[1]), text=md(trb.output_text)))
    return args_a, args_b, tra, trb


# -- A, B and B - A ---------------------------------------------------------------------------------
def _aligned(att_a, att_b, n_layers: int, n_heads: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A's and B's weights over the rows and keys both have, and their mask; a warning when the
    two runs read different numbers of tokens, so some rows or keys are left out. Two sentences of
    as many tokens are what a comparison of sentences is (cat / dog): compared position by position
    with nothing left out, no warning (issue 50: every page opened with one)."""
    wa_all, wb_all, mask, cut = align(
        att_a.weights[:n_layers, :n_heads], att_b.weights[:n_layers, :n_heads], att_a.mask, att_b.mask
    )
    counts_a = (len(att_a.query_tokens), len(att_a.key_tokens))
    if cut or counts_a != (len(att_b.query_tokens), len(att_b.key_tokens)):
        st.warning(
            t(
                "cmp_aligned",
                qa=len(att_a.query_tokens),
                qb=len(att_b.query_tokens),
                ka=len(att_a.key_tokens),
                kb=len(att_b.key_tokens),
            ),
            icon="↔️",
        )
    return wa_all, wb_all, mask


def _live(ctx: Context, what: str, a: dict, b: dict, kind: str, runner) -> dict | None:
    """A and B run in the reader's browser (ui/attention_view/live.js): A on the sidebar's sentence
    as it is typed, B on sentence B or on that sentence with B's one difference (the other model,
    its temperature in every layer, positions off); None where the browser cannot be handed both
    (a Hugging Face model; the untrained start, a snapshot whose translator reads A's output)."""
    if what == "trained":
        return None
    runs = [
        {
            "src": i,
            "model": run["name"],
            "text": run["text"] if what == "sentences" and i == 1 else None,
            "temp": run["temperature"],
            "nopos": not run["use_position"],
        }
        for i, run in enumerate((a, b))
    ]
    return live_model(ctx.model, kind, text_box_key(), ctx.text, knobs=False, runs=runs)


def at_t(w_all: np.ndarray, layer: int, T: float) -> np.ndarray:
    """(layers, heads, Q, K) with the shown layer at the view's T, as the browser shows it:
    softmax(log w / T), exact for T in that layer alone; the other layers as the runs computed them."""
    if T == 1.0:
        return w_all
    out = np.array(w_all, dtype=np.float64)
    out[layer] = at_temperature(w_all[layer], T)
    return out


def pick(w: np.ndarray, layer: int, head) -> np.ndarray:
    """The shown head's (Q, K) weights in the shown layer, or the mean of its heads."""
    return mean_of_heads(w)[layer] if head == "mean" else w[layer, head]


def _section_view(
    ctx: Context,
    att_a,
    att_b,
    kind: str,
    layer: int,
    head,
    T: float,
    browser_t: bool,
    labels,
    n_layers,
    n_heads,
    q_n,
    live: dict | None = None,
) -> None:
    """A, B and B - A in one attention view, drawn in the browser (its layer, head, row and T come
    back through take_view)."""
    if st.session_state.get("cmp_q") is None:  # neither the link nor the reader chose a row: the second
        st.session_state["cmp_q"] = min(1, q_n - 1)
    q = state.fit("cmp_q", range(len(att_a.query_tokens)), lambda i: f"{t('att_what_q')} {i}")
    a_panel = {"title": labels[0], "short": "A", "src": 0, "temp": "view"}
    a_panel["notes"] = {"one": t("cmp_note_one"), "browser": t("cmp_note_browser")}
    with main_area():  # presentation mode: under the title
        attention_view(
            att_a.weights[:n_layers, :n_heads],
            att_a.mask,
            kind=kind,
            q_tokens=list(att_a.query_tokens),
            k_tokens=list(att_a.key_tokens),
            q_labels=rows.row_labels(att_a),
            q_written=None if att_a.query_written is None else list(att_a.query_written),
            view={"tab": "heatmap", "layer": layer, "head": head, "q": q, "ltemp": T},
            key="cmp_view",
            on_view=take_view,
            present=ctx.presentation,
            temperature=browser_t,
            sources=(
                {
                    "weights": att_b.weights[:n_layers, :n_heads],
                    "mask": att_b.mask,
                    "q_labels": rows.row_labels(att_b),
                    "k_tokens": list(att_b.key_tokens),
                },
            ),
            panels=[
                a_panel,
                {"title": labels[1], "short": "B", "src": 1, "temp": "view"},
                {"title": t("cmp_difference", b=labels[1], a=labels[0]), "short": "B − A", "diff": [1, 0]},
            ],
            live=live,
        )
    st.caption(t("cmp_scale_help"))


# -- every head: where B and A differ ---------------------------------------------------------------
def _section_all_heads(wa_t: np.ndarray, wb_t: np.ndarray, mask, layer: int, head) -> None:
    """|B - A| in every head, the shown head outlined (the camera button: the export's format)."""
    n_layers, n_heads = wa_t.shape[:2]
    image_format = st.session_state.get("cmp_img", "png")
    st.subheader(t("cmp_all_heads"))
    absdiff = np.abs(wb_t - wa_t)
    left, _ = st.columns([3, 2])
    with left:
        fig = marked_model_view(
            absdiff,
            mask,
            zmax=max(float(absdiff.max()), 1e-6),
            tile=TILE,
            selected=None if head == "mean" else (layer, head),
            scores=absdiff.reshape(n_layers, n_heads, -1).max(-1),
            labels={"layer": t("att_layer_n"), "head": t("att_head_n")},
        )
        plotly_chart(present_figure(fig), config=ui_iv.image_config(image_format, "compare_model_view"), key="cmp_mv")
    st.caption(t("cmp_all_heads_help"))


# -- exports -----------------------------------------------------------------------------------------
def _section_exports(args_a, args_b, what: str, labels, att_a, wa_t, wb_t, mask, layer: int, head) -> None:
    """Both traces (JSON, written on click) and the shown head's A, B and B - A (CSV)."""
    q_n, k_n = wa_t.shape[-2:]
    with st.expander(t("iv_export"), icon="⬇️"):
        image_format_picker("cmp_img")
        with st.container(horizontal=True):

            def payload(args_a=args_a, args_b=args_b, what=what, labels=labels) -> str:
                # written on click from the trace cache: a session keeps the keys, not two traces as JSON
                # (issue 32: several hundred MB per session for 1,100-character MiniLM texts)
                a_json, b_json = ui_iv.trace(*args_a).to_json(), ui_iv.trace(*args_b).to_json()
                out = {"compare": what, "a": {"label": labels[0], **a_json}, "b": {"label": labels[1], **b_json}}
                return json.dumps(out, ensure_ascii=False)

            download(t("iv_download_json"), payload, "compare.json", "cmp_json")
            a_shown, b_shown = pick(wa_t, layer, head), pick(wb_t, layer, head)
            download(
                t("iv_download_csv"),
                to_csv(
                    difference_table(
                        b_shown - a_shown,
                        rows.row_labels(att_a)[:q_n],
                        list(att_a.key_tokens)[:k_n],
                        a_shown,
                        b_shown,
                        mask,
                    )
                ),
                "attention_compare.csv",
                "cmp_csv",
            )


if __name__ == "__main__":  # Streamlit runs the file as the page (ui/page.py)
    page.show(render, VIEW)

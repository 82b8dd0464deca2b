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
from model.trace import KINDS
from ui import intervene as ui_iv
from ui import rows, state
from ui.compare import TEMPS, one_of_temps, opening_pair, pair_text, second_sentence, untrained_of
from ui.context import model_label
from ui.i18n import t
from ui.layout import copy_link, main_area, page_header, plotly_chart, present_figure, wrapping_columns
from ui.messages import notice_text
from ui.run import current
from ui.safe import md
from ui.widgets import download, heatmap_labels, image_format_picker, kind_layer_head, show_input_error
from viz.heatmap import attention_heatmap
from viz.intervene import difference_heatmap, difference_table, marked_model_view
from viz.table import to_csv

WHAT = ("sentences", "models", "temperatures", "positions", "trained")
TILE = 40


ctx = current()
try:  # sentence B's default: a measured pair whose B - A shows (analysis/contrast.py)
    pair = opening_pair(ctx.model, ctx.device, ctx.text)
except Exception:  # a model that cannot load here: the page says so below
    pair = None
state.url_param("cmp", "sentences", state.choice(WHAT), key="cmp_what")
state.url_param(
    "text2",
    pair.b if pair else second_sentence(ctx.text),
    state.text,
    key="cmp_text2",
)
state.url_param("model2", None, state.choice(model.NAMES), key="cmp_model2")
state.url_param("ta", 1.0, one_of_temps, key="cmp_ta")
state.url_param("tb", 3.0, one_of_temps, key="cmp_tb")
opening = pair if pair is not None and pair.b == st.session_state.get("cmp_text2") else None  # its view too
state.url_param("ckind", opening and opening.kind, state.choice(KINDS), key="cmp_kind")
state.url_param("clayer", opening and opening.layer, lambda raw: int(raw) - 1, key="cmp_layer")
head_default = "mean" if opening is None or opening.head is None else opening.head
state.url_param("chead", head_default, lambda raw: "mean" if raw == "mean" else int(raw) - 1, key="cmp_head")

page_header("page_compare", "cmp_intro")
runner = ctx.runner()
if runner is None or ctx.trace() is None:
    copy_link()
    st.stop()

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
    copy_link()
    st.stop()

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

kinds = [k for k in tra.kinds() if k in trb.kinds()]
if st.session_state.get("cmp_kind") not in kinds:
    st.session_state["cmp_kind"] = kinds[-1]
n_layers = min(tra.attention[kinds[0]].num_layers, trb.attention[kinds[0]].num_layers)
n_heads = min(tra.attention[kinds[0]].num_heads, trb.attention[kinds[0]].num_heads)
if st.session_state.get("cmp_layer") is None or not 0 <= st.session_state["cmp_layer"] < n_layers:
    st.session_state["cmp_layer"] = n_layers - 1
if st.session_state.get("cmp_head") != "mean" and not 0 <= st.session_state.get("cmp_head", 0) < n_heads:
    st.session_state["cmp_head"] = "mean"
kind, layer, head = kind_layer_head("cmp", kinds, n_layers, n_heads, "att_kind", widths=(4, 2, 2), mean=True)

att_a, att_b = tra.attention[kind], trb.attention[kind]
wa_all, wb_all, mask, cut = align(
    att_a.weights[:n_layers, :n_heads], att_b.weights[:n_layers, :n_heads], att_a.mask, att_b.mask
)
q_n, k_n = wa_all.shape[-2:]
if cut or att_a.query_tokens[:q_n] != att_b.query_tokens[:q_n] or att_a.key_tokens[:k_n] != att_b.key_tokens[:k_n]:
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


def pick(w):
    return mean_of_heads(w)[layer] if head == "mean" else w[layer, head]


wa, wb = pick(att_a.weights), pick(att_b.weights)
diff = pick(wb_all) - pick(wa_all)
image_format = st.session_state.get("cmp_img", "png")
hl = heatmap_labels(att_a.query_written is not None)
# presentation mode: under the title; a column under 400 px (a phone, a narrow window) wraps
c_a, c_b, c_d = wrapping_columns(3, "cmp_heats", where=main_area(), gap="medium")
for col, run, att, w, key in ((c_a, labels[0], att_a, wa, "cmp_heat_a"), (c_b, labels[1], att_b, wb, "cmp_heat_b")):
    with col:
        st.markdown(f"**{md(run)}**")
        fig = attention_heatmap(w, rows.row_labels(att), att.key_tokens, mask=att.mask, labels=hl)
        plotly_chart(present_figure(fig), config=ui_iv.image_config(image_format, key), key=key)
with c_d:
    st.markdown("**" + t("cmp_difference", b=md(labels[1]), a=md(labels[0])) + "**")
    fig = difference_heatmap(
        diff,
        rows.row_labels(att_a)[:q_n],
        list(att_a.key_tokens)[:k_n],
        mask=mask,
        labels={**hl, "weight": t("iv_delta")},
    )
    plotly_chart(present_figure(fig), config=ui_iv.image_config(image_format, "compare_difference"), key="cmp_heat_d")
st.caption(t("cmp_scale_help"))

st.subheader(t("cmp_all_heads"))
absdiff = np.abs(wb_all - wa_all)
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
        download(
            t("iv_download_csv"),
            to_csv(
                difference_table(
                    diff, rows.row_labels(att_a)[:q_n], list(att_a.key_tokens)[:k_n], pick(wa_all), pick(wb_all), mask
                )
            ),
            "attention_compare.csv",
            "cmp_csv",
        )

state.set_url(
    cmp=None if what == "sentences" else what,
    text2=b["text"] if what == "sentences" else None,
    model2=b["name"] if what == "models" else None,
    ta=a["temperature"] if what == "temperatures" and a["temperature"] != 1.0 else None,
    tb=b["temperature"] if what == "temperatures" else None,
    ckind=kind if len(kinds) > 1 else None,
    clayer=layer + 1,
    chead="mean" if head == "mean" else head + 1,
)
copy_link()

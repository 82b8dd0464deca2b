"""Home: the sentence's tokens, one heatmap, the tutorial's table, and the way into the rest."""

from ui import boot  # noqa: F401  (first: on a fresh server, a deep link shows the title and a loading message)

# isort: split

import streamlit as st

from analysis.measures import mean_of_heads
from ui import state
from ui.grammar import output_markdown
from ui.i18n import t
from ui.layout import copy_link, main_area, page_header
from ui.rows import row_labels, rows_caption
from ui.run import current
from ui.widgets import show_heatmap, show_table, token_picker

ctx = current()
# a Hugging Face model was not trained here: the intro says what it is instead
page_header("app_title", "home_intro_hf" if ctx.model.startswith("hf:") else "home_intro")
if not ctx.presentation:  # on a projector the chart comes first; what a weight means follows it
    st.markdown(t("home_meaning"))

tr = ctx.trace()
if tr is not None:
    kind = "encoder" if "encoder" in tr.attention else "decoder"
    att = tr.attention[kind]
    if tr.output_text:
        st.markdown(output_markdown(tr, "home_translation", code=True))  # off-language: not "Translation"
    state.url_param("q", min(1, len(att.query_tokens) - 1), int, key="home_q")
    labels = row_labels(att)
    q = token_picker(att.query_tokens, "home_q", labels=labels)
    state.set_url(q=q)
    layer = att.num_layers - 1
    w = mean_of_heads(att.weights)[layer]
    left, right = st.columns([3, 2], gap="large")
    with left, main_area():  # presentation mode: under the title, before the token picker
        st.subheader(t("home_heatmap_title", layer=layer + 1, kind=t(f"kind_{kind}")))
        show_heatmap(w, labels, att.key_tokens, mask=att.mask, key="home_heatmap", writes=att.query_written is not None)
        if rows_caption(att):
            st.caption(rows_caption(att))
    with right:
        show_table(
            att.key_tokens,
            w[q],
            att.query_tokens[q],
            None if att.mask is None else att.mask[q],
            key="home_table",
            written=None if att.query_written is None else att.query_written[q],
        )
        st.caption(t("home_table_note"))
    if ctx.presentation:
        st.markdown(t("home_meaning"))

st.subheader(t("home_next"))
cols = st.columns(3)
# (page, label, the link's parameters: the section a link names opens at that section)
for i, (page, key, params) in enumerate(
    [
        ("pages/attention.py", "home_link_attention", None),
        ("pages/temperature.py", "home_link_temperature", None),
        ("pages/positional.py", "home_link_positional", {"sec": "order"}),
        ("pages/generation.py", "home_link_generation", None),
        ("pages/steps.py", "home_link_steps", None),
        ("pages/architecture.py", "home_link_architecture", None),
        ("pages/lessons.py", "home_link_lessons", None),
    ]
):
    with cols[i % 3]:
        st.page_link(page, label=t(key), query_params=params)
copy_link()

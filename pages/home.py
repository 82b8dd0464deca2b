"""Home: the sentence's tokens, one heatmap, the tutorial's table, and the way into the rest."""

from ui import boot  # noqa: F401  (first: on a fresh server, a deep link shows the title and a loading message)

# isort: split

import streamlit as st

from analysis.sink import sink_summary
from model import registry
from ui import page, state, view
from ui.attention_view import attention_view, bind_view, live_model
from ui.context import text_box_key
from ui.grammar import output_markdown
from ui.i18n import t
from ui.layout import copy_link, main_area, page_header
from ui.rows import row_labels, rows_caption, written
from ui.run import Context
from ui.safe import md
from ui.widgets import token_legend

# the page explorer (tests/explore.py) fails on a page that draws no control unless it says why
NO_CONTROLS = (
    "its one control, the row, is chosen inside the attention view in the browser (no server widget); "
    "tests/browser/test_attention_view.py and test_pages.py operate it"
)


# the page's view (ui/view.py): the row, the one setting its link carries
# (no default here: the second token, which depends on the sentence, is the page's default)
VIEW = (view.row("home_q"),)


take_row = bind_view(
    q="home_q", text=state.TEXT_KEY
)  # and a sentence typed and run in the browser  # the row the reader chose in the view: into the link and the room


def render(ctx: Context, view: dict) -> None:
    """The page: the last layer's attention for the sidebar's sentence, and the links onward."""
    # a real pretrained or Hugging Face model was not trained here: the intro says what it is instead
    ours = registry.trained_here(ctx.model)
    page_header("app_title", "home_intro" if ours else "home_intro_hf")
    if not ctx.presentation:  # on a projector the chart comes first; what a weight means follows it
        st.markdown(t("home_meaning"))

    tr = ctx.trace()
    if tr is not None:
        kind = "encoder" if "encoder" in tr.attention else "decoder"
        att = tr.attention[kind]
        if tr.output_text:
            st.markdown(output_markdown(tr, "home_translation", code=True))  # off-language: not "Translation"
        if view["q"] is None:  # neither the link nor this session chose a row: the second token
            st.session_state["home_q"] = min(1, len(att.query_tokens) - 1)
        q = state.fit("home_q", range(len(att.query_tokens)), lambda i: f"{t('att_what_q')} {i}")
        layer = att.num_layers - 1
        with main_area():  # presentation mode: under the title
            st.subheader(t("home_heatmap_title", layer=layer + 1, kind=t(f"kind_{kind}")))
            # the last layer, mean of the heads, drawn in the browser (no chart library): a click,
            # a tap or an arrow key picks the row, and the table beside the chart follows at once
            attention_view(
                att.weights[layer:],
                att.mask,
                kind=kind,
                q_tokens=att.query_tokens,
                k_tokens=att.key_tokens,
                q_labels=row_labels(att),
                q_written=written(att),
                view={"tab": "heatmap", "layer": 0, "head": "mean", "q": q, "ltemp": 1.0},
                key="home_view",
                on_view=take_row,
                present=ctx.presentation,
                compact=True,
                first_layer=layer,  # the exports and the text alternative name the model's own layer
                # our own models answer the sentence as it is typed, in the reader's browser
                live=live_model(ctx.model, kind, text_box_key(), ctx.text, knobs=False),
            )
        pile = None if ours else sink_summary(att.weights, att.mask)
        if pile:  # a real model's first-token pile-up, measured on this sentence (issue 50.10)
            st.markdown(
                t(
                    "home_sink_True" if pile["n"] else "home_sink_False",
                    first=md(att.key_tokens[0]),
                    n=pile["n"],
                    total=pile["total"],
                    share=f"{pile['share']:.2f}",
                    uniform=f"{pile['uniform']:.2f}",
                    layer=pile["layer"],
                    head=pile["head"],
                    best=f"{pile['best']:.2f}",
                )
            )
        if rows_caption(att):
            st.caption(rows_caption(att))
        st.caption(t("home_table_note"))
        token_legend(att.query_tokens)
        state.write_view(VIEW, q=q)
        if ctx.presentation:
            st.markdown(t("home_meaning"))

    st.subheader(t("home_next"))
    # a link's label wraps onto a second line instead of ending in "…" (three columns on a projector's
    # 1.35 rem text cut "Lessons: predict, then see the model'…", issue 37)
    st.html(
        "<style>.st-key-home_links [data-testid='stPageLink-NavLink'] * {white-space: normal !important;"
        " overflow: visible !important; text-overflow: clip !important; line-height: 1.35;}</style>"
    )
    cols = st.container(key="home_links").columns(3)
    # (page file, label, the link's parameters: the section a link names opens at that section)
    for i, (file, key, params) in enumerate(
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
            st.page_link(file, label=t(key), query_params=params)
    copy_link()


if __name__ == "__main__":  # Streamlit runs the file as the page (ui/page.py)
    page.show(render, VIEW)

"""Page furniture every page uses: the title, presentation mode, the copy-link box."""

from __future__ import annotations

from urllib.parse import quote, urlencode

import streamlit as st

from . import state
from .i18n import t

PRESENT_SCALE = 1.35  # charts and their type in presentation mode
NOT_IN_COPIED_LINKS = ("present", "teach", "room")

# Our own constant CSS (never user text): bigger type and charts for a projector, and the first
# screen (1280 x 800) given to the content: no top bar, little padding, a smaller title.
_PRESENTATION_CSS = """
<style>
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"], [data-testid="stSidebarCollapseButton"],
header[data-testid="stHeader"] {display: none;}
.stMainBlockContainer, .block-container {max-width: 100%; padding: 0.75rem 2rem 2rem 2rem !important;}
html, body, [data-testid="stMarkdownContainer"] p, .stMarkdown, label, li,
[data-testid="stWidgetLabel"] p, [data-testid="stCaptionContainer"], button p {font-size: 1.35rem !important;}
[data-testid="stCode"] code, [data-testid="stCode"] pre {font-size: 1.15rem !important;}
[data-baseweb="select"] div, [data-testid="stSelectbox"] input, [data-testid="stButtonGroup"] p,
[data-testid="stTab"] p {font-size: 1.25rem !important;}
[data-testid="stDataFrame"] {font-size: 1.2rem !important;}
.katex {font-size: 1.6em !important;}
h1 {font-size: 2.1rem !important; padding: 0.2rem 0 0.4rem 0 !important;} h2 {font-size: 1.9rem !important;}
h3 {font-size: 1.6rem !important;}
</style>
"""


def page_header(title_key: str, intro_key: str | None = None) -> None:
    from . import state
    from .context import current

    ctx = current()
    if ctx.presentation:
        st.markdown(_PRESENTATION_CSS, unsafe_allow_html=True)
        left, right = st.columns([3, 1], vertical_alignment="center")
        with left:
            st.title(t(title_key))
        with right:
            # the way back, since the sidebar (and its toggle, key "present") is hidden; a second
            # widget with that key would raise, so this one has its own and switches "present" off
            st.toggle(
                t("presentation_mode"),
                value=True,
                key="_present_exit",
                on_change=_leave_presentation,
                help=t("presentation_help"),
            )
    else:
        st.title(t(title_key))
    state.show_notices()
    if intro_key and ctx.presentation:
        # the sidebar is hidden: say what is on screen (the sentence, the model) instead of "in the sidebar"
        from .safe import md

        st.markdown(t("present_sentence", text=md(ctx.text), model=md(ctx.model)))
    elif intro_key:
        st.markdown(t(intro_key))


def _leave_presentation() -> None:
    st.session_state["present"] = False
    st.session_state.pop("_present_exit", None)


PRESENT_MIN_FONT = 16  # px: the smallest label a projector shows (read from the back of a room)
PRESENT_INK = "#111111"


def present_figure(fig):
    """A plotly figure made for a projector in presentation mode: taller, and every label (ticks,
    axis and chart titles, colour bar, annotations, cell values) at least PRESENT_MIN_FONT px and
    dark; unchanged otherwise. Returns the figure."""
    from .context import current

    if not current().presentation:
        return fig
    return enlarge(fig)


def enlarge(fig, k: float = PRESENT_SCALE, minimum: int = PRESENT_MIN_FONT):
    def size(s, default=12):
        return max(minimum, round((s or default) * k))

    layout = fig.layout
    fig.update_layout(height=int((layout.height or 450) * k), font=dict(size=size(layout.font.size), color=PRESENT_INK))
    for axis in (*fig.select_xaxes(), *fig.select_yaxes()):
        axis.update(
            tickfont=dict(size=size(axis.tickfont.size), color=PRESENT_INK),
            title_font=dict(size=size(axis.title.font.size, 14), color=PRESENT_INK),
        )
    for ann in layout.annotations or ():
        ann.font.size = size(ann.font.size)
        ann.font.color = ann.font.color or PRESENT_INK
    if layout.title and layout.title.text:
        fig.update_layout(title_font=dict(size=size(layout.title.font.size, 16), color=PRESENT_INK))
    if layout.legend:
        fig.update_layout(legend_font=dict(size=size(layout.legend.font.size), color=PRESENT_INK))
    for trace in fig.data:
        if hasattr(trace, "textfont"):
            trace.textfont.size = size(trace.textfont.size)
        if hasattr(trace, "colorbar"):
            trace.colorbar.tickfont.size = size(trace.colorbar.tickfont.size)
            trace.colorbar.title.font.size = size(trace.colorbar.title.font.size)
    return fig


def view_url() -> str:
    """The address of the current view: the page's URL (scheme, host, port, page path, as the
    browser sees it) and every query parameter this run wrote. Relative ("?...") when the
    browser has not told the server its URL (AppTest, very old browsers)."""
    url = (getattr(st.context, "url", None) or "").split("?")[0].split("#")[0]
    params = state.link_params()  # only this page's keys, one value each, capped
    # a link copied on the projector opens the normal view, outside the teacher's room
    params = {k: v for k, v in params.items() if k not in NOT_IN_COPIED_LINKS}
    query = urlencode(params, quote_via=quote) if params else ""
    return url + ("?" + query if query else "") if url else ("?" + query if query else "/")


def copy_link() -> None:
    """The current view's address in a code box: its copy button copies the link. Call it last on
    a page, after the page has written its own settings into the URL."""
    with st.popover(t("copy_link"), icon="🔗"):
        st.caption(t("copy_link_help"))
        st.code(view_url(), language=None, wrap_lines=True)

"""Page furniture every page uses: the title, presentation mode, the copy-link box."""
from __future__ import annotations

import streamlit as st

from .i18n import t

# Our own constant CSS (never user text): bigger type and charts for a projector.
_PRESENTATION_CSS = """
<style>
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"] {display: none;}
.stMainBlockContainer, .block-container {max-width: 100%; padding-left: 2rem; padding-right: 2rem;}
html, body, [data-testid="stMarkdownContainer"] p, .stMarkdown, label, li {font-size: 1.35rem !important;}
h1 {font-size: 2.6rem !important;} h2 {font-size: 2.1rem !important;} h3 {font-size: 1.7rem !important;}
</style>
"""


def page_header(title_key: str, intro_key: str | None = None) -> None:
    from .context import current
    from . import state
    ctx = current()
    if ctx.presentation:
        st.markdown(_PRESENTATION_CSS, unsafe_allow_html=True)
        st.toggle(t("presentation_mode"), key="present")  # the way back, since the sidebar is hidden
    st.title(t(title_key))
    state.show_notices()
    if intro_key:
        st.markdown(t(intro_key))


def copy_link() -> None:
    """The current view's address in a code box: its copy button copies the link."""
    url = getattr(st.context, "url", None) or ""
    query = "&".join(f"{k}={v}" for k, v in st.query_params.items())
    with st.popover(t("copy_link"), icon="🔗"):
        st.caption(t("copy_link_help"))
        from urllib.parse import urlencode
        st.code((url.split("?")[0] + ("?" + urlencode(st.query_params.to_dict()) if query else "")) or "/",
                language=None)

"""The first run in a fresh server process: the app's title and a loading message in the reader's
language at once, before the slow imports (torch, the models, pandas, plotly: 3-8 s on a busy
2-core machine), instead of a blank page.

app.py and every page file import this module first: a deep link to a fresh server runs the page
file alone (Streamlit's pages/-folder mode, which ui.run.current() leaves), so whichever script
a fresh process runs first shows the box. Later imports are no-ops (the module is cached).

The box belongs to one session and one run: it is kept in that session's state until app.py's
run ends (``done``) or current() reruns the page through app.py (``forget``), so no other visitor's
page and no later run can be touched by it.
"""

from __future__ import annotations

import streamlit as st

from .i18n import LANGS, TABLE, lang_from_locale

_KEY = "_loading_box"


def _show() -> None:
    try:
        lang = st.query_params.get("lang") or lang_from_locale(getattr(st.context, "locale", None))
    except Exception:  # imported outside a script run (tests, the CLI): nothing to show
        return
    lang = lang if lang in LANGS else "en"
    box = st.empty()
    with box.container():
        st.title(TABLE["app_title"][lang])
        st.info(TABLE["loading_app"][lang], icon="⏳")
    st.session_state[_KEY] = box


def done() -> None:
    """End of app.py's run: the box goes (the page is drawn below it by now)."""
    box = st.session_state.pop(_KEY, None)
    if box is not None:
        box.empty()


def forget() -> None:
    """The run is about to be replaced by a rerun, which draws the page without the box."""
    st.session_state.pop(_KEY, None)


if st.runtime.exists():
    _show()

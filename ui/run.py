"""The run going on now: the Context the sidebar made for this app.py run (current()), the run
slots every full run waits for, and leaving Streamlit's pages/-folder mode. The bottom of ui/: it
imports only Streamlit and ui.boot, so layout and widgets can ask for the current run without
importing the sidebar (ui/context.py), which imports them."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import streamlit as st

from . import boot, said, slots

# the Context stored here is ui.context.Context; not imported, since ui/context.py imports this module
Context = Any

# The Context of the app.py run now going on in this thread: set by sidebar(), cleared by
# end_run() when app.py is done, so a page file that runs without app.py finds none.
_APP_RUN = threading.local()
_FOLDER_MODE_LEFT = False  # st.navigation has been called in this process (sidebar, current)
_PAGES_DIR = Path(__file__).resolve().parent.parent / "pages"


# At most this many sessions' full runs compute at once; the others wait on the lock, asleep.
# Every run is CPU-bound, and each of torch's many small operations hands the interpreter lock
# over: with 60 sessions' threads contending for it the server served 9 sentences a second where 4
# sessions got 15 (bench/load.py). Partial reruns (fragments) are light and do not wait.
RUN_SLOTS = slots.RUN_SLOTS  # fair (ui/slots.py): a freed slot goes to the session that used them least lately


def begin_run(ctx: Context) -> None:
    """The sidebar calls this with the run's Context (and keeps it in the session for fragments)."""
    st.session_state["_ctx"] = ctx
    _APP_RUN.ctx = ctx
    forget_sentence_in_browser()  # this run's page says so again if it still draws it there


# The sidebar's sentence box whose sentence the page last drawn shows only in views the reader's
# browser computes (ui.attention_view with a live model the page calls whole): a sentence applied
# from that box needs no page run on the server (ui/context.py's box then writes only the link).
# Set by the run (or partial rerun) that draws such a view, forgotten by every full run and
# partial rerun before the page draws again, so a page, tab or model drawn without it never
# inherits it.
_BROWSER_BOX = "_sentence_box_in_browser"


def sentence_in_browser(box: str, max_tokens: int) -> None:
    """This run's page shows the sentence of the sidebar's box `box` only where the reader's
    browser computes it, and nothing else that depends on it, for any sentence of at most
    max_tokens tokens (past them the page says more: the model view's pooling)."""
    st.session_state[_BROWSER_BOX] = (box, int(max_tokens))
    said.offer(current(), int(max_tokens))  # a sentence left in the box may then skip the run (ui/said.py)


def forget_sentence_in_browser() -> None:
    st.session_state.pop(_BROWSER_BOX, None)
    said.withdraw()


def box_in_browser() -> tuple[str, int] | None:
    """(box, max_tokens) as sentence_in_browser() named them in the page last drawn, or None."""
    return st.session_state.get(_BROWSER_BOX)


def in_app_run() -> Context | None:
    """The Context of the app.py run in this thread; None in a fragment's own rerun."""
    return getattr(_APP_RUN, "ctx", None)


def folder_mode_left() -> bool:
    return _FOLDER_MODE_LEFT


def end_run() -> None:
    """app.py calls this when its run ends (the page has run or stopped)."""
    _APP_RUN.ctx = None


def current() -> Context:
    """The sidebar's settings. Every page calls this first.

    A folder named pages/ beside app.py makes Streamlit start in its older multipage mode (until
    the first st.navigation call), in which a deep link (/attention?... on a server no session
    has used yet) runs the page file alone, without app.py. Calling st.navigation (hidden, over
    the same url paths) leaves that mode for the whole server, and the rerun sends the same
    request through app.py's st.navigation, so a shared link always gets the whole app with its
    sidebar. Only public Streamlit calls; .streamlit/config.toml hides the folder's own menu.
    """
    # a partial rerun (st.fragment, see partial) runs without app.py: the session's last settings
    ctx = getattr(_APP_RUN, "ctx", None) or st.session_state.get("_ctx")
    if ctx is None:
        leave_folder_mode()
    return ctx


def leave_folder_mode() -> None:
    """A hidden st.navigation over the pages (public Streamlit; the server leaves the pages/-folder
    mode for good), then a rerun, which goes through app.py without this run's loading box."""
    global _FOLDER_MODE_LEFT
    _FOLDER_MODE_LEFT = True
    pages = [st.Page(str(p), url_path=p.stem, default=p.stem == "home") for p in sorted(_PAGES_DIR.glob("*.py"))]
    st.navigation(pages, position="hidden")
    boot.forget()
    st.rerun()

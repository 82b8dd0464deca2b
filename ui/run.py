"""The run going on now: the Context the sidebar made for this app.py run (current()), the run
slots every full run waits for, and leaving Streamlit's pages/-folder mode. The bottom of ui/: it
imports only Streamlit and ui.boot, so layout and widgets can ask for the current run without
importing the sidebar (ui/context.py), which imports them."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import streamlit as st

from . import boot, slots

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

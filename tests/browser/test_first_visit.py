"""The first visit to a fresh server shows the app's own title and a loading message in the reader's
language before anything slow runs; later visits do not; the menu never lists file names.

Read from what the server sends (Streamlit's websocket protocol, as the browser receives it), so
the order is exact and no timing is asserted (bench/first_visit.py times it in Chromium).
"""

from __future__ import annotations

import asyncio
import concurrent.futures

import pytest

from ui.i18n import TABLE

from .helpers import AppServer, served

pytestmark = pytest.mark.browser

FILE_NAMES = {"app", "home", "attention", "temperature", "positional", "generation", "steps", "architecture"}


async def _first_run(server: AppServer, query: str, hidden: int = -1) -> tuple[list[tuple[str, str]], list[str]]:
    """(kind, text) of every element the run sends (with the reruns it asks for, st.rerun), in order,
    and every page name of the navigation messages (those whose position is not ``hidden``: the
    menus the frontend draws)."""
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    uri = server.url.replace("http://", "ws://") + "/_stcore/stream"
    elements, menu = [], []
    async with websockets.connect(uri, subprotocols=["streamlit"], origin=server.url, max_size=None) as ws:
        m = BackMsg()
        m.rerun_script.query_string = query
        await ws.send(m.SerializeToString())
        while True:
            msg = ForwardMsg()
            msg.ParseFromString(await asyncio.wait_for(ws.recv(), 300))
            kind = msg.WhichOneof("type")
            if kind == "navigation" and msg.navigation.position != hidden:
                menu += [p.page_name for p in msg.navigation.app_pages]
            elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                el = msg.delta.new_element
                which = el.WhichOneof("type")
                if which in ("heading", "markdown", "alert"):
                    elements.append((which, getattr(el, which).body))
                elif which == "exception":
                    elements.append((which, el.exception.message))
            elif kind == "script_finished" and msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                return elements, menu  # (a run that reran itself, st.rerun, goes on in the next one)


def _run(coro):
    """asyncio.run in a thread of its own: Playwright's sync API, used by the browser tests that ran
    before in this process, leaves an event loop running in the main thread."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


@pytest.fixture
def fresh_server():
    yield from served("streamlit-first-visit.log")


def test_first_visit_shows_title_and_loading_message_in_the_readers_language(fresh_server):
    first, menu = _run(_first_run(fresh_server, "lang=zh"))
    assert first[:2] == [
        ("heading", "Transformer 注意力探索器"),
        ("alert", "正在加载模型和图表……（服务器启动后的第一次访问需要几秒钟）"),
    ], first[:4]
    assert not [e for e in first if e[0] == "exception"], first
    # the home page itself followed in the same run, with its own title
    assert ("heading", "Transformer 注意力探索器") in first[2:], first

    later, _ = _run(_first_run(fresh_server, "lang=en"))
    assert not any(kind == "alert" and "Loading the models" in text for kind, text in later), later
    assert ("heading", "Transformer Attention Explorer") in later


# Every page name a menu in the sidebar or the top bar ever showed, recorded by a MutationObserver
# from the first byte of the page on, so a menu drawn for a moment and replaced is caught too.
_MENU_WATCH = """
window.__menus = [];
const record = () => {
  const names = Array.from(document.querySelectorAll(
    "[data-testid='stSidebarNav'] a, [data-testid='stSidebarNavLink'], [data-testid='stTopNavLink']"))
    .filter(a => a.offsetWidth || a.offsetHeight)
    .map(a => a.innerText.split('\\n').map(s => s.trim()).filter(Boolean).pop() || '');
  if (names.length) window.__menus.push(names);
};
new MutationObserver(record).observe(document, {childList: true, subtree: true, characterData: true});
"""


def test_first_visit_never_lists_file_names_in_the_menu(fresh_server, browser):
    """A folder named pages/ beside app.py makes Streamlit start in its older multipage mode. The
    browser must never draw that mode's menu of file names (app, architecture, attention ...): from
    the first byte of a fresh server's first visit to the settled page, and on a second visit, the
    menu only ever lists the translated titles.

    The protocol alone does not say this: Streamlit sends the folder's files in every new_session
    message (new_session.app_pages), but its frontend (1.67) draws no menu from them; it draws the
    pages of a `navigation` message, unless that message's position is HIDDEN. Both are checked:
    what Chromium draws, and the navigation messages' page names by the frontend's rule."""
    from streamlit.proto.Navigation_pb2 import Navigation

    from .helpers import VIEWPORT, goto, screenshot

    titles = {lang: [TABLE["page_home"][lang], TABLE["page_attention"][lang]] for lang in ("en", "zh")}
    for lang in ("en", "zh"):  # the first visit, then a second session on the same server
        ctx = browser.new_context(viewport=VIEWPORT, locale="en-US")
        try:
            page = ctx.new_page()
            page.add_init_script(_MENU_WATCH)
            goto(page, f"{fresh_server.url}/?lang={lang}", timeout=300)
            menus = page.evaluate("window.__menus")
            screenshot(page, f"first-visit-menu-{lang}")
        finally:
            ctx.close()
        shown = {name for names in menus for name in names}
        assert not FILE_NAMES & shown, f"the browser drew file names in a menu: {sorted(shown)}"
        assert menus and menus[-1][:2] == titles[lang], menus[-1:]
    # by the protocol: the menus the frontend draws (navigation messages not HIDDEN) never list file names
    for query in ("lang=en", "lang=zh"):
        _, drawn = _run(_first_run(fresh_server, query, Navigation.Position.HIDDEN))
        assert drawn and not FILE_NAMES & set(drawn), f"the menu listed file names: {drawn}"

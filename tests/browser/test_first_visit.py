"""The first visit to a fresh server shows the app's own title and a loading message in the reader's
language before anything slow runs; later visits do not; the menu never lists file names.

Read from what the server sends (Streamlit's websocket protocol, as the browser receives it), so
the order is exact and no timing is asserted (bench/first_visit.py times it in Chromium).
"""

from __future__ import annotations

import asyncio

import pytest

from .conftest import app_env
from .helpers import SCREENSHOTS, AppServer

pytestmark = pytest.mark.browser

FILE_NAMES = {"app", "home", "attention", "temperature", "positional", "generation", "steps", "architecture"}


async def _first_run(server: AppServer, query: str) -> tuple[list[tuple[str, str]], list[str]]:
    """(kind, text) of every element the run sends, in order, and every page name a menu lists."""
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
            if kind == "new_session":
                menu += [p.page_name for p in msg.new_session.app_pages]
            elif kind == "navigation":
                menu += [p.page_name for p in msg.navigation.app_pages]
            elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                el = msg.delta.new_element
                which = el.WhichOneof("type")
                if which in ("heading", "markdown", "alert"):
                    elements.append((which, getattr(el, which).body))
                elif which == "exception":
                    elements.append((which, el.exception.message))
            elif kind == "script_finished":
                return elements, menu


@pytest.fixture
def fresh_server():
    server = AppServer(env=app_env(), log=SCREENSHOTS / "streamlit-first-visit.log")
    try:
        server.start()
    except RuntimeError as e:
        pytest.fail(f"the app did not start: {e}", pytrace=False)
    yield server
    server.stop()


def test_first_visit_shows_title_and_loading_message_in_the_readers_language(fresh_server):
    first, menu = asyncio.run(_first_run(fresh_server, "lang=zh"))
    assert first[:2] == [
        ("heading", "Transformer 注意力探索器"),
        ("alert", "正在加载模型和图表……（服务器启动后的第一次访问需要几秒钟）"),
    ], first[:4]
    assert not [e for e in first if e[0] == "exception"], first
    # the home page itself followed in the same run, with its own title
    assert ("heading", "Transformer 注意力探索器") in first[2:], first

    later, _ = asyncio.run(_first_run(fresh_server, "lang=en"))
    assert not any(kind == "alert" and "Loading the models" in text for kind, text in later), later
    assert ("heading", "Transformer Attention Explorer") in later


def test_first_visit_never_lists_file_names_in_the_menu(fresh_server):
    """A folder named pages/ beside app.py makes Streamlit send its files as the menu (app,
    architecture, attention ...) with the new session, before app.py's st.navigation runs."""
    for query in ("lang=en", "lang=zh"):
        _, menu = asyncio.run(_first_run(fresh_server, query))
        assert not FILE_NAMES & set(menu), f"the menu listed file names: {menu}"

"""Issue 48: a sentence applied from the sidebar's box on a page whose chart the reader's browser
computes (the attention page on our GPT: ui/attention_view's live model) costs the server the
box's own fragment rerun, not a page run: no trace, no chart sent back, only the link. Against a
real server, over Streamlit's websocket protocol as the browser speaks it (the box's widget state
in a rerun of its fragment). Where the server must draw the sentence (a warning about it, a
browser that reported it cannot run the model) the whole page runs, as before, and a later run
of the page draws the sentence applied without one."""

from __future__ import annotations

import asyncio
from urllib.parse import parse_qs, quote, urlencode

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.browser.helpers import served
from tests.test_protocol import drive
from ui import browser_model
from viz.attention_view import MAGIC, unpack

websockets = pytest.importorskip("websockets")

OPEN = "The cat sat on the mat"  # the models' own language: the page warns about nothing
KNOWN = "The mouse hid under the table"  # the same: the page would say nothing more about it
UNKNOWN = "Her brother watches the train at night"  # words the models never saw: the page warns
DONE = (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY)


@pytest.fixture(scope="module")
def server():
    if not browser_model.available("gpt"):
        pytest.fail("the GPT's graph is not published (python -m ui.browser_model): the page has no in-browser model")
    yield from served("streamlit-sentence-in-browser.log")


async def exchange(ws, msg: BackMsg, timeout: float = 120) -> list[ForwardMsg]:
    """Every message the server sends for msg, up to the run that finishes it (a fragment's
    rerun that asks for the whole app is followed by that run)."""
    ws = getattr(ws, "ws", ws)  # tests.test_protocol's Client holds the socket
    await ws.send(msg.SerializeToString())
    out = []
    while True:
        m = ForwardMsg()
        m.ParseFromString(await asyncio.wait_for(ws.recv(), timeout))
        out.append(m)
        if m.WhichOneof("type") == "script_finished" and m.script_finished in DONE:
            return out


def rerun(query: str, widgets=(), fragment: str = "", page: str = "attention") -> BackMsg:
    m = BackMsg()
    m.rerun_script.query_string = query
    m.rerun_script.page_name = page
    m.rerun_script.fragment_id = fragment
    for wid, field, value in widgets:
        w = m.rerun_script.widget_states.widgets.add()
        w.id = wid
        setattr(w, field, value)
    return m


def elements(msgs, kind: str) -> list:
    return [
        (m.delta.fragment_id, getattr(m.delta.new_element, kind))
        for m in msgs
        if m.WhichOneof("type") == "delta"
        and m.delta.WhichOneof("type") == "new_element"
        and m.delta.new_element.WhichOneof("type") == kind
    ]


def views(msgs) -> list[dict]:
    """The attention view's payload headers the run sent (the chart: its tokens, its weights)."""
    return [unpack(el.bytes)[0] for _, el in elements(msgs, "bidi_component") if el.bytes[:4] == MAGIC]


def link(msgs) -> dict | None:
    """The address the server last wrote in these messages ({name: value}), or None."""
    out = None
    for m in msgs:
        if m.WhichOneof("type") == "page_info_changed":
            out = {k: v[-1] for k, v in parse_qs(m.page_info_changed.query_string).items()}
    return out


def finished(msgs) -> list[int]:
    return [m.script_finished for m in msgs if m.WhichOneof("type") == "script_finished"]


async def opened(ws):
    """The attention page on the GPT at OPEN: (its link, the box's widget id, the box's fragment ("":
    none), the view's widget id, the view's payload header)."""
    query = f"model=gpt&text={quote(OPEN)}"
    first = await exchange(ws, rerun(query))
    if not views(first):  # a fresh server's first run may draw the loading notice
        first = await exchange(ws, rerun(query))
    ((fragment, box),) = [(f, el) for f, el in elements(first, "text_area") if el.id.endswith("-_text_box_0_0")]
    (view,) = views(first)
    (component,) = [el.id for _, el in elements(first, "bidi_component")]
    return query, box.id, fragment, component, view


def test_a_sentence_the_browser_draws_costs_the_box_rerun_and_the_link(server):
    async def body(ws):
        query, box, fragment, _, view = await opened(ws)
        assert view["live"]["model"] == "gpt"  # the browser draws it
        applied = await exchange(ws, rerun(query, [(box, "string_value", KNOWN)], fragment))
        # the browser sends the address the server last wrote
        back = await exchange(ws, rerun(urlencode(link(applied)), [(box, "string_value", OPEN)], fragment))
        assert link(back) == {**link(applied), "text": OPEN}, "typed back: the link holds the sentence shown"
        again = await exchange(ws, rerun(urlencode(link(back)), [(box, "string_value", KNOWN)], fragment))
        later = await exchange(ws, rerun(f"model=gpt&text={quote(OPEN)}"))  # the page run again (a reload)
        return view, applied, back, again, later

    view, applied, back, again, later = drive(server, body)
    assert OPEN.split()[1] in " ".join(view["q_tokens"])
    # the box's rerun alone: no page run (which sends the chart), the link carries the sentence
    assert finished(applied) == [ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY], finished(applied)
    assert views(applied) == [] and not elements(applied, "exception")
    assert link(applied)["text"] == KNOWN
    # the sentence shown typed back: the link follows it, still without a page run
    assert finished(back) == [ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY] and views(back) == []
    assert link(back)["text"] == OPEN
    assert link(again)["text"] == KNOWN and views(again) == []
    # the session holds the sentence: the page's next run draws it (the server's own chart)
    (shown,) = views(later)
    assert "mouse" in " ".join(shown["q_tokens"]) and "cat" not in " ".join(shown["q_tokens"])


@pytest.mark.parametrize("why", ["warned", "cannot"])
def test_the_page_runs_where_the_server_must_draw_the_sentence(server, why):
    """A sentence the page warns about (the warning is the server's), and any sentence after the
    reader's browser reported that it cannot run the model (the chart is then the server's): the
    box's rerun asks for the whole page, which draws the chart of the new sentence."""

    async def body(ws):
        query, box, fragment, component, _ = await opened(ws)
        text = UNKNOWN if why == "warned" else KNOWN
        if why == "cannot":  # view.js's report when the model did not load
            report = '{"view": {"tab": "heatmap", "layer": 2, "head": "mean", "q": 1, "cannot": true}}'
            await exchange(ws, rerun(query, [(component, "json_value", report)]))
        return await exchange(ws, rerun(query, [(box, "string_value", text)], fragment)), text

    applied, text = drive(server, body)
    assert ForwardMsg.FINISHED_SUCCESSFULLY in finished(applied), finished(applied)
    (shown,) = views(applied)
    assert text.split()[1].lower() in " ".join(shown["q_tokens"]).lower()
    assert link(applied)["text"] == text
    if why == "warned":
        assert any("Outside the" in el.body for _, el in elements(applied, "alert")), "the page's warning"

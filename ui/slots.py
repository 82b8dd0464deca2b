"""Fair run slots: a few computations at once, handed out by how little each session used lately.

A plain semaphore hands a freed slot to whichever thread wakes first, so a visitor whose tabs
loop uncached importance grids could keep both run slots and the class waited behind them
(issue 26: p95 2.80 s). Here a freed slot goes to the waiting run whose visitor used the fewest
slot-seconds lately (its use decays with a half-life of HALF_LIFE s): by its address first, then
its browser, ties to the one that asked first (visitor_keys: 300 new sessions of one visitor are
one visitor, issue 45); a run asked to rerun or stop while it waits leaves the queue; and heavy computations (importance grids, timeline builds, the cost page's live sections)
run in a lane of their own, HEAVY_SLOTS wide, which a page run enters after handing its run slot
back, so however many tabs a visitor opens, the class's page runs never wait behind more than
one slot's worth of someone else's heavy work. Each session's CPU seconds in the heavy lane are
counted (HEAVY_BUDGET): past its budget a session is refused the next heavy computation
(OverBudget, with the seconds until it may retry), which app.py shows as a notice.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import threading
import time

HALF_LIFE = 30.0  # seconds: how long a session's use of the slots counts against it
LOOK_AGAIN = 0.25  # seconds a waiting thread sleeps before it looks at the order (and its run) again
CHOICE_KEPT = 0.1  # seconds the order of the waiting runs is kept before uses decayed are read again


def _run_interrupted() -> bool:
    from . import streamlit_internals

    return streamlit_internals.run_interrupted()


def _leave_run() -> None:
    from . import streamlit_internals

    streamlit_internals.leave_interrupted_run()


def session_id() -> str:
    """The Streamlit session this thread runs for ("" outside one: a bare script, a test)."""
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx(suppress_warning=True)
    except Exception:  # noqa: BLE001  (no Streamlit runtime at all)
        return ""
    return getattr(ctx, "session_id", "") or ""


VISITORS_KEPT = 10_000  # sessions whose visitor keys are remembered (the oldest forgotten)
_VISITORS: dict[str, tuple[str, str]] = {}
_VISITORS_LOCK = threading.Lock()


def visitor_keys(session: str) -> tuple[str, str]:
    """(address, browser) that this thread's session counts under: the visitor's address bucket
    (this machine itself is one; "" outside a browser's session), read as the room-open limit reads
    it (ui/client_address.py: a forwarded address only from a trusted proxy, an IPv6 visitor by its
    /64), and its browser id cookie (the room's one, 16 hex digits), else the session itself.
    Counted per session, 300 new sessions of one visitor had 300 fresh shares ahead of the class."""
    if not session:
        return "", ""
    known = _VISITORS.get(session)
    if known is not None:
        return known
    address, browser = "", "s:" + session
    try:
        import streamlit as st

        from . import client_address

        found = client_address.visitor(st.context.ip_address, st.context.headers)
        address = "a:" + client_address.bucket(found) if found else "a:this machine"
        kept = st.context.cookies.get(client_address.BROWSER_COOKIE, "")
        if isinstance(kept, str) and len(kept) == 16 and all(ch in "0123456789abcdef" for ch in kept):
            browser = "b:" + kept
    except Exception:  # noqa: BLE001  (no browser's context: a bare script run, a test)
        pass
    with _VISITORS_LOCK:  # page runs of many sessions at once: one pops the oldest at a time
        if len(_VISITORS) >= VISITORS_KEPT:
            _VISITORS.pop(next(iter(_VISITORS)), None)
        _VISITORS[session] = (address, browser)
    return address, browser


class FairSlots:
    """n slots; hold(session) waits until a slot is free and no waiting run comes first: the one
    whose visitor's address used the slots least lately, then whose browser (its tabs together,
    else its session) did, then the one that asked first."""

    def __init__(self, n: int, half_life: float = HALF_LIFE, clock=time.monotonic, fair: bool = True, keys=None):
        self.n = max(1, int(n))
        self.fair = fair
        self.half_life = half_life
        self.clock = clock
        self.keys = keys or (lambda session: ("", session))  # session -> (address, browser)
        self._cond = threading.Condition()
        self._free = self.n
        self._use: dict[str, tuple[float, float]] = {}  # key -> (slot-seconds, when last updated)
        self._waiting: list[tuple[str, int, str, str]] = []  # (session, ticket, address, browser)
        self._tickets = itertools.count()
        self._chosen: tuple[int, float, int | None] = (-1, 0.0, None)  # (version, when, ticket)
        self._version = 0
        self._local = threading.local()  # how many slots this thread holds (nested holds)

    def usage(self, key: str) -> float:
        """The slot-seconds of a session, a browser or an address, decayed to now."""
        used, when = self._use.get(key, (0.0, self.clock()))
        return used * math.exp(-math.log(2) * (self.clock() - when) / self.half_life)

    def _next(self) -> int | None:
        """The ticket whose turn it is; computed once per change (a waiter, a release) and again
        after CHOICE_KEPT s (uses decay), not by every waiting thread on every look (300 waiting
        threads each ordering all 300 was quadratic)."""
        if not self._waiting:
            return None
        if not self.fair:
            return min(w[1] for w in self._waiting)
        version, when, ticket = self._chosen
        now = self.clock()
        if version != self._version or now - when > CHOICE_KEPT:
            ticket = min(self._waiting, key=lambda w: (self.usage(w[2]) if w[2] else 0.0, self.usage(w[3]), w[1]))[1]
            self._chosen = (self._version, now, ticket)
        return ticket

    def held(self) -> bool:
        return getattr(self._local, "depth", 0) > 0

    def holder(self) -> str:
        """The session this thread's innermost hold is for ("" when it holds none)."""
        return self._local.start[-1][0] if self.held() else ""

    def acquire(self, session: str | None = None, interruptible: bool = False) -> str:
        """Wait for a slot; interruptible: a script run that its session asked to stop or rerun
        meanwhile (a newer rerun, ui/hardening.py's gate) leaves the queue and ends as at its next
        Streamlit call, instead of taking a slot to compute a page nobody will see."""
        current = session_id()
        session = current if session is None else session
        address, browser = visitor_keys(session) if session and session == current else self.keys(session)
        while True:
            with self._cond:
                ticket = next(self._tickets)
                entry = (session, ticket, address, browser)
                self._waiting.append(entry)
                self._version += 1
                left = False
                while True:
                    if interruptible and _run_interrupted():
                        left = True
                        break
                    if self._free > 0 and self._next() == ticket:
                        break
                    self._cond.wait(timeout=LOOK_AGAIN)  # a decaying use can change the order
                self._waiting.remove(entry)
                self._version += 1
                if not left:
                    self._free -= 1
                self._cond.notify_all()  # a second free slot, or one fewer waiting: the next may go
            if not left:
                break
            _leave_run()  # raises Streamlit's own StopException or RerunException
            interruptible = False  # nothing to leave for after all (a fragment's rerun queued): wait
        self._local.depth = getattr(self._local, "depth", 0) + 1
        self._local.start = getattr(self._local, "start", [])
        self._local.start.append((session, address, browser, self.clock()))
        return session

    def wake(self) -> None:
        """Every waiting thread looks again now (a run was asked to stop: it may leave the queue)."""
        with self._cond:
            self._cond.notify_all()

    def release(self) -> None:
        session, address, browser, start = self._local.start.pop()
        self._local.depth -= 1
        with self._cond:
            now = self.clock()
            for key in {session, address, browser} - {""}:
                self._use[key] = (self.usage(key) + (now - start), now)
            if len(self._use) > 30_000:  # sessions come and go: forget the ones whose use has decayed
                self._use = {s: u for s, u in self._use.items() if self.usage(s) > 0.01}
            self._free += 1
            self._version += 1
            self._cond.notify_all()

    @contextlib.contextmanager
    def hold(self, session: str | None = None, interruptible: bool = False):
        self.acquire(session, interruptible)
        try:
            yield
        finally:
            self.release()

    def __enter__(self):  # a page run (app.py, a fragment's rerun): it leaves the queue when stopped
        self.acquire(interruptible=True)
        return self

    def __exit__(self, *exc):
        self.release()
        return False

    def waiting(self) -> int:
        with self._cond:
            return len(self._waiting)


class OverBudget(RuntimeError):
    """This session used its heavy-lane CPU seconds (HEAVY_BUDGET_S, decaying with HEAVY_HALF_LIFE):
    retry_after is how long until it may start another heavy computation."""

    def __init__(self, retry_after: float):
        super().__init__(f"heavy computations: budget used; retry in {retry_after:.0f} s")
        self.retry_after = max(1.0, float(retry_after))


class CpuBudget:
    """CPU seconds each session spent in the heavy lane, decaying with a half-life: a session over
    `budget` is refused a new heavy computation (OverBudget) until its use has decayed under it.
    The heavy lane keeps heavy work off the class's run slots; the budget keeps one visitor from
    holding the heavy lane itself from every other teacher and student (one 30-step lesson build was
    27 s of CPU, issue 32)."""

    def __init__(self, budget: float, half_life: float, clock=time.monotonic):
        self.budget, self.half_life, self.clock = float(budget), float(half_life), clock
        self._use: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def used(self, session: str) -> float:
        with self._lock:
            used, when = self._use.get(session, (0.0, self.clock()))
        return used * math.exp(-math.log(2) * (self.clock() - when) / self.half_life)

    def check(self, session: str) -> None:
        used = self.used(session)
        if self.budget > 0 and used >= self.budget:
            raise OverBudget(self.half_life * math.log2(used / (0.9 * self.budget)))  # until 90 % of it

    def spend(self, session: str, cpu_seconds: float) -> None:
        used = self.used(session) + max(0.0, cpu_seconds)
        with self._lock:
            self._use[session] = (used, self.clock())
            if len(self._use) > 10_000:
                self._use = {s: u for s, u in self._use.items() if u[0] > 0.01}


# ATTN_FAIR_SLOTS=0: first come, first served and no heavy lane (the old semaphore's behaviour), for
# the bench's comparison only (bench/attack.py)
FAIR = os.environ.get("ATTN_FAIR_SLOTS", "1") != "0"
RUN_SLOTS = FairSlots(int(os.environ.get("ATTN_RUN_SLOTS", "2")), fair=FAIR)
HEAVY_SLOTS = FairSlots(int(os.environ.get("ATTN_HEAVY_SLOTS", "1")))
# CPU seconds of heavy work a session may have spent, decaying with a 60 s half-life: about two
# uncached importance grids or lesson builds back to back, then one a minute
HEAVY_BUDGET = CpuBudget(
    float(os.environ.get("ATTN_HEAVY_BUDGET_S", "20")), float(os.environ.get("ATTN_HEAVY_HALF_LIFE_S", "60"))
)


@contextlib.contextmanager
def heavy(run_slots: FairSlots | None = None, heavy_slots: FairSlots | None = None):
    """A heavy computation (an uncached importance grid, timeline scores, a cost section): its run
    slot is handed back while it waits for and runs in the heavy lane, then taken again."""
    if run_slots is None and not FAIR:
        yield
        return
    run_slots = run_slots or RUN_SLOTS
    heavy_slots = heavy_slots or HEAVY_SLOTS
    session = session_id()
    if heavy_slots.held():  # nested (a lesson build's importance grid): already in the lane
        yield
        return
    budget = HEAVY_BUDGET if session else None  # a bare script or a test: no session to charge
    if budget is not None:
        budget.check(session)  # refused before it waits: the session is told when to come back
    held = run_slots.held()
    if held:
        run_slots.release()
    try:
        with heavy_slots.hold(session, interruptible=True):
            cpu = time.thread_time()  # torch runs on this thread (one intra-op thread, ui/cache.py)
            try:
                yield
            finally:
                if budget is not None:
                    budget.spend(session, time.thread_time() - cpu)
    finally:
        if held:
            run_slots.acquire(session)


@contextlib.contextmanager
def released(run_slots: FairSlots | None = None):
    """Waiting on something outside this process (the room store): the run slot is handed back
    meanwhile and taken again after, so a hung store holds up the session that asked, never the
    class (issue 32: a SIGSTOPped Redis held both slots and every visitor waited over 25 s)."""
    run_slots = run_slots or RUN_SLOTS
    held = run_slots.held()
    session = run_slots.holder()
    if held:
        run_slots.release()
    try:
        yield
    finally:
        if held:
            run_slots.acquire(session)


def heavy_call(fn):
    """fn run in the heavy lane (put it inside an st.cache_data function: a cache hit never waits)."""
    import functools

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        with heavy():
            return fn(*args, **kwargs)

    return wrapped

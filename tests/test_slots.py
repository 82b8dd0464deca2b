"""ui/slots.py: the run slots go to the session that used them least, and heavy work runs in its
own lane with the run slot handed back (issue 26: one visitor's tabs held both run slots)."""

import threading
import time

from ui.slots import FairSlots, heavy


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def wait_until(cond, timeout=5.0):
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError("timed out")
        time.sleep(0.005)


def test_a_freed_slot_goes_to_the_session_that_used_least_not_to_the_first_in_line():
    clock = Clock()
    slots = FairSlots(1, half_life=30.0, clock=clock)
    with slots.hold("attacker"):  # the attacker has used the slot for 10 s
        clock.now += 10
    slots.acquire("student0")  # the slot is busy now
    order = []

    def take(session):
        with slots.hold(session):
            order.append(session)

    first = threading.Thread(target=take, args=("attacker",))
    first.start()
    wait_until(lambda: slots.waiting() == 1)  # the attacker asked first
    second = threading.Thread(target=take, args=("student",))
    second.start()
    wait_until(lambda: slots.waiting() == 2)
    slots.release()
    first.join(5)
    second.join(5)
    assert order == ["student", "attacker"]  # a plain (FIFO) semaphore gives ["attacker", "student"]


def test_use_decays_so_a_session_is_not_punished_for_ever():
    clock = Clock()
    slots = FairSlots(1, half_life=30.0, clock=clock)
    with slots.hold("a"):
        clock.now += 8
    assert abs(slots.usage("a") - 8) < 1e-9
    clock.now += 30
    assert abs(slots.usage("a") - 4) < 1e-9  # one half-life later


def test_heavy_work_hands_the_run_slot_back_and_runs_one_at_a_time():
    run, lane = FairSlots(1), FairSlots(1)
    inside = threading.Event()
    leave = threading.Event()

    def attacker(name):
        with run.hold(name):
            with heavy(run, lane):
                inside.set()
                leave.wait(5)
            assert run.held()  # taken again after the heavy part

    a = threading.Thread(target=attacker, args=("tab1",))
    a.start()
    inside.wait(5)
    b = threading.Thread(target=attacker, args=("tab2",))  # a second tab waits for the lane, holding nothing
    b.start()
    wait_until(lambda: lane.waiting() == 1)
    got = []

    def student_page():
        with run.hold("student"):
            got.append(True)

    student = threading.Thread(target=student_page)
    student.start()
    student.join(2)
    assert got == [True]  # the student's page ran while both attacker tabs were in or waiting for heavy work
    leave.set()
    a.join(5)
    b.join(5)
    assert not a.is_alive() and not b.is_alive()


def test_heavy_outside_a_run_slot_only_uses_the_lane():
    run, lane = FairSlots(1), FairSlots(1)
    with heavy(run, lane):
        assert not run.held() and lane.held()
    assert not lane.held()


def test_a_run_asked_to_rerun_while_it_waits_leaves_the_queue_without_taking_a_slot(monkeypatch):
    """Issue 45, item 3: a run whose session sent a newer rerun while it waited for a slot used to
    take the slot when its turn came and compute a page nobody would see (a flood of reruns queued
    one stale run after another). Now it leaves the queue and ends as at its next Streamlit call."""
    from ui import slots as module

    asked = threading.Event()

    class Left(Exception):
        pass

    def leave():
        raise Left

    monkeypatch.setattr(module, "_run_interrupted", asked.is_set)
    monkeypatch.setattr(module, "_leave_run", leave)
    slots = FairSlots(1)
    slots.acquire("student")  # the only slot is busy
    out = []

    def run():
        try:
            with slots:  # a page run: interruptible
                out.append("took the slot")
        except Left:
            out.append("left")

    waiter = threading.Thread(target=run)
    waiter.start()
    wait_until(lambda: slots.waiting() == 1)
    asked.set()
    slots.wake()
    waiter.join(2)
    assert out == ["left"] and slots.waiting() == 0
    slots.release()
    with slots.hold("student"):  # the slot it never took is free for the next run
        pass


def test_a_slot_asked_for_outside_a_page_run_is_not_interrupted(monkeypatch):
    from ui import slots as module

    monkeypatch.setattr(module, "_run_interrupted", lambda: True)
    slots = FairSlots(1)
    with slots.hold("heavy work re-taking its run slot"):  # not interruptible: never leaves half-held
        assert slots.held()


def test_many_new_sessions_of_one_address_share_its_use_and_the_class_goes_first():
    """300 new sessions of one visitor had 300 fresh shares, each as fair as a student's, and the
    class's first pages waited behind all of them (12 sentences in 30 s instead of 78). Now a
    waiting run's turn is by its visitor's address first (then its browser, then its session)."""
    clock = Clock()
    where = {f"crowd{k}": ("a:203.0.113.66", f"s:crowd{k}") for k in range(50)}
    where.update({f"student{k}": ("a:198.51.100.10", f"b:{k:016x}") for k in range(3)})
    slots = FairSlots(1, half_life=30.0, clock=clock, keys=where.__getitem__)
    slots.acquire("crowd0")  # the first of the crowd runs
    order = []

    def take(session):
        with slots.hold(session):
            order.append(session)
            clock.now += 0.3  # a first page's run

    crowd = [threading.Thread(target=take, args=(f"crowd{k}",)) for k in range(1, 50)]
    for t in crowd:
        t.start()
    wait_until(lambda: slots.waiting() == 49)  # the crowd asked first
    students = [threading.Thread(target=take, args=(f"student{k}",)) for k in range(3)]
    for t in students:
        t.start()
    wait_until(lambda: slots.waiting() == 52)
    clock.now += 0.3
    slots.release()
    for t in crowd + students:
        t.join(5)
    assert len(order) == 52
    # the two addresses take turns: every student runs among the first six, not after the 49
    assert sorted(order[:6]) == ["crowd1", "crowd2", "crowd3", "student0", "student1", "student2"], order[:8]
    assert slots.usage("a:203.0.113.66") > 10 and slots.usage("a:198.51.100.10") < 1


def test_a_pages_part_runs_in_a_run_slot_also_when_it_reruns_alone():
    """A fragment's own rerun (a head clicked, a slider moved) runs the part without app.py, whose
    run slot it then did not hold: a flood of such reruns computed outside the fair slots."""
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st

        from ui import context, slots

        def part():
            st.session_state.setdefault("held", []).append(slots.RUN_SLOTS.held())
            st.button("again", key="again")

        context.partial(part)()

    at = AppTest.from_function(script, default_timeout=60).run()
    at.button(key="again").click().run()
    assert not at.exception
    assert at.session_state["held"] == [True, True]

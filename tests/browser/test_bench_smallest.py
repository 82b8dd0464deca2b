"""The benchmarks the attention page is measured by, run at their smallest size so they cannot rot
unseen: `bench/run.sh --only views,moves` failed on main for a round (bench/views_app.py ran
pages/attention.py under a name other than __main__, so the page drew nothing, and both benches
waited 120 s for a view that never came). Each test runs the bench's own `run` at 16 tokens with
a few moves and checks that every figure it reports is there and plausible; the figures
themselves are bench/'s business (bench/results.md), not asserted here."""

from __future__ import annotations

import math

import pytest

from bench import class_cpu, follow, model_moves, moves, views

# each starts its own app server(s) on bench/views_app.py and its own Chromium: about 20 s apiece
pytestmark = [pytest.mark.browser, pytest.mark.slow]


def finite_ms(x) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x) and 0 <= x < 60_000


def _alone(fn, **kwargs):
    """fn (a bench's Playwright sync API) in a thread of its own: a browser test before it in the same
    worker leaves an event loop running on the main thread, where the sync API refuses to start."""
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(fn, **kwargs).result()


def test_moves_runs_the_real_page_and_the_model_at_16_tokens_on_every_path():
    rows = _alone(moves.run, sizes=(16,), moves=2, old_moves=1, bertviz=False, log=lambda *_: None)
    new = [r for r in rows if r["path"].startswith("attention view")]
    # every move on both of the view's tabs was timed (16 tokens: every layer travels, none a note)
    assert {(r["path"], r["move"]) for r in new} == {
        (f"attention view, {tab}", move) for tab, _ in moves.TABS for move in moves.MOVE_NAMES
    }
    for r in new:
        assert "note" not in r, r
        assert r["moves"] == 2 and r["tokens"] == 16
        assert all(finite_ms(r[k]) for k in ("work", "handler", "render", "to_frame", "max_work")), r
        assert r["draw"] is not None  # the view's own draw() ran: the move reached the view
        assert r["ws_sent_during"] == 0, r  # a move in the browser sends nothing while it moves
    old = [r for r in rows if r["path"] == "old Plotly page (server)"]
    assert {r["move"] for r in old} == {"head", "row", "layer"}
    assert all(finite_ms(r["median_ms"]) and r["moves"] == 1 for r in old), old
    # the model's moves (bench.model_moves) in the same run: each in the browser, throttled, on the server
    model = {(r["path"], r["move"]): r for r in rows if r["move"] in model_moves.MOVES}
    measured = ("in the browser", "in the browser, CPU 4x slower", "server")
    assert {k for k in model if k[0] in measured} == {(p, m) for p in measured for m in model_moves.MOVES}
    for (path, _), r in model.items():
        if path in measured:
            assert r["tokens"] == 16 and r["moves"] == 2 and finite_ms(r["median_ms"]), r
            assert r["median_ms"] <= r["max_ms"], r
    assert all("note" in model[("BertViz", m)] for m in model_moves.MOVES)  # bertviz=False: said, not timed
    for path in ("attention page, in the browser", "attention page, CPU 4x slower"):  # timed, or why not
        for m in model_moves.MOVES:
            r = model[(path, m)]
            assert r.get("note") or (r["moves"] == 2 and finite_ms(r["median_ms"])), r


def test_views_runs_the_real_page_at_16_and_128_tokens_on_each_tab():
    """And what a new sentence costs the network: at 128 tokens the 6 x 12-head trace is over the
    view's byte budget (viz/attention_view.py), so one layer travels (0.79 MB of float32), not all
    six (4.7 MB, as the page sent for a while unseen: no test looked at the bytes)."""
    rows = _alone(views.run, sizes=(16, 128), reps=1, timeout=60, log=lambda *_: None)
    assert [(r["view"], r["tokens"]) for r in rows] == [(v, n) for v, _, _ in views.VIEWS for n in (16, 128)]
    for r in rows:
        assert 0 < r["drawn_s"] < 60 and r["mb"] > 0, r
        assert r["mb"] < (0.5 if r["tokens"] == 16 else 1.2), r


@pytest.mark.parametrize("move", ["view", "type"])
def test_class_cpu_runs_both_paths_at_its_smallest(move):
    """bench/class_cpu.py: two students, a sentence a second each, both paths on one server. The
    browser path replays what the real page sent on release (recorded from Chromium): one rerun
    message each, carrying the attention view's reported view (view), or the POST of the sentence
    left in the box to the box's route (type: each student's own token and sentence)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    r = _alone(class_cpu.measure, students=2, interval=1.0, seconds=2.0, releases=2, move=move, log=lambda *_: None)
    assert len(r["release_bytes"]) == 2 and all(b > 0 for b in r["release_bytes"])
    for path in ("server", "browser"):
        row = r[path]
        assert row["errors"] == 0, row["error_examples"]
        assert row["sentences"] >= 2 * 2, row  # each student sent at least its first two
        assert 0 < row["cpu_s"] < 60 and 0 < row["cpu_per_sentence_s"] < 10, row
        assert finite_ms(row["p50_s"] * 1000) and row["p95_s"] >= row["p50_s"], row
    assert r["ratio"] == r["browser"]["cpu_per_sentence_s"] / r["server"]["cpu_per_sentence_s"]
    idle = r["idle"]  # the same students connected, nothing sent: the baseline beside the ratio
    assert idle["sentences"] == 0 and idle["errors"] == 0 and idle["cpu_s"] >= 0 and idle["wall_s"] >= 2.0
    assert "| idle | 0 |" in class_cpu.table(r)
    # what was replayed: the component's report (a rerun message), or the box's post (ui/said.py)
    if move == "type":  # the sentence left in the box: posted to the route, taken, no rerun
        (post,) = r["recorded"][0]
        assert isinstance(post, dict) and post["status"] == 204 and post["path"].endswith("/_attn/said"), post
        assert post["body"] and post["body"] != b"The cat sat on the mat" and len(post["token"]) >= 32
        assert r["browser"]["refused"] == 0 and r["browser"]["cpu_per_sentence_s"] < r["server"]["cpu_per_sentence_s"]
        return
    m = BackMsg()
    m.ParseFromString(r["recorded"][0][-1])
    ids = [w.id for w in m.rerun_script.widget_states.widgets]
    assert any(i.endswith("-att_view") for i in ids), ids
    assert "text=The+cat+sat" in m.rerun_script.query_string


def test_follow_times_every_student_on_every_sentence():
    """bench/follow.py at its smallest: a teacher and two students, two sentences. Every student
    followed every sentence (a finite figure under the bench's hang bound), and the table and the
    target line are written from them. How soon is the bench's figure, not asserted here."""
    r = _alone(follow.measure, students=2, changes=2, log=lambda *_: None)
    assert [row["sentence"] for row in r["rows"]] == list(follow.SENTENCES[:2])
    for row in r["rows"]:
        assert len(row["waits"]) == 2 and all(0 <= w < follow.HANG_S for w in row["waits"]), row
        assert 0 < row["teacher_s"] < 120, row
    assert r["max_s"] == max(w for row in r["rows"] for w in row["waits"]) and r["median_s"] <= r["max_s"]
    md, ((target, figure, met),) = follow.markdown(r)
    assert f"| {follow.SENTENCES[0]} |" in md and figure == f"{r['max_s']:.2f} s" and met == (r["max_s"] <= 2.0)

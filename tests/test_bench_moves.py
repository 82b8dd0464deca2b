"""bench/moves.py's pure helpers: the medians it reports, the table that puts each tool's figure
under its own column (a figure under the wrong tool would say the wrong one is faster), and the
rows BertViz's hover visits (the rows our arrow keys reach, so both tools move over the same rows)."""

from __future__ import annotations

import statistics

from bench import moves


def sample(work, handler=None, frame=None, draw=None):
    handler = work / 2 if handler is None else handler
    return {
        "handler": handler,
        "render": work - handler,
        "work": work,
        "to_frame": work + 8 if frame is None else frame,
        "draw": draw,
    }


def test_summary_takes_medians_and_the_slowest_work():
    works = [3.0, 1.0, 250.0, 2.0, 4.0]
    got = moves.summary([sample(w, draw=w / 4) for w in works])
    assert got["work"] == 3.0 == statistics.median(works)
    assert got["max_work"] == 250.0  # one slow move shows in the slowest, not in the median
    assert got["to_frame"] == 11.0 and got["handler"] == 1.5 and got["render"] == 1.5
    assert got["draw"] == 0.75 and got["moves"] == 5
    assert moves.summary([sample(1.0)])["draw"] is None  # BertViz has no draw() of ours to read


def columns(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def test_the_table_puts_each_tool_under_its_own_column():
    rows = [
        {"path": "attention view, heatmap", "move": "head", "tokens": 16, **moves.summary([sample(1.25)])},
        {"path": "attention view, head view", "move": "head", "tokens": 16, **moves.summary([sample(2.5)])},
        {"path": "old Plotly page (server)", "move": "head", "tokens": 16, "median_ms": 179.4, "max_ms": 204.0},
        {"path": "BertViz head view", "move": "head", "tokens": 16, **moves.summary([sample(27.7, frame=29.2)])},
        {"path": "BertViz head view", "move": "head", "tokens": 512, "note": "not loaded: ~842 MB"},
        {"path": "attention view, heatmap", "move": "layer", "tokens": 512, "note": "a server round trip"},
    ]
    lines = moves.moves_table(rows).splitlines()
    header = columns(lines[0])
    assert header == ["tokens", "move", *moves.COLUMNS]
    by = {tuple(columns(line)[:2]): dict(zip(header, columns(line))) for line in lines[2:]}
    assert set(by) == {(str(n), m) for n in (16, 512) for m in moves.MOVE_NAMES}
    head = by[("16", "head")]
    assert head["attention view, heatmap"].startswith("1.25 ms")
    assert head["attention view, head view"].startswith("2.50 ms")
    assert head["old Plotly page (server)"] == "179 ms (max 204)"
    assert head["BertViz head view"] == "27.70 ms (max 27.7) / 29.2 ms"
    temp = by[("16", "temperature")]
    assert temp["old Plotly page (server)"] == "no slider on the old page"
    assert temp["BertViz head view"] == "none (BertViz has no temperature)"
    assert by[("512", "head")]["BertViz head view"] == "not loaded: ~842 MB"
    assert by[("512", "layer")]["attention view, heatmap"] == "a server round trip"
    assert by[("512", "row")]["attention view, heatmap"] == "–"  # not measured is not a figure


def test_bertviz_hovers_the_rows_our_arrow_keys_reach():
    """Our row moves: from row 1, ArrowDown for moves 0-9, ArrowUp for 10-19 (OUR_MOVES' key rule)."""
    q, reached = 1, []
    for k in range(40):
        q += 1 if (k // 10) % 2 == 0 else -1
        reached.append(q)
    assert [moves.zigzag_row(k) for k in range(40)] == reached
    assert min(reached) == 1 and max(reached) == 11  # inside the smallest trace's 16 rows


def test_the_model_moves_read_n_tokens_and_ask_the_server_something_new_each_move():
    """bench/model_moves.py: the sentence is n tokens with <s> (not a longer text the model would
    cut), typing grows it one character a move up to the whole of it, and each of the server's
    moves asks for a link it has not run (another sentence, T or head), so the model runs each time."""
    from urllib.parse import parse_qs

    from bench import model_moves
    from model import load

    runner = load(model_moves.MODEL)
    L, H = runner.config.num_layers, runner.config.num_heads
    for n in (16, 128):
        t = model_moves.texts(n, 20)
        assert len(runner.tokenizer.encode(t["text"])) + 1 == n
        typed = t["typed"]
        assert typed[-1] == t["text"] and all(
            len(b) == len(a) + 1 and b.startswith(a) for a, b in zip(typed, typed[1:])
        )
        for move in model_moves.MOVES:
            links = [model_moves.server_query(move, k, n, t, L, H) for k in range(20)]
            assert len({p for p, _ in links}) == 1, move  # one page a move
            assert all(parse_qs(q)["model"] == [model_moves.MODEL] for _, q in links)
            if move == "positions off":
                assert all(parse_qs(q)["cmp"] == ["positions"] for _, q in links)
            assert len(set(links)) == 20, move  # 20 moves, 20 links the server has not run
    assert len({model_moves.head_of(k, L, H) for k in range(L * H)}) == L * H  # every head in turn
    offs = [tuple(sorted(model_moves.heads_of(k, L, H))) for k in range(L * H * 4)]
    assert len(set(offs)) == len(offs) and all(len(set(o)) == len(o) for o in offs)  # no repeat, no head twice

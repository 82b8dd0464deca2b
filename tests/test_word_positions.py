"""Words in a lesson step are positions (issue 37, item 1): on "The cat sat on the mat" a step that
names the second "the" ({word = "the", occurrence = 2}) is computed on that token (index 4), not on
"The" (index 0), for every query that takes a word; the texts and options name it "the₂". Each
check compares the query's number with the trace's own weights at the chosen index (and the
first occurrence's differs, so the check can fail)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from lessons import files, pick, queries, schema
from lessons.steps import entropy

SENTENCE = "The cat sat on the mat"
THE2 = {"word": "the", "occurrence": 2}  # index 4; "The" is index 0
WORD_QUERIES = sorted(n for n, q in queries.QUERIES.items() if any(t is pick.WORD for t in q.args.values()))
# which test checks each query that takes a word (a static table: under pytest-xdist the tests run
# in several processes, so a set filled in as they run would see only its own worker's)
CHECKED_BY = {
    "test_row_sum_top_key_and_entropy_read_the_chosen_row": {"row_sum", "top_key", "entropy_higher"},
    "test_one_cell_is_read_at_the_chosen_key": {"cell_weight", "cell_above", "cells_compare"},
    "test_one_head_queries_read_the_chosen_row": {"top_score", "sharpen_sketch"},
    "test_the_mask_and_the_heads_read_the_chosen_row": {"can_read", "heads_agree"},
    "test_the_second_occurrence_query_reads_the_last_row": {"top_key_again"},
    "test_the_induction_query_reads_the_last_row_however_the_word_is_named": {"induction"},
}


def last_mean(runner, text=SENTENCE, kind="encoder"):
    return runner.trace(text).attention[kind].weights.astype(np.float64)[-1].mean(0)


def run(runner, name, args, question, view=None, text=SENTENCE):
    return queries.run(name, runner, text, view or {}, args, question)


def test_the_word_forms_resolve_to_positions():
    toks = ["The", "cat", "sat", "on", "the", "mat"]
    assert pick.word_position(toks, "the") == 0  # a plain word: its first occurrence, case ignored
    assert pick.word_position(toks, THE2) == 4
    assert pick.word_position(toks, {"position": 5}) == 4
    assert pick.word_position(toks, {"word": "the", "occurrence": 3}) is None
    assert pick.labels_of(toks) == ["The₁", "cat", "sat", "on", "the₂", "mat"]
    assert pick.word_arg(toks, 4) == THE2 and pick.word_arg(toks, 1) == "cat"


def test_a_lesson_file_names_an_occurrence_or_a_position_and_bad_tables_are_refused():
    step = dict(
        model="translator",
        sentence=SENTENCE,
        question="slider",
        query="cell_weight",
        args={"word": "mat", "key": THE2},
        ask={"en": "{key}?", "zh": "{key}？"},
        reveal={"en": "{weight}", "zh": "{weight}"},
    )
    lesson = schema.validate(files.dumps("x", {"en": "x", "zh": "x"}, [step]))
    assert lesson.steps[0]["args"]["key"] == THE2
    for bad in ({"word": "the", "occurrence": 0}, {"position": "5"}, {"word": "the", "nth": 2}, {"occurrence": 2}):
        with pytest.raises(schema.LessonError):
            schema.validate(files.dumps("x", {"en": "x", "zh": "x"}, [{**step, "args": {"word": "mat", "key": bad}}]))


def test_row_sum_top_key_and_entropy_read_the_chosen_row(runners):
    r = runners("translator")
    w = last_mean(r)
    assert np.argmax(w[4]) != np.argmax(w[0]) or not np.isclose(entropy(w[4]), entropy(w[0]))
    out = run(r, "row_sum", {"word": THE2}, "choice")
    assert out["params"]["word"] == "the₂"
    out = run(r, "top_key", {"word": THE2}, "word")
    labels = pick.labels_of(["The", "cat", "sat", "on", "the", "mat"])
    assert out["params"]["word"] == "the₂" and out["params"]["top"] == labels[int(np.argmax(w[4]))]
    assert out["options"][out["answer"]] == labels[int(np.argmax(w[4]))]
    out = run(r, "entropy_higher", {"word": THE2, "other": "cat"}, "choice")
    assert out["params"]["h_word"] == f"{entropy(w[4]):.2f}" and out["params"]["word"] == "the₂"


def test_one_cell_is_read_at_the_chosen_key(runners):
    r = runners("translator")
    w = last_mean(r)
    assert f"{w[5, 4]:.2f}" != f"{w[5, 0]:.2f}"  # the two "the" differ: the check can fail
    out = run(r, "cell_weight", {"word": "mat", "key": THE2}, "slider")
    assert out["params"]["weight"] == f"{w[5, 4]:.2f}" and out["params"]["key"] == "the₂"
    out = run(r, "cell_above", {"word": "mat", "key": THE2, "than": 0.2}, "yesno")
    assert out["params"]["weight"] == f"{w[5, 4]:.2f}"
    assert out["answer"] == (0 if w[5, 4] > 0.2 else 1)
    out = run(r, "cell_weight", {"word": "mat", "key": {"position": 5}}, "slider")
    assert out["params"]["weight"] == f"{w[5, 4]:.2f}"
    out = run(r, "cells_compare", {"other": "The dog sat on the mat", "word": "mat", "key": THE2}, "yesno")
    assert out["params"]["wa"] == f"{w[5, 4]:.3f}"
    assert out["params"]["wb"] == f"{last_mean(r, 'The dog sat on the mat')[5, 4]:.3f}"


def test_one_head_queries_read_the_chosen_row(runners):
    r = runners("translator")
    w1 = r.trace(SENTENCE).attention["encoder"].weights.astype(np.float64)[-1, 0]
    labels = pick.labels_of(["The", "cat", "sat", "on", "the", "mat"])
    out = run(r, "top_score", {"word": THE2}, "word", {"head": 1})
    assert out["params"]["word"] == "the₂" and out["params"]["top"] == labels[int(np.argmax(w1[4]))]
    out = run(r, "sharpen_sketch", {"word": THE2, "temperature": 0.2}, "sketch", {"head": 1})
    assert out["params"]["word"] == "the₂"
    assert any(np.allclose(s, w1[4], atol=1e-6) for s in out["sketches"])  # "same" is the chosen row at T = 1


def test_the_second_occurrence_query_reads_the_last_row(runners):
    """top_key_again reads the row of the word's last occurrence, however the word is named."""
    r = runners("translator")
    w1 = r.trace(SENTENCE).attention["encoder"].weights.astype(np.float64)[-1, 0]
    labels = pick.labels_of(["The", "cat", "sat", "on", "the", "mat"])
    for word in ("the", THE2, {"word": "the", "occurrence": 1}, {"position": 1}):
        out = run(r, "top_key_again", {"word": word}, "word", {"head": 1})
        assert out["params"]["word"] == "the₂", word  # the last "the", whichever occurrence was named
        assert out["params"]["top"] == labels[int(np.argmax(w1[4]))]


def test_the_induction_query_reads_the_last_row_however_the_word_is_named(runners):
    """induction reads the row of the word's last occurrence and names the token after the
    previous one, whichever occurrence or position the file named (gpt layer 2 head 4 on a
    repeated sentence: an induction head there, tests/test_margins_every_query.py)."""
    r = runners("gpt")
    text = "The cat sat on the mat. The cat sat on the mat"
    view = {"kind": "decoder", "layer": 2, "head": 4}
    base = run(r, "induction", {"word": "cat"}, "word", view, text)
    assert base["params"]["top"] == base["params"]["after"] == "sat₁"
    for word in ({"word": "cat", "occurrence": 2}, {"word": "cat", "occurrence": 1}, {"position": 3}):
        out = run(r, "induction", {"word": word}, "word", view, text)
        assert (out["params"]["word"], out["params"]["top"]) == ("cat₂", "sat₁"), word


def test_the_mask_and_the_heads_read_the_chosen_row(runners):
    r = runners("gpt")  # causal: "the₂" (4) reads "The₁" (0); "The₁" cannot read "the₂"
    out = run(r, "can_read", {"word": THE2, "key": {"word": "the", "occurrence": 1}}, "yesno", {"kind": "decoder"})
    assert out["answer"] == 0
    out = run(r, "can_read", {"word": "The", "key": THE2}, "yesno", {"kind": "decoder"})
    assert out["answer"] == 1 and out["params"]["later"] == "the₂"
    w = r.trace(SENTENCE).attention["decoder"].weights.astype(np.float64)[0]
    out = run(r, "heads_agree", {"word": THE2}, "yesno", {"kind": "decoder", "layer": 1})
    # the chosen row, always (another row put in its place silently until issue 46)
    att = r.trace(SENTENCE).attention["decoder"]
    row = pick.word_position(att.query_tokens, THE2)  # after <s>
    labels = pick.labels_of(att.key_tokens)
    tops = [int(np.argmax(w[h, row, : row + 1])) for h in range(w.shape[0])]
    assert out["params"]["word"] == "the₂"
    assert out["params"]["tops"] == ", ".join(f"{h + 1}: {labels[k]}" for h, k in enumerate(tops))
    assert out["answer"] == (0 if len(set(tops)) == 1 else 1)


def test_every_query_that_takes_a_word_is_checked_here():
    assert WORD_QUERIES, "no query takes a word: the enumeration found nothing"
    checked = set().union(*CHECKED_BY.values())
    assert checked == set(WORD_QUERIES), set(WORD_QUERIES) ^ checked
    for test, names in CHECKED_BY.items():
        source = inspect.getsource(globals()[test])
        assert all(f'"{n}"' in source for n in names), (test, names)  # the test really runs each

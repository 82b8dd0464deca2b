"""Chinese labels and words as a reader sees them (issue 50.6), without a browser: the plotly
heatmaps' column labels stay upright wherever they fit (a rule on the number of columns turned 狗 /
咬 / 人 by 60 degrees), and unknown words are found inside a sentence that has no spaces
(tests/browser/test_chinese_labels.py checks the canvas and the struck-out words on the page)."""

from __future__ import annotations

import numpy as np
import pytest

from data import corpus
from viz.heatmap import AXIS_X_PX, heatmap, label_px


@pytest.mark.parametrize(("positions", "n"), [("hover", 15), ("ticks", 8)])
def test_labels_that_fit_upright_are_never_turned(positions, n):
    zh = list("狗咬人猫坐在垫子上它很开心了吗呢")[:n]  # 15: over the 12 columns that used to turn them
    fig = heatmap(np.full((3, len(zh)), 0.5), ["a", "b", "c"], zh, positions=positions)
    ticks = fig.layout.xaxis.ticktext
    room = AXIS_X_PX / len(zh)
    assert all(label_px(t, 12) + 4 <= room for t in ticks), (room, ticks)  # they do fit: the oracle
    assert fig.layout.xaxis.tickangle == 0
    # a caller's angle for long labels does not turn short ones either
    assert heatmap(np.zeros((1, 3)), ["a"], ["狗", "咬", "人"], tick_angle=-45).layout.xaxis.tickangle == 0


def test_labels_too_wide_to_stand_still_turn():
    long = [f"interpretation{i}" for i in range(15)]
    fig = heatmap(np.zeros((2, 15)), ["a", "b"], long)
    assert label_px(long[0], 12) > AXIS_X_PX / 15
    assert fig.layout.xaxis.tickangle == -60


def test_label_width_counts_a_chinese_character_as_one_em():
    assert label_px("狗", 12) == 12 and label_px("人咬狗", 10) == 30
    assert 0 < label_px("dog", 12) < 3 * 12


@pytest.mark.parametrize(
    ("text", "struck"),
    [
        ("鲸鱼咬人", ["鲸"]),  # inside a sentence without spaces
        ("狗咬鲸人", ["鲸"]),
        ("The zebra sat on the mat", ["zebra"]),
        ("狗咬人", []),
    ],
)
def test_unknown_spans_are_where_the_unknown_words_are(text, struck):
    spans = corpus.unknown_spans(text)
    assert [text[a:b] for a, b in spans] == struck
    # the same words unknown_words names (its own tokenizer: the oracle)
    assert "".join(text[a:b] for a, b in spans) == "".join(corpus.unknown_words(text))


def test_the_struck_out_sentence_strikes_every_unknown_word():
    from ui.grammar import struck_out

    assert struck_out("鲸鱼咬人") == "~~鲸~~鱼咬人"
    assert struck_out("The zebra sat") == "The ~~zebra~~ sat"
    shown = struck_out("狗咬你好！人")  # a struck span ending in punctuation beside a character
    assert "~~你好！~~\u2009人" in shown

"""What a word's rows write, merged (ui.rows.merge_written): a character several byte pieces write is
shown once, without its "k/n" (issue 50 item 10: with words on, a real model's merged rows read
"的空 2/3猪 3/3"). The oracle is the text the rows' pieces write."""

from __future__ import annotations

from ui.rows import merge_written


def test_a_character_written_by_several_rows_is_shown_once():
    # rows of two words: 的 | 空 (3 pieces, its first written by the row before) | 猪 (2 pieces), then "."
    labels = ["的", "空 1/3", "空 2/3", "空 3/3", "猪 1/2", "猪 2/2", "."]
    words = [0, 0, 1, 1, 1, 1, 2]
    assert merge_written(labels, words) == ["的空", "空猪", "."]


def test_pieces_of_one_character_in_two_words_keep_it_in_each():
    assert merge_written(["空 2/3", "空 3/3", "猫"], [0, 0, 1]) == ["空", "猫"]


def test_an_unfinished_character_and_plain_tokens():
    assert merge_written(["The", " cat", "\u2026 1/?"], [0, 1, 1]) == ["The", " cat\u2026"]
    assert merge_written(["a", "b"], [0, 0]) == ["ab"]

"""What counts as CJK (data/text.py), pinned with examples: the one definition the tokenizer's word
labels, the corpus's language and unknown-word checks and the translator's direction share."""

import pytest

from data import corpus
from data.text import has_cjk, is_cjk
from model.runner import TranslatorRunner
from model.tokenizer import Tokenizer

# text, CJK (read as Chinese), the token words the word view shows
CASES = [
    ("狗咬人", True, ["狗", "咬", "人"]),  # Han characters: each its own word
    ("カタカナ", True, ["カ", "タ", "カ", "ナ"]),  # kana counts, like Han (Japanese writes no spaces)
    ("한국어 좋아", False, ["한국어", "좋아"]),  # Hangul does not: words by spaces, as in English
    ("。", False, ["。"]),  # CJK punctuation does not make a text Chinese
    ("The cat", False, ["The", "cat"]),
    ("猫坐在垫子上。", True, ["猫", "坐", "在", "垫子", "上", "。"]),  # after 上, 。 is a word of its own
    ("The cat sat on the mat。", False, ["The", "cat", "sat", "on", "the", "mat。"]),  # like "mat."
]


@pytest.mark.parametrize("text, cjk, words", CASES)
def test_one_definition_of_cjk(text, cjk, words):
    assert has_cjk(text) == cjk
    assert corpus.language_of(text) == ("zh" if cjk else "en")  # the out-of-language check's grammar
    assert TranslatorRunner.direction(text) == ("zh-en" if cjk else "en-zh")  # the translator's direction
    tok = Tokenizer.load()
    assert tok.word_labels(tok.encode(text)) == words


def test_characters():
    assert all(is_cjk(c) for c in "狗咬人猫垫子カタカナひらがな〇々ㄅ㐀𠀀")
    assert not any(is_cjk(c) for c in "한국어。，、！？「」\u3000ＡａThe 1.😺")


def test_punctuation_is_not_part_of_an_unknown_word():
    assert corpus.unknown_words("你好！") == ["你好", "！"]
    assert corpus.unknown_words("猫坐在垫子上。") == []
    assert corpus.unknown_words("한국어 カタカナ") == ["한국어", "カタカナ"]


def test_one_longest_match_segmentation():
    """unknown_words cuts a Chinese run with segment_zh, the segmentation the tokenizer's training
    uses: the characters between corpus words make one unknown word per gap."""
    assert corpus.segment_zh("猫坐在垫子上") == ["猫", "坐", "在", "垫子", "上"]
    assert corpus.unknown_words("猫你好狗") == ["你好"]

"""What counts as CJK in a text: the one definition the tokenizer, the corpus and the translator use.

A CJK character here is a letter of Chinese or Japanese writing: a Han character (汉字, with its
radicals, strokes, bopomofo and the marks 々〆〇) or Japanese kana. Such text is written without
spaces between words, so

- a text with one is read as Chinese: the translator translates it to English and the corpus
  checks it against its Chinese grammar (corpus.language_of);
- a run of them is cut into words by longest match over the corpus words (corpus.segment_zh),
  and each of their pieces is a word of its own in token labels (tokenizer.Tokenizer.word_ids).

Decided on purpose:

- Kana counts. Japanese mixes kana with Han characters and writes no spaces, so "猫が好き" and
  "ねこがすき" are read the same way; the models know no Japanese, and both get the
  out-of-language warning.
- Hangul does not count. Korean puts spaces between words as English does, and it is not
  Chinese: 한국어 is grouped into words by its spaces and read like any other script the
  models never saw (English side, with the warning).
- CJK punctuation does not count (。，、！？「」, the ideographic space, full-width forms). It is
  punctuation, like "." and ",": it never makes a text Chinese ("The cat sat on the mat。" is
  English), and it is not part of a word (an unknown "你好！" is the word 你好 and the mark ！).
  After a Chinese character it still starts a new word, since every Chinese piece ends its word.
"""

from __future__ import annotations

import re

# the body of a regex character class, for patterns that need CJK runs (corpus._TOKEN)
CJK = (
    "\u2e80-\u2fff"  # CJK and Kangxi radicals, ideographic description characters
    "\u3005-\u3007"  # 々 〆 〇 (the ideographic zero of 二〇二四)
    "\u3040-\u30ff"  # hiragana, katakana
    "\u3100-\u312f\u31a0-\u31bf"  # bopomofo (注音)
    "\u31c0-\u31ff"  # CJK strokes, katakana phonetic extensions
    "\u3400-\u4dbf\u4e00-\u9fff"  # CJK unified ideographs and extension A
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\uff66-\uff9f"  # half-width katakana
    "\U00020000-\U0003ffff"  # CJK extensions B and later
)
_ONE = re.compile(f"[{CJK}]")


def is_cjk(ch: str) -> bool:
    """Whether the character ``ch`` is CJK (a Han character or kana; not Hangul, not punctuation)."""
    return bool(_ONE.fullmatch(ch))


def has_cjk(text: str) -> bool:
    """Whether ``text`` has a CJK character: the text is then read as Chinese."""
    return bool(_ONE.search(text or ""))

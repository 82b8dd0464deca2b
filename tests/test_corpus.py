"""The parallel corpus: a synchronous grammar with exact probabilities."""

import dataclasses
import math
import random
import statistics

import pytest

from data import corpus

TUTORIAL = [
    ("The cat sat on the mat", "猫坐在垫子上"),
    ("The cat sat on the mat.", "猫坐在垫子上。"),
    ("The dog bites the man", "狗咬人"),
    ("The man bites the dog", "人咬狗"),
    ("The cat sat on the mat. It was happy.", "猫坐在垫子上。它很开心。"),
]


@pytest.fixture(scope="module")
def big_sample():
    return corpus.generate(20000, 11)


def test_deterministic():
    a = corpus.generate(300, 1)
    assert a == corpus.generate(300, 1)
    assert a != corpus.generate(300, 2)
    assert corpus.train_pairs(50, 3) == corpus.train_pairs(50, 3)
    assert corpus.gpt_items(50, 3) == corpus.gpt_items(50, 3)


def test_pair_fields():
    p = corpus.sample(random.Random(0))
    assert isinstance(p, corpus.Pair)
    assert isinstance(p.en, str) and isinstance(p.zh, str) and isinstance(p.logprob, float)
    assert p.kind in ("sentence", "story")
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.en = "x"


@pytest.mark.parametrize("en,zh", TUTORIAL)
def test_tutorial_sentences(en, zh):
    lp_en, lp_zh = corpus.logprob(en, "en"), corpus.logprob(zh, "zh")
    assert lp_en is not None and lp_zh is not None
    assert lp_en == pytest.approx(lp_zh, abs=1e-9)  # bijection: same pair, same probability
    assert corpus.translate(en, "en") == zh
    assert corpus.translate(zh, "zh") == en
    assert corpus.derivations(en, "en") == 1 and corpus.derivations(zh, "zh") == 1


def test_word_order_matters():
    a, b = corpus.logprob("狗咬人", "zh"), corpus.logprob("人咬狗", "zh")
    assert a is not None and b is not None and a != b  # different subjects, weights
    assert corpus.segment("猫坐在垫子上", "zh") == ["猫", "坐", "在", "垫子", "上"]


@pytest.mark.parametrize(
    "text,lang",
    [
        ("the cat sat on the mat", "en"),
        ("The cat sat on the mat ", "en"),
        ("The  cat sat on the mat", "en"),
        ("The cat sat on the mat..", "en"),
        ("A cat sat on the mat", "en"),
        ("", "en"),
        ("", "zh"),
        ("猫坐在垫子", "zh"),
        ("The cat sat on the mat. it was happy.", "en"),
        ("猫坐在垫子上。它很开心", "zh"),
        ("狗咬人", "en"),
        ("The dog bites the man", "zh"),
    ],
)
def test_not_in_language(text, lang):
    assert corpus.logprob(text, lang) is None
    assert corpus.translate(text, lang) is None


def test_bad_lang():
    with pytest.raises(ValueError):
        corpus.logprob("狗咬人", "fr")


def test_bijection_on_large_sample(big_sample):
    en2zh, zh2en = {}, {}
    for p in big_sample:
        assert en2zh.setdefault(p.en, p.zh) == p.zh, p
        assert zh2en.setdefault(p.zh, p.en) == p.en, p
    # a large language: most samples are new
    assert len(en2zh) > 0.7 * len(big_sample)


def test_formatting_and_lengths(big_sample):
    kinds = {p.kind for p in big_sample}
    assert kinds == {"sentence", "story"}
    for p in big_sample:
        words = p.en.split(" ")
        assert all(words) and p.en[0].isupper()
        assert " " not in p.zh and "." not in p.zh
        assert len(words) + p.en.count(".") <= 25
        assert len(p.zh) <= 40
        if p.kind == "story":
            assert p.en.endswith(".") and p.zh.endswith("。") and p.en.count(". ") == 1


def test_sample_logprob_matches_parser():
    for p in corpus.generate(300, 5):
        assert corpus.logprob(p.en, "en") == pytest.approx(p.logprob, abs=1e-9)
        assert corpus.logprob(p.zh, "zh") == pytest.approx(p.logprob, abs=1e-9)
        assert corpus.derivations(p.en, "en") == 1 and corpus.derivations(p.zh, "zh") == 1
        assert corpus.translate(p.en, "en") == p.zh and corpus.translate(p.zh, "zh") == p.en
        assert len(corpus.segment(p.zh, "zh")) <= 25


def test_entropy_matches_sampled_mean(big_sample):
    h = corpus.entropy()
    nll = [-p.logprob for p in big_sample]
    mean, sd = statistics.fmean(nll), statistics.stdev(nll)
    assert abs(mean - h) < 4 * sd / math.sqrt(len(nll)) + 0.02, (mean, h)
    assert corpus.gpt_entropy() == pytest.approx(math.log(2) + h)


def test_vocabulary():
    assert len(corpus.LEXICON) >= 150
    for en, zh in corpus.LEXICON.items():
        assert en and zh and any("\u4e00" <= c <= "\u9fff" for c in zh), (en, zh)
    # no two English words share one Chinese word (keeps zh -> en deterministic)
    assert len(set(corpus.LEXICON.values())) == len(corpus.LEXICON)
    # every lexicon word is used by the grammar
    for en in corpus.LEXICON:
        assert all(w in corpus.EN_VOCAB for w in en.split()), en
    assert {"the", "was", "."} <= corpus.EN_VOCAB
    assert {"猫", "垫子", "咬", "。"} <= corpus.ZH_VOCAB


def test_heldout_split():
    train = corpus.train_pairs(3000, 0)
    held = corpus.heldout_pairs(1000, 0)
    assert not any(corpus.is_heldout(p) for p in train)
    assert all(corpus.is_heldout(p) for p in held)
    assert len({p.en for p in held}) == 1000
    assert not {p.en for p in train} & {p.en for p in held}
    # the split goes by the first sentence: "X", "X." and stories starting with X agree
    for p in held[:200]:
        first = p.en.split(". ")[0].rstrip(".")
        assert corpus.is_heldout(first) and corpus.is_heldout(first + ".")
    frac = sum(map(corpus.is_heldout, corpus.generate(4000, 9))) / 4000
    assert 0.02 < frac < 0.09


def test_gpt_items():
    items = corpus.gpt_items(400, 0)
    assert {lang for lang, _ in items} == {"en", "zh"}
    for lang, text in items[:50]:
        lp = corpus.gpt_logprob(text, lang)
        assert lp == pytest.approx(math.log(0.5) + corpus.logprob(text, lang))
        assert not corpus.is_heldout(corpus.translate(text, "zh") if lang == "zh" else text)
    assert corpus.gpt_logprob("hello", "en") is None


def test_unknown_words():
    assert corpus.unknown_words("The cat sat on the mat.") == []
    assert corpus.unknown_words("猫坐在垫子上。它很开心。") == []
    assert corpus.unknown_words("THE Cat sat") == []
    assert corpus.unknown_words("The zebra sat on the mat, zebra!") == ["zebra", ",", "!"]
    assert corpus.unknown_words("鲸鱼咬人") == ["鲸"]
    assert corpus.unknown_words("猫喜欢😀 مرحبا") == ["😀", "مرحبا"]
    assert corpus.unknown_words("a\u200bb\x07") == ["a", "b"]  # invisible ones ignored
    assert corpus.unknown_words("") == []


def test_one_longest_match_segmentation():
    """corpus.segment_zh is the one Chinese segmentation (known_words and the tokenizer's
    training both use it): longest match, an unknown character alone, and the corpus's own Chinese
    items come back as the words they were built from."""
    assert corpus.segment_zh("猫坐在垫子上") == ["猫", "坐", "在", "垫子", "上"]
    assert corpus.segment_zh("北京") == ["北", "京"]  # not corpus words: one by one
    for p in corpus.generate(200, seed=5):
        run = "".join(ch for ch in p.zh if ch in "".join(corpus.ZH_VOCAB))
        assert "".join(corpus.segment_zh(run)) == run
        assert all(w in corpus.ZH_VOCAB for w in corpus.segment_zh(run))

"""The shared English / Chinese SentencePiece tokenizer (the shipped file is only read here)."""

import pytest

from data import corpus
from model import tokenizer as T
from model.tokenizer import Tokenizer

WEIRD = [
    "I love 😀 and 👨\u200d👩\u200d👧!",
    "مرحبا بالعالم",
    "zero\u200bwidth\u200djoin\ufeffbom",
    "ctrl\x00\x07\x1b[0m\ttab\r\nnewline",
    "café naïve Ｆｕｌｌ　width，。",
    "鲸鱼咬人 🐳 123 <s> <2zh> </s> <unk> ▁",
    "  leading and   inner   spaces  ",
    "\U0001f600\U0001f600\U00020000",
]


@pytest.fixture(scope="module")
def tok():
    return Tokenizer.load()


def test_specials_fixed(tok):
    assert (T.PAD, T.UNK, T.BOS, T.EOS, T.TO_EN, T.TO_ZH) == (0, 1, 2, 3, 4, 5)
    assert tok.pieces(range(6)) == ["<pad>", "<unk>", "<s>", "</s>", "<2en>", "<2zh>"]
    assert tok.labels(range(6)) == ["<pad>", "<unk>", "<s>", "</s>", "<2en>", "<2zh>"]
    assert tok.vocab_size == T.VOCAB_SIZE
    assert T.DEFAULT_PATH.name == "tokenizer.model" and T.DEFAULT_PATH.parent.name == "weights"


def test_typed_special_names_are_plain_text(tok):
    ids = tok.encode("<2zh> <s> </s> <pad>")
    assert not set(ids) & set(T.SPECIALS)
    assert tok.decode([T.BOS, T.TO_ZH] + tok.encode("狗咬人") + [T.EOS, T.PAD]) == "狗咬人"


def test_round_trip_corpus(tok):
    for p in corpus.generate(300, 3):
        for text in (p.en, p.zh):
            ids = tok.encode(text)
            assert tok.decode(ids) == text
            assert T.UNK not in ids


@pytest.mark.parametrize("text", WEIRD)
def test_round_trip_weird(tok, text):
    ids = tok.encode(text)
    assert T.UNK not in ids
    assert tok.decode(ids) == tok.normalize(text)
    assert tok.normalize(tok.normalize(text)) == tok.normalize(text)
    labels, words = tok.labels(ids), tok.word_ids(ids)
    assert len(labels) == len(words) == len(ids)
    assert len(tok.word_labels(ids)) == (words[-1] + 1 if ids else 0)
    for lab in labels + tok.word_labels(ids):
        assert lab and "<0x" not in lab and "\u2581" not in lab


def test_emoji_labels(tok):
    ids = tok.encode("I 😀")
    assert tok.labels(ids)[-4:] == ["😀 1/4", "😀 2/4", "😀 3/4", "😀 4/4"]
    assert tok.word_labels(ids) == ["I", "😀"]
    assert tok.labels(tok.encode("😀")[:1]) == ["\\xF0"]  # a lone byte: readable, not <0xF0>


def test_corpus_words_are_single_pieces(tok):
    vocab = set(tok.pieces(range(tok.vocab_size)))
    for w in corpus.ZH_VOCAB:
        assert w in vocab, w
    for w in corpus.EN_VOCAB - {"it", "he", "she"}:  # pronouns only start a sentence
        assert ("\u2581" + w if w != "." else w) in vocab, w
    for w in ("The", "\u2581It", "\u2581He", "\u2581She"):
        assert w in vocab


def test_corpus_text_segments_into_corpus_words(tok):
    for p in corpus.generate(200, 4):
        for text, lang in ((p.en, "en"), (p.zh, "zh")):
            ids = tok.encode(text)
            words = corpus.segment(text, lang)
            assert [w.lower() for w in tok.labels(ids)] == words


def test_labels_and_words(tok):
    ids = tok.encode("The cat sat on the mat.")
    assert tok.pieces(ids)[:2] == ["The", "\u2581cat"]
    assert tok.labels(ids) == ["The", "cat", "sat", "on", "the", "mat", "."]
    assert tok.word_ids(ids) == [0, 1, 2, 3, 4, 5, 5]
    assert tok.word_labels(ids) == ["The", "cat", "sat", "on", "the", "mat."]
    ids = [T.BOS, T.TO_EN] + tok.encode("猫坐在垫子上。") + [T.EOS]
    assert tok.labels(ids) == ["<s>", "<2en>", "猫", "坐", "在", "垫子", "上", "。", "</s>"]
    assert tok.word_ids(ids) == list(range(9))
    ids = tok.encode("鲸鱼")  # 鲸 is not in the vocabulary
    assert tok.labels(ids) == ["鲸 1/3", "鲸 2/3", "鲸 3/3", "鱼"]
    assert tok.word_ids(ids) == [0, 0, 0, 1]
    assert tok.word_labels(ids) == ["鲸", "鱼"]
    ids = tok.encode("café au lait")
    assert tok.word_labels(ids) == ["café", "au", "lait"]
    assert tok.labels([]) == [] and tok.word_ids([]) == [] and tok.word_labels([]) == []


def test_out_of_range_id(tok):
    with pytest.raises(ValueError):
        tok.decode([tok.vocab_size])


def test_missing_file(tmp_path):
    path = tmp_path / "nope.model"
    with pytest.raises(FileNotFoundError) as e:
        Tokenizer.load(path)
    assert str(path) in str(e.value) and "python -m model train tokenizer" in str(e.value)


@pytest.mark.parametrize("data", [b"", b"this is not a sentencepiece model", bytes(range(256))])
def test_corrupt_file(tmp_path, data):
    path = tmp_path / "bad.model"
    path.write_bytes(data)
    with pytest.raises(ValueError) as e:
        Tokenizer.load(path)
    assert str(path) in str(e.value) and "python -m model train tokenizer" in str(e.value)


def test_train_small_is_atomic_and_deterministic(tmp_path):
    pairs = corpus.train_pairs(1500, 1)
    texts = [p.en for p in pairs] + [p.zh for p in pairs]
    out = tmp_path / "sub" / "tok.model"
    T.train(texts, out, vocab_size=700)
    first = out.read_bytes()
    t = Tokenizer.load(out)
    assert t.pieces(range(6)) == ["<pad>", "<unk>", "<s>", "</s>", "<2en>", "<2zh>"]
    assert t.decode(t.encode(pairs[0].zh)) == pairs[0].zh
    T.train(texts, out, vocab_size=700)
    assert out.read_bytes() == first
    with pytest.raises(ValueError):
        T.train([], out)  # a failed run leaves the old file as it was
    assert out.read_bytes() == first
    assert [p.name for p in out.parent.iterdir()] == ["tok.model"]

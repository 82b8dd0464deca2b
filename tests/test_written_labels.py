"""Labels of byte pieces (model/written.py, model/hf/tokens.py): a token that holds part of a
character shows that character, on the sentence's axes and for what a row writes or a top-k list
offers, on the real models' tokenizers (SmolLM2's byte-level BPE, Gemma's byte fallback) and ours.
The oracle for which character a token belongs to is the tokenizers library's own offsets into
the text; the tokenizers load from the converted folders (no model weights are read; slow-marked
as a fresh machine converts them first). Our own tokenizer's tests are fast."""

from __future__ import annotations

import unicodedata

import pytest

from model.written import next_labels, open_bytes, written_labels
from tests.conftest import GEMMA, SMOLLM, packaged_missing

# Chinese, emoji (a skin tone: two characters, one glyph), a combining accent, a zero-width space,
# characters Gemma's vocabulary lacks (CJK extension B, a flamingo, Fraktur)
TEXTS = ("小猫坐在垫子上。", "狗咬人", "I ❤️ 😀 emoji 👍🏽", "e\u0301 café", "a\u200bb", "𠀀𪚥 龘 🦩 𝔘𝔫")


def shown(ch: str) -> str:
    """How a label shows one character (the rule the labels document)."""
    cat = unicodedata.category(ch)
    if cat[0] in "CZ":
        return f"U+{ord(ch):04X}"
    return "\u25cc" + ch if cat[0] == "M" else ch


# the real tokenizers come from the converted folders, which a fresh machine makes first (40-100 s
# for SmolLM2, minutes for Gemma: model/hf/pretrained.py): slow, as every test that may convert
REAL = pytest.mark.slow


@pytest.fixture(scope="module", params=[pytest.param(SMOLLM, marks=REAL), pytest.param(GEMMA, marks=REAL)])
def tok(request):
    why = packaged_missing(request.param)
    if why:
        pytest.skip(why)
    from model.hf import pretrained
    from model.hf.tokens import HFTokenizer, from_file

    return HFTokenizer(from_file(pretrained.converted(request.param)[0]))


def pieces_of_one_character(tok, text):
    """(ids, [(position, the character)]) for every token that holds part of one character only
    (a byte piece), by the tokenizers library's offsets."""
    enc = tok.tok(text, add_special_tokens=False, return_offsets_mapping=True)
    ids, offsets = enc["input_ids"], enc["offset_mapping"]
    out = []
    for k, (a, b) in enumerate(offsets):
        raw = tok.piece_bytes(ids[k])
        if raw is None:
            continue
        try:
            raw.decode("utf-8")
            continue  # whole characters: the piece is its own label
        except UnicodeDecodeError:
            pass
        span = text[a:b].strip()
        assert len(span) == 1, (text, k, span)
        out.append((k, span))
    return ids, out


def test_the_texts_hold_byte_pieces_on_each_tokenizer(tok):
    """The inputs reach the case (an enumerating test that enumerates nothing fails)."""
    found = sum(len(pieces_of_one_character(tok, text)[1]) for text in TEXTS)
    assert found >= 10, found


def test_axis_labels_show_the_character_of_every_byte_piece(tok):
    """The sentence's tokens: each piece of a split character shows it ("小 1/2", "🦩 3/4");
    Gemma showed "<0xF0>" before its byte fallback was read."""
    for text in TEXTS:
        ids, parts = pieces_of_one_character(tok, text)
        labels = tok.labels(ids)
        for k, ch in parts:
            assert labels[k].rsplit(" ", 1)[0] == shown(ch), (text, k, labels[k], ch)
            assert "\\x" not in labels[k] and "<0x" not in labels[k]


def test_a_written_piece_after_the_text_shows_its_character(tok):
    """What a row writes, read after the row's text: the piece that continues the text's open
    character and the one that opens a new one (with what follows it) label as the text does;
    alone they showed bytes ("\\xE5 \\xB0", "\\x87")."""
    checked = 0
    for text in TEXTS:
        ids, parts = pieces_of_one_character(tok, text)
        labels = tok.labels(ids)
        for k, ch in parts:
            if k == 0:
                continue
            got = next_labels(tok, ids[:k], [ids[k]], {ids[k]: ids[k + 1 : k + 4]})[0]
            assert got == labels[k] and got.startswith(shown(ch)), (text, k, got, ch)
            checked += 1
    assert checked >= 10


def test_rows_that_write_the_text_label_as_the_text(tok):
    """A model that writes exactly the text: row i writes token i + 1, and the next rows say the
    rest of each character, with no model run (extend is never called)."""
    for text in TEXTS:
        ids = tok.encode(text)

        def never(prefixes):
            raise AssertionError(f"ran the model for {prefixes}")

        got = written_labels(tok, ids, ids[1:] + tok.encode("."), never)
        assert got[:-1] == tok.labels(ids)[1:], text


def test_a_row_that_opens_another_character_is_completed_by_the_model(tok):
    """The text says 小 where the model writes the first piece of 猫: the model's next pieces
    (extend, one call per round for every open row) finish 猫."""
    ids, cat = tok.encode("a"), tok.encode("猫")
    if tok.piece_bytes(cat[0]) is None or len(cat) < 2:
        pytest.skip("猫 is one piece here")
    calls = []

    def extend(prefixes):  # a model that goes on writing 猫
        calls.append(prefixes)
        return [cat[len(p) - len(ids)] for p in prefixes]

    got = written_labels(tok, ids, [cat[0]], extend)
    assert got == [f"猫 1/{len(cat)}"], got
    assert len(calls) == len(cat) - 1 and all(len(c) == 1 for c in calls)
    # without a model to ask, nothing says which character: the opening piece is a part still to come
    assert written_labels(tok, ids, [cat[0]])[0] == "\u2026 1/?"


@REAL
def test_a_top_k_list_is_not_read_as_a_sentence():
    """Candidates after one text are alternatives: a continuation piece finishes the text's open
    character (oracle: Python's UTF-8 decoding), and never joins another candidate."""
    why = packaged_missing(SMOLLM)
    if why:
        pytest.skip(why)
    from model.hf import pretrained
    from model.hf.tokens import HFTokenizer, from_file

    tok = HFTokenizer(from_file(pretrained.converted(SMOLLM)[0]))
    xiao = tok.encode("小")  # E5 B0 | 8F
    assert len(xiao) == 2 and open_bytes(tok, xiao[:1]) == b"\xe5\xb0"
    tail = {b: tok.encode(bytes([0xE5, 0xB0, b]).decode())[-1] for b in (0x8F, 0x8E)}
    context = tok.encode("我") + xiao[:1]
    got = next_labels(tok, context, [xiao[0], tail[0x8F], tail[0x8E]])
    assert got[1] == "小 2/2" and got[2] == bytes([0xE5, 0xB0, 0x8E]).decode() + " 2/2", got
    # read as a sentence, the list glued its first two candidates into one character
    assert tok.labels([xiao[0], tail[0x8F], tail[0x8E]])[:2] == ["小 1/2", "小 2/2"]


def test_our_tokenizer_labels_written_byte_pieces():
    """Our SentencePiece's byte fallback (emoji): the rows of a model that writes the text."""
    from model.tokenizer import Tokenizer

    tok = Tokenizer.load()
    ids = tok.encode("猫 😀 🦩")
    assert sum(tok.piece_bytes(i) is not None for i in ids) >= 8
    got = written_labels(tok, ids, ids[1:] + [ids[0]])
    assert got[:-1] == tok.labels(ids)[1:] and not any("\\x" in g for g in got[:-1]), got


def test_a_combining_mark_sits_on_a_dotted_circle():
    from model.tokenizer import Tokenizer

    tok = Tokenizer.load()
    labels = tok.labels(tok.encode("x\u0301"))  # no precomposed x-acute: NFKC keeps the mark
    assert any(lab.startswith("\u25cc\u0301") for lab in labels), labels


def test_a_text_ending_inside_a_character_shows_no_raw_bytes(tok):
    """A text whose ids stop inside a character (a model that stopped writing mid-way: the
    generation page's text so far) labels the character's pieces so far as parts still to come
    ("… 1/?"), never as raw bytes (issue 50 item 10); the oracle is the decoded text, which ends in
    U+FFFD exactly there. Every such cut of every text is tried, and there must be some."""
    cuts = 0
    for text in TEXTS:
        ids = tok.tok(text, add_special_tokens=False)["input_ids"]
        for n in range(1, len(ids) + 1):
            if not tok.tok.decode(ids[:n]).endswith("\ufffd"):
                continue
            labels = tok.labels(ids[:n])
            cuts += 1
            assert not any("\\x" in label for label in labels), (text, n, labels)
            assert "\u2026 " in labels[-1] and labels[-1].endswith("/?"), (text, n, labels)
    assert cuts >= 3, cuts

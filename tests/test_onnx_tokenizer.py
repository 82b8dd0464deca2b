"""ui/browser_model/tokenizer.js, the tokenizer the browser runs, gives the same ids as our
SentencePiece model (model/tokenizer.py, SentencePiece's own C++) on a held-out list of more than
2,000 texts: the corpus's held-out sentences in both languages, a language model's held-out items,
and hostile strings (Chinese, emoji and their joiners, zero-width and control characters, markup,
full-width and compatibility characters NFKC rewrites, every kind of space, random code points).
Node runs the module (as the browser imports it) on the list; every text's ids are compared, and
so are the labels a chart shows (tokens and words) and the decoded text."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from data import corpus
from model.tokenizer import DEFAULT_PATH, Tokenizer

ROOT = Path(__file__).resolve().parents[1]
MODULE = ROOT / "ui" / "browser_model" / "tokenizer.js"
NODE = shutil.which("node")

HOSTILE = [
    "",
    " ",
    "   \t\n  ",
    "The  cat   sat\ton\nthe\r\nmat .",
    "  leading and trailing  ",
    "猫坐在垫子上。",
    "我 爱 你",
    "The cat 猫 sat on 垫子 the mat.",
    "😀",
    "😀😀 😀",
    "👩‍👩‍👧‍👦 family",
    "👍🏽 thumbs",
    "🇨🇳🇬🇧 flags",
    "a\u200bb\u200cc\u200dd\u2060e\ufeff",
    "\u200b\u200b\u200b",
    "zero\u200dwidth joiner",
    "<b>bold</b> & <i>italic</i> <script>alert(1)</script>",
    "<s> </s> <pad> <unk> <2en> <2zh> <0x41>",
    "**markdown** _under_ `code` [link](http://x.y) # title",
    "ＡＢＣ１２３ fullwidth",
    "ﬁ ﬂ ligatures ㎏ ㎞ ½ ² ℃ Ⅻ",
    "e\u0301 combining é vs é",
    "\u0000\u0001\u0007\u001b\u007f controls",
    "\u00a0\u2002\u2003\u2009\u3000 spaces",
    "line\u2028separator\u2029paragraph",
    "مرحبا بالعالم",
    "नमस्ते दुनिया",
    "Привет мир",
    "こんにちは世界 カタカナ",
    "안녕하세요",
    "12345 67.89 1,000,000",
    "\ufffd replacement",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 math",
    "\U0001f9d1\u200d\U0001f4bb coder",
    "x" * 300,
    "猫" * 200,
    "The cat sat on the mat. " * 40,
]

# code point ranges for random strings: ASCII, Latin-1, CJK, kana, Hangul, symbols, emoji, spaces
RANGES = [(0x20, 0x7E), (0xA0, 0xFF), (0x4E00, 0x4FFF), (0x3040, 0x30FF), (0xAC00, 0xAC7F), (0x2000, 0x206F),
          (0xFF00, 0xFFEF), (0x1F300, 0x1F64F), (0x0300, 0x036F), (0x3000, 0x303F)]  # fmt: skip


def random_texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 12)):
            lo, hi = rng.choice(RANGES)
            parts.append("".join(chr(rng.randint(lo, hi)) for _ in range(rng.randint(1, 6))))
            parts.append(rng.choice(["", " ", "  ", "\t", "\n"]))
        out.append("".join(parts))
    return out


def held_out_texts() -> list[str]:
    pairs = corpus.heldout_pairs(700, 2031)
    texts = [p.en for p in pairs] + [p.zh for p in pairs]
    texts += [text for _, text in corpus.gpt_items(400, 2031, "heldout")]
    return list(dict.fromkeys(texts + HOSTILE + random_texts(600, 2031)))  # each text once


def node_ids(texts: list[str], tmp_path: Path) -> list[list[int]]:
    cases = tmp_path / "texts.json"
    cases.write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")
    script = (
        "import { readFileSync } from 'node:fs';"
        f"import {{ Tokenizer }} from {json.dumps(MODULE.as_uri())};"
        f"const tok = new Tokenizer(readFileSync({json.dumps(str(DEFAULT_PATH))}));"
        f"const texts = JSON.parse(readFileSync({json.dumps(str(cases))}, 'utf8'));"
        "process.stdout.write(JSON.stringify(texts.map(t => tok.encode(t))));"
    )
    run = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout)


@pytest.mark.skipif(NODE is None, reason="needs node (scripts/test installs npm, which brings it)")
def test_the_browser_tokenizer_gives_sentencepieces_ids(tmp_path):
    texts = held_out_texts()
    assert len(texts) >= 2000
    tok = Tokenizer.load()
    want = [tok.encode(t) for t in texts]
    got = node_ids(texts, tmp_path)
    wrong = [(t, w, g) for t, w, g in zip(texts, want, got) if w != g]
    assert not wrong, f"{len(wrong)} of {len(texts)} differ, e.g. {wrong[:3]}"
    # the list reaches what it claims to: byte fallback, Chinese, several pieces a word
    byte_ids = {i for i in range(tok.vocab_size) if tok.sp.is_byte(i)}
    assert sum(any(i in byte_ids for i in ids) for ids in want) > 300
    assert sum(any("\u4e00" <= ch <= "\u9fff" for ch in t) for t in texts) > 1000


@pytest.mark.skipif(NODE is None, reason="needs node")
def test_the_browser_tokenizer_normalizes_as_sentencepiece(tmp_path):
    """normalize(): the text the model reads (NFKC and the nmt rules, spaces once, U+2581)."""
    texts = HOSTILE + random_texts(100, 7)
    cases = tmp_path / "texts.json"
    cases.write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")
    script = (
        "import { readFileSync } from 'node:fs';"
        f"import {{ Tokenizer }} from {json.dumps(MODULE.as_uri())};"
        f"const tok = new Tokenizer(readFileSync({json.dumps(str(DEFAULT_PATH))}));"
        f"const texts = JSON.parse(readFileSync({json.dumps(str(cases))}, 'utf8'));"
        "process.stdout.write(JSON.stringify(texts.map(t => tok.normalize(t))));"
    )
    run = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[-2000:]
    tok = Tokenizer.load()
    want = [tok.sp.normalize(t) for t in texts]
    assert json.loads(run.stdout) == want


def node_calls(calls: list[tuple[str, list[int]]], tmp_path: Path) -> list:
    """Each (method, ids) run on the browser's Tokenizer, in node."""
    cases = tmp_path / "calls.json"
    cases.write_text(json.dumps(calls), encoding="utf-8")
    script = (
        "import { readFileSync } from 'node:fs';"
        f"import {{ Tokenizer }} from {json.dumps(MODULE.as_uri())};"
        f"const tok = new Tokenizer(readFileSync({json.dumps(str(DEFAULT_PATH))}));"
        f"const calls = JSON.parse(readFileSync({json.dumps(str(cases))}, 'utf8'));"
        "process.stdout.write(JSON.stringify(calls.map(([m, ids]) => tok[m](ids))));"
    )
    run = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout)


@pytest.mark.skipif(NODE is None, reason="needs node")
def test_the_browser_labels_tokens_and_words_as_the_app_does(tmp_path):
    """labels / wordIds / wordLabels (what a chart's rows and columns say) equal Tokenizer.labels,
    word_ids and word_labels: on every held-out text's ids as the GPT and the translator read them
    (with <s>, <2zh> ... </s>), and on random id sequences, whose byte pieces often make no whole
    character (shown as the byte, "\\xF0")."""
    from model.tokenizer import BOS, EOS, TO_ZH

    tok = Tokenizer.load()
    rng = random.Random(5)
    sequences = []
    for text in held_out_texts():
        ids = tok.encode(text)
        sequences += [[BOS, *ids], [TO_ZH, *ids, EOS]]
    byte_ids = [i for i in range(tok.vocab_size) if tok.sp.is_byte(i)]
    for _ in range(500):
        pool = byte_ids if rng.random() < 0.5 else range(tok.vocab_size)
        sequences.append([rng.choice(pool) for _ in range(rng.randint(1, 20))])
    methods = {"labels": tok.labels, "wordIds": tok.word_ids, "wordLabels": tok.word_labels}
    calls = [(m, ids) for ids in sequences for m in methods]
    got = node_calls(calls, tmp_path)
    wrong = [(m, ids, g) for (m, ids), g in zip(calls, got) if g != methods[m](ids)]
    assert not wrong, (
        f"{len(wrong)} of {len(calls)} differ, e.g. {[(m, ids, g, methods[m](ids)) for m, ids, g in wrong[:3]]}"
    )
    shown = {lab for (m, _), g in zip(calls, got) if m == "labels" for lab in g}
    assert any(lab.startswith("\\x") for lab in shown) and any(" 1/4" in lab for lab in shown)
    assert any(lab.startswith("U+") for lab in shown)  # an invisible character named by its code point


@pytest.mark.skipif(NODE is None, reason="needs node")
def test_the_browser_decodes_as_sentencepiece(tmp_path):
    """decode (the translator's output in the browser) equals Tokenizer.decode on every held-out
    text's ids and on random id sequences (specials, lone spaces, bytes of no whole character)."""
    tok = Tokenizer.load()
    rng = random.Random(11)
    sequences = [tok.encode(t) for t in held_out_texts()]
    byte_ids = [i for i in range(tok.vocab_size) if tok.sp.is_byte(i)]
    for _ in range(500):
        pool = byte_ids if rng.random() < 0.4 else range(tok.vocab_size)
        sequences.append([rng.choice(pool) for _ in range(rng.randint(1, 20))])
    got = node_calls([("decode", ids) for ids in sequences], tmp_path)
    wrong = [(ids, g, tok.decode(ids)) for ids, g in zip(sequences, got) if g != tok.decode(ids)]
    assert not wrong, f"{len(wrong)} of {len(sequences)} differ, e.g. {wrong[:3]}"
    assert sum("\ufffd" in g for g in got) > 50  # bytes of no whole character were decoded too

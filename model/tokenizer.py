"""One SentencePiece vocabulary for English and Chinese, trained on the corpus.

Every corpus word is exactly one piece ("▁cat", "猫", "垫子"), so a chart of tokens is a chart
of words for corpus text; anything else (emoji, Arabic, unknown characters) still encodes
without <unk>, through byte fallback, and ``labels`` shows those bytes as the character they
belong to ("😀 1/4" ... "😀 4/4").

Fixed ids (models rely on them): PAD=0 <pad>, UNK=1 <unk>, BOS=2 <s>, EOS=3 </s>,
TO_EN=4 <2en>, TO_ZH=5 <2zh> (the direction token a translator's decoder starts with).
Rebuild the shipped file with: python -m model train tokenizer
"""

from __future__ import annotations

import io
import os
import re
import unicodedata
from pathlib import Path

import sentencepiece as spm

from data.text import is_cjk

__all__ = [
    "PAD",
    "UNK",
    "BOS",
    "EOS",
    "TO_EN",
    "TO_ZH",
    "SPECIALS",
    "DEFAULT_PATH",
    "REBUILD_COMMAND",
    "VOCAB_SIZE",
    "Tokenizer",
    "train",
    "train_default",
]

PAD, UNK, BOS, EOS, TO_EN, TO_ZH = 0, 1, 2, 3, 4, 5
SPECIALS: dict[int, str] = {PAD: "<pad>", UNK: "<unk>", BOS: "<s>", EOS: "</s>", TO_EN: "<2en>", TO_ZH: "<2zh>"}
_SP_ROLES = {"pad": PAD, "unk": UNK, "bos": BOS, "eos": EOS}  # SentencePiece's names for them
DEFAULT_PATH = Path(__file__).resolve().parent / "weights" / "tokenizer.model"
REBUILD_COMMAND = "python -m model train tokenizer"
VOCAB_SIZE = 1400  # smallest round size at which every corpus word is one piece
TRAIN_PAIRS = 40_000  # corpus pairs (both languages) the shipped tokenizer is trained on

_SPACE = "\u2581"  # ▁, SentencePiece's word-start marker
_BYTE = re.compile(r"^<0x([0-9A-Fa-f]{2})>$")
_DELIM = "\ue000"  # training-only: pieces never cross it (private use, not in corpus)


def _visible(ch: str) -> str:
    """A character as a label: itself if it can be seen, else its code point; a combining mark
    (an accent written over the character before it) on a dotted circle, as Unicode shows it."""
    cat = unicodedata.category(ch)
    if cat[0] in "CZ" and ch != " ":
        return f"U+{ord(ch):04X}"
    return f"\u25cc{ch}" if cat[0] == "M" else ch


def _word_label(w: str) -> str:
    t = w.strip()
    if not t:
        return "\u2423"  # ␣
    if all(unicodedata.category(c)[0] in "CZ" for c in t):
        return " ".join(_visible(c) for c in t)  # only invisible characters: name them
    return t


class Tokenizer:
    """A loaded SentencePiece model with readable labels. Use ``Tokenizer.load()``."""

    def __init__(self, sp: spm.SentencePieceProcessor, path: Path | None = None) -> None:
        self.sp = sp
        self.path = path
        n = sp.get_piece_size()
        self._pieces = [sp.id_to_piece(i) for i in range(n)]
        self._byte = [None] * n
        for i, p in enumerate(self._pieces):
            if sp.is_byte(i):
                self._byte[i] = int(_BYTE.match(p).group(1), 16)

    # ---------------------------------------------------------------- loading
    @classmethod
    def load(cls, path: str | os.PathLike | None = DEFAULT_PATH) -> "Tokenizer":
        """Load a .model file (None: the shipped one). Missing: FileNotFoundError; corrupt or
        not one of ours: ValueError; both name the file and the command that rebuilds it."""
        path = Path(DEFAULT_PATH if path is None else path)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise FileNotFoundError(f"tokenizer file {path} not found; rebuild it with: {REBUILD_COMMAND}") from None
        except OSError as e:
            raise FileNotFoundError(
                f"tokenizer file {path} cannot be read ({e}); rebuild it with: {REBUILD_COMMAND}"
            ) from None
        try:
            return cls.from_bytes(data, path)
        except ValueError as e:
            raise ValueError(f"tokenizer file {path} is not usable ({e}); rebuild it with: {REBUILD_COMMAND}") from None

    @classmethod
    def from_bytes(cls, data: bytes, path: Path | None = None) -> "Tokenizer":
        sp = spm.SentencePieceProcessor()
        try:
            sp.LoadFromSerializedProto(data)
        except Exception as e:  # sentencepiece raises RuntimeError / OSError
            raise ValueError(f"not a SentencePiece model: {e}") from None
        n = sp.get_piece_size()
        if n <= len(SPECIALS):
            raise ValueError("model has no vocabulary")
        for i, name in SPECIALS.items():
            if sp.id_to_piece(i) != name:
                raise ValueError(f"id {i} is {sp.id_to_piece(i)!r}, expected {name!r}")
        if not any(sp.is_byte(i) for i in range(n)):
            raise ValueError("model was trained without byte fallback")
        return cls(sp, path)

    # ---------------------------------------------------------------- basics
    @property
    def vocab_size(self) -> int:
        return len(self._pieces)

    def normalize(self, text: str) -> str:
        """The text as the model sees it (NFKC, control characters dropped, runs of spaces
        collapsed, no leading/trailing space): decode(encode(x)) == normalize(x)."""
        return self.sp.normalize(text).replace(_SPACE, " ")

    def encode(self, text: str) -> list[int]:
        """Ids of ``text``, no specials added (never UNK: unknown characters become bytes)."""
        return list(self.sp.encode(text))

    def decode(self, ids) -> str:
        """Text of ``ids``; specials (ids 0-5) are skipped."""
        ids = [int(i) for i in ids]
        for i in ids:
            if not 0 <= i < len(self._pieces):
                raise ValueError(f"token id {i} out of range 0..{len(self._pieces) - 1}")
        return self.sp.decode([i for i in ids if i not in SPECIALS])

    def pieces(self, ids) -> list[str]:
        """Raw SentencePiece pieces ("▁cat", "<0xF0>", "<s>")."""
        return [self._pieces[int(i)] for i in ids]

    def is_ordinary(self, i: int) -> bool:
        """A piece of text: not one of the specials (ids 0-5), not a byte piece ("<0xF0>")."""
        i = int(i)
        return len(SPECIALS) <= i < len(self._pieces) and self._byte[i] is None

    def piece_bytes(self, i: int) -> bytes | None:
        """The byte a byte piece ("<0xF0>") stands for, else None (model/written.py)."""
        b = self._byte[int(i)] if 0 <= int(i) < len(self._byte) else None
        return None if b is None else bytes([b])

    # ---------------------------------------------------------------- readable labels
    def _surfaces(self, ids) -> list[tuple[str, str, bool]]:
        """Per token: (label, text it stands for, starts a new word)."""
        ids = [int(i) for i in ids]
        n = len(ids)
        out: list[tuple[str, str, bool]] = []
        prev = ""  # last character of the text so far ("" at the start / after a special)
        blank = False  # the current word is only a space so far (a lone "▁" piece)

        def push(label: str, text: str, new: bool, cjk: bool) -> None:
            nonlocal prev, blank
            if not out:
                new = True
            elif cjk and blank:
                new = False  # "▁" then 猫: one word, not an empty one
            elif cjk or (prev != "" and is_cjk(prev)):
                new = True
            out.append((label, text, new))
            blank = text.isspace() if new else blank and text.isspace()
            prev = text[-1:] or prev

        k = 0
        while k < n:
            i = ids[k]
            if not 0 <= i < len(self._pieces):
                raise ValueError(f"token id {i} out of range 0..{len(self._pieces) - 1}")
            if i in SPECIALS:
                out.append((SPECIALS[i], SPECIALS[i], True))
                prev, blank = "", False
                k += 1
                continue
            after_special = not out or ids[k - 1] in SPECIALS
            b = self._byte[i]
            if b is None:
                piece = self._pieces[i]
                text = piece.replace(_SPACE, " ")
                push(text.strip() or "\u2423", text, after_special or piece.startswith(_SPACE), is_cjk(text[:1] or " "))
                k += 1
                continue
            # a run of byte pieces: group them into UTF-8 characters
            need = 1 if b < 0x80 else 2 if 0xC0 <= b < 0xE0 else 3 if 0xE0 <= b < 0xF0 else 4 if 0xF0 <= b < 0xF8 else 0
            group = [b]
            j = k + 1
            while (
                0 < need
                and len(group) < need
                and j < n
                and 0 <= ids[j] < len(self._byte)
                and self._byte[ids[j]] is not None
                and 0x80 <= self._byte[ids[j]] < 0xC0
            ):
                group.append(self._byte[ids[j]])
                j += 1
            ch = None
            if need and len(group) == need:
                try:
                    ch = bytes(group).decode("utf-8")
                except UnicodeDecodeError:
                    ch = None
            if ch is None:  # not a whole character: show the byte
                push(f"\\x{b:02X}", f"\\x{b:02X}", after_special, False)
                k += 1
                continue
            shown = _visible(ch)
            for m in range(len(group)):
                label = shown if len(group) == 1 else f"{shown} {m + 1}/{len(group)}"
                if m == 0:
                    push(label, ch, after_special, is_cjk(ch))
                else:
                    out.append((label, "", False))
            k += len(group)
        return out

    def labels(self, ids) -> list[str]:
        """One readable label per token: the word without the ▁ marker ("cat"), specials as
        "<s>", byte-fallback pieces as their character and byte index ("😀 1/4"), a lone
        space piece as "␣", a byte that is not part of a whole character as "\\xF0"."""
        return [lab for lab, _, _ in self._surfaces(ids)]

    def word_ids(self, ids) -> list[int]:
        """Each token's word index: a piece starting with ▁ starts a word, the bytes of one
        character stay together, each special is its own word, and each Chinese (CJK) piece
        or character is its own word. Other pieces ("." after "mat") join the word before."""
        out, w = [], -1
        for _, _, new in self._surfaces(ids):
            w += 1 if new else 0
            out.append(max(w, 0))
        return out

    def word_labels(self, ids) -> list[str]:
        """One label per word of ``word_ids`` ("mat.", "垫子", "😀", "<s>")."""
        words: list[str] = []
        for _, surf, new in self._surfaces(ids):
            if new or not words:
                words.append(surf)
            else:
                words[-1] += surf
        return [_word_label(w) for w in words]

    def __repr__(self) -> str:
        return f"Tokenizer(vocab_size={self.vocab_size}, path={str(self.path)!r})"


# -------------------------------------------------------------------- training


def _pretokenize(text: str, zh_words: frozenset[str], maxlen: int) -> str:
    """Mark corpus word boundaries the text itself does not show, so learned pieces never
    span two words: Chinese runs segmented by longest match over the corpus words, and
    punctuation split from the word it is attached to ("mat." -> "mat" | ".")."""
    from data.corpus import segment_zh

    text = text.replace(_DELIM, "")
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if is_cjk(ch):
            j = i
            while j < len(text) and is_cjk(text[j]):
                j += 1
            out.extend(_DELIM + w + _DELIM for w in segment_zh(text[i:j], zh_words, maxlen))
            i = j
        elif not (ch.isalnum() or ch.isspace()):
            out.append(_DELIM + ch + _DELIM)
            i += 1
        else:
            out.append(ch)
            i += 1
    s = re.sub(_DELIM + "+", _DELIM, "".join(out))
    s = re.sub(rf"{_DELIM}?(\s+){_DELIM}?", r"\1", s)
    return s.strip(_DELIM)


def train(texts, out_path: str | os.PathLike, vocab_size: int = VOCAB_SIZE) -> None:
    """Train the tokenizer on ``texts`` (English and Chinese strings) and write the .model to
    ``out_path`` atomically (temp file + os.replace: a failed run leaves the old file)."""
    from data import corpus

    texts = [t for t in texts if isinstance(t, str) and t.strip()]
    if not texts:
        raise ValueError("no texts to train the tokenizer on")
    zh_words = corpus.ZH_VOCAB
    maxlen = max(len(w) for w in zh_words)
    pre = [_pretokenize(t, zh_words, maxlen) for t in texts]
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(pre),
        model_writer=buf,
        model_type="bpe",
        vocab_size=vocab_size,
        hard_vocab_limit=False,
        character_coverage=1.0,
        byte_fallback=True,
        pretokenization_delimiter=_DELIM,
        normalization_rule_name="nmt_nfkc",
        add_dummy_prefix=False,
        remove_extra_whitespaces=True,
        split_digits=True,
        # SentencePiece's own four specials at the ids and with the pieces SPECIALS fixes
        **{f"{role}_{field}": v for role, i in _SP_ROLES.items() for field, v in (("id", i), ("piece", SPECIALS[i]))},
        control_symbols=[SPECIALS[TO_EN], SPECIALS[TO_ZH]],
        input_sentence_size=0,
        shuffle_input_sentence=False,
        num_threads=1,
        minloglevel=2,
    )
    data = buf.getvalue()
    Tokenizer.from_bytes(data)  # refuse to write something that will not load
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_path.with_name(f".{out_path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, out_path)
    finally:
        if tmp.exists():
            tmp.unlink()


def train_default(out_path: str | os.PathLike = DEFAULT_PATH, seed: int = 0) -> Path:
    """Train the shipped tokenizer: TRAIN_PAIRS training pairs of the corpus (held-out
    sentences excluded), both languages. Deterministic; about a few seconds."""
    from data import corpus

    pairs = corpus.train_pairs(TRAIN_PAIRS, seed)
    train([p.en for p in pairs] + [p.zh for p in pairs], out_path)
    return Path(out_path)

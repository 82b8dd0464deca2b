"""A Hugging Face tokenizer with the interface of ours: labels a reader can see (byte-level BPE
pieces turned back into text), word ids and word labels."""

from __future__ import annotations

import re
import unicodedata


# -- labels ------------------------------------------------------------------------------------------
def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte-level alphabet: every byte as a printable character (Ġ is the space)."""
    bs = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


_UNBYTE = {c: b for b, c in _bytes_to_unicode().items()}
_FALLBACK = re.compile(r"<0x([0-9A-Fa-f]{2})>")  # a byte-fallback piece (SentencePiece, Gemma)


def _unfinished(raw: bytes) -> str | None:
    """The text before a character cut before its end, where raw is whole characters (maybe none)
    and then the start of one more (a lead byte announcing more bytes than follow it); else None."""
    for cut in range(len(raw) - 1, max(len(raw) - 4, -1), -1):
        lead, tail = raw[cut], raw[cut + 1 :]
        need = 2 if 0xC2 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF else 4 if 0xF0 <= lead <= 0xF4 else 0
        if need and len(tail) + 1 < need and all(0x80 <= b <= 0xBF for b in tail):
            try:
                return raw[:cut].decode("utf-8")
            except UnicodeDecodeError:
                return None
    return None


def _character_pieces(first: str, rest: str, of: str, text: str, n: int, after_special: bool) -> list:
    """The (label, text, starts a word) of n pieces of one character: "猫 1/3", "猫 2/3", ... (the
    first piece labelled first, the others rest), the character's text on the first piece only."""
    return [
        (
            f"{first if m == 0 else rest} {m + 1}/{of}",
            text if m == 0 else "",
            m == 0 and (text[:1].isspace() or after_special),
        )
        for m in range(n)
    ]


def _visible(text: str) -> str:
    """A label: the text without its leading space; a space as ␣, a newline as ↵, other
    invisible characters as their code point, a leading combining mark on ◌."""
    t = text.strip()
    if t:
        # a label that starts with a combining mark (an accent over the character before it) puts
        # it on a dotted circle, as Unicode shows it: alone it would sit on the label's neighbour
        lead = "\u25cc" if unicodedata.category(t[0])[0] == "M" else ""
        return lead + "".join(c if unicodedata.category(c)[0] not in "CZ" or c == " " else f"U+{ord(c):04X}" for c in t)
    if "\n" in text:
        return "↵"
    return "␣" if text else "∅"


class HFTokenizer:
    """A transformers tokenizer with our Tokenizer's label methods.

    Pieces are cleaned per scheme: WordPiece's ## (continues a word), byte-level BPE's Ġ (a space:
    starts a word) and Ċ (newline), SentencePiece's ▁ (starts a word); a character split over
    several byte-level pieces is shown as "😀 1/2", "😀 2/2". Special tokens keep their name
    ("[CLS]", "</s>") and get word id -1, so a view can tell them apart and word merging keeps
    each on its own.
    """

    def __init__(self, tok):
        self.tok = tok
        # [UNK] stands for a word of the text, so it is not "special" here
        self.special_ids = set(tok.all_special_ids) - {tok.unk_token_id}
        self.vocab_size = len(tok)
        backend = getattr(tok, "backend_tokenizer", None)
        model_kind = type(backend.model).__name__ if backend is not None else ""
        self.wordpiece = (
            model_kind == "WordPiece"
            or "wordpiece" in type(tok).__name__.lower()
            or type(tok).__name__.startswith(("Bert", "DistilBert", "Electra"))
        )
        self.byte_level = backend is not None and "ByteLevel" in repr(backend.decoder)
        self.byte_fallback = backend is not None and "ByteFallback" in repr(backend.decoder)
        self._bytes: dict[int, bytes | None] = {}

    def is_ordinary(self, i: int) -> bool:
        """Not a special token ([UNK] counts as ordinary: it stands for a word of the text)."""
        return 0 <= int(i) < self.vocab_size and int(i) not in self.special_ids

    # ids <-> text
    def encode(self, text: str) -> list[int]:
        return list(self.tok.encode(text, add_special_tokens=False))

    def decode(self, ids) -> str:
        return self.tok.decode(
            [int(i) for i in ids], skip_special_tokens=True, clean_up_tokenization_spaces=False
        ).strip()

    def pieces(self, ids) -> list[str]:
        return list(self.tok.convert_ids_to_tokens([int(i) for i in ids]))

    def _piece_bytes(self, p: str | None) -> bytes | None:
        if not p:
            return None
        if self.byte_level and all(c in _UNBYTE for c in p):
            return bytes(_UNBYTE[c] for c in p)
        m = _FALLBACK.fullmatch(p) if self.byte_fallback else None
        return bytes([int(m.group(1), 16)]) if m else None

    def piece_bytes(self, i: int) -> bytes | None:
        """The bytes a token stands for when it is a byte piece (byte-level BPE: every ordinary
        token; byte fallback: "<0xE5>"), else None (a special token, a SentencePiece word)."""
        i = int(i)
        if i not in self._bytes:
            self._bytes[i] = None if i in self.special_ids else self._piece_bytes(self.pieces([i])[0])
        return self._bytes[i]

    # per token: (label, text it stands for, starts a word)
    def _surfaces(self, ids) -> list[tuple[str, str, bool]]:
        ids = [int(i) for i in ids]
        pieces = self.pieces(ids)
        out: list[tuple[str, str, bool]] = []
        k = 0
        while k < len(ids):
            i, p = ids[k], pieces[k] if pieces[k] is not None else ""
            after_special = k == 0 or ids[k - 1] in self.special_ids
            if i in self.special_ids:
                out.append((p, "", True))
                k += 1
                continue
            raw = self._piece_bytes(p)
            if raw is not None:
                try:
                    text = raw.decode("utf-8")
                    out.append((_visible(text), text, text[:1].isspace() or after_special))
                    k += 1
                    continue
                except UnicodeDecodeError:
                    pass
                # a character split over pieces: take pieces until the bytes decode
                group, buf = [k], raw
                j = k + 1
                text = None
                while j < len(ids) and len(group) < 4 and ids[j] not in self.special_ids:
                    more = self._piece_bytes(pieces[j])
                    if more is None:
                        break
                    buf += more
                    group.append(j)
                    j += 1
                    try:
                        text = buf.decode("utf-8")
                        break
                    except UnicodeDecodeError:
                        continue
                head = _unfinished(buf) if text is None and j == len(ids) else None
                if head is not None:
                    # the text ends inside a character (a model stopped writing mid-way): its pieces
                    # so far, labelled as parts of a character still to come, never as raw bytes
                    first = (_visible(head) if head else "") + "\u2026"
                    out += _character_pieces(first, "\u2026", "?", head, len(group), after_special)
                    k = j
                    continue
                if text is None:
                    out.append((" ".join(f"\\x{b:02X}" for b in raw), "", after_special))
                    k += 1
                    continue
                shown = _visible(text)
                out += _character_pieces(shown, shown, str(len(group)), text, len(group), after_special)
                k = j
                continue
            if self.wordpiece and p.startswith("##"):
                out.append((_visible(p[2:]), p[2:], False))
            elif p.startswith("▁"):
                text = " " + p[1:]
                out.append((_visible(text), text, True))
            else:
                # WordPiece pieces without ## start a word; SentencePiece pieces without ▁ continue one
                out.append((_visible(p), p, self.wordpiece or after_special))
            k += 1
        return out

    def labels(self, ids) -> list[str]:
        return [label for label, _, _ in self._surfaces(ids)]

    def word_ids(self, ids, words=None) -> list[int]:
        """Each token's word index (-1 for special tokens). ``words``: the tokenizer's own
        word_ids() for these ids when the text was encoded (None entries are specials)."""
        ids = [int(i) for i in ids]
        if words is not None and len(words) == len(ids):
            return [-1 if w is None or i in self.special_ids else int(w) for w, i in zip(words, ids)]
        out, w = [], -1
        for i, (_, _, new) in zip(ids, self._surfaces(ids)):
            if i in self.special_ids:
                out.append(-1)
                continue
            w += 1 if new or w < 0 else 0
            out.append(w)
        return out

    def word_labels(self, ids, words=None) -> list[str]:
        """One label per word group of word_ids (a special token is a group of its own)."""
        ids = [int(i) for i in ids]
        wids = self.word_ids(ids, words)
        labels = self.labels(ids)
        groups: list[list[int]] = []
        prev = None
        for k, w in enumerate(wids):
            if w < 0 or w != prev:
                groups.append([k])
            else:
                groups[-1].append(k)
            prev = w if w >= 0 else None
        out = []
        for g in groups:
            if len(g) == 1 and (ids[g[0]] in self.special_ids):
                out.append(labels[g[0]])
                continue
            text = self.tok.decode([ids[k] for k in g], skip_special_tokens=False, clean_up_tokenization_spaces=False)
            out.append(_visible(text) if "\ufffd" not in text else "".join(labels[k] for k in g))
        return out

    def __repr__(self):
        return f"HFTokenizer({type(self.tok).__name__}, vocab_size={self.vocab_size})"


# what a converted folder's tokenizer_config.json says that the tokenizer itself does not hold
_CONFIG_KEYS = (
    "bos_token",
    "eos_token",
    "unk_token",
    "pad_token",
    "mask_token",
    "sep_token",
    "cls_token",
    "model_max_length",
    "add_bos_token",
    "add_eos_token",
)


def from_file(folder):
    """transformers' tokenizer of a folder whose tokenizer.json is the whole tokenizer (the real
    models' converted folders, model/hf/pretrained.py), built from that file by the tokenizers
    library alone. AutoTokenizer parses the file in Python twice more and a model's own class may
    rebuild it from its vocabulary and merges (GemmaTokenizer: 262,144 tokens and 514,906 merges);
    the tokens, ids and special tokens are the same (tests/test_gguf_convert.py compares them on
    every real model)."""
    import json
    from pathlib import Path

    from transformers import TokenizersBackend

    folder = Path(folder)
    config = json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    kwargs = {k: config[k] for k in _CONFIG_KEYS if k in config}
    return TokenizersBackend(tokenizer_file=str(folder / "tokenizer.json"), name_or_path=str(folder), **kwargs)


def merges_as_text(path, tokenizer) -> bool:
    """Rewrite the BPE merges of tokenizer.json at path from pairs (["a", "b"], what tokenizers
    writes) to the "a b" strings it also reads, where no piece is empty or holds a space (else a
    string would be ambiguous), and only if the file then parses to the same tokenizer as
    `tokenizer` (the tokenizers.Tokenizer the file was saved from): their serializations, every
    field, compared. Returns whether it rewrote the file; else the file is left as it was.

    For the converted folders' quick start (model/hf/pretrained.py): tokenizers reads a model
    through a generic value first and then into its BPE, so each pair is an array of two strings
    built twice over, a string one string. Gemma's 514,906 merges: the file parses in 0.59 s of CPU
    instead of 0.78 s (docs/hf.md). transformers' own tokenizer classes read both forms."""
    import json
    from pathlib import Path

    from tokenizers import Tokenizer

    path = Path(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    model = data.get("model") or {}
    merges = model.get("merges")
    if model.get("type") != "BPE" or not merges or not all(isinstance(m, list) and len(m) == 2 for m in merges):
        return False
    if any(not piece or " " in piece for pair in merges for piece in pair):
        return False
    model["merges"] = [f"{a} {b}" for a, b in merges]
    rewritten = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    try:
        raw = rewritten.encode("utf-8")  # a lone surrogate in a piece cannot be written back
    except UnicodeEncodeError:
        return False
    if Tokenizer.from_str(rewritten).to_str() != tokenizer.to_str():
        return False
    path.write_bytes(raw)
    return True

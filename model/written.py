"""Labels of the tokens a model writes (a row's most likely next token, a list of candidates),
read after the text they follow.

A tokenizer with byte pieces (our SentencePiece's <0xE5>, byte-level BPE's "å°", Gemma's byte
fallback) splits a rare character over several tokens: 小 is "\\xE5 \\xB0" then "\\x8F" on
SmolLM2. Labelled alone such a token shows bytes. Read where it stands, it is a piece of one
character, and its label says which, as the sentence's own tokens do ("小 1/2", "小 2/2"):

- a piece that continues a character the text left open finishes (or goes on with) that
  character: the text's last pieces say which;
- a piece that opens a character needs the pieces that follow it: the model's own next tokens
  (greedy, as it would write them). For a row's written token those are often free: where the
  text goes on as the model wrote, the next row wrote the next piece; otherwise the model runs
  once more per missing piece (``extend``). A piece whose character stays open after
  MAX_FOLLOW more pieces keeps its bytes.

Tokenizers give ``labels(ids)`` (a sequence's labels, byte pieces grouped into characters) and
``piece_bytes(id)`` (the raw bytes of a byte piece, else None).
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Sequence

MAX_FOLLOW = 3  # a UTF-8 character has at most 4 bytes: at most 3 pieces after the first
TAIL = 3  # pieces of the text before a candidate that can share its character


def open_bytes(tok, ids: Sequence[int]) -> bytes:
    """The bytes of the character the sequence ends inside ("" when it ends on a whole one)."""
    run = b""
    for i in reversed(list(ids)[-(TAIL + 1) :]):
        b = tok.piece_bytes(int(i))
        if b is None:
            break
        run = b + run
    dec = codecs.getincrementaldecoder("utf-8")("replace")
    dec.decode(run, final=False)
    return dec.getstate()[0]


def next_labels(tok, context: Sequence[int], candidates: Sequence[int], follow=None) -> list[str]:
    """Each candidate's label as the token after ``context``. ``follow``: {candidate: the ids
    that come after it} for candidates that open a character (see follow_ids)."""
    tail = [int(i) for i in context][-TAIL:]
    follow = follow or {}
    out = []
    for c in candidates:
        seq = [*tail, int(c), *follow.get(int(c), ())]
        out.append(tok.labels(seq)[len(tail)])
    return out


def follow_ids(tok, context, candidates, extend: Callable[[list[list[int]]], list[int | None]]) -> dict[int, list[int]]:
    """{candidate: the model's greedy next ids until its character closes} for the candidates
    that leave a character open after ``context``. extend(prefixes) -> the next id after each (None
    where the model has no position left for one: that character stays open)."""
    context = [int(i) for i in context]
    pending = {int(c): [] for c in candidates if open_bytes(tok, [*context[-TAIL:], int(c)])}
    return _run(tok, {c: (context, [c]) for c in pending}, extend)


def _run(tok, pending: dict, extend) -> dict:
    """Greedy rounds for {key: (context, written so far)}: {key: what followed the first id}."""
    done = {k: seq[1:] for k, (_, seq) in pending.items()}
    for _ in range(MAX_FOLLOW):
        live = {k: (ctx, seq) for k, (ctx, seq) in pending.items() if open_bytes(tok, [*ctx[-TAIL:], *seq])}
        if not live:
            break
        nxt = extend([[*ctx, *seq] for ctx, seq in live.values()])
        pending = {}
        for (k, (ctx, seq)), n in zip(live.items(), nxt):
            if n is None:  # no room for another token (the model's last position): the character stays open
                continue
            seq.append(int(n))
            done[k] = seq[1:]
            pending[k] = (ctx, seq)
    return done


def written_labels(tok, ids: Sequence[int], written: Sequence[int], extend=None) -> list[str]:
    """Labels of the token each row writes: row i read ids[: i + 1] and wrote written[i].
    Where the text goes on as row i wrote, row i + 1 wrote the next piece; the rest comes from
    extend(prefixes) (None: such pieces keep their bytes)."""
    ids, written = [int(i) for i in ids], [int(w) for w in written]
    follow: dict[int, tuple[list[int], list[int]]] = {}
    for i, w in enumerate(written):
        ctx, seq = ids[: i + 1], [w]
        while open_bytes(tok, [*ctx[-TAIL:], *seq]) and len(seq) <= MAX_FOLLOW:
            k = len(seq)
            if i + k < len(written) and ids[i + 1 : i + 1 + k] == seq:
                seq.append(written[i + k])  # the text read what row i wrote: the next row goes on
            else:
                break
        if len(seq) > 1 or open_bytes(tok, [*ctx[-TAIL:], *seq]):
            follow[i] = (ctx, seq)
    more = (
        _run(tok, {i: v for i, v in follow.items() if open_bytes(tok, [*v[0][-TAIL:], *v[1]])}, extend)
        if extend
        else {}
    )
    out = []
    for i, w in enumerate(written):
        after = more.get(i, follow[i][1][1:] if i in follow else [])
        out.append(next_labels(tok, ids[: i + 1], [w], {w: after})[0])
    return out

"""Which sentence B and which view the compare page opens on (issue 37, item 6): a default pair
whose difference map B - A shows something (cat / dog on the mean of the last layer's heads is
+-0.05 at most on the translator: a map of zeros).

The rule: of the candidate sentences, in order (a noun swapped, so both runs read the same
positions; then the page's known pair), the first where some view shows |B - A| >= VISIBLE, on the
view where it is largest: first the mean of a layer's heads (over every attention kind and
layer), else one head. With none, the candidate and view with the largest difference. The measured
cell goes with it, so the page can say what changed and where."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .intervene import align

VISIBLE = 0.10  # a B - A cell at least this large shows on the diverging scale


@dataclass(frozen=True)
class Pair:
    b: str
    how: tuple  # ("pair",), ("swap", old, new) or ("fallback",): a fixed sentence, not A's pair
    change: float  # B - A at the largest cell, signed
    kind: str
    layer: int  # 0-based
    head: int | None  # None: the mean of the layer's heads
    row: str
    key: str


def views(trace_a, trace_b):
    """(kind, layer, head, B - A) for every view both traces have: each layer's mean of heads
    first, then each head."""
    kinds = [k for k in trace_a.attention if k in trace_b.attention]
    means, heads = [], []
    for kind in kinds:
        att_a, att_b = trace_a.attention[kind], trace_b.attention[kind]
        n_l, n_h = min(att_a.num_layers, att_b.num_layers), min(att_a.num_heads, att_b.num_heads)
        wa, wb, _, _ = align(att_a.weights[:n_l, :n_h], att_b.weights[:n_l, :n_h])
        d = wb.astype(np.float64) - wa.astype(np.float64)
        for la in range(n_l):
            means.append((kind, la, None, d[la].mean(axis=0)))
            heads += [(kind, la, h, d[la, h]) for h in range(n_h)]
    return means, heads


def largest(views_) -> tuple:
    """The view and cell with the largest |B - A|: (|change|, change, kind, layer, head, row, key)."""
    best = None
    for kind, la, h, d in views_:
        r, k = (int(x) for x in np.unravel_index(int(np.abs(d).argmax()), d.shape))
        cand = (abs(float(d[r, k])), float(d[r, k]), kind, la, h, r, k)
        if best is None or cand[0] > best[0]:
            best = cand
    return best


def choose(trace_of, text: str, candidates: list[tuple[str, tuple]]) -> Pair | None:
    """The rule above; trace_of(sentence) is the model's trace (or raises for a sentence it refuses)."""
    a = trace_of(text)
    best = None
    for b, how in candidates:
        if b == text:
            continue
        try:
            tb = trace_of(b)
        except Exception:  # a sentence this model refuses is no candidate
            continue
        means, heads = views(a, tb)
        found = largest(means)
        if found[0] < VISIBLE:
            found = max(found, largest(heads), key=lambda c: c[0])
        size, change, kind, la, h, r, k = found
        att = a.attention[kind]
        pair = Pair(b, how, change, kind, la, h, str(att.query_tokens[r]), str(att.key_tokens[k]))
        if size >= VISIBLE:
            return pair
        if best is None or abs(change) > abs(best.change):
            best = pair
    return best

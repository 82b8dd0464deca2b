"""The attention view's payload: one attention kind's weights, mask and labels packed into one
bytes object for the browser component (ui/attention_view). Pure: arrays in, bytes out.

Layout: b"AVW1", a little-endian uint32 n, n bytes of UTF-8 JSON (the header), zero padding to a
multiple of 4, then the arrays the header's "arrays" entry lists, each at its byte offset from
the end of the padding: float32 weights (exact: the browser recomputes softmax(log w / T) from
them), uint8 mask and uint8 pooled thumbnails. Further sources (another run's weights beside the
first: compare's B, the temperature page's model re-run at T) travel as s<i>w<layer> and
s<i>mask, i from 1, described by the header's "sources"; the page's "panels" (its meta) say what
each heatmap of a row of heatmaps draws from them (difference() is the B - A a panel draws). Streamlit 1.67's components v2 forwards a bytes
`data` to the JavaScript as one Uint8Array (raw bytes are only allowed at the top level of data,
so the labels travel in the same blob rather than beside it).
"""

from __future__ import annotations

import json
import struct

import numpy as np

from analysis.experiments import softmax_at
from viz.model_view import pool

MAGIC = b"AVW1"
THUMB = 48  # px: each model-view thumbnail is pooled to at most THUMB x THUMB cells
# Float32 weights of every layer (and every other source's) up to this many bytes; above, only
# the shown layer travels and choosing another layer asks the server. 2 MiB holds every layer of
# each of our models at its longest (128 tokens: 3 x 4 heads, 0.75 MiB) twice over (compare's A and
# B), so their layer choice stays in the browser; a real model or a longer trace sends its shown
# layer (SmolLM2 at 128 tokens: 0.59 MB, where every layer would be 17.7 MB for each new sentence,
# on a class's shared network). The model view always has every head from the thumbnails.
FULL_BUDGET = 2 * 2**20


def layers_to_send(shape, layer: int, budget: int = FULL_BUDGET, extra_bytes: int = 0) -> list[int]:
    """Every layer while the weights (and extra_bytes: the other sources' weights) fit the budget,
    else the shown layer."""
    n_layers, n_heads, q, k = shape
    if n_layers * n_heads * q * k * 4 + extra_bytes <= budget:
        return list(range(n_layers))
    return [layer]


def thumbnails(weights: np.ndarray, mask: np.ndarray | None, size: int = THUMB) -> tuple[np.ndarray, tuple]:
    """(L, H, tq, tk) uint8 (0..250 = weight 0..1 on the shared colour scale's range; 255 = a block
    that is masked everywhere), pooled by max so a one-token diagonal stays visible."""
    pooled, allowed = pool(weights, size, mask, "max")
    idx = np.round(np.clip(pooled, 0.0, 1.0) * 250).astype(np.uint8)
    idx[..., ~allowed] = 255
    return idx, pooled.shape[-2:]


def pack(
    weights: np.ndarray,
    mask: np.ndarray | None,
    meta: dict,
    layer: int,
    budget: int = FULL_BUDGET,
    sources: tuple | list = (),
) -> bytes:
    """The payload for one kind. weights: (L, H, Q, K) float32; mask: (Q, K) bool or None;
    meta: JSON-able labels, strings and view (its "view" entry names the layer shown first).
    sources: further runs, each a dict with "weights" (L, H, Q', K') and "mask" (as above) and
    JSON-able labels ("q_labels", "k_tokens"); every layer of every source travels while all of
    them fit the budget together, else the shown layer of each."""
    weights = np.ascontiguousarray(weights, dtype=np.float32)
    n_layers, n_heads, q, k = weights.shape
    extra = [np.ascontiguousarray(s["weights"], dtype=np.float32) for s in sources]
    sent = layers_to_send(weights.shape, layer, budget, sum(w.nbytes for w in extra))
    thumbs, (tq, tk) = thumbnails(weights, mask, THUMB)
    blobs: list[tuple[str, bytes]] = [(f"w{la}", weights[la].tobytes()) for la in sent]
    if mask is not None:
        blobs.append(("mask", np.ascontiguousarray(mask, dtype=np.uint8).tobytes()))
    blobs.append(("thumbs", np.ascontiguousarray(thumbs).tobytes()))
    described = []
    for i, (src, w) in enumerate(zip(sources, extra), start=1):
        layers = [la for la in sent if la < w.shape[0]]
        blobs += [(f"s{i}w{la}", w[la].tobytes()) for la in layers]
        if src.get("mask") is not None:
            blobs.append((f"s{i}mask", np.ascontiguousarray(src["mask"], dtype=np.uint8).tobytes()))
        labels = {name: value for name, value in src.items() if name not in ("weights", "mask")}
        described.append({**labels, "shape": list(w.shape), "layers": layers})
    arrays, offset = {}, 0
    for name, b in blobs:
        arrays[name] = [offset, len(b)]
        offset += (len(b) + 3) // 4 * 4  # each array starts 4-aligned, so Float32Array can view it
    header = {
        **meta,
        "shape": [n_layers, n_heads, q, k],
        "thumb": [tq, tk],
        "layers": sent,
        "arrays": arrays,
    }
    if described:
        header["sources"] = described
    head = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode()
    pad = b"\0" * ((-(8 + len(head))) % 4)
    body = bytearray(offset)
    for name, b in blobs:
        start = arrays[name][0]
        body[start : start + len(b)] = b
    return MAGIC + struct.pack("<I", len(head)) + head + pad + bytes(body)


def unpack(blob: bytes) -> tuple[dict, dict[str, bytes]]:
    """The inverse of pack (for tests and the bench): (header, {array name: its bytes})."""
    if blob[:4] != MAGIC:
        raise ValueError("not an attention view payload")
    (n,) = struct.unpack("<I", blob[4:8])
    header = json.loads(blob[8 : 8 + n].decode())
    base = 8 + n + (-(8 + n)) % 4
    return header, {name: blob[base + o : base + o + size] for name, (o, size) in header["arrays"].items()}


def at_temperature(w: np.ndarray, temperature: float, mask: np.ndarray | None = None) -> np.ndarray:
    """softmax(log(w) / T) over the last axis: exactly softmax(s / T) for w = softmax(s), since the
    row's normaliser is a constant that cancels. What the browser draws (numbers.js softmaxAt on
    log w); the server's tables use it too, so both show one number. The softmax is
    model.attention.softmax_at (through analysis.experiments' numpy door); cells w = 0 (masked)
    stay 0."""
    w = np.asarray(w, dtype=np.float64)
    if temperature == 1.0:
        return w
    with np.errstate(divide="ignore"):
        out = softmax_at(np.log(w), temperature)
    if mask is not None:
        out = np.where(mask, out, 0.0)
    return out


def difference(b: np.ndarray, a: np.ndarray, mask_b=None, mask_a=None) -> tuple[np.ndarray, np.ndarray | None]:
    """B - A of two (..., Q, K) weight arrays over the rows and keys both have (aligned by
    position, as analysis.intervene.align), and the cells neither masks (None: no mask): what a
    difference panel draws in the browser, from the two panels it names."""
    q, k = min(a.shape[-2], b.shape[-2]), min(a.shape[-1], b.shape[-1])
    diff = np.asarray(b, np.float64)[..., :q, :k] - np.asarray(a, np.float64)[..., :q, :k]
    if mask_a is None and mask_b is None:
        return diff, None
    ma = np.ones((q, k), bool) if mask_a is None else np.asarray(mask_a, bool)[:q, :k]
    mb = np.ones((q, k), bool) if mask_b is None else np.asarray(mask_b, bool)[:q, :k]
    return diff, ma & mb

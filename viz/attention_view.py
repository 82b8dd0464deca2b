"""The attention view's payload: one attention kind's weights, mask and labels packed into one
bytes object for the browser component (ui/attention_view). Pure: arrays in, bytes out.

Layout: b"AVW1", a little-endian uint32 n, n bytes of UTF-8 JSON (the header), zero padding to a
multiple of 4, then the arrays the header's "arrays" entry lists, each at its byte offset from
the end of the padding: float32 weights (exact: the browser recomputes softmax(log w / T) from
them), uint8 mask and uint8 pooled thumbnails. Streamlit 1.67's components v2 forwards a bytes
`data` to the JavaScript as one Uint8Array (raw bytes are only allowed at the top level of data,
so the labels travel in the same blob rather than beside it).
"""

from __future__ import annotations

import json
import struct

import numpy as np

from viz.model_view import pool

MAGIC = b"AVW1"
THUMB = 48  # px: each model-view thumbnail is pooled to at most THUMB x THUMB cells
# Float32 weights of every layer up to this many bytes (a 512-token translator kind: 8 MiB); above,
# only the shown layer travels and choosing another layer asks the server (a 30 x 9-head model
# at 512 tokens would be 283 MB). The model view always has every head from the thumbnails.
FULL_BUDGET = 24 * 2**20


def layers_to_send(shape, layer: int, budget: int = FULL_BUDGET) -> list[int]:
    n_layers, n_heads, q, k = shape
    if n_layers * n_heads * q * k * 4 <= budget:
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
) -> bytes:
    """The payload for one kind. weights: (L, H, Q, K) float32; mask: (Q, K) bool or None;
    meta: JSON-able labels, strings and view (its "view" entry names the layer shown first)."""
    weights = np.ascontiguousarray(weights, dtype=np.float32)
    n_layers, n_heads, q, k = weights.shape
    sent = layers_to_send(weights.shape, layer, budget)
    thumbs, (tq, tk) = thumbnails(weights, mask, THUMB)
    blobs: list[tuple[str, bytes]] = [(f"w{la}", weights[la].tobytes()) for la in sent]
    if mask is not None:
        blobs.append(("mask", np.ascontiguousarray(mask, dtype=np.uint8).tobytes()))
    blobs.append(("thumbs", np.ascontiguousarray(thumbs).tobytes()))
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
    row's normaliser is a constant that cancels. What the browser draws; the server's tables use it
    too, so both show one number. Masked cells (w = 0) stay 0."""
    w = np.asarray(w, dtype=np.float64)
    if temperature == 1.0:
        return w
    with np.errstate(divide="ignore"):
        z = np.log(w) / temperature
    z -= z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    out = e / e.sum(axis=-1, keepdims=True)
    if mask is not None:
        out = np.where(mask, out, 0.0)
    return out

"""How far back a decoder's heads read, and whether ALiBi's steep heads read nearer (issue 46).

pos_alibi_help said "steep heads look close by, shallow heads far away" of the trained gpt-alibi,
true in its layer 1 only: the positional page now shows alibi_reading's measured layers instead.
tests/test_alibi_reading.py checks the distances against numpy on the traces.
"""

from __future__ import annotations

import numpy as np

from analysis import timeline
from model.positional import alibi_slopes


def attention_distances(runner, texts=None) -> np.ndarray:
    """(layers, heads) mean distance i - j a decoder row reads at, weighted by its attention (rows 1..,
    the first reads only itself), averaged over texts (default: the timeline's held-out GPT items)."""
    out = []
    for text in texts if texts is not None else timeline.gpt_probe():
        w = runner.trace(text).attention["decoder"].weights.astype(np.float64)
        n = w.shape[-1]
        back = np.clip(np.arange(n)[:, None] - np.arange(n)[None, :], 0, None)
        out.append((w * back).sum(-1)[:, :, 1:].mean(-1))
    return np.mean(out, axis=0)


def alibi_reading(runner) -> tuple[np.ndarray, list[int]]:
    """An ALiBi GPT's (layers, heads) mean reading distance with its heads ordered from the steepest
    slope to the shallowest, and the layers (from 1) where the steeper head reads nearer
    (pos_alibi_measured: on the trained gpt-alibi layer 1 only)."""
    slopes = alibi_slopes(runner.config.num_heads).numpy()
    d = attention_distances(runner)
    return d[:, np.argsort(-slopes)], steep_reads_near(d, slopes)


def steep_reads_near(distances: np.ndarray, slopes: np.ndarray) -> list[int]:
    """The layers (from 1) where the steeper a head's ALiBi slope, the nearer it reads: mean distances
    strictly rising from the steepest head to the shallowest."""
    order = np.argsort(-np.asarray(slopes))
    return [la + 1 for la, d in enumerate(distances) if bool(np.all(np.diff(d[order]) > 0))]

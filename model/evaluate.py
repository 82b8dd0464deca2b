"""How good the shipped models are, on sentences they never saw: `python -m model evaluate NAME`."""
from __future__ import annotations

import numpy as np

from . import corpus, registry


def evaluate(name: str, n: int = 1000, seed: int = 1234, runner=None) -> dict:
    m = runner or registry.load(name)
    pairs = corpus.heldout_pairs(n, seed)
    if m.kind == "translator":
        result = {}
        for direction, src, ref in (("en-zh", "en", "zh"), ("zh-en", "zh", "en")):
            hyps = []
            for i in range(0, len(pairs), 100):
                chunk = pairs[i:i + 100]
                hyps += m.translate([getattr(p, src) for p in chunk], direction=direction)
            refs = [getattr(p, ref) for p in pairs]
            result[direction] = float(np.mean([h == r for h, r in zip(hyps, refs)]))
        return {"model": name, "exact_match": result, "n": len(pairs)}
    # language models: each held-out item on its own, from <s> through </s>
    items = [(("en", p.en) if i % 2 == 0 else ("zh", p.zh)) for i, p in enumerate(pairs)]
    nll = m.nll([t for _, t in items])
    exact = np.array([-corpus.gpt_logprob(t, lang) for lang, t in items])
    a, b = float(nll.mean()), float(exact.mean())
    return {"model": name, "nll_per_sentence": round(a, 4), "entropy_per_sentence": round(b, 4),
            "ratio": round(a / b, 4), "n": len(items)}

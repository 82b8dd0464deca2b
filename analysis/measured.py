"""Figures the pages quote that take too long to compute on every visit, in one place.

Re-measure after retraining (the lead updates the table from the printout):

    python -m analysis.measured            # exact match at each attention temperature, 1,000 held-out pairs
"""

from __future__ import annotations

# Translator: share of held-out sentences whose greedy translation equals the grammar's reference,
# with every layer's attention at temperature T (the temperature page quotes it).
# Measured 2026-11-30 on the shipped translator (the 4,000-step run with d_model^-0.5 embeddings);
# the translator before it gave 0.69 / 0.86 / 1.00 / 0.74 / 0.19.
TEMPERATURE_EXACT_MATCH = {
    "n": 1000,
    "model": "translator",
    "by_t": {0.05: 0.98, 0.3: 1.00, 1.0: 1.00, 3.0: 0.62, 20.0: 0.06},
}


def measure_temperature_exact_match(n: int = 1000, temps=(0.05, 0.3, 1.0, 3.0, 20.0), name: str = "translator"):
    """{T: exact match} over n held-out pairs, both directions (half English, half Chinese input)."""
    from data import corpus
    from model.registry import load

    m = load(name)
    pairs = corpus.heldout_pairs(n, seed=0)
    src = [p.en if i % 2 == 0 else p.zh for i, p in enumerate(pairs)]
    ref = [p.zh if i % 2 == 0 else p.en for i, p in enumerate(pairs)]
    out = {}
    for T in temps:
        got = []
        for i in range(0, n, 64):
            got += m.translate(src[i : i + 64], temperature=T)
        out[T] = round(sum(g == r for g, r in zip(got, ref)) / n, 2)
    return out


if __name__ == "__main__":
    print({"n": 1000, "model": "translator", "by_t": measure_temperature_exact_match()})

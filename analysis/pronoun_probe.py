"""Does a "pronoun head" resolve the pronoun, or read the sentence's subject? (issue 46)

In "The animal didn't cross the street because it was too tired" and in our GPT's training stories
the pronoun means the subject, so a head that always reads the subject looks like one that finds
the pronoun's noun. This probe separates the two: two-sentence stories whose pronoun can, by its
gender or by being "it" among people, only mean the OBJECT ("The boy saw the girl. She was happy."),
beside the same stories with the pronoun meaning the subject ("... He was happy."). For every head
it measures the pronoun row's weight on the subject noun and on the object noun in both sets:

    a resolver   puts more on the object where the pronoun means the object;
    a subject head puts more on the subject in both sets, whatever the pronoun.

    python -m analysis.pronoun_probe            # gpt, translator, smollm2-135m (where installed)

docs/measurements.md ("The pronoun probe") quotes its figures; tests/test_pronoun_probe.py checks them
against numpy on the traces.
"""

from __future__ import annotations

import numpy as np

# (subject, verb, object, the pronoun meaning the object, the pronoun meaning the subject, the rest)
STORIES = (
    ("boy", "saw", "girl", "She", "He", "was happy."),
    ("girl", "saw", "boy", "He", "She", "was happy."),
    ("king", "saw", "queen", "She", "He", "was sad."),
    ("queen", "saw", "king", "He", "She", "was sad."),
    ("man", "saw", "woman", "She", "He", "was tired."),
    ("woman", "saw", "man", "He", "She", "was tired."),
    ("father", "saw", "daughter", "She", "He", "was happy."),
    ("mother", "saw", "son", "He", "She", "was happy."),
    ("boy", "saw", "cat", "It", "He", "was hungry."),
    ("girl", "fed", "dog", "It", "She", "was hungry."),
)
# the heads the pages and lessons named "pronoun heads" before this probe: (model, kind, layer, head) 1-based
NAMED = (("gpt", "decoder", 2, 3), ("smollm2-135m", "decoder", 14, 9))


def sentences(refers: str) -> list[tuple[str, str, str, str]]:
    """(text, pronoun, subject, object) for every story, the pronoun meaning "object" or "subject"."""
    out = []
    for subj, verb, obj, p_obj, p_subj, rest in STORIES:
        p = p_obj if refers == "object" else p_subj
        out.append((f"The {subj} {verb} the {obj}. {p} {rest}", p, subj, obj))
    return out


def _plain(tok) -> str:
    return str(tok).strip("▁Ġ ").lower()


def shares(att, pronoun: str, subject: str, obj: str) -> tuple[np.ndarray, np.ndarray] | None:
    """(layers, heads) weights of the pronoun's row on the subject and on the object (their first
    tokens), or None where a word is not a token of its own in this model's tokens."""
    keys = [_plain(t) for t in att.key_tokens]
    rows = [_plain(t) for t in att.query_tokens]
    try:
        row = rows.index(pronoun.lower())
        s, o = keys.index(subject), keys.index(obj)
    except ValueError:
        return None
    w = np.asarray(att.weights, dtype=np.float64)
    return w[:, :, row, s], w[:, :, row, o]


def probe(runner, kind: str = "decoder") -> dict:
    """For each set ("object": the pronoun means the object; "subject": it means the subject) the mean
    (layers, heads) weight of the pronoun's row on the subject and on the object, and how many
    stories were measured (a story whose words are not single tokens is left out)."""
    out = {}
    for refers in ("object", "subject"):
        on_s, on_o = [], []
        for text, p, subj, obj in sentences(refers):
            got = shares(runner.trace(text).attention[kind], p, subj, obj)
            if got is not None:
                on_s.append(got[0])
                on_o.append(got[1])
        out[refers] = {
            "subject": np.mean(on_s, 0) if on_s else None,
            "object": np.mean(on_o, 0) if on_o else None,
            "n": len(on_s),
        }
    return out


MARGIN = 0.05  # "more on A than on B": at least this much more weight, averaged over the stories


def verdict(result: dict, layer: int, head: int) -> str:
    """What one head (0-based) does with the pronoun, each "more" by at least MARGIN: "resolves" (more on
    the noun the pronoun means in both sets), "subject" (more on the subject in both), "object" (more
    on the object in both), else "neither"."""
    o, s = result["object"], result["subject"]
    o_diff = o["object"][layer, head] - o["subject"][layer, head]  # pronoun means the object
    s_diff = s["subject"][layer, head] - s["object"][layer, head]  # pronoun means the subject
    if o_diff >= MARGIN and s_diff >= MARGIN:
        return "resolves"
    if s_diff >= MARGIN and -o_diff >= MARGIN:
        return "subject"
    if o_diff >= MARGIN and -s_diff >= MARGIN:
        return "object"
    return "neither"


def best_resolver(result: dict) -> tuple[int, int, float]:
    """(layer, head, margin) 0-based of the head that best follows the pronoun: the smaller of its two
    sets' (noun meant - other noun) weights, largest first."""
    o, s = result["object"], result["subject"]
    margin = np.minimum(o["object"] - o["subject"], s["subject"] - s["object"])
    la, h = np.unravel_index(int(np.argmax(margin)), margin.shape)
    return int(la), int(h), float(margin[la, h])


def report(name: str, runner, kind: str = "decoder") -> list[str]:
    r = probe(runner, kind)
    lines = [f"{name} ({kind}): {r['object']['n']} object stories, {r['subject']['n']} subject stories"]
    for model, k, la, h in NAMED:
        if model == name and k == kind:
            o, s = r["object"], r["subject"]
            lines.append(
                f"  named L{la} H{h}: pronoun means the object -> subject {o['subject'][la - 1, h - 1]:.2f}, "
                f"object {o['object'][la - 1, h - 1]:.2f}; means the subject -> subject "
                f"{s['subject'][la - 1, h - 1]:.2f}, object {s['object'][la - 1, h - 1]:.2f}: "
                f"{verdict(r, la - 1, h - 1)}"
            )
    la, h, m = best_resolver(r)
    lines.append(f"  best resolver L{la + 1} H{h + 1}: margin {m:+.2f} ({verdict(r, la, h)})")
    return lines


if __name__ == "__main__":
    import model
    from model.hf import pretrained

    for name, kind in (("gpt", "decoder"), ("translator", "encoder"), ("smollm2-135m", "decoder")):
        if name in pretrained.MODELS and not pretrained.installed(name):
            print(f"{name}: not installed")
            continue
        print("\n".join(report(name, model.load(name, device="cpu"), kind)))

"""Draws docs/heads.png: heads of the shipped models that do something you can name.

    .venv/bin/python scripts/head_figures.py

It finds each head by its numbers (not by hand-picked indices), prints what it found, and saves
one PNG (vl-convert, offline)."""

import sys
from pathlib import Path

import altair as alt
import numpy as np
import vl_convert

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import model  # noqa: E402
from viz.static import heatmap_chart  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "docs" / "heads.png"


def best_head(weights, score):
    """(layer, head) with the highest score(weights[layer, head])."""
    scores = np.array([[score(weights[l, h]) for h in range(weights.shape[1])] for l in range(weights.shape[0])])
    l, h = np.unravel_index(scores.argmax(), scores.shape)
    return int(l), int(h), float(scores[l, h])


def main():
    panels = []
    tr = model.load("translator").trace("The cat sat on the mat")
    cross = tr.attention["cross"]
    src = cross.key_tokens
    # alignment: the decoder row that writes 垫子 (it has just read 在) looks at "mat"
    row, mat = cross.query_tokens.index("在"), src.index("mat")
    l, h, s = best_head(cross.weights, lambda w: w[row, mat])
    print(f"translator cross-attention L{l + 1} H{h + 1}: writing 垫子 it looks at 'mat' with {s:.2f}")
    # rows named by the token each step writes ("在 → 垫子"), as the app names them
    panels.append(
        heatmap_chart(
            cross.weights[l, h], cross.query_labels(), src, f"Translator cross-attention, layer {l + 1} head {h + 1}"
        )
    )

    g = model.load("gpt")
    story = g.trace("The cat sat on the mat. It was happy.").attention["decoder"]
    it, cat = story.query_tokens.index("It"), story.query_tokens.index("cat")
    l, h, s = best_head(story.weights, lambda w: w[it, cat])
    print(f"gpt L{l + 1} H{h + 1}: 'It' looks at 'cat' with {s:.2f}")
    panels.append(
        heatmap_chart(
            story.weights[l, h],
            story.query_tokens,
            story.key_tokens,
            f"GPT layer {l + 1} head {h + 1}: pronoun to noun",
        )
    )

    zh = g.trace("猫坐在垫子上。它很开心。").attention["decoder"]
    ta, mao = zh.query_tokens.index("它"), zh.query_tokens.index("猫")
    l, h, s = best_head(zh.weights, lambda w: w[ta, mao])
    print(f"gpt L{l + 1} H{h + 1}: '它' looks at '猫' with {s:.2f}")
    panels.append(
        heatmap_chart(zh.weights[l, h], zh.query_tokens, zh.key_tokens, f"GPT layer {l + 1} head {h + 1}: 它 to 猫")
    )

    chart = alt.hconcat(*panels).configure_title(fontSize=13).configure_axis(labelFontSize=12)
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_bytes(vl_convert.vegalite_to_png(chart.to_json(), scale=1.5))
    print(f"saved {OUT}")


if __name__ == "__main__":
    main()

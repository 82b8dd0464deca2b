"""The architectures page: BERT, GPT and T5 side by side, their masks drawn from the model's own
tokenization of the sentence, and its tables in both languages."""

from __future__ import annotations

import json

import numpy as np
from apptest import open_alone, open_page

from ui import cache
from viz.heatmap import heatmap_weights


def test_architecture_page():
    at = open_page("pages/architecture.py", "gpt", text="狗咬人")
    compare, modern = at.table[0].value, at.table[1].value
    assert list(compare.index) == ["BERT", "GPT", "T5 / Transformer"]
    assert list(modern.index) == ["GPT-4", "LLaMA", "ChatGLM", "Mistral", "Claude"]
    assert set(modern["Architecture"]) == {"Decoder"}
    charts = at.get("plotly_chart")
    assert len(charts) == 5  # BERT, GPT, and T5's three masks
    tok = cache.runner("gpt", "auto").tokenizer
    n = len(tok.encode("狗咬人"))
    for chart, rows, cols, causal in zip(charts, (n, n + 1, n), (n, n + 1, n), (False, True, False)):
        allowed = ~np.isnan(heatmap_weights(json.loads(chart.proto.spec)))  # masked cells have no value
        assert allowed.shape == (rows, cols)
        assert np.array_equal(allowed, np.tril(np.ones((rows, cols), bool)) if causal else np.ones((rows, cols), bool))
    zh = open_alone("pages/architecture.py", model="gpt", lang="zh")
    assert set(zh.table[1].value["架构"]) == {"解码器"}

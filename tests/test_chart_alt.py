"""ui.layout.chart_alt: each chart's text alternative (what a screen reader reads, since it cannot read
the chart's canvas) is computed from the figure's own data, in the reader's language (issue 24)."""

import numpy as np
import pytest

from ui import i18n, layout
from viz.generation import next_token_bars
from viz.heatmap import attention_heatmap


@pytest.fixture(params=["en", "zh"])
def lang(request, monkeypatch):
    monkeypatch.setattr(i18n, "lang", lambda: request.param)
    return request.param


def test_a_heatmap_names_each_rows_largest_cell(lang):
    w = np.array([[1.0, 0.0, 0.0], [0.2, 0.8, 0.0], [0.1, 0.3, 0.6]], dtype=np.float32)
    tokens = ["The", "cat", "<sat>"]
    text = layout.chart_alt(attention_heatmap(w, tokens, tokens, mask=np.tril(np.ones((3, 3), bool))))
    assert ("3 rows and 3 columns" if lang == "en" else "3 行 3 列") in text
    assert "cat → cat 0.8" in text and "<sat> → <sat> 0.6" in text  # unescaped, from the data
    w[1] = [0.9, 0.1, 0.0]  # other data, another sentence: the alternative is not written by hand
    assert "cat → The 0.9" in layout.chart_alt(attention_heatmap(w, tokens, tokens))


def test_bars_name_their_largest_tokens_not_their_positions(lang):
    text = layout.chart_alt(next_token_bars(["mat", "dog", "cat"], np.array([0.2, 0.7, 0.1])))
    assert "dog 0.7" in text and "mat 0.2" in text
    assert text.index("dog") < text.index("mat")


def test_no_english_words_of_ours_in_chinese(monkeypatch):
    monkeypatch.setattr(i18n, "lang", lambda: "zh")
    w = np.eye(2, dtype=np.float32)
    text = layout.chart_alt(attention_heatmap(w, ["狗", "咬"], ["狗", "咬"]))
    assert "heatmap" not in text and "rows" not in text and "热力图" in text


def test_the_heatmap_returns_its_alternative_with_the_figure():
    """viz/ computes the alternative from the values it draws (viz.alt); ui/layout.py only puts it
    in the reader's language and decodes no figure."""
    from pathlib import Path

    from viz.alt import Sentence, alt_of

    w = np.array([[1.0, 0.0], [0.3, 0.7]], dtype=np.float32)
    (heat,) = alt_of(attention_heatmap(w, ["狗", "咬"], ["狗", "咬"], mask=np.tril(np.ones((2, 2), bool))))
    assert heat.key == "alt_heatmap" and heat.params["rows"] == 2
    assert heat.params["tops"] == [
        Sentence("alt_heat_top", {"row": "狗", "col": "狗", "v": "1"}),
        Sentence("alt_heat_top", {"row": "咬", "col": "咬", "v": "0.7"}),
    ]
    source = (Path(layout.__file__)).read_text(encoding="utf-8")
    assert "bdata" not in source and "b64decode" not in source  # no figure decoded here

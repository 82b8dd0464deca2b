"""Compare's B − A scaled to its largest difference, the scale written on the chart (issue 50.8), in
a real browser, both languages: on a fixed −1..+1 a largest difference of +0.11 was nearly white.
The oracle: B − A recomputed here from the view's own A and B panels as drawn."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ui.i18n import TABLE

from .helpers import drawn_text, open_view


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_difference_is_scaled_to_its_largest_value_and_says_so(app_server, new_page, lang):
    page = open_view(new_page, f"{app_server.url}/compare?model=gpt&lang={lang}", "cmp_view", True)
    a, b, d = (np.array(page.evaluate(f"() => window.__attentionViews.cmp_view.shown({i})"), float) for i in range(3))
    assert np.allclose(d, b - a, atol=1e-6)  # the panel is B − A
    shape = page.evaluate("() => window.__attentionViews.cmp_view.shape")
    free = np.array(
        [
            [not page.evaluate(f"() => window.__attentionViews.cmp_view.masked({r}, {j})") for j in range(shape["K"])]
            for r in range(shape["Q"])
        ]
    ).ravel()
    largest = float(np.abs(d[free[: d.size]]).max())
    assert 0 < largest < 0.5, largest  # a difference that -1..+1 would draw pale: the case to check
    scale = TABLE["av_diff_scale"][lang].format(m=f"{math.ceil(largest * 100 - 1e-9) / 100:.2f}")
    drawn = [t["text"] for t in drawn_text(page)]
    assert any(scale in t for t in drawn), (scale, [t for t in drawn if "−" in t or "-" in t][:10])
    caption = page.locator("[data-testid='stCaptionContainer']").all_inner_texts()
    assert any("±0.11" in c for c in caption), caption  # the caption explains the scale in the title

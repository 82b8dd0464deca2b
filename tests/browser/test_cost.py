"""The cost page in headless Chromium: a shared link opens the sparse section with its settings, draws
one mask per pattern (cells computed = the pattern's own count), and switching sections keeps the
link in step. Screenshots land in screenshots/."""

from __future__ import annotations

from analysis import cost
from drive.browser import link_query as query

from .helpers import click_and_settle, exceptions, goto, plot_summaries, screenshot


def test_cost_page_from_a_link_draws_the_masks_and_keeps_the_link(app_server, new_page):
    page = new_page()
    goto(
        page,
        f"{app_server.url}/cost?model=gpt&lang=en&text=The+cat+sat+on+the+mat&sec=sparse&w=2&causal=1",
        timeout=300,
    )
    assert not exceptions(page), exceptions(page)
    main = page.locator("[data-testid='stMain']")
    assert main.locator("h1").first.inner_text().strip() == "The cost of attention"
    # five masks (full, window, dilated, global, block) on the 7 tokens of "<s> The cat sat on the mat"
    # (plotly's full data: z arrives as a base64 float32 array, which the page decodes)
    masks = page.evaluate("""() => Array.from(document.querySelectorAll('.js-plotly-plot'))
        .map(gd => gd._fullData && gd._fullData[0]).filter(t => t && t.type === 'heatmap' && t.zmax === 1 && t.zmin === 0
             && t.x && t.x.length === 7 && !t.showscale)
        .map(t => Array.from(t.z).map(r => Array.from(r)))
        .filter(z => z.length === 7 && z.every(r => r.every(v => v === 0 || v === 1)))""")  # masks only
    assert len(masks) == len(cost.PATTERNS)
    expected = [
        cost.pattern_mask(p, 7, w=2, dilation=2, block=3, global_tokens=(0,), causal=True).astype(int).tolist()
        for p in cost.PATTERNS
    ]
    assert sorted(masks) == sorted(expected)  # two columns: the order on the page differs
    text = main.inner_text()
    assert "(13 of 28)" in text  # window 2, causal: 7 + 6 pairs of the 28
    screenshot(page, "cost_sparse")
    assert all(p["drawn"] for p in plot_summaries(page) if p["visible"])

    click_and_settle(page.get_by_text("FlashAttention's idea", exact=True).first, page, timeout=300)
    assert query(page).get("sec") == "flash"
    assert "equal to 1e-6" in main.inner_text()
    screenshot(page, "cost_flash")

"""The steps page's weight matrix in Chromium (its softmax step): drawn by the in-browser attention
view, no Plotly chart. The numbers the browser shows are the model's: numpy's softmax of the
scaled scores the model's own forward recorded for that layer and head (an oracle that shares no
code with the walkthrough), and the walkthrough's own weights; the rows are labelled as the page
names them ("reads → writes" where a row writes), the causal mask's cells are marked, and the
layer and head are the reader's (from 1). The view's row and the page's row (the pills, ?q=, the
next step) are one value both ways: a key press in the view moves the pills and the link after
the reader lets go, a pill moves the view.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest

import model
from analysis.walkthrough import walk
from ui.context import DEFAULT_TEXT
from ui.i18n import TABLE

from .helpers import goto, settle
from .test_attention_view import scores, softmax

KINDS = [("gpt", "decoder"), ("translator", "encoder"), ("translator", "decoder"), ("translator", "cross")]
VIEW = "() => window.__attentionViews && window.__attentionViews.steps_view && window.__attentionViews.steps_view.ready"
LAYER, HEAD = 1, 1  # 0-based: the link's layer=2, head=2


def state(page) -> dict:
    """The view as the browser holds it: its row, header and the (Q, K) weights it draws now."""
    return page.evaluate(
        """() => { const v = window.__attentionViews.steps_view;
          return {q: v.state.q, shown: v.shown(), labels: v.labels, alt: v.canvas.getAttribute('aria-label'),
                  caption: v.element.querySelector('.av-caption').innerText,
                  cells: Array.from(v.element.querySelectorAll('.av-table tbody tr .av-num'), e => e.innerText)}; }"""
    )


def pill(page) -> int | None:
    """The row the page's pills say is chosen (their position from 0), or None."""
    checked = page.locator(".st-key-steps_q [role='radio']").evaluate_all(
        "bs => bs.map(b => b.getAttribute('aria-checked') === 'true')"
    )
    return checked.index(True) if True in checked else None


@pytest.mark.parametrize("name,kind", KINDS)
def test_the_softmax_step_is_the_models_weights_and_one_row_with_the_page(app_server, new_page, name, kind):
    page = new_page()
    params = f"model={name}&stage=softmax&layer={LAYER + 1}&head={HEAD + 1}&q=1"
    goto(page, f"{app_server.url}/steps?{params}" + (f"&kind={kind}" if name == "translator" else ""))
    page.wait_for_function(VIEW, timeout=30_000)
    assert page.locator("[data-testid='stMain'] [data-testid='stPlotlyChart']").count() == 0
    s = state(page)
    att = model.load(name).trace(DEFAULT_TEXT).attention[kind]
    want = softmax(scores(name, kind)[LAYER, HEAD], 1.0)
    Q, K = want.shape
    shown = np.reshape(s["shown"], (Q, K))
    np.testing.assert_allclose(shown, want, atol=1e-6, rtol=0)
    w = walk(model.load(name), DEFAULT_TEXT, kind, LAYER, HEAD)
    np.testing.assert_allclose(shown, w.weights, atol=1e-6, rtol=0)  # the page's own numbers, float32
    # rows as the page labels them: "reads → writes" where they write; keys; the mask's cells
    labels = s["labels"]
    rows = (
        att.query_tokens
        if att.query_written is None
        else [f"{a} → {b}" for a, b in zip(att.query_tokens, att.query_written)]
    )
    assert labels["q"] == rows and labels["k"] == att.key_tokens
    masked = page.evaluate(
        f"() => Array.from({{length: {Q * K}}}, (_, i) => !!window.__attentionViews.steps_view.masked(Math.floor(i / {K}), i % {K}))"
    )
    assert np.array_equal(np.reshape(masked, (Q, K)), ~w.mask)
    assert np.reshape(masked, (Q, K)).any() == (kind == "decoder")  # the check can fail: GPT's is causal
    # the reader's numbering, in the text alternative (and so in its exports' file names)
    assert f"layer {LAYER + 1}, Head {HEAD + 1}" in s["alt"], s["alt"]
    # one head of one layer: the keys help names only the row's keys (here ← → are Previous / Next)
    assert page.locator(".av-keys").inner_text() == TABLE["av_keys_help_rows"]["en"]
    # the tutorial's table beside the heatmap: row 1, to 4 decimals, masked keys said so
    assert s["q"] == 1 and pill(page) == 1
    expect = ["masked" if not w.mask[1, j] else f"{want[1, j]:.4f}" for j in range(K)]
    assert s["cells"] == expect, (s["cells"], expect)

    # the view -> the page: an arrow key moves the row at once in the browser; once the reader
    # lets go, the pills, the link and the next step follow
    page.locator(".av-canvas").focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    s = state(page)
    assert s["q"] == 3 and s["cells"][0] == (f"{want[3, 0]:.4f}")
    page.wait_for_function("() => new URLSearchParams(location.search).get('q') === '3'", timeout=20_000)
    settle(page)
    assert pill(page) == 3 and state(page)["q"] == 3  # the rerun left the reader's row as it was
    # the page -> the view: a pill moves the view's row and its table
    page.locator(".st-key-steps_q [role='radio']").nth(Q - 1).click()
    page.wait_for_function(f"() => window.__attentionViews.steps_view.state.q === {Q - 1}", timeout=20_000)
    settle(page)
    s = state(page)
    assert parse_qs(urlparse(page.url).query)["q"] == [str(Q - 1)] and pill(page) == Q - 1
    assert s["cells"] == ["masked" if not w.mask[Q - 1, j] else f"{want[Q - 1, j]:.4f}" for j in range(K)]
    token = att.query_tokens[Q - 1]
    assert token in s["caption"]
    # the next step (weights x V) reads the same row
    page.get_by_role("button", name="Next").first.click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('stage') === 'weighted'", timeout=20_000)
    settle(page)
    assert f"For {token}: head output" in page.locator("[data-testid='stMain']").inner_text()
    assert not page.rec.errors, page.rec.errors


def test_another_model_with_the_same_tokens_is_drawn_with_its_own_weights(app_server, new_page):
    """GPT and GPT with RoPE share the tokenizer, so the view's labels, shape and view are the same
    after the sidebar switches the model: the browser must still draw the new model's weights
    (it skips a payload whose header it has loaded; the header names the weights by a digest)."""
    page = new_page()
    goto(page, f"{app_server.url}/steps?model=gpt&stage=softmax&layer=1&head=1&q=2")
    page.wait_for_function(VIEW, timeout=30_000)
    before = np.array(state(page)["shown"])
    np.testing.assert_allclose(before, softmax(scores("gpt", "decoder")[0, 0], 1.0).ravel(), atol=1e-6)
    page.locator("section[data-testid='stSidebar'] [data-testid='stSelectbox']").first.click()
    page.get_by_role("option", name="GPT with RoPE").click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('model') === 'gpt-rope'", timeout=20_000)
    settle(page)
    after = np.array(state(page)["shown"])
    want = softmax(scores("gpt-rope", "decoder")[0, 0], 1.0).ravel()
    assert np.abs(want - before).max() > 1e-3  # the two models really differ here
    np.testing.assert_allclose(after, want, atol=1e-6, rtol=0)
    assert state(page)["q"] == 2

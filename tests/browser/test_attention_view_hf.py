"""SmolLM2-135M, the real pretrained decoder (30 layers x 9 heads, grouped-query attention), in the
attention view in Chromium, on an app server that offers the packaged models (ATTN_HF=local):
the model view pages through its 30 layers and a tile on a later page selects that head; a
temperature drag and row / head moves stay in the browser (no websocket frame until the reader
lets go); and the browser's weights at T are the model's with the temperature in that layer only:
the app's own trace at T in that layer (1e-6), and transformers' own eager attention with that
layer's scaling divided by T (none of our code; 1e-5, as tests/test_smollm.py compares the two
forwards at T = 1)."""

from __future__ import annotations

from urllib.parse import parse_qs, quote, urlparse

import numpy as np
import pytest
import torch

from tests.conftest import SMOLLM

from .helpers import goto, served, settle, view_tile_xy
from .test_attention_view import VIEW, Sent, drag_temperature, view

TEXT = "The animal didn't cross the street because it was too tired"


@pytest.fixture(scope="module")
def hf_server(smollm):  # smollm: skips where the package is not installed; loads the oracle's copy
    yield from served("streamlit-hf-view.log", env={"ATTN_HF": "local", "HF_HUB_OFFLINE": "1"})


@pytest.fixture(scope="module")
def reference(smollm):
    """transformers' own model over the same converted folder, eager attention, none of ours."""
    from transformers import AutoModelForCausalLM

    from model.hf import pretrained

    return AutoModelForCausalLM.from_pretrained(
        str(pretrained.folder(SMOLLM)), attn_implementation="eager", dtype=torch.float32
    ).eval()


def transformers_at(reference, ids: list[int], layer: int, t: float) -> np.ndarray:
    """(heads, Q, K): transformers' attention of `layer` with its scores divided by t there alone
    (eager attention computes softmax(q k^T * scaling + mask): scaling / t is softmax(s / t))."""
    attn = reference.model.layers[layer].self_attn
    scaling = attn.scaling
    attn.scaling = scaling / t
    try:
        with torch.no_grad():
            out = reference(input_ids=torch.tensor([ids]), output_attentions=True)
    finally:
        attn.scaling = scaling
    return out.attentions[layer][0].double().numpy()


def test_thirty_layers_page_and_the_browsers_t_is_the_models(hf_server, new_page, smollm, reference):
    page = new_page()
    sent = Sent(page)
    goto(page, f"{hf_server.url}/attention?model={SMOLLM}&text={quote(TEXT)}&head=4&q=5", 300)
    page.wait_for_function(VIEW, timeout=120_000)
    v = page.evaluate("() => { const a = window.__attentionViews.att_view.shape; return {L: a.L, H: a.H} }")
    assert (v["L"], v["H"]) == (30, 9)
    assert view(page)["head"] == 3 and view(page)["q"] == 5  # the link's head 4, 1-based

    # the model view: six layers a page, opened on the shown layer's (the last); the pager turns
    page.locator(".av [role='tab'][data-tab='model']").click()
    assert page.locator(".av-pager").is_visible()
    assert page.locator(".av-page").inner_text() == "Layers 25\u201330 of 30"
    page.locator(".av-prev").click()
    assert page.locator(".av-page").inner_text() == "Layers 19\u201324 of 30"
    # a tile on another page selects that head (layer 28, head 7 as the reader counts)
    xy = view_tile_xy(page, 27, 6)
    page.mouse.click(xy["x"], xy["y"])
    page.wait_for_function(
        "() => { const q = new URLSearchParams(location.search); return q.get('layer') === '28' && q.get('head') === '7'; }",
        timeout=60_000,
    )
    page.locator(".av [role='tab'][data-tab='heatmap']").click()
    page.wait_for_function("() => window.__attentionViews.att_view.shown() !== null", timeout=60_000)
    # the tab is part of the view: its report (debounced) and the rerun it causes land first
    page.wait_for_function("() => new URLSearchParams(location.search).get('tab') !== 'model'", timeout=60_000)
    settle(page, 120)

    # a drag and keyboard moves in the browser: no frame to the server until the release
    before = sent.frames
    drag_temperature(page, 0.8)
    page.locator(".av-canvas").focus()
    page.keyboard.press("ArrowDown")
    assert sent.frames == before, "a message went to the server during the drag"
    page.mouse.up()
    v = view(page)
    assert (v["layer"], v["head"], v["q"]) == (27, 6, 6) and v["ltemp"] > 1.5
    tokens = smollm.trace(TEXT).attention["decoder"].query_tokens
    shown = np.array(page.evaluate("() => window.__attentionViews.att_view.shown()")).reshape(len(tokens), len(tokens))

    # the app's own forward with T in that layer only, and transformers' own
    ours = smollm.trace(TEXT, temperature=v["ltemp"], temperature_layer=v["layer"]).attention["decoder"].weights
    gap = np.abs(shown - ours[v["layer"], v["head"]]).max()
    print(f"SmolLM2 layer 28 head 7 at T = {v['temp']:.3f}: browser vs the app's forward {gap:.1e}")
    assert gap <= 1e-6
    theirs = transformers_at(reference, smollm.ids(TEXT)[1], v["layer"], v["ltemp"])
    gap = np.abs(shown - theirs[v["head"]]).max()
    print(f"  browser vs transformers' eager attention at scaling / T: {gap:.1e}")
    assert gap <= 1e-5
    # T flattens: every row's largest weight is lower than at T = 1 (the attention sink included)
    base = smollm.trace(TEXT).attention["decoder"].weights[v["layer"], v["head"]]
    assert (shown.max(-1)[1:] < base.max(-1)[1:]).all()

    page.wait_for_function("() => location.search.includes('ltemp=')", timeout=60_000)
    link = parse_qs(urlparse(page.url).query)
    assert link["layer"] == ["28"] and link["head"] == ["7"] and link["q"] == ["6"]
    assert not page.rec.errors, page.rec.errors

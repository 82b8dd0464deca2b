"""The temperature page answered by the model in the student's browser (issue 48): T = 1 beside
T, both from our ONNX graph run by onnxruntime-web (ui/attention_view/live.js, view.js's panels).
Typing in the sidebar's box re-runs the model at T = 1 and at T; the slider re-runs it with T
where the page's scope puts it (every layer, or one layer: for the translator every attention of
that layer), during the drag, with no websocket message until the reader lets go. Every panel,
layer and head equals the PyTorch trace with those settings within 1e-5, for each family of
model (FAMILIES: a decoder-only GPT, the translator's three kinds); the translator's greedy output at T
is the trace's. (Each shipped model's graph at T in every layer and in one, against PyTorch, in
this browser: tests/browser/test_live_model.py. The page's walk of the three other GPTs, the same
wiring, went on 2026-12-05: about 30 s of phase 2.) The note under the slider and the
source line say the browser computed it. The fallback (no WebAssembly: the server's chart, saying
so) is tests/browser/test_attention_view.py's temperature tests."""

from __future__ import annotations

import numpy as np
import pytest

import model
from ui.context import DEFAULT_TEXT
from ui.i18n import text_in

from .helpers import (
    MODELS,
    Sent,
    drag_temperature,
    goto,
    live_ready,
    settle,
    type_in_box,
    view_api,
    view_js,
    view_move,
    wait_live,
)

pytestmark = pytest.mark.slow
# one model of each family the page wires differently: a GPT (one kind) and the translator (three)
FAMILIES = [n for n in MODELS if n in ("gpt", "translator")]
assert len(FAMILIES) == 2, MODELS  # a family renamed away would leave its page unwalked
TOL = 1e-5
KEY = "temp_view"
KINDS = {"translator": ("encoder", "decoder", "cross")}
TYPED = " and the dog sat"
TEXT = DEFAULT_TEXT + TYPED


def panels(page, i: int, n_layers: int, n_heads: int, q: int, k: int) -> np.ndarray:
    """(layers, heads, Q, K): what panel i draws for every layer and head, as the browser has it."""
    flat = view_api(
        page,
        KEY,
        f"Array.from({{length: {n_layers}}}, (_, la) => Array.from({{length: {n_heads}}}, (_, h) => v.panelAt({i}, la, h)))",
    )
    return np.array(flat, dtype=float).reshape(n_layers, n_heads, q, k)


def check(page, m, text: str, kind: str, settings: dict, label: str) -> None:
    """Panel 0 is the model at T = 1, panel 1 the model with settings (T and its scope), every
    layer and head, both computed in this browser."""
    c = m.config
    assert view_api(page, KEY, "v.panelSource(1)") == ("browser" if settings else "view"), label
    for i, s in ((0, {}), (1, settings)):
        want = m.trace(text, **s).attention[kind].weights
        flat = view_api(page, KEY, f"v.panelAt({i}, 0, 0)")
        assert len(flat) == want.shape[2] * want.shape[3], (label, i, len(flat), want.shape)
        got = panels(page, i, c.num_layers, c.num_heads, *want.shape[2:])
        np.testing.assert_allclose(got, want, atol=TOL, rtol=0, err_msg=f"{label}: panel {i}")


@pytest.mark.parametrize("name", FAMILIES)
def test_typing_and_the_slider_rerun_the_model_in_the_browser(app_server, new_page, published, name):
    m = model.load(name)
    kinds = KINDS.get(name, ("decoder",))
    page = new_page()
    goto(page, f"{app_server.url}/temperature?model={name}&kind={kinds[0]}&head=2&q=1")
    wait_live(page, KEY, 60)
    assert page.locator(".av-source").get_attribute("data-source") == "browser"
    # typing: the model runs here at each frame, nothing goes to the server until the box is left
    assert type_in_box(page, KEY, TYPED) == 0, "websocket messages while typing"
    check(page, m, TEXT, kinds[0], {}, f"{name} typed, T = 1")
    # leaving the box applies the sentence (the server's run of it, the link); then a drag of the
    # slider (T in every layer: the page's default scope) is answered here, again without a message
    page.keyboard.press("Tab")
    page.wait_for_function(f"() => new URLSearchParams(location.search).get('text') === {TEXT!r}", timeout=60_000)
    page.wait_for_function(live_ready(KEY), timeout=60_000)
    settle(page)
    sent = Sent(page)
    drag_temperature(page, 0.8)  # T about 6
    page.wait_for_function(f"() => {view_js(KEY)}.panelSource(1) === 'browser'", timeout=30_000)
    assert sent.frames == 0, f"{sent.frames} websocket messages during the drag"
    T = view_api(page, KEY, "v.state.ltemp")
    assert T > 1.5
    check(page, m, TEXT, kinds[0], {"temperature": T}, f"{name} dragged to T = {T}")
    note = page.locator(".av-temp-note").inner_text()
    assert "in your browser" in note and "every layer" in note, note
    page.mouse.up()
    page.wait_for_function("() => location.search.includes('temp=')", timeout=20_000)
    settle(page)
    # the other kinds, and T in one layer (?tlayer: the model's layer n; the translator's every
    # attention of it), through the view's test API: the moves the slider makes
    layer = m.config.num_layers - 1
    for kind, t in zip(kinds, (0.5, 3.0, 0.2)):  # sharper, flatter: one T a kind (the suite's time)
        goto(
            page,
            f"{app_server.url}/temperature?model={name}&kind={kind}&tlayer={layer + 1}&text={TEXT.replace(' ', '+')}",
        )
        wait_live(page, KEY, 60)
        view_move(page, KEY, ltemp=t)
        settings = {"temperature": t, "temperature_layer": layer}
        check(page, m, TEXT, kind, settings, f"{name} {kind} T = {t} in layer {layer + 1}")
        tr = m.trace(TEXT, **settings)
        if tr.output_text:  # the translator's greedy output at T, decoded in the browser
            out = page.locator(".av-live-output").inner_text()
            assert text_in("en", "av_live_output_t").split(" (")[0].replace("{t}", "") in out, out
            assert out.endswith(tr.output_text), (out, tr.output_text)
        note = page.locator(".av-temp-note").inner_text()
        assert "in your browser" in note and f"layer {layer + 1} only" in note, note
    assert not page.rec.errors, page.rec.errors


def test_the_server_release_and_the_browser_agree_and_the_export_says_which(app_server, new_page, published):
    """After the release the server's re-run at T arrives (the link's, a room's); the browser's
    run replaces it and the two are the same numbers; the CSV says which side re-ran the model."""
    import csv

    m = model.load("gpt")
    page = new_page()
    goto(page, f"{app_server.url}/temperature?model=gpt&head=1&q=2&temp=0.3")
    wait_live(page, KEY, 60)
    page.wait_for_function(f"() => {view_js(KEY)}.panelSource(1) === 'browser'", timeout=30_000)
    T = view_api(page, KEY, "v.state.ltemp")
    assert T == pytest.approx(0.3)
    check(page, m, DEFAULT_TEXT, "decoder", {"temperature": T}, "gpt ?temp=0.3")
    server = view_api(page, KEY, "v.weightsAt(1, 2, 0, 1)")  # source 1: the server's re-run at T
    np.testing.assert_allclose(server, view_api(page, KEY, "v.panelAt(1, 2, 0)"), atol=TOL, rtol=0)
    with page.expect_download() as dl:
        page.locator(".av-x-csv").click()
    rows = list(csv.DictReader(open(dl.value.path(), encoding="utf-8")))
    scopes = {r["panel"]: r["temperature_scope"] for r in rows}
    assert set(scopes.values()) == {"this layer only", "the model re-run in the browser"}, scopes

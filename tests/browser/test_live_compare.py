"""Compare answered by the model in the student's browser (issue 48): A and B both run by our ONNX
graphs in onnxruntime-web (ui/attention_view/live.js, view.js's panels): A on the sidebar's
sentence as it is typed, B on sentence B, or on the typed sentence with B's one difference (the
other model, T in every layer, positions off). Every panel, layer and head equals the PyTorch
traces within 1e-5 for every shipped model (and B - A their difference), with no websocket
message while typing. The untrained comparison stays the server's (a snapshot; the translator's
B reads A's output), and says so; a browser without WebAssembly gets the server's panels."""

from __future__ import annotations

from urllib.parse import quote

import numpy as np
import pytest

import model
from model.registry import read_config
from ui.context import DEFAULT_TEXT

from .helpers import MODELS, goto, open_without_webassembly, type_in_box, view_api, view_js, wait_live

pytestmark = pytest.mark.slow
TOL = 1e-5
KEY = "cmp_view"
TYPED = " and the dog sat"
TEXT = DEFAULT_TEXT + TYPED
TEXT_B = "The dog sat on the mat"


def panels(page, i: int, n_layers: int, n_heads: int, shape) -> np.ndarray:
    """(layers, heads, Q, K): what panel i draws for every layer and head, as the browser has it."""
    flat = view_api(
        page,
        KEY,
        f"Array.from({{length: {n_layers}}}, (_, la) => Array.from({{length: {n_heads}}}, (_, h) => v.panelAt({i}, la, h)))",
    )
    return np.array(flat, dtype=float).reshape(n_layers, n_heads, *shape)


def comparisons(name: str) -> list[tuple[str, str, dict, dict]]:
    """(link, label, A's trace settings, B's): the comparisons the browser answers on NAME, every
    one on the GPT and the translator; on the other GPTs (the same graph but for their positions)
    positions off, where they differ (the suite's time: each comparison is a page run)."""
    others = [n for n in model.NAMES if n != name and read_config(n)[0].arch == read_config(name)[0].arch]
    every = [
        ("cmp=positions", "positions", {}, {"use_position": False}),
        (f"cmp=sentences&text2={quote(TEXT_B)}", "sentences", {}, {"text": TEXT_B}),
        ("cmp=temperatures&ta=0.5&tb=3", "temperatures", {"temperature": 0.5}, {"temperature": 3.0}),
        *[(f"cmp=models&model2={other}", "models", {}, {"model": other}) for other in others[:1]],
    ]
    return every if name in ("gpt", "translator") else every[:1]


def trace(name: str, text: str, settings: dict):
    s = dict(settings)
    m = model.load(s.pop("model", name))
    return m.trace(s.pop("text", text), **s)


@pytest.mark.parametrize("name", MODELS)
def test_both_runs_in_the_browser_equal_pytorch(app_server, new_page, published, name):
    c = model.load(name).config
    kind = "cross" if name == "translator" else "decoder"
    page = new_page()
    for i, (link, label, a_set, b_set) in enumerate(comparisons(name)):
        goto(page, f"{app_server.url}/compare?model={name}&ckind={kind}&{link}")
        wait_live(page, KEY, 60)
        text = DEFAULT_TEXT
        if i == 0:  # typing: A (and every B that reads the box's sentence) re-run here, nothing sent
            assert type_in_box(page, KEY, TYPED) == 0, "websocket messages while typing"
            text = TEXT
        ta, tb = trace(name, text, a_set), trace(name, text, b_set)
        wa, wb = ta.attention[kind].weights, tb.attention[kind].weights
        assert view_api(page, KEY, "v.source") == "browser", label
        got_a = panels(page, 0, c.num_layers, c.num_heads, wa.shape[2:])
        got_b = panels(page, 1, c.num_layers, c.num_heads, wb.shape[2:])
        np.testing.assert_allclose(got_a, wa, atol=TOL, rtol=0, err_msg=f"{name} {label}: A")
        np.testing.assert_allclose(got_b, wb, atol=TOL, rtol=0, err_msg=f"{name} {label}: B")
        q, k = min(wa.shape[2], wb.shape[2]), min(wa.shape[3], wb.shape[3])
        diff = panels(page, 2, c.num_layers, c.num_heads, (q, k))
        np.testing.assert_allclose(diff, wb[..., :q, :k] - wa[..., :q, :k], atol=2 * TOL, rtol=0, err_msg=label)
    assert not page.rec.errors, page.rec.errors


def test_the_untrained_comparison_stays_on_the_server(app_server, new_page, published):
    page = new_page()
    goto(page, f"{app_server.url}/compare?model=gpt&cmp=trained")
    page.wait_for_function(f"() => {view_js(KEY)} && {view_js(KEY)}.ready", timeout=60_000)
    assert view_api(page, KEY, "v.liveReason") == "off"  # no in-browser path: the server's panels
    want = model.load("gpt@0").trace(DEFAULT_TEXT).attention["decoder"].weights
    np.testing.assert_allclose(view_api(page, KEY, "v.panelAt(1, 2, 0)"), want[2, 0].ravel(), atol=1e-6, rtol=0)


def test_without_webassembly_compare_is_the_servers_and_says_so(app_server, new_page, published):
    page = open_without_webassembly(new_page, f"{app_server.url}/compare?model=gpt&cmp=positions", KEY)
    want = model.load("gpt").trace(DEFAULT_TEXT, use_position=False).attention["decoder"].weights
    np.testing.assert_allclose(view_api(page, KEY, "v.panelAt(1, 2, 0)"), want[2, 0].ravel(), atol=1e-6, rtol=0)

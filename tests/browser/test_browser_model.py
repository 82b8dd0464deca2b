"""The whole model in the browser (issue 48): headless Chromium loads onnxruntime-web, our ONNX
graphs, the tokenizer and ui/browser_model's modules from the app's own origin (Streamlit's static
serving), tokenizes a sentence, runs the GPT's and the translator's forward with each knob set,
and every layer's attention and the logits equal the PyTorch trace within 1e-5; 0 requests leave
the app's origin. The translator's greedy output is decoded in the browser, as the app decodes it.

The graphs are exported into static/models/ on the first run (python -m model export-onnx, about
10 s a model; later runs find them current) and ui/browser_model/install.sh puts the runtime in
place (scripts/test has run it already): bench/browser_model.publish."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import model
from bench.browser_model import publish
from model import intervention
from model.config import settings_from
from model.tokenizer import BOS, EOS

pytestmark = pytest.mark.slow
TOL = 1e-5
BASE = "/app/static"


@pytest.fixture(scope="module")
def published():
    publish()


class Outside:
    """Every request the page makes whose origin is not the app's."""

    def __init__(self, page, origin: str):
        self.urls: list[str] = []
        page.on("request", lambda r: self._seen(r.url, origin))

    def _seen(self, url: str, origin: str) -> None:
        if not (url.startswith(origin + "/") or url.startswith(("data:", "blob:"))):
            self.urls.append(url)


def open_origin(new_page, app_server):
    """A page of the app's origin with nothing of Streamlit's running (its health address)."""
    page = new_page()
    outside = Outside(page, app_server.url)
    page.goto(app_server.url + "/_stcore/health", wait_until="domcontentloaded")
    return page, outside


RUN_JS = """async ({base, name, text, knobs, translate, bos}) => {
  const { BrowserModel, loadTokenizer } = await import(base + '/browser_model/model.js');
  const tok = await loadTokenizer(base);
  const m = await BrowserModel.load(base, name);
  const ids = tok.encode(text);
  const toList = (t) => ({data: Array.from(t.data), dims: t.dims});
  const answers = [];
  for (const k of knobs) {
    let tokens, greedy = null;
    if (translate) {
      greedy = await m.translate(ids, translate.start, translate.eos, k);
      tokens = {src: ids, tgt: greedy};
    } else {
      tokens = {ids: [bos, ...ids]};
    }
    const out = await m.forward(tokens, k);
    const weights = {}, scores = {};
    for (const kind of m.meta.kinds) { weights[kind] = toList(out.weights[kind]); scores[kind] = toList(out.scores[kind]); }
    answers.push({ids, greedy, logits: toList(out.logits), weights, scores});
  }
  return answers;
}"""


def js_knobs(s: dict) -> dict:
    """The trace's keywords as BrowserModel's knobs."""
    return {
        "temperature": s.get("temperature", 1.0),
        "temperatureLayer": s.get("temperature_layer"),
        "headsOff": [list(h) for h in s.get("ablate", ())],
        "ablation": s.get("how", "zero"),
        "usePosition": s.get("use_position", True),
    }


def cases(runner):
    L = runner.config.num_layers
    kinds = runner.kinds
    off = [(kinds[0], 0, 1), (kinds[-1], L - 1, 2)]
    return [
        {},
        {"temperature": 0.5},
        {"temperature": 4.0, "temperature_layer": L - 1},
        {"use_position": False},
        *({"ablate": off, "how": how} for how in intervention.ABLATIONS),
        {"temperature": 2.0, "temperature_layer": 0, "use_position": False, "ablate": off, "how": "mean"},
    ]


def array(t: dict) -> np.ndarray:
    return np.asarray(t["data"], dtype=np.float64).reshape(t["dims"])


def close(got, want, scale=False) -> float:
    d = float(np.abs(got - np.asarray(want, dtype=np.float64)).max())
    return d / max(1.0, float(np.abs(want).max())) if scale else d


@pytest.mark.parametrize("name, text", [("gpt", "The dog saw the man in the garden"), ("translator", "猫坐在垫子上。")])
def test_the_browser_runs_the_model_as_pytorch_does(published, app_server, new_page, name, text):
    runner = model.load(name, device="cpu")
    page, outside = open_origin(new_page, app_server)
    knobs = cases(runner)
    translate = None
    if runner.kind == "translator":
        translate = {"start": runner.start_token(runner.direction(text)), "eos": EOS}
    got = page.evaluate(
        RUN_JS,
        {
            "base": BASE,
            "name": name,
            "text": text,
            "knobs": [js_knobs(s) for s in knobs],
            "translate": translate,
            "bos": BOS,
        },
    )
    assert len(got) == len(knobs)
    for s, answer in zip(knobs, got):
        record: dict = {}
        tr = runner.trace(text, record=record, **s)
        if runner.kind == "translator":
            assert answer["ids"] == record["encoder_ids"][0].tolist()  # the browser's tokenizer
            assert answer["greedy"] == record["decoder_ids"][0].tolist(), s  # the browser's translation
            tensors = (record["encoder_ids"], record["decoder_ids"])
        else:
            assert [BOS, *answer["ids"]] == record["decoder_ids"][0].tolist()
            tensors = (record["decoder_ids"],)
        iv = intervention.build(runner, s.get("ablate"), s.get("how", "zero"))
        settings = settings_from(s.get("temperature", 1.0), s.get("temperature_layer"), s.get("use_position", True), iv)
        with torch.no_grad():
            logits = runner.module(*tensors, settings)[0][0].numpy()
        assert close(array(answer["logits"])[0], logits, scale=True) < TOL, s
        for kind in tr.kinds():
            assert close(array(answer["weights"][kind]), tr.attention[kind].weights) < TOL, (s, kind)
            stack, part = ("encoder", "self_attn") if kind == "encoder" else ("decoder", "self_attn")
            part = "cross_attn" if kind == "cross" else part
            scores = np.stack([layer[part]["scores"][0].numpy() for layer in record[stack]])
            visible = scores > -1e8
            got_scores = array(answer["scores"][kind])
            assert ((got_scores > -1e8) == visible).all()
            assert close(got_scores[visible], scores[visible], scale=True) < TOL, (s, kind)
    assert not page.rec.errors, page.rec.errors
    assert outside.urls == [], outside.urls  # the runtime, the graph, the tokenizer: all from the app


def test_the_forward_time_bench_runs_at_its_smallest_size(published, app_server, new_page):
    """bench/browser_model.py's figure at 16 tokens, a few runs, normal and 4x throttled."""
    from bench import browser_model

    page, outside = open_origin(new_page, app_server)
    rows = browser_model.measure(page, BASE, sizes=(16,), runs=3, rates=(1, 4))
    assert [(r["tokens"], r["cpu_slowdown"]) for r in rows] == [(16, 1), (16, 4)]
    for r in rows:
        assert r["runs"] == 3 and 0 < r["median_ms"] <= r["max_ms"] < 10_000, r
    assert outside.urls == []


CAN_RUN_JS = """async ({base}) => {
  const { canRun, BrowserModel } = await import(base + '/browser_model/model.js');
  const can = canRun();
  let loaded = null;
  try { await BrowserModel.load(base, 'gpt'); loaded = 'loaded'; } catch (e) { loaded = e.reason || String(e); }
  return {can, loaded};
}"""


@pytest.mark.parametrize(
    "init, reason",
    [
        ("", None),
        ("delete window.WebAssembly;", "no-webassembly"),
        ("WebAssembly.validate = () => false;", "no-simd"),
        ("Object.defineProperty(Navigator.prototype, 'deviceMemory', {get: () => 0.5});", "memory"),
    ],
)
def test_a_browser_that_cannot_run_the_model_says_why(published, app_server, new_page, init, reason):
    """No WebAssembly, no SIMD or too little memory: canRun() says which, and loading the model
    fails with that reason instead of a runtime error halfway (the page's fallback to the server)."""
    page = new_page(fresh=True)
    if init:
        page.add_init_script(init)
    page.goto(app_server.url + "/_stcore/health", wait_until="domcontentloaded")
    got = page.evaluate(CAN_RUN_JS, {"base": BASE})
    assert got["can"] == {"ok": reason is None, "reason": reason}
    assert got["loaded"] == ("loaded" if reason is None else reason)

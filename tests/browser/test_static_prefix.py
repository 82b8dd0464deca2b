"""The app served under a URL prefix (server.baseUrlPath, as behind a proxy at /explorer/): the
in-browser model's runtime (onnxruntime-web), its modules, the GPT's graph and the tokenizer load
from the prefixed static path ui.static_url.static_base gives, and the forward it runs equals
PyTorch's; every request stays under the prefix and none fails. Without the prefix the same files
are not there (the prefixed path is the one that served them)."""

from __future__ import annotations

import urllib.error
import urllib.request

import numpy as np
import pytest
import torch

import model
from bench.browser_model import publish
from drive.server import SCREENSHOTS, AppServer
from model.config import settings_from
from model.tokenizer import BOS
from ui.static_url import static_base

pytestmark = pytest.mark.slow
PREFIX = "explorer/class"  # two levels: a prefix is not one word

FORWARD_JS = """async ({base, text, bos}) => {
  const { BrowserModel, loadTokenizer } = await import(base + '/browser_model/model.js');
  const tok = await loadTokenizer(base);
  const m = await BrowserModel.load(base, 'gpt');
  const ids = [bos, ...tok.encode(text)];
  const out = await m.forward({ids});
  return {ids, logits: Array.from(out.logits.data), dims: out.logits.dims,
          weights: Array.from(out.weights.decoder.data), wdims: out.weights.decoder.dims};
}"""


@pytest.mark.parametrize(
    "option, base",
    [("", "/app/static"), ("/", "/app/static"), ("explorer", "/explorer/app/static"), ("/a/b/", "/a/b/app/static")],
)
def test_static_base_puts_the_prefix_before_app_static(option, base):
    assert static_base(option) == base


@pytest.fixture(scope="module")
def prefixed():
    publish(("gpt",))
    server = AppServer(args=["--server.baseUrlPath", PREFIX], log=SCREENSHOTS / "static-prefix.log")
    server.url += "/" + PREFIX  # the app's address, health check included, is under the prefix
    server.start()
    yield server
    server.stop()


def test_the_in_browser_model_loads_from_the_prefixed_static_path(prefixed, new_page):
    origin = prefixed.url.split("/" + PREFIX)[0]
    page = new_page()
    requests, failed = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("requestfailed", lambda r: failed.append(r.url))
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.goto(prefixed.url + "/_stcore/health", wait_until="domcontentloaded")
    base = static_base(PREFIX)
    text = "The dog saw the man in the garden"
    got = page.evaluate(FORWARD_JS, {"base": base, "text": text, "bos": BOS})

    runner = model.load("gpt", device="cpu")
    record: dict = {}
    tr = runner.trace(text, record=record)
    assert got["ids"] == record["decoder_ids"][0].tolist()  # the tokenizer came, and reads as SentencePiece
    with torch.no_grad():
        logits = runner.module(record["decoder_ids"], settings_from(1.0, None, True, None))[0][0].numpy()
    assert np.abs(np.asarray(got["logits"]).reshape(got["dims"])[0] - logits).max() < 1e-5 * max(
        1, np.abs(logits).max()
    )
    w = np.asarray(got["weights"]).reshape(got["wdims"])
    assert np.abs(w - tr.attention["decoder"].weights).max() < 1e-5

    assert not failed, failed
    loaded = [u for u in requests if not u.startswith(("data:", "blob:"))]
    assert all(u.startswith(f"{origin}/{PREFIX}/") for u in loaded), loaded
    for part in (
        "/ort/ort.wasm.min.mjs",
        "/ort/",
        "/browser_model/model.js",
        "/models/gpt.onnx",
        "/models/tokenizer.model",
    ):
        assert any(u.startswith(origin + base) and part in u for u in loaded), (part, loaded)
    # the runtime's wasm and the graph as their gzipped copies, unpacked in the browser (model.js,
    # fetchBytes): the server compresses nothing per request
    assert any(u.endswith(".wasm.gz") and u.startswith(origin + base + "/ort/") for u in loaded), loaded
    assert any(u.endswith("/models/gpt.onnx.gz") for u in loaded), loaded
    # the unprefixed path serves none of it: the prefix is what found the files
    with pytest.raises(urllib.error.HTTPError):
        urllib.request.urlopen(f"{origin}/app/static/models/gpt.json", timeout=10)

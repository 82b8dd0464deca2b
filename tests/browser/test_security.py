"""Hostile and odd input, in the browser and in-process: nothing a visitor types or puts in a link
runs as code, breaks a page, leaks into another session or grows the server without bound; a
damaged install says what to do instead of showing a traceback; a GPU out of memory falls back to
the CPU.
"""
from __future__ import annotations

import os
import shutil
import urllib.error
import urllib.request
from urllib.parse import quote, urlparse

import numpy as np
import pytest
import torch
from playwright.sync_api import Error as PlaywrightError

from .helpers import (AppServer, SIDEBAR, ROOT, click_and_settle, exceptions, goto, nav_links,
                      plot_summaries, screenshot, settle, sidebar_text, submit_text)

PAYLOADS = {
    "empty": "",
    "whitespace": "   \n\t   ",
    "long": ("The cat sat on the mat. " * 420)[:10_000],
    "emoji": "The 🐱 sat on the 🧶 👍🏽",
    "chinese": "猫坐在垫子上",
    "arabic": "جلست القطة على الحصيرة",
    "zero_width": "The\u200bcat\u200c sat\u200d on\ufeff the\u2060 mat",
    "control": "The\x07cat\x1b[31m sat\x08 on\x7f the mat\x0b",
    "script": "<script>alert(1)</script>",
    "img": "<img src=x onerror=alert(1)>",
    "svg": '"><svg onload=alert(1)>',
}
XSS = ("script", "img", "svg")
URL_PARAMS = ("text", "lang", "model", "device", "present", "layer", "head", "q", "kind", "words", "temp")

# anything of the payloads that became markup: an inline handler, the <img>, a script
INJECTED = """() => {
  const bad = [];
  for (const el of document.querySelectorAll('*')) {
    for (const a of el.attributes) {
      if (a.name.startsWith('on') && /alert/.test(a.value)) bad.push(`<${el.tagName} ${a.name}=${a.value}>`);
    }
  }
  if (document.querySelector("img[src='x']")) bad.push('img[src=x]');
  for (const s of document.querySelectorAll('script')) {
    if (/alert\\(1\\)/.test(s.textContent)) bad.push('script: ' + s.textContent.slice(0, 80));
  }
  return bad;
}"""


def findings(page, name: str, payload: str) -> list[str]:
    out = [f"exception: {e[:400]}" for e in exceptions(page)]
    out += [f"injected: {b}" for b in page.evaluate(INJECTED)]
    out += [f"dialog: {d}" for d in page.rec.dialogs]
    main = page.locator("[data-testid='stMain']").inner_text()
    if name == "long" and "cut to its first" not in main:
        out.append("no truncation notice for 10,000 characters")
    if name in ("empty", "whitespace") and "Type a sentence" not in main:
        out.append("no hint to type a sentence")
    if name not in ("empty", "whitespace") and not [p for p in plot_summaries(page) if p["visible"]]:
        out.append("no chart drawn")
    return out


def open_page(new_page, url):
    page = new_page()
    goto(page, url)
    return page


def page_url(app_server, path):
    return app_server.url + path


def tag(path: str) -> str:
    return path.strip("/") or "home"


# home gets every payload; the attention explorer (more places that show tokens: pills, table,
# head view, roles) the ones that could break markup or layout
SIDEBAR_CASES = {"/": tuple(PAYLOADS), "/attention": ("long", "zero_width", "control", "arabic", *XSS)}


@pytest.mark.parametrize("path", list(SIDEBAR_CASES))
def test_hostile_sentences_in_the_sidebar(app_server, new_page, path):
    page = open_page(new_page, page_url(app_server, path))
    assert not exceptions(page), exceptions(page)
    report = {}
    for name in SIDEBAR_CASES[path]:
        payload = PAYLOADS[name]
        submit_text(page, payload)
        found = findings(page, name, payload)
        if name == "long" and "text=" in page.url:
            found.append("a 10,000-character sentence was put in the address bar")
        if found:
            report[name] = found
            screenshot(page, f"security-sidebar-{tag(path)}-{name}")
    screenshot(page, f"security-sidebar-{tag(path)}")
    assert not report, "\n".join(f"{k}: {v}" for k, v in report.items())


def http_get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read(2000).decode(errors="replace")
    except urllib.error.HTTPError as e:
        try:
            return e.code, e.read(2000).decode(errors="replace")
        except OSError:                 # the server closed the connection after its answer
            return e.code, ""


def hostile_query(payload: str) -> str:
    return "&".join(f"{p}={quote(payload, safe='')}" for p in URL_PARAMS)


@pytest.mark.parametrize("path", ["/", "/attention"])
def test_hostile_values_in_the_link(app_server, new_page, path):
    """Every view setting of the link set to each payload: defaults with a notice, nothing runs."""
    page = new_page()
    report = {}
    for name, payload in PAYLOADS.items():
        url = f"{app_server.url}{path}?{hostile_query(payload)}"
        try:
            response = page.goto(url, wait_until="domcontentloaded")
        except PlaywrightError:
            response = None
        if response is None or response.status >= 400:
            # the server refused the address (the 10,000-character one is ~300 kB): fine, as long
            # as it says so plainly
            status, body = http_get(url)
            if status < 400 or "Traceback" in body:
                report[name] = [f"the page did not load, yet HTTP {status}: {body[:200]!r}"]
            page = new_page()  # a refused navigation can leave the tab unusable for the next one
            continue
        try:
            settle(page)
        except TimeoutError as e:
            report[name] = [str(e)]
            continue
        found = [f for f in findings(page, name, payload) if not f.startswith("no ")]
        notices = " ".join(page.locator("[data-testid='stAlert']").all_inner_texts())
        if payload.strip() and "not valid" not in notices:
            found.append("no notice that the link's values are not valid")
        if name in XSS and "alert(1)" not in notices:
            found.append("the notice does not show the bad value as text")
        if found:
            report[name] = found
            screenshot(page, f"security-link-{tag(path)}-{name}")
    assert not report, "\n".join(f"{k}: {v}" for k, v in report.items())


def mixed_hostile_query() -> str:
    """Every view setting set to one of the three markup payloads, in turn."""
    return "&".join(f"{p}={quote(PAYLOADS[XSS[i % len(XSS)]], safe='')}" for i, p in enumerate(URL_PARAMS))


def test_every_page_survives_a_hostile_link(app_server, browser, new_page):
    ctx = browser.new_context()
    first = ctx.new_page()
    goto(first, app_server.url)
    pages = nav_links(first, app_server.url)
    ctx.close()
    page = new_page()
    report = {}
    for url in pages:
        page.goto(f"{url.rstrip('/')}?{mixed_hostile_query()}", wait_until="domcontentloaded")
        settle(page)
        found = [f for f in findings(page, "script", PAYLOADS["script"]) if not f.startswith("no ")]
        if found:
            report[url] = found
            screenshot(page, f"security-link-every-page-{tag(urlparse(url).path)}")
    assert not report, "\n".join(f"{k}: {v}" for k, v in report.items())


def test_two_visitors_do_not_see_each_others_sentence(app_server, new_page):
    a, b = open_page(new_page, app_server.url), open_page(new_page, app_server.url)
    submit_text(a, "The dog barked at the cat")
    submit_text(b, "狗咬人")
    # each reruns once more (a language switch and back) after the other one typed
    for page in (a, b):
        click_and_settle(page.locator(SIDEBAR).get_by_text("中文", exact=True), page)
        click_and_settle(page.locator(SIDEBAR).get_by_text("English", exact=True), page)
    for page, mine, theirs in ((a, "dog", "狗"), (b, "狗", "dog")):
        value = sidebar_text(page).input_value()
        tokens = " ".join(" ".join(p["y"] or []) for p in plot_summaries(page) if p["visible"])
        assert mine in value and theirs not in value, value
        assert mine in tokens and theirs not in tokens, tokens
        assert not exceptions(page)


# -- bounded caches (in-process) -----------------------------------------------------------------
def rss_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads RSS from /proc (Linux)")
def test_trace_cache_stays_bounded_after_500_sentences(monkeypatch):
    """500 distinct long sentences through ui.cache.trace: the cache keeps max_entries (200), so
    memory after 500 grows far less than 300 more traces would take."""
    monkeypatch.setenv("ATTN_RANDOM_WEIGHTS", "1")   # only used when no trained file exists
    from ui import cache

    cache.trace.clear()
    rng = np.random.default_rng(0)
    vocab = "the cat dog sat on mat ran big small red blue house tree bird sang".split()

    def sentence(i):
        return f"s{i} " + " ".join(rng.choice(vocab, size=140))   # cut to the model's 127 tokens

    torch.set_num_threads(1)
    first = cache.trace("gpt", "cpu", sentence(-1))
    per_trace = first.attention["decoder"].weights.nbytes
    for i in range(cache.TRACE_CACHE_ENTRIES):
        cache.trace("gpt", "cpu", sentence(i))
    full = rss_bytes()
    for i in range(cache.TRACE_CACHE_ENTRIES, 500):
        cache.trace("gpt", "cpu", sentence(i))
    after = rss_bytes()
    unbounded = (500 - cache.TRACE_CACHE_ENTRIES) * per_trace
    growth = after - full
    print(f"trace {per_trace / 1e3:.0f} kB; RSS {full / 1e6:.0f} MB with {cache.TRACE_CACHE_ENTRIES} "
          f"cached, {after / 1e6:.0f} MB after 500 (+{growth / 1e6:.1f} MB; unbounded would add "
          f"~{unbounded / 1e6:.0f} MB)")
    assert growth < 0.25 * unbounded, (growth, unbounded)
    cache.trace.clear()


# -- a damaged install ---------------------------------------------------------------------------
def test_corrupt_or_missing_weights_show_a_clear_message(tmp_path, browser, new_page):
    """translator: a truncated .safetensors; gpt: none at all. The app names the file and the
    command that rebuilds it; no traceback."""
    shutil.copy(ROOT / "model" / "weights" / "tokenizer.model", tmp_path / "tokenizer.model")
    from safetensors.torch import save_file
    good = tmp_path / "good.safetensors"
    save_file({"w": torch.zeros(256, 256)}, str(good))
    (tmp_path / "translator.safetensors").write_bytes(good.read_bytes()[:1000])
    good.unlink()
    server = AppServer(env={"ATTN_WEIGHTS_DIR": str(tmp_path), "ATTN_RANDOM_WEIGHTS": None},
                       log=ROOT / "screenshots" / "streamlit-damaged-weights.log").start()
    try:
        page = new_page()
        for model, reason in (("translator", "truncated"), ("gpt", "missing")):
            goto(page, f"{server.url}/?model={model}")
            text = page.locator("[data-testid='stMain']").inner_text()
            screenshot(page, f"damaged-weights-{model}")
            assert not exceptions(page), exceptions(page)
            assert "Traceback" not in text
            assert f"{model}.safetensors" in text, text[:800]
            assert f"python -m model train {model}" in text, text[:800]
    finally:
        server.stop()


# -- GPU out of memory (unit: no GPU needed) -----------------------------------------------------
def test_cuda_out_of_memory_falls_back_to_the_cpu_once_with_a_notice(monkeypatch):
    import model

    runner = model.load("gpt", device="cpu", random_weights=True)
    expected = runner.trace("The cat sat on the mat").attention["decoder"].weights
    runner.device = torch.device("cuda")              # pretend: this torch build has no CUDA
    monkeypatch.setattr(runner, "_tensor", lambda ids, device: torch.tensor([ids], dtype=torch.long))
    calls = []
    real_forward = runner.module.forward

    def forward(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB (simulated)")
        return real_forward(*args, **kwargs)

    monkeypatch.setattr(runner.module, "forward", forward)
    tr = runner.trace("The cat sat on the mat")
    assert len(calls) == 2, "the CPU run did not follow the failed GPU run"
    assert runner._cpu_copy is not None and next(runner._cpu_copy.parameters()).device.type == "cpu"
    assert any("ran out of memory" in n and "CPU" in n for n in tr.notices), tr.notices
    np.testing.assert_allclose(tr.attention["decoder"].weights, expected, atol=1e-6)
    # the next request tries the GPU again (memory may be free by then)
    tr2 = runner.trace("The dog barked")
    assert len(calls) == 3 and not any("ran out of memory" in n for n in tr2.notices)


def test_out_of_memory_on_the_cpu_is_not_hidden(monkeypatch):
    import model

    runner = model.load("gpt", device="cpu", random_weights=True)

    def forward(*args, **kwargs):
        raise torch.OutOfMemoryError("simulated")

    monkeypatch.setattr(runner.module, "forward", forward)
    with pytest.raises(torch.OutOfMemoryError):
        runner.trace("The cat sat on the mat")

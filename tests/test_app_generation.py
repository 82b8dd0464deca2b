"""The generation page in AppTest: Step and Run, the same text for the same seed (as the runner
writes it), greedy / top-k 1 / top-p 0.01, an empty prompt, the translator's notice, bad links
clamped with a notice, and the link that opens the text in the attention page."""

from __future__ import annotations

import json

import apptest
import pytest
from apptest import notices
from streamlit.testing.v1 import AppTest

from ui import cache
from ui.context import DEFAULT_TEXT
from ui.safe import md

PAGE = "pages/generation.py"
TIMEOUT = 90


def open_page(model_name: str = "gpt", **params) -> AppTest:
    return apptest.open_page(PAGE, model_name, TIMEOUT, **params)


def chart(at: AppTest, index: int) -> dict:
    return json.loads(at.get("plotly_chart")[index].proto.spec)


def shows_tokens(at: AppTest, gen) -> bool:
    """The caption under the text lists exactly the generated tokens."""
    want = " · ".join(md(s.token) for s in gen.steps)
    return any(c.value == want for c in at.caption)


def expected(name="gpt", prompt=DEFAULT_TEXT, n=20, temperature=1.0, top_k=None, top_p=None, seed=0):
    return cache.runner(name, "auto").generate(
        prompt, max_new_tokens=n, temperature=temperature, top_k=top_k, top_p=top_p, seed=seed
    )


def test_step_then_run_writes_the_runners_text_for_the_seed():
    at = open_page("gpt", seed=3)
    assert any("Nothing generated yet" in i.value for i in at.info)
    at.button(key="gen_step").click().run()
    assert not at.exception
    want = expected(seed=3)
    assert at.session_state["gen_runs"][("gpt", DEFAULT_TEXT, 1.0, 0, 1.0, 3)] == 1
    assert at.query_params["done"] == "1"
    # the bars: the drawn token highlighted, and its probability is the step's
    bars = chart(at, 0)["data"][0]
    assert "#e6550d" in bars["marker"]["color"]
    at.button(key="gen_run").click().run()
    assert not at.exception
    steps = len(want.steps)
    assert f"{steps} of at most 20" in " ".join(c.value for c in at.caption)
    assert shows_tokens(at, want)
    assert at.button(key="gen_step").disabled and at.button(key="gen_run").disabled
    # the newest token's attention: one row per layer and head
    att = chart(at, 1)["data"][0]
    cfg = cache.runner("gpt", "auto").config
    assert len(att["y"]) == cfg.num_layers * cfg.num_heads


def test_a_link_with_done_reopens_the_same_steps_and_is_reproducible():
    a = open_page("gpt", done=4, seed=11, stemp=1.5)
    b = open_page("gpt", done=4, seed=11, stemp=1.5)
    want = expected(n=4, seed=11, temperature=1.5)
    assert shows_tokens(a, want) and shows_tokens(b, want)
    assert f"{len(want.steps)} of at most 20" in " ".join(c.value for c in a.caption)


def test_a_links_steps_apply_once_then_the_buttons_own_them():
    """?done= opens those steps; Step and Start again then move on from there, and the link's
    value, still in the session, never pulls the page back to it (ui/state.py's linked)."""
    want = expected(prompt="The cat sat on", seed=11, temperature=1.5)
    assert len(want.steps) >= 3, "the test needs a text of three tokens at least"
    at = open_page("gpt", done=2, seed=11, stemp=1.5, prompt="The cat sat on")
    assert shows_tokens(at, expected(prompt="The cat sat on", n=2, seed=11, temperature=1.5))
    at.button(key="gen_step").click().run()
    assert not at.exception
    assert shows_tokens(at, expected(prompt="The cat sat on", n=3, seed=11, temperature=1.5))
    assert at.query_params["done"] == "3"
    at.button(key="gen_reset").click().run()
    assert not at.exception
    assert any("Nothing generated yet" in i.value for i in at.info)
    assert "done" not in at.query_params  # 0 steps: the usual view, left out of the link


@pytest.mark.parametrize(
    "params,sampling",
    [({"topk": 1}, dict(top_k=1)), ({"topp": 0.01}, dict(top_p=0.01)), ({"stemp": 0}, dict(temperature=0.0))],
)
def test_greedy_settings_keep_only_the_most_likely(params, sampling):
    at = open_page("gpt", done=3, **params)
    want = expected(n=3, **sampling)
    assert shows_tokens(at, want)
    last = want.steps[-1]
    n = int(last.kept.sum())
    assert f"{n} tokens could be drawn" in " ".join(c.value for c in at.caption)
    colours = chart(at, 0)["data"][0]["marker"]["color"]
    assert sum(c != "#b4b4b4" for c in colours) == min(n, len(colours))  # grey: cut off
    if "topp" not in params or last.raw_probs.max() >= 0.01:
        assert n == 1


def test_empty_prompt_starts_from_bos():
    at = open_page("gpt-rope", prompt="", done=2)
    assert at.text_input(key="gen_prompt").value == ""
    assert shows_tokens(at, expected("gpt-rope", prompt="", n=2))
    assert not notices(at)


def test_translator_uses_the_gpt_with_a_notice():
    at = open_page("translator", done=1)
    assert any("uses the GPT" in i.value for i in at.info)
    assert shows_tokens(at, expected("gpt", n=1))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_on_a_projector_the_line_under_the_title_names_the_model_that_writes(lang):
    """Presentation mode hides the sidebar, so the line under the title says which model is on
    screen: the GPT this page writes with, not the translator the sidebar holds."""
    from ui.i18n import TABLE

    at = open_page("translator", done=1, present=1, lang=lang)
    lines = [c.value for c in at.caption if TABLE["present_sentence"][lang].split("{")[0] in c.value]
    assert len(lines) == 1, [c.value for c in at.caption]
    shown = TABLE["present_sentence"][lang].split("{model}")[0].split("}")[-1]  # " · model: "
    assert lines[0].endswith(shown + "gpt"), lines
    assert shows_tokens(at, expected("gpt", n=1))


@pytest.mark.parametrize(
    "params,name,value",
    [
        ({"n": 1000}, "n", 100),
        ({"seed": -1}, "seed", 0),
        ({"stemp": 99}, "stemp", 5.0),  # ui/view.py STEMP_MAX, as on the temperature page
        ({"topp": 0}, "topp", 0.01),
        ({"topk": 99999}, "topk", None),
        ({"n": "nan"}, "n", 20),
    ],
)
def test_bad_links_are_clamped_with_a_notice(params, name, value):
    at = open_page("gpt", **params)
    assert name in notices(at)
    key = "gen_" + name
    if value is None:  # top-k beyond the vocabulary: the vocabulary
        value = cache.runner("gpt", "auto").tokenizer.vocab_size
    assert at.session_state[key] == value


def test_link_to_the_attention_page_carries_the_text_and_model():
    at = open_page("gpt-alibi", done=2, prompt="The dog")
    links = at.get("page_link")
    assert len(links) == 1
    proto = links[0].proto
    assert proto.page.endswith("attention") or "attention" in proto.page
    from urllib.parse import parse_qs

    query = parse_qs(proto.query_string)
    text = expected("gpt-alibi", prompt="The dog", n=2).text
    assert query["model"] == ["gpt-alibi"] and query["text"] == [text]


def test_chinese_interface_has_every_string(page_language):
    missing = page_language("zh")
    at = open_page("gpt", lang="zh", done=2)
    assert at.title[0].value == "GPT 生成"
    assert not [k for k in missing if k.startswith("gen_")]

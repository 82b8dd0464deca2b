"""The training-timeline page in Chromium: a link opens the chosen step (slider, marker, heatmap),
the keyboard moves the slider to the next snapshot and the link follows, Play runs to the shipped
model, and the untrained model is offered in the sidebar."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from model import registry

from .helpers import act_and_settle, click_and_settle, exceptions, goto, plot_summaries, screenshot, settle

pytestmark = pytest.mark.skipif(
    not (registry.snapshots_of("translator") and registry.snapshots_of("gpt")),
    reason="needs the shipped snapshots of translator and gpt",
)


def steps(name):
    return [s["step"] for s in registry.snapshots_of(name)]


def link_step(page) -> int:
    return int(parse_qs(urlparse(page.url).query)["step"][0])


def test_link_slider_keyboard_and_play(app_server, new_page):
    page = new_page()
    ss = steps("translator")
    goto(page, f"{app_server.url}/timeline?model=translator&step={ss[0]}&kind=cross&layer=2&head=2")
    assert not exceptions(page)
    main = page.locator("[data-testid='stMain']")
    assert main.get_by_text(f"At step {ss[0]:,}:").count() == 1
    plots = [p for p in plot_summaries(page) if p["visible"]]
    assert any(p["types"] == ["heatmap"] for p in plots), plots
    assert sum(p["shapes"] >= 1 for p in plots) >= 3  # the marker on the curves, role lines
    screenshot(page, "timeline-step0")

    # the slider's thumb (a range input) takes the keyboard: one step right is the next snapshot
    thumb = page.locator("[data-testid='stSlider'] input[type='range']").first
    thumb.focus()
    assert act_and_settle(lambda: thumb.press("ArrowRight"), page), "the key ran no page"
    assert link_step(page) == ss[1]
    assert main.get_by_text(f"At step {ss[1]:,}:").count() == 1

    # play runs snapshot by snapshot to the shipped model
    click_and_settle(page.get_by_role("button", name=re.compile("Play")), page, timeout=300)
    page.wait_for_function(f"() => location.search.includes('step={ss[-1]}')", timeout=120_000)
    settle(page)
    assert main.get_by_text(f"At step {ss[-1]:,}:").count() == 1
    assert not exceptions(page)
    screenshot(page, "timeline-played")


def test_untrained_model_in_the_sidebar(app_server, new_page):
    page = new_page()
    goto(page, f"{app_server.url}/attention?model=translator@0")
    assert not exceptions(page)
    box = page.locator("section[data-testid='stSidebar'] [data-testid='stSelectbox'] input").first
    assert box.input_value() == "Translator (encoder–decoder) (untrained, step 0)"
    assert "untrained" not in page.locator("[data-testid='stMain']").inner_text()  # no error, no notice
    screenshot(page, "attention-untrained")

"""Issue 22 item 5b: during Play the timeline slider's label lagged one snapshot behind the step the
page drew (its thumb said "step 10" over "Every head at step 24"; more under load). Headless
Chromium polls both while Play runs through the translator's snapshots."""

from __future__ import annotations

import time

import pytest

from .helpers import goto, has_trained_weights

STEPS_JS = """() => {
  const th = document.querySelector("[data-testid='stSliderThumbValue']");
  const m = document.querySelector("[data-testid='stMain']").innerText.match(/Every head at step ([\\d,]+)/);
  const app = document.querySelector("[data-testid='stApp']");
  return {thumb: th ? th.innerText : null, drawn: m ? m[1] : null, script: app.getAttribute('data-test-script-state')};
}"""


def number(text: str | None) -> int | None:
    if not text:
        return None
    digits = "".join(c for c in text.split("(")[0] if c.isdigit())
    return int(digits) if digits else None


@pytest.mark.skipif(not has_trained_weights(), reason="the shipped snapshots")
def test_the_slider_shows_the_step_drawn_during_play(app_server, new_page):
    page = new_page(viewport={"width": 1400, "height": 1000})
    goto(page, f"{app_server.url}/timeline?lang=en&model=translator&step=0")
    page.get_by_role("button", name="Play").first.click()
    behind, seen, t0 = [], [], time.monotonic()
    while time.monotonic() - t0 < 90:
        r = page.evaluate(STEPS_JS)
        thumb, drawn = number(r["thumb"]), number(r["drawn"])
        if not seen or seen[-1] != (thumb, drawn):
            seen.append((thumb, drawn))
        # the slider is drawn before the charts, so it may lead the page for a moment; never lag it
        if thumb is not None and drawn is not None and thumb < drawn:
            behind.append((round(time.monotonic() - t0, 2), r["thumb"], r["drawn"]))
        if drawn == 4000 and r["script"] == "notRunning":
            break
        time.sleep(0.05)
    page.wait_for_timeout(1000)
    final = page.evaluate(STEPS_JS)
    print("thumb, drawn:", seen)
    assert not behind, behind
    assert len({d for _, d in seen if d is not None}) >= 5  # Play went through the snapshots
    assert number(final["thumb"]) == number(final["drawn"]) == 4000, final

"""The numbers written on bar charts, as a class reads them (issue 50 item 9): on a phone (390 x
844) every bar value is drawn at >= 12 px, on the projector (1280 x 800, a room open, presentation
mode) at >= 18 px, in both languages, and no two values are drawn over each other. Measured as rendered: the text's font size times the scale
Plotly applies to it (Plotly shrank outside values to their bar's width: 8.4 px on a phone, 14 px
on the projector). The generation page's bars after Step (its first chart), the lessons page's
reveal where its first step draws bars."""

from __future__ import annotations

import pytest

from ui.i18n import LANGS

from .helpers import SCREENSHOTS, goto
from .screens import PAGES, first_action, open_room_and_present
from .test_projector import go_present

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
PHONE_MIN, PROJECTOR_MIN = 12, 18
PAGES_WITH_BARS = ("generation",)  # whose first chart is bars with values (must be found)
ALSO = ("lessons",)  # measured where they draw bars

# every bar value the main area draws: its CSS font size times the scale of its transform
BAR_VALUES_JS = """() => Array.from(document.querySelectorAll("[data-testid='stMain'] svg text.bartext"))
  .filter(t => t.textContent.trim() && t.getBoundingClientRect().width > 0)
  .map(t => {
    const m = t.getScreenCTM(), svg = t.ownerSVGElement.getScreenCTM();
    const scale = Math.hypot(m.a, m.b) / Math.hypot(svg.a, svg.b);
    const r = t.getBoundingClientRect();
    return {px: Math.round(parseFloat(getComputedStyle(t).fontSize) * scale * 10) / 10, text: t.textContent,
            box: [r.left, r.top, r.right, r.bottom]};
  })"""


def overlapping(values) -> list:
    """Pairs of values drawn over each other (boxes sharing more than a pixel both ways)."""
    out = []
    for i, a in enumerate(values):
        for b in values[i + 1 :]:
            (l1, t1, r1, b1), (l2, t2, r2, b2) = a["box"], b["box"]
            if min(r1, r2) - max(l1, l2) > 1 and min(b1, b2) - max(t1, t2) > 1:
                out.append((a["text"], b["text"]))
    return out


def smallest(page) -> tuple[float | None, list]:
    values = page.evaluate(BAR_VALUES_JS)
    return (min(v["px"] for v in values) if values else None), values


@pytest.mark.parametrize("lang", list(LANGS))
def test_bar_values_are_readable_on_a_phone_and_on_the_projector(app_server, new_page, lang):
    bad, seen = [], {}

    def look(page, path: str, where: str, floor: float, full_page: bool) -> None:
        px, values = smallest(page)
        page.screenshot(path=str(SCREENSHOTS / f"bar-values-{path}-{where}-{lang}.png"), full_page=full_page)
        seen[f"{path} {where}"] = px
        if px is None and path in PAGES_WITH_BARS:
            bad.append(f"{path} {where} {lang}: no bar values drawn")
        elif px is not None and px < floor:
            bad.append(f"{path} {where} {lang}: bar values at {px} px: {values[:4]}")
        if overlapping(values):
            bad.append(f"{path} {where} {lang}: bar values drawn over each other: {overlapping(values)[:4]}")

    phone = new_page(**PHONE)
    for path in PAGES_WITH_BARS + ALSO:
        goto(phone, f"{app_server.url}/{path}?lang={lang}", 300)
        first_action(phone, path, on_screen=False)
        look(phone, path, "phone", PHONE_MIN, full_page=True)

    page = new_page(viewport={"width": 1280, "height": 800})
    goto(page, f"{app_server.url}/?lang={lang}", 300)
    open_room_and_present(page, lang, 32)
    index = {p: i for i, (p, _) in enumerate(PAGES)}
    for path in PAGES_WITH_BARS + ALSO:
        go_present(page, lang, index[path], path)
        first_action(page, path)
        look(page, path, "projector", PROJECTOR_MIN, full_page=False)
    print(f"smallest bar value ({lang}): {seen}")
    assert not bad, "\n".join(bad)

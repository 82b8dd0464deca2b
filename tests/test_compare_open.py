"""Compare opens without a warning (issue 50.9): two sentences of as many tokens are compared
position by position with nothing left out, which is what comparing sentences is, not a problem;
the warning stays for runs whose token counts differ (rows or keys are left out), in both
languages."""

from __future__ import annotations

import pytest

import model
from tests import apptest
from ui.i18n import text_in

PAGE = "pages/compare.py"


def _aligned_start(lang: str) -> str:
    return text_in(lang, "cmp_aligned", qa="\x00", qb="", ka="", kb="").split("\x00")[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("name", ["translator", "gpt"])
def test_the_default_comparison_opens_with_no_warning(name, lang):
    at = apptest.open_page(PAGE, name, 180, lang=lang)
    m = model.load(name, device="cpu")
    b = at.text_input(key="cmp_text2").value
    kind = at.session_state["cmp_kind"]
    ta, tb = (m.trace(s).attention[kind] for s in ("The cat sat on the mat", b))
    assert ta.key_tokens != tb.key_tokens  # two sentences: different tokens ...
    assert len(ta.key_tokens) == len(tb.key_tokens)  # ... as many of them: nothing left out
    assert not [w.value for w in at.warning], [w.value for w in at.warning]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_runs_of_different_token_counts_still_say_how_they_are_aligned(lang):
    at = apptest.open_page(PAGE, "gpt", 180, lang=lang, text2="The big dog sat on the old mat")
    assert any(_aligned_start(lang) in w.value for w in at.warning), [w.value for w in at.warning]

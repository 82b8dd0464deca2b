"""Gemma 3 270M on the app's pages (AppTest), as tests/test_app_smollm.py runs SmolLM2: offered in
the sidebar beside SmolLM2 when the operator offers the packaged models, its claims measured on it
(the checks the app runs when it loads it), and the explorer over every decoder page in both
languages. Slow: Gemma's 18 layers x 4 heads with a 262k-token vocabulary (the gemma fixture
loads it once per session)."""

from __future__ import annotations

import numpy as np
import pytest

from tests import apptest
from tests.conftest import GEMMA
from tests.test_app_smollm import DECODER_PAGES, shown

pytestmark = pytest.mark.slow

LABEL = (
    "Gemma 3 270M: a real pretrained model, base, English and Chinese (4-bit weights dequantized; Gemma Terms of Use)"
)


def test_offered_in_the_sidebar_and_off_when_the_operator_turns_them_off(offered_gemma, monkeypatch):
    at = apptest.open_page("pages/attention.py", "gpt")
    assert LABEL in at.selectbox(key="model").options
    monkeypatch.setenv("ATTN_HF", "0")
    at = apptest.open_page("pages/attention.py", GEMMA)
    assert at.session_state["model"] == "translator" and LABEL not in at.selectbox(key="model").options


def test_its_claims_at_load_are_measured_on_it(offered_gemma):
    """What the app runs when it loads it (analysis.claims.at_load), each against its own oracle
    recomputed here from the model's traces in numpy: a sink (first-token share at least twice the
    uniform one), a previous-token head and an induction head; "it" -> "animal", an English check,
    does not hold on it and is not claimed."""
    from analysis import claims
    from analysis.experiments import induction_probe

    found = claims.at_load(offered_gemma)
    assert {"sink", "previous", "induction", "pronoun_it"} <= set(found)
    assert found["sink"].holds and found["previous"].holds and found["induction"].holds
    assert not found["pronoun_it"].holds
    # previous-token: the mean weight on the key just before, recomputed
    w = offered_gemma.trace("The cat sat on the mat and the dog sat on the rug").attention["decoder"].weights
    prev = np.array(
        [[np.mean([w[la, h, i, i - 1] for i in range(1, w.shape[-1])]) for h in range(4)] for la in range(18)]
    )
    want = {("decoder", la, h) for la, h in zip(*np.nonzero(prev >= claims.PREVIOUS_MIN))}
    assert set(found["previous"].heads) == want and want
    # induction: on the probe's second copy, the weight on the token after the earlier occurrence
    probe, offset = induction_probe(offered_gemma, 10)
    rows = range(offset + 10, offset + 20)
    ind = np.array([[np.mean([probe[la, h, i, i - 9] for i in rows]) for h in range(4)] for la in range(18)])
    assert np.allclose(ind, found["induction"].numbers["induction"], atol=1e-6)
    # the sink: every head it names puts at least twice the uniform share on the first token
    ratio = found["sink"].numbers["ratio"]["decoder"]
    assert all(ratio[la, h] >= claims.SINK_FACTOR for _, la, h in found["sink"].heads)


def test_the_sidebar_names_its_grouped_query_and_sliding_window_layers(offered_gemma):
    at = apptest.open_page("pages/attention.py", GEMMA)
    said = " ".join(str(c.value) for c in at.sidebar.caption)
    assert "18 layers × 4 query heads" in said, said
    assert "6, 12, 18" in said and "512" in said, said


@pytest.mark.parametrize("page", DECODER_PAGES)
def test_the_explorer_runs_every_decoder_page_on_it(offered_gemma, page):
    """Each decoder page's default view in both languages on Gemma, nothing on it an error."""
    from tests import explore

    found = []
    for lang in ("en", "zh"):
        found += explore.explore(f"pages/{page}.py", GEMMA, lang, singles=False, walks=0)
    assert not found, "\n".join(str(f) for f in found[:10])


def test_chinese_on_the_attention_page_gets_no_mostly_english_notice(offered_gemma):
    at = apptest.open_page("pages/attention.py", GEMMA, text="猫坐在垫子上。它很开心。")
    assert "trained mostly on English" not in shown(at)
    assert not at.exception and not at.error, [e.value for e in at.error]

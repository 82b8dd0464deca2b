"""Home on a real pretrained model (issue 50.10), both languages: it never says the model was
trained by this project, and it explains the first token's pile-up with the numbers measured on
the sentence shown (the oracle: the first key's weight recomputed here in numpy from the trace)."""

from __future__ import annotations

import numpy as np
import pytest

from model import registry
from tests import apptest
from tests.conftest import SMOLLM
from ui.i18n import TABLE, text_in

TEXT = "The cat sat on the mat because it was tired"


def test_which_models_this_project_trained():
    assert all(registry.trained_here(n) for n in registry.PRESETS)
    assert registry.trained_here("gpt@486")
    assert not [n for n in (*registry.PACKAGED, "hf:HuggingFaceTB/SmolLM2-135M") if registry.trained_here(n)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_home_on_a_real_model_names_its_sink_and_not_our_training(offered_smollm, lang):
    at = apptest.open_page("pages/home.py", SMOLLM, text=TEXT, lang=lang)
    apptest.ok(at)
    shown = " ".join(m.value for m in at.markdown)
    assert TABLE["home_intro"][lang][-30:] not in shown  # "... trained by this project"
    assert TABLE["home_intro_hf"][lang][-30:] in shown
    att = offered_smollm.trace(TEXT).attention["decoder"]
    w = np.asarray(att.weights, np.float64)  # (L, H, Q, K), causal: row r sees r + 1 keys
    rows = np.arange(1, w.shape[2])  # the rows that see more than the first key
    share = w[:, :, rows, 0].mean(-1)
    uniform = np.mean(1.0 / (rows + 1))
    n = int(np.sum(share >= 2 * uniform))
    la, h = np.unravel_index(int(np.argmax(share)), share.shape)
    want = text_in(
        lang,
        "home_sink_True" if n else "home_sink_False",
        first=att.key_tokens[0],
        n=n,
        total=share.size,
        share=f"{share.mean():.2f}",
        uniform=f"{uniform:.2f}",
        layer=la + 1,
        head=h + 1,
        best=f"{share[la, h]:.2f}",
    )
    assert n > 0, "SmolLM2 has no sink on this sentence: the sentence to check is the other one"
    assert want in shown, (want, shown[:1500])


def test_home_on_our_model_says_nothing_of_a_sink():
    at = apptest.open_page("pages/home.py", "gpt", text=TEXT, lang="en")
    shown = " ".join(m.value for m in at.markdown)
    assert TABLE["home_intro"]["en"][-30:] in shown
    assert "first token" not in shown

"""SmolLM2-135M on the app's pages (AppTest): offered in the sidebar when the operator offers the
packaged models, and every decoder page draws it. The model is loaded once per session (the
smollm fixture); the pages find it loaded."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests import apptest
from tests.conftest import SMOLLM

PRONOUN = "The animal didn't cross the street because it was too tired"


def shown(at) -> str:
    parts = [e.value for kind in ("error", "warning", "info", "markdown", "caption") for e in getattr(at, kind)]
    return "\n".join(str(p) for p in parts)


def test_offered_in_the_sidebar_beside_the_projects_models(offered_smollm, monkeypatch):
    at = apptest.open_page("pages/attention.py", "gpt")
    label = "SmolLM2-135M: a real pretrained model, English"
    assert label in at.selectbox(key="model").options
    monkeypatch.setenv("ATTN_HF", "0")  # the operator turned Hugging Face models off
    at = apptest.open_page("pages/attention.py", SMOLLM)
    assert at.session_state["model"] == "translator" and label not in at.selectbox(key="model").options


def grid(z) -> np.ndarray:
    """A plotly heatmap's z as a full matrix: a typed array, or rows that a causal mask cut short
    (the cells past a row's end, and None, as NaN)."""
    if isinstance(z, dict):
        return apptest.array(z)
    n = max(len(row) for row in z)
    return np.array([[np.nan if v is None else v for v in row] + [np.nan] * (n - len(row)) for row in z], float)


def test_the_step_page_shows_the_shared_keys_and_values(offered_smollm):
    at = apptest.open_page("pages/steps.py", SMOLLM, text="The cat sat on the mat", layer=2, head=5)
    text = shown(at)
    assert "Query head 5 reads key/value head 2, which query heads 4, 5, 6 share" in text, text[:2000]
    assert "9 query heads but only 3 key/value heads" in text
    diff = text.split("weights by at most ")[1].split()[0].rstrip(".").replace("\\", "")
    assert float(diff) < 1e-5, diff
    # its weights are the in-browser attention view (no Plotly heatmap for them): the model's own
    # weights of layer 2, head 5 as the trace recorded them, causal mask marked, numbered from 1
    header, arrays = apptest.attention_view(at, "steps_view")
    want = offered_smollm.trace("The cat sat on the mat").attention["decoder"].weights[1, 4]
    np.testing.assert_allclose(arrays["w0"][0], want, atol=2e-6, rtol=0)
    assert np.array_equal(arrays["mask"], np.tril(np.ones(want.shape, bool)))
    assert (header["first_layer"], header["head_as"], header["view"]["q"]) == (1, 5, 1)
    # the page's Plotly charts (q, k, v, the scaled scores) hold no copy of those weights
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    grids = [grid(tr["z"]) for c in charts for tr in c["data"] if "z" in tr]
    assert len(charts) == 4 and len(grids) >= 4
    assert not [z for z in grids if z.shape == want.shape and np.allclose(np.nan_to_num(z), want, atol=1e-3)]


def test_the_attention_page_says_what_was_measured_on_it(offered_smollm):
    """The claims registry on the real model: the sink, a previous-token head, an induction head
    and "it" -> "animal", each line computed (analysis/claims.py), none written by hand."""
    from analysis import claims

    at = apptest.open_page("pages/attention.py", SMOLLM, text=PRONOUN)
    text = shown(at)
    found = {k: claims.check(k, offered_smollm) for k in ("sink", "previous", "induction", "pronoun_it")}
    assert all(c.holds for c in found.values()), {k: c.holds for k, c in found.items()}
    assert f"in {len(found['sink'].heads)} of its 270 heads" in text
    la, h = found["pronoun_it"].heads[0][1:]
    assert f"layer {la + 1} head {h + 1} give “animal”" in text
    ind = found["induction"].numbers
    la, h = ind["best"]
    assert f"The best, layer {la + 1} head {h + 1}: {ind['best_share']:.2f} of it" in text.replace("\\", ""), text
    assert ind["best_share"] >= 0.8 and ind["best_sink"] >= 0.4  # the sink takes much of that head's rows
    # every layer global: how far back a token reads, the first token aside, recomputed row by row
    from tests.test_app_gemma import reach_oracle

    reach = claims.check("reach", offered_smollm)
    want = reach_oracle(offered_smollm, claims.REACH_TEXTS)
    np.testing.assert_allclose(reach.numbers["layer"], want, atol=1e-6)
    assert not reach.holds and reach.numbers["local"] is None
    assert f"every layer is global (no sliding window); on average a token reads {want.mean():.1f} tokens back" in text


def test_the_positional_page_shows_its_rope_switched_off(offered_smollm):
    at = apptest.open_page("pages/positional.py", SMOLLM, text="The cat sat on the mat", sec="rope")
    text = shown(at)
    assert "This real model rotates every query and key" in text, text[:1500]
    on = offered_smollm.trace("The cat sat on the mat").attention["decoder"].weights
    off = offered_smollm.trace("The cat sat on the mat", use_position=False).attention["decoder"].weights
    change = np.abs(on - off).max(axis=(1, 2, 3))
    assert f"layer 1 changes by up to {change[0]:.2f}" in text.replace("\\\\", "")
    assert change.max() > 0.1  # the heads do use their positions
    # the layer shown is the link's (?rlayer, from 1) and goes back into it
    at = apptest.open_page("pages/positional.py", SMOLLM, text="The cat sat on the mat", sec="rope", rlayer=3)
    assert f"layer 3 changes by up to {change[2]:.2f}" in shown(at).replace("\\\\", "")
    assert at.query_params["rlayer"] == "3"


# the pages where a decoder-only model applies (issue 36), each explored on the real model: its
# default view in both languages, then a seeded sample of its controls in one language
DECODER_PAGES = (
    "attention",
    "temperature",
    "positional",
    "generation",
    "steps",
    "intervene",
    "compare",
    "lessons",
    "editor",
)


@pytest.mark.parametrize("page", DECODER_PAGES)
def test_the_explorer_runs_every_decoder_page_on_it(offered_smollm, page):
    from tests import explore

    found = []
    for lang in ("en", "zh"):
        found += explore.explore(f"pages/{page}.py", SMOLLM, lang, singles=False, walks=0)
    lang = ("en", "zh")[DECODER_PAGES.index(page) % 2]
    found += explore.explore(f"pages/{page}.py", SMOLLM, lang, singles=True, walks=0, relink=False, limit=4)
    assert not found, "\n".join(str(f) for f in found[:10])


@pytest.mark.parametrize("page", ["attention", "lessons"])
def test_a_page_says_it_is_loading_while_the_model_loads(offered_smollm, monkeypatch, page):
    """Not loaded yet in this process: the page says so (its load runs in a thread) and the
    sidebar still offers the project's own models; nothing waits for the load."""
    from model import hf

    started = []
    monkeypatch.setattr(hf.pretrained, "ready", lambda name, device=None: None)
    monkeypatch.setattr(hf.pretrained, "start", lambda name, device=None, after=None: started.append(name))
    at = apptest.open_page(f"pages/{page}.py", SMOLLM, lesson="real")
    assert "SmolLM2-135M: a real pretrained model, English, loading in the background" in shown(at)
    assert started and set(started) == {SMOLLM}
    assert "GPT (learned positions)" in at.selectbox(key="model").options


def test_the_sidebar_says_its_grouped_query_attention_on_every_page(offered_smollm):
    for page in ("attention", "generation", "steps"):
        at = apptest.open_page(f"pages/{page}.py", SMOLLM)
        said = " ".join(str(c.value) for c in at.sidebar.caption)
        assert "30 layers × 9 query heads" in said and "share 3 key/value head(s), 3 query heads reading each" in said


def test_the_lessons_page_opens_lesson_4_on_it(offered_smollm):
    at = apptest.open_page("pages/lessons.py", SMOLLM, lesson="real")
    text = shown(at).replace("\\", "")  # markdown's escapes
    assert not at.warning, [w.value for w in at.warning]
    assert "SmolLM2-135M, a real pretrained model (30 layers × 9 heads)" in text, text[:1500]


def test_generation_names_every_drawn_byte_piece_by_its_character(offered_smollm):
    """issue 50 item 10 on the generation page: after 小猫坐在 the steps draw pieces of
    characters; the step's title, its bars and the attention's title name characters ("座 1/2"),
    never bytes ("\\xE7"), also where the text so far ends inside a character (the bar and the
    title then say the model's own next pieces, as the other bars)."""
    at = apptest.open_page("pages/generation.py", SMOLLM, 180, text="小猫坐在", done=4)
    assert not at.exception
    gen = offered_smollm.generate("小猫坐在", max_new_tokens=4)
    tok = offered_smollm.tokenizer
    assert any(tok.piece_bytes(s.token_id) and "\\x" in tok.labels([s.token_id])[0] for s in gen.steps), (
        "no step drew a byte piece alone: the case is not reached"
    )
    titles = [h.value for h in at.subheader] + [m.value for m in at.markdown if "**" in m.value]
    ticks = json.loads(at.get("plotly_chart")[0].proto.spec)["layout"]["xaxis"]["ticktext"]
    assert not [x for x in titles + ticks if "\\x" in x or "\\\\x" in x], (titles, ticks)

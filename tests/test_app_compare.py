"""The compare page as a class uses it: its default sentence B, every comparison it offers for
every shipped model, and what the pickers show against what the charts draw."""

import numpy as np
import pytest

import model
from data import corpus
from tests import apptest
from tests.apptest import array, chart, markdown
from tests.explore import Action, do, problems
from ui.compare import PAIRS, second_sentence
from ui.safe import md

PAGE = "pages/compare.py"


def test_every_sentence_pair_and_default_b_is_inside_the_language():
    for a, b in PAIRS.items():
        assert corpus.in_language(a, prefix=False) and corpus.in_language(b, prefix=False), (a, b)
    for text in ("The cat sat on the mat", "猫坐在垫子上", "狗咬人", "The dog saw the cat"):
        b = second_sentence(text)
        assert b != text and corpus.in_language(b, prefix=False), (text, b)


def test_translator_offers_no_dead_end_and_trained_rows_read_the_trained_translation():
    at = apptest.open_page(PAGE, "translator", 180)
    offered = at.button_group(key="cmp_what").options
    assert not any("model" in o.lower() for o in offered), offered  # no other encoder-decoder ships
    assert "Sentence B" not in apptest.notices(at), "the default B is inside the language"
    at.button_group(key="cmp_what").set_value("trained").run()
    apptest.ok(at)
    assert not problems(at, "en")
    heads = [c for c in at.get("plotly_chart") if c.proto.id and "cmp_heat_a" in c.proto.id]
    import json

    a = json.loads(next(c for c in at.get("plotly_chart") if "cmp_heat_a" in (c.proto.id or "")).proto.spec)
    b = json.loads(next(c for c in at.get("plotly_chart") if "cmp_heat_b" in (c.proto.id or "")).proto.spec)
    assert heads
    rows_a = a["data"][0]["y"] if "y" in a["data"][0] else None
    rows_b = b["data"][0]["y"] if "y" in b["data"][0] else None
    reads_a = [r.split(" → ")[0] for r in rows_a]
    reads_b = [r.split(" → ")[0] for r in rows_b]
    assert reads_a == reads_b, "the untrained model reads the trained translation, row for row"


def test_sentence_b_outside_the_language_is_said_on_the_page():
    at = apptest.open_page(PAGE, "translator", 180, text2="The man bit the dog")
    assert "Sentence B" in apptest.notices(at)


@pytest.mark.parametrize("name", model.NAMES)
def test_every_comparison_of_every_model(name):
    at = apptest.open_page(PAGE, name, 180)
    opts = list(at.button_group(key="cmp_what").options)
    for i in range(len(opts)):
        assert do(at, Action("pick", "cmp_what", i))
        assert not problems(at, "en"), (name, opts[i], problems(at, "en"))


TIMEOUT = 120
TR_TEXT = "The cat sat on the mat"


def test_compare_two_sentences_difference_is_b_minus_a():
    at = apptest.open_page(
        "pages/compare.py", "translator", TIMEOUT, text="狗咬人", text2="人咬狗", ckind="encoder", clayer="1", chead="1"
    )
    m = model.load("translator", device="cpu")
    a, b = (m.trace(s).attention["encoder"].weights[0, 0] for s in ("狗咬人", "人咬狗"))
    z = chart(at, "cmp_heat_d")["data"][0]["z"]
    got = array(z) if isinstance(z, dict) else np.array(z, dtype=float)
    np.testing.assert_allclose(got, b - a, atol=1e-5)
    assert any("aligned by position" in w.value for w in at.warning)  # 狗 vs 人: the tokens differ


def test_compare_models_and_positions():
    at = apptest.open_page("pages/compare.py", "gpt", TIMEOUT, cmp="models", model2="gpt-rope")
    assert at.selectbox(key="cmp_model2").value == "gpt-rope"
    at = apptest.open_page(
        "pages/compare.py", "gpt", TIMEOUT, cmp="positions", text="The cat sat on the mat", chead="2", clayer="1"
    )
    m = model.load("gpt", device="cpu")
    b = m.trace("The cat sat on the mat", use_position=False).attention["decoder"].weights[0, 1]
    z = chart(at, "cmp_heat_b")["data"][0]["z"]
    rows = [r for r in z] if isinstance(z, list) else array(z)
    np.testing.assert_allclose(np.array(rows[-1], dtype=float), b[-1], atol=1e-5)


def test_compare_trained_against_untrained_when_the_step_0_snapshot_exists():
    snaps = getattr(model, "snapshots_of", lambda name: [])
    has_start = any(s["step"] == 0 for s in snaps("translator"))
    at = apptest.open_page(
        "pages/compare.py", "translator", TIMEOUT, text=TR_TEXT, cmp="trained", ckind="cross", clayer="2", chead="2"
    )
    options = at.get("button_group")[0].proto.options if at.get("button_group") else []
    if not has_start:  # no snapshot: the option is hidden and the link falls back to two sentences
        assert all("untrained" not in o.content for o in options)
        return
    # the untrained start reads the trained model's translation (teacher forcing), row for row
    written = model.load("translator", device="cpu").trace(TR_TEXT).output_text
    b = model.load("translator@0", device="cpu").trace(TR_TEXT, target=written).attention["cross"].weights[1, 1]
    z = chart(at, "cmp_heat_b")["data"][0]["z"]
    got = array(z) if isinstance(z, dict) else np.array(z, dtype=float)
    np.testing.assert_allclose(got.reshape(b.shape), b, atol=1e-5)
    assert md("untrained (step 0)") in markdown(at)


@pytest.mark.parametrize("name", model.NAMES)
def test_the_default_pair_shows_a_difference_and_says_what_changed(name):
    """Issue 37: compare opened on cat / dog drew a B - A of +-0.00 everywhere. The default pair
    and view are chosen by a rule (analysis/contrast.py); the map shows |B - A| >= 0.1 somewhere,
    recomputed here from the two traces, and the page says what changed."""
    from analysis.contrast import VISIBLE

    at = apptest.open_page(PAGE, name, 180)
    b = at.text_input(key="cmp_text2").value
    assert b == "The dog sat on the mat", b  # a noun swapped: both runs read the same positions
    raw = chart(at, "cmp_heat_d")["data"][0]["z"]
    cells = array(raw).ravel() if isinstance(raw, dict) else [v for r in raw for v in r if v is not None]
    drawn = float(np.nanmax(np.abs(np.asarray(cells, float))))
    assert drawn >= VISIBLE, drawn  # what the map draws (a causal row stops at the diagonal)
    kind, layer, head = at.session_state["cmp_kind"], at.session_state["cmp_layer"], at.session_state["cmp_head"]
    m = model.load(name, device="cpu")
    wa = m.trace("The cat sat on the mat").attention[kind].weights[layer].astype(np.float64)
    wb = m.trace(b).attention[kind].weights[layer].astype(np.float64)
    d = (wb - wa).mean(0) if head == "mean" else (wb - wa)[head]
    assert np.abs(d).max() >= VISIBLE
    captions = " ".join(c.value for c in at.caption)
    assert "replaced by “dog”" in captions and f"{d.flat[np.abs(d).argmax()]:+.2f}" in captions, captions
    apptest.ok(at)

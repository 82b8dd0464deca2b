"""The compare page as a class uses it: its default sentence B, every comparison it offers for
every shipped model, and what the pickers show against what the charts draw."""

import numpy as np
import pytest

import model
from data import corpus
from pages.compare_parts.choices import PAIRS, second_sentence
from tests import apptest
from tests.apptest import markdown
from tests.explore import Action, do, problems
from ui.safe import md
from viz.attention_view import at_temperature, difference

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
    header, _ = apptest.attention_view(at, "cmp_view")
    reads_a = [r.split(" → ")[0] for r in header["q_labels"]]
    reads_b = [r.split(" → ")[0] for r in header["sources"][0]["q_labels"]]
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


def views(at):
    """(header, A's arrays, B's arrays) of the compare page's attention view (ui/attention_view):
    A is its source 0, B its source 1; the panels draw A, B and B - A from them."""
    header, a = apptest.attention_view(at, "cmp_view")
    return header, a, apptest.view_source(at, "cmp_view", 1)


def shown_difference(at) -> np.ndarray:
    """The B - A panel as the browser computes it (viz.attention_view.difference, view.js's
    panelData): B minus A of the view's layer and head at its T, on the rows and keys both have."""
    header, a, b = views(at)
    v = header["view"]
    assert header["panels"][2]["diff"] == [1, 0]
    pick = lambda w: w.mean(axis=0) if v["head"] == "mean" else w[v["head"]]  # noqa: E731
    wa = pick(at_temperature(a[f"w{v['layer']}"], v["ltemp"]))
    wb = pick(at_temperature(b[f"w{v['layer']}"], v["ltemp"]))
    return difference(wb, wa)[0]


def test_compare_two_sentences_difference_is_b_minus_a():
    at = apptest.open_page(
        "pages/compare.py", "translator", TIMEOUT, text="狗咬人", text2="人咬狗", ckind="encoder", clayer="1", chead="1"
    )
    m = model.load("translator", device="cpu")
    a, b = (m.trace(s).attention["encoder"].weights[0, 0] for s in ("狗咬人", "人咬狗"))
    np.testing.assert_allclose(shown_difference(at), b - a, atol=1e-6)
    assert views(at)[0]["view"]["layer"] == 0 and views(at)[0]["view"]["head"] == 0
    # 狗咬人 vs 人咬狗: as many tokens, compared position by position with nothing left out: no warning
    assert not any("aligned by position" in w.value for w in at.warning)


def test_one_temperature_on_both_runs_in_the_shown_layer():
    """?ltemp: the view's T, applied in the browser to A's and B's shown layer (exact for T in
    that layer alone); B - A at that T is the difference of the two models' rows at T."""
    at = apptest.open_page(
        "pages/compare.py", "gpt", TIMEOUT, text2="The dog sat on the mat", clayer="2", chead="1", ltemp="3"
    )
    header, _, _ = views(at)
    assert header["view"]["ltemp"] == 3.0 and header["temperature"]
    m = model.load("gpt", device="cpu")
    a, b = (
        m.trace(s, temperature=3.0, temperature_layer=1).attention["decoder"].weights[1, 0]
        for s in ("The cat sat on the mat", "The dog sat on the mat")
    )
    np.testing.assert_allclose(shown_difference(at), b - a, atol=1e-6)
    assert at.query_params["ltemp"] == "3"
    # two temperatures already (every layer, the model re-run): no third one on top
    at = apptest.open_page("pages/compare.py", "gpt", TIMEOUT, cmp="temperatures", ta="1", tb="3", ltemp="3")
    assert not views(at)[0]["temperature"] and "ltemp" not in at.query_params


def test_compare_models_and_positions():
    at = apptest.open_page("pages/compare.py", "gpt", TIMEOUT, cmp="models", model2="gpt-rope")
    assert at.selectbox(key="cmp_model2").value == "gpt-rope"
    at = apptest.open_page(
        "pages/compare.py", "gpt", TIMEOUT, cmp="positions", text="The cat sat on the mat", chead="2", clayer="1"
    )
    m = model.load("gpt", device="cpu")
    b = m.trace("The cat sat on the mat", use_position=False).attention["decoder"].weights[0, 1]
    np.testing.assert_array_equal(views(at)[2]["w0"][1], b)


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
    np.testing.assert_allclose(views(at)[2]["w1"][1], b, atol=1e-6)
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
    drawn = float(np.abs(shown_difference(at)).max())
    assert drawn >= VISIBLE, drawn  # what the B - A panel draws (a causal row stops at the diagonal)
    kind, layer, head = at.session_state["cmp_kind"], at.session_state["cmp_layer"], at.session_state["cmp_head"]
    m = model.load(name, device="cpu")
    wa = m.trace("The cat sat on the mat").attention[kind].weights[layer].astype(np.float64)
    wb = m.trace(b).attention[kind].weights[layer].astype(np.float64)
    d = (wb - wa).mean(0) if head == "mean" else (wb - wa)[head]
    assert np.abs(d).max() >= VISIBLE
    captions = " ".join(c.value for c in at.caption)
    assert "replaced by “dog”" in captions and f"{d.flat[np.abs(d).argmax()]:+.2f}" in captions, captions
    apptest.ok(at)


@pytest.mark.parametrize("text, lang", [("A bird sang on the old tree", "en"), ("白自行车在湖里", "zh")])
def test_a_sentence_with_no_pair_and_no_noun_to_swap_is_not_called_as_contrast(text, lang):
    """A sentence with neither a pair of its own nor a noun the rule swaps gets the fixed
    fallback B; the note says so and does not call it A's contrasting sentence (it did)."""
    at = apptest.open_page(PAGE, "gpt" if lang == "en" else "translator", 180, text=text, lang=lang)
    b = at.text_input(key="cmp_text2").value
    captions = " ".join(c.value for c in at.caption)
    assert text not in PAIRS and b == ("The man bites the dog" if lang == "en" else "人咬狗"), b
    assert ("no contrasting sentence of its own" if lang == "en" else "A 没有自己的对照句") in captions, captions
    assert ("A's contrasting sentence" if lang == "en" else "B 是 A 的对照句") not in captions
    apptest.ok(at)

"""The shipped, trained models: they load from safetensors and do what the README and docs/measurements.md say."""

import json

import pytest

import model
from model import registry
from training.evaluate import evaluate


@pytest.fixture(scope="module")
def translator():
    return model.load("translator", device="cpu")


@pytest.mark.parametrize("name", model.NAMES)
def test_shipped_files_load_without_pickle(name):
    weights, config = registry.paths(name)
    assert weights.suffix == ".safetensors" and weights.stat().st_size < 20e6
    meta = json.loads(config.read_text())
    assert meta["config"]["positional"] == registry.PRESETS[name].positional
    m = model.load(name, device="cpu")
    assert m.trained and not m.notices


@pytest.mark.parametrize(
    "src,ref",
    [
        ("The cat sat on the mat", "猫坐在垫子上"),
        ("The dog bites the man", "狗咬人"),
        ("The man bites the dog", "人咬狗"),
        ("狗咬人", "The dog bites the man"),
        ("人咬狗", "The man bites the dog"),
        ("The cat sat on the mat. It was happy.", "猫坐在垫子上。它很开心。"),
    ],
)
def test_translates_the_tutorials_sentences(translator, src, ref):
    assert translator.translate([src])[0] == ref
    assert translator.trace(src).output_text == ref


def test_cross_attention_aligns_words_across_word_order(translator):
    """'The cat sat on the mat' -> '猫坐在垫子上': 垫子 comes before 上 although 'on' comes before 'mat'.
    In some head of the last layer, the query that writes 垫子 looks mostly at 'mat'."""
    tr = translator.trace("The cat sat on the mat")
    cross = tr.attention["cross"]
    q = cross.query_tokens.index("在")  # the decoder has just read 在 and now writes 垫子
    mat = cross.key_tokens.index("mat")
    assert cross.weights[-1, :, q, :].argmax(-1).tolist().count(mat) >= 1


def test_unseen_words_are_named_not_raised(translator):
    tr = translator.trace("The axolotl sat on the mat")
    assert any("axolotl" in n for n in tr.notices)


def test_evaluate_on_a_small_sample(translator):
    r = evaluate("translator", n=40, runner=translator)
    assert r["n"] == 40 and set(r["exact_match"]) == {"en-zh", "zh-en"}
    assert r["exact_match"]["en-zh"] >= 0.9 and r["exact_match"]["zh-en"] >= 0.9
    g = evaluate("gpt", n=40)
    assert g["entropy_per_sentence"] > 0 and 1.0 <= g["ratio"] < 1.3
    from data import corpus  # the corpus's true entropy, stated beside the same-items reference

    assert g["true_entropy"] == round(corpus.gpt_entropy(), 4)
    # 40 items are too few to compare with the true entropy (their mean -log p varies by a nat or
    # more): the ratio is checked as what it is, the model's mean NLL over that entropy
    assert g["ratio_true"] == pytest.approx(g["nll_per_sentence"] / g["true_entropy"], abs=2e-4)

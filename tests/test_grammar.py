"""The out-of-grammar warning: every sentence is checked against the language
the models learned (data/corpus.py's grammar). It must fire for text the grammar cannot make and
stay silent on held-out grammar sentences."""

import apptest
import pytest

import model
from data import corpus
from tests.conftest import trained

OUTSIDE = [
    "Cat the sat mat on the",
    "The cat ate. The dog ate. The bird ate.",
    "I love machine learning",
    "我喜欢吃苹果",
]


def outside(runner, text) -> bool:
    return any(getattr(n, "code", None) == "outside_language" for n in runner.ids(text)[2])


@pytest.fixture(scope="module")
def runners():
    return {name: model.load(name, device="cpu", random_weights=True) for name in ("translator", "gpt")}


@pytest.mark.parametrize("text", OUTSIDE)
def test_warning_fires_outside_the_grammar(runners, text):
    assert not corpus.in_language(text) and not corpus.in_language(text, prefix=True)
    assert outside(runners["translator"], text) and outside(runners["gpt"], text)


@pytest.mark.slow  # every held-out sentence through both models (4 s)
def test_silent_on_held_out_sentences_in_both_languages(runners):
    pairs = corpus.heldout_pairs(1000, seed=3)
    for lang in ("en", "zh"):
        texts = [getattr(p, lang) for p in pairs]
        silent = sum(not outside(runners["translator"], s) for s in texts)
        assert silent / len(texts) >= 0.99, (lang, silent)
        # the oracle: the grammar's own probability of the exact string is defined
        assert all(corpus.logprob(s, lang) is not None for s in texts)


def test_a_reader_typing_differently_is_not_warned():
    for text in [
        "the cat sat on the mat",
        "The cat  sat on the mat .",
        "THE CAT SAT ON THE MAT",
        "狗 咬 人",
        "The girl fed the dog. She was happy.",
    ]:
        assert corpus.in_language(text), text


def test_a_gpt_prompt_may_stop_mid_sentence(runners):
    assert corpus.in_language("The cat", prefix=True) and not corpus.in_language("The cat")
    assert corpus.in_language("猫坐在垫", prefix=True)
    assert not outside(runners["gpt"], "The cat") and outside(runners["translator"], "The cat")
    assert not corpus.in_language("cat The", prefix=True)


@pytest.mark.parametrize(
    ("typed", "want"),
    [("mta", ["mat"]), ("gardn", ["garden"]), ("carpte", ["carpet", "carpets"]), ("dgo", ["dog"]), ("猫咪", ["猫"])],
)
def test_a_typo_gets_the_word_it_misspells(typed, want):
    assert corpus.close_words(typed) == want


@pytest.mark.parametrize("typed", ["alert", "script", "quantum", "<b>", "😀"])
def test_a_word_no_typo_away_gets_no_suggestion(typed):
    """difflib's ratio offered "alert -> table, slept, apple" and "script -> carpet, city" on the
    compare page: three letters in common, not a typo of either. Every known word is more than one
    edit away from these."""
    assert corpus.close_words(typed) == []
    assert all(corpus.typo_distance(typed, w) > 1 for w in corpus._vocab_of(corpus.language_of(typed)))


def test_the_typo_distance_counts_a_swap_as_one_edit():
    assert corpus.typo_distance("mta", "mat") == 1 and corpus.typo_distance("mat", "mat") == 0
    assert corpus.typo_distance("gardn", "garden") == 1 and corpus.typo_distance("alert", "table") == 4
    assert corpus.typo_distance("", "cat") == 3 and corpus.typo_distance("猫咪", "猫") == 1


def test_suggestions_are_known_words_and_grammar_sentences():
    assert "mat" in corpus.close_words("matt")
    examples = corpus.examples_like("Cat the sat mat on the")
    assert len(examples) == 3 and all(corpus.in_language(e) for e in examples)
    assert all({"cat", "sat", "mat"} & set(corpus.known_words(e)) for e in examples)
    zh = corpus.examples_like("我喜欢吃苹果")
    assert all(corpus.language_of(e) == "zh" and corpus.in_language(e) for e in zh)


needs_weights = pytest.mark.skipif(not trained("translator"), reason="needs trained weights")


@needs_weights
@pytest.mark.parametrize(
    "lang,said",
    [("en", "Outside the 215-word language this model learned"), ("zh", "超出了本模型学过的 215 个词的小语言")],
)
def test_home_shows_the_warning_and_examples_to_click(lang, said, monkeypatch):
    from ui import i18n

    monkeypatch.setattr(i18n, "DEFAULT_LANG", lang)  # AppTest formats options outside the session
    at = apptest.open_page("pages/home.py", "translator", text="Cat the sat mat on the", lang=lang)
    warning = " ".join(w.value for w in at.warning)
    assert said in warning
    buttons = [b for b in at.button if b.key and b.key.startswith("grammar_ex_")]
    assert len(buttons) == 3
    buttons[0].click().run()
    assert not at.exception
    assert corpus.in_language(at.session_state["text"])
    assert said not in " ".join(w.value for w in at.warning)


@needs_weights
def test_grammar_sentence_shows_no_warning():
    at = apptest.open_page("pages/attention.py", "translator", text="The girl fed the dog. She was happy.")
    assert "Outside the" not in " ".join(w.value for w in at.warning)


@needs_weights
@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", ["pages/home.py", "pages/attention.py"])
def test_off_language_output_is_not_presented_as_a_translation(page, lang, monkeypatch):
    """Issue 37: "I love machine learning" came out as a translation (钥匙讨厌国王) beside the
    warning. Now: what the model wrote from the words it knows, the unseen words struck out."""
    from ui import i18n
    from ui.i18n import TABLE

    monkeypatch.setattr(i18n, "DEFAULT_LANG", lang)
    text = "I love machine learning"
    out = model.load("translator", device="cpu").trace(text).output_text
    at = apptest.open_page(page, "translator", text=text, lang=lang)
    shown = apptest.markdown(at)
    said = TABLE["off_language_translation"][lang].split("{")[0]
    assert said in shown and out.replace("`", "'") in shown, shown
    assert TABLE["att_translation"][lang].split("{")[0] not in shown, shown  # never "Translation: ..."
    unknown = [w for w in text.split() if w.lower() in {u.lower() for u in corpus.unknown_words(text)}]
    assert unknown and all(f"~~{w}~~" in shown for w in unknown), (unknown, shown)
    apptest.ok(at)

"""The compare page as a class uses it: its default sentence B, every comparison it offers for
every shipped model, and what the pickers show against what the charts draw."""

import pytest

import model
from data import corpus
from tests import apptest
from tests.explore import Action, do, problems
from ui.compare import PAIRS, second_sentence

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

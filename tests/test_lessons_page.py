"""The lessons page's state as a class uses it: lesson after lesson, a copied link, a link edited
by hand. A lesson's answers belong to that lesson; a link carries answers only when its sender
chose to share them; answers that do not fit a lesson are left out, never a crash."""

import pytest

from lessons.files import BUILTIN
from tests import apptest
from ui.lessons import offered

# the lessons this server offers: a lesson on the real pretrained model only where its packages are
# offered (ATTN_HF), as the page's own list does
LESSONS = [n for n in BUILTIN if offered(n)]
assert len(LESSONS) >= 2, LESSONS

PAGE = "pages/lessons.py"


def pills(at):
    return at.button_group(key=f"les_pick_{at.session_state['les_lesson']}_{at.session_state['les_step'] - 1}")


def revealed(at) -> bool:
    return bool(at.success) or any(e.icon == "❌" for e in at.error)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_lesson_after_the_first_opens_unanswered(lang, page_language):
    page_language(lang)
    at = apptest.open_page(PAGE, "translator", 180, lang=lang)
    pills(at).set_value(0).run()  # answer step 1 of lesson 1
    assert revealed(at)
    for lesson in LESSONS[1:]:
        at.radio(key="les_lesson").set_value(lesson).run()
        apptest.ok(at)
        assert at.session_state["les_step"] == 1
        assert not revealed(at), f"{lesson} opened with lesson 1's answer revealed"
        assert not pills(at).disabled
        assert "answers" not in at.query_params
    at.radio(key="les_lesson").set_value(LESSONS[0]).run()
    assert revealed(at), "lesson 1 keeps its own answer"


def test_a_copied_link_carries_no_answers_unless_shared():
    at = apptest.open_page(PAGE, "translator", 180)
    pills(at).set_value(0).run()
    link = dict(lesson=at.query_params["lesson"], step=at.query_params["step"])
    assert "answers" not in at.query_params
    other = apptest.open_page(PAGE, "translator", 180, **link)
    assert not revealed(other), "the student who opens the link predicts for themselves"
    at.toggle(key="les_share").set_value(True).run()
    shared = apptest.open_page(PAGE, "translator", 180, answers=at.query_params["answers"], **link)
    assert revealed(shared)


@pytest.mark.parametrize("answers", ["9", "z", "99999999999999", "0-0-0-0-0-0-0-0-0-0-0-0-0-0", "-", "é", "0\u200b"])
@pytest.mark.parametrize("lesson", LESSONS)
def test_answers_that_do_not_fit_the_lesson_never_crash(lesson, answers):
    at = apptest.open_page(PAGE, "translator", 180, lesson=lesson, answers=answers)
    apptest.ok(at)
    assert not [e for e in at.error if e.icon != "❌"]
    # and the session goes on: every step can be reached and answered
    at.button(key="les_next").click().run()
    apptest.ok(at)


def test_a_linked_answer_for_one_lesson_stays_in_it():
    first, second = LESSONS[0], LESSONS[1]
    at = apptest.open_page(PAGE, "translator", 180, lesson=first, answers="0")
    assert revealed(at)
    at.radio(key="les_lesson").set_value(second).run()
    apptest.ok(at)
    assert not revealed(at)


@pytest.mark.parametrize("counts", [[0, 0, 0], [1, 0, 0], [2, 1, 0], [0, 7, 30]])
def test_the_class_answer_chart_has_whole_number_ticks(counts):
    """The teacher's chart of how the class answered: 0 answers gave "0.2n ... 1n" (plotly's SI
    prefixes on an empty range), a few answers ticks 0.5 and 1.5."""
    import plotly.io as pio

    from tests.explore import count_axis_problems
    from viz.lessons import bars

    fig = bars(["A", "B", "C"], counts, counts=True)
    spec = pio.to_json(fig, validate=False)
    import json

    assert not count_axis_problems(json.loads(spec))
    assert fig.layout.yaxis.range[1] >= 1
    # and the rule finds the chart as it was drawn before (value_format=".0f", no counts flag)
    assert count_axis_problems(json.loads(pio.to_json(bars(["A", "B", "C"], [0, 0, 0], value_format=".0f"))))


# the session keys each page keeps its attention kind, layer and head under (0-based layer, head)
VIEW_KEYS = {
    "attention": ("att_kind", "att_layer", "att_head"),
    "temperature": ("temp_kind", "temp_layer", "temp_head"),
    "steps": ("steps_kind", "steps_layer", None),
}


def test_every_step_that_names_its_page_links_to_that_view():
    """A built-in step whose file names view.page reveals a link; the page opened from it shows the
    step's model, sentence, attention kind, layer and head (the numbers the step was computed on)."""
    from lessons import files
    from lessons.build import build
    from model import registry
    from ui.lesson_view import explore_target
    from ui.state import TEXT_KEY

    checked = 0
    for name in LESSONS:
        for step in build(files.builtin(name), lambda m: registry.load(m, device="cpu")):
            target = explore_target(step)
            if target is None:
                continue
            page, params = target
            at = apptest.open_page(page, params["model"], 180, **{k: v for k, v in params.items() if k != "model"})
            apptest.ok(at)
            assert at.session_state[TEXT_KEY] == params["text"], (step.id, params)
            checked += 1
            if step.page not in VIEW_KEYS:  # a page without an attention kind, layer and head (positional)
                continue
            kind_key, layer_key, head_key = VIEW_KEYS[step.page]
            assert at.session_state[kind_key] == params["kind"], (step.id, params)
            if "layer" in params:
                assert at.session_state[layer_key] == int(params["layer"]) - 1, (step.id, params)
            if head_key and "head" in params:
                assert at.session_state[head_key] == int(params["head"]) - 1, (step.id, params)
    assert checked >= 4, checked  # the built-in lessons name a page in at least four steps

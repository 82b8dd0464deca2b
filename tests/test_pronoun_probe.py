"""The pronoun probe (issue 46): stories whose pronoun means the object tell a head that follows the
pronoun from one that reads the subject whatever the pronoun. Its numbers against numpy on the traces,
its verdicts on made-up heads, and what it measured on our GPT, the translator and SmolLM2 (the
figures docs/measurements.md and lesson 4 quote)."""

from __future__ import annotations

import numpy as np
import pytest

from analysis import pronoun_probe as pp
from tests.conftest import packaged_missing


def by_hand(runner, kind, refers):
    """(subject, object) mean weights of the pronoun's row, every (layer, head), from the traces: the
    token positions found here by their text, independently of the probe."""
    on_s, on_o = [], []
    for subj, verb, obj, p_obj, p_subj, rest in pp.STORIES:
        p = p_obj if refers == "object" else p_subj
        att = runner.trace(f"The {subj} {verb} the {obj}. {p} {rest}").attention[kind]
        toks = [str(t).replace("▁", "").replace("Ġ", "").strip() for t in att.key_tokens]
        w = np.asarray(att.weights, dtype=np.float64)
        row = toks.index(p)
        on_s.append(w[:, :, row, toks.index(subj)])
        on_o.append(w[:, :, row, toks.index(obj)])
    return np.mean(on_s, 0), np.mean(on_o, 0)


@pytest.mark.parametrize("name, kind", [("gpt", "decoder"), ("translator", "encoder")])
def test_the_probe_agrees_with_numpy_on_the_traces(runners, name, kind):
    r = runners(name)
    got = pp.probe(r, kind)
    for refers in ("object", "subject"):
        assert got[refers]["n"] == len(pp.STORIES)
        s, o = by_hand(r, kind, refers)
        np.testing.assert_allclose(got[refers]["subject"], s, atol=1e-7)
        np.testing.assert_allclose(got[refers]["object"], o, atol=1e-7)


def test_every_story_has_a_pronoun_that_can_only_mean_the_object_and_one_for_the_subject():
    people = {"boy": "He", "man": "He", "king": "He", "father": "He", "son": "He"}
    people |= {"girl": "She", "woman": "She", "queen": "She", "mother": "She", "daughter": "She"}
    for subj, _, obj, p_obj, p_subj, _ in pp.STORIES:
        assert p_subj == people[subj]
        assert p_obj == (people.get(obj) or "It") and p_obj != p_subj


def made(o_subj, o_obj, s_subj, s_obj):
    a = lambda x: np.array([[x]])  # noqa: E731
    return {"object": {"subject": a(o_subj), "object": a(o_obj)}, "subject": {"subject": a(s_subj), "object": a(s_obj)}}


def test_verdicts_on_made_up_heads():
    assert pp.verdict(made(0.7, 0.2, 0.7, 0.2), 0, 0) == "subject"
    assert pp.verdict(made(0.2, 0.7, 0.7, 0.2), 0, 0) == "resolves"
    assert pp.verdict(made(0.2, 0.7, 0.2, 0.7), 0, 0) == "object"
    assert pp.verdict(made(0.40, 0.42, 0.42, 0.40), 0, 0) == "neither"  # within MARGIN: no verdict


def test_gpt_layer_2_head_3_reads_the_subject_whatever_the_pronoun(runners):
    """Our GPT's 'pronoun head' (timeline, lesson 3's 'It' -> 'cat') goes to the subject even where the
    pronoun can only mean the object: its training stories never tell the two apart."""
    res = pp.probe(runners("gpt"))
    assert pp.verdict(res, 1, 2) == "subject"
    o = res["object"]
    assert o["subject"][1, 2] > 0.5 > o["object"][1, 2]
    verdicts = {pp.verdict(res, la, h) for la in range(3) for h in range(4)}
    assert "resolves" not in verdicts  # no head of our GPT follows the pronoun


def test_no_translator_encoder_head_follows_the_pronoun(runners):
    res = pp.probe(runners("translator"), "encoder")
    L, H = res["object"]["subject"].shape
    assert "resolves" not in {pp.verdict(res, la, h) for la in range(L) for h in range(H)}


@pytest.mark.slow  # SmolLM2's load and 20 traces
@pytest.mark.skipif(bool(packaged_missing("smollm2-135m")), reason="SmolLM2 is not installed")
def test_smollm2_layer_14_head_9_follows_the_pronoun(runners):
    res = pp.probe(runners("smollm2-135m"))
    assert res["object"]["n"] == res["subject"]["n"] == len(pp.STORIES)
    assert pp.verdict(res, 13, 8) == "resolves"

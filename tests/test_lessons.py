"""Lessons (model/lessons.py, pages/lessons.py): every answer a step checks against is the one an
independent recomputation from the trained models gives (numpy argmax over a fresh trace, torch's
own softmax of the logits, the translator's own output), and the page shows the prediction, the
verdict, the reveal and the score, in both languages, with the step and answers in the link."""

from __future__ import annotations

import apptest
import numpy as np
import pytest
import torch

import model
from model import lessons as L
from model.positional import PositionalEncoding
from ui.i18n import MISSING, TABLE

PAGE = "pages/lessons.py"


@pytest.fixture(scope="module")
def runners():
    made = {}

    def load(name):
        if name not in made:
            made[name] = model.load(name, device="cpu")
        return made[name]

    return load


@pytest.fixture(scope="module")
def built(runners):
    return {name: L.build(name, runners) for name in L.LESSONS}


def by_id(steps, step_id):
    return next(s for s in steps if s.id == step_id)


def test_every_lesson_has_8_to_12_steps_with_a_valid_answer_and_both_languages(built):
    for name, steps in built.items():
        assert 8 <= len(steps) <= 12, (name, len(steps))
        assert len({s.id for s in steps}) == len(steps)
        for s in steps:
            assert 0 <= s.answer < len(s.options), s.id
            for part in ("ask", "reveal"):
                entry = TABLE[f"lesson_{s.key}_{part}"]
                for lang in ("en", "zh"):
                    entry[lang].format(**s.params)  # every placeholder has its number
            if s.kind == "choice" and not s.literal:
                assert all(o in TABLE for o in s.options)
            if s.kind == "sketch":
                assert len(s.sketches) == len(s.options)


def test_attention_answers_agree_with_an_independent_argmax(built, runners):
    steps = built["attention"]
    tr = runners("translator").trace(L.CAT_TEXT)
    enc = tr.attention["encoder"]
    toks = enc.key_tokens
    assert toks == ["The", "cat", "sat", "on", "the", "mat"]
    w = enc.weights.astype(np.float64)
    last = enc.num_layers - 1

    assert by_id(steps, "attention.1").answer_label == str(len(runners("translator").tokenizer.encode(L.CAT_TEXT)))
    s = by_id(steps, "attention.3")
    assert s.answer_label == toks[int(np.argmax(w[last].mean(axis=0)[1]))]
    s = by_id(steps, "attention.4")
    assert s.answer_label == ("yes" if w[last].mean(axis=0)[1, 1] > 0.35 else "no")
    s = by_id(steps, "attention.5")
    head = s.params["head"] - 1
    assert np.isclose(w[0, head, 2].max(), w[0, :, 2].max())  # the most decided head of layer 1
    assert s.answer_label == toks[int(np.argmax(w[0, head, 2]))]
    s = by_id(steps, "attention.6")
    assert s.answer_label == ("yes" if len({int(np.argmax(w[0, h, 2])) for h in range(enc.num_heads)}) == 1 else "no")


def test_scores_question_recomputes_q_dot_k_and_the_temperature_row(built, runners):
    """Q and K from the model's own record: q.k / sqrt(d_k) in numpy, its argmax, and softmax of
    it equal to the trace's row; the sketch chosen is the one closest to the row the model computes
    at T = 0.2 in that layer, and that row is softmax(scores / 0.2)."""
    m = runners("translator")
    s = by_id(built["attention"], "attention.7")
    layer, head = s.params["layer"] - 1, s.params["head"] - 1
    record: dict = {}
    tr = m.trace(L.CAT_TEXT, record=record)
    rec = record["encoder"][layer]["self_attn"]  # what model/attention.py recorded
    q, k = (np.asarray(rec[n].detach().cpu().numpy(), dtype=np.float64)[0, head] for n in ("q", "k"))
    scores = q @ k.T / np.sqrt(q.shape[-1])
    assert q.shape[-1] == s.params["d_k"] == m.config.d_model // m.config.num_heads
    weights = tr.attention["encoder"].weights[layer, head].astype(np.float64)
    soft = np.exp(scores - scores.max(-1, keepdims=True))
    soft /= soft.sum(-1, keepdims=True)
    np.testing.assert_allclose(soft, weights, atol=1e-5)
    mat = 5
    assert s.answer_label == tr.attention["encoder"].key_tokens[int(np.argmax(scores[mat]))]

    sk = by_id(built["attention"], "attention.8")
    real = m.trace(L.CAT_TEXT, temperature=0.2, temperature_layer=layer).attention["encoder"].weights[layer, head, mat]
    at_t = np.exp(scores[mat] / 0.2 - (scores[mat] / 0.2).max())
    np.testing.assert_allclose(real, at_t / at_t.sum(), atol=1e-4)
    dists = [np.abs(np.asarray(x) - real).sum() for x in sk.sketches]
    assert sk.answer == int(np.argmin(dists))
    assert min(dists) < 1e-3  # one sketch is the model's row, drawn from the T = 1 row


def test_positions_answers_are_the_translators_own_outputs(built, runners):
    m = runners("translator")
    steps = built["positions"]
    a, b = m.translate([L.DOG_BITES, L.MAN_BITES])
    assert by_id(steps, "positions.1").answer_label == a
    assert by_id(steps, "positions.2").answer_label == b
    a0, b0 = (m.trace(x, use_position=False).output_text for x in (L.DOG_BITES, L.MAN_BITES))
    assert by_id(steps, "positions.3").answer_label == ("yes" if a0 == b0 else "no")
    # without positions attention is blind to order: 咬 -> 狗 the same in both sentences
    w_a = m.trace(L.DOG_BITES, use_position=False).attention["encoder"].weights[0].mean(0)
    w_b = m.trace(L.MAN_BITES, use_position=False).attention["encoder"].weights[0].mean(0)
    assert abs(w_a[1, 0] - w_b[1, 2]) < 1e-5
    assert by_id(steps, "positions.4").answer_label == "yes"
    for sid, text in (("positions.5", L.DOG_BITES), ("positions.6", L.MAN_BITES)):
        enc = m.trace(text).attention["encoder"]
        assert by_id(steps, sid).answer_label == enc.key_tokens[int(np.argmax(enc.weights[0].mean(0)[1]))]
    pe = PositionalEncoding(m.config.d_model, 16).pe[0].numpy().astype(np.float64)
    near, far = pe[3] @ pe[4], pe[3] @ pe[10]
    assert by_id(steps, "positions.9").answer_label == ("lesson_pe_near" if near > far else "lesson_pe_far")


def test_decoder_answers_mask_pronoun_next_token_and_ablation(built, runners):
    g, m = runners("gpt"), runners("translator")
    steps = built["decoder"]
    assert by_id(steps, "decoder.1").answer_label == "no"  # a causal mask: sat cannot read mat
    dec = g.trace(L.CAT_TEXT).attention["decoder"]
    assert np.all(dec.weights[:, :, 3, 6] == 0)
    s = by_id(steps, "decoder.3")
    pt = g.trace(L.PRONOUN_TEXT).attention["decoder"]
    row = pt.weights[s.params["layer"] - 1, s.params["head"] - 1, pt.query_tokens.index("It")]
    assert s.answer_label == pt.key_tokens[int(np.argmax(row))]

    s = by_id(steps, "decoder.5")
    ids = [model.tokenizer.BOS] + g.tokenizer.encode("The cat sat on the")
    with torch.no_grad():
        logits = g.module(torch.tensor([ids]))[0][0, -1]
    top = int(torch.softmax(logits.float(), -1).argmax())
    assert s.answer_label == g.tokenizer.labels([top])[0]

    s = by_id(steps, "decoder.7")
    assert s.answer_label == str(len(m.trace(L.CAT_TEXT).attention["cross"].query_tokens))
    for s in steps:
        if s.key == "dec_ablate":
            off = m.trace(
                L.CAT_TEXT, ablate=[(s.params["kind"], s.params["layer"] - 1, s.params["head"] - 1)], how="zero"
            )
            assert s.answer_label == ("yes" if off.output_text != m.translate([L.CAT_TEXT])[0] else "no")


def test_answers_in_a_link_round_trip_and_bad_ones_are_refused():
    assert L.encode_answers({0: 2, 3: 11}, 10) == "2--b"
    assert L.decode_answers("2--b") == {0: 2, 3: 11}
    with pytest.raises(ValueError):
        L.decode_answers("2?")


# -- the page ---------------------------------------------------------------------------------------


def pills(at):
    return at.button_group[0]


def test_page_predict_then_reveal_then_next_and_the_link_keeps_step_and_answers(built):
    steps = built["attention"]
    at = apptest.open_page(PAGE, "translator", 180)
    assert "How many tokens" in at.markdown[1].value
    assert not at.success and not at.error  # nothing revealed before the prediction
    wrong = (steps[0].answer + 1) % len(steps[0].options)
    pills(at).set_value(wrong).run()
    assert at.error and "the model says **6**" in at.error[0].value
    assert "answers" not in at.query_params  # a copied link reveals nothing unless shared
    at.toggle(key="les_share").set_value(True).run()
    assert at.query_params["answers"] == str(wrong)
    at.button(key="les_next").click().run()
    assert at.query_params["step"] == "2"
    pills(at).set_value(steps[1].answer).run()
    assert at.success and "exactly 1" in at.success[0].value
    assert any("adds up to 1.0000" in m.value.replace("\\", "") for m in at.markdown)

    link = at.query_params
    again = apptest.open_page(PAGE, "translator", 180, lesson="attention", step=link["step"], answers=link["answers"])
    assert again.success, "the link reopens step 2 with its answer revealed"
    assert again.button_group[0].disabled


def test_page_score_at_the_end_in_chinese(built, monkeypatch):
    from ui import i18n

    monkeypatch.setattr(i18n, "DEFAULT_LANG", "zh")  # AppTest formats options outside the session
    steps = built["positions"]
    answers = "".join(str(s.answer) for s in steps[:-1])
    at = apptest.open_page(PAGE, "translator", 180, lang="zh", lesson="positions", step=len(steps), answers=answers)
    assert "第 9 步，共 9 步" in at.get("progress")[0].proto.text
    pills(at).set_value((steps[-1].answer + 1) % len(steps[-1].options)).run()
    assert any(f"{len(steps)} 题中答对 {len(steps) - 1} 题" in m.value for m in at.markdown)
    assert not [k for k in MISSING if k.startswith(("lesson", "room"))]


def test_page_word_question_shows_the_heatmap_row_as_the_tutorial_table(built):
    steps = built["attention"]
    s = by_id(steps, "attention.3")
    at = apptest.open_page(PAGE, "translator", 180, lesson="attention", step=3)
    pills(at).set_value(s.answer).run()
    df = at.dataframe[0].value
    assert list(df["Token"]) == s.reveal[0].key_tokens
    np.testing.assert_allclose(df["Attention weight"].to_numpy(), s.reveal[0].weights[s.reveal[0].row], atol=1e-6)
    assert df["Token"][int(df["Attention weight"].to_numpy().argmax())] == s.answer_label

"""Lessons (analysis/lessons.py, pages/lessons.py): every answer a step checks against is the one an
independent recomputation from the trained models gives (numpy argmax over a fresh trace, torch's
own softmax of the logits, the translator's own output), and the page shows the prediction, the
verdict, the reveal and the score, in both languages, with the step and answers in the link."""

from __future__ import annotations

import apptest
import numpy as np
import pytest
import torch

import model
from analysis import lessons as L
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
    row = toks.index(s.params["word"])
    tops = [int(np.argmax(w[0, h, row])) for h in range(enc.num_heads)]
    assert s.answer_label == ("yes" if len(set(tops)) == 1 else "no")
    # the reveal says each head can look for something else only where the heads do differ
    assert (s.key == "att_heads_agree") == (len(set(tops)) > 1)
    for h, top in enumerate(tops):  # and each head's top word is clear: ahead by >= 0.10
        others = np.delete(w[0, h, row], top)
        assert w[0, h, row, top] - others.max() >= 0.10


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
    ids = [model.tokenizer.BOS] + g.tokenizer.encode(s.params["prompt"])
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


# -- the margin rule: every step grades on a clear answer ------------------------------------------


@pytest.fixture(scope="module")
def raw(runners):
    """Every lesson's steps before build() drops the ones that fail the margin: none may fail."""
    return {name: L.BUILDERS[name](runners) for name in L.LESSONS}


def test_every_step_of_every_lesson_passes_its_margin_on_the_shipped_models(raw, built):
    failing = [(s.id, s.rule, round(s.margin, 4)) for steps in raw.values() for s in steps if not L.passes(s)]
    assert not failing
    assert {k: len(v) for k, v in built.items()} == {k: len(v) for k, v in raw.items()}
    assert L.MARGINS == {"weight": 0.10, "prob": 0.10, "sketch": 0.10, "change": 1.0, "exact": 0.0}
    ids = {s.id for steps in raw.values() for s in steps}
    assert {"decoder.4", "decoder.5", "decoder.9", "decoder.10", "attention.6"} <= ids  # the rebuilt ones


def test_word_questions_margin_recomputed_from_the_revealed_row(raw):
    """For every "word" step with a heatmap or a bar row: numpy's top weight of that row is the
    answer and beats the runner-up by at least 0.10 (independent of lessons.gap)."""
    checked = 0
    for steps in raw.values():
        for s in steps:
            if s.kind != "word" or s.rule != "weight":
                continue
            item = s.reveal[-1] if s.key == "att_scores" else s.reveal[0]
            row = np.asarray(item.weights[item.row] if isinstance(item, L.Heat) else item.values, dtype=np.float64)
            order = np.argsort(-row)
            assert item.key_tokens[order[0]] if isinstance(item, L.Heat) else item.labels[order[0]] == s.answer_label
            assert row[order[0]] - row[order[1]] >= 0.10, s.id
            assert np.isclose(row[order[0]] - row[order[1]], s.margin, atol=1e-6), s.id
            checked += 1
    assert checked >= 7


def test_sharpen_step_asks_about_a_row_that_is_not_one_hot(raw, runners):
    """Decoder step 4: the row asked about changes when sharpened (its largest weight moves by more
    than 0.1), the three sketches are distinct pictures, and the right one is the model's row at
    T = 0.2 recomputed from a fresh trace."""
    g = runners("gpt")
    s = by_id(raw["decoder"], "decoder.4")
    layer, head = s.params["layer"] - 1, s.params["head"] - 1
    pt = g.trace(L.PRONOUN_TEXT).attention["decoder"]
    sharp = g.trace(L.PRONOUN_TEXT, temperature=0.2).attention["decoder"]
    r = len(s.sketch_labels) - 1
    assert pt.key_tokens[r] == s.params["word"]
    before, after = pt.weights[layer, head, r, : r + 1], sharp.weights[layer, head, r, : r + 1]
    assert before.max() < 0.9 and after.max() - before.max() > 0.1
    for i in range(3):
        for j in range(i + 1, 3):
            assert np.abs(s.sketches[i] - s.sketches[j]).sum() > 0.1
    # sketch of T = 0.2: w^(1/0.2), normalised, from the T = 1 row
    p5 = before.astype(np.float64) ** 5
    np.testing.assert_allclose(s.sketches[1], p5 / p5.sum(), atol=1e-9)
    dists = [np.abs(x - after).sum() for x in s.sketches]
    assert s.answer == int(np.argmin(dists)) and sorted(dists)[1] - min(dists) >= 0.10


def test_next_word_step_is_decided_by_the_grammar_and_the_model(raw, runners):
    """Decoder step 5: in 3,000 sentences the grammar samples, the prompt's last word is always
    followed by the answer; GPT's softmax (torch) puts it ahead of the runner-up by >= 0.10. Step 6
    asks about sampling where the grammar leaves the word open: 1 - p(top) >= 0.10."""
    import random

    from data import corpus

    g = runners("gpt")
    s = by_id(raw["decoder"], "decoder.5")
    prompt, word = s.params["prompt"], s.answer_label.strip("▁ ")
    assert (prompt, word) in L.DECIDED_PROMPTS
    if prompt == "The cat sat on":
        rng, follow = random.Random(7), []
        for _ in range(3000):
            ws = corpus.sample(rng).en.replace(".", " .").split()
            follow += [ws[i + 1] for i in range(len(ws) - 1) if ws[i] == "on"]
        assert len(follow) > 100 and set(follow) == {"the"}

    def probs(text):
        ids = [model.tokenizer.BOS] + g.tokenizer.encode(text)
        with torch.no_grad():
            return torch.softmax(g.module(torch.tensor([ids]))[0][0, -1].float(), -1).numpy()

    p = np.sort(probs(prompt))[::-1]
    assert p[0] - p[1] >= 0.10
    s6 = by_id(raw["decoder"], "decoder.6")
    assert s6.params["prompt"] == L.OPEN_PROMPT and s6.answer_label == "yes"
    assert 1 - probs(L.OPEN_PROMPT).max() >= 0.10


def test_ablation_steps_use_heads_that_matter_and_do_not(raw, runners):
    """Decoder steps 9-10: the translation really changes with step 9's head off and stays with step
    10's (the translator's own greedy output); step 9's head is more important than step 10's."""
    m = runners("translator")
    before = m.translate([L.CAT_TEXT])[0]
    s9, s10 = by_id(raw["decoder"], "decoder.9"), by_id(raw["decoder"], "decoder.10")
    for s, changes in ((s9, True), (s10, False)):
        off = m.trace(L.CAT_TEXT, ablate=[(s.params["kind"], s.params["layer"] - 1, s.params["head"] - 1)], how="zero")
        assert (off.output_text != before) is changes and s.answer_label == ("yes" if changes else "no")
        assert s.params["after"] == off.output_text
    assert float(s9.params["loss"]) > 1.0 > abs(float(s10.params["loss"]))


def test_change_margin_on_made_up_distributions():
    """change_margin by hand: the head-off run teacher-forced on ids [start, 5, 7] (then </s>)."""
    eos = model.tokenizer.EOS
    p = np.full((3, 10), 1e-6)
    p[0, 5], p[1, 7], p[2, eos] = 0.9, 0.6, 0.99
    p[1, 3] = 0.3  # runner-up at step 1: log(0.6 / 0.3) = ln 2
    assert np.isclose(L.change_margin(p, [1, 5, 7]), np.log(2), atol=1e-4)
    p[1, 3] = 0.6 * np.e**2  # now token 3 wins step 1 by 2 nats: the output changes there
    assert np.isclose(L.change_margin(p, [1, 5, 7]), 2.0, atol=1e-6)


def test_lesson_heatmaps_of_writing_rows_carry_what_each_row_writes(raw, runners):
    """Decoder and cross heatmaps in the lessons label rows "reads → writes" like other pages: each
    Heat of a decoder/cross head carries the trace's own query_written."""
    cross = runners("translator").trace(L.CAT_TEXT).attention["cross"]
    s = by_id(raw["decoder"], "decoder.8")
    assert s.reveal[0].query_tokens == cross.query_tokens
    assert s.reveal[0].query_written == list(cross.query_written)
    pt = runners("gpt").trace(L.PRONOUN_TEXT).attention["decoder"]
    assert by_id(raw["decoder"], "decoder.3").reveal[0].query_written == list(pt.query_written)
    assert all(h.query_written is None for h in by_id(raw["attention"], "attention.6").reveal)  # encoder


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


def test_page_cross_heatmap_rows_read_reads_arrow_writes(built):
    import html
    import json

    steps = built["decoder"]
    s = by_id(steps, "decoder.8")
    at = apptest.open_page(PAGE, "translator", 180, lesson="decoder", step=steps.index(s) + 1)
    pills(at).set_value(s.answer).run()
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    heat = next(d for d in spec["data"] if d.get("type") == "heatmap")
    want = [f"{r} → {w}" for r, w in zip(s.reveal[0].query_tokens, s.reveal[0].query_written)]
    # the heatmap escapes its labels and numbers rows ("<2zh> → 猫 (0)") so repeated ones stay apart
    shown = [html.unescape(str(y)) for y in heat["y"]]
    assert len(shown) == len(want) and all(y.startswith(w) for y, w in zip(shown, want)), shown


def test_page_word_question_shows_the_heatmap_row_as_the_tutorial_table(built):
    steps = built["attention"]
    s = by_id(steps, "attention.3")
    at = apptest.open_page(PAGE, "translator", 180, lesson="attention", step=3)
    pills(at).set_value(s.answer).run()
    df = at.dataframe[0].value
    assert list(df["Token"]) == s.reveal[0].key_tokens
    np.testing.assert_allclose(df["Attention weight"].to_numpy(), s.reveal[0].weights[s.reveal[0].row], atol=1e-6)
    assert df["Token"][int(df["Attention weight"].to_numpy().argmax())] == s.answer_label

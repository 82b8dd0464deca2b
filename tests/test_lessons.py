"""Lesson files (lessons/): every step of every lesson file (the three built-in lessons and the
example) is built on the model it names, and its answer and margin are checked against an
independent recomputation from the model (numpy over a fresh trace, q·k from the model's own
record, torch's softmax of the logits, the translator's own output), then against the margin rule
(lessons.steps.MARGINS). The page shows the prediction, the verdict, the reveal and the score, in
both languages, with the step and answers in the link."""

from __future__ import annotations

import math
from pathlib import Path

import apptest
import numpy as np
import pytest
import torch

import model
from lessons import build as B
from lessons import files, queries, schema
from lessons.answers import decode_answers, encode_answers
from lessons.steps import MARGINS, Heat, change_margin, passes
from model.positional import PositionalEncoding
from model.registry import PACKAGED
from tests.conftest import each_lesson, packaged_missing
from ui.i18n import MISSING

PAGE = "pages/lessons.py"
EXAMPLES = sorted((Path(files.__file__).parent / "examples").glob("*.toml"))
# a real pretrained model's lesson runs where its packages are installed (scripts/test installs them)
BUILTIN = [
    n
    for n in files.BUILTIN
    if not any(packaged_missing(s["model"]) for s in files.builtin(n).steps if s["model"] in PACKAGED)
]
LESSON_FILES = [files.BUILTIN_DIR / f"{n}.toml" for n in BUILTIN] + EXAMPLES


class Built(dict):
    """{file stem: (lesson, [(spec, step)])}: every step, before the margin rule drops any; a lesson
    built the first time a test asks for it (so a test of the fast lessons loads no real model)."""

    def __init__(self, runners):
        super().__init__()
        self.runners = runners

    def __missing__(self, stem):
        path = next(p for p in LESSON_FILES if p.stem == stem)
        lesson = schema.validate(path.read_bytes())
        self[stem] = (
            lesson,
            [(s, B.build_step(s, self.runners, lesson.step_id(i))) for i, s in enumerate(lesson.steps)],
        )
        return self[stem]


@pytest.fixture(scope="module")
def built(runners):
    return Built(runners)


def by_id(built, lesson, step_id):
    return next(step for _, step in built[lesson][1] if step.id == step_id)


# -- the independent recomputation ---------------------------------------------------------------------


def tok(tokens, word):
    if isinstance(word, dict) and "position" in word:  # a token named by its place, from 1
        return int(word["position"]) - 1
    return next(i for i, t in enumerate(tokens) if t.strip("▁ ").lower() == str(word).lower())


def settings(view, **over):
    v = {**view, **over}
    s = {"temperature": float(v.get("temperature", 1.0)), "use_position": v.get("positions", True)}
    if v.get("temperature_layer"):
        s["temperature_layer"] = v["temperature_layer"] - 1
    if v.get("heads_off"):
        s["ablate"] = v["heads_off"]
    return s


def top2(values):
    v = np.sort(np.asarray(values, dtype=np.float64))[::-1]
    return v[0] - v[1] if len(v) > 1 else math.inf


def rows_named(att, kind):
    if kind == "cross":
        return list(att.query_written)
    return list(att.query_tokens)


def seen(att, r):
    """The keys row r may read, from the weights themselves where there is a mask (0 exactly)."""
    return [j for j in range(len(att.key_tokens)) if att.mask is None or att.mask[r, j]]


def where(w, view, row, rows=None):
    """(layer, head or None) 0-based, each head rule recomputed here."""
    L, H = w.shape[:2]
    lv, hv = view.get("layer", "last"), view.get("head", "mean")
    layers = range(L) if lv == "any" else [L - 1 if lv in ("last", None) else lv - 1]
    if hv == "decided":
        return max(((la, h) for la in layers for h in range(H)), key=lambda x: w[x[0], x[1], row].max())
    if hv == "sharpest":
        return max(((la, h) for la in layers for h in range(H)), key=lambda x: w[x[0], x[1], rows].max(-1).mean())
    if hv == "furthest":

        def far(x):
            r = w[x[0], x[1], row].copy()
            r[[0, row, row - 1]] = 0
            return r.max()

        return max(((la, h) for la in layers for h in range(H)), key=far)
    return layers[0], None if hv == "mean" else hv - 1


def mat(w, layer, head):
    return w[layer].mean(0) if head is None else w[layer, head]


def occurrence_label(tokens, i):
    """Token i as a lesson names it: with its occurrence as a subscript where its word (case
    ignored) repeats in the sentence ("The₁" and "the₂" of "The cat sat on the mat")."""
    same = [j for j, t in enumerate(tokens) if str(t).lower() == str(tokens[i]).lower()]
    return (
        tokens[i]
        if len(same) == 1
        else tokens[i] + str(same.index(i) + 1).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))
    )


def oracle(spec, runner, sentence, params=None):
    """(the right option's label, or the slider's number; the margin, None where it is structural).
    params: the built step's, for a step whose heads the model itself chose (switch_off_changes'
    `pick`): the oracle then checks the verdict on those heads by its own run."""
    q, view, args = spec["query"], spec.get("view", {}), spec.get("args", {})
    kind = view.get("kind") or runner.kinds[0]
    tr = runner.trace(sentence, **settings(view)) if q not in ("pe_dot", "head_dim") else None
    att = tr.attention[kind] if tr is not None and kind in tr.attention else None
    w = att.weights.astype(np.float64) if att is not None else None
    if q == "token_count":
        _, ids, _ = runner.prompt_ids(sentence) if runner.kind == "gpt" else runner.ids(sentence)
        assert len(ids) == len(att.key_tokens)
        return str(len(ids)), None
    if q == "row_count":
        return str(len(att.query_tokens)), None
    if q == "head_dim":
        return str(runner.config.d_model // runner.config.num_heads), None
    if q == "row_sum":
        r = tok(rows_named(att, kind), args["word"])
        la, h = where(w, view, r)
        total = mat(w, la, h)[r].sum()
        assert abs(total - 1) < 1e-4
        return "lesson_sum_one", None
    if q in ("top_key", "cell_above", "cell_weight", "can_read", "sharpen_sketch", "top_score", "heads_agree"):
        rows = [i for i, t in enumerate(rows_named(att, kind)) if t not in ("</s>", "<2en>", "<2zh>", "<s>")]
        word = args.get("word")
        r = tok(rows_named(att, kind), word) if word not in (None, "surest") else None
    if q == "top_key":
        la, h = where(w, view, r if r is not None else rows[0], rows)
        m = mat(w, la, h)
        if r is None:
            r = max(rows, key=lambda i: m[i].max())
        keys = seen(att, r)
        return occurrence_label(att.key_tokens, keys[int(np.argmax(m[r, keys]))]), top2(m[r, keys])
    if q == "top_key_again":  # the row of the word's last occurrence
        names = [str(x).strip("▁ ").lower() for x in rows_named(att, kind)]
        r = max(i for i, x in enumerate(names) if x == args["word"].lower())
        la, h = where(w, view, r)
        m = mat(w, la, h)
        keys = seen(att, r)
        return occurrence_label(att.key_tokens, keys[int(np.argmax(m[r, keys]))]), top2(m[r, keys])
    if q == "induction":  # the last occurrence's row, the sink and itself aside, as shares
        names = [str(x).strip("▁Ġ ").lower() for x in rows_named(att, kind)]
        occ = [i for i, x in enumerate(names) if x == args["word"].lower()]
        r, p = occ[-1], occ[-2]
        la, h = where(w, view, r)
        m = mat(w, la, h)
        keys = [k for k in seen(att, r) if k not in (0, r)]
        share = m[r, keys] / m[r, keys].sum()
        assert keys[int(np.argmax(share))] == p + 1, "the lesson's head is no induction head here"
        return occurrence_label(att.key_tokens, p + 1), top2(share)
    if q == "top_score":
        la, h = where(w, view, r)
        record: dict = {}
        runner.trace(sentence, record=record, **settings(view))
        part = {
            "encoder": ("encoder", "self_attn"),
            "decoder": ("decoder", "self_attn"),
            "cross": ("decoder", "cross_attn"),
        }
        rec = record[part[kind][0]][la][part[kind][1]]
        qv, kv = (np.asarray(rec[n].detach().cpu().numpy(), dtype=np.float64)[0, h] for n in ("q", "k"))
        scores = qv @ kv.T / np.sqrt(qv.shape[-1])
        soft = torch.softmax(torch.tensor(scores), -1).numpy()
        np.testing.assert_allclose(soft, w[la, h], atol=1e-5)  # the scores are the model's
        return occurrence_label(att.key_tokens, int(np.argmax(scores[r]))), top2(soft[r])
    if q == "cell_above":
        k, than = tok(att.key_tokens, args["key"]), args["than"]
        layers = range(att.num_layers - 1, -1, -1)
        la = next((x for x in layers if abs(w[x].mean(0)[r, k] - than) >= 0.10), att.num_layers - 1)
        if view.get("layer") != "auto":
            la = where(w, view, r)[0]
        value = w[la].mean(0)[r, k]
        return ("yes" if value > than else "no"), abs(value - than)
    if q == "cell_weight":
        la, h = where(w, view, r)
        return float(mat(w, la, h)[r, tok(att.key_tokens, args["key"])]), None
    if q == "can_read":
        k = tok(att.key_tokens, args["key"])
        return ("yes" if w[:, :, r, k].max() > 0 else "no"), None
    if q == "first_token_weight":
        assert np.allclose(w[:, :, 0, 0], 1.0)  # the causal mask leaves it nothing else
        return "1", None
    if q == "heads_agree":  # the row the file names, never another (issue 46)
        la = att.num_layers - 1 if view.get("layer", "last") == "last" else view["layer"] - 1
        keys = seen(att, r)
        tops = [keys[int(np.argmax(w[la, h, r, keys]))] for h in range(att.num_heads)]
        margin = min(top2(w[la, h, r, keys]) for h in range(att.num_heads))
        assert params is None or params["word"] == occurrence_label(rows_named(att, kind), r)
        return ("yes" if len(set(tops)) == 1 else "no"), margin
    if q == "sharpen_sketch":
        temp = args.get("temperature", 0.2)
        la, h = where(w, view, r)
        over = {"temperature": temp} if args.get("every_layer") else {"temperature": temp, "temperature_layer": la}
        sharp = runner.trace(sentence, **{**settings(view), **over}).attention[kind].weights.astype(np.float64)[la, h]
        order = args.get("sketches", ["same", "sharper", "flatter"])
        # sharper: scores divided by a T below 1, flatter: above 1, whichever side temp is on
        power = {"same": 1.0, "sharper": max(1 / temp, temp), "flatter": min(1 / temp, temp)}

        def pictures(row):
            keys = seen(att, row)
            pics = []
            for s in order:
                p = w[la, h, row, keys] ** power[s]
                pics.append(p / p.sum())
            d = sorted(np.abs(p - sharp[row, keys]).sum() for p in pics)
            apart = min(np.abs(a - b).sum() for i, a in enumerate(pics) for b in pics[i + 1 :])
            return keys, pics, min(d[1] - d[0], apart)  # the wrong sketches must not look alike either

        if args.get("row") == "clearest":
            r = max((x for x in range(len(att.query_tokens)) if len(seen(att, x)) > 1), key=lambda x: pictures(x)[2])
        keys, pics, margin = pictures(r)
        return "ABC"[int(np.argmin([np.abs(p - sharp[r, keys]).sum() for p in pics]))], margin
    if q == "translation":
        return runner.translate([sentence])[0], None
    if q == "same_output":
        a, b = runner.translate([sentence, args["other"]], use_position=view.get("positions", True))
        return ("yes" if a == b else "no"), None
    if q == "cells_compare":
        other = runner.trace(args["other"], **settings(view)).attention[kind]
        wb = other.weights.astype(np.float64)
        ra, ka = tok(att.query_tokens, args["word"]), tok(att.key_tokens, args["key"])
        rb, kb = tok(other.query_tokens, args["word"]), tok(other.key_tokens, args["key"])
        if view.get("head") == "most_different":
            d = np.abs(w[:, :, ra, ka] - wb[:, :, rb, kb])
            la, h = np.unravel_index(int(d.argmax()), d.shape)
            diff = d[la, h]
        else:
            la, h = where(w, view, ra)
            diff = abs(mat(w, la, h)[ra, ka] - mat(wb, la, h)[rb, kb])
        same = diff < 0.01
        yes = same if args.get("yes_if", "same") == "same" else not same
        # the answer flips where the difference crosses 0.01 ("the same"): the margin is the distance to it
        return ("yes" if yes else "no"), (None if diff < 1e-6 else abs(diff - 0.01))
    if q == "pe_dot":
        pe = PositionalEncoding(runner.config.d_model, 64).pe[0].numpy().astype(np.float64)
        p, a, b = args.get("p", 3), args.get("near", 4), args.get("far", 10)
        return ("lesson_pe_near" if pe[p] @ pe[a] > pe[p] @ pe[b] else "lesson_pe_far"), None
    if q in ("next_token", "sample_differs"):
        ids = [model.tokenizer.BOS] + runner.tokenizer.encode(sentence)
        with torch.no_grad():
            probs = torch.softmax(runner.module(torch.tensor([ids]))[0][0, -1].double(), -1).numpy()
        if q == "next_token":
            return runner.tokenizer.labels([int(probs.argmax())])[0], top2(probs)
        rest = 1 - probs.max()
        # "another token in at least one draw in ten", as sure as the share is from 0.10
        return ("yes" if rest >= 0.10 else "no"), abs(rest - 0.10)
    if q == "switch_off_changes":
        heads = view.get("heads_off")
        if runner.kind == "translator":
            if not heads:  # chosen by importance (its choice is checked in its own test below)
                heads = [params["heads"]]
            return (
                "yes" if runner.trace(sentence, ablate=heads).output_text != runner.translate([sentence])[0] else "no"
            ), None
        ids = [model.tokenizer.BOS] + runner.tokenizer.encode(sentence)
        base = runner.trace(sentence).attention["decoder"].query_written[-1]
        off = runner.trace(sentence, ablate=heads).attention["decoder"].query_written[-1]
        with torch.no_grad():
            logits = runner.module(torch.tensor([ids]))[0][0, -1]
        assert runner.tokenizer.labels([int(logits.argmax())])[0] == base
        return ("yes" if off != base else "no"), None
    if q == "entropy_higher":
        la, h = where(w, view, 0)
        m = mat(w, la, h)
        ra, rb = tok(att.query_tokens, args["word"]), tok(att.query_tokens, args["other"])
        ent = [-(m[x][m[x] > 0] * np.log(m[x][m[x] > 0])).sum() for x in (ra, rb)]
        return att.query_tokens[ra if ent[0] > ent[1] else rb], abs(ent[0] - ent[1])
    raise AssertionError(f"no oracle for {q}")


def test_every_query_has_an_oracle_here_and_a_lesson_file_that_uses_it():
    used = {spec["query"] for path in LESSON_FILES for spec in schema.validate(path.read_bytes()).steps}
    only_real = set() if {"real", "real_zh"} & set(BUILTIN) else {"induction"}  # its lessons skipped here
    assert used == set(queries.QUERIES) - only_real, set(queries.QUERIES) - used


@pytest.mark.parametrize("path", each_lesson(LESSON_FILES))
def test_every_step_of_every_lesson_file_agrees_with_an_independent_recomputation(path, built, runners):
    lesson, steps = built[path.stem]
    checked = 0
    for spec, step in steps:
        runner = runners(spec["model"])
        sentence = step.params["text"]
        want, margin = oracle(spec, runner, sentence, step.params)
        assert want is not None, f"{step.id}: the oracle has no answer for this step"
        if step.kind == "slider":
            assert abs(step.value - want) < 1e-6, step.id
            assert step.is_right(step.options.index(f"{round(want * 20) / 20:g}")), step.id
        elif step.kind in ("yesno",):
            assert step.answer_label == want, (step.id, step.answer_label, want)
        elif step.kind == "choice" and not step.literal:
            assert step.answer_label == want, (step.id, step.answer_label, want)
        else:  # a repeated word's label carries its occurrence (the₂): the oracle names the token
            assert step.answer_label == want, (step.id, step.answer_label, want)
        if margin is not None:
            assert np.isclose(step.margin, margin, atol=1e-5), (step.id, step.margin, margin)
        checked += 1
    assert steps and checked == len(steps)  # every step, and a lesson with none fails


@pytest.mark.parametrize("path", each_lesson(LESSON_FILES))
def test_every_step_of_every_lesson_file_passes_the_margin_rule_on_its_model(path, built):
    lesson, steps = built[path.stem]
    failing = [(s.id, s.rule, round(s.margin, 4)) for _, s in steps if not passes(s)]
    assert not failing
    for _, s in steps:
        assert s.margin >= MARGINS[s.rule]
        assert 0 <= s.answer < len(s.options)
        for texts in (s.ask, s.reveal_text):
            for lang in ("en", "zh"):
                texts[lang].format(**s.params)  # every placeholder has its number


def test_margin_thresholds_are_the_issue_23_rule():
    assert {k: MARGINS[k] for k in ("weight", "prob", "sketch", "change", "exact")} == {
        "weight": 0.10,
        "prob": 0.10,
        "sketch": 0.10,
        "change": 1.0,
        "exact": 0.0,
    }


def test_every_file_in_the_builtin_folder_is_a_built_in_lesson():
    """None listed by hand."""
    on_disk = {p.stem for p in files.BUILTIN_DIR.glob("*.toml")}
    assert on_disk and set(files.BUILTIN) == on_disk


# the real model's lesson only where its packages are installed
@pytest.mark.parametrize("path", each_lesson(files.BUILTIN_DIR / f"{n}.toml" for n in BUILTIN))
def test_built_in_lessons_keep_their_steps(path, built):
    """Each step of a built-in lesson keeps the id the room's answers and the links use."""
    name = path.stem
    assert built[name][1], name
    assert [s.id for _, s in built[name][1]] == [f"{name}.{i}" for i in range(1, len(built[name][1]) + 1)]


def test_attention_lesson_reads_the_tutorial_sentence(built, runners):
    enc = runners("translator").trace("The cat sat on the mat").attention["encoder"]
    assert enc.key_tokens == ["The", "cat", "sat", "on", "the", "mat"]
    assert by_id(built, "attention", "attention.1").answer_label == "6"
    s = by_id(built, "attention", "attention.6")
    tops = s.params["tops"].split(", ")
    assert s.reveal_text == (by_id(built, "attention", "attention.6").reveal_text)
    assert ("heads of this layer agree" in s.reveal_text["en"]) == (len({t.split(": ")[1] for t in tops}) == 1)


def test_ablation_steps_use_heads_that_matter_and_do_not(built, runners):
    """Decoder steps 9-10: the translation really changes with step 9's head off and stays with step
    10's (the translator's own greedy output); step 9's head is more important than step 10's."""
    m = runners("translator")
    before = m.translate(["The cat sat on the mat"])[0]
    s9, s10 = by_id(built, "decoder", "decoder.9"), by_id(built, "decoder", "decoder.10")
    for s, changes in ((s9, True), (s10, False)):
        off = m.trace("The cat sat on the mat", ablate=[s.params["heads"]], how="zero")
        assert (off.output_text != before) is changes and s.answer_label == ("yes" if changes else "no")
        assert s.params["after"] == off.output_text
    assert float(s9.params["loss"]) > 1.0 > abs(float(s10.params["loss"]))


def test_change_margin_on_made_up_distributions():
    """change_margin by hand: the head-off run teacher-forced on ids [start, 5, 7] (then </s>)."""
    eos = model.tokenizer.EOS
    p = np.full((3, 10), 1e-6)
    p[0, 5], p[1, 7], p[2, eos] = 0.9, 0.6, 0.99
    p[1, 3] = 0.3
    assert np.isclose(change_margin(p, [1, 5, 7]), np.log(2), atol=1e-4)
    p[1, 3] = 0.6 * np.e**2
    assert np.isclose(change_margin(p, [1, 5, 7]), 2.0, atol=1e-6)


def test_lesson_heatmaps_of_writing_rows_carry_what_each_row_writes(built, runners):
    cross = runners("translator").trace("The cat sat on the mat").attention["cross"]
    s = by_id(built, "decoder", "decoder.8")
    assert s.reveal[0].query_tokens == cross.query_tokens
    assert s.reveal[0].query_written == list(cross.query_written)
    assert all(h.query_written is None for h in by_id(built, "attention", "attention.6").reveal)  # encoder


def test_answers_in_a_link_round_trip_and_bad_ones_are_refused():
    assert encode_answers({0: 2, 3: 11}, 10) == "2--b"
    assert decode_answers("2--b") == {0: 2, 3: 11}
    with pytest.raises(ValueError):
        decode_answers("2?")


def test_a_lesson_file_round_trips_through_dumps():
    for path in LESSON_FILES:
        lesson = schema.validate(path.read_bytes())
        again = schema.validate(files.dump_lesson(lesson))
        assert (again.id, again.title, again.intro, again.steps) == (
            lesson.id,
            lesson.title,
            lesson.intro,
            lesson.steps,
        )


@pytest.mark.parametrize("name", [*model.NAMES])
def test_every_query_runs_or_says_why_not_on_every_shipped_model(name, runners):
    """Each query on each shipped model, on a plain sentence: it answers, or it raises NotApplicable
    with a key the editor can show (an encoder has no next token; a GPT has no translation)."""
    from lessons.pick import NotApplicable
    from ui.i18n import TABLE

    r = runners(name)
    text = "The cat sat on the mat"
    args = {
        "word": "cat",
        "key": "The",
        "than": 0.3,
        "other": "mat" if True else "",
        "also": ["The dog sat on the mat"],
    }
    for q in queries.QUERIES.values():
        a = {k: v for k, v in args.items() if k in q.args}
        if q.name in ("same_output", "cells_compare"):
            a["other"] = "The dog sat on the mat"
        view = (
            {"heads_off": [f"{r.kinds[-1] if r.kinds[-1] != 'cross' else 'cross'}:1:1"]}
            if q.name == "switch_off_changes"
            else {}
        )
        try:
            out = queries.run(q.name, r, text, view, a, q.questions[0])
            assert 0 <= out["answer"] < len(out["options"]), q.name
        except NotApplicable as e:
            assert f"query_na_{e.key}" in TABLE, (q.name, e.key)


# -- the page ---------------------------------------------------------------------------------------


def pills(at):
    return at.button_group[0]


def test_page_predict_then_reveal_then_next_and_the_link_keeps_step_and_answers(built):
    steps = [s for _, s in built["attention"][1]]
    at = apptest.open_page(PAGE, "translator", 180)
    assert "How many tokens" in at.markdown[1].value
    assert not at.success and not at.error
    wrong = (steps[0].answer + 1) % len(steps[0].options)
    pills(at).set_value(wrong).run()
    assert at.error and "the model says **6**" in at.error[0].value
    assert "answers" not in at.query_params
    at.toggle(key="les_share").set_value(True).run()
    assert at.query_params["answers"] == str(wrong)
    at.button(key="les_next").click().run()
    assert at.query_params["step"] == "2"
    pills(at).set_value(steps[1].answer).run()
    assert at.success and "exactly 1" in at.success[0].value
    assert any("adds up to 1.0000" in m.value.replace("\\", "") for m in at.markdown)
    link = at.query_params
    again = apptest.open_page(PAGE, "translator", 180, lesson="attention", step=link["step"], answers=link["answers"])
    assert again.success
    assert again.button_group[0].disabled


def test_page_score_at_the_end_in_chinese(built, monkeypatch):
    from ui import i18n

    monkeypatch.setattr(i18n, "DEFAULT_LANG", "zh")
    steps = [s for _, s in built["positions"][1]]
    answers = "".join(str(s.answer) for s in steps[:-1])
    at = apptest.open_page(PAGE, "translator", 180, lang="zh", lesson="positions", step=len(steps), answers=answers)
    assert "第 9 步，共 9 步" in at.get("progress")[0].proto.text
    assert any("正弦位置编码" in m.value for m in at.markdown)  # the lesson file's own Chinese text
    pills(at).set_value((steps[-1].answer + 1) % len(steps[-1].options)).run()
    assert any(f"{len(steps)} 题中答对 {len(steps) - 1} 题" in m.value for m in at.markdown)
    assert not [k for k in MISSING if k.startswith(("lesson", "room"))]


def test_page_word_question_shows_the_heatmap_row_as_the_tutorial_table(built):
    s = by_id(built, "attention", "attention.3")
    at = apptest.open_page(PAGE, "translator", 180, lesson="attention", step=3)
    pills(at).set_value(s.answer).run()
    assert isinstance(s.reveal[0], Heat)
    # the reveal's heatmap is the in-browser view: its table shows the asked row first
    tokens, row = apptest.view_row(at, f"les_heat_{s.id}_0")
    assert tokens == s.reveal[0].key_tokens
    np.testing.assert_allclose(row, s.reveal[0].weights[s.reveal[0].row], atol=1e-6)
    assert tokens[int(row.argmax())] == s.answer_label


def test_lesson_languages_are_the_app_s_languages():
    """A lesson's texts carry one entry per language the app speaks: lessons/ cannot import ui/, so
    its LANGS is a second list, kept equal to ui/i18n.py's here (CONTRIBUTING, "Add a language")."""
    from ui import i18n

    assert schema.LANGS and tuple(schema.LANGS) == tuple(i18n.LANGS)

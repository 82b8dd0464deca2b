"""Every word of a built-in lesson's reveal is true of its model (issue 46): each reveal (reveal,
reveal_yes, reveal_no) is its query's {numbers}, phrases its marks define (about the method, true of
any model) and phrases its marks guard with a named check of lessons/says.py (computed from the model
on the step's sentence), with nothing else but lessons.says.FILLER's connecting words. A reveal whose
fixed wording no check covers fails here, and every check runs on every built-in step that names it
(the real models' lessons slow-marked). Each check is also broken: run where its phrase is false, it
must fail (tests/test_claims_break.py does the same for analysis/claims.py)."""

from __future__ import annotations

import re
import string
import tomllib
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from lessons import build as B
from lessons import files, pick, says
from model.registry import PACKAGED
from tests.conftest import packaged_missing

ROOT = Path(__file__).resolve().parents[1]
REVEALS = ("reveal", "reveal_yes", "reveal_no")


def marks(name: str) -> dict:
    with open(ROOT / "ui" / "marks" / f"lesson_{name}.toml", "rb") as f:
        return tomllib.load(f)


def lesson(name: str) -> dict:
    with open(files.BUILTIN_DIR / f"{name}.toml", "rb") as f:
        return tomllib.load(f)


def reveals(name: str):
    """(step spec, place "ID.reveal...", texts, mark) of every reveal of a built-in lesson."""
    m = marks(name)
    for spec in lesson(name)["step"]:
        for k in REVEALS:
            if k in spec:
                yield spec, f"{spec['id']}.{k}", spec[k], m[f"{spec['id']}.{k}"]


def words_left(text: str, mark: dict) -> list[str]:
    """The words of an English reveal that are neither a {number}, nor in a phrase the mark defines or
    guards, nor FILLER."""
    text = without_phrases(text, mark)
    text = "".join(lit + " " for lit, *_ in string.Formatter().parse(text))  # the {numbers} out
    words = re.findall(r"[A-Za-z][A-Za-z'’]*", text.replace("**", " ").replace("'s", " "))
    return [w for w in words if w.lower() not in says.FILLER]


def without_phrases(text: str, mark: dict) -> str:
    """text with the mark's phrases (each found in it) taken out, the longest first (a guarded "the
    highest" inside a defined "... so the highest score always ...")."""
    phrases = [s["en"] for s in mark.get("says", [])] + list(mark.get("defines", []))
    for phrase in phrases:
        assert phrase in text, f"the mark's phrase is not in the text: {phrase!r}"
    for phrase in sorted(phrases, key=len, reverse=True):
        text = text.replace(phrase, " ")
    return text


def triggers_left(text: str, mark: dict) -> list[str]:
    text = without_phrases(text, mark)
    low = " " + re.sub(r"[^a-z]+", " ", text.lower()) + " "
    return [t for t in says.TRIGGERS if f" {t} " in low]


def test_filler_holds_no_word_that_says_how_many():
    assert not {w for t in says.TRIGGERS for w in t.split()} & says.FILLER


@pytest.mark.parametrize("name", files.BUILTIN)
def test_every_reveal_is_filled_defined_or_guarded(name):
    """The whole English text accounted for; each guarded phrase has its Chinese in the Chinese text,
    and its check exists."""
    seen = 0
    for spec, place, texts, mark in reveals(name):
        seen += 1
        assert isinstance(mark, dict) and mark.get("query") == spec["query"], place
        left = words_left(texts["en"], mark)
        assert not left, f"{place}: fixed words no check covers: {left}"
        assert not triggers_left(texts["en"], mark), place
        for s in mark.get("says", []):
            assert s["check"] in says.CHECKS, (place, s["check"])
            assert s["zh"] in texts["zh"], f"{place}: the guarded phrase's Chinese is not in the text: {s['zh']!r}"
    assert seen >= len(lesson(name)["step"])  # every step has a reveal, and a lesson of none fails


def guarded():
    """(lesson, step spec, check, args) for every guarded phrase of every built-in lesson."""
    out = []
    for name in files.BUILTIN:
        for spec, place, _, mark in reveals(name):
            for s in mark.get("says", []):
                slow = spec["model"] in PACKAGED
                marks_ = [pytest.mark.slow] if slow else []
                out.append(
                    pytest.param(
                        name, spec, place, s["check"], s.get("args", {}), id=f"{place}:{s['check']}", marks=marks_
                    )
                )
    return out


BUILT: dict = {}


def built_step(name, spec, runners):
    lesson_ = files.builtin(name)
    i = next(i for i, s in enumerate(lesson_.steps) if s.get("id", lesson_.step_id(i)) == spec["id"])
    key = (name, spec["id"])
    if key not in BUILT:
        BUILT[key] = (lesson_.steps[i], B.build_step(lesson_.steps[i], runners, lesson_.step_id(i)))
    return BUILT[key]


@pytest.mark.parametrize("name, spec, place, check, args", guarded())
def test_every_guarded_phrase_holds_on_its_step(name, spec, place, check, args, runners):
    """Where the step shows the text, each of its guarded phrases' checks holds (a reveal_yes is shown
    only where the answer is yes: not shown, its phrases say nothing)."""
    if spec["model"] in PACKAGED and packaged_missing(spec["model"]):
        pytest.skip(packaged_missing(spec["model"]))
    full, step = built_step(name, spec, runners)
    if step.reveal_text != spec[place.rsplit(".", 1)[1]]:
        assert place.endswith(("reveal_yes", "reveal_no")), place  # a branch this step does not show
        return
    holds, numbers = says.run(check, says.Said(step, full, runners, dict(args)))
    assert holds, (spec["id"], check, numbers)


def test_every_check_is_named_by_a_lesson_and_broken_below():
    used = {s["check"] for n in files.BUILTIN for *_, m in reveals(n) for s in m.get("says", [])}
    assert used, "no guarded phrase enumerated"
    assert set(says.CHECKS) == used | {"answer_no"}, set(says.CHECKS) ^ used
    assert set(BROKEN) == set(says.CHECKS), set(says.CHECKS) ^ set(BROKEN)


# -- every check can fail: run where its phrase is false ---------------------------------------------------
def att(tokens, weights, mask=None, written=None):
    w = np.asarray(weights, np.float64)
    return SimpleNamespace(
        query_tokens=list(tokens),
        key_tokens=list(tokens),
        weights=w,
        mask=mask,
        query_written=written,
        num_layers=w.shape[0],
        num_heads=w.shape[1],
    )


class Fake:
    """A runner known by its traces alone: kind -> att on every text (or text -> att), its outputs."""

    has_tutorial_code = False

    def __init__(self, atts, kind="decoder", outputs=None, tokenizer=None, d_model=128):
        self.atts, self.kinds, self.kind = atts, (kind,), "gpt" if kind == "decoder" else "translator"
        self.outputs = outputs or {}
        self.tokenizer = tokenizer
        self.config = SimpleNamespace(d_model=d_model)
        self.name = "fake"

    def trace(self, text, **_):
        a = self.atts(text) if callable(self.atts) else self.atts
        return SimpleNamespace(attention={k: a for k in self.kinds}, output_text=self.outputs.get(text, ""))


def causal_rows(n, key_of_row, heads=2):
    """(1, heads, n, n) causal weights, all of row r on key_of_row(r) (clipped to 0..r)."""
    w = np.zeros((1, heads, n, n))
    for r in range(n):
        w[:, :, r, min(max(key_of_row(r), 0), r)] = 1.0
    return w


def said(runner, params, spec=None, answer=0, options=("yes", "no"), args=None):
    step = SimpleNamespace(params={"text": "t", **params}, answer=answer, options=list(options))
    step.answer_label = step.options[answer]
    spec = {"model": "fake", "view": {}, "args": {}, **(spec or {})}
    return says.Said(step, spec, lambda name: runner, dict(args or {}))


def holds(name, s):
    return says.run(name, s)[0]


TOKS = ["<s>", "A", "cat", "sat", "on", "my", "mat"]
CAUSAL = np.tril(np.ones((7, 7), bool))


def test_answer_checks_follow_the_step():
    r = Fake(att(TOKS, causal_rows(7, lambda r: r)))
    assert holds("answer_yes", said(r, {}, answer=0)) and not holds("answer_yes", said(r, {}, answer=1))
    assert holds("answer_no", said(r, {}, answer=1)) and not holds("answer_no", said(r, {}, answer=0))


def test_top_is_previous_and_every_row():
    prev = Fake(att(TOKS, causal_rows(7, lambda r: r - 1), CAUSAL))
    two_back = Fake(att(TOKS, causal_rows(7, lambda r: r - 2 if r != 3 else r - 1), CAUSAL))
    p = {"layer": 1, "head": 1, "word": "sat", "top": "cat"}
    assert holds("top_is_previous", said(prev, p)) and holds("previous_every_row", said(prev, p))
    assert not holds("top_is_previous", said(prev, {**p, "top": "A"}))
    assert not holds("previous_every_row", said(two_back, p))  # "sat" reads "cat", the others do not


def test_which_key_checks_fail_on_another_key():
    r = Fake(att(TOKS, causal_rows(7, lambda r: 0), CAUSAL))
    assert holds("top_is_first", said(r, {"top": "<s>"})) and not holds("top_is_first", said(r, {"top": "A"}))
    assert holds("key_is_first", said(r, {"key": "<s>"})) and not holds("key_is_first", said(r, {"key": "cat"}))
    toks = ["<s>", "met", "Mr", "Potter", ".", "met"]
    rep = Fake(att(toks, causal_rows(6, lambda r: r)))
    p = {"word": "met₂", "top": "Mr", "layer": 1, "head": 1}
    assert holds("top_is_after_previous", said(rep, p))
    assert not holds("top_is_after_previous", said(rep, {**p, "top": "met₁"}))  # the copy itself: no induction


def test_head_sharper_than_mean_fails_where_every_head_is_the_same():
    same = Fake(att(TOKS, causal_rows(7, lambda r: 0), CAUSAL))
    w = causal_rows(7, lambda r: 0)
    w[0, 1] = np.tril(np.ones((7, 7))) / np.arange(1, 8)[:, None]  # head 2 uniform: head 1 sharper than the mean
    differ = Fake(att(TOKS, w, CAUSAL))
    p = {"layer": 1, "head": 1, "word": "mat"}
    assert holds("head_sharper_than_mean", said(differ, p)) and not holds("head_sharper_than_mean", said(same, p))


def test_numbers_the_step_gives():
    r = Fake(att(TOKS, causal_rows(7, lambda r: r)))
    assert not holds("not_the_tutorials_number", said(r, {"weight": "0.35", "than": 0.35}))
    assert holds("not_the_tutorials_number", said(r, {"weight": "0.09", "than": 0.35}))
    assert not holds("switching_off_lowers", said(r, {"loss": "-0.50"})) and holds(
        "switching_off_lowers", said(r, {"loss": "0.00"})
    )
    assert not holds("temperature_below_one", said(r, {}, {"args": {"temperature": 5.0}}))
    assert holds("temperature_below_one", said(r, {}, {"args": {"temperature": 0.2}}))
    assert not holds("near_above_far", said(r, {}, {"args": {"p": 3, "near": 10, "far": 4}}))
    assert holds("near_above_far", said(r, {}, {"args": {"p": 3, "near": 4, "far": 10}}))


def test_the_mask_checks_fail_without_a_mask():
    seen = Fake(att(TOKS, np.full((1, 2, 7, 7), 1 / 7), np.ones((7, 7), bool)))
    masked = Fake(att(TOKS, causal_rows(7, lambda r: r), CAUSAL))
    assert holds("causal_mask", said(masked, {})) and not holds("causal_mask", said(seen, {}))
    p, a = {"word": "cat"}, {"token": "mat"}
    assert holds("later_token_hidden", said(masked, p, args=a))
    assert not holds("later_token_hidden", said(seen, p, args=a))
    assert not holds("later_token_hidden", said(masked, {"word": "mat"}, args={"token": "cat"}))  # before it


def test_last_row_writes_eos_fails_on_another_last_token():
    toks = ["<2zh>", "猫", "坐"]
    good = Fake(att(toks, np.ones((1, 1, 3, 3)) / 3, written=["猫", "坐", "</s>"]), kind="cross")
    bad = Fake(att(toks, np.ones((1, 1, 3, 3)) / 3, written=["猫", "坐", "上"]), kind="cross")
    assert holds("last_row_writes_eos", said(good, {})) and not holds("last_row_writes_eos", said(bad, {}))


def test_rows_only_reordered_fails_where_order_changes_the_weights():
    rng = np.random.default_rng(0)

    def by_text(perm_equal):
        base = rng.random((1, 2, 3, 3))

        def trace(text):
            toks = list(text)
            if perm_equal:  # the same weights, rows and columns in the token's order
                p = [list("狗咬人").index(t) for t in toks]
                return att(toks, base[:, :, p][:, :, :, p])
            return att(toks, base if text == "狗咬人" else rng.random((1, 2, 3, 3)))

        return Fake(trace, kind="encoder")

    spec = {"args": {"other": "人咬狗"}}
    assert holds("rows_only_reordered", said(by_text(True), {"text": "狗咬人"}, spec))
    assert not holds("rows_only_reordered", said(by_text(False), {"text": "狗咬人"}, spec))


def test_translation_flips_fails_on_one_translation_or_other_words():
    spec = {"args": {"other": "人咬狗"}}
    a = Fake(
        att(TOKS, causal_rows(7, lambda r: r)),
        outputs={"狗咬人": "The dog bites the man", "人咬狗": "The man bites the dog"},
    )
    same = Fake(
        att(TOKS, causal_rows(7, lambda r: r)),
        outputs={"狗咬人": "The man bites the man", "人咬狗": "The man bites the man"},
    )
    other = Fake(
        att(TOKS, causal_rows(7, lambda r: r)), outputs={"狗咬人": "The dog bites the man", "人咬狗": "A man is here"}
    )
    assert holds("translation_flips", said(a, {"text": "狗咬人"}, spec))
    assert not holds("translation_flips", said(same, {"text": "狗咬人"}, spec))
    assert not holds("translation_flips", said(other, {"text": "狗咬人"}, spec))


def test_sink_checks_fail_on_uniform_attention():
    uniform = Fake(att(TOKS, np.tril(np.ones((1, 2, 7, 7))) / np.arange(1, 8)[:, None], CAUSAL))
    sink = Fake(att(TOKS, causal_rows(7, lambda r: 0), CAUSAL))
    p = {"text": "The cat sat on the mat"}
    assert holds("model_has_sink", said(sink, p)) and not holds("model_has_sink", said(uniform, p))
    assert holds("small_model_sinks", said(sink, p)) and not holds("small_model_sinks", said(uniform, p))


def test_tokenizer_checks_fail_on_one_token_per_character():
    text = "猫坐在垫子上。"
    per_char = ["<bos>", *text]
    words = ["<bos>", "猫", "坐在", "垫子", "上", "。"]
    one = np.ones((1, 1, 8, 8)) / 8
    p = {"text": text}
    assert not holds("fewer_tokens_than_characters", said(Fake(att(per_char, one)), p))
    assert not holds("whole_words_in_vocabulary", said(Fake(att(per_char, one)), p))
    w6 = np.ones((1, 1, 6, 6)) / 6
    assert holds("fewer_tokens_than_characters", said(Fake(att(words, w6)), p))
    assert holds("whole_words_in_vocabulary", said(Fake(att(words, w6)), p))
    whole = SimpleNamespace(encode=lambda s: [1] * len(s))  # one token a character
    bytes_ = SimpleNamespace(encode=lambda s: list(s.encode()))  # three a character
    assert not holds("english_model_cuts_characters", said(Fake(att(words, w6), tokenizer=whole), p))
    assert holds("english_model_cuts_characters", said(Fake(att(words, w6), tokenizer=bytes_), p))


def test_top_is_named_fails_on_another_top():
    r = Fake(att(TOKS, causal_rows(7, lambda r: r)))
    assert holds("top_is_named", said(r, {"top": "cat"}, args={"token": "cat"}))
    assert not holds("top_is_named", said(r, {"top": "mat"}, args={"token": "cat"}))


def story_reader(reads: str):
    """A fake decoder whose pronoun row reads the subject ("subject"), the noun the pronoun means
    ("meant") or the object ("object") of analysis.pronoun_probe's stories; other rows read themselves."""
    from analysis import pronoun_probe

    meant = {
        t: (subj, obj, p) for refers in ("object", "subject") for t, p, subj, obj in pronoun_probe.sentences(refers)
    }

    def trace(text):
        toks = ["<s>", *text.replace(".", " .").split()]
        n = len(toks)
        w = causal_rows(n, lambda r: r, heads=1)
        subj, obj, p = meant.get(text, ("", "", ""))
        if p in toks:
            row = toks.index(p)
            refers_object = text in [t for t, *_ in pronoun_probe.sentences("object")]
            key = {"subject": subj, "object": obj, "meant": obj if refers_object else subj}[reads]
            w[0, 0, row] = 0.0
            w[0, 0, row, toks.index(key)] = 1.0
        return att(toks, w, np.tril(np.ones((n, n), bool)))

    return Fake(trace)


def test_the_pronoun_checks_tell_a_subject_head_from_one_that_follows_the_pronoun():
    p = {"layer": 1, "head": 1}
    spec = {"args": {}}
    follows, subject, obj = story_reader("meant"), story_reader("subject"), story_reader("object")
    assert holds("head_follows_pronoun", said(follows, p, spec))
    assert not holds("head_follows_pronoun", said(subject, p, spec))
    assert not holds("head_follows_pronoun", said(obj, p, spec))
    a = {"model": "fake", "layer": 1, "head": 1}
    assert holds("subject_head", said(subject, p, spec, args=a))
    assert not holds("subject_head", said(follows, p, spec, args=a))


@pytest.mark.slow  # two of the shipped models' traces
def test_top_score_highest_fails_on_a_key_that_does_not_score_highest(runners):
    r = runners("translator")
    spec = {"model": "translator", "view": {"kind": "encoder", "layer": 2, "head": 2}, "args": {}}
    att_ = r.trace("The cat sat on the mat").attention["encoder"]
    from analysis.experiments import head_scores

    scores = head_scores(r, "The cat sat on the mat", "encoder", 1, 1)[5]
    labels = pick.labels_of(att_.key_tokens)
    best, worst = labels[int(np.argmax(scores))], labels[int(np.argmin(scores))]
    p = {"text": "The cat sat on the mat", "layer": 2, "head": 2, "word": "mat"}
    ok = says.Said(SimpleNamespace(params={**p, "top": best}), spec, runners)
    bad = says.Said(SimpleNamespace(params={**p, "top": worst}), spec, runners)
    assert holds("top_score_highest", ok) and not holds("top_score_highest", bad)


BROKEN = {
    "answer_yes": test_answer_checks_follow_the_step,
    "answer_no": test_answer_checks_follow_the_step,
    "top_is_previous": test_top_is_previous_and_every_row,
    "previous_every_row": test_top_is_previous_and_every_row,
    "top_is_first": test_which_key_checks_fail_on_another_key,
    "key_is_first": test_which_key_checks_fail_on_another_key,
    "top_is_after_previous": test_which_key_checks_fail_on_another_key,
    "top_score_highest": test_top_score_highest_fails_on_a_key_that_does_not_score_highest,
    "head_sharper_than_mean": test_head_sharper_than_mean_fails_where_every_head_is_the_same,
    "not_the_tutorials_number": test_numbers_the_step_gives,
    "switching_off_lowers": test_numbers_the_step_gives,
    "temperature_below_one": test_numbers_the_step_gives,
    "near_above_far": test_numbers_the_step_gives,
    "causal_mask": test_the_mask_checks_fail_without_a_mask,
    "later_token_hidden": test_the_mask_checks_fail_without_a_mask,
    "last_row_writes_eos": test_last_row_writes_eos_fails_on_another_last_token,
    "rows_only_reordered": test_rows_only_reordered_fails_where_order_changes_the_weights,
    "translation_flips": test_translation_flips_fails_on_one_translation_or_other_words,
    "top_is_named": test_top_is_named_fails_on_another_top,
    "head_follows_pronoun": test_the_pronoun_checks_tell_a_subject_head_from_one_that_follows_the_pronoun,
    "subject_head": test_the_pronoun_checks_tell_a_subject_head_from_one_that_follows_the_pronoun,
    "model_has_sink": test_sink_checks_fail_on_uniform_attention,
    "small_model_sinks": test_sink_checks_fail_on_uniform_attention,
    "fewer_tokens_than_characters": test_tokenizer_checks_fail_on_one_token_per_character,
    "whole_words_in_vocabulary": test_tokenizer_checks_fail_on_one_token_per_character,
    "english_model_cuts_characters": test_tokenizer_checks_fail_on_one_token_per_character,
}

"""Every word of a built-in lesson's reveal and question is true of its model (issue 46): each reveal
(reveal, reveal_yes, reveal_no) is its query's {numbers}, phrases its marks define (about the method,
true of any model) and phrases its marks guard with a named check of lessons/says.py (computed from
the model on the step's sentence), with nothing else but lessons.says.FILLER's connecting words. A
question (ask) is held to the same, with its question words (says.QUESTION) and the question its
query answers (`asks`: phrases ending in "?", no asserting clause in them: "which comes after it" is
a phrase of its own, guarded) aside; an option label the app words (yes, sketch A, "exactly 1") says
nothing of the model (OPTION_WORDS). A text whose fixed wording no check covers fails here, and every
check runs on every built-in step that names it (the real models' lessons slow-marked). Each check
is also broken: run where its phrase is false, it must fail (tests/test_claims_break.py does the
same for analysis/claims.py)."""

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
ASKS = ("ask",)


def marks(name: str) -> dict:
    with open(ROOT / "ui" / "marks" / f"lesson_{name}.toml", "rb") as f:
        return tomllib.load(f)


def lesson(name: str) -> dict:
    with open(files.BUILTIN_DIR / f"{name}.toml", "rb") as f:
        return tomllib.load(f)


def reveals(name: str, keys=REVEALS):
    """(step spec, place "ID.reveal...", texts, mark) of every reveal (or ask, keys=ASKS) of a built-in
    lesson."""
    m = marks(name)
    for spec in lesson(name)["step"]:
        for k in keys:
            if k in spec:
                yield spec, f"{spec['id']}.{k}", spec[k], m[f"{spec['id']}.{k}"]


def words_left(text: str, mark: dict, allowed=says.FILLER) -> list[str]:
    """The words of an English reveal that are neither a {number}, nor in a phrase the mark defines,
    guards or asks, nor allowed (FILLER; a question's also QUESTION)."""
    text = without_phrases(text, mark)
    text = "".join(lit + " " for lit, *_ in string.Formatter().parse(text))  # the {numbers} out
    words = re.findall(r"[A-Za-z][A-Za-z'’]*", text.replace("**", " ").replace("'s", " "))
    return [w for w in words if w.lower() not in allowed]


def placeholders(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


def without_phrases(text: str, mark: dict, strict: bool = True) -> str:
    """text with the mark's phrases (each found in it) taken out, the longest first (a guarded "the
    highest" inside a defined "... so the highest score always ...")."""
    phrases = [s["en"] for s in mark.get("says", [])] + [*mark.get("defines", []), *mark.get("fills", [])]
    phrases += list(mark.get("asks", []))
    for phrase in phrases if strict else ():
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


QUESTION_WORDS = says.FILLER | says.QUESTION


@pytest.mark.parametrize("name", files.BUILTIN)
def test_every_question_is_filled_defined_guarded_or_asked(name):
    """An ask's English text accounted for as a reveal's, with question words and the question its
    query answers (`asks`) aside: what it states on the way ("“{word}” can see six tokens", "which
    comes after it", "30 layers × 9 heads") is a guarded phrase, run on the step below."""
    seen = 0
    for spec, place, texts, mark in reveals(name, ASKS):
        seen += 1
        assert isinstance(mark, dict) and mark.get("query") == spec["query"], place
        left = words_left(texts["en"], mark, QUESTION_WORDS)
        assert not left, f"{place}: fixed words no check covers: {left}"
        assert not triggers_left(texts["en"], mark), place
        for s in mark.get("says", []):
            assert s["check"] in says.CHECKS, (place, s["check"])
            assert s["zh"] in texts["zh"], f"{place}: the guarded phrase's Chinese is not in the text: {s['zh']!r}"
        for q in mark.get("asks", []):
            bad = asserting(without_phrases(q, {k: v for k, v in mark.items() if k != "asks"}, strict=False))
            assert not bad, f"{place}: the question {q!r} states something no phrase of its mark covers: {bad}"
        for f in mark.get("fills", []):  # what it says of the model is its {numbers}
            assert placeholders(f) and not triggers_left(f, {}), (place, f)
    assert seen == len(lesson(name)["step"])  # every step asks, and a lesson of none fails


def asserting(question: str) -> list[str]:
    """What makes an `asks` phrase more than a question: it does not end in "?", or a word of
    says.ASSERTING opens a clause that states something ("..., which comes after it?", "since ...");
    only its first word may be one, and then as a question word ("which word ...?")."""
    words = re.findall(r"[A-Za-z]+", question.lower())
    bad = [w for i, w in enumerate(words) if w in says.ASSERTING and not (i == 0 and w in says.QUESTION)]
    return bad + ([] if question.rstrip().endswith("?") else ["no question mark"])


def test_the_asks_rule_finds_a_question_that_states_something():
    assert asserting("which word does “{word}” read most?") == []
    assert asserting("Can “{word}” read “{later}”, which comes after it?") == ["which"]
    assert asserting("since the head looks back, what does it read?") == ["since"]
    assert asserting("what does the head that looks back read?") == ["that"]
    assert asserting("The head reads the first token.") == ["no question mark"]
    mark = {"asks": ["which word does “{word}” read most?"]}
    assert words_left("In layer {layer}, which word does “{word}” read most?", mark, QUESTION_WORDS) == []
    assert words_left("The induction head in layer {layer}: which word?", {}, QUESTION_WORDS) == ["induction"]


def test_a_question_that_states_something_fails_on_the_old_marks():
    """The old marks of lesson 4's first question (query alone) leave its statements uncovered."""
    spec = next(s for s in lesson("real")["step"] if s["id"] == "real.1")
    left = words_left(spec["ask"]["en"], {"query": "cell_above"}, QUESTION_WORDS)
    assert {"layers", "see", "six", "uniform", "first"} <= set(left), left


# option labels the app words itself (lessons.toml: yes/no, a sketch's letter, a choice's key); the
# others are the model's own tokens, translations or counts, which the query computed
OPTION_WORDS = QUESTION_WORDS | {"yes", "no", "sketch", "about", "exactly", "larger", "equal", "they", "one", "pe"}


def option_keys() -> set[str]:
    """Every translation key a query may give as an option (read from lessons/queries.py's options=[...]
    lists), the yes/no pair and the sketch's label."""
    src = (ROOT / "lessons" / "queries.py").read_text(encoding="utf-8")
    keys = {k for block in re.findall(r"options=\[([^\]]*)\]", src) for k in re.findall(r'"(lesson_\w+)"', block)}
    return keys | {"lesson_yes", "lesson_no", "lesson_sketch"}


def test_every_worded_option_says_nothing_of_the_model():
    """An option the app words ("exactly 1", "PE(3)·PE(4) is larger", "Sketch A") is an answer to pick,
    not a statement: numbers (filled from the query) and OPTION_WORDS only, in both languages' marks
    definitional or filled (the numbers)."""
    table = {}
    for p in (ROOT / "ui" / "strings").glob("*.toml"):
        with open(p, "rb") as f:
            table |= tomllib.load(f)
    keys = option_keys()
    assert {"lesson_sum_one", "lesson_pe_near", "lesson_yes", "lesson_sketch"} <= keys, keys
    m = marks_of_strings()
    for key in sorted(keys):
        text = "".join(lit + " " for lit, *_ in string.Formatter().parse(table[key]["en"]))
        left = [w for w in re.findall(r"[A-Za-z]+", text) if w.lower() not in OPTION_WORDS]
        assert not left, (key, left)
        assert m[key] in ("definitional", "filled"), (key, m[key])


def marks_of_strings() -> dict:
    out = {}
    for p in (ROOT / "ui" / "marks").glob("*.toml"):
        if not p.name.startswith("lesson_"):
            with open(p, "rb") as f:
                out |= tomllib.load(f)
    return out


def guarded():
    """(lesson, step spec, check, args) for every guarded phrase of every built-in lesson's reveals and
    questions."""
    out = []
    for name in files.BUILTIN:
        for spec, place, _, mark in [*reveals(name), *reveals(name, ASKS)]:
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
    if not place.endswith(".ask") and step.reveal_text != spec[place.rsplit(".", 1)[1]]:
        assert place.endswith(("reveal_yes", "reveal_no")), place  # a branch this step does not show
        return
    holds, numbers = says.run(check, says.Said(step, full, runners, dict(args)))
    assert holds, (spec["id"], check, numbers)


def test_every_check_is_named_by_a_lesson_and_broken_below():
    used = {s["check"] for n in files.BUILTIN for *_, m in [*reveals(n), *reveals(n, ASKS)] for s in m.get("says", [])}
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


def test_tutorials_number_fails_on_another_word_or_number():
    r = Fake(att(TOKS, causal_rows(7, lambda r: r)))
    assert holds("tutorials_number", said(r, {}, {"args": {"word": "cat", "key": "cat", "than": 0.35}}))
    assert not holds("tutorials_number", said(r, {}, {"args": {"word": "cat", "key": "cat", "than": 0.5}}))
    assert not holds("tutorials_number", said(r, {}, {"args": {"word": "sat", "key": "sat", "than": 0.18}}))


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


# -- the questions' checks (what an ask states on its way) ---------------------------------------------------
def test_model_and_view_checks_fail_on_another_model_or_view():
    r = Fake(att(TOKS, causal_rows(7, lambda r: r), CAUSAL))
    assert holds("model_is", said(r, {}, {"model": "gpt"}, args={"model": "gpt"}))
    assert not holds("model_is", said(r, {}, {"model": "gpt-rope"}, args={"model": "gpt"}))
    assert holds("ours", said(r, {}, {"model": "gpt"})) and not holds("ours", said(r, {}, {"model": "smollm2-135m"}))
    p = {"kind": "decoder", "layer": 1, "head": "—"}
    assert holds("view_is", said(r, p, args={"kind": "decoder", "layer": "last", "head": "mean"}))
    assert not holds("view_is", said(r, p, args={"kind": "encoder"}))
    assert not holds("view_is", said(r, {**p, "head": 2}, args={"head": "mean"}))
    two = Fake(att(TOKS, np.concatenate([causal_rows(7, lambda r: r)] * 2), CAUSAL))  # 2 layers: 1 is not last
    assert not holds("view_is", said(two, p, args={"layer": "last"}))
    assert holds("model_shape", said(r, {}, args={"layers": 1, "heads": 2}))
    assert not holds("model_shape", said(r, {}, args={"layers": 30, "heads": 9}))
    assert not holds("model_shape", said(r, {}, args={"heads": 9}))


def test_what_a_row_sees_fails_on_another_count():
    r = Fake(att(TOKS, causal_rows(7, lambda r: r), CAUSAL))
    p = {"word": "on"}  # row 4 sees 5 tokens: uniform 0.2
    assert holds("row_sees", said(r, p, args={"n": 5})) and not holds("row_sees", said(r, p, args={"n": 6}))
    assert holds("than_is_uniform", said(r, p, {"args": {"than": 0.2}}))
    assert not holds("than_is_uniform", said(r, p, {"args": {"than": 0.17}}))


def test_first_and_start_checks_fail_on_a_word():
    r = Fake(att(TOKS, causal_rows(7, lambda r: r), CAUSAL))
    assert holds("is_first", said(r, {"token": "<s>"}, args={"param": "token"}))
    assert not holds("is_first", said(r, {"token": "cat"}, args={"param": "token"}))
    assert holds("first_is_start", said(r, {"text": "A cat sat"}))
    no_start = Fake(att(["A", "cat", "sat"], causal_rows(3, lambda r: r), np.tril(np.ones((3, 3), bool))))
    assert not holds("first_is_start", said(no_start, {"text": "A cat sat"}))


def test_order_checks_fail_on_an_earlier_key_or_a_word_not_repeated_last():
    r = Fake(att(TOKS, causal_rows(7, lambda r: r), CAUSAL))
    assert holds("comes_after", said(r, {"word": "sat", "later": "mat"}))
    assert not holds("comes_after", said(r, {"word": "sat", "later": "cat"}))
    toks = ["<s>", "met", "Mr", "Potter", ".", "met"]
    rep = Fake(att(toks, causal_rows(6, lambda r: r)))
    assert holds("repeated_at_end", said(rep, {"word": "met₂"}))
    assert not holds("repeated_at_end", said(rep, {"word": "met₁"}))  # the first time, not at the end
    once = Fake(att(["<s>", "met", "Mr", "Potter"], causal_rows(4, lambda r: r)))
    assert not holds("repeated_at_end", said(once, {"word": "Potter"}))  # last, but never before


def test_text_checks_fail_on_other_characters():
    r = Fake(att(TOKS, causal_rows(7, lambda r: r), CAUSAL))
    assert holds("characters", said(r, {"text": "猫坐在垫子上。它很开心。"}, args={"n": 12}))
    assert not holds("characters", said(r, {"text": "猫坐在垫子上。"}, args={"n": 12}))
    a = {"other": "狗咬人", "n": 3}
    assert holds("same_characters_reordered", said(r, {"text": "人咬狗"}, args=a))
    assert not holds("same_characters_reordered", said(r, {"text": "狗咬人"}, args=a))  # the same order
    assert not holds("same_characters_reordered", said(r, {"text": "人咬猫"}, args=a))  # another character


def test_keys_in_language_fails_on_a_key_of_the_other_language():
    en = Fake(att(["<2zh>", "The", "cat"], np.ones((1, 1, 3, 3)) / 3))
    mixed = Fake(att(["<2zh>", "The", "猫"], np.ones((1, 1, 3, 3)) / 3))
    p = {"word": "The"}
    assert holds("keys_in_language", said(en, p, args={"lang": "en"}))
    assert not holds("keys_in_language", said(mixed, p, args={"lang": "en"}))
    assert not holds("keys_in_language", said(en, p, args={"lang": "zh"}))


def test_make_up_checks_fail_on_shared_heads_or_other_positions():
    r = Fake(att(TOKS, causal_rows(7, lambda r: r), CAUSAL))
    r.config = SimpleNamespace(num_heads=4, positional="sinusoidal")
    assert holds("own_weights_per_head", said(r, {})) and holds("sinusoidal_positions", said(r, {}))
    r.config = SimpleNamespace(num_heads=4, num_kv_heads=1, positional="rope")  # Gemma's grouped query
    assert not holds("own_weights_per_head", said(r, {})) and not holds("sinusoidal_positions", said(r, {}))
    assert holds("neighbours", said(r, {}, {"args": {"p": 3, "near": 4}}))
    assert not holds("neighbours", said(r, {}, {"args": {"p": 3, "near": 5}}))


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
    "model_is": test_model_and_view_checks_fail_on_another_model_or_view,
    "ours": test_model_and_view_checks_fail_on_another_model_or_view,
    "view_is": test_model_and_view_checks_fail_on_another_model_or_view,
    "model_shape": test_model_and_view_checks_fail_on_another_model_or_view,
    "row_sees": test_what_a_row_sees_fails_on_another_count,
    "than_is_uniform": test_what_a_row_sees_fails_on_another_count,
    "is_first": test_first_and_start_checks_fail_on_a_word,
    "first_is_start": test_first_and_start_checks_fail_on_a_word,
    "comes_after": test_order_checks_fail_on_an_earlier_key_or_a_word_not_repeated_last,
    "repeated_at_end": test_order_checks_fail_on_an_earlier_key_or_a_word_not_repeated_last,
    "characters": test_text_checks_fail_on_other_characters,
    "same_characters_reordered": test_text_checks_fail_on_other_characters,
    "keys_in_language": test_keys_in_language_fails_on_a_key_of_the_other_language,
    "own_weights_per_head": test_make_up_checks_fail_on_shared_heads_or_other_positions,
    "sinusoidal_positions": test_make_up_checks_fail_on_shared_heads_or_other_positions,
    "neighbours": test_make_up_checks_fail_on_shared_heads_or_other_positions,
    "tutorials_number": test_tutorials_number_fails_on_another_word_or_number,
}

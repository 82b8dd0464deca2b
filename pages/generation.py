"""GPT generation, step by step: at each step the next-token distribution (cut-off tokens grey,
the drawn one orange) and what the newest token attends to in every layer and head."""

from __future__ import annotations

from ui import boot  # noqa: F401  (first: on a fresh server, a deep link shows the title and a loading message)

# isort: split

import dataclasses

import numpy as np
import streamlit as st

from analysis.experiments import before_cuts
from model.errors import InputError
from model.written import open_bytes
from pages.generation_parts import kv_cache
from ui import cache, page, slots, state, view
from ui.i18n import t
from ui.layout import copy_link, main_area, page_header, plotly_chart, present_figure, shown_model
from ui.run import Context
from ui.safe import md, short
from ui.state import clamped
from ui.view import Field
from ui.widgets import PLOTLY_CONFIG, action_button, sampling_knobs, show_input_error, show_model_notices
from viz.generation import next_token_bars, top_indices
from viz.heatmap import attention_heatmap

MAX_NEW = 100
SEED_MAX = 2**31 - 1
N_BARS = 15
KEEP_RUNS = 20

# what a class clicks before the page draws its main chart: the widget's key (or its start) and
# how many clicks; the screen walks click it first (tests/browser/screens.py, first_action)
FIRST_CHART_AFTER = ("gen_step", 1)  # Step: the first step's bars and heatmaps


@st.cache_data(show_spinner=False, max_entries=64)
def generate(name: str, device: str, prompt: str, n: int, stemp: float, top_k: int, top_p: float, seed: int):
    """The first n steps; the same settings with a larger n continue the same text (the draws use
    one seeded generator, step after step). Up to MAX_NEW forward passes: the heavy lane, charged
    to the session's CPU budget (ui/slots.py), so sockets looping this page wait there, not the
    class (issue 45: 16 of them took the class's p95 from 0.99 to 13.99 s)."""
    with slots.heavy():
        return cache.runner(name, device).generate(
            prompt,
            max_new_tokens=n,
            temperature=stemp,
            top_k=top_k or None,
            top_p=None if top_p >= 1.0 else top_p,
            seed=seed,
        )


def runs() -> dict:
    return st.session_state.setdefault("gen_runs", {})


def advance(run_key, to: int | None) -> None:
    """Step (to=None: one more token) or run (to: the maximum); show the newest step."""
    r = runs()
    done = r.pop(run_key, 0)
    r[run_key] = min(done + 1, st.session_state["gen_n"]) if to is None else to  # newest last
    while len(r) > KEEP_RUNS:
        del r[next(iter(r))]
    st.session_state.pop("gen_view", None)


# the page's view: every setting its link carries (ui/view.py), the usual values left out of it
VIEW = (
    Field("prompt", "gen_prompt", None, state.text, omit_default=True),  # default: the sidebar's sentence
    Field("n", "gen_n", 20, clamped("n", 1, MAX_NEW, int), omit_default=True),
    *view.sampling("gen"),
    Field("seed", "gen_seed", 0, clamped("seed", 0, SEED_MAX, int), omit_default=True),
    # the steps shown: a link's applies once, when it is opened (afterwards the buttons own it)
    Field("done", "gen_done_link", 0, clamped("done", 0, MAX_NEW, int), omit_default=True),
    *kv_cache.VIEW,  # the KV-cache section's (pages/generation_parts/kv_cache.py declares them)
)


def render(ctx: Context, view: dict) -> None:
    """The page: the prompt and the knobs, the buttons, the text so far, the step shown (its
    distribution and what the newest token attended to), then the KV cache."""
    if view["prompt"] is None:  # neither the link nor this session gave a prompt: the sidebar's sentence
        st.session_state["gen_prompt"] = ctx.text
    done_linked = state.linked("gen_done_link")  # a link's steps, taken once, as the link is read

    page_header("page_generation", "gen_intro")

    gen_ctx = ctx
    runner = ctx.runner()
    if runner is not None and not runner.can_continue_text:  # a decoder-only model writes; others do not
        st.info(t("gen_translator_note"), icon="ℹ️")
        gen_ctx = dataclasses.replace(ctx, model="gpt")
        shown_model(gen_ctx.model)
        runner = gen_ctx.runner()
    if runner is None:
        copy_link()
        return

    prompt, n_max, stemp, top_k, top_p, seed = _settings(runner)
    run_key = (gen_ctx.model, prompt, float(stemp), int(top_k), float(top_p), int(seed))
    if done_linked:
        runs()[run_key] = view["done"]  # a link reopens the same steps
    done = min(runs().get(run_key, 0), n_max)

    try:
        gen = generate(gen_ctx.model, gen_ctx.device, prompt, done, float(stemp), int(top_k), float(top_p), int(seed))
    except InputError as e:
        show_input_error(e)
        copy_link()
        return
    n_steps = len(gen.steps)
    finished = n_steps >= n_max or n_steps < done  # </s>, or the model's length limit
    if finished:
        done = n_steps

    # one row of buttons as wide as their labels (columns cut "Run to the end" to "Run to th..." on a
    # projector); in presentation mode under the title, above the step they draw, so the teacher steps
    # on without scrolling back past the chart to the knobs
    with main_area(), st.container(horizontal=True, key="gen_buttons"):
        action_button("gen_step", "➡️", advance, (run_key, None), type="primary", disabled=finished)
        action_button("gen_run", "⏩", advance, (run_key, n_max), disabled=finished)
        action_button("gen_reset", "↩️", advance, (run_key, 0), explain=False, disabled=done == 0)

    show_model_notices(gen.notices)

    tok = runner.tokenizer
    prompt_len = len(gen.ids) - n_steps  # <s> and the prompt's tokens
    labels = tok.labels(gen.ids)
    _text_so_far(tok, gen, labels, prompt_len, n_max, finished)
    read = gen.ids
    if n_steps:
        read = _step(ctx, gen_ctx, tok, gen, labels, prompt_len, stemp)
        st.page_link(
            "pages/attention.py",
            label=t("gen_open_attention"),
            icon="🔍",
            query_params={"text": gen.text, "model": gen_ctx.model, "lang": ctx.lang},
        )

    kv_cache.section(gen_ctx.model, gen_ctx.device, runner, gen.ids, read, prompt_len)
    state.write_view(
        VIEW,
        {"prompt": ctx.text},
        prompt=prompt,
        n=n_max,
        stemp=float(stemp),
        topk=int(top_k),
        topp=min(float(top_p), 1.0),
        seed=int(seed),
        done=done,
        **kv_cache.shown(),
    )
    copy_link()


def _settings(runner) -> tuple:
    """The prompt, then one row of knobs: (prompt, tokens at most, sampling temperature, top-k,
    top-p, seed)."""
    prompt = st.text_input(t("gen_prompt"), key="gen_prompt", help=t("gen_prompt_help"))
    c1, c2, c3, c4, c5 = st.columns(5)
    with c1:
        n_max = st.slider(t("gen_max_new"), 1, MAX_NEW, key="gen_n")
    stemp, top_k, top_p = sampling_knobs("gen", runner.tokenizer.vocab_size, (c2, c3, c4))
    with c5:
        seed = st.number_input(t("gen_seed"), 0, SEED_MAX, step=1, key="gen_seed", help=t("gen_seed_help"))
    return prompt, n_max, stemp, top_k, top_p, seed


def _text_so_far(tok, gen, labels: list[str], prompt_len: int, n_max: int, finished: bool) -> None:
    """The prompt, then the generated tokens in bold, and how far the writing has gone."""
    n_steps = len(gen.steps)
    st.subheader(t("gen_text"))
    before_text = tok.decode(gen.ids[:prompt_len])
    new_text = gen.text[len(before_text) :] if gen.text.startswith(before_text) else tok.decode(gen.ids[prompt_len:])
    gap = " " if new_text[:1].isspace() else ""
    # a background directive, not bare **…**: Markdown would not embolden "mat**.**" (no word boundary)
    st.markdown(
        "> " + md(before_text) + gap + (f":blue-background[**{md(new_text.strip())}**]" if new_text.strip() else "")
    )
    if n_steps:
        st.caption(" · ".join(md(x) for x in labels[prompt_len:]))
    if n_steps == 0:
        st.info(t("gen_nothing_yet"), icon="✏️")
    else:
        status = t("gen_progress", done=n_steps, total=n_max)
        if gen.end is not None and gen.steps[-1].token_id == gen.end:  # the model's own end token, not ours
            status += " " + t("gen_finished_eos", end=md(gen.steps[-1].token))
        elif n_steps >= n_max:
            status += " " + t("gen_finished_n")
        elif finished:
            status += " " + t("gen_finished_len")
        st.caption(status)


def _step(ctx: Context, gen_ctx: Context, tok, gen, labels: list[str], prompt_len: int, stemp: float) -> list[int]:
    """One step (the reader picks which): its distribution and what the newest token attended to.
    Returns what the model had read before drawing it."""
    n_steps = len(gen.steps)
    if n_steps > 1:
        if st.session_state.get("gen_view") not in range(1, n_steps + 1):
            st.session_state["gen_view"] = n_steps
        i = st.select_slider(t("gen_view_step"), options=list(range(1, n_steps + 1)), key="gen_view")
    else:
        i = 1
    step = gen.steps[i - 1]
    read = gen.ids[: prompt_len + i - 1]  # what the model read before drawing step i
    context = tok.decode(read) or "<s>"
    # the drawn token as the text labels it where the text finishes its character (the next draws
    # did); a text that ends inside it: with the model's own next pieces, as the bars beside it
    after = gen.ids[len(read) : len(read) + 4]
    drawn = step.token
    if all(open_bytes(tok, read + after[:k]) for k in range(1, len(after) + 1)):
        drawn = candidate_labels(gen_ctx.model, gen_ctx.device, tuple(read), (step.token_id,))[0]
    with main_area():  # presentation mode: under the title, before the prompt and the knobs
        st.subheader(t("gen_step_title", i=i, context=md(short(context, 60)), token=md(drawn)))
        left, right = st.columns([1, 1], gap="large")
        with left:
            _bars(ctx, gen_ctx, step, stemp, read, drawn)
        with right:
            _newest_attention(step, labels, read, drawn)
    return read


@st.cache_data(show_spinner=False, max_entries=64)
def candidate_labels(name: str, device: str, read: tuple, idx: tuple) -> list[str]:
    """The bars' labels: each candidate read after the text so far (a byte piece shows its character)."""
    return cache.runner(name, device).next_labels(list(read), list(idx))


def _bars(ctx: Context, gen_ctx: Context, step, stemp: float, read: list[int], drawn: str) -> None:
    """The next-token distribution's top tokens: cut-off ones grey, the drawn one orange (labelled
    as the text it went on to write labels it)."""
    st.markdown("**" + t("gen_bars_title", n=N_BARS) + "**")
    before = before_cuts(step.raw_probs, stemp)
    idx = top_indices(before, N_BARS, step.token_id)
    shown = np.where(step.kept[idx], step.probs[idx], before[idx])
    chosen = int(np.flatnonzero(idx == step.token_id)[0])
    names = candidate_labels(gen_ctx.model, gen_ctx.device, tuple(read), tuple(int(i) for i in idx))
    names[chosen] = drawn
    fig = next_token_bars(
        names,
        shown,
        cut=~step.kept[idx],
        chosen=chosen,
        labels={
            "cut": t("gen_bars_cut"),
            "kept": t("gen_bars_kept"),
            "chosen": t("gen_bars_chosen"),
            "token": t("gen_bars_token"),
            "probability": t("gen_bars_probability"),
        },
        # on a projector (present_figure: x 1.35) under the buttons and the step's title: 405
        # px, so the x axis ends on a 1280 x 800 screen with a room's code in the title row
        height=300 if ctx.presentation else 340,
    )
    plotly_chart(present_figure(fig), config=PLOTLY_CONFIG, key="gen_bars")
    st.caption(t("gen_bars_caption") + " " + t("gen_kept", n=int(step.kept.sum()), p=float(step.probs[step.token_id])))


def _newest_attention(step, labels: list[str], read: list[int], drawn: str) -> None:
    """What the newest token attended to, in every layer and head (a row per layer and head)."""
    # this row is the step that wrote the drawn token: say both, as every attention page does
    st.markdown(
        "**"
        + t(
            "gen_attention_title_written",
            token=md(labels[len(read) - 1]),
            written=md(drawn),
        )
        + "**"
    )
    st.caption(t("gen_attention_help"))
    a = step.attention  # (layers, heads, keys)
    L, H, K = a.shape
    rows = [t("gen_row", layer=la + 1, head=h + 1) for la in range(L) for h in range(H)]
    fig = attention_heatmap(
        a.reshape(L * H, K),
        rows,
        labels[:K],
        labels={"x": t("axis_key"), "y": t("gen_axis_rows"), "weight": t("weight"), "masked": t("masked")},
        height=min(120 + 30 * L * H, 700),
    )
    plotly_chart(present_figure(fig), config=PLOTLY_CONFIG, key="gen_attention")


if __name__ == "__main__":  # Streamlit runs the file as the page (ui/page.py)
    page.show(render, VIEW)

"""The cost of attention: O(n²) measured, sparse and local attention, why sqrt(d_k), FlashAttention's
blockwise softmax, why Q, K, V and several heads. Numbers come from analysis/cost/, each section is
drawn by its module in pages/cost_parts/; this file reads the view, picks the section and writes
the link."""

from __future__ import annotations

from ui import boot  # noqa: F401  (first: on a fresh server, a deep link shows the title and a loading message)

# isort: split

import dataclasses

import streamlit as st

from model.registry import paths
from pages.cost_parts import flash, n2, qkv, scale, sparse
from pages.cost_parts.shared import BLOCK_MAX, DIL_MAX, FB_MAX, W_MAX, Shown, global_tokens
from ui import page, state, view
from ui.context import model_label
from ui.i18n import t
from ui.layout import copy_link, page_header, shown_model
from ui.run import Context
from ui.state import choice, clamped, flag
from ui.view import Field
from ui.widgets import section_picker

SECTIONS = ("n2", "sparse", "scale", "flash", "qkv")

# the page's view: every setting its link carries (ui/view.py); each section writes its own
VIEW = (
    Field("sec", "cost_sec", "n2", choice(SECTIONS), omit_default=True),
    Field("w", "cost_w", 3, clamped("w", 1, W_MAX, int), omit_default=True),
    Field("dil", "cost_dil", 2, clamped("dil", 1, DIL_MAX, int), omit_default=True),
    Field("block", "cost_block", 3, clamped("block", 1, BLOCK_MAX, int), omit_default=True),
    Field("causal", "cost_causal", False, flag, omit_default=True),
    Field("glob", "cost_glob", [0], global_tokens),  # "-": none
    view.layer("cost_layer"),
    view.head("cost_head"),
    Field("q", "cost_q", None, int),  # the row watched in the online softmax (0-based)
    Field("qq", "cost_qkv_q", None, int),  # the query of the search section (0-based)
    Field("fb", "cost_fb", 4, clamped("fb", 1, FB_MAX, int), omit_default=True),
)


def render(ctx: Context, view: dict) -> None:
    """The page: the section picked, drawn by its module for the model it reads, then the link."""
    page_header("page_cost", "cost_intro")
    sec = section_picker("cost", SECTIONS)
    url: dict = {"sec": sec}

    # the sections that read a model use ours: the GPT when a Hugging Face model is chosen
    model_ctx, model_name, cfg = ctx, "", None
    if sec in ("sparse", "scale", "flash", "qkv"):
        runner = ctx.runner()
        # a model without the tutorial's code records no q, k, v of its own (SmolLM2, Gemma: KeyError 'q')
        if runner is not None and not getattr(runner, "has_tutorial_code", False):
            st.caption("ⓘ " + t("cost_hf_note"))
            model_ctx = dataclasses.replace(ctx, model="gpt")
            shown_model(model_ctx.model)
            runner = model_ctx.runner()
        if runner is None or ctx.trace() is None:
            copy_link()
            return
        cfg = runner.config
        model_name = model_label(model_ctx.model)

    shown = Shown(ctx, model_ctx, model_name, cfg, url)
    {"n2": n2, "sparse": sparse, "scale": scale, "flash": flash, "qkv": qkv}[sec].section(shown)

    if sec == "sparse":
        url.update(_sparse_view())
    state.write_view(VIEW, **url)
    copy_link()


def _sparse_view() -> dict:
    """The sparse section's settings as its widgets hold them, by link name (the layer only where
    gpt-local, whose heatmap it picks, ships)."""
    return dict(
        w=st.session_state["cost_w"],
        dil=st.session_state["cost_dil"],
        block=st.session_state["cost_block"],
        causal=st.session_state["cost_causal"],
        glob=None if st.session_state["cost_glob"] == [0] else ",".join(map(str, st.session_state["cost_glob"])) or "-",
        layer=st.session_state.get("cost_layer", 0) if paths("gpt-local")[0].exists() else None,
    )


if __name__ == "__main__":  # Streamlit runs the file as the page (ui/page.py)
    page.show(render, VIEW)

"""Architectures: BERT (encoder, bidirectional), GPT (decoder, causal) and T5 / the original
Transformer (encoder-decoder with cross-attention) side by side, with the masks each would put on
the sidebar's sentence, what each is trained to do, the shipped model that stands for each here,
and the tutorial's table of modern models."""

from __future__ import annotations

from ui import boot  # noqa: F401  (first: on a fresh server, a deep link shows the title and a loading message)

# isort: split

import pandas as pd
import streamlit as st

from analysis.experiments import masks_of
from model.errors import InputError, ModelFileError
from model.registry import load_tokenizer
from model.runner import TranslatorRunner, clean_text
from model.tokenizer import BOS, TO_EN, TO_ZH, Tokenizer
from ui import cache, page
from ui.i18n import t
from ui.layout import copy_link, main_area, page_header, plotly_chart, present_figure
from ui.run import Context
from ui.safe import md
from ui.widgets import PLOTLY_CONFIG, show_empty_hint
from viz.steps import mask_figure

# the page explorer (tests/explore.py) fails on a page that draws no control unless it says why
NO_CONTROLS = "a fixed comparison of three architectures on the sidebar's sentence; its tabs draw at once"
SHOWN = 12  # tokens drawn per mask: a 12 x 12 grid is still readable on a projector

# the page's view (ui/view.py): none, the link carries the sidebar's settings alone
VIEW = ()


@st.cache_resource(show_spinner=False)
def tokenizer() -> Tokenizer:
    return load_tokenizer()  # the weights folder's (ATTN_WEIGHTS_DIR); ModelFileError if damaged


def draw(mask, q_tokens, k_tokens, key: str, title: str = "") -> None:
    fig = mask_figure(
        mask,
        q_tokens,
        k_tokens,
        title=title,
        labels={"x": t("axis_key"), "y": t("axis_query"), "allowed": t("arch_may_look"), "masked": t("masked")},
        height=None,
    )
    plotly_chart(present_figure(fig), config=PLOTLY_CONFIG, key=key)


def link(ctx: Context, model: str, kind: str, label_key: str) -> None:
    """The step page on our model `model`, at the attention kind `kind`, with the sidebar's sentence."""
    params = {"model": model, "step": "6", "lang": ctx.lang}
    if model == "translator":
        params["kind"] = kind
    if len(ctx.text) <= 500:
        params["text"] = ctx.text
    st.page_link("pages/steps.py", label=t(label_key), icon="🧮", query_params=params)


def one_sequence(ctx: Context, name: str, mask, tokens, mask_kind: str, model: str, kind: str) -> None:
    """A model that reads one sequence (BERT, GPT): what it is, its mask over the tokens, what that
    means, and a link to the step page on our model that attends the same way (model, kind)."""
    p = name.lower()  # its strings: arch_bert_kind, arch_bert_text, arch_bert_link; GPT's likewise
    st.subheader(name)
    st.markdown(t(f"arch_{p}_kind"))
    draw(mask, tokens, tokens, f"arch_mask_{p}", t(f"arch_mask_{mask_kind}"))
    st.markdown(t(f"arch_{p}_text"))
    link(ctx, model, kind, f"arch_{p}_link")


def render(ctx: Context, view: dict) -> None:
    """The page: the three architectures side by side on the sidebar's sentence, then the tables."""
    page_header("page_architecture", "arch_intro")
    try:
        tok = tokenizer()
    except ModelFileError as e:
        st.error(t("model_file_error", path=md(e.path), command=e.rebuild), icon="🚫")
        copy_link()
        return
    try:
        text, _ = clean_text(ctx.text)
    except InputError:
        show_empty_hint(ctx.presentation)
        copy_link()
        return
    _side_by_side(ctx, tok, text)
    _comparison()
    _modern_models()
    copy_link()


def _side_by_side(ctx: Context, tok: Tokenizer, text: str) -> None:
    """BERT's, GPT's and T5's masks over the sentence's first SHOWN tokens, each beside what it means."""
    ids = tok.encode(text)
    src_ids = ids[:SHOWN]
    if len(ids) > SHOWN:
        st.caption(t("arch_first_n", n=SHOWN, total=len(ids)))
    src_tokens = tok.labels(src_ids)
    gpt_ids = [BOS] + ids[: SHOWN - 1]
    gpt_tokens = tok.labels(gpt_ids)

    # the translator's own output as the decoder's tokens, when it can run; else the start token and
    # numbered placeholders (the masks do not depend on which tokens they are)
    start = TO_EN if TranslatorRunner.direction(text) == "zh-en" else TO_ZH
    tgt_tokens, placeholder = None, False
    try:
        tr = cache.trace("translator", ctx.device, text)
        tgt_tokens = tr.attention["decoder"].query_tokens[:SHOWN]
    except (ModelFileError, InputError):
        pass
    if tgt_tokens is None:
        placeholder = True
        tgt_tokens = tok.labels([start]) + [f"y{i}" for i in range(1, min(len(src_ids), SHOWN - 1) + 1)]
    tgt_ids = [start] + [BOS] * (len(tgt_tokens) - 1)  # any non-pad ids: only the padding test reads them
    m_bert = masks_of(src_ids, tgt_ids)["bidirectional"]
    m_gpt = masks_of(gpt_ids, gpt_ids)["causal"]
    m_t5 = masks_of(src_ids, tgt_ids)

    cols = main_area().columns(3, gap="medium")  # presentation mode: under the title
    with cols[0]:
        one_sequence(ctx, "BERT", m_bert, src_tokens, "bidirectional", "translator", "encoder")
    with cols[1]:
        one_sequence(ctx, "GPT", m_gpt, gpt_tokens, "causal", "gpt", "decoder")
    with cols[2]:
        st.subheader(t("arch_t5_title"))
        st.markdown(t("arch_t5_kind"))
        tabs = st.tabs([t("arch_tab_encoder"), t("arch_tab_decoder"), t("arch_tab_cross")])
        with tabs[0]:
            draw(m_t5["bidirectional"], src_tokens, src_tokens, "arch_mask_t5_enc", t("arch_mask_bidirectional"))
        with tabs[1]:
            draw(m_t5["causal"], tgt_tokens, tgt_tokens, "arch_mask_t5_dec", t("arch_mask_causal"))
        with tabs[2]:
            draw(m_t5["cross"], tgt_tokens, src_tokens, "arch_mask_t5_cross", t("arch_mask_cross"))
        st.markdown(t("arch_t5_text"))
        if placeholder:
            st.caption(t("arch_t5_placeholder"))
        link(ctx, "translator", "cross", "arch_t5_link")


def _comparison() -> None:
    """The three in one table."""
    st.subheader(t("arch_compare"))
    compare = pd.DataFrame(
        {
            t("arch_col_model"): ["BERT", "GPT", "T5 / Transformer"],
            t("arch_col_arch"): [t("arch_encoder_only"), t("arch_decoder_only"), t("arch_encoder_decoder")],
            t("arch_col_attention"): [t("arch_att_bert"), t("arch_att_gpt"), t("arch_att_t5")],
            t("arch_col_mask"): [t("arch_mask_bidirectional"), t("arch_mask_causal"), t("arch_mask_t5")],
            t("arch_col_trained"): [t("arch_train_bert"), t("arch_train_gpt"), t("arch_train_t5")],
            t("arch_col_here"): [t("arch_here_bert"), t("arch_here_gpt"), t("arch_here_t5")],
        }
    )
    st.table(compare.set_index(t("arch_col_model")))  # a static table: every column shows, wrapped


def _modern_models() -> None:
    """The tutorial's table of modern models."""
    st.subheader(t("arch_modern"))
    modern = pd.DataFrame(
        {
            t("arch_col_model"): ["GPT-4", "LLaMA", "ChatGLM", "Mistral", "Claude"],
            t("arch_col_arch"): [t("arch_decoder")] * 5,
            t("arch_col_notes"): [t(f"arch_modern_{m}") for m in ("gpt4", "llama", "chatglm", "mistral", "claude")],
        }
    )
    st.table(modern.set_index(t("arch_col_model")))
    st.caption(t("arch_modern_note"))


if __name__ == "__main__":  # Streamlit runs the file as the page (ui/page.py)
    page.show(render, VIEW)

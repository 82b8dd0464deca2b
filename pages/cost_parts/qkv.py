"""The cost page's section 5. Why Q, K, V and several heads."""

from __future__ import annotations

import numpy as np
import streamlit as st

from ui.i18n import t
from ui.safe import md
from viz.cost import heads_grid, matrix_figure, search_bars

from .shared import Shown, chart, distinct_query, pick_head, pick_qkv_query, quote, search, tokens_of


def section(shown: Shown) -> None:
    ctx, model_ctx, model_name, cfg, url = shown.ctx, shown.model_ctx, shown.model_name, shown.cfg, shown.url
    quote("cost_quote_qkv")
    tokens = tokens_of(model_ctx.model, model_ctx.device, ctx.text)
    n = len(tokens)
    layer, head = pick_head(*st.columns(2), cfg)
    auto = distinct_query(model_ctx.model, model_ctx.device, ctx.text, layer)
    q = pick_qkv_query(tokens, auto["query"])
    r = search(model_ctx.model, model_ctx.device, ctx.text, layer, head, q)
    st.markdown(t("cost_qkv_intro", model=md(model_name), kind=t(f"cost_kind_{r['kind']}"), token=md(tokens[q])))
    top = int(np.argmax(r["weights"]))
    chart(
        search_bars(
            tokens,
            r["scores"],
            r["weights"],
            {"scores": t("cost_qkv_scores"), "weights": t("cost_qkv_weights")},
            chosen=top,
        ),
        "cost_qkv_bars",
    )
    st.markdown("**" + t("cost_qkv_values") + "**")
    values = np.vstack([r["values"], r["output"][None]])
    chart(
        matrix_figure(values, tokens + [t("cost_qkv_answer")], t("cost_qkv_dims"), t("cost_qkv_rows"), highlight_row=n),
        "cost_qkv_values",
    )
    st.caption(
        t(
            "cost_qkv_check",
            diff=float(np.abs(r["output"] - r["recorded_output"]).max()),
            top=md(tokens[top]),
            w=float(r["weights"][top]),
        )
    )

    quote("cost_quote_heads")
    st.subheader(t("cost_heads_layer_title", layer=layer + 1))
    dk = cfg.d_model // cfg.num_heads
    st.markdown(t("cost_heads_layer_help", dk=dk, token=md(tokens[q])))
    lw = r["layer_weights"]
    st.markdown(
        "\n".join(
            "- " + t("cost_head_looks", h=h + 1, token=md(tokens[int(np.argmax(lw[h, q]))]), w=float(lw[h, q].max()))
            for h in range(lw.shape[0])
        )
    )
    # a row that sees fewer than 3 keys gets 0 by the score's rule (analysis.cost.heads_disagreement):
    # say so rather than present that 0 as heads that agree
    n = len(tokens)
    keys = int(np.broadcast_to(np.asarray(r["mask"], bool), (n, n))[q].sum()) if r["mask"] is not None else n
    st.caption(
        t(
            "cost_heads_differ" if keys >= 3 else "cost_heads_differ_unscored",
            token=md(tokens[q]),
            keys=keys,
            tv=float(auto["disagreement"][q]),
            best=md(tokens[auto["query"]]),
            best_tv=float(auto["disagreement"][auto["query"]]),
        )
    )
    chart(heads_grid(lw, tokens, {"head": t("cost_head_n", n="{h}")}, mask=r["mask"]), "cost_heads_grid")
    st.markdown("**" + t("cost_merged_title", token=md(tokens[q])) + "**")
    merged = np.vstack([r["head_outputs"].reshape(-1), r["merged"]])
    chart(
        matrix_figure(
            merged,
            [t("cost_merged_rows_concat"), t("cost_merged_rows_out")],
            t("cost_merged_dims"),
            "",
            height=220,
            boundaries=[dk * h for h in range(1, cfg.num_heads)],
        ),
        "cost_merged",
    )
    url.update(layer=layer, head=head, qq=None if q == auto["query"] else q)

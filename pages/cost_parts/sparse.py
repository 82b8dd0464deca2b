"""The cost page's section 2. Sparse and local attention."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis import cost
from model.registry import PRESETS, paths
from ui import cache
from ui.i18n import t
from ui.safe import md
from ui.widgets import layer_picker, show_heatmap
from viz.cost import mask_figure, scaling_curves

from .shared import (
    BLOCK_MAX,
    DIL_MAX,
    EVAL_N,
    LIVE_PATTERN_NS,
    W_MAX,
    Shown,
    bench,
    by_length,
    chart,
    live_patterns,
    quality,
    quote,
    tokens_of,
)


def section(shown: Shown) -> None:
    ctx, model_ctx, model_name = shown.ctx, shown.model_ctx, shown.model_name
    quote("cost_quote_n2")
    tokens = tokens_of(model_ctx.model, model_ctx.device, ctx.text)
    n = len(tokens)
    st.markdown(t("cost_sparse_intro", model=md(model_name)))
    c1, c2, c3, c4 = st.columns(4)
    w = c1.slider(t("cost_w"), 1, W_MAX, key="cost_w")
    dil = c2.slider(t("cost_dil"), 1, DIL_MAX, key="cost_dil")
    block = c3.slider(t("cost_block"), 1, BLOCK_MAX, key="cost_block")
    causal = c4.toggle(t("cost_causal"), key="cost_causal")
    st.session_state["cost_glob"] = [g for g in (st.session_state.get("cost_glob") or []) if 0 <= g < n]
    glob = st.multiselect(t("cost_global"), list(range(n)), format_func=lambda i: f"{tokens[i]} ({i})", key="cost_glob")
    labels = {
        "x": t("cost_axis_key"),
        "y": t("cost_axis_query"),
        "computed": t("cost_computed"),
        "skipped": t("cost_skipped"),
    }
    cols = st.columns(2, gap="large")
    for i, p in enumerate(cost.PATTERNS):
        mask = cost.pattern_mask(p, n, w=w, dilation=dil, block=block, global_tokens=glob, causal=causal)
        share = cost.pairs_computed(mask, causal)
        with cols[i % 2]:
            st.markdown(f"**{t(f'cost_pat_{p}')}** · " + t("cost_share", **share))
            chart(mask_figure(mask, tokens, labels, height=min(200 + 16 * n, 460)), f"cost_mask_{p}")

    st.subheader(t("cost_pattern_curve_title"))
    st.caption(t("cost_pattern_curve_help", ns=", ".join(map(str, LIVE_PATTERN_NS))))
    b = bench()
    series = {}
    if b is not None:
        for p in cost.PATTERNS:
            rs = [r for r in b["patterns"] if r["pattern"] == p]
            series[t(f"cost_pat_{p}")] = ([r["n"] for r in rs], [r["seconds"] for r in rs])
    live = live_patterns()
    for p in ("full", "window"):
        rs = [r for r in live if r["pattern"] == p]
        series[t("cost_live_suffix", name=t(f"cost_pat_{p}"))] = ([r["n"] for r in rs], [r["seconds"] for r in rs])
    chart(
        scaling_curves(
            series,
            {"x": t("cost_n_axis"), "y": t("cost_time_axis"), "n2": t("cost_guide_n2"), "n1": t("cost_guide_n1")},
        ),
        "cost_patterns",
    )
    if b is not None:
        top = max(r["n"] for r in b["patterns"])
        full = next(r for r in b["patterns"] if r["pattern"] == "full" and r["n"] == top)
        win = next(r for r in b["patterns"] if r["pattern"] == "window" and r["n"] == top)
        st.caption(
            t(
                "cost_pattern_at",
                n=top,
                full=full["seconds"] * 1e3,
                window=win["seconds"] * 1e3,
                share=win["share"],
                speedup=full["seconds"] / win["seconds"],
            )
            + " "
            + t(
                "cost_bench_source",
                command=b["command"],
                date=b["date"],
                machine=md(b["machine"]),
                load=" / ".join(f"{x:.1f}" for x in b["load_before"]),
            )
        )

    st.subheader(t("cost_local_title"))
    local = PRESETS["gpt-local"]
    st.markdown(
        t("cost_local_help", w=local.window, w1=local.window - 1, reach=local.num_layers * (local.window - 1), n=EVAL_N)
    )
    if not paths("gpt-local")[0].exists():
        st.info(t("cost_local_missing"), icon="ℹ️")
        return
    rows = [quality(name, ctx.device) for name in ("gpt", "gpt-local")]
    st.dataframe(
        pd.DataFrame(
            {
                t("cost_col_model"): [r["model"] for r in rows],
                t("cost_col_nll"): [r["nll_per_sentence"] for r in rows],
                t("cost_col_entropy"): [r["entropy_per_sentence"] for r in rows],
                t("cost_col_ratio"): [r["ratio"] for r in rows],
                t("cost_col_true_entropy"): [r["true_entropy"] for r in rows],
                t("cost_col_ratio_true"): [r["ratio_true"] for r in rows],
            }
        ),
        hide_index=True,
        width="stretch",
        key="cost_local_table",
    )
    split = [by_length(name, ctx.device) for name in ("gpt", "gpt-local")]
    st.caption(
        t(
            "cost_local_split",
            one=split[1]["one"] - split[0]["one"],
            two=split[1]["two"] - split[0]["two"],
            n_one=split[0]["n_one"],
            n_two=split[0]["n_two"],
            # the stories whose noun is out of one layer's reach, counted (not all: issue 46's audit)
            n_far=sum(b is not None and b > local.window - 1 for b in split[1]["back"]),
            w1=local.window - 1,
        )
    )
    spread = (bench() or {}).get("local_cost")
    if spread:  # one sample's difference is not the cost: the bench's samples, mean and spread
        st.caption(
            t(
                "cost_local_spread",
                k=len(spread["samples"]),
                n=spread["n"],
                date=spread["date"],
                **{
                    f"{part}_{stat}": spread[part][stat]
                    for part in ("one", "two")
                    for stat in ("mean", "sd", "min", "max")
                },
            )
        )
    layer = layer_picker(local.num_layers, "cost_layer", "cost_layer", "cost_layer_n")
    left, right = st.columns(2, gap="large")
    for col, name in ((left, "gpt"), (right, "gpt-local")):
        tr = cache.trace(name, ctx.device, ctx.text)
        att = tr.attention["decoder"]
        with col:
            st.markdown(f"**{name}** · " + t("cost_local_heat", layer=layer + 1))
            show_heatmap(
                att.weights[layer].mean(0),
                att.query_tokens,
                att.key_tokens,
                mask=att.mask,
                key=f"cost_local_{name}",
                zmax=1.0,
            )

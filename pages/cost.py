"""The cost of attention: O(n²) measured, sparse and local attention, why sqrt(d_k), FlashAttention's
blockwise softmax, why Q, K, V and several heads. Numbers come from analysis/cost/ (a module per section); this file lays out."""

from __future__ import annotations

from ui import boot  # noqa: F401  (first: on a fresh server, a deep link shows the title and a loading message)

# isort: split

import dataclasses
import json

import numpy as np
import pandas as pd
import streamlit as st

from analysis import cost
from model.registry import PRESETS, paths
from training.evaluate import evaluate
from ui import cache, slots, state
from ui.context import model_label
from ui.i18n import t
from ui.layout import copy_link, main_area, page_header, plotly_chart, present_figure
from ui.run import current
from ui.safe import md
from ui.widgets import PLOTLY_CONFIG, download, head_picker, layer_picker, section_picker, show_heatmap
from viz.cost import heads_grid, mask_figure, matrix_figure, online_steps, scaling_curves, search_bars, sweep_panels
from viz.table import to_csv

SECTIONS = ("n2", "sparse", "scale", "flash", "qkv")
LIVE_NS = (16, 64, 256)
LIVE_PATTERN_NS = (128, 512)
W_MAX, DIL_MAX, BLOCK_MAX, FB_MAX = 16, 4, 16, 32
EVAL_N = 300
MB = 1e6


# -- cached computations (strings and numbers in, plain data out); the slow ones measured or
# evaluated live run in the heavy lane (ui/slots.py), so a visitor looping them cannot hold the class up
@st.cache_data(show_spinner=False, max_entries=4)
def live_layers() -> list[dict]:
    with slots.heavy():
        return [cost.measure_layer(n, d, h) | {"size": key} for key, (d, h) in cost.SIZES.items() for n in LIVE_NS]


@st.cache_data(show_spinner=False, max_entries=4)
def live_patterns() -> list[dict]:
    with slots.heavy():
        return [cost.measure_pattern(p, n, w=64, dilation=2, block=64) for n in LIVE_PATTERN_NS for p in cost.PATTERNS]


@st.cache_data(show_spinner=False, max_entries=2)
def bench() -> dict | None:
    return cost.load_bench()


@st.cache_data(show_spinner=False, max_entries=4)
def sweep() -> dict:
    with slots.heavy():
        return cost.scaling_sweep()


@st.cache_data(show_spinner=False, max_entries=32)
def heads_table(name: str, device: str, text: str) -> list[dict]:
    with slots.heavy():
        return cost.heads_scaling_table(cache.runner(name, device), text)


@st.cache_data(show_spinner=False, max_entries=32)
def search(name: str, device: str, text: str, layer: int, head: int, query: int) -> dict:
    return cost.search_on(cache.runner(name, device), text, layer, head, query)


@st.cache_data(show_spinner=False, max_entries=32)
def online(name: str, device: str, text: str, layer: int, head: int, block: int, row: int) -> dict:
    return cost.online_on(cache.runner(name, device), text, layer, head, block, row)


@st.cache_data(show_spinner=False, max_entries=2)
def blockwise_live() -> dict:
    with slots.heavy():
        return cost.blockwise_timing(1024)


@st.cache_data(show_spinner=False, max_entries=8)
def quality(name: str, device: str) -> dict:
    with slots.heavy():
        return evaluate(name, n=EVAL_N, runner=cache.runner(name, device))


@st.cache_data(show_spinner=False, max_entries=8)
def by_length(name: str, device: str) -> dict:
    with slots.heavy():
        return cost.nll_by_length(cache.runner(name, device), n=EVAL_N)


@st.cache_data(show_spinner=False, max_entries=32)
def distinct_query(name: str, device: str, text: str, layer: int) -> dict:
    return cost.distinct_query_on(cache.runner(name, device), text, layer)


@st.cache_data(show_spinner=False, max_entries=32)
def tokens_of(name: str, device: str, text: str) -> list[str]:
    return cost.self_attention_record(cache.runner(name, device), text)["tokens"]


def quote(key: str) -> None:
    st.markdown("> " + t("cost_quote", quote=t(key)))


def chart(fig, key: str) -> None:
    plotly_chart(present_figure(fig), config=PLOTLY_CONFIG, key=key)


def size_label(key: str) -> str:
    return t(f"cost_size_{key}")


def pick_head(c1, c2) -> tuple[int, int]:
    """Layer and head selectboxes (a link's value this model lacks becomes the nearest that exists)."""
    with c1:
        layer = layer_picker(cfg.num_layers, "cost_layer", "cost_layer", "cost_layer_n")
    with c2:
        head = head_picker(cfg.num_heads, "cost_head", label_key="cost_head", item_key="cost_head_n")
    return layer, head


def pick_query(tokens: list[str], label_key: str) -> int:
    """The query token as pills (the last token by default)."""
    if st.session_state.get("cost_q") is None:
        st.session_state["cost_q"] = len(tokens) - 1
    state.fit("cost_q", range(len(tokens)), lambda i: md(tokens[i]))
    return st.pills(
        t(label_key),
        list(range(len(tokens))),
        format_func=lambda i: md(tokens[i]),
        key="cost_q",
        selection_mode="single",
        required=True,
    )


def pick_qkv_query(tokens: list[str], auto: int) -> int:
    """The Q, K, V section's query (its own link key qq): by default the row whose heads differ most
    on the layer shown (analysis.cost.distinct_heads_query), so the demo shows heads that do different
    things; the default follows the layer and sentence until the reader picks another token."""
    s = st.session_state
    if s.get("cost_qkv_q") is None or s.get("cost_qkv_q") == s.get("_cost_qkv_auto"):
        s["cost_qkv_q"] = auto
    s["_cost_qkv_auto"] = auto
    state.fit("cost_qkv_q", range(len(tokens)), lambda i: md(tokens[i]))
    return st.pills(
        t("cost_qkv_query"),
        list(range(len(tokens))),
        format_func=lambda i: md(tokens[i]),
        key="cost_qkv_q",
        selection_mode="single",
        required=True,
    )


ctx = current()
state.url_param("sec", "n2", state.choice(SECTIONS), key="cost_sec")
state.url_param("w", 3, state.clamped("w", 1, W_MAX, int), key="cost_w")
state.url_param("dil", 2, state.clamped("dil", 1, DIL_MAX, int), key="cost_dil")
state.url_param("block", 3, state.clamped("block", 1, BLOCK_MAX, int), key="cost_block")
state.url_param("causal", False, state.flag, key="cost_causal")
state.url_param("glob", [0], lambda raw: [] if raw == "-" else [int(x) for x in raw.split(",")], key="cost_glob")
state.url_param("layer", 0, lambda raw: int(raw) - 1, key="cost_layer")
state.url_param("head", 0, lambda raw: int(raw) - 1, key="cost_head")
state.url_param("q", None, int, key="cost_q")
state.url_param("qq", None, int, key="cost_qkv_q")
state.url_param("fb", 4, state.clamped("fb", 1, FB_MAX, int), key="cost_fb")

page_header("page_cost", "cost_intro")
sec = section_picker("cost", SECTIONS)
url: dict = {"sec": None if sec == "n2" else sec}

# the sections that read a model use ours: the GPT when a Hugging Face model is chosen
model_ctx = ctx
if sec in ("sparse", "scale", "flash", "qkv"):
    runner = ctx.runner()
    if runner is not None and (runner.kind not in ("gpt", "translator") or ctx.model.startswith("hf:")):
        st.caption("ⓘ " + t("cost_hf_note"))
        model_ctx = dataclasses.replace(ctx, model="gpt")
        runner = model_ctx.runner()
    if runner is None or ctx.trace() is None:
        copy_link()
        st.stop()
    cfg = runner.config
    model_name = model_label(model_ctx.model)


# -- 1. O(n²) measured ---------------------------------------------------------------------------------
def section_n2() -> None:
    quote("cost_quote_n2")
    b = bench()
    st.subheader(t("cost_bench_title"))
    if b is None:
        st.info(t("cost_no_bench"), icon="ℹ️")
    else:
        st.caption(
            t(
                "cost_bench_source",
                command=b["command"],
                date=b["date"],
                machine=md(b["machine"]),
                load=" / ".join(f"{x:.1f}" for x in b["load_before"]),
            )
        )
        rows = b["layers"]["rows"]
        left, right = main_area().columns(2, gap="large")  # presentation mode: under the title
        labels = {"x": t("cost_n_axis"), "n2": t("cost_guide_n2"), "n1": t("cost_guide_n1")}
        with left:
            st.markdown("**" + t("cost_time_title") + "**")
            series = {size_label(k): ([r["n"] for r in rs], [r["seconds"] for r in rs]) for k, rs in rows.items()}
            chart(scaling_curves(series, labels | {"y": t("cost_time_axis")}), "cost_time")
        with right:
            st.markdown("**" + t("cost_mem_title") + "**")
            series = {}
            for k in ("base", "ours"):
                rs = rows.get(k, [])
                ns = [r["n"] for r in rs]
                series[t("cost_mem_peak", size=size_label(k))] = (ns, [r["peak_bytes"] for r in rs])
                series[t("cost_mem_matrix", size=size_label(k))] = (ns, [r["attention_matrix"] for r in rs])
                series[t("cost_mem_qkv", size=size_label(k))] = (ns, [r["qkv_output"] for r in rs])
            chart(scaling_curves(series, labels | {"y": t("cost_mem_axis")}), "cost_memory")
        s = cost.bench_summary(b)
        if s is not None:
            st.caption(
                t(
                    "cost_copies",
                    copies=s["copies"],
                    n="1,024",
                    square=f"{s['copies'] * s['matrix_mb']:.1f}",
                    matrix=f"{s['matrix_mb']:.1f}",
                )
            )
            n_max = max(r["n"] for rs in rows.values() for r in rs)
            stopped = "; ".join(b["layers"].get("stopped", {}).values()) or t("cost_stops_none")
            st.markdown(
                t(
                    "cost_stops",
                    n_max=n_max,
                    stopped=md(stopped),
                    copies=s["copies"],
                    gib=b["memory_bytes"] / 2**30,
                    limit=cost.memory_limit_n(768, 12, b["memory_bytes"], round(s["copies"])),
                )
            )
            st.subheader(t("cost_at_1024_title"))
            st.markdown(
                t(
                    "cost_at_1024",
                    ms=s["ms"],
                    peak=s["peak_mb"],
                    matrix=s["matrix_mb"],
                    qkv=s["qkv_mb"],
                    layers=s["layers_mb"],
                    sq=s["square_gflop"],
                    share=s["square_share"],
                    ratio_t=s["ratio_t"],
                    ratio_m=s["ratio_m"],
                )
            )
        flat = [
            {
                "size": k,
                **{
                    c: r[c]
                    for c in (
                        "n",
                        "d_model",
                        "heads",
                        "seconds",
                        "peak_bytes",
                        "square_bytes",
                        "attention_matrix",
                        "qkv_output",
                        "flops",
                    )
                },
            }
            for k, rs in rows.items()
            for r in rs
        ]
        c1, c2 = st.columns(2)
        with c1:
            download(t("cost_download_csv"), to_csv(pd.DataFrame(flat)), "attention_cost.csv", "cost_dl_csv")
        with c2:
            download(t("cost_download_bench"), json.dumps(b, indent=1), "cost_results.json", "cost_dl_json")

    st.subheader(t("cost_live_title"))
    st.caption(t("cost_live_help"))
    live = live_layers()
    st.dataframe(
        pd.DataFrame(
            {
                t("cost_col_size"): [size_label(r["size"]) for r in live],
                t("cost_col_n"): [r["n"] for r in live],
                t("cost_col_ms"): [round(r["seconds"] * 1e3, 3) for r in live],
                t("cost_col_matrix"): [round(r["attention_matrix"] / MB, 3) for r in live],
                t("cost_col_qkv"): [round(r["qkv_output"] / MB, 3) for r in live],
                t("cost_col_square"): [round(r["square_bytes"] / MB, 3) for r in live],
                t("cost_col_peak"): [round(r["peak_bytes"] / MB, 3) for r in live],
                t("cost_col_gflop"): [round(r["flops"] / 1e9, 4) for r in live],
            }
        ),
        hide_index=True,
        width="stretch",
        key="cost_live_table",
    )


# -- 2. sparse and local attention ---------------------------------------------------------------------
def section_sparse() -> None:
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


# -- 3. why sqrt(d_k) ------------------------------------------------------------------------------
def section_scale() -> None:
    quote("cost_quote_scale")
    sw = sweep()
    st.markdown(t("cost_scale_intro", n=sw["n"], trials=sw["trials"]))
    rows = pd.DataFrame(sw["rows"])
    s, u = rows[rows.scaled].reset_index(drop=True), rows[~rows.scaled].reset_index(drop=True)
    d_ks = list(s.d_k)
    panels = {
        t("cost_panel_std"): (list(s.score_std), list(u.score_std)),
        t("cost_panel_max"): (list(s.max_weight), list(u.max_weight)),
        t("cost_panel_grad"): (list(s.softmax_grad), list(u.softmax_grad)),
        t("cost_panel_dead"): (list(s.dead_rows), list(u.dead_rows)),
    }
    chart(
        sweep_panels(
            d_ks, panels, (t("cost_scaled"), t("cost_unscaled")), {"x": "d_k", "log_y": (t("cost_panel_std"),)}
        ),
        "cost_sweep",
    )
    table = pd.DataFrame(
        {
            t("cost_col_dk"): d_ks,
            t("cost_col_std_s"): s.score_std.round(3),
            t("cost_col_std_u"): u.score_std.round(3),
            t("cost_col_max_s"): s.max_weight.round(4),
            t("cost_col_max_u"): u.max_weight.round(4),
            t("cost_col_sg_s"): s.softmax_grad.round(4),
            t("cost_col_sg_u"): u.softmax_grad.round(4),
            t("cost_col_dead_s"): s.dead_rows.round(3),
            t("cost_col_dead_u"): u.dead_rows.round(3),
            t("cost_col_gq_s"): s.grad_q.round(3),
            t("cost_col_gq_u"): u.grad_q.round(3),
            t("cost_col_gk_s"): s.grad_k.round(3),
            t("cost_col_gk_u"): u.grad_k.round(3),
        }
    )
    st.dataframe(table, hide_index=True, width="stretch", key="cost_sweep_table")
    i = d_ks.index(256) if 256 in d_ks else len(d_ks) - 1
    st.markdown(
        t(
            "cost_scale_summary",
            dk=d_ks[i],
            std=u.score_std[i],
            std_s=s.score_std[i],
            mx=u.max_weight[i],
            mx_s=s.max_weight[i],
            sg=u.softmax_grad[i],
            sg_s=s.softmax_grad[i],
            dead=u.dead_rows[i],
            dead_s=s.dead_rows[i],
            limit=sw["dead"],
        )
    )
    download(t("cost_download_csv"), to_csv(rows), "sqrt_dk.csv", "cost_dl_sweep")

    st.subheader(t("cost_heads_title", model=md(model_name)))
    heads = pd.DataFrame(heads_table(model_ctx.model, model_ctx.device, ctx.text))
    dk = int(heads.d_k.iloc[0])
    st.caption(t("cost_heads_help", dk=dk, f=dk**0.5))
    shown = pd.DataFrame(
        {
            t("cost_layer"): heads.layer + 1,
            t("cost_head"): heads["head"] + 1,
            t("cost_col_std_s"): heads.score_std_scaled.round(3),
            t("cost_col_std_u"): heads.score_std_unscaled.round(3),
            t("cost_col_max_s"): heads.max_weight_scaled.round(3),
            t("cost_col_max_u"): heads.max_weight_unscaled.round(3),
            t("cost_col_sg_s"): heads.softmax_grad_scaled.round(4),
            t("cost_col_sg_u"): heads.softmax_grad_unscaled.round(4),
            t("cost_col_gq_s"): heads.grad_q_scaled.round(4),
            t("cost_col_gq_u"): heads.grad_q_unscaled.round(4),
        }
    )
    st.dataframe(shown, hide_index=True, width="stretch", key="cost_heads_table")
    st.markdown(
        t(
            "cost_heads_summary",
            a=heads.max_weight_scaled.mean(),
            b=heads.max_weight_unscaled.mean(),
            c=heads.softmax_grad_scaled.mean(),
            d=heads.softmax_grad_unscaled.mean(),
        )
    )


# -- 4. FlashAttention's idea ----------------------------------------------------------------------
def section_flash() -> None:
    st.markdown(t("cost_flash_intro"))
    st.latex(
        r"m' = \max(m, \max_j s_j),\quad \ell' = \ell\,e^{m-m'} + \sum_j e^{s_j-m'},\quad "
        r"o' = o\,e^{m-m'} + \sum_j e^{s_j-m'} v_j,\quad \text{output} = o/\ell"
    )
    tokens = tokens_of(model_ctx.model, model_ctx.device, ctx.text)
    c1, c2, c3 = st.columns(3)
    layer, head = pick_head(c1, c2)
    block = c3.slider(t("cost_flash_block"), 1, FB_MAX, key="cost_fb")
    row = pick_query(tokens, "cost_flash_row")
    r = online(model_ctx.model, model_ctx.device, ctx.text, layer, head, block, row)
    ok = r["max_abs_diff"] <= 1e-6
    (st.success if ok else st.error)(
        t(
            "cost_flash_check",
            model=md(model_name),
            layer=layer + 1,
            head=head + 1,
            diff=r["max_abs_diff"],
            full=f"{r['matrix_bytes']:,}",
            tile=f"{r['tile_bytes']:,}",
        )
        + " · "
        + t("cost_flash_ok" if ok else "cost_flash_bad"),
        icon="✅" if ok else "❌",
    )
    if r["alibi"]:
        st.caption("ⓘ " + t("cost_flash_alibi"))
    st.markdown("**" + t("cost_flash_steps", token=md(tokens[row])) + "**")
    chart(
        online_steps(r["steps"], {"x": t("cost_flash_x"), "max": t("cost_flash_max"), "sum": t("cost_flash_sum")}),
        "cost_flash_steps",
    )

    st.subheader(t("cost_flash_big_title"))
    b = bench()
    big = [dict(r, where=t("cost_where_bench", date=b["date"])) for r in (b or {}).get("blockwise", [])]
    big = [dict(blockwise_live(), where=t("cost_where_live"))] + big
    st.dataframe(
        pd.DataFrame(
            {
                t("cost_col_where"): [x["where"] for x in big],
                t("cost_col_n"): [x["n"] for x in big],
                t("cost_col_block"): [x["block"] for x in big],
                t("cost_col_diff"): [f"{x['max_abs_diff']:.1e}" for x in big],
                t("cost_col_full_mb"): [round(x["matrix_bytes"] / MB, 1) for x in big],
                t("cost_col_tile_mb"): [round(x["tile_bytes"] / MB, 1) for x in big],
                t("cost_col_ours_ms"): [round(x["ours_s"] * 1e3, 1) for x in big],
                t("cost_col_online_ms"): [round(x["online_s"] * 1e3, 1) for x in big],
            }
        ),
        hide_index=True,
        width="stretch",
        key="cost_flash_table",
    )
    last = big[-1]
    st.markdown(
        t(
            "cost_flash_gpu",
            machine=t("cost_flash_has_gpu", gpu=gpu) if (gpu := cost.gpu_name()) else t("cost_flash_no_gpu"),
            saved=t("cost_flash_saved", n=last["n"], full=last["matrix_bytes"] / MB, tile=last["tile_bytes"] / MB),
        )
    )
    url.update(layer=layer + 1, head=head + 1, fb=None if block == 4 else block, q=row)


# -- 5. why Q, K, V and several heads ---------------------------------------------------------------
def section_qkv() -> None:
    quote("cost_quote_qkv")
    tokens = tokens_of(model_ctx.model, model_ctx.device, ctx.text)
    n = len(tokens)
    layer, head = pick_head(*st.columns(2))
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
            tv=float(auto["disagreement"][q]),
            keys=keys,
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
    url.update(layer=layer + 1, head=head + 1, qq=None if q == auto["query"] else q)


{"n2": section_n2, "sparse": section_sparse, "scale": section_scale, "flash": section_flash, "qkv": section_qkv}[sec]()

if sec == "sparse":
    url.update(
        w=None if st.session_state["cost_w"] == 3 else st.session_state["cost_w"],
        dil=None if st.session_state["cost_dil"] == 2 else st.session_state["cost_dil"],
        block=None if st.session_state["cost_block"] == 3 else st.session_state["cost_block"],
        causal=st.session_state["cost_causal"] or None,
        glob=None if st.session_state["cost_glob"] == [0] else ",".join(map(str, st.session_state["cost_glob"])) or "-",
        layer=st.session_state.get("cost_layer", 0) + 1 if paths("gpt-local")[0].exists() else None,
    )
state.set_url(**url)
copy_link()

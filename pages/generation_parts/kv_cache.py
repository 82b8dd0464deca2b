"""The generation page's KV-cache section: the cached K and V rows, the cost per new token with and
without the cache, the attention sink, and a StreamingLLM "sink + window" cache. Numbers come from
analysis/cost/; this module lays them out (the page calls section())."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from analysis import claims, cost
from model.tokenizer import EOS
from ui import cache, slots, state
from ui.i18n import t
from ui.layout import plotly_chart, present_figure
from ui.safe import md, short
from ui.view import Field, whole
from ui.widgets import PLOTLY_CONFIG
from viz.cost import matrix_figure, per_token_cost, sink_heatmap
from viz.table import to_csv

SINK_MAX, WINDOW_MAX, CONTINUE = 8, 64, 12


@st.cache_data(show_spinner=False, max_entries=16)
def _timing(name: str, device: str, ids: tuple) -> dict:
    """The cost per new token with and without the cache along ids (timed, so worth keeping apart
    from the cache policies' sliders). A forward pass per token, twice: the heavy lane."""
    runner = cache.runner(name, device)
    with slots.heavy():
        timing = cost.generation_timing(runner, list(ids))
    timing["flops_no_cache"] = [cost.gpt_flops_per_token(t, runner.config, False)["total"] for t in timing["t"]]
    timing["flops_cache"] = [cost.gpt_flops_per_token(t, runner.config, True)["total"] for t in timing["t"]]
    return timing


@st.cache_data(show_spinner=False, max_entries=16)
def numbers(name: str, device: str, ids: tuple, read: tuple, prompt_len: int, sink: int, window: int) -> dict:
    """Everything the section shows, from one fetch of the runner: the cache after `read` (rows,
    positions, bytes), the cost per new token with and without the cache along `ids`, the sink check
    on `ids` (analysis.claims: first-token share per head against uniform), and the three cache
    policies' loss and continuation. Every part a forward pass or more: the heavy lane."""
    runner = cache.runner(name, device)
    timing = _timing(name, device, ids)  # moving the sink / window sliders does not time it again
    with slots.heavy():
        sink_check = None
        if len(ids) > 1:
            att = runner.trace_ids(list(ids)).attention["decoder"]
            sink_check = claims.sink_claim(att.weights, att.mask)
        policies = {
            "full": cost.CachePolicy(),
            "window": cost.CachePolicy("window", 0, sink + window),
            "sink": cost.CachePolicy("sink", sink, window),
        }
        return {
            "state": cost.kv_cache_state(runner, list(read)),
            "timing": timing,
            "sink": sink_check,
            "streaming": cost.streaming_compare(runner, list(ids), prompt_len, CONTINUE, policies, EOS),
        }


# the section's settings as its link carries them (ui/view.py): part of the generation page's view,
# which reads and writes them with its own; kvl is a layer, 1-based in the link as everywhere
VIEW = (
    Field("kvl", "kv_layer", 0, whole, one_based=True, omit_default=True),
    Field("kvm", "kv_which", "k", state.choice(("k", "v")), omit_default=True),
    Field("kvs", "kv_sink", 1, state.clamped("kvs", 0, SINK_MAX, int), omit_default=True),
    Field("kvw", "kv_window", 4, state.clamped("kvw", 1, WINDOW_MAX, int), omit_default=True),
)


def shown() -> dict:
    """The section's view as its widgets hold it, by link name (for the page's write_view)."""
    return {f.link: st.session_state.get(f.key, f.default) for f in VIEW}


def chart(fig, key):
    plotly_chart(present_figure(fig), config=PLOTLY_CONFIG, key=key)


def cost_caption(tm: dict) -> str:
    """The figures at the last t, and "time saves less than FLOPs do" only where the measured time
    ratio is below the FLOP ratio (at t = 1 both runs read one token: the FLOPs are equal, and the
    times differ by the timer's noise, either way)."""
    fr, tr = tm["flops_no_cache"][-1] / tm["flops_cache"][-1], tm["no_cache"][-1] / tm["cache"][-1]
    text = t(
        "kv_cost_caption",
        t=tm["t"][-1],
        fa=tm["flops_no_cache"][-1],
        fb=tm["flops_cache"][-1],
        fr=fr,
        ta=tm["no_cache"][-1] * 1e3,
        tb=tm["cache"][-1] * 1e3,
        tr=tr,
    )
    return text + (" " + t("kv_cost_overhead") if tr < fr else "")


def section(model_name: str, device: str, runner, ids: list[int], read: list[int], prompt_len: int) -> None:
    """ids: the whole text so far (<s>, prompt, generated); read: what the model had read at the step shown."""
    st.divider()
    st.subheader(t("kv_title"))
    if not (runner.has_tutorial_code and runner.can_continue_text) or len(read) == 0:
        return
    # the sliders further down hold their values in the session before this run starts
    sink_n, window_n = st.session_state.get("kv_sink", 1), st.session_state.get("kv_window", 4)
    found = numbers(model_name, device, tuple(ids), tuple(read), prompt_len, sink_n, window_n)
    st.markdown(t("kv_intro"))
    cfg = runner.config
    tok = runner.tokenizer
    c1, c2 = st.columns(2)
    if st.session_state.get("kv_layer") not in range(cfg.num_layers):
        st.session_state["kv_layer"] = 0
    layer = c1.selectbox(
        t("kv_layer"),
        list(range(cfg.num_layers)),
        key="kv_layer",
        format_func=lambda v: t("kv_sink_layer", layer=v + 1),
    )
    which = c2.radio(t("kv_which"), ["k", "v"], key="kv_which", horizontal=True, format_func=lambda v: t(f"kv_{v}"))
    s = found["state"]
    labels = tok.labels(read)
    rows = [labels[p] for p in s["positions"]]
    dk = cfg.d_model // cfg.num_heads
    chart(
        matrix_figure(
            s[which][layer],
            rows,
            t("kv_dims", h=cfg.num_heads, dk=dk),  # the cache row is d_model wide: every head's K (or V)
            t("cost_qkv_rows"),
            highlight_row=len(rows) - 1,
            boundaries=[dk * h for h in range(1, cfg.num_heads)],
        ),
        "kv_rows",
    )
    st.caption(t("kv_rows_caption", rows=len(rows), layers=cfg.num_layers, d=cfg.d_model, kb=s["bytes"] / 1024))
    if cfg.window:
        st.caption("ⓘ " + t("kv_window_caption", model=md(model_name), w=cfg.window))

    st.markdown("**" + t("kv_cost_title") + "**")
    tm = found["timing"]
    names = (t("kv_no_cache"), t("kv_with_cache"))
    left, right = st.columns(2, gap="large")
    with left:
        chart(
            per_token_cost(
                tm["t"], tm["flops_no_cache"], tm["flops_cache"], names, {"x": t("kv_t_axis"), "y": t("kv_flops_axis")}
            ),
            "kv_flops",
        )
    with right:
        chart(
            per_token_cost(
                tm["t"],
                [x * 1e3 for x in tm["no_cache"]],
                [x * 1e3 for x in tm["cache"]],
                names,
                {"x": t("kv_t_axis"), "y": t("kv_time_axis")},
            ),
            "kv_time",
        )
    st.caption(cost_caption(tm))
    b = cost.load_bench()
    if b is not None and "generation" in b:
        g = b["generation"]
        st.caption(
            t(
                "kv_bench_caption",
                date=b.get("generation_date", b["date"]),
                t=g["t"][-1],
                ta=g["no_cache"][-1] * 1e3,
                tb=g["cache"][-1] * 1e3,
            )
        )
    table = pd.DataFrame(
        {
            "t": tm["t"],
            "flops_no_cache": tm["flops_no_cache"],
            "flops_cache": tm["flops_cache"],
            "seconds_no_cache": tm["no_cache"],
            "seconds_cache": tm["cache"],
        }
    )
    st.download_button(
        t("kv_download"), to_csv(table), file_name="kv_cache_cost.csv", mime="text/csv", icon="⬇️", key="kv_download"
    )

    st.markdown("**" + t("kv_sink_title") + "**")
    # the rows the share averages (analysis.sink.first_token_share): those that see position 0 and one key
    # more; under gpt-local's window that stops at row window - 1, not at the text's last row
    w = cfg.window or 0
    last = min(len(ids) - 1, w - 1) if w else len(ids) - 1
    window = t("kv_sink_window", w=w) if w and last < len(ids) - 1 else ""
    st.caption(t("kv_sink_help", last=last, window=window))
    if len(ids) > 1:
        sink = found["sink"]
        shares = sink.numbers["share"]
        chart(
            sink_heatmap(shares, {"head": t("kv_sink_head", h="{h}"), "layer": t("kv_sink_layer", layer="{layer}")}),
            "kv_sink_chart",
        )
        ratio = sink.numbers["ratio"]
        la, h = np.unravel_index(int(np.nanargmax(ratio)), ratio.shape)
        # the sentence is filled in from the measurement, and says when this model has no sink
        st.caption(
            t(
                "kv_sink_summary" if sink.holds else "kv_sink_none",
                mean=float(np.nanmean(shares)),
                uniform=float(sink.numbers["uniform"][0, 0]),
                layer=la + 1,
                head=h + 1,
                max=float(shares[la, h]),
                ratio=float(ratio[la, h]),
                factor=claims.SINK_FACTOR,
                n=len(sink.heads),
            )
        )

    st.markdown("**" + t("kv_stream_title") + "**")
    c1, c2 = st.columns(2)
    sink = c1.slider(t("kv_sink_n"), 0, SINK_MAX, key="kv_sink")
    window = c2.slider(t("kv_window_n"), 1, WINDOW_MAX, key="kv_window")
    st.caption(t("kv_stream_help", budget=sink + window, sink=sink, win=window))
    st.caption(t("kv_stream_text", text=md(short(tok.decode(ids), 120)), n=len(ids)))
    if len(ids) <= sink + window:
        st.info(t("kv_stream_short", n=len(ids)), icon="ℹ️")
    r = found["streaming"]
    names = {
        "full": t("kv_policy_full"),
        "window": t("kv_policy_window", w=sink + window),
        "sink": t("kv_policy_sink", s=sink, w=window),
    }
    rows_at_most = {"full": cfg.window or len(ids), "window": sink + window, "sink": sink + window}
    st.dataframe(
        pd.DataFrame(
            {
                t("kv_col_policy"): [names[k] for k in r],
                t("kv_col_rows"): [min(rows_at_most[k], len(ids)) for k in r],
                t("kv_col_loss"): [round(v["nll"], 4) for v in r.values()],
                t("kv_col_cont"): [tok.decode(v["continuation"]) for v in r.values()],
            }
        ),
        hide_index=True,
        width="stretch",
        key="kv_stream_table",
    )

"""The cost page's section 1. O(n²) measured."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from analysis import cost
from ui.i18n import t
from ui.layout import main_area
from ui.safe import md
from ui.widgets import download
from viz.cost import scaling_curves
from viz.table import to_csv

from .shared import MB, Shown, bench, chart, live_layers, quote, size_label


def section(shown: Shown) -> None:  # the n² section reads no model
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

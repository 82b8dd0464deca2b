"""The cost page's section 4. FlashAttention's idea."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis import cost
from ui.i18n import t
from ui.safe import md
from viz.cost import online_steps

from .shared import FB_MAX, MB, Shown, bench, blockwise_live, chart, online, pick_head, pick_query, tokens_of


def section(shown: Shown) -> None:
    ctx, model_ctx, model_name, cfg, url = shown.ctx, shown.model_ctx, shown.model_name, shown.cfg, shown.url
    st.markdown(t("cost_flash_intro"))
    st.latex(
        r"m' = \max(m, \max_j s_j),\quad \ell' = \ell\,e^{m-m'} + \sum_j e^{s_j-m'},\quad "
        r"o' = o\,e^{m-m'} + \sum_j e^{s_j-m'} v_j,\quad \text{output} = o/\ell"
    )
    tokens = tokens_of(model_ctx.model, model_ctx.device, ctx.text)
    c1, c2, c3 = st.columns(3)
    layer, head = pick_head(c1, c2, cfg)
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
    url.update(layer=layer, head=head, fb=block, q=row)

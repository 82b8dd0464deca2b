"""The cost page's section 3. Why sqrt(d_k)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from ui.i18n import t
from ui.safe import md
from ui.widgets import download
from viz.cost import sweep_panels
from viz.table import to_csv

from .shared import Shown, chart, heads_table, quote, sweep


def section(shown: Shown) -> None:
    ctx, model_ctx, model_name = shown.ctx, shown.model_ctx, shown.model_name
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
    st.markdown(heads_summary(heads))


def heads_summary(heads: pd.DataFrame) -> str:
    """The sentence under the trained heads' table: what removing the scaling did on this sentence. The
    largest weight cannot fall when the scores are multiplied by sqrt(d_k) > 1; softmax's gradient
    per row falls only where rows end near one-hot (the translator's encoder on a long sentence: it
    rises), and with every row seeing one key there is nothing to measure (NaN)."""
    c, d = heads.softmax_grad_scaled.mean(), heads.softmax_grad_unscaled.mean()
    if np.isnan(c) or np.isnan(d):
        return t("cost_heads_summary_none")
    return t(
        "cost_heads_summary" if d < c else "cost_heads_summary_rises",
        a=heads.max_weight_scaled.mean(),
        b=heads.max_weight_unscaled.mean(),
        c=c,
        d=d,
    )

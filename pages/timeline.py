"""Training timeline: a slider over the run's snapshots, from random weights (step 0) to the shipped
model; the losses and exact match with a marker at the chosen step; the chosen head and every head
at that step for the sidebar's sentence, and the output there; role scores per snapshot as lines,
with the step where a head forms named from the numbers."""

from __future__ import annotations

from ui import boot  # noqa: F401  (first: on a fresh server, a deep link shows the title and a loading message)

# isort: split

import copy
import dataclasses
import json

import pandas as pd
import streamlit as st

import model
from analysis import timeline as probes
from ui import page, state
from ui import timeline as tl
from ui.i18n import t
from ui.layout import copy_link, main_area, page_header, plotly_chart, present_figure
from ui.run import Context
from ui.safe import md
from ui.widgets import PLOTLY_CONFIG, download, heatmap_labels, kind_layer_head
from viz.heatmap import attention_heatmap
from viz.model_view import model_view
from viz.table import to_csv
from viz.timeline import FORMED, formed_heads, largest_rise

KIND_ROLES = tl.KIND_ROLES
MODEL_VIEW_TILE = 64

# the page's view (ui/timeline.py, beside the snapshots' caches): step, kind, layer, head, role
VIEW = tl.VIEW


def render(ctx: Context, view: dict) -> None:
    """The page, as the reader sees it: the step, the losses there, the chosen head and every head
    at that step, when each head forms, the exports; then Play's next step."""
    base = tl.base_name(ctx.model)

    # a step to show next, set by "play" before the slider exists (a widget's value cannot change after)
    if "_tl_next" in st.session_state:
        st.session_state["tl_step"] = st.session_state.pop("_tl_next")

    page_header("page_timeline", "tl_intro")

    snaps = tl.snapshots(base)
    if not snaps:
        names = ", ".join(n for n in model.NAMES if tl.snapshots(n))
        st.info(t("tl_none", model=md(base), names=names or "—"), icon="ℹ️")
        copy_link()
        return

    steps = [s["step"] for s in snaps]
    if st.session_state.get("tl_step") not in steps:
        asked = st.session_state.get("tl_step")
        st.session_state["tl_step"] = steps[-1]
        if asked is not None and asked == view["step"]:  # a step the link asked for that this run lacks
            st.warning(t("tl_step_unknown", value=md(str(asked)), shown=steps[-1]), icon="⚠️")
    playing = st.session_state.get("_tl_playing", False)

    step = _section_step(steps, playing)
    index = steps.index(step)
    translator = "exact_match_en-zh" in snaps[-1]["metrics"]
    # the sidebar's sentence at this step (None after a message saying why not)
    tr = dataclasses.replace(ctx, model=f"{base}@{step}").trace()
    _section_losses(ctx, base, snaps, index, translator, tr)
    if tr is None:
        copy_link()
        return

    kinds = tr.kinds()
    kind, layer, head = _section_heads(tr, kinds, step)
    curves, formed, roles = _section_roles(ctx, base, snaps, index, translator, kind, layer, head)
    _section_exports(base, snaps, step, curves, formed, tr)

    state.write_view(
        VIEW,
        step=step,
        kind=kind if len(kinds) > 1 else None,
        layer=layer,
        head=head,
        role=st.session_state.get("tl_role") if roles else None,
    )
    copy_link()

    if playing:
        if index + 1 < len(steps):
            tl.play_pause()
            st.session_state["_tl_next"] = steps[index + 1]
            st.rerun()
        st.session_state["_tl_playing"] = False
        st.rerun()


# -- the step: Play and the slider ---------------------------------------------------------------
def toggle_play(steps: list[int]) -> None:
    if st.session_state.get("_tl_playing"):
        st.session_state["_tl_playing"] = False
        return
    st.session_state["_tl_playing"] = st.session_state["_tl_played"] = True
    if st.session_state["tl_step"] == steps[-1]:  # from the end: start again at step 0
        st.session_state["tl_step"] = steps[0]


def picked_while_playing(key: str) -> None:
    """The reader moved the slider during Play: that step, and Play stops."""
    if key not in st.session_state:  # cleared by a room's follow before this callback ran
        return
    st.session_state["tl_step"] = st.session_state.get(key)
    st.session_state["_tl_playing"] = st.session_state["_tl_played"] = False


def _section_step(steps: list[int], playing: bool) -> int:
    """Play and the slider over the snapshots (presentation: first, under the title); the step shown."""

    def step_label(s: int) -> str:
        return t("tl_step_label_last" if s == steps[-1] else "tl_step_label", step=f"{s:,}")

    c_play, c_slider = main_area().columns([1, 8], vertical_alignment="bottom")  # presentation: first
    with c_play:
        st.button(
            t("tl_stop") if playing else t("tl_play"),
            icon="⏹️" if playing else "▶️",
            key="tl_play",
            on_click=toggle_play,
            args=(steps,),
            help=t("tl_play_help"),
            width="stretch",
        )
    with c_slider:
        if playing or st.session_state.get("_tl_played"):
            # During Play the server moves the step. A slider whose value the server sets between runs
            # showed the step before the one drawn (issue 22: its thumb lagged one snapshot, more under
            # load; tests/browser/test_timeline_play.py): during Play, and after it until the reader moves
            # it (the first slider would flash the step Play started from), each step gets a slider of
            # its own, keyed by the step, which shows the step it is drawn with. tl_step is the step shown.
            step = st.session_state["tl_step"]
            st.select_slider(
                t("tl_step"),
                options=steps,
                value=step,
                key=f"_tl_step_at_{step}",
                format_func=step_label,
                help=t("tl_step_help"),
                on_change=picked_while_playing,
                args=(f"_tl_step_at_{step}",),
            )
            return step
        return st.select_slider(
            t("tl_step"), options=steps, key="tl_step", format_func=step_label, help=t("tl_step_help")
        )


# -- the losses (and exact match) with a marker at the chosen step ------------------------------
def fmt(v) -> str:
    return "—" if v is None else f"{v:.3f}"


def _show(ctx: Context, fig, key: str) -> None:
    """A chart; a shared cached figure is copied before presentation mode enlarges it."""
    plotly_chart(present_figure(copy.deepcopy(fig)) if ctx.presentation else fig, config=PLOTLY_CONFIG, key=key)


def _section_losses(ctx: Context, base: str, snaps: list[dict], index: int, translator: bool, tr) -> None:
    """The loss curves (and exact match) with a marker at the step, the numbers there, and the
    sentence's output at that step."""
    step, metrics = snaps[index]["step"], snaps[index]["metrics"]

    def at_step_text() -> None:
        """The losses (and exact match) at this step, and the sentence's output there."""
        st.markdown(
            t(
                "tl_at_step",
                step=f"{step:,}",
                train=fmt(metrics.get("train_loss")),
                heldout=fmt(metrics.get("heldout_loss")),
            )
            + (
                " "
                + t(
                    "tl_at_step_em",
                    en_zh=fmt(metrics.get("exact_match_en-zh")),
                    zh_en=fmt(metrics.get("exact_match_zh-en")),
                )
                if translator
                else ""
            )
        )
        if tr is None:
            return
        if "cross" in tr.attention:
            st.markdown(t("tl_translation", text=md(tr.output_text) or t("tl_empty_output")))
        else:
            more = tl.continuation(f"{base}@{step}", ctx.device, ctx.text).strip()
            st.markdown(t("tl_continuation", prompt=md(tr.input_text), text=md(more) or t("tl_empty_output")))

    # presentation mode: the curves under the slider, the loss full width when it is alone (gpt)
    left, right = (
        main_area().columns(2, gap="large") if translator or not ctx.presentation else (main_area(), st.container())
    )
    with left:
        _show(ctx, tl.metric_figure(base, "loss", index, ctx.lang), "tl_loss")
    with right:
        if translator:
            _show(ctx, tl.metric_figure(base, "em", index, ctx.lang), "tl_em")
        else:
            at_step_text()
    if translator:
        at_step_text()


# -- the chosen head and every head at this step ---------------------------------------------------
def pick_tile() -> None:
    points = (st.session_state.get("tl_mv") or {}).get("selection", {}).get("points", [])
    for p in points:
        data = p.get("customdata")
        if data is not None and len(data) == 2:
            st.session_state["tl_layer"], st.session_state["tl_head"] = int(data[0]), int(data[1])
            return


def _section_heads(tr, kinds: list[str], step: int) -> tuple[str, int, int]:
    """The kind, layer and head pickers; that head's heatmap beside every head at this step.
    Returns (kind, layer, head)."""
    if st.session_state.get("tl_kind") not in kinds:
        st.session_state["tl_kind"] = "cross" if "cross" in kinds else kinds[0]
    some = tr.attention[kinds[0]]
    n_layers, n_heads = some.num_layers, some.num_heads
    # kind_layer_head fits the layer and head to this model (state.fit: the nearest, with a notice for a link's)

    kind, layer, head = kind_layer_head("tl", kinds, n_layers, n_heads, "tl_kind")

    att = tr.attention[kind]
    rows = att.query_labels() if hasattr(att, "query_labels") else att.query_tokens

    left, right = st.columns(2, gap="large")
    with left:
        st.markdown(
            "**"
            + t(
                "tl_heatmap_title",
                kind=t(f"kind_{kind}"),
                layer=t("att_layer_n", n=layer + 1),
                head=t("att_head_n", n=head + 1),
                step=f"{step:,}",
            )
            + "**"
        )
        fig = attention_heatmap(att.weights[layer, head], rows, att.key_tokens, mask=att.mask, labels=heatmap_labels())
        plotly_chart(present_figure(fig), config=PLOTLY_CONFIG, key="tl_heatmap")
    with right:
        st.markdown("**" + t("tl_model_view", step=f"{step:,}") + "**")
        fig = model_view(
            att.weights,
            att.mask,
            selected=(layer, head),
            labels={"layer": t("att_layer_n"), "head": t("att_head_n")},
            tile=MODEL_VIEW_TILE,
        )
        plotly_chart(fig, config=PLOTLY_CONFIG, key="tl_mv", on_select=pick_tile, selection_mode="points")
    return kind, layer, head


# -- role scores per snapshot: when each head forms -------------------------------------------------
def _section_roles(
    ctx: Context, base: str, snaps: list[dict], index: int, translator: bool, kind: str, layer: int, head: int
) -> tuple[dict, list[dict], list[str]]:
    """The sentence naming the first head that forms (else the largest rise), the role picker and
    its lines, the table of heads that formed. Returns (curves, formed, the kind's roles)."""
    steps = [s["step"] for s in snaps]
    st.subheader(t("tl_roles"))
    with st.spinner(t("tl_computing")):
        curves = tl.role_curves(base, steps, ctx.device)
    roles = [r for r in KIND_ROLES[kind] if (kind, r) in curves]
    st.caption(t("tl_roles_help", n=probes.PROBE_PAIRS * (2 if translator else 1), formed=FORMED))

    formed = formed_heads(steps, curves)

    def sentence(f: dict, key_em: str = "tl_formed_em", key_loss: str = "tl_formed_loss") -> str:
        before, after = snaps[f["index"] - 1]["metrics"], snaps[f["index"]]["metrics"]
        if translator:
            key, m0, m1 = (
                key_em,
                *((m.get("exact_match_en-zh", 0) + m.get("exact_match_zh-en", 0)) / 2 for m in (before, after)),
            )
        else:
            key, m0, m1 = key_loss, before.get("heldout_loss"), after.get("heldout_loss")
        return t(
            key,
            kind=t(f"kind_{f['kind']}"),
            layer=f["layer"] + 1,
            head=f["head"] + 1,
            role_a=t(f"tl_role_a_{f['role']}"),
            role_name=t(f"tl_role_{f['role']}"),
            before=f"{f['before']:,}",
            after=f"{f['after']:,}",
            s0=f"{f['score_before']:.2f}",
            s1=f"{f['score_after']:.2f}",
            m0=fmt(m0),
            m1=fmt(m1),
        )

    rise = None if formed else largest_rise(steps, curves)
    st.markdown(
        sentence(formed[0])
        if formed
        else t("tl_formed_none", formed=FORMED) + (" " + sentence(rise, "tl_rise_em", "tl_rise_loss") if rise else "")
    )

    if not roles:
        st.caption(t("tl_no_roles", kind=t(f"kind_{kind}")))
    else:
        if st.session_state.get("tl_role") not in roles:
            st.session_state["tl_role"] = roles[0]
        role = st.radio(t("tl_role"), roles, format_func=lambda r: t(f"tl_role_{r}"), key="tl_role", horizontal=True)
        st.caption(t(f"tl_role_{role}_help", n=probes.INDUCTION_PERIOD))
        here = [f for f in formed if (f["kind"], f["role"]) == (kind, role)]
        rise_here = None if here else largest_rise(steps, {(kind, role): curves[(kind, role)]})
        if not (here and formed and here[0] is formed[0]) and not (rise_here and rise_here == rise):  # not said above
            st.markdown(
                sentence(here[0])
                if here
                else t("tl_formed_none_role", role=t(f"tl_role_{role}"), formed=FORMED)
                + (" " + sentence(rise_here, "tl_rise_em", "tl_rise_loss") if rise_here else "")
            )
        _show(ctx, tl.role_figure(base, ctx.device, kind, role, layer, head, index, ctx.lang), "tl_role_lines")

    if formed:
        with st.expander(t("tl_formed_table", n=len(formed))):
            table = pd.DataFrame(
                {
                    t("tl_col_kind"): [t(f"kind_{f['kind']}") for f in formed],
                    t("tl_col_role"): [t(f"tl_role_{f['role']}") for f in formed],
                    t("tl_col_layer"): [f["layer"] + 1 for f in formed],
                    t("tl_col_head"): [f["head"] + 1 for f in formed],
                    t("tl_col_between"): [f"{f['before']:,} – {f['after']:,}" for f in formed],
                    t("tl_col_before"): [round(f["score_before"], 3) for f in formed],
                    t("tl_col_after"): [round(f["score_after"], 3) for f in formed],
                    t("tl_col_final"): [round(f["final"], 3) for f in formed],
                }
            )
            st.dataframe(table, hide_index=True, width="stretch", key="tl_formed")
    return curves, formed, roles


# -- exports -----------------------------------------------------------------------------------
def _section_exports(base: str, snaps: list[dict], step: int, curves: dict, formed: list[dict], tr) -> None:
    """The run's snapshots and role scores (JSON, CSV) and this step's trace."""
    steps = [s["step"] for s in snaps]
    with st.expander(t("tl_export")):
        st.caption(t("tl_export_help"))
        long = pd.DataFrame(
            [
                {"step": s, "kind": k, "role": r, "layer": lay + 1, "head": h + 1, "score": float(c[i, lay, h])}
                for (k, r), c in curves.items()
                for i, s in enumerate(steps)
                for lay in range(c.shape[1])
                for h in range(c.shape[2])
            ]
        )
        data = {
            "model": base,
            "probe_sentences": probes.PROBE_PAIRS,
            "formed_threshold": FORMED,
            "snapshots": [{"step": s["step"], "shipped": s["shipped"], "metrics": s["metrics"]} for s in snaps],
            "role_scores": {f"{k}/{r}": c.round(4).tolist() for (k, r), c in curves.items()},
            "formed": formed,
        }
        with st.container(horizontal=True):
            download(
                t("tl_download_json"),
                json.dumps(data, ensure_ascii=False, indent=1),
                f"timeline_{base}.json",
                "tl_json",
                help=t("tl_download_json_help"),
            )
            download(
                t("tl_download_csv"),
                to_csv(long),
                f"timeline_{base}_roles.csv",
                "tl_csv",
            )
            download(
                t("tl_download_trace"),
                tr.dumps,
                f"attention_{base}_step{step}.json",
                "tl_trace",
            )


if __name__ == "__main__":  # Streamlit runs the file as the page (ui/page.py)
    page.show(render, VIEW)

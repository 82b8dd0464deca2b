"""Small pieces of layout that several pages show the same way."""

from __future__ import annotations

import numpy as np
import streamlit as st

from viz.heatmap import attention_heatmap
from viz.table import to_csv, weights_table

from . import state, view
from .grammar import show_outside_language
from .i18n import t
from .layout import plotly_chart, present_figure  # bigger labels on a projector
from .messages import error_text, notice_text
from .rows import pill_labels
from .safe import md

PLOTLY_CONFIG = {"displaylogo": False, "toImageButtonOptions": {"format": "png", "scale": 2}}


def show_model_notices(notes) -> None:
    """The model's notices (text cut, unseen words, ...) as captions, in the reader's language:
    model.errors.Notice carries a code the table translates; any other note is shown as it is."""
    for note in notes:
        code = getattr(note, "code", None)
        if code == "outside_language":  # a warning box with suggestions, not a caption
            show_outside_language(note)
            continue
        st.caption("ⓘ " + notice_text(note))


def show_input_error(e) -> None:
    """An InputError (model.errors) in the reader's language (ui/messages.py): text that leaves no
    tokens gets the hint to type a sentence; a model this server refuses, an error; the rest
    (a model that cannot do this, a bad setting), a warning."""
    code = getattr(e, "code", None)
    if code == "empty":
        st.info(error_text(e), icon="✏️")
    elif code == "hf_refused":
        st.error(error_text(e), icon="🚫")
    else:
        st.warning(error_text(e), icon="⚠️")


def heatmap_labels(writes: bool = False) -> dict:
    """Axis titles; writes: the rows are labelled "reads → writes" (decoder, cross-attention)."""
    return {
        "x": t("axis_key"),
        "y": t("axis_query_writes" if writes else "axis_query"),
        "weight": t("weight"),
        "masked": t("masked"),
    }


def token_picker(
    tokens: list[str], key: str, default: int = 0, label_key: str = "query_token", labels: list[str] | None = None
) -> int:
    """The tokens as pills; the chosen one is the query. Returns its position. labels: the pills'
    text when it is not the token itself ("<2zh> → 猫")."""
    options = list(range(len(tokens)))
    if st.session_state.get(key) not in options:
        st.session_state[key] = min(max(default, 0), len(tokens) - 1)
    choice = row_picker(t(label_key), labels or tokens, key, required=False)
    token_legend(tokens)
    return st.session_state[key] if choice is None else choice


def row_picker(label: str, labels: list[str], key: str, required: bool = True) -> int | None:
    """One pill per row (query token); returns the chosen row's position. Pills tell options apart
    by their text, so a repeated word's second row gets its position, and they render Markdown, so
    a token (data) is escaped (ui.rows.pill_labels)."""
    shown = pill_labels(labels)
    return st.pills(
        label,
        list(range(len(labels))),
        format_func=lambda i: shown[i],
        key=key,
        selection_mode="single",
        required=required,
    )


def kind_layer_head(
    prefix: str, kinds: list[str], n_layers: int, n_heads: int, kind_label: str, widths=(3, 1, 1), mean: bool = False
) -> tuple[str, int, int | str]:
    """One row of pickers: the attention kind (radio), the layer and the head, keyed PREFIX_kind,
    PREFIX_layer, PREFIX_head. mean: the head list starts with "mean" (the mean of the heads).
    Returns (kind, layer, head)."""
    c_kind, c_layer, c_head = st.columns(list(widths), vertical_alignment="bottom")
    with c_kind:
        kind = kind_picker(kinds, f"{prefix}_kind", kind_label)
    with c_layer:
        layer = layer_picker(n_layers, f"{prefix}_layer")
    with c_head:
        head = head_picker(n_heads, f"{prefix}_head", mean=mean)
    return kind, layer, head


def _fit_if_set(key: str, options, label) -> None:
    """state.fit for a picker whose key the session holds (a link's value, even an empty one;
    another model's; the last run's); a key the session does not hold yet is left alone, so the
    widget's own default or index= applies."""
    if key in st.session_state:
        state.fit(key, options, label)


def kind_picker(kinds: list[str], key: str, label_key: str = "att_kind", **kwargs) -> str:
    """The attention kinds (encoder, decoder, cross) as a horizontal radio, greyed out when the
    model has one; a kind this model lacks (from a link, from another model) becomes its first.
    kwargs go to st.radio (label_visibility, ...)."""
    _fit_if_set(key, kinds, lambda k: t(f"kind_{k}"))
    return st.radio(
        t(label_key),
        kinds,
        format_func=lambda k: t(f"kind_{k}"),
        key=key,
        horizontal=True,
        disabled=len(kinds) == 1,
        **kwargs,
    )


def number_picker(label_key: str, n: int, key: str, item_key: str, **kwargs) -> int:
    """A selectbox of 0 .. n-1, each shown 1-based by the string item_key (given n and total):
    "Layer 2", "Head 3 of 4". A value this model lacks is fitted first (state.fit: the nearest
    that exists, with a notice when the link asked for it). kwargs go to st.selectbox."""

    def label(i):
        return t(item_key, n=i + 1, total=n)

    _fit_if_set(key, range(n), label)
    return st.selectbox(t(label_key), list(range(n)), format_func=label, key=key, **kwargs)


def layer_picker(n_layers: int, key: str, label_key: str = "att_layer", item_key: str = "att_layer_n", **kwargs) -> int:
    """The layer selectbox ("Layer 1", "第 1 层", ...), 0-based."""
    return number_picker(label_key, n_layers, key, item_key, **kwargs)


def head_picker(
    n_heads: int,
    key: str,
    mean: bool = False,
    label_key: str = "att_head",
    item_key: str = "att_head_n",
    mean_key: str = "att_mean_heads",
    **kwargs,
) -> int | str:
    """The head selectbox ("Head 1", "第 1 个头", ...), 0-based; mean: "mean" (the mean of the heads)
    comes first. A head this model lacks is fitted first. kwargs go to st.selectbox."""
    if not mean:
        return number_picker(label_key, n_heads, key, item_key, **kwargs)
    options = ["mean", *range(n_heads)]

    def label(h):
        return t(mean_key) if h == "mean" else t(item_key, n=h + 1, total=n_heads)

    _fit_if_set(key, options, label)
    return st.selectbox(t(label_key), options, key=key, format_func=label, **kwargs)


MIME = {".json": "application/json", ".csv": "text/csv", ".svg": "image/svg+xml", ".png": "image/png"}


def download(label: str, data, file_name: str, key: str, help: str | None = None) -> None:
    """A download button as every page shows it: the ⬇️ icon, no rerun on click, the MIME type
    from the file name's extension."""
    mime = MIME.get(file_name[file_name.rfind(".") :].lower(), "application/octet-stream")
    st.download_button(label, data, file_name=file_name, mime=mime, on_click="ignore", icon="⬇️", key=key, help=help)


def image_format_picker(key: str) -> str:
    """PNG or SVG for the figures' camera button (the choice is read back through st.session_state[key])."""
    return st.radio(
        t("att_image_format"),
        ["png", "svg"],
        format_func=str.upper,
        key=key,
        horizontal=True,
        help=t("att_image_format_help"),
    )


def action_button(name: str, icon: str, on_click, args=(), key: str | None = None, explain: bool = True, **kwargs):
    """A button that calls on_click(*args): labelled t(name), explained by t(name + "_help") (not
    when explain is False), keyed `key` or name; kwargs go to st.button (type, disabled, ...)."""
    return st.button(
        t(name),
        key=key or name,
        icon=icon,
        help=t(f"{name}_help") if explain else None,
        on_click=on_click,
        args=tuple(args),
        **kwargs,
    )


def show_empty_hint(presentation: bool) -> None:
    """No sentence yet: where to type one; in presentation mode also that the sidebar is hidden
    and how to bring it back (outside it that would be a sentence about nothing on the screen)."""
    st.info(t("empty_text_hint_present" if presentation else "empty_text_hint"), icon="✏️")


def sampling_knobs(prefix: str, vocab: int, columns) -> tuple[float, int, float]:
    """How the next token is drawn: sampling temperature, top-k (0: off) and top-p, one widget in
    each of the three columns, keyed and labelled PREFIX_stemp, PREFIX_topk, PREFIX_topp (help:
    the same + "_help"). A link's top-k past this vocabulary is fitted to it first."""
    state.fit(f"{prefix}_topk", range(vocab + 1), lambda k: f"topk {k}")
    c_temp, c_k, c_p = columns
    with c_temp:
        stemp = st.slider(
            t(f"{prefix}_stemp"), 0.0, view.STEMP_MAX, step=0.05, key=f"{prefix}_stemp", help=t(f"{prefix}_stemp_help")
        )
    with c_k:
        top_k = st.number_input(
            t(f"{prefix}_topk"), 0, vocab, step=1, key=f"{prefix}_topk", help=t(f"{prefix}_topk_help")
        )
    with c_p:
        top_p = st.slider(
            t(f"{prefix}_topp"), 0.01, 1.0, step=0.01, key=f"{prefix}_topp", help=t(f"{prefix}_topp_help")
        )
    return stemp, top_k, top_p


def section_picker(prefix: str, sections) -> str:
    """A page's sections as one full-width segmented control, keyed PREFIX_sec, labelled PREFIX_section
    (hidden) and PREFIX_sec_NAME. Returns the chosen section."""
    return st.segmented_control(
        t(f"{prefix}_section"),
        sections,
        key=f"{prefix}_sec",
        format_func=lambda s: t(f"{prefix}_sec_{s}"),
        required=True,
        label_visibility="collapsed",
        width="stretch",
    )


def token_legend(tokens: list[str]) -> None:
    """Explain the two kinds of label that are not plain words, when the sentence has them."""
    if any(t == "␣" for t in tokens):
        st.caption(t("legend_space"))
    if any("/" in t and t.rsplit(" ", 1)[-1][:1].isdigit() for t in tokens):
        st.caption(t("legend_bytes"))


def show_heatmap(weights_2d, query_tokens, key_tokens, key=None, config=None, writes: bool = False, **options):
    """Draws attention_heatmap(weights_2d, query_tokens, key_tokens, **options) (mask, title, zmax,
    height, ...) with this page's axis labels; writes: the rows are labelled "reads → writes"."""
    fig = attention_heatmap(weights_2d, query_tokens, key_tokens, labels=heatmap_labels(writes), **options)

    return plotly_chart(present_figure(fig), config=config or PLOTLY_CONFIG, key=key)


def show_row_table(att, weights_2d, q: int, key: str, with_csv: bool = True) -> None:
    """show_table for query row q of an attention (or a lesson's Heat): its keys, the row of
    weights_2d (queries, keys), the row's mask and the token it writes."""
    written = getattr(att, "query_written", None)
    show_table(
        att.key_tokens,
        weights_2d[q],
        att.query_tokens[q],
        None if att.mask is None else att.mask[q],
        key=key,
        with_csv=with_csv,
        written=(written or [None] * len(att.query_tokens))[q],
    )


def show_table(
    key_tokens,
    row,
    query_token: str,
    mask_row=None,
    key: str | None = None,
    with_csv: bool = True,
    written: str | None = None,
):
    """The tutorial's table: every key token with its weight, sortable, with bars. written: the
    token this row writes (decoder, cross-attention): the heading then names it."""
    if written is None:
        st.markdown(t("table_caption", token=md(query_token)))
    else:
        st.markdown(t("table_caption_written", token=md(query_token), written=md(written)))
    df = weights_table(key_tokens, np.asarray(row), mask_row=mask_row)
    shown = translated(
        df, {"position": "col_position", "token": "col_token", "weight": "col_weight", "masked": "col_masked"}
    )
    st.dataframe(
        shown,
        hide_index=True,
        key=key,
        width="stretch",
        column_config={t("col_weight"): bar_column(t("col_weight"), "%.4f")},
    )
    if with_csv:
        # the file says which row it is: the query token read (and the token written)
        rows = {"query": query_token, **({} if written is None else {"writes": written})}
        # made when the reader clicks, not on every rerun (a fifth of the table's cost per new sentence)
        table = df.assign(**rows)
        download(t("download_csv"), lambda: to_csv(table), "attention_table.csv", None if key is None else f"{key}_csv")
    return df


def translated(df, columns: dict[str, str]):
    """df with its columns named in the reader's language: columns maps a column to its string key."""
    return df.rename(columns={c: t(k) for c, k in columns.items()})


def bar_column(label: str, fmt: str = "%.2f"):
    """A table column of numbers in 0..1 (weights, scores) drawn as bars."""
    return st.column_config.ProgressColumn(label, format=fmt, min_value=0.0, max_value=1.0)

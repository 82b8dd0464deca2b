"""What the cost page's sections share: its limits, the cached computations (strings and numbers in,
plain data out) and the pickers; and Shown, what every section is drawn for."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from analysis import cost
from training.evaluate import evaluate
from ui import cache, slots, state
from ui.i18n import t
from ui.layout import plotly_chart, present_figure
from ui.safe import md
from ui.widgets import PLOTLY_CONFIG, head_picker, layer_picker

LIVE_NS = (16, 64, 256)
LIVE_PATTERN_NS = (128, 512)
W_MAX, DIL_MAX, BLOCK_MAX, FB_MAX = 16, 4, 16, 32
EVAL_N = 300
MB = 1e6


@dataclass(frozen=True)
class Shown:
    """What a section is drawn for: the sidebar's run, the run of the model the sections read (ours:
    the GPT when a Hugging Face model is chosen), that model's name and config, and the link the
    sections write into."""

    ctx: object
    model_ctx: object
    model_name: str = ""
    cfg: object = None
    url: dict | None = None


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


def pick_head(c1, c2, cfg) -> tuple[int, int]:
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


def global_tokens(raw: str) -> list[int]:
    """?glob=0,5: the tokens every token sees (and that see every token); "-": none."""
    return [] if raw == "-" else [int(x) for x in raw.split(",")]

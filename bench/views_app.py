"""Bench only: the app's real attention page, fed a synthetic 6-layer x 12-head trace.

    streamlit run bench/views_app.py        (bench/views.py starts it and drives it)

The sidebar is the app's own; the sentence's words are the trace's tokens, so typing N words
gives an N-token trace. ui.cache's model loader and trace cache are swapped for synthetic ones
(the trace cache keeps st.cache_data with the same bound, so a hit costs what it costs in the
app); everything the page draws is the page's own code.
"""

import importlib
import os
import runpy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from bench import synthetic  # noqa: E402
from model.config import ModelConfig  # noqa: E402
from ui import cache, page, run  # noqa: E402
from ui.context import sidebar  # noqa: E402


class SyntheticRunner:
    name = "synthetic"
    kind = "encoder"  # not "gpt": the page computes induction scores only for a GPT
    trained = True
    notices: list = []
    config = ModelConfig(
        arch="transformer", num_layers=synthetic.LAYERS, num_heads=synthetic.HEADS, d_model=768, max_seq_len=4096
    )


_RUNNER = SyntheticRunner()


def runner(name, device="auto"):
    return _RUNNER


@st.cache_data(show_spinner=False, max_entries=cache.TRACE_CACHE_ENTRIES)
def trace(name, device, text, temperature=1.0, temperature_layer=None, use_position=True, direction=None):
    return synthetic.trace(text)


cache.runner, cache.trace = runner, trace

st.set_page_config(page_title="Attention views (bench)", layout="wide")
sidebar()


def attention_page():
    if os.environ.get("ATTN_BENCH_PAGE"):  # bench/moves.py: an older attention page, for comparison
        # a page file of before render(ctx, view) drew at its module's top level when run
        runpy.run_path(os.environ["ATTN_BENCH_PAGE"], run_name="__main__")
        return
    # the app's page as Streamlit runs it (ui/page.py): its render, with this run's Context and
    # the view its link carries. (Running the file with any other __name__ draws nothing.)
    attention = importlib.import_module("pages.attention")
    page.show(attention.render, attention.VIEW)


nav = st.navigation([st.Page(attention_page, title="Attention", url_path="attention", default=True)], position="hidden")
try:
    nav.run()
finally:
    run.end_run()  # as app.py does: the next run in this thread starts from the sidebar's Context

"""The floor for a page that needs no chart library: a title and the same small table as
bench/floor_app.py, nothing else (no Plotly, no torch). bench/first_visit.py times the home page,
which draws its heatmap with the attention view (ui/attention_view, plain JavaScript), against it.

    ATTN_FLOOR_APP=floor_table_app.py python -m bench.floor_serve
"""

import numpy as np
import streamlit as st

st.set_page_config(page_title="floor", layout="wide")
st.title("Transformer Attention Explorer")
w = np.random.default_rng(0).dirichlet(np.ones(7), size=7)
words = "The cat sat on the mat .".split()
left, right = st.columns([3, 2])
right.dataframe({"key": words, "weight": w[1]}, hide_index=True)

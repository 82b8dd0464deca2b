"""The floor a Streamlit page sets on this machine: a title, one 7x7 Plotly heatmap with its cell
values and one small table, nothing of the project's (no torch, no model). bench/first_visit.py
times its first visit beside the app's, so the app's figure reads against what Streamlit and
Plotly themselves take in Chromium here.

    python -m bench.floor_serve    (numpy and plotly imported before the server listens, as
                                    python -m ui.serve preloads the app's libraries)
"""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

st.set_page_config(page_title="floor", layout="wide")
st.title("Transformer Attention Explorer")
w = np.random.default_rng(0).dirichlet(np.ones(7), size=7)
words = "The cat sat on the mat .".split()
fig = go.Figure(go.Heatmap(z=w, x=words, y=words, colorscale="Blues", text=np.round(w, 2), texttemplate="%{text}"))
left, right = st.columns([3, 2])
left.plotly_chart(fig)
right.dataframe({"key": words, "weight": w[1]}, hide_index=True)

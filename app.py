"""Transformer Attention Explorer (placeholder until the app lands)."""
import streamlit as st

st.title("Transformer Attention Explorer")

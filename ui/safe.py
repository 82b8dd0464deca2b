"""Showing user text safely: it is data, never markup.

Streamlit's markdown renders Markdown (and would render HTML with unsafe_allow_html, which this
app never uses). Any user text placed inside markdown goes through md() first.
"""
import html
import re

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def md(text: str) -> str:
    """Escape text for st.markdown / st.caption / labels: HTML entities, then Markdown syntax."""
    return _MD_SPECIAL.sub(r"\\\1", html.escape(str(text), quote=False).replace("\n", " "))


def short(text: str, limit: int = 60) -> str:
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"

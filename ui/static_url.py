"""Where the browser finds the app's static/ folder: Streamlit serves it at /app/static/
(.streamlit/config.toml, enableStaticServing) under the server's URL prefix (server.baseUrlPath),
so an app served at https://school.example/explorer/ has its in-browser model's runtime, modules,
graphs and tokenizer at /explorer/app/static/ (ort/, browser_model/, models/). A page hands this to
ui/browser_model/model.js (BrowserModel.load(base, name)); a fixed "/app/static" would load nothing
under a prefix. docs/hosting.md: serving under a prefix, behind deploy/nginx.conf too."""

from __future__ import annotations

import streamlit as st

STATIC = "app/static"


def static_base(base_url_path: str | None = None) -> str:
    """The absolute path of the static folder for server.baseUrlPath (read from Streamlit's
    options when not given): "" or "/" -> "/app/static", "explorer" or "/a/b/" -> "/explorer/app/static",
    "/a/b/app/static"."""
    if base_url_path is None:
        base_url_path = st.get_option("server.baseUrlPath") or ""
    parts = [p for p in str(base_url_path).split("/") if p]
    return "/" + "/".join([*parts, STATIC])

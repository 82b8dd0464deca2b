"""Opening one page of the app the way a shared link does, for the AppTest tests."""
import base64
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def open_page(page: str, model_name: str = "gpt", timeout: float = 90, **params) -> AppTest:
    """The page opened from a link carrying params. The sidebar's own settings (model, lang,
    text) go in before the first run: AppTest keeps the URL the app itself last wrote for them,
    so a later change would not reach the script."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.query_params["model"] = model_name
    at.query_params["lang"] = params.pop("lang", "en")
    if "text" in params:
        at.query_params["text"] = params.pop("text")
    at.run()                               # AppTest learns the pages from st.navigation here
    at.switch_page(page)
    for name, value in params.items():
        at.query_params[name] = str(value)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def notices(at: AppTest) -> str:
    """Every warning the page shows, as one string."""
    return " ".join(w.value for w in at.warning)


def array(value) -> np.ndarray:
    """A plotly array from the figure's JSON: a plain list, or plotly's base64 typed array."""
    if isinstance(value, dict) and "bdata" in value:
        out = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        return out.reshape([int(x) for x in str(shape).split(",") if x.strip()]) if shape else out
    return np.array(value, dtype=float)

"""Opening one page of the app the way a shared link does, for the AppTest tests."""

import ast
import atexit
import base64
import functools
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from lessons.pages import app_pages
from ui import i18n

APP = str(Path(__file__).resolve().parents[1] / "app.py")
ORIGINAL_LANG = i18n.DEFAULT_LANG  # what restore_language() puts back after each test (tests/conftest.py)


def use_language(lang: str) -> None:
    """The page's language as AppTest's fallback too: AppTest formats widget options in the test's
    own thread, where t() sees no session, so without this a 中文 page's sidebar options would be
    formatted in English and match none of the page's (AppTest then fails on a missing option)."""
    if lang not in i18n.LANGS:
        raise ValueError(f"lang={lang!r}: the app's languages are {sorted(i18n.LANGS)}")
    i18n.DEFAULT_LANG = lang


def restore_language() -> None:
    i18n.DEFAULT_LANG = ORIGINAL_LANG


def open_page(page: str, model_name: str = "gpt", timeout: float = 90, **params) -> AppTest:
    """The page opened from a link carrying params. The sidebar's own settings (model, lang,
    text) go in before the first run: AppTest keeps the URL the app itself last wrote for them,
    so a later change would not reach the script."""
    at = AppTest.from_file(APP, default_timeout=timeout)
    at.query_params["model"] = model_name
    at.query_params["lang"] = lang = params.pop("lang", ORIGINAL_LANG)
    use_language(lang)
    if "text" in params:
        at.query_params["text"] = params.pop("text")
    at.run()  # AppTest learns the pages from st.navigation here
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


def ok(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def pages_of_app() -> tuple[list[tuple], int]:
    """app.py's PAGES (file, url path, title key, icon), read without running app.py, and the
    line its assignment ends on (lessons/pages.py reads it for the lessons' links too)."""
    return app_pages(Path(APP))


@functools.cache
def page_statement(page: str, name: str):
    """A page file's module-level NAME = literal (NO_CONTROLS, FIRST_CHART_AFTER: what a page says
    about itself to the tests), read without running the page; None where it has none."""
    tree = ast.parse((Path(APP).parent / page).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    return None


@functools.cache
def app_copy(page: str) -> Path:
    """app.py, changed in one line: PAGES keeps only the files that exist (others are being
    written in parallel) and lists `page` first; app.py makes the first page the default, so that
    page runs (and reruns) without a switch_page. Beside it a link to pages/, so st.page_link's
    "pages/..." resolve as in the app."""
    _, end = pages_of_app()
    lines = Path(APP).read_text(encoding="utf-8").splitlines()
    lines.insert(
        end,
        "PAGES = sorted([p for p in PAGES if (__import__('pathlib').Path(__file__).parent / p[0]).exists()], "
        f"key=lambda p: p[0] != {page!r})",
    )
    folder = Path(tempfile.mkdtemp(prefix="apptest_"))
    # removed as the process ends (its pages/ link unlinked, not followed): a folder a page and a
    # process, 184 of them left in /tmp by a day of runs until 2026-12-05
    atexit.register(shutil.rmtree, folder, True)
    root = Path(APP).parent
    (folder / "pages").symlink_to(root / "pages", target_is_directory=True)
    (folder / "app.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder / "app.py"


def open_alone(page: str, **params) -> AppTest:
    """The app opened straight on one page, every param in the link before the first run. Unlike
    after a switch_page (where AppTest drops the sidebar's widgets, and with them their values:
    the language falls back to English), the sidebar's widgets are there to read and use."""
    at = AppTest.from_file(str(app_copy(page)), default_timeout=90)
    use_language(str(params.get("lang", ORIGINAL_LANG)))
    for name, value in params.items():
        at.query_params[name] = str(value)
    at.run()
    ok(at)
    return at


def chart(at: AppTest, key: str) -> dict:
    """The plotly figure (as JSON) the page drew with this key."""
    for c in at.get("plotly_chart"):
        if c.proto.id.endswith("-" + key):
            return json.loads(c.proto.spec)
    raise KeyError(key)


def markdown(at: AppTest) -> str:
    """Every markdown block of the run, joined."""
    return " ".join(m.value for m in at.markdown)


def attention_view(at: AppTest, key: str) -> tuple[dict, dict] | None:
    """The attention view (ui/attention_view) keyed `key`, as the browser receives it: its header
    (labels, view, shape) and its arrays as numpy (w<layer>: (heads, Q, K) float32; mask: (Q, K)
    bool), or None when the page drew none."""
    from viz.attention_view import unpack

    for el in at.get("bidi_component"):
        if el.proto.id.endswith("-" + key):
            header, blobs = unpack(el.proto.bytes)
            _, n_heads, q, k = header["shape"]
            arrays = {
                f"w{la}": np.frombuffer(blobs[f"w{la}"], np.float32).reshape(n_heads, q, k) for la in header["layers"]
            }
            if "mask" in blobs:
                arrays["mask"] = np.frombuffer(blobs["mask"], np.uint8).reshape(q, k).astype(bool)
            return header, arrays
    return None


def view_source(at: AppTest, key: str, i: int) -> dict:
    """Source i >= 1 of the attention view keyed `key` (another run beside the first: compare's B,
    the temperature page's model re-run at T), as attention_view's arrays: w<layer>, mask."""
    from viz.attention_view import unpack

    for el in at.get("bidi_component"):
        if el.proto.id.endswith("-" + key):
            header, blobs = unpack(el.proto.bytes)
            src = header["sources"][i - 1]
            _, n_heads, q, k = src["shape"]
            out = {
                f"w{la}": np.frombuffer(blobs[f"s{i}w{la}"], np.float32).reshape(n_heads, q, k) for la in src["layers"]
            }
            if f"s{i}mask" in blobs:
                out["mask"] = np.frombuffer(blobs[f"s{i}mask"], np.uint8).reshape(q, k).astype(bool)
            return out
    raise KeyError(key)


def view_row(at: AppTest, key: str) -> tuple[list[str], np.ndarray]:
    """(key tokens, weights) of the row the attention view's table shows first: its view's layer,
    head (or the mean of the heads) and row, at its temperature (numpy's softmax(log w / T), as
    the browser computes it)."""
    from viz.attention_view import at_temperature

    header, arrays = attention_view(at, key)
    v = header["view"]
    w = at_temperature(arrays[f"w{v['layer']}"], v["ltemp"], arrays.get("mask"))
    w = w.mean(axis=0) if v["head"] == "mean" else w[v["head"]]
    return header["k_tokens"], w[v["q"]]

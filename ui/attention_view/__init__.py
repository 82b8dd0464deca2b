"""The attention view: one Streamlit components-v2 element (no iframe) that draws an attention
kind's heatmap, model view and head view on canvas and recomputes layer, head, row, tab and the
shown layer's temperature in the browser (view.js). The weights travel once per trace as float32
bytes (viz/attention_view.pack); the component reports the reader's view back once, debounced,
when they let go, and `on_view` puts it into the page's session keys (so the link, the room and
the server's own tables follow).

Why the "imposed" view below: a rerun that sends the very same element lets Streamlit send a
reference to the cached message instead of the payload (ForwardMsg hashes; 8 MiB at 512 tokens).
So after the component reported view V and the page's state became V, the element is sent with
the view it was last given, byte for byte, and the browser keeps the reader's V; only a view that
came from elsewhere (a link, a room, a sidebar widget) is sent, and the component then moves to it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import streamlit as st

from model import intervention
from model.attention import ABLATIONS
from viz.attention_view import layers_to_send, pack

from .. import browser_model, run, said, state, static_url
from .. import view as views
from ..i18n import t
from ..safe import echo, md
from .bundle import script

HERE = Path(__file__).parent
NAME = "attention_explorer.attention_view"

_render = st.components.v2.component(
    NAME,
    html='<div class="av"></div>',
    css=(HERE / "view.css").read_text(encoding="utf-8"),
    js=script(),  # view.js and the modules it imports, joined (bundle.py)
)

# the component's strings (its name -> the key in ui/strings/*.toml)
STRINGS = {
    "tabs_label": "av_tabs_label",
    "tab_heatmap": "av_tab_heatmap",
    "tab_model": "av_tab_model",
    "tab_head": "av_tab_head",
    "layer": "att_layer",
    "head": "att_head",
    "layer_n": "att_layer_n",
    "head_n": "att_head_n",
    "head_n_short": "av_head_n_short",
    "mean_heads": "att_mean_heads",
    "temperature": "av_temperature",
    "temp_reset": "av_temp_reset",
    "temp_note": "av_temp_note",
    "temp_note_one": "av_temp_note_one",
    "page_n": "av_page_n",
    "keys_help": "av_keys_help",
    "keys_help_rows": "av_keys_help_rows",
    "layer_loading": "av_layer_loading",
    "diff_scale": "av_diff_scale",
    "alt": "av_alt",
    "model_alt": "av_model_alt",
    "caption": "av_caption",
    "caption_written": "av_caption_written",
    "col_position": "col_position",
    "col_token": "col_token",
    "col_weight": "col_weight",
    "masked": "masked",
    "masked_short": "av_masked_short",
    "table_top": "av_table_top",
    "axis_x": "axis_key",
    "export_png": "av_export_png",
    "export_svg": "av_export_svg",
    "export_csv": "av_export_csv",
    "export_json": "av_export_json",
    # the in-browser model (live.js): its knobs, which side computed the chart, why not the browser
    "live_all": "av_live_all",
    "live_note_layer": "av_live_note_layer",
    "live_note_all": "av_live_note_all",
    "live_off": "av_live_off",
    "live_on": "av_live_on",
    "live_off_list": "av_live_off_list",
    "live_off_head": "av_live_off_head",
    "live_clear": "av_live_clear",
    "live_nopos": "av_live_nopos",
    "live_how": "iv_how",
    "how_zero": "iv_how_zero",
    "how_mean": "iv_how_mean",
    "how_uniform": "iv_how_uniform",
    "src_browser": "av_src_browser",
    "src_server": "av_src_server",
    "src_loading": "av_src_loading",
    "src_waiting": "av_src_waiting",
    "cannot": "av_cannot",
    "cannot_no-webassembly": "av_cannot_no_webassembly",
    "cannot_no-simd": "av_cannot_no_simd",
    "cannot_memory": "av_cannot_memory",
    "cannot_error": "av_cannot_error",
    "live_output": "av_live_output",
    "live_output_t": "av_live_output_t",
}
# view.js TABS, in its order (tests/test_attention_view_js.py): the heatmap of one head, the model
# view (every layer x head), the head view (one row's lines to its keys, every head of a layer)
TABS = ("heatmap", "model", "head")


def strings(writes: bool) -> dict:
    """The component's wording in the reader's language; writes: rows are "reads → writes"."""
    out = {name: t(key) for name, key in STRINGS.items()}  # templates: the browser fills {n}, {t}, ...
    out["axis_y"] = t("axis_query_writes" if writes else "axis_query")
    return out


def fit_view(view, shape) -> dict:
    """A view the component can show for weights of this shape (a link's head past this model's
    heads, a row past this sentence): each field clamped, the head "mean" or an index.

    The component's report comes from the visitor's browser, so anything may arrive ({"layer":
    "abc"}, [1], NaN, 1e400, a 100 kB string, not a dict at all): each field is read with the parser
    the page's link declares for it (ui/view.py: whole numbers, "mean", the temperature's range,
    finite), and a field that parser refuses falls back to its default with a notice. Never an
    error box, and never a NaN temperature in the link or the model."""
    n_layers, n_heads, q, _ = shape
    view = view if isinstance(view, dict) else {}
    layer = _reported(view, "layer", views.whole, n_layers - 1)
    head = _reported(view, "head", views.whole_or_mean, "mean")
    tab = view.get("tab")
    return {
        "tab": tab if isinstance(tab, str) and tab in TABS else TABS[0],
        "layer": min(max(layer, 0), n_layers - 1),
        "head": "mean" if head == "mean" else min(max(head, 0), n_heads - 1),
        "q": min(max(_reported(view, "q", views.whole, 0), 0), q - 1),
        # the slider's T as the link names it (ui/view.py): the shown layer's alone, applied in the
        # browser to the weights it holds (ltemp), and every layer's, the model re-run at it (temp)
        "ltemp": _reported(view, "ltemp", views.LAYER_TEMPERATURE, 1.0),
        "temp": _reported(view, "temp", views.TEMPERATURE, 1.0),
        # the in-browser model's other knobs (live.js): heads off, how, positions off
        "off": _off(view.get("off"), n_layers, n_heads),
        "how": view.get("how") if view.get("how") in ABLATIONS else "zero",
        "nopos": view.get("nopos") is True,
        # a sentence typed into the sidebar's box and run in the browser, reported when the box was
        # left (None: the page's own); cut as the box cuts it
        "text": view["text"][: state.TEXT_READ_MAX] if isinstance(view.get("text"), str) else None,
    }


def _off(raw, n_layers: int, n_heads: int) -> list[str]:
    """The reported heads off ("kind:layer:head", 1-based), each parsed as the link parses it and
    kept only where this model has it (a browser's report: anything may be in it)."""
    if not isinstance(raw, list) or len(raw) > MAX_OFF:
        return []
    out = []
    for name in raw:
        try:
            kind, layer, head = intervention.parse_head(str(name)[:REPORT_MAX])
        except ValueError:
            continue
        if layer < n_layers and head < n_heads and intervention.head_name(kind, layer, head) not in out:
            out.append(intervention.head_name(kind, layer, head))
    return out


def bind_view(**keys: str | tuple[str, ...]):
    """A page's on_view: each field of the view the reader left (VIEW_FIELDS: already fitted and
    parsed by fit_view, so a temperature is in the link's range) goes into the page's
    session keys, a field to one key or a tuple of keys; the link, the room and the page's own
    figures then follow. The keep-or-impose rule is attention_view's, not the page's."""
    unknown = set(keys) - set(VIEW_FIELDS)
    if unknown:
        raise ValueError(f"bind_view: no view field {sorted(unknown)}; the view has {VIEW_FIELDS}")

    def on_view(view: dict) -> None:
        for field, to in keys.items():
            if view[field] is None:  # not reported (a typed sentence only when there is one)
                continue
            if field == "text":  # the box's newest sentence: one the view posted before is older
                said.take()
            for key in (to,) if isinstance(to, str) else to:
                st.session_state[key] = view[field]

    return on_view


VIEW_FIELDS = (
    "tab",
    "layer",
    "head",
    "q",
    "ltemp",
    "temp",
    "off",
    "how",
    "nopos",
    "text",
)  # what fit_view returns, and view.js reports
MAX_OFF = 512  # heads a report may switch off (3 kinds x 2 layers x 4 heads here; a larger model's few)


REPORT_MAX = 32  # characters of one reported field worth reading (a number, "mean")


def _reported(view: dict, name: str, parse, default):
    """view[name] read as the link reads it (parse(str)), or default with a notice."""
    raw = view.get(name, default)
    if raw is default:
        return default
    if isinstance(raw, float) and raw.is_integer() and abs(raw) < 2**53:
        raw = int(raw)  # JSON has one number type: 2.0 is the layer 2
    ok = isinstance(raw, (int, float, str)) and not isinstance(raw, bool) and len(str(raw)) <= REPORT_MAX
    try:
        if ok:
            return parse(str(raw))
    except (ValueError, TypeError, OverflowError):
        pass
    state.notice(t("bad_url_value", name=md(name), value=echo(str(raw)[:REPORT_MAX])))
    return default


def same_view(a: dict | None, b: dict | None) -> bool:
    """Whether two views show the same (a is often the browser's raw report: anything may be in it)."""
    if not isinstance(a, dict) or not isinstance(b, dict):
        return False
    keys = ("tab", "layer", "head", "q", "how")
    try:
        # False for NaN; the knobs a view without them has are their defaults
        close = all(abs(float(a.get(k, 1)) - float(b.get(k, 1))) < 5e-4 for k in ("ltemp", "temp"))
    except (TypeError, ValueError, OverflowError):
        return False
    # a raw report's off may be anything: compared as it came, never converted
    same_knobs = (a.get("off") or []) == (b.get("off") or []) and (a.get("nopos") is True) == (b.get("nopos") is True)
    return (
        close
        and same_knobs
        and all(a.get(k, "zero" if k == "how" else None) == b.get(k, "zero" if k == "how" else None) for k in keys)
    )


@st.cache_data(show_spinner=False, max_entries=16)
def payload(weights: np.ndarray, mask: np.ndarray | None, meta_json: str, layer: int, sources: tuple = ()) -> bytes:
    """pack(), cached: a rerun with the same trace and view reuses the bytes (and so Streamlit's
    message cache recognises the element).

    The header names the weights by a digest: the browser skips a payload whose header it has
    already loaded, and two runs with the same labels, shape and view but other weights (another
    model with the same tokenizer, another head sent alone) must not keep the first one's."""
    digest = hashlib.sha1(weights.tobytes())
    for part in (mask, *(dict(s).get("weights") for s in sources)):
        digest.update(b"|" + (b"" if part is None else np.ascontiguousarray(part).tobytes()))
    meta = {**json.loads(meta_json), "weights_id": digest.hexdigest()[:16]}
    return pack(weights, mask, meta, layer, sources=[dict(s) for s in sources])


def live_model(
    name: str,
    kind: str,
    box: str | None,
    text: str,
    knobs: bool = True,
    runs: list[dict] | None = None,
    whole: int = 0,
) -> dict | None:
    """What the attention view needs to run NAME in the browser (ui/browser_model), or None where it
    cannot be handed to the browser (a Hugging Face model, a snapshot, no graph published yet, the
    in-browser model turned off): then the chart is the server's and says so. box: the sidebar's
    sentence box's widget key (the view listens to it); knobs: the view offers every layer's T,
    heads off and positions off; whole: a number of tokens, where the page shows a sentence of at
    most that many nowhere but in this view (no output line, token legend or figure of its own), so
    such a sentence applied from the box needs no page run while the browser draws it
    (ui.run.sentence_in_browser); 0: the page draws the sentence elsewhere too.

    runs (a row of panels): the runs the browser makes for the view's sources, each {"src": i,
    "model": a name (None: NAME), "text": a sentence (None: the box's), "temp": T in every layer,
    "nopos": positions off}, source 0 first (compare's A and B); None where any of their models
    cannot be handed to the browser. Without runs, source 0 is NAME on the box's sentence."""
    runs = [{"src": 0}] if runs is None else [dict(r) for r in runs]
    if not all(browser_model.available(r.get("model") or name) for r in [{"model": name}, *runs]):
        return None
    from model.runner import MAX_CHARS
    from model.tokenizer import BOS, EOS, TO_EN, TO_ZH

    return {
        "base": static_url.static_base(),
        "model": name,
        "kind": kind,
        "box": box,
        "text": text,
        "knobs": bool(knobs),
        "whole": int(whole) if box else 0,
        "max_chars": MAX_CHARS,
        "special": {"bos": BOS, "eos": EOS, "to_en": TO_EN, "to_zh": TO_ZH},
        "runs": [
            {
                "src": int(r["src"]),
                "model": r.get("model") or name,
                "text": r.get("text"),
                "temp": float(r.get("temp", 1.0)),
                "nopos": bool(r.get("nopos", False)),
            }
            for r in runs
        ],
    }


def cannot_run(key: str) -> bool:
    """Whether the view of this key reported that the reader's browser cannot run the model (no
    WebAssembly, too little memory, the graph failed to load: view.js's report carries cannot)."""
    return (reported(key) or {}).get("cannot") is True


def reported(key: str) -> dict | None:
    """The view the component last reported for this key, or None."""
    value = st.session_state.get(key)
    try:
        view = value.get("view") if value is not None else None
    except AttributeError:
        return None
    return view if isinstance(view, dict) else None


def attention_view(
    weights: np.ndarray,
    mask: np.ndarray | None,
    *,
    kind: str,
    q_tokens: list[str],
    k_tokens: list[str],
    q_labels: list[str],
    q_written: list[str] | None,
    view: dict,
    key: str,
    on_view=None,
    present: bool = False,
    temperature: bool = True,
    compact: bool = False,
    sources: tuple = (),
    panels: list | None = None,
    mean: bool = True,
    first_layer: int = 0,
    head_as: int | str | None = None,
    live: dict | None = None,
):
    """Mount the view for one kind's (layers, heads, queries, keys) weights. view: the page's
    {tab, layer, head, q, ltemp, ...} (VIEW_FIELDS); on_view(view): called (as a widget callback, before the rerun)
    with the view the reader left, fitted to these weights. temperature: show the slider (off
    where the weights are not one softmax, e.g. merged words); compact: the heatmap and table only
    (no tabs, layer or head pickers: the home page).

    A row of heatmaps (the temperature page's T = 1 beside T, compare's A, B and B - A): sources,
    further runs as dicts of "weights" (layers, heads, Q', K'), "mask", "q_labels", "k_tokens"
    (source i >= 1; the weights above are source 0), and panels, one dict per heatmap: "title"
    and "short" (the table's column), then either "src" (a source) with "temp" ("view": the
    slider's T, computed in the browser; a number: fixed) and optionally "hot" (a source the server
    computed at T = "hot_t", drawn while the slider is there) with "scope" ("all" or the layer the
    server applied T in), "exact" (the layers where the browser's T in this attention alone is
    what the scope applies: its note is then "browser", else "pending") and "notes" (what the note under the slider says: "one", "browser",
    "server", "pending"; {t}, {layer} filled there), or "diff": [b, a] (panel b minus panel a on
    the rows and keys both have, on the diverging scale from -1 to +1). Panels show the heatmap
    tab only; mean: the head picker offers the mean of the heads.

    A slice of the model is numbered as the model numbers it: first_layer, the model's layer (from
    0) that weights[0] is (home sends only its last layer); head_as, the head a reader is told
    (from 1, or "mean") where weights hold one head already chosen (a lesson's reveal).

    live: live_model(...)'s answer, or None: the browser runs the model itself (live.js) for the
    sidebar's sentence as it is typed and the view's knobs (temp, off, how, nopos in view), which
    the page has applied to these weights too (the server stays what a link, a room and the
    fallback show)."""
    shape = weights.shape
    server_view = fit_view(view, shape)
    labels_id = hashlib.sha1(
        json.dumps([kind, list(shape), q_labels, k_tokens], ensure_ascii=False).encode()
    ).hexdigest()[:16]
    last = st.session_state.get(f"_{key}_imposed")
    if (
        last is not None
        and last.get("trace") == labels_id  # a new sentence, kind or model: its view is the page's
        and server_view["layer"] in last["layers"]  # else the browser lacks that layer's weights
        and same_view(reported(key), server_view)
    ):
        shown = last["view"]  # the reader's own view, reported back: resend the same bytes
    else:
        shown = server_view
        extra = sum(np.asarray(s["weights"]).size * 4 for s in sources)
        layers = layers_to_send(shape, shown["layer"], extra_bytes=extra)
        st.session_state[f"_{key}_imposed"] = {"view": shown, "trace": labels_id, "layers": layers}
    meta = {
        "key": key,
        "kind": kind,
        # which attention of the layer a browser-side T acts on: the translator's "layer n" holds three
        # (encoder self, decoder self, cross), and the notes name the one shown (issue 46)
        "attention": t(f"av_attention_{kind}") if kind in ("encoder", "decoder", "cross") else "",
        "trace": labels_id,
        "q_tokens": list(q_tokens),
        "k_tokens": list(k_tokens),
        "q_labels": list(q_labels),
        "q_written": None if q_written is None else list(q_written),
        "strings": strings(q_written is not None),
        "present": bool(present),
        "temperature": bool(temperature),
        "compact": bool(compact),
        "mean": bool(mean),
        "first_layer": int(first_layer),
        "head_as": head_as,
        "view": shown,
        # the knobs these weights were computed with (the view above may be the one last imposed)
        "served": {k: server_view[k] for k in ("temp", "off", "how", "nopos")},
    }
    if panels:
        meta["panels"] = panels
    if live:
        meta["live"] = live
        # the browser draws the box's sentence here, unless it reported that it cannot run the
        # model (then every sentence is a page run: the server's chart)
        if live.get("whole") and not cannot_run(key):
            run.sentence_in_browser(live["box"], live["whole"])
    data = payload(
        np.ascontiguousarray(weights, dtype=np.float32),
        None if mask is None else np.asarray(mask, bool),
        json.dumps(meta, ensure_ascii=False, sort_keys=True),
        shown["layer"],
        tuple(tuple(sorted(src.items())) for src in sources),
    )

    def changed():
        new = reported(key)
        if new is not None and on_view is not None:
            on_view(fit_view(new, shape))

    return _render(key=key, data=data, on_view_change=changed)

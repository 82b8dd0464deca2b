"""The shared sidebar (model, sentence, language, device) and the Context every page reads.

app.py calls sidebar() on every run before the page runs; pages call current() and get the
same settings, so no page re-declares them.
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass

import streamlit as st

import model
from model import device as devices
from model import hf as hf_models
from model.errors import InputError, ModelFileError

from . import cache, classroom, layout, run, said, slots, state, streamlit_internals, timeline
from .i18n import LANGS, lang_from_locale, t
from .messages import notice_text
from .safe import md, short
from .widgets import show_empty_hint, show_input_error, show_model_notices

DEFAULT_TEXT = "The cat sat on the mat"
MAX_URL_TEXT = 500  # longer sentences still work; they just are not put in the address bar
TEXT_KEY = state.TEXT_KEY
_LOADED: set[tuple[str, str]] = set()  # (model, device) loaded once in this process: no spinner needed


@dataclass(frozen=True)
class Context:
    lang: str
    model: str
    text: str
    device: str  # what the user asked for: "auto" or "cpu"
    presentation: bool

    def runner(self):
        """The cached model, or None after showing a clear message (missing / corrupt file, or a
        real pretrained model still loading in the background)."""
        try:
            if hf_models.pretrained.is_packaged(self.model):
                runner = cache.pretrained_ready(self.model, self.device)
                if runner is None:
                    still_loading(self.model, self.device)
                return runner
            if (self.model, self.device) in _LOADED:
                return cache.runner(self.model, self.device)
            # the first load in this process (a Hugging Face model: seconds); st.spinner shows its
            # message only if the load takes longer than 0.5 s
            with st.spinner(t("loading_model", name=model_label(self.model))):
                runner = cache.runner(self.model, self.device)
            _LOADED.add((self.model, self.device))
            return runner
        except ModelFileError as e:
            st.error(t("model_file_error", path=md(e.path), command=e.rebuild), icon="🚫")
        except InputError as e:
            show_input_error(e)
        return None

    def trace(self, text: str | None = None, **settings):
        """The Trace of text (default: the sidebar's sentence), or None after showing why not."""
        text = self.text if text is None else text
        if not text.strip():
            show_empty_hint(self.presentation)
            return None
        if self.runner() is None:
            return None
        try:
            tr = cache.trace(self.model, self.device, text, **settings)
        except InputError as e:
            show_input_error(e)
            return None
        show_model_notices(tr.notices)
        return tr


def still_loading(name: str, device: str) -> None:
    """The page's place for a real pretrained model that is loading in its own thread: a line that
    says so, redrawn every 2 s until the model is there, then the whole page again. The project's
    own models stay a click away in the sidebar meanwhile."""

    @st.fragment(run_every=2.0)
    def wait():
        if load_finished(name, device):
            st.rerun(scope="app")
        st.info(t("pretrained_loading", name=model_label(name)), icon="⏳")

    wait()


def load_finished(name: str, device: str) -> bool:
    """Whether a background load is over: loaded, or failed (the whole page then runs again, and
    its runner() says why in the reader's language: never the error box inside the fragment)."""
    try:
        return hf_models.pretrained.ready(name, device) is not None
    except InputError:
        return True


def model_label(name: str) -> str:
    """A model's name as the reader sees it, for every name a link can hold: a shipped model, a
    training snapshot ("translator@0"), a Hugging Face model. Every page labels models with it."""
    if "@" in name and not hf_models.is_hf(name):  # a training snapshot: "translator (untrained, step 0)"
        return timeline.snapshot_label(name, model_label)
    if hf_models.is_hf(name):
        return t("model_hf") if name == hf_models.PREFIX else "🤗 " + short(name[len(hf_models.PREFIX) :], 40)
    return t(f"model_{name.replace('-', '_')}")  # shipped and real pretrained models alike


# -- Hugging Face models (model/hf/), offered when transformers is installed ----------------------


def _parse_model(raw: str) -> str:
    """A shipped model, or hf:NAME where NAME is one the operator offers (model/hf/ allowed()):
    a link names a model, never a path or a hub id."""
    if raw.strip()[: len(hf_models.PREFIX)].lower() == hf_models.PREFIX:  # hf:, HF:, " hf:"
        name = hf_models.canonical(raw)
        if name and name in hf_models.suggestions():
            return hf_models.PREFIX + name
        raise ValueError(raw)
    if "@" in raw:
        return timeline.parse_snapshot(raw)
    return state.choice(model.NAMES + tuple(hf_models.pretrained_offered()))(raw)


def _model_picked() -> None:
    """Choosing "Hugging Face…" starts from the operator's first model (a packaged one works offline)."""
    if st.session_state.get("model") == hf_models.PREFIX:
        first = (hf_models.suggestions() or [""])[0]
        st.session_state["model"] = hf_models.PREFIX + first if first else hf_models.PREFIX


def _hf_named() -> None:
    name = hf_models.canonical(st.session_state.get("_hf_name") or "")
    if name in hf_models.suggestions():
        st.session_state["model"] = hf_models.PREFIX + name


def _hf_picker() -> None:
    """The model selectbox's options, and under it, when an hf: model is chosen, the names of the
    Hugging Face models the operator offers (no typed names: a visitor never names a path)."""
    current = st.session_state["model"]
    options = list(model.NAMES) + hf_models.pretrained_offered() + timeline.snapshot_options(current)
    if hf_models.available():
        options += ([current] if hf_models.is_hf(current) and current != hf_models.PREFIX else []) + [hf_models.PREFIX]
    st.selectbox(
        t("model"), options, format_func=model_label, key="model", help=t("model_help"), on_change=_model_picked
    )
    _real_model_notes(current)
    if hf_models.is_hf(current):
        name = current[len(hf_models.PREFIX) :]
        st.session_state["_hf_name"] = name or None
        st.selectbox(
            t("hf_name"),
            ([name] if name else []) + [n for n in hf_models.suggestions() if n != name],
            key="_hf_name",
            on_change=_hf_named,
            help=t("hf_name_help"),
        )


def _real_model_notes(name: str) -> None:
    """Under a real pretrained model, on every page: its attention's shape as its config says
    (grouped-query attention, sliding-window and global layers), once it is loaded; and where its
    licence asks to be passed on (Gemma: the Gemma Terms of Use), the terms as its package ships
    them, a click away."""
    if not hf_models.pretrained.is_packaged(name):
        return
    runner = hf_models.pretrained.loaded(name, st.session_state.get("device"))
    if runner is not None:
        st.caption(shape_text(runner.config))
    path = hf_models.pretrained.terms_path(name)
    if path is None:
        return
    st.download_button(
        t("model_terms"),
        data=_file_bytes(str(path)),
        file_name=path.name,
        mime="text/html",
        key="_model_terms",
        help=t("model_terms_help"),
        icon="📜",
    )


@functools.lru_cache(maxsize=4)
def _file_bytes(path: str) -> bytes:
    """A package's file, read once per process: the sidebar runs on every rerun (168 KB of terms)."""
    with open(path, "rb") as fh:
        return fh.read()


def shape_text(c) -> str:
    """What a real model's attention is made of, from its config, in the reader's language."""
    parts = [t("real_shape_heads", layers=c.num_layers, heads=c.num_heads)]
    kv = c.num_kv_heads or c.num_heads
    if kv < c.num_heads:
        parts.append(t("real_shape_gqa", heads=c.num_heads, kv=kv, group=c.num_heads // kv))
    types = tuple(getattr(c, "layer_types", ()) or ())
    if "local" in types:
        glob = [i + 1 for i, x in enumerate(types) if x == "global"]
        parts.append(
            t(
                "real_shape_window",
                layers=", ".join(map(str, glob)) or "—",
                n_local=types.count("local"),
                window=getattr(c, "sliding_window", 0),
            )
        )
        if 0 < int(getattr(c, "max_seq_len", 0) or 0) <= int(getattr(c, "sliding_window", 0) or 0):
            # no text here reaches past the window: every layer sees all of it (Gemma: 256 against 512)
            parts.append(t("real_shape_window_uncut", max_len=c.max_seq_len))
    return " ".join(parts)


def _text_box() -> str:
    """The sentence box's widget key. The sentence itself lives in TEXT_KEY; the box shows it under
    a key that changes whenever something other than the box changed the sentence (the teacher's
    room, a suggestion, a link): a browser keeps what the reader typed but did not apply in a box it
    already has, so only a new box shows the new sentence instead of silently keeping the old."""
    n = st.session_state.get("_text_box_n", 0)
    room = st.session_state.get("_room_version", 0)  # a room's move clears the session: a new box
    box = f"_text_box_{room}_{n}"
    if box in st.session_state and st.session_state[box] != st.session_state[TEXT_KEY]:
        st.session_state["_text_box_n"] = n = n + 1
        box = f"_text_box_{room}_{n}"
    if box not in st.session_state:
        st.session_state[box] = st.session_state[TEXT_KEY]
    return box


def text_box_key() -> str:
    """The sidebar's sentence box's widget key as this run drew it (the attention view listens to
    the box's typing in the browser: Streamlit marks its element st-key-KEY)."""
    return f"_text_box_{st.session_state.get('_room_version', 0)}_{st.session_state.get('_text_box_n', 0)}"


def _typed(box: str) -> None:
    """The box's text applied: the first TEXT_READ_MAX characters, and a notice when there were more
    (a paste of a page: the box has no max_chars, whose browser side drops such a paste whole and
    reruns the old sentence without a word). A box a room's move cleared meanwhile (its key gone
    with the session's other keys, ui.classroom._apply) applies nothing: the teacher's sentence wins."""
    typed = st.session_state.get(box)
    if not isinstance(typed, str):
        return
    said.take()  # a sentence the view posted before this one is older: this one wins
    if len(typed) > state.TEXT_READ_MAX:
        state.notice(t("sentence_cut", n=len(typed), max=state.TEXT_READ_MAX))
    st.session_state[TEXT_KEY] = typed[: state.TEXT_READ_MAX]
    st.session_state["_close_sidebar_on_phone"] = True


PHONE_MAX_PX = layout.PHONE_MAX_PX
# After Apply on a phone the sidebar, which covers the page there, closes so the student sees the
# result (a script run once in the browser; a wider screen keeps its sidebar open). Streamlit's own
# collapse button is clicked, so its state and aria-expanded stay right.
_CLOSE_SIDEBAR_JS = """<script>/*{n}*/
if (window.innerWidth <= {w}) {{
  const b = document.querySelector("[data-testid='stSidebarCollapseButton'] button");
  const open = document.querySelector("[data-testid='stSidebar'][data-collapsed='false']");
  if (b && open) b.click();
}}
</script>"""


def _close_sidebar_on_phone(applied: bool) -> None:
    """Apply was pressed (or the box's text applied with Ctrl+Enter / leaving it): close the sidebar
    on a phone."""
    if not (st.session_state.pop("_close_sidebar_on_phone", False) or applied):
        return
    n = st.session_state["_close_sidebar_n"] = st.session_state.get("_close_sidebar_n", 0) + 1
    st.html(_CLOSE_SIDEBAR_JS.format(n=n, w=PHONE_MAX_PX), unsafe_allow_javascript=True)


def _link_text(text: str) -> str | None:
    """The sentence as the link carries it (none past MAX_URL_TEXT characters)."""
    return text if len(text) <= MAX_URL_TEXT else None


def _take_said() -> None:
    """The sentence the attention view posted since this session's last run (ui/said.py): applied
    as a sentence left in the box is (_typed), its link written by this run."""
    text = said.take()
    if text is not None:
        st.session_state[TEXT_KEY] = text


@st.fragment
def _sentence_box() -> None:
    """The sentence box and Apply, a fragment of their own: applying a sentence (leaving the box,
    Ctrl+Enter, Apply) reruns this first, and the whole page only where the server must draw the
    sentence (_applied)."""
    if streamlit_internals.fragment_rerun():
        _take_said()
    box = _text_box()
    st.text_area(
        t("sentence"),
        key=box,
        height=90,
        help=t("sentence_help"),
        on_change=_typed,
        args=(box,),
    )
    applied = st.button(t("sentence_apply"), key="_apply_text", help=t("sentence_apply_help"))
    _close_sidebar_on_phone(applied)
    if streamlit_internals.fragment_rerun():  # the box's own rerun, not a run of the whole app
        _applied(box)


def _applied(box: str) -> None:
    """A sentence applied from the box in its own rerun. Where the page shown draws this sentence
    only in views the reader's browser computes (run.sentence_in_browser: our own model's graph,
    run in the browser as the reader typed), the server writes the link and nothing else: no page
    run, no trace, no chart sent back (issue 48: a class typing costs the server a fraction of a
    page run). Everywhere else the whole page runs, as before: another page or tab, a browser that
    reported it cannot run the model, the teacher of a room (whose run publishes the room's view),
    a sentence the models warn about otherwise than about the one shown (the warnings are the
    server's), a paste cut to the box's limit (its notice). The page's own fragments catch up when
    they next run (partial: the sentence differs from their Context's)."""
    ctx = st.session_state.get("_ctx")  # the last run of the app's (ui.run.begin_run)
    text = st.session_state.get(TEXT_KEY)
    if ctx is None or not isinstance(text, str):
        return
    if text == ctx.text:  # the sentence the page shows (Apply again, or typed back after a cheap one)
        state.set_url(text=_link_text(text))  # the link may still hold the one applied before
        return
    claim = run.box_in_browser()
    cheap = (
        claim is not None
        and claim[0] == box
        and not classroom.is_teacher()
        and len(st.session_state.get(box) or "") <= state.TEXT_READ_MAX
        and said.reads_alike(ctx, text, claim[1])
    )
    if not cheap:
        st.rerun(scope="app")
    state.set_url(text=_link_text(text))


def sidebar() -> Context:
    if not run.folder_mode_left():
        # the first run in this process leaves the pages/-folder mode before any widget exists: in
        # that mode app.py runs under another page id, so the sidebar's widgets would be new
        # widgets on the next run and the first visitor's first click lost its sentence and model
        run.leave_folder_mode()
    state.begin_run()
    if "lang" not in st.session_state and not st.query_params.get("lang"):
        st.session_state["lang"] = lang_from_locale(getattr(st.context, "locale", None))
    state.url_param("lang", st.session_state.get("lang", "en"), state.choice(LANGS), key="lang")
    state.url_param("model", "translator", _parse_model, key="model")
    _take_said()  # before the link: a link opened since (the browser's Back) wins over it
    state.url_param("text", DEFAULT_TEXT, state.text, key=TEXT_KEY)
    state.url_param("device", "auto", state.choice(("auto", "cpu")), key="device")
    state.url_param("present", False, state.flag, key="present")

    if len(st.session_state[TEXT_KEY]) > state.TEXT_READ_MAX:  # a client of its own can send more than the box takes
        st.session_state[TEXT_KEY] = st.session_state[TEXT_KEY][: state.TEXT_READ_MAX]
    with st.sidebar:
        st.radio(
            t("language"),
            list(LANGS),
            format_func=LANGS.get,
            key="lang",
            horizontal=True,
            # on a phone the sidebar covers the page: closed after a language is picked, as after Apply
            on_change=lambda: st.session_state.update(_close_sidebar_on_phone=True),
        )
        _hf_picker()
        # Streamlit's own "Press Ctrl+Enter to apply" is English in every language: hidden (our
        # constant CSS), said in the reader's language by the help, and a labelled button applies too
        # (the same element tells the attention view where it may post a sentence: ui/said.py)
        st.html(f"<style{said.marker()}>[data-testid='InputInstructions'] {{display: none;}}</style>")
        _sentence_box()
        # what a teacher needs first stays on the first screen at 1280 x 800 (issue 50.7): the
        # sentence, Apply, presentation mode and the classroom above the device's settings
        st.toggle(t("presentation_mode"), key="present", help=t("presentation_help"))
        classroom.sidebar_panel()
        dev, note = devices.pick(st.session_state["device"])
        st.toggle(
            t("force_cpu"),
            value=st.session_state["device"] == "cpu",
            key="_force_cpu",
            on_change=lambda: st.session_state.update(device="cpu" if st.session_state.get("_force_cpu") else "auto"),
        )
        st.caption(t("device_in_use", device=dev.type.upper()) + (f" · {notice_text(note)}" if note else ""))

    text = st.session_state[TEXT_KEY]
    state.set_url(
        lang=st.session_state["lang"],
        model=st.session_state["model"],
        text=_link_text(text),
        device=None if st.session_state["device"] == "auto" else "cpu",
        present=st.session_state["present"] or None,
    )
    ctx = Context(
        st.session_state["lang"],
        st.session_state["model"],
        text,
        st.session_state["device"],
        st.session_state["present"],
    )
    run.begin_run(ctx)
    return ctx


def partial(fn):
    """A page's interactive part as a Streamlit fragment: a widget inside it (a layer, a head, a
    slider, Next) reruns only fn, not app.py, the sidebar and the rest of the page, so the reader
    sees it redrawn in a fraction of the time. fn gets what it needs as arguments (they are kept
    from the last full run); current() still answers inside it, and a teacher's room still follows
    (app.py publishes after a full run only)."""

    @st.fragment
    @functools.wraps(fn)
    def part(*args, **kwargs):
        rerun = streamlit_internals.fragment_rerun()  # a partial rerun (app.py is not running)
        if rerun:
            _take_said()
            ctx = run.current()
            # a sentence applied without a page run (the sentence box's _applied): the page's
            # arguments hold the old one's trace, so the whole page runs now
            if ctx is not None and st.session_state.get(TEXT_KEY, ctx.text) != ctx.text:
                st.rerun(scope="app")
            run.forget_sentence_in_browser()  # fn says so again if it still draws it there
        # a partial rerun runs in a run slot as a full run does (app.py); inside a full run it holds one
        hold = contextlib.nullcontext() if slots.RUN_SLOTS.held() else slots.RUN_SLOTS
        try:
            with hold:
                fn(*args, **kwargs)
        except slots.OverBudget as e:  # a real model's trace in a partial rerun: app.py's notice, not an error box
            st.warning(t("heavy_over_budget", seconds=round(e.retry_after)), icon="⏳")
            return
        if rerun:
            classroom.publish_again()

    @functools.wraps(fn)
    def whole(*args, **kwargs):
        # presentation mode: a plain part of the page (full reruns), so its main chart can go into
        # the slot above the page's controls (ui.layout.main_area), outside any fragment
        ctx = run.in_app_run()
        return fn(*args, **kwargs) if ctx is not None and ctx.presentation else part(*args, **kwargs)

    return whole

"""The page explorer: operate every control a page draws and check what the user then sees.

Controls are enumerated from what AppTest finds on the page after each run (its widgets and its
keyed tab bars), never from a list kept by hand, so a control added to a page is explored the day
it is added. After every action `problems()` checks:

- no exception and no Streamlit error box (a wrong lesson answer's ❌ box is the one error box the
  app means to draw);
- in 中文 mode, no English sentence and no key missing from the translation table;
- every keyed control shows the value the page's state holds (the view drawn), and a control
  whose value lives in the link shows what the link says (ui/state.url_param records which key
  each link name fills);
- no chart axis that plotly would label with an SI prefix while it shows counts.

A run that operated no control explored nothing, and says so (`nothing_operated`), unless the
page states why it has none: a module-level `NO_CONTROLS = "why"` in the page file.

tests/test_explore.py runs it on every page, every shipped model and both languages.
"""

from __future__ import annotations

import functools
import json
import random
import re
from dataclasses import dataclass
from typing import Any

from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import (
    Block,
    Button,
    ButtonGroup,
    Checkbox,
    Multiselect,
    NumberInput,
    Radio,
    Selectbox,
    SelectSlider,
    Slider,
    Toggle,
    Widget,
)

from tests import apptest
from ui import i18n
from ui import timeline as ui_timeline

# sidebar controls that are the link's own subject (model, sentence, language): the explorer
# opens a page once per model and language instead of flipping them from inside a page
SIDEBAR_SKIP = {"model", "lang", "_hf_name", "text", "_apply_text", "_force_cpu", "present"}
ERROR_ICONS_MEANT = {"❌"}  # lessons: "your prediction was wrong"

# words that are the same in a Chinese text (names, formulas, code)
_NAMES = {
    "gpt",
    "rope",
    "alibi",
    "local",
    "bert",
    "bertviz",
    "t5",
    "llama",
    "softmax",
    "layernorm",
    "flashattention",
    "transformer",
    "transformers",
    "hugging",
    "face",
    "minilm",
    "kv",
    "csv",
    "json",
    "png",
    "svg",
    "qr",
    "id",
    "cpu",
    "cuda",
    "gpu",
    "mps",
    "ffn",
    "mlp",
    "relu",
    "gelu",
    "pe",
    "sin",
    "cos",
    "exp",
    "log",
    "max",
    "min",
    "argmax",
    "top",
    "the",
    "nats",
    "ms",
    "mb",
    "streamingllm",
    "sink",
    "online",
    "translator",
    "attention",
    "is",
    "all",
    "you",
    "need",
}
_FUNCTION_WORDS = {"the", "a", "an", "is", "are", "was", "this", "that", "of", "to", "in", "on", "with", "for"}
_FUNCTION_WORDS |= {"and", "or", "not", "be", "it", "its", "has", "have", "by", "from", "at", "as", "can"}
_WORD = re.compile(r"[A-Za-z][a-z]{1,}")
_RUN = re.compile(r"(?:\b[A-Za-z][a-z]+\b[ ,]+){3,}\b[A-Za-z][a-z]+\b")


@dataclass(frozen=True)
class Action:
    """One thing a user does: set the control `key` (of `kind`) to `value`, or click it."""

    kind: str
    key: str
    value: Any = None

    def __str__(self) -> str:
        return f"{self.kind}:{self.key}={self.value!r}"


def widgets(at: AppTest, sidebar: bool = False) -> list[Widget]:
    """Every keyed widget the page drew (main area; the sidebar's too when asked)."""
    out: list[Widget] = []

    def walk(node):
        for child in getattr(node, "children", {}).values():
            if isinstance(child, Widget):
                if child.key and not child.key.startswith("$$"):
                    out.append(child)
            elif isinstance(child, Block):
                walk(child)

    walk(at.main)
    if sidebar:
        walk(at.sidebar)
    return [w for w in out if w.key not in SIDEBAR_SKIP]


def tab_bars(at: AppTest) -> list[tuple[str, list[str]]]:
    """The keyed tab bars (st.tabs(..., key=, on_change="rerun")): (key, labels)."""
    out = []

    def walk(node):
        for child in getattr(node, "children", {}).values():
            if isinstance(child, Block):
                proto = getattr(child, "proto", None)
                tc = getattr(proto, "tab_container", None) if proto is not None else None
                key = getattr(tc, "query_param_key", "") if tc is not None else ""
                if child.type == "tab_container" and key:
                    labels = [c.label for c in child.children.values() if getattr(c, "type", "") == "tab"]
                    out.append((key, labels))
                walk(child)

    walk(at.main)
    return out


def actions(at: AppTest) -> list[Action]:
    """Every action the page offers now: each option of each choice, each tab, each button,
    sliders at min / middle / max, number inputs at their bounds, toggles both ways."""
    out: list[Action] = []
    for w in widgets(at):
        if getattr(w, "disabled", False):
            continue
        if isinstance(w, (Selectbox, Radio, ButtonGroup)):
            n = len(w.options)
            out += [Action("pick", w.key, i) for i in range(n)]
        elif isinstance(w, Multiselect):
            n = len(w.options)
            out += [Action("multi", w.key, v) for v in ((), (0,), tuple(range(n)))] if n else []
        elif isinstance(w, SelectSlider):
            n = len(w.options)
            out += [Action("pick", w.key, i) for i in sorted({0, n // 2, n - 1})] if n else []
        elif isinstance(w, Slider):
            lo, hi = w.min, w.max
            mid = lo + (hi - lo) / 2 if isinstance(lo, float) or isinstance(hi, float) else (lo + hi) // 2
            out += [Action("set", w.key, v) for v in dict.fromkeys((lo, mid, hi))]
        elif isinstance(w, NumberInput):
            lo, hi = w.min, w.max
            out += [Action("set", w.key, v) for v in dict.fromkeys(x for x in (lo, hi) if x is not None)]
        elif isinstance(w, (Checkbox, Toggle)):
            out += [Action("set", w.key, not w.value)]
        elif isinstance(w, Button):
            out += [Action("click", w.key)]
    for key, labels in tab_bars(at):
        out += [Action("tab", key, label) for label in labels]
    return out


def _find(at: AppTest, key: str) -> Widget | None:
    for w in widgets(at, sidebar=True):
        if w.key == key:
            return w
    return None


def do(at: AppTest, action: Action) -> bool:
    """Do action on the page as it is now and rerun; False when the control is gone or disabled."""
    if action.kind == "tab":
        labels = dict(tab_bars(at)).get(action.key)
        if labels is None or action.value not in labels:
            return False
        at.session_state[action.key] = action.value
        at.run()
        return True
    w = _find(at, action.key)
    if w is None or getattr(w, "disabled", False):
        return False
    if action.kind == "click":
        w.click()
    elif action.kind == "pick":
        if action.value >= len(w.options):
            return False
        _pick(w, action.value)
    elif action.kind == "multi":
        _pick(w, *[i for i in action.value if i < len(w.options)])
    else:
        w.set_value(action.value)
    at.run()
    return True


def _pick(w: Widget, *indices: int) -> None:
    """Choose options by position, as a click does: the browser sends the shown (formatted)
    option, which the page's own format_func maps back; AppTest's set_value wants the page's raw
    value, which it does not keep, so the state the browser would send is set directly."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    ws = WidgetState()
    ws.id = w.id
    shown = [w.options[i] for i in indices]
    if isinstance(w, (Radio, Selectbox)):
        ws.string_value = shown[0]
    else:  # select sliders, pills, segmented controls, multiselect: the shown options
        ws.string_array_value.data[:] = shown
    w.__class__ = type(type(w).__name__, (type(w),), {"_widget_state": property(lambda self: ws)})


# -- what a user must never see -----------------------------------------------------------------
def shown_text(at: AppTest) -> list[str]:
    """The page's prose: markdown, captions, notices, headings and control labels."""
    out = []
    for kind in ("markdown", "caption", "warning", "info", "success", "error", "title", "header", "subheader"):
        out += [e.value for e in at.get(kind)]
    out += [w.label for w in widgets(at) if getattr(w, "label", None)]
    for w in widgets(at):
        if isinstance(w, (Selectbox, Radio, ButtonGroup)):
            out += [str(o) for o in w.options]
    return [str(s) for s in out if s]


@functools.cache
def _vocabulary() -> frozenset[str]:
    """The tokenizer's pieces of letters: what a model can write. A run of them is what a model
    wrote (an untrained translator's 'qui basket vis monkeys'), data, not the app's own English."""
    import sentencepiece as spm

    from model.registry import weights_dir

    sp = spm.SentencePieceProcessor(model_file=str(weights_dir() / "tokenizer.model"))
    pieces = (sp.id_to_piece(i) for i in range(sp.get_piece_size()))
    return frozenset(w.lower() for w in (p.lstrip("\u2581") for p in pieces) if w.isascii() and w.isalpha())


def _english_sentences(texts: list[str], data_words: set[str]) -> list[str]:
    found = []
    vocab = _vocabulary()
    for text in texts:
        clean = re.sub(r"`[^`]*`|\$[^$]*\$|https?://\S+|\*\*|<[^>]+>|\([^)]*\)", " ", text)
        for m in _RUN.finditer(clean):
            words = [w.lower() for w in _WORD.findall(m.group(0))]
            own = [w for w in words if w not in data_words and w not in _NAMES]
            # the app's own prose has function words; a model's output (an untrained model's word
            # salad) may have none, and a run of the tokenizer's own pieces is what a model wrote
            if len(own) >= 3 and set(words) & _FUNCTION_WORDS and not all(w in vocab for w in own):
                found.append(m.group(0).strip())
    return found


def _data_words(at: AppTest) -> set[str]:
    """Words that are data in any language: the sentence typed, the model's name, the tokens."""
    text = str(at.session_state["text"]) if "text" in at.session_state else ""
    words = {w.lower() for w in _WORD.findall(text)}
    words |= (
        {w.lower() for w in _WORD.findall(str(at.session_state["model"]))} if "model" in at.session_state else set()
    )
    return words | _lesson_sentence_words()


@functools.cache
def _lesson_sentence_words() -> frozenset[str]:
    """The words of the built-in lessons' sentences: data in the model's language, which the lesson
    pages and the editor show as they are in either reader's language (the real model's lesson reads
    English sentences outside the corpus)."""
    import tomllib

    from lessons import files

    words = set()
    for name in files.BUILTIN:
        for step in tomllib.loads((files.BUILTIN_DIR / f"{name}.toml").read_text(encoding="utf-8")).get("step", []):
            sentences = step.get("sentence", [])
            for sentence in [sentences] if isinstance(sentences, str) else sentences:
                words |= {w.lower() for w in _WORD.findall(str(sentence))}
    return frozenset(words)


def count_axis_problems(fig: dict, name: str = "chart") -> list[str]:
    """Axes that show counts (integer-valued bars) without integer ticks: plotly would pick SI
    prefixes on an empty range ("0.2n") and half-counts (0.5, 1.5) on a small one."""
    bad = []
    layout = fig.get("layout", {})
    for trace in fig.get("data", []):
        if trace.get("type") != "bar":
            continue
        horizontal = trace.get("orientation") == "h"
        values = trace.get("x" if horizontal else "y")
        values = apptest.array(values) if values is not None else None
        if values is None or values.size == 0 or values.dtype.kind not in "fiu":
            continue
        if not all(float(v).is_integer() and v >= 0 for v in values.ravel()):
            continue
        if values.max() < 2 and values.max() != 0:  # a one-hot row of weights, not counts
            continue
        axis_ref = trace.get("xaxis" if horizontal else "yaxis", "")[1:]
        axis_name = ("x" if horizontal else "y") + "axis" + str(axis_ref)
        axis = layout.get(axis_name, {})
        integer_ticks = axis.get("tickformat") in ("d", ",d") and (
            float(axis.get("dtick", 0.5)).is_integer() or axis.get("tickvals") is not None
        )
        if not integer_ticks:
            bad.append(f"{name}: {axis_name} shows counts without whole-number ticks")
    return bad


def _count_axes(at: AppTest) -> list[str]:
    bad = []
    for chart in at.get("plotly_chart"):
        try:
            fig = json.loads(chart.proto.spec)
        except (AttributeError, ValueError):
            continue
        bad += count_axis_problems(fig, chart.proto.id or "chart")
    return bad


def _disagreements(at: AppTest) -> list[str]:
    """Controls whose shown value differs from the page's state or from the link."""
    out = []
    key_of = at.session_state["_url_key_of"] if "_url_key_of" in at.session_state else {}
    names_of = {key: name for name, key in key_of.items()}
    for w in widgets(at):
        if w.key not in at.session_state:
            continue
        state_value = at.session_state[w.key]
        shown = w.value
        if isinstance(w, ButtonGroup) and isinstance(shown, list):
            shown = shown[0] if len(shown) == 1 else (None if not shown else shown)
        if shown != state_value and not (isinstance(w, Button)):
            out.append(f"{w.key}: the control shows {shown!r}, the page holds {state_value!r}")
        name = names_of.get(w.key)
        linked = at.query_params.get(name) if name else None
        if isinstance(linked, list):
            linked = linked[0] if linked else None
        if name and linked is not None and not _same(linked, state_value, w):
            out.append(f"{w.key}: the link says {name}={linked!r}, the control shows {shown!r}")
    return out


def _same(linked: str, value: Any, w: Widget) -> bool:
    from ui.state import serialize

    if serialize(value) == linked:
        return True
    if isinstance(value, (list, tuple)):  # a multiselect: comma-separated, "-" for none
        items = [] if linked in ("", "-") else linked.split(",")
        return items in ([serialize(v) for v in value], [serialize(v + 1) for v in value if isinstance(v, int)])
    if isinstance(value, int) and not isinstance(value, bool) and serialize(value + 1) == linked:
        return True  # a layer, head or step written 1-based into the link
    try:
        return float(linked) == float(value)
    except (TypeError, ValueError):
        return False


def problems(at: AppTest, lang: str) -> list[str]:
    """Everything wrong with what the page shows now."""
    out = [f"exception: {e.value}" for e in at.exception]
    out += [f"error box: {e.value}" for e in at.error if e.icon not in ERROR_ICONS_MEANT]
    if lang == "zh":
        english = _english_sentences(shown_text(at), _data_words(at))
        out += [f"English in 中文 mode: {s!r}" for s in english[:3]]
        out += [f"missing translation: {k}" for k in sorted(i18n.MISSING)]
    out += _disagreements(at)
    out += _count_axes(at)
    out += _zero_based_pickers(at)
    return out


COUNTED_KEY = re.compile(r"(^|_)(layer|head)$")  # a layer or head picker (ui/widgets.py's and the pages' own)
# the editor's pickers hold the lesson file's own numbers, which count from 1 (lessons/schema.py)
HELD_FROM_ONE = {"ed_layer", "ed_head"}


def _zero_based_pickers(at: AppTest) -> list[str]:
    """Layer and head pickers that show a reader a 0-based number: the session holds a layer or head
    from 0 and the control must say it from 1 ("Layer 1", "第 1 层"; issue 34's one convention)."""
    out = []
    for w in widgets(at):
        if (
            not isinstance(w, (Selectbox, Radio))
            or not COUNTED_KEY.search(w.key or "")
            or w.key not in at.session_state
        ):
            continue
        value = at.session_state[w.key]
        if not isinstance(value, int) or isinstance(value, bool) or w.index is None:
            continue
        shown = str(w.options[w.index])
        numbers = re.findall(r"(?<![\d.])\d+(?![\d.])", shown)
        reader = value if w.key in HELD_FROM_ONE else value + 1
        if str(reader) not in numbers or "0" in numbers:
            held = "from 1" if w.key in HELD_FROM_ONE else "from 0"
            out.append(f"{w.key}: the page holds {value} ({held}) and the control shows {shown!r}")
    return out


def open_link(page: str, params: dict[str, str], timeout: float = 120) -> AppTest:
    """A page opened from a link with exactly these parameters (as a shared link opens it)."""
    at = AppTest.from_file(apptest.APP, default_timeout=timeout)
    for k in ("model", "lang", "text"):
        if k in params:
            at.query_params[k] = params[k]
    at.run()
    at.switch_page(page)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    return at


def link_of(at: AppTest) -> dict[str, str]:
    out = {}
    for k in at.query_params:
        v = at.query_params[k]
        out[k] = v[0] if isinstance(v, list) else str(v)
    return out


@dataclass
class Found:
    page: str
    model: str
    lang: str
    path: tuple[Action, ...]
    problem: str

    def __str__(self) -> str:
        steps = " → ".join(map(str, self.path)) or "(default link)"
        return f"{self.page} [{self.model}, {self.lang}] {steps}: {self.problem}"


class Findings(list):
    """The problems one explore() run found, and how many actions it operated."""

    operated: int = 0


def why_no_controls(page: str) -> str | None:
    """The page file's own NO_CONTROLS statement (why it draws no control), read without running it."""
    why = apptest.page_statement(page, "NO_CONTROLS")
    return None if why is None else str(why)


def nothing_operated(page: str, model: str, lang: str, operated: int) -> list[Found]:
    """A problem when a run operated no control on a page that does not say why it has none: such
    a run passes while exploring nothing (a page moved onto a model it draws nothing for)."""
    if operated or why_no_controls(page):
        return []
    why = "no control operated (pick a model the page draws controls for, or state NO_CONTROLS in the page)"
    return [Found(page, model, lang, (), why)]


@functools.cache
def has_controls(page: str, model: str, lang: str) -> bool:
    """Whether the page's default view for this model offers any action."""
    _quiet()
    i18n.DEFAULT_LANG = lang
    at = open_link(page, {"model": model, "lang": lang})
    return not at.exception and bool(actions(at))


def with_controls(page: str, models: list[str], lang: str, skip: tuple[str, ...] = ()) -> str | None:
    """The first of models (in their order, not in skip) on which the page draws controls."""
    return next((m for m in models if m not in skip and has_controls(page, m, lang)), None)


def _round_robin(todo: list[Action], rng: random.Random) -> list[Action]:
    """The actions reordered: one of each control (in a seeded order), then a second of each, ..."""
    by_key: dict[str, list[Action]] = {}
    for a in todo:
        by_key.setdefault(a.key, []).append(a)
    for group in by_key.values():
        rng.shuffle(group)
    out = []
    while any(by_key.values()):
        for group in by_key.values():
            if group:
                out.append(group.pop())
    return out


def _quiet() -> None:
    """A page's exception is found by problems(); Streamlit's own traceback print is noise here."""
    import logging

    logging.getLogger("streamlit").setLevel(logging.CRITICAL)
    for name in list(logging.root.manager.loggerDict):
        if name.startswith("streamlit"):
            logging.getLogger(name).setLevel(logging.CRITICAL)


def _without_play_pause(fn):
    """The explorer checks what each state shows, not Play's pace (tests/browser/test_timeline_play.py
    times that): the timeline's Play would otherwise sleep a second a snapshot."""

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        pace, ui_timeline.PLAY_SECONDS = ui_timeline.PLAY_SECONDS, 0.0
        try:
            return fn(*args, **kwargs)
        finally:
            ui_timeline.PLAY_SECONDS = pace

    return wrapped


@_without_play_pause
def explore(
    page: str,
    model: str,
    lang: str,
    *,
    singles: bool = True,
    walks: int = 1,
    walk_len: int = 6,
    seed: int = 0,
    relink: bool = True,
    limit: int | None = None,
) -> Findings:
    """Open page from its default link, then every action one at a time (from the default view,
    reopened by its link), then `walks` seeded random sequences; every problem found, and the
    number of actions operated."""

    _quiet()
    # AppTest formats the sidebar's options in this thread, where t() sees no session: its
    # fallback language must be the page's (as tests/conftest.page_language does)
    i18n.DEFAULT_LANG = lang
    found = Findings()
    i18n.MISSING.clear()
    base = open_link(page, {"model": model, "lang": lang})
    first = tuple()

    def check(at, path):
        for p in problems(at, lang):
            found.append(Found(page, model, lang, path, p))
        i18n.MISSING.clear()

    check(base, first)
    if base.exception:
        return found
    link = link_of(base)
    todo = actions(base)
    if limit is not None:  # every control once before any control twice, then stop at limit
        todo = _round_robin(todo, random.Random(seed))
    if singles:
        # every action, one at a time; a control that appears only after an action (a section's
        # own controls) joins the list, reached again from the link of the view that showed it
        at = base
        queue = [(a, link) for a in todo]
        known = {a.key for a in todo}
        done = 0
        while queue and (limit is None or done < limit):
            action, where = queue.pop(0)
            done += 1
            if not do(at, action):
                at = open_link(page, where)
                if not do(at, action):
                    continue
            found.operated += 1
            check(at, (action,))
            if at.exception:
                at = open_link(page, link)
                continue
            here = link_of(at)
            new = [a for a in actions(at) if a.key not in known]
            known |= {a.key for a in new}
            queue += [(a, here) for a in new]
            if limit is not None:  # a section's own controls come before second options elsewhere
                queue.sort(key=lambda item: item[0].key in {a.key for a in new} and 0 or 1)
            if relink:
                check(open_link(page, here), (action, Action("reopen", "link")))
    rng = random.Random(seed)
    for _ in range(walks):
        at = open_link(page, link)
        path: list[Action] = []
        for _ in range(walk_len):
            options = actions(at)
            if not options:
                break
            action = rng.choice(options)
            if not do(at, action):
                continue
            found.operated += 1
            path.append(action)
            check(at, tuple(path))
            if at.exception:
                break
    return found

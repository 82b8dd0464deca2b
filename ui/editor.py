"""The lesson editor (pages/editor.py lays it out): a teacher builds a lesson step by step, choosing
the sentence, model and view, the question and the named query; the answer the app computes and
its margin show at once, with a warning where the margin rule fails and a notice where the query
does not apply to the model. Steps can be reordered and removed, the lesson previewed as a student
sees it, downloaded as a TOML file, loaded from such a file (upload, at most schema.MAX_BYTES),
saved to the server's lesson folder where the operator allows it (lessons/files.py), and used on
the lessons page (in a room: shared with the class through the room store)."""

from __future__ import annotations

import re

import streamlit as st

from lessons import defaults as lesson_defaults
from lessons import files, schema
from lessons.build import build_step
from lessons.pick import NotApplicable, word_arg, word_label, word_position
from lessons.queries import HEAD_RULES, QUERIES, applies, can_ablate
from lessons.steps import MARGINS, passes
from model.errors import InputError

from . import cache, classroom, hardening, slots
from . import lessons as lesson_state
from .i18n import LANGS, lang, t
from .lesson_view import answer_text, lesson_md, option_label, params_text
from .messages import error_text as error_text_of_model
from .rooms import StoreError
from .safe import echo, md
from .streamlit_words import in_reader_language

TEMPERATURES = [0.2, 0.5, 1.0, 2.0, 5.0]
ARG_WIDGETS = {  # how the editor asks for each query argument
    "word": "row",
    "key": "key",
    "other": "text",
    "also": "text",
    "than": "weight",
    "tolerance": "weight",
    "step": "step",
    "temperature": "temp",
    "pick": "pick",
    "yes_if": "yes_if",
    "every_layer": "flag",
    "row": "clearest",
    "p": "pos",
    "near": "pos",
    "far": "pos",
    "sketches": None,  # the default order
}


def arg_widget(query: str, name: str):
    """How the editor asks for argument name of query: entropy_higher's `other` is a second row,
    every other query's `other` a sentence."""
    if query == "entropy_higher" and name == "other":
        return "row"
    return ARG_WIDGETS.get(name)


def _set_default(key: str, value) -> None:
    if key not in st.session_state:
        st.session_state[key] = value


def _offer(key: str, value) -> None:
    """session_state[key] = value where the teacher has not written that field themselves: it is
    empty, or it still holds what the app last put there (issue 50.5: choosing a question type or a
    model computes its defaults, and once cut a typed sentence to the words the search preferred;
    a sentence, question or reveal the teacher typed, or a step loaded to edit, is theirs)."""
    ss = st.session_state
    offered = ss.setdefault("_ed_offered", {})
    if not ss.get(key) or ss.get(key) == offered.get(key):
        ss[key] = value
        offered[key] = value


def typed(key: str) -> bool:
    """Whether the field holds the teacher's own text (not empty, not what the app put there)."""
    ss = st.session_state
    return bool(ss.get(key)) and ss.get(key) != ss.get("_ed_offered", {}).get(key)


def _fit(key: str, options: list, default=None) -> None:
    """session_state[key] one of options (the default, else the first, when it is not)."""
    if st.session_state.get(key) not in options:
        st.session_state[key] = default if default in options else options[0]


offered_models = lesson_state.offered_models  # the editor's model list (pages/editor.py)


def steps() -> list[dict]:
    return st.session_state.setdefault("ed_steps", [])


def init(ctx) -> None:
    """The editor's fields on their first run: the sidebar's model and sentence, the first query."""
    models = lesson_state.offered_models()  # not a real pretrained model the server does not offer
    _set_default("ed_model", ctx.model if ctx.model in models else models[0])
    if "ed_sentence" not in st.session_state:  # once: later runs keep what the defaults or the teacher wrote
        _offer("ed_sentence", ctx.text)
    _set_default("ed_lesson_id", "my-lesson")
    _set_default("ed_title_en", "My lesson")
    _set_default("ed_title_zh", "我的课程")
    _set_default("ed_query", "top_key")
    _fit("ed_model", models)
    if "ed_ask_en" not in st.session_state:
        default_texts()
    first = "_ed_opened" not in st.session_state
    st.session_state["_ed_opened"] = True
    if st.session_state.pop("_ed_defaults", False) or first:
        apply_defaults(ctx)


def want_defaults() -> None:
    """A callback (the model or the question type changed): the next run opens the step on the
    defaults its query computes (apply_defaults), before the form's widgets are drawn."""
    st.session_state["_ed_defaults"] = True


@st.cache_data(show_spinner=False, max_entries=256)
def computed_defaults(name: str, sentence: str, query: str, question: str, device: str, beginnings: bool = True):
    """(sentence, view, args) lessons.defaults computes for the query on the model (cached: the
    search runs the query up to a few hundred times); beginnings=False: on the sentence as written."""
    return lesson_defaults.default_step(query, cache.runner(name, device), sentence, question, beginnings=beginnings)


def suggestion() -> str | None:
    """A beginning of the teacher's sentence on which the question type passes the margin rule,
    where it does not on the sentence as typed (pages/editor.py offers it as a button)."""
    return st.session_state.get("_ed_suggest")


def take_suggestion() -> None:
    """The suggested sentence into the form (a callback), and the defaults computed on it."""
    text = st.session_state.pop("_ed_suggest", None)
    if text:
        st.session_state["ed_sentence"] = text
        want_defaults()


def apply_defaults(ctx) -> None:
    """The form on its query's computed defaults (issue 37): the view and arguments whose step
    passes the margin rule on this model and sentence, so a question type opens without a warning."""
    ss = st.session_state
    q = QUERIES[ss.get("ed_query", "top_key")]
    if ss.get("ed_question") not in q.questions:
        ss["ed_question"] = q.questions[0]
    sentence = ss.get("ed_sentence") or ctx.text
    own = typed("ed_sentence")  # the teacher's sentence is searched as written, never cut
    ss.pop("_ed_suggest", None)
    for name in q.args:  # a sentence argument is never empty, even where the query does not apply
        if arg_widget(q.name, name) == "text":
            ss[f"ed_arg_{name}"] = lesson_defaults.swapped(sentence)[0]
    if runner_or_none(ss["ed_model"], ctx.device) is None or applies(cache.runner(ss["ed_model"], ctx.device), q.name):
        return
    try:
        text, view, args = computed_defaults(ss["ed_model"], sentence, q.name, ss["ed_question"], ctx.device, not own)
        if own:
            # the search tries the whole sentence first: a beginning only where no view passes on it
            shorter = computed_defaults(ss["ed_model"], sentence, q.name, ss["ed_question"], ctx.device, True)[0]
            if shorter != sentence:
                ss["_ed_suggest"] = shorter  # offered beside the form (suggestion()), not written over
    except Exception:  # a sentence the model refuses: the form says why when it builds the step
        return
    _offer("ed_sentence", text)
    for part in ("kind", "head", "layer"):
        if part in view:
            ss[f"ed_{part}"] = view[part]
        else:
            ss.pop(f"ed_{part}", None)  # the form's own first option
    ss["ed_temp"], ss["ed_pos"] = 1.0, True
    ss["ed_off"] = list(view.get("heads_off", []))
    args_into_form(q.name, args)


def args_into_form(query: str, args: dict) -> None:
    """A step's arguments into the form's widgets (edit, apply_defaults); a word stays as the file
    names it until the form finds its position among the sentence's tokens (_arg)."""
    ss = st.session_state
    for name in QUERIES[query].args:
        widget, value = arg_widget(query, name), args.get(name)
        if widget in ("row", "key", "yes_if", "temp", "weight", "pos"):
            if value is not None:
                ss[f"ed_arg_{name}"] = value
            else:
                ss.pop(f"ed_arg_{name}", None)
        elif widget == "text":
            ss[f"ed_arg_{name}"] = (value[0] if isinstance(value, list) else value) or ""
        elif widget == "pick":
            ss[f"ed_arg_{name}"] = value or "heads_off"
        elif widget == "flag":
            ss[f"ed_arg_{name}"] = bool(value)
        elif widget == "clearest":
            ss[f"ed_arg_{name}"] = value == "clearest"


def default_texts() -> None:
    """The query's example question and reveal, in both languages (the teacher rewrites them)."""
    from .i18n import TABLE

    q = st.session_state.get("ed_query", "top_key")
    for part in ("ask", "reveal"):
        entry = TABLE.get(f"ed_default_{part}_{q}", {})
        for lg in LANGS:
            _offer(f"ed_{part}_{lg}", entry.get(lg, ""))
    want_defaults()  # and the view and arguments its query computes


@st.cache_data(show_spinner=False, max_entries=64)
def tokens(name: str, sentence: str, device: str) -> dict:
    """{kind: (row names, key tokens)} of the sentence on the model (cross rows: what they write)."""
    from lessons.pick import row_names

    tr = cache.runner(name, device).trace(sentence)
    return {k: (row_names(a, k), list(a.key_tokens)) for k, a in tr.attention.items()}


def runner_or_none(name: str, device: str):
    try:
        return cache.runner(name, device)
    except Exception:  # a model that cannot load here: the notice below says so
        return None


def draft(ctx) -> dict:
    """The step being built, from the editor's controls (drawn here)."""
    q = QUERIES[st.session_state["ed_query"]]
    runner = runner_or_none(st.session_state["ed_model"], ctx.device)
    spec = {
        "model": st.session_state["ed_model"],
        "sentence": [st.session_state.get("ed_sentence") or ctx.text],
        "query": q.name,
    }
    _fit("ed_question", list(q.questions))
    st.selectbox(t("ed_question"), list(q.questions), key="ed_question", format_func=lambda k: t(f"ed_question_{k}"))
    spec["question"] = st.session_state["ed_question"]
    view, args = {}, {}
    if runner is None:
        return {**spec, "view": view, "args": args}
    try:
        toks = tokens(spec["model"], spec["sentence"][0], ctx.device)
    except Exception:
        toks = {}
    kinds = list(toks) or list(getattr(runner, "kinds", ("encoder",)))
    needs_view = q.name not in ("head_dim", "pe_dot", "translation", "same_output")
    cols = st.columns(3)
    if needs_view and q.name not in ("next_token", "sample_differs", "switch_off_changes"):
        _fit("ed_kind", kinds)
        with cols[0]:
            st.selectbox(t("ed_kind"), kinds, key="ed_kind", format_func=lambda k: t(f"kind_{k}"))
        view["kind"] = st.session_state["ed_kind"]
        n_layers, n_heads = runner.config.num_layers, runner.config.num_heads
        heads = ["mean", *range(1, n_heads + 1), "decided", "sharpest", "furthest"]
        if q.name == "cells_compare":
            heads.append("most_different")
        if q.name not in ("token_count", "row_count", "can_read", "first_token_weight", "heads_agree"):
            _fit("ed_head", heads)
            with cols[1]:
                st.selectbox(t("ed_head"), heads, key="ed_head", format_func=_head_label)
            view["head"] = st.session_state["ed_head"]
        layers = ["last", *range(1, n_layers + 1)]
        if view.get("head") in HEAD_RULES[1:]:
            layers.append("any")
        if q.name == "cell_above":
            layers.append("auto")
        if q.name not in ("token_count", "row_count", "can_read", "first_token_weight"):
            _fit("ed_layer", layers)
            with cols[2]:
                st.selectbox(t("ed_layer"), layers, key="ed_layer", format_func=_layer_label)
            view["layer"] = st.session_state["ed_layer"]
    with st.expander(t("ed_view_more"), icon="⚙️"):
        c1, c2 = st.columns(2)
        with c1:
            _fit("ed_temp", TEMPERATURES, 1.0)
            st.select_slider(t("ed_temperature"), TEMPERATURES, key="ed_temp")
            _set_default("ed_pos", True)
            st.toggle(t("ed_positions"), key="ed_pos")
        with c2:
            off = _head_names(runner) if can_ablate(runner) else []
            st.session_state["ed_off"] = [h for h in st.session_state.get("ed_off", []) if h in off][: schema.MAX_LIST]
            if off:
                st.multiselect(
                    t("ed_heads_off"), off, key="ed_off", format_func=_head_off_label, max_selections=schema.MAX_LIST
                )
    if st.session_state["ed_temp"] != 1.0:
        view["temperature"] = float(st.session_state["ed_temp"])
    if not st.session_state["ed_pos"]:
        view["positions"] = False
    if st.session_state["ed_off"]:
        view["heads_off"] = list(st.session_state["ed_off"])
    rows, keys = toks.get(view.get("kind") or kinds[0], ([], []))
    for name in q.args:
        widget = arg_widget(q.name, name)
        value = _arg(name, widget, q.name, rows, keys)
        if value is not None:
            args[name] = value
    if q.shows:
        _set_default("ed_show", list(q.shows))
        st.session_state["ed_show"] = [s for s in st.session_state["ed_show"] if s in q.shows]
        st.multiselect(t("ed_show"), list(q.shows), key="ed_show", format_func=lambda s: t(f"ed_chart_{s}"))
        spec["show"] = list(st.session_state["ed_show"])
    return {**spec, "view": view, "args": args}


def _arg(name: str, widget, query: str, rows, keys):
    key = f"ed_arg_{name}"
    label = t(f"ed_arg_{name}") if widget not in (None, "step") else ""
    if widget in ("row", "key"):
        # positions, not strings (issue 37): "the" twice in a sentence is two options, labelled
        # with their occurrence, and the file gets the one the teacher chose
        tokens = rows if widget == "row" else keys
        opts = [i for i, tok in enumerate(tokens) if widget == "key" or tok != "<s>"] or [0]
        if query == "top_key" and name == "word":
            opts.append("surest")
        held = st.session_state.get(key)
        if held is not None and not isinstance(held, int) and held != "surest":  # as a file names it
            st.session_state[key] = word_position(tokens, held)
            st.session_state[f"_ed_file_{name}"] = held  # written back as it was while it means the same
        _fit(key, opts, opts[min(1, len(opts) - 1)])
        st.selectbox(label, opts, key=key, format_func=lambda i: _position_label(tokens, i))
        value = st.session_state[key]
        if value == "surest" or not tokens:
            return value if tokens else None
        as_filed = st.session_state.get(f"_ed_file_{name}")
        if as_filed is not None and word_position(tokens, as_filed) == value:
            return as_filed
        return word_arg(tokens, value)
    if widget == "text":
        _set_default(key, "")
        st.text_input(label, key=key, max_chars=schema.MAX_SENTENCE)
        value = st.session_state[key].strip()
        if name == "also":
            return [value] if value else None
        return value or None
    if widget == "weight":
        _set_default(key, 0.10 if name == "tolerance" else 0.3)
        st.number_input(label, 0.0, 1.0 if name == "than" else 0.5, key=key, step=0.05)
        return float(st.session_state[key])
    if widget == "step":
        return None  # the slider's steps of 0.05
    if widget == "temp":
        _fit(key, [0.2, 0.5, 2.0, 5.0], 0.2)
        st.select_slider(label, [0.2, 0.5, 2.0, 5.0], key=key)
        return float(st.session_state[key])
    if widget == "pick":
        opts = ["heads_off", "most_important", "least_important"]
        _fit(key, opts)
        st.selectbox(label, opts, key=key, format_func=lambda p: t(f"ed_pick_{p}"))
        return None if st.session_state[key] == "heads_off" else st.session_state[key]
    if widget == "yes_if":
        _fit(key, ["same", "different"])
        st.selectbox(label, ["same", "different"], key=key, format_func=lambda p: t(f"ed_yes_if_{p}"))
        return st.session_state[key]
    if widget == "flag":
        _set_default(key, False)
        st.toggle(label, key=key)
        return True if st.session_state[key] else None
    if widget == "clearest":
        _set_default(key, False)
        st.toggle(label, key=key)
        return "clearest" if st.session_state[key] else None
    if widget == "pos":
        _set_default(key, {"p": 3, "near": 4, "far": 10}[name])
        st.number_input(label, 0, 64, key=key, step=1)
        return int(st.session_state[key])
    return None


def _position_label(tokens, i) -> str:
    if i == "surest":
        return t("ed_surest")
    return md(word_label(tokens, i)) if isinstance(i, int) and 0 <= i < len(tokens) else "?"


def _head_label(h) -> str:
    return t("ed_head_n", head=h) if isinstance(h, int) else t(f"ed_head_{h}")


def _layer_label(la) -> str:
    return t("ed_layer_n", layer=la) if isinstance(la, int) else t(f"ed_layer_{la}")


def _head_names(runner) -> list[str]:
    c = runner.config
    out = []
    for kind in getattr(runner, "kinds", ()):
        n_layers = c.num_layers
        for la in range(1, n_layers + 1):
            out += [f"{kind}:{la}:{h}" for h in range(1, c.num_heads + 1)]
    return out


def _head_off_label(name: str) -> str:
    kind, la, h = name.split(":")
    return t("ed_head_off", kind=t(f"kind_{kind}"), layer=la, head=h)


def texts() -> dict:
    """The step's question and reveal in both languages (text areas)."""
    out = {}
    cols = st.columns(2)
    for col, lg in zip(cols, LANGS):
        with col:
            for part in ("ask", "reveal"):
                st.text_area(t(f"ed_{part}_{lg}"), key=f"ed_{part}_{lg}", max_chars=schema.MAX_TEXT, height=90)
    for part in ("ask", "reveal"):
        out[part] = {lg: st.session_state.get(f"ed_{part}_{lg}", "") for lg in LANGS}
    return out


def check(spec: dict, index: int = 0):
    """(the step as a lesson file checks it, or None; the error in the reader's language, naming
    the form's own labels and the step's number, not a line of a file the teacher never sees)."""
    text = files.dumps("draft", {"en": "draft", "zh": "draft"}, [spec])
    try:
        return schema.validate(text).steps[0], None
    except schema.LessonError as e:
        n = editing() + 1 if editing() is not None else len(steps()) + 1
        return None, form_error_text(e, n, spec.get("query", ""))


FORM_FIELDS = {  # a lesson file's key -> the editor's label for it
    "sentence": "ed_sentence",
    "model": "ed_model",
    "question": "ed_question",
    "query": "ed_query",
    "show": "ed_show",
    "view.kind": "ed_kind",
    "view.head": "ed_head",
    "view.layer": "ed_layer",
    "view.temperature": "ed_temperature",
    "view.positions": "ed_positions",
    "view.heads_off": "ed_heads_off",
    **{f"{part}.{lg}": f"ed_{part}_{lg}" for part in ("ask", "reveal") for lg in LANGS},
}


def form_label(field: str) -> str:
    """A lesson file's field ("step 1: args.other", "step 2: ask.en") as the form labels it."""
    name = field.split(": ", 1)[-1]
    if name.startswith("args."):
        arg = name[len("args.") :].split(".")[0]
        return t(f"ed_arg_{arg}") if f"ed_arg_{arg}" in _table() else arg
    return t(FORM_FIELDS[name]) if name in FORM_FIELDS else name


def _table() -> dict:
    from .i18n import TABLE

    return TABLE


def form_error_text(e: schema.LessonError, step_number: int, query: str = "") -> str:
    params = {k: echo(v, 80) if isinstance(v, str) else v for k, v in e.params.items()}
    if "field" in params:
        params["field"] = form_label(e.params["field"])
    return t("ed_step_problem", i=step_number, error=t(f"lesson_error_{e.code}", **params))


def error_text(e: schema.LessonError) -> str:
    params = {k: echo(v, 80) if isinstance(v, str) else v for k, v in e.params.items()}
    body = t(f"lesson_error_{e.code}", **params)
    return t("lesson_error_line", line=e.line, error=body) if e.line else body


def na_text(e: NotApplicable) -> str:
    params = {
        k: (t(f"kind_{v}") if k == "kind" and v in ("encoder", "decoder", "cross") else echo(v, 80))
        for k, v in e.params.items()
    }
    if e.key == "model_refuses" and isinstance(e.__cause__, InputError):
        params["reason"] = error_text_of_model(e.__cause__)  # the model's reason in the reader's language
    return t(f"query_na_{e.key}", **params)


def show_answer(spec: dict, ctx) -> bool:
    """The computed answer and its margin for the draft step; True when it can be added."""
    runner = runner_or_none(spec["model"], ctx.device)
    if runner is None:
        st.warning(t("ed_model_missing", model=echo(spec["model"], 40)), icon="⚠️")
        return False
    why = applies(runner, spec["query"])
    if why:
        st.info(na_text(NotApplicable(why)), icon="ℹ️")
        return False
    try:
        with slots.heavy():  # up to four sentences of a costly query: the heavy lane, not a run slot
            step = build_step(spec, lambda name: cache.runner(name, ctx.device), "draft")
    except NotApplicable as e:
        st.info(na_text(e), icon="ℹ️")
        return False
    rule = step.rule
    margin = "∞" if step.margin == float("inf") else f"{step.margin:.3f}"
    st.markdown(
        t("ed_computed", answer=answer_text(step), ask=lesson_md(step.ask, step.params) if step.ask.get(lang()) else "")
    )
    st.caption(
        t(f"ed_rule_{rule}", margin=margin, threshold=MARGINS[rule])
        + " · "
        + t("ed_options", options=", ".join(option_label(step, i) for i in range(min(len(step.options), 12))))
    )
    if not passes(step):
        st.warning(t("ed_margin_fails", margin=margin, threshold=MARGINS[rule]), icon="⚠️")
    else:
        st.success(t("ed_margin_ok"), icon="✅")
    numbers = ", ".join(f"{k} = {v}" for k, v in params_text(step.params).items() if k not in ("text", "model"))
    st.caption(t("ed_numbers", numbers=numbers))
    return True


def editing() -> int | None:
    """The number of the step the form above is editing, or None (the form builds a new step)."""
    i = st.session_state.get("ed_editing")
    return i if isinstance(i, int) and 0 <= i < len(steps()) else None


def add(spec: dict) -> None:
    """The form's step: in place of the one being edited, else after the last."""
    i = editing()
    if i is None:
        steps().append(spec)
    else:
        steps()[i] = spec
        stop_editing()


def stop_editing() -> None:
    st.session_state.pop("ed_editing", None)
    st.session_state.pop("_ed_original", None)


def edit(i: int) -> None:
    """Step i back into the form (its model, sentence, query, view, arguments, charts and texts),
    so the teacher changes what they need and saves it in place (a callback: before the widgets)."""
    if not 0 <= i < len(steps()):
        return
    step, ss = steps()[i], st.session_state
    view, args = step.get("view", {}), step.get("args", {})
    ss["ed_model"], ss["ed_sentence"], ss["ed_query"] = step["model"], step["sentence"][0], step["query"]
    if step.get("question"):
        ss["ed_question"] = step["question"]
    for field in ("kind", "head", "layer"):
        if field in view:
            ss[f"ed_{field}"] = view[field]
    ss["ed_temp"] = float(view.get("temperature", 1.0))
    ss["ed_pos"] = bool(view.get("positions", True))
    ss["ed_off"] = list(view.get("heads_off", []))
    args_into_form(step["query"], args)
    # a step without `show` reveals its query's default charts; the form shows them all ticked
    ss["ed_show"] = list(step.get("show", QUERIES[step["query"]].shows))
    for part in ("ask", "reveal"):
        for lg in LANGS:
            ss[f"ed_{part}_{lg}"] = step.get(part, {}).get(lg, "")
    ss["ed_editing"] = i
    ss["_ed_original"] = dict(step)


FORM_VIEW = ("kind", "head", "layer", "temperature", "positions", "heads_off")  # what draft() asks


def with_unedited(spec: dict) -> dict:
    """The form's step with what the form does not ask kept from the step being edited (a view's
    page, an argument such as a sketch order, a yes/no reveal's two texts, the other sentences;
    `show` left out where the step had none and the ticks are unchanged); while the query is the
    same: another query's extras would not fit."""
    original = st.session_state.get("_ed_original") if editing() is not None else None
    if not original or original.get("query") != spec.get("query"):
        return spec
    asked = {name for name, widget in ARG_WIDGETS.items() if widget not in (None, "step")}
    out = {**original, **spec}
    out["view"] = {**{k: v for k, v in original.get("view", {}).items() if k not in FORM_VIEW}, **spec["view"]}
    out["args"] = {**{k: v for k, v in original.get("args", {}).items() if k not in asked}, **spec["args"]}
    if spec["sentence"][0] == original["sentence"][0]:
        out["sentence"] = list(original["sentence"])
    if "show" not in original and spec.get("show") == list(QUERIES[spec["query"]].shows):
        out.pop("show", None)
    return out


def move(i: int, delta: int) -> None:
    s = steps()
    j = i + delta
    if 0 <= i < len(s) and 0 <= j < len(s):
        s[i], s[j] = s[j], s[i]
        stop_editing()  # the numbers moved under the form


def remove(i: int) -> None:
    s = steps()
    if 0 <= i < len(s):
        del s[i]
        stop_editing()


def hidden_steps(device: str = "auto") -> list[int]:
    """The places (0-based) of the steps written so far that the class will not see: the lessons
    page leaves out a step that fails the margin rule or whose query does not apply (lessons.build),
    and the teacher must see that before class, not find "Step 1 of 4" there. [] while the lesson
    does not check (the form says why) or is over its bound."""
    if not steps():
        return []
    text = lesson_text()
    try:
        lesson = schema.validate(text)
        shown = {s.id for s in lesson_state.steps_of(text, device)}
    except (schema.LessonError, InputError):
        return []
    return [i for i in range(len(lesson.steps)) if lesson.step_id(i) not in shown]


def lesson_text() -> str:
    lesson_id = st.session_state.get("ed_lesson_id", "").strip() or "my-lesson"
    title = {lg: st.session_state.get(f"ed_title_{lg}", "").strip() or "—" for lg in LANGS}
    return files.dumps(lesson_id, title, steps())


def checked_lesson():
    """(the lesson text, or None; the error in the reader's language)."""
    if not steps():
        return None, t("ed_no_steps")
    text = lesson_text()
    try:
        schema.validate(text)
        lesson_state.check_cost(text)  # bounded by its compute, not only its bytes (lessons/build.py)
        return text, None
    except schema.LessonError as e:
        m = re.match(r"step (\d+): ", str(e.params.get("field", "")))
        return None, form_error_text(e, int(m.group(1))) if m else error_text(e)


def load_text(raw: bytes) -> str | None:
    """A lesson file (upload) into the editor and this session's lessons; None after an error shown."""
    try:
        with slots.released():  # a visitor's file is parsed in a child process: the class's slot is not held
            lesson = schema.validate(raw, untrusted=True)
        lesson_state.check_cost(lesson.text)  # a file too costly to build is refused here, in both languages
    except schema.LessonError as e:
        st.error(error_text(e), icon="🚫")
        return None
    stop_editing()  # the form's step number and kept fields were the old lesson's
    st.session_state["ed_steps"] = [dict(s) for s in lesson.steps]
    st.session_state["ed_lesson_id"] = lesson.id
    for lg in LANGS:
        st.session_state[f"ed_title_{lg}"] = lesson.title[lg]
    lesson_state.use_custom(lesson.text)
    return lesson.text


def uploader() -> None:
    """The lesson file uploader: this session's uploads are kept (ui/hardening.py bounds them)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    run = get_script_run_ctx()
    hardening.allow_uploads(getattr(run, "session_id", None))
    up = st.file_uploader(t("ed_upload"), type=["toml"], key="ed_upload", max_upload_size=1, help=t("ed_upload_help"))
    _uploader_in_reader_language()
    if up is None:
        return
    if st.session_state.get("_ed_loaded") == up.file_id:
        return
    st.session_state["_ed_loaded"] = up.file_id
    raw = up.getvalue()
    if len(raw) > schema.MAX_BYTES:
        st.error(error_text(schema.LessonError("too_large", 0, size=len(raw), limit=schema.MAX_BYTES)), icon="🚫")
        return
    if load_text(raw) is not None:
        st.success(t("ed_uploaded", n=len(steps())), icon="📥")


def _uploader_in_reader_language() -> None:
    """The uploader's own English words ("Upload", "1MB per file"; "Browse files", "Drag and drop file
    here" in other versions) in the reader's language (ui/streamlit_words.py). The file types (" •
    TOML") are a node of their own, kept: a bound that named them too read "TOML • TOML"."""
    words = [  # each node's whole text
        ("^Drag and drop files? here$", t("ed_upload_drop")),
        ("^(Browse files|Upload)$", t("ed_upload_browse")),
        ("^(Limit )?[0-9.]+ ?MB per file", t("ed_upload_limit", mb=1)),  # its own bound
    ]
    in_reader_language(
        "uploader", ".st-key-ed_upload", ".st-key-ed_upload [data-testid='stFileUploaderDropzone']", words
    )


SAVED = "saved:"  # "Start from" names a lesson in the server's folder "saved:ID"


def starts() -> list[str]:
    """What the editor can start from: the built-in lessons this server offers, then those saved in
    the server's folder that this visitor may see (the operator's, and this room's when its teacher asks)."""
    room = classroom.code() if classroom.is_teacher() else None
    return [*(n for n in files.BUILTIN if lesson_state.offered(n)), *(SAVED + i for i in files.saved(owner=room))]


def start_picker() -> bool:
    """The "Start from" box (a saved lesson removed from the folder since: the first again); False,
    and no box, where there is nothing to start from (no lesson whose models this server offers)."""
    options = starts()
    if not options:
        return False
    _fit("ed_builtin", options)
    st.selectbox(t("ed_start_from"), options, key="ed_builtin", format_func=start_label)
    return True


def start_label(name: str) -> str:
    if name.startswith(SAVED):
        return t("ed_saved_lesson", id=name[len(SAVED) :])  # plain text in a select box; the id is [A-Za-z0-9_-]
    return lesson_state.title(name)


def load_builtin(name: str) -> None:
    """A built-in lesson (a copy: its id gets "-copy") or a saved one (its own id: saving it again
    replaces the file) into the editor."""
    ss = st.session_state
    try:
        lesson = files.load_saved(name[len(SAVED) :]) if name.startswith(SAVED) else files.builtin(name)
    except (schema.LessonError, OSError, KeyError) as e:
        ss["_ed_note"] = ("warn", error_text(e) if isinstance(e, schema.LessonError) else t("lesson_error_no_folder"))
        return
    stop_editing()
    ss["ed_steps"] = [dict(s) for s in lesson.steps]
    ss["ed_lesson_id"] = lesson.id if name.startswith(SAVED) else f"{lesson.id}-copy"
    for lg in LANGS:
        ss[f"ed_title_{lg}"] = lesson.title[lg]


def save(text: str) -> None:
    """Save on the server as the teacher of the open room (its secret checked in the store now):
    the lesson then belongs to that room, and no other visitor can replace it (lessons.files.save)."""
    try:
        room = classroom.verified_teacher()
        if room is None:
            raise schema.LessonError("save_needs_room")
        path = files.save(text, owner=room)
        st.session_state["_ed_note"] = ("ok", t("ed_saved", name=md(path.name)))
    except schema.LessonError as e:
        st.session_state["_ed_note"] = ("warn", error_text(e))
    except (OSError, StoreError):
        st.session_state["_ed_note"] = ("warn", t("lesson_error_save_failed"))


def use(text: str) -> None:
    """ "Use on the lessons page": the lesson becomes this session's own (and the room's) and the
    next run opens it there (go_to_lessons; st.switch_page does not run inside a callback)."""
    try:
        lesson_state.use_custom(text)
    except schema.LessonError as e:  # a model no longer offered, a bound: a notice, not an error box
        st.session_state["_ed_note"] = ("warn", error_text(e))
        return
    st.session_state["les_lesson"], st.session_state["les_step"] = lesson_state.CUSTOM, 1
    st.session_state["_ed_go_lessons"] = True


def go_to_lessons() -> None:
    """After "Use on the lessons page": the lessons page, on the teacher's own lesson."""
    if st.session_state.pop("_ed_go_lessons", False):
        st.switch_page("pages/lessons.py", query_params={"lesson": lesson_state.CUSTOM, "step": "1"})


def preview(text: str, device: str) -> None:
    """The lesson as a student sees it (the steps that pass the margin rule), with its own answers."""
    from .lesson_view import predict, show_question, show_verdict

    built = lesson_state.steps_of(text, device)
    if not built:
        st.info(t("lesson_no_steps"), icon="ℹ️")
        return
    n = len(built)
    index = min(max(st.session_state.get("edp_step", 1) - 1, 0), n - 1)
    st.session_state["edp_step"] = index + 1
    answers = st.session_state.setdefault("edp_answers", {})
    if answers.get("_text") != text:  # a changed lesson starts unanswered
        answers.clear()
        answers["_text"] = text
    step = built[index]
    st.progress((index + 1) / n, text=t("lesson_step", i=index + 1, n=n))
    show_question(step, prefix="edp")
    given = answers.get(index)

    def _answered(choice: int) -> None:
        answers.setdefault(index, choice)

    predict(step, f"edp_pick_{index}", given, _answered)
    if given is not None:
        show_verdict(step, given, prefix="edp")
    with st.container(horizontal=True):
        st.button(t("lesson_back"), icon="⬅️", disabled=index == 0, on_click=_go, args=(-1,), key="edp_back")
        st.button(t("lesson_next"), icon="➡️", disabled=index == n - 1, on_click=_go, args=(1,), key="edp_next")
    if n < len(steps()):
        st.caption(t("ed_preview_dropped", n=len(steps()) - n))


def _go(delta: int) -> None:
    st.session_state["edp_step"] = st.session_state.get("edp_step", 1) + delta

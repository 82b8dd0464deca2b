"""Page furniture every page uses: the title, presentation mode, the copy-link box."""

from __future__ import annotations

import threading
from urllib.parse import quote, urlencode

import streamlit as st

from viz.alt import Sentence, alt_of
from viz.bar_values import keep_values_large

from . import state, streamlit_internals
from .i18n import t
from .run import current, in_app_run
from .streamlit_words import in_reader_language, labels_in_reader_language

PRESENT_SCALE = 1.35  # charts and their type in presentation mode
NAV_SHOWN = 4  # pages the sidebar menu lists before "View more" (app.py; issue 50.7: the first screen)
NOT_IN_COPIED_LINKS = ("present", "teach", "room")

# Our own constant CSS (never user text): bigger type and charts for a projector, and the first
# screen (1280 x 800) given to the content: no top bar, little padding, a smaller title.
_PRESENTATION_CSS = """
<style>
section[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stExpandSidebarButton"], [data-testid="stSidebarCollapseButton"],
header[data-testid="stHeader"] {display: none;}
.stMainBlockContainer, .block-container {max-width: 100%; padding: 0.75rem 2rem 2rem 2rem !important;}
html, body, [data-testid="stMarkdownContainer"] p, .stMarkdown, label, li,
[data-testid="stWidgetLabel"] p, [data-testid="stCaptionContainer"], button p {font-size: 1.35rem !important;}
[data-testid="stCode"] code, [data-testid="stCode"] pre {font-size: 1.15rem !important;}
[data-baseweb="select"] div, [data-testid="stSelectbox"] input, [data-testid="stButtonGroup"] p,
[data-testid="stTab"] p {font-size: 1.25rem !important;}
[data-testid="stDataFrame"] {font-size: 1.2rem !important;}
.katex {font-size: 1.6em !important;}
h1 {font-size: 2.1rem !important; padding: 0.2rem 0 0.4rem 0 !important;} h2 {font-size: 1.9rem !important;}
h3 {font-size: 1.6rem !important;}
/* the room code, read from the back of the classroom: 48 px, in the title row
   (ui.classroom.title_badge's container) */
.st-key-room_banner strong, .st-key-room_banner code {font-size: 48px !important; letter-spacing: 0.02em;
  line-height: 1.1;}
.st-key-room_banner p {white-space: nowrap;}
/* the main chart's slot (main_area) and the compact title row: no gaps between them */
.st-key-present_main {gap: 0.25rem;}
.st-key-present_title h1 {padding: 0 !important;}
</style>
"""


def _small_text_selectors() -> str:
    """CSS selectors of plotly heatmap cell values drawn under 11 px: plotly shrinks a value to fit
    its cell and writes the size inline (``font-size: 8px``), so 1-10.x px are matched literally."""
    sizes = [f"{n}px" for n in range(1, 11)] + [f"{n}." for n in range(1, 11)]
    return ", ".join(f'.js-plotly-plot .heatmap-label text[style*="font-size: {s}"]' for s in sizes)


PHONE_MAX_PX = 480  # a phone: the widest screen laid out as one (its CSS below, view.js's sidebar after a sentence)

# Our own constant CSS for every page and mode: a cell value too small to read (under 11 px: a phone,
# Compare's three heatmaps, a long sentence) is hidden; tapping or hovering the cell shows it. On a
# phone (<= 480 px) the tabs wrap onto more lines instead of running off the screen.
_EVERY_PAGE_CSS = (
    "<style>"
    + _small_text_selectors()
    + " {display: none;}"
    # code in a caption: Streamlit draws it in a pale green (#6d9c8f, 2.98:1 on the page: axe-core's
    # colour-contrast rule); the theme's dark green instead (7:1)
    # (the caption is drawn at 60 % opacity: the caption's own colour, as its text, passes)
    + " [data-testid='stCaptionContainer'] code {color: inherit;}"
    # a locked control's label (a lesson's "Your prediction" once answered): Streamlit fades it to
    # 40 % black (2.85:1 on white, hard to read from a classroom's back row: axe-core's
    # colour-contrast rule, on a projector with a room open); 62 % black keeps it looking locked at 6.2:1
    + " [data-testid='stWidgetLabel'][disabled] {color: rgba(0, 0, 0, 0.62);}"
    # the room code outside presentation mode too: 32 px, read from a desk away (issue 37: 17 px)
    + " .st-key-room_banner strong {font-size: 32px; letter-spacing: 0.04em;}"
    # a chart's text alternative (describe_chart) and the hidden h2 are read, not seen: no room taken
    + " [data-testid='stElementContainer']:has(.attn-sr-only) {position: absolute; width: 1px; height: 1px;"
    + " overflow: hidden; margin: 0; padding: 0;}"
    # a label never cut ("Back to ...", "Run to th...", a page link's "Step through cross-attenti..."):
    # Streamlit draws button and page-link labels on one line with an ellipsis; they wrap instead
    + " button [data-testid='stMarkdownContainer'], button .stMarkdownEllipsis, button p,"
    + " [data-testid='stPageLink-NavLink'] span {white-space: normal !important;"
    + " text-overflow: clip !important; overflow: visible !important; overflow-wrap: anywhere;}"
    # a row of pills (a lesson's answer options, a sentence's tokens) wraps onto more lines in a
    # narrow column (a phone, the projector's column beside a reveal's charts): Streamlit lays it in
    # one line that scrolls sideways, an option hidden off its edge (axe-core's
    # scrollable-region-focusable); a label longer than the column wraps inside its pill
    + " [data-testid='stButtonGroup'] div:has(> button) {flex-wrap: wrap !important; overflow-x: visible !important;}"
    + " [data-testid='stButtonGroup'] button {max-width: 100%; height: auto; white-space: normal;}"
    # on a touch screen a tap is a hover: plotly's toolbar then stays over the chart's title (a
    # lesson reveal's on a phone); Streamlit's own toolbar above the chart keeps full screen
    + " @media (hover: none) {.js-plotly-plot .modebar-container {display: none !important;}}"
    + f" @media (max-width: {PHONE_MAX_PX}px) {{"
    # a formula wider than a phone scrolls in a box a keyboard cannot reach (axe-core's serious
    # scrollable-region-focusable): drawn at 80 % there, the tutorial's formulas fit in 356 px
    + " .katex-display > .katex {font-size: 0.8em !important;}"
    # a static table (st.table: the architecture page's comparison, 543 px) wraps its words in
    # the phone's width instead of scrolling in a box (the same axe-core rule)
    + " [data-testid='stTable'] table {table-layout: fixed; width: 100%;}"
    + " [data-testid='stTable'] th, [data-testid='stTable'] td {font-size: 0.8rem; padding: 0.25rem !important;}"
    + " [data-testid='stTable'] th, [data-testid='stTable'] td, [data-testid='stTable'] td *,"
    + " [data-testid='stTable'] th * {white-space: normal !important; overflow-wrap: anywhere;"
    + " word-break: break-word; hyphens: auto;}"
    + " [data-testid='stTable'] p {word-break: break-all !important; overflow-wrap: anywhere !important;}"
    + " [data-testid='stTabs'] [role='tablist'] {flex-wrap: wrap; row-gap: 0.25rem;}"
    + " [data-testid='stTabs'] [data-baseweb='tab-highlight'], [data-testid='stTabs'] [data-baseweb='tab-border']"
    + " {display: none;}"
    + " [data-testid='stTabs'] [role='tab'][aria-selected='true'] {border-bottom: 3px solid #0b3d91;}"
    + "}</style>"
)


# Streamlit's skip link ("Skip to main content", the first stop of a keyboard's Tab) is English in
# every language: this script says it in the reader's language (a script run once per language in
# the browser; the link is the app's own, drawn once, so the text stays until the language changes)
_SKIP_LINK_JS = """<script>(() => {{
  const text = {text}, lang = {lang};
  const put = n => {{
    const a = document.querySelector("[data-testid='stSkipToContent']");
    if (a) {{ a.textContent = text; a.setAttribute('lang', lang); }}
    else if (n < 50) setTimeout(() => put(n + 1), 100);
  }};
  put(0);
}})();</script>"""


def skip_link_in_reader_language(text: str, lang: str) -> None:
    """The skip link's text in the reader's language (json.dumps quotes it for the script; "</"
    escaped, so no text can close the script). In the sidebar: an element there takes no room of
    the page's first screen (the sidebar is hidden in presentation mode, its scripts still run)."""
    import json

    def quoted(v: str) -> str:
        return json.dumps(v).replace("</", "<\\/")

    st.sidebar.html(_SKIP_LINK_JS.format(text=quoted(text), lang=quoted(lang)), unsafe_allow_javascript=True)


def page_header(title_key: str, intro_key: str | None = None) -> None:
    """The page's title, its notices and its introduction. In presentation mode: one compact row
    (title, the page switcher, the way out of presentation mode), the sentence and model, then the
    slot main_area() fills with the page's main chart, so the chart comes before every control and
    explanation and starts on the projector's first screen."""
    ctx = current()
    _RUN.main, _RUN.first_taken, _RUN.described, _RUN.shown = None, False, {}, None
    st.html(_EVERY_PAGE_CSS)
    skip_link_in_reader_language(t("skip_to_content"), ctx.lang)
    # the menu's "View 9 more" / "View less" (app.py lists NAV_SHOWN pages), Streamlit's own English
    nav_words = [("^View ([0-9]+) more$", t("nav_view_more", n="$1")), ("^View less$", t("nav_view_less"))]
    in_reader_language("nav", "section[data-testid='stSidebar']", "[data-testid='stSidebarNav']", nav_words, st.sidebar)
    # its dialog for a link to no page (a modal outside the app's element: the body is watched)
    lost = [
        ("^Page not found$", t("page_not_found_title")),
        (
            "^You have requested page /(.*), but no corresponding file was found in the app's pages/ directory\\. "
            "Running the app's main page\\.$",
            t("page_not_found_named", page="$1"),
        ),
        (
            "^The page that you have requested does not seem to exist\\. Running the app's main page\\.$",
            t("page_not_found"),
        ),
    ]
    in_reader_language("lost", "body", "[role='dialog']", lost, st.sidebar)
    labels_in_reader_language(st.sidebar)  # what a screen reader says and a tooltip shows
    if ctx.presentation:
        st.markdown(_PRESENTATION_CSS, unsafe_allow_html=True)
        with st.container(horizontal=True, vertical_alignment="center", key="present_title"):
            st.title(t(title_key))
            from .classroom import title_badge  # here only: classroom is above layout's imports

            title_badge()  # a teacher's room code, one line beside the title
            page_switcher()
            # the way back, since the sidebar (and its toggle, key "present") is hidden; a second
            # widget with that key would raise, so this one has its own and switches "present" off
            st.toggle(
                t("presentation_mode"),
                value=True,
                key="_present_exit",
                on_change=_leave_presentation,
                help=t("presentation_help"),
                width="content",
            )
            if intro_key:
                # the sidebar is hidden: say what is on screen (the sentence, the model) instead of
                # "in the sidebar". In the title row: where the row wraps (a room's code takes the
                # room of the toggle at 1280 px), the toggle and this share the second line, so
                # a room open costs the chart no extra line (issue 37: the x axis below the fold)
                _RUN.shown = st.empty()  # named again by shown_model() on a page that draws another model
                shown_model(ctx.model)
    else:
        st.title(t(title_key))
    # the page's sections are h3 (st.subheader) under the h1 title: a heading a screen reader's
    # outline needs between them (axe-core's heading-order), read, not seen
    import html

    st.html(f'<h2 class="attn-sr-only" style="{_SR_ONLY}">{html.escape(t("page_sections", page=t(title_key)))}</h2>')
    state.show_notices()
    if intro_key and not ctx.presentation:
        st.markdown(t(intro_key))
    if ctx.presentation:
        _RUN.main = st.container(key="present_main")


def shown_model(model: str) -> None:
    """Presentation mode's line under the title: the sentence and `model`, the sidebar's (written by
    page_header) or the one the page draws instead (the generation page writes with a GPT when the
    sidebar holds the translator), since the class sees no sidebar. Outside it: nothing."""
    if _RUN.shown is not None:
        from .safe import md

        _RUN.shown.caption(t("present_sentence", text=md(current().text), model=md(model)), width="content")


class _Run(threading.local):
    main = None  # this run's main-chart slot (presentation mode), filled through main_area()
    shown = None  # presentation mode's sentence-and-model line (page_header), for shown_model()
    first_taken = False
    pages: list = []


_RUN = _Run()


def main_area(first: bool = False):
    """Where a page puts its main chart: ``with main_area(): st.plotly_chart(...)``. In
    presentation mode: the slot page_header reserved under the title (full width, above the page's
    controls and explanations; later calls in the same run add below what is already there, so a
    page may put the one control its chart is about, a slider, there first); otherwise a
    container right here. Inside a fragment's own rerun (ui.context.partial, which presentation
    mode does not use) the slot, outside the fragment, cannot be written: a container here then.
    first=True: the slot only for the run's first such call (a helper that draws every chart of a
    page sends the first one up, the rest stay where they are)."""
    if _RUN.main is None or _in_fragment_rerun():
        return st.container()
    if first:
        if _RUN.first_taken:
            return st.container()
        _RUN.first_taken = True
    return _RUN.main


def _in_fragment_rerun() -> bool:
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    run = get_script_run_ctx()
    return bool(run and getattr(run, "fragment_ids_this_run", None))


def wrapping_columns(spec, key: str, min_px: int = 400, where=None, **kwargs):
    """st.columns(spec, **kwargs) in a container keyed ``key`` whose columns wrap onto the next
    line (full width when alone) whenever they would be narrower than min_px: three heatmaps side
    by side at 1440 px with the sidebar open would each get about 290 px and 4-6 px cell values.
    ``where``: the container to draw in (default: here)."""
    st.html(
        f"<style>.st-key-{key} [data-testid='stHorizontalBlock'] {{flex-wrap: wrap;}}"
        f".st-key-{key} [data-testid='stColumn'] {{min-width: min({min_px}px, 100%) !important;"
        f" flex: 1 1 {min_px}px !important;}}</style>"
    )
    return (where or st).container(key=key).columns(spec, **kwargs)


def set_pages(pages) -> None:
    """app.py's st.Page list (translated titles), for the presentation-mode page switcher."""
    _RUN.pages = list(pages)


def fit_page_path(paths, home: str) -> None:
    """A page asked for by its plain name in another form opens that page (issue 50.7: /home said
    "Page not found"; Streamlit serves its default page at / only, and matches a path exactly):
    the home page's own name (``home``) or /index, any page's path in other letter case (/Lessons)
    or with a trailing slash. paths: every page's URL path ("" the home page). Before st.navigation."""
    asked = streamlit_internals.requested_page()
    if not asked:
        return
    name = asked.strip("/").lower()
    want = "" if name in (home.lower(), "index") else next((p for p in paths if p and p.lower() == name), None)
    if want is not None and want != asked:
        streamlit_internals.ask_for_page(want)


def page_switcher() -> None:
    """A compact menu of every page for presentation mode, where the sidebar's navigation is
    hidden: a popover of page links. The session keeps presentation mode on the page it opens."""
    if not _RUN.pages:
        return
    with st.popover(t("present_pages"), icon="📑", width="content"):
        for page in _RUN.pages:
            st.page_link(page)


def _leave_presentation() -> None:
    st.session_state["present"] = False
    st.session_state.pop("_present_exit", None)


PRESENT_MIN_FONT = 16  # px: the smallest label a projector shows (read from the back of a room)
PRESENT_INK = "#111111"


def present_figure(fig):
    """A plotly figure made for a projector in presentation mode: taller, and every label (ticks,
    axis and chart titles, colour bar, annotations, cell values) at least PRESENT_MIN_FONT px and
    dark; unchanged otherwise. Returns the figure. Every page draws its plotly charts through it
    (st.plotly_chart(present_figure(fig))), so it also writes the chart's text alternative just
    before the chart (describe_chart): what a screen reader reads, since it cannot read the canvas."""
    describe_chart(fig)
    if not current().presentation:
        return fig
    return enlarge(fig)


_SR_ONLY = (
    "position:absolute;width:1px;height:1px;margin:-1px;padding:0;overflow:hidden;"
    "clip:rect(0,0,0,0);white-space:normal;border:0"
)


def _read(sentence: Sentence) -> str:
    """One sentence of viz.alt in the reader's language (a list of sentences as one value, joined by "; ")."""

    def value(v):
        if isinstance(v, Sentence):
            return _read(v)
        if isinstance(v, list):
            return "; ".join(value(x) for x in v)
        return v

    return t(sentence.key, **{k: value(v) for k, v in sentence.params.items()})


def chart_alt(fig) -> str:
    """The chart's text alternative in the reader's language: viz.alt's sentences, computed from
    the chart's own data by the function that drew it (or read from its traces)."""
    return " ".join(p for p in (_read(s) for s in alt_of(fig)) if p)


def describe_chart(fig) -> None:
    """The chart's text alternative, visually hidden, just before the chart: a screen reader reads it
    (once per figure and run: present_figure and plotly_chart both call it)."""
    import html

    # the figures themselves are kept for the run: a figure drawn and freed gives its id to the next
    # one, which an id alone would then take for one already described
    done = _RUN.__dict__.setdefault("described", {})
    if done.get(id(fig)) is fig:
        return
    done[id(fig)] = fig
    text = chart_alt(fig)
    if text:
        st.html(f'<div class="attn-sr-only attn-chart-alt" style="{_SR_ONLY}">{html.escape(text)}</div>')


def plotly_chart(fig, **kwargs):
    """st.plotly_chart with the chart's text alternative before it: every page draws plotly charts
    through this or present_figure."""
    describe_chart(fig)
    if getattr(in_app_run(), "presentation", False):  # a chart not enlarged: its bar values still read from the back
        keep_values_large(fig)
    return st.plotly_chart(fig, **kwargs)


def enlarge(fig, k: float = PRESENT_SCALE, minimum: int = PRESENT_MIN_FONT):
    def size(s, default=12):
        return max(minimum, round((s or default) * k))

    layout = fig.layout
    fig.update_layout(height=int((layout.height or 450) * k), font=dict(size=size(layout.font.size), color=PRESENT_INK))
    for axis in (*fig.select_xaxes(), *fig.select_yaxes()):
        axis.update(
            tickfont=dict(size=size(axis.tickfont.size), color=PRESENT_INK),
            title_font=dict(size=size(axis.title.font.size, 14), color=PRESENT_INK),
        )
    for ann in layout.annotations or ():
        ann.font.size = size(ann.font.size)
        ann.font.color = ann.font.color or PRESENT_INK
    if layout.title and layout.title.text:
        fig.update_layout(title_font=dict(size=size(layout.title.font.size, 16), color=PRESENT_INK))
    if layout.legend:
        fig.update_layout(legend_font=dict(size=size(layout.legend.font.size), color=PRESENT_INK))
    for trace in fig.data:
        if hasattr(trace, "textfont"):
            trace.textfont.size = size(trace.textfont.size)
        if hasattr(trace, "colorbar"):
            trace.colorbar.tickfont.size = size(trace.colorbar.tickfont.size)
            trace.colorbar.title.font.size = size(trace.colorbar.title.font.size)
    return keep_values_large(fig)


def view_url() -> str:
    """The address of the current view: the page's URL (scheme, host, port, page path, as the
    browser sees it) and every query parameter this run wrote. Relative ("?...") when the
    browser has not told the server its URL (AppTest, very old browsers)."""
    url = (getattr(st.context, "url", None) or "").split("?")[0].split("#")[0]
    params = state.link_params()  # only this page's keys, one value each, capped
    # a link copied on the projector opens the normal view, outside the teacher's room
    params = {k: v for k, v in params.items() if k not in NOT_IN_COPIED_LINKS}
    query = urlencode(params, quote_via=quote) if params else ""
    return url + ("?" + query if query else "") if url else ("?" + query if query else "/")


def copy_link() -> None:
    """The current view's address in a code box: its copy button copies the link. Call it last on
    a page, after the page has written its own settings into the URL."""
    with st.popover(t("copy_link"), icon="🔗"):
        st.caption(t("copy_link_help"))
        st.code(view_url(), language=None, wrap_lines=True)

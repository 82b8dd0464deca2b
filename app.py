"""Transformer Attention Explorer: `streamlit run app.py`.

The entry: the shared sidebar (model, sentence, language, device), then the chosen page.
"""

import streamlit as st

st.set_page_config(page_title="Transformer Attention Explorer", page_icon="🔍", layout="wide")

# ui.boot first (on a fresh server: the title and a loading message), then the slow imports
from ui import boot, classroom, hardening, layout, slots, state  # noqa: E402
from ui.context import sidebar  # noqa: E402
from ui.i18n import t  # noqa: E402
from ui.run import RUN_SLOTS, end_run  # noqa: E402

hardening.apply()  # clear_cache refused, uploads bounded to the lesson uploader, metrics empty (once per process)

# (file, url path, translation key, icon); the first is the home page
PAGES = [
    ("pages/home.py", "home", "page_home", "🏠"),
    ("pages/attention.py", "attention", "page_attention", "🔍"),
    ("pages/temperature.py", "temperature", "page_temperature", "🌡️"),
    ("pages/positional.py", "positional", "page_positional", "📍"),
    ("pages/generation.py", "generation", "page_generation", "✍️"),
    ("pages/steps.py", "steps", "page_steps", "🧮"),
    ("pages/architecture.py", "architecture", "page_architecture", "🏛️"),
    ("pages/intervene.py", "intervene", "page_intervene", "✂️"),
    ("pages/compare.py", "compare", "page_compare", "⚖️"),
    ("pages/cost.py", "cost", "page_cost", "⏱️"),
    ("pages/timeline.py", "timeline", "page_timeline", "⏳"),
    ("pages/lessons.py", "lessons", "page_lessons", "🎓"),
    ("pages/editor.py", "editor", "page_editor", "📝"),
]
nav = None  # the page, once st.navigation has chosen it
try:
    # the whole run in a run slot: the sidebar and the menu too, not only the page. A few runs
    # compute at once, the rest wait asleep (ui/run.py); a run asked to stop or rerun while it
    # waits leaves the queue (ui/slots.py), so one session's rerun flood holds at most its share
    with RUN_SLOTS:
        classroom.from_link()  # ?room=CODE: join the teacher's room
        ctx = sidebar()  # its classroom section too (classroom.sidebar_panel), above the device's settings
        state.set_url(**classroom.link_params())

        pages = [
            st.Page(f, title=t(key), icon=icon, url_path=path, default=(i == 0))
            for i, (f, path, key, icon) in enumerate(PAGES)
        ]
        layout.set_pages(pages)  # presentation mode's page switcher (the sidebar's navigation is hidden)
        layout.fit_page_path([p.url_path for p in pages], home=PAGES[0][1])  # /home, /Lessons, /lessons/
        st.set_option("client.showSidebarNavigation", True)  # .streamlit/config.toml: off for the pages/ folder's menu
        # the menu shows NAV_SHOWN pages and "View more" (issue 50.7: 13 pages pushed the sentence box to
        # y 775 and the classroom to 1088 at 1280 x 800; ui.layout.NAV_SHOWN)
        nav = st.navigation(
            pages,
            position="hidden" if ctx.presentation else "sidebar",
            expanded=layout.NAV_SHOWN,
        )
        classroom.banner(pages, nav.url_path)  # the teacher's room code; a student's follow / detach line
        nav.run()
except (
    slots.OverBudget
) as e:  # this session's heavy-lane CPU seconds are spent (ui/slots.py): a notice, not an error box
    st.warning(t("heavy_over_budget", seconds=round(e.retry_after)), icon="⏳")
finally:  # also when the page stopped early (st.stop): the class sees where it stopped
    if nav is not None:
        classroom.publish(nav.url_path)
    end_run()  # a page file run without app.py (see ui.run.current) finds no Context
    boot.done()

"""A page of the app: a view (VIEW, ui/view.py) and a function render(ctx, view) that draws it.

Every file of pages/ is written the same way: imports, constants and functions, then

    VIEW = (view.layer("att_layer"), ...)      # the settings its link carries, declared once

    def render(ctx: Context, view: dict) -> None:
        ...                                    # the page, from the sidebar's Context and the view

    if __name__ == "__main__":                 # Streamlit runs the file as the page
        page.show(render, VIEW)

Nothing runs when the module is imported, and render reads nothing from module globals that a
run sets: everything a run decides comes in as ctx (model, sentence, language, presentation)
and view ({link name: value}, read by state.read_view from the link, else the session, else the
field's default). So a test calls a page's render with a Context of its own, on any model, in
AppTest without app.py's sidebar or a server (tests/pages.py's render_page), and
tests/test_architecture.py fails on a page file whose module body does anything else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import state
from .run import Context, current

Render = Callable[[Context, dict[str, Any]], None]


def show(render: Render, fields=()) -> None:
    """What a page file does when Streamlit runs it: this run's Context (app.py's sidebar made
    it; a page file run alone, a deep link on a fresh server, goes back through app.py first),
    the view read from the link, then the page. A default known only at run time (the sidebar's
    sentence, the second token of the sentence) is the field's None, which render fills: then a
    test that calls render with a view of its own gets the page's real defaults too."""
    ctx = current()
    render(ctx, state.read_view(fields))

"""Streamlit's own words in the reader's language.

Streamlit draws a few words of its own in English whatever the page's language: the sidebar menu's
"View 9 more" / "View less" (every page: app.py lists ui.layout.NAV_SHOWN pages, then that button),
its "Page not found" dialog for a link to no page ("You have requested page /x, but no corresponding
file was found in the app's pages/ directory. Running the app's main page.": a developer's words, in
English too), the file uploader's "Upload" and "Limit 1MB per file" (the lesson editor), and the names
a screen reader says and a tooltip shows (aria-label, title: "Collapse sidebar", "Help for Model",
"Fullscreen", "Download as CSV", Plotly's "Zoom in"...). A Chinese class read them
in English. `in_reader_language` writes them in the reader's language where Streamlit draws them,
and again whenever Streamlit redraws them (a MutationObserver on an element that outlives the
page's runs).

Every page's run says which words to write, English included (Streamlit's own, so nothing changes):
the observer a Chinese page installed outlives a change of language, and a text node Streamlit does
not redraw (React sees the same "View 9 more" it drew before) is given back its English. The words are Streamlit's texts as
patterns (they changed between versions), matched against a text node's whole text; "$1" in ours is
the pattern's first group (the "9" of "View 9 more"). Our own constant script; the words are the
app's own strings, quoted by json.dumps with "</" escaped.
"""

from __future__ import annotations

import json
import re

import streamlit as st

from .i18n import TABLE, load_area, t

# Streamlit's and Plotly's labels (aria-label, title, Plotly's data-title), each the whole value:
# every key of ui/strings/streamlit.toml (its English is Streamlit's own), read from the table so a
# label is added there only; "Help for {label}" (any label) is a pattern of its own
HELP_KEY = "st_help_for"
LABEL_KEYS = tuple(k for k in load_area("streamlit") if k != HELP_KEY)
LABEL_ATTRIBUTES = ("aria-label", "title", "data-title")

_JS = r"""<script>(() => {{
  const key = {key}, watch = {watch}, within = {within}, attrs = {attrs}, texts = {texts};
  // this run's words, compiled once; a new set (another language) makes every node and value
  // be read again (gen), the others are skipped while they still say what was written
  const all = (window.__attnWords = window.__attnWords || {{}});
  const words = {words};
  if (JSON.stringify(words) !== JSON.stringify((all[key] || {{}}).words))
    all[key] = {{ words, res: words.map(([english, mine]) => [new RegExp(english), mine]), gen: ((all[key] || {{}}).gen || 0) + 1 }};
  // ours for Streamlit's English `orig` (itself where no pattern matches); "$1": the first group
  const ours = (orig) => {{
    const said = orig.trim();
    for (const [re, mine] of all[key].res) {{
      const m = said.match(re);
      if (m) return mine.replace(/\$(\d)/g, (_, i) => m[+i] ?? "");
    }}
    return orig;
  }};
  const put = () => {{
    const root = document.querySelector(within);
    if (!root) return;
    if (texts) {{
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {{
        if (n.nodeValue === n.__attnSaid && n.__attnGen === all[key].gen) continue;
        if (n.nodeValue !== n.__attnSaid) n.__attnOrig = n.nodeValue;  // Streamlit drew it (again)
        const out = ours(n.__attnOrig);
        if (out !== n.nodeValue) n.nodeValue = out;
        n.__attnSaid = n.nodeValue;
        n.__attnGen = all[key].gen;
      }}
    }}
    if (!attrs.length) return;
    for (const el of root.querySelectorAll(attrs.map((a) => "[" + a + "]").join(","))) {{
      const seen = el.__attnAttrs || (el.__attnAttrs = {{}});
      for (const a of attrs) {{
        const v = el.getAttribute(a);
        if (v === null) continue;
        const was = seen[a] || (seen[a] = {{}});
        if (v === was.said && was.gen === all[key].gen) continue;
        if (v !== was.said) was.orig = v;  // Streamlit (or Plotly) wrote it (again)
        const out = ours(was.orig);
        if (out !== v) el.setAttribute(a, out);
        was.said = out;
        was.gen = all[key].gen;
      }}
    }}
  }};
  const start = (tries) => {{
    const box = document.querySelector(watch);
    if (!box) {{ if (tries < 100) setTimeout(() => start(tries + 1), 100); return; }}
    put();  // and whenever Streamlit draws inside `watch` (`within` may come later: a dialog)
    if (!box.__attnWatched) box.__attnWatched = new Set();
    if (box.__attnWatched.has(key)) return;
    box.__attnWatched.add(key);
    const opts = {{childList: true, subtree: true, characterData: texts}};
    if (attrs.length) Object.assign(opts, {{attributes: true, attributeFilter: attrs}});
    new MutationObserver(() => put()).observe(box, opts);
  }};
  start(0);
}})();</script>"""


def _quoted(value) -> str:
    return json.dumps(value, ensure_ascii=False).replace("</", "<\\/")


def in_reader_language(
    key: str, watch: str, within: str, words: list[tuple[str, str]], where=None, attributes=(), texts: bool = True
) -> None:
    """Streamlit's text nodes inside the element `within` (a CSS selector) matching an English pattern
    of `words` shown as its (pattern, ours) pair says, and with `attributes` (aria-label, title...)
    the values of those attributes too (texts=False: only those); `watch`, an element that outlives
    the page's runs around it, observed for Streamlit's redraws. `key` names this set of words (one
    observer per key and element); `where`: st.sidebar for a script in the sidebar (default: the
    main area)."""
    (where or st).html(
        _JS.format(
            key=_quoted(key),
            watch=_quoted(watch),
            within=_quoted(within),
            words=_quoted(words),
            attrs=_quoted(list(attributes)),
            texts=_quoted(texts),
        ),
        unsafe_allow_javascript=True,
    )


def label_words() -> list[tuple[str, str]]:
    """(pattern, ours) for every label of LABEL_KEYS and "Help for X", in the reader's language."""
    words = [("^" + re.escape(TABLE[key]["en"]) + "$", t(key)) for key in LABEL_KEYS]
    return [*words, ("^Help for (.+)$", t(HELP_KEY, label="$1"))]


def labels_in_reader_language(where=None) -> None:
    """Every label Streamlit or Plotly writes in the page (the body watched: tooltips and dialogs sit
    outside the app's element), in the reader's language; no text node is walked."""
    in_reader_language("labels", "body", "body", label_words(), where, attributes=LABEL_ATTRIBUTES, texts=False)

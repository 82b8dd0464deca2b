"""Streamlit's own words in the reader's language.

Streamlit draws a few words of its own in English whatever the page's language: the sidebar menu's
"View 9 more" / "View less" (every page: app.py lists ui.layout.NAV_SHOWN pages, then that button),
its "Page not found" dialog for a link to no page ("You have requested page /x, but no corresponding
file was found in the app's pages/ directory. Running the app's main page.": a developer's words, in
English too), the file uploader's "Upload" and "Limit 1MB per file" (the lesson editor). A Chinese class read them
in English. `in_reader_language` writes them in the reader's language where Streamlit draws them,
and again whenever Streamlit redraws them (a MutationObserver on an element that outlives the
page's runs).

Every page's run says which words to write, English included (an empty list): the observer a Chinese
page installed outlives a change of language, and a text node Streamlit does not redraw (React sees
the same "View 9 more" it drew before) is given back its English. The words are Streamlit's texts as
patterns (they changed between versions), matched against a text node's whole text; "$1" in ours is
the pattern's first group (the "9" of "View 9 more"). Our own constant script; the words are the
app's own strings, quoted by json.dumps with "</" escaped.
"""

from __future__ import annotations

import json

import streamlit as st

_JS = """<script>(() => {{
  const key = {key}, watch = {watch}, within = {within};
  (window.__attnWords = window.__attnWords || {{}})[key] = {words};
  const put = () => {{
    const root = document.querySelector(within);
    if (!root) return;
    const words = window.__attnWords[key] || [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {{
      if (n.nodeValue !== n.__attnSaid) n.__attnOrig = n.nodeValue;  // Streamlit drew it (again)
      const orig = n.__attnOrig, said = orig.trim();
      let out = orig;
      for (const [english, ours] of words) {{
        const m = said.match(new RegExp(english));
        if (m) {{ out = ours.replace(/\\$(\\d)/g, (_, i) => m[+i] ?? ""); break; }}
      }}
      if (out !== n.nodeValue) n.nodeValue = out;
      n.__attnSaid = n.nodeValue;
    }}
  }};
  const start = (tries) => {{
    const box = document.querySelector(watch);
    if (!box) {{ if (tries < 100) setTimeout(() => start(tries + 1), 100); return; }}
    put();  // and whenever Streamlit draws inside `watch` (`within` may come later: a dialog)
    if (!box.__attnWatched) box.__attnWatched = new Set();
    if (box.__attnWatched.has(key)) return;
    box.__attnWatched.add(key);
    new MutationObserver(() => put()).observe(box, {{childList: true, subtree: true, characterData: true}});
  }};
  start(0);
}})();</script>"""


def _quoted(value) -> str:
    return json.dumps(value, ensure_ascii=False).replace("</", "<\\/")


def in_reader_language(key: str, watch: str, within: str, words: list[tuple[str, str]], where=None) -> None:
    """Streamlit's text nodes inside the element `within` (a CSS selector) matching an English pattern
    of `words` shown as its (pattern, ours) pair says; `watch`, an element that outlives the page's
    runs around it, observed for Streamlit's redraws. `key` names this set of words (one observer per
    key and element); `where`: st.sidebar for a script in the sidebar (default: the main area)."""
    (where or st).html(
        _JS.format(key=_quoted(key), watch=_quoted(watch), within=_quoted(within), words=_quoted(words)),
        unsafe_allow_javascript=True,
    )

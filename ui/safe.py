"""Showing user text safely: it is data, never markup, and never a live link.

Streamlit's markdown renders Markdown (and would render HTML with unsafe_allow_html, which this
app never uses) and, like GitHub, turns bare addresses into links: `https://…`, `www.…` and
e-mail addresses. Any user text placed inside markdown goes through md() first; a value a visitor
chose (a link's parameter, a model name) is echoed with echo(), which also cuts it short, so a
crafted link cannot put a sentence of its own ("Your session expired. Sign in again at …") in the
app's message boxes.
"""

import html
import re

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=])")  # "=": a line of them makes a heading
# a word that markdown would turn into a link: a scheme (https://, ftp://, javascript://), www.,
# or an e-mail address (user@host.tld, mailto:user@host)
_LINKISH = re.compile(r"(?i)([a-z][a-z0-9+.\-]*:/{1,}|www\d{0,3}\.|@[^\s@]*\.)")
ECHO_LIMIT = 40


def defang(text: str) -> str:
    """Every word that could become a link with its ':' '.' '@' bracketed ("https[:]//evil[.]example"),
    the way security advisories quote addresses: still readable, never clickable."""

    def fix(word: str) -> str:
        if not _LINKISH.search(word):
            return word
        return word.replace(":", "[:]").replace(".", "[.]").replace("@", "[@]")

    return "".join(fix(w) for w in re.split(r"(\s+)", str(text)))


def md(text: str) -> str:
    """Escape text for st.markdown / st.caption / labels: bare links defanged, HTML entities, then
    Markdown syntax."""
    return _MD_SPECIAL.sub(r"\\\1", html.escape(defang(str(text)), quote=False).replace("\n", " "))


def text_md(text: str) -> str:
    """A whole text (a lesson's question or reveal) as md() does a value, its line breaks kept as
    line breaks: every character shown as typed, nothing a link, an image, HTML or Markdown
    structure (no reference definition, autolink, heading or list can form across lines either,
    since every bracket, colon, '<', '#', '-' and '.' is escaped). A line's leading spaces go: four
    of them would make it a code block, shown with the escapes' backslashes."""
    return "  \n".join(md(line.lstrip()) for line in str(text).split("\n"))


def short(text: str, limit: int = 60) -> str:
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def echo(value, limit: int = ECHO_LIMIT) -> str:
    """A visitor's value shown back in a message: at most ``limit`` characters, no live link, no markup."""
    return md(short(" ".join(str(value).split()), limit))

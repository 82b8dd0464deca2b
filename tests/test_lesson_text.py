"""Issue 32 item 5: a lesson's text is a stranger's (an uploaded file, a room's shared lesson), so it
reaches the page as plain text: no link, no image, no HTML, however it is spelled or encoded.
ui.lesson_view.lesson_md() is the one way it reaches st.markdown; here every hostile text of the
battery goes through it and through a CommonMark renderer (markdown-it-py, the rules Streamlit's
react-markdown follows), and the rendered HTML holds nothing but paragraphs and line breaks.
tests/test_app_lesson_text.py does the same on the lessons page itself."""

from __future__ import annotations

import html
import re

import pytest
from markdown_it import MarkdownIt

from lessons.schema import LessonError, validate

# each would be a link, an image, HTML or structure if the lesson text were rendered as Markdown
HOSTILE = [
    "![][p] Sign in [again][r] to save your answers.\n\n[p]: //tracker/p.png\n[r]: https&#58;//evil.example/login",
    "[p]: //tracker/p.png\n![x][p]",
    '[r]: <//evil.example/login> "Sign in"\n[Sign in again][r]',
    "![](//tracker/p.png)",
    "[Sign in](//evil.example/login)",
    "[Sign in](https&#58;//evil.example/login)",
    "[Sign in](javascript&colon;alert(1))",
    "<https://evil.example/login>",
    "<//evil.example>",
    "<evil@example.com>",
    "https://evil.example/login",
    "www.evil.example/login",
    "mail evil@example.com now",
    "<img src=//tracker/p.png>",
    '<a href="//evil.example">Sign in</a>',
    "&lt;img src=x onerror=alert(1)&gt;",
    "&#60;img src=x&#62;",
    "&#x3C;a href=//evil.example&#x3E;x&#x3C;/a&#x3E;",
    "<!-- hidden --> <details open>x</details>",
    "Sign in \\[again\\]\\(//evil.example\\)",
    "[again]\n\n[again]: //evil.example",
    "# Your session expired\n\n- sign in\n1. again",
    "Your session expired\n===\nSign in again\n---",
    "    indented code [x](//evil.example)",
    "`code` **bold** _it_ ~~gone~~ $x^2$ :red[alert] :material/lock:",
    "| a | b |\n|---|---|\n| [x](//e.example) | y |",
]
ALLOWED_TAGS = {"p", "/p", "br", "h3", "/h3"}


def rendered(markdown: str) -> str:
    return MarkdownIt("commonmark").render(markdown)


def tags(html_out: str) -> set[str]:
    return {m.group(1).lower() for m in re.finditer(r"<\s*(/?[A-Za-z0-9]+)", html_out)}


def visible(html_out: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", html_out))


@pytest.mark.parametrize("text", HOSTILE)
def test_lesson_text_renders_as_plain_text_only(text):
    from ui.lesson_view import lesson_md

    shown = lesson_md({"en": text, "zh": text}, {})
    assert tags(rendered(shown)) <= ALLOWED_TAGS, (text, rendered(shown))  # a reveal
    out = rendered("### " + shown)  # a question
    assert tags(out) <= ALLOWED_TAGS, (text, out)
    seen = visible(out)
    assert "://" not in seen and "www." not in seen.lower(), seen  # no bare link for GFM's autolinker
    # what the reader sees is what the file says (addresses defanged: "https[:]//evil[.]example")
    squash = lambda s: re.sub(r"\s+", "", s)  # noqa: E731
    expected = squash(text.replace("[:]", ":"))
    assert squash(seen.replace("[:]", ":").replace("[.]", ".").replace("[@]", "@")) == expected


def test_a_placeholder_value_is_plain_text_too():
    """A model's token or the sentence ({text}, {tokens}) filled into a lesson text: shown as typed."""
    from ui.lesson_view import fill, lesson_md

    params = {"tokens": "<s> [x](//e.example) mat.", "text": "![](//t.example/p.png)", "n": 3}
    texts = {"en": "{n} tokens: {tokens} in {text}", "zh": "{n}"}
    assert fill(texts, params) == "3 tokens: <s> [x](//e.example) mat. in ![](//t.example/p.png)"
    assert tags(rendered(lesson_md(texts, params))) <= ALLOWED_TAGS


def test_the_issue_s_lesson_file_is_shown_not_rendered():
    """The text of issue 32 passes the validator (it is plain text, as far as a validator can tell)
    and so must be safe to show; an id with a trailing newline does not pass (item 10)."""
    step = (
        '\n[[step]]\nmodel = "translator"\nsentence = "The cat sat on the mat"\nquestion = "choice"\n'
        'query = "token_count"\nask.en = """' + HOSTILE[0] + '"""\nask.zh = "x"\nreveal.en = "x"\nreveal.zh = "x"\n'
    )
    lesson = validate('id = "phish"\ntitle = { en = "t", zh = "t" }\n' + step)
    from ui.lesson_view import lesson_md

    assert tags(rendered(lesson_md(lesson.steps[0]["ask"], {}))) <= ALLOWED_TAGS
    with pytest.raises(LessonError) as e:
        validate('id = "a\\n"\ntitle = { en = "t", zh = "t" }\n' + step)
    assert e.value.code == "bad_id"

"""The translation table, and every page of the app walked in English and in Chinese.

- Every entry of ui.i18n.TABLE has a non-empty English and Chinese text, with the same {fields}.
- Every page listed in app.py's PAGES (whatever pages exist when this runs: others are written
  in parallel) runs in both languages without an exception, and t() records no missing key
  (ui.i18n.MISSING stays empty).

Each page runs once, opened straight on it (apptest.open_alone: a copy of app.py whose
PAGES keeps the files that exist, the page under test first; no switch_page, after which AppTest
would drop the sidebar's widget values and quietly turn the app back to English). Trained weights
are used where they exist, random ones otherwise.
"""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from apptest import open_alone, pages_of_app

import ui.i18n as i18n

ROOT = Path(__file__).resolve().parents[1]


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_entry_has_english_and_chinese():
    assert i18n.TABLE, "the table is empty"
    problems = []
    for key, entry in i18n.TABLE.items():
        for lang in i18n.LANGS:
            text = entry.get(lang)
            if not isinstance(text, str) or not text.strip():
                problems.append(f"{key}: no {lang}")
        if all(isinstance(entry.get(lang), str) for lang in i18n.LANGS):
            en, zh = fields(entry["en"]), fields(entry["zh"])
            if en != zh:
                problems.append(f"{key}: placeholders differ, en {sorted(en)} zh {sorted(zh)}")
    assert not problems, "\n".join(problems)


def computed_key_calls():
    """(file, line, prefix, keyword names) of every t(f"prefix{x.holds}", ...) in the app's Python:
    a key picked by a claim's verdict (att_real_pronoun_{c.holds}), whose True and False variants
    the one call must both fill."""
    import ast

    out = []
    for path in sorted(ROOT.glob("pages/*.py")) + sorted(ROOT.glob("ui/**/*.py")) + [ROOT / "app.py"]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "t" and node.args):
                continue
            key = node.args[0]
            if not isinstance(key, ast.JoinedStr) or len(key.values) != 2 or any(k.arg is None for k in node.keywords):
                continue
            prefix, verdict = key.values
            if isinstance(prefix, ast.Constant) and ast.unparse(verdict.value).endswith("holds"):
                out.append((path.relative_to(ROOT), node.lineno, prefix.value, {k.arg for k in node.keywords}))
    return out


def test_a_verdicts_sentence_gets_the_fields_of_both_variants():
    """t(f"att_real_pronoun_{c.holds}", ...) gave the True sentence's fields, and the False one
    (no head links "it" to "animal": Gemma 3 270M) needs {min}: a KeyError that took the attention
    page down on Gemma. Each such call fills every field of both sentences."""
    calls = computed_key_calls()
    assert len(calls) >= 2, calls  # the scan sees them (att_real_sink_, att_real_pronoun_, ...)
    problems = []
    for path, line, prefix, given in calls:
        for key in (prefix + "True", prefix + "False"):
            assert key in i18n.TABLE, f"{path}:{line}: no {key}"
            missing = fields(i18n.TABLE[key]["en"]) - given
            if missing:
                problems.append(f"{path}:{line}: {key} needs {sorted(missing)}")
    assert not problems, "\n".join(problems)


def test_pages_list_names_translated_titles():
    pages, _ = pages_of_app()
    assert pages, "no pages"
    for file, _, key, _ in pages:
        assert key in i18n.TABLE, f"{file}: title key {key} is not in the table"


pytestmark = pytest.mark.usefixtures("random_where_untrained")  # tests/conftest.py


def _page_files() -> list[str]:
    """app.py's pages whose files exist (others are written in parallel), at collection."""
    return [p[0] for p in pages_of_app()[0] if (ROOT / p[0]).exists()]


def test_the_pages_walked_in_both_languages_are_app_pys():
    """The walk below has a case for every page (so a contributor's copy runs only its new page's,
    tests/test_new_page_and_lesson.py); one that found no page must fail, not pass on none."""
    assert _page_files(), "no page files exist"


@pytest.mark.slow  # every page through AppTest, a case a page (5-7 s a language in all)
@pytest.mark.parametrize("page_file", _page_files())
@pytest.mark.parametrize("lang", list(i18n.LANGS))
def test_every_page_in_both_languages(lang, page_file):
    i18n.MISSING.clear()
    problems = []
    try:
        at = open_alone(page_file, lang=lang)
    except AssertionError as e:  # an exception on the page
        problems.append(f"{page_file}: {e}")
    else:
        if not at.title:
            problems.append(f"{page_file}: no title")
        elif at.radio(key="lang").value != lang:
            problems.append(f"{page_file}: ran in {at.radio(key='lang').value}, not {lang}")
    assert not problems, "\n".join(problems)
    assert not i18n.MISSING, f"keys missing from the table ({lang}): {sorted(i18n.MISSING)}"

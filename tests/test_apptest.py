"""tests/apptest.py's helpers as a test writer uses them: a page opened in 中文 needs no fixture."""

import pytest

from tests import apptest
from ui import i18n


@pytest.mark.slow
def test_open_page_in_chinese_needs_no_fixture():
    at = apptest.open_page("pages/architecture.py", "gpt", lang="zh")
    assert at.title and at.title[0].value == i18n.text_in("zh", "page_architecture"), [x.value for x in at.title]
    at.run()  # a rerun formats the sidebar's options in 中文 as well
    apptest.ok(at)


def test_an_unknown_language_fails_with_the_app_s_languages():
    with pytest.raises(ValueError, match="the app's languages"):
        apptest.open_page("pages/architecture.py", "gpt", lang="fr")


def test_the_language_is_the_default_again_after_a_test():
    assert i18n.DEFAULT_LANG == apptest.ORIGINAL_LANG

"""tests/apptest.py's helpers as a test writer uses them: a page opened in 中文 needs no fixture; the
copies of app.py it makes are removed with their process (184 such folders were left in /tmp by a
day of runs until 2026-12-05)."""

import subprocess
import sys
from pathlib import Path

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


ROOT = Path(__file__).resolve().parents[1]


def test_an_app_copy_is_removed_with_its_process_and_pages_stay():
    code = "from tests import apptest; p = apptest.app_copy('pages/home.py'); print(p.parent); assert (p.parent / 'pages').is_symlink()"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    folder = Path(done.stdout.strip().splitlines()[-1])
    assert folder.name.startswith("apptest_"), done.stdout
    assert not folder.exists(), f"{folder} is still there after its process ended"
    assert (ROOT / "pages" / "home.py").exists()

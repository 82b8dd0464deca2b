from pathlib import Path

import pytest

WEIGHTS = Path(__file__).resolve().parent.parent / "model" / "weights"


def trained(name: str) -> bool:
    return (WEIGHTS / f"{name}.safetensors").exists()


@pytest.fixture(scope="session")
def random_runner():
    """Load a model with seed-0 random weights (architecture tests need no training)."""
    import model

    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = model.load(name, device="cpu", random_weights=True)
        return cache[name]

    return get


@pytest.fixture(scope="session", autouse=True)
def apptest_setup():
    """Two changes to AppTest itself, none to the app:

    - One ScriptCache for the module: AppTest makes a new one on every run, so it re-parses
      app.py and the page (and rewrites their AST for magic) each time, most of a run's time.
      The files do not change while the tests run.
    - The app as a server runs it once st.navigation has been called: AppTest forgets that on
      every run, and because a folder named pages/ sits beside app.py, Streamlit's older
      multipage mode then sends each rerun straight to the page file, around app.py (and
      ui.context.current() then leaves that mode and reruns, which AppTest undoes on its next
      run, so the sidebar's widgets would lose their values between runs). A server leaves the
      mode once for good; AppTest resets it on every run, so this stays.
    """
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.testing.v1 import app_test, local_script_runner

    class NavigationSeen(PagesManager):
        def __init__(self, *args, **kwargs):
            PagesManager.uses_pages_directory = False  # as after st.navigation's first call
            super().__init__(*args, **kwargs)

    shared = ScriptCache()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(app_test, "ScriptCache", lambda: shared)
        mp.setattr(local_script_runner, "ScriptCache", lambda: shared)
        mp.setattr(app_test, "PagesManager", NavigationSeen)
        yield
        PagesManager.uses_pages_directory = None

"""Browser tests: the app in headless Chromium (see conftest.py)."""

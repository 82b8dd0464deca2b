"""`python -m ui.browser_model`: every shipped model's graph and the tokenizer into static/models/
(exported into the cache first where it holds none current); scripts/test runs it."""

from ui.browser_model import ROOT, publish

for path in publish():
    print(f"published {path.relative_to(ROOT)} ({path.stat().st_size / 1e6:.1f} MB)")

"""`python -m ui.browser_model`: every shipped model's graph and the tokenizer into static/models/
(exported into the cache first where it holds none current); scripts/test runs it.

The work is under the main guard: a test that imports every module of ui/ (tests/test_views.py)
imported this one and so exported all five graphs (that test took 205 s of the fast loop at load 9,
2026-12-04)."""

from ui.browser_model import ROOT, publish


def main() -> None:
    for path in publish():
        print(f"published {path.relative_to(ROOT)} ({path.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()

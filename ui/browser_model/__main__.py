"""`python -m ui.browser_model [--jobs N]`: every shipped model's graph and the tokenizer into
static/models/ (exported into the cache first where it holds none current, N exports at once). The
one command that publishes them: scripts/test, scripts/app, the Dockerfile and ui.serve's child
process run it.

The work is under the main guard: a test that imports every module of ui/ (tests/test_views.py)
imported this one and so exported all five graphs (that test took 205 s of the fast loop at load 9,
2026-12-04)."""

import argparse

from ui.browser_model import ROOT, publish


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m ui.browser_model", description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=1, help="exports at once, each in a process of its own")
    args = parser.parse_args(argv)
    for path in publish(jobs=max(1, args.jobs)):
        print(f"published {path.relative_to(ROOT)} ({path.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()

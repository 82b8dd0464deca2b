"""`python -m ui.browser_model [--jobs N]`: every shipped model's graph and the tokenizer into
static/models/ (exported into the cache first where it holds none current, N exports at once). The
one command that publishes them: scripts/test, scripts/app, the Dockerfile and ui.serve's child
process run it.

The work is under the main guard: a test that imports every module of ui/ (tests/test_views.py)
imported this one and so exported all five graphs (that test took 205 s of the fast loop at load 9,
2026-12-04)."""

import argparse

from ui.browser_model import ROOT, publish


def jobs(value: str) -> int:
    """--jobs: a whole number of exports at once, 1 or more (0 was quietly raised to 1 until
    2026-12-05: a typo ran one export where the reader asked for none or meant another number)."""
    n = int(value)
    if n < 1:
        raise argparse.ArgumentTypeError(f"{value}: the exports at once, 1 or more")
    return n


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m ui.browser_model", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--jobs", type=jobs, default=1, help="exports at once (1 or more), each in a process of its own"
    )
    args = parser.parse_args(argv)
    for path in publish(jobs=args.jobs):
        print(f"published {path.relative_to(ROOT)} ({path.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()

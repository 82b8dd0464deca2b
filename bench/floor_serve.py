"""`python -m bench.floor_serve [streamlit options]`: bench/floor_app.py served with numpy and plotly
imported before the server listens, as python -m ui.serve preloads the app's libraries, so the
floor's first visit and the app's compare like for like (bench/first_visit.py)."""

import sys
from pathlib import Path

import numpy  # noqa: F401
import plotly.graph_objects  # noqa: F401
from streamlit.web import cli

if __name__ == "__main__":
    app = Path(__file__).with_name("floor_app.py")
    sys.exit(cli.main(["run", str(app), *sys.argv[1:]], prog_name="streamlit", standalone_mode=True))

"""`python -m bench.floor_serve [streamlit options]`: bench/floor_app.py served with numpy and plotly
imported before the server listens, as python -m ui.serve preloads the app's libraries, so the
floor's first visit and the app's compare like for like (bench/first_visit.py)."""

import os
import sys
from pathlib import Path

import numpy  # noqa: F401
import plotly.graph_objects  # noqa: F401
from streamlit.web import cli

if __name__ == "__main__":
    # ATTN_FLOOR_APP: another floor in bench/ (floor_table_app.py: the table alone, no chart library)
    app = Path(__file__).with_name(os.environ.get("ATTN_FLOOR_APP", "floor_app.py"))
    sys.exit(cli.main(["run", str(app), *sys.argv[1:]], prog_name="streamlit", standalone_mode=True))

"""Pure functions from attention arrays and token labels to numbers, tables and figures.

No Streamlit and no torch in here: everything is testable without a server and reusable in a
notebook. Import from the submodules (``from viz.heatmap import attention_heatmap``), so
``analysis.measures`` costs only numpy.
"""

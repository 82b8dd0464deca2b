"""Starting the app as a server and driving it in Chromium, for the tests and the benchmarks (drive/server.py)."""

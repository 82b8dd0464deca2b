"""Lessons as data: predict-then-reveal lessons written as TOML files (lessons/builtin/*.toml and
the teacher's own), whose answers the app computes from the models with a fixed set of named
queries (lessons/queries.py).

    schema.py   what a lesson file may hold, checked with one clear error naming the line
    files.py    read, write and find lesson files (the built-in ones, the server's folder)
    queries.py  the named queries: each computes a step's options, answer, margin and numbers
    steps.py    what a built step is (Step, Heat, Bars) and the margin rule (MARGINS, passes)
    pick.py     finding a step's row, layer and head in a trace (a word, "mean", "decided", ...)
    build.py    a lesson file's steps built on the models
    answers.py  answers in a link, the score
    results.py  the class's results per step as a table and CSV

No Streamlit here; ui/lessons.py, ui/editor.py and the pages lay it out.
"""

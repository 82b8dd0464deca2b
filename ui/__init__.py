"""Streamlit glue shared by the pages: the sidebar and Context, URL state, caches, translations.

pages/ hold layout; model/ computes; viz/ draws; this package is what every page would otherwise
repeat."""

"""The compare page's parts (pages/compare.py runs them): choices.py (sentence B's default, the
temperatures offered, the untrained start). Only pages/compare.py imports them."""

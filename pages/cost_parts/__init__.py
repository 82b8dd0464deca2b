"""The cost page's parts (pages/cost.py runs them): shared.py (limits, cached computations, pickers), one module
per section: n2, sparse, scale, flash, qkv. Only pages/cost.py imports them."""

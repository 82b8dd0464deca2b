"""The generation page's parts (pages/generation.py runs them): kv_cache.py, the KV-cache section
(the cache's rows, bytes and per-token cost as the text is written). Only pages/generation.py
imports them."""

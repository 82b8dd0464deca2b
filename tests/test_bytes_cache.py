"""ui/cache.py's BytesCache: the trace caches are bounded in bytes, not only in entries (issue 26:
220 distinct 256-token texts on MiniLM took a server 710 -> 4,461 MB through a count-bounded cache)."""

import numpy as np

from ui import cache


def test_bytes_bound_drops_the_least_recently_used():
    store = cache.BytesCache(max_bytes=3.5e6, max_entries=100)
    for i in range(10):
        store.put(i, np.zeros(1_000_000 // 8))  # about 1 MB each
    assert store.bytes <= 3.5e6 and len(store) == 3
    assert store.get(0) is None and store.get(9) is not None
    store.get(7)  # used: kept over 8
    store.put(10, np.zeros(1_000_000 // 8))
    assert store.get(7) is not None and store.get(8) is None


def test_entries_bound_and_a_value_larger_than_the_bound_is_not_kept():
    store = cache.BytesCache(max_bytes=1e6, max_entries=2)
    for i in range(5):
        store.put(i, i)
    assert len(store) == 2
    store.put("big", np.zeros(200_000))  # 1.6 MB
    assert store.get("big") is None and len(store) == 2


def test_a_hit_is_a_copy():
    calls = []

    @cache.bytes_cache(1e6, 10)
    def f(x):
        calls.append(x)
        return np.arange(3) * x

    a = f(2)
    a[0] = 99  # a caller changing its copy
    assert f(2)[0] == 0 and calls == [2]
    f.clear()
    f(2)
    assert calls == [2, 2]


def test_the_trace_caches_together_stay_within_the_stated_bound():
    assert cache.trace.store.max_bytes + __import__("ui.intervene").intervene.trace.store.max_bytes <= (
        cache.TRACE_CACHE_MB * 2**20 + 1
    )

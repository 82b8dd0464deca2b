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


def test_every_cache_of_traces_or_built_steps_together_stays_within_the_stated_bound():
    """Every BytesCache (the sidebar's traces, the intervene and compare pages' runs, the lessons'
    built steps) registers itself in cache.CACHES; their bounds together are ATTN_TRACE_CACHE_MB, the
    figure docs/hosting.md's memory bound adds. Issue 32: the lessons' steps were an st.cache_data
    bounded by entries only."""
    from ui import intervene, lessons

    assert set(cache.CACHES) == set(cache.SHARES)
    ours = {id(c) for c in cache.CACHES.values()}
    for fn in (cache.trace, intervene.trace, lessons.steps_of):
        assert id(fn.store) in ours, fn.__name__  # a byte-bounded cache, not st.cache_data's entries
    assert sum(c.max_bytes for c in cache.CACHES.values()) <= cache.TRACE_CACHE_MB * 2**20 + 1
    assert abs(sum(cache.SHARES.values()) - 1.0) < 1e-9


def test_a_trace_larger_than_any_bound_is_computed_but_never_kept():
    """A model of any size (MiniLM, a 135M decoder): a trace over its cache's bound is served and
    dropped, never held (the bound is in bytes, whatever the model)."""
    calls = []

    @cache.bytes_cache(2e6, 100)
    def big(i):
        calls.append(i)
        return np.ones((4, 8, 128, 128), np.float32)  # 2 MB of attention, over the bound with pickling

    big(0)
    big(0)
    assert calls == [0, 0] and big.store.bytes == 0


def test_a_value_over_the_bound_is_never_pickled_whole():
    """capped_pickle stops writing at the cap: the buffer it fills never holds more than the cap
    (the oracle is the largest write it accepted), and a value under the cap is pickle.dumps's."""
    import pickle

    big = np.arange(2_000_000, dtype=np.float64)  # 16 MB
    written = []
    real_write = cache._CappedBuffer.write

    def write(self, b):
        n = real_write(self, b)
        written.append(self.tell())
        return n

    cache._CappedBuffer.write = write
    try:
        assert cache.capped_pickle({"w": big}, 1_000_000) is None
    finally:
        cache._CappedBuffer.write = real_write
    assert max(written, default=0) <= 1_000_000
    small = {"w": np.arange(10)}
    assert cache.capped_pickle(small, 1_000_000) == pickle.dumps(small, protocol=pickle.HIGHEST_PROTOCOL)

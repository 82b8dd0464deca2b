"""Memory limits, in-process (no server): the trace cache stays bounded after 500 sentences, and
a GPU out of memory falls back to the CPU once with a notice while one on the CPU is not hidden.
(Moved out of tests/browser/test_security.py, where they ran in the serial phase for nothing.)"""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch


# -- bounded caches (in-process) -----------------------------------------------------------------
def rss_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads RSS from /proc (Linux)")
def test_trace_cache_stays_bounded_after_500_sentences(monkeypatch):
    """500 distinct long sentences through ui.cache.trace: the cache keeps max_entries (200), so
    memory after 500 grows far less than 300 more traces would take."""
    monkeypatch.setenv("ATTN_RANDOM_WEIGHTS", "1")  # only used when no trained file exists
    from ui import cache

    cache.trace.clear()
    rng = np.random.default_rng(0)
    vocab = "the cat dog sat on mat ran big small red blue house tree bird sang".split()

    def sentence(i):
        return f"s{i} " + " ".join(rng.choice(vocab, size=140))  # cut to the model's 127 tokens

    torch.set_num_threads(1)
    first = cache.trace("gpt", "cpu", sentence(-1))
    per_trace = first.attention["decoder"].weights.nbytes
    for i in range(cache.TRACE_CACHE_ENTRIES):
        cache.trace("gpt", "cpu", sentence(i))
    full = rss_bytes()
    for i in range(cache.TRACE_CACHE_ENTRIES, 500):
        cache.trace("gpt", "cpu", sentence(i))
    after = rss_bytes()
    unbounded = (500 - cache.TRACE_CACHE_ENTRIES) * per_trace
    growth = after - full
    print(
        f"trace {per_trace / 1e3:.0f} kB; RSS {full / 1e6:.0f} MB with {cache.TRACE_CACHE_ENTRIES} "
        f"cached, {after / 1e6:.0f} MB after 500 (+{growth / 1e6:.1f} MB; unbounded would add "
        f"~{unbounded / 1e6:.0f} MB)"
    )
    assert growth < 0.25 * unbounded, (growth, unbounded)
    cache.trace.clear()


# -- GPU out of memory (unit: no GPU needed) -----------------------------------------------------
def test_cuda_out_of_memory_falls_back_to_the_cpu_once_with_a_notice(monkeypatch):
    import model

    runner = model.load("gpt", device="cpu", random_weights=True)
    expected = runner.trace("The cat sat on the mat").attention["decoder"].weights
    runner.device = torch.device("cuda")  # pretend: this torch build has no CUDA
    monkeypatch.setattr(runner, "_tensor", lambda ids, device: torch.tensor([ids], dtype=torch.long))
    calls = []
    real_forward = runner.module.forward

    def forward(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB (simulated)")
        return real_forward(*args, **kwargs)

    monkeypatch.setattr(runner.module, "forward", forward)
    tr = runner.trace("The cat sat on the mat")
    assert len(calls) == 2, "the CPU run did not follow the failed GPU run"
    assert runner._cpu_copy is not None and next(runner._cpu_copy.parameters()).device.type == "cpu"
    assert any("ran out of memory" in n and "CPU" in n for n in tr.notices), tr.notices
    np.testing.assert_allclose(tr.attention["decoder"].weights, expected, atol=1e-6)
    # the next request tries the GPU again (memory may be free by then)
    tr2 = runner.trace("The dog barked")
    assert len(calls) == 3 and not any("ran out of memory" in n for n in tr2.notices)


def test_out_of_memory_on_the_cpu_is_not_hidden(monkeypatch):
    import model

    runner = model.load("gpt", device="cpu", random_weights=True)

    def forward(*args, **kwargs):
        raise torch.OutOfMemoryError("simulated")

    monkeypatch.setattr(runner.module, "forward", forward)
    with pytest.raises(torch.OutOfMemoryError):
        runner.trace("The cat sat on the mat")


# -- what a closed tab keeps, the janitor, the allocator (ui/memory.py; issue 32, item 2) -----------
PAGE = """
import numpy as np
weights = np.ones((6, 12, 256, 256), dtype=np.float32)  # a 1,100-character MiniLM text's trace: 19 MB
scale = np.full(1000, 2.0)  # read by the callback, through a helper
names = ["Head 1", "Head 2", "Head 3"]
label = lambda h: names[h]  # a format function: it reads a light value of the run
def helper():
    return float(scale[0])
def on_change():  # a widget's callback
    return helper() * 3
def part():  # a fragment: it reads the trace
    return weights.mean()
"""


def _closed_tab(running: bool = False):
    """A session as Streamlit keeps a closed tab for its reconnect: its last run's widgets (a radio
    with a page-defined format function and callback) and fragment, all defined in that run's
    module namespace, which holds a large array."""
    import json
    import types

    from streamlit.elements.widgets.radio import RadioSerde
    from streamlit.runtime.app_session import AppSessionState
    from streamlit.runtime.fragment import MemoryFragmentStorage
    from streamlit.runtime.state.common import WidgetMetadata
    from streamlit.runtime.state.session_state import SessionState

    namespace = {"__name__": "__main__", "__file__": "pages/intervene.py"}
    exec(compile(PAGE, "pages/intervene.py", "exec"), namespace)  # a page run: Streamlit's own way
    serde = RadioSerde(
        [0, 1, 2],
        formatted_options=["Head 1", "Head 2", "Head 3"],
        formatted_option_to_option_index={"Head 1": 0, "Head 2": 1, "Head 3": 2},
        default_option_index=0,
        format_func=namespace["label"],
    )
    state = SessionState()
    state._new_widget_state.set_widget_metadata(
        WidgetMetadata(
            id="$$ID-head",
            deserializer=serde.deserialize,
            serializer=serde.serialize,
            value_type="string_value",
            callback=namespace["on_change"],
        )
    )
    state._new_widget_state.set_widget_metadata(  # a callback of a module, light arguments: no run held
        WidgetMetadata(
            id="$$ID-lang",
            deserializer=str,
            serializer=str,
            value_type="string_value",
            callback=json.dumps,
            callback_args=("zh",),
        )
    )
    fragments = MemoryFragmentStorage()
    fragments.register("part", namespace["part"])
    session = types.SimpleNamespace(
        id="closed-tab",
        _state=AppSessionState.APP_IS_RUNNING if running else AppSessionState.APP_NOT_RUNNING,
        _fragment_storage=fragments,
        session_state=state,
    )
    return session, namespace


def test_a_closed_tab_lets_go_of_its_last_runs_trace_and_keeps_what_a_reconnect_needs():
    """ui/streamlit_internals.drop_last_run frees the run's large values (a weak reference is the
    oracle) while the widgets' callbacks and format functions still work, with what they read;
    before it, the closed tab's widgets and fragment kept the 19 MB array alive (what
    bench.attack --hf-pages-only measured: one trace per closed tab, 557 MB for 26 tabs)."""
    import gc
    import weakref

    from ui import streamlit_internals

    session, namespace = _closed_tab()
    trace = weakref.ref(namespace["weights"])
    del namespace  # only the session's widgets and fragment refer to the run now
    gc.collect()
    assert trace() is not None, "the closed tab's widgets did not keep its run (the test shows nothing)"

    dropped = streamlit_internals.drop_last_run(session)

    assert trace() is None, "the trace is still alive after the tab was released"
    assert dropped == 1  # the trace; scale is read by the callback (through helper); the rest is light
    metas = session.session_state._new_widget_state.widget_metadata
    assert metas["$$ID-head"].callback() == 6.0  # the first click after a reconnect still works
    assert metas["$$ID-head"].serializer(1) == "Head 2"  # the format function reads its light values
    assert metas["$$ID-head"].deserializer("Head 3") == 2
    assert metas["$$ID-lang"].callback_args == ("zh",)
    assert not session._fragment_storage.contains("part")


def test_a_tab_whose_script_is_still_running_is_left_alone():
    """Asked to stop, not yet stopped: its run still uses that namespace, so nothing is dropped."""
    import weakref

    from ui import streamlit_internals

    session, namespace = _closed_tab(running=True)
    trace = weakref.ref(namespace["weights"])
    assert streamlit_internals.drop_last_run(session) == -1
    assert trace() is not None and "weights" in namespace
    assert session._fragment_storage.contains("part")


def test_the_janitor_collects_after_growth_from_the_lowest_rss_it_saw():
    from ui.memory import Janitor

    mb = 2**20
    j = Janitor(128 * mb)
    assert not j.due(600 * mb)  # the first look: the baseline
    assert not j.due(700 * mb)
    assert j.due(730 * mb)  # 600 + 128 reached
    j.collected(650 * mb)
    assert not j.due(760 * mb)
    assert not j.due(620 * mb)  # handed back: growth counts from 620 now
    assert j.due(748 * mb)


MALLOC_PROBE = """
import ctypes, sys
import numpy as np
from ui import memory
class MI(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in
                "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]
memory.LIBC.mallinfo2.restype = MI
if sys.argv[1] == "tuned":
    assert memory.tune_allocator(1024)
a = np.ones(8 * 2**20 // 8); del a  # a trace-sized block freed: glibc's dynamic threshold rises past it
before = memory.LIBC.mallinfo2().hblkhd
b = np.ones(8 * 2**20 // 8)
print((memory.LIBC.mallinfo2().hblkhd - before) // 2**20)  # MB of the second block mapped on its own
"""


@pytest.mark.skipif(
    not hasattr(__import__("ui.memory").memory.LIBC, "mallinfo2"), reason="glibc's mallinfo2 (Linux, glibc 2.33+)"
)
def test_a_fixed_mmap_threshold_maps_every_large_block_on_its_own():
    """glibc's own accounting (mallinfo2.hblkhd: bytes in mmapped blocks) is the oracle: after one
    8 MB block is freed, glibc's default puts the next one on the heap, whose freed pages it keeps
    (300-400 MB after issue 32's attack); with ui.memory.tune_allocator it is mapped, and handed
    back to the system when freed."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "ATTN_MMAP_THRESHOLD_KB": "0", "ATTN_GC_GROWTH_MB": "0"}  # the probe tunes by hand
    mapped = {
        how: int(
            subprocess.run(
                [sys.executable, "-c", MALLOC_PROBE, how], cwd=root, env=env, capture_output=True, text=True, check=True
            ).stdout.split()[-1]
        )
        for how in ("default", "tuned")
    }
    assert mapped == {"default": 0, "tuned": 8}, mapped

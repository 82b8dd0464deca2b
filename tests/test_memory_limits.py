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

"""bench/devices.py's smallest run, so the bench cannot rot: the CPU against itself on one model
(on a machine with CUDA the bench compares it with the CPU; docs/measurements.md has the figures)."""

from bench import devices


def test_the_devices_bench_compares_every_knob_and_finds_no_difference_of_the_cpu_with_itself():
    row = devices.compare("gpt", ("cpu", "cpu"), repeat=1)
    assert row["traces_compared"] == len(devices.SENTENCES) * len(devices.KNOBS) > 0
    assert row["max_attention_diff"] == 0.0 and row["max_logits_diff"] == 0.0 and row["outputs_differ"] == 0
    assert row["ok"] and len(row["median_trace_s"]) == 2 and all(s > 0 for s in row["median_trace_s"])


def test_the_devices_bench_fails_when_a_difference_passes_its_tolerance(monkeypatch, capsys):
    monkeypatch.setattr(devices, "ATTENTION_TOL", -1.0)  # any difference, 0 included, is too much
    assert devices.main(["--devices", "cpu", "cpu", "--models", "gpt", "--repeat", "1"]) == 1
    assert "DIFFERS" in capsys.readouterr().out

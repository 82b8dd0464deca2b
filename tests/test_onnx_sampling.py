"""ui/browser_model/sampling.js: the GPT's next-token distribution in the browser equals
model/gpt.sampling_distribution's (the server's) within 1e-6 on the trained GPT's own next-token
logits, for greedy, several sampling temperatures, top-k, top-p and both, and refuses what the
server refuses."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

import model
from model.gpt import Sampling, sampling_distribution

ROOT = Path(__file__).resolve().parents[1]
MODULE = ROOT / "ui" / "browser_model" / "sampling.js"
NODE = shutil.which("node")
SETTINGS = [
    {"temperature": 0.0},
    {"temperature": 1.0},
    {"temperature": 0.3},
    {"temperature": 2.5},
    {"temperature": 1e-6},
    {"temperature": 1.0, "top_k": 5},
    {"temperature": 0.7, "top_p": 0.9},
    {"temperature": 1.3, "top_k": 40, "top_p": 0.5},
    {"temperature": 1.0, "top_k": 1},
    {"temperature": 1.0, "top_p": 1.0},
]


def run_node(calls, tmp_path):
    cases = tmp_path / "calls.json"
    cases.write_text(json.dumps(calls), encoding="utf-8")
    script = (
        "import { readFileSync } from 'node:fs';"
        f"import {{ samplingDistribution }} from {json.dumps(MODULE.as_uri())};"
        f"const calls = JSON.parse(readFileSync({json.dumps(str(cases))}, 'utf8'));"
        "process.stdout.write(JSON.stringify(calls.map(([logits, s]) => {"
        "  try { const r = samplingDistribution(Float32Array.from(logits), s);"
        "        return {probs: Array.from(r.probs), kept: Array.from(r.kept)}; }"
        "  catch (e) { return {error: String(e.message)}; } })));"
    )
    run = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout)


@pytest.mark.skipif(NODE is None, reason="needs node")
def test_the_browser_next_token_distribution_is_the_servers(tmp_path):
    gpt = model.load("gpt", device="cpu")
    prompts = ["The cat sat on the", "The dog saw the man in the", "猫", "The"]
    logits = [gpt.next_token_logits(gpt.prompt_ids(p)[1])[0] for p in prompts]
    js = lambda s: {"temperature": s["temperature"], "topK": s.get("top_k"), "topP": s.get("top_p")}  # noqa: E731
    calls = [(lg.tolist(), js(s)) for lg in logits for s in SETTINGS]
    got = run_node(calls, tmp_path)
    checked = 0
    for (lg, s), answer in zip([(lg, s) for lg in logits for s in SETTINGS], got):
        probs, keep = sampling_distribution(lg, Sampling(s["temperature"], s.get("top_k"), s.get("top_p")))
        assert "error" not in answer, (s, answer)
        assert np.abs(np.asarray(answer["probs"]) - probs.double().numpy()).max() < 1e-6, s
        # which tokens are kept: equal wherever it matters; top-p's cut compares a running sum with
        # top_p, and at top_p = 1 float32's sum (the server's) reaches 1.0 a few tokens of
        # probability ~1e-9 before float64's does, so those may fall either side
        tempered = torch.softmax(lg / s["temperature"], -1) if s["temperature"] else probs
        matters = (tempered > 1e-6).numpy()
        assert (np.asarray(answer["kept"], dtype=bool)[matters] == keep.numpy()[matters]).all(), s
        checked += 1
    assert checked == len(prompts) * len(SETTINGS)


@pytest.mark.skipif(NODE is None, reason="needs node")
def test_the_browser_refuses_what_the_server_refuses(tmp_path):
    # (None: what JSON carries for a temperature that is not a number)
    bad = [{"temperature": -1}, {"temperature": None}, {"temperature": 1, "topK": 0}, {"temperature": 1, "topP": 0}]
    for b in bad[:1] + bad[2:]:  # the server refuses the same settings
        with pytest.raises(ValueError):
            Sampling(b["temperature"], b.get("topK"), b.get("topP"))
    got = run_node([([0.0, 1.0, 2.0], b) for b in bad], tmp_path)
    assert all("error" in g for g in got), got

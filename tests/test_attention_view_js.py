"""The attention view's JavaScript (ui/attention_view/*.js): its `node --test` unit tests
(tests/js/), the one script Python joins from its modules, shared.js written from Python's
values, the tab list both sides hold, and the browser's softmax at a temperature against
Python's (model.attention.softmax_at, through analysis.experiments' numpy door) on random arrays."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np

from analysis.experiments import softmax_at
from ui.attention_view import TABS
from ui.attention_view.bundle import HERE, modules, script, shared_js

ROOT = Path(__file__).resolve().parent.parent
NODE = shutil.which("node")


def node(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    assert NODE, "node is needed for the attention view's tests (./scripts/test installs it)"
    return subprocess.run([NODE, *args], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=120)


def test_the_node_unit_tests_pass_and_there_are_some():
    done = node("--test", "tests/js/")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    passed = int(re.search(r"^# pass (\d+)", done.stdout, re.M).group(1))
    files = sorted((ROOT / "tests/js").glob("*.test.mjs"))
    assert len(files) >= 3 and passed >= 15, (files, passed)


def test_shared_js_is_what_python_writes():
    assert (HERE / "shared.js").read_text(encoding="utf-8") == shared_js(), (
        "ui/attention_view/shared.js is stale: run `python -m ui.attention_view.bundle`"
    )


def test_the_joined_script_parses_and_holds_every_module_once(tmp_path):
    names = modules()
    on_disk = {p.name for p in HERE.glob("*.js")}
    assert names[-1] == "view.js" and set(names) == on_disk, (names, on_disk)  # no module left unjoined
    text = script()
    assert "import {" not in text and text.count("export default") == 1
    out = tmp_path / "joined.mjs"
    out.write_text(text, encoding="utf-8")
    done = node("--check", str(out))  # two modules defining one name: a SyntaxError here
    assert done.returncode == 0, done.stderr


def test_the_tab_list_is_the_same_on_both_sides():
    done = node(
        "--input-type=module",
        "-e",
        'import { TABS } from "./ui/attention_view/view.js"; console.log(JSON.stringify(TABS.map((t) => t.id)));',
    )
    assert done.returncode == 0, done.stderr
    assert tuple(json.loads(done.stdout)) == TABS


JS_SOFTMAX = """
import { softmaxAt } from "./ui/attention_view/numbers.js";
let text = "";
for await (const chunk of process.stdin) text += chunk;
const cases = JSON.parse(text).map(({ s, Q, K, T }) => {
  const scores = Float32Array.from(s, (x) => (x === null ? -Infinity : x));
  return Array.from(softmaxAt(scores, 0, Q, K, T));
});
console.log(JSON.stringify(cases));
"""


def test_the_browsers_softmax_at_t_is_pythons_on_random_arrays():
    rng = np.random.default_rng(0)
    cases, want = [], []
    for i, T in enumerate([0.05, 0.2, 0.7, 1.0, 1.9, 5.0, 20.0]):
        Q, K = int(rng.integers(1, 9)), int(rng.integers(1, 17))
        s = (rng.standard_normal((Q, K)) * (1 + i)).astype(np.float32)
        mask = np.tril(np.ones((Q, K), bool), k=K - Q)  # causal, the last query sees every key
        cases.append(
            {"s": [[float(x) if m else None for x, m in zip(r, mr)] for r, mr in zip(s, mask)], "Q": Q, "K": K, "T": T}
        )
        cases[-1]["s"] = sum(cases[-1]["s"], [])
        want.append(softmax_at(np.where(mask, s.astype(np.float64), -np.inf), T))  # model.attention's, on numpy
    done = node("--input-type=module", "-e", JS_SOFTMAX, stdin=json.dumps(cases))
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert len(got) == len(want) == 7
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.reshape(g, w.shape), w, atol=2e-6, rtol=0)

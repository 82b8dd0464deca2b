"""Decoder and cross-attention rows are labelled by the token that step writes.

The oracle is an independent path: the translator's own greedy translation (translate()) and the
GPT's next-token logits computed one prefix at a time (next_token_logits), not the trace's logits."""

import json

import numpy as np
import pytest

import model
from model.tokenizer import BOS
from tests.conftest import trained

pytestmark = pytest.mark.skipif(not trained("translator") or not trained("gpt"), reason="needs trained weights")


@pytest.fixture(scope="module")
def translator():
    return model.load("translator", device="cpu")


@pytest.fixture(scope="module")
def gpt():
    return model.load("gpt", device="cpu")


@pytest.mark.parametrize("text", ["The cat sat on the mat", "狗咬人", "The girl fed the dog. She was happy."])
def test_translator_rows_write_the_next_output_token(translator, text):
    tr = translator.trace(text)
    out = translator.translate([text])[0]
    assert tr.output_text == out
    dec, cross = tr.attention["decoder"], tr.attention["cross"]
    # the greedy output's pieces, as the tokenizer labels them, then </s>
    pieces = translator.tokenizer.labels(translator.tokenizer.encode(out))
    assert dec.query_written == pieces + ["</s>"]
    assert cross.query_written == dec.query_written
    assert dec.query_tokens[1:] == dec.query_written[:-1]  # row i reads what row i-1 wrote
    assert tr.attention["encoder"].query_written is None


def test_translator_labels_read_arrow_written(translator):
    cross = translator.trace("The cat sat on the mat").attention["cross"]
    labels = cross.query_labels()
    assert labels[0] == "<2zh> → 猫" and labels[-1].endswith("→ </s>")


def test_gpt_rows_write_the_models_top_next_token(gpt):
    tr = gpt.trace("The cat sat on the mat")
    att = tr.attention["decoder"]
    ids = [BOS] + gpt.tokenizer.encode("The cat sat on the mat")
    assert att.query_tokens == gpt.tokenizer.labels(ids)
    expected = [
        gpt.tokenizer.labels([int(np.argmax(gpt.next_token_logits(ids[: i + 1])[0].numpy()))])[0]
        for i in range(len(ids))
    ]
    assert att.query_written == expected
    assert gpt.trace_ids(ids).attention["decoder"].query_written == expected


def test_json_keeps_fields_and_adds_written(translator):
    data = json.loads(translator.trace("The cat sat on the mat").dumps())
    cross = data["attention"]["cross"]
    assert {"query_tokens", "key_tokens", "weights", "query_written"} <= set(cross)
    assert cross["query_written"][0] == "猫"
    assert "query_written" not in data["attention"]["encoder"]


@pytest.mark.slow  # runs the CLI in a subprocess (torch imported again): out of the fast loop
@pytest.mark.slow  # the CLI in subprocesses (torch imported again in each)
def test_cli_json_and_text_name_the_written_tokens(translator):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    run = lambda *a: subprocess.run(
        [sys.executable, "-m", "model", "trace", "--model", "translator", "--text", "The cat sat on the mat", *a],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
    )
    r = run("--json")
    assert r.returncode == 0, r.stderr
    cross = json.loads(r.stdout)["attention"]["cross"]
    expected = translator.trace("The cat sat on the mat").attention["cross"]
    assert cross["query_tokens"] == expected.query_tokens and cross["query_written"] == expected.query_written
    text = run().stdout
    assert "'<2zh>' (writing '猫') looks most at" in text

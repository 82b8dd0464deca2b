"""The cost page and the generation page's KV-cache section, opened from links (AppTest): what a reader
sees, checked against numbers recomputed here another way (loops over the mask, the model's own trace,
torch's FlopCounterMode)."""

import re

import numpy as np
import pytest
import torch
from apptest import notices, open_page
from torch.utils.flop_counter import FlopCounterMode

import model

PAGE = "pages/cost.py"


def qp(at, name, default=None):
    """One query parameter of the page's URL (AppTest keeps a value or a list of values)."""
    v = at.query_params.get(name, default)
    return v[0] if isinstance(v, list) else v


def shown(at) -> str:
    return "\n".join(
        [m.value for m in at.markdown]
        + [c.value for c in at.caption]
        + [s.value for s in at.success]
        + [e.value for e in at.error]
    )


@pytest.mark.parametrize("sec,lang", [("n2", "en"), ("sparse", "zh"), ("scale", "en"), ("flash", "zh"), ("qkv", "en")])
def test_every_section_opens_from_a_link_in_both_languages(sec, lang, page_language):
    missing = page_language(lang)
    at = open_page(PAGE, "gpt", sec=sec, lang=lang)
    assert not [k for k in missing if k.startswith(("cost_", "kv_"))]
    assert not at.exception
    assert qp(at, "sec", "n2") == sec
    assert at.title[0].value == ("注意力的代价" if lang == "zh" else "The cost of attention")
    assert not re.search(r"(?<![\w/])(cost|kv)_[a-z_0-9]+(?![\w.])", shown(at))  # no translation key shown as is


def test_sparse_section_share_is_the_masks_count():
    """Window 2, causal, on "<s> The cat sat on the mat": each row sees itself and one token before."""
    at = open_page(PAGE, "gpt", sec="sparse", w=2, causal=1, text="The cat sat on the mat")
    n = 7
    pairs = sum(1 for i in range(n) for j in range(n) if 0 <= i - j < 2)
    text = shown(at)
    assert f"({pairs} of {n * (n + 1) // 2})" in text
    assert qp(at, "w") == "2" and qp(at, "causal") == "1"


def test_bad_link_values_fall_back_with_a_notice():
    at = open_page(PAGE, "gpt", sec="nonsense", w=999)
    assert qp(at, "sec") is None  # the default section
    note = notices(at)
    assert "nonsense" in note and "999" in note


def test_scale_section_shows_the_vanishing_gradient():
    at = open_page(PAGE, "gpt", sec="scale")
    table = at.dataframe[0].value
    row = table[table["d_k"] == 256].iloc[0]
    assert row["max weight unscaled"] > 0.85 > 0.3 > row["max weight ÷√d_k"]
    assert row["vanished unscaled"] > 0.2 and row["vanished ÷√d_k"] == 0
    assert "梯度消失" in shown(at)


def test_flash_section_equals_ours_on_the_trained_head():
    at = open_page(PAGE, "gpt", sec="flash", layer=2, head=3, fb=2, q=4)
    msg = at.success[0].value
    diff = float(re.search(r"at most \*\*([0-9.e+-]+)\*\*", msg).group(1))
    assert diff <= 1e-6
    n = 7  # <s> The cat sat on the mat
    assert f"{n * n * 4:,} bytes" in msg and f"{n * 2 * 4:,} bytes" in msg
    assert qp(at, "fb") == "2" and qp(at, "layer") == "2"


def test_qkv_section_top_key_is_the_models_own():
    text = "The cat sat on the mat. It was happy."
    at = open_page(PAGE, "gpt", sec="qkv", layer=3, head=4, qq=9, text=text)
    tr = model.load("gpt", device="cpu").trace(text)
    att = tr.attention["decoder"]
    row = att.weights[2, 3, 9]
    top = att.key_tokens[int(row.argmax())]
    assert f"The top key is “{top}” with weight {row.max():.2f}" in shown(at).replace("\\", "")


@pytest.mark.parametrize("name", ["translator", "gpt", "gpt-rope", "gpt-alibi", "gpt-local"])
def test_qkv_default_query_is_a_row_where_the_heads_differ(name):
    """Issue 23: the section defaulted to "The" (which sees 2 keys, so every head showed about 0.5)
    and shared home's link key q. Its default is now computed per model, on its own key qq: the row
    whose heads differ most (a row that sees at least 3 keys), and the heads' top keys are not all one."""
    at = open_page(PAGE, name, sec="qkv", q=1)  # home's q=1 in the link no longer picks the query
    m = model.load(name, device="cpu")
    kind = "decoder" if m.kind == "gpt" else "encoder"
    att = m.trace("The cat sat on the mat").attention[kind]
    w = att.weights[0].astype(np.float64)  # layer 1, (h, T, T)
    seen = np.broadcast_to(att.mask, w.shape[1:]) if att.mask is not None else np.ones(w.shape[1:], bool)
    tv = [
        np.mean([0.5 * np.abs(w[a, i] - w[b, i]).sum() for a in range(len(w)) for b in range(a + 1, len(w))])
        if seen[i].sum() >= 3
        else 0.0
        for i in range(w.shape[1])
    ]
    q = int(np.argmax(tv))
    assert at.session_state["cost_qkv_q"] == q and q != 1 and seen[q].sum() >= 3
    assert len({int(w[h, q].argmax()) for h in range(len(w))}) >= 2  # heads visibly differ
    assert tv[q] >= 0.3
    assert f"is “{att.query_tokens[q]}” ({tv[q]:.2f})" in shown(at).replace("\\", "")
    assert qp(at, "qq") is None  # the default is not written into the link
    at.session_state["cost_qkv_q"] = 2  # the reader picks another token: it goes into the link
    at.run()
    assert qp(at, "qq") == "2"


def test_generation_kv_section_counts_rows_flops_and_the_sink():
    at = open_page("pages/generation.py", "gpt", done=5, prompt="The cat")
    m = model.load("gpt", device="cpu")
    g = m.generate("The cat", max_new_tokens=5, seed=0)
    text = shown(at)
    read = len(g.ids) - 1  # the newest step shown: everything but the last token
    assert f"{read} rows cached per layer × 3 layers" in text
    # FLOPs of the next token after all ids, counted by torch
    with torch.no_grad(), FlopCounterMode(display=False) as full:
        m.module(torch.tensor([g.ids]), last_only=True)
    assert f"At t = {len(g.ids)}: {full.get_total_flops():,} against" in text
    w = m.trace_ids(g.ids).attention["decoder"].weights.astype(np.float64)
    mean = np.mean([[w[la, h, 1:, 0].mean() for h in range(w.shape[1])] for la in range(w.shape[0])])
    # the sentence is the measurement: against uniform (row r sees r + 1 keys), and no sink here
    uniform = np.mean([1 / (r + 1) for r in range(1, w.shape[2])])
    ratio = w[:, :, 1:, 0].mean(-1) / uniform
    assert ratio.max() < 2  # the shipped gpt has no head at 2x uniform on this text
    assert f"uniform weights would give the first token {uniform:.2f}" in text
    assert f"mean over heads {mean:.2f}" in text and f"{ratio.max():.2f}× uniform" in text
    assert len(at.dataframe) >= 1 and qp(at, "done") == "5"


def test_kv_settings_live_in_the_link():
    at = open_page("pages/generation.py", "gpt", done=3, kvs=2, kvw=3, kvm="v", kvl=2)
    assert qp(at, "kvs") == "2" and qp(at, "kvw") == "3"
    assert qp(at, "kvm") == "v" and qp(at, "kvl") == "2"
    n = len(model.load("gpt", device="cpu").generate("The cat sat on the mat", max_new_tokens=3, seed=0).ids)
    table = at.dataframe[-1].value
    assert list(table["rows per layer (at most)"]) == [n, min(n, 5), min(n, 5)]


def test_sparse_section_shows_gpt_local_beside_gpt():
    at = open_page(PAGE, "gpt", sec="sparse")
    table = at.dataframe[0].value
    assert list(table["model"]) == ["gpt", "gpt-local"]
    from training.evaluate import evaluate

    local = evaluate("gpt-local", n=300)
    row = table[table["model"] == "gpt-local"].iloc[0]
    assert row["ratio"] == local["ratio"] and row["ratio"] >= 1.0
    assert "two-sentence stories" in shown(at)
    # one sample is not the cost: the bench's samples, their mean and spread (issue 23)
    import statistics

    from analysis import cost

    spread = cost.load_bench()["local_cost"]
    ones = [r["one"] for r in spread["samples"]]
    assert len(ones) >= 3
    text = shown(at).replace("\\", "")
    assert f"Over {len(ones)} held-out samples" in text
    assert (
        f"{statistics.mean(ones):+.3f} nats per one-sentence item on average (sd {statistics.stdev(ones):.3f}" in text
    )

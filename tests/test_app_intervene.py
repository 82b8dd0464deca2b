"""The intervene and compare pages in AppTest: what a link asks for is what the page shows, and the
numbers on the page are the model's (analysis/intervene.py), in both languages."""

from __future__ import annotations

import apptest
import numpy as np
import pytest
from apptest import array, chart, markdown

import model
from analysis import intervene
from model import intervention
from ui.safe import md

TIMEOUT = 120
TR_TEXT = "The cat sat on the mat"


def test_switching_off_the_alignment_head_shows_the_broken_translation():
    at = apptest.open_page("pages/intervene.py", "translator", TIMEOUT, text=TR_TEXT, off="cross:2:2")
    m = model.load("translator", device="cpu")
    broken = m.trace(TR_TEXT, ablate=[("cross", 1, 1)]).output_text
    untouched = m.trace(TR_TEXT).output_text
    text = markdown(at)
    assert f"Untouched: **{md(untouched)}**" in text
    assert f"With the intervention: **{md(broken)}**" in text
    assert at.multiselect(key="iv_off").value == ["cross:2:2"]
    # the model view crosses the switched-off tile out: two red lines over layer 2, head 2
    shapes = [s for s in chart(at, "iv_mv_0")["layout"].get("shapes", []) if s.get("type") == "line"]
    assert len(shapes) == 2
    # the difference heatmap is the ablated trace minus the untouched one
    diff = chart(at, "iv_diff_heat")["data"][0]["z"]
    dk, dl, dh = intervention.parse_head(at.selectbox(key="iv_dhead").value)
    off = m.trace(TR_TEXT, ablate=[("cross", 1, 1)]).attention[dk]
    wa, wb, mask, _ = intervene.align(m.trace(TR_TEXT).attention[dk].weights[dl, dh], off.weights[dl, dh])
    expected = wb - wa
    assert dk == "cross" or np.abs(expected).max() > 0
    if isinstance(diff, list):  # rows cut to their visible cells (viz.heatmap._z_values)
        for r, row in enumerate(diff):
            np.testing.assert_allclose(row, expected[r, : len(row)], atol=1e-5)
    else:
        np.testing.assert_allclose(array(diff).reshape(expected.shape), expected, atol=1e-5)
    assert any("aligned by position" in c.value for c in at.caption) == (len(off.query_tokens) != 6)


def test_importance_grid_is_written_over_the_model_view_in_chinese():
    at = apptest.open_page("pages/intervene.py", "gpt", TIMEOUT, text="The cat saw the dog. It was tired.", imp="1")
    at.radio(key="lang").set_value("zh").run()
    m = model.load("gpt", device="cpu")
    imp = intervene.importance(m, "The cat saw the dog. It was tired.")
    notes = [a["text"] for a in chart(at, "iv_mv_0")["layout"]["annotations"]]
    assert len(notes) == 12
    best = imp.heads[int(np.argmax(imp.score))]
    assert f"<b>{imp.score.max():.2f}</b>" in notes
    table = at.dataframe[0].value
    assert table.iloc[0, 0] == f"解码器掩码自注意力 · 第 {best[1] + 1} 层 · 第 {best[2] + 1} 个头"
    assert abs(table.iloc[0, 1] - imp.score.max()) < 1e-5
    assert "干预实验" in " ".join(t.value for t in at.title)


def test_only_this_head_and_the_sink_button():
    at = apptest.open_page("pages/intervene.py", "gpt", TIMEOUT, text="The cat sat on the mat")
    at.selectbox(key="iv_focus").set_value("decoder:2:3").run()
    at.button(key="iv_only_btn").click().run()
    off = at.multiselect(key="iv_off").value
    assert len(off) == 11 and "decoder:2:3" not in off
    assert at.query_params["off"] == [",".join(off)] or at.query_params["off"] == ",".join(off)
    at.button(key="iv_clear_btn").click().run()
    assert at.multiselect(key="iv_off").value == []


def test_edit_link_moves_the_weight_and_the_output_follows_the_model():
    text = "The cat saw the dog. It"
    m = model.load("gpt", device="cpu")
    tr = m.trace(text)
    toks = tr.attention["decoder"].query_tokens
    q, cat, dog = len(toks) - 1, toks.index("cat"), toks.index("dog")
    at = apptest.open_page(
        "pages/intervene.py", "gpt", TIMEOUT, text=text, mode="edit", edit=f"decoder:2:3:{q}:{cat}:{dog}"
    )
    row = intervention.moved(tr.attention["decoder"].weights[1, 2, q], cat, dog)
    bars = chart(at, "iv_edit_bars")["data"]
    after = array(bars[1]["y"])
    assert after[cat] == 0 and abs(after[dog] - row[dog]) < 1e-6
    _, written, _ = intervene.continuation(m, text, intervention.build(m, edit=("decoder", 1, 2, q, row)))
    assert f"With the intervention: {md(text)} **{md(written)}**" in markdown(at)


def test_an_edit_link_opens_on_its_kind_and_the_kind_is_then_the_readers():
    """The translator opens on cross-attention, but a link whose edit names a decoder head opens on
    decoder self-attention, once: the kind the reader picks afterwards stays, on every later run."""
    at = apptest.open_page("pages/intervene.py", "translator", TIMEOUT, text=TR_TEXT, edit="decoder:2:3:1:0:1")
    assert not at.exception, [e.value for e in at.exception]
    assert at.radio(key="iv_kind").value == "decoder"
    assert at.query_params["ikind"] in (["decoder"], "decoder")
    at.radio(key="iv_kind").set_value("cross").run()
    at.run()  # a rerun with the same link: the edit in it was read already
    assert at.radio(key="iv_kind").value == "cross"
    assert at.query_params["ikind"] in (["cross"], "cross")
    assert "Cross-attention" in " ".join(m.value for m in at.markdown if m.value.startswith("**"))
    # in edit mode the page writes the edit itself (re-aimed at the kind shown): still the reader's kind
    at.segmented_control(key="iv_mode").set_value("edit").run()
    at.radio(key="iv_kind").set_value("encoder").run()
    assert at.radio(key="iv_kind").value == "encoder"
    assert str(at.query_params["edit"]).strip("[]'").startswith("encoder:")


def test_a_bad_head_in_the_link_falls_back_with_a_notice():
    at = apptest.open_page("pages/intervene.py", "gpt", TIMEOUT, off="cross:9:9")
    assert at.warning and at.multiselect(key="iv_off").value == []


def test_the_json_exports_are_written_on_click_not_kept_per_session():
    """Issue 32: the intervene and compare pages wrote both traces as JSON on every run, and the
    media manager kept that file for the session (a 1,100-character MiniLM text: +640 MB on the
    server per session, 37 s a run). Now the button holds a function over the cache keys: the
    browser gets a deferred id, no file is made until a click."""
    for page, key in (("pages/intervene.py", "iv_json"), ("pages/compare.py", "cmp_json")):
        at = apptest.open_page(page, "translator", TIMEOUT, text=TR_TEXT)
        button = next(b for b in at.get("download_button") if b.proto.id.endswith(key) or key in b.proto.id)
        assert button.proto.deferred_file_id and not button.proto.url, (page, button.proto.url[:80])


@pytest.mark.parametrize("model_name", ["translator", "gpt"])
def test_a_one_word_text_shows_no_nan(model_name):
    """Issue 32 item 10: on the text "a" the sink caption said "the most is nan x"."""
    at = apptest.open_page("pages/intervene.py", model_name, TIMEOUT, text="a")
    shown = " ".join(c.value for c in at.caption) + " ".join(m.value for m in at.markdown)
    assert "nan" not in shown.lower().replace("nano", ""), shown

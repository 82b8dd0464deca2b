"""A real model's attention named from its config, in both languages (issue 49, item 2): grouped-
query attention and the sliding-window and global layers (Gemma 3), nothing where the config has
none (an ordinary multi-head model)."""

import pytest

from model.hf.sizes import HFConfig, layer_types_of
from tests import apptest
from ui import context

BASE = dict(arch="gpt", model_type="x", vocab_size=10, d_model=64, d_ff=256, max_seq_len=512, positional="rope")


class Cfg:  # what transformers' Gemma3 config says of its layers
    sliding_window = 512
    layer_types = (["sliding_attention"] * 5 + ["full_attention"]) * 3


def test_layer_types_are_read_from_the_config():
    assert layer_types_of(Cfg(), 18).count("global") == 3
    assert [i + 1 for i, x in enumerate(layer_types_of(Cfg(), 18)) if x == "global"] == [6, 12, 18]
    no_window = Cfg()
    no_window.sliding_window = None
    assert layer_types_of(no_window, 18) == ()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_shape_is_said_from_the_config(lang):
    apptest.use_language(lang)
    try:
        gemma = HFConfig(
            **BASE,
            num_heads=4,
            num_layers=18,
            num_kv_heads=1,
            layer_types=layer_types_of(Cfg(), 18),
            sliding_window=512,
        )
        plain = HFConfig(**BASE, num_heads=12, num_layers=6, num_kv_heads=12)
        said, other = context.shape_text(gemma), context.shape_text(plain)
    finally:
        apptest.restore_language()
    if lang == "en":
        assert "4 query heads share 1 key/value head(s)" in said
        assert "Layers 6, 12, 18 attend to the whole text; the other 15 see only the last 512 tokens" in said
        assert other == "6 layers × 12 query heads."
    else:
        assert "4 个查询头共享 1 个键/值头" in said and "第 6, 12, 18 层关注整段文本" in said and "512" in said
        assert "共享" not in other and "滑动窗口" not in other

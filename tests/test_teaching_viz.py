"""Charts and scores that must not say more than the numbers (issue 11): head roles without the
causal row 0, cross-attention scored by alignment, not by position. Oracles: plain numpy loops."""
import numpy as np

from viz.analysis import head_roles


def causal_uniform(t: int) -> tuple[np.ndarray, np.ndarray]:
    mask = np.tril(np.ones((t, t), bool))
    w = mask / mask.sum(-1, keepdims=True)
    return w[None, None].astype(np.float32), mask


def test_causal_row_zero_is_not_counted_as_first_or_current():
    w, mask = causal_uniform(6)           # a broad head: row i spreads 1/(i+1) over keys 0..i
    df = head_roles(w, mask)
    first = np.mean([w[0, 0, i, 0] for i in range(1, 6)])       # rows with a choice only
    current = np.mean([w[0, 0, i, i] for i in range(1, 6)])
    assert np.isclose(df.loc[0, "first"], first) and np.isclose(df.loc[0, "current"], current)
    assert df.loc[0, "first"] < 0.5                              # with row 0 it was (1 + 0.5+...)/6
    assert df.loc[0, "role"] == "broad"


def test_cross_attention_gets_alignment_not_positions():
    rng = np.random.default_rng(0)
    q, k = 5, 7
    w = np.zeros((1, 2, q, k), np.float32)
    perm = rng.permutation(k)[:q]
    w[0, 0, np.arange(q), perm] = 0.9                          # head 1: each row looks at one key
    w[0, 0] += 0.1 / k
    w[0, 0] /= w[0, 0].sum(-1, keepdims=True)
    w[0, 1] = 1.0 / k                                           # head 2: uniform
    df = head_roles(w, None, cross=True)
    assert "previous" not in df and "current" not in df and "first" not in df
    align = [np.mean([w[0, h, i].max() for i in range(q)]) for h in range(2)]
    np.testing.assert_allclose(df["align"], align)
    assert df["role"].tolist() == ["align", "broad"]


def test_chinese_uses_one_term_per_concept():
    """掩码 for mask, 词元 for token, "第 N 个头" for a head, nothing left in English (issue 11, item 6)."""
    import re

    from ui.strings import architecture, attention, common, generation, positional, steps, temperature
    for mod in (architecture, attention, common, generation, positional, steps, temperature):
        for key, entry in mod.STRINGS.items():
            zh = entry.get("zh", "")
            assert not re.search("遮蔽|遮住|遮挡", zh), (key, zh)
            assert not re.search(r"(?<!第 )头 ?\{", zh), (key, zh)                  # "头 {n}" -> "第 {n} 个头"
            assert "Ctrl+Enter 生效" not in zh and zh != "Constitutional AI", (key, zh)
            for word in ("查询词", "下一个词", "每个词"):
                assert word not in zh.replace(word + "元", ""), (key, zh)

"""Chinese wording of the whole translation table (every ui/strings/*.toml file, as ui.i18n assembles it,
and the Chinese texts of the lesson files in lessons/builtin and lessons/examples):
one term per concept, as the attention tutorials our users read write them.

- mask is 掩码 (never 遮蔽 / 遮住 / 遮挡 / 遮盖);
- a head is "第 {n} 个头" and a layer "第 {n} 层", never "头 {n}" / "层 {n}" / "头{n}";
- no English gloss beside a term that has its Chinese name (词元 Token, 查询（Query）, 值（Value）...);
- no half-width comma, colon or semicolon between two Chinese characters.
"""

from __future__ import annotations

import re

import pytest

import ui.i18n as i18n

ZH = {key: entry["zh"] for key, entry in i18n.TABLE.items() if isinstance(entry.get("zh"), str)}


def _lesson_texts() -> dict[str, str]:
    from pathlib import Path

    from lessons import files, schema

    out = {}
    paths = sorted(files.BUILTIN_DIR.glob("*.toml")) + sorted((Path(files.__file__).parent / "examples").glob("*.toml"))
    for path in paths:
        lesson = schema.validate(path.read_bytes())
        out[f"{path.name}: title"] = lesson.title["zh"]
        for i, step in enumerate(lesson.steps):
            for part in ("ask", "reveal", "reveal_yes", "reveal_no"):
                if part in step:
                    out[f"{path.name}: step {i + 1} {part}"] = step[part]["zh"]
    return out


ZH.update(_lesson_texts())
CJK = "[\u4e00-\u9fff]"


def offenders(pattern: str) -> list[str]:
    return [f"{key}: {text}" for key, text in ZH.items() if re.search(pattern, text)]


def test_table_has_chinese():
    assert len(ZH) > 300, len(ZH)


@pytest.mark.parametrize(
    "pattern, why",
    [
        ("遮蔽|遮住|遮挡|遮盖", "mask is 掩码"),
        (r"(?<!第 )(?<!第)头 ?\{|(?<!第 )(?<!第)层 ?\{", "heads and layers are 第 {n} 个头 / 第 {n} 层"),
        (r"词元 ?Token|（token）|（Token）", "token is 词元, without the English"),
        (r"（(Query|Key|Value|Prompt)）|(查询|键|值) (Query|Key|Value)", "查询 / 键 / 值 without the English"),
        (r"(?<!多)头注意力机制", "multi-head attention is 多头注意力"),
    ],
)
def test_one_term_per_concept(pattern, why):
    bad = offenders(pattern)
    assert not bad, why + ":\n" + "\n".join(bad)


def test_full_width_punctuation_between_chinese_words():
    bad = offenders(CJK + "[,;:]" + CJK)
    assert not bad, "\n".join(bad)


def test_model_view_numbers_heads_and_layers_the_chinese_way():
    """The model view takes a plain word ("Head" -> "Head 2") or a template ("第 {n} 个头" -> "第 2 个头")."""
    import numpy as np

    from viz.model_view import model_view

    w = np.full((2, 3, 4, 4), 0.25)
    zh = model_view(w, labels={"layer": i18n.TABLE["att_layer_n"]["zh"], "head": i18n.TABLE["att_head_n"]["zh"]})
    assert list(zh.layout.xaxis.ticktext) == ["第 1 个头", "第 2 个头", "第 3 个头"]
    assert list(zh.layout.yaxis.ticktext) == ["第 1 层", "第 2 层"]
    assert zh.data[1].text[5] == "第 2 层 · 第 3 个头"
    en = model_view(w, labels={"layer": "Layer", "head": "Head"})
    assert list(en.layout.xaxis.ticktext) == ["Head 1", "Head 2", "Head 3"] and en.data[1].text[5] == "Layer 2 · Head 3"

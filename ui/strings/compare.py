"""The compare page: two runs side by side and their difference."""

STRINGS = {
    "page_compare": {"en": "Compare", "zh": "对比"},
    "cmp_intro": {
        "en": "Two runs side by side, on the same colour scale, and their difference **B − A** on one diverging "
        "scale: red where B puts more weight, blue where it puts less. Try 狗咬人 against 人咬狗: the same "
        "characters, a different meaning.",
        "zh": "两次运行并排显示，使用同一色标；它们的差 **B − A** 使用一个发散色标：红色表示 B 的权重更大，"
        "蓝色表示更小。试试“狗咬人”与“人咬狗”：字相同，意思不同。",
    },
    "cmp_what": {"en": "Compare", "zh": "对比内容"},
    "cmp_what_sentences": {"en": "two sentences", "zh": "两个句子"},
    "cmp_what_models": {"en": "two models", "zh": "两个模型"},
    "cmp_what_temperatures": {"en": "two temperatures", "zh": "两个温度"},
    "cmp_what_positions": {"en": "with / without positions", "zh": "有 / 无位置编码"},
    "cmp_what_trained": {"en": "trained / untrained", "zh": "训练后 / 未训练"},
    "cmp_text_a": {"en": "Sentence A", "zh": "句子 A"},
    "cmp_text_a_help": {"en": "Sentence A is the sidebar's sentence.", "zh": "句子 A 即侧边栏中的句子。"},
    "cmp_text_b": {"en": "Sentence B", "zh": "句子 B"},
    "cmp_no_other_model": {
        "en": "No other shipped model has the architecture of {model}. Pick a GPT in the sidebar to compare gpt, "
        "gpt-rope and gpt-alibi.",
        "zh": "本项目提供的其他模型都与 {model} 的架构不同。请在侧边栏选择一个 GPT，以对比 gpt、gpt-rope 和 gpt-alibi。",
    },
    "cmp_model_b": {"en": "Model B (A is the sidebar's model)", "zh": "模型 B（A 为侧边栏中的模型）"},
    "cmp_temp_a": {"en": "Attention temperature of A", "zh": "A 的注意力温度"},
    "cmp_temp_b": {"en": "Attention temperature of B", "zh": "B 的注意力温度"},
    "cmp_with_positions": {"en": "with positions", "zh": "有位置编码"},
    "cmp_without_positions": {"en": "without positions", "zh": "无位置编码"},
    "cmp_trained": {"en": "trained", "zh": "训练后"},
    "cmp_untrained": {"en": "untrained (step 0)", "zh": "未训练（第 0 步）"},
    "cmp_output": {"en": "{run}: **{text}**", "zh": "{run}：**{text}**"},
    "cmp_aligned": {
        "en": "The two runs read different tokens (A: {qa} rows × {ka} keys, B: {qb} × {kb}). They are aligned by "
        "position: row i of A against row i of B, over the rows and keys both have.",
        "zh": "两次运行读入的词元不同（A：{qa} 行 × {ka} 个键，B：{qb} × {kb}）。按位置对齐："
        "A 的第 i 行对 B 的第 i 行，只比较两者共有的行和键。",
    },
    "cmp_difference": {"en": "B − A ({b} − {a})", "zh": "B − A（{b} − {a}）"},
    "cmp_scale_help": {
        "en": "A and B: weights from 0 to 1 on the same blue scale. B − A: from −1 (blue) through 0 (white) to +1 (red).",
        "zh": "A 和 B：权重从 0 到 1，同一蓝色色标。B − A：从 −1（蓝）经 0（白）到 +1（红）。",
    },
    "cmp_all_heads": {"en": "Which heads differ most", "zh": "哪些头差异最大"},
    "cmp_all_heads_help": {
        "en": "Every layer and head of this attention kind: |B − A| per cell, and on each tile its largest value "
        "(the three largest outlined).",
        "zh": "该注意力类型的所有层和头：每个格子的 |B − A|，每个小格上写出其中的最大值（最大的三个加框标出）。",
    },
}

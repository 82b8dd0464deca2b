"""The temperature page: attention temperature (where tokens look) and, apart from it, sampling
temperature (which next token a GPT writes)."""

STRINGS = {
    "temp_intro": {
        "en": "Softmax turns a row of scores into weights. Divide the scores by a **temperature T** first and the "
        "same scores give different weights:\n"
        '- **higher temperature → a more uniform attention distribution** ("softer" attention; '
        "as T → ∞ every key gets 1/n);\n"
        '- **lower temperature → a sharper distribution** ("harder" attention, close to one-hot).\n\n'
        "T = 1 is the model as trained. The model below is re-run with the temperature you choose.",
        "zh": "softmax 把一行分数变成权重。先把分数除以**温度 T**，同样的分数就会得到不同的权重：\n"
        "- **温度越高 → 注意力分布越均匀**（更“软”的注意力；T → ∞ 时每个键都得到 1/n）；\n"
        "- **温度越低 → 注意力分布越尖锐**（更“硬”的注意力，接近 one-hot）。\n\n"
        "T = 1 就是训练时的模型本身。下面会用你选的温度重新运行模型。",
    },
    "temp_formula_caption": {
        "en": "The tutorial's scaled dot-product attention with one more knob, T.",
        "zh": "教程中的缩放点积注意力，多了一个旋钮 T。",
    },
    "temp_t": {"en": "Attention temperature T (log scale)", "zh": "注意力温度 T（对数刻度）"},
    "temp_t_help": {
        "en": "From 0.05 (sharper) to 20 (flatter); 1 is the model as trained. How close a row gets to "
        "one-hot or to uniform depends on the gaps between its scores: a row whose scores differ by "
        "a lot is still peaked at 20.",
        "zh": "从 0.05（更尖锐）到 20（更平坦）；1 即训练时的模型。一行离 one-hot 或均匀有多近，取决于它的分数差距："
        "分数相差很大的行在 T = 20 时仍然是尖峰。",
    },
    "temp_t_one": {"en": "1 (as trained)", "zh": "1（训练时）"},
    "temp_reset": {"en": "Back to T = 1", "zh": "恢复 T = 1"},
    "temp_scope": {"en": "Apply T in", "zh": "温度作用于"},
    "temp_scope_all": {"en": "every layer", "zh": "所有层"},
    "temp_scope_layer": {"en": "layer {n} only", "zh": "仅第 {n} 层"},
    "temp_scope_help_translator": {
        "en": "For the translator, “layer n” means layer n of the encoder and of the decoder (self- and cross-attention).",
        "zh": "对翻译模型，“第 n 层”指编码器和解码器的第 n 层（包括自注意力与交叉注意力）。",
    },
    "temp_scope_help_gpt": {"en": "The layers of the GPT's decoder stack.", "zh": "GPT 解码器堆叠中的各层。"},
    "temp_kind": {"en": "Attention", "zh": "注意力类型"},
    "temp_layer": {"en": "Layer", "zh": "层"},
    "temp_head": {"en": "Head", "zh": "头"},
    "temp_layer_n": {"en": "Layer {n}", "zh": "第 {n} 层"},
    "temp_head_n": {"en": "Head {n}", "zh": "第 {n} 个头"},
    "temp_same_scale": {
        "en": "Both heatmaps use the same colour scale (0 to 1).",
        "zh": "两张热力图使用同一色标（0 到 1）。",
    },
    "temp_move_slider": {
        "en": "Move the temperature slider away from 1 to see the right-hand one change.",
        "zh": "把温度滑块从 1 移开，就能看到右边的热力图变化。",
    },
    "temp_at_one": {"en": "T = 1 (as trained)", "zh": "T = 1（训练时）"},
    "temp_at_t": {"en": "T = {t}", "zh": "T = {t}"},
    "temp_heat_title": {"en": "{kind}, {layer}, {head}", "zh": "{kind}，{layer}，{head}"},
    "temp_not_applied": {
        "en": "T is applied in {scope}, not in the layer shown, so this head's weights change only through the layers before it.",
        "zh": "温度设置为“{scope}”，不包括所显示的这一层，所以这个头的权重只会因为前面各层的变化而改变。",
    },
    "temp_query": {"en": "Query token for the table and the entropy curve", "zh": "表格与熵曲线所用的查询词元"},
    "temp_query_n": {"en": "query position {n}", "zh": "查询位置 {n}"},
    "temp_table_title": {"en": "The tutorial's table at both temperatures", "zh": "两种温度下的教程式表格"},
    "temp_tokens_differ": {
        "en": "At this temperature the translation changes, so the decoder reads different tokens than at T = 1.",
        "zh": "在这个温度下译文变了，所以解码器读到的词元与 T = 1 时不同。",
    },
    "temp_entropy_title": {"en": "Entropy of this head's rows against temperature", "zh": "这个头各行的熵随温度的变化"},
    "temp_entropy_help": {
        "en": "Entropy H = −Σ p·ln p measures how spread out a row is: 0 for one-hot, ln n when all n keys get 1/n. "
        "The curves take this head's own scores at T = 1 and divide them by each T (what T does in this layer "
        "alone). Entropy never falls as T grows, but it starts near 0 only where one score stands out (tied "
        "scores share the weight even at T = 0.05) and reaches the dashed line ln n only when T is large "
        "against the gaps between the scores.",
        "zh": "熵 H = −Σ p·ln p 衡量一行权重有多分散：one-hot 时为 0，n 个键各得 1/n 时为 ln n。"
        "曲线取这个头在 T = 1 时的分数，分别除以每个 T（即只在这一层施加温度）。T 增大时熵从不下降，但只有当某个分数"
        "明显突出时它才从接近 0 开始（分数相同时，即使 T = 0.05 权重也会平分），也只有当 T 远大于分数之间的差距时"
        "才会到达虚线 ln n。",
    },
    "temp_curve_row": {"en": "query “{token}”", "zh": "查询词元“{token}”"},
    "temp_curve_mean": {"en": "mean over rows", "zh": "各行平均"},
    "temp_axis_t": {"en": "Temperature T (log scale)", "zh": "温度 T（对数刻度）"},
    "temp_axis_entropy": {"en": "Entropy (nats)", "zh": "熵（奈特）"},
    "temp_uniform": {"en": "uniform: ln {n} = {value:.3f}", "zh": "均匀：ln {n} = {value:.3f}"},
    "temp_uniform_mean": {"en": "uniform, mean over rows: {value:.3f}", "zh": "均匀（各行平均）：{value:.3f}"},
    "temp_now": {"en": "T now", "zh": "当前 T"},
    "temp_entropy_values": {
        "en": "Query “{token}”: entropy {h1:.3f} at T = 1, {ht:.3f} at T = {t} (uniform limit ln {n} = {limit:.3f}).",
        "zh": "查询词元“{token}”：T = 1 时熵为 {h1:.3f}，T = {t} 时为 {ht:.3f}（均匀上限 ln {n} = {limit:.3f}）。",
    },
    "temp_output_title": {"en": "What it does to the output", "zh": "它对输出的影响"},
    "temp_translation_one": {"en": "Translation at T = 1", "zh": "T = 1 时的译文"},
    "temp_translation_t": {"en": "Translation at T = {t}", "zh": "T = {t} 时的译文"},
    "temp_translation_help": {
        "en": "The model was trained at T = 1. Share of {n} held-out sentences translated exactly right with every "
        "layer at T: {figures}. The sentence above is one case; these figures are the rule.",
        "zh": "模型在 T = 1 下训练。所有层都用温度 T 时，{n} 个留出句子中译文完全正确的比例：{figures}。"
        "上面的句子只是一个例子，这些比例才是规律。",
    },
    "temp_sweep": {"en": "Translate at several temperatures", "zh": "在多个温度下翻译"},
    "temp_sweep_col_t": {"en": "T", "zh": "T"},
    "temp_sweep_col_text": {"en": "Translation", "zh": "译文"},
    "temp_next_title": {
        "en": "The GPT's next-token distribution after the sentence",
        "zh": "句子之后 GPT 的下一个词元分布",
    },
    "temp_next_help": {
        "en": "The attention temperature changes what each token reads, and so what the model predicts next.",
        "zh": "注意力温度改变了每个词元读取的信息，从而改变了模型对下一个词元的预测。",
    },
    "temp_empty": {"en": "(empty)", "zh": "（空）"},
    "temp_sampling_title": {"en": "A different knob: sampling temperature", "zh": "另一个旋钮：采样温度"},
    "temp_sampling_intro": {
        "en": "**Not the same temperature.** The attention temperature above divides the attention scores inside every "
        "(or one) attention layer. The **sampling temperature** divides only the final next-token logits, "
        "when a GPT picks the word it writes; top-k and top-p then cut off unlikely tokens (grey) and the rest "
        "is renormalised. Attention is not re-run here.",
        "zh": "**这不是同一个温度。** 上面的注意力温度除的是每一层（或某一层）注意力里的分数。"
        "**采样温度**只除最后的下一个词元 logits，也就是 GPT 选择要写出的词元时；之后 top-k 与 top-p 会截掉不太可能的词元"
        "（灰色），剩下的重新归一化。这里不会重新计算注意力。",
    },
    "temp_sampling_gpt_note": {
        "en": "The translator does not sample freely: this panel uses the GPT, with the sentence as its prompt.",
        "zh": "翻译模型不做自由采样：本面板使用 GPT，以这个句子作为提示词。",
    },
    "temp_stemp": {"en": "Sampling temperature", "zh": "采样温度"},
    "temp_stemp_help": {"en": "0 = greedy: always the most likely token.", "zh": "0 = 贪心：总是选最可能的词元。"},
    "temp_topk": {"en": "Top-k (0 = off)", "zh": "Top-k（0 = 关闭）"},
    "temp_topk_help": {"en": "Keep only the k most likely tokens.", "zh": "只保留最可能的 k 个词元。"},
    "temp_topp": {"en": "Top-p (1 = off)", "zh": "Top-p（1 = 关闭）"},
    "temp_topp_help": {
        "en": "Keep the fewest most likely tokens whose probabilities add up to p.",
        "zh": "只保留概率最高的若干词元，个数尽量少，使它们的概率之和达到 p。",
    },
    "temp_sampling_kept": {
        "en": "{n} tokens kept; the most likely has probability {p:.3f}.",
        "zh": "保留 {n} 个词元；最可能的词元概率为 {p:.3f}。",
    },
    "temp_bars_cut": {"en": "cut off", "zh": "被截掉"},
    "temp_bars_kept": {"en": "kept", "zh": "保留"},
    "temp_bars_chosen": {"en": "chosen", "zh": "选中"},
    "temp_bars_token": {"en": "Next token", "zh": "下一个词元"},
    "temp_bars_probability": {"en": "Probability", "zh": "概率"},
    "temp_bars_caption": {
        "en": "Blue: kept, probability after the cut and renormalising. Grey: cut off, shown at its probability before the cut.",
        "zh": "蓝色：保留，数值为截断并重新归一化后的概率。灰色：被截掉，显示截断前的概率。",
    },
    "temp_snapped": {
        "en": "The link's temperature {value} is not on the slider; showing the nearest, {shown}.",
        "zh": "链接中的温度 {value} 不在滑块刻度上，已改为最接近的 {shown}。",
    },
}

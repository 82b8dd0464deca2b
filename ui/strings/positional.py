"""The positional-encoding page: the sinusoidal table, its relative-position property, learned
positions, RoPE, ALiBi, word order (狗咬人 vs 人咬狗) and sequences longer than trained on."""

STRINGS = {
    "pos_intro": {
        "en": "Attention by itself has no sense of order: it compares every token with every other, wherever they stand. "
        "But word order matters (“狗咬人”, the dog bites the man, vs “人咬狗”, the man bites the dog). "
        "A **positional encoding** injects each token's position.",
        "zh": "注意力本身没有顺序的概念：它把每个词元和其他所有词元比较，不管它们在哪里。"
        "但词序在语言中至关重要（“狗咬人”和“人咬狗”意思完全不同）。**位置编码**把每个词元的位置信息注入进来。",
    },
    "pos_section": {"en": "Section", "zh": "章节"},
    "pos_sec_sin": {"en": "Sinusoidal", "zh": "正弦编码"},
    "pos_sec_rel": {"en": "Relative positions", "zh": "相对位置"},
    "pos_sec_learned": {"en": "Learned", "zh": "可学习编码"},
    "pos_sec_rope": {"en": "RoPE & ALiBi", "zh": "RoPE 与 ALiBi"},
    "pos_sec_order": {"en": "狗咬人 vs 人咬狗", "zh": "狗咬人 对比 人咬狗"},
    "pos_sec_long": {"en": "Three GPTs, longer texts", "zh": "三个 GPT，更长文本"},
    # sinusoidal
    "pos_formula_intro": {
        "en": "The original paper's encoding, added to the word embeddings:",
        "zh": "原论文的位置编码（由正弦和余弦函数生成），加到词嵌入上：",
    },
    "pos_d_model": {"en": "d_model", "zh": "d_model（维度）"},
    "pos_length": {"en": "Positions", "zh": "位置数"},
    "pos_heatmap_title": {
        "en": "PE table: {n} positions × {d} dimensions",
        "zh": "位置编码表：{n} 个位置 × {d} 个维度",
    },
    "pos_heatmap_help": {
        "en": "Each row is one position's vector. Left columns (small i) change fast with position, right ones slowly: "
        "every position gets a unique pattern, like the digits of a clock with hands of many speeds.",
        "zh": "每一行是一个位置的向量。左侧的列（i 小）随位置变化快，右侧的列变化慢：每个位置都有独特的编码，就像一组转速各不相同的指针。",
    },
    "pos_axis_position": {"en": "Position pos", "zh": "位置 pos"},
    "pos_axis_dimension": {"en": "Dimension", "zh": "维度"},
    "pos_axis_value": {"en": "Value", "zh": "值"},
    "pos_dims": {"en": "Dimensions to plot", "zh": "要绘制的维度"},
    "pos_dim_label": {"en": "dim {d}", "zh": "第 {d} 维"},
    "pos_dims_dropped": {
        "en": "Only dimensions 0 … {d} − 1 exist, and at most {n} are plotted; the others were left out.",
        "zh": "只有第 0 … {d} − 1 维，且最多绘制 {n} 个维度；其余的已略去。",
    },
    "pos_curves_title": {"en": "Chosen dimensions against position", "zh": "所选维度随位置的变化"},
    "pos_odd_note": {
        "en": "d_model is odd: the last dimension is a sine with no cosine partner.",
        "zh": "d_model 为奇数：最后一维只有正弦，没有配对的余弦。",
    },
    # relative
    "pos_dot_title": {"en": "PE(p) · PE(q) for every pair of positions", "zh": "任意两个位置的 PE(p) · PE(q)"},
    "pos_dot_help": {
        "en": "For an even d_model, PE(p)·PE(q) = Σᵢ cos((p − q)·ωᵢ): it depends only on the distance |p − q|, "
        "so on the right every offset has a single value. It is largest at distance 0 and falls off overall, with "
        "ripples: it rises again at some larger distances, so it is not a monotone measure of distance.",
        "zh": "d_model 为偶数时，PE(p)·PE(q) = Σᵢ cos((p − q)·ωᵢ)：只取决于距离 |p − q|，所以右图中每个距离只有一个值。"
        "距离为 0 时最大，总体上随距离增大而减小，但有起伏：在某些更大的距离上又会回升，所以它不是随距离单调变化的量。",
    },
    "pos_dot_odd": {
        "en": "With an odd d_model the unpaired last sine adds sin(pω)·sin(qω), which depends on p and q themselves: the points of one offset spread out.",
        "zh": "d_model 为奇数时，未配对的最后一个正弦会加上 sin(pω)·sin(qω)，它依赖于 p 和 q 本身：同一距离的点会散开。",
    },
    "pos_axis_p": {"en": "Position p", "zh": "位置 p"},
    "pos_axis_q": {"en": "Position q", "zh": "位置 q"},
    "pos_axis_offset": {"en": "Distance |p − q|", "zh": "距离 |p − q|"},
    "pos_axis_dot": {"en": "PE(p)·PE(q)", "zh": "PE(p)·PE(q)"},
    "pos_rotation_title": {
        "en": "PE(p + k) is a fixed linear function of PE(p)",
        "zh": "PE(p + k) 是 PE(p) 的固定线性函数",
    },
    "pos_rotation_help": {
        "en": "Each (sin, cos) pair of PE(p + k) is PE(p)'s pair rotated by the angle k·ωᵢ. The matrix M(k) depends "
        "on k only, not on p, which is why the tutorial says relative positions can be derived.",
        "zh": "PE(p + k) 的每一对 (sin, cos) 都是把 PE(p) 中对应的一对旋转 k·ωᵢ 角度得到的。矩阵 M(k) 只依赖于 k，不依赖于 p，"
        "这就是教程所说的“相对位置可推导”。",
    },
    "pos_p": {"en": "p", "zh": "p"},
    "pos_k": {"en": "k", "zh": "k"},
    "pos_col_dim": {"en": "Dimension", "zh": "维度"},
    "pos_col_pe_p": {"en": "PE(p)", "zh": "PE(p)"},
    "pos_col_pred": {"en": "M(k)·PE(p)", "zh": "M(k)·PE(p)"},
    "pos_col_pe_pk": {"en": "PE(p + k)", "zh": "PE(p + k)"},
    "pos_rotation_error": {
        "en": "Largest difference between M(k)·PE(p) and PE(p + k) over the {n} paired dimensions: {err:.2e}.",
        "zh": "在 {n} 个成对的维度上，M(k)·PE(p) 与 PE(p + k) 的最大差：{err:.2e}。",
    },
    "pos_rotation_first": {"en": "The first {n} of {d} dimensions:", "zh": "{d} 个维度中的前 {n} 个："},
    "pos_rotation_none": {
        "en": "With d_model = 1 there is no (sin, cos) pair to rotate.",
        "zh": "d_model = 1 时没有可以旋转的 (sin, cos) 对。",
    },
    # learned
    "pos_learned_intro": {
        "en": "The GPT with learned positions has no formula: position p has its own trained vector "
        "(`runner.module.position.table.pe`). Below, the cosine similarity between every two positions' vectors, "
        "beside the same for the sinusoidal table of the same size.",
        "zh": "使用可学习位置编码的 GPT 没有公式：每个位置 p 都有一个训练出来的向量"
        "（`runner.module.position.table.pe`）。下面是任意两个位置向量之间的余弦相似度，旁边是同样大小的正弦编码表的结果。",
    },
    "pos_learned_title": {"en": "Learned (the shipped GPT)", "zh": "可学习（本项目的 GPT）"},
    "pos_sin_title": {"en": "Sinusoidal (d_model = {d})", "zh": "正弦（d_model = {d}）"},
    "pos_axis_similarity": {"en": "Cosine similarity", "zh": "余弦相似度"},
    "pos_learned_help": {
        "en": "The GPTs were trained on items of at most about 20 tokens. Positions beyond that never received a gradient: "
        "their vectors are still the random start, unrelated to their neighbours (a grey-white square).",
        "zh": "这些 GPT 训练时每条文本最多约 20 个词元。超过这个长度的位置从未得到梯度：它们的向量仍是随机初始化，与相邻位置无关（右下方的浅色区域）。",
    },
    "pos_learned_none": {"en": "This GPT has no learned position table.", "zh": "这个 GPT 没有可学习的位置表。"},
    "pos_learned_show": {"en": "Positions shown", "zh": "显示的位置数"},
    # rope and alibi
    "pos_rope_title": {"en": "RoPE: rotate q and k by their positions", "zh": "RoPE：按位置旋转 q 和 k"},
    "pos_rope_help": {
        "en": "RoPE (used by LLaMA) adds nothing to the embeddings. Inside attention it rotates each pair of q's and k's "
        "dimensions by an angle proportional to the position, so position enters q·k only through the offset "
        "between them (q·k still depends on what the two tokens are). "
        "Here the same vector is used as q at position s and as k at s + offset: the curves for two different s lie "
        "on top of each other.",
        "zh": "RoPE（LLaMA 采用）不在嵌入上加任何东西，而是在注意力计算中把 q 和 k 的每一对维度按与位置成正比的角度旋转，"
        "所以位置只通过二者的位置差进入 q·k（q·k 仍取决于两个词元本身的内容）。这里同一个向量既作为位置 s 的 q，又作为位置 s + 位置差处的 k：两个不同 s 的曲线完全重合。",
    },
    "pos_rope_start": {"en": "q at position {s}", "zh": "q 位于位置 {s}"},
    "pos_axis_rope_offset": {"en": "Offset (key position − query position)", "zh": "位置差（键位置 − 查询位置）"},
    "pos_axis_score": {"en": "Score q·k", "zh": "分数 q·k"},
    "pos_rope_diff": {
        "en": "Largest difference between the two curves: {diff:.1e}.",
        "zh": "两条曲线的最大差：{diff:.1e}。",
    },
    "pos_alibi_title": {
        "en": "ALiBi: a linear penalty on distance, one slope per head",
        "zh": "ALiBi：随距离线性增长的惩罚，每个头一个斜率",
    },
    "pos_alibi_help": {
        "en": "ALiBi needs no positional encoding at all: each head subtracts m·(i − j) from the score of query i on key j. "
        "Steep heads look close by, shallow heads far away. The bias grows with distance the same way at any length, "
        "which is meant to let ALiBi read texts longer than it was trained on; whether it does here is the "
        "chart further down (on this corpus it is not clearly better than RoPE).",
        "zh": "ALiBi 完全不需要位置编码：每个头从查询 i 对键 j 的分数中减去 m·(i − j)。斜率大的头只看附近，斜率小的头看得远。"
        "偏置在任何长度下都以同样方式随距离增长，目的是让 ALiBi 能读比训练时更长的文本；这里是否做到，请看下方的图"
        "（在本语料上它并不明显优于 RoPE）。",
    },
    "pos_alibi_head": {"en": "Head {h}: m = {m:.4g}", "zh": "第 {h} 个头：m = {m:.4g}"},
    "pos_axis_bias": {"en": "Bias", "zh": "偏置"},
    # word order
    "pos_order_intro": {
        "en": "The translator's encoder reads the two sentences. **Without** positional encoding its attention of the second "
        "is exactly the first's with rows and columns reordered: it cannot tell who bites whom. **With** it, it can.",
        "zh": "翻译模型的编码器读入这两个句子。**没有**位置编码时，第二句的注意力恰好是第一句的行和列重新排列：它分不清谁咬谁。**有**位置编码时就能分清。",
    },
    "pos_order_a": {"en": "Sentence A", "zh": "句子 A"},
    "pos_order_b": {"en": "Sentence B (the same words, reordered)", "zh": "句子 B（同样的词元，换了顺序）"},
    "pos_order_model_note": {
        "en": "This section always uses the translator (encoder–decoder, sinusoidal encoding).",
        "zh": "本节总是使用翻译模型（编码器–解码器，正弦位置编码）。",
    },
    "pos_order_layer": {"en": "Encoder layer", "zh": "编码器层"},
    "pos_order_head": {"en": "Head", "zh": "头"},
    "pos_layer_n": {"en": "Layer {n}", "zh": "第 {n} 层"},
    "pos_head_n": {"en": "Head {n}", "zh": "第 {n} 个头"},
    "pos_mean_heads": {"en": "Mean of heads", "zh": "各头平均"},
    "pos_with": {"en": "With positional encoding", "zh": "有位置编码"},
    "pos_without": {"en": "Without positional encoding", "zh": "无位置编码"},
    "pos_order_diff": {
        "en": "max |W_B − P·W_A·Pᵀ| over all layers and heads: **{diff:.2e}**",
        "zh": "所有层和头上的 max |W_B − P·W_A·Pᵀ|：**{diff:.2e}**",
    },
    "pos_order_same": {
        "en": "the same up to the reordering (rounding only)",
        "zh": "除重新排列外完全相同（仅有舍入误差）",
    },
    "pos_order_differs": {"en": "the attention itself changes with the order", "zh": "注意力本身随词序改变"},
    "pos_order_perm": {
        "en": "P puts A's tokens (A1, A2, …) in B's order: {perm}.",
        "zh": "P 把 A 的词元（A1, A2, …）排成 B 的顺序：{perm}。",
    },
    "pos_order_not_perm": {
        "en": "Sentence B is not a reordering of sentence A's tokens, so there is no permutation to check.",
        "zh": "句子 B 不是句子 A 的词元的重新排列，因此无法检查置换关系。",
    },
    "pos_translations": {"en": "Translations", "zh": "译文"},
    "pos_col_sentence": {"en": "Sentence", "zh": "句子"},
    "pos_empty": {"en": "Type a sentence.", "zh": "请输入一个句子。"},
    # three GPTs, long texts
    "pos_gpts_intro": {
        "en": "This page's sentence through the three GPTs, which differ only in how they know positions.",
        "zh": "把本页的句子分别输入三个 GPT，它们只在获取位置信息的方式上不同。",
    },
    "pos_gpts_layer": {"en": "Layer (mean of heads)", "zh": "层（各头平均）"},
    "pos_long_title": {"en": "Longer than any text they were trained on", "zh": "比训练时见过的任何文本都长"},
    "pos_long_help": {
        "en": "The GPTs were trained on items of at most about 20 tokens (max_seq_len is 128). Here held-out corpus stories "
        "are read one after another as one text of about {n} tokens, and the bars give the mean loss (−ln p of the right "
        "next token) by position, over {k} such texts. Each story's first token is left out: after a finished story "
        "no model can know which comes next. Dashed: the same tokens when each story is read on its own "
        "from its own <s>, at the lengths seen in training (the three models score alike there). Learned positions have no trained vector past about 20; "
        "RoPE only sees offsets, and ALiBi's distance penalty is the same at any length, which is meant to let it "
        "extrapolate. Compare how far each model's bars climb above the dashed line. Caution: the long text chains "
        "unrelated stories, so even its first 20 positions are worse than a story read alone: the climb mixes "
        "distance with a change of content, and does not measure distance alone.",
        "zh": "这些 GPT 训练时每条文本最多约 20 个词元（max_seq_len 为 128）。这里把若干条未参与训练的语料故事首尾相接，"
        "当作一段约 {n} 个词元的文本读入；柱状图按位置给出 {k} 段这样的文本上的平均损失（正确的下一个词元的 −ln p）。"
        "每个故事的第一个词元不计入：一个故事结束后，没有模型能知道下一个故事是什么。虚线：每个故事单独从自己的 <s> "
        "开始读时同样这些词元的损失（训练时见过的长度，三个模型在这里表现相近）。可学习位置编码在约 20 之后没有训练过的向量；RoPE 只看位置差；"
        "ALiBi 的距离惩罚在任何长度下都一样，目的就是让它能外推到更长的文本。比较每个模型的柱子比虚线高出多少。"
        "注意：这段长文本把互不相关的故事接在一起，所以即使前 20 个位置也比单独读一个故事差：柱子的升高混合了距离和"
        "内容的切换，并不只衡量距离。",
    },
    "pos_long_lang": {"en": "Language of the long text", "zh": "长文本的语言"},
    "pos_lang_en": {"en": "English", "zh": "英文"},
    "pos_lang_zh": {"en": "Chinese", "zh": "中文"},
    "pos_axis_bucket": {"en": "Positions of the predicted token", "zh": "被预测词元的位置"},
    "pos_axis_loss": {"en": "Loss (nats per token)", "zh": "损失（奈特/词元）"},
    "pos_alone_mean": {"en": "each story read alone (mean of the three)", "zh": "每个故事单独读（三个模型的平均）"},
    "pos_long_text": {"en": "The long text", "zh": "这段长文本"},
    "pos_long_table_model": {"en": "Model", "zh": "模型"},
    "pos_long_table_alone": {"en": "Alone (all positions)", "zh": "单独读（全部位置）"},
    "pos_model_unavailable": {"en": "{model} is not available.", "zh": "{model} 不可用。"},
    # link values
}

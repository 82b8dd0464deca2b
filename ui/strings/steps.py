"""The step-by-step page (pages/steps.py): keys start with "steps_"."""

STRINGS = {
    "steps_intro": {
        "en": "The tutorial's recipe, run on your sentence by the real model, one step at a time: "
        "pick an attention, a layer and a head, then walk with **Previous** / **Next** "
        "(or the ← → keys). Every number shown is one the model computed; beside it are the "
        "lines of this project's model code that computed it.",
        "zh": "用真实模型在你的句子上一步一步地执行教程里的计算步骤：选择一种注意力、一层和一个头，"
        "然后用 **上一步** / **下一步**（或键盘 ← →）逐步查看。页面上的每个数字都是模型实际算出来的；"
        "旁边是本项目模型代码中计算它的那几行。",
    },
    "steps_kind": {"en": "Attention", "zh": "注意力类型"},
    "steps_layer": {"en": "Layer", "zh": "层"},
    "steps_head": {"en": "Head", "zh": "头"},
    "steps_layer_n": {"en": "Layer {n} of {total}", "zh": "第 {n} 层（共 {total} 层）"},
    "steps_head_n": {"en": "Head {n} of {total}", "zh": "第 {n} 个头（共 {total} 个）"},
    "steps_head_short": {"en": "head", "zh": "头"},
    "steps_step": {"en": "Step", "zh": "步骤"},
    "steps_step_of": {"en": "Step {n} of {total}: {title}", "zh": "第 {n} 步（共 {total} 步）：{title}"},
    "steps_prev": {"en": "Previous", "zh": "上一步"},
    "steps_next": {"en": "Next", "zh": "下一步"},
    "steps_keys_help": {"en": "Keyboard: ← previous step, → next step.", "zh": "键盘：← 上一步，→ 下一步。"},
    "steps_running": {"en": "Running the model on your sentence…", "zh": "正在用模型处理你的句子……"},
    "steps_where": {
        "en": "{model} · {kind} · layer {layer} of {layers} · head {head} of {heads} · "
        "d_model = {d_model}, d_k = d_model / h = {d_k} · {T} queries, {S} keys",
        "zh": "{model} · {kind} · 第 {layer}/{layers} 层 · 第 {head}/{heads} 个头 · "
        "d_model = {d_model}，d_k = d_model / h = {d_k} · {T} 个查询，{S} 个键",
    },
    "steps_translation": {"en": "The model's translation: {text}", "zh": "模型的译文：{text}"},
    "steps_shape": {"en": "shape ({shape})", "zh": "形状 ({shape})"},
    "steps_code": {"en": "The code that computes this step", "zh": "计算这一步的代码"},
    "steps_code_from": {"en": "{path} · {name} · lines {first}–{last}", "zh": "{path} · {name} · 第 {first}–{last} 行"},
    "steps_numbers": {
        "en": "The numbers of {name} (rounded to 4 decimals)",
        "zh": "{name} 的具体数值（保留 4 位小数）",
    },
    "steps_axis_dim": {"en": "Dimension", "zh": "维度"},
    "steps_axis_token": {"en": "Token", "zh": "词元"},
    "steps_value": {"en": "Value", "zh": "数值"},
    "steps_col_id": {"en": "Token id", "zh": "词元 id"},
    "steps_n_tokens": {"en": "{n} tokens.", "zh": "共 {n} 个词元。"},
}

STRINGS.update(
    {
        "steps_title_tokens": {"en": "Tokens and their ids", "zh": "分词与词元 id"},
        "steps_title_embed": {"en": "Embeddings plus positional encoding", "zh": "词嵌入 + 位置编码"},
        "steps_title_qkv": {
            "en": "Q = XW_Q, K = XW_K, V = XW_V, split into heads",
            "zh": "Q = XW_Q、K = XW_K、V = XW_V，分割成多个头",
        },
        "steps_title_scores": {"en": "Dot products QKᵀ", "zh": "计算点积 QKᵀ"},
        "steps_title_scale": {"en": "Divided by √d_k", "zh": "除以 √d_k（缩放）"},
        "steps_title_mask": {"en": "The mask", "zh": "应用掩码"},
        "steps_title_softmax": {"en": "Softmax: the attention weights", "zh": "softmax 归一化：注意力权重"},
        "steps_title_weighted": {"en": "Weights times V", "zh": "加权求和：权重 × V"},
        "steps_title_concat": {"en": "Heads concatenated, then W_O", "zh": "合并多头，再乘 W_O"},
        "steps_title_ffn": {"en": "Residual, LayerNorm, feed-forward", "zh": "残差连接、层归一化、前馈网络"},
    }
)

STRINGS.update(
    {
        # step 1
        "steps_tokens_gpt": {
            "en": "The tokenizer cuts the sentence into tokens and looks up each one's id. GPT reads "
            "`<s>` first, then your tokens, left to right.",
            "zh": "分词器把句子切成词元，并查出每个词元的 id。GPT 先读 `<s>`，再从左到右读你的词元。",
        },
        "steps_tokens_encoder": {
            "en": "The tokenizer cuts the sentence into tokens and looks up each one's id. The encoder "
            "reads exactly these.",
            "zh": "分词器把句子切成词元，并查出每个词元的 id。编码器读入的正是这些词元。",
        },
        "steps_tokens_translator_target": {
            "en": "The decoder reads the translation it is writing: the start token that says the "
            "direction (`<2zh>` or `<2en>`), then every token it has produced so far. The keys of "
            "cross-attention are the encoder's tokens, your sentence.",
            "zh": "解码器读入的是它正在写的译文：先是表示翻译方向的起始词元（`<2zh>` 或 `<2en>`），然后是它已生成的每个词元。"
            "交叉注意力的键来自编码器的词元，也就是你的句子。",
        },
        "steps_tokens_query_side": {"en": "Queries: the decoder's tokens", "zh": "查询：解码器的词元"},
        "steps_tokens_key_side": {
            "en": "Keys and values: the encoder's tokens (your sentence)",
            "zh": "键与值：编码器的词元（你的句子）",
        },
        # step 2
        "steps_embed_sinusoidal": {
            "en": "Each id picks a row of the embedding table; the sinusoidal positional encoding of "
            "its position is added, so the same word at another place gets another vector.",
            "zh": "每个 id 取出嵌入表中的一行；再加上该位置的正弦/余弦位置编码，所以同一个词元放在不同位置得到不同的向量。",
        },
        "steps_embed_learned": {
            "en": "Each id picks a row of the embedding table; a learned vector for its position "
            "(one trained row per position, as in GPT-2) is added.",
            "zh": "每个 id 取出嵌入表中的一行；再加上该位置的可学习位置向量（每个位置一行、由训练得到，与 GPT-2 相同）。",
        },
        "steps_embed_rope": {
            "en": "Each id picks a row of the embedding table, and **nothing is added for position**: "
            "RoPE puts position in at step 3, by rotating each head's q and k by an angle that "
            "grows with the position, so position enters q·k only through how far apart two tokens are "
            "(q·k still depends on the tokens themselves).",
            "zh": "每个 id 取出嵌入表中的一行，**这里不加任何位置向量**：RoPE 在第 3 步才引入位置——"
            "按位置把每个头的 q 和 k 旋转一个角度，于是位置只通过两个词元相隔多远进入 q·k（q·k 仍取决于词元本身）。",
        },
        "steps_embed_alibi": {
            "en": "Each id picks a row of the embedding table, and **nothing is added for position**: "
            "ALiBi puts position in at step 6, as a penalty on the scores that grows linearly "
            "with the distance between query and key.",
            "zh": "每个 id 取出嵌入表中的一行，**这里不加任何位置向量**：ALiBi 在第 6 步才引入位置——"
            "给分数加上一个随查询与键之间距离线性增长的惩罚。",
        },
        "steps_embed_none": {
            "en": "Each id picks a row of the embedding table; this model has no positional information.",
            "zh": "每个 id 取出嵌入表中的一行；这个模型没有位置信息。",
        },
        "steps_embed_scaled": {
            "en": "As in the paper, the translator multiplies the embeddings by √d_model = √{d} = {s} "
            "before adding the positions.",
            "zh": "与论文一致，翻译模型在加位置编码之前把词嵌入乘以 √d_model = √{d} = {s}。",
        },
        "steps_stream_query": {"en": "Decoder (queries)", "zh": "解码器（查询）"},
        "steps_stream_key": {"en": "Encoder (keys and values)", "zh": "编码器（键与值）"},
        # step 3
        "steps_x_first": {
            "en": "In layer 1, X is the sum of step 2 (embeddings + positions).",
            "zh": "在第 1 层，X 就是第 2 步的结果（词嵌入 + 位置编码）。",
        },
        "steps_x_later": {
            "en": "In layer {layer}, X is the output of layer {prev} (its step 10), not the embeddings.",
            "zh": "在第 {layer} 层，X 是第 {prev} 层的输出（它的第 10 步），而不是词嵌入。",
        },
        "steps_x_gpt": {
            "en": "GPT is **pre-LN**: the attention reads LayerNorm(x), where x is the residual stream "
            "entering layer {layer} (step 2's sum in layer 1). X below is LayerNorm(x).",
            "zh": "GPT 采用 **Pre-LN**（层归一化放在子层之前）：注意力读取的是 LayerNorm(x)，其中 x 是进入第 {layer} 层的残差流"
            "（第 1 层即第 2 步的和）。下面的 X 就是 LayerNorm(x)。",
        },
        "steps_x_cross": {
            "en": "Cross-attention: the queries come from the decoder (H, its state after masked "
            "self-attention and Add & Norm); the keys and values come from M, the encoder's "
            "final output (the “memory”).",
            "zh": "交叉注意力：查询来自解码器（H，即掩码自注意力和 Add & Norm 之后的状态）；"
            "键和值来自 M，即编码器的最终输出（“记忆”）。",
        },
        "steps_linear": {
            "en": "$W^Q, W^K, W^V$ are `nn.Linear({d}, {d})` layers: each computes $XW^{{\\top}} + b$ with the "
            "layer's weight $W$, so the tutorial's $W^Q$ is that weight transposed (plus a bias $b$).",
            "zh": "$W^Q$、$W^K$、$W^V$ 是 `nn.Linear({d}, {d})` 线性层：用该层的权重 $W$ 计算 $XW^{{\\top}} + b$，所以教程中的 $W^Q$ 就是这个权重的转置（另加一个偏置 $b$）。",
        },
        "steps_split_title": {
            "en": "split_heads: one matrix becomes h heads",
            "zh": "split_heads：把一个矩阵分割成 h 个头",
        },
        "steps_split_help": {
            "en": "The {d} columns are cut into h = {h} groups of d_k = {d_k}; head {head} (framed) "
            "gets its own group, and each head attends on its own.",
            "zh": "{d} 列被切成 h = {h} 组，每组 d_k = {d_k} 列；第 {head} 个头（框出）拿到自己的一组，每个头各自计算注意力。",
        },
        "steps_bands": {
            "en": "dotted lines separate the heads; head {head} is framed",
            "zh": "虚线分隔各个头；第 {head} 个头已框出",
        },
        "steps_rope_before": {
            "en": "{name} of this head before RoPE's rotation",
            "zh": "该头的 {name}（RoPE 旋转之前）",
        },
        "steps_rope_after": {
            "en": "…and after it, rotated by each token's position (what the scores use):",
            "zh": "……以及按每个词元的位置旋转之后（分数用的是这个）：",
        },
        # steps 4-6
        "steps_scores_explain": {
            "en": "Each cell is the dot product of a query row with a key row (d_k = {d_k} numbers each): "
            "large when the two point the same way. Rows: queries; columns: keys.",
            "zh": "每个格子是一行查询与一行键的点积（各有 d_k = {d_k} 个数）：两者方向越一致，值越大。行是查询，列是键。",
        },
        "steps_scale_explain": {
            "en": "Dividing by √d_k = √{d_k} = {s} keeps the scores' spread from growing with d_k, which keeps "
            "softmax away from one-hot rows whose gradients vanish (the tutorial's reason). It does not "
            "guarantee it: training can still make scores large. Spread (standard deviation) here: {before} "
            "before, {after} after; an after-spread of several units already gives nearly one-hot rows.",
            "zh": "除以 √d_k = √{d_k} = {s}，使分数的离散程度不随 d_k 增大，从而让 softmax 远离梯度消失的 one-hot 行"
            "（教程给出的理由：防止点积结果过大导致 softmax 梯度消失）。但这并不能保证：训练仍可能让分数变大。"
            "此处的标准差：缩放前 {before}，缩放后 {after}；缩放后标准差达到几个单位时，行就已接近 one-hot。",
        },
        "steps_mask_causal": {
            "en": "**Causal mask**: a token may not look at tokens after it (“no seeing the future”). "
            "Hidden cells get −10⁹, which softmax turns into exactly 0.",
            "zh": "**因果掩码**：一个词元不能看它后面的词元（“不能看到未来”）。被掩码的格子被设为 −10⁹，softmax 之后恰好为 0。",
        },
        "steps_mask_padding": {
            "en": "**Padding mask**: only `<pad>` keys are hidden (they fill short sentences in a batch). "
            "One sentence has no padding, so here nothing is hidden: every token sees every other, both ways.",
            "zh": "**填充掩码**：只掩码 `<pad>` 键（它们用来在一个批次中补齐较短的句子）。"
            "单个句子没有填充，所以这里什么都不掩码：每个词元都能双向地看到所有词元。",
        },
        "steps_mask_none": {"en": "This attention has no mask.", "zh": "这种注意力没有掩码。"},
        "steps_alibi": {
            "en": "ALiBi's bias for head {head}: −m·|i − j|, added to the scores before the mask",
            "zh": "第 {head} 个头的 ALiBi 偏置：−m·|i − j|，在掩码之前加到分数上",
        },
        "steps_mask_matrix": {"en": "The mask (✓ may look, ✗ hidden)", "zh": "掩码（✓ 可以看，✗ 被掩码）"},
        "steps_after_mask": {"en": "after the mask", "zh": "应用掩码后"},
        "steps_masked_value": {"en": "masked: −1e9", "zh": "被掩码：−1e9"},
        # step 7
        "steps_softmax_explain": {
            "en": "Softmax turns each row of scores into weights between 0 and 1 that add up to 1: "
            "where this token reads from. Pick a token to see its row as the tutorial's table.",
            "zh": "softmax 把每一行分数变成 0 到 1 之间、总和为 1 的权重：这个词元从哪里读取信息。选一个词元，用教程中的表格查看它这一行。",
        },
        "steps_row_sums": {
            "en": "Every row sums to 1 (here between {lo} and {hi}).",
            "zh": "每一行之和为 1（此处在 {lo} 与 {hi} 之间）。",
        },
        # step 8
        "steps_weighted_explain": {
            "en": "Each token's output is the weighted sum of the value rows, with its attention "
            "weights as the weights.",
            "zh": "每个词元的输出是 V 各行（值向量）的加权和，权重就是它的注意力权重。",
        },
        "steps_weighted_row": {
            "en": "For **{token}**: head output ≈ {parts} + …",
            "zh": "对于 **{token}**：该头输出 ≈ {parts} + …",
        },
        # step 9
        "steps_concat_explain": {
            "en": "The {h} heads' outputs ({d_k} columns each) are put side by side again "
            "(merge_heads, the tutorial's “合并多头”) into {d} columns, then the output map W_O mixes them.",
            "zh": "把 {h} 个头的输出（每个 {d_k} 列）重新并排拼接（merge_heads，即教程中的“合并多头”）成 {d} 列，再由输出矩阵 W_O 把它们混合起来。",
        },
        # step 10
        "steps_ffn_pre_ln": {
            "en": "GPT (pre-LN): the attention's output is **added** to x (the residual connection) with "
            "no LayerNorm after it; the feed-forward network reads LayerNorm(h) and its output is "
            "added again.",
            "zh": "GPT（Pre-LN）：注意力的输出直接**加**回 x（残差连接），之后不再做层归一化；"
            "前馈网络读取 LayerNorm(h)，其输出再加回去。",
        },
        "steps_ffn_post_ln_encoder": {
            "en": "The original Transformer (post-LN): add the attention's output to x (the residual "
            "connection), LayerNorm; then the feed-forward network, add, LayerNorm: "
            "“Add & Norm” twice.",
            "zh": "原始 Transformer（Post-LN）：把注意力的输出加回 x（残差连接），再做层归一化；"
            "然后是前馈网络、相加、层归一化——两次“Add & Norm”。",
        },
        "steps_ffn_post_ln_decoder": {
            "en": "The original Transformer (post-LN): add the masked self-attention's output to x, "
            "LayerNorm; then the cross-attention sub-layer (choose “Cross-attention” above to walk "
            "through it); then the feed-forward network, add, LayerNorm.",
            "zh": "原始 Transformer（Post-LN）：把掩码自注意力的输出加回 x，再做层归一化；"
            "接着是交叉注意力子层（在上方选择“交叉注意力”可逐步查看）；最后是前馈网络、相加、层归一化。",
        },
        "steps_ffn_post_ln_cross": {
            "en": "The original Transformer (post-LN): add the cross-attention's output to H, "
            "LayerNorm; then the feed-forward network, add, LayerNorm.",
            "zh": "原始 Transformer（Post-LN）：把交叉注意力的输出加回 H，再做层归一化；然后是前馈网络、相加、层归一化。",
        },
        "steps_post_residual": {"en": "Residual sum", "zh": "残差相加"},
        "steps_post_norm1": {"en": "LayerNorm 1", "zh": "层归一化 1"},
        "steps_post_norm2": {"en": "LayerNorm 2", "zh": "层归一化 2"},
        "steps_post_norm_ffn_in": {"en": "LayerNorm before the FFN", "zh": "FFN 之前的层归一化"},
        "steps_post_cross_sublayer": {"en": "Cross-attention sub-layer", "zh": "交叉注意力子层"},
        "steps_post_ffn": {"en": "Feed-forward network", "zh": "前馈网络（FFN）"},
        "steps_post_out": {"en": "Layer output", "zh": "该层输出"},
        "steps_next_layer": {
            "en": "This output is X for layer {n}, which repeats steps 3 to 10 with its own weights.",
            "zh": "这个输出就是第 {n} 层的 X，第 {n} 层用它自己的权重重复第 3 到第 10 步。",
        },
        "steps_next_layer_last": {
            "en": "This is the last layer: its output goes to the final LayerNorm / linear layer + softmax "
            "that predict the next token (for the translator's encoder: to every decoder layer's "
            "cross-attention as K and V).",
            "zh": "这是最后一层：它的输出送入最后的层归一化 / 线性层 + softmax 来预测下一个词元"
            "（对翻译模型的编码器而言：作为 K 和 V 送入每个解码器层的交叉注意力）。",
        },
    }
)

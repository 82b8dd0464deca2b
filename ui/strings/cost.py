"""The cost page (O(n²), sparse and local attention, sqrt(d_k), FlashAttention, Q/K/V and heads) and
the generation page's KV-cache section."""

STRINGS = {
    "page_cost": {"en": "The cost of attention", "zh": "注意力的代价"},
    "cost_intro": {
        "en": "The tutorials end on engineering: attention compares every token with every other, so its work and "
        "memory grow with the square of the length. This page measures that on this machine with the "
        "project's own attention code, and checks the remedies (sparse and local attention, FlashAttention's "
        "blockwise softmax) and the design choices (the 1/√d_k scaling, Q/K/V, several heads) with numbers.",
        "zh": "教程的最后一章讲工程问题：注意力让每个词元与所有其他词元比较，所以计算量和内存随长度的平方增长。"
        "本页在这台机器上用本项目自己的注意力代码测量这一点，并用数字检验各种对策（稀疏注意力、局部注意力、"
        "FlashAttention 的分块 softmax）和设计选择（1/√d_k 缩放、Q/K/V、多头）。",
    },
    "cost_section": {"en": "Section", "zh": "章节"},
    "cost_sec_n2": {"en": "O(n²) measured", "zh": "O(n²) 实测"},
    "cost_sec_sparse": {"en": "Sparse & local", "zh": "稀疏与局部注意力"},
    "cost_sec_scale": {"en": "Why √d_k", "zh": "为什么除以 √d_k"},
    "cost_sec_flash": {"en": "FlashAttention's idea", "zh": "FlashAttention 的思路"},
    "cost_sec_qkv": {"en": "Why Q, K, V and heads", "zh": "为什么要 Q、K、V 和多头"},
    "cost_quote": {"en": "The tutorial: “{quote}”", "zh": "教程原文：“{quote}”"},
    "cost_quote_n2": {
        "en": "When the sequence is longer than 1024, self-attention's O(n²) complexity becomes the "
        "bottleneck; sparse attention, local attention and similar strategies can then be used.",
        "zh": "当序列长度超过1024时，原始自注意力的O(n²)复杂度会成为性能瓶颈。这时可以采用稀疏注意力、局部注意力等优化策略。",
    },
    "cost_quote_scale": {
        "en": "Scaling factor: 1/√d_k keeps the dot products from growing so large that softmax's gradient vanishes.",
        "zh": "缩放因子：1/√d_k 防止点积结果过大导致softmax梯度消失",
    },
    "cost_quote_heads": {
        "en": "Multi-head: the feature space is split into several subspaces, so the model can learn "
        "different kinds of relation in different representation subspaces.",
        "zh": "多头机制：将特征空间分割到多个子空间，允许模型在不同表示子空间中学习不同方面的关系",
    },
    "cost_quote_qkv": {
        "en": "Like a search engine: the Query is your search terms, the Key a page's title and "
        "keywords, the Value the page's actual content.",
        "zh": "类比搜索引擎：Query 是你的搜索词，Key 是网页的标题/关键词，Value 是网页的实际内容",
    },
    # -- O(n²) ----------------------------------------------------------------------------------
    "cost_live_title": {"en": "Measured now, on this server", "zh": "此刻在本服务器上测量"},
    "cost_live_help": {
        "en": "One forward of our `MultiHeadAttention` (model/attention.py) on random tokens, batch 1, float32, one "
        "torch thread: the best of 3 wall times, and every tensor it allocates watched as it runs. Only small "
        "lengths are run live; the full curve above comes from the stored bench run.",
        "zh": "在随机词元上运行一次我们的 `MultiHeadAttention`（model/attention.py），批大小 1、float32、一个 torch 线程："
        "取 3 次墙钟时间中最短的一次，并在运行中记录它分配的每一个张量。这里只实时测量较短的长度；上方的完整曲线来自保存的基准测试结果。",
    },
    "cost_size_ours": {"en": "ours: d_model 128, 4 heads", "zh": "本项目：d_model 128，4 个头"},
    "cost_size_base": {
        "en": "d_model 768, 12 heads (BERT-base, GPT-2)",
        "zh": "d_model 768，12 个头（BERT-base、GPT-2）",
    },
    "cost_col_size": {"en": "layer", "zh": "层"},
    "cost_col_n": {"en": "tokens n", "zh": "词元数 n"},
    "cost_col_ms": {"en": "time (ms)", "zh": "时间（毫秒）"},
    "cost_col_matrix": {"en": "one attention matrix h·n² (MB)", "zh": "一个注意力矩阵 h·n²（MB）"},
    "cost_col_qkv": {"en": "Q, K, V and output 4·n·d (MB)", "zh": "Q、K、V 与输出 4·n·d（MB）"},
    "cost_col_square": {"en": "allocated as n×n tensors (MB)", "zh": "以 n×n 张量分配（MB）"},
    "cost_col_peak": {"en": "peak alive (MB)", "zh": "峰值占用（MB）"},
    "cost_col_gflop": {"en": "GFLOP", "zh": "GFLOP"},
    "cost_bench_title": {"en": "The full curve: n = 16 to 4,096", "zh": "完整曲线：n = 16 到 4,096"},
    "cost_bench_source": {
        "en": "From `{command}` (bench/cost.py, which writes bench/cost_results.json), run {date} on {machine}, one "
        "torch thread, load average {load} before the run (the machine is shared, so times are not those of an "
        "idle machine).",
        "zh": "来自 `{command}`（bench/cost.py，写入 bench/cost_results.json），运行于 {date}，机器：{machine}，"
        "一个 torch 线程，运行前负载 {load}（机器是共享的，所以时间不是空闲机器上的数值）。",
    },
    "cost_no_bench": {
        "en": "No stored bench run yet: `python -m bench.cost` writes it.",
        "zh": "还没有保存的基准测试结果：运行 `python -m bench.cost` 生成。",
    },
    "cost_time_axis": {"en": "seconds per layer (log)", "zh": "每层耗时（秒，对数）"},
    "cost_mem_axis": {"en": "bytes (log)", "zh": "字节（对数）"},
    "cost_n_axis": {"en": "tokens n (log)", "zh": "词元数 n（对数）"},
    "cost_guide_n2": {"en": "∝ n² (through the last point)", "zh": "∝ n²（过最后一点）"},
    "cost_guide_n1": {"en": "∝ n", "zh": "∝ n"},
    "cost_time_title": {"en": "Time of one attention layer", "zh": "一个注意力层的时间"},
    "cost_mem_title": {"en": "Memory of one attention layer", "zh": "一个注意力层的内存"},
    "cost_mem_matrix": {"en": "one attention matrix, {size}", "zh": "一个注意力矩阵，{size}"},
    "cost_mem_qkv": {"en": "Q, K, V, output, {size}", "zh": "Q、K、V、输出，{size}"},
    "cost_mem_peak": {"en": "peak measured, {size}", "zh": "实测峰值，{size}"},
    "cost_copies": {
        "en": "Our code holds {copies:.0f} tensors of the attention matrix's size at once or in turn (QKᵀ, ÷√d_k, ÷T, "
        "softmax): {square} MB allocated as n×n tensors at n = {n}, against {matrix} MB for one copy.",
        "zh": "我们的代码会先后生成 {copies:.0f} 个与注意力矩阵同样大小的张量（QKᵀ、÷√d_k、÷T、softmax）：在 n = {n} 时，"
        "以 n×n 张量分配了 {square} MB，而一个矩阵只需 {matrix} MB。",
    },
    "cost_stops": {
        "en": "Where it stops: the bench ran every length up to {n_max:,} ({stopped}). Memory, not time, is the wall: "
        "with {copies:.0f} n×n tensors per layer, the d_model 768 / 12-head layer would fill this machine's "
        "{gib:.0f} GiB at about n = {limit:,} (counted from the measured bytes, not run).",
        "zh": "在哪里停止：基准测试跑完了直到 {n_max:,} 的每个长度（{stopped}）。真正的瓶颈是内存而不是时间：每层有 {copies:.0f} 个 n×n 张量，"
        "d_model 768 / 12 头的层会在大约 n = {limit:,} 时占满这台机器的 {gib:.0f} GiB（由实测字节数推算，未实际运行）。",
    },
    "cost_stops_none": {"en": "none stopped early", "zh": "没有提前停止"},
    "cost_at_1024_title": {"en": "What it means at 1,024 tokens", "zh": "在 1,024 个词元时意味着什么"},
    "cost_at_1024": {
        "en": "At n = 1,024 one d_model 768 / 12-head layer took **{ms:.0f} ms** here and held **{peak:.0f} MB** at its "
        "peak. One attention matrix is 12 × 1,024² × 4 bytes = **{matrix:.1f} MB**, against {qkv:.1f} MB for Q, K, V "
        "and the output together; a 12-layer model keeps {layers:.0f} MB of attention weights if it keeps them "
        "all (as output_attentions does). The n² part (QKᵀ and the weighted sum, 4·n²·d = {sq:.1f} GFLOP) is "
        "{share:.0%} of the layer's matrix products; it passes the projections (8·n·d²) at n = 2·d = 1,536. "
        "Doubling n from 1,024 to 2,048 multiplied the time by **{ratio_t:.1f}** and the peak memory by "
        "**{ratio_m:.1f}** in this run (n² alone: 4).",
        "zh": "在 n = 1,024 时，一个 d_model 768 / 12 头的层在这里耗时 **{ms:.0f} 毫秒**，峰值占用 **{peak:.0f} MB**。"
        "一个注意力矩阵是 12 × 1,024² × 4 字节 = **{matrix:.1f} MB**，而 Q、K、V 与输出加起来只有 {qkv:.1f} MB；"
        "一个 12 层的模型如果保留全部注意力权重（如 output_attentions），就要 {layers:.0f} MB。n² 部分（QKᵀ 与加权求和，"
        "4·n²·d = {sq:.1f} GFLOP）占该层矩阵乘法的 {share:.0%}；在 n = 2·d = 1,536 时超过投影（8·n·d²）。"
        "本次运行中 n 从 1,024 翻倍到 2,048，时间乘以 **{ratio_t:.1f}**，峰值内存乘以 **{ratio_m:.1f}**（仅 n² 则为 4）。",
    },
    "cost_download_bench": {"en": "Bench results (JSON)", "zh": "基准测试结果（JSON）"},
    "cost_download_csv": {"en": "This table (CSV)", "zh": "本表（CSV）"},
    # -- sparse -----------------------------------------------------------------------------------
    "cost_sparse_intro": {
        "en": "Each pattern decides which (query, key) pairs are computed at all; the rest are never scored, so "
        "work and memory grow with the pairs kept. Blue: computed. Grey: skipped. Shown on your sentence's "
        "tokens ({model}).",
        "zh": "每种模式决定哪些（查询，键）对会被计算；其余的对根本不打分，所以计算量和内存只随保留的对数增长。"
        "蓝色：计算；灰色：跳过。显示在你的句子的词元上（{model}）。",
    },
    "cost_w": {
        "en": "Window w (a token sees itself and w−1 neighbours on each side)",
        "zh": "窗口 w（每个词元看到自己和每侧 w−1 个邻居）",
    },
    "cost_dil": {
        "en": "Dilation (gap between the keys a dilated window sees)",
        "zh": "膨胀率（膨胀窗口所看键之间的间隔）",
    },
    "cost_block": {"en": "Block size", "zh": "块大小"},
    "cost_global": {
        "en": "Global tokens (see and are seen by every token)",
        "zh": "全局词元（看到所有词元，也被所有词元看到）",
    },
    "cost_causal": {"en": "Causal (a GPT's masked self-attention: no key after the query)", "zh": "因果掩码（GPT）"},
    "cost_pat_full": {"en": "Full attention", "zh": "完整注意力"},
    "cost_pat_window": {"en": "Sliding window", "zh": "滑动窗口"},
    "cost_pat_dilated": {"en": "Dilated window", "zh": "膨胀窗口"},
    "cost_pat_global": {"en": "Global + window (Longformer, BigBird)", "zh": "全局 + 窗口（Longformer、BigBird）"},
    "cost_pat_block": {"en": "Block-sparse (BigBird's blocks)", "zh": "块稀疏（BigBird 的分块）"},
    "cost_share": {
        "en": "{share:.0%} of the pairs computed ({pairs} of {full})",
        "zh": "计算了 {share:.0%} 的词元对（{full} 对中的 {pairs} 对）",
    },
    "cost_computed": {"en": "computed", "zh": "计算"},
    "cost_skipped": {"en": "skipped", "zh": "跳过"},
    "cost_axis_key": {"en": "Key", "zh": "键"},
    "cost_axis_query": {"en": "Query", "zh": "查询"},
    "cost_pattern_curve_title": {
        "en": "Measured: full attention against the patterns",
        "zh": "实测：完整注意力与各种模式",
    },
    "cost_pattern_curve_help": {
        "en": "4 heads × d_k 32 (our shipped size), window 64, dilation 2, blocks of 64, one global token. Full "
        "attention is our `scaled_dot_product_attention`; a pattern is computed in 64 × 64 tiles, each block "
        "of queries meeting only the blocks of keys it has pairs in (model/cost.py, `sparse_attention`), and "
        "equals full attention with that mask to 1e-6 (tested). Live points: n = {ns}, this server, now.",
        "zh": "4 个头 × d_k 32（本项目模型的大小），窗口 64，膨胀率 2，块大小 64，一个全局词元。完整注意力用我们的 "
        "`scaled_dot_product_attention`；稀疏模式按 64 × 64 的块计算，每个查询块只与它有词元对的键块相乘"
        "（model/cost.py 的 `sparse_attention`），结果与带该掩码的完整注意力相差不超过 1e-6（有测试）。实时点：n = {ns}，本服务器，此刻。",
    },
    "cost_live_suffix": {"en": "{name} (live)", "zh": "{name}（实时）"},
    "cost_pattern_at": {
        "en": "At n = {n:,}: full attention {full:.0f} ms, sliding window {window:.1f} ms ({share:.1%} of the pairs): "
        "{speedup:.0f}× less time in the stored run.",
        "zh": "在 n = {n:,} 时：完整注意力 {full:.0f} 毫秒，滑动窗口 {window:.1f} 毫秒（{share:.1%} 的词元对）：在保存的运行中时间少了 {speedup:.0f} 倍。",
    },
    "cost_local_title": {
        "en": "What the window costs: gpt-local against gpt",
        "zh": "窗口的代价：gpt-local 与 gpt 对比",
    },
    "cost_local_help": {
        "en": "gpt-local is gpt (same corpus, recipe, size and seed) with sliding-window attention of width {w}: "
        "each token sees itself and the {w1} tokens before it, so three layers reach {reach} tokens back. "
        "Held-out quality, computed now on {n} held-out items: −log p per item against the corpus's exact "
        "entropy per item (1.000 is the best any model can do).",
        "zh": "gpt-local 就是 gpt（相同语料、训练配方、大小和种子），但使用宽度为 {w} 的滑动窗口注意力：每个词元只看到自己和前面 {w1} 个词元，"
        "三层最多能传递到 {reach} 个词元之前。留出集质量，此刻在 {n} 条留出样本上计算：每条样本的 −log p 与语料每条样本的精确熵之比（1.000 是任何模型能达到的最好值）。",
    },
    "cost_local_split": {
        "en": "Where the window costs: gpt-local's −log p is {one:+.3f} nats per item against gpt's on the {n_one} "
        "one-sentence items, and {two:+.3f} on the {n_two} two-sentence stories, whose pronoun (It, 它) refers "
        "to a noun further back than one layer's window reaches.",
        "zh": "窗口的代价在哪里：在 {n_one} 条单句样本上，gpt-local 每条的 −log p 与 gpt 相差 {one:+.3f} 奈特；在 {n_two} 条两句的小故事上相差 "
        "{two:+.3f}，这些故事里的代词（It、它）指向的名词比一层的窗口能看到的更远。",
    },
    "cost_col_model": {"en": "model", "zh": "模型"},
    "cost_col_nll": {"en": "−log p per item (nats)", "zh": "每条 −log p（奈特）"},
    "cost_col_entropy": {"en": "exact entropy per item", "zh": "每条精确熵"},
    "cost_col_ratio": {"en": "ratio", "zh": "比值"},
    "cost_local_missing": {
        "en": "gpt-local has no trained weights yet: `python -m model train gpt-local`.",
        "zh": "gpt-local 还没有训练好的权重：运行 `python -m model train gpt-local`。",
    },
    "cost_local_heat": {
        "en": "Layer {layer}, mean of the heads, on your sentence",
        "zh": "第 {layer} 层，各头平均，在你的句子上",
    },
    "cost_layer": {"en": "Layer", "zh": "层"},
    "cost_head": {"en": "Head", "zh": "头"},
    "cost_layer_n": {"en": "layer {n}", "zh": "第 {n} 层"},
    "cost_head_n": {"en": "head {n}", "zh": "第 {n} 个头"},
    # -- sqrt(d_k) -------------------------------------------------------------------------------
    "cost_scale_intro": {
        "en": "With Q and K entries of variance 1, a dot product of d_k terms has variance d_k: its spread grows "
        "as √d_k. Unscaled, the softmax then puts almost all weight on one key, and its gradient — what "
        "trains W_Q and W_K — shrinks towards 0. A query counts as vanished when its gradient is below "
        "1% of the median query's with the scaling, on the same draw. Below: random Q, K, V ~ N(0, 1), {n} keys, loss = Σ output ⊙ G "
        "for a random G, mean of {trials} draws, float64, gradients by autograd.",
        "zh": "若 Q、K 的每个分量方差为 1，由 d_k 项相加得到的点积方差就是 d_k：分布宽度按 √d_k 增长。不缩放时，softmax 几乎把全部权重给一个键，"
        "它的梯度（用来训练 W_Q 和 W_K 的信号）趋近于 0。若某个查询的梯度小于同一次抽样中缩放版本查询梯度中位数的 1%，就算作梯度消失。下面：随机 Q、K、V ~ N(0, 1)，{n} 个键，损失 = Σ 输出 ⊙ G（G 随机），"
        "{trials} 次抽样的平均，float64，梯度由自动求导得到。",
    },
    "cost_scaled": {"en": "÷ √d_k (the tutorial)", "zh": "÷ √d_k（教程做法）"},
    "cost_unscaled": {"en": "no scaling", "zh": "不缩放"},
    "cost_panel_std": {"en": "spread of the scores (std)", "zh": "分数的标准差"},
    "cost_panel_max": {"en": "largest softmax weight", "zh": "softmax 最大权重"},
    "cost_panel_grad": {"en": "softmax's gradient ‖∂p/∂s‖ per row", "zh": "softmax 的梯度 ‖∂p/∂s‖（每行）"},
    "cost_panel_dead": {"en": "share of queries whose gradient vanished", "zh": "梯度消失的查询所占比例"},
    "cost_col_dk": {"en": "d_k", "zh": "d_k"},
    "cost_col_std_s": {"en": "score std ÷√d_k", "zh": "分数标准差（÷√d_k）"},
    "cost_col_std_u": {"en": "score std unscaled", "zh": "分数标准差（不缩放）"},
    "cost_col_max_s": {"en": "max weight ÷√d_k", "zh": "最大权重（÷√d_k）"},
    "cost_col_max_u": {"en": "max weight unscaled", "zh": "最大权重（不缩放）"},
    "cost_col_sg_s": {"en": "‖∂p/∂s‖ ÷√d_k", "zh": "‖∂p/∂s‖（÷√d_k）"},
    "cost_col_sg_u": {"en": "‖∂p/∂s‖ unscaled", "zh": "‖∂p/∂s‖（不缩放）"},
    "cost_col_dead_s": {"en": "vanished ÷√d_k", "zh": "梯度消失（÷√d_k）"},
    "cost_col_dead_u": {"en": "vanished unscaled", "zh": "梯度消失（不缩放）"},
    "cost_col_gq_s": {"en": "‖∂L/∂Q‖ ÷√d_k", "zh": "‖∂L/∂Q‖（÷√d_k）"},
    "cost_col_gq_u": {"en": "‖∂L/∂Q‖ unscaled", "zh": "‖∂L/∂Q‖（不缩放）"},
    "cost_col_gk_s": {"en": "‖∂L/∂K‖ ÷√d_k", "zh": "‖∂L/∂K‖（÷√d_k）"},
    "cost_col_gk_u": {"en": "‖∂L/∂K‖ unscaled", "zh": "‖∂L/∂K‖（不缩放）"},
    "cost_scale_summary": {
        "en": "At d_k = {dk}: unscaled scores spread {std:.1f} wide (scaled: {std_s:.2f}), the largest weight averages "
        "{mx:.3f} (scaled: {mx_s:.3f}), softmax's own gradient per row falls from {sg_s:.3f} to {sg:.3f}, and "
        "**{dead:.0%}** of the queries get less than {limit:.0%} of the typical gradient (scaled: {dead_s:.0%}): "
        "they have stopped learning. That is the tutorial's 梯度消失 (vanishing gradient), measured. "
        "The raw ‖∂L/∂Q‖ over all queries is larger without the scaling (last columns): the unscaled score "
        "carries K itself, √d_k times larger, so the rows that have not saturated get bigger, erratic steps "
        "while the saturated ones get none.",
        "zh": "在 d_k = {dk} 时：不缩放的分数标准差为 {std:.1f}（缩放后 {std_s:.2f}），最大权重平均为 {mx:.3f}（缩放后 {mx_s:.3f}），"
        "softmax 自身的每行梯度从 {sg_s:.3f} 降到 {sg:.3f}，并且 **{dead:.0%}** 的查询得到的梯度不到典型值的 {limit:.0%}"
        "（缩放后：{dead_s:.0%}）：它们已停止学习。这就是教程所说的“梯度消失”，用数字测出来了。"
        "所有查询合起来的 ‖∂L/∂Q‖ 在不缩放时反而更大（最后几列）：不缩放的分数直接带着 K，大了 √d_k 倍，"
        "所以尚未饱和的行得到更大、更不稳定的更新，而饱和的行得不到任何更新。",
    },
    "cost_heads_title": {
        "en": "The same on our trained heads ({model}, your sentence)",
        "zh": "同样的测量，在我们训练好的头上（{model}，你的句子）",
    },
    "cost_heads_help": {
        "en": "Each head's real q and k (d_k = {dk}), as trained (÷√d_k) and with the scaling removed (scores × √d_k "
        "= {f:.2f}). The gradient uses one fixed random G per layer for both.",
        "zh": "每个头真实的 q 和 k（d_k = {dk}），按训练时的做法（÷√d_k）和去掉缩放（分数 × √d_k = {f:.2f}）两种情况。梯度对两者使用同一个固定的随机 G。",
    },
    "cost_heads_summary": {
        "en": "Removing the scaling from these heads raises the mean largest weight from {a:.2f} to {b:.2f} and "
        "lowers softmax's gradient per row from {c:.3f} to {d:.3f} (means over heads; rows that see one key "
        "left out).",
        "zh": "去掉这些头的缩放后，平均最大权重从 {a:.2f} 升到 {b:.2f}，softmax 每行的梯度从 {c:.3f} 降到 {d:.3f}（各头平均；只能看到一个键的行不计）。",
    },
    # -- flash -------------------------------------------------------------------------------------
    "cost_flash_intro": {
        "en": "FlashAttention never builds the n × n matrix. It walks through the keys a block at a time and keeps, "
        "for each query, three running numbers: the largest score so far m, the sum of exp(score − m) so far "
        "l, and the weighted sum of values so far. When a block brings a larger score, what was summed so far "
        "is rescaled by exp(m_old − m_new). At the end, output = weighted sum / l: exactly softmax(QKᵀ/√d_k)V.",
        "zh": "FlashAttention 从不构造 n × n 矩阵。它一次处理一块键，并为每个查询保存三个累计量：目前为止的最大分数 m、"
        "目前为止 exp(分数 − m) 之和 l，以及目前为止值向量的加权和。当新的一块带来更大的分数时，之前累加的部分乘以 "
        "exp(m_旧 − m_新) 重新缩放。最后，输出 = 加权和 / l：与 softmax(QKᵀ/√d_k)V 完全相同。",
    },
    "cost_flash_block": {"en": "Keys per block", "zh": "每块的键数"},
    "cost_flash_row": {"en": "Query to follow", "zh": "跟踪的查询"},
    "cost_flash_check": {
        "en": "{model}, layer {layer}, head {head}: the blockwise output differs from our `scaled_dot_product_attention` "
        "by at most **{diff:.1e}** (bar: 1e-6). The full matrix would take {full} bytes; the largest score tile "
        "held at once took {tile} bytes.",
        "zh": "{model}，第 {layer} 层，第 {head} 个头：分块计算的输出与我们的 `scaled_dot_product_attention` 最多相差 **{diff:.1e}**"
        "（标准：1e-6）。完整矩阵需要 {full} 字节；同一时刻持有的最大分数块只需 {tile} 字节。",
    },
    "cost_flash_ok": {"en": "equal to 1e-6", "zh": "相差小于 1e-6"},
    "cost_flash_bad": {"en": "NOT equal to 1e-6", "zh": "相差超过 1e-6"},
    "cost_flash_alibi": {
        "en": "This model adds ALiBi's bias to the scores; both sides here are computed without it.",
        "zh": "该模型会在分数上加 ALiBi 偏置；这里两边都不加偏置来比较。",
    },
    "cost_flash_steps": {
        "en": "The running max m and sum l of “{token}”, block after block",
        "zh": "“{token}”的累计最大值 m 与累计和 l，逐块变化",
    },
    "cost_flash_x": {"en": "keys in the block", "zh": "本块的键"},
    "cost_flash_max": {"en": "running max m", "zh": "累计最大值 m"},
    "cost_flash_sum": {"en": "running sum l", "zh": "累计和 l"},
    "cost_flash_big_title": {
        "en": "At 1,024 tokens (live) and 4,096 (bench): random Q, K, V, 12 heads × d_k 64",
        "zh": "在 1,024 个词元（实时）和 4,096 个词元（基准测试）时：随机 Q、K、V，12 个头 × d_k 64",
    },
    "cost_col_where": {"en": "measured", "zh": "测量"},
    "cost_where_live": {"en": "now, this server", "zh": "此刻，本服务器"},
    "cost_where_bench": {"en": "bench, {date}", "zh": "基准测试，{date}"},
    "cost_col_block": {"en": "keys per block", "zh": "每块键数"},
    "cost_col_diff": {"en": "largest difference from ours", "zh": "与我们实现的最大差"},
    "cost_col_full_mb": {"en": "n×n matrix (MB)", "zh": "n×n 矩阵（MB）"},
    "cost_col_tile_mb": {"en": "largest tile (MB)", "zh": "最大块（MB）"},
    "cost_col_ours_ms": {"en": "ours (ms)", "zh": "我们的实现（毫秒）"},
    "cost_col_online_ms": {"en": "blockwise (ms)", "zh": "分块（毫秒）"},
    "cost_flash_gpu": {
        "en": "Why it is faster on a GPU: a GPU computes far faster than it can read and write its main memory "
        "(HBM), so plain attention is limited by memory traffic — it writes the n × n scores to HBM, reads them "
        "back for the softmax, writes the weights, reads them again for the weighted sum. FlashAttention keeps "
        "one block of Q, K, V and the running m, l in the fast on-chip SRAM and does all four steps there, so "
        "the n² numbers are never written to HBM: the same arithmetic (a little more) with far less traffic. "
        "This machine has no GPU, so no GPU speed-up is claimed here. On this CPU the times in the table are "
        "what was measured: the blockwise loop is plain Python and PyTorch, not FlashAttention's kernel; where "
        "it is faster than ours, it is because ours writes several n × n tensors (QKᵀ, ÷√d_k, ÷T, softmax) — "
        "memory traffic again. What it surely saves is memory: {saved}.",
        "zh": "为什么它在 GPU 上更快：GPU 的计算速度远快于它读写显存（HBM）的速度，所以普通注意力受限于内存读写——它把 n × n 的分数"
        "写入 HBM，为了 softmax 再读回来，写出权重，为了加权求和再读一遍。FlashAttention 把一块 Q、K、V 和累计量 m、l 留在片上"
        "高速的 SRAM 里完成这四步，n² 个数从不写入 HBM：算术量相同（略多），内存读写却少得多。这台机器没有 GPU，所以这里不声称任何 GPU 加速。"
        "表中是这台 CPU 上实测的时间：分块循环是普通的 Python 和 PyTorch，不是 FlashAttention 的内核；它比我们的实现快的地方，"
        "是因为我们的实现会写出好几个 n × n 张量（QKᵀ、÷√d_k、÷T、softmax）——仍然是内存读写的原因。它一定节省的是内存：{saved}。",
    },
    "cost_flash_saved": {
        "en": "at n = {n:,}, {full:.0f} MB of scores never held, against {tile:.0f} MB per tile",
        "zh": "在 n = {n:,} 时，{full:.0f} MB 的分数从未被保存，每块只需 {tile:.0f} MB",
    },
    # -- Q, K, V and heads ------------------------------------------------------------------------
    "cost_qkv_intro": {
        "en": "The search analogy with your sentence's own vectors ({model}, {kind}): the query q of “{token}” is "
        "compared with every key k_j (a dot product ÷ √d_k), the softmax turns the scores into weights, and "
        "the answer is the weights' mix of the value rows v_j.",
        "zh": "用你的句子自己的向量来演示搜索类比（{model}，{kind}）：“{token}”的查询向量 q 与每个键 k_j 比较（点积 ÷ √d_k），"
        "softmax 把分数变成权重，答案就是按权重混合的值向量 v_j。",
    },
    "cost_qkv_query": {"en": "Query token", "zh": "查询词元"},
    "cost_qkv_scores": {"en": "q·k_j / √d_k (search scores)", "zh": "q·k_j / √d_k（搜索得分）"},
    "cost_qkv_weights": {"en": "softmax: the weights", "zh": "softmax：权重"},
    "cost_qkv_values": {
        "en": "The value rows v_j and the answer Σ w_j v_j (last row)",
        "zh": "值向量 v_j 与答案 Σ w_j v_j（最后一行）",
    },
    "cost_qkv_answer": {"en": "answer", "zh": "答案"},
    "cost_qkv_dims": {"en": "dimension of the head (d_k)", "zh": "头的维度（d_k）"},
    "cost_qkv_rows": {"en": "key token", "zh": "键词元"},
    "cost_qkv_check": {
        "en": "Recomputed here from q, k, v: the answer equals the model's own head output to {diff:.1e}. "
        "The top key is “{top}” with weight {w:.2f}.",
        "zh": "这里用 q、k、v 重新计算：答案与模型自己的头输出相差 {diff:.1e}。权重最大的键是“{top}”，权重 {w:.2f}。",
    },
    "cost_heads_layer_title": {
        "en": "Every head of layer {layer} on the same sentence",
        "zh": "同一个句子上第 {layer} 层的每个头",
    },
    "cost_heads_layer_help": {
        "en": "Each head has its own W_Q, W_K, W_V into a {dk}-dimensional subspace, so each can look for something "
        "else. For “{token}”:",
        "zh": "每个头都有自己的 W_Q、W_K、W_V，映射到一个 {dk} 维子空间，所以每个头可以寻找不同的东西。对“{token}”来说：",
    },
    "cost_head_looks": {
        "en": "head {h} looks most at “{token}” ({w:.2f})",
        "zh": "第 {h} 个头最关注“{token}”（{w:.2f}）",
    },
    "cost_merged_title": {
        "en": "The heads' answers for “{token}”, concatenated, and the merged output W_O·concat",
        "zh": "“{token}”在各头的答案拼接起来，以及合并后的输出 W_O · 拼接",
    },
    "cost_merged_rows_concat": {"en": "concat (heads side by side)", "zh": "拼接（各头并排）"},
    "cost_merged_rows_out": {"en": "W_O · concat", "zh": "W_O · 拼接"},
    "cost_merged_dims": {"en": "dimension of d_model", "zh": "d_model 的维度"},
    "cost_hf_note": {
        "en": "This section uses our own models; with a Hugging Face model it shows the GPT.",
        "zh": "本节使用我们自己的模型；选中 Hugging Face 模型时显示 GPT。",
    },
    "cost_kind_decoder": {"en": "masked self-attention", "zh": "掩码自注意力"},
    "cost_kind_encoder": {"en": "encoder self-attention", "zh": "编码器自注意力"},
    # -- KV cache (generation page) ---------------------------------------------------------------
    "kv_title": {
        "en": "The KV cache: what generation keeps, and what it saves",
        "zh": "KV 缓存：生成时保存了什么，又省下了什么",
    },
    "kv_intro": {
        "en": "Each new token's query meets every earlier key and value. Those K and V rows never change once "
        "written (a token cannot see later ones), so a model keeps them per layer and computes only the new "
        "token's row: the KV cache. Below, the text so far read one token at a time by our GPT with a cache "
        "(model/cost.py `CachedDecoder`, its logits equal the full forward's to 1e-4, tested).",
        "zh": "每个新词元的查询都要用到之前所有的键和值。这些 K、V 行一旦写出就不再改变（词元看不到后面的词元），所以模型在每一层"
        "保存它们，只计算新词元的那一行：这就是 KV 缓存。下面用带缓存的 GPT 逐个读入目前的文本"
        "（model/cost.py 的 `CachedDecoder`，其 logits 与完整前向计算相差不超过 1e-4，有测试）。",
    },
    "kv_layer": {"en": "Layer of the cache", "zh": "缓存的层"},
    "kv_which": {"en": "Rows", "zh": "行"},
    "kv_k": {"en": "K (keys)", "zh": "K（键）"},
    "kv_v": {"en": "V (values)", "zh": "V（值）"},
    "kv_rows_caption": {
        "en": "{rows} rows cached per layer × {layers} layers × (K and V) × d_model {d} × 4 bytes = {kb:.1f} KB. "
        "The newest row (outlined) is the only one this step computed; heads side by side, split by lines.",
        "zh": "每层缓存 {rows} 行 × {layers} 层 ×（K 与 V）× d_model {d} × 4 字节 = {kb:.1f} KB。带框的最新一行是这一步唯一计算的行；各头并排，用竖线分开。",
    },
    "kv_window_caption": {
        "en": "{model} attends only to the last {w} tokens, so its cache never holds more than {w} rows per layer.",
        "zh": "{model} 只关注最后 {w} 个词元，所以它的缓存每层最多只有 {w} 行。",
    },
    "kv_cost_title": {
        "en": "Cost of each new token, with and without the cache",
        "zh": "每个新词元的代价：有缓存与无缓存",
    },
    "kv_flops_axis": {"en": "FLOPs for the next token (log)", "zh": "下一个词元的 FLOPs（对数）"},
    "kv_time_axis": {"en": "ms for the next token (log)", "zh": "下一个词元的毫秒数（对数）"},
    "kv_t_axis": {"en": "tokens read so far t", "zh": "已读词元数 t"},
    "kv_no_cache": {"en": "no cache: re-read all t tokens", "zh": "无缓存：重读全部 t 个词元"},
    "kv_with_cache": {"en": "KV cache: one new row", "zh": "KV 缓存：只算新的一行"},
    "kv_cost_caption": {
        "en": "FLOPs counted (2 × multiply-adds of every matrix product; the count equals torch's FlopCounterMode, "
        "tested). Time measured now on this server (best of 3, one thread). At t = {t}: {fa:,} against "
        "{fb:,} FLOPs ({fr:.0f}×), {ta:.2f} ms against {tb:.2f} ms ({tr:.1f}×). A tiny model spends most of "
        "its time in Python and per-call overhead, so time saves less than FLOPs do.",
        "zh": "FLOPs 是数出来的（每次矩阵乘法的乘加次数 × 2；与 torch 的 FlopCounterMode 一致，有测试）。时间为此刻在本服务器上实测"
        "（3 次取最短，一个线程）。在 t = {t} 时：{fa:,} 对 {fb:,} FLOPs（{fr:.0f} 倍），{ta:.2f} 毫秒对 {tb:.2f} 毫秒（{tr:.1f} 倍）。"
        "小模型的时间大多花在 Python 和每次调用的开销上，所以时间上的节省不如 FLOPs 多。",
    },
    "kv_bench_caption": {
        "en": "Stored bench run ({date}): at t = {t}, {ta:.2f} ms without the cache, {tb:.2f} ms with it.",
        "zh": "保存的基准测试（{date}）：在 t = {t} 时，无缓存 {ta:.2f} 毫秒，有缓存 {tb:.2f} 毫秒。",
    },
    "kv_sink_title": {
        "en": "The attention sink: how much of each row goes to the first token",
        "zh": "注意力汇聚点：每一行有多少权重给了第一个词元",
    },
    "kv_sink_help": {
        "en": "Mean weight on position 0 (<s>) over rows 1 … {n} of the whole text, per layer and head. Softmax "
        "must put its weight somewhere; heads with nothing to look for park it on a token every row can see — "
        "the first. (BertViz users ask why “every token focuses on the first token”: this is why.)",
        "zh": "整段文本第 1 … {n} 行中放在位置 0（<s>）上的平均权重，按层和头分别给出。softmax 必须把权重放在某处；"
        "没有东西可找的头就把权重停放在每一行都能看到的词元上——第一个词元。（BertViz 的用户问为什么“每个词元都关注第一个词元”，原因就在这里。）",
    },
    "kv_sink_layer": {"en": "layer {layer}", "zh": "第 {layer} 层"},
    "kv_sink_head": {"en": "head {h}", "zh": "第 {h} 个头"},
    "kv_sink_summary": {
        "en": "Mean over all heads: {mean:.2f} of each row on the first token; largest: layer {layer} head {head}, {max:.2f}.",
        "zh": "所有头的平均：每行 {mean:.2f} 的权重在第一个词元上；最大：第 {layer} 层第 {head} 个头，{max:.2f}。",
    },
    "kv_stream_title": {
        "en": "StreamingLLM: keep the sink and a window, drop the middle",
        "zh": "StreamingLLM：保留汇聚点和窗口，丢掉中间",
    },
    "kv_stream_help": {
        "en": "A cache that must stay small keeps only some rows. Three ways to keep {budget} rows per layer: the "
        "last {budget} (a plain window), or the first {sink} (the sink) + the last {win}. Each reads the whole "
        "text one token at a time with that cache (true positions kept); loss = mean −log p per token, and "
        "the greedy continuation of your prompt with the same cache.",
        "zh": "如果缓存必须保持很小，就只能保留部分行。每层保留 {budget} 行的三种方式：最后 {budget} 行（普通窗口），或者前 {sink} 行（汇聚点）+ "
        "最后 {win} 行。每种方式都用该缓存逐个读入整段文本（保留真实位置）；损失 = 每个词元的平均 −log p，并给出在同样缓存下对你的提示词的贪心续写。",
    },
    "kv_sink_n": {"en": "Sink rows kept", "zh": "保留的汇聚点行数"},
    "kv_window_n": {"en": "Window rows kept", "zh": "保留的窗口行数"},
    "kv_policy_full": {"en": "full cache", "zh": "完整缓存"},
    "kv_policy_window": {"en": "window only ({w})", "zh": "只有窗口（{w}）"},
    "kv_policy_sink": {"en": "sink {s} + window {w}", "zh": "汇聚点 {s} + 窗口 {w}"},
    "kv_col_policy": {"en": "cache", "zh": "缓存"},
    "kv_col_rows": {"en": "rows per layer (at most)", "zh": "每层行数（最多）"},
    "kv_col_loss": {"en": "loss (nats per token)", "zh": "损失（奈特/词元）"},
    "kv_col_cont": {"en": "greedy continuation", "zh": "贪心续写"},
    "kv_stream_text": {"en": "Text read: “{text}” ({n} tokens).", "zh": "读入的文本：“{text}”（{n} 个词元）。"},
    "kv_stream_short": {
        "en": "The text is only {n} tokens, within the cache budget: all three caches hold every row. Generate "
        "more tokens (or write a longer prompt) to see the difference.",
        "zh": "文本只有 {n} 个词元，没有超出缓存预算：三种缓存都保存了所有行。多生成一些词元（或写更长的提示词）就能看到差别。",
    },
    "kv_download": {"en": "KV-cache figures (CSV)", "zh": "KV 缓存数据（CSV）"},
}

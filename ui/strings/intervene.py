"""The intervene page: switch heads off, edit a row of weights, head importance."""

STRINGS = {
    "page_intervene": {"en": "Intervene", "zh": "干预实验"},
    "iv_intro": {
        "en": "Attention weights show where a head looks, not what it does. Test it: **switch heads off** and see "
        "what the model then writes, beside the untouched run, or **move one row's weight** onto another "
        "key (make “It” look at “dog” instead of “cat”) and see what changes.",
        "zh": "注意力权重只显示一个头“看”哪里，并不说明它“做”什么。来检验一下：**关掉几个头**，对比原始运行，"
        "看模型接下来写出什么；或者把某一行的**权重移到另一个键**上（让 “It” 看 “dog” 而不是 “cat”），"
        "看看会发生什么变化。",
    },
    "iv_head_label": {"en": "{kind} · layer {layer} · head {head}", "zh": "{kind} · 第 {layer} 层 · 第 {head} 个头"},
    "iv_heads_dropped": {
        "en": "{model} has no head {heads}; it was left out.",
        "zh": "{model} 没有以下头：{heads}，已忽略。",
    },
    "iv_mode": {"en": "Experiment", "zh": "实验"},
    "iv_mode_ablate": {"en": "Switch heads off", "zh": "关闭注意力头"},
    "iv_mode_edit": {"en": "Edit one row", "zh": "编辑一行权重"},
    "iv_mode_ablate_help": {
        "en": "Click tiles of the model view (or pick heads below) to switch them off; click again to switch back on.",
        "zh": "点击模型视图中的小格（或在下方选择）即可关闭对应的头；再点一次重新打开。",
    },
    "iv_mode_edit_help": {
        "en": "Pick a head and a row (the query), then move the weight of one key onto another: the model runs on "
        "with that row replaced and everything else computed as usual.",
        "zh": "选择一个头和一行（查询），再把某个键的权重移到另一个键上：模型用替换后的这一行继续计算，其余部分照常。",
    },
    "iv_off": {"en": "Heads switched off", "zh": "已关闭的头"},
    "iv_off_none": {"en": "none: the untouched model", "zh": "无：原始模型"},
    "iv_off_help": {
        "en": "Layers and heads count from 1, as in the model view. In a link: off=cross:2:2,decoder:1:3.",
        "zh": "层和头从 1 开始编号，与模型视图一致。链接中写作 off=cross:2:2,decoder:1:3。",
    },
    "iv_how": {"en": "Switched off means", "zh": "“关闭”的方式"},
    "iv_how_zero": {"en": "output 0", "zh": "输出置 0"},
    "iv_how_mean": {"en": "mean output", "zh": "输出取平均"},
    "iv_how_uniform": {"en": "uniform weights", "zh": "均匀权重"},
    "iv_how_help": {
        "en": "Output 0: the head's weighted sum of values is replaced by 0. Mean output: by its average over the "
        "sentence's positions (the head still says something, but the same thing everywhere). Uniform "
        "weights: the head looks at every visible key equally (1/n each).",
        "zh": "输出置 0：该头对值向量的加权和被替换为 0。输出取平均：替换为它在句子各位置上的平均"
        "（该头仍有输出，但处处相同）。均匀权重：该头对每个可见的键一视同仁（各 1/n）。",
    },
    "iv_sink": {"en": "Knock out the first-token sink", "zh": "关闭汇聚到第一个词元的头"},
    "iv_sink_help": {
        "en": "Switches off the heads of this attention kind that put, on average, at least 30% of their weight on "
        "the first token (a place heads “park” attention when they have nothing to do).",
        "zh": "关闭该注意力类型中平均把至少 30% 权重放在第一个词元上的头（头“无事可做”时常把注意力停在那里）。",
    },
    "iv_no_sink": {
        "en": "For this sentence no head of this kind ({kind}) puts 30% of its weight on the first token.",
        "zh": "对这个句子，{kind}中没有头把 30% 以上的权重放在第一个词元上。",
    },
    "iv_focus": {"en": "This head", "zh": "这个头"},
    "iv_only": {"en": "Only this head", "zh": "只保留这个头"},
    "iv_only_help": {
        "en": "Switches off every other head of this attention kind, in every layer.",
        "zh": "关闭该注意力类型在所有层中的其余全部头。",
    },
    "iv_clear": {"en": "Switch all back on", "zh": "全部恢复"},
    "iv_edit_row": {"en": "Row (query)", "zh": "行（查询）"},
    "iv_edit_from": {"en": "Move the weight of key", "zh": "把这个键的权重"},
    "iv_edit_to": {"en": "onto key", "zh": "移到这个键上"},
    "iv_edit_before": {"en": "as computed", "zh": "原始权重"},
    "iv_edit_after": {"en": "edited", "zh": "编辑后"},
    "iv_edit_title": {
        "en": "{head}, row {row}: its weights before and after the edit",
        "zh": "{head}，{row} 这一行：编辑前后的权重",
    },
    "iv_model_view": {
        "en": "Model view: {kind}, every layer and head (untouched run)",
        "zh": "模型视图：{kind}，所有层和头（原始运行）",
    },
    "iv_model_view_help": {
        "en": "Red cross: switched off. Click a tile to switch that head off or on.",
        "zh": "红叉表示已关闭。点击小格即可关闭或打开该头。",
    },
    "iv_importance": {"en": "Show head importance", "zh": "显示各头的重要性"},
    "iv_importance_help": {
        "en": "Switches every head off in turn (all at once, as one batch) and writes on each tile how much the "
        "output changed; the three largest are outlined.",
        "zh": "依次关闭每个头（作为一个批次一次算完），并在每个小格上写出输出改变了多少；最大的三个加框标出。",
    },
    "iv_importance_translator": {
        "en": "Number on a tile: how much less likely the untouched translation becomes with that head off "
        "(−Δ log p, in nats, teacher-forced). 0 = the head does not matter for this sentence.",
        "zh": "小格上的数字：关闭该头后，原译文的概率下降了多少（−Δ log p，单位为奈特，教师强制）。"
        "0 表示该头对这个句子无关紧要。",
    },
    "iv_importance_gpt": {
        "en": "Number on a tile: how far the next-token distributions move with that head off (KL divergence from "
        "the untouched run, in nats, averaged over the sentence's positions).",
        "zh": "小格上的数字：关闭该头后，下一个词元的分布偏离了多少（相对原始运行的 KL 散度，单位为奈特，"
        "对句子各位置取平均）。",
    },
    "iv_outputs": {"en": "What the model writes", "zh": "模型写出的内容"},
    "iv_encoder_only": {
        "en": "This model is an encoder: it reads the sentence and writes nothing, so there is no "
        "continuation to compare. Switch heads off and see below how the attention of the "
        "later layers changes.",
        "zh": "这个模型是编码器：它只读句子，不写出任何内容，所以没有续写可以比较。关闭一些头，"
        "在下方查看后面各层的注意力如何变化。",
    },
    "iv_untouched_output": {"en": "Untouched: **{text}**", "zh": "原始：**{text}**"},
    "iv_touched_output": {"en": "With the intervention: **{text}**", "zh": "干预后：**{text}**"},
    "iv_changed": {"en": "The translation changed.", "zh": "译文改变了。"},
    "iv_same": {
        "en": "The translation is the same; the bars below show whether the model became less sure.",
        "zh": "译文没有变；下面的柱状图显示模型是否变得不那么确定。",
    },
    "iv_untouched_continuation": {"en": "Untouched: {text} **{more}**", "zh": "原始：{text} **{more}**"},
    "iv_touched_continuation": {"en": "With the intervention: {text} **{more}**", "zh": "干预后：{text} **{more}**"},
    "iv_ends": {"en": "(ends here: the next token is `</s>`)", "zh": "（到此结束：下一个词元是 `</s>`）"},
    "iv_step": {"en": "Next-token bars at the step", "zh": "柱状图显示哪一步的下一个词元"},
    "iv_step_help": {
        "en": "Both runs read the untouched translation up to this step (teacher forcing), so the "
        "bars compare the same step.",
        "zh": "两次运行都读入原始译文直到这一步（教师强制），所以柱状图比较的是同一步。",
    },
    "iv_untouched": {"en": "untouched", "zh": "原始"},
    "iv_touched": {"en": "intervened", "zh": "干预后"},
    "iv_next_token": {"en": "Next token", "zh": "下一个词元"},
    "iv_probability": {"en": "Probability", "zh": "概率"},
    "iv_bars_help": {
        "en": "The most likely next tokens of the untouched run, with the intervened run beside them.",
        "zh": "原始运行最可能的下一个词元，旁边是干预后的概率。",
    },
    "iv_difference": {"en": "How attention downstream changed", "zh": "下游注意力如何变化"},
    "iv_nothing_off": {
        "en": "Switch a head off or edit a row to see the difference.",
        "zh": "关闭一个头或编辑一行，即可看到差异。",
    },
    "iv_diff_head": {"en": "Difference in", "zh": "查看差异的头"},
    "iv_aligned": {
        "en": "The two runs read different tokens ({a} and {b} rows): the difference is aligned by "
        "position, over the rows and keys both have.",
        "zh": "两次运行读入的词元不同（{a} 行和 {b} 行）：差异按位置对齐，只比较两者共有的行和键。",
    },
    "iv_diff_title": {"en": "Intervened − untouched: {head}", "zh": "干预后 − 原始：{head}"},
    "iv_delta": {"en": "Δ weight", "zh": "权重差"},
    "iv_diff_help": {
        "en": "Red: more weight after the intervention; blue: less; white: unchanged. One scale, −1 to +1.",
        "zh": "红色：干预后权重增加；蓝色：减少；白色：不变。同一色标，从 −1 到 +1。",
    },
    "iv_diff_all": {"en": "|difference| in every head: {kind}", "zh": "所有头的差异绝对值：{kind}"},
    "iv_diff_all_help": {
        "en": "Heads before the intervention (earlier layers) stay white: nothing reaches them.",
        "zh": "干预之前的头（更早的层）保持白色：改变传不到它们。",
    },
    "iv_importance_table": {"en": "Every head, most important first", "zh": "所有头，按重要性排序"},
    "iv_col_head": {"en": "Head", "zh": "头"},
    "iv_col_score": {"en": "Importance (nats)", "zh": "重要性（奈特）"},
    "iv_col_changed": {"en": "Output changed", "zh": "输出改变"},
    "iv_col_output": {"en": "Output with the head off", "zh": "关闭该头后的输出"},
    "iv_export": {"en": "Export", "zh": "导出"},
    "iv_download_json": {"en": "Both runs (JSON)", "zh": "下载两次运行（JSON）"},
    "iv_download_csv": {"en": "Difference (CSV)", "zh": "下载差异（CSV）"},
    "iv_download_importance": {"en": "Head importance (CSV)", "zh": "下载头的重要性（CSV）"},
}

"""Strings of the training-timeline page (pages/timeline.py) and the sidebar's snapshot models."""

STRINGS = {
    "page_timeline": {"en": "Training timeline", "zh": "训练时间线"},
    "model_snapshot": {"en": "{model}, step {step}", "zh": "{model}，第 {step} 步"},
    "model_untrained": {"en": "{model} (untrained, step 0)", "zh": "{model}（未训练，第 0 步）"},
    "tl_intro": {
        "en": "Heads are not designed: they appear while the model trains. Drag the slider from step 0 (random "
        "weights) to the shipped model and watch, for your sentence, the chosen head's attention, the "
        "output and the losses at that step. The role curves below say when each head takes on a job.",
        "zh": "注意力头不是设计出来的，而是在训练中逐渐形成的。把滑块从第 0 步（随机权重）拖到发布的模型，"
        "就能看到该步时所选头在你的句子上的注意力，以及模型的输出和损失。下方的角色曲线显示每个头何时开始承担某项工作。",
    },
    "tl_none": {
        "en": "{model} has no training snapshots. The timeline shows the models trained with "
        "`python -m model train NAME --snapshots 10`: {names}. Choose one in the sidebar.",
        "zh": "{model} 没有训练快照。时间线只显示用 `python -m model train NAME --snapshots 10` 训练的模型：{names}。"
        "请在侧边栏选择其中一个。",
    },
    "tl_step": {"en": "Training step", "zh": "训练步数"},
    "tl_step_help": {
        "en": "Snapshots are log-spaced: heads form early, so early steps are dense. The last one is the shipped model.",
        "zh": "快照按对数间隔保存：注意力头形成得早，所以前期的快照更密。最后一个就是发布的模型。",
    },
    "tl_step_label": {"en": "step {step}", "zh": "第 {step} 步"},
    "tl_step_label_last": {"en": "step {step} (shipped)", "zh": "第 {step} 步（发布版）"},
    "tl_step_unknown": {
        "en": "The link's step {value} is not a snapshot of this model; showing step {shown}.",
        "zh": "链接中的步数 {value} 不是该模型的快照，改为显示第 {shown} 步。",
    },
    "tl_play": {"en": "Play", "zh": "播放"},
    "tl_play_help": {
        "en": "Steps through training, one snapshot a second.",
        "zh": "按训练顺序逐个播放快照，每秒一个。",
    },
    "tl_stop": {"en": "Stop", "zh": "停止"},
    "tl_losses": {"en": "Loss (cross-entropy, nats per token)", "zh": "损失（交叉熵，每个词元的奈特数）"},
    "tl_train_loss": {"en": "training loss", "zh": "训练损失"},
    "tl_heldout_loss": {"en": "held-out loss", "zh": "留出集损失"},
    "tl_exact_match": {"en": "Exact match (100 held-out sentences)", "zh": "完全匹配率（100 个留出句子）"},
    "tl_em_en_zh": {"en": "English → Chinese", "zh": "英 → 中"},
    "tl_em_zh_en": {"en": "Chinese → English", "zh": "中 → 英"},
    "tl_at_step": {
        "en": "At step {step}: training loss {train}, held-out loss {heldout}.",
        "zh": "第 {step} 步：训练损失 {train}，留出集损失 {heldout}。",
    },
    "tl_at_step_em": {
        "en": "Exact match: English → Chinese {en_zh}, Chinese → English {zh_en}.",
        "zh": "完全匹配率：英 → 中 {en_zh}，中 → 英 {zh_en}。",
    },
    "tl_translation": {"en": "Translation at this step: **{text}**", "zh": "该步的翻译：**{text}**"},
    "tl_continuation": {
        "en": "Continuation at this step (the most likely token each time): {prompt} **{text}**",
        "zh": "该步的续写（每次取最可能的词元）：{prompt} **{text}**",
    },
    "tl_empty_output": {"en": "(nothing: the model ends at once)", "zh": "（空：模型立即结束）"},
    "tl_kind": {"en": "Attention kind", "zh": "注意力类型"},
    "tl_heatmap_title": {"en": "{kind}, {layer}, {head} at step {step}", "zh": "{kind}，{layer}，{head}，第 {step} 步"},
    "tl_model_view": {
        "en": "Every head at step {step} (click a tile to choose it)",
        "zh": "第 {step} 步的所有注意力头（点击一格即可选中）",
    },
    "tl_roles": {"en": "When heads form", "zh": "注意力头何时形成"},
    "tl_role": {"en": "Role", "zh": "角色"},
    "tl_roles_help": {
        "en": "Each line is one head's score at every snapshot, measured on the same {n} held-out sentences each time "
        "(the translator's decoder reads the reference translation, so an untrained snapshot is scored on "
        "the same rows). A head has a role once its score stays at or above {formed} (dashed) to the end.",
        "zh": "每条线是一个头在每个快照上的得分，每次都在同样的 {n} 个留出句子上测量（翻译模型的解码器读入参考译文，"
        "所以未训练的快照也在同样的行上打分）。得分达到 {formed}（虚线）并保持到训练结束，就算这个头有了该角色。",
    },
    "tl_role_previous": {"en": "previous token", "zh": "前一个词元"},
    "tl_role_first": {"en": "first token", "zh": "第一个词元"},
    "tl_role_induction": {"en": "induction", "zh": "归纳"},
    "tl_role_alignment": {"en": "alignment", "zh": "对齐"},
    "tl_role_pronoun": {"en": "pronoun → its noun", "zh": "代词 → 所指名词"},
    "tl_role_pronoun_help": {
        "en": "in held-out two-sentence stories, the pronoun's weight on the noun it refers to (She → mother, 它 → 猫)",
        "zh": "在留出的两句小故事中，代词对它所指名词的权重（She → mother，它 → 猫）",
    },
    "tl_role_a_pronoun": {"en": "a pronoun", "zh": "代词指代"},
    "tl_role_previous_help": {
        "en": "mean weight on the token just before (queries 2 and on)",
        "zh": "对紧邻的前一个词元的平均权重（从第 2 个查询起）",
    },
    "tl_role_first_help": {
        "en": "mean weight on the first token (rows with a choice)",
        "zh": "对第一个词元的平均权重（只算有选择的行）",
    },
    "tl_role_induction_help": {
        "en": "on <s> r r (r = {n} random tokens), the second copy's weight on the token after its earlier occurrence",
        "zh": "在 <s> r r（r 为 {n} 个随机词元）上，第二遍中每个词元对它上次出现位置之后那个词元的权重",
    },
    "tl_role_alignment_help": {
        "en": "the row that writes a word, its weight on that word's translation in the source (猫 ← cat, 上 ← on)",
        "zh": "写出某个词的那一行，对源句中该词译文的权重（猫 ← cat，上 ← on）",
    },
    "tl_no_roles": {"en": "No role is scored for {kind}.", "zh": "{kind}没有计算角色得分。"},
    "tl_head_line": {"en": "L{layer} H{head}", "zh": "第 {layer} 层第 {head} 个头"},
    "tl_score": {"en": "Score", "zh": "得分"},
    "tl_formed_em": {
        "en": "**{kind} L{layer} H{head} becomes {role_a} head between steps {before} and {after}** (its score goes "
        "from {s0} to {s1}), when exact match (mean of both directions) goes from {m0} to {m1}.",
        "zh": "**{kind} 第 {layer} 层第 {head} 个头 在第 {before} 步到第 {after} 步之间成为{role_a}头**（得分从 {s0} 升到 {s1}），"
        "同时完全匹配率（两个方向的平均）从 {m0} 升到 {m1}。",
    },
    "tl_formed_loss": {
        "en": "**{kind} L{layer} H{head} becomes {role_a} head between steps {before} and {after}** (its score goes "
        "from {s0} to {s1}), when the held-out loss goes from {m0} to {m1}.",
        "zh": "**{kind} 第 {layer} 层第 {head} 个头 在第 {before} 步到第 {after} 步之间成为{role_a}头**（得分从 {s0} 升到 {s1}），"
        "同时留出集损失从 {m0} 降到 {m1}。",
    },
    "tl_rise_em": {
        "en": "The largest rise: **{kind} L{layer} H{head}**, its {role_name} score from {s0} to {s1} between steps {before} and "
        "{after}, when exact match (mean of both directions) goes from {m0} to {m1}.",
        "zh": "上升最多的是 **{kind} 第 {layer} 层第 {head} 个头**：“{role_name}”得分在第 {before} 步到第 {after} 步之间从 {s0} 升到 {s1}，"
        "同时完全匹配率（两个方向的平均）从 {m0} 升到 {m1}。",
    },
    "tl_rise_loss": {
        "en": "The largest rise: **{kind} L{layer} H{head}**, its {role_name} score from {s0} to {s1} between steps {before} and "
        "{after}, when the held-out loss goes from {m0} to {m1}.",
        "zh": "上升最多的是 **{kind} 第 {layer} 层第 {head} 个头**：“{role_name}”得分在第 {before} 步到第 {after} 步之间从 {s0} 升到 {s1}，"
        "同时留出集损失从 {m0} 降到 {m1}。",
    },
    "tl_role_a_previous": {"en": "a previous-token", "zh": "前一词元"},
    "tl_role_a_first": {"en": "a first-token", "zh": "首词元"},
    "tl_role_a_induction": {"en": "an induction", "zh": "归纳"},
    "tl_role_a_alignment": {"en": "an alignment", "zh": "对齐"},
    "tl_formed_none": {
        "en": "No head's score crosses {formed} during training and stays there.",
        "zh": "训练中没有哪个头的得分越过 {formed} 并保持下去。",
    },
    "tl_formed_none_role": {
        "en": "No head's {role} score crosses {formed} during training and stays there.",
        "zh": "训练中没有哪个头的“{role}”得分越过 {formed} 并保持下去。",
    },
    "tl_formed_table": {"en": "Every head that forms ({n})", "zh": "所有形成的头（{n} 个）"},
    "tl_col_kind": {"en": "attention", "zh": "注意力"},
    "tl_col_role": {"en": "role", "zh": "角色"},
    "tl_col_layer": {"en": "layer", "zh": "层"},
    "tl_col_head": {"en": "head", "zh": "头"},
    "tl_col_between": {"en": "forms between steps", "zh": "形成于（步数）"},
    "tl_col_before": {"en": "score before", "zh": "之前得分"},
    "tl_col_after": {"en": "score after", "zh": "之后得分"},
    "tl_col_final": {"en": "final score", "zh": "最终得分"},
    "tl_computing": {
        "en": "Scoring every snapshot on the probe sentences (once per server)…",
        "zh": "正在用探测句子给每个快照打分（每台服务器只需一次）……",
    },
    "tl_export": {"en": "Export", "zh": "导出"},
    "tl_download_json": {"en": "Timeline as JSON", "zh": "下载时间线（JSON）"},
    "tl_download_json_help": {
        "en": "Steps, losses, exact match and every head's role scores at every snapshot.",
        "zh": "每个快照的步数、损失、完全匹配率和每个头的角色得分。",
    },
    "tl_download_csv": {"en": "Role scores as CSV", "zh": "下载角色得分（CSV）"},
    "tl_download_trace": {"en": "This step's attention as JSON", "zh": "下载该步的注意力（JSON）"},
    "tl_export_help": {
        "en": "Each chart's camera icon saves it as PNG.",
        "zh": "点击每张图右上角的相机图标即可保存为 PNG。",
    },
}

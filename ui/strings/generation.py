"""The generation page: a GPT writing one token at a time."""

STRINGS = {
    "gen_intro": {
        "en": "A GPT writes one token at a time: it reads everything so far (masked self-attention: each token sees "
        "itself and those before it, never those after), gives a probability to every token in its vocabulary, and one is drawn. "
        "The drawn token is appended and the model reads again. Press **Step** to watch one token at a time.",
        "zh": "GPT 每次写一个词元：它读取目前为止的全部内容（掩码自注意力：每个词元能看到自己和它之前的词元，看不到之后的），"
        "为词表中的每个词元给出一个概率，再从中抽取一个。抽到的词元被接到后面，模型再读一遍。"
        "点击 **单步**，一次看一个词元。",
    },
    "gen_translator_note": {
        "en": "This model does not continue a text (the translator translates; an encoder only reads), so this page uses the GPT (learned positions). "
        "Choose another GPT in the sidebar to compare.",
        "zh": "该模型不续写文本（翻译模型只做翻译，编码器只负责读），所以本页使用 GPT（可学习位置编码）。可在侧边栏换用其他 GPT 进行比较。",
    },
    "gen_prompt": {"en": "Prompt", "zh": "提示词"},
    "gen_prompt_help": {"en": "Empty: the model starts from <s> alone.", "zh": "留空：模型只从 <s> 开始。"},
    "gen_max_new": {"en": "Max new tokens", "zh": "最多生成词元数"},
    "gen_stemp": {"en": "Sampling temperature", "zh": "采样温度"},
    "gen_stemp_help": {
        "en": "Divides the next-token logits (not the attention scores). 0 = greedy: always the most likely token.",
        "zh": "除的是下一个词元的 logits（不是注意力分数）。0 = 贪心：总是选最可能的词元。",
    },
    "gen_topk": {"en": "Top-k (0 = off)", "zh": "Top-k（0 = 关闭）"},
    "gen_topk_help": {"en": "Draw only from the k most likely tokens.", "zh": "只从最可能的 k 个词元中抽取。"},
    "gen_topp": {"en": "Top-p (1 = off)", "zh": "Top-p（1 = 关闭）"},
    "gen_topp_help": {
        "en": "Draw only from the fewest most likely tokens whose probabilities add up to p.",
        "zh": "只从概率最高、概率之和刚好达到 p 的最少几个词元中抽取。",
    },
    "gen_seed": {"en": "Seed", "zh": "随机种子"},
    "gen_seed_help": {
        "en": "The same seed and settings always give the same text.",
        "zh": "相同的种子和设置总是得到相同的文本。",
    },
    "gen_step": {"en": "Step", "zh": "单步"},
    "gen_step_help": {"en": "Add one token.", "zh": "再生成一个词元。"},
    "gen_run": {"en": "Run to the end", "zh": "运行到结束"},
    "gen_run_help": {"en": "Generate until max new tokens or </s>.", "zh": "一直生成，直到达到最多词元数或写出 </s>。"},
    "gen_reset": {"en": "Start again", "zh": "重新开始"},
    "gen_text": {"en": "Text so far", "zh": "目前的文本"},
    "gen_nothing_yet": {
        "en": "Nothing generated yet: press **Step** or **Run to the end**.",
        "zh": "还没有生成：点击 **单步** 或 **运行到结束**。",
    },
    "gen_progress": {
        "en": "{done} of at most {total} new tokens.",
        "zh": "已生成 {done} 个新词元（最多 {total} 个）。",
    },
    "gen_finished_eos": {
        "en": "The model wrote </s>: it considers the text finished.",
        "zh": "模型写出了 </s>：它认为文本已结束。",
    },
    "gen_finished_n": {"en": "Reached the maximum number of new tokens.", "zh": "已达到最多生成词元数。"},
    "gen_finished_len": {"en": "The text reached this model's maximum length.", "zh": "文本已达到该模型的最大长度。"},
    "gen_view_step": {"en": "Show step", "zh": "查看第几步"},
    "gen_step_title": {
        "en": "Step {i}: after “{context}”, the model drew “{token}”",
        "zh": "第 {i} 步：在“{context}”之后，模型抽到了“{token}”",
    },
    "gen_bars_title": {"en": "Next-token probabilities (top {n})", "zh": "下一个词元的概率（前 {n} 个）"},
    "gen_bars_caption": {
        "en": "Orange: the token drawn. Blue: could have been drawn (probability after temperature, top-k and top-p). "
        "Grey: cut off by top-k / top-p, shown at its probability before the cut.",
        "zh": "橙色：抽到的词元。蓝色：可能被抽到的词元（经过温度、top-k 与 top-p 后的概率）。"
        "灰色：被 top-k / top-p 截掉，显示截断前的概率。",
    },
    "gen_kept": {
        "en": "{n} tokens could be drawn at this step; the drawn one had probability {p:.3f}.",
        "zh": "这一步有 {n} 个词元可能被抽到；抽到的词元概率为 {p:.3f}。",
    },
    "gen_bars_token": {"en": "Next token", "zh": "下一个词元"},
    "gen_bars_probability": {"en": "Probability", "zh": "概率"},
    "gen_bars_cut": {"en": "cut off", "zh": "被截掉"},
    "gen_bars_kept": {"en": "could be drawn", "zh": "可被抽到"},
    "gen_bars_chosen": {"en": "drawn", "zh": "抽到"},
    "gen_attention_title": {
        "en": "What the newest token “{token}” attends to, in every layer and head",
        "zh": "最新的词元“{token}”在每一层、每个头关注哪些词元",
    },
    "gen_attention_help": {
        "en": "One row per layer and head: the attention row of the last token read, the one whose output predicts "
        "the next token. It sees itself and the tokens before it, nothing later (masked self-attention).",
        "zh": "每一行对应一层的一个头：最后读入的那个词元的注意力行，它的输出用来预测下一个词元。"
        "它能看到自己和前面的词元，看不到后面的（掩码自注意力）。",
    },
    "gen_row": {"en": "L{layer} H{head}", "zh": "第 {layer} 层第 {head} 个头"},
    "gen_axis_rows": {"en": "Layer · head", "zh": "层 · 头"},
    "gen_open_attention": {"en": "Open the whole text in the attention explorer", "zh": "在注意力探索页打开完整文本"},
}

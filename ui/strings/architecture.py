"""The architecture page (pages/architecture.py): keys start with "arch_"."""

STRINGS = {
    "arch_intro": {
        "en": "Three ways to build with the Transformer, and the mask each one puts on your sentence. "
        "In each grid a row is a query (the token looking) and a column a key (the token looked at): "
        "blue, it may look; hatched grey, it is masked.",
        "zh": "用 Transformer 搭建模型的三种方式，以及它们各自加在你的句子上的掩码。"
        "每张网格图中，行是查询（发出关注的词元），列是键（被关注的词元）：蓝色表示可以看，灰色斜线表示被掩码。",
    },
    "arch_first_n": {
        "en": "The masks show the first {n} of the sentence's {total} tokens.",
        "zh": "掩码只画出句子 {total} 个词元中的前 {n} 个。",
    },
    "arch_may_look": {"en": "may look", "zh": "可以看"},
    "arch_mask_bidirectional": {"en": "Bidirectional: no mask", "zh": "双向：无掩码"},
    "arch_mask_causal": {"en": "Causal: no looking ahead", "zh": "因果：不能看后面"},
    "arch_mask_cross": {"en": "Cross: decoder rows, encoder columns", "zh": "交叉：行是解码器，列是编码器"},
    "arch_mask_t5": {
        "en": "Encoder bidirectional; decoder causal; cross unmasked",
        "zh": "编码器双向；解码器因果；交叉注意力无掩码",
    },
    "arch_t5_title": {"en": "T5 / Transformer", "zh": "T5 / 原始 Transformer"},
    "arch_bert_kind": {"en": "**Encoder only · bidirectional self-attention**", "zh": "**仅编码器 · 双向自注意力**"},
    "arch_gpt_kind": {
        "en": "**Decoder only · masked (causal) self-attention**",
        "zh": "**仅解码器 · 掩码（因果）自注意力**",
    },
    "arch_t5_kind": {
        "en": "**Encoder–decoder · self-attention, masked self-attention and cross-attention**",
        "zh": "**编码器–解码器 · 自注意力、掩码自注意力与交叉注意力**",
    },
    "arch_bert_text": {
        "en": "- **Attention:** self-attention in which every token sees every other token, before and "
        "after it (only `<pad>` in a batch is hidden).\n"
        "- **Trained to:** fill in hidden words, the masked language model (MLM): "
        "“The [MASK] sat on the mat” → *cat*, using the words on both sides.\n"
        "- **Good for:** understanding a text (classifying, tagging, search), not writing one.\n"
        "- **Here:** the translator's encoder attends the same way.",
        "zh": "- **注意力：** 自注意力，每个词元都能看到前后所有的词元（只有批次中的 `<pad>` 被掩码）。\n"
        "- **训练任务：** 填出被掩码的词元，即掩码语言模型（MLM）：“The [MASK] sat on the mat” → *cat*，同时利用左右两边的上下文。\n"
        "- **擅长：** 理解文本（分类、标注、检索），而不是生成文本。\n"
        "- **本项目中：** 翻译模型的编码器采用同样的注意力方式。",
    },
    "arch_gpt_text": {
        "en": "- **Attention:** masked self-attention: each token sees itself and the tokens before it, "
        "never the ones after.\n"
        "- **Trained to:** predict the next token, over and over (GPT-2, GPT-3, GPT-4).\n"
        "- **Good for:** generating text, one token at a time.\n"
        "- **Here:** the *gpt* model (and *gpt-rope*, *gpt-alibi*, which differ only in how they "
        "tell positions apart).",
        "zh": "- **注意力：** 掩码自注意力：每个词元只能看到自己和它前面的词元，看不到后面的词元。\n"
        "- **训练任务：** 预测下一个词元，一遍又一遍（GPT-2、GPT-3、GPT-4）。\n"
        "- **擅长：** 逐个词元生成文本。\n"
        "- **本项目中：** *gpt* 模型（以及 *gpt-rope*、*gpt-alibi*，它们只是区分位置的方式不同）。",
    },
    "arch_t5_text": {
        "en": "- **Attention:** three kinds: the encoder's bidirectional self-attention over the input; "
        "the decoder's masked self-attention over what it has written; and cross-attention, "
        "whose queries come from the decoder and keys and values from the encoder.\n"
        "- **Trained to:** turn one text into another: translation in the original paper, every "
        "task as “text-to-text” in T5.\n"
        "- **Here:** the *translator* (English ↔ Chinese).",
        "zh": "- **注意力：** 三种：编码器对输入的双向自注意力；解码器对已生成内容的掩码自注意力；"
        "以及交叉注意力——查询来自解码器，键和值来自编码器。\n"
        "- **训练任务：** 把一段文本变成另一段：原始论文中是翻译，T5 把所有任务都统一为“文本到文本”。\n"
        "- **本项目中：** *翻译模型*（英文 ↔ 中文）。",
    },
    "arch_t5_placeholder": {
        "en": "The translator could not run here, so the decoder's tokens are placeholders (y1, y2, …); "
        "the masks do not depend on which tokens they are.",
        "zh": "翻译模型无法在此运行，所以解码器的词元用占位符（y1、y2……）表示；掩码与具体是哪些词元无关。",
    },
    "arch_bert_link": {"en": "Step through the encoder", "zh": "逐步查看编码器"},
    "arch_gpt_link": {"en": "Step through GPT", "zh": "逐步查看 GPT"},
    "arch_t5_link": {"en": "Step through cross-attention", "zh": "逐步查看交叉注意力"},
    "arch_tab_encoder": {"en": "Encoder", "zh": "编码器"},
    "arch_tab_decoder": {"en": "Decoder", "zh": "解码器"},
    "arch_tab_cross": {"en": "Cross", "zh": "交叉"},
    "arch_compare": {"en": "Side by side", "zh": "对比"},
    "arch_col_model": {"en": "Model", "zh": "模型"},
    "arch_col_arch": {"en": "Architecture", "zh": "架构"},
    "arch_col_attention": {"en": "Attention", "zh": "注意力"},
    "arch_col_mask": {"en": "Mask", "zh": "掩码"},
    "arch_col_trained": {"en": "Trained to", "zh": "训练任务"},
    "arch_col_here": {"en": "Stands for it here", "zh": "本项目中的对应模型"},
    "arch_col_notes": {"en": "Notes", "zh": "特点"},
    "arch_encoder_only": {"en": "Encoder only", "zh": "仅编码器"},
    "arch_decoder_only": {"en": "Decoder only", "zh": "仅解码器"},
    "arch_encoder_decoder": {"en": "Encoder–decoder", "zh": "编码器–解码器"},
    "arch_att_bert": {"en": "Bidirectional self-attention", "zh": "双向自注意力"},
    "arch_att_gpt": {"en": "Masked self-attention", "zh": "掩码自注意力"},
    "arch_att_t5": {"en": "Self, masked self and cross-attention", "zh": "自注意力、掩码自注意力、交叉注意力"},
    "arch_train_bert": {"en": "Fill in masked words (MLM)", "zh": "填出被掩码的词元（MLM）"},
    "arch_train_gpt": {"en": "Predict the next token", "zh": "预测下一个词元"},
    "arch_train_t5": {"en": "Text to text (e.g. translation)", "zh": "文本到文本（如翻译）"},
    "arch_here_bert": {"en": "translator's encoder", "zh": "翻译模型的编码器"},
    "arch_here_gpt": {"en": "gpt (gpt-rope, gpt-alibi)", "zh": "gpt（gpt-rope、gpt-alibi）"},
    "arch_here_t5": {"en": "translator", "zh": "翻译模型"},
    "arch_modern": {"en": "Modern large models", "zh": "现代大模型架构"},
    "arch_decoder": {"en": "Decoder", "zh": "解码器"},
    "arch_modern_gpt4": {"en": "Very large scale, RLHF fine-tuning", "zh": "超大规模，RLHF 微调"},
    "arch_modern_llama": {"en": "Open, efficient", "zh": "开源，高效"},
    "arch_modern_chatglm": {"en": "Optimised for Chinese, alignment fine-tuning", "zh": "中文优化，对齐微调"},
    "arch_modern_mistral": {"en": "Sparse MoE, efficient", "zh": "稀疏混合专家（MoE），高效"},
    "arch_modern_claude": {"en": "Constitutional AI", "zh": "宪法式 AI（Constitutional AI）"},
    "arch_modern_note": {
        "en": "The tutorial's table: today's large chat models are decoders, GPT's shape. Footnotes: "
        "“Sparse MoE” describes Mistral AI's Mixtral models (Mistral 7B is a dense decoder); the "
        "first ChatGLM, built on GLM, let the prompt's tokens see each other both ways (a “prefix” "
        "mask) before writing the answer left to right; GPT-4's and Claude's architectures are "
        "not published in detail, and “decoder” is how they are commonly described.",
        "zh": "教程中的表格：如今的大型对话模型都是解码器，结构与 GPT 相同。补充说明：“稀疏混合专家”指的是 Mistral AI 的 "
        "Mixtral 系列（Mistral 7B 本身是稠密解码器）；第一代 ChatGLM 基于 GLM，提示部分的词元彼此双向可见"
        "（“前缀”掩码），再从左到右生成回答；GPT-4 与 Claude 的架构细节并未公开，通常把它们描述为解码器。",
    },
}

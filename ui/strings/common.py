"""Strings shared by every page: the sidebar, navigation, errors and notices."""

STRINGS = {
    "app_title": {"en": "Transformer Attention Explorer", "zh": "Transformer 注意力探索器"},
    "loading_app": {
        "en": "Loading the models and charts… (the first visit after the server starts takes a few seconds)",
        "zh": "正在加载模型和图表……（服务器启动后的第一次访问需要几秒钟）",
    },
    "loading_model": {"en": "Loading the model {name}…", "zh": "正在加载模型 {name}……"},
    "language": {"en": "Language", "zh": "界面语言"},
    "model": {"en": "Model", "zh": "模型"},
    "model_help": {
        "en": "Small models trained by this project on its own English–Chinese corpus.",
        "zh": "本项目在自建的中英语料上训练的小模型。",
    },
    "model_translator": {"en": "Translator (encoder–decoder)", "zh": "翻译模型（编码器–解码器）"},
    "model_gpt": {"en": "GPT (learned positions)", "zh": "GPT（可学习位置编码）"},
    "model_gpt_rope": {"en": "GPT with RoPE", "zh": "GPT（旋转位置编码 RoPE）"},
    "model_gpt_alibi": {"en": "GPT with ALiBi", "zh": "GPT（ALiBi 线性偏置）"},
    "model_gpt_local": {"en": "GPT, local attention (window 4)", "zh": "GPT（局部注意力，窗口 4）"},
    "sentence": {"en": "Sentence", "zh": "句子"},
    "sentence_help": {
        "en": "English or Chinese. Ctrl+Enter (⌘+Enter on a Mac) or the Apply button applies it.",
        "zh": "英文或中文均可。按 Ctrl+Enter（Mac 上为 ⌘+Enter）或点击“应用”按钮生效。",
    },
    "sentence_apply": {"en": "Apply", "zh": "应用"},
    "sentence_apply_help": {
        "en": "Run the models on the sentence above (Ctrl+Enter does the same).",
        "zh": "用上面的句子运行模型（按 Ctrl+Enter 效果相同）。",
    },
    "force_cpu": {"en": "Force CPU", "zh": "强制使用 CPU"},
    "device_in_use": {"en": "Running on: {device}", "zh": "运行设备：{device}"},
    "presentation_mode": {"en": "Presentation mode", "zh": "演示模式"},
    "presentation_help": {
        "en": "Hides the sidebar and enlarges text and charts for a projector.",
        "zh": "隐藏侧边栏，放大文字和图表，适合投影。",
    },
    "bad_url_value": {
        "en": "The link's value {value} for “{name}” is not valid; using the default instead.",
        "zh": "链接中“{name}”的值 {value} 无效，已改用默认值。",
    },
    "empty_text_hint": {
        "en": "Type a sentence in the sidebar (presentation mode hides it: switch that off at the top right), "
        "e.g. “The cat sat on the mat” or “狗咬人”.",
        "zh": "请在侧边栏输入一个句子（演示模式会隐藏侧边栏：可在右上角关闭演示模式），例如 “The cat sat on the mat” 或 “狗咬人”。",
    },
    "input_error": {"en": "Cannot run the model on this input: {message}", "zh": "无法对该输入运行模型：{message}"},
    "model_file_error": {
        "en": "The model file {path} is missing or damaged. Rebuild it with `{command}`.",
        "zh": "模型文件 {path} 缺失或已损坏。请运行 `{command}` 重新生成。",
    },
}
STRINGS.update(
    {
        "copy_link": {"en": "Copy link to this view", "zh": "复制本视图链接"},
        "copy_link_help": {
            "en": "Anyone who opens this link sees the same view. Click the copy icon.",
            "zh": "打开此链接的人会看到同样的视图。点击右侧复制图标。",
        },
    }
)
STRINGS.update(
    {
        "page_home": {"en": "Home", "zh": "首页"},
        "page_attention": {"en": "Attention explorer", "zh": "注意力探索"},
        "page_temperature": {"en": "Temperature", "zh": "温度"},
        "page_positional": {"en": "Positional encoding", "zh": "位置编码"},
        "page_generation": {"en": "GPT generation", "zh": "GPT 生成"},
        "page_steps": {"en": "Step by step", "zh": "逐步计算"},
        "page_architecture": {"en": "Architectures", "zh": "架构对比"},
    }
)
STRINGS.update(
    {
        "axis_key": {"en": "Key (looked at)", "zh": "键 K（被关注）"},
        "axis_query": {"en": "Query (looking)", "zh": "查询 Q（发出关注）"},
        "weight": {"en": "Weight", "zh": "权重"},
        "masked": {"en": "masked (cannot look here)", "zh": "被掩码（不能看这里）"},
        "query_token": {"en": "Query token", "zh": "查询词元"},
        "table_caption": {
            "en": "When the model processes **{token}**, its attention weights are:",
            "zh": "当模型处理 **{token}** 时，注意力权重如下：",
        },
        "col_position": {"en": "Position", "zh": "位置"},
        "col_token": {"en": "Token", "zh": "词元"},
        "col_weight": {"en": "Attention weight", "zh": "注意力权重"},
        "col_masked": {"en": "Masked", "zh": "被掩码"},
        "download_csv": {"en": "Table as CSV", "zh": "下载表格（CSV）"},
    }
)
STRINGS.update(
    {
        "home_intro": {
            "en": "Type a sentence in the sidebar and see, for every token, which other tokens it reads from — in small Transformers trained by this project.",
            "zh": "在侧边栏输入一句话，看看每个词元从哪些词元那里读取信息——模型是本项目自己训练的小型 Transformer。",
        },
        "home_meaning": {
            "en": "- An **attention weight** says how much of each token's value a position mixes into its own: *where this token reads from*.\n"
            "- Each row sums to 1: attention is a distribution over the tokens the row may see.\n"
            "- It shows where information flows, not *why* the model decided: a high weight is not an explanation.",
            "zh": "- **注意力权重**表示某个位置从每个词元的值（V）中取用多少：*这个词元从哪里读取信息*。\n"
            "- 每一行之和为 1：注意力是该行可见词元上的一个概率分布。\n"
            "- 它展示信息从哪里流过来，而不是模型*为什么*这样决定：权重高并不是解释。",
        },
        "home_translation": {"en": "Translation: `{text}`", "zh": "译文：`{text}`"},
        "home_heatmap_title": {"en": "{kind}, layer {layer}, mean of heads", "zh": "{kind}，第 {layer} 层，各头平均"},
        "kind_encoder": {"en": "Encoder self-attention", "zh": "编码器自注意力"},
        "kind_decoder": {"en": "Decoder masked self-attention", "zh": "解码器掩码自注意力"},
        "kind_cross": {"en": "Cross-attention", "zh": "交叉注意力"},
        "home_next": {"en": "Explore further", "zh": "继续探索"},
        "home_link_attention": {"en": "🔍 Every layer and head", "zh": "🔍 每一层、每一个头"},
        "home_link_temperature": {"en": "🌡️ Turn the attention temperature", "zh": "🌡️ 调节注意力温度"},
        "home_link_positional": {"en": "📍 Why 狗咬人 differs from 人咬狗", "zh": "📍 为什么“狗咬人”不同于“人咬狗”"},
        "home_link_generation": {"en": "✍️ Watch a GPT write", "zh": "✍️ 看 GPT 逐个词元生成"},
        "home_link_steps": {"en": "🧮 One head, step by step", "zh": "🧮 逐步计算一个注意力头"},
        "home_link_architecture": {"en": "🏛️ BERT, GPT and T5 compared", "zh": "🏛️ BERT、GPT 与 T5 对比"},
    }
)
STRINGS.update(
    {
        "legend_space": {"en": "␣ is a token that holds only a space.", "zh": "␣ 表示只包含一个空格的词元。"},
        "legend_bytes": {
            "en": "“😀 1/4” is byte 1 of the 4 UTF-8 bytes of a character the vocabulary does not have: the tokenizer spells it out byte by byte instead of giving up.",
            "zh": "“😀 1/4” 表示词表中没有的字符的第 1 个字节（共 4 个 UTF-8 字节）：分词器逐字节拼出它，而不是放弃。",
        },
    }
)
STRINGS.update(
    {
        "url_clamped": {
            "en": "The link's value {value} for “{name}” is outside {lo} … {hi}; showing {shown}.",
            "zh": "链接中“{name}”的值 {value} 超出范围 {lo} … {hi}，现显示 {shown}。",
        },
        "link_fitted": {
            "en": "The link asks for {asked}, which this model or sentence does not have; showing {shown}.",
            "zh": "链接要求的{asked}在该模型或句子中不存在，已改为显示{shown}。",
        },
    }
)
STRINGS.update(
    {
        "model_hf": {"en": "Hugging Face…", "zh": "Hugging Face…"},
        "hf_name": {"en": "Hugging Face model", "zh": "Hugging Face 模型"},
        "hf_name_help": {
            "en": "The Hugging Face models this server's operator offers (ATTN_HF_MODELS).",
            "zh": "本服务器管理员提供的 Hugging Face 模型（ATTN_HF_MODELS）。",
        },
        "error_hf_refused": {
            "en": "This server does not offer that Hugging Face model. Choose one of the models in the sidebar.",
            "zh": "本服务器不提供该 Hugging Face 模型。请在侧边栏中选择一个模型。",
        },
    }
)
# the model's notices (model.errors.Notice codes), shown by ui.widgets.show_model_notices
STRINGS.update(
    {
        "notice_cut_chars": {"en": "the text was cut to its first {n} characters", "zh": "文本已截取为前 {n} 个字符"},
        "notice_control_removed": {
            "en": "control characters were removed from the text",
            "zh": "已删除文本中的控制字符",
        },
        "notice_cut_tokens": {
            "en": "the text was cut to its first {n} tokens (this model reads at most {max})",
            "zh": "文本已截取为前 {n} 个词元（该模型最多读取 {max} 个）",
        },
        "notice_unseen_words": {
            "en": "the models never saw these words in training: {words}",
            "zh": "模型在训练中从未见过这些词：{words}",
        },
        "notice_stopped_max": {
            "en": "stopped at this model's maximum length of {n} tokens",
            "zh": "已达到该模型的最大长度（{n} 个词元），生成停止",
        },
        "notice_oom_cpu": {
            "en": "{device} ran out of memory; this run used the CPU",
            "zh": "{device} 内存不足；本次改用 CPU 运行",
        },
    }
)

"""Strings of the attention explorer page (pages/attention.py); every key starts with att_."""

STRINGS = {
    "att_intro": {
        "en": "Every layer and every head of the model, for the sentence in the sidebar. "
        "Pick the attention kind, a layer and a head (or the mean of the heads), "
        "then a query token to read its row as a table.",
        "zh": "查看侧边栏中的句子在模型每一层、每一个注意力头上的注意力。"
        "选择注意力类型、层和头（或各头平均），再选一个查询词元，用表格查看它的那一行。",
    },
    "att_kind": {"en": "Attention kind", "zh": "注意力类型"},
    "att_explain_encoder": {
        "en": "Encoder self-attention: every source token may look at every source token, before and after it.",
        "zh": "编码器自注意力：源句的每个词元都可以看源句中的所有词元，包括前面和后面的词元。",
    },
    "att_explain_decoder": {
        "en": "Decoder masked self-attention: each token may look only at itself and the "
        "tokens before it; the future is masked (grey hatching).",
        "zh": "解码器掩码自注意力：每个词元只能看它自己和它前面的词元，后面的词元被掩码（灰色斜线）。",
    },
    "att_explain_cross": {
        "en": "Cross-attention: each step of the decoder (a query row: the token it reads → the "
        "token it writes) looks at the encoder's source tokens (keys): this is where the "
        "translation reads the input.",
        "zh": "交叉注意力：解码器的每一步（查询行：读入的词元 → 写出的词元）去看编码器的源句词元（键）："
        "译文正是在这里读取原文。",
    },
    "att_layer": {"en": "Layer", "zh": "层"},
    "att_head": {"en": "Head", "zh": "注意力头"},
    "att_head_short": {"en": "Head", "zh": "头"},
    "att_layer_n": {"en": "Layer {n}", "zh": "第 {n} 层"},
    "att_head_n": {"en": "Head {n}", "zh": "第 {n} 个头"},
    "att_mean_heads": {"en": "Mean of heads", "zh": "各头平均"},
    "att_words": {"en": "Word view", "zh": "按词显示"},
    "att_words_help": {
        "en": "Merge SentencePiece pieces into whole words: attention to a word is the sum over "
        "its pieces, a word's row is the mean of its pieces' rows (still summing to 1).",
        "zh": "把 SentencePiece 子词合并成整词：对一个词的注意力是对它各子词的注意力之和，"
        "一个词的那一行是它各子词行的平均（每行之和仍为 1）。",
    },
    "att_translation": {"en": "Translation: {text}", "zh": "译文：{text}"},
    "att_temp_note": {
        "en": "Attention temperature {temp} (from the link; the Temperature page changes it).",
        "zh": "注意力温度 {temp}（来自链接；可在“温度”页面调整）。",
    },
    "att_what_q": {"en": "query position", "zh": "查询位置"},
    "att_query": {"en": "Query token (its row in the table)", "zh": "查询词元（表格显示它的那一行）"},
    "att_heatmap_title": {"en": "{kind} · {layer} · {head}", "zh": "{kind} · {layer} · {head}"},
    "att_heatmap_help": {
        "en": "Rows: the token that looks (query). Columns: the tokens it looks at (keys). Each row sums to 1.",
        "zh": "行：发出关注的词元（查询）。列：被关注的词元（键）。每一行之和为 1。",
    },
    "att_tab_head": {"en": "Heatmap and table", "zh": "热力图与表格"},
    "att_tab_model": {"en": "Model view (all heads)", "zh": "模型视图（所有头）"},
    "att_tab_lines": {"en": "Head view (lines)", "zh": "头视图（连线）"},
    "att_tab_agg": {"en": "Rollout and head roles", "zh": "注意力传播与头的角色"},
    "att_tab_export": {"en": "Export", "zh": "导出"},
    "att_model_view_help": {
        "en": "Every layer (rows) × head (columns) at once, each tile a small heatmap. "
        "Click a tile to select that layer and head.",
        "zh": "一次看全部层（行）× 头（列），每个小格是一张小热力图。点击小格即可选中该层该头。",
    },
    "att_model_view_pooled": {
        "en": "Long input: each tile is shrunk to {n}×{n} cells, keeping each block's strongest weight.",
        "zh": "输入较长：每个小格缩小为 {n}×{n}，每块保留其中最大的权重。",
    },
    "att_selected": {"en": "Selected: {layer} · {head}", "zh": "已选中：{layer} · {head}"},
    "att_head_view_help": {
        "en": "Query tokens on the left, key tokens on the right; a line per attention weight, "
        "thicker and darker for more weight, one colour per head. Click a head in the "
        "legend to show only it (Shift+click for more); point at a token to see only "
        "its lines.",
        "zh": "左边是查询词元，右边是键词元；每条线是一个注意力权重，越粗越深表示权重越大，每个头一种颜色。"
        "点击图例中的头只显示该头（按住 Shift 点击可多选）；鼠标指向某个词元只显示它的连线。",
    },
    "att_head_view_layer": {"en": "{kind} · {layer}, all heads", "zh": "{kind} · {layer}，全部头"},
    "att_head_view_long": {
        "en": "Only the strongest lines are drawn: at most {k} keys per query and head, "
        "each with weight at least {threshold}.",
        "zh": "只画出最强的连线：每个查询、每个头最多 {k} 个键，且权重不小于 {threshold}。",
    },
    "att_rollout": {"en": "Attention rollout", "zh": "注意力传播（Rollout）"},
    "att_rollout_help": {
        "en": "How much each input token flows into each position after all layers: per layer "
        "the mean of the heads plus the residual connection (½·A + ½·I), multiplied layer "
        "by layer (Abnar & Zuidema, 2020). An estimate, not a measurement: it assumes the "
        "residual carries exactly half of every position, ignores the feed-forward layers "
        "and the value vectors, and for the translator's decoder it leaves out what "
        "cross-attention brings in from the encoder.",
        "zh": "经过所有层之后，每个输入词元流入每个位置的比例：每层取各头平均并加上残差连接（½·A + ½·I），"
        "再逐层相乘（Abnar & Zuidema，2020）。这是估计而非测量：它假设残差恰好占每个位置的一半，"
        "忽略前馈层和值向量；对翻译模型的解码器，它不计交叉注意力从编码器带来的信息。",
    },
    "att_rollout_none": {
        "en": "Rollout follows information through stacked self-attention layers, so it is "
        "shown for encoder and decoder self-attention, not for cross-attention.",
        "zh": "注意力传播追踪信息在逐层堆叠的自注意力中的流动，因此只适用于编码器和解码器自注意力，不适用于交叉注意力。",
    },
    "att_roles": {"en": "Head roles", "zh": "注意力头的角色"},
    "att_roles_help": {
        "en": "A score per head, on this sentence's tokens: **previous token** = mean weight on "
        "the token just before, **current token** = on the token itself, **first token** = "
        "on the first token, **broad** = how evenly spread (normalised entropy, 1 = uniform). A head "
        "gets the role of its best score if that is at least 0.5, else “mixed”. Rows that can "
        "see only one token (the first row under a causal mask) are left out: their weight "
        "of 1 is forced by the mask and says nothing about the head. Cross-attention gets "
        "**align** (the mean of each row's largest weight: 1 when every written token looks "
        "at one source token) instead of the positional roles, since positions in the two "
        "texts do not correspond.",
        "zh": "每个头的得分（基于本句的词元）：**前一个词元** = 对紧邻前一个词元的平均权重，**当前词元** = 对自身的平均权重，"
        "**第一个词元** = 对第一个词元的平均权重，**广泛** = 分布有多均匀（归一化熵，1 = 完全均匀）。"
        "最高得分不低于 0.5 时，该头获得对应角色，否则为“混合”。只能看到一个词元的行（因果掩码下的第一行）"
        "不计入：它的权重 1 是掩码强加的，说明不了这个头。交叉注意力不用位置角色（两段文本的位置并不对应），"
        "而用**对齐**（每行最大权重的平均：每个写出的词元都只看一个源词元时为 1）。",
    },
    "att_induction_help": {
        "en": "**induction**: the model reads {n} random tokens twice; in the second copy an "
        "induction head looks at the token that came right after the current token the "
        "first time. Score = mean weight on that token.",
        "zh": "**归纳**：让模型读两遍同样的 {n} 个随机词元；在第二遍中，归纳头会去看当前词元上一次出现时紧跟其后的那个词元。"
        "得分 = 对该词元的平均权重。",
    },
    "att_role_previous": {"en": "previous token", "zh": "前一个词元"},
    "att_role_current": {"en": "current token", "zh": "当前词元"},
    "att_role_first": {"en": "first token", "zh": "第一个词元"},
    "att_role_align": {"en": "align", "zh": "对齐"},
    "att_role_broad": {"en": "broad", "zh": "广泛"},
    "att_role_induction": {"en": "induction", "zh": "归纳"},
    "att_role_mixed": {"en": "mixed", "zh": "混合"},
    "att_col_layer": {"en": "Layer", "zh": "层"},
    "att_col_head": {"en": "Head", "zh": "头"},
    "att_col_role": {"en": "Role", "zh": "角色"},
    "att_col_score": {"en": "Score", "zh": "得分"},
    "att_export_intro": {
        "en": "The table's CSV button is under the table. Heatmaps and the model view: point at "
        "the chart and its camera button saves the image, in the format chosen here. "
        "Head view: the buttons below save it as SVG or PNG.",
        "zh": "表格的 CSV 按钮在表格下方。热力图和模型视图：把鼠标移到图上，点击相机按钮即可保存图片，"
        "格式在此选择。头视图：用下方按钮保存为 SVG 或 PNG。",
    },
    "att_image_format": {"en": "Format of the chart camera button", "zh": "图表相机按钮保存的格式"},
    "att_image_format_help": {
        "en": "Heatmaps and the model view are drawn in your browser, which writes the "
        "PNG or SVG file itself, without any server.",
        "zh": "热力图和模型视图由浏览器绘制，PNG 或 SVG 文件也由浏览器直接生成，不经过服务器。",
    },
    "att_download_json": {"en": "Whole trace as JSON", "zh": "下载完整注意力数据（JSON）"},
    "att_download_json_help": {
        "en": "Input and output text, and for every attention kind its tokens and weights "
        "(layers × heads × queries × keys).",
        "zh": "输入和输出文本，以及每种注意力的词元和权重（层 × 头 × 查询 × 键）。",
    },
    "att_download_svg": {"en": "Head view as SVG", "zh": "下载头视图（SVG）"},
    "att_download_png": {"en": "Head view as PNG", "zh": "下载头视图（PNG）"},
    "att_no_svg": {
        "en": "Saving the head view as SVG or PNG needs the vl-convert-python package, which is "
        "not installed on this server.",
        "zh": "将头视图保存为 SVG 或 PNG 需要 vl-convert-python 包，此服务器未安装。",
    },
}
STRINGS.update(
    {
        "att_selected_in_first_tab": {
            "en": "The selected head's heatmap is in the first tab (not repeated here for long texts, to keep the page light).",
            "zh": "所选注意力头的热力图在第一个标签页（长文本时这里不重复显示，以减轻页面负担）。",
        },
    }
)
# rows labelled by the token they write, the out-of-grammar warning, chart notes (issue 11)
from .teaching import STRINGS as _TEACHING  # noqa: E402

STRINGS.update(_TEACHING)

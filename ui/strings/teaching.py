"""Strings of the teaching-truth work (issue 11): rows labelled by the token they write, the
out-of-grammar warning, and the notes that keep a chart from saying more than it shows."""
STRINGS = {
    "axis_query_writes": {"en": "Query row: reads → writes", "zh": "查询行：读入 → 写出"},
    "rows_written_note": {
        "en": "Each row is one step of the decoder: **reads → writes**. The step that reads <2zh> (or <s>) "
              "computes the next token, so its attention is what the model looked at *while writing* that "
              "token. “Writes” is the model's most likely next token at that step.",
        "zh": "每一行是解码器的一步：**读入 → 写出**。读入 <2zh>（或 <s>）的这一步要算出下一个词元，所以这一行的"
              "注意力是模型*写出*那个词元时看的地方。“写出”指模型在这一步最可能的下一个词元。"},
    "table_caption_written": {"en": "When the model writes **{written}** (reading **{token}**), its attention weights are:",
                              "zh": "当模型写出 **{written}**（读入 **{token}**）时，注意力权重如下："},
}

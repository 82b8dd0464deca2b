"""Strings of the teaching-truth work (issue 11): rows labelled by the token they write, the
out-of-grammar warning, and the notes that keep a chart from saying more than it shows."""

STRINGS = {
    "axis_query_writes": {"en": "Query row: reads → writes", "zh": "查询行：读入 → 写出"},
    "rows_written_note": {
        "en": "Each row is one step of the decoder: **reads → writes**. The step that reads <2zh> (or <s>) "
        "computes the next token, so its attention is what the model looked at *while writing* that "
        "token. “Writes” is the model's most likely next token at that step.",
        "zh": "每一行是解码器的一步：**读入 → 写出**。读入 <2zh>（或 <s>）的这一步要算出下一个词元，所以这一行的"
        "注意力是模型*写出*那个词元时看的地方。“写出”指模型在这一步最可能的下一个词元。",
    },
    "table_caption_written": {
        "en": "When the model writes **{written}** (reading **{token}**), its attention weights are:",
        "zh": "当模型写出 **{written}**（读入 **{token}**）时，注意力权重如下：",
    },
}
STRINGS.update(
    {
        "grammar_outside": {
            "en": "**Outside the {n}-word language this model learned: the {what} and its attention are a guess.** "
            "The model only ever read sentences of its small grammar (“The cat sat on the mat”, “狗咬人”, or two "
            "sentences where the second says “It …”/“She …”). Known words in another order, other words or "
            "more sentences are new to it, so what it writes, and where it looks, mean little here.",
            "zh": "**这句话超出了本模型学过的 {n} 个词的小语言：{what}和它的注意力都只是猜测**。"
            "模型只读过它那套小语法生成的句子（如“The cat sat on the mat”“狗咬人”，或第二句以“它……”"
            "“她……”开头的两句话）。词序不同、用了别的词或句子更多，对它都是陌生的，所以它写出的内容和"
            "它看的位置在这里没有多少意义。",
        },
        "grammar_what_translation": {"en": "translation", "zh": "译文"},
        "grammar_what_continuation": {"en": "continuation", "zh": "续写"},
        "grammar_known_like": {"en": "Words it knows that look like yours:", "zh": "它认识的、与你的词相近的词："},
        "grammar_near": {"en": "{word} → {known}", "zh": "{word} → {known}"},
        "grammar_try": {"en": "Try a sentence it learned:", "zh": "试试它学过的句子："},
    }
)
STRINGS.update(
    {
        "temp_encoder_no_output": {
            "en": "This model is an encoder: it reads the whole text at once and predicts no next token, so there is "
            "no output distribution to show here. The attention temperature changes only where it looks (above).",
            "zh": "这个模型是编码器：它一次读入整段文本，不预测下一个词元，所以这里没有输出分布可以展示。"
            "注意力温度只改变它看的位置（见上方）。",
        },
        "temp_sampling_gpt_note_encoder": {
            "en": "An encoder does not write text: this panel uses the project's GPT, with the sentence as its prompt.",
            "zh": "编码器不生成文本：本面板使用本项目的 GPT，以这个句子作为提示词。",
        },
    }
)
STRINGS.update(
    {
        "home_intro_hf": {
            "en": "Type a sentence in the sidebar and see, for every token, which other tokens it reads from — here in "
            "a pretrained Hugging Face model (not trained by this project; its own training data and "
            "tokenizer).",
            "zh": "在侧边栏输入一句话，看看每个词元从哪些词元那里读取信息——这里是一个预训练的 Hugging Face 模型"
            "（不是本项目训练的；它有自己的训练数据和分词器）。",
        },
    }
)
STRINGS.update(
    {
        "home_table_note": {
            "en": "These are the mean of this layer's heads: no single head uses this mean (each head has its own "
            "weights; see them one by one in the attention explorer). The tutorial's “The 0.12, cat 0.35 …” "
            "were illustrative numbers; these are this model's own.",
            "zh": "这里是本层各个头的平均：没有哪个头真的使用这个平均值（每个头有自己的权重，可在注意力探索页逐个查看）。"
            "教程中的“The 0.12，cat 0.35……”只是示意数字；这里是本模型自己的数值。",
        },
    }
)
STRINGS.update(
    {
        "gen_attention_title_written": {
            "en": "Reading “{token}” and writing “{written}”: where the newest token looks, in every layer and head",
            "zh": "读入“{token}”、写出“{written}”：最新的词元在每一层、每个头关注哪里",
        },
    }
)

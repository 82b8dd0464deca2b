"""model/'s InputError codes (error_CODE), shown by ui/messages.py in the reader's language (the
CLI prints the model's own English line). The notices (notice_CODE) live in common.py."""

STRINGS = {
    "error_temperature": {
        "en": "The attention temperature must be a number from 0.001 to 1000.",
        "zh": "注意力温度必须是 0.001 到 1000 之间的数。",
    },
    "error_sampling": {
        "en": "The sampling settings are not valid: the temperature must be 0 or more, top-k 0 or "
        "more, top-p above 0 and at most 1.",
        "zh": "采样设置无效：温度须不小于 0，top-k 须不小于 0，top-p 须大于 0 且不超过 1。",
    },
    "error_direction": {
        "en": "The translation direction must be en-zh or zh-en.",
        "zh": "翻译方向必须是 en-zh 或 zh-en。",
    },
    "error_kind": {"en": "This model does not have that attention kind.", "zh": "该模型没有这种注意力。"},
    "error_layer": {"en": "This model does not have that layer.", "zh": "该模型没有这一层。"},
    "error_head": {"en": "This model does not have that head.", "zh": "该模型没有这个头。"},
    "error_no_walkthrough": {
        "en": "The step-by-step view shows the tutorial code of the models this project "
        "trains (the translator and the GPTs); a Hugging Face model has none. Pick one of "
        "those in the sidebar.",
        "zh": "逐步计算页展示的是本项目训练的模型（翻译模型和各个 GPT）的教程代码，Hugging Face "
        "模型没有这样的代码。请在侧边栏选择其中一个模型。",
    },
    "error_memory": {
        "en": "The model ran out of memory on this text; try a shorter one.",
        "zh": "模型处理这段文本时内存不足，请换一段更短的文本。",
    },
    "error_ablate": {
        "en": "That head cannot be switched off in this model (no such attention kind, layer or "
        "head, or no such way of switching it off).",
        "zh": "无法在该模型中关闭这个头（没有这种注意力、这一层或这个头，或没有这种关闭方式）。",
    },
    "error_edit": {
        "en": "That edit of an attention row cannot be applied: the row must exist and its weights must "
        "be non-negative, one per key, summing to more than 0, with none on a masked key.",
        "zh": "无法应用对这一行注意力的修改：该行必须存在，权重须非负、每个键一个、总和大于 0，"
        "且不能落在被掩码的键上。",
    },
    "error_model": {"en": "This model cannot do that.", "zh": "该模型不支持这一操作。"},
}

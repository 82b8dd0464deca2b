"""Lessons (predict, then see the model's numbers) and classrooms (rooms, following the teacher)."""

STRINGS = {
    "page_lessons": {"en": "Lessons", "zh": "课堂练习"},
    "home_link_lessons": {
        "en": "🎓 Lessons: predict, then see the model's numbers",
        "zh": "🎓 课堂练习：先预测，再看模型的数值",
    },
    "lessons_intro": {
        "en": "Predict first, then see what the trained model really does. Every answer below is "
        "computed from the model's own numbers.",
        "zh": "先预测，再看训练好的模型实际怎么做。下面每道题的答案都由模型自己的数值算出。",
    },
    "lesson_pick": {"en": "Lesson", "zh": "课程"},
    "lesson_name_attention": {"en": "1 · Attention and Q/K/V", "zh": "1 · 注意力与 Q/K/V"},
    "lesson_name_positions": {"en": "2 · Word order: 狗咬人 / 人咬狗", "zh": "2 · 词序：狗咬人 / 人咬狗"},
    "lesson_name_decoder": {"en": "3 · The decoder", "zh": "3 · 解码器"},
    "lesson_step": {"en": "Step {i} of {n}", "zh": "第 {i} 步，共 {n} 步"},
    "lesson_your_prediction": {"en": "Your prediction", "zh": "你的预测"},
    "lesson_right": {"en": "Right: the model says **{answer}**.", "zh": "答对了：模型的答案是 **{answer}**。"},
    "lesson_wrong": {
        "en": "Not this time: you said **{given}**, the model says **{answer}**.",
        "zh": "这次没猜中：你选了 **{given}**，模型的答案是 **{answer}**。",
    },
    "lesson_predict_first": {
        "en": "Make your prediction to see the model's numbers.",
        "zh": "先做出预测，才能看到模型的数值。",
    },
    "lesson_back": {"en": "Back", "zh": "上一步"},
    "lesson_next": {"en": "Next", "zh": "下一步"},
    "lesson_restart": {"en": "Start again", "zh": "重新开始"},
    "lesson_score": {
        "en": "Your score: **{right} of {n}** predictions right.",
        "zh": "你的得分：**{n} 题中答对 {right} 题**。",
    },
    "lesson_score_partial": {
        "en": "Answered {answered} of {n} steps; {right} right so far.",
        "zh": "已回答 {answered}/{n} 步，目前答对 {right} 题。",
    },
    "lesson_sketch": {"en": "Sketch {label}", "zh": "草图 {label}"},
    "lesson_yes": {"en": "Yes", "zh": "是"},
    "lesson_no": {"en": "No", "zh": "否"},
    "lesson_sum_half": {"en": "about 0.5", "zh": "约 0.5"},
    "lesson_sum_one": {"en": "exactly 1", "zh": "正好 1"},
    "lesson_sum_n": {"en": "{n} (one per token)", "zh": "{n}（每个词元 1）"},
    "lesson_pe_near": {"en": "PE(3)·PE(4) is larger", "zh": "PE(3)·PE(4) 更大"},
    "lesson_pe_far": {"en": "PE(3)·PE(10) is larger", "zh": "PE(3)·PE(10) 更大"},
    "lesson_pe_equal": {"en": "They are equal", "zh": "两者相等"},
    "lesson_class_answers": {"en": "The class's predictions ({n} answered)", "zh": "全班的预测（{n} 人作答）"},
    "lesson_class_count": {"en": "Students", "zh": "人数"},
    "lesson_open_view": {"en": "Open this in the explorer", "zh": "在注意力探索页中打开"},
    # chart titles
    "lesson_title_row": {
        "en": "Row of “{word}”, layer {layer}, mean of heads",
        "zh": "“{word}” 这一行，第 {layer} 层，各头平均",
    },
    "lesson_title_row_head": {
        "en": "Weights of “{word}”, layer {layer}, head {head}",
        "zh": "“{word}” 的权重，第 {layer} 层第 {head} 个头",
    },
    "lesson_title_row_temp": {
        "en": "Row of “{word}”, layer {layer} head {head}, at T = {temp}",
        "zh": "“{word}” 这一行，第 {layer} 层第 {head} 个头，T = {temp}",
    },
    "lesson_title_mean": {"en": "{kind}, layer {layer}, mean of heads", "zh": "{kind}，第 {layer} 层，各头平均"},
    "lesson_title_head": {"en": "{kind}, layer {layer}, head {head}", "zh": "{kind}，第 {layer} 层第 {head} 个头"},
    "lesson_title_scores": {"en": "Scores q·k / √d_k of “{word}”", "zh": "“{word}” 的分数 q·k / √d_k"},
    "lesson_title_nopos": {
        "en": "{text} without positions (layer 1, mean of heads)",
        "zh": "{text}，去掉位置编码（第 1 层，各头平均）",
    },
    "lesson_title_pos": {
        "en": "{text} with positions (layer 1, mean of heads)",
        "zh": "{text}，带位置编码（第 1 层，各头平均）",
    },
    "lesson_title_pe": {"en": "PE(3)·PE(p) for p = 0 … 15", "zh": "PE(3)·PE(p)，p = 0 … 15"},
    "lesson_title_next": {"en": "GPT's next token after “{prompt}”", "zh": "GPT 在 “{prompt}” 之后的下一个词元"},
}

# -- the steps: lesson_{key}_ask, lesson_{key}_reveal --------------------------------------------------
STRINGS.update(
    {
        "lesson_att_tokens_ask": {
            "en": "The translator reads “{text}”. How many tokens does it cut the sentence into?",
            "zh": "翻译模型读入 “{text}”。它把这句话切成几个词元？",
        },
        "lesson_att_tokens_reveal": {
            "en": "{n} tokens: {tokens}. Each token gets one row and one column of every attention matrix.",
            "zh": "{n} 个词元：{tokens}。每个词元在每个注意力矩阵里占一行、一列。",
        },
        "lesson_att_row_sum_ask": {
            "en": "Take the row of “{word}”: its attention weights over all tokens. What do they add up to?",
            "zh": "取 “{word}” 这一行：它对所有词元的注意力权重。加起来等于多少？",
        },
        "lesson_att_row_sum_reveal": {
            "en": "The model's row adds up to {total}: softmax turns the scores into a distribution, so every row sums to 1.",
            "zh": "模型这一行加起来是 {total}：softmax 把分数变成概率分布，所以每一行的和都是 1。",
        },
        "lesson_att_cat_reads_ask": {
            "en": "In the encoder's last layer (layer {layer}, mean of the heads), which word does “{word}” read most? "
            "Click a word.",
            "zh": "在编码器最后一层（第 {layer} 层，各头平均）中，“{word}” 最关注哪个词？请点选一个词。",
        },
        "lesson_att_cat_reads_reveal": {
            "en": "“{word}” reads “{top}” most, with weight {weight}. The highlighted row is the tutorial's table "
            "for this model.",
            "zh": "“{word}” 最关注 “{top}”，权重 {weight}。高亮的这一行就是教程中那张表在本模型上的真实数值。",
        },
        "lesson_att_cat_self_ask": {
            "en": "The tutorial's table gives “{word}” a weight of {tutorial} on itself. In our model (layer {layer}, "
            "mean of heads), is “{word}”'s weight on itself larger than {tutorial}?",
            "zh": "教程的表里 “{word}” 对自己的权重是 {tutorial}。在我们的模型里（第 {layer} 层，各头平均），"
            "“{word}” 对自己的权重比 {tutorial} 大吗？",
        },
        "lesson_att_cat_self_reveal": {
            "en": "Its weight on itself is {weight}. The tutorial's numbers were an illustration; a trained model has its own.",
            "zh": "它对自己的权重是 {weight}。教程里的数字只是示意，训练出来的模型有自己的数值。",
        },
        "lesson_att_head_reads_ask": {
            "en": "Now one head alone: layer {layer}, head {head}. Which word does “{word}” read most?",
            "zh": "现在只看一个头：第 {layer} 层第 {head} 个头。“{word}” 最关注哪个词？",
        },
        "lesson_att_head_reads_reveal": {
            "en": "Head {head} sends {weight} of “{word}”'s attention to “{top}”. A single head is often much sharper "
            "than the mean of all heads.",
            "zh": "第 {head} 个头把 “{word}” 的 {weight} 注意力给了 “{top}”。单个头往往比各头平均尖锐得多。",
        },
        "lesson_att_heads_agree_ask": {
            "en": "Layer {layer} has {n} heads. Do all of them give “{word}” the same top word?",
            "zh": "第 {layer} 层有 {n} 个头。它们给 “{word}” 的最高权重词都一样吗？",
        },
        "lesson_att_heads_agree_reveal": {
            "en": "Top word per head: {tops}. This is what multi-head attention is for: each head can look for something else.",
            "zh": "每个头的最高权重词：{tops}。这正是多头注意力的用处：每个头可以关注不同的东西。",
        },
        "lesson_att_scores_ask": {
            "en": "Attention compares the query of “{word}” with every key: score = q·k / √d_k (d_k = {d_k}). In layer "
            "{layer}, head {head}, which key gets the highest score?",
            "zh": "注意力把 “{word}” 的查询向量 q 与每个键 k 比较：分数 = q·k / √d_k（d_k = {d_k}）。"
            "在第 {layer} 层第 {head} 个头中，哪个键的分数最高？",
        },
        "lesson_att_scores_reveal": {
            "en": "“{top}” scores {score}, the highest, and gets weight {weight}: softmax keeps the order of the scores, "
            "so the highest score always gets the largest weight.",
            "zh": "“{top}” 的分数最高（{score}），权重 {weight}：softmax 不改变分数的大小顺序，所以分数最高的键权重也最大。",
        },
        "lesson_att_sharpen_ask": {
            "en": "Divide every score of layer {layer} by T = {temp} (a lower temperature). Which sketch shows the row of "
            "“{word}” in head {head} then?",
            "zh": "把第 {layer} 层的所有分数都除以 T = {temp}（更低的温度）。这时第 {head} 个头里 “{word}” 这一行会像哪张草图？",
        },
        "lesson_att_sharpen_reveal": {
            "en": "The largest weight goes from {before} to {after}: dividing by a small T stretches the gaps between "
            "scores, and softmax turns that into a sharper row.",
            "zh": "最大权重从 {before} 变成 {after}：除以较小的 T 会拉大分数之间的差距，softmax 之后这一行就更尖锐。",
        },
        "lesson_att_dk_ask": {
            "en": "This model has d_model = {d_model} and h = {h} heads. What is d_k, the length of each head's query "
            "and key vectors?",
            "zh": "这个模型的 d_model = {d_model}，有 h = {h} 个头。每个头的查询、键向量长度 d_k 是多少？",
        },
        "lesson_att_dk_reveal": {
            "en": "d_k = d_model / h = {d_k}, so the scores are divided by √d_k = {sqrt} to keep them from growing with "
            "the vector length.",
            "zh": "d_k = d_model / h = {d_k}，所以分数要除以 √d_k = {sqrt}，免得分数随向量长度变大。",
        },
    }
)
STRINGS.update(
    {
        "lesson_pos_translate_a_ask": {
            "en": "What will the translator write for “{text}”?",
            "zh": "翻译模型会把 “{text}” 翻译成什么？",
        },
        "lesson_pos_translate_a_reveal": {"en": "It writes “{out}”.", "zh": "它写出 “{out}”。"},
        "lesson_pos_translate_b_ask": {
            "en": "And for “{text}”: the same three characters in another order?",
            "zh": "那 “{text}” 呢？同样三个字，只是顺序不同。",
        },
        "lesson_pos_translate_b_reveal": {"en": "It writes “{out}”.", "zh": "它写出 “{out}”。"},
        "lesson_pos_no_position_same_ask": {
            "en": "Now switch positional encoding off, so the model sees only which tokens there are, not where. Will "
            "“{a}” and “{b}” get the same translation?",
            "zh": "现在关掉位置编码，模型只知道有哪些词元，不知道它们在哪。“{a}” 和 “{b}” 的译文会一样吗？",
        },
        "lesson_pos_no_position_same_reveal": {
            "en": "Without positions: “{a}” → “{out_a}”, “{b}” → “{out_b}”.",
            "zh": "没有位置编码时：“{a}” → “{out_a}”，“{b}” → “{out_b}”。",
        },
        "lesson_pos_no_position_weight_ask": {
            "en": "Still without positions: does 咬 read 狗 with the same weight in “{a}” as in “{b}”?",
            "zh": "仍然不带位置编码：在 “{a}” 和 “{b}” 中，咬 对 狗 的注意力权重一样吗？",
        },
        "lesson_pos_no_position_weight_reveal": {
            "en": "咬 → 狗: {wa} in “{a}”, {wb} in “{b}”. Without positions attention cannot tell the two orders apart: "
            "the rows are the same, only reordered.",
            "zh": "咬 → 狗：在 “{a}” 中是 {wa}，在 “{b}” 中是 {wb}。没有位置编码，注意力分不出两种词序：各行相同，只是换了顺序。",
        },
        "lesson_pos_bite_reads_ask": {
            "en": "With positions back on: in “{text}” (encoder layer 1, mean of heads), which word does “{word}” read most?",
            "zh": "重新打开位置编码：在 “{text}” 中（编码器第 1 层，各头平均），“{word}” 最关注哪个词？",
        },
        "lesson_pos_bite_reads_reveal": {
            "en": "“{word}” reads “{top}” most, with weight {weight}.",
            "zh": "“{word}” 最关注 “{top}”，权重 {weight}。",
        },
        "lesson_pos_position_weight_ask": {
            "en": "With positions: does 咬 read 狗 with a different weight in “{a}” than in “{b}”?",
            "zh": "带位置编码时：在 “{a}” 和 “{b}” 中，咬 对 狗 的权重不同吗？",
        },
        "lesson_pos_position_weight_reveal": {
            "en": "咬 → 狗: {wa} in “{a}”, {wb} in “{b}”. Positional encoding is what lets the weights depend on word order.",
            "zh": "咬 → 狗：在 “{a}” 中是 {wa}，在 “{b}” 中是 {wb}。正是位置编码让权重能随词序变化。",
        },
        "lesson_pos_cross_ask": {
            "en": "Translating “{text}”: when the decoder writes “{written}”, which Chinese token does cross-attention "
            "(layer {layer}, head {head}) read most?",
            "zh": "翻译 “{text}” 时：解码器写出 “{written}” 的那一步，交叉注意力（第 {layer} 层第 {head} 个头）最关注哪个中文词元？",
        },
        "lesson_pos_cross_reveal": {
            "en": "It reads “{top}” with weight {weight}.",
            "zh": "它关注 “{top}”，权重 {weight}。",
        },
        "lesson_pos_pe_dot_ask": {
            "en": "Sinusoidal positional encoding (d_model = {d_model}): which dot product is larger, PE(3)·PE(4) "
            "(neighbours) or PE(3)·PE(10)?",
            "zh": "正弦位置编码（d_model = {d_model}）：哪个点积更大，PE(3)·PE(4)（相邻）还是 PE(3)·PE(10)？",
        },
        "lesson_pos_pe_dot_reveal": {
            "en": "PE(3)·PE(4) = {near}, PE(3)·PE(10) = {far}: nearby positions have similar encodings.",
            "zh": "PE(3)·PE(4) = {near}，PE(3)·PE(10) = {far}：相近的位置，编码也相似。",
        },
    }
)
STRINGS.update(
    {
        "lesson_dec_mask_ask": {
            "en": "GPT reads “The cat sat on the mat” left to right with masked self-attention. Can “{word}” read "
            "“{later}”, which comes after it?",
            "zh": "GPT 用掩码自注意力从左到右读 “The cat sat on the mat”。“{word}” 能看到排在它后面的 “{later}” 吗？",
        },
        "lesson_dec_mask_reveal": {
            "en": "The mask hides every later token: the largest weight of “{word}” on “{later}” in any head is {weight}. "
            "Masked cells are drawn as masked.",
            "zh": "后面的词元全部被掩码：任何一个头里 “{word}” 对 “{later}” 的最大权重都是 {weight}。被掩码的格子单独标出。",
        },
        "lesson_dec_first_ask": {
            "en": "And the first token, {token}: what weight does it give to itself?",
            "zh": "那么第一个词元 {token} 给自己的权重是多少？",
        },
        "lesson_dec_first_reveal": {
            "en": "{weight}: the mask leaves it nothing else to read, and the weights of a row must sum to 1.",
            "zh": "{weight}：掩码让它除了自己什么都看不到，而一行权重之和必须是 1。",
        },
        "lesson_dec_pronoun_ask": {
            "en": "“{text}” — in GPT layer {layer}, head {head}, which word does “{word}” read most?",
            "zh": "“{text}”——在 GPT 第 {layer} 层第 {head} 个头中，“{word}” 最关注哪个词？",
        },
        "lesson_dec_pronoun_reveal": {
            "en": "“{word}” reads “{top}” with weight {weight}.",
            "zh": "“{word}” 关注 “{top}”，权重 {weight}。",
        },
        "lesson_dec_sharpen_ask": {
            "en": "Run the whole GPT at attention temperature T = {temp}. Which sketch will the row of “{word}” "
            "(layer {layer}, head {head}) look like?",
            "zh": "把整个 GPT 的注意力温度设为 T = {temp}。“{word}” 这一行（第 {layer} 层第 {head} 个头）会像哪张草图？",
        },
        "lesson_dec_sharpen_reveal": {
            "en": "Its largest weight goes from {before} to {after}.",
            "zh": "它的最大权重从 {before} 变成 {after}。",
        },
        "lesson_dec_next_ask": {
            "en": "GPT has read “{prompt}”. Which token will it think most likely next?",
            "zh": "GPT 读到了 “{prompt}”。它认为下一个最可能的词元是哪个？",
        },
        "lesson_dec_next_reveal": {"en": "“{top}”, with probability {p}.", "zh": "“{top}”，概率 {p}。"},
        "lesson_dec_sample_ask": {
            "en": "Greedy decoding always takes “{top}”. Sampling at temperature 1 instead: could GPT write another token here?",
            "zh": "贪心解码总是选 “{top}”。如果改为在温度 1 下采样，GPT 这里可能写出别的词元吗？",
        },
        "lesson_dec_sample_reveal": {
            "en": "“{top}” has probability {p}; the other tokens share {rest}, so sampling picks one of them that often.",
            "zh": "“{top}” 的概率是 {p}；其余词元共占 {rest}，采样时就有这么大的机会选到它们。",
        },
        "lesson_dec_rows_ask": {
            "en": "The translator writes “{out}” for “{text}”. How many rows does its cross-attention matrix have?",
            "zh": "翻译模型把 “{text}” 译为 “{out}”。它的交叉注意力矩阵有几行？",
        },
        "lesson_dec_rows_reveal": {
            "en": "{n} rows, one per token the decoder reads: {read}. Each row writes the next token; the last writes </s>.",
            "zh": "{n} 行，解码器每读入一个词元就有一行：{read}。每一行写出下一个词元，最后一行写出 </s>。",
        },
        "lesson_dec_cross_ask": {
            "en": "When the decoder writes “{written}”, which English word does cross-attention layer {layer}, head "
            "{head} read most?",
            "zh": "解码器写出 “{written}” 时，交叉注意力第 {layer} 层第 {head} 个头最关注哪个英文词？",
        },
        "lesson_dec_cross_reveal": {
            "en": "It reads “{top}” with weight {weight}.",
            "zh": "它关注 “{top}”，权重 {weight}。",
        },
        "lesson_dec_ablate_ask": {
            "en": "Switch off {kind} layer {layer}, head {head} (its output set to 0). Will the translation of "
            "“The cat sat on the mat” change?",
            "zh": "关掉{kind}第 {layer} 层第 {head} 个头（把它的输出置为 0）。“The cat sat on the mat” 的译文会变吗？",
        },
        "lesson_dec_ablate_reveal": {
            "en": "Before: “{before}”. With the head off: “{after}”.",
            "zh": "原来：“{before}”。关掉这个头之后：“{after}”。",
        },
    }
)

# -- rooms: the teacher's screen followed by the class ---------------------------------------------------
STRINGS.update(
    {
        "room_section": {"en": "Classroom", "zh": "课堂"},
        "room_open": {"en": "Open a room (teacher)", "zh": "开设课堂（教师）"},
        "room_open_help": {
            "en": "Students who join see your page, sentence, model and settings as you change them.",
            "zh": "加入的学生会随着你的操作看到你的页面、句子、模型和设置。",
        },
        "room_code": {"en": "Room code (student)", "zh": "课堂代码（学生）"},
        "room_join": {"en": "Join", "zh": "加入"},
        "room_close": {"en": "Close the room", "zh": "关闭课堂"},
        "room_leave": {"en": "Leave the room", "zh": "离开课堂"},
        "room_not_found": {"en": "No open room has the code {code}.", "zh": "没有代码为 {code} 的课堂。"},
        "room_teacher_open": {
            "en": "Your room: **{code}**. Students scan the code or type it.",
            "zh": "你的课堂：**{code}**。学生扫码或输入代码即可加入。",
        },
        "room_student_in": {"en": "In room **{code}**.", "zh": "已加入课堂 **{code}**。"},
        "room_banner_teacher": {
            "en": "🏫 Room **{code}**: the class follows this screen.",
            "zh": "🏫 课堂 **{code}**：全班跟随这个屏幕。",
        },
        "room_show_qr": {"en": "Join code", "zh": "加入二维码"},
        "room_join_at": {"en": "Scan, or open {link} — code **{code}**", "zh": "扫码，或打开 {link} ——代码 **{code}**"},
        "room_following": {"en": "👀 Following the teacher (room {code}).", "zh": "👀 正在跟随老师（课堂 {code}）。"},
        "room_detached": {"en": "🧭 Exploring on your own (room {code}).", "zh": "🧭 正在自己探索（课堂 {code}）。"},
        "room_detach": {"en": "Explore on my own", "zh": "自己探索"},
        "room_attach": {"en": "Follow the teacher again", "zh": "重新跟随老师"},
        "room_ended": {"en": "The room has ended.", "zh": "课堂已结束。"},
    }
)

# -- presentation mode: the texts speak of what is on screen (the sidebar is hidden) -------------------
STRINGS.update(
    {
        "present_sentence": {"en": "Sentence: **{text}** · model: {model}", "zh": "句子：**{text}** · 模型：{model}"},
    }
)

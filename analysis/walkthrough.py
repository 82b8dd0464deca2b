"""One attention head, step by step, on a user's sentence: the numbers of every step of the
tutorial's recipe as the model computed them, and the lines of our own code that compute each.

    from model import load
    from analysis.walkthrough import walk
    w = walk(load("translator"), "The cat sat on the mat", kind="cross", layer=0, head=2)
    w.weights          # (queries, keys): softmax(QK^T / sqrt(d_k) + mask) of that head
    w.code["softmax"]  # [Snippet(path="model/attention.py", name="scaled_dot_product_attention", ...)]

The steps (STEPS): 1 tokens, 2 embeddings + position, 3 Q K V and split_heads, 4 QK^T,
5 / sqrt(d_k), 6 mask (and ALiBi's bias), 7 softmax, 8 weights x V, 9 concat heads and W^O,
10 residual, LayerNorm, feed-forward.

Where the numbers come from: one forward pass with a ``record`` dict (model/attention.py puts q,
k, v, the scores softmax is given (scaled_scores: QK^T/sqrt(d_k) + bias, masked), the weights, each
head's output, the concatenation and the W^O output in it; the stacks add the token ids they read
and their input; the layers add their input, the Add & Norm results and the FFN). Steps 4 and 5
show QK^T and QK^T/sqrt(d_k) before bias and mask, computed here from the recorded q and k with the
same scaled_scores, and step 3 the un-rotated XW_Q (the module's own W_q applied to the recorded
X). ``check`` holds the largest difference between what the recorded tensors predict and what the
model recorded next (the softmax of the recorded scores against the model's weights; our split
XW_Q against the model's q): about 1e-7 when everything agrees.

The code shown for each step is read with inspect.getsource when this runs, so it is always the
code that just produced the numbers; a marker that no longer matches falls back to the whole
function and sets ``Snippet.found`` to False (tests/test_walkthrough.py fails on that).
"""

from __future__ import annotations

import inspect
import math
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from model import attention, blocks, gpt, positional, runner, tokenizer, transformer
from model.errors import InputError
from model.trace import Trace

STEPS = ("tokens", "embed", "qkv", "scores", "scale", "mask", "softmax", "weighted", "concat", "ffn")
_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Snippet:
    """Lines of our own source: ``path`` relative to the project, ``name`` the function,
    ``first_line`` the line number of the first line shown (1-based)."""

    path: str
    name: str
    first_line: int
    text: str
    found: bool = True


@dataclass(frozen=True)
class Piece:
    """One quantity of step 10: ``key`` names it (the page translates it), ``latex`` its formula."""

    key: str
    latex: str
    value: np.ndarray


@dataclass(frozen=True)
class Walkthrough:
    model: str
    arch: str  # "transformer" or "gpt"
    positional: str  # "sinusoidal", "learned", "rope", "alibi"
    kind: str  # "encoder", "decoder" or "cross"
    layer: int  # 0-based
    head: int  # 0-based
    num_layers: int
    num_heads: int
    d_model: int
    d_k: int
    pre_ln: bool  # GPT: attention reads LayerNorm(x); translator: x itself
    input_text: str
    output_text: str
    notices: list[str]
    # step 1
    query_ids: list[int]
    key_ids: list[int]
    query_tokens: list[str]
    key_tokens: list[str]
    # step 2: for the queries' stream and the keys' stream (the same one unless kind == "cross")
    query_embed: np.ndarray  # (T, d_model) token embeddings (x sqrt(d_model) for the translator)
    query_position: np.ndarray | None  # (T, d_model) the added positional vectors; None for RoPE / ALiBi
    query_input: np.ndarray  # (T, d_model) what the stack's first layer reads
    key_embed: np.ndarray
    key_position: np.ndarray | None
    key_input: np.ndarray
    # step 3
    layer_input: np.ndarray  # (T, d_model) x entering this layer (the residual stream)
    X: np.ndarray  # (T, d_model) what W_Q multiplies
    X_kv: np.ndarray  # (S, d_model) what W_K and W_V multiply
    Q_full: np.ndarray  # (T, d_model) X W_Q + b_Q, every head side by side
    K_full: np.ndarray  # (S, d_model)
    V_full: np.ndarray  # (S, d_model)
    q: np.ndarray  # (T, d_k) this head's slice, after RoPE's rotation if the model has it
    k: np.ndarray  # (S, d_k)
    v: np.ndarray  # (S, d_k)
    q_unrotated: np.ndarray | None  # (T, d_k) RoPE only: the slice before rotation
    k_unrotated: np.ndarray | None
    # steps 4-7
    scores: np.ndarray  # (T, S) q k^T
    scaled: np.ndarray  # (T, S) q k^T / sqrt(d_k)
    bias: np.ndarray | None  # (T, S) ALiBi's -m_h |i - j|, None otherwise
    mask: np.ndarray  # (T, S) bool, True where the query may look
    mask_kind: str  # "causal", "padding" (nothing hidden in one sentence) or "none"
    masked: np.ndarray  # (T, S) (scaled + bias) with -1e9 where mask is False
    temperature: float
    weights: np.ndarray  # (T, S) the model's attention weights of this head
    # steps 8-9
    head_output: np.ndarray  # (T, d_k) weights @ v
    head_outputs: np.ndarray  # (h, T, d_k) every head's output
    concat: np.ndarray  # (T, d_model) the heads side by side
    output: np.ndarray  # (T, d_model) concat W_O + b_O
    # step 10
    post: list[Piece]
    code: dict[str, list[Snippet]] = field(default_factory=dict)
    check: dict[str, float] = field(default_factory=dict)


# -- our own source, read now ------------------------------------------------------------------
def snippet(obj, start: str | None = None, end: str | None = None, comments: bool = True) -> Snippet:
    """The lines of obj's source from the first line containing ``start`` to the first line
    (at or after it) containing ``end`` (just the start line when end is None), with the comment
    lines right above the start. Without start: the whole source."""
    lines, first = inspect.getsourcelines(obj)
    path = Path(inspect.getsourcefile(obj)).resolve()
    try:
        rel = path.relative_to(_ROOT).as_posix()
    except ValueError:
        rel = path.name
    name = getattr(obj, "__qualname__", getattr(obj, "__name__", str(obj)))
    found = True
    i, j = 0, len(lines) - 1
    if start is not None:
        hits = [n for n, line in enumerate(lines) if start in line]
        if not hits:
            found = False
        else:
            i = j = hits[0]
            if end is not None:
                ends = [n for n in range(i, len(lines)) if end in lines[n]]
                if ends:
                    j = ends[0]
                else:
                    found = False
                    i, j = 0, len(lines) - 1
            while comments and found and i > 0 and lines[i - 1].strip().startswith("#"):
                i -= 1
    text = textwrap.dedent("".join(lines[i : j + 1])).rstrip("\n")
    return Snippet(rel, name, first + i, text, found)


def code_for(arch: str, scheme: str, kind: str) -> dict[str, list[Snippet]]:
    """For each step, the snippets of our model code that compute it."""
    MHA, sdpa = attention.MultiHeadAttention, attention.scaled_dot_product_attention
    S = snippet
    if arch == "gpt":
        tokens = [
            S(runner.GPTRunner.prompt_ids, "text, ids, notices = self.ids", "return text, [BOS] + ids"),
            S(tokenizer.Tokenizer.encode),
        ]
        embed = [S(gpt.GPT.forward, "x = self.embedding(ids)", "x = self.dropout(self.position.add_to_embeddings")]
    else:
        tokens = [S(runner.ModelRunner.ids, "ids = self.tokenizer.encode(text)"), S(tokenizer.Tokenizer.encode)]
        if kind != "encoder":
            tokens.append(S(runner.TranslatorRunner.decode_then_read, "out = m.greedy_decode", "read = greedy[0]"))
        embed = [S(transformer.Transformer.embed)]
    if scheme == "sinusoidal":
        embed += [
            S(positional.PositionalEncoding.__init__, "pe = torch.zeros", "pe[:, 1::2]"),
            S(positional.PositionalEncoding.forward, "return x + self.pe"),
        ]
    elif scheme == "learned":
        embed += [S(positional.LearnedPositionalEmbedding.forward, "positions = torch.arange", "return x +")]
    elif scheme == "rope":
        embed += [
            S(positional.RotaryEmbedding.forward),
            S(MHA.forward, "q, k = rope(q, offset), rope(k, offset)", comments=False),
        ]
    elif scheme == "alibi":
        embed += [S(positional.alibi_bias), S(attention.scaled_scores, "if bias is not None", "scores = scores + bias")]

    if arch == "gpt":
        call = [S(gpt.Block.forward, "n = self.norm1(x)", "a, weights = self.attn(n, n, n")]
    elif kind == "encoder":
        call = [S(transformer.EncoderLayer.forward, "a, weights = self.self_attn(x, x, x")]
    elif kind == "decoder":
        call = [S(transformer.DecoderLayer.forward, "a, self_weights = self.self_attn(x, x, x")]
    else:
        call = [S(transformer.DecoderLayer.forward, "# cross-attention", "c, cross_weights = self.cross_attn(")]
    qkv = call + [
        S(
            MHA.forward,
            "q = self.split_heads(self.W_q(Q))",
            "q, k = rope(q, offset), rope(k, offset)" if scheme == "rope" else "v = self.split_heads(self.W_v(V))",
        ),
        S(MHA.split_heads),
    ]
    scaled_scores = attention.scaled_scores
    scores = [S(scaled_scores, "d_k = Q.size(-1)"), S(scaled_scores, "scores = torch.matmul(Q, K.transpose(-2, -1))")]
    if arch == "gpt" or kind == "decoder":
        mask_src = [S(blocks.causal_mask)]
        mask_src += (
            [S(transformer.Transformer.decode, "tgt_mask = padding_mask(")]
            if kind == "decoder" and arch != "gpt"
            else [S(gpt.GPT.forward, "mask = causal_mask(")]
        )
    else:
        mask_src = [S(blocks.padding_mask), S(transformer.Transformer.encode, "src_mask = padding_mask(")]
    mask = [S(scaled_scores, "if bias is not None", "scores = scores.masked_fill(mask == 0, -1e9)")] + mask_src
    if scheme == "alibi":
        mask.append(S(positional.alibi_bias))
    softmax = [
        S(sdpa, "attention_weights = softmax_at("),
        S(attention.softmax_at, "weights = F.softmax", "weights = weights.masked_fill"),
    ]
    weighted = [S(sdpa, "output = torch.matmul(attention_weights, V)")]
    concat = [S(MHA.forward, "concat = self.merge_heads(attn_output)", "output = self.W_o(concat)"), S(MHA.merge_heads)]
    if arch == "gpt":
        ffn = [S(gpt.Block.forward, "h = x + self.dropout(a)", "out = h + self.dropout(f)")]
    elif kind == "encoder":
        ffn = [
            S(
                transformer.EncoderLayer.forward,
                "h = self.norm1(x + self.dropout(a))",
                "out = self.norm2(h + self.dropout(f))",
            )
        ]
    else:
        ffn = [
            S(
                transformer.DecoderLayer.forward,
                "h = self.norm1(x + self.dropout(a))",
                "out = self.norm3(h2 + self.dropout(f))",
            )
        ]
    ffn.append(S(blocks.FeedForward.forward))
    return {
        "tokens": tokens,
        "embed": embed,
        "qkv": qkv,
        "scores": scores[1:],
        "scale": scores,
        "mask": mask,
        "softmax": softmax,
        "weighted": weighted,
        "concat": concat,
        "ffn": ffn,
    }


# -- the numbers -------------------------------------------------------------------------------
def _np(x) -> np.ndarray:
    return x.detach().float().cpu().numpy()


@dataclass(frozen=True)
class Recording:
    """One forward pass on a text: its Trace and the record of every intermediate tensor, as
    numpy (the same nesting as the model's record: record["encoder"][layer]["self_attn"]["q"]).
    Plain data, so a page can cache it and pick any kind, layer and head without a new run."""

    model: str
    trace: Trace
    record: dict


def _to_numpy(node):
    if isinstance(node, torch.Tensor):
        return node.detach().cpu().numpy()
    if isinstance(node, dict):
        return {k: _to_numpy(v) for k, v in node.items()}
    if isinstance(node, (list, tuple)):
        return [_to_numpy(v) for v in node]
    return node


def record(model_runner, text: str, temperature: float = 1.0) -> Recording:
    """Run the model on text once with a record (the translator: greedy translation first, then
    one forward over source and translation, as its trace does). Raises InputError for bad text."""
    rec: dict = {}
    tr = model_runner.trace(text, temperature=temperature, record=rec)
    return Recording(model_runner.name, tr, _to_numpy(rec))


def walk(
    model_runner,
    text: "str | Recording",
    kind: str | None = None,
    layer: int = 0,
    head: int = 0,
    temperature: float = 1.0,
) -> Walkthrough:
    """The numbers of every step for one attention kind, layer (0-based) and head (0-based) of
    model_runner (a model.runner.Runner with has_tutorial_code) on text (or on a Recording of it from record()).

    Raises InputError for an empty text, a model without tutorial code (Hugging Face), an unknown
    kind or a layer / head out of range."""
    if not model_runner.has_tutorial_code:
        raise InputError(
            "no_walkthrough",
            f"{model_runner.name} is a Hugging Face model: the step-by-step view "
            "reads the tutorial code of the shipped models (translator, gpt, gpt-rope, gpt-alibi) "
            "and cannot show it",
            model=model_runner.name,
        )
    config = model_runner.config
    arch, scheme = config.arch, config.positional
    kinds = model_runner.kinds
    kind = kinds[0] if kind is None else kind
    if kind not in kinds:
        raise InputError("kind", f"{model_runner.name} has no {kind!r} attention; it has {', '.join(kinds)}")
    if not 0 <= int(layer) < config.num_layers:
        raise InputError("layer", f"layer {layer} is out of range 0..{config.num_layers - 1}")
    if not 0 <= int(head) < config.num_heads:
        raise InputError("head", f"head {head} is out of range 0..{config.num_heads - 1}")
    layer, head = int(layer), int(head)

    recording = text if isinstance(text, Recording) else record(model_runner, text, temperature)
    if recording.model != model_runner.name:
        raise ValueError(f"a recording of {recording.model} given with the runner of {model_runner.name}")
    tr = recording.trace

    def fn(module, dev):

        def T_(a):  # a recorded array back to a tensor on the model's device, for the module's own layers
            return None if a is None else torch.as_tensor(a).to(dev)

        rec = recording.record
        tok = model_runner.tokenizer
        dec_ids = [int(i) for i in rec["decoder_ids"][0]]
        src_ids = [int(i) for i in rec["encoder_ids"][0]] if "encoder_ids" in rec else dec_ids
        query_ids = src_ids if kind == "encoder" else dec_ids
        key_ids = dec_ids if kind == "decoder" else src_ids
        att = tr.attention[kind]
        if tok.labels(query_ids) != list(att.query_tokens) or tok.labels(key_ids) != list(att.key_tokens):
            raise RuntimeError("the recorded token ids do not match the trace's tokens")

        stack = "encoder" if kind == "encoder" else "decoder"
        lrec = {
            k: (T_(v) if isinstance(v, np.ndarray) else v)
            for k, v in rec[stack][layer].items()
            if not isinstance(v, dict)
        }
        sub = rec[stack][layer]["cross_attn" if kind == "cross" else "self_attn"]
        mrec = {k: (T_(v) if isinstance(v, np.ndarray) else v) for k, v in sub.items()}
        mha = _mha(module, arch, kind, layer)
        d_model, h_count = config.d_model, config.num_heads
        d_k = d_model // h_count

        with torch.no_grad():
            # step 2: the two streams' embeddings and positions
            def stream(ids, recorded_input):
                ids_t = torch.tensor([ids], dtype=torch.long, device=dev)
                emb = module.embedding(ids_t)
                if arch == "transformer":
                    emb = emb * math.sqrt(d_model)
                table = module.position.table
                pos = None if table is None else table.pe[:, : len(ids)].to(emb.dtype)
                return _np(emb[0]), None if pos is None else _np(pos[0].expand(len(ids), d_model)), recorded_input[0]

            q_stream = stream(query_ids, rec["encoder_input" if kind == "encoder" else "decoder_input"])
            k_stream = q_stream if kind != "cross" else stream(key_ids, rec["encoder_input"])

            # step 3: what the attention multiplies
            x = lrec["x"]
            if arch == "gpt":
                X = X_kv = lrec["normed"]
            elif kind == "cross":
                X, X_kv = lrec["after_attn"], T_(rec["encoder"][-1]["out"])
            else:
                X = X_kv = x
            Q_full, K_full, V_full = mha.W_q(X), mha.W_k(X_kv), mha.W_v(X_kv)
            q_split, k_split = mha.split_heads(Q_full), mha.split_heads(K_full)
            q, k, v = mrec["q"], mrec["k"], mrec["v"]
            rope = scheme == "rope"

            # steps 4-6: QK^T, then the model's own scaled_scores without and (as recorded) with bias and mask
            raw = torch.matmul(q, k.transpose(-2, -1))
            scaled = attention.scaled_scores(q, k)
            bias = mrec.get("bias")
            mask_t = mrec.get("mask")
            T, S = q.size(-2), k.size(-2)
            mask_full = (
                torch.ones(T, S, dtype=torch.bool, device=q.device)
                if mask_t is None
                else (mask_t != 0).expand(1, 1, T, S)[0, 0]
            )
            masked = mrec["scores"]
            temp = float(mrec.get("temperature", 1.0))
            predicted = attention.softmax_at(masked, temp, mask_full)  # the model's one softmax at T

            check = {
                "softmax_vs_weights": float((predicted - mrec["weights"]).abs().max()),
                "weights_x_v_vs_head_outputs": float(
                    (torch.matmul(mrec["weights"], v) - mrec["head_outputs"]).abs().max()
                ),
                "concat_vs_heads": float((mha.merge_heads(mrec["head_outputs"]) - mrec["concat"]).abs().max()),
                "w_o_vs_output": float((mha.W_o(mrec["concat"]) - mrec["output"]).abs().max()),
            }
            if not rope:
                check["xw_q_vs_q"] = float((q_split - q).abs().max())
                check["xw_k_vs_k"] = float((k_split - k).abs().max())
            else:
                check["rope_xw_q_vs_q"] = float((module.position.rope(q_split) - q).abs().max())
            check["xw_v_vs_v"] = float((mha.split_heads(V_full) - v).abs().max())

            if mask_t is None or bool(mask_full.all()):
                mask_kind = "padding" if mask_t is not None else "none"
            else:
                mask_kind = "causal"

            post = _post(module, arch, kind, layer, lrec, mrec)

        return Walkthrough(
            model=model_runner.name,
            arch=arch,
            positional=scheme,
            kind=kind,
            layer=layer,
            head=head,
            num_layers=config.num_layers,
            num_heads=h_count,
            d_model=d_model,
            d_k=d_k,
            pre_ln=arch == "gpt",
            input_text=tr.input_text,
            output_text=tr.output_text,
            notices=list(tr.notices),
            query_ids=list(query_ids),
            key_ids=list(key_ids),
            query_tokens=list(att.query_tokens),
            key_tokens=list(att.key_tokens),
            query_embed=q_stream[0],
            query_position=q_stream[1],
            query_input=q_stream[2],
            key_embed=k_stream[0],
            key_position=k_stream[1],
            key_input=k_stream[2],
            layer_input=_np(x[0]),
            X=_np(X[0]),
            X_kv=_np(X_kv[0]),
            Q_full=_np(Q_full[0]),
            K_full=_np(K_full[0]),
            V_full=_np(V_full[0]),
            q=_np(q[0, head]),
            k=_np(k[0, head]),
            v=_np(v[0, head]),
            q_unrotated=_np(q_split[0, head]) if rope else None,
            k_unrotated=_np(k_split[0, head]) if rope else None,
            scores=_np(raw[0, head]),
            scaled=_np(scaled[0, head]),
            bias=None if bias is None else _np(bias.expand(h_count, T, S)[head]),
            mask=_np(mask_full).astype(bool),
            mask_kind=mask_kind,
            masked=_np(masked[0, head]),
            temperature=temp,
            weights=_np(mrec["weights"][0, head]),
            head_output=_np(mrec["head_outputs"][0, head]),
            head_outputs=_np(mrec["head_outputs"][0]),
            concat=_np(mrec["concat"][0]),
            output=_np(mrec["output"][0]),
            post=post,
            code=code_for(arch, scheme, kind),
            check=check,
        )

    return model_runner.run(fn)


def _mha(module, arch, kind, layer):
    if arch == "gpt":
        return module.blocks[layer].attn
    if kind == "encoder":
        return module.encoder_layers[layer].self_attn
    layer_module = module.decoder_layers[layer]
    return layer_module.cross_attn if kind == "cross" else layer_module.self_attn


def _post(module, arch, kind, layer, lrec, mrec) -> list[Piece]:
    """Step 10: what the layer does with the attention's output."""
    a = mrec["output"]
    if arch == "gpt":
        h, f, out = lrec["after_attn"], lrec["ffn"], lrec["out"]
        return [
            Piece("residual", r"h = x + \mathrm{MultiHead}(\mathrm{LN}_1(x))", _np(h[0])),
            Piece("norm_ffn_in", r"\mathrm{LN}_2(h)", _np(module.blocks[layer].norm2(h)[0])),
            Piece(
                "ffn",
                r"\mathrm{FFN}(\mathrm{LN}_2(h)) = \mathrm{ReLU}(\mathrm{LN}_2(h)\,W_1 + b_1)\,W_2 + b_2",
                _np(f[0]),
            ),
            Piece("out", r"\mathrm{out} = h + \mathrm{FFN}(\mathrm{LN}_2(h))", _np(out[0])),
        ]
    x, h, f, out = lrec["x"], lrec["after_attn"], lrec["ffn"], lrec["out"]
    if kind == "encoder":
        return [
            Piece("residual", r"x + \mathrm{MultiHead}(x)", _np((x + a)[0])),
            Piece("norm1", r"h = \mathrm{LayerNorm}(x + \mathrm{MultiHead}(x))", _np(h[0])),
            Piece("ffn", r"\mathrm{FFN}(h) = \mathrm{ReLU}(h W_1 + b_1)\,W_2 + b_2", _np(f[0])),
            Piece("out", r"\mathrm{out} = \mathrm{LayerNorm}(h + \mathrm{FFN}(h))", _np(out[0])),
        ]
    h2 = lrec["after_cross"]
    if kind == "decoder":
        return [
            Piece("residual", r"x + \mathrm{MaskedMultiHead}(x)", _np((x + a)[0])),
            Piece("norm1", r"h = \mathrm{LayerNorm}(x + \mathrm{MaskedMultiHead}(x))", _np(h[0])),
            Piece(
                "cross_sublayer",
                r"h_2 = \mathrm{LayerNorm}(h + \mathrm{CrossAttention}(h, \mathrm{memory}))",
                _np(h2[0]),
            ),
            Piece("ffn", r"\mathrm{FFN}(h_2) = \mathrm{ReLU}(h_2 W_1 + b_1)\,W_2 + b_2", _np(f[0])),
            Piece("out", r"\mathrm{out} = \mathrm{LayerNorm}(h_2 + \mathrm{FFN}(h_2))", _np(out[0])),
        ]
    return [
        Piece("residual", r"h + \mathrm{CrossAttention}(h, \mathrm{memory})", _np((h + a)[0])),
        Piece("norm2", r"h_2 = \mathrm{LayerNorm}(h + \mathrm{CrossAttention}(h, \mathrm{memory}))", _np(h2[0])),
        Piece("ffn", r"\mathrm{FFN}(h_2) = \mathrm{ReLU}(h_2 W_1 + b_1)\,W_2 + b_2", _np(f[0])),
        Piece("out", r"\mathrm{out} = \mathrm{LayerNorm}(h_2 + \mathrm{FFN}(h_2))", _np(out[0])),
    ]


# -- a Hugging Face decoder: one head as its attention function computed it ---------------------------
@dataclass(frozen=True)
class SharedHead:
    """One query head of a Hugging Face decoder, from what its attention function was given
    (HFRunner.attention_inputs): q after RoPE, the key/value head it reads (grouped-query
    attention: shared with ``sharing``), the scores, the causal mask and the weights, with the
    largest difference between softmax of those scores and the model's own weights in ``check``."""

    model: str
    layer: int  # 0-based
    head: int  # 0-based
    num_heads: int
    num_kv_heads: int
    kv_head: int  # 0-based: the key/value head this query head reads
    sharing: list  # 0-based query heads that read the same keys and values (this one included)
    tokens: list
    q: np.ndarray  # (T, d_k)
    k: np.ndarray  # (T, d_k) the shared key head
    v: np.ndarray  # (T, d_k) the shared value head
    scaling: float
    scaled: np.ndarray  # (T, T) q k^T * scaling
    mask: np.ndarray  # (T, T) bool, causal
    weights: np.ndarray  # (T, T) the model's
    output: np.ndarray  # (T, d_k) weights @ v
    check: float


def shared_head(model_runner, text: str, layer: int, head: int) -> SharedHead:
    """One head of a Hugging Face decoder on text, step by step (the step page's view of a model
    without the tutorial's code)."""
    _, ids, _ = model_runner.ids(text)
    got = model_runner.attention_inputs(ids, layer)
    cfg = model_runner.config
    g = cfg.kv_head(head)
    q, k, v = (got[n].astype(np.float64) for n in ("q", "k", "v"))
    T = len(ids)
    mask = np.tril(np.ones((T, T), bool))
    scaled = q[head] @ k[g].T * got["scaling"]
    s = np.where(mask, scaled, -np.inf)
    mine = np.exp(s - s.max(-1, keepdims=True))
    mine /= mine.sum(-1, keepdims=True)
    weights = got["weights"][head].astype(np.float64)
    return SharedHead(
        model_runner.name,
        int(layer),
        int(head),
        cfg.num_heads,
        cfg.num_kv_heads or cfg.num_heads,
        g,
        cfg.sharing(head),
        got["tokens"],
        q[head],
        k[g],
        v[g],
        got["scaling"],
        scaled,
        mask,
        weights,
        weights @ v[g],
        float(np.abs(mine - weights).max()),
    )

"""HFRunner: a Hugging Face model behind the Runner protocol of model/runner.py, so every page can
show it."""

from __future__ import annotations

import contextlib

import numpy as np
import torch

from model.config import AttentionSettings, settings_from
from model.errors import InputError, Notice
from model.hf.hook import CALL, Call, attention_kind, drop_position, layer_index
from model.hf.policy import MAX_TOKENS, POSITION_SUFFIXES, ROTARY_SUFFIXES
from model.hf.sizes import HFConfig, first_of, layer_types_of, positional_of
from model.hf.tokens import HFTokenizer
from model.runner import SamplesText, TracesText, clean_text
from model.trace import KINDS, Attention, Trace
from model.written import follow_ids, next_labels, open_bytes, written_labels


# -- the runner --------------------------------------------------------------------------------------
class HFCache:
    """A Hugging Face decoder's KV cache for HFRunner.read_cached: transformers' DynamicCache and
    how many tokens it holds."""

    def __init__(self, kv):
        self.kv, self.length = kv, 0

    def __len__(self) -> int:
        return self.length


class HFRunner(TracesText, SamplesText):
    """A loaded Hugging Face model with our runners' interface (see the module docstring)."""

    trained = True
    packaged = None  # a real pretrained model from a pip package (model/hf/pretrained.py): its notes

    def __init__(self, name, hf_model, tokenizer: HFTokenizer, device, kind: str, n_params: int = 0, notices=None):
        self.name, self.hf_model, self.tokenizer, self.device, self.kind = name, hf_model, tokenizer, device, kind
        self.notices = list(notices or [])
        cfg = hf_model.config
        enc_layers = first_of(cfg, "num_hidden_layers", "n_layer", "num_layers", "encoder_layers", default=0)
        dec_layers = first_of(cfg, "num_decoder_layers", "decoder_layers", default=enc_layers)
        heads = first_of(cfg, "num_attention_heads", "n_head", "num_heads", "encoder_attention_heads", default=0)
        dec_heads = first_of(cfg, "decoder_attention_heads", default=heads)
        if kind == "translator" and (enc_layers != dec_layers or heads != dec_heads):
            sizes = dict(enc_layers=enc_layers, enc_heads=heads, dec_layers=dec_layers, dec_heads=dec_heads)
            sizes.update(layers=min(enc_layers, dec_layers), heads=min(heads, dec_heads))
            self.notices.append(
                Notice(
                    "hf_stacks_differ",
                    "the encoder has {enc_layers} layers x {enc_heads} heads and the decoder {dec_layers} x "
                    "{dec_heads}: the pages offer the first {layers} x {heads}".format(**sizes),
                    **sizes,
                )
            )
        limit = first_of(cfg, "max_position_embeddings", "n_positions", "max_seq_len", default=None)
        # the positions the model has (a learned table has no row past it): the greedy next pieces
        # of a written character stop there (_greedy_next)
        self._positions = int(limit) if limit else None
        tok_limit = getattr(tokenizer.tok, "model_max_length", None)
        if not limit and isinstance(tok_limit, int) and tok_limit < 1_000_000:
            limit = tok_limit
        self.config = HFConfig(
            arch={"translator": "transformer", "gpt": "gpt", "encoder": "encoder"}[kind],
            model_type=cfg.model_type,
            vocab_size=tokenizer.vocab_size,
            d_model=first_of(cfg, "hidden_size", "n_embd", "d_model", default=0),
            num_heads=min(heads, dec_heads),
            num_layers=min(enc_layers, dec_layers),
            d_ff=first_of(cfg, "intermediate_size", "n_inner", "d_ff", "encoder_ffn_dim", default=0)
            or 4 * first_of(cfg, "hidden_size", "n_embd", "d_model", default=0),
            max_seq_len=min(int(limit), MAX_TOKENS) if limit else MAX_TOKENS,
            positional=positional_of(cfg, hf_model),
            num_parameters=n_params,
            num_kv_heads=min(first_of(cfg, "num_key_value_heads", default=heads) or heads, heads),
            layer_types=layer_types_of(cfg, min(enc_layers, dec_layers)),
            sliding_window=int(getattr(cfg, "sliding_window", 0) or 0) if layer_types_of(cfg, 1) else 0,
        )
        # each attention module's layer index (for temperature_layer), and the positional modules
        self._layers = {}
        self._position_modules = []
        self._kinds = {}
        for mod_name, mod in hf_model.named_modules():
            if type(mod).__name__.endswith("Attention"):
                idx = layer_index(mod_name)
                if idx is not None:
                    self._layers[id(mod)] = idx
                    self._kinds[id(mod)] = attention_kind(mod_name, kind)
            if mod_name.endswith(POSITION_SUFFIXES + ROTARY_SUFFIXES):
                mod.register_forward_hook(drop_position)
                self._position_modules.append(mod_name)
        self.has_mlm_head = hasattr(hf_model, "get_output_embeddings") and hf_model.get_output_embeddings() is not None
        self._mask_id = getattr(tokenizer.tok, "mask_token_id", None)

    # -- capabilities (model/runner.py's Runner protocol) -------------------------------------------
    has_tutorial_code = False  # no tutorial-style modules: the step page cannot show its code

    @property
    def module(self):
        """The nn.Module (for the protocol's run(fn): fn(module, device)); ``hf_model`` too."""
        return self.hf_model

    @property
    def kinds(self) -> tuple[str, ...]:
        return {"translator": KINDS, "gpt": ("decoder",), "encoder": ("encoder",)}[self.kind]

    @property
    def can_continue_text(self) -> bool:
        return self.kind == "gpt"

    @property
    def can_translate(self) -> bool:
        return self.kind == "translator"

    def is_ordinary(self, token_id: int) -> bool:
        return self.tokenizer.is_ordinary(token_id)

    def run(self, fn, notices=None):
        """run(fn) calls fn(module, device) with our modules' convention (module(ids, settings) ->
        (logits, weights)), which a Hugging Face model does not have: InputError("hf_no_run")."""
        raise InputError(
            "hf_no_run",
            f"{self.name} is a Hugging Face model: it runs through trace, trace_ids, "
            "next_token_logits and generate only",
        )

    # -- running ---------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _call(self, settings: AttentionSettings, notices: list[str], keep: dict | None = None):
        call = Call(settings, self._layers, kinds=self._kinds, keep=keep)
        token = CALL.set(call)
        try:
            with torch.no_grad():
                yield call
        except torch.OutOfMemoryError:
            raise InputError(
                "memory", f"{self.device.type.upper()} ran out of memory running {self.name}; try a shorter text"
            ) from None
        finally:
            CALL.reset(token)
        if settings.temperature != 1.0 and call.calls == 0:
            notices.append(
                Notice(
                    "hf_temperature_unused",
                    f"{self.name}: this model's attention does not go through the function the explorer "
                    "wraps, so the attention temperature had no effect",
                )
            )
        if not settings.use_position and call.position_hits == 0:
            notices.append(
                Notice(
                    "hf_positions_kept",
                    f"{self.name}: dropping the positional information is not supported for this model "
                    "family; positions were kept",
                )
            )

    def _tensor(self, ids):
        return torch.tensor([list(ids)], dtype=torch.long, device=self.device)

    def _encode(self, text, room: int):
        """(text, ids with the tokenizer's special tokens, the tokenizer's word ids, notices)."""
        text, notices = clean_text(text)
        tok = self.tokenizer.tok
        enc = tok(text, add_special_tokens=True)
        ids = list(enc["input_ids"])
        if len(ids) > room:
            enc = tok(text, add_special_tokens=True, truncation=True, max_length=room)
            ids = list(enc["input_ids"])
            notices.append(
                Notice(
                    "cut_tokens",
                    f"the text was cut to its first {room} tokens (the explorer reads at most "
                    f"{self.config.max_seq_len} with this model)",
                    n=room,
                    max=self.config.max_seq_len,
                )
            )
            text = self.tokenizer.decode(ids)
        if self.packaged is not None:
            notices += self.packaged.notices_for(text, self.tokenizer)
        words = None
        if getattr(enc, "is_fast", False) or getattr(tok, "is_fast", False):
            try:
                words = enc.word_ids()
            except (ValueError, AttributeError):
                words = None
        return text, ids, words, notices

    def ids(self, text, room=None):
        text, ids, _, notices = self._encode(text, self.config.max_seq_len if room is None else room)
        return text, ids, notices

    def prompt_ids(self, text, room=None):
        """As ids(); an empty text gives the model's start token alone."""
        if text is None or not str(text).strip():
            return "", self._start_ids(), []
        return self.ids(text, room)

    def _written(self, out, ids, s: AttentionSettings | None) -> list[str] | None:
        """The token each decoder row writes (its most likely next token), None without an LM head;
        labelled after the row's text: a byte piece shows the character it belongs to, the model's
        own next pieces where the text does not go on as it wrote (model/written.py). s None: a
        translator's rows (its greedy output is the text: the next rows say the rest)."""
        logits = getattr(out, "logits", None)
        if logits is None:
            return None
        kv = getattr(out, "past_key_values", None)
        extend = None if s is None or kv is None else (lambda p: self._greedy_next(p, s, ids, kv))
        return written_labels(self.tokenizer, ids, logits[0].argmax(-1).tolist(), extend)

    def _greedy_next(self, prefixes, s: AttentionSettings, ids, kv, chunk: int = 16) -> list[int]:
        """The most likely next id after each prefix, under the trace's settings. A prefix is
        some of the traced ``ids`` (whose keys and values the trace's cache ``kv`` holds) and a few
        tokens of its own: only those run, all prefixes in one forward over copies of the cache,
        each masked to its own part of it (a forward costs about the same for 1 token as for 50:
        the weights are read once)."""
        from transformers import DynamicCache

        room = [self._positions is None or len(p) < self._positions for p in prefixes]
        if not all(room):  # a prefix at the model's last position: nothing can follow it (None)
            fits = [p for p, r in zip(prefixes, room) if r]
            got = iter(self._greedy_next(fits, s, ids, kv, chunk) if fits else [])
            return [next(got) if r else None for r in room]
        out = []
        for at in range(0, len(prefixes), chunk):
            part = prefixes[at : at + chunk]
            held = []
            for p in part:
                n = 0
                while n < min(len(p) - 1, len(ids)) and p[n] == ids[n]:
                    n += 1
                held.append(n)
            own = [list(p[n:]) for p, n in zip(part, held)]
            width, T, B = max(map(len, own)), kv.get_seq_length(), len(part)
            batch = self._tensor([]).new_tensor([o + [o[-1]] * (width - len(o)) for o in own])
            positions = torch.tensor([[n + j for j in range(width)] for n in held], device=self.device)
            allowed = torch.zeros(B, 1, width, T + width, dtype=torch.bool, device=self.device)
            for b, n in enumerate(held):
                allowed[b, 0, :, :n] = True
                allowed[b, 0, :, T:] = torch.tril(torch.ones(width, width, dtype=torch.bool))
            cache, dtype = DynamicCache(config=self.hf_model.config), kv.layers[0].keys.dtype
            for layer, kept in enumerate(kv.layers):
                cache.update(kept.keys.expand(B, -1, -1, -1), kept.values.expand(B, -1, -1, -1), layer)
            with self._call(s, []):
                logits = self.hf_model(
                    input_ids=batch,
                    past_key_values=cache,
                    position_ids=positions,
                    # a 4-D mask goes to the attention as it is: added to the scores
                    attention_mask=torch.zeros(allowed.shape, dtype=dtype, device=self.device).masked_fill(
                        ~allowed, torch.finfo(dtype).min
                    ),
                    use_cache=True,
                ).logits
            last = torch.tensor([len(o) - 1 for o in own], device=self.device)
            out += logits[torch.arange(B, device=self.device), last].argmax(-1).tolist()
        return out

    def _attention(self, layers, q_ids, k_ids, mask=None, q_words=None, k_words=None, written=None) -> Attention:
        n = self.config.num_layers
        w = torch.stack([a[0] for a in layers[:n]]).float().cpu().numpy()  # (L, H, Q, K)
        w = w[:, : self.config.num_heads]
        if mask is not None:
            w = np.where(mask, w, 0.0).astype(np.float32)
        tok = self.tokenizer
        return Attention(
            query_tokens=tok.labels(q_ids),
            key_tokens=tok.labels(k_ids),
            weights=w,
            mask=mask,
            query_words=tok.word_ids(q_ids, q_words),
            key_words=tok.word_ids(k_ids, k_words),
            query_word_labels=tok.word_labels(q_ids, q_words),
            key_word_labels=tok.word_labels(k_ids, k_words),
            query_written=written,
        )

    @staticmethod
    def _record(record, attention: dict[str, Attention], settings: AttentionSettings):
        """Fill ``record`` as our models do for model/experiments.attention_scores: per stack and
        layer, what softmax was given. The eager function does not hand its scores out, so they are
        rebuilt from the weights: T * log(weights) equals the scores before temperature up to a
        constant per row, which softmax (at any temperature) and the entropy curves cannot see.
        They go in as "scores" (no q or k: the record holds only what is known), the mask as it is."""
        if record is None:
            return
        for kind, att in attention.items():
            stack = "encoder" if kind == "encoder" else "decoder"
            sub = "cross_attn" if kind == "cross" else "self_attn"
            layers = record.setdefault(stack, [])
            for layer in range(att.num_layers):
                while len(layers) <= layer:
                    layers.append({})
                w = torch.from_numpy(att.weights[layer]).double()  # (H, Q, K)
                scores = torch.log(w.clamp_min(1e-45)) * settings.temperature_at(layer)
                mask = None if att.mask is None else torch.from_numpy(att.mask)
                if mask is not None:
                    scores = scores.masked_fill(~mask, 0.0)
                layers[layer][sub] = {"scores": scores, "mask": mask}

    def _trace(self, text, direction, s: AttentionSettings, record):
        if self.kind == "translator":
            return self._trace_seq2seq(text, s, record)
        text, ids, words, notices = self._encode(text, self.config.max_seq_len)
        if direction is not None:
            notices.append(
                Notice(
                    "hf_direction_ignored",
                    f"{self.name} is not a translator: the direction {direction!r} was ignored",
                    direction=direction,
                )
            )
        with self._call(s, notices):
            out = self.hf_model(
                input_ids=self._tensor(ids),
                attention_mask=torch.ones_like(self._tensor(ids)),
                output_attentions=True,
                use_cache=self.kind == "gpt",  # its keys and values label the rows' written pieces
            )
        if self.kind == "gpt":
            causal = np.tril(np.ones((len(ids), len(ids)), dtype=bool))
            attention = {
                "decoder": self._attention(out.attentions, ids, ids, causal, words, words, self._written(out, ids, s))
            }
        else:
            attention = {"encoder": self._attention(out.attentions, ids, ids, None, words, words)}
        self._record(record, attention, s)
        return text, "", attention, notices

    # -- decoder-only ----------------------------------------------------------------------------
    def trace_ids(self, ids, **settings) -> Trace:
        """A trace of a given id sequence (a generation's output, an induction probe)."""
        if self.kind == "translator":
            raise InputError("hf_trace_ids", f"{self.name} is an encoder-decoder model: trace a text instead")
        s = settings_from(**settings)
        ids = [int(i) for i in ids][: self.config.max_seq_len]
        notices: list[str] = []
        with self._call(s, notices):
            out = self.hf_model(input_ids=self._tensor(ids), output_attentions=True, use_cache=self.kind == "gpt")
        kind = "decoder" if self.kind == "gpt" else "encoder"
        mask = np.tril(np.ones((len(ids), len(ids)), dtype=bool)) if self.kind == "gpt" else None
        att = self._attention(
            out.attentions, ids, ids, mask, written=self._written(out, ids, s) if self.kind == "gpt" else None
        )
        return Trace(self.name, self.tokenizer.decode(ids), "", {kind: att}, self.notices + notices)

    @property
    def has_kv_cache(self) -> bool:
        return self.kind == "gpt"

    def new_cache(self, keep=None) -> "HFCache":
        """An empty KV cache for read_cached: transformers' own DynamicCache (every row kept; the
        cost page's cache policies, keep=, are our GPTs')."""
        if self.kind != "gpt" or keep is not None:
            raise InputError(
                "model", f"{self.name} has no KV cache view: the cost page's cache reads our GPTs", model=self.name
            )
        from transformers import DynamicCache

        return HFCache(DynamicCache(config=self.hf_model.config))

    def read_cached(self, ids, cache: "HFCache", **settings):
        """Read ids after the tokens cache holds, in one forward that reuses their keys and values
        (past_key_values), as our GPT's KV cache does: (logits (T, vocab) on the CPU, attention
        (layers, heads, T, every row read so far) numpy)."""
        if not isinstance(cache, HFCache):
            self.new_cache(keep=object())  # the refusal's message
        s = settings_from(**settings)
        ids = [int(i) for i in ids]
        with self._call(s, []):
            out = self.hf_model(
                input_ids=self._tensor(ids), past_key_values=cache.kv, use_cache=True, output_attentions=True
            )
        cache.length += len(ids)
        w = torch.stack([a[0] for a in out.attentions[: self.config.num_layers]])[:, : self.config.num_heads]
        return out.logits[0, :, : self.tokenizer.vocab_size].float().cpu(), w.float().cpu().numpy()

    def attention_inputs(self, ids, layer: int, **settings) -> dict:
        """What one layer's attention function was given on ids (the step page): q (heads, T, d_k)
        after RoPE, k and v (key/value heads, T, d_k) as the model holds them (shared by the query
        heads config.sharing(h) names), the scaling, and the weights (heads, T, T) it returned."""
        if self.kind == "translator":
            raise InputError("hf_trace_ids", f"{self.name} is an encoder-decoder model: trace a text instead")
        s = settings_from(**settings)
        ids = [int(i) for i in ids][: self.config.max_seq_len]
        if not 0 <= int(layer) < self.config.num_layers:
            raise InputError("layer", f"{self.name} has layers 1 to {self.config.num_layers}", n=self.config.num_layers)
        with self._call(s, [], keep={int(layer): None}) as call:
            out = self.hf_model(input_ids=self._tensor(ids), output_attentions=True)
        got = call.keep[int(layer)]
        if got is None:
            raise InputError(
                "no_walkthrough", f"{self.name}: its attention does not go through the function the explorer wraps"
            )
        weights = out.attentions[int(layer)][0, : self.config.num_heads].float().cpu().numpy()
        return {
            "q": got["q"][0].numpy(),
            "k": got["k"][0].numpy(),
            "v": got["v"][0].numpy(),
            "scaling": got["scaling"],
            "weights": weights,
            "tokens": self.tokenizer.labels(ids),
        }

    def next_token_logits(self, ids, **settings):
        """(vocab,) logits for the token after ids and the last position's attention (L, H, T).
        An encoder with a masked-LM head predicts a [MASK] put after the text (before a final
        [SEP]); one without such a head has no prediction: flat logits (see docs/hf.md)."""
        s = settings_from(**settings)
        ids = [int(i) for i in ids]
        at = len(ids) - 1
        if self.kind == "encoder" and self._mask_id is not None:
            sep = getattr(self.tokenizer.tok, "sep_token_id", None)
            at = len(ids) - 1 if ids and ids[-1] == sep else len(ids)
            ids = ids[:at] + [self._mask_id] + ids[at:]
        with self._call(s, []):
            out = self.hf_model(input_ids=self._tensor(ids), output_attentions=True)
        attn = torch.stack([a[0] for a in out.attentions[: self.config.num_layers]])[:, : self.config.num_heads, at]
        logits = getattr(out, "logits", None)
        if logits is None or (self.kind == "encoder" and not self.has_mlm_head):
            logits = torch.zeros(1, len(ids), self.tokenizer.vocab_size)
        return logits[0, at, : self.tokenizer.vocab_size].float().cpu(), attn.float().cpu().numpy()

    def next_labels(self, ids, candidates, **settings) -> list[str]:
        """Labels of candidate next tokens after ids (a top-k list): a piece of a character shows
        that character, one that opens it with the model's own next pieces (model/written.py)."""
        s = settings_from(**settings)
        ids, tok = [int(i) for i in ids], self.tokenizer
        if self.kind != "gpt" or not ids or not any(open_bytes(tok, [*ids[-3:], int(c)]) for c in candidates):
            return next_labels(tok, ids, candidates)
        with self._call(s, []):
            kv = self.hf_model(input_ids=self._tensor(ids), use_cache=True).past_key_values
        return next_labels(
            tok, ids, candidates, follow_ids(tok, ids, candidates, lambda p: self._greedy_next(p, s, ids, kv))
        )

    def _start_ids(self) -> list[int]:
        tok = self.tokenizer.tok
        cfg = self.hf_model.config
        for i in (tok.bos_token_id, getattr(cfg, "bos_token_id", None), tok.eos_token_id):
            if isinstance(i, int):
                return [i]
        raise InputError("empty", f"{self.name} has no start token: type a prompt")

    # generate(): SamplesText (model/runner.py), the same sampling as GPTRunner
    def _can_generate(self) -> None:
        if self.kind != "gpt":
            raise InputError("hf_generate", f"{self.name} is not a decoder-only model; generate needs one (e.g. GPT-2)")

    def _generation_prompt(self, prompt):
        return (*self.prompt_ids(prompt, self.config.max_seq_len - 1), self.tokenizer.tok.eos_token_id)

    def nll(self, texts) -> np.ndarray:
        """-log p(text) in nats of a decoder's tokens after its start token, each text on its own."""
        if self.kind != "gpt":
            raise InputError("hf_nll", f"{self.name} is not a decoder-only model; nll needs one (e.g. GPT-2)")
        out = []
        for t in texts:
            ids = self._start_ids() + self.tokenizer.encode(t)
            with torch.no_grad():
                logits = self.hf_model(input_ids=self._tensor(ids)).logits[0, :-1].float()
            logp = torch.log_softmax(logits, -1)
            out.append(-logp.gather(1, torch.tensor([ids[1:]], device=logp.device).T).sum().item())
        return np.array(out)

    # -- encoder-decoder -------------------------------------------------------------------------
    def _greedy(self, src_ids, s: AttentionSettings, notices) -> list[int]:
        """Greedy output ids, the decoder's start token first, without the final end token."""
        cfg = self.hf_model.config
        limit = min(self.config.max_seq_len, 2 * len(src_ids) + 16)
        with self._call(s, notices):
            out = self.hf_model.generate(
                input_ids=self._tensor(src_ids),
                attention_mask=torch.ones_like(self._tensor(src_ids)),
                max_new_tokens=limit,
                do_sample=False,
                num_beams=1,
                # a switched-off head's mean or an edited row needs every position
                use_cache=s.intervention is None,
            )
        seq = out[0].tolist()
        eos = {i for i in (self.tokenizer.tok.eos_token_id, getattr(cfg, "eos_token_id", None)) if isinstance(i, int)}
        pad = self.tokenizer.tok.pad_token_id
        body = []
        for i in seq[1:]:
            if i in eos:
                break
            if i != pad:
                body.append(i)
        return seq[:1] + body

    def translate(self, texts, direction=None, **settings) -> list[str]:
        """Greedy output for each text (a Hugging Face translator, T5 with its task prefix, ...)."""
        if self.kind != "translator":
            raise InputError("hf_translate", f"{self.name} is not an encoder-decoder model")
        s = settings_from(**settings)
        out = []
        for t in texts:
            _, src, _, _ = self._encode(t, self.config.max_seq_len)
            out.append(self.tokenizer.decode(self._greedy(src, s, [])[1:]))
        return out

    def _trace_seq2seq(self, text, s: AttentionSettings, record):
        text, src, words, notices = self._encode(text, self.config.max_seq_len)
        tgt = self._greedy(src, s, notices)
        with self._call(s, []):
            out = self.hf_model(
                input_ids=self._tensor(src),
                attention_mask=torch.ones_like(self._tensor(src)),
                decoder_input_ids=self._tensor(tgt),
                output_attentions=True,
            )
        causal = np.tril(np.ones((len(tgt), len(tgt)), dtype=bool))
        attention = {
            "encoder": self._attention(out.encoder_attentions, src, src, None, words, words),
            "decoder": self._attention(out.decoder_attentions, tgt, tgt, causal, written=self._written(out, tgt, None)),
            "cross": self._attention(
                out.cross_attentions, tgt, src, None, None, words, written=self._written(out, tgt, None)
            ),
        }
        self._record(record, attention, s)
        return text, self.tokenizer.decode(tgt[1:]), attention, notices

    def __repr__(self):
        c = self.config
        return (
            f"HFRunner({self.name!r}, kind={self.kind!r}, {c.model_type}, {c.num_layers} layers x "
            f"{c.num_heads} heads, {c.num_parameters / 1e6:.1f}M parameters, {self.device.type})"
        )

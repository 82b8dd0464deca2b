"""Running a model on a user's text: tokens in, a Trace (and translations, generations) out.

A Runner wraps one nn.Module with its tokenizer and device. It is shared by every session of the
app, so nothing here keeps per-call state: each call builds its tensors, runs under no_grad and
returns numpy on the CPU.
"""
from __future__ import annotations

import copy
import re
import unicodedata
from dataclasses import dataclass

import numpy as np
import torch

from . import corpus
from .blocks import sliding_window_mask
from .config import AttentionSettings, ModelConfig
from .errors import InputError, Notice
from .gpt import Sampling, sampling_distribution
from .tokenizer import BOS, EOS, PAD, TO_EN, TO_ZH, Tokenizer
from .trace import Attention, Trace

MAX_CHARS = 2000  # longer text is cut before tokenizing: no sentence a class types is longer
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def clean_text(text) -> tuple[str, list[str]]:
    """Validate and tidy user text. Returns (text, notices); raises InputError when nothing is left."""
    if text is None or not isinstance(text, str):
        raise InputError("empty", "the text is empty: type a sentence")
    notices = []
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS]
        notices.append(Notice("cut_chars", f"the text was cut to its first {MAX_CHARS} characters", n=MAX_CHARS))
    # control characters (not tabs or newlines) carry nothing a reader can see
    kept = "".join(ch for ch in text if not (unicodedata.category(ch) == "Cc" and ch not in "\t\n"))
    if kept != text:
        notices.append(Notice("control_removed", "control characters were removed from the text"))
    text = " ".join(kept.split())
    if not text:
        raise InputError("empty", "the text is empty: type a sentence")
    return text, notices


def settings_from(temperature=1.0, temperature_layer=None, use_position=True) -> AttentionSettings:
    try:
        return AttentionSettings(float(temperature), temperature_layer, bool(use_position))
    except (TypeError, ValueError) as e:
        raise InputError("temperature", str(e)) from None


@dataclass(frozen=True)
class Step:
    """One generation step: the distribution the next token was drawn from, and what the newest
    token attended to while producing it."""
    token_id: int
    token: str
    probs: np.ndarray        # (vocab,) after sampling temperature, top-k, top-p
    raw_probs: np.ndarray    # (vocab,) at sampling temperature 1, before any cut
    kept: np.ndarray         # (vocab,) bool: tokens top-k / top-p left in
    attention: np.ndarray    # (layers, heads, keys): the last position's row


@dataclass(frozen=True)
class Generation:
    prompt: str
    text: str                # prompt + generated
    ids: list[int]
    steps: list[Step]
    notices: list[str]


def sample_steps(runner, ids: list[int], max_new_tokens: int, sampling: Sampling, seed: int,
                 attention_temperature: float, eos: int | None, notices: list[str]):
    """Sample up to max_new_tokens after ids, one at a time, from runner.next_token_logits.
    Returns (ids, steps); every step keeps its distribution and the newest token's attention."""
    gen = torch.Generator().manual_seed(int(seed))
    steps = []
    for _ in range(max(0, int(max_new_tokens))):
        if len(ids) >= runner.config.max_seq_len:
            notices.append(Notice("stopped_max", f"stopped at this model's maximum length of {runner.config.max_seq_len} tokens",
                                  n=runner.config.max_seq_len))
            break
        logits, attn = runner.next_token_logits(ids, temperature=attention_temperature)
        probs, kept = sampling_distribution(logits, sampling)
        nxt = int(torch.multinomial(probs, 1, generator=gen))
        steps.append(Step(nxt, runner.tokenizer.labels([nxt])[0], probs.numpy(),
                          torch.softmax(logits, -1).numpy(), kept.numpy(), attn))
        ids = ids + [nxt]
        if eos is not None and nxt == eos:
            break
    return ids, steps


class Runner:
    kind = ""

    def __init__(self, name: str, module: torch.nn.Module, tokenizer: Tokenizer, device: torch.device,
                 trained: bool = True, notices: list[str] | None = None):
        self.name, self.module, self.tokenizer, self.device = name, module.eval(), tokenizer, device
        self.config: ModelConfig = module.config
        self.trained = trained
        self.notices = list(notices or [])
        self._cpu_copy = None

    # -- helpers shared by both kinds --------------------------------------------------------
    def _ids(self, text, room: int) -> tuple[str, list[int], list[str]]:
        text, notices = clean_text(text)
        ids = self.tokenizer.encode(text)
        if len(ids) > room:
            ids = ids[:room]
            notices.append(Notice("cut_tokens", f"the text was cut to its first {room} tokens (this model "
                                  f"reads at most {self.config.max_seq_len})", n=room, max=self.config.max_seq_len))
            text = self.tokenizer.decode(ids)
        unseen = corpus.unknown_words(text)
        if unseen:
            words = ", ".join(unseen[:12])
            notices.append(Notice("unseen_words", "the models never saw these words in training: " + words,
                                  words=words))
        return text, ids, notices

    def _run(self, fn, notices: list[str]):
        """Run fn(module, device); if the GPU runs out of memory, run it again on the CPU."""
        try:
            with torch.no_grad():
                return fn(self.module, self.device)
        except torch.OutOfMemoryError:
            if self.device.type == "cpu":
                raise
            if self._cpu_copy is None:
                self._cpu_copy = copy.deepcopy(self.module).cpu().eval()
            notices.append(Notice("oom_cpu", f"{self.device.type.upper()} ran out of memory; this run used the CPU",
                                  device=self.device.type.upper()))
            with torch.no_grad():
                return fn(self._cpu_copy, torch.device("cpu"))

    def _attention(self, weights, query_ids, key_ids, mask) -> Attention:
        tok = self.tokenizer
        return Attention(query_tokens=tok.labels(query_ids), key_tokens=tok.labels(key_ids),
                         weights=weights[:, 0].float().cpu().numpy(),
                         mask=None if mask is None else mask.cpu().numpy().astype(bool),
                         query_words=tok.word_ids(query_ids), key_words=tok.word_ids(key_ids),
                         query_word_labels=tok.word_labels(query_ids), key_word_labels=tok.word_labels(key_ids))

    def _tensor(self, ids, device):
        return torch.tensor([ids], dtype=torch.long, device=device)


class TranslatorRunner(Runner):
    """English -> Chinese and Chinese -> English with one encoder-decoder; the decoder's first
    token (<2zh> or <2en>) says which way."""
    kind = "translator"

    @staticmethod
    def direction(text: str) -> str:
        return "zh-en" if _CJK.search(text) else "en-zh"

    def _start(self, direction):
        if direction not in ("en-zh", "zh-en"):
            raise InputError("direction", f"unknown direction {direction!r}; use en-zh or zh-en")
        return TO_ZH if direction == "en-zh" else TO_EN

    def translate(self, texts, direction=None, **settings) -> list[str]:
        """Greedy translation of a batch of texts (used by evaluate and the temperature page)."""
        s = settings_from(**settings)
        rows = [self._ids(t, self.config.max_seq_len)[1] for t in texts]
        starts = [self._start(direction or self.direction(t)) for t in texts]
        width = max(len(r) for r in rows)

        def fn(m, dev):
            src = torch.full((len(rows), width), PAD, dtype=torch.long, device=dev)
            for i, r in enumerate(rows):
                src[i, :len(r)] = torch.tensor(r)
            out = m.greedy_decode(src, torch.tensor(starts, device=dev), EOS, self.config.max_seq_len, s)
            return out.cpu().tolist()
        return [self._decode_output(row) for row in self._run(fn, [])]

    def _decode_output(self, row):
        body = row[1:]
        if EOS in body:
            body = body[:body.index(EOS)]
        return self.tokenizer.decode([i for i in body if i != PAD])

    def trace(self, text, direction=None, temperature=1.0, temperature_layer=None, use_position=True,
              record=None) -> Trace:
        s = settings_from(temperature, temperature_layer, use_position)
        text, src_ids, notices = self._ids(text, self.config.max_seq_len)
        start = self._start(direction or self.direction(text))

        def fn(m, dev):
            src = self._tensor(src_ids, dev)
            out = m.greedy_decode(src, torch.tensor([start], device=dev), EOS, self.config.max_seq_len, s)
            tgt_ids = out[0].tolist()
            # the decoder's queries are what it reads: the start token and every token it wrote
            # (the final </s> is written but never read)
            if EOS in tgt_ids[1:]:
                tgt_ids = tgt_ids[:tgt_ids.index(EOS, 1)]
            _, weights = m(src, self._tensor(tgt_ids, dev), s, record)
            return tgt_ids, weights
        tgt_ids, w = self._run(fn, notices)
        T = len(tgt_ids)
        causal = np.tril(np.ones((T, T), dtype=bool))
        attention = {
            "encoder": self._attention(w["encoder"], src_ids, src_ids, None),
            "decoder": self._attention(w["decoder"], tgt_ids, tgt_ids, torch.from_numpy(causal)),
            "cross": self._attention(w["cross"], tgt_ids, src_ids, None),
        }
        return Trace(self.name, text, self.tokenizer.decode(tgt_ids[1:]), attention,
                     self.notices + notices)


class GPTRunner(Runner):
    """A decoder-only language model: the text is read after a <s> token, left to right."""
    kind = "gpt"

    def _prompt_ids(self, text, room):
        text, ids, notices = self._ids(text, room)
        return text, [BOS] + ids, notices

    def trace(self, text, temperature=1.0, temperature_layer=None, use_position=True, record=None) -> Trace:
        s = settings_from(temperature, temperature_layer, use_position)
        text, ids, notices = self._prompt_ids(text, self.config.max_seq_len - 1)
        w = self._run(lambda m, dev: m(self._tensor(ids, dev), s, record)[1], notices)
        causal = sliding_window_mask(len(ids), self.config.window)[0, 0]   # window 0: causal
        return Trace(self.name, text, "", {"decoder": self._attention(w["decoder"], ids, ids, causal)},
                     self.notices + notices)

    def trace_ids(self, ids: list[int], **settings) -> Trace:
        """A trace of a given id sequence (a generation's whole output, an induction probe)."""
        s = settings_from(**settings)
        ids = ids[: self.config.max_seq_len]
        w = self._run(lambda m, dev: m(self._tensor(ids, dev), s)[1], [])
        causal = sliding_window_mask(len(ids), self.config.window)[0, 0]   # window 0: causal
        return Trace(self.name, self.tokenizer.decode(ids), "",
                     {"decoder": self._attention(w["decoder"], ids, ids, causal)}, list(self.notices))

    def next_token_logits(self, ids: list[int], **settings):
        """(vocab,) logits for the token after ids, and the last position's attention (L, H, T)."""
        s = settings_from(**settings)
        logits, w = self._run(lambda m, dev: m(self._tensor(ids, dev), s), [])
        return logits[0, -1].float().cpu(), w["decoder"][:, 0, :, -1].float().cpu().numpy()

    def generate(self, prompt, max_new_tokens=20, temperature=1.0, top_k=None, top_p=None, seed=0,
                 attention_temperature=1.0, stop_at_eos=True) -> Generation:
        try:
            sampling = Sampling(float(temperature), top_k, top_p)
        except (TypeError, ValueError) as e:
            raise InputError("sampling", str(e)) from None
        if prompt is None or not str(prompt).strip():
            text, ids, notices = "", [BOS], []   # an empty prompt: the model starts from <s> alone
        else:
            text, ids, notices = self._prompt_ids(prompt, self.config.max_seq_len - 1)
        ids, steps = sample_steps(self, ids, max_new_tokens, sampling, seed, attention_temperature,
                                  EOS if stop_at_eos else None, notices)
        return Generation(text, self.tokenizer.decode(ids), ids, steps, self.notices + notices)

    def nll(self, texts: list[str]) -> np.ndarray:
        """-log p(text) in nats for each text, scored from <s> through </s>, each on its own."""
        out = []
        for t in texts:
            ids = [BOS] + self.tokenizer.encode(t) + [EOS]

            def fn(m, dev):
                logits, _ = m(self._tensor(ids, dev))
                logp = torch.log_softmax(logits[0, :-1].float(), -1)
                return -logp.gather(1, self._tensor(ids[1:], dev).T).sum().item()
            out.append(self._run(fn, []))
        return np.array(out)

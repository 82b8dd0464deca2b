"""Running a model on a user's text: tokens in, a Trace (and translations, generations) out.

``Runner`` (a typing.Protocol) is the contract every model of the explorer keeps: our own
(TranslatorRunner, GPTRunner below) and Hugging Face's (model/hf/'s HFRunner). Pages, ui/ and
analysis/experiments.py use only its public members. A runner is shared by every session of the app,
so nothing here keeps per-call state: each call builds its tensors, runs under no_grad and returns
numpy on the CPU.
"""

from __future__ import annotations

import copy
import dataclasses
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
import torch

from data import corpus
from model import intervention
from model.blocks import sliding_window_mask
from model.config import AttentionSettings, ModelConfig, settings_from
from model.errors import InputError, Notice
from model.gpt import KVCache, Sampling, sampling_distribution
from model.tokenizer import BOS, EOS, PAD, TO_EN, TO_ZH, Tokenizer
from model.trace import KINDS, Attention, Trace
from model.written import follow_ids, next_labels, written_labels

MAX_CHARS = 2000  # longer text is cut before tokenizing: no sentence a class types is longer


def clean_text(text) -> tuple[str, list[str]]:
    """Validate and tidy user text. Returns (text, notices); raises InputError when nothing is left."""
    if text is None or not isinstance(text, str):
        raise InputError("empty", "the text is empty: type a sentence")
    notices = []
    if len(text) > MAX_CHARS:
        text = text[:MAX_CHARS]
        notices.append(Notice("cut_chars", f"the text was cut to its first {MAX_CHARS} characters", n=MAX_CHARS))
    # control characters (not tabs or newlines) carry nothing a reader can see; a lone surrogate
    # (invalid UTF-8 in a link) cannot even be encoded
    kept = "".join(
        ch
        for ch in text
        if not (unicodedata.category(ch) == "Cc" and ch not in "\t\n" or unicodedata.category(ch) == "Cs")
    )
    if kept != text:
        notices.append(Notice("control_removed", "control characters were removed from the text"))
    text = " ".join(kept.split())
    if not has_ordinary(text):  # nothing but zero-width, format or replacement characters
        raise InputError("empty", "the text is empty: type a sentence")
    return text, notices


_NOT_ORDINARY = ("Cc", "Cf", "Cs", "Cn", "Zs", "Zl", "Zp")


def has_ordinary(text: str) -> bool:
    """Whether text has a character that makes a token: not only spaces, format characters (U+200B,
    U+FEFF, U+2060), control characters, unassigned code points or U+FFFD (what an undecodable byte
    becomes), which the tokenizers drop or which stand for nothing the reader wrote."""
    return any(ch != "\ufffd" and unicodedata.category(ch) not in _NOT_ORDINARY for ch in text)


@dataclass(frozen=True)
class Step:
    """One generation step: the distribution the next token was drawn from, and what the newest
    token attended to while producing it."""

    token_id: int
    token: str
    probs: np.ndarray  # (vocab,) after sampling temperature, top-k, top-p
    raw_probs: np.ndarray  # (vocab,) at sampling temperature 1, before any cut
    kept: np.ndarray  # (vocab,) bool: tokens top-k / top-p left in
    attention: np.ndarray  # (layers, heads, keys): the last position's row


@dataclass(frozen=True)
class Generation:
    prompt: str
    text: str  # prompt + generated
    ids: list[int]
    steps: list[Step]
    notices: list[str]
    end: int | None = None  # the model's end token, where it stops (</s> ours, <|endoftext|> GPT-2's)


def sample_steps(
    runner,
    ids: list[int],
    max_new_tokens: int,
    sampling: Sampling,
    seed: int,
    attention_temperature: float,
    eos: int | None,
    notices: list[str],
):
    """Sample up to max_new_tokens after ids, one at a time (through the KV cache where the runner
    has one, else from runner.next_token_logits).
    Returns (ids, steps); every step keeps its distribution and the newest token's attention."""
    gen = torch.Generator().manual_seed(int(seed))
    steps = []
    # a decoder with a KV cache (our GPTs: model/gpt.py; a Hugging Face decoder: its DynamicCache)
    # reads only each new token; the others re-read the whole sequence for every token
    cache = runner.new_cache() if getattr(runner, "has_kv_cache", False) else None
    unread = list(ids)
    for _ in range(max(0, int(max_new_tokens))):
        if len(ids) >= runner.config.max_seq_len:
            notices.append(
                Notice(
                    "stopped_max",
                    f"stopped at this model's maximum length of {runner.config.max_seq_len} tokens",
                    n=runner.config.max_seq_len,
                )
            )
            break
        if cache is not None:
            all_logits, weights = runner.read_cached(unread, cache, temperature=attention_temperature)
            logits, attn = all_logits[-1], weights[:, :, -1]
        else:
            logits, attn = runner.next_token_logits(ids, temperature=attention_temperature)
        probs, kept = sampling_distribution(logits, sampling)
        nxt = int(torch.multinomial(probs, 1, generator=gen))
        steps.append(
            Step(
                nxt,
                runner.tokenizer.labels([nxt])[0],
                probs.numpy(),
                torch.softmax(logits, -1).numpy(),
                kept.numpy(),
                attn,
            )
        )
        ids, unread = ids + [nxt], [nxt]
        if eos is not None and nxt == eos:
            break
    # each drawn token labelled where the text put it: a byte piece shows the character the
    # draws that followed made of it (model/written.py), as the text's own labels do
    labels = runner.tokenizer.labels(ids)[len(ids) - len(steps) :]
    return ids, [dataclasses.replace(step, token=label) for step, label in zip(steps, labels)]


@runtime_checkable
class Runner(Protocol):
    """What pages, ui/ and analysis/experiments.py may rely on in any runner.

    Capabilities say which of the optional methods work: ``can_continue_text`` (a decoder-only
    model: generate, next_token_logits, trace_ids, nll; our GPTs also new_cache and read_cached), ``can_translate`` (an encoder-decoder:
    translate), ``has_tutorial_code`` (our own modules: the step page's walkthrough and
    experiments that read the module, e.g. learned positions). A method a runner cannot do raises
    InputError("model").
    """

    name: str
    kind: str  # "translator" (encoder-decoder), "gpt" (decoder-only), "encoder"
    config: Any  # num_layers, num_heads, d_model, max_seq_len, arch, positional, ...
    tokenizer: Any  # encode, decode, labels, word_ids, word_labels, vocab_size
    device: torch.device
    notices: list[str]  # said once per trace (device fallback, random weights, ...)
    trained: bool

    @property
    def kinds(self) -> tuple[str, ...]:
        """The attention kinds its traces hold, in KINDS order."""

    @property
    def can_continue_text(self) -> bool: ...

    @property
    def can_translate(self) -> bool: ...

    @property
    def has_tutorial_code(self) -> bool: ...

    @property
    def has_kv_cache(self) -> bool:
        """new_cache / read_cached work: our GPTs (model/gpt.py's KVCache) and Hugging Face
        decoders (transformers' DynamicCache); generate() then reads one new token per step."""

    def ids(self, text: str, room: int | None = None) -> tuple[str, list[int], list[str]]:
        """(cleaned text, the ids the model reads for it (a translator: its encoder), notices);
        cut to ``room`` tokens (default: all the model reads). InputError for empty text."""

    def prompt_ids(self, text: str, room: int | None = None) -> tuple[str, list[int], list[str]]:
        """As ids(), with what the model reads before a text it continues (our GPTs: <s>)."""

    def run(self, fn: Callable[[Any, torch.device], Any], notices: list[str] | None = None) -> Any:
        """fn(module, device) under no_grad, with our modules' call convention (module(ids, settings)
        -> (logits, weights)); notices gets what the reader should be told. Runners without
        has_tutorial_code raise InputError("model")."""

    def is_ordinary(self, token_id: int) -> bool:
        """True for a token that stands for text: not a special token, not a byte piece."""

    def trace(
        self,
        text: str,
        direction: str | None = None,
        temperature: float = 1.0,
        temperature_layer: int | None = None,
        use_position: bool = True,
        record: dict | None = None,
        ablate=None,
        how: str = "zero",
        edit=None,
    ) -> Trace:
        """ablate / how / edit: heads switched off and rows edited (model/intervention.py)."""

    def trace_ids(self, ids: list[int], **settings) -> Trace: ...

    def next_token_logits(self, ids: list[int], **settings) -> tuple[torch.Tensor, np.ndarray]: ...

    def next_labels(self, ids: list[int], candidates: list[int], **settings) -> list[str]:
        """Labels of candidate next tokens after ids (a top-k list), each read where it would
        stand: a byte piece shows its character (model/written.py)."""

    def new_cache(self, keep=None) -> Any:
        """An empty KV cache (our GPTs: model/gpt.py's KVCache) for read_cached."""

    def read_cached(self, ids: list[int], cache: Any, **settings) -> tuple[torch.Tensor, np.ndarray]:
        """Read ids after what cache holds, one forward with the cache: (logits (T, vocab), attention
        (layers, heads, T, cached rows)). Our GPTs only; others raise InputError("model")."""

    def generate(
        self,
        prompt: str,
        max_new_tokens: int = 20,
        temperature: float = 1.0,
        top_k: int | None = None,
        top_p: float | None = None,
        seed: int = 0,
        attention_temperature: float = 1.0,
        stop_at_eos: bool = True,
    ) -> "Generation": ...

    def translate(self, texts: list[str], direction: str | None = None, **settings) -> list[str]: ...

    def nll(self, texts: list[str]) -> np.ndarray: ...


class TracesText:
    """trace() for every runner: it builds the interventions and settings, calls the runner's
    _trace(text, direction, settings, record) -> (text, output, attention, notices), then checks
    the edited rows against the attention it got."""

    def trace(
        self,
        text,
        direction=None,
        temperature=1.0,
        temperature_layer=None,
        use_position=True,
        record=None,
        ablate=None,
        how="zero",
        edit=None,
        target=None,
    ) -> Trace:
        """ablate / how / edit: heads switched off and rows edited (model/intervention.py).
        target: a translator reads this text as its output instead of its own greedy one (teacher
        forcing), so two runs' decoder rows read the same tokens; other runners refuse it."""
        iv = intervention.build(self, ablate, how, edit)
        s = settings_from(temperature, temperature_layer, use_position, iv)
        if target is not None and self.kind != "translator":
            raise InputError("model", f"{self.name} cannot read a forced translation", model=self.name)
        forced = {} if target is None else {"target": target}
        text, output, attention, notices = self._trace(text, direction, s, record, **forced)
        intervention.check_edits(iv, attention)
        return Trace(self.name, text, output, attention, self.notices + notices, intervention=iv and iv.to_json())


class ModelRunner(TracesText):
    """Our own models (the tutorial's modules): the shared half of TranslatorRunner and GPTRunner."""

    kind = ""
    kinds: tuple[str, ...] = ()
    can_continue_text = False
    can_translate = False
    has_tutorial_code = True
    has_kv_cache = False  # new_cache / read_cached work (our GPTs)

    def __init__(
        self,
        name: str,
        module: torch.nn.Module,
        tokenizer: Tokenizer,
        device: torch.device,
        trained: bool = True,
        notices: list[str] | None = None,
    ):
        self.name, self.module, self.tokenizer, self.device = name, module.eval(), tokenizer, device
        self.config: ModelConfig = module.config
        self.trained = trained
        self.notices = list(notices or [])
        self._cpu_copy = None

    # -- the Runner protocol's shared part --------------------------------------------------
    def ids(self, text, room: int | None = None) -> tuple[str, list[int], list[str]]:
        room = self.config.max_seq_len if room is None else room
        text, notices = clean_text(text)
        ids = self.tokenizer.encode(text)
        if not ids:  # no page may index an empty token list
            raise InputError("empty", "the text is empty: type a sentence")
        if len(ids) > room:
            ids = ids[:room]
            notices.append(
                Notice(
                    "cut_tokens",
                    f"the text was cut to its first {room} tokens (this model reads at most {self.config.max_seq_len})",
                    n=room,
                    max=self.config.max_seq_len,
                )
            )
            text = self.tokenizer.decode(ids)
            if not has_ordinary(text):  # the part the model reads is all unusual characters: re-read, it is empty
                raise InputError("empty", "the text is empty: type a sentence")
        unseen = corpus.unknown_words(text)
        if unseen:
            words = ", ".join(unseen[:12])
            notices.append(
                Notice("unseen_words", "the models never saw these words in training: " + words, words=words)
            )
        # the corpus grammar is all these models ever read: outside it, what they write is a guess
        # (a GPT's prompt may stop mid-sentence; the translator's input is a whole item)
        if not corpus.in_language(text, prefix=self.kind == "gpt"):
            what = "continuation" if self.kind == "gpt" else "translation"
            notices.append(
                Notice(
                    "outside_language",
                    f"outside the {len(corpus.LEXICON)}-word language this model "
                    f"learned: the {what} and its attention are a guess",
                    n=len(corpus.LEXICON),
                    what=what,
                    text=text,
                    unknown=tuple(unseen),  # the words the warning suggests known words for
                )
            )
        return text, ids, notices

    def prompt_ids(self, text, room: int | None = None) -> tuple[str, list[int], list[str]]:
        return self.ids(text, room)

    def is_ordinary(self, token_id: int) -> bool:
        return self.tokenizer.is_ordinary(token_id)

    def run(self, fn, notices: list[str] | None = None):
        """Run fn(module, device); if the GPU runs out of memory, run it again on the CPU."""
        notices = [] if notices is None else notices
        try:
            with torch.no_grad():
                return fn(self.module, self.device)
        except torch.OutOfMemoryError:
            if self.device.type == "cpu":
                raise
            if self._cpu_copy is None:
                self._cpu_copy = copy.deepcopy(self.module).cpu().eval()
            notices.append(
                Notice(
                    "oom_cpu",
                    f"{self.device.type.upper()} ran out of memory; this run used the CPU",
                    device=self.device.type.upper(),
                )
            )
            with torch.no_grad():
                return fn(self._cpu_copy, torch.device("cpu"))

    def _attention(self, weights, query_ids, key_ids, mask, written_ids=None, extend=None) -> Attention:
        """written_ids: the token each query row writes (decoder and cross-attention), see written();
        labelled after the row's text (model/written.py: a byte piece shows its character, with
        extend(prefixes) -> the next id after each where the text does not say it)."""
        tok = self.tokenizer
        return Attention(
            query_tokens=tok.labels(query_ids),
            key_tokens=tok.labels(key_ids),
            weights=weights[:, 0].float().cpu().numpy(),
            mask=None if mask is None else mask.cpu().numpy().astype(bool),
            query_words=tok.word_ids(query_ids),
            key_words=tok.word_ids(key_ids),
            query_word_labels=tok.word_labels(query_ids),
            key_word_labels=tok.word_labels(key_ids),
            query_written=None if written_ids is None else written_labels(tok, query_ids, written_ids, extend),
        )

    def next_labels(self, ids, candidates, **settings) -> list[str]:
        """Labels of candidate next tokens after ids (a top-k list): a byte piece shows the character
        it belongs to; a GPT's opening piece, with its own next pieces (model/written.py)."""
        extend = self._extend(settings_from(**settings)) if self.kind == "gpt" else None
        follow = follow_ids(self.tokenizer, ids, candidates, extend) if extend else None
        return next_labels(self.tokenizer, ids, candidates, follow)

    def _extend(self, s: AttentionSettings):
        """extend(prefixes) for model/written.py: the most likely next id after each prefix."""
        return lambda prefixes: [
            int(self.run(lambda m, dev, p=p: m(self._tensor(p, dev), s, last_only=True), [])[0][0, -1].argmax())
            for p in prefixes
        ]

    @staticmethod
    def written(logits) -> list[int]:
        """The token each decoder position writes: the most likely next token there (B = 1)."""
        return logits[0].argmax(-1).tolist()

    def _tensor(self, ids, device):
        return torch.tensor([ids], dtype=torch.long, device=device)

    def _cannot(self, what: str):
        raise InputError("model", f"{self.name} cannot {what}", model=self.name)

    # what a runner without the capability says
    def trace_ids(self, ids, **settings) -> Trace:
        self._cannot("continue text")

    def next_token_logits(self, ids, **settings):
        self._cannot("continue text")

    def new_cache(self, keep=None):
        self._cannot("continue text")

    def read_cached(self, ids, cache, **settings):
        self._cannot("continue text")

    def generate(self, prompt, *args, **kwargs) -> "Generation":
        self._cannot("continue text")

    def nll(self, texts) -> np.ndarray:
        self._cannot("continue text")

    def translate(self, texts, direction=None, **settings) -> list[str]:
        self._cannot("translate")


class TranslatorRunner(ModelRunner):
    """English -> Chinese and Chinese -> English with one encoder-decoder; the decoder's first
    token (<2zh> or <2en>) says which way."""

    kind = "translator"
    kinds = KINDS
    can_translate = True

    @staticmethod
    def direction(text: str) -> str:
        return "zh-en" if corpus.language_of(text) == "zh" else "en-zh"  # CJK text: data/text.py

    def start_token(self, direction):
        """The decoder's first token for a direction: <2zh> for en-zh, <2en> for zh-en."""
        if direction not in ("en-zh", "zh-en"):
            raise InputError("direction", f"unknown direction {direction!r}; use en-zh or zh-en")
        return TO_ZH if direction == "en-zh" else TO_EN

    def translate(self, texts, direction=None, **settings) -> list[str]:
        """Greedy translation of a batch of texts (used by evaluate and the temperature page)."""
        s = settings_from(**settings)
        rows = [self.ids(t)[1] for t in texts]
        starts = [self.start_token(direction or self.direction(t)) for t in texts]
        width = max(len(r) for r in rows)

        def fn(m, dev):
            src = torch.full((len(rows), width), PAD, dtype=torch.long, device=dev)
            for i, r in enumerate(rows):
                src[i, : len(r)] = torch.tensor(r)
            out = m.greedy_decode(src, torch.tensor(starts, device=dev), EOS, self.config.max_seq_len, s)
            return out.cpu().tolist()

        return [self._decode_output(row) for row in self.run(fn, [])]

    def _decode_output(self, row):
        body = row[1:]
        if EOS in body:
            body = body[: body.index(EOS)]
        return self.tokenizer.decode([i for i in body if i != PAD])

    def decode_then_read(
        self, src_ids, start: int, s: AttentionSettings, rows: int = 1, target=None, record=None, notices=None
    ):
        """The translator's one decode loop: the greedy output of `rows` copies of the source under
        settings s (an intervention may differ per row), then one teacher-forced forward of every row
        over `target` (start token first; default: row 0's greedy output). Returns (each row's
        greedy ids, start token first, without </s> and padding; the target read; logits (rows, T,
        vocab) on the CPU; attention weights {kind: (N, rows, h, Tq, Tk)} on the CPU). notices: as run()'s."""

        def fn(m, dev):
            src = self._tensor(src_ids, dev).expand(rows, -1)
            out = m.greedy_decode(src, torch.full((rows,), start, device=dev), EOS, self.config.max_seq_len, s)
            greedy = []
            for row in out.cpu().tolist():
                body = row[1:]
                body = body[: body.index(EOS)] if EOS in body else body
                greedy.append(row[:1] + [i for i in body if i != PAD])
            read = greedy[0] if target is None else list(target)
            logits, weights = m(src, self._tensor(read, dev).expand(rows, -1), s, record)
            return greedy, read, logits.float().cpu(), {k: w.float().cpu() for k, w in weights.items()}

        return self.run(fn, notices)

    def _trace(self, text, direction, s: AttentionSettings, record, target: str | None = None):
        text, src_ids, notices = self.ids(text)
        start = self.start_token(direction or self.direction(text))
        forced = None if target is None else [start] + self.tokenizer.encode(target)[: self.config.max_seq_len - 2]
        # the decoder's queries are what it reads: the start token and every token it wrote (the
        # final </s> is written but never read); row i writes the next token (the last row: </s>)
        _, tgt_ids, logits, w = self.decode_then_read(src_ids, start, s, target=forced, record=record, notices=notices)
        written = self.written(logits)
        T = len(tgt_ids)
        causal = np.tril(np.ones((T, T), dtype=bool))
        attention = {
            "encoder": self._attention(w["encoder"], src_ids, src_ids, None),
            "decoder": self._attention(w["decoder"], tgt_ids, tgt_ids, torch.from_numpy(causal), written),
            "cross": self._attention(w["cross"], tgt_ids, src_ids, None, written),
        }
        return text, self.tokenizer.decode(tgt_ids[1:]), attention, notices


class SamplesText:
    """generate() for every decoder-only runner: the sampling controls, one seeded generator, each
    step's distribution and the newest token's attention (sample_steps). A runner writes
    _generation_prompt(prompt) -> (text, ids, notices, end-of-text id) and may refuse in _can_generate()."""

    def _can_generate(self) -> None:
        pass

    def generate(
        self,
        prompt,
        max_new_tokens=20,
        temperature=1.0,
        top_k=None,
        top_p=None,
        seed=0,
        attention_temperature=1.0,
        stop_at_eos=True,
    ) -> Generation:
        self._can_generate()
        try:
            sampling = Sampling(float(temperature), top_k, top_p)
        except (TypeError, ValueError) as e:
            raise InputError("sampling", str(e)) from None
        text, ids, notices, eos = self._generation_prompt(prompt)
        ids, steps = sample_steps(
            self, ids, max_new_tokens, sampling, seed, attention_temperature, eos if stop_at_eos else None, notices
        )
        return Generation(text, self.tokenizer.decode(ids), ids, steps, self.notices + notices, eos)


class GPTRunner(SamplesText, ModelRunner):
    """A decoder-only language model: the text is read after a <s> token, left to right."""

    kind = "gpt"
    kinds = ("decoder",)
    can_continue_text = True
    has_kv_cache = True

    def prompt_ids(self, text, room: int | None = None) -> tuple[str, list[int], list[str]]:
        """<s> and the text's ids; an empty text gives <s> alone. room counts the <s>."""
        room = self.config.max_seq_len if room is None else room
        if text is None or (isinstance(text, str) and not text.strip()):
            return "", [BOS], []
        text, ids, notices = self.ids(text, room - 1)
        return text, [BOS] + ids, notices

    def _trace(self, text, direction, s: AttentionSettings, record):
        if text is None or not str(text).strip():
            clean_text(text)  # InputError("empty")
        text, ids, notices = self.prompt_ids(text)
        logits, w = self.run(lambda m, dev: m(self._tensor(ids, dev), s, record), notices)
        causal = sliding_window_mask(len(ids), self.config.window)[0, 0]  # window 0: causal
        attention = {"decoder": self._attention(w["decoder"], ids, ids, causal, self.written(logits), self._extend(s))}
        return text, "", attention, notices

    def trace_ids(self, ids: list[int], **settings) -> Trace:
        """A trace of a given id sequence (a generation's whole output, an induction probe)."""
        s = settings_from(**settings)
        ids = ids[: self.config.max_seq_len]
        logits, w = self.run(lambda m, dev: m(self._tensor(ids, dev), s), [])
        causal = sliding_window_mask(len(ids), self.config.window)[0, 0]  # window 0: causal
        return Trace(
            self.name,
            self.tokenizer.decode(ids),
            "",
            {"decoder": self._attention(w["decoder"], ids, ids, causal, self.written(logits), self._extend(s))},
            list(self.notices),
        )

    def next_token_logits(self, ids: list[int], **settings):
        """(vocab,) logits for the token after ids, and the last position's attention (L, H, T)."""
        s = settings_from(**settings)
        logits, w = self.run(lambda m, dev: m(self._tensor(ids, dev), s, last_only=True), [])
        return logits[0, -1].float().cpu(), w["decoder"][:, 0, :, -1].float().cpu().numpy()

    def new_cache(self, keep=None) -> KVCache:
        """An empty KV cache for read_cached (keep: which rows stay, see model/gpt.py's KVCache)."""
        return KVCache(self.config.num_layers, keep)

    def read_cached(self, ids: list[int], cache: KVCache, **settings):
        """Read ids after the tokens cache holds (the GPT's forward with its KV cache): (logits
        (T, vocab) on the CPU, attention (layers, heads, T, cached rows) numpy)."""
        s = settings_from(**settings)
        logits, w = self.run(lambda m, dev: m(self._tensor(ids, dev), s, cache=cache))
        return logits[0].float().cpu(), w["decoder"][:, 0].float().cpu().numpy()

    def _generation_prompt(self, prompt):
        return (*self.prompt_ids(prompt), EOS)  # an empty prompt: the model starts from <s> alone

    def nll(self, texts: list[str]) -> np.ndarray:
        """-log p(text) in nats for each text, scored from <s> through </s>, each on its own."""
        out = []
        for t in texts:
            ids = [BOS] + self.tokenizer.encode(t) + [EOS]

            def fn(m, dev):
                logits, _ = m(self._tensor(ids, dev))
                logp = torch.log_softmax(logits[0, :-1].float(), -1)
                return -logp.gather(1, self._tensor(ids[1:], dev).T).sum().item()

            out.append(self.run(fn, []))
        return np.array(out)

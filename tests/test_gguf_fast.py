"""model/hf/gguf_fast.py: the one-pass GGUF metadata reader the real models' first conversion uses
reads exactly what gguf.GGUFReader reads (the oracle), on a written file with every kind of array;
bench/convert.py's smallest run (one small file) prints its figures."""

from __future__ import annotations

import numpy as np
import pytest

gguf = pytest.importorskip("gguf")


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """A small GGUF file: scalars, strings (Chinese, empty, long), arrays of strings, ints,
    floats and bools, and two tensors (one quantized)."""
    path = tmp_path_factory.mktemp("gguf") / "small.gguf"
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_uint32("test.u32", 7)
    w.add_float32("test.f32", 0.5)
    w.add_string("test.text", "猫坐在垫子上。")
    w.add_bool("test.flag", True)
    tokens = ["<s>", "", "猫", "坐在", "▁the", "x" * 300] + [f"t{i}" for i in range(2000)]
    w.add_array("tokenizer.ggml.tokens", tokens)
    w.add_array("tokenizer.ggml.merges", ["▁ t", "h e", "猫 坐"])
    w.add_array("tokenizer.ggml.scores", [float(i) / 3 for i in range(len(tokens))])
    w.add_array("tokenizer.ggml.token_type", [i % 6 for i in range(len(tokens))])
    w.add_array("test.flags", [True, False, True])
    rng = np.random.default_rng(0)
    w.add_tensor("token_embd.weight", rng.standard_normal((16, 64)).astype(np.float32))
    q8 = gguf.quants.quantize(rng.standard_normal((4, 64)).astype(np.float32), gguf.GGMLQuantizationType.Q8_0)
    w.add_tensor("blk.0.attn_q.weight", q8, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return str(path)


def test_fast_reader_reads_what_gguf_reads(written):
    from bench.convert import same
    from model.hf import gguf_fast

    slow, fast = gguf.GGUFReader(written), gguf_fast.reader(written)
    arrays = [k for k, f in slow.fields.items() if f.types and f.types[0] == gguf.GGUFValueType.ARRAY]
    assert len(arrays) >= 5  # the file holds the arrays this test is about
    assert same(slow, fast)
    assert fast.fields["tokenizer.ggml.tokens"].contents()[2:4] == ["猫", "坐在"]
    for a, b in zip(slow.tensors, fast.tensors, strict=True):
        np.testing.assert_array_equal(gguf.dequantize(a.data, a.tensor_type), gguf.dequantize(b.data, b.tensor_type))


def test_a_changed_part_is_seen(written):
    """The comparison the test relies on tells readers apart (it is not always true)."""
    from bench.convert import same
    from model.hf import gguf_fast

    slow, fast = gguf.GGUFReader(written), gguf_fast.reader(written)
    fast.fields["tokenizer.ggml.scores"].parts[5] = np.array([9.0], dtype=np.float32)
    assert not same(slow, fast)


def test_shared_reader_one_per_file_and_restored(written):
    """Inside shared_reader, transformers' `from gguf import GGUFReader` gets one reader per file;
    outside, gguf's own class again."""
    from model.hf import gguf_fast

    original = gguf.GGUFReader
    with gguf_fast.shared_reader():
        from gguf import GGUFReader

        a, b = GGUFReader(written), GGUFReader(written)
        assert a is b and isinstance(a, original)
    assert gguf.GGUFReader is original


def test_shared_name_map_gives_the_same_names():
    """The tensor-name map built once per architecture and layer count names every tensor as a
    fresh one does (transformers' mapping of GGUF names to its own reads it)."""
    from model.hf import gguf_fast

    plain = gguf.get_tensor_name_map
    fresh = plain(gguf.MODEL_ARCH.LLAMA, 30)
    with gguf_fast.shared_reader():
        a = gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, 30)
        assert a is gguf.get_tensor_name_map(gguf.MODEL_ARCH.LLAMA, 30)
    names = [f"model.layers.{i}.self_attn.{p}_proj" for i in range(30) for p in "qkvo"] + ["model.embed_tokens"]
    assert [a.get_name(n) for n in names] == [fresh.get_name(n) for n in names]
    assert a.get_name("model.layers.29.self_attn.q_proj") == "blk.29.attn_q"
    assert gguf.get_tensor_name_map is plain


def test_transformers_reads_the_same_through_it(written):
    """transformers' own GGUF reading (config and tokenizer entries) gives the same values
    through the fast reader."""
    pytest.importorskip("transformers")
    from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint

    from model.hf import gguf_fast

    plain = load_gguf_checkpoint(written, return_tensors=False)
    with gguf_fast.shared_reader():
        fast = load_gguf_checkpoint(written, return_tensors=False)
    assert plain["tokenizer"]["tokens"][:4] == ["<s>", "", "猫", "坐在"]
    assert plain == fast


def test_bench_smallest(written, capsys):
    from bench import convert

    out = convert.main(["--gguf", written])
    assert out["file"]["same"] is True
    assert out["file"]["fields"] >= 10
    assert '"fast_reader_s"' in capsys.readouterr().out

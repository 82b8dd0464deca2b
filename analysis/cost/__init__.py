"""What attention costs, and the tricks that cut the cost: the tutorials' last chapter, runnable.

    "当序列长度超过1024时，原始自注意力的O(n²)复杂度会成为性能瓶颈。这时可以采用稀疏注意力、局部注意力等优化策略"
    "缩放因子：1/√d_k 防止点积结果过大导致softmax梯度消失"

Everything here computes with the project's own attention code (model/attention.py) and models:
- O(n²): one MultiHeadAttention layer timed, and every tensor it allocates watched (measure_layer);
  FLOPs counted by formula (layer_flops), checked against torch's FlopCounterMode in the tests.
- Sparse and local attention: the masks (sliding window, dilated, global + window, block-sparse),
  the share of pairs they compute, and an attention that only touches those pairs (sparse_attention).
- Why sqrt(d_k): spread of the scores, softmax's largest weight and the gradient reaching Q and K.
- FlashAttention's idea: the same output in key blocks with an online softmax (online_attention).
- The KV cache: generation that keeps each layer's K and V rows (model/gpt.py's KVCache, through the one GPT forward), its FLOPs per new
  token, the attention sink, and StreamingLLM's "sink + window" cache.

One module per section (the page's own order): scaling.py (1. O(n²)), sparse.py (2.), sqrt_dk.py
(3.), online.py (4.), qkv.py (5.), kv_cache.py (6.), on_sentence.py (the sections on the user's
sentence). Every public name is re-exported here, so `from analysis import cost; cost.X` reads as before.
"""

from __future__ import annotations

from .kv_cache import (
    CachePolicy,
    generation_timing,
    gpt_flops_per_token,
    kv_cache_bytes,
    new_cache,
    read_token,
    sink_share,
    stream_greedy,
    stream_nll,
)
from .on_sentence import (
    bench_summary,
    blockwise_timing,
    distinct_query_on,
    heads_scaling_table,
    kv_cache_state,
    nll_by_length,
    online_on,
    search_on,
    self_attention_record,
    streaming_compare,
)
from .online import OnlineResult, gpu_name, online_attention, online_check
from .qkv import distinct_heads_query, heads_disagreement, search_example
from .scaling import (
    BENCH_FILE,
    FLOAT_BYTES,
    SIZES,
    AllocationWatch,
    attention_layer,
    layer_bytes,
    layer_flops,
    load_bench,
    measure_layer,
    memory_limit_n,
)
from .sparse import (
    PATTERNS,
    block_mask,
    dilated_mask,
    global_window_mask,
    measure_pattern,
    pairs_computed,
    pattern_mask,
    sparse_attention,
    sparse_plan,
    time_call,
    window_mask,
)
from .sqrt_dk import heads_scaling, scaling_sweep, softmax_gradients, softmax_jacobian_norm

__all__ = [
    "AllocationWatch",
    "BENCH_FILE",
    "CachePolicy",
    "FLOAT_BYTES",
    "OnlineResult",
    "PATTERNS",
    "SIZES",
    "attention_layer",
    "bench_summary",
    "block_mask",
    "blockwise_timing",
    "dilated_mask",
    "distinct_heads_query",
    "distinct_query_on",
    "generation_timing",
    "global_window_mask",
    "gpt_flops_per_token",
    "heads_disagreement",
    "heads_scaling",
    "heads_scaling_table",
    "kv_cache_bytes",
    "kv_cache_state",
    "layer_bytes",
    "layer_flops",
    "load_bench",
    "measure_layer",
    "measure_pattern",
    "memory_limit_n",
    "new_cache",
    "nll_by_length",
    "online_attention",
    "online_check",
    "gpu_name",
    "online_on",
    "pairs_computed",
    "pattern_mask",
    "read_token",
    "scaling_sweep",
    "search_example",
    "search_on",
    "self_attention_record",
    "sink_share",
    "softmax_gradients",
    "softmax_jacobian_norm",
    "sparse_attention",
    "sparse_plan",
    "stream_greedy",
    "stream_nll",
    "streaming_compare",
    "time_call",
    "window_mask",
]

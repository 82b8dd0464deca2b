"""Why 1/sqrt(d_k): the spread of the scores, softmax's largest weight and the gradient reaching Q and K, swept over d_k. (analysis/cost/: one module per section of the cost page; __init__.py lists them.)"""

from __future__ import annotations

import math

import numpy as np
import torch


# -- 3. why sqrt(d_k) -----------------------------------------------------------------------------
def softmax_gradients(Q, K, V, G, scale: float):
    """out = softmax(Q K^T * scale) V and the loss sum(out * G); returns the scores, the weights and
    the gradients reaching Q and K (autograd). Q, K: (..., n, d_k)."""
    Q, K = Q.detach().clone().requires_grad_(True), K.detach().clone().requires_grad_(True)
    scores = Q @ K.transpose(-2, -1) * scale
    weights = torch.softmax(scores, -1)
    ((weights @ V) * G).sum().backward()
    return scores.detach(), weights.detach(), Q.grad, K.grad


def softmax_jacobian_norm(weights) -> torch.Tensor:
    """Per row, the Frobenius norm of softmax's own gradient dp/ds = diag(p) - p p^T: near 0 when the
    row is (almost) one-hot, so almost no gradient passes back to the scores."""
    p = weights
    jac = torch.diag_embed(p) - p.unsqueeze(-1) * p.unsqueeze(-2)
    return jac.flatten(-2).norm(dim=-1)


def scaling_sweep(d_ks=(4, 16, 64, 256, 1024), n: int = 16, trials: int = 8, seed: int = 0, dead: float = 0.01) -> dict:
    """Random Q, K, V ~ N(0, 1) at each d_k, with and without 1/sqrt(d_k): the scores' standard deviation,
    the mean largest softmax weight per row, the mean norm of softmax's gradient per row, the gradient
    norms reaching Q and K (loss sum(out*G)), and the share of queries whose gradient is below `dead` x
    the median query gradient of the scaled version on the same draw (they have stopped learning)."""
    g = torch.Generator().manual_seed(seed)
    rows = []
    for d_k in d_ks:
        acc = {True: [], False: []}
        for _ in range(trials):
            Q, K, V = (torch.randn(n, d_k, generator=g, dtype=torch.float64) for _ in range(3))
            G = torch.randn(n, d_k, generator=g, dtype=torch.float64)
            ref = None
            for scaled in (True, False):
                s, w, gq, gk = softmax_gradients(Q, K, V, G, 1 / math.sqrt(d_k) if scaled else 1.0)
                per_q = gq.norm(dim=-1)
                ref = per_q.median() if scaled else ref
                acc[scaled].append(
                    (
                        float(s.std()),
                        float(w.max(-1).values.mean()),
                        float(softmax_jacobian_norm(w).mean()),
                        float(gq.norm()),
                        float(gk.norm()),
                        float((per_q < dead * ref).double().mean()),
                    )
                )
        for scaled in (True, False):
            a = np.array(acc[scaled]).mean(0)
            rows.append(
                {
                    "d_k": d_k,
                    "scaled": scaled,
                    "score_std": a[0],
                    "max_weight": a[1],
                    "softmax_grad": a[2],
                    "grad_q": a[3],
                    "grad_k": a[4],
                    "dead_rows": a[5],
                }
            )
    return {"n": n, "trials": trials, "dead": dead, "rows": rows}


def heads_scaling(record: dict, mask=None) -> list[dict]:
    """For each layer and head of a trained model's recorded forward (model(..., record=...)), the same
    three numbers with the scaling it was trained with and without it (scores x sqrt(d_k)). The
    gradient uses a fixed random upstream gradient G (seed 0), the same for both."""
    out = []
    g = torch.Generator().manual_seed(0)
    layers = record.get("decoder") or record.get("encoder")
    for li, rec in enumerate(layers):
        att = rec.get("self_attn", rec)
        q, k, v = (att[x][0].double() for x in ("q", "k", "v"))  # (h, T, d_k)
        d_k = q.size(-1)
        bias = att.get("bias")
        G = torch.randn(v.shape, generator=g, dtype=torch.float64)
        for h in range(q.size(0)):
            res = {}
            for scaled in (True, False):
                scale = 1 / math.sqrt(d_k) if scaled else 1.0
                Qh, Kh = q[h].clone().requires_grad_(True), k[h].clone().requires_grad_(True)
                s = Qh @ Kh.T * scale
                if bias is not None:
                    s = s + bias[h].double()
                if mask is not None:
                    s = s.masked_fill(~torch.as_tensor(mask), float("-inf"))
                w = torch.softmax(s, -1)
                ((w @ v[h]) * G[h]).sum().backward()
                finite = s.detach()[torch.isfinite(s.detach())]
                wd = w.detach()
                rows = torch.isfinite(s.detach()).sum(-1) > 1  # a row that sees one key has no choice
                res[scaled] = (
                    float(finite.std()),
                    float(wd.max(-1).values[rows].mean()),
                    float(Qh.grad.norm()),
                    float(Kh.grad.norm()),
                    float(softmax_jacobian_norm(wd)[rows].mean()),
                )
            out.append(
                {
                    "layer": li,
                    "head": h,
                    "d_k": d_k,
                    **{
                        f"{name}_{'scaled' if sc else 'unscaled'}": res[sc][i]
                        for sc in (True, False)
                        for i, name in enumerate(("score_std", "max_weight", "grad_q", "grad_k", "softmax_grad"))
                    },
                }
            )
    return out

"""Where the models run: CUDA when there is one, then Apple's MPS, else the CPU.

ATTN_DEVICE=cpu|cuda|mps (or a `device=` argument) forces one; asking for a device this machine
does not have falls back to the CPU and says so.
"""

import os

import torch

from model.errors import Notice

CHOICES = ("auto", "cpu", "cuda", "mps")


def available() -> list[str]:
    found = ["cpu"]
    if torch.cuda.is_available():
        found.insert(0, "cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        found.insert(0, "mps")
    return found


def pick(requested: str | None = None) -> tuple[torch.device, Notice | None]:
    """Returns (device, notice or None)."""
    want = (requested or os.environ.get("ATTN_DEVICE") or "auto").lower()
    if want not in CHOICES:
        return torch.device("cpu"), Notice("device_unknown", f"unknown device {want!r}; using the CPU", device=want)
    have = available()
    if want == "auto":
        return torch.device("cuda" if "cuda" in have else "mps" if "mps" in have else "cpu"), None
    if want not in have:
        return torch.device("cpu"), Notice(
            "device_fallback", f"{want.upper()} is not available on this machine; using the CPU", device=want.upper()
        )
    return torch.device(want), None

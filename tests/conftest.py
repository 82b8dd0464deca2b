import os
from pathlib import Path

import pytest

WEIGHTS = Path(__file__).resolve().parent.parent / "model" / "weights"


def trained(name: str) -> bool:
    return (WEIGHTS / f"{name}.safetensors").exists()


@pytest.fixture(scope="session")
def random_runner():
    """Load a model with seed-0 random weights (architecture tests need no training)."""
    import model
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = model.load(name, device="cpu", random_weights=True)
        return cache[name]
    return get

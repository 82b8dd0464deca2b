"""Training the shipped models and recording how they learn: the training loop (train.py), the
snapshots it keeps (snapshots.py, probe.py) and the held-out evaluation (evaluate.py)."""

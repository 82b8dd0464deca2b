"""What the pages compute from a model beyond one forward pass: head importance (intervene.py),
row and head measures (measures.py), cost and the KV cache (cost.py), the step-by-step walk
(walkthrough.py), experiments, the training timeline, claims checked against the model."""

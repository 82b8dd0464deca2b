"""A lesson's check of the tutorials' objectives, before and after (issue 50): what the class
learned, per objective.

A step of any lesson may carry `check = { objective = "masks", phase = "pre" }` (docs/lessons.md):
it is an ordinary step, its answer computed from the model like every other, and it also counts
for that objective before (pre) or after (post) the teaching. The same objective is asked twice
with different items (another sentence, word, position or model), so the post item is not the pre
item remembered. gains() turns the room's anonymous answers into, per objective, the class's share
right before and after and the gain; nothing more is stored than the answers themselves.
"""

from __future__ import annotations

# the tutorials' objectives (the Chinese tutorials' chapters: scaled dot-product and √d_k, what a
# head is, masks, positional encoding, cross-attention, temperature), in teaching order
OBJECTIVES = ("scaling", "heads", "masks", "positions", "cross", "temperature")
PHASES = ("pre", "post")


def tags(lesson) -> dict[str, tuple[str, str]]:
    """{step id: (objective, phase)} for the lesson's (a schema.Lesson) check steps."""
    out = {}
    for i, spec in enumerate(lesson.steps):
        check = spec.get("check")
        if check:
            out[lesson.step_id(i)] = (check["objective"], check["phase"])
    return out


def gains(steps, answers, key, tagged: dict[str, tuple[str, str]]) -> list[dict]:
    """Per objective that the lesson checks, in OBJECTIVES' order: answers and right answers before
    (pre) and after (post), the shares right (None with no answer) and the gain (after - before, None
    unless both have answers). steps: the built steps (a step the margin rule left out is not asked,
    so not counted); answers: the room's raw answers [(answer key, student, choice)]; key(step): the
    answer key a step is recorded under; tagged: tags(lesson)."""
    by_key = {key(s): s for s in steps if s.id in tagged}
    counts: dict[str, dict[str, list[int]]] = {}
    for step_key, _student, choice in answers:
        step = by_key.get(step_key)
        if step is None:
            continue
        objective, phase = tagged[step.id]
        n_right = counts.setdefault(objective, {p: [0, 0] for p in PHASES})[phase]
        n_right[0] += 1
        n_right[1] += bool(step.is_right(int(choice)))
    asked = {tagged[s.id][0] for s in steps if s.id in tagged}
    rows = []
    for objective in OBJECTIVES:
        if objective not in asked:
            continue
        c = counts.get(objective, {p: [0, 0] for p in PHASES})
        share = {p: (c[p][1] / c[p][0] if c[p][0] else None) for p in PHASES}
        gain = share["post"] - share["pre"] if None not in share.values() else None
        rows.append(
            {
                "objective": objective,
                "before_n": c["pre"][0],
                "before_right": c["pre"][1],
                "before": share["pre"],
                "after_n": c["post"][0],
                "after_right": c["post"][1],
                "after": share["post"],
                "gain": gain,
            }
        )
    return rows

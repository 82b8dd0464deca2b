"""What a lesson's fixed wording says, checked on the model (issue 46).

A step's query fills its texts' {numbers}; the words around them are fixed, and a fixed phrase that
says something of the model ("the token just before it", "the mask hides every later token", "the
last writes </s>") is a claim the query does not check. Each such phrase is named in the lesson's
marks (ui/marks/lesson_ID.toml) with a check here:

    "real.2.reveal" = { query = "top_key", says = [
        { check = "top_is_previous", en = "the token just before it", zh = "正好是它前面那个词元" } ],
        defines = ["This is a **previous-token head**"] }

`says`: phrases (en and zh, each found in its text) each guarded by a named check, computed from the
model on the step's sentence; `defines`: phrases about the method, true of any model (an English
phrase; what a softmax does). tests/test_lesson_says.py fails on a reveal whose words are neither
filled, nor defined, nor guarded (a short list of connecting words aside: FILLER), the same for
its questions (ask: QUESTION's words and `asks`, the question its query answers, aside), runs every check
on every built-in step that names it, and breaks each check on a model or step where its phrase is
false. A check is check(ctx) -> (holds, numbers); ctx is a Said: the step built, its file's step and
a loader of the models by name.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .pick import SPECIAL, labels_of, row_names, visible, written_tokens
from .queries import Ctx
from .steps import Step

# words a reveal may use between its numbers without saying anything of the model ("“{word}” reads
# “{top}” with weight {weight}"); no word of TRIGGERS may be one
FILLER = frozenset(
    """a an and the it its it's is of to in on at with by from as for that this these here
    reads read gets sends goes scores weight weights probability rows row tokens token
    before after per top word head heads layer most largest highest nats""".split()
)
# words that say how many or how much: a reveal using one outside a guarded or defined phrase fails
TRIGGERS = ("none", "only", "more than", "mostly", "no", "every", "all", "always", "never", "each", "less than")
# words a question may use to ask without saying anything of the model ("Which word does ... read
# most?"): an ask's sentence is accounted for by these, FILLER, its {numbers} and its mark's phrases
QUESTION = frozenset("which what how many much does do did will would can could is are whether when".split())
# words that make a clause say something inside a question ("Can X read Y, which comes after it?",
# "since ...", "the head that ..."): an `asks` phrase (the question its query answers) holds none of
# them but its first word; such a clause is a phrase of its own, guarded by a check (says)
ASSERTING = frozenset("which that since because so as whose who while where".split())


@dataclass
class Said:
    """What a check reads: the built step, its lesson file's step (spec) and load(name) -> runner."""

    step: Step
    spec: dict
    load: Callable
    args: dict = field(default_factory=dict)  # the mark's own arguments (a token it names)

    @property
    def runner(self):
        return self.load(self.spec["model"])

    @property
    def ctx(self) -> Ctx:
        return Ctx(
            self.runner, self.step.params["text"], dict(self.spec.get("view", {})), dict(self.spec.get("args", {})), ""
        )

    def att(self, text: str | None = None, **over):
        return self.ctx.att(text, **over)

    def row(self, att) -> int:
        """The row the step's {word} names (row_names' convention)."""
        return labels_of(row_names(att, self.ctx.kind)).index(self.step.params["word"])

    def key(self, att, param: str = "top") -> int:
        return labels_of(att.key_tokens).index(self.step.params[param])

    def head_matrix(self, att) -> np.ndarray:
        w = att.weights.astype(np.float64)[int(self.step.params["layer"]) - 1]
        head = self.step.params["head"]
        return w.mean(0) if head == "—" else w[int(head) - 1]


CHECKS: dict[str, Callable] = {}


def check(fn):
    CHECKS[fn.__name__] = fn
    return fn


def run(name: str, said: Said) -> tuple[bool, dict]:
    holds, numbers = CHECKS[name](said)
    return bool(holds), numbers


# -- the step's own answer -------------------------------------------------------------------------------
@check
def answer_yes(s: Said):
    """A phrase true where the answer is yes ("different", "agree"): the step's own verdict."""
    return s.step.answer_label == "yes", {"answer": s.step.answer_label}


@check
def answer_no(s: Said):
    return s.step.answer_label == "no", {"answer": s.step.answer_label}


# -- which key the row reads ---------------------------------------------------------------------------
@check
def top_is_previous(s: Said):
    """“{top}”: the token just before the row."""
    att = s.att()
    row, key = s.row(att), s.key(att)
    m = s.head_matrix(att)
    top = max(visible(att, row), key=lambda j: m[row, j])
    return key == row - 1 and top == key, {"row": row, "key": key, "top": top}


@check
def previous_every_row(s: Said):
    """ "it does the same on every row, whatever the words": in the step's head every row that sees more
    than one token reads the token just before it most, on the step's sentence and on another."""
    out = {}
    for text in (s.step.params["text"], "The dog chased a red ball across the garden"):
        att = s.att(text)
        m = s.head_matrix(att)
        rows = [r for r in range(1, m.shape[0]) if len(visible(att, r)) > 1]
        out[text] = [r for r in rows if int(np.argmax(np.where(att.mask[r], m[r], -1))) != r - 1]
    return not any(out.values()), {"rows_not_previous": out}


@check
def top_is_first(s: Said):
    """“{top}” is the first token (the sink)."""
    att = s.att()
    return s.key(att) == 0, {"key": s.key(att)}


@check
def key_is_first(s: Said):
    """The cell's key (“{key}”) is the first token."""
    att = s.att()
    return s.key(att, "key") == 0, {"key": s.key(att, "key")}


@check
def top_is_after_previous(s: Said):
    """“{top}”: the token that came after the row's word the first time (its previous occurrence)."""
    att = s.att()
    names = [str(x).strip("▁Ġ ").lower() for x in row_names(att, s.ctx.kind)]
    row = s.row(att)
    earlier = [i for i in range(row) if names[i] == names[row]]
    key = s.key(att)
    return bool(earlier) and key == earlier[-1] + 1, {"row": row, "earlier": earlier, "key": key}


@check
def top_is_named(s: Said):
    """“{top}” is the token the mark names (`token`): the noun the lesson's phrase says it is."""
    return s.step.params["top"].strip("▁Ġ ").lower() == str(s.args["token"]).lower(), {"top": s.step.params["top"]}


def _pronoun_verdict(runner, layer: int, head: int) -> tuple[str, dict]:
    from analysis import pronoun_probe

    r = pronoun_probe.probe(runner)
    numbers = {refers: {k: float(v[layer, head]) for k, v in r[refers].items() if k != "n"} for refers in r}
    return pronoun_probe.verdict(r, layer, head), numbers


@check
def head_follows_pronoun(s: Said):
    """ "this head puts more on the object, the noun the pronoun means": on the pronoun probe's stories
    (analysis.pronoun_probe) the step's head puts more on the noun the pronoun means in both sets, the
    object where it means the object ("resolves")."""
    v, numbers = _pronoun_verdict(s.runner, int(s.step.params["layer"]) - 1, int(s.step.params["head"]) - 1)
    return v == "resolves", {"verdict": v, **numbers}


@check
def subject_head(s: Said):
    """ "it reads the subject whatever the pronoun": the head the mark names (`model`, `layer`, `head`,
    1-based) puts more on the subject in both sets of the pronoun probe ("subject")."""
    runner = s.load(s.args["model"])
    v, numbers = _pronoun_verdict(runner, int(s.args["layer"]) - 1, int(s.args["head"]) - 1)
    return v == "subject", {"verdict": v, **numbers}


@check
def top_score_highest(s: Said):
    """“{top}” scores the highest: q·k / √d_k recomputed from the model's record."""
    from analysis.experiments import head_scores

    att = s.att()
    row, key = s.row(att), s.key(att)
    layer, head = int(s.step.params["layer"]) - 1, int(s.step.params["head"]) - 1
    scores = head_scores(s.runner, s.step.params["text"], s.ctx.kind, layer, head, **s.ctx.settings())[row]
    keys = visible(att, row)
    return max(keys, key=lambda j: scores[j]) == key, {"scores": scores[keys]}


@check
def head_sharper_than_mean(s: Said):
    """ "A single head is often much sharper than the mean of all heads": the step's head's row has a
    larger top weight than the mean of its layer's heads on that row."""
    att = s.att()
    row = s.row(att)
    w = att.weights.astype(np.float64)[int(s.step.params["layer"]) - 1]
    one = float(w[int(s.step.params["head"]) - 1, row].max())
    mean = float(w.mean(0)[row].max())
    return one > mean, {"head": one, "mean": mean}


@check
def not_the_tutorials_number(s: Said):
    """ "The tutorial's numbers were an illustration; a trained model has its own": the weight is not
    the tutorial's (`than`) to two decimals."""
    w, than = float(s.step.params["weight"]), float(s.step.params["than"])
    return round(w, 2) != round(than, 2), {"weight": w, "than": than}


# -- the mask, the rows, the output ----------------------------------------------------------------------
@check
def causal_mask(s: Said):
    """ "The mask hides every later token": every key after a row is masked and weighs 0 in every layer
    and head."""
    att = s.att()
    n = len(att.query_tokens)
    later = ~np.tril(np.ones((n, len(att.key_tokens)), bool))
    mask_ok = att.mask is not None and not np.asarray(att.mask, bool)[later].any()
    zero = float(np.abs(att.weights[:, :, later]).max()) if later.any() else 0.0
    return mask_ok and zero == 0.0, {"largest_later_weight": zero}


@check
def later_token_hidden(s: Said):
    """The row cannot see the token the mark names (`token`), which comes after it."""
    att = s.att()
    row = s.row(att)
    low = [str(t).strip("▁Ġ ").lower() for t in att.key_tokens]
    key = low.index(str(s.args["token"]).lower()) if str(s.args["token"]).lower() in low else -1
    seen = bool(np.asarray(att.mask[row], bool)[key]) if key >= 0 else True
    return key > row and not seen, {"row": row, "key": key}


@check
def last_row_writes_eos(s: Said):
    """ "the last writes </s>": the last cross-attention row writes the end token."""
    att = s.att()
    return written_tokens(att)[-1] == "</s>", {"last": written_tokens(att)[-1]}


@check
def switching_off_lowers(s: Said):
    """ "this head lowers the log probability ... by {loss} nats": the loss is not negative."""
    return float(s.step.params["loss"]) >= 0, {"loss": float(s.step.params["loss"])}


@check
def rows_only_reordered(s: Said):
    """ "attention cannot tell the two orders apart: the rows are the same, only reordered": in every
    layer and head, without positions, the other sentence's weights are this one's, rows and columns
    permuted by the tokens (each token once)."""
    a, b = s.att(), s.att(s.spec["args"]["other"])
    ta, tb = list(a.key_tokens), list(b.key_tokens)
    if sorted(ta) != sorted(tb) or len(set(ta)) != len(ta):
        return False, {"tokens": (ta, tb)}
    p = [tb.index(t) for t in ta]
    wa, wb = a.weights.astype(np.float64), b.weights.astype(np.float64)[:, :, p][:, :, :, p]
    diff = float(np.abs(wa - wb).max())
    return diff < 1e-5, {"largest_difference": diff}


@check
def translation_flips(s: Said):
    """ "the translation flips from one to the other": with positions the two sentences get different
    translations made of the same words in another order."""
    other = s.spec["args"]["other"]
    ta, tb = (s.runner.trace(x).output_text for x in (s.step.params["text"], other))
    return ta != tb and sorted(ta.split()) == sorted(tb.split()), {"a": ta, "b": tb}


@check
def near_above_far(s: Said):
    """ "nearby positions have similar encodings": PE(p)·PE(near) > PE(p)·PE(far), recomputed."""
    from analysis.experiments import pe_table

    a = s.spec.get("args", {})
    p, q1, q2 = int(a.get("p", 3)), int(a.get("near", 4)), int(a.get("far", 10))
    pe = pe_table(s.runner.config.d_model, max(p, q1, q2) + 1).astype(np.float64)
    near, far = float(pe[p] @ pe[q1]), float(pe[p] @ pe[q2])
    return abs(p - q1) < abs(p - q2) and near > far, {"near": near, "far": far}


@check
def temperature_below_one(s: Said):
    """ "dividing by a small T": the step's temperature is under 1."""
    t = float(s.spec.get("args", {}).get("temperature", 0.2))
    return t < 1.0, {"temperature": t}


# -- the model's make-up ---------------------------------------------------------------------------------
@check
def model_has_sink(s: Said):
    """ "Trained models often pile weight onto the first token": this model has a sink head on the step's
    sentence (analysis.claims' sink check)."""
    from analysis import claims

    c = claims.check("sink", s.runner, text=s.step.params["text"])
    return c.holds, {"max_ratio": c.numbers["max_ratio"]}


@check
def small_model_sinks(s: Said):
    """ "Some heads of our small models pile up on one token too (lesson 1 shows one)": the translator
    has a sink head on lesson 1's sentence."""
    from analysis import claims

    c = claims.check("sink", s.load("translator"), text="The cat sat on the mat")
    return c.holds, {"max_ratio": c.numbers["max_ratio"]}


@check
def fewer_tokens_than_characters(s: Said):
    """ "a character is often less than one token": fewer tokens than characters in the sentence."""
    att = s.att()
    n = len([t for t in att.key_tokens if t not in SPECIAL and not str(t).startswith("<")])
    chars = len(re.sub(r"\s", "", s.step.params["text"]))
    return n < chars, {"tokens": n, "characters": chars}


@check
def whole_words_in_vocabulary(s: Said):
    """ "Its vocabulary holds many Chinese words whole": tokens of the sentence that are two or more
    Chinese characters (垫子, 开心)."""
    att = s.att()
    whole = [t for t in att.key_tokens if sum("\u4e00" <= c <= "\u9fff" for c in str(t)) >= 2]
    return len(whole) >= 2, {"whole": whole}


@check
def english_model_cuts_characters(s: Said):
    """ "a model trained mostly on English cuts most of these characters into pieces": SmolLM2's
    tokenizer (the mark's `model`) gives more than half of the sentence's Chinese characters more than
    one token each (not every one: 在, 子 and 上 are one token each there)."""
    tok = s.load(s.args.get("model", "smollm2-135m")).tokenizer
    chars = [c for c in s.step.params["text"] if "\u4e00" <= c <= "\u9fff"]
    pieces = {c: len(tok.encode(c)) for c in chars}
    cut = sum(n > 1 for n in pieces.values())
    return bool(chars) and cut > len(chars) / 2, {"pieces": pieces, "cut": cut, "characters": len(chars)}


# -- what a question states on its way (its ask text: issue 46's "a question that asserts") ---------------
def _plain(tok) -> str:
    return str(tok).strip("▁Ġ ").lower()


@check
def model_is(s: Said):
    """The ask names the step's model (`model`: "The translator reads", "GPT has read", "SmolLM2-135M
    ... reads"): the step runs on that model."""
    return s.spec["model"] == s.args["model"], {"model": s.spec["model"]}


@check
def view_is(s: Said):
    """The ask names the view ("the encoder's last layer", "encoder layer 1, mean of heads"): each of
    the mark's `kind`, `layer` ("last" or a number, 1-based) and `head` ("mean" or a number) is what
    the step's query read."""
    p, a = s.step.params, s.args
    found = {"kind": p.get("kind") or s.ctx.kind, "layer": p.get("layer"), "head": p.get("head")}
    ok = True
    if "kind" in a:
        ok &= found["kind"] == a["kind"]
    if "layer" in a:
        want = s.att().num_layers if a["layer"] == "last" else int(a["layer"])
        ok &= str(found["layer"]) == str(want)
    if "head" in a:
        ok &= str(found["head"]) == ("—" if a["head"] == "mean" else str(a["head"]))
    return bool(ok), found


@check
def model_shape(s: Said):
    """ "30 layers × 9 heads", "its 4 heads": the model has the mark's `layers` and `heads` (either may
    be left out), read from its attention."""
    att = s.att()
    ok = all(int(s.args[k]) == n for k, n in (("layers", att.num_layers), ("heads", att.num_heads)) if k in s.args)
    return ok, {"layers": att.num_layers, "heads": att.num_heads}


@check
def row_sees(s: Said):
    """ "“{word}” can see six tokens": the row of the step's word may read `n` keys (its mask)."""
    att = s.att()
    n = len(visible(att, s.row(att)))
    return n == int(s.args["n"]), {"visible": n}


@check
def than_is_uniform(s: Said):
    """ "uniform attention would give each 1/6 ≈ {than}": the step's `than` is 1 / the keys the row may
    read, to two decimals."""
    att = s.att()
    n = len(visible(att, s.row(att)))
    than = float(s.spec["args"]["than"])
    return round(1 / n, 2) == round(than, 2), {"uniform": 1 / n, "than": than}


@check
def is_first(s: Said):
    """The token the step's `param` names (default "key") is the first token the model reads."""
    att = s.att()
    name = s.step.params[s.args.get("param", "key")]
    return s.key(att, s.args.get("param", "key")) == 0, {"token": name}


@check
def first_is_start(s: Said):
    """ "its start token": the first token is the model's start token, no character of the text."""
    att = s.att()
    first = str(att.key_tokens[0])
    return first.startswith("<") and first.endswith(">") and first not in s.step.params["text"], {"first": first}


@check
def comes_after(s: Said):
    """ "“{later}”, which comes after it": the key the mark's `param` (default "later") names comes after
    the row of the step's word."""
    att = s.att()
    row = s.row(att)
    key = s.key(att, s.args.get("param", "later"))
    return key > row, {"row": row, "key": key}


@check
def repeated_at_end(s: Said):
    """ "“{word}” comes a second time at the end": the word's row is the sentence's last token and the
    word came exactly once before it."""
    att = s.att()
    names = [_plain(x) for x in row_names(att, s.ctx.kind)]
    row = s.row(att)
    earlier = [i for i in range(row) if names[i] == names[row]]
    return row == len(names) - 1 and len(earlier) == 1, {"row": row, "last": len(names) - 1, "earlier": earlier}


@check
def characters(s: Said):
    """ "(12 characters)": the sentence has `n` characters, spaces aside."""
    n = len(re.sub(r"\s", "", s.step.params["text"]))
    return n == int(s.args["n"]), {"characters": n}


@check
def same_characters_reordered(s: Said):
    """ "the same three characters in another order": the step's sentence is the mark's `other`
    reordered (the same characters, another order) and has `n` characters."""
    a, b = s.step.params["text"], s.args["other"]
    return sorted(a) == sorted(b) and a != b and len(a) == int(s.args["n"]), {"text": a, "other": b}


@check
def keys_in_language(s: Said):
    """ "which English word", "which Chinese token": every key the row may read but the model's own
    tokens (<s>, <2zh> ...) is in the mark's `lang`: Latin letters for en, Chinese characters for zh."""
    att = s.att()
    keys = [str(att.key_tokens[j]) for j in visible(att, s.row(att))]
    words = [k for k in keys if k not in SPECIAL and not (k.startswith("<") and k.endswith(">"))]

    def zh(k):
        return any("\u4e00" <= c <= "\u9fff" for c in k)

    def en(k):
        return bool(re.search(r"[A-Za-z]", k)) and not zh(k)

    test = zh if s.args["lang"] == "zh" else en
    other = [k for k in words if not test(k) and re.search(r"\w", k)]
    return bool(words) and not other, {"keys": words, "not": other}


@check
def own_weights_per_head(s: Said):
    """ "each with its own query, key and value weights": the model's heads do not share key/value
    heads (no grouped-query attention: as many key/value heads as query heads)."""
    cfg = s.runner.config
    heads = int(cfg.num_heads)
    kv = int(getattr(cfg, "num_kv_heads", 0) or heads)
    return kv == heads, {"heads": heads, "kv_heads": kv}


@check
def sinusoidal_positions(s: Said):
    """ "Sinusoidal positional encoding (d_model = {d_model})": the step's model adds sinusoidal
    positions."""
    pos = getattr(s.runner.config, "positional", "")
    return pos == "sinusoidal", {"positional": pos}


@check
def ours(s: Said):
    """ "In our model": the step's model is one this project trained (model.registry.trained_here)."""
    from model.registry import trained_here

    return trained_here(s.spec["model"]), {"model": s.spec["model"]}


@check
def neighbours(s: Said):
    """ "PE(3)·PE(4) (neighbours)": the step's `near` position is next to `p`."""
    a = s.spec.get("args", {})
    p, near = int(a.get("p", 3)), int(a.get("near", 4))
    return abs(p - near) == 1, {"p": p, "near": near}


# the Chinese tutorial's example (section 1.3): "when the model processes “cat” in “The cat sat on the
# mat”, the weights might be": an illustration, not a model's
TUTORIAL_ROW = ("cat", {"The": 0.12, "cat": 0.35, "sat": 0.18, "on": 0.08, "the": 0.15, "mat": 0.12})


@check
def tutorials_number(s: Said):
    """ "The tutorial's table gives “{word}” a weight of {than} on itself": the tutorial's row is the
    step's word's and gives the step's key (the word itself) `than`."""
    a = s.spec.get("args", {})
    word, key, than = str(a.get("word")), str(a.get("key")), float(a.get("than", -1))
    row, table = TUTORIAL_ROW
    return word == row and key == word and table.get(key) == than, {"word": word, "key": key, "than": than}

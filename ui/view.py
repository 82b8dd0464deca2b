"""A page's view, declared once: every setting the link carries, with its link name, the session
key its widget owns, its default, its one parser, and how a reader sees it (layers and heads
from 1, held from 0; docs/architecture.md, "The link", lists the shared names). ui/state.py's read_view (from the link, else the session) and
write_view (back into the link) do the round trip the pages wrote out by hand; fitting a value to
the model shown stays state.fit, which the shared pickers (ui/widgets.py) call.

A link name has one parser on every page: the shared fields below (layer, head, kind, q, temp,
ltemp) are the way to declare those names, and tests/test_views.py reads every Field(...) in ui/ and
pages/ and fails on a name parsed two ways, and on any file of pages/ that calls url_param or
st.query_params itself. A setting whose link name changed keeps its old links
working: Field.old names the old key and Field.from_old reads it (read_view rewrites such a link
into the new name once, with the usual notice when the old value is bad).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from model.trace import KINDS

from .state import choice, clamped


@dataclass(frozen=True)
class Field:
    """One setting of a view. parse(raw) reads the link's text (ValueError when bad); one_based:
    the link and the reader count from 1, the page from 0; omit_default: the default is left out
    of the link (a short link for the usual view); old, from_old: the link name this setting had
    before, and how that name's value reads as this field's value (ValueError when bad)."""

    link: str
    key: str
    default: Any
    parse: Callable[[str], Any]
    one_based: bool = False
    omit_default: bool = False
    old: str | None = None
    from_old: Callable[[str], Any] | None = None

    def from_link(self, raw: str) -> Any:
        value = self.parse(raw)
        return value - 1 if self.one_based and _counted(value) else value

    def to_link(self, value: Any) -> Any:
        """The value as the link writes it: a number from 1 where one_based (a word such as "mean"
        as it is), a list as "a,b,c"."""
        if value is None:
            return None
        if isinstance(value, (list, tuple)):
            return ",".join(str(v) for v in value)
        return value + 1 if self.one_based and _counted(value) else value


def _counted(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def whole(raw: str) -> int:
    """A whole number as the link writes it ("3"; "3.0" is refused)."""
    return int(raw)


def count(raw: str) -> int:
    """A whole number from 0 (a training step, a decoding step)."""
    value = int(raw)
    if value < 0:
        raise ValueError(raw)
    return value


def whole_or_mean(raw: str) -> int | str:
    """A head, or "mean" (the mean of the heads)."""
    return "mean" if raw == "mean" else int(raw)


KIND = choice(tuple(KINDS))


def layer(key: str, default: int | None = 0) -> Field:
    """?layer=N: a layer, 1-based in the link and on the page, 0-based in the session."""
    return Field("layer", key, default, whole, one_based=True)


def head(key: str, default: int | str = 0) -> Field:
    """?head=N: a head, 1-based in the link and on the page, 0-based in the session; ?head=mean:
    the mean of the heads, on a page that offers it (elsewhere state.fit shows the first head and
    says so, as for a head past the model's last)."""
    return Field("head", key, default, whole_or_mean, one_based=True)


def kind(key: str, default: str | None = None) -> Field:
    """?kind=encoder|decoder|cross: an attention kind (the kind picker fits it to the model's kinds)."""
    return Field("kind", key, default, KIND)


def row(key: str, default: int | None = None) -> Field:
    """?q=N: the row (the query token) a page shows, by its position from 0, as the tables number
    it (state.fit fits it to the sentence)."""
    return Field("q", key, default, int)


# the softmax temperatures a link may ask for: the attention view's logarithmic slider spans the
# same range (ui/attention_view/view.js), and T = 1 sits at its middle
T_MIN, T_MAX = 0.05, 20.0
TEMPERATURE = clamped("temp", T_MIN, T_MAX)  # outside the range: its end, with a notice; NaN refused
LAYER_TEMPERATURE = clamped("ltemp", T_MIN, T_MAX)


def temperature(key: str) -> Field:
    """?temp=T: the softmax temperature the model runs at (every layer, or the layer the page
    says; 1: the model's own), any T in T_MIN..T_MAX; left out of the link at 1."""
    return Field("temp", key, 1.0, TEMPERATURE, omit_default=True)


def layer_temperature(key: str) -> Field:
    """?ltemp=T: the shown layer's own temperature, applied in the browser to the weights it has
    (exact for that layer alone, ui/attention_view); left out of the link at 1."""
    return Field("ltemp", key, 1.0, LAYER_TEMPERATURE, omit_default=True)


# how the next token is drawn, on every page that samples (the generation and temperature pages):
# one range each, so ?stemp=4 reads the same on both, and the sliders span the same
STEMP_MAX = 5.0  # the sampling temperature's top (0: greedy, always the likeliest token)
TOPK_MAX = 1_000_000  # past the vocabulary: state.fit fits it to the model's


def sampling(prefix: str) -> tuple[Field, Field, Field]:
    """?stemp, ?topk, ?topp: the sampling temperature (0 to STEMP_MAX), top-k (0: off) and top-p
    (0.01 to 1), in session keys PREFIX_stemp, PREFIX_topk, PREFIX_topp (ui.widgets.sampling_knobs
    draws them); each left out of the link at its default."""
    return (
        Field("stemp", f"{prefix}_stemp", 1.0, clamped("stemp", 0.0, STEMP_MAX), omit_default=True),
        Field("topk", f"{prefix}_topk", 0, clamped("topk", 0, TOPK_MAX, int), omit_default=True),
        Field("topp", f"{prefix}_topp", 1.0, clamped("topp", 0.01, 1.0), omit_default=True),
    )

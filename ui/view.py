"""A page's view, declared once: every setting the link carries, with its link name, the session
key its widget owns, its default, its one parser, and how a reader sees it (layers, heads and
steps from 1, held from 0). ui/state.py's read_view (from the link, else the session) and
write_view (back into the link) do the round trip the pages wrote out by hand; fitting a value to
the model shown stays state.fit, which the shared pickers (ui/widgets.py) call.

A link name has one parser on every page: the shared fields below (layer, head, kind) are the
way to declare those names, and tests/test_views.py reads every Field(...) in ui/ and pages/ and
fails on a name parsed two ways. Pages that still call state.url_param by hand are listed there,
and the list may only shrink.
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
    of the link (a short link for the usual view)."""

    link: str
    key: str
    default: Any
    parse: Callable[[str], Any]
    one_based: bool = False
    omit_default: bool = False

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


def layer(key: str, default: int = 0) -> Field:
    """?layer=N: a layer, 1-based in the link and on the page, 0-based in the session."""
    return Field("layer", key, default, whole, one_based=True)


def head(key: str, default: int = 0) -> Field:
    """?head=N: a head, 1-based in the link and on the page, 0-based in the session."""
    return Field("head", key, default, whole, one_based=True)


def kind(key: str, default: str | None = None) -> Field:
    """?kind=encoder|decoder|cross: an attention kind (the kind picker fits it to the model's kinds)."""
    return Field("kind", key, default, KIND)


# The attention temperature's range on every page (the browser's slider spans it too: view.js)
T_MIN, T_MAX = 0.05, 20.0
TEMPERATURE = clamped("temp", T_MIN, T_MAX)
LAYER_TEMPERATURE = clamped("ltemp", T_MIN, T_MAX)


def temperature(key: str) -> Field:
    """?temp=T: the attention temperature where the page applies it (every layer, or the layers
    its scope names: the model is re-run), clamped to T_MIN..T_MAX with a notice."""
    return Field("temp", key, 1.0, TEMPERATURE, omit_default=True)


def layer_temperature(key: str) -> Field:
    """?ltemp=T: the shown layer's own temperature, applied in the browser (ui/attention_view:
    exact for that layer alone), clamped as ?temp."""
    return Field("ltemp", key, 1.0, LAYER_TEMPERATURE, omit_default=True)

"""The best goal F1 choice when a few conditions ("hubs") link every cluster of choices: a dynamic
programme over which hubs each goal holds so far.

``f1_parts.py`` splits the choices of both goals into clusters that share no condition but the hubs
(a hub is a condition two parts of one goal may both bring, such as ``near(s0, table)`` in the options
of many keys). What a cluster's choice is worth then depends on the other clusters only through the
hubs each goal ends up holding, so the best sum over clusters is a programme whose state is the set of
hubs held on each side (two bits a hub): a layer per cluster, each cluster collapsed to the best choice
per set of hubs it brings. With h hubs there are at most 4^h states, so the caller uses it only for a
few hubs (``HUB_LIMIT``) and stops past ``STATE_LIMIT`` states.

Besides the best sum, the listing order's first best choice is found part by part (``Programme.
fits``): with the best sum of every completion after a layer kept (computed backwards), whether a
partial choice can still reach the maximum is one pass over the states before its layer.
"""

from __future__ import annotations

from collections.abc import Callable

from plansight.analyses.semantics.budget import Meter

HUB_LIMIT = 8
"""Hubs past which the programme is not tried (4^8 states at most)."""
STATE_LIMIT = 20_000
"""States of one layer past which the programme gives up (the caller's search is used instead)."""

Patterns = dict[int, tuple[int, tuple[int, ...]]]
"""Per set of hubs a cluster's choice brings (two bits a hub: reference, candidate), its best value and
the first choice (an option per part of the cluster) reaching it."""


class TooManyStates(Exception):
    """A layer went past ``STATE_LIMIT`` states."""


class Programme:
    """The layers of one group at one ``t``: forward values from the start, backward values to the end."""

    def __init__(self, layers: list[Patterns], final: Callable[[int], int], meter: Meter,
                 ceiling: Callable[[int, int], int] | None = None, floor: int | None = None) -> None:
        self.layers = layers
        self.final = final
        self.meter = meter
        self.ceiling = ceiling
        """At most what the layers from the given one on (and the hubs' final worth) add to a state."""
        self.floor = floor
        """A total some choice reaches: a state that cannot reach it is dropped."""
        self._forward: list[dict[int, int] | None] = [None] * (len(layers) + 1)
        self._forward[0] = {0: 0}
        self._backward: list[dict[int, int] | None] = [None] * (len(layers) + 1)

    def forward(self, layer: int) -> dict[int, int]:
        """The best sum over the layers before ``layer``, per set of hubs held after them."""
        known = self._forward[layer]
        if known is not None:
            return known
        before = self.forward(layer - 1)
        after: dict[int, int] = {}
        for state, value in before.items():
            for bits, (worth, _) in self.layers[layer - 1].items():
                following = state | bits
                total = value + worth
                if after.get(following, total - 1) < total:
                    after[following] = total
        self.meter.spend(len(before) * len(self.layers[layer - 1]))
        if self.ceiling is not None and self.floor is not None:
            ceiling, floor = self.ceiling, self.floor
            after = {state: value for state, value in after.items() if value + ceiling(state, layer) >= floor}
            self.meter.spend(len(after))
        if len(after) > STATE_LIMIT:
            raise TooManyStates
        self._forward[layer] = after
        return after

    def backward(self, layer: int) -> dict[int, int]:
        """The best sum of the layers from ``layer`` on (and the hubs' final worth), per set of hubs held
        before them (every state the forward pass reaches there)."""
        known = self._backward[layer]
        if known is not None:
            return known
        states = self.forward(layer)
        if layer == len(self.layers):
            result = {state: self.final(state) for state in states}
        else:
            later = self.backward(layer + 1)
            patterns = self.layers[layer]
            result = {state: max(worth + later.get(state | bits, _NOTHING)
                                 for bits, (worth, _) in patterns.items()) for state in states}
            self.meter.spend(len(states) * len(patterns))
        self._backward[layer] = result
        return result

    def best(self) -> tuple[int, list[tuple[int, ...]]]:
        """The best total and a choice reaching it, one per layer."""
        end = len(self.layers)
        total = max(value + self.final(state) for state, value in self.forward(end).items())
        choices: list[tuple[int, ...]] = []
        state = next(s for s, value in self.forward(end).items() if value + self.final(s) == total)
        wanted = total - self.final(state)
        for layer in range(end, 0, -1):  # back from the end: a previous state and pattern that lead here
            before = self.forward(layer - 1)
            found = next((s, bits, choice, worth) for s, value in before.items()
                         for bits, (worth, choice) in self.layers[layer - 1].items()
                         if s | bits == state and value + worth == wanted)
            state, wanted = found[0], wanted - found[3]
            choices.append(found[2])
        choices.reverse()
        return total, choices

    def fits(self, layer: int, patterns: Patterns) -> int:
        """The best total when layer ``layer`` may only take ``patterns`` (the others as they are)."""
        if not patterns:
            return _NOTHING
        later = self.backward(layer + 1)
        before = self.forward(layer)
        self.meter.spend(len(before) * len(patterns))
        return max(value + worth + later.get(state | bits, _NOTHING) for state, value in before.items()
                   for bits, (worth, _) in patterns.items())

    def narrow(self, layer: int, patterns: Patterns) -> None:
        """Layer ``layer`` now takes only ``patterns``: forget what depends on it."""
        self.layers[layer] = patterns
        for later in range(layer + 1, len(self._forward)):
            self._forward[later] = None
        for earlier in range(layer + 1):
            self._backward[earlier] = None


_NOTHING = -(1 << 62)

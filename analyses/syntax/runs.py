"""Lists of model nodes moved by an edit without copying them until someone reads them.

An edit at the start of ``:init`` of a 1 MB problem moves the 40,000 facts and goal atoms after it;
copying them with new spans (``span_shift.py``) took ~85 ms of a ~185 ms re-parse. Here the list the
re-parse builds is a :class:`Run`: a few *pieces*, each a window of an earlier version's tuple of nodes
and the number of characters its nodes have moved since. Moving a whole run only adds to each piece's
delta and splicing an edit in splits one piece, so both cost per piece, not per node. The offsets of
the elements are still known exactly (a node's span plus its piece's delta), which is all the next
incremental re-parse needs to find where an edit falls.

A run reaches the model as a :class:`~plansight.analyses.model.deferred.Deferred` field value: the
first read of ``problem.init`` (or ``goal``, ``objects``...) copies the moved nodes once and every
reader sees an ordinary tuple, equal to a full parse's. The earlier version's nodes are never changed,
so a model the server still holds keeps its own offsets.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from itertools import chain, repeat
from operator import add, attrgetter
from typing import Any

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.deferred import Deferred, built
from plansight.analyses.model.pddl import And
from plansight.analyses.syntax.build_model import SKIPPED
from plansight.analyses.syntax.span_shift import shifted, shifted_span

Piece = tuple[tuple[Any, ...], int, int, int]
"""``(nodes, lo, hi, delta)``: ``nodes[lo:hi]``, each to be moved by ``delta`` characters."""


_START_OF = attrgetter("span.start")


def _start(node: Any) -> int:
    return node.span[0]  # type: ignore[no-any-return]


def _end(node: Any) -> int:
    return node.span[1]  # type: ignore[no-any-return]


class Run(Deferred):
    """The elements of a list as pieces of earlier versions' tuples; :meth:`materialize` gives the tuple a
    full parse would have built."""

    __slots__ = ("_state",)

    def __init__(self, pieces: tuple[Piece, ...]) -> None:
        counts = []
        total = 0
        for _nodes, lo, hi, _delta in pieces:
            total += hi - lo
            counts.append(total)
        # one attribute, swapped whole when the run is materialised while another thread reads it
        self._state: tuple[tuple[Piece, ...], list[int], tuple[Any, ...] | None] = (pieces, counts, None)

    @classmethod
    def of(cls, nodes: Any) -> Run:
        """``nodes`` (a tuple or list of nodes, or a run) as a run."""
        if isinstance(nodes, Run):
            return nodes
        items = tuple(nodes)
        return cls(((items, 0, len(items), 0),) if items else ())

    @staticmethod
    def join(*parts: Run | tuple[Any, ...]) -> Run:
        """The runs and tuples one after the other."""
        pieces: list[Piece] = []
        for part in parts:
            pieces.extend(Run.of(part)._state[0])
        return Run(tuple(pieces))

    def __len__(self) -> int:
        counts = self._state[1]
        return counts[-1] if counts else 0

    def __iter__(self) -> Iterator[Any]:
        return iter(self.materialize())

    def moved(self, delta: int) -> Run:
        """This run with every element moved by ``delta`` more characters."""
        if delta == 0:
            return self
        return Run(tuple((nodes, lo, hi, moved + delta) for nodes, lo, hi, moved in self._state[0]))

    def window(self, start: int, stop: int) -> Run:
        """The elements ``start`` to ``stop`` (indices, ``stop`` excluded)."""
        pieces, counts, _ = self._state
        out: list[Piece] = []
        before = 0
        for (nodes, lo, hi, delta), upto in zip(pieces, counts, strict=True):
            low, high = max(start - before, 0), min(stop - before, hi - lo)
            if low < high:
                out.append((nodes, lo + low, lo + high, delta))
            before = upto
            if before >= stop:
                break
        return Run(tuple(out))

    def node(self, index: int) -> tuple[Any, int]:
        """Element ``index`` as an earlier version has it, and by how much it has moved since."""
        pieces, counts, _ = self._state
        which = bisect_right(counts, index)
        nodes, lo, _hi, delta = pieces[which]
        before = counts[which - 1] if which else 0
        return nodes[lo + index - before], delta

    def span(self, index: int) -> Span:
        """The span element ``index`` has in the version this run belongs to."""
        node, delta = self.node(index)
        return shifted_span(node.span, delta)

    def ending_by(self, offset: int) -> int:
        """How many elements end at or before ``offset`` (they are in text order)."""
        count = 0
        for nodes, lo, hi, delta in self._state[0]:
            if _end(nodes[hi - 1]) + delta <= offset:
                count += hi - lo
                continue
            return count + bisect_right(nodes, offset - delta, lo, hi, key=_end) - lo
        return count

    def starting_before(self, offset: int) -> int:
        """How many elements start before ``offset``."""
        count = 0
        for nodes, lo, hi, delta in self._state[0]:
            if _start(nodes[hi - 1]) + delta < offset:
                count += hi - lo
                continue
            return count + bisect_left(nodes, offset - delta, lo, hi, key=_start) - lo
        return count

    def starts(self) -> list[int]:
        """Where each element starts in the version this run belongs to, without moving the nodes."""
        out: list[int] = []
        for nodes, lo, hi, delta in self._state[0]:
            out.extend(map(add, map(_START_OF, nodes[lo:hi]), repeat(delta)) if delta else map(
                _START_OF, nodes[lo:hi]))
        return out

    def originals(self) -> tuple[Any, ...]:
        """The elements as the earlier versions have them, not moved (nothing is copied): the same objects
        as the previous version's where the edit did not touch them, so a reader that only needs their
        content, or to find what changed by identity, can use these instead of :meth:`materialize`."""
        pieces = self._state[0]
        if len(pieces) == 1 and pieces[0][1] == 0 and pieces[0][2] == len(pieces[0][0]):
            return tuple(pieces[0][0])
        return tuple(chain.from_iterable(nodes[lo:hi] for nodes, lo, hi, _delta in pieces))

    def deltas(self) -> list[int]:
        """By how much each element of :meth:`originals` has moved since (its current offsets are its
        original ones plus this)."""
        return list(chain.from_iterable(repeat(delta, hi - lo) for _nodes, lo, hi, delta in self._state[0]))

    def current(self, index: int) -> Any:
        """Element ``index`` with its span in the version this run belongs to (a copy when it has moved;
        not kept: read it once per use)."""
        node, delta = self.node(index)
        return node if delta == 0 else shifted(node, delta)

    def materialize(self) -> tuple[Any, ...]:
        """The elements with their spans moved: nodes of pieces that did not move are shared, the others
        copied (once: the result replaces the pieces)."""
        pieces, _counts, done = self._state
        if done is not None:
            return done
        parts: list[Any] = []
        for nodes, lo, hi, delta in pieces:
            window = nodes if lo == 0 and hi == len(nodes) else nodes[lo:hi]
            parts.append(window if delta == 0 else shifted(window, delta))
        value = parts[0] if len(parts) == 1 and type(parts[0]) is tuple else tuple(chain.from_iterable(parts))
        self._state = (((value, 0, len(value), 0),), [len(value)], value) if value else ((), [], value)
        return value


class MovedAnd(Deferred):
    """A conjunction whose arguments are a :class:`Run` (the ``(and ...)`` of a long goal)."""

    __slots__ = ("_value", "args", "span")

    def __init__(self, args: Run, span: Span) -> None:
        self.args = args
        self.span = span
        self._value: And | None = None

    def materialize(self) -> And:
        """The :class:`And` itself."""
        if self._value is None:
            self._value = And(self.args.materialize(), self.span)
        return self._value


class Moved(Deferred):
    """Any other node (a metric, a constraint, the domain's name...) to be moved by ``delta``."""

    __slots__ = ("_value", "delta", "value")

    def __init__(self, value: Any, delta: int) -> None:
        self.value = value
        self.delta = delta
        self._value: Any = None

    def materialize(self) -> Any:
        """The node copied with its spans moved."""
        if self._value is None:
            self._value = shifted(self.value, self.delta)
            self.value = None  # the earlier version's node: no longer needed to build this one
        return self._value


def moved_lazily(payload: Any, delta: int) -> Any:
    """A section's payload moved by ``delta``, as a :class:`Deferred` that copies nothing yet (plain values
    and unmoved payloads come back as they are)."""
    if delta == 0 or payload is None or payload is SKIPPED or isinstance(payload, (str, int, float)):
        return payload
    cls = type(payload)
    if cls is Run:
        return payload.moved(delta)
    if cls is tuple or cls is list:
        return Run.of(payload).moved(delta)
    if cls is And:
        return MovedAnd(Run.of(payload.args).moved(delta), shifted_span(payload.span, delta))
    if cls is MovedAnd:
        return MovedAnd(payload.args.moved(delta), shifted_span(payload.span, delta))
    if cls is Moved and payload._value is None:
        return Moved(payload.value, payload.delta + delta)
    if cls is Moved:
        return Moved(payload._value, delta)
    return Moved(payload, delta)


def _as_run(value: Any) -> Run:
    """A list field's value as :func:`~plansight.analyses.model.deferred.peek` gives it (a tuple, a run or
    a run's deferred conjunction's arguments) as a run, copying nothing."""
    return value if isinstance(value, Run) else Run.of(built(value))


def list_length(value: Any) -> int:
    """How many elements a list field's peeked value has, without building it."""
    return len(value) if isinstance(value, Run) else len(built(value))


def list_window(value: Any, start: int, stop: int | None) -> tuple[Any, ...]:
    """Elements ``start`` to ``stop`` (indices, ``stop`` excluded, negatives from the end as in a slice) of a
    list field's peeked value, with their current spans: only those are copied, for readers that show the
    first or last few (the outline)."""
    if not isinstance(value, Run):
        return tuple(built(value)[start:stop])
    start, stop, _ = slice(start, stop).indices(len(value))
    return value.window(start, stop).materialize() if start < stop else ()


def list_run(value: Any) -> Run:
    """A list field's peeked value as a run, never built: readers that group or filter the elements by
    their content read :meth:`Run.originals` (not moved), and move only those they show
    (:meth:`Run.current`, :meth:`Run.span`)."""
    return _as_run(value)


def list_touching(value: Any, start: int, end: int) -> tuple[Any, ...]:
    """The elements of a list field's peeked value whose spans touch ``start``..``end`` (ends included),
    with their current spans: for readers that look for what is at a position (a hover, a quick fix)
    and would otherwise walk, and build, the whole list. The elements are in text order."""
    run = _as_run(value)
    first = run.ending_by(start - 1)
    last = run.starting_before(end + 1)
    return run.window(first, last).materialize() if first < last else ()


def formula_parts(value: Any, start: int, end: int) -> tuple[Any, ...]:
    """What a reader looking for a node at ``start``..``end`` inside a formula field's peeked value (the
    goal) must walk: the arguments of a long moved conjunction that touch that range, or else the
    formula itself (built alone). A node inside the range lies inside one of them, so a search over
    these finds what a walk of the whole formula finds."""
    if isinstance(value, MovedAnd):
        return list_touching(value.args, start, end)
    return (built(value),)

"""Fields of a model node whose value may be computed on first read.

An edit near the start of a large problem moves the offsets of every fact and goal atom after it.
Copying them all with their new spans costs far more than re-parsing the edit itself, and the copy is
often not needed at all before the next keystroke. So the incremental re-parse
(``analyses/syntax/incremental.py``) may store, in a few fields of a :class:`~.pddl.Problem`, a
:class:`Deferred` that says how to build the value (which earlier nodes, moved by how much) instead
of the value. The field's descriptor builds it on the first read and stores the result, so every
reader sees an ordinary tuple or formula, equal to what a full parse gives, and no reader needs to
know this happened.
"""

from __future__ import annotations

import threading
from typing import Any

_LOCK = threading.RLock()
"""Held while a deferred value is built, so two threads reading the same field get the same object
(caches key on identity). Re-entrant: building one value may read another."""


class Deferred:
    """A value still to be built; subclasses say how in :meth:`materialize`."""

    __slots__ = ()

    def materialize(self) -> Any:
        """The value itself, built under the lock. A deferred value may be shared (by a model field and by
        the outline the next edit starts from), so one that is costly to build keeps what it built."""
        raise NotImplementedError


class _DeferredField:
    """Wraps a slot's member descriptor: reads build a :class:`Deferred` found in the slot and store the
    result in its place."""

    __slots__ = ("_member",)

    def __init__(self, member: Any) -> None:
        self._member = member

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        if instance is None:
            return self._member
        value = self._member.__get__(instance, owner)
        if isinstance(value, Deferred):
            with _LOCK:
                value = self._member.__get__(instance, owner)
                if isinstance(value, Deferred):
                    value = value.materialize()
                    self._member.__set__(instance, value)
        return value

    def __set__(self, instance: object, value: Any) -> None:
        self._member.__set__(instance, value)

    def __delete__(self, instance: object) -> None:
        self._member.__delete__(instance)


def deferrable(cls: type, *fields: str) -> None:
    """Let ``fields`` of the slotted dataclass ``cls`` hold a :class:`Deferred` until first read."""
    for field in fields:
        setattr(cls, field, _DeferredField(vars(cls)[field]))

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
    """Wraps a slot's member descriptor: the first read of any deferred field of an instance builds every
    :class:`Deferred` in its deferrable slots and stores the results in their place. All at once,
    because a reader of one list (the checks) reads the others right after, and the checks measured
    ~15 % slower on a 1 MB problem when its lists were built one by one between them."""

    __slots__ = ("_member", "_siblings")

    def __init__(self, member: Any, siblings: list[Any]) -> None:
        self._member = member
        self._siblings = siblings

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        if instance is None:
            return self._member
        value = self._member.__get__(instance, owner)
        if isinstance(value, Deferred):
            with _LOCK:
                for member in self._siblings:
                    pending = member.__get__(instance, owner)
                    if isinstance(pending, Deferred):
                        member.__set__(instance, pending.materialize())
            value = self._member.__get__(instance, owner)
        return value

    def __set__(self, instance: object, value: Any) -> None:
        self._member.__set__(instance, value)

    def __delete__(self, instance: object) -> None:
        self._member.__delete__(instance)


def deferrable(cls: type, *fields: str) -> None:
    """Let ``fields`` of the slotted dataclass ``cls`` hold a :class:`Deferred` until first read."""
    members = [vars(cls)[field] for field in fields]
    for field, member in zip(fields, members, strict=True):
        setattr(cls, field, _DeferredField(member, members))


def settle(instance: object) -> None:
    """Build every deferred field of ``instance`` now (those of a plain instance are already built)."""
    for name, attribute in vars(type(instance)).items():
        if isinstance(attribute, _DeferredField):
            getattr(instance, name)  # the first read of a deferred one builds them all


def peek(instance: object, field: str) -> Any:
    """What ``field`` of ``instance`` holds now, a :class:`Deferred` included, without building anything:
    for readers that can use a deferred value as it is (the incremental checks align a moved list with
    the previous version's through its pieces, ``checks/problem_incremental.py``) or only ask whether
    the field is set."""
    attribute = vars(type(instance)).get(field)
    if isinstance(attribute, _DeferredField):
        return attribute._member.__get__(instance, type(instance))
    return getattr(instance, field)


def built(value: Any) -> Any:
    """``value`` as its field's reader sees it: a :class:`Deferred` built (alone, not its siblings: the
    value is kept by the deferred itself, so a later read of the field gives the same object)."""
    if isinstance(value, Deferred):
        with _LOCK:
            return value.materialize()
    return value

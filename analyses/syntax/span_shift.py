"""Copies of model nodes, tokens and diagnostics moved by a number of characters.

When an edit re-parses one section (``incremental.py``), everything after it keeps its structure
but not its offsets: the model stores absolute spans (``spans.py``), so the nodes after the edit are
copied with every span moved by the edit's change in length. This is the one part of an incremental
re-parse that grows with the file, so the shapes that make up the bulk of a large problem (names,
atoms, negated atoms) are copied through their slots directly, without the frozen dataclasses'
``__init__``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

from plansight.analyses.diagnostics.diagnostic import Diagnostic, Related
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.pddl import Atom, Name, Not
from plansight.analyses.syntax.build_model import SKIPPED, Section
from plansight.analyses.syntax.lexer import Token

T = TypeVar("T")

_new = object.__new__
_new_span = tuple.__new__


class NotShiftable(Exception):
    """A value of a type this module does not know how to move; the caller parses the file in full."""


def _slot_setter(cls: type, field: str) -> Callable[[object, object], None]:
    setter: Callable[[object, object], None] = vars(cls)[field].__set__
    return setter


_set_key, _set_text, _set_name_span = (_slot_setter(Name, f) for f in ("key", "text", "span"))
_set_predicate, _set_args, _set_atom_span = (_slot_setter(Atom, f) for f in ("predicate", "args", "span"))
_set_not_arg, _set_not_span = (_slot_setter(Not, f) for f in ("arg", "span"))


def shifted_span(span: Span, delta: int) -> Span:
    """``span`` moved by ``delta`` characters."""
    return _new_span(Span, (span[0] + delta, span[1] + delta))


def _name(name: Name, delta: int) -> Name:
    copy = _new(Name)
    _set_key(copy, name.key)
    _set_text(copy, name.text)
    span = name.span
    _set_name_span(copy, _new_span(Span, (span[0] + delta, span[1] + delta)))
    return copy


def _atom(atom: Atom, delta: int) -> Atom:
    return _items((atom,), delta)[0]  # type: ignore[no-any-return]


def _items(items: tuple[Any, ...] | list[Any], delta: int) -> list[Any]:
    """The hot loop: every element of a long :init or goal, with atoms and their names copied inline
    (a function call per name would double the cost)."""
    out: list[Any] = []
    append = out.append
    new, new_span, span_cls = _new, _new_span, Span
    set_key, set_text, set_name_span = _set_key, _set_text, _set_name_span
    for item in items:
        if type(item) is not Atom:
            append(shifted(item, delta))
            continue
        predicate = item.predicate
        head = new(Name)
        set_key(head, predicate.key)
        set_text(head, predicate.text)
        span = predicate.span
        set_name_span(head, new_span(span_cls, (span[0] + delta, span[1] + delta)))
        args = []
        for arg in item.args:
            name = new(Name)
            set_key(name, arg.key)
            set_text(name, arg.text)
            span = arg.span
            set_name_span(name, new_span(span_cls, (span[0] + delta, span[1] + delta)))
            args.append(name)
        atom = new(Atom)
        _set_predicate(atom, head)
        _set_args(atom, tuple(args))
        span = item.span
        _set_atom_span(atom, new_span(span_cls, (span[0] + delta, span[1] + delta)))
        append(atom)
    return out


def _not(negation: Not, delta: int) -> Not:
    copy = _new(Not)
    _set_not_arg(copy, shifted(negation.arg, delta))
    span = negation.span
    _set_not_span(copy, _new_span(Span, (span[0] + delta, span[1] + delta)))
    return copy


def _token(token: Token, delta: int) -> Token:
    copy = Token(token.kind, token.text, token.start + delta, token.end + delta, token.value)
    copy.type = token.type
    return copy


def _section(section: Section, delta: int) -> Section:
    return Section(_token(section.keyword, delta), shifted(section.payload, delta),
                   shifted_span(section.span, delta))


_SCALARS = (str, int, float, bool, type(None))
_FIELDS: dict[type, tuple[tuple[str, Callable[[object, object], None]], ...]] = {}


def _dataclass(node: Any, delta: int) -> Any:
    cls = type(node)
    fields = _FIELDS.get(cls)
    if fields is None:
        if not dataclasses.is_dataclass(cls) or "__slots__" not in vars(cls):
            raise NotShiftable(cls.__name__)
        fields = _FIELDS[cls] = tuple((f.name, _slot_setter(cls, f.name)) for f in dataclasses.fields(cls))
    copy = _new(cls)
    for name, setter in fields:
        setter(copy, shifted(getattr(node, name), delta))
    return copy


def shifted(value: T, delta: int) -> T:
    """``value`` (a model node, a tuple or list of them, a span, a token, a section or a plain value) with
    every offset in it moved by ``delta``; plain values come back as they are."""
    cls = type(value)
    result: Any
    if cls is Atom:
        result = _atom(value, delta)  # type: ignore[arg-type]
    elif cls is Name:
        result = _name(value, delta)  # type: ignore[arg-type]
    elif cls is Not:
        result = _not(value, delta)  # type: ignore[arg-type]
    elif cls is Span:
        result = shifted_span(value, delta)  # type: ignore[arg-type]
    elif cls is tuple:
        result = tuple(_items(value, delta))  # type: ignore[arg-type]
    elif cls is list:
        result = _items(value, delta)  # type: ignore[arg-type]
    elif isinstance(value, _SCALARS) or value is SKIPPED:
        result = value
    elif cls is Token:
        result = _token(value, delta)  # type: ignore[arg-type]
    elif cls is Section:
        result = _section(value, delta)  # type: ignore[arg-type]
    else:
        result = _dataclass(value, delta)
    return result  # type: ignore[no-any-return]


def shifted_diagnostic(diagnostic: Diagnostic, delta: int) -> Diagnostic:
    """``diagnostic`` moved by ``delta``, the places it cites in the same document included.

    Raises :class:`NotShiftable` when it carries quick-fix data, which may hold offsets of its own.
    """
    if diagnostic.data:
        raise NotShiftable(diagnostic.code)
    related = tuple(
        r if r.path is not None else Related(r.message, shifted_span(r.span, delta), r.path)
        for r in diagnostic.related
    )
    return dataclasses.replace(diagnostic, span=shifted_span(diagnostic.span, delta), related=related)

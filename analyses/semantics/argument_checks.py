"""What the problem and plan checks share: which names are objects, what type each one has, and how
an argument list is judged against declared parameters.

A large problem has tens of thousands of init atoms over thousands of objects, so the type question
("may `b7` stand where `?x - block` is declared?") is answered from tables computed once: each
object's type ancestry, each parameter's accepted types, and per accepted-type set the objects that
fit it, so a correct argument costs one hash lookup.
"""

from __future__ import annotations

import copy
from collections.abc import Container, Iterable, Mapping, Sequence
from difflib import get_close_matches

from plansight.analyses.diagnostics.suggest import suffix
from plansight.analyses.model.pddl import (
    Action,
    FunctionDecl,
    Name,
    PredicateDecl,
    Problem,
    TypedName,
    TypeRef,
    atom_text,
)
from plansight.analyses.model.vocabulary import OBJECT, Vocabulary

_UNSEEN = object()
SUGGESTION_BUDGET = 200_000
"""Name comparisons spent on "did you mean" per problem (about 20 words against 10,000 objects)."""
Ancestry = frozenset[str] | None
"""The types a value belongs to (its own and every supertype); None for an untyped value, which
fits any parameter (the lenient reading of :func:`Vocabulary.fits`)."""

Accepted = frozenset[str] | None
"""The type names a parameter accepts; None for an untyped or ``object`` parameter."""


Signature = tuple[tuple[TypedName, ...], tuple[Accepted, ...]]
"""A declaration's parameters and, per parameter, the types it accepts."""


def accepted(type_ref: TypeRef | None, known_types: Container[str]) -> Accepted:
    """A parameter of an undeclared type accepts anything: the domain's own diagnostic says what is
    wrong, and every argument passed to it must not be flagged as well."""
    if type_ref is None:
        return None
    keys = frozenset(t.key for t in type_ref.names)
    if OBJECT in keys or not keys or any(k not in known_types for k in keys):
        return None
    return keys


def fits(ancestry: Ancestry, wanted: Accepted) -> bool:
    """Whether a value of ``ancestry`` may be passed where ``wanted`` is accepted; an unknown type on either
    side is given the benefit of the doubt.
    """
    return wanted is None or ancestry is None or not wanted.isdisjoint(ancestry)


def ancestry_of(vocab: Vocabulary, type_ref: TypeRef | None) -> Ancestry:
    """Every type a value of ``type_ref`` belongs to (its ancestors included), or None when untyped."""
    if type_ref is None:
        return None
    result: set[str] = set()
    for t in type_ref.names:
        result |= vocab.ancestors(t.key)
    return frozenset(result)


def describe_type(type_ref: TypeRef | None) -> str:
    """```block``` or ```car` or `truck``` for messages."""
    if type_ref is None:
        return f"`{OBJECT}`"
    return " or ".join(f"`{t.display}`" for t in type_ref.names)


def mismatch_message(arg: Name, actual: TypeRef | None, owner: Name, index: int, parameter: TypedName) -> str:
    """The message for an argument of the wrong type, naming the argument, the parameter and both types."""
    return (
        f"`{arg.display}` has type {describe_type(actual)}, but the {ordinal(index + 1)} argument of "
        f"`{owner.display}` (`{parameter.name.display}`) must have type {describe_type(parameter.type)}."
    )


def swapped(values: list[object], wanted: tuple[Accepted, ...], index: int) -> int | None:
    """The other argument position that, exchanged with ``index``, makes both fit (a common slip in
    LLM-written plans: `(pick room1 ball1)` for `(pick ball1 room1)`)."""
    value = values[index]
    if value is None or not isinstance(value, frozenset):
        return None
    for other, other_value in enumerate(values):
        if (
            other != index
            and isinstance(other_value, frozenset)
            and not fits(other_value, wanted[other])
            and fits(value, wanted[other])
            and fits(other_value, wanted[index])
        ):
            return other
    return None


def swap_hint(owner: Name, args: Sequence[Name], values: list[object], wanted: tuple[Accepted, ...],
              index: int) -> str:
    """The sentence appended to a type mismatch when exchanging two arguments fixes it, else ``""``."""
    other = swapped(values, wanted, index)
    if other is None:
        return ""
    fixed = [a.display for a in args]
    fixed[index], fixed[other] = fixed[other], fixed[index]
    return f" The arguments look swapped: `{atom_text(owner.display, fixed)}`."


def count(n: int, noun: str = "argument") -> str:
    """``n`` things in words (``no arguments``, ``1 argument``, ``3 arguments``)."""
    if n == 0:
        return f"no {noun}s"
    return f"1 {noun}" if n == 1 else f"{n} {noun}s"


def arity_message(what: Name, expected: int, got: int) -> str:
    """The message for a call with the wrong number of arguments."""
    return f"`{what.display}` takes {count(expected)}, got {got}."


def ordinal(n: int) -> str:
    """``n`` as an English ordinal (1st, 2nd, 11th, 23rd)."""
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


class Signatures:
    """Arity and accepted argument types of declared predicates, functions or actions, computed on
    first use of each name."""

    __slots__ = ("_cache", "_declarations", "_types")

    def __init__(
        self, declarations: Mapping[str, PredicateDecl | FunctionDecl | Action], known_types: Container[str]
    ) -> None:
        self._declarations = declarations
        self._types = known_types
        self._cache: dict[str, Signature] = {}

    def get(self, key: str) -> Signature | None:
        """The parameters of ``key`` and the types each accepts, computed on first use and cached; None when
        undeclared.
        """
        found = self._cache.get(key)
        if found is None:
            decl = self._declarations.get(key)
            if decl is None:
                return None
            parameters = decl.parameters
            found = (parameters, tuple(accepted(p.type, self._types) for p in parameters))
            self._cache[key] = found
        return found


class ObjectTable:
    """Every name a problem may use as an object (its objects, then the domain's constants), with
    each one's type ancestry.

    ``typed`` is False for an untyped domain: types written on objects there are a mistake reported
    elsewhere and must not cause type mismatches as well.
    """

    def __init__(self, vocab: Vocabulary, problem: Problem | None, typed: bool = True) -> None:
        self.vocab = vocab
        self.declared: dict[str, TypedName] = dict(vocab.constants)
        seen: set[str] = set()
        for obj in problem.objects if problem is not None else ():
            key = obj.name.key
            if key not in seen:
                seen.add(key)
                self.declared[key] = obj
        self.typed = typed
        self.ancestry: dict[str, Ancestry] = {}
        self._add_ancestries(self.declared.items())
        self._suggestions: dict[str, str] = {}
        self._budget = SUGGESTION_BUDGET
        self._fitting: dict[Accepted, Container[str]] = {None: self.ancestry}

    def _add_ancestries(self, entries: Iterable[tuple[str, TypedName]]) -> None:
        # objects of one `a b c - t` group share one TypeRef: look it up by identity first
        by_id: dict[int, Ancestry] = {}
        by_names: dict[tuple[str, ...], Ancestry] = {}
        vocab = self.vocab
        for key, entry in entries:
            type_ref = entry.type if self.typed else None
            if type_ref is None:
                self.ancestry[key] = None
                continue
            found = by_id.get(id(type_ref), _UNSEEN)
            if found is _UNSEEN:
                names = tuple(t.key for t in type_ref.names)
                if names not in by_names:
                    # an undeclared type is reported as such; its objects then fit anywhere
                    known = all(map(vocab.declares_type, names))
                    by_names[names] = ancestry_of(vocab, type_ref) if known else None
                found = by_id[id(type_ref)] = by_names[names]
            self.ancestry[key] = found  # type: ignore[assignment]

    def updated(self, removed: Iterable[str], added: Sequence[TypedName]) -> ObjectTable:
        """This table after an edit of ``:objects`` that took the objects ``removed`` out and declared
        ``added``, each of them declared once and none a domain constant (the caller makes sure): what a
        table built from the new list holds, made in proportion to the edit. The entries of the objects
        the edit did not touch are the previous version's declarations, whose spans may have moved since:
        a table only reads their spelling and type."""
        table = self.fresh()
        table.declared = dict(self.declared)
        table.ancestry = dict(self.ancestry)
        for key in removed:
            del table.declared[key], table.ancestry[key]
        entries = [(obj.name.key, obj) for obj in added]
        table.declared.update(entries)
        table._add_ancestries(entries)
        table._fitting = {None: table.ancestry}  # which names fit where: made again on demand
        return table

    def fresh(self) -> ObjectTable:
        """This table with its suggestions forgotten and their budget full again, sharing the lookups:
        a check that reuses the table of a previous version of the problem must suggest exactly what a
        check from scratch suggests (the budget makes suggestions depend on what came before)."""
        table = copy.copy(self)
        table._suggestions = {}
        table._budget = SUGGESTION_BUDGET
        return table

    def fitting(self, wanted: Accepted) -> Container[str]:
        """Every declared name that may stand where ``wanted`` is declared: one hash lookup per
        argument then answers both "is it declared?" and "does its type fit?"."""
        found = self._fitting.get(wanted)
        if found is None:
            assert wanted is not None
            found = frozenset(k for k, a in self.ancestry.items() if a is None or not wanted.isdisjoint(a))
            self._fitting[wanted] = found
        return found

    def suggestion(self, word: str) -> str:
        """`` Did you mean `x`?`` against the declared objects and constants.

        Cached per word, and bounded: a generated problem can misspell thousands of names against
        thousands of objects, and the first suggestions are the ones a user reads, so after
        ``SUGGESTION_BUDGET`` comparisons the rest go without one.
        """
        key = word.lower()
        found = self._suggestions.get(key)
        if found is None:
            self._budget -= len(self.declared)
            if self._budget < 0:
                return ""
            close = get_close_matches(key, self.declared, n=3, cutoff=0.75)
            found = suffix(word, [self.declared[c].name.display for c in close])
            self._suggestions[key] = found
        return found

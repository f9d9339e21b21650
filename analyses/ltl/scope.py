"""What the names of an LTL goal mean in a PDDL domain and problem.

Checking (hallucinated names), evaluation (is this atom a state or an action proposition, which
objects does a quantifier range over) and goal F1 all need the same answers, so they are worked out
once here. A quantified variable ranges over the problem's objects and the domain's constants; when
the variable is used where a typed parameter is expected (`forall x. (clear(x))` with
`(clear ?b - block)`), only objects of every such type are in its range: any other object would make
that atom false by typing alone, so leaving it in would change `forall` and `forn` answers in ways no
PDDL reader expects. :class:`VariableRange` records which uses restricted it, for messages.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from plansight.analyses.model.ltl import LtlAtom, LtlFormula, LtlQuantified, ltl_children, ltl_walk
from plansight.analyses.model.pddl import Action, Domain, PredicateDecl, Problem, TypedName, TypeRef, name
from plansight.analyses.model.vocabulary import (
    OBJECT,
    ProblemScope,
    Vocabulary,
    problem_scope,
    type_keys,
    vocabulary,
)


@dataclass(frozen=True, slots=True)
class TypedUse:
    """A variable passed where ``declaration`` expects a parameter of ``types`` (position 0-based)."""

    atom: LtlAtom
    position: int
    types: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class VariableRange:
    """The objects a quantified variable ranges over, narrowed by how the formula uses it."""

    objects: tuple[str, ...]
    uses: tuple[TypedUse, ...] = ()
    """The typed uses that narrowed the range (empty: every object and constant)."""

    @property
    def types(self) -> tuple[str, ...]:
        """The types that narrowed the range, each once, in order of use."""
        return tuple(dict.fromkeys(t for use in self.uses for t in use.types))


class FormulaMemo:
    """What was worked out once for a formula in one scope (its goal prepared for evaluation), for the
    ``SIZE`` formulas used last: judging one parsed goal on many plans prepares it once.

    Keyed by the formula object, not its value: two versions of a file can parse to equal formulas whose
    spans differ, and a failure points at its sub-formula's span. An entry holds its formula, so the
    object (and its ``id``) stays alive as long as the entry does.
    """

    SIZE = 32

    __slots__ = ("_entries", "_lock")

    def __init__(self) -> None:
        self._entries: dict[int, tuple[LtlFormula, Any]] = {}
        self._lock = threading.Lock()

    def get(self, formula: LtlFormula, compute: Callable[[], Any]) -> Any:
        """``compute()``'s value for ``formula``, computed the first time it is asked for."""
        entry = self._entries.get(id(formula))
        if entry is not None and entry[0] is formula:
            return entry[1]
        value = compute()
        with self._lock:
            entries = self._entries
            entries.pop(id(formula), None)
            if len(entries) >= self.SIZE:
                del entries[next(iter(entries))]  # the oldest
            entries[id(formula)] = (formula, value)
        return value


@dataclass(frozen=True)
class LtlScope:
    """The names an LTL goal can use. Keys are lower-cased, like :class:`~.model.Name` keys."""

    objects: tuple[str, ...] = ()
    predicates: Mapping[str, PredicateDecl] = field(default_factory=dict)
    actions: Mapping[str, Action] = field(default_factory=dict)
    ranges: Mapping[LtlQuantified, VariableRange] = field(default_factory=dict)
    vocab: Vocabulary | None = None
    problem: ProblemScope | None = None
    memo: FormulaMemo = field(default_factory=FormulaMemo, compare=False, hash=False, repr=False)
    """Work done once per formula in this scope (``evaluate.prepare``); no part of the scope's value."""

    def is_action(self, name: str) -> bool:
        """An action proposition; a name that is both (or neither) is read as a state predicate."""
        return name in self.actions and name not in self.predicates

    def parameters(self, name: str) -> tuple[TypedName, ...] | None:
        """The parameters of the predicate or action ``name``, or None when the domain declares neither."""
        declaration = self.predicates.get(name) or self.actions.get(name)
        return declaration.parameters if declaration is not None else None

    def types_of(self, name: str) -> tuple[str, ...]:
        """The types of an object or constant (``object`` when it has none or is unknown)."""
        if self.problem is not None:
            return self.problem.types_of(name) or (OBJECT,)
        constant = self.vocab.constants.get(name) if self.vocab is not None else None
        return (type_keys(constant.type) if constant is not None else ()) or (OBJECT,)

    def range_of(self, quantifier: LtlQuantified) -> tuple[str, ...]:
        """The objects ``quantifier`` ranges over: its narrowed range, or every object when nothing narrowed
        it.
        """
        if not self.ranges:  # no file narrowed any range (and hashing a quantifier walks its body)
            return self.objects
        found = self.ranges.get(quantifier)
        return found.objects if found is not None else self.objects

    @classmethod
    def abstract(cls, objects: Iterable[str], actions: Iterable[str] = ()) -> LtlScope:
        """A scope without PDDL files: the given objects, and these names read as actions."""
        return cls(objects=tuple(objects), actions={a: Action(name(a)) for a in actions})


def ltl_scope(formula: LtlFormula | None, domain: Domain | None, problem: Problem | None) -> LtlScope:
    """The scope of ``formula`` over the given files (either may be missing)."""
    vocab = vocabulary(domain) if domain is not None else None
    scope = problem_scope(vocab, problem) if vocab is not None and problem is not None else None
    objects: list[str] = []
    if vocab is not None:
        objects.extend(vocab.constants)
    if problem is not None:
        objects.extend(o.name.key for o in problem.objects)
    base = LtlScope(
        objects=tuple(dict.fromkeys(objects)),
        predicates=vocab.predicates if vocab is not None else {},
        actions=vocab.actions if vocab is not None else {},
        vocab=vocab,
        problem=scope,
    )
    if formula is None or vocab is None:
        return base
    ranges = {q: _range(q, base, vocab) for q in ltl_walk(formula) if isinstance(q, LtlQuantified)}
    return LtlScope(base.objects, base.predicates, base.actions, ranges, vocab, scope)


def _range(quantifier: LtlQuantified, base: LtlScope, vocab: Vocabulary) -> VariableRange:
    uses = tuple(typed_uses(quantifier, base))
    if not uses or not vocab.typing:
        return VariableRange(base.objects)
    objects = tuple(
        o for o in base.objects
        if all(vocab.fits(base.types_of(o), _ref(use.types)) for use in uses))
    return VariableRange(objects, uses)


def typed_uses(quantifier: LtlQuantified, scope: LtlScope) -> list[TypedUse]:
    """Where the quantifier's variable is an argument of a declared atom with a typed parameter.

    A nested quantifier of the same name shadows it, so uses inside one are not counted.
    """
    variable = quantifier.variable.key
    uses: list[TypedUse] = []
    stack: list[LtlFormula] = [quantifier.body]
    while stack:
        node = stack.pop()
        if isinstance(node, LtlQuantified):
            if node.variable.key != variable:
                stack.append(node.body)
            continue
        if isinstance(node, LtlAtom):
            parameters = scope.parameters(node.name.key)
            if parameters is None or len(parameters) != len(node.args):
                continue
            for position, (arg, parameter) in enumerate(zip(node.args, parameters, strict=True)):
                types = type_keys(parameter.type)
                if arg.key == variable and types and types != (OBJECT,):
                    uses.append(TypedUse(node, position, types))
            continue
        stack.extend(ltl_children(node))
    return uses


def _ref(types: tuple[str, ...]) -> TypeRef:
    return TypeRef(tuple(name(t) for t in types))

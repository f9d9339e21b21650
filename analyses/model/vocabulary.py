"""Symbol tables of a domain (and of a problem over it): what is declared, and the type hierarchy.

Checks, simulation and editor features all ask the same questions ("is `truck` a subtype of
`vehicle`?", "which predicates does no action change?"), so they are answered once here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from plansight.analyses.model.pddl import (
    Action,
    Atom,
    Domain,
    FunctionDecl,
    Not,
    NumericEffect,
    PredicateDecl,
    Problem,
    TypedName,
    TypeRef,
    walk,
)

OBJECT = "object"


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """Lookups over one domain. Only the first declaration of a duplicated name is kept, except for
    types: a type declared under two parents (`c - a c - b`, as in the IPC storage domain) has both."""

    domain: Domain
    types: dict[str, TypeRef | None] = field(default_factory=dict)  # type -> parent(s)
    predicates: dict[str, PredicateDecl] = field(default_factory=dict)
    functions: dict[str, FunctionDecl] = field(default_factory=dict)
    constants: dict[str, TypedName] = field(default_factory=dict)
    actions: dict[str, Action] = field(default_factory=dict)

    @property
    def requirements(self) -> frozenset[str]:
        """The domain's requirement keys (``:typing`` ...), for the checks that depend on them."""
        return frozenset(r.key for r in self.domain.requirements)

    @property
    def typing(self) -> bool:
        """Whether the domain is typed (declares `:typing`, or `:adl` which implies it)."""
        return bool({":typing", ":adl"} & self.requirements)

    def declares_type(self, type_name: str) -> bool:
        """Whether a type written in a typed list names a type of this domain (``object`` always does)."""
        return type_name == OBJECT or type_name in self.types

    def ancestors(self, type_name: str) -> frozenset[str]:
        """The type itself, every supertype, and ``object``."""
        return self._ancestors.get(type_name, frozenset((type_name, OBJECT)))

    @cached_property
    def _ancestors(self) -> dict[str, frozenset[str]]:
        result: dict[str, frozenset[str]] = {}
        for start in self.types:
            seen = {start, OBJECT}
            frontier = [start]
            while frontier:
                parent = self.types.get(frontier.pop())
                if parent is None:
                    continue
                for p in parent.names:
                    if p.key not in seen:
                        seen.add(p.key)
                        frontier.append(p.key)
            result[start] = frozenset(seen)
        return result

    def is_subtype(self, sub: str, sup: str) -> bool:
        """Whether a value of type ``sub`` may be used where ``sup`` is expected; every type is a subtype of
        ``object``.
        """
        return sup == OBJECT or sup in self.ancestors(sub)

    def fits(self, value_types: tuple[str, ...], expected: TypeRef | None) -> bool:
        """Whether a value of one of ``value_types`` may be passed where ``expected`` is declared.

        An untyped value or parameter fits anything; an ``either`` on either side fits when some
        alternative does (the lenient reading most planners take).
        """
        if expected is None or not value_types:
            return True
        wanted = [t.key for t in expected.names]
        return any(self.is_subtype(v, w) for v in value_types for w in wanted)

    def subtypes(self, type_name: str) -> frozenset[str]:
        """Every declared type that is ``type_name`` or below it."""
        return frozenset(t for t in self.types if self.is_subtype(t, type_name)) | {type_name}

    @cached_property
    def changed_predicates(self) -> frozenset[str]:
        """Predicates some action effect or derived rule can change (the others are static)."""
        changed: set[str] = set()
        for action in self.domain.actions:
            for node in walk(action.effect):
                if isinstance(node, Atom):
                    changed.add(node.predicate.key)
        for rule in self.domain.derived:
            changed.add(rule.head.name.key)
        return frozenset(changed)

    @cached_property
    def changed_functions(self) -> frozenset[str]:
        """The numeric fluents some action changes; the others are constants of the problem."""
        changed: set[str] = set()
        for action in self.domain.actions:
            for node in walk(action.effect):
                if isinstance(node, NumericEffect):
                    changed.add(node.target.function.key)
        return frozenset(changed)

    def is_static(self, predicate: str) -> bool:
        """Whether no action changes ``predicate``, so its truth is fixed by the initial state."""
        return predicate not in self.changed_predicates


def merge_parents(first: TypeRef | None, again: TypeRef | None) -> TypeRef | None:
    """The parents of a type declared twice: those of both declarations (``object`` is implicit)."""
    if again is None:
        return first
    if first is None:
        return again
    known = {p.key for p in first.names}
    added = tuple(p for p in again.names if p.key not in known)
    return TypeRef((*first.names, *added), first.span) if added else first


def type_keys(type_ref: TypeRef | None) -> tuple[str, ...]:
    """The type keys of a reference (several for an ``either``), empty when untyped."""
    return tuple(t.key for t in type_ref.names) if type_ref is not None else ()


def vocabulary(domain: Domain) -> Vocabulary:
    """Index a domain's declarations by key; the first declaration wins, as the duplicate check reports the
    others.
    """
    types: dict[str, TypeRef | None] = {}
    for decl in domain.types:
        key = decl.name.key
        types[key] = merge_parents(types[key], decl.parent) if key in types else decl.parent
    predicates: dict[str, PredicateDecl] = {}
    for p in domain.predicates:
        predicates.setdefault(p.name.key, p)
    for rule in domain.derived:
        predicates.setdefault(rule.head.name.key, rule.head)
    functions: dict[str, FunctionDecl] = {}
    for f in domain.functions:
        functions.setdefault(f.name.key, f)
    constants: dict[str, TypedName] = {}
    for c in domain.constants:
        constants.setdefault(c.name.key, c)
    actions: dict[str, Action] = {}
    for a in domain.actions:
        actions.setdefault(a.name.key, a)
    return Vocabulary(domain, types, predicates, functions, constants, actions)


@dataclass(frozen=True, eq=False)
class ProblemScope:
    """The objects a problem can name: its own objects and the domain's constants."""

    vocabulary: Vocabulary
    problem: Problem
    objects: dict[str, TypedName] = field(default_factory=dict)

    def lookup(self, name: str) -> TypedName | None:
        """The declaration of an object or domain constant, or None when ``name`` is neither."""
        return self.objects.get(name) or self.vocabulary.constants.get(name)

    def types_of(self, name: str) -> tuple[str, ...]:
        """The declared types of an object or constant, empty when unknown or untyped."""
        entry = self.lookup(name)
        return type_keys(entry.type) if entry is not None else ()

    def objects_of_type(self, type_name: str) -> list[str]:
        """Every object and constant whose type fits ``type_name``, in declaration order."""
        names = [*self.vocabulary.constants, *self.objects]
        return [
            n
            for n in dict.fromkeys(names)
            if self.vocabulary.fits(self.types_of(n) or (OBJECT,), _ref(type_name))
        ]


def _ref(type_name: str) -> TypeRef:
    from plansight.analyses.model.pddl import name as make_name

    return TypeRef((make_name(type_name),))


def problem_scope(vocab: Vocabulary, problem: Problem) -> ProblemScope:
    """The objects a problem can name: its own plus the domain's constants; the first declaration wins."""
    objects: dict[str, TypedName] = {}
    for o in problem.objects:
        objects.setdefault(o.name.key, o)
    return ProblemScope(vocab, problem, objects)


def literal_atoms(formula: object) -> list[tuple[bool, Atom]]:
    """The (positive?, atom) literals of a conjunction of literals; other shapes are skipped."""
    out: list[tuple[bool, Atom]] = []
    for node in walk(formula):  # type: ignore[arg-type]
        if isinstance(node, Atom):
            out.append((True, node))
        elif isinstance(node, Not) and isinstance(node.arg, Atom):
            out.append((False, node.arg))
    negated = {id(a) for positive, a in out if not positive}
    return [(p, a) for p, a in out if not (p and id(a) in negated)]

"""Structural equivalence of two domains: the same domain up to renaming types, predicates, functions,
constants, actions and parameters, and reordering conjuncts, decided as a graph isomorphism.

Each domain becomes a labelled directed graph whose nodes carry no names, only roles: a type, a predicate
of arity 2, an action with 3 parameters, parameter 1 of its action, an atom, a ``forall``. Edges carry
the role of the link and the argument position where order matters (an atom's arguments, an action's
parameters), and no position where it does not (the conjuncts of an ``and``, the variables a quantifier
binds, both sides of ``=``). Two domains are then the same up to renaming exactly when their graphs are
isomorphic, and the isomorphism read back on the named nodes is the renaming. This is how the problem
check compares scene graphs (``analyses/equivalence/scene_graph.py``), one level up.

The domain's name and its requirements are not compared: they change nothing a planner does with it.
The search is VF2 (rustworkx) with a call limit: past it the answer is "not proved equivalent", reported
as such, never as a guess.
"""

from __future__ import annotations

import itertools
import operator
from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from plansight.analyses.domain_equivalence.renaming import KINDS, Kind, Renaming
from plansight.analyses.model.pddl import (
    Action,
    And,
    Arithmetic,
    Atom,
    Comparison,
    DerivedPredicate,
    Domain,
    Equality,
    Formula,
    FunctionTerm,
    Imply,
    Modal,
    Name,
    Not,
    Number,
    NumericEffect,
    NumericExpr,
    Or,
    Preference,
    Quantified,
    TimedLiteral,
    TimeSpecified,
    TypedName,
    TypeRef,
    When,
    conjuncts,
)

CALL_LIMIT = 2_000_000
"""VF2 state visits before giving up: far more than any hand-written domain needs (they have few
look-alike nodes once roles and arities label them)."""
RENAMINGS_TRIED = 64
_REFINEMENT_ROUNDS = 3

Label = tuple[Hashable, ...]


@dataclass
class DomainGraph:
    """A domain as nodes (labels) and labelled edges; ``names`` records which node stands for which name."""

    labels: list[Label] = field(default_factory=list)
    edges: dict[tuple[int, int], list[Label]] = field(default_factory=dict)
    names: dict[int, tuple[Kind, str]] = field(default_factory=dict)
    _named: dict[tuple[str, str], int] = field(default_factory=dict)

    def node(self, label: Label) -> int:
        """A new node."""
        self.labels.append(label)
        return len(self.labels) - 1

    def named(self, kind: Kind, key: str, label: Label) -> int:
        """The node of a declared (or merely used) name, created once."""
        existing = self._named.get((kind, key))
        if existing is not None:
            return existing
        index = self.node(label)
        self._named[(kind, key)] = index
        self.names[index] = (kind, key)
        return index

    def lookup(self, kind: Kind, key: str) -> int | None:
        """The node of a name, if there is one."""
        return self._named.get((kind, key))

    def edge(self, source: int, target: int, label: Label) -> None:
        """A link; several links between the same pair merge into one with all their labels."""
        self.edges.setdefault((source, target), []).append(label)

    def edge_list(self) -> list[tuple[int, int, tuple[Label, ...]]]:
        """The edges with their merged labels in a canonical order."""
        return [(a, b, tuple(sorted(labels, key=repr))) for (a, b), labels in self.edges.items()]

    def colours(self) -> list[Hashable]:
        """Labels refined by their neighbourhoods (a few Weisfeiler-Leman rounds): isomorphism-invariant, and
        they let VF2 tell look-alike nodes apart up front."""
        colours: list[Hashable] = list(self.labels)
        out: list[list[tuple[int, Hashable]]] = [[] for _ in colours]
        into: list[list[tuple[int, Hashable]]] = [[] for _ in colours]
        for a, b, labels in self.edge_list():
            out[a].append((b, labels))
            into[b].append((a, labels))
        for _ in range(_REFINEMENT_ROUNDS):
            colours = [
                hash((colours[n],
                      tuple(sorted((hash(lab), hash(colours[b])) for b, lab in out[n])),
                      tuple(sorted((hash(lab), hash(colours[a])) for a, lab in into[n]))))
                for n in range(len(colours))
            ]
        return colours


def domain_graph(domain: Domain) -> DomainGraph:
    """The graph of a domain (see the module docstring for what it keeps and what it forgets)."""
    return _Builder(domain).build()


class _Builder:
    def __init__(self, domain: Domain) -> None:
        self.domain = domain
        self.graph = DomainGraph()

    def build(self) -> DomainGraph:
        domain, graph = self.domain, self.graph
        graph.named("types", "object", ("object",))
        for decl in domain.types:
            node = self.type_node(decl.name.key)
            if decl.parent is not None:
                graph.edge(node, self.type_ref(decl.parent), ("parent",))
        for constant in domain.constants:
            node = graph.named("constants", constant.name.key, ("constant",))
            graph.edge(node, self.type_ref(constant.type), ("type",))
        for predicate in domain.predicates:
            node = graph.named("predicates", predicate.name.key, ("predicate", len(predicate.parameters)))
            for i, parameter in enumerate(predicate.parameters):
                graph.edge(node, self.type_ref(parameter.type), ("argument-type", i))
        for function in domain.functions:
            node = graph.named("functions", function.name.key,
                               ("function", len(function.parameters), function.type is None))
            for i, parameter in enumerate(function.parameters):
                graph.edge(node, self.type_ref(parameter.type), ("argument-type", i))
            if function.type is not None:
                graph.edge(node, self.type_ref(function.type), ("value-type",))
        for action in domain.actions:
            self.action(action)
        for derived in domain.derived:
            self.derived(derived)
        if domain.constraints is not None:
            root = graph.node(("constraints",))
            self.parts(domain.constraints, root, ("part",), {})
        return graph

    def type_node(self, key: str) -> int:
        if key == "object":
            return self.graph.named("types", "object", ("object",))
        return self.graph.named("types", key, ("type",))

    def type_ref(self, ref: TypeRef | None) -> int:
        if ref is None:
            return self.type_node("object")
        if len(ref.names) == 1:
            return self.type_node(ref.names[0].key)
        node = self.graph.node(("either", len(set(n.key for n in ref.names))))
        for member in dict.fromkeys(n.key for n in ref.names):
            self.graph.edge(node, self.type_node(member), ("member",))
        return node

    def parameters(self, owner: int, parameters: tuple[TypedName, ...]) -> dict[str, int]:
        scope = {}
        for i, parameter in enumerate(parameters):
            node = self.graph.node(("parameter", i))
            self.graph.edge(owner, node, ("parameter", i))
            self.graph.edge(node, self.type_ref(parameter.type), ("type",))
            scope[parameter.name.key] = node
        return scope

    def action(self, action: Action) -> None:
        graph = self.graph
        node = graph.named("actions", action.name.key, ("action", action.kind, len(action.parameters)))
        scope = self.parameters(node, action.parameters)
        for section, formula in (("precondition", action.precondition), ("effect", action.effect),
                                 ("duration", action.duration), ("observe", action.observe)):
            if formula is not None:
                root = graph.node((section,))
                graph.edge(node, root, (section,))
                self.parts(formula, root, ("part",), scope)

    def derived(self, derived: DerivedPredicate) -> None:
        graph = self.graph
        head = derived.head
        node = graph.node(("derived", len(head.parameters)))
        predicate = graph.lookup("predicates", head.name.key)
        if predicate is None:
            predicate = graph.named("predicates", head.name.key, ("predicate", len(head.parameters)))
        graph.edge(node, predicate, ("head",))
        scope = self.parameters(node, head.parameters)
        self.parts(derived.body, node, ("part",), scope)

    def parts(self, formula: Formula, parent: int, role: Label, scope: dict[str, int]) -> None:
        """Attach the conjuncts of ``formula`` to ``parent``: order-free and each distinct conjunct once."""
        for part in dict.fromkeys(conjuncts(formula)):
            if isinstance(part, And) and not part.args:
                continue
            self.graph.edge(parent, self.formula(part, scope), role)

    def term(self, term: Name, scope: dict[str, int]) -> int:
        if term.is_variable:
            found = scope.get(term.key)
            if found is not None:
                return found
            return self.graph.named("constants", "\x00free" + term.key, ("free-variable",))
        return self.graph.named("constants", term.key, ("constant",))

    def formula(self, formula: Formula, scope: dict[str, int]) -> int:
        graph = self.graph
        if isinstance(formula, Atom):
            node = graph.node(("atom", len(formula.args)))
            predicate = graph.lookup("predicates", formula.predicate.key)
            if predicate is None:
                predicate = graph.named("predicates", formula.predicate.key,
                                        ("predicate", len(formula.args)))
            graph.edge(node, predicate, ("predicate",))
            for i, arg in enumerate(formula.args):
                graph.edge(node, self.term(arg, scope), ("argument", i))
            return node
        if isinstance(formula, Equality):
            node = graph.node(("=",))
            graph.edge(node, self.term(formula.left, scope), ("side",))
            graph.edge(node, self.term(formula.right, scope), ("side",))
            return node
        if isinstance(formula, Not):
            node = graph.node(("not",))
            graph.edge(node, self.formula(formula.arg, scope), ("part",))
            return node
        if isinstance(formula, And):
            node = graph.node(("and",))
            self.parts(formula, node, ("part",), scope)
            return node
        if isinstance(formula, Or):
            node = graph.node(("or",))
            for part in dict.fromkeys(formula.args):
                graph.edge(node, self.formula(part, scope), ("part",))
            return node
        if isinstance(formula, (Imply, When)):
            node = graph.node((type(formula).__name__.lower(),))
            consequence = formula.consequence if isinstance(formula, Imply) else formula.effect
            self.parts(formula.condition, node, ("condition",), scope)
            self.parts(consequence, node, ("consequence",), scope)
            return node
        if isinstance(formula, Quantified):
            node = graph.node((formula.quantifier, len(formula.variables)))
            inner = dict(scope)
            for variable in formula.variables:
                bound = graph.node(("bound",))
                graph.edge(node, bound, ("binds",))
                graph.edge(bound, self.type_ref(variable.type), ("type",))
                inner[variable.name.key] = bound
            self.parts(formula.body, node, ("part",), inner)
            return node
        if isinstance(formula, Comparison):
            node = graph.node(("compare", formula.op))
            graph.edge(node, self.expression(formula.left, scope), ("left",))
            graph.edge(node, self.expression(formula.right, scope), ("right",))
            return node
        if isinstance(formula, NumericEffect):
            node = graph.node(("numeric-effect", formula.op))
            graph.edge(node, self.expression(formula.target, scope), ("target",))
            graph.edge(node, self.expression(formula.value, scope), ("value",))
            return node
        if isinstance(formula, (TimeSpecified, Preference, TimedLiteral)):
            head: Hashable = (formula.when if isinstance(formula, TimeSpecified) else
                              formula.time.value if isinstance(formula, TimedLiteral) else
                              formula.name.key if formula.name else None)
            node = graph.node((type(formula).__name__, head))
            self.parts(formula.body, node, ("part",), scope)
            return node
        if isinstance(formula, Modal):
            node = graph.node(("modal", formula.op, tuple(n.value for n in formula.numbers)))
            for i, sub in enumerate(formula.args):
                graph.edge(node, self.formula(sub, scope), ("argument", i))
            return node
        raise TypeError(f"not a formula: {type(formula).__name__}")

    def expression(self, expr: NumericExpr, scope: dict[str, int]) -> int:
        graph = self.graph
        if isinstance(expr, Number):
            return graph.node(("number", expr.value))
        if isinstance(expr, Name):
            return self.term(expr, scope)
        if isinstance(expr, FunctionTerm):
            if not expr.args and expr.function.is_variable:
                return self.term(expr.function, scope)
            node = graph.node(("function-term", len(expr.args)))
            function = graph.lookup("functions", expr.function.key)
            if function is None:
                function = graph.named("functions", expr.function.key, ("function", len(expr.args), True))
            graph.edge(node, function, ("function",))
            for i, arg in enumerate(expr.args):
                graph.edge(node, self.term(arg, scope), ("argument", i))
            return node
        assert isinstance(expr, Arithmetic)
        node = graph.node(("arithmetic", expr.op))
        for i, operand in enumerate(expr.args):
            graph.edge(node, self.expression(operand, scope), ("argument", i))
        return node


@dataclass(frozen=True, slots=True)
class Structural:
    """The structural verdict: ``renaming`` when the domains are the same up to it, None when no renaming was
    found (rustworkx ends a search that hit the call limit like one that found nothing, so past the limit
    the answer is "not proved equivalent")."""

    renaming: Renaming | None

    @property
    def equivalent(self) -> bool:
        """Whether an isomorphism was found."""
        return self.renaming is not None


def structural_match(candidate: Domain, reference: Domain, call_limit: int = CALL_LIMIT) -> Structural:
    """Search for the renaming that makes the candidate the reference."""
    left, right = domain_graph(candidate), domain_graph(reference)
    left_colours, right_colours = left.colours(), right.colours()
    if len(left.labels) != len(right.labels) or Counter(left_colours) != Counter(right_colours):
        return Structural(None)
    left_edges, right_edges = left.edge_list(), right.edge_list()
    if Counter(e[2] for e in left_edges) != Counter(e[2] for e in right_edges):
        return Structural(None)
    import rustworkx as rx

    native = [_native(left_colours, left_edges), _native(right_colours, right_edges)]
    mappings = rx.vf2_mapping(native[0], native[1], node_matcher=operator.eq, edge_matcher=operator.eq,
                              id_order=False, call_limit=call_limit)
    best: dict[Kind, dict[str, str]] | None = None
    best_kept = -1
    # interchangeable parts (two actions that mirror each other) give several isomorphisms: of the first
    # few, report the one that renames least, so equal names are never shown as swapped
    for found in itertools.islice(mappings, RENAMINGS_TRIED):
        pairs = _named_pairs(left, right, dict(found))
        kept = sum(a == b for kind in KINDS for a, b in pairs[kind].items())
        if kept > best_kept:
            best, best_kept = pairs, kept
    if best is None:
        return Structural(None)
    return Structural(Renaming(**best, source="isomorphism"))  # type: ignore[misc]


def _named_pairs(left: DomainGraph, right: DomainGraph, found: dict[int, int]) -> dict[Kind, dict[str, str]]:
    pairs: dict[Kind, dict[str, str]] = {kind: {} for kind in KINDS}
    for i, j in found.items():
        name = left.names.get(i)
        other = right.names.get(j)
        if name is None or other is None or name[0] != other[0] or name[1].startswith("\x00"):
            continue
        if name[0] == "types" and name[1] == "object":
            continue
        pairs[name[0]][name[1]] = other[1]
    return pairs


def _native(colours: list[Hashable], edges: list[tuple[int, int, tuple[Label, ...]]]) -> Any:
    import rustworkx as rx

    graph = rx.PyDiGraph(multigraph=False)
    graph.add_nodes_from(colours)
    graph.add_edges_from(edges)
    return graph

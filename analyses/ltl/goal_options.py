"""The simple goals an LTL goal expands to, kept as a tree of choices instead of a list (docs/metrics.md,
goal F1).

Goal F1 (Li et al. 2024, Section 2.3) compares the *simple* goals a formula expands to: ``or`` and
``exists`` pick one alternative, ``and``, ``then`` and ``forall`` take every part. Listing the expansions
multiplies the alternatives of every part: BEHAVIOR's "assembling gift baskets" has four goals of 24
options each, 331,776 simple goals. The tree keeps them as a product of sums of the same size as the
formula, so the F1 search (``f1_search.py``) can bound and skip whole groups of expansions instead.

Order matters and is kept: :func:`expansions` lists the simple goals in the order the parts and
alternatives appear in the formula (earlier parts vary slowest), which is the order in which ties are
broken, and actions concatenate in that order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations, product

from plansight.analyses.ltl.evaluate import ground
from plansight.analyses.ltl.scope import LtlScope
from plansight.analyses.model.ltl import (
    LtlAnd,
    LtlAtom,
    LtlFormula,
    LtlImplies,
    LtlNot,
    LtlQuantified,
    LtlThen,
    format_ltl,
)
from plansight.analyses.semantics.budget import Meter
from plansight.analyses.semantics.world import GroundAtom

Element = tuple[str, ...]
"""``("action-sequence", "stack a b", ...)``, ``("+", "on", "a", "b")``, ``("-", ...)`` or ``("?", text)``."""


@dataclass(frozen=True, slots=True)
class SimpleGoal:
    """One way of satisfying a goal: the actions to take in order and the propositions that must hold."""

    actions: tuple[GroundAtom, ...] = ()
    propositions: frozenset[Element] = frozenset()

    def elements(self) -> frozenset[Element]:
        """The goal as a set of elements for precision and recall; the action sequence counts as one element
        because its order matters.
        """
        sequence = ("action-sequence", *(" ".join(a) for a in self.actions))
        return self.propositions | {sequence} if self.actions else self.propositions

    def merge(self, other: SimpleGoal) -> SimpleGoal:
        """Both goals at once, as a conjunction expands."""
        return SimpleGoal(self.actions + other.actions, self.propositions | other.propositions)

    def text(self) -> str:
        """A readable rendering for reports (``move(a, b) then (on a b)``)."""
        parts = [f"{a[0]}({', '.join(a[1:])})" for a in self.actions]
        props = sorted(_element_text(e) for e in self.propositions)
        if props:
            parts.append(" and ".join(props))
        return " then ".join(parts) if parts else "(empty)"


@dataclass(frozen=True, slots=True)
class Fixed:
    """A part with one expansion."""

    goal: SimpleGoal


@dataclass(frozen=True, slots=True)
class AllOf:
    """One expansion of every part, merged in order (a conjunction, ``then``, ``forall``)."""

    parts: tuple[Options, ...]


@dataclass(frozen=True, slots=True)
class OneOf:
    """The expansions of any one alternative (``or``, ``exists``); no alternative: no expansion at all."""

    alternatives: tuple[Options, ...]


Options = Fixed | AllOf | OneOf
NOTHING = OneOf(())
"""A part that cannot be expanded (``forn 3`` over two objects): any conjunction holding it has none."""


def goal_options(formula: LtlFormula, scope: LtlScope, meter: Meter | None = None) -> Options:
    """The tree of ``formula``'s simple goals; a formula with none gives the empty goal, as F1 compares it."""
    tree = _options(formula, scope, True, meter or Meter())
    return Fixed(SimpleGoal()) if tree == NOTHING else tree


def expansions(tree: Options) -> Iterator[SimpleGoal]:
    """Every simple goal of ``tree``, in formula order (exponentially many: for tests and small goals)."""
    if isinstance(tree, Fixed):
        yield tree.goal
    elif isinstance(tree, OneOf):
        for alternative in tree.alternatives:
            yield from expansions(alternative)
    else:
        for combination in product(*(list(expansions(p)) for p in tree.parts)):
            merged = SimpleGoal()
            for option in combination:
                merged = merged.merge(option)
            yield merged


def _options(node: LtlFormula, scope: LtlScope, positive: bool, meter: Meter) -> Options:
    meter.spend(1)
    if isinstance(node, LtlAtom):
        key = (node.name.key, *(a.key for a in node.args))
        if positive and scope.is_action(node.name.key):
            return Fixed(SimpleGoal(actions=(key,)))
        return Fixed(SimpleGoal(propositions=frozenset({("+" if positive else "-", *key)})))
    if isinstance(node, LtlNot):
        return _options(node.operand, scope, not positive, meter)
    if isinstance(node, LtlImplies):
        # a => b  is  (not a) or b;  not (a => b)  is  a and not b
        if positive:
            return _one_of([_options(node.left, scope, False, meter),
                            _options(node.right, scope, True, meter)])
        return _all_of([_options(node.left, scope, True, meter), _options(node.right, scope, False, meter)])
    if isinstance(node, LtlThen):
        if not positive:
            return _opaque(node)
        return _all_of([_options(stage, scope, True, meter) for stage in node.stages])
    if isinstance(node, LtlQuantified):
        return _quantified(node, scope, positive, meter)
    parts = [_options(operand, scope, positive, meter) for operand in node.operands]
    conjunctive = isinstance(node, LtlAnd) == positive  # De Morgan under a negation
    return _all_of(parts) if conjunctive else _one_of(parts)


def _quantified(node: LtlQuantified, scope: LtlScope, positive: bool, meter: Meter) -> Options:
    objects = scope.range_of(node)
    instances = [ground(node.body, {node.variable.key: o}) for o in objects]
    if node.quantifier == "forn":
        if not positive:
            return _opaque(node)
        count = node.count or 0
        if count > len(instances):
            return NOTHING
        trees = [_options(i, scope, True, meter) for i in instances]
        chosen = []
        for combination in combinations(range(len(trees)), count):
            meter.spend(1)
            chosen.append(_all_of([trees[k] for k in combination]))
        return _one_of(chosen)
    trees = [_options(i, scope, positive, meter) for i in instances]
    return _all_of(trees) if (node.quantifier == "forall") == positive else _one_of(trees)


def _all_of(parts: list[Options]) -> Options:
    """The conjunction of ``parts``, flattened, with neighbouring fixed parts merged (order kept)."""
    flat: list[Options] = []
    for part in parts:
        if part == NOTHING:
            return NOTHING
        for piece in part.parts if isinstance(part, AllOf) else (part,):
            if isinstance(piece, Fixed) and flat and isinstance(flat[-1], Fixed):
                flat[-1] = Fixed(flat[-1].goal.merge(piece.goal))
            else:
                flat.append(piece)
    if not flat:
        return Fixed(SimpleGoal())
    return flat[0] if len(flat) == 1 else AllOf(tuple(flat))


def _one_of(alternatives: list[Options]) -> Options:
    """The alternatives that have expansions, nested ``OneOf`` flattened (order kept)."""
    flat: list[Options] = []
    for alternative in alternatives:
        flat.extend(alternative.alternatives if isinstance(alternative, OneOf) else (alternative,))
    return flat[0] if len(flat) == 1 else OneOf(tuple(flat))


def _opaque(node: LtlFormula) -> Fixed:
    return Fixed(SimpleGoal(propositions=frozenset({("?", "not " + format_ltl(node))})))


def _element_text(element: Element) -> str:
    if element[0] == "?":
        return element[1]
    atom = f"{element[1]}({', '.join(element[2:])})"
    return atom if element[0] == "+" else f"not {atom}"

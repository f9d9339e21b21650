"""An independent, exact, deliberately naive equivalence oracle for the tests.

Written apart from the product: its own STRIPS semantics (ground every action over every tuple of
objects of the parameters' types, keep the groundings whose (in)equalities hold, require the positive
preconditions present and the negative ones absent, apply delete-then-add), its own breadth-first
search, and equivalence straight from the definition (docs/metrics.md): try every type-preserving permutation
of the objects. Exponential everywhere, so only for problems of a handful of objects; slow and
obviously right is the point.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterator

from plansight.analyses.model.pddl import And, Atom, Domain, Equality, Not, Problem

Fact = tuple[str, ...]


def _type_of(entry_type: object) -> str:
    names = getattr(entry_type, "names", None)
    return names[0].key if names else "object"


def _objects(problem: Problem) -> dict[str, str]:
    return {o.name.key: _type_of(o.type) for o in problem.objects}


def _parents(domain: Domain) -> dict[str, str]:
    return {t.name.key: _type_of(t.parent) for t in domain.types}


def _is_a(kind: str, wanted: str, parents: dict[str, str]) -> bool:
    while True:
        if kind == wanted or wanted == "object":
            return True
        if kind not in parents or parents[kind] == kind:
            return False
        kind = parents[kind]


def _literals(formula: object) -> tuple[list[Atom], list[Atom]]:
    positive, negative, equal, unequal = _conditions(formula)
    if equal or unequal:
        raise ValueError("the oracle only knows (in)equalities in preconditions")
    return positive, negative


def _conditions(
    formula: object,
) -> tuple[list[Atom], list[Atom], list[Equality], list[Equality]]:
    """Positive and negative atoms, equalities and inequalities of a conjunction of literals."""
    positive: list[Atom] = []
    negative: list[Atom] = []
    equal: list[Equality] = []
    unequal: list[Equality] = []
    stack = [formula] if formula is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, And):
            stack.extend(node.args)
        elif isinstance(node, Not) and isinstance(node.arg, Atom):
            negative.append(node.arg)
        elif isinstance(node, Not) and isinstance(node.arg, Equality):
            unequal.append(node.arg)
        elif isinstance(node, Atom):
            positive.append(node)
        elif isinstance(node, Equality):
            equal.append(node)
        else:
            raise ValueError(f"the oracle only knows STRIPS literals, not {type(node).__name__}")
    return positive, negative, equal, unequal


def _ground(atom: Atom, binding: dict[str, str]) -> Fact:
    return (atom.predicate.key, *(binding.get(a.key, a.key) for a in atom.args))


Ground = tuple[frozenset[Fact], frozenset[Fact], frozenset[Fact], frozenset[Fact]]


def _same(equality: Equality, binding: dict[str, str]) -> bool:
    return binding.get(equality.left.key, equality.left.key) == binding.get(
        equality.right.key, equality.right.key
    )


def ground_actions(domain: Domain, problem: Problem) -> list[Ground]:
    """(positive precondition, negative precondition, add, delete) of every ground action."""
    objects = _objects(problem)
    parents = _parents(domain)
    result = []
    for action in domain.actions:
        pre_pos, pre_neg, equal, unequal = _conditions(action.precondition)
        add, delete = _literals(action.effect)
        params = [(p.name.key, _type_of(p.type)) for p in action.parameters]
        pools = [[o for o, t in objects.items() if _is_a(t, wanted, parents)] for _, wanted in params]
        for values in itertools.product(*pools):
            binding = dict(zip((p for p, _ in params), values, strict=True))
            if not all(_same(e, binding) for e in equal) or any(_same(e, binding) for e in unequal):
                continue
            result.append(
                (
                    frozenset(_ground(a, binding) for a in pre_pos),
                    frozenset(_ground(a, binding) for a in pre_neg),
                    frozenset(_ground(a, binding) for a in add),
                    frozenset(_ground(a, binding) for a in delete),
                )
            )
    return result


def reachable(domain: Domain, problem: Problem) -> Iterator[frozenset[Fact]]:
    actions = ground_actions(domain, problem)
    start = frozenset(_ground(f, {}) for f in problem.init if isinstance(f, Atom))
    seen = {start}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        yield state
        for pre, forbidden, add, delete in actions:
            if pre <= state and not forbidden & state:
                after = (state - delete) | add
                if after not in seen:
                    seen.add(after)
                    queue.append(after)


def closure(domain: Domain, problem: Problem) -> frozenset[Fact] | None:
    """FS by definition; None when no reachable state satisfies the goal."""
    positive, negative = _literals(problem.goal)
    wanted = {_ground(a, {}) for a in positive}
    banned = {_ground(a, {}) for a in negative}
    found: frozenset[Fact] | None = None
    for state in reachable(domain, problem):
        if wanted <= state and not banned & state:
            found = state if found is None else found & state
    return found


def _bijections(left: dict[str, str], right: dict[str, str]) -> Iterator[dict[str, str]]:
    if sorted(left.values()) != sorted(right.values()):
        return
    names = sorted(left)
    for image in itertools.permutations(sorted(right)):
        mapping = dict(zip(names, image, strict=True))
        if all(left[k] == right[v] for k, v in mapping.items()):
            yield mapping


def _rename(facts: frozenset[Fact], mapping: dict[str, str]) -> frozenset[Fact]:
    return frozenset((f[0], *(mapping.get(a, a) for a in f[1:])) for f in facts)


def equivalent(domain: Domain, reference: Problem, candidate: Problem, placeholder: bool) -> bool:
    mine, theirs = closure(domain, candidate), closure(domain, reference)
    if mine is None or theirs is None:
        return False
    init_mine = frozenset(_ground(f, {}) for f in candidate.init if isinstance(f, Atom))
    init_theirs = frozenset(_ground(f, {}) for f in reference.init if isinstance(f, Atom))
    maps = list(_bijections(_objects(candidate), _objects(reference)))
    if placeholder:
        return any(_rename(init_mine, m) == init_theirs for m in maps) and any(
            _rename(mine, m) == theirs for m in maps
        )
    return any(_rename(init_mine, m) == init_theirs and _rename(mine, m) == theirs for m in maps)

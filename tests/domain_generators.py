"""Small random STRIPS domains for the domain-equivalence tests, and an independent brute-force search for a
renaming that makes one domain another.

A domain is generated as an abstract :class:`Shape` (types, predicate signatures, actions whose literals
refer to predicates and parameters by index) and written out as PDDL with chosen names, parameter names and
conjunct orders, so a test can produce the same domain renamed and reordered, or a mutated one.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass, replace

from plansight.analyses.model.pddl import Atom, Domain, Not, TypeRef, conjuncts

Literal = tuple[bool, int, tuple[int, ...]]
"""(positive, predicate index, parameter indices)"""


@dataclass(frozen=True)
class ActionShape:
    parameters: tuple[int, ...]  # type index of each parameter (0 is `object`)
    precondition: tuple[Literal, ...]
    effect: tuple[Literal, ...]


@dataclass(frozen=True)
class Shape:
    types: int  # declared types besides `object`, all children of `object`
    predicates: tuple[tuple[int, ...], ...]  # argument type indices
    actions: tuple[ActionShape, ...]


def random_shape(rng: random.Random, types: int = 2, predicates: int = 3, actions: int = 2) -> Shape:
    """A random shape: every literal is well typed, literals within a section are distinct."""
    # the first predicate takes any object, so every action has literals to be written with
    signatures = ((0,), *(tuple(rng.randint(0, types) for _ in range(rng.randint(0, 2)))
                          for _ in range(predicates - 1)))
    out = []
    for _ in range(actions):
        parameters = tuple(rng.randint(0, types) for _ in range(rng.randint(1, 2)))
        out.append(ActionShape(parameters, _literals(rng, signatures, parameters),
                               _literals(rng, signatures, parameters)))
    return Shape(types, signatures, tuple(out))


def _possible(signatures: tuple[tuple[int, ...], ...], parameters: tuple[int, ...]) -> list[Literal]:
    out = []
    for index, signature in enumerate(signatures):
        choices = [[i for i, t in enumerate(parameters) if wanted in (t, 0)] for wanted in signature]
        for args in itertools.product(*choices):
            out.extend([(True, index, tuple(args)), (False, index, tuple(args))])
    return out


def _literals(rng: random.Random, signatures: tuple[tuple[int, ...], ...], parameters: tuple[int, ...]
              ) -> tuple[Literal, ...]:
    possible = _possible(signatures, parameters)
    rng.shuffle(possible)
    return tuple(possible[: rng.randint(1, min(3, len(possible)))]) if possible else ()


def mutate(rng: random.Random, shape: Shape) -> Shape:
    """The shape with one precondition or effect changed: a literal dropped, added or negated."""
    for _ in range(1000):
        index = rng.randrange(len(shape.actions))
        action = shape.actions[index]
        section = rng.choice(("precondition", "effect"))
        literals = list(getattr(action, section))
        kind = rng.choice(("drop", "add", "negate"))
        if kind == "drop" and len(literals) > 1:
            literals.pop(rng.randrange(len(literals)))
        elif kind == "negate" and literals:
            i = rng.randrange(len(literals))
            positive, predicate, args = literals[i]
            flipped = (not positive, predicate, args)
            if flipped in literals:
                continue
            literals[i] = flipped
        else:
            fresh = [lit for lit in _possible(shape.predicates, action.parameters) if lit not in literals]
            if not fresh:
                continue
            literals.append(rng.choice(fresh))
        actions = list(shape.actions)
        actions[index] = replace(action, **{section: tuple(literals)})
        return replace(shape, actions=tuple(actions))
    raise AssertionError("no mutation possible")


def permuted(rng: random.Random, shape: Shape) -> Shape:
    """The same domain with predicates and actions listed in another order (equivalent by construction)."""
    order = list(range(len(shape.predicates)))
    rng.shuffle(order)
    where = {old: new for new, old in enumerate(order)}
    actions = [
        replace(a, precondition=tuple((p, where[i], args) for p, i, args in a.precondition),
                effect=tuple((p, where[i], args) for p, i, args in a.effect))
        for a in shape.actions
    ]
    rng.shuffle(actions)
    return replace(shape, predicates=tuple(shape.predicates[i] for i in order), actions=tuple(actions))


def swap_parameters(rng: random.Random, shape: Shape) -> Shape:
    """One action's first two parameters exchanged in the parameter list only: often a different action, but
    the same one when the action is symmetric in them, which only a search can tell."""
    index = rng.randrange(len(shape.actions))
    action = shape.actions[index]
    if len(action.parameters) < 2:
        return mutate(rng, shape)
    swap = {0: 1, 1: 0}

    def moved(literals: tuple[Literal, ...]) -> tuple[Literal, ...]:
        return tuple((p, i, tuple(swap.get(a, a) for a in args)) for p, i, args in literals)

    actions = list(shape.actions)
    actions[index] = replace(action, precondition=moved(action.precondition), effect=moved(action.effect))
    return replace(shape, actions=tuple(actions))


@dataclass(frozen=True)
class Names:
    """The spelling of a shape: names per index, and the order conjuncts and declarations are written in."""

    types: tuple[str, ...]
    predicates: tuple[str, ...]
    actions: tuple[str, ...]
    parameters: tuple[tuple[str, ...], ...]
    seed: int = 0  # shuffles the written order (0: as generated)


def plain_names(shape: Shape) -> Names:
    """``t1 ...``, ``p0 ...``, ``a0 ...``, ``?x0 ...``."""
    return Names(
        ("object", *(f"t{i}" for i in range(1, shape.types + 1))),
        tuple(f"p{i}" for i in range(len(shape.predicates))),
        tuple(f"a{i}" for i in range(len(shape.actions))),
        tuple(tuple(f"?x{j}" for j in range(len(a.parameters))) for a in shape.actions),
    )


def renamed_names(rng: random.Random, shape: Shape) -> Names:
    """Fresh, shuffled names for everything, and a shuffled writing order."""
    def fresh(prefix: str, count: int) -> list[str]:
        words = [f"{prefix}{i}" for i in range(count)]
        rng.shuffle(words)
        return words

    return Names(
        ("object", *fresh("kind-", shape.types)),
        tuple(fresh("rel-", len(shape.predicates))),
        tuple(fresh("do-", len(shape.actions))),
        tuple(tuple(fresh("?v", len(a.parameters))) for a in shape.actions),
        seed=rng.randint(1, 10**6),
    )


def write(shape: Shape, names: Names) -> str:
    """The shape as a PDDL domain with these names, conjuncts and declarations in the names' order."""
    rng = random.Random(names.seed)

    def order(items: list[str]) -> list[str]:
        if names.seed:
            rng.shuffle(items)
        return items

    def literal(lit: Literal, parameters: tuple[str, ...]) -> str:
        positive, predicate, args = lit
        atom = "(" + " ".join([names.predicates[predicate], *(parameters[i] for i in args)]) + ")"
        return atom if positive else f"(not {atom})"

    types = order([f"{names.types[i]} - object" for i in range(1, shape.types + 1)])
    predicates = order([
        "(" + " ".join([names.predicates[i], *(f"?a{j} - {names.types[t]}" for j, t in enumerate(sig))]) + ")"
        for i, sig in enumerate(shape.predicates)
    ])
    actions = []
    for i, action in enumerate(shape.actions):
        parameters = names.parameters[i]
        pairs = zip(parameters, action.parameters, strict=True)
        typed = " ".join(f"{p} - {names.types[t]}" for p, t in pairs)
        pre = " ".join(order([literal(lit, parameters) for lit in action.precondition]))
        eff = " ".join(order([literal(lit, parameters) for lit in action.effect]))
        actions.append(f"  (:action {names.actions[i]}\n    :parameters ({typed})\n"
                       f"    :precondition (and {pre})\n    :effect (and {eff}))")
    return ("(define (domain generated)\n  (:requirements :typing :negative-preconditions)\n"
            f"  (:types {' '.join(types)})\n  (:predicates {' '.join(predicates)})\n"
            + "\n".join(order(actions)) + ")\n")


# --- the independent oracle -------------------------------------------------------------------------


def _canonical(domain: Domain, types: dict[str, str], predicates: dict[str, str], actions: dict[str, str]
               ) -> tuple[object, ...]:
    def type_of(ref: TypeRef | None) -> str:
        key = "object" if ref is None else ref.names[0].key
        return types.get(key, key)

    def section(formula: object, positions: dict[str, int]) -> frozenset[tuple[object, ...]]:
        out = set()
        for part in conjuncts(formula):  # type: ignore[arg-type]
            positive = not isinstance(part, Not)
            atom = part.arg if isinstance(part, Not) else part
            assert isinstance(atom, Atom)
            out.add((positive, predicates[atom.predicate.key], tuple(positions[a.key] for a in atom.args)))
        return frozenset(out)

    return (
        frozenset((types.get(t.name.key, t.name.key), type_of(t.parent)) for t in domain.types),
        frozenset((predicates[p.name.key], tuple(type_of(a.type) for a in p.parameters))
                  for p in domain.predicates),
        frozenset(
            (actions[a.name.key], tuple(type_of(p.type) for p in a.parameters),
             section(a.precondition, {p.name.key: i for i, p in enumerate(a.parameters)}),
             section(a.effect, {p.name.key: i for i, p in enumerate(a.parameters)}))
            for a in domain.actions
        ),
    )


def _bijections(left: list[str], right: list[str]) -> Iterator[dict[str, str]]:
    if len(left) != len(right):
        return
    for image in itertools.permutations(right):
        yield dict(zip(left, image, strict=True))


def brute_force_renaming(candidate: Domain, reference: Domain) -> dict[str, dict[str, str]] | None:
    """Try every bijection of types, predicates and actions; the first that makes the candidate's canonical
    form (parameters by position, conjuncts as sets) the reference's, or None."""
    identity = {t.name.key: t.name.key for t in reference.types} | {"object": "object"}
    target = _canonical(reference, identity, {p.name.key: p.name.key for p in reference.predicates},
                        {a.name.key: a.name.key for a in reference.actions})
    left_types = [t.name.key for t in candidate.types]
    right_types = [t.name.key for t in reference.types]
    for types in _bijections(left_types, right_types):
        types = {**types, "object": "object"}
        for predicates in _bijections([p.name.key for p in candidate.predicates],
                                      [p.name.key for p in reference.predicates]):
            for actions in _bijections([a.name.key for a in candidate.actions],
                                       [a.name.key for a in reference.actions]):
                if _canonical(candidate, types, predicates, actions) == target:
                    return {"types": types, "predicates": predicates, "actions": actions}
    return None

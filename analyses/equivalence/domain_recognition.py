"""Recognise Planetarium's three domains by what they do, not by what they are called.

fullySpecify's rules (Zuo et al. 2024, Appendix C) are only true of one transition system each. A domain
counts as "blocksworld" when its predicates and actions are the reference file's up to renaming of
predicates, actions and parameters (so `ontable`/`handempty` spellings and reordered parameters are
recognised, while a blocksworld with an extra action, a changed effect or typed parameters that
restrict an action is not, and gets the exact search instead).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, lru_cache

from plansight.analyses.model.pddl import Atom, Domain, Formula, Not, conjuncts
from plansight.analyses.syntax.parse_pddl import parse_pddl

_BLOCKSWORLD = """(define (domain blocksworld) (:requirements :strips)
 (:predicates (clear ?x) (on-table ?x) (arm-empty) (holding ?x) (on ?x ?y))
 (:action pickup :parameters (?ob) :precondition (and (clear ?ob) (on-table ?ob) (arm-empty))
  :effect (and (holding ?ob) (not (clear ?ob)) (not (on-table ?ob)) (not (arm-empty))))
 (:action putdown :parameters (?ob) :precondition (holding ?ob)
  :effect (and (clear ?ob) (arm-empty) (on-table ?ob) (not (holding ?ob))))
 (:action stack :parameters (?ob ?underob) :precondition (and (clear ?underob) (holding ?ob))
  :effect (and (arm-empty) (clear ?ob) (on ?ob ?underob) (not (clear ?underob)) (not (holding ?ob))))
 (:action unstack :parameters (?ob ?underob) :precondition (and (on ?ob ?underob) (clear ?ob) (arm-empty))
  :effect (and (holding ?ob) (clear ?underob) (not (on ?ob ?underob)) (not (clear ?ob))
   (not (arm-empty)))))"""

_GRIPPER = """(define (domain gripper) (:requirements :strips)
 (:predicates (room ?r) (ball ?b) (gripper ?g) (at-robby ?r) (at ?b ?r) (free ?g) (carry ?o ?g))
 (:action move :parameters (?from ?to) :precondition (and (room ?from) (room ?to) (at-robby ?from))
  :effect (and (at-robby ?to) (not (at-robby ?from))))
 (:action pick :parameters (?obj ?room ?gripper)
  :precondition (and (ball ?obj) (room ?room) (gripper ?gripper) (at ?obj ?room) (at-robby ?room)
   (free ?gripper))
  :effect (and (carry ?obj ?gripper) (not (at ?obj ?room)) (not (free ?gripper))))
 (:action drop :parameters (?obj ?room ?gripper)
  :precondition (and (ball ?obj) (room ?room) (gripper ?gripper) (carry ?obj ?gripper) (at-robby ?room))
  :effect (and (at ?obj ?room) (free ?gripper) (not (carry ?obj ?gripper)))))"""

_FLOOR_TILE = """(define (domain floor-tile) (:requirements :typing) (:types robot tile color - object)
 (:predicates (robot-at ?r - robot ?x - tile) (up ?x - tile ?y - tile) (right ?x - tile ?y - tile)
  (painted ?x - tile ?c - color) (robot-has ?r - robot ?c - color) (available-color ?c - color))
 (:action change-color :parameters (?r - robot ?c - color ?c2 - color)
  :precondition (and (robot-has ?r ?c) (available-color ?c2))
  :effect (and (not (robot-has ?r ?c)) (robot-has ?r ?c2)))
 (:action paint-up :parameters (?r - robot ?y - tile ?x - tile ?c - color)
  :precondition (and (robot-has ?r ?c) (robot-at ?r ?x) (up ?y ?x)) :effect (painted ?y ?c))
 (:action paint-down :parameters (?r - robot ?y - tile ?x - tile ?c - color)
  :precondition (and (robot-has ?r ?c) (robot-at ?r ?x) (up ?x ?y)) :effect (and (painted ?y ?c)))
 (:action paint-right :parameters (?r - robot ?y - tile ?x - tile ?c - color)
  :precondition (and (robot-has ?r ?c) (robot-at ?r ?x) (right ?y ?x)) :effect (and (painted ?y ?c)))
 (:action paint-left :parameters (?r - robot ?y - tile ?x - tile ?c - color)
  :precondition (and (robot-has ?r ?c) (robot-at ?r ?x) (right ?x ?y)) :effect (and (painted ?y ?c)))
 (:action up :parameters (?r - robot ?x - tile ?y - tile)
  :precondition (and (robot-at ?r ?x) (up ?y ?x)) :effect (and (robot-at ?r ?y) (not (robot-at ?r ?x))))
 (:action down :parameters (?r - robot ?x - tile ?y - tile)
  :precondition (and (robot-at ?r ?x) (up ?x ?y)) :effect (and (robot-at ?r ?y) (not (robot-at ?r ?x))))
 (:action right :parameters (?r - robot ?x - tile ?y - tile)
  :precondition (and (robot-at ?r ?x) (right ?y ?x)) :effect (and (robot-at ?r ?y) (not (robot-at ?r ?x))))
 (:action left :parameters (?r - robot ?x - tile ?y - tile)
  :precondition (and (robot-at ?r ?x) (right ?x ?y))
  :effect (and (robot-at ?r ?y) (not (robot-at ?r ?x)))))"""

TEMPLATES = {"blocksworld": _BLOCKSWORLD, "gripper": _GRIPPER, "floor-tile": _FLOOR_TILE}

_Literal = tuple[str, tuple[int, ...]]
_Shape = tuple[int, tuple[_Literal, ...], tuple[_Literal, ...], tuple[_Literal, ...]]


@dataclass(frozen=True, slots=True)
class Recognised:
    """A known domain: ``kind`` and the map from its template's predicate names to this domain's."""

    kind: str
    predicates: tuple[tuple[str, str], ...]

    def to_domain(self) -> dict[str, str]:
        """The predicate map from the template's names to this domain's."""
        return dict(self.predicates)

    def to_template(self) -> dict[str, str]:
        """The inverse map, from this domain's predicate names back to the template's."""
        return {mine: theirs for theirs, mine in self.predicates}


@lru_cache(maxsize=64)
def recognise(domain: Domain) -> Recognised | None:
    """The Planetarium domain ``domain`` behaves as, or None."""
    shape = _domain_shape(domain)
    if shape is None:
        return None
    arities, actions = shape
    for kind, _text in TEMPLATES.items():
        template = _template_shape(kind)
        if template is None or sorted(template[0].values()) != sorted(arities.values()):
            continue
        if len(template[1]) != len(actions):
            continue
        for mapping in _arity_preserving(template[0], arities):
            renamed = {_rename(a, mapping) for a in template[1]}
            if renamed == actions:
                return Recognised(kind, tuple(sorted(mapping.items())))
    return None


@cache
def _template_shape(kind: str) -> tuple[dict[str, int], frozenset[_Shape]] | None:
    model = parse_pddl(TEMPLATES[kind]).model
    return _domain_shape(model) if isinstance(model, Domain) else None


def _domain_shape(domain: Domain) -> tuple[dict[str, int], frozenset[_Shape]] | None:
    """Predicate arities and each action as (arity, pre, add, del) over parameter positions, in a
    canonical parameter order; None when an action uses more than STRIPS or a parameter's type
    restricts it beyond what its precondition's predicates already require."""
    if domain.derived or domain.functions or domain.constants or domain.constraints is not None:
        return None
    arities = {p.name.key: len(p.parameters) for p in domain.predicates}
    declared_types = {p.name.key: [t.type for t in p.parameters] for p in domain.predicates}
    shapes: set[_Shape] = set()
    for action in domain.actions:
        if action.kind != "action":
            return None
        params = [p.name.key for p in action.parameters]
        pre = _literals(action.precondition, params, positive_only=True)
        effect = _literals(action.effect, params, positive_only=False)
        if pre is None or effect is None:
            return None
        for parameter in action.parameters:
            if parameter.type is None:
                continue
            index = params.index(parameter.name.key)
            if not any(
                parameter.type == declared_types.get(pred, [None] * 9)[position]
                for pred, args in pre[0]
                for position, arg in enumerate(args)
                if arg == index
            ):
                return None
        shapes.add(_canonical(len(params), pre[0], effect[0], effect[1]))
    return arities, frozenset(shapes)


def _literals(
    formula: Formula | None, params: list[str], positive_only: bool
) -> tuple[list[_Literal], list[_Literal]] | None:
    positive: list[_Literal] = []
    negative: list[_Literal] = []
    for node in conjuncts(formula):
        target = positive
        if isinstance(node, Not) and not positive_only:
            node, target = node.arg, negative
        if not isinstance(node, Atom) or any(a.key not in params for a in node.args):
            return None
        target.append((node.predicate.key, tuple(params.index(a.key) for a in node.args)))
    return positive, negative


def _canonical(arity: int, pre: list[_Literal], add: list[_Literal], delete: list[_Literal]) -> _Shape:
    best: _Shape | None = None
    for order in itertools.permutations(range(arity)):

        def move(literals: list[_Literal], order: tuple[int, ...] = order) -> tuple[_Literal, ...]:
            return tuple(sorted({(p, tuple(order[i] for i in args)) for p, args in literals}))

        candidate = (arity, move(pre), move(add), move(delete))
        if best is None or candidate < best:
            best = candidate
    assert best is not None
    return best


def _arity_preserving(template: dict[str, int], mine: dict[str, int]) -> Iterator[dict[str, str]]:
    groups = sorted({*template.values()})
    per_arity = [
        ([t for t in template if template[t] == n], [m for m in mine if mine[m] == n]) for n in groups
    ]
    choices = [list(itertools.permutations(ours)) for _, ours in per_arity]
    for combination in itertools.product(*choices):
        mapping: dict[str, str] = {}
        for (theirs, _), ours in zip(per_arity, combination, strict=True):
            mapping.update(zip(theirs, ours, strict=True))
        yield mapping


def _rename(shape: _Shape, mapping: dict[str, str]) -> _Shape:
    arity, pre, add, delete = shape
    literals = [[(mapping[p], args) for p, args in part] for part in (pre, add, delete)]
    return _canonical(arity, *literals)

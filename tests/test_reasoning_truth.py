"""The ground truth of the reasoning tasks (analyses/reasoning/truth.py) against an independent
brute-force semantics written here: small random domains (typed with a subtype, or untyped) with
negative preconditions, equality, disjunction, quantifiers, conditional and universal effects and a
constant, and random problems over them. The oracle enumerates every binding of every action over the
objects of the right types and
evaluates formulas by their textbook definitions; `plansight truth` must give exactly its sets for
action applicability, state comprehension, progression and state tracking."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.reasoning.truth import TruthError, build_world, ground_truth
from plansight.analyses.syntax.parse_pddl import parse_pddl

Atom = tuple[str, ...]
State = frozenset[Atom]

SUPERTYPE = {"ta": None, "ta2": "ta", "tb": None}
OBJECTS = {"a1": "ta", "a2": "ta", "a3": "ta2", "b1": "tb", "b2": "tb"}
CONSTANTS = {"c0": "ta"}
PREDICATES = {"p": ("ta",), "q": ("ta", "tb"), "r": (), "s": ("tb",)}
PARAMETERS = [("?x", "ta"), ("?y", "tb"), ("?z", "ta2"), ("?w", "ta")]


def is_a(kind: str, wanted: str) -> bool:
    current: str | None = kind
    while current is not None:
        if current == wanted:
            return True
        current = SUPERTYPE[current]
    return False


def of_type(wanted: str, typed: bool = True) -> list[str]:
    """The objects and constants that may stand where ``wanted`` is declared; in an untyped domain,
    all of them."""
    every = {**CONSTANTS, **OBJECTS}
    return [name for name, kind in every.items() if not typed or is_a(kind, wanted)]


# --- formulas as plain tuples, printed as PDDL and evaluated by the oracle -------------------------

def random_atom(rng: random.Random, scope: list[tuple[str, str]]) -> tuple[Any, ...]:
    predicate = rng.choice(sorted(PREDICATES))
    args = []
    for wanted in PREDICATES[predicate]:
        options = [v for v, kind in scope if is_a(kind, wanted)]
        options += [c for c, kind in CONSTANTS.items() if is_a(kind, wanted)]
        if not options:
            return ("atom", "r", ())
        args.append(rng.choice(options))
    return ("atom", predicate, tuple(args))


def random_condition(rng: random.Random, scope: list[tuple[str, str]], depth: int) -> tuple[Any, ...]:
    roll = rng.random()
    if depth <= 0 or roll < 0.45:
        atom = random_atom(rng, scope)
        return ("not", atom) if rng.random() < 0.35 else atom
    if roll < 0.55 and len(scope) >= 2:
        (left, _), (right, _) = rng.sample(scope, 2)
        equal = ("eq", left, right)
        return ("not", equal) if rng.random() < 0.6 else equal
    if roll < 0.7:
        return (rng.choice(["and", "or"]), tuple(random_condition(rng, scope, depth - 1) for _ in range(2)))
    variable, kind = f"?q{depth}", rng.choice(["ta", "tb", "ta2"])
    body = random_condition(rng, [*scope, (variable, kind)], depth - 1)
    return (rng.choice(["forall", "exists"]), variable, kind, body)


def random_effects(rng: random.Random, scope: list[tuple[str, str]], depth: int) -> tuple[Any, ...]:
    effects: list[tuple[Any, ...]] = []
    for _ in range(rng.randint(1, 3)):
        atom = random_atom(rng, scope)
        effects.append(("add" if rng.random() < 0.5 else "del", atom))
    if depth > 0 and rng.random() < 0.5:
        effects.append(("when", random_condition(rng, scope, 1), random_effects(rng, scope, 0)))
    if depth > 0 and rng.random() < 0.4:
        variable, kind = "?e", rng.choice(["ta", "tb"])
        inner = [*scope, (variable, kind)]
        effects.append(("forall", variable, kind,
                        (("when", random_condition(rng, inner, 0), random_effects(rng, inner, 0)),)))
    return tuple(effects)


def show(formula: tuple[Any, ...], typed: bool = True) -> str:
    head = formula[0]
    if head == "atom":
        return "(" + " ".join([formula[1], *formula[2]]) + ")"
    if head == "not":
        return f"(not {show(formula[1], typed)})"
    if head == "eq":
        return f"(= {formula[1]} {formula[2]})"
    if head in ("and", "or"):
        return f"({head} " + " ".join(show(f, typed) for f in formula[1]) + ")"
    return f"({head} ({declare(formula[1], formula[2], typed)}) {show(formula[3], typed)})"


def declare(variable: str, kind: str, typed: bool) -> str:
    return f"{variable} - {kind}" if typed else variable


def show_effects(effects: tuple[Any, ...], typed: bool = True) -> str:
    parts = []
    for effect in effects:
        if effect[0] == "add":
            parts.append(show(effect[1]))
        elif effect[0] == "del":
            parts.append(f"(not {show(effect[1])})")
        elif effect[0] == "when":
            parts.append(f"(when {show(effect[1], typed)} {show_effects(effect[2], typed)})")
        else:
            variable = declare(effect[1], effect[2], typed)
            parts.append(f"(forall ({variable}) {show_effects(effect[3], typed)})")
    return "(and " + " ".join(parts) + ")"


def holds(formula: tuple[Any, ...], state: State, binding: dict[str, str], typed: bool) -> bool:
    head = formula[0]
    if head == "atom":
        return (formula[1], *(binding.get(a, a) for a in formula[2])) in state
    if head == "not":
        return not holds(formula[1], state, binding, typed)
    if head == "eq":
        return binding.get(formula[1], formula[1]) == binding.get(formula[2], formula[2])
    if head == "and":
        return all(holds(f, state, binding, typed) for f in formula[1])
    if head == "or":
        return any(holds(f, state, binding, typed) for f in formula[1])
    values = (holds(formula[3], state, {**binding, formula[1]: o}, typed) for o in of_type(formula[2], typed))
    return all(values) if head == "forall" else any(values)


def collect(effects: tuple[Any, ...], state: State, binding: dict[str, str], adds: set[Atom],
            deletes: set[Atom], typed: bool) -> None:
    for effect in effects:
        if effect[0] in ("add", "del"):
            atom = effect[1]
            ground = (atom[1], *(binding.get(a, a) for a in atom[2]))
            (adds if effect[0] == "add" else deletes).add(ground)
        elif effect[0] == "when":
            if holds(effect[1], state, binding, typed):
                collect(effect[2], state, binding, adds, deletes, typed)
        else:
            for value in of_type(effect[2], typed):
                collect(effect[3], state, {**binding, effect[1]: value}, adds, deletes, typed)


@dataclass
class Schema:
    name: str
    parameters: list[tuple[str, str]]
    precondition: tuple[Any, ...]
    effects: tuple[Any, ...]


@dataclass
class Task:
    schemas: list[Schema]
    init: State
    domain_text: str
    problem_text: str
    typed: bool = True

    def bindings(self, schema: Schema) -> list[dict[str, str]]:
        pools = [of_type(kind, self.typed) for _, kind in schema.parameters]
        return [dict(zip([v for v, _ in schema.parameters], values, strict=True))
                for values in itertools.product(*pools)]

    def applicable(self, state: State) -> set[Atom]:
        return {(schema.name, *(b[v] for v, _ in schema.parameters))
                for schema in self.schemas for b in self.bindings(schema)
                if holds(schema.precondition, state, b, self.typed)}

    def successor(self, state: State, action: Atom) -> tuple[State, set[Atom], set[Atom]]:
        schema = next(s for s in self.schemas if s.name == action[0])
        binding = dict(zip([v for v, _ in schema.parameters], action[1:], strict=True))
        adds: set[Atom] = set()
        deletes: set[Atom] = set()
        collect(schema.effects, state, binding, adds, deletes, self.typed)
        return (state - deletes) | adds, adds, deletes


UNTYPED_FROM = 45
"""Seeds from here on write the same kind of task untyped: every variable ranges over every object."""


def random_task(seed: int) -> Task:
    rng = random.Random(seed)
    typed = seed < UNTYPED_FROM
    schemas = []
    for index in range(rng.randint(2, 3)):
        parameters = sorted(rng.sample(PARAMETERS, rng.randint(1, 3)))
        precondition = ("and", tuple(random_condition(rng, parameters, 2) for _ in range(rng.randint(1, 3))))
        schemas.append(Schema(f"act{index}", parameters, precondition, random_effects(rng, parameters, 1)))
    every_atom = [(p, *args) for p, kinds in PREDICATES.items()
                  for args in itertools.product(*(of_type(k) for k in kinds))]
    init = frozenset(atom for atom in every_atom if rng.random() < 0.4)
    actions = "\n".join(
        f"  (:action {s.name} :parameters ({' '.join(declare(v, k, typed) for v, k in s.parameters)})\n"
        f"    :precondition {show(s.precondition, typed)}\n    :effect {show_effects(s.effects, typed)})"
        for s in schemas)
    if typed:
        declarations = ("  (:types ta2 - ta ta tb - object)\n  (:constants c0 - ta)\n"
                        "  (:predicates (p ?a - ta) (q ?a - ta ?b - tb) (r) (s ?b - tb))\n")
        objects = "a1 a2 - ta a3 - ta2 b1 b2 - tb"
    else:
        declarations = "  (:constants c0)\n  (:predicates (p ?a) (q ?a ?b) (r) (s ?b))\n"
        objects = "a1 a2 a3 b1 b2"
    domain_text = (
        "(define (domain random)\n"
        f"  (:requirements :strips {':typing ' if typed else ''}:negative-preconditions :equality\n"
        "                 :disjunctive-preconditions :quantified-preconditions :conditional-effects)\n"
        + declarations + actions + ")\n")
    problem_text = (
        f"(define (problem random-p) (:domain random)\n  (:objects {objects})\n"
        "  (:init " + " ".join("(" + " ".join(a) + ")" for a in sorted(init)) + ")\n  (:goal (r)))\n")
    return Task(schemas, init, domain_text, problem_text, typed)


def world_of(task: Task) -> Any:
    domain = parse_pddl(task.domain_text)
    problem = parse_pddl(task.problem_text)
    assert isinstance(domain.model, Domain) and isinstance(problem.model, Problem), domain.diagnostics
    return build_world(domain.model, problem.model)


@pytest.mark.parametrize("seed", range(60))
def test_truth_matches_the_brute_force_semantics(seed: int) -> None:
    task = random_task(seed)
    world = world_of(task)
    rng = random.Random(seed * 7 + 1)
    state = task.init
    after: list[Atom] = []
    assert set(ground_truth(world, "state").items) == set(state)
    for _ in range(3):
        applicable = task.applicable(state)
        assert set(ground_truth(world, "applicable", after).items) == applicable, task.domain_text
        if not applicable:
            break
        action = rng.choice(sorted(applicable))
        successor, _, _ = task.successor(state, action)
        progression = ground_truth(world, "progression", after, action)
        assert set(progression.items) == successor - state, task.domain_text
        assert set(progression.delete) == state - successor, task.domain_text
        after.append(action)
        state = successor
        tracking = ground_truth(world, "tracking", after)
        assert set(tracking.items) == state, task.domain_text


def test_an_action_that_cannot_run_has_no_truth_after_it() -> None:
    checked = 0
    for seed in range(20):
        task = random_task(seed)
        world = world_of(task)
        every = {(s.name, *(b[v] for v, _ in s.parameters)) for s in task.schemas for b in task.bindings(s)}
        blocked = sorted(every - task.applicable(task.init))
        if not blocked:
            continue
        checked += 1
        with pytest.raises(TruthError, match="not executable"):
            ground_truth(world, "tracking", [blocked[0]])
        with pytest.raises(TruthError, match="not applicable"):
            ground_truth(world, "progression", [], blocked[0])
    assert checked >= 10


def test_the_random_problems_exercise_what_they_claim() -> None:
    """The oracle comparison is only worth something if the random tasks use the constructs and some
    actions are applicable: count them over the seeds."""
    texts = [random_task(seed).domain_text for seed in range(60)]
    for construct in ("(forall", "(exists", "(when", "(not (=", "(or", "c0", "- ta2"):
        assert sum(construct in text for text in texts) >= 5, construct
    assert sum(":typing" not in text for text in texts) == 60 - UNTYPED_FROM
    applicable = sum(bool(random_task(seed).applicable(random_task(seed).init)) for seed in range(60))
    assert applicable >= 30


BLOCKS = (Path(__file__).resolve().parents[1] / "examples" / "blocksworld")


def blocks_world() -> Any:
    domain = parse_pddl((BLOCKS / "domain.pddl").read_text()).model
    problem = parse_pddl((BLOCKS / "p01.pddl").read_text()).model
    assert isinstance(domain, Domain) and isinstance(problem, Problem)
    return build_world(domain, problem)


def test_an_add_effect_that_already_holds_is_not_a_positive_effect() -> None:
    """The paper: positive effects are atoms not true before the action and true after it."""
    domain = parse_pddl("""(define (domain d) (:requirements :strips)
      (:predicates (lit) (done))
      (:action press :parameters () :precondition (lit) :effect (and (lit) (done))))""").model
    problem = parse_pddl("(define (problem p) (:domain d) (:init (lit)) (:goal (done)))").model
    assert isinstance(domain, Domain) and isinstance(problem, Problem)
    truth = ground_truth(build_world(domain, problem), "progression", [], ("press",))
    assert truth.items == (("done",),)
    assert truth.declared_add == (("done",), ("lit",))
    assert truth.to_json()["declared_add"] == ["(done)", "(lit)"]


def test_unsupported_constructs_are_refused_not_answered() -> None:
    domain = parse_pddl("""(define (domain n) (:requirements :strips :non-deterministic)
      (:predicates (on))
      (:action go :parameters () :precondition (and) :effect (oneof (on) (and))))""").model
    problem = parse_pddl("(define (problem p) (:domain n) (:init) (:goal (on)))").model
    assert isinstance(domain, Domain) and isinstance(problem, Problem)
    with pytest.raises(TruthError, match="non-deterministic"):
        build_world(domain, problem)


def test_numeric_tasks_are_answered_with_values() -> None:
    """Progression of a numeric action: its atoms as the definition says, its values changed too (the
    state after it no longer applies the action once the fuel is spent)."""
    domain = parse_pddl("""(define (domain n) (:requirements :strips :numeric-fluents)
      (:predicates (on)) (:functions (fuel))
      (:action go :parameters () :precondition (> (fuel) 0) :effect (and (on) (decrease (fuel) 1))))""").model
    problem = parse_pddl("(define (problem p) (:domain n) (:init (= (fuel) 1)) (:goal (on)))").model
    assert isinstance(domain, Domain) and isinstance(problem, Problem)
    world = build_world(domain, problem)
    assert ground_truth(world, "applicable").items == (("go",),)
    assert ground_truth(world, "progression", [], ("go",)).items == (("on",),)
    assert ground_truth(world, "applicable", [("go",)]).items == ()
    with pytest.raises(TruthError, match="not applicable"):
        ground_truth(world, "progression", [("go",)], ("go",))


def test_blocksworld_by_hand() -> None:
    world = blocks_world()
    assert ground_truth(world, "applicable").to_json()["actions"] == ["(pick-up b)", "(unstack c a)"]
    progression = ground_truth(world, "progression", [("unstack", "c", "a")], ("put-down", "c")).to_json()
    assert progression["add"] == ["(clear c)", "(handempty)", "(on-table c)"]
    assert progression["delete"] == ["(holding c)"]
    tracking = ground_truth(world, "tracking", [("unstack", "c", "a"), ("put-down", "c")]).to_json()
    assert tracking["atoms"] == ["(clear a)", "(clear b)", "(clear c)", "(handempty)", "(on-table a)",
                                 "(on-table b)", "(on-table c)"]
    with pytest.raises(TruthError, match="needs the sequence"):
        ground_truth(world, "tracking", [])

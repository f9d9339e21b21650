"""Derived predicates (analyses/semantics/derived.py): the closure, its strata, its explanations, its
budget, and how users see derived atoms (plan text and JSON, the editor's hover, LTL goals, lint).

The verdicts themselves are checked against VAL in tests/test_derived_val.py; here the closure is
checked against a naive evaluator written independently below, on random states.
"""

from __future__ import annotations

import io
import itertools
import json
import time
from pathlib import Path

import pytest
from derived_strategies import CONSTANTS, random_domain
from hypothesis import given, settings
from hypothesis import strategies as st

from plansight.analyses.checks.domain import check_domain
from plansight.analyses.checks.problem import check_problem
from plansight.analyses.ltl.report import ltl_report
from plansight.analyses.model.pddl import (
    And,
    Atom,
    Domain,
    Equality,
    Formula,
    Imply,
    Not,
    Or,
    Plan,
    Problem,
    Quantified,
)
from plansight.analyses.plans.plan_json import PlanJob, PlanOptions, plan_json
from plansight.analyses.plans.simulate import simulate
from plansight.analyses.semantics.budget import WorkBudget
from plansight.analyses.semantics.derived import stratify
from plansight.analyses.semantics.state import GroundAtom, State
from plansight.analyses.semantics.world import World
from plansight.analyses.syntax.parse_ltl import parse_ltl
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan
from plansight.server.plan_feature import hover_markdown

FIXTURES = Path(__file__).parent / "fixtures" / "beyond_classical" / "derived"


def models(domain_text: str, problem_text: str) -> tuple[Domain, Problem]:
    domain, problem = parse_pddl(domain_text).model, parse_pddl(problem_text).model
    assert isinstance(domain, Domain) and isinstance(problem, Problem)
    return domain, problem


def fixture(name: str) -> tuple[Domain, Problem]:
    domain = (FIXTURES / f"{name}-domain.pddl").read_text()
    return models(domain, (FIXTURES / f"{name}-problem.pddl").read_text())


def plan_of(text: str) -> Plan:
    plan = parse_plan(text).plan
    assert plan is not None
    return plan


# --- the closure, against a naive evaluator ---------------------------------------------------------


def naive_holds(formula: Formula, atoms: set[GroundAtom], binding: dict[str, str],
                objects: list[str]) -> bool:
    """PDDL's truth of a condition, by the definition (the fixtures' quantifiers range over one type)."""
    if isinstance(formula, Atom):
        return (formula.predicate.key, *(binding.get(a.key, a.key) for a in formula.args)) in atoms
    if isinstance(formula, Not):
        return not naive_holds(formula.arg, atoms, binding, objects)
    if isinstance(formula, And):
        return all(naive_holds(f, atoms, binding, objects) for f in formula.args)
    if isinstance(formula, Or):
        return any(naive_holds(f, atoms, binding, objects) for f in formula.args)
    if isinstance(formula, Imply):
        return (not naive_holds(formula.condition, atoms, binding, objects)
                or naive_holds(formula.consequence, atoms, binding, objects))
    if isinstance(formula, Equality):
        left, right = formula.left.key, formula.right.key
        return binding.get(left, left) == binding.get(right, right)
    assert isinstance(formula, Quantified)
    names = [v.name.key for v in formula.variables]
    results = (naive_holds(formula.body, atoms, {**binding, **dict(zip(names, values, strict=True))},
                           objects) for values in itertools.product(objects, repeat=len(names)))
    return any(results) if formula.quantifier == "exists" else all(results)


def naive_closure(domain: Domain, basic: frozenset[GroundAtom], objects: list[str]) -> frozenset[GroundAtom]:
    """Every rule re-evaluated on every tuple of objects until nothing changes, stratum by stratum."""
    atoms = set(basic)
    for component in stratify(domain.derived).components:
        rules = [r for r in domain.derived if r.head.name.key in component]
        changed = True
        while changed:
            changed = False
            for rule in rules:
                names = [p.name.key for p in rule.head.parameters]
                for values in itertools.product(objects, repeat=len(names)):
                    atom = (rule.head.name.key, *values)
                    binding = dict(zip(names, values, strict=True))
                    if atom not in atoms and naive_holds(rule.body, atoms, binding, objects):
                        atoms.add(atom)
                        changed = True
    return frozenset(atoms - basic)


BLOCKS = ["a", "b", "c", "d"]
ROOMS = ["r1", "r2", "r3", "r4"]


@settings(max_examples=60, deadline=None)
@given(st.sets(st.tuples(st.sampled_from(BLOCKS), st.sampled_from(BLOCKS)), max_size=8))
def test_the_recursive_closure_is_the_naive_fixpoint(on: set[tuple[str, str]]) -> None:
    domain, problem = fixture("above")
    world = World.build(domain, problem)
    basic = frozenset(("on", x, y) for x, y in on)
    assert world.derived_atoms(basic) == naive_closure(domain, basic, BLOCKS)


@settings(max_examples=60, deadline=None)
@given(st.sets(st.tuples(st.sampled_from(ROOMS), st.sampled_from(ROOMS)), max_size=8),
       st.sampled_from(ROOMS))
def test_the_stratified_closure_is_the_naive_fixpoint(open_doors: set[tuple[str, str]], robot: str) -> None:
    domain, problem = fixture("rooms")
    world = World.build(domain, problem)
    basic = frozenset({("robot-in", robot), *(("open", x, y) for x, y in open_doors)})
    derived = world.derived_atoms(basic)
    assert derived == naive_closure(domain, basic, ROOMS)
    cut_off = {atom[1] for atom in derived if atom[0] == "cut-off"}
    reachable = {atom[1] for atom in derived if atom[0] == "reachable"}
    assert cut_off == set(ROOMS) - reachable and robot in reachable


def test_strata_put_a_negated_predicate_first() -> None:
    domain, _ = fixture("rooms")
    order = [sorted(c) for c in stratify(domain.derived).components]
    assert order.index(["reachable"]) < order.index(["cut-off"])
    assert order.index(["reachable"]) < order.index(["all-reachable"])


def test_derived_atoms_never_enter_the_basic_state() -> None:
    domain, problem = fixture("above")
    result = simulate(domain, problem, plan_of((FIXTURES / "above-plan.txt").read_text()))
    assert result.valid is True
    assert not any(atom[0] == "above" for atom in result.stop_state.atoms)
    assert ("above", "a", "d") in result.derived_before(len(result.trace))
    assert result.trace[3].derived_added == (("above", "b", "c"), ("above", "b", "d"))


def test_applicable_actions_see_derived_preconditions() -> None:
    domain, problem = fixture("above")
    world = World.build(domain, problem)
    state = State(frozenset({("on", "a", "b"), ("on", "b", "c"), ("clear", "a")}))
    assert {a.text for a in world.applicable(state) if a.name == "paint-top"} == {
        "(paint-top a b)", "(paint-top a c)"}


# --- explanations -----------------------------------------------------------------------------------


def test_a_false_derived_precondition_is_explained_through_its_rule() -> None:
    domain, problem = fixture("above")
    plan = "(pick-up c)\n(stack c d)\n(pick-up b)\n(stack b c)\n(pick-up a)\n(stack a b)\n(paint-top b a)\n"
    failure = simulate(domain, problem, plan_of(plan)).failure
    assert failure is not None and failure.index == 6
    assert ("(above b a) is false: no rule derives it — (on b a) is false; "
            "for ?z = c: (above c a) is false") in failure.message
    assert [m.text for m in failure.unsatisfied] == ["(clear b)", "(above b a)"]


def test_an_existential_with_no_witness_names_the_literal_that_found_none() -> None:
    domain, problem = fixture("above")
    failure = simulate(domain, problem, plan_of("(paint-top a d)")).failure
    assert failure is not None
    assert "(above a d) is false: no rule derives it — (on a d) is false; (on a ?z) holds for no ?z" in (
        failure.message)


def test_a_derived_atom_that_stopped_holding_says_since_when() -> None:
    domain, problem = fixture("rooms")
    plan = "(open-door r1 r2)\n(open-door r2 r3)\n(open-door r3 r4)\n(move r1 r2)\n(survey)\n"
    failure = simulate(domain, problem, plan_of(plan)).failure
    assert failure is not None and failure.index == 4
    assert ("(all-reachable) is false since step 4 (move r1 r2): no rule derives it — "
            "(reachable r1) is false") in failure.message
    assert failure.category == "wrong_order"


def test_a_negated_derived_atom_names_the_literal_that_holds() -> None:
    domain, problem = fixture("rooms")
    plan = "(open-door r1 r2)\n(open-door r2 r3)\n(open-door r3 r4)\n(seal r4)\n"
    failure = simulate(domain, problem, plan_of(plan)).failure
    assert failure is not None
    assert ("(cut-off r4) is false since step 3 (open-door r3 r4): no rule derives it — "
            "(reachable r4) holds") in failure.message


# --- domains whose rules have no meaning --------------------------------------------------------------

UNSTRATIFIED = """(define (domain ns) (:requirements :strips :derived-predicates :negative-preconditions)
  (:predicates (p) (q) (r))
  (:derived (p) (not (q)))
  (:derived (q) (not (p)))
  (:action a :parameters () :precondition (p) :effect (r)))"""
DERIVED_EFFECT = """(define (domain eff) (:requirements :strips :derived-predicates)
  (:predicates (p) (q) (r))
  (:derived (p) (q))
  (:action a :parameters () :precondition () :effect (p))
  (:action b :parameters () :precondition (p) :effect (r)))"""
PROBLEM = "(define (problem n) (:domain d) (:init) (:goal (r)))"


def test_an_unstratified_domain_has_no_verdict_and_an_error_that_says_why() -> None:
    domain, problem = models(UNSTRATIFIED, PROBLEM)
    result = simulate(domain, problem, plan_of("(a)"))
    assert result.valid is None
    assert result.skipped_reason == ("the derived predicates cannot be stratified: `p` depends on its own "
                                     "negation (`p` reads the negation of `q`, `q` reads `p`), so no "
                                     "fixpoint defines them")
    [error] = [d for d in check_domain(domain) if d.code == "unstratified-derived"]
    assert error.severity.value == "error" and UNSTRATIFIED[error.span.start:error.span.end] == "p"


def test_an_effect_on_a_derived_predicate_has_no_verdict_and_an_error_on_the_effect() -> None:
    domain, problem = models(DERIVED_EFFECT, PROBLEM)
    result = simulate(domain, problem, plan_of("(a)\n(b)"))
    assert result.valid is None and "`a` changes `p`" in (result.skipped_reason or "")
    [error] = [d for d in check_domain(domain) if d.code == "derived-effect"]
    assert DERIVED_EFFECT[error.span.start:error.span.end] == "(p)"
    assert error.span.start > DERIVED_EFFECT.index(":effect")


def test_a_derived_atom_in_init_is_ignored_as_val_ignores_it() -> None:
    domain_text = DERIVED_EFFECT.replace("(:action a :parameters () :precondition () :effect (p))\n  ", "")
    problem_text = "(define (problem n) (:domain eff) (:init (p)) (:goal (r)))"
    domain, problem = models(domain_text, problem_text)
    result = simulate(domain, problem, plan_of("(b)"))
    assert result.valid is False and result.failure is not None and result.failure.index == 0
    [warning] = [d for d in check_problem(problem, domain) if d.code == "derived-in-init"]
    assert problem_text[warning.span.start:warning.span.end] == "(p)"
    fixed = simulate(*models(domain_text, problem_text.replace("(:init (p))", "(:init (q))")), plan_of("(b)"))
    assert fixed.valid is True


# --- work: budget and long plans ------------------------------------------------------------------------

CHAIN = """(define (domain chain) (:requirements :strips :derived-predicates)
  (:predicates (link ?x ?y) (path ?x ?y) (done))
  (:derived (path ?x ?y) (or (link ?x ?y) (exists (?z) (and (link ?x ?z) (path ?z ?y)))))
  (:action finish :parameters (?x ?y) :precondition (path ?x ?y) :effect (done)))"""


def chain_problem(length: int) -> str:
    objects = " ".join(f"n{i}" for i in range(length))
    links = " ".join(f"(link n{i} n{i + 1})" for i in range(length - 1))
    return f"(define (problem c) (:domain chain) (:objects {objects}) (:init {links}) (:goal (done)))"


def test_a_closure_too_large_for_the_budget_stops_with_the_budget_reason() -> None:
    domain, problem = models(CHAIN, chain_problem(300))  # 44,850 derived atoms
    started = time.monotonic()
    result = simulate(domain, problem, plan_of("(finish n0 n299)"), budget=WorkBudget(None, 20_000))
    assert time.monotonic() - started < 5
    assert result.valid is None
    assert result.stopped_reason == ("stopped after 20,000 units of work while evaluating the derived "
                                     "predicates of the initial state")


def test_the_closure_is_semi_naive_on_a_long_chain() -> None:
    domain, problem = models(CHAIN, chain_problem(120))
    result = simulate(domain, problem, plan_of("(finish n0 n119)"))
    assert result.valid is True
    assert len(result.derived_before(0)) == 120 * 119 // 2


def test_a_ten_thousand_step_plan_recomputes_its_closure_at_every_step_in_seconds() -> None:
    domain, problem = fixture("above")
    steps = ["(pick-up c)", "(stack c d)", "(pick-up b)", "(stack b c)"]
    steps += ["(unstack b c)", "(stack b c)"] * 4_998
    steps += ["(pick-up a)", "(stack a b)", "(paint-top a d)"]
    started = time.monotonic()
    result = simulate(domain, problem, plan_of("\n".join(steps)))
    assert result.valid is True and result.length == 10_003
    assert time.monotonic() - started < 10
    assert result.trace[4].derived_deleted == (("above", "b", "c"), ("above", "b", "d"))


# --- what users see ---------------------------------------------------------------------------------------


def above_job(plan_text: str) -> PlanJob:
    domain, problem = fixture("above")
    simulation = simulate(domain, problem, plan_of(plan_text))
    return PlanJob("plan.txt", domain=domain, problem=problem, simulation=simulation, world=simulation.world)


def test_the_json_trace_lists_derived_changes_apart() -> None:
    report = plan_json(above_job((FIXTURES / "above-plan.txt").read_text()), PlanOptions())
    stack = report["trace"][1]
    assert stack["added"] == ["(clear c)", "(handempty)", "(on c d)"]
    assert stack["derived_added"] == ["(above c d)"] and stack["derived_deleted"] == []
    json.dumps(report)


def test_a_classical_json_trace_keeps_its_keys() -> None:
    examples = Path(__file__).parent.parent / "examples" / "blocksworld"
    domain, problem = models((examples / "domain.pddl").read_text(), (examples / "p01.pddl").read_text())
    simulation = simulate(domain, problem, plan_of((examples / "p01.plan").read_text()))
    job = PlanJob("p01.plan", domain=domain, problem=problem, simulation=simulation, world=simulation.world)
    assert {key for entry in plan_json(job, PlanOptions())["trace"] for key in entry} == {
        "index", "action", "added", "deleted", "changed"}


def test_the_plan_text_shows_derived_changes_after_the_effects() -> None:
    from plansight.plan_command import write_text

    job = above_job((FIXTURES / "above-plan.txt").read_text())
    out = io.StringIO()
    write_text(job, plan_json(job, PlanOptions()), out)
    assert "+(on c d) -(holding c) -(clear d)  · derived: +(above c d)\n" in out.getvalue()


def test_the_hover_shows_derived_atoms_in_a_block_of_their_own() -> None:
    job = above_job((FIXTURES / "above-plan.txt").read_text())
    assert job.simulation is not None
    hover = hover_markdown(job.simulation, 6)
    assert "State before step 7 (" in hover
    assert ("Derived by the `:derived` rules (6 atoms):\n```pddl\n"
            "(above a b) (above a c) (above a d) (above b c) (above b d) (above c d)\n```") in hover
    basic = hover.split("State before step 7")[1].split("Derived by")[0]
    assert "(above" not in basic
    assert "Derived atoms changed: `+(above a b)` `+(above a c)` `+(above a d)`" in hover_markdown(
        job.simulation, 5)


def test_an_ltl_goal_may_name_a_derived_predicate() -> None:
    domain, problem = fixture("above")
    plan = plan_of((FIXTURES / "above-plan.txt").read_text())
    def satisfied(text: str) -> bool | None:
        return ltl_report(parse_ltl(text).formula, domain, problem, plan).satisfied

    assert satisfied("above(b, d) then above(a, d)") is True
    assert satisfied("above(d, a)") is False


@pytest.mark.parametrize("name", ["above", "rooms", "delivery"])
def test_the_fixture_domains_lint_clean(name: str) -> None:
    domain, problem = fixture(name)
    assert [d.code for d in check_domain(domain) if d.severity.value in ("error", "warning")] == []
    assert [d.code for d in check_problem(problem, domain) if d.severity.value in ("error", "warning")] == []


@pytest.mark.parametrize(("value", "valid"), [(2, True), (1, False)])
def test_a_rule_body_that_compares_values_reads_the_state(value: int, valid: bool) -> None:
    domain, problem = models(
        "(define (domain d) (:requirements :derived-predicates :fluents) (:predicates (p)) (:functions (f)) "
        "(:derived (p) (> (f) 1)) (:action a :parameters () :precondition (p) :effect ()))",
        f"(define (problem x) (:domain d) (:init (= (f) {value})) (:goal (p)))")
    result = simulate(domain, problem, plan_of("(a)"))
    assert result.skipped_reason is None and result.valid is valid


def test_a_derived_goal_that_does_not_hold_is_explained_in_the_lint_message() -> None:
    from plansight.analyses.checks.plan import simulation_diagnostics

    domain, problem = fixture("delivery")
    plan = "(load p1 depot)\n(load p2 depot)\n(drive depot a)\n(unload p1 a)\n(inspect a)\n"
    result = simulate(domain, problem, plan_of(plan))
    assert result.executable is True and result.goals.unsatisfied == ("(all-delivered)", "(checked p2)")
    assert result.goals.why == ("(all-delivered) is false: no rule derives it — (delivered p2) is false",)
    found = simulation_diagnostics(plan, plan_of(plan), problem, domain)
    [goal] = [d for d in found if d.code == "goal-not-satisfied"]
    assert "(all-delivered) is false: no rule derives it — (delivered p2) is false." in goal.message


def test_two_sibling_exists_with_the_same_variable_name_are_two_variables() -> None:
    domain, problem = models(
        "(define (domain d) (:requirements :derived-predicates :existential-preconditions)"
        " (:predicates (p ?x) (q ?x) (both))"
        " (:derived (both) (and (exists (?z) (p ?z)) (exists (?z) (q ?z)))))",
        "(define (problem x) (:domain d) (:objects a b) (:init (p a) (q b)) (:goal (both)))")
    world = World.build(domain, problem)
    assert world.derived_atoms(world.initial_state().atoms) == {("both",)}
    assert world.derived_atoms(frozenset({("p", "a")})) == frozenset()


# --- random rule bodies, against the naive fixpoint -----------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(random_domain(),
       st.sets(st.sampled_from([("b1", c) for c in CONSTANTS]
                               + [("b2", x, y) for x in CONSTANTS for y in CONSTANTS]), max_size=8))
def test_random_stratified_rules_reach_the_naive_fixpoint(domain_text: str, basic: set[GroundAtom]) -> None:
    domain, problem = models(domain_text, "(define (problem x) (:domain r) (:init) (:goal (d3)))")
    world = World.build(domain, problem)
    assert world.unsupported == ()
    frozen = frozenset(basic)
    derived = world.derived_atoms(frozen)
    assert derived == naive_closure(domain, frozen, CONSTANTS), domain_text
    rules = world.derived
    assert rules is not None
    full = frozen | derived
    heads = [("d1", x) for x in CONSTANTS] + [("d2", x, y) for x in CONSTANTS for y in CONSTANTS] + [("d3",)]
    for atom in heads:
        if atom not in derived:  # every false derived atom gets a reason that names an unmet literal
            reason = rules.explain(atom, full)
            assert reason.startswith("no rule derives it — ") and "its body holds" not in reason, reason


def test_the_plan_view_carries_derived_atoms_apart_for_its_state_panel() -> None:
    from plansight.analyses.plans.plan_html import plan_html
    from plansight.analyses.plans.plan_view import plan_view

    view = plan_view(above_job((FIXTURES / "above-plan.txt").read_text()))
    assert view["has_derived"] is True and view["initial_derived"] == []
    assert view["steps"][5]["derived_added"] == ["(above a b)", "(above a c)", "(above a d)"]
    assert "(above" not in " ".join(atom for step in view["steps"] for atom in step["added"])
    assert "Derived by the :derived rules" in plan_html(view, nonce="n")
    examples = Path(__file__).parent.parent / "examples" / "blocksworld"
    domain, problem = models((examples / "domain.pddl").read_text(), (examples / "p01.pddl").read_text())
    simulation = simulate(domain, problem, plan_of((examples / "p01.plan").read_text()))
    classical = plan_view(PlanJob("p01.plan", domain=domain, problem=problem, simulation=simulation))
    assert classical["has_derived"] is False
    assert '<p class="muted">Derived by the :derived rules:</p>' not in plan_html(classical, nonce="n")

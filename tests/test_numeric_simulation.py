"""Numeric fluents (PDDL 2.1 level 2) in the world and in plan simulation: values from ``:init``,
comparisons in every kind of condition, the five update operators with simultaneous-update semantics,
undefined values, conflicting updates, the ``:metric``, and explanations that name values
(docs/beyond-classical-numeric.md). tests/test_numeric_val.py runs the same cases against VAL."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from plansight.analyses.model.pddl import Domain, Plan, Problem
from plansight.analyses.plans.simulate import Simulation, simulate
from plansight.analyses.semantics.state import State
from plansight.analyses.semantics.world import ConflictingUpdates, World, updated_values
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan

DOMAIN = """(define (domain trucks)
  (:requirements :typing :adl :numeric-fluents :action-costs)
  (:types truck loc)
  (:predicates (at ?t - truck ?l - loc) (road ?a ?b - loc))
  (:functions (fuel ?t - truck) (dist ?a ?b - loc) (spare) (total-cost) - number)
  (:action drive :parameters (?t - truck ?a ?b - loc)
    :precondition (and (at ?t ?a) (road ?a ?b) (>= (fuel ?t) (dist ?a ?b)))
    :effect (and (not (at ?t ?a)) (at ?t ?b) (decrease (fuel ?t) (dist ?a ?b))
                 (increase (total-cost) (dist ?a ?b))))
  (:action refuel :parameters (?t - truck)
    :precondition (< (fuel ?t) 10)
    :effect (assign (fuel ?t) 10))
  (:action use-spare :parameters (?t - truck)
    :precondition (and)
    :effect (increase (fuel ?t) (spare)))
  (:action swap :parameters (?t ?u - truck)
    :precondition (not (= ?t ?u))
    :effect (and (assign (fuel ?t) (fuel ?u)) (assign (fuel ?u) (fuel ?t))))
  (:action top-up :parameters (?t - truck)
    :precondition (and)
    :effect (and (increase (fuel ?t) 1) (increase (fuel ?t) 2) (decrease (fuel ?t) 1)))
  (:action reset :parameters (?t - truck)
    :precondition (and)
    :effect (and (assign (fuel ?t) 1) (increase (fuel ?t) 2)))
  (:action boost :parameters (?t - truck)
    :precondition (and)
    :effect (and (when (> (fuel ?t) 5) (scale-up (fuel ?t) 2))
                 (when (<= (fuel ?t) 5) (scale-down (fuel ?t) 2)))))
"""

PROBLEM = """(define (problem deliver) (:domain trucks)
  (:objects t1 t2 - truck a b c - loc)
  (:init (at t1 a) (at t2 a) (road a b) (road b c)
         (= (fuel t1) 10) (= (dist a b) 6) (= (dist b c) 6) (= (total-cost) 0))
  (:goal (and (at t1 c) (<= (total-cost) 12)))
  (:metric minimize (+ (total-cost) (fuel t1))))
"""


def pair(domain: str = DOMAIN, problem: str = PROBLEM) -> tuple[Domain, Problem]:
    d, p = parse_pddl(domain).model, parse_pddl(problem).model
    assert isinstance(d, Domain) and isinstance(p, Problem)
    return d, p


def run(*steps: str, problem: str = PROBLEM) -> Simulation:
    plan = parse_plan("\n".join(steps)).plan
    assert plan is not None
    return simulate(*pair(problem=problem), plan)


def test_initial_values_and_numeric_checks_on_states() -> None:
    world = World.build(*pair())
    assert world.unsupported == () and world.numeric
    s0 = world.initial_state()
    assert s0.value(("fuel", "t1")) == 10.0 and s0.value(("fuel", "t2")) is None
    assert world.precondition_holds("drive", ["t1", "a", "b"], s0)
    after = world.apply("drive", ["t1", "a", "b"], s0)
    assert after.value(("fuel", "t1")) == 4.0 and after.value(("total-cost",)) == 6.0
    assert not world.precondition_holds("drive", ["t1", "b", "c"], after)


def test_apply_effect_and_holds_read_and_write_values() -> None:
    """The temporal simulator applies effect parts with these two: they must see and change values."""
    world = World.build(*pair())
    drive = world.action("drive")
    assert drive is not None and drive.action.precondition is not None
    s0 = world.initial_state()
    binding = world.binding("drive", ["t1", "a", "b"])
    assert world.holds(drive.action.precondition, s0, binding)
    assert world.apply_effect(drive.action.effect, s0, binding) == world.apply("drive", ["t1", "a", "b"], s0)
    assert world.effect_updates(drive.action.effect, s0, binding) == [
        (("fuel", "t1"), "decrease", 6.0), (("total-cost",), "increase", 6.0)]


def test_a_valid_plan_records_value_changes_and_the_metric() -> None:
    result = run("(drive t1 a b)", "(refuel t1)", "(drive t1 b c)")
    assert result.valid is True
    assert [step.changed for step in result.trace] == [
        ((("fuel", "t1"), 10.0, 4.0), (("total-cost",), 0.0, 6.0)),
        ((("fuel", "t1"), 4.0, 10.0),),
        ((("fuel", "t1"), 10.0, 4.0), (("total-cost",), 6.0, 12.0))]
    assert result.metric is not None and result.metric.value == 16.0
    assert result.metric.text == "minimize (+ (total-cost) (fuel t1)) = 16"
    states = list(result.states())
    assert [s.value(("fuel", "t1")) for s in states] == [10.0, 4.0, 10.0, 4.0]
    assert result.state_before(2) == states[2] and result.stop_state == states[3]


def test_a_failing_numeric_precondition_is_explained_with_the_values_it_reads() -> None:
    result = run("(drive t1 a b)", "(drive t1 b c)")
    assert result.valid is False and result.lea == 1 and result.failure is not None
    assert ("(>= (fuel t1) (dist b c)) is false: (fuel t1) is 4 after step 1 (drive t1 a b), which "
            "decreased it by 6; (dist b c) is 6 (its initial value)") in result.failure.message
    assert result.metric is None  # only a valid plan has a metric value


def test_reading_an_undefined_fluent_stops_the_plan_at_that_step() -> None:
    for steps, index in ((("(drive t2 a b)",), 0), (("(drive t1 a b)", "(use-spare t1)"), 1),
                         (("(swap t1 t2)",), 0)):
        result = run(*steps)
        assert result.failure is not None and result.failure.category == "undefined_value", steps
        assert result.failure.index == index and result.valid is False


def test_changing_an_undefined_fluent_starts_from_zero_as_val_does() -> None:
    result = run("(top-up t2)")
    assert result.trace[0].changed == ((("fuel", "t2"), None, 2.0),)


def test_updates_read_the_state_before_the_step_and_additive_ones_add_up() -> None:
    problem = PROBLEM.replace("(= (total-cost) 0)", "(= (total-cost) 0) (= (fuel t2) 3)")
    swapped = run("(swap t1 t2)", problem=problem)
    final = swapped.stop_state
    assert final.value(("fuel", "t1")) == 3.0 and final.value(("fuel", "t2")) == 10.0
    assert run("(top-up t1)").stop_state.value(("fuel", "t1")) == 12.0


def test_an_assign_combined_with_another_update_of_the_fluent_is_a_conflict() -> None:
    result = run("(drive t1 a b)", "(reset t1)")
    assert result.failure is not None and result.failure.category == "conflicting_effects"
    assert result.failure.index == 1 and "(fuel t1) is assigned more than once" in result.failure.message
    with pytest.raises(ConflictingUpdates):
        updated_values({}, [(("f",), "scale-up", 2.0), (("f",), "increase", 1.0)])


def test_conditional_scaling() -> None:
    assert run("(boost t1)").stop_state.value(("fuel", "t1")) == 20.0
    assert run("(drive t1 a b)", "(boost t1)").stop_state.value(("fuel", "t1")) == 2.0


def test_numeric_goals_and_division_by_zero() -> None:
    expensive = run("(drive t1 a b)", "(refuel t1)", "(drive t1 b c)",
                    problem=PROBLEM.replace("(<= (total-cost) 12)", "(<= (total-cost) 11)"))
    assert expensive.valid is False and expensive.goals.unsatisfied == ("(<= (total-cost) 11)",)
    undefined = run("(drive t1 a b)", "(refuel t1)", "(drive t1 b c)",
                    problem=PROBLEM.replace("(<= (total-cost) 12)", "(> (fuel t2) 0)"))
    assert undefined.valid is False
    assert undefined.goals.unsatisfied == ("(> (fuel t2) 0) ((fuel t2) has no value)",)
    infinite = run("(drive t1 a b)", "(refuel t1)", "(drive t1 b c)",
                   problem=PROBLEM.replace("(+ (total-cost) (fuel t1))", "(/ (fuel t1) (- (total-cost) 12))"))
    assert infinite.metric is not None and infinite.metric.value == math.inf


def test_total_time_of_a_sequential_plan_is_its_length() -> None:
    result = run("(drive t1 a b)", "(refuel t1)", "(drive t1 b c)",
                 problem=PROBLEM.replace("(+ (total-cost) (fuel t1))", "(total-time)"))
    assert result.metric is not None and result.metric.value == 3.0


def test_states_with_values_compare_and_hash_by_value() -> None:
    one = State(frozenset({("p",)}), {("f",): 1.0})
    assert one == State(frozenset({("p",)}), {("f",): 1.0}) != State(frozenset({("p",)}), {("f",): 2.0})
    assert len({one, State(frozenset({("p",)}), {("f",): 1.0})}) == 1 and ("p",) in one
    assert simulate(*pair(), Plan()).initial.value(("dist", "a", "b")) == 6.0


def test_the_editor_shows_value_changes_in_hints_and_values_in_the_state_hover() -> None:
    from plansight.analyses.plans.report import effects_line
    from plansight.server.plan_feature import hover_markdown

    result = run("(drive t1 a b)", "(drive t1 b c)")
    first = result.trace[0]
    assert effects_line(first.added, first.deleted, changed=first.changed) == (
        "+(at t1 b) -(at t1 a) (fuel t1) 10→4 (total-cost) 0→6")
    hover = hover_markdown(result, 1)
    assert "(= (fuel t1) 4)" in hover and "(= (total-cost) 6)" in hover and "fluent values" in hover
    assert "(fuel t1) is 4 after step 1 (drive t1 a b), which decreased it by 6" in hover
    assert "`(fuel t1) 10→4`" in hover_markdown(result, 0)


def test_recovery_says_fast_downward_cannot_complete_a_numeric_plan() -> None:
    from plansight.analyses.plans.metrics import parse_action_text
    from plansight.analyses.plans.recovery import recover, with_initial_state

    actions = [parse_action_text(step) for step in ("(drive t1 a b)", "(drive t1 b c)")]
    repaired = recover(*pair(), [a for a in actions if a is not None])
    # ENHSP (the numeric planner, through unified-planning) is tried next; it refuses this domain, whose
    # actions update one fluent twice in a step (VAL adds increases up, unified-planning rejects them)
    assert repaired.status == "error" and repaired.plan is None
    assert "Fast Downward cannot complete a numeric plan" in repaired.message
    assert "ENHSP failed" in repaired.message and "in conflict" in repaired.message
    assert "`drive`" in repaired.message
    restarted = with_initial_state(pair()[1], run("(drive t1 a b)").stop_state)
    world = World.build(pair()[0], restarted)
    assert world.initial_state().value(("fuel", "t1")) == 4.0
    assert world.initial_state().value(("total-cost",)) == 0.0  # the completion's cost starts from 0


def test_the_equivalence_state_search_handles_numeric_tasks_and_forgets_action_costs() -> None:
    from plansight.analyses.equivalence.goal_closure import Budget, goal_closure

    unbounded = goal_closure(*pair(), Budget(seconds=20.0, states=2_000))  # (top-up t1) never stops
    assert unbounded.reachable is None and "more than 2,000 reachable states" in unbounded.reason
    counters = Path(__file__).parent / "fixtures" / "beyond_classical" / "numeric" / "counters"
    task = pair((counters / "domain.pddl").read_text(), (counters / "problem.pddl").read_text())
    bounded = goal_closure(*task, Budget(seconds=20.0, states=5_000))
    assert bounded.reachable is True and bounded.states == 9 ** 3  # each counter 0..8
    costs = """(define (domain d) (:requirements :strips :action-costs) (:predicates (p) (q))
      (:functions (total-cost) - number)
      (:action flip :parameters () :precondition (p)
        :effect (and (not (p)) (q) (increase (total-cost) 1)))
      (:action flop :parameters () :precondition (q)
        :effect (and (not (q)) (p) (increase (total-cost) 1))))"""
    problem = "(define (problem x) (:domain d) (:init (p) (= (total-cost) 0)) (:goal (q)))"
    cycle = goal_closure(*pair(costs, problem), Budget(seconds=20.0, states=100))
    assert cycle.reachable is True and cycle.states == 2  # costs differ, the states do not


def test_the_reference_state_prefix_ignores_what_the_route_cost() -> None:
    """pi_corr ends where the plan first reaches the latest reference state it reaches; with action costs
    a cheaper or dearer route to the same world state still reaches it."""
    from plansight.analyses.plans.metrics import parse_action_text
    from plansight.analyses.plans.recovery import recover

    pytest.importorskip("up_fast_downward")
    domain = """(define (domain roads) (:requirements :strips :action-costs) (:predicates (at ?l))
      (:functions (total-cost) - number)
      (:action move :parameters (?from ?to) :precondition (at ?from)
        :effect (and (not (at ?from)) (at ?to) (increase (total-cost) 1))))"""
    problem = """(define (problem p) (:domain roads) (:objects l1 l2 l3 l4)
      (:init (at l1) (= (total-cost) 0)) (:goal (at l4)) (:metric minimize (total-cost)))"""

    def actions(*steps: str) -> list[tuple[str, ...]]:
        return [a for a in (parse_action_text(s) for s in steps) if a is not None]

    plan = actions("(move l1 l3)", "(move l3 l1)")
    reference = actions("(move l1 l2)", "(move l2 l3)", "(move l3 l4)")
    repaired = recover(*pair(domain, problem), plan, reference)
    assert repaired.prefix_rule == "reference-state" and repaired.status == "solved"
    assert repaired.prefix == tuple(actions("(move l1 l3)"))  # (at l3) at cost 1, the reference's at 2
    assert repaired.completion == tuple(actions("(move l3 l4)"))


def test_a_step_that_only_costs_is_still_redundant_but_one_that_changes_a_value_is_not() -> None:
    domain = """(define (domain d) (:requirements :strips :numeric-fluents :action-costs)
      (:predicates (p)) (:functions (total-cost) (level))
      (:action touch :parameters () :precondition (p) :effect (and (p) (increase (total-cost) 1)))
      (:action pump :parameters () :precondition (p) :effect (and (p) (increase (level) 1))))"""
    problem = "(define (problem x) (:domain d) (:init (p) (= (total-cost) 0) (= (level) 0)) (:goal (p)))"
    plan = parse_plan("(touch)\n(pump)").plan
    assert plan is not None
    result = simulate(*pair(domain, problem), plan)
    assert result.valid is True and result.redundant == (0,)


def test_the_plan_lens_and_the_plan_view_summary_show_the_metric_of_a_valid_plan() -> None:
    from plansight.analyses.plans.report import summary_line

    result = run("(drive t1 a b)", "(refuel t1)", "(drive t1 b c)")
    assert result.metric is not None and result.metric.summary == "(+ (total-cost) (fuel t1)) = 16"
    assert summary_line(valid=True, lea=3, length=3, goals_satisfied=2, goals_total=2,
                        metric=result.metric.summary) == "valid · (+ (total-cost) (fuel t1)) = 16"

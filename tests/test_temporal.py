"""Temporal plans as a user meets them: the happenings, LEA over happenings, the failing happening
underlined on its plan line with the broken condition and since when, timed initial literals, the
tolerance, the plan forms VAL accepts, and ``plansight plan``'s text and JSON
(docs/beyond-classical-temporal.md). Agreement with VAL itself is tests/test_temporal_val.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from plansight.analyses.checks.plan import simulation_diagnostics
from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.plans.simulate import Simulation, simulate
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan

FIXTURES = Path(__file__).parent / "fixtures" / "beyond_classical" / "temporal"
PLANSIGHT = Path(sys.executable).parent / "plansight"


def pair(name: str) -> tuple[Domain, Problem]:
    domain = parse_pddl((FIXTURES / f"{name}-domain.pddl").read_text()).model
    problem = parse_pddl((FIXTURES / f"{name}-problem.pddl").read_text()).model
    assert isinstance(domain, Domain) and isinstance(problem, Problem)
    return domain, problem


def run(name: str, text: str, epsilon: float = 0.01) -> Simulation:
    parsed = parse_plan(text)
    assert parsed.plan is not None
    return simulate(*pair(name), parsed.plan, epsilon=epsilon)


LAMP = ("0.000: (light a) [5.000]\n0.000: (light b) [5.000]\n"
        "5.010: (clean a) [3.000]\n8.020: (clean b) [2.500]\n")


def test_a_valid_plan_runs_its_happenings_in_time_order() -> None:
    sim = run("lamp", LAMP)
    assert sim.valid is True and sim.temporal
    assert [(h.time, h.label) for h in sim.happenings] == [
        (0.0, "(light a) start, (light b) start"), (5.0, "(light a) end, (light b) end"),
        (5.01, "(clean a) start"), (8.01, "(clean a) end"), (8.02, "(clean b) start"),
        (10.52, "(clean b) end")]
    assert sim.lea == sim.length == 6
    assert sim.trace[1].added == (("lit", "a"), ("lit", "b"))
    assert sim.states().__next__() == sim.initial and len(list(sim.states())) == 7


def test_a_broken_over_all_names_the_action_the_condition_and_since_when() -> None:
    text = LAMP + "3.990: (cut) [1.000]\n"
    sim = run("lamp", text)
    failure = sim.failure
    assert failure is not None and failure.category == "invariant"
    assert sim.lea == 3  # light starts, cut starts, cut ends; the interval before the lights' end breaks
    assert failure.action == "(light a)"
    assert "between time 4.99 and 5" in failure.message
    assert ("(power) is false since time 4.99: it stopped holding at happening 3 ((cut) end)"
            in failure.message)
    assert text[failure.span.start:failure.span.end] == "(light a)"  # underlined on its plan line
    assert [m.stopped_after for m in failure.unsatisfied] == [2]


def test_a_lint_diagnostic_underlines_the_failing_happenings_line() -> None:
    text = LAMP.replace("5.010: (clean a)", "4.000: (clean a)")
    parsed = parse_plan(text)
    assert parsed.plan is not None
    found = simulation_diagnostics(text, parsed.plan, pair("lamp")[1], pair("lamp")[0])
    failing = [d for d in found if d.code == "step-not-executable"]
    assert len(failing) == 1
    assert text[failing[0].span.start:failing[0].span.end] == "(clean a)"
    assert "(lit a) is false" in failing[0].message and "Happening 2 (time 4)" in failing[0].message
    unreached = [text[d.span.start:d.span.end] for d in found if d.code == "unreached-step"]
    assert unreached == ["(clean b)"]


def test_a_timed_initial_literal_is_a_happening_and_a_deadline() -> None:
    plan = ("0.000: (drive t1 depot bakery) [3.000]\n1.000: (drive t2 depot cafe) [3.000]\n"
            "7.500: (unload t1 bakery) [2.000]\n4.010: (unload t2 cafe) [2.000]\n")
    sim = run("shop", plan)
    assert ("(at 9 (not (open bakery)))", 9.0) in [(h.label, h.time) for h in sim.happenings]
    failure = sim.failure
    assert failure is not None and failure.category == "invariant" and failure.action == "(unload t1 bakery)"
    assert "(open bakery) is false since time 9" in failure.message


def test_interfering_snaps_within_a_tenth_of_epsilon_are_a_mutex_and_epsilon_is_configurable() -> None:
    plan = ("0.000: (light-match m1) [8.000]\n0.010: (mend-fuse f1) [5.000]\n"
            "8.0005: (light-match m2) [8.000]\n8.020: (mend-fuse f2) [5.000]\n")
    failure = run("cellar", plan).failure
    assert failure is not None and failure.category == "mutex"
    assert "(light-match m1) end deletes (light), which (light-match m2) start adds" in failure.message
    assert run("cellar", plan, epsilon=0.001).valid is True  # 0.0005 > 0.001 / 10: two happenings


def test_a_duration_outside_its_constraint_fails_the_start() -> None:
    sim = run("lamp", LAMP.replace("(clean a) [3.000]", "(clean a) [4.500]"))
    assert sim.failure is not None and sim.failure.category == "duration"
    assert "(<= ?duration 4) is false" in sim.failure.message
    longer = LAMP.replace("(clean a) [3.000]", "(clean a) [4.005]").replace("8.020:", "9.100:")
    assert run("lamp", longer).valid is True  # within ε of the bound


def test_the_plan_forms_val_accepts() -> None:
    # without times a step happens at its position (1, 2, ...); without a duration it lasts 0
    sim = run("lamp", "(light a)\n(light b)\n")
    assert [(h.time, h.label) for h in sim.happenings] == [(1.0, "(light a) start, (light a) end"),
                                                          (2.0, "(light b) start, (light b) end")]
    assert sim.failure is not None and sim.failure.category == "duration"  # VAL: "Set the duration to 5"
    timed = run("lamp", "0: (light a) [5]\n0.0: (light b) [5]\n5.01: (clean a) [3]\n8.02: (clean b) [2.5]\n")
    assert timed.valid is True


def test_numeric_temporal_plans_report_the_makespan_metric() -> None:
    sim = run("tank", (FIXTURES / "tank.plan").read_text())
    assert sim.valid is True and sim.metric is not None
    assert sim.metric.value == 5.02  # VAL: "Final value: 5.02"
    assert sim.stop_state.value(("level",)) == 60


def test_non_linear_continuous_effects_are_not_simulated() -> None:
    domain = parse_pddl("(define (domain d) (:requirements :durative-actions :fluents) (:predicates (p)) "
                        "(:functions (x)) (:durative-action go :parameters () :duration (= ?duration 1) "
                        ":condition (at start (p)) :effect (increase (x) (* #t (x)))))").model
    problem = parse_pddl("(define (problem q) (:domain d) (:init (p) (= (x) 0)) (:goal (p)))").model
    assert isinstance(domain, Domain) and isinstance(problem, Problem)
    parsed = parse_plan("0: (go) [1]\n")
    assert parsed.plan is not None
    sim = simulate(domain, problem, parsed.plan)
    assert sim.valid is None and sim.skipped_reason is not None
    assert "non-linear continuous effects (a rate reads a fluent that" in sim.skipped_reason


def test_plansight_plan_shows_happenings_in_text_and_json(tmp_path: Path) -> None:
    plan = tmp_path / "broken.plan"
    plan.write_text(LAMP + "3.990: (cut) [1.000]\n")
    args = [str(PLANSIGHT), "plan", str(plan), "--domain", str(FIXTURES / "lamp-domain.pddl"),
            "--problem", str(FIXTURES / "lamp-problem.pddl")]
    text = subprocess.run(args, capture_output=True, text=True, timeout=60, check=False)
    assert text.returncode == 1
    assert "INVALID · LEA 3/8 happenings" in text.stdout
    assert "t=4.99" in text.stdout and "✗ over all condition broken" in text.stdout
    completed = subprocess.run([*args, "--format", "json", "--epsilon", "0.001"], capture_output=True,
                               text=True, timeout=60, check=False)
    report = json.loads(completed.stdout)
    assert report["temporal"] is True and report["epsilon"] == 0.001 and report["lea"] == 3
    assert report["happenings"][0] == {
        "index": 0, "time": 0.0, "executed": True,
        "snaps": [{"kind": "start", "action": "(light a)", "step": 0, "time": 0.0},
                  {"kind": "start", "action": "(light b)", "step": 1, "time": 0.0}]}
    assert report["failure"]["category"] == "invariant" and report["failure"]["time"] == 5.0
    assert report["failure"]["step"] == 0


def test_ltl_goals_are_judged_on_the_states_between_happenings() -> None:
    from plansight.analyses.ltl.report import ltl_report, trajectory
    from plansight.analyses.syntax.parse_ltl import parse_ltl

    domain, problem = pair("lamp")
    parsed = parse_plan(LAMP)
    assert parsed.plan is not None
    sim = simulate(domain, problem, parsed.plan)
    pairs = trajectory(sim)
    assert len(pairs) == 7  # the initial state and the state after each of the 6 happenings
    assert [p[1] for p in pairs] == [("light", "a"), None, ("clean", "a"), None, ("clean", "b"), None, None]
    lit_before_cleaned = parse_ltl("lit(a) then cleaned(a)").formula
    assert ltl_report(lit_before_cleaned, domain, problem, parsed.plan).satisfied is True
    busy_after_the_last_cleaning = parse_ltl("cleaned(b) then busy()").formula
    assert ltl_report(busy_after_the_last_cleaning, domain, problem, parsed.plan).satisfied is False


def test_linear_continuous_change_is_followed_between_happenings() -> None:
    sim = run("flow", (FIXTURES / "flow.plan").read_text())
    assert sim.valid is True
    # fill p1 (rate 10) and fill p2 (rate 5) for 4, then drain p1 (rate -2) for 2: 20 + 60 - 4
    assert sim.stop_state.value(("level",)) == 76
    overflow = run("flow", "0: (fill p1) [9]\n")
    failure = overflow.failure
    assert failure is not None and failure.category == "invariant"
    assert "(level) goes from 20 at time 0 to 110 at time 9" in failure.message


def test_pddl_plus_events_fire_where_a_process_takes_a_value_across_their_bound() -> None:
    sim = run("tub", "1: (start-fill)\n6.5: (stop-fill)\n")
    assert [(h.time, h.label) for h in sim.happenings] == [
        (1.0, "(start-fill)"), (6.0, "(overflow)"), (6.5, "(stop-fill)")]  # 2 per time unit from 0 to 10
    assert sim.executable is True and sim.valid is False
    assert sim.goals.unsatisfied == ("(not (overflowed))",)
    late = run("tub", "1: (start-fill)\n5.6: (unplug)\n6: (stop-fill)\n")
    assert late.failure is not None and late.failure.category == "wrong_order"
    assert "(<= (level) 9) is false: (level) is 9.2" in late.failure.message
    assert run("tub", (FIXTURES / "tub.plan").read_text()).valid is True


def test_pddl_plus_beyond_linear_dynamics_is_not_simulated() -> None:
    domain = parse_pddl("(define (domain d) (:requirements :time :fluents) (:predicates (p)) "
                        "(:functions (x)) (:process grow :parameters () :precondition (p) "
                        ":effect (increase (x) (* #t (x)))))").model
    problem = parse_pddl("(define (problem q) (:domain d) (:init (p) (= (x) 1)) (:goal (p)))").model
    assert isinstance(domain, Domain) and isinstance(problem, Problem)
    sim = simulate(domain, problem, [])
    assert sim.valid is None and sim.skipped_reason is not None
    assert "processes whose effects are not linear rates (`grow`)" in sim.skipped_reason


def test_analyses_of_instantaneous_actions_say_a_temporal_task_is_beyond_them() -> None:
    from plansight.analyses.equivalence.goal_closure import Budget, goal_closure
    from plansight.analyses.reasoning.truth import TruthError, build_world

    try:
        build_world(*pair("lamp"))
    except TruthError as error:
        assert "the domain has durative actions (`light`, `clean`, `cut`)" in str(error)
    else:
        raise AssertionError("the truth tasks answered for a temporal task")
    closure = goal_closure(*pair("shop"), Budget())
    assert closure.reachable is None
    assert "temporal tasks: the domain has durative actions (`drive`, `unload`) and the problem has timed " \
           "initial literals" in closure.reason

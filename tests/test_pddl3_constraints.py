"""PDDL3 over a plan (docs/beyond-classical-pddl3.md): each trajectory operator's verdict and the state
where it broke, preferences counted but never failing a plan, the metric, and what ``plansight plan`` and
the linter show. tests/test_pddl3_val.py checks the same against VAL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from plansight.analyses.checks.plan import simulation_diagnostics
from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.plans.simulate import Simulation, simulate
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan
from plansight.main import main

DOMAIN = """(define (domain switch) (:requirements :strips :constraints :preferences)
  (:predicates (on) (done) (ready))
  (:action turn-on :parameters () :precondition (preference warm (ready)) :effect (on))
  (:action turn-off :parameters () :precondition (and) :effect (not (on)))
  (:action prepare :parameters () :precondition (and) :effect (ready))
  (:action finish :parameters () :precondition (and) :effect (done)))"""

FLICKER = ["turn-on", "turn-off", "turn-on", "finish"]
"""(on) holds after steps 1, 3 and 4, not initially nor after step 2; (done) only at the end."""


def run(constraints: str, steps: list[str], goal: str = "(done)", metric: str = "",
        init: str = "") -> Simulation:
    problem = (f"(define (problem p) (:domain switch) (:init {init}) (:goal {goal}) "
               f"(:constraints {constraints}) {metric})")
    domain, parsed = parse_pddl(DOMAIN).model, parse_pddl(problem).model
    assert isinstance(domain, Domain) and isinstance(parsed, Problem)
    plan = parse_plan("\n".join(f"({s})" for s in steps)).plan
    simulation = simulate(domain, parsed, plan)
    assert simulation.skipped_reason is None, simulation.skipped_reason
    return simulation


@pytest.mark.parametrize(("constraint", "state", "at_end"), [
    ("(always (not (on)))", 1, False),
    ("(sometime (ready))", 4, True),
    ("(within 1 (done))", 2, False),          # found out at the first state after the deadline
    ("(within 9 (done))", None, None),
    ("(at end (on))", None, None),
    ("(at end (not (done)))", 4, True),
    ("(at-most-once (on))", 3, False),       # on again after it went off
    ("(sometime-after (on) (not (on)))", 4, True),
    ("(sometime-before (done) (on))", None, None),
    ("(sometime-before (on) (done))", 1, False),
    ("(always-within 1 (on) (not (on)))", 4, True),  # on after step 4 and no state follows
    ("(always-within 0 (on) (on))", None, None),
    ("(hold-during 1 3 (on))", 2, False),     # every state in [1, 3), not only the first
    ("(hold-during 2 3 (not (on)))", None, None),
    ("(hold-after 2 (on))", None, None),      # states after time 2 only
    ("(hold-after 1 (on))", 2, False),
])
def test_each_operator_breaks_where_it_should(constraint: str, state: int | None,
                                              at_end: bool | None) -> None:
    simulation = run(constraint, FLICKER)
    (verdict,) = simulation.trajectory.constraints if simulation.trajectory else ()
    assert verdict.holds is (state is None)
    assert simulation.valid is (state is None)
    assert verdict.state == state
    if at_end is not None:
        assert verdict.at_end is at_end


def test_the_message_names_the_constraint_the_condition_and_the_step() -> None:
    (broken,) = run("(always (not (on)))", FLICKER).broken_constraints
    assert broken.message == ("The constraint (always (not (on))) is violated after step 1: (not (on)) is "
                              "false there.")
    (initial,) = run("(always (on))", FLICKER).broken_constraints
    assert "violated in the initial state" in initial.message


def lamps(names: str) -> str:
    """The switch domain with lamps ``names`` (constants) that may be lit."""
    return DOMAIN.replace("(:predicates (on)",
                          f"(:types lamp) (:constants {names} - lamp) (:predicates (lit ?l - lamp) (on)")


def test_forall_constraints_are_judged_per_instance() -> None:
    domain = lamps("l1 l2")
    problem = ("(define (problem p) (:domain switch) (:init (lit l1)) (:goal (done)) "
               "(:constraints (forall (?l - lamp) (sometime (lit ?l)))))")
    simulation = simulate(parse_pddl(domain).model, parse_pddl(problem).model, parse_plan("(finish)").plan)
    report = simulation.trajectory
    assert report is not None
    assert [(c.text, c.holds) for c in report.constraints] == [
        ("(sometime (lit l1))", True), ("(sometime (lit l2))", False)]


def test_preferences_count_but_never_invalidate() -> None:
    simulation = run("(and (preference steady (always (not (on)))) (preference soon (within 1 (done))))",
                     FLICKER, goal="(and (done) (preference lit (not (on))))",
                     metric="(:metric minimize (+ (* 10 (is-violated steady)) (is-violated warm) "
                            "(* 3 (is-violated lit)) (total-time)))")
    assert simulation.valid is True
    report = simulation.trajectory
    assert report is not None
    # warm: turn-on ran twice without (ready); lit: (on) at the end
    assert report.violations == {"lit": 1, "soon": 1, "steady": 1, "warm": 2}
    assert simulation.metric is not None and simulation.metric.value == 10 + 2 + 3 + 4
    assert {p.name: p.where for p in report.preferences}["warm"] == ("precondition of turn-on",)


def test_forall_preferences_count_each_instance() -> None:
    domain = lamps("l1 l2 l3")
    problem = ("(define (problem p) (:domain switch) (:init (lit l1)) "
               "(:goal (and (done) (forall (?l - lamp) (preference all-lit (lit ?l))))) "
               "(:metric minimize (is-violated all-lit)))")
    simulation = simulate(parse_pddl(domain).model, parse_pddl(problem).model, parse_plan("(finish)").plan)
    assert simulation.valid is True
    assert simulation.metric is not None and simulation.metric.value == 2


def test_a_plan_that_stops_early_leaves_end_constraints_undecided() -> None:
    simulation = run("(and (sometime (ready)) (always (not (done))))", ["turn-on", "bogus", "finish"])
    report = simulation.trajectory
    assert report is not None
    assert [c.holds for c in report.constraints] == [None, None]
    assert simulation.metric is None


def test_a_metric_over_an_unknown_preference_has_no_value() -> None:
    simulation = run("(always (not (done)))", [], goal="(not (done))",
                     metric="(:metric minimize (is-violated nowhere))")
    assert simulation.valid is True
    assert simulation.metric is not None and simulation.metric.value is None
    assert simulation.metric.reason == "(is-violated nowhere) has no value"


def test_nested_operators_are_not_simulated() -> None:
    problem = ("(define (problem p) (:domain switch) (:init) (:goal (done)) "
               "(:constraints (always (sometime (on)))))")
    simulation = simulate(parse_pddl(DOMAIN).model, parse_pddl(problem).model, parse_plan("(finish)").plan)
    assert simulation.valid is None
    assert "nested trajectory constraints" in (simulation.skipped_reason or "")


def test_lint_puts_the_broken_constraint_on_its_step() -> None:
    problem = parse_pddl("(define (problem p) (:domain switch) (:init) (:goal (done)) "
                         "(:constraints (at-most-once (on))))").model
    text = "\n".join(f"({s})" for s in FLICKER)
    plan = parse_plan(text).plan
    assert isinstance(problem, Problem)
    found = [d for d in simulation_diagnostics(text, plan, problem, parse_pddl(DOMAIN).model)
             if d.code == "constraint-violated"]
    assert len(found) == 1
    assert text[found[0].span.start:found[0].span.end] == "(turn-on)"
    assert found[0].span.start == text.index("(turn-on)", 1)  # the second turn-on, step 3


def test_plan_command_reports_constraints_preferences_and_metric(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "domain.pddl").write_text(DOMAIN)
    (tmp_path / "problem.pddl").write_text(
        "(define (problem p) (:domain switch) (:init) (:goal (done)) "
        "(:constraints (and (always (not (on))) (preference soon (within 1 (done))))) "
        "(:metric minimize (* 2 (is-violated soon))))")
    (tmp_path / "plan.txt").write_text("\n".join(f"({s})" for s in FLICKER) + "\n")
    args = ["plan", str(tmp_path / "plan.txt"), "--domain", str(tmp_path / "domain.pddl"),
            "--problem", str(tmp_path / "problem.pddl")]
    assert main(args) == 1
    text = capsys.readouterr().out
    assert "INVALID (executable, a constraint is violated)" in text
    assert "✗ The constraint (always (not (on))) is violated after step 1" in text
    assert "constraints holding: 0 of 1" in text
    assert "preferences violated (is-violated): soon 1, warm 2" in text
    assert "metric" not in text  # VAL gives an invalid plan no value either
    assert main([*args, "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)["pddl3"]
    assert report["constraints"][0] | {"message": ""} == {
        "constraint": "(always (not (on)))", "operator": "always", "holds": False, "state": 1,
        "at_end": False, "source": "problem", "preference": None, "message": ""}
    assert report["preferences"][0] == {"name": "soon", "violations": 1, "checks": 1,
                                        "where": ["constraints"]}
    assert [(v["preference"], v["step"]) for v in report["violations"]] == [("warm", 0), ("warm", 2)]
    assert main([*args, "--report", str(tmp_path / "view.html")]) == 1
    capsys.readouterr()
    page = (tmp_path / "view.html").read_text()
    assert "<h2>Trajectory constraints</h2>" in page
    assert "✗ <code>(always (not (on)))</code>" in page
    assert "Preferences violated (<code>is-violated</code>): <code>soon</code> 1, <code>warm</code> 2" in page
    (tmp_path / "plan.txt").write_text("(turn-off)\n(finish)\n")
    assert main([*args, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["metric"] == {
        "direction": "minimize", "expression": "(* 2 (is-violated soon))", "value": 2.0, "reason": None}
    assert main(args) == 0
    assert "metric: minimize (* 2 (is-violated soon)) = 2" in capsys.readouterr().out


def test_the_plan_lens_summary_counts_broken_constraints() -> None:
    from plansight.analyses.plans.report import summary_line

    simulation = run("(and (always (not (on))) (at-most-once (on)))", FLICKER)
    line = summary_line(valid=simulation.valid, lea=simulation.lea, length=simulation.length,
                        goals_satisfied=len(simulation.goals.satisfied), goals_total=1,
                        broken_constraints=len(simulation.broken_constraints))
    assert line == "executable (4 steps) · 1 of 1 goal holds · 2 constraints violated"


@pytest.mark.parametrize(("goal", "constraints", "reason"), [
    ("(or (done) (preference p (on)))", "", "preferences inside `or`, `not`, `imply` or `exists`"),
    ("(done)", "(:constraints (on))", "trajectory constraints outside PDDL3's operators"),
    ("(done)", "(:constraints (preference p (preference q (always (on)))))",
     "trajectory constraints outside PDDL3's operators"),
    ("(done)", "(:constraints (within (on)))", "`within` with the wrong number of times or conditions"),
    ("(done)", "(:constraints (sometime-after (on)))",
     "`sometime-after` with the wrong number of times or conditions"),
])
def test_forms_without_a_meaning_are_not_simulated(goal: str, constraints: str, reason: str) -> None:
    problem = f"(define (problem p) (:domain switch) (:init) (:goal {goal}) {constraints})"
    simulation = simulate(parse_pddl(DOMAIN).model, parse_pddl(problem).model, parse_plan("(finish)").plan)
    assert simulation.valid is None
    assert reason in (simulation.skipped_reason or "")


def test_a_classical_plan_has_no_pddl3_section() -> None:
    domain = DOMAIN.replace(":constraints :preferences", "").replace("(preference warm (ready))", "(and)")
    problem = "(define (problem p) (:domain switch) (:init) (:goal (done)))"
    simulation = simulate(parse_pddl(domain).model, parse_pddl(problem).model, parse_plan("(finish)").plan)
    assert simulation.valid is True
    assert simulation.trajectory is None and simulation.broken_constraints == ()


def test_lint_notes_each_violated_preference_where_it_happened() -> None:
    problem = parse_pddl("(define (problem p) (:domain switch) (:init) "
                         "(:goal (and (done) (preference dark (not (on))))) "
                         "(:constraints (preference calm (always (not (on))))))").model
    text = "\n".join(f"({s})" for s in FLICKER)
    assert isinstance(problem, Problem)
    found = [(d.message.split(":")[0], text[d.span.start:d.span.end])
             for d in simulation_diagnostics(text, parse_plan(text).plan, problem, parse_pddl(DOMAIN).model)
             if d.code == "preference-violated"]
    assert sorted(found) == sorted([
        ("The preference calm (always (not (on))) is violated after step 1", "(turn-on)"),
        ("The preference warm of turn-on is violated", "(turn-on)"),   # step 1, without (ready)
        ("The preference warm of turn-on is violated", "(turn-on)"),   # step 3
        ("The goal preference dark is violated", "(finish)"),
    ])


BRIGHT = DOMAIN.replace(":preferences)", ":preferences :derived-predicates)").replace(
    "(:predicates (on) (done) (ready))", "(:predicates (on) (done) (ready) (bright))\n"
    "  (:derived (bright) (and (on) (ready)))")
"""The switch domain with a derived predicate: (bright) holds exactly while (on) and (ready) both do."""


@pytest.mark.parametrize(("constraint", "steps", "state"), [
    ("(sometime (bright))", ["prepare", "turn-on", "turn-off", "finish"], None),
    ("(sometime (bright))", FLICKER, 4),                     # never ready, so never bright
    ("(always (not (bright)))", ["prepare", "turn-on", "turn-off", "finish"], 2),
    ("(sometime-before (done) (bright))", ["prepare", "turn-on", "turn-off", "finish"], None),
    ("(at end (bright))", ["prepare", "turn-on", "finish"], None),
])
def test_constraints_over_a_derived_predicate_see_its_closure(constraint: str, steps: list[str],
                                                              state: int | None) -> None:
    problem = f"(define (problem p) (:domain switch) (:init) (:goal (done)) (:constraints {constraint}))"
    domain, parsed = parse_pddl(BRIGHT).model, parse_pddl(problem).model
    assert isinstance(domain, Domain) and isinstance(parsed, Problem)
    simulation = simulate(domain, parsed, parse_plan("\n".join(f"({s})" for s in steps)).plan)
    assert simulation.skipped_reason is None, simulation.skipped_reason
    (verdict,) = simulation.trajectory.constraints if simulation.trajectory else ()
    assert (verdict.holds, verdict.state, simulation.valid) == (state is None, state, state is None)

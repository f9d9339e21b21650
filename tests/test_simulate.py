"""The state semantics (analyses/semantics/world.py) and plan simulation (analyses/plans/simulate.py):
each PDDL construct, the failure categories of the Embodied Agent Interface, the messages a user
reads, and the goal fraction."""

from __future__ import annotations

from pathlib import Path

import pytest

from plansight.analyses.model.pddl import Domain, Plan, Problem
from plansight.analyses.plans.simulate import CHECKPOINT_EVERY, Simulation, simulate, unparsed_lines
from plansight.analyses.semantics.state import State
from plansight.analyses.semantics.world import GroundAction, World, format_atom
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan

BLOCKS = (Path(__file__).resolve().parents[1] / "examples" / "blocksworld" / "domain.pddl").read_text()
"""The classic 4-operator blocksworld (untyped STRIPS), as bundled."""

# the running example of Armony et al. 2025 (docs/metrics.md): b on c, a and c on the table
EXAMPLE = """(define (problem example) (:domain blocksworld) (:objects a b c)
  (:init (on b c) (on-table a) (on-table c) (clear a) (clear b) (handempty))
  (:goal (and (on a c) (on c b))))
"""

GT = ["(unstack b c)", "(put-down b)", "(pick-up c)", "(stack c b)", "(pick-up a)", "(stack a c)"]
PI0 = ["(unstack a c)", "(put-down a)", "(pick-up c)", "(stack c a)", "(unstack c a)", "(put-down c)",
       "(pick-up b)", "(stack b c)"]

ADL = """(define (domain adl)
  (:requirements :adl)
  (:types room ball - object  gripper)
  (:constants left - gripper)
  (:predicates (at ?b - ball ?r - room) (robot-at ?r - room) (free ?g - gripper)
               (carry ?b - ball ?g - gripper) (lit ?r - room) (seen ?b - ball) (alarm))
  (:action move :parameters (?from ?to - room)
    :precondition (and (robot-at ?from) (not (= ?from ?to)))
    :effect (and (robot-at ?to) (not (robot-at ?from))
                 (forall (?b - ball) (when (at ?b ?to) (seen ?b)))))
  (:action pick :parameters (?b - ball ?r - room)
    :precondition (and (at ?b ?r) (robot-at ?r) (free left) (or (lit ?r) (alarm)))
    :effect (and (carry ?b left) (not (at ?b ?r)) (not (free left))))
  (:action switch :parameters (?r - room)
    :precondition (imply (alarm) (robot-at ?r))
    :effect (and (when (lit ?r) (not (lit ?r))) (when (not (lit ?r)) (lit ?r))))
  (:action sweep :parameters ()
    :precondition (forall (?b - ball) (exists (?r - room) (at ?b ?r)))
    :effect (alarm)))
"""

ADL_PROBLEM = """(define (problem p) (:domain adl)
  (:objects r1 r2 - room b1 b2 - ball)
  (:init (robot-at r1) (at b1 r1) (at b2 r2) (free left) (lit r1))
  (:goal (and (carry b1 left) (seen b2) (not (lit r2)))))
"""


def pair(domain: str, problem: str) -> tuple[Domain, Problem]:
    d, p = parse_pddl(domain), parse_pddl(problem)
    assert not d.diagnostics and not p.diagnostics
    assert isinstance(d.model, Domain) and isinstance(p.model, Problem)
    return d.model, p.model


def plan_of(steps: list[str]) -> Plan:
    parsed = parse_plan("\n".join(steps) + "\n")
    assert parsed.plan is not None and not parsed.diagnostics
    return parsed.plan


def run(steps: list[str], domain: str = BLOCKS, problem: str = EXAMPLE) -> Simulation:
    return simulate(*pair(domain, problem), plan_of(steps))


def atoms(*texts: str) -> State:
    return State.of(tuple(t.strip("()").split()) for t in texts)


# --- semantics ------------------------------------------------------------------------------------


def test_initial_state_and_applicable_actions() -> None:
    world = World.build(*pair(BLOCKS, EXAMPLE))
    assert world.initial_state() == atoms(
        "(on b c)", "(on-table a)", "(on-table c)", "(clear a)", "(clear b)", "(handempty)")
    assert sorted(world.applicable(world.initial_state())) == [
        GroundAction("pick-up", ("a",)), GroundAction("unstack", ("b", "c"))]
    assert format_atom(("on", "a", "b")) == "(on a b)"


def test_applicable_agrees_with_precondition_check_on_every_binding() -> None:
    """The join-based enumeration finds exactly the bindings a brute-force check accepts."""
    world = World.build(*pair(ADL, ADL_PROBLEM))
    state = world.apply("switch", ["r2"], world.initial_state())
    brute = set()
    import itertools

    for compiled in world.actions:
        pools = [world.objects_of_type(a.type.names[0].key) if a.type else world.object_names
                 for a in compiled.action.parameters]
        for args in itertools.product(*pools):
            if world.precondition_holds(compiled.name, args, state):
                brute.add(GroundAction(compiled.name, tuple(args)))
    found = list(world.applicable(state))
    assert len(found) == len(set(found))
    assert set(found) == brute
    assert GroundAction("pick", ("b1", "r1")) in brute and GroundAction("move", ("r1", "r2")) in brute


def test_typing_constants_equality_or_imply_quantifiers_and_conditional_effects() -> None:
    world = World.build(*pair(ADL, ADL_PROBLEM))
    s0 = world.initial_state()
    assert world.objects_of_type("room") == ("r1", "r2")
    assert world.objects_of_type("object") == ("left", "r1", "r2", "b1", "b2")
    assert not world.precondition_holds("move", ["r1", "r1"], s0)  # (not (= ?from ?to))
    assert world.precondition_holds("sweep", [], s0)  # forall ball exists room
    # conditional effects read the state before the step: switching toggles, it does not flicker
    s1 = world.apply("switch", ["r1"], s0)
    assert not s1.holds(("lit", "r1"))
    assert world.apply("switch", ["r1"], s1).holds(("lit", "r1"))
    # forall effect with a condition: only the ball in the destination is seen
    s2 = world.apply("move", ["r1", "r2"], s0)
    assert s2.holds(("seen", "b2")) and not s2.holds(("seen", "b1"))
    # or: pick needs light or the alarm
    assert not world.precondition_holds("pick", ["b1", "r1"], s1)
    assert world.precondition_holds("pick", ["b1", "r1"], s0.apply([("alarm",)], [("lit", "r1")]))
    # imply: with the alarm on, switching needs the robot in the room
    alarmed = s0.apply([("alarm",)], [])
    assert world.precondition_holds("switch", ["r1"], alarmed)
    assert not world.precondition_holds("switch", ["r2"], alarmed)


def test_delete_then_add_keeps_an_atom_both_deleted_and_added() -> None:
    domain = """(define (domain d) (:requirements :strips) (:predicates (p) (q))
      (:action touch :parameters () :precondition (p) :effect (and (not (p)) (p) (q))))"""
    problem = "(define (problem x) (:domain d) (:init (p)) (:goal (q)))"
    world = World.build(*pair(domain, problem))
    assert world.apply("touch", [], world.initial_state()) == atoms("(p)", "(q)")


def test_check_call_categories() -> None:
    world = World.build(*pair(ADL, ADL_PROBLEM))
    assert world.check_call("pick", ["b1", "r1"]) is None
    assert world.check_call("PICK", ["B1", "R1"]) is None
    assert world.check_call("grab", ["b1", "r1"]) == "unknown_action"
    assert world.check_call("pick", ["b1"]) == "arity"
    assert world.check_call("pick", ["b9", "r1"]) == "unknown_object"
    assert world.check_call("pick", ["r1", "b1"]) == "type"


@pytest.mark.parametrize(("extra_domain", "extra_problem", "reason"), [
    ("(:functions (holder) - object)", "", "object fluents (`holder`)"),
    ("(:functions (x)) (:durative-action fly :parameters () :duration (= ?duration 1) "
     ":condition (at start (p)) :effect (increase (x) (* #t (x))))", "", "non-linear continuous effects"),
    ("(:derived (q) (not (q)))", "", "`q` depends on its own negation"),
    ("", "(:constraints (always (sometime (p))))", "nested trajectory constraints"),
])
def test_unsupported_constructs_are_named_and_skip_simulation(extra_domain: str, extra_problem: str,
                                                             reason: str) -> None:
    domain = f"(define (domain d) (:requirements :adl :fluents :durative-actions :derived-predicates) " \
             f"(:predicates (p) (q)) {extra_domain})"
    problem = f"(define (problem x) (:domain d) (:init (p)) (:goal (p)) {extra_problem})"
    d, p = parse_pddl(domain).model, parse_pddl(problem).model
    assert isinstance(d, Domain) and isinstance(p, Problem)
    result = simulate(d, p, Plan())
    assert result.skipped_reason is not None and reason in result.skipped_reason
    assert result.lea is None and result.valid is None and result.executable is None


def test_action_costs_are_simulated() -> None:
    domain = """(define (domain d) (:requirements :strips :action-costs) (:predicates (p) (q))
      (:functions (total-cost) - number)
      (:action go :parameters () :precondition (p) :effect (and (q) (increase (total-cost) 1))))"""
    problem = "(define (problem x) (:domain d) (:init (p) (= (total-cost) 0)) (:goal (q)) " \
              "(:metric minimize (total-cost)))"
    result = simulate(*pair(domain, problem), plan_of(["(go)"]))
    assert result.skipped_reason is None and result.valid
    assert result.trace[0].changed == ((("total-cost",), 0.0, 1.0),)
    assert result.metric is not None and result.metric.value == 1.0


# --- simulation -----------------------------------------------------------------------------------


def test_valid_plan_trace_and_goals() -> None:
    result = run(GT)
    assert (result.lea, result.executable, result.valid, result.failure) == (6, True, True, None)
    assert result.trace[0].added == (("holding", "b"), ("clear", "c"))
    assert set(result.trace[0].deleted) == atoms("(on b c)", "(clear b)", "(handempty)").atoms
    assert result.goals.satisfied == ("(on a c)", "(on c b)") and result.goals.fraction == 1.0


def test_running_example_pi0_fails_at_the_first_step() -> None:
    result = run(PI0)
    assert result.lea == 0 and not result.executable and not result.valid
    assert result.failure is not None and result.failure.category == "missing_step"
    assert [m.text for m in result.failure.unsatisfied] == ["(on a c)"]
    assert "(on a c) is false and has not held at any point so far" in result.failure.message
    assert list(result.unreached) == list(range(1, 8))
    assert result.goals.fraction == 0.0


def test_wrong_order_names_the_step_after_which_the_atom_stopped_holding() -> None:
    result = run(["(unstack b c)", "(put-down b)", "(pick-up a)", "(stack a c)", "(pick-up c)",
                  "(stack c b)"])
    assert result.lea == 4 and result.failure is not None
    assert result.failure.category == "wrong_order" and result.failure.index == 4
    assert result.failure.action == "(pick-up c)"
    assert "(clear c) is false: it stopped holding after step 4 (stack a c)" in result.failure.message
    assert result.failure.message.startswith("Step 5 (pick-up c) is not executable")
    # evaluated where simulation stopped: (on a c) holds, (on c b) does not
    assert result.goals.satisfied == ("(on a c)",) and result.goals.unsatisfied == ("(on c b)",)
    assert result.goals.fraction == 0.5


def test_additional_step_when_its_effects_already_hold() -> None:
    result = run(["(unstack b c)", "(put-down b)", "(put-down b)"])
    assert result.failure is not None and result.failure.category == "additional_step"
    assert result.failure.index == 2
    assert "(holding b) is false: it stopped holding after step 2 (put-down b)" in result.failure.message
    assert "already holds" in result.failure.message


def test_negative_precondition_explained_as_a_literal() -> None:
    domain = """(define (domain d) (:requirements :strips :negative-preconditions)
      (:predicates (open) (locked))
      (:action lock :parameters () :precondition (not (open)) :effect (locked))
      (:action open :parameters () :precondition (not (locked)) :effect (open)))"""
    problem = "(define (problem x) (:domain d) (:init) (:goal (and (locked) (open))))"
    result = run(["(open)", "(lock)"], domain, problem)
    assert result.failure is not None and result.failure.category == "wrong_order"
    assert "(not (open)) is false: it stopped holding after step 1 (open)" in result.failure.message


@pytest.mark.parametrize(("steps", "category", "index"), [
    (["(unstack b c)", "(fly b)"], "unknown_action", 1),
    (["(unstack b)"], "arity", 0),
    (["(pick-up d)"], "unknown_object", 0),
])
def test_static_categories(steps: list[str], category: str, index: int) -> None:
    result = run(steps)
    assert result.failure is not None
    assert (result.failure.category, result.failure.index, result.lea) == (category, index, index)


def test_type_category() -> None:
    d, p = pair(ADL, ADL_PROBLEM)
    result = simulate(d, p, plan_of(["(pick r1 b1)"]))
    assert result.failure is not None and result.failure.category == "type"


def test_redundant_step_is_a_warning_not_a_failure() -> None:
    domain = """(define (domain d) (:requirements :strips) (:predicates (on) (done))
      (:action switch-on :parameters () :precondition (and) :effect (on))
      (:action finish :parameters () :precondition (on) :effect (done)))"""
    problem = "(define (problem x) (:domain d) (:init) (:goal (done)))"
    result = run(["(switch-on)", "(switch-on)", "(finish)"], domain, problem)
    assert result.valid and result.redundant == (1,)


def test_unparsed_line_is_a_parse_failure_in_its_place() -> None:
    text = "(unstack b c)\nput down b please\n(put-down b)\n"
    parsed = parse_plan(text)
    assert parsed.plan is not None and parsed.diagnostics
    steps = unparsed_lines(text, parsed.plan, parsed.diagnostics)
    result = simulate(*pair(BLOCKS, EXAMPLE), steps)
    assert result.length == 3 and result.lea == 1
    assert result.failure is not None and result.failure.category == "parse"
    assert result.failure.action == "put down b please"
    assert text[result.failure.span.start:result.failure.span.end] == "put down b please"


def test_states_are_rebuilt_from_deltas_across_checkpoints() -> None:
    cycle = ["(unstack b c)", "(put-down b)", "(pick-up b)", "(stack b c)"]
    steps = cycle * (CHECKPOINT_EVERY // 2 + 3)
    result = run(steps)
    assert result.executable and result.lea == len(steps)
    states = list(result.states())
    assert len(states) == len(steps) + 1
    for index in (0, 1, CHECKPOINT_EVERY - 1, CHECKPOINT_EVERY, CHECKPOINT_EVERY + 1, len(steps) - 1):
        assert result.state_before(index) == states[index]
        assert result.state_after(index) == states[index + 1]
    assert result.stop_state == states[-1] == result.initial


# --- lint integration -----------------------------------------------------------------------------


Found = list[tuple[str, str, str, str]]
"""(code, severity, the text under the range, message) per diagnostic."""


def lint_plan(plan_text: str, problem: str = EXAMPLE, domain: str = BLOCKS) -> Found:
    from plansight.analyses.workspace.lint import Analyzer, MemorySource

    files = {"/w/domain.pddl": domain, "/w/p.pddl": problem, "/w/p.plan": plan_text}
    result = Analyzer(MemorySource(files)).lint("/w/p.plan")
    return [(d.code, d.severity.value, plan_text[d.span.start:d.span.end], d.message)
            for d in result.diagnostics]


def test_lint_underlines_the_failing_step_and_greys_the_unreached_ones() -> None:
    text = "(unstack b c)\n(put-down b)\n(pick-up a)\n(stack a c)\n(pick-up c)\n(stack c b)\n"
    found = lint_plan(text)
    failing = [d for d in found if d[0] == "step-not-executable"]
    assert failing == [("step-not-executable", "error", "(pick-up c)",
                        "Step 5 (pick-up c) is not executable: (clear c) is false: it stopped holding after "
                        "step 4 (stack a c). Category: wrong order (the precondition held earlier, so the "
                        "steps are out of order).")]
    assert [d[:3] for d in found if d[0] == "unreached-step"] == [("unreached-step", "hint", "(stack c b)")]
    assert next(d for d in found if d[0] == "unreached-step")[3] == "Not reached: the plan stops at step 5."
    goals = [d for d in found if d[0] == "goal-not-satisfied"]
    assert goals == [("goal-not-satisfied", "warning", "(stack c b)",
                      "Where the plan stops (before step 5), 1 of 2 goals does not hold: (on c b).")]


def test_lint_related_information_points_at_the_step_that_undid_the_atom() -> None:
    from plansight.analyses.diagnostics.diagnostic import Tag
    from plansight.analyses.workspace.lint import Analyzer, MemorySource

    text = "(unstack b c)\n(put-down b)\n(pick-up a)\n(stack a c)\n(pick-up c)\n(stack c b)\n"
    files = {"/w/domain.pddl": BLOCKS, "/w/p.pddl": EXAMPLE, "/w/p.plan": text}
    result = Analyzer(MemorySource(files)).lint("/w/p.plan")
    failing = next(d for d in result.diagnostics if d.code == "step-not-executable")
    assert [(r.message, text[r.span.start:r.span.end]) for r in failing.related] == [
        ("(clear c) stopped holding after this step", "(stack a c)")]
    unreached = next(d for d in result.diagnostics if d.code == "unreached-step")
    assert unreached.tags == (Tag.UNNECESSARY,)


def test_lint_executable_plan_missing_goals_is_an_error_on_the_last_step() -> None:
    found = lint_plan("(unstack b c)\n(put-down b)\n; done\n")
    assert [d for d in found if d[1] in ("error", "warning")] == [
        ("goal-not-satisfied", "error", "(put-down b)",
         "After the last step, 2 of 2 goals do not hold: (on a c) (on c b). The plan is executable but does "
         "not reach the goal: steps are missing.")]


def test_lint_valid_plan_has_no_simulation_diagnostic_and_redundant_steps_warn() -> None:
    assert lint_plan("\n".join(GT) + "\n") == []
    domain = """(define (domain d) (:requirements :strips) (:predicates (on) (done))
      (:action switch-on :parameters () :precondition (and) :effect (on))
      (:action finish :parameters () :precondition (on) :effect (done)))"""
    problem = "(define (problem x) (:domain d) (:goal (done)))"
    found = lint_plan("(switch-on)\n(switch-on)\n(finish)\n", problem, domain)
    assert found == [("redundant-step", "warning", "(switch-on)",
                      "Step 2 (switch-on) changes nothing: everything it adds already holds and it deletes "
                      "nothing that holds. Remove it.")]


def test_lint_does_not_report_a_static_problem_twice() -> None:
    found = lint_plan("(unstack b c)\n(fly b)\n(put-down b)\n")
    assert [d[0] for d in found] == ["unknown-action"]


def test_lint_reports_a_runtime_failure_before_a_later_static_error() -> None:
    found = lint_plan("(pick-up b)\n(put-down b)\n(fly b)\n")
    assert [(d[0], d[2]) for d in found] == [
        ("step-not-executable", "(pick-up b)"), ("unreached-step", "(put-down b)"),
        ("goal-not-satisfied", "(fly b)"), ("unreached-step", "(fly b)"), ("unknown-action", "fly")]


def test_lint_says_why_simulation_is_skipped() -> None:
    domain = """(define (domain d) (:requirements :strips :non-deterministic) (:predicates (p) (q))
      (:action go :parameters () :precondition (q) :effect (oneof (p) (q))))"""
    found = lint_plan("(go)\n", "(define (problem x) (:domain d) (:init (q)) (:goal (p)))", domain)
    assert [(d[0], d[1], d[2]) for d in found] == [("simulation-skipped", "information", "(go)")]
    assert "there are non-deterministic effects (`oneof`) (in `go`)" in found[0][3]


def test_a_skipped_simulation_still_offers_the_initial_state() -> None:
    domain = "(define (domain d) (:requirements :strips :constraints) (:predicates (p) (q)))"
    problem = ("(define (problem x) (:domain d) (:init (p)) (:goal (q)) "
               "(:constraints (always (sometime (p)))))")
    result = simulate(*pair(domain, problem), Plan())
    assert result.skipped_reason is not None and "nested trajectory constraints" in result.skipped_reason
    assert result.state_before(0) == result.stop_state == atoms("(p)")


def test_an_effect_formula_applies_with_its_own_binding_like_the_whole_action() -> None:
    """Temporal simulation applies an action's ``at start`` and ``at end`` parts one at a time: applying
    the whole effect formula with the step's binding must change the state exactly as the step does."""
    world = World.build(*pair(ADL, ADL_PROBLEM))
    s0 = world.initial_state()
    for name, args in (("switch", ["r1"]), ("move", ["r1", "r2"])):
        compiled = world.action(name)
        assert compiled is not None
        by_formula = world.apply_effect(compiled.action.effect, s0, world.binding(name, args))
        assert by_formula == world.apply(name, args, s0)
    assert world.apply_effect(None, s0) is s0

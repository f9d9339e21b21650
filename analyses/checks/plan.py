"""Checks of a plan: statically, every step must name a domain action with the right number of
arguments, each a declared object of a compatible type (the "hallucination" failures of LLM-written
plans); then :func:`simulation_diagnostics` turns the simulator's verdict (analyses/plans/simulate.py) into
diagnostics: where the plan breaks and why, what is never reached, which goals do not hold.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from plansight.analyses.diagnostics.diagnostic import Diagnostic, Related, Severity, Tag, make
from plansight.analyses.diagnostics.spans import NO_SPAN, Span
from plansight.analyses.diagnostics.suggest import suffix
from plansight.analyses.model.pddl import Domain, Name, Plan, PlanStep, Problem
from plansight.analyses.model.vocabulary import vocabulary
from plansight.analyses.plans.simulate import (
    DEFAULT_EPSILON,
    RUNTIME_CATEGORIES,
    Simulation,
    Unparsed,
    simulate,
    unparsed_lines,
)
from plansight.analyses.semantics.argument_checks import (
    ObjectTable,
    Signatures,
    arity_message,
    fits,
    mismatch_message,
    swap_hint,
)
from plansight.analyses.semantics.budget import WorkBudget

_MISSING = object()


def check_plan(plan: Plan, problem: Problem | None, domain: Domain | None) -> list[Diagnostic]:
    """The diagnostics of a plan's steps against the domain (and the problem's objects when known); without a
    domain nothing can be checked, so the list is empty.
    """
    if domain is None:
        return []
    vocab = vocabulary(domain)
    typed = vocab.typing or bool(vocab.types)
    objects = ObjectTable(vocab, problem, typed) if problem is not None else None
    actions = Signatures(vocab.actions, vocab.types)
    action_names = [a.name.display for a in vocab.actions.values() if a.kind in ("action", "durative-action")]
    out: list[Diagnostic] = []
    for step in plan.steps:
        name = step.action
        action = vocab.actions.get(name.key)
        if action is None or action.kind not in ("action", "durative-action"):
            if action is None:
                message = (
                    f"`{name.display}` is not an action of domain `{domain.name.display}`."
                    f"{suffix(name.display, action_names)}"
                )
            else:
                message = (
                    f"`{name.display}` is {'a process' if action.kind == 'process' else 'an event'}, which "
                    "happens by itself when its condition holds: a plan cannot contain it."
                )
            out.append(make("unknown-action", message, name.span))
            if objects is not None:
                _check_objects(step, objects, out)
            continue
        signature = actions.get(name.key)
        assert signature is not None
        parameters, wanted = signature
        if len(parameters) != len(step.args):
            out.append(
                make(
                    "wrong-arity",
                    arity_message(name, len(parameters), len(step.args)),
                    name.span,
                    data=(("expected", str(len(parameters))),),
                )
            )
            if objects is not None:
                _check_objects(step, objects, out)
            continue
        if objects is None:
            continue
        values: list[Any] = [objects.ancestry.get(arg.key, _MISSING) for arg in step.args]
        for index, (arg, value) in enumerate(zip(step.args, values, strict=True)):
            if value is _MISSING:
                out.append(_undeclared(arg, objects))
            elif not fits(value, wanted[index]):
                actual = objects.declared[arg.key].type
                message = mismatch_message(arg, actual, name, index, parameters[index])
                message += swap_hint(name, step.args, values, wanted, index)
                out.append(make("type-mismatch", message, arg.span))
    return out


def _check_objects(step: PlanStep, objects: ObjectTable, out: list[Diagnostic]) -> None:
    for arg in step.args:
        if arg.key not in objects.ancestry:
            out.append(_undeclared(arg, objects))


def _undeclared(arg: Name, objects: ObjectTable) -> Diagnostic:
    return make(
        "undeclared-object",
        f"`{arg.display}` is neither an object of the problem nor a constant of the domain."
        f"{objects.suggestion(arg.display)}",
        arg.span,
    )


UNREACHED_LISTED = 1000
"""Unreached steps greyed one by one; past this, one diagnostic covers the rest (a 100,000-step plan
must not send 100,000 diagnostics to the editor)."""
GOALS_LISTED = 10


def simulation_diagnostics(text: str, plan: Plan, problem: Problem | None, domain: Domain | None,
                           earlier: Sequence[Diagnostic] = (),
                           budget: WorkBudget | None = None,
                           epsilon: float = DEFAULT_EPSILON) -> list[Diagnostic]:
    """What simulating the plan tells a user, as diagnostics: the first non-executable step (with
    the reason and its category), the steps never reached, steps that change nothing, the goals
    that do not hold, or why the plan was not simulated.

    ``earlier`` are the diagnostics already found (syntax, static checks): a line that did not parse
    is a step that stops the simulation there, and a step that stops it for a reason a static check
    already reported (unknown action, arity, unknown object, type) gets no second diagnostic.

    ``budget`` bounds the simulation (analyses/semantics/budget.py); when it runs out the plan gets one
    ``budget-exceeded`` warning with the reason instead of a verdict.
    """
    if problem is None or domain is None:
        return []
    steps = unparsed_lines(text, plan, earlier)
    result = simulate(domain, problem, steps, budget=budget, epsilon=epsilon)
    if result.stopped_reason is not None:
        stopped_at = min(result.lea_reached, len(steps) - 1)
        at = steps[stopped_at].span if steps else Span(0, 0)
        return [make("budget-exceeded",
                     f"The plan was not simulated to the end: {result.stopped_reason}. Its validity is "
                     "unknown; raise the budget (`plansight plan --budget-seconds`, the editor setting "
                     "`plansight.simulation.timeLimitSeconds`) or simplify the quantifier.", at)]
    if result.skipped_reason is not None:
        at = steps[0].span if steps else Span(0, 0)
        return [make("simulation-skipped",
                     f"The plan is not simulated: {result.skipped_reason}, which the simulator does not "
                     "model (it covers STRIPS and ADL: typing, negation, equality, quantifiers, conditional "
                     "effects, numeric fluents and action costs). The other checks still ran.",
                     at)]
    failure = result.failure
    if failure is not None and failure.category not in RUNTIME_CATEGORIES:
        return []  # the syntax or static check at this step already says what is wrong
    out: list[Diagnostic] = []
    for index in result.redundant:
        step = result.trace[index]
        out.append(make("redundant-step",
                        f"Step {index + 1} {step.action} changes nothing: everything it adds already holds "
                        "and it deletes nothing that holds. Remove it.", step.span))
    if failure is not None:
        stops = _stop_words(result)
        related = tuple(
            Related(f"{m.text} stopped holding {'at' if result.temporal else 'after'} this step",
                    result.trace[m.stopped_after].span)
            for m in failure.unsatisfied
            if m.stopped_after is not None and result.trace[m.stopped_after].span != NO_SPAN)
        out.append(make("step-not-executable", failure.message, failure.span, related=related,
                        data=(("category", failure.category), ("index", str(failure.index)))))
        unreached = list(result.unreached)
        for index in unreached[:UNREACHED_LISTED]:
            out.append(make("unreached-step", f"Not reached: the plan stops at {stops}.",
                            steps[index].span, tags=(Tag.UNNECESSARY,)))
        if len(unreached) > UNREACHED_LISTED:
            rest = Span(steps[unreached[UNREACHED_LISTED]].span.start, steps[unreached[-1]].span.end)
            more = len(unreached) - UNREACHED_LISTED
            out.append(make("unreached-step", f"Not reached ({more} more steps): the plan stops at {stops}.",
                            rest, tags=(Tag.UNNECESSARY,)))
    out.extend(_constraint_diagnostics(result, steps, text))
    goals = result.goals
    if goals.unsatisfied:
        total = len(goals.satisfied) + len(goals.unsatisfied)
        listed = " ".join(goals.unsatisfied[:GOALS_LISTED])
        if len(goals.unsatisfied) > GOALS_LISTED:
            listed += f" and {len(goals.unsatisfied) - GOALS_LISTED} more"
        where = (f"Where the plan stops (before {_stop_words(result)})" if failure is not None
                 else "After the last step")
        verb = "does" if len(goals.unsatisfied) == 1 else "do"
        message = f"{where}, {len(goals.unsatisfied)} of {total} goals {verb} not hold: {listed}."
        if goals.why:
            message += " " + "; ".join(goals.why) + "."
        if failure is None:
            message += " The plan is executable but does not reach the goal: steps are missing."
        at = steps[-1].span if steps else _end_of(text)
        out.append(make("goal-not-satisfied", message, at,
                        severity=Severity.WARNING if failure is not None else None))
    return out


def _constraint_diagnostics(result: Simulation, steps: Sequence[PlanStep | Unparsed],
                            text: str) -> Iterator[Diagnostic]:
    """One error per broken PDDL3 constraint, on the step after which it broke (the first step when the
    initial state already breaks it, the last when only the end of the plan decides it), and a note per
    violated preference: on the step that ran with its precondition preference false, on the last step
    for a goal preference, where it broke for a constraint preference."""
    trajectory = result.trajectory
    if trajectory is None:
        return

    def at(state: int | None, at_end: bool) -> Span:
        if not steps:
            return _end_of(text)
        if at_end or state is None:
            return steps[-1].span
        return steps[max(state - 1, 0)].span

    for constraint in trajectory.constraints:
        if constraint.holds is not False:
            continue
        if constraint.preference is None:
            yield make("constraint-violated", constraint.message, at(constraint.state, constraint.at_end),
                       data=(("constraint", constraint.text), ("state", str(constraint.state))))
        else:
            yield make("preference-violated", constraint.message + " (counted by `is-violated`; the plan "
                       "stays valid).", at(constraint.state, constraint.at_end),
                       data=(("preference", constraint.preference),))
    for violation in trajectory.violated:
        span = steps[violation.step].span if violation.step is not None and steps else at(None, True)
        yield make("preference-violated", violation.message + ".", span,
                   data=(("preference", violation.name),))


def _stop_words(result: Simulation) -> str:
    """``step 3``, or for a temporal plan ``happening 4 (time 5.01)``: where the plan stopped."""
    assert result.failure is not None
    index = result.failure.index
    if result.temporal and index < len(result.happenings):
        return f"happening {index + 1} (time {result.happenings[index].time:g})"
    return f"step {index + 1}"


def _end_of(text: str) -> Span:
    end = len(text.rstrip())
    return Span(end, end)

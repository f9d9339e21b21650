"""How a candidate domain behaves on the reference problems: does each stay solvable, do the reference plans
still work, and do the candidate's plans work under the reference (docs/domain-equivalence.md).

This is the Embodied Agent Interface's second measure of transition models (Li et al. 2024, Appendix D.4:
can a planner solve the task with the generated operators), made to point at the cause: when a plan breaks
under the other domain, the first step that breaks names the action whose definition differs, and the
structural comparison says how it differs. Fast Downward (``analyses/plans/recovery.py``) decides
solvability within a time budget; the plan simulator (``analyses/plans/simulate.py``) replays plans.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from plansight.analyses.domain_equivalence.comparison import DomainComparison
from plansight.analyses.domain_equivalence.translate import Translator, inverse
from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.plans.comparison import simulate_actions
from plansight.analyses.plans.metrics import Action, action_text
from plansight.analyses.plans.recovery import Budget, PlannerResult, solve
from plansight.analyses.plans.simulate import Simulation

Outcome = Literal["same", "unsolvable", "different-plan", "plans-differ", "unknown"]
"""``same``: solvable and the plans carry over both ways; ``unsolvable``: solvable under the reference
only; ``different-plan``: solvable, but the reference plan fails under the candidate; ``plans-differ``:
the candidate's plan fails under the reference (the candidate allows what the reference forbids);
``unknown``: the planner could not tell within its budget, or a domain cannot be simulated."""


@dataclass(frozen=True, slots=True)
class PlanCheck:
    """One plan replayed under the other domain: valid or not, and where and why it first breaks."""

    plan: tuple[Action, ...]
    valid: bool | None
    step: int | None = None
    action: str = ""
    message: str = ""

    def as_json(self) -> dict[str, object]:
        """The check as the JSON output writes it (``step`` is 1-based, as users count)."""
        return {"valid": self.valid, "step": None if self.step is None else self.step + 1,
                "action": self.action or None, "message": self.message or None,
                "plan": [action_text(a) for a in self.plan]}


@dataclass(frozen=True, slots=True)
class ProblemBehaviour:
    """The outcome for one reference problem and the explanation a student can act on."""

    problem: str
    outcome: Outcome
    explanation: str
    reference_status: str
    candidate_status: str
    reference_plan: PlanCheck | None = None
    candidate_plan: PlanCheck | None = None

    def as_json(self) -> dict[str, object]:
        """The behaviour as the JSON output writes it."""
        return {
            "problem": self.problem,
            "outcome": self.outcome,
            "explanation": self.explanation,
            "reference_planner": self.reference_status,
            "candidate_planner": self.candidate_status,
            "reference_plan_under_candidate": _plan_json(self.reference_plan),
            "candidate_plan_under_reference": _plan_json(self.candidate_plan),
        }


def _plan_json(check: PlanCheck | None) -> dict[str, object] | None:
    return None if check is None else check.as_json()


DEFAULT_BUDGET = Budget(time_limit_s=10.0)


def behaviour_on(
    comparison: DomainComparison,
    candidate: Domain,
    reference: Domain,
    label: str,
    problem: Problem,
    reference_plan: Sequence[Action] | None = None,
    budget: Budget = DEFAULT_BUDGET,
) -> ProblemBehaviour:
    """Run one reference problem (and its plan, when given) under both domains."""
    to_candidate = Translator(inverse(comparison.renaming))
    to_reference = Translator(comparison.renaming)
    translated = to_candidate.problem(problem, candidate.name)
    reference_result: PlannerResult | None = None
    if reference_plan is None:
        reference_result = solve(reference, problem, budget)
        reference_plan = reference_result.plan
    candidate_result = solve(candidate, translated, budget)
    reference_status = reference_result.status if reference_result else "plan given"

    reference_check = None
    if reference_plan is not None:
        plan = tuple(to_candidate.action(a) for a in reference_plan)
        reference_check = _check(simulate_actions(candidate, translated, plan), plan)
    candidate_check = None
    if candidate_result.plan is not None:
        plan = tuple(to_reference.action(a) for a in candidate_result.plan)
        candidate_check = _check(simulate_actions(reference, problem, plan), candidate_result.plan)

    outcome, explanation = _explain(comparison, reference_status, candidate_result, reference_check,
                                    candidate_check)
    return ProblemBehaviour(label, outcome, explanation, reference_status, candidate_result.status,
                            reference_check, candidate_check)


def _check(simulation: Simulation, plan: tuple[Action, ...]) -> PlanCheck:
    if simulation.skipped_reason is not None:
        return PlanCheck(plan, None, message=f"cannot simulate: {simulation.skipped_reason}")
    if simulation.stopped_reason is not None:
        return PlanCheck(plan, None, message=f"cannot simulate: {simulation.stopped_reason}")
    if simulation.failure is not None:
        failure = simulation.failure
        return PlanCheck(plan, False, failure.index, failure.action, failure.message)
    if simulation.goals.unsatisfied:
        goals = ", ".join(simulation.goals.unsatisfied[:3])
        return PlanCheck(plan, False, None, "", f"every step executes but the goal is not reached: {goals}")
    return PlanCheck(plan, True)


def _action_word(comparison: DomainComparison, step_text: str, candidate_side: bool) -> str:
    """What the comparison says about the action of a failing step (in the candidate's names)."""
    words = step_text.strip("()").split()
    if not words:
        return ""
    key = words[0].lower()
    if not candidate_side:
        key = next((a for a, b in comparison.renaming.actions.items() if b == key), key)
    for action in comparison.actions:
        if action.candidate is not None and action.candidate.name.key == key and action.differences:
            message = action.differences[0].message.removeprefix(f"`{action.name}`: ")
            return f" `{action.name}` differs from the reference: {message}."
    return ""


def _explain(comparison: DomainComparison, reference_status: str, candidate: PlannerResult,
             reference_check: PlanCheck | None, candidate_check: PlanCheck | None) -> tuple[Outcome, str]:
    if reference_status not in ("solved", "plan given"):
        return "unknown", f"The reference domain itself does not solve this problem ({reference_status})."
    if candidate.status == "unsolvable":
        why = _reference_break(comparison, reference_check)
        return "unsolvable", f"Unsolvable under the candidate domain, solvable under the reference.{why}"
    if reference_check is not None and reference_check.valid is False:
        why = _reference_break(comparison, reference_check)
        if candidate.status == "solved":
            return "different-plan", f"Solvable only with a different plan.{why}"
        return "unknown", f"The reference plan fails under the candidate ({candidate.message}).{why}"
    if candidate_check is not None and candidate_check.valid is False:
        where = (f" at step {candidate_check.step + 1} {candidate_check.action}"
                 if candidate_check.step is not None else "")
        word = _action_word(comparison, candidate_check.action, candidate_side=False)
        return "plans-differ", (f"The candidate's plan is not valid under the reference domain{where}: "
                                f"{candidate_check.message}{word}")
    if candidate.status != "solved" and reference_check is None:
        return "unknown", f"The planner gave no answer for the candidate domain: {candidate.message}."
    if (reference_check is not None and reference_check.valid is None) or (
            candidate_check is not None and candidate_check.valid is None):
        return "unknown", "A plan could not be simulated under the other domain."
    return "same", "Solvable; the plans carry over between the two domains."


def _reference_break(comparison: DomainComparison, check: PlanCheck | None) -> str:
    if check is None or check.valid is not False:
        return ""
    if check.step is None:
        return f" The reference plan runs under the candidate but {check.message}."
    word = _action_word(comparison, check.action, candidate_side=True)
    return (f" The reference plan breaks under the candidate at step {check.step + 1} {check.action}: "
            f"{check.message}{word}")

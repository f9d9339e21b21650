"""Cases of the reasoning tasks as rows of a JSONL file, and their scoring against the ground truth.

A row names a task, a domain and a problem (paths, or the PDDL texts themselves), the actions that
lead to the state asked about, for progression the action, and for scoring the answer and optional
``model`` / ``domain_name`` labels (docs/reasoning.md, "Cases"). Datasets repeat the same domain and
problem across tasks and models, so parses, worlds and optimal plans are computed once per text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from plansight.analyses.diagnostics.diagnostic import Severity
from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.reasoning.answers import Words, read_answer, read_sequence, words_text
from plansight.analyses.reasoning.iou import (
    ACTION_TASKS,
    PLAN_TASKS,
    SCORE_TASKS,
    Score,
    action_judge,
    atom_judge,
    score,
)
from plansight.analyses.reasoning.truth import (
    TRUTH_TASKS,
    Truth,
    TruthError,
    TruthTask,
    build_world,
    ground_truth,
)
from plansight.analyses.semantics.world import World
from plansight.analyses.syntax.documents import parse_document

Reader = Callable[[str], str]
"""Reads the file a row names (the caller resolves it, e.g. next to the JSONL file)."""
Planner = Callable[[Domain, Problem], tuple[Words, ...]]
"""An optimal plan of the pair, or a TruthError."""

TASK_ALIASES = {"positive-effects": "progression-add", "negative-effects": "progression-delete",
                "add": "progression-add", "delete": "progression-delete", "state-tracking": "tracking",
                "action-applicability": "applicable", "state-comprehension": "state",
                "plan-generation": "plan", "cost-optimal-plan": "optimal-plan"}


class CaseError(Exception):
    """A row that does not describe a case (a missing field, an unreadable action); the message says which."""


@dataclass(frozen=True, slots=True)
class Case:
    """One question: the task, where its domain and problem come from, and the state it is asked in."""

    number: int
    task: str
    domain: str
    problem: str
    domain_label: str
    problem_label: str
    after: tuple[Words, ...] = ()
    action: Words | None = None
    answer: str | list[str] | None = None
    model: str | None = None
    domain_name: str | None = None
    optimal_plan: tuple[Words, ...] | None = None
    id: str | None = None

    def labels(self) -> dict[str, Any]:
        """What identifies the case in reports: its number, id, task, files, labels and actions."""
        labels: dict[str, Any] = {"case": self.number}
        if self.id is not None:
            labels["id"] = self.id
        labels.update(task=self.task, domain=self.domain_label, problem=self.problem_label)
        if self.model is not None:
            labels["model"] = self.model
        if self.domain_name is not None:
            labels["domain_name"] = self.domain_name
        if self.after:
            labels["after"] = [words_text(a) for a in self.after]
        if self.action is not None:
            labels["action"] = words_text(self.action)
        return labels


def canonical_task(task: str, scoring: bool) -> str:
    """The task's name as the reports spell it; a :class:`CaseError` for an unknown one."""
    key = task.strip().lower()
    key = TASK_ALIASES.get(key, key)
    known: Sequence[str] = SCORE_TASKS if scoring else TRUTH_TASKS
    if key not in known:
        raise CaseError(f"unknown task `{task}` (one of: {', '.join(known)})")
    return key


def read_actions(value: Any, what: str) -> tuple[Words, ...]:
    """Actions written as an answer would be (``[pick-up(a), (stack a b)]``, a list, one per line),
    in order and strictly: an unreadable one is a :class:`CaseError`, since the state would be unknown."""
    if value is None or value == "":
        return ()
    if not isinstance(value, (str, list)):
        raise CaseError(f"`{what}` must be a list of actions or a text")
    items, unreadable = read_sequence(value if isinstance(value, str) else [str(v) for v in value])
    if unreadable:
        raise CaseError(f"`{what}`: cannot read `{unreadable[0].text}` as an action ({unreadable[0].reason})")
    return tuple(items)


def case_from_row(row: Mapping[str, Any], number: int, read: Reader, scoring: bool) -> Case:
    """A case from a JSON row; ``read`` loads the files it names."""
    if not isinstance(row, Mapping):
        raise CaseError("a row must be a JSON object")
    task_value = row.get("task")
    if not isinstance(task_value, str):
        raise CaseError("no `task`")
    task = canonical_task(task_value, scoring)
    domain, domain_label = _pddl(row, "domain", read)
    problem, problem_label = _pddl(row, "problem", read)
    action_value = row.get("action")
    action = read_actions(action_value, "action") if action_value is not None else ()
    if len(action) > 1:
        raise CaseError("`action` names more than one action")
    if task.startswith("progression") and not action:
        raise CaseError("progression needs the `action` whose effects are asked for")
    answer = row.get("answer")
    if scoring and not isinstance(answer, (str, list)):
        raise CaseError("no `answer` (a text or a list of items)")
    plan_value = row.get("optimal_plan")
    return Case(
        number=number, task=task, domain=domain, problem=problem, domain_label=domain_label,
        problem_label=problem_label, after=read_actions(row.get("actions"), "actions"),
        action=action[0] if action else None, answer=answer,
        model=_label(row.get("model")), domain_name=_label(row.get("domain_name")),
        optimal_plan=read_actions(plan_value, "optimal_plan") if plan_value is not None else None,
        id=_label(row.get("id")),
    )


def _label(value: Any) -> str | None:
    return None if value is None else str(value)


def _pddl(row: Mapping[str, Any], key: str, read: Reader) -> tuple[str, str]:
    """(text, label): a value holding ``(define`` is the text itself, anything else a path to read."""
    value = row.get(key)
    if not isinstance(value, str) or not value.strip():
        raise CaseError(f"no `{key}` (a path or the PDDL text)")
    if "(define" in value.lower():
        return value, f"<{key} text>"
    try:
        return read(value), value
    except OSError as error:
        raise CaseError(f"`{key}` {value}: {error.strerror or error}") from error


@dataclass(frozen=True, slots=True)
class Outcome:
    """One case's result: the truth (and score, when scoring) or the error that stopped it."""

    case: Case
    truth: Truth | None = None
    score: Score | None = None
    optimal_plan: tuple[Words, ...] | None = None
    error: str | None = None

    @property
    def domain_group(self) -> str:
        """The domain a report groups this case under: ``domain_name``, else the domain's own name."""
        return self.case.domain_name or _domain_name(self.case.domain) or self.case.domain_label

    @property
    def model_group(self) -> str:
        """The model a report groups this case under (``-`` when the row names none)."""
        return self.case.model or "-"

    def to_json(self) -> dict[str, Any]:
        """The case's line in ``plansight truth`` / ``plansight iou`` JSON output (docs/reasoning.md)."""
        report = self.case.labels()
        if self.error is not None:
            report["error"] = self.error
            return report
        if self.score is not None:
            report.update(self.score.to_json())
            if self.optimal_plan is not None:
                report["optimal_plan"] = [words_text(a) for a in self.optimal_plan]
        elif self.truth is not None:
            report.update(self.truth.to_json())
        return report


_DOMAIN_NAME = re.compile(r"\(\s*domain\s+([^\s()]+)", re.IGNORECASE)


def _domain_name(text: str) -> str | None:
    found = _DOMAIN_NAME.search(text)
    return found.group(1).lower() if found else None


class Evaluator:
    """Answers cases, parsing each distinct domain and problem text once and building one world per pair."""

    def __init__(self, planner: Planner | None = None) -> None:
        self._planner = planner
        self._worlds: dict[tuple[str, str], World | str] = {}
        self._plans: dict[tuple[str, str], tuple[Words, ...] | str] = {}

    def world(self, case: Case) -> World:
        """The case's world, or a :class:`TruthError` saying why its files give none."""
        key = (case.domain, case.problem)
        found = self._worlds.get(key)
        if found is None:
            try:
                found = build_world(*self._models(case))
            except TruthError as error:
                found = str(error)
            self._worlds[key] = found
        if isinstance(found, str):
            raise TruthError(found)
        return found

    def _models(self, case: Case) -> tuple[Domain, Problem]:
        domain = _parsed(case.domain, case.domain_label, "domain")
        problem = _parsed(case.problem, case.problem_label, "problem")
        assert isinstance(domain, Domain) and isinstance(problem, Problem)
        return domain, problem

    def truth(self, case: Case) -> Outcome:
        """The exact answer of a truth task (applicable, state, progression, tracking)."""
        try:
            world = self.world(case)
            task = cast(TruthTask, case.task)
            return Outcome(case, truth=ground_truth(world, task, case.after, case.action))
        except TruthError as error:
            return Outcome(case, error=str(error))

    def score(self, case: Case) -> Outcome:
        """The case's answer scored against its truth."""
        assert case.answer is not None
        try:
            world = self.world(case)
            plan: tuple[Words, ...] | None = None
            if case.task in PLAN_TASKS:
                plan = self._optimal(case, world)
                truth_items: tuple[Words, ...] = plan
            else:
                base = cast(TruthTask, "progression" if case.task.startswith("progression") else case.task)
                truth = ground_truth(world, base, case.after, case.action)
                truth_items = truth.delete if case.task == "progression-delete" else truth.items
        except TruthError as error:
            return Outcome(case, error=str(error))
        answer = read_answer(case.answer, negated_means_deleted=case.task == "progression-delete")
        judge = action_judge(world) if case.task in ACTION_TASKS else atom_judge(world)
        return Outcome(case, score=score(case.task, answer, truth_items, judge), optimal_plan=plan)

    def _optimal(self, case: Case, world: World) -> tuple[Words, ...]:
        if case.optimal_plan is not None:
            return case.optimal_plan
        key = (case.domain, case.problem)
        found = self._plans.get(key)
        if found is None:
            if self._planner is None:
                found = "no optimal plan: none given (`optimal_plan`) and no planner allowed"
            else:
                try:
                    found = self._planner(world.domain, world.problem)
                except TruthError as error:
                    found = str(error)
            self._plans[key] = found
        if isinstance(found, str):
            raise TruthError(found)
        return found


def _parsed(text: str, label: str, kind: str) -> Domain | Problem:
    document = parse_document(label if label.endswith(".pddl") else f"{kind}.pddl", text)
    model = document.domain if kind == "domain" else document.problem
    errors = [d for d in document.diagnostics if d.severity is Severity.ERROR]
    if model is None or errors:
        detail = f": {errors[0].message}" if errors else ""
        raise TruthError(f"the {kind} {label} cannot be read{detail} (run `plansight lint` on it)")
    return model

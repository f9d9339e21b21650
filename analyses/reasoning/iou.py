"""Intersection over union of an answer and the ground truth (Murthy, Mink and Sanneman 2025, eq. 1).

IoU = |A ∩ T| / |A ∪ T| over sets of ground atoms or actions: an answer gets credit for what it gets
right and loses it both for what it adds and what it misses, where pass/fail would give 0 to a
nearly right answer. Plan generation is scored by action distance, 1 − IoU over the distinct
ground actions of the answer and of an optimal plan.

Choices the paper leaves open (docs/reasoning.md): each distinct unreadable item counts as one
wrong answered item (in |A| and in the union); an empty answer against an empty truth scores 1;
precision is undefined (None) for an answer with no item, recall for an empty truth. Wrong items
that are not atoms or actions of the task at all (unknown name or object, wrong arity) are listed
apart as hallucinated.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, Literal

from plansight.analyses.reasoning.answers import ReadAnswer, Words, words_text
from plansight.analyses.semantics.world import World

ScoreTask = Literal["applicable", "state", "progression-add", "progression-delete", "tracking", "plan",
                    "optimal-plan"]
SCORE_TASKS: tuple[ScoreTask, ...] = ("applicable", "state", "progression-add", "progression-delete",
                                      "tracking", "plan", "optimal-plan")
PLAN_TASKS = frozenset({"plan", "optimal-plan"})
ACTION_TASKS = frozenset({"applicable", "plan", "optimal-plan"})

Judge = Callable[[Words], str | None]
"""Why an item is not an atom (or action) of the task at all, or None when it is one."""


@dataclass(frozen=True, slots=True)
class Score:
    """One answer against its truth: the metric, and every item sorted into what it was."""

    task: str
    iou: float
    precision: float | None
    recall: float | None
    correct: tuple[Words, ...]
    wrong: tuple[Words, ...]
    """Answered items of the task's vocabulary that are not in the truth."""
    hallucinated: tuple[tuple[Words, str], ...]
    """Answered items that are no atom or action of the task at all, with the reason."""
    missing: tuple[Words, ...]
    unreadable: tuple[tuple[str, str], ...]
    duplicates: int
    truth_size: int
    list_found: bool

    @property
    def answer_size(self) -> int:
        """Distinct items answered, unreadable ones included (they count against the answer)."""
        return len(self.correct) + len(self.wrong) + len(self.hallucinated) + len(self.unreadable)

    @property
    def value(self) -> float:
        """The number the paper plots: IoU, or action distance (1 − IoU) for plan tasks."""
        return 1.0 - self.iou if self.task in PLAN_TASKS else self.iou

    def to_json(self) -> dict[str, Any]:
        """The per-answer object of ``plansight iou --format json`` (docs/reasoning.md)."""
        report: dict[str, Any] = {"task": self.task, "iou": round(self.iou, 4)}
        if self.task in PLAN_TASKS:
            report["action_distance"] = round(1.0 - self.iou, 4)
        report.update(
            precision=None if self.precision is None else round(self.precision, 4),
            recall=None if self.recall is None else round(self.recall, 4),
            answer_size=self.answer_size,
            truth_size=self.truth_size,
            correct=[words_text(w) for w in self.correct],
            wrong=[words_text(w) for w in self.wrong],
            hallucinated=[{"item": words_text(w), "reason": r} for w, r in self.hallucinated],
            missing=[words_text(w) for w in self.missing],
            unreadable=[{"text": t, "reason": r} for t, r in self.unreadable],
            duplicates=self.duplicates,
            list_found=self.list_found,
        )
        return report


def iou(answer: Collection[object], truth: Collection[object], unreadable: int = 0) -> float:
    """|A ∩ T| / (|A ∪ T| + unreadable); 1 when both are empty and nothing is unreadable."""
    mine, theirs = set(answer), set(truth)
    union = len(mine | theirs) + unreadable
    return len(mine & theirs) / union if union else 1.0


def score(task: str, answer: ReadAnswer, truth: Collection[Words], judge: Judge) -> Score:
    """Score a read answer against the truth; ``judge`` tells hallucinated items from merely wrong ones."""
    truth_set = set(truth)
    correct = tuple(w for w in answer.items if w in truth_set)
    hallucinated: list[tuple[Words, str]] = []
    wrong: list[Words] = []
    for words in answer.items:
        if words in truth_set:
            continue
        reason = judge(words)
        if reason is None:
            wrong.append(words)
        else:
            hallucinated.append((words, reason))
    unreadable = len(answer.unreadable)
    answered = len(answer.items) + unreadable
    return Score(
        task=task,
        iou=iou(answer.items, truth_set, unreadable),
        precision=len(correct) / answered if answered else None,
        recall=len(correct) / len(truth_set) if truth_set else None,
        correct=correct,
        wrong=tuple(wrong),
        hallucinated=tuple(hallucinated),
        missing=tuple(sorted(truth_set - set(answer.items))),
        unreadable=tuple((u.text, u.reason) for u in answer.unreadable),
        duplicates=answer.duplicates,
        truth_size=len(truth_set),
        list_found=answer.list_found,
    )


def action_judge(world: World) -> Judge:
    """Hallucination of a ground action: an unknown action, the wrong number of arguments, or an object
    the problem does not have. An argument of the wrong type is a ground action the task cannot have
    either, but every name in it is the task's, so it counts as merely wrong."""
    words = {"unknown_action": "unknown action", "arity": "wrong number of arguments",
             "unknown_object": "unknown object"}

    def judge(item: Words) -> str | None:
        problem = world.check_call(item[0], item[1:])
        return words.get(problem) if problem is not None else None

    return judge


def atom_judge(world: World) -> Judge:
    """Hallucination of a ground atom: an unknown predicate, the wrong number of arguments, or an
    object the problem does not have."""
    predicates = world.vocabulary.predicates
    objects = world.objects.ancestry

    def judge(item: Words) -> str | None:
        declared = predicates.get(item[0])
        if declared is None:
            return "unknown predicate"
        if len(declared.parameters) != len(item) - 1:
            return "wrong number of arguments"
        if any(argument not in objects for argument in item[1:]):
            return "unknown object"
        return None

    return judge

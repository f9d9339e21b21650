"""Is a candidate problem the reference problem? Planetarium's algorithm (Zuo et al. 2024, Algorithm 1).

Two problems over one domain are equivalent when a renaming of objects maps one initial state onto
the other and one goal's FS (the atoms true in every reachable goal state) onto the other's
(docs/metrics.md); placeholder mode lets the goal use its own renaming. The order is the paper's: cheap
rejections (object counts, non-isomorphic initial states), then "isomorphic as written" (a sound
yes), then the goals are completed — by Appendix C's rules for the three domains it recognises by
structure, by an exhaustive state search under a budget for any other — and compared by graph
isomorphism. When the budget runs out the answer is ``None`` with the reason: never a guess.

Every "not equivalent" says what to change, in the candidate's own object names.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Literal

from plansight.analyses.checks.problem import check_problem
from plansight.analyses.diagnostics.diagnostic import Severity
from plansight.analyses.equivalence.domain_recognition import recognise
from plansight.analyses.equivalence.fully_specify import fully_specify
from plansight.analyses.equivalence.goal_closure import Budget, Closure, Interrupted, goal_closure
from plansight.analyses.equivalence.scene_graph import (
    GOAL,
    INIT,
    Fact,
    GroundTask,
    SceneGraph,
    ground_task,
    isomorphic,
    object_matchings,
    problem_graph,
    scene_graph,
)
from plansight.analyses.model.pddl import Domain, Problem

__all__ = ["Budget", "Interrupted", "Reference", "Verdict", "compare", "equivalence"]

Cancelled = Callable[[], bool]
"""Asked during the state search; true stops it with :class:`Interrupted` (the editor's next edit)."""

Mode = Literal["identity", "placeholder"]
Where = Literal["", "file", "objects", "init", "goal"]
_MATCHINGS_TRIED = 32
_MATCHING_SECONDS = 0.002
"""The explanation's search for the closest renaming stops after this long (the verdict is already
known; only the wording could get better)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """The fields of `plansight equiv --format json` (docs/cli.md), plus what an editor needs to place a
    diagnostic.

    ``where`` names the part of the candidate the explanation is about; ``lacks`` / ``adds`` are the
    completed-goal (or init) atoms, written with the candidate's object names; ``matching`` maps the
    candidate's objects to the reference's.
    """

    parseable: bool
    solvable: bool | None
    equivalent: bool | None
    mode: Mode
    explanation: str
    method: str
    where: Where = ""
    lacks: tuple[str, ...] = ()
    adds: tuple[str, ...] = ()
    matching: tuple[tuple[str, str], ...] = ()
    warnings: tuple[str, ...] = ()
    """What the verdict does not depend on but a reader should know (a candidate naming another domain)."""

    # One constructor per outcome, so a site says which verdict it gives instead of spelling out the
    # (parseable, solvable, equivalent) triple. `equivalent` is a field, hence `proved_equivalent`.

    @classmethod
    def proved_equivalent(cls, mode: Mode, explanation: str, method: str, *,
                          solvable: bool | None = True) -> Verdict:
        """``solvable`` is None when the goal was matched as written and the reference's search
        ran out of budget: equal problems, solvability unknown."""
        return cls(True, solvable, True, mode, explanation, method)

    @classmethod
    def not_equivalent(cls, mode: Mode, explanation: str, method: str, where: Where, *,
                       solvable: bool | None, lacks: tuple[str, ...] = (), adds: tuple[str, ...] = (),
                       matching: tuple[tuple[str, str], ...] = ()) -> Verdict:
        """A difference was found; ``solvable`` is the candidate's solvability when known (False
        reads as the outcome "unsolvable": prefer :meth:`unsolvable` when that is the reason)."""
        return cls(True, solvable, False, mode, explanation, method, where, lacks, adds, matching)

    @classmethod
    def unsolvable(cls, mode: Mode, explanation: str, method: str, where: Where = "goal") -> Verdict:
        """No reachable state satisfies the candidate's goal, so it cannot equal a solvable reference."""
        return cls(True, False, False, mode, explanation, method, where)

    @classmethod
    def unknown(cls, mode: Mode, explanation: str, method: str, where: Where = "goal", *,
                solvable: bool | None) -> Verdict:
        """The budget ran out before an answer: never a guess."""
        return cls(True, solvable, None, mode, explanation, method, where)

    @classmethod
    def unparseable(cls, mode: Mode, explanation: str) -> Verdict:
        """The file is not a problem that can be read; it counts as neither solvable nor equivalent."""
        return cls(False, False, False, mode, explanation, "rejected", "file")

    @classmethod
    def invalid(cls, mode: Mode, explanation: str) -> Verdict:
        """The candidate parses but does not fit the domain (undeclared names, wrong arities...)."""
        return cls(True, False, False, mode, explanation, "rejected", "file")

    @classmethod
    def invalid_reference(cls, mode: Mode, explanation: str) -> Verdict:
        """The reference itself has errors: nothing about the candidate is known."""
        return cls(True, None, None, mode, explanation, "rejected", "file")

    @property
    def outcome(self) -> str:
        """One word a grade sheet shows: unparseable, invalid (does not fit the domain), unsolvable,
        not equivalent, unknown or equivalent."""
        if not self.parseable:
            return "unparseable"
        if self.method == "rejected":
            return "invalid"
        if self.equivalent is True:
            return "equivalent"
        if self.equivalent is None:
            return "unknown"
        return "unsolvable" if self.solvable is False else "not equivalent"

    def as_json(self, candidate: str) -> dict[str, object]:
        """The verdict as the CLI's JSON output writes it for ``candidate``."""
        return {
            "candidate": candidate,
            "parseable": self.parseable,
            "solvable": self.solvable,
            "equivalent": self.equivalent,
            "mode": self.mode,
            "explanation": self.explanation,
            "method": self.method,
            **({"warnings": list(self.warnings)} if self.warnings else {}),
        }


@dataclass(frozen=True, slots=True)
class _Completed:
    """A goal completed to FS (``closure``), or why that failed; ``method`` says how it was found."""

    reachable: bool | None
    closure: frozenset[Fact] | None
    reason: str
    method: str


@dataclass(eq=False)
class Reference:
    """A reference problem prepared once and compared with many candidates (grading)."""

    domain: Domain
    problem: Problem
    budget: Budget = field(default_factory=Budget)
    _closure_graphs: dict[bool, SceneGraph] = field(default_factory=dict, init=False, repr=False)

    @cached_property
    def errors(self) -> list[str]:
        """Why the reference itself is broken (empty when it is fine); computed once for a whole grading run.
        """
        return _errors(self.problem, self.domain)

    @cached_property
    def task(self) -> GroundTask:
        """The reference grounded once, shared by every candidate compared with it."""
        return ground_task(self.problem, self.domain)

    @cached_property
    def init_graph(self) -> SceneGraph:
        """The scene graph of the reference's initial state, built once per grading run."""
        return scene_graph(self.task, self.task.init, INIT)

    @cached_property
    def written_graph(self) -> SceneGraph | None:
        """The scene graph of the problem as written, or None when its goal is more than a conjunction of
        literals.
        """
        return _written_graph(self.task)

    def completion(self, cancelled: Cancelled | None = None) -> _Completed:
        """The reference's completed goal, computed once; an interrupted search leaves nothing
        behind, so the next comparison starts it again."""
        found = self.__dict__.get("_completed")
        if found is None:
            found = self.__dict__["_completed"] = _complete(self.domain, self.problem, self.task,
                                                            self.budget, cancelled)
        assert isinstance(found, _Completed)
        return found

    def closure_graph(self, placeholder: bool) -> SceneGraph:
        """The graph of the reference's completed goal, built once per mode: every candidate that
        gets this far is matched against the same graph (grading a folder asks for it many times).
        Only asked once :meth:`completion` found a closure."""
        found = self._closure_graphs.get(placeholder)
        if found is None:
            closure = self.completion().closure
            assert closure is not None
            found = self._closure_graphs[placeholder] = (
                scene_graph(self.task, closure, GOAL) if placeholder else problem_graph(self.task, closure)
            )
        return found


def equivalence(
    domain: Domain,
    reference: Problem,
    candidate: Problem,
    placeholder: bool = False,
    budget: Budget | None = None,
) -> Verdict:
    """Whether ``candidate`` describes the same task as ``reference`` in ``domain``; the one-shot entry point
    when there is no grading run to share work across.
    """
    return compare(Reference(domain, reference, budget or Budget()), candidate, placeholder)


def compare(reference: Reference, candidate: Problem, placeholder: bool = False,
            cancelled: Cancelled | None = None) -> Verdict:
    """The verdict for one parsed candidate (a candidate that does not parse is the caller's case:
    :func:`unparseable`). Raises :class:`Interrupted` when ``cancelled()`` turns true mid-search."""
    return _compare(reference, candidate, placeholder, cancelled)


def _compare(reference: Reference, candidate: Problem, placeholder: bool,
             cancelled: Cancelled | None) -> Verdict:
    mode: Mode = "placeholder" if placeholder else "identity"
    if reference.errors:
        return Verdict.invalid_reference(
            mode,
            "The reference problem itself has errors, so nothing can be "
            "compared with it: " + " ".join(reference.errors[:3]),
        )
    problems = _errors(candidate, reference.domain)
    if problems:
        return Verdict.invalid(
            mode,
            "Your problem does not fit the domain, so it cannot describe "
            "the reference task: " + " ".join(problems[:3]),
        )
    task = ground_task(candidate, reference.domain)
    ref = reference.task
    count = _object_difference(task, ref)
    if count:
        solvable = _solvable_by_rules(reference.domain, task)
        return Verdict.not_equivalent(mode, count, "easy case: object counts", "objects", solvable=solvable)
    init_graph = scene_graph(task, task.init, INIT)
    if not isomorphic(init_graph, reference.init_graph):
        lacks, adds, text = _init_difference(task, ref)
        solvable = _solvable_by_rules(reference.domain, task)
        return Verdict.not_equivalent(
            mode, text, "easy case: initial states not isomorphic", "init", solvable=solvable, lacks=lacks,
            adds=adds)
    written, reference_written = _written_graph(task), reference.written_graph
    if (
        written is not None
        and reference_written is not None
        and isomorphic(written, reference_written)
        and reference.completion(cancelled).reachable is not False
    ):
        solvable = reference.completion(cancelled).reachable
        return Verdict.proved_equivalent(
            mode,
            "Equivalent: your problem is the reference up to the names of its objects.",
            "easy case: isomorphic as written",
            solvable=solvable,
        )
    mine = _complete(reference.domain, candidate, task, reference.budget, cancelled)
    if mine.reachable is False:
        return Verdict.unsolvable(
            mode, f"No reachable state satisfies your goal: {mine.reason}.", mine.method)
    theirs = reference.completion(cancelled)
    if mine.closure is None:
        proved, planner = _planner_solvable(reference, candidate)
        if proved is False:
            return Verdict.unsolvable(
                mode,
                "No reachable state satisfies your goal (the planner proved it unsolvable).",
                f"{mine.method}; {planner}",
            )
        return Verdict.unknown(
            mode,
            f"Unknown: {mine.reason}.",
            f"{mine.method}; {planner}" if planner else mine.method,
            solvable=proved,
        )
    if theirs.reachable is False:
        return Verdict.not_equivalent(
            mode,
            "The reference problem has no reachable goal state "
            f"({theirs.reason}), so no solvable problem is equivalent to it.",
            theirs.method,
            "goal",
            solvable=True,
        )
    if theirs.closure is None:
        return Verdict.unknown(
            mode, f"Unknown: for the reference, {theirs.reason}.", theirs.method, solvable=True)
    method = mine.method if mine.method == theirs.method else f"{mine.method}; reference: {theirs.method}"
    mine_graph = scene_graph(task, mine.closure, GOAL) if placeholder else problem_graph(task, mine.closure)
    same = isomorphic(mine_graph, reference.closure_graph(placeholder))
    if same:
        return Verdict.proved_equivalent(
            mode,
            "Equivalent: after completing both goals with what must hold "
            "anyway, they are the same up to the names of the objects.",
            method,
        )
    lacks, adds, matching = _goal_difference(
        task, ref, init_graph, reference.init_graph, mine.closure, theirs.closure
    )
    return Verdict.not_equivalent(
        mode,
        _goal_message(task, ref, lacks, adds, matching, placeholder),
        method,
        "goal",
        solvable=True,
        lacks=lacks,
        adds=adds,
        matching=tuple(sorted(matching.items())),
    )


def _planner_solvable(reference: Reference, candidate: Problem) -> tuple[bool | None, str]:
    """Solvability from Fast Downward when the search budget ran out (None: the planner could not
    tell either, or is unavailable)."""
    if reference.budget.planner_seconds <= 0:
        return None, ""
    try:
        from plansight.analyses.plans.recovery import Budget as PlannerBudget
        from plansight.analyses.plans.recovery import solve
    except ImportError:  # pragma: no cover - the planner is an optional part of the install
        return None, ""
    result = solve(reference.domain, candidate, PlannerBudget(time_limit_s=reference.budget.planner_seconds))
    verdict = {"solved": True, "unsolvable": False}.get(result.status)
    return verdict, f"solvability: {result.planner or 'planner'} ({result.status})"


def compare_text(reference: Reference, path: str, text: str, placeholder: bool = False) -> Verdict:
    """The verdict for a candidate file's text: unparseable files and non-problems included."""
    from plansight.analyses.syntax.documents import parse_document

    try:
        document = parse_document(path, text)
    except Exception as error:  # bad input never crashes a batch
        return unparseable(f"{type(error).__name__}: {error}", placeholder)
    syntax = [d for d in document.diagnostics if d.severity == Severity.ERROR]
    if document.problem is None:
        if not text.strip():
            return unparseable("the file is empty.", placeholder)
        what = "a domain" if document.domain is not None else "not a `(define (problem ...)` file"
        return unparseable(f"it is {what}.", placeholder)
    if syntax:
        from plansight.analyses.diagnostics.spans import LineIndex

        line = LineIndex(text).line_of(syntax[0].span.start) + 1
        return unparseable(f"line {line}: {syntax[0].message}", placeholder)
    verdict = compare(reference, document.problem, placeholder)
    warning = other_domain_warning(reference, document.problem)
    return verdict if warning is None else replace(verdict, warnings=(*verdict.warnings, warning))


def other_domain_warning(reference: Reference, candidate: Problem) -> str | None:
    """A candidate is always read in the reference's domain (as Planetarium does); when its own
    ``(:domain ...)`` names another one, that is worth saying, since the model may have meant another task."""
    named = candidate.domain_name
    if named is None or named.key == reference.domain.name.key:
        return None
    return (f"Your problem says `(:domain {named.display})`, but the reference is a "
            f"`{reference.domain.name.display}` problem: it was read in the reference's domain.")


def unparseable(reason: str, placeholder: bool = False) -> Verdict:
    """The verdict for a file that cannot be read as a problem, with ``reason`` shown to the student."""
    return Verdict.unparseable(
        "placeholder" if placeholder else "identity",
        f"Your file is not a PDDL problem that can be read: {reason}",
    )


# --- steps ------------------------------------------------------------------------------------------


_UNREACHABLE_GOAL = frozenset({"static-goal-unreachable", "contradictory-goal"})
"""Errors that say the goal cannot be reached: the search finds that too, and says "unsolvable"."""


def _errors(problem: Problem, domain: Domain) -> list[str]:
    return [
        d.message
        for d in check_problem(problem, domain)
        if d.severity == Severity.ERROR and d.code not in _UNREACHABLE_GOAL
    ]


def _written_graph(task: GroundTask) -> SceneGraph | None:
    """The problem as written (None when its goal is more than a conjunction of literals)."""
    if task.goal is None:
        return None
    return problem_graph(task, task.goal).add_scene(task, task.negative_goal, "goal-not")


def _complete(domain: Domain, problem: Problem, task: GroundTask, budget: Budget,
              cancelled: Cancelled | None = None) -> _Completed:
    recognised = recognise(domain)
    if recognised is not None:
        specified = fully_specify(task, recognised)
        if specified is not None:
            return _Completed(
                specified.reachable,
                specified.closure,
                specified.reason,
                f"fullySpecify ({recognised.kind} rules)",
            )
    found: Closure = goal_closure(domain, problem, budget, cancelled)
    return _Completed(found.reachable, found.closure, found.reason, f"state search ({found.states:,} states)")


def _solvable_by_rules(domain: Domain, task: GroundTask) -> bool | None:
    """Solvability when Appendix C's rules decide it (cheap); None rather than a search when they
    do not, since the verdict is already known."""
    recognised = recognise(domain)
    specified = fully_specify(task, recognised) if recognised is not None else None
    return specified.reachable if specified is not None else None


def _object_difference(task: GroundTask, ref: GroundTask) -> str:
    mine = Counter(task.objects[o] for o in task.objects if o not in task.constants)
    theirs = Counter(ref.objects[o] for o in ref.objects if o not in ref.constants)
    if mine == theirs:
        return ""
    if sum(mine.values()) != sum(theirs.values()):
        return (
            f"Your problem has {_count(sum(mine.values()), 'object')}, the reference "
            f"{sum(theirs.values())}: equivalent problems have the same objects (up to their names)."
        )
    parts = [
        f"{mine[t]} of type `{t}` where the reference has {theirs[t]}"
        for t in sorted(mine | theirs)
        if mine[t] != theirs[t]
    ]
    return "Your objects' types differ from the reference's: you have " + "; ".join(parts) + "."


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _init_difference(task: GroundTask, ref: GroundTask) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    if set(task.objects) == set(ref.objects):
        lacks = tuple(task.show(f) for f in sorted(ref.init - task.init))
        adds = tuple(task.show(f) for f in sorted(task.init - ref.init))
        return (
            lacks,
            adds,
            (
                "Your initial state is not the reference's under any renaming of objects: "
                f"with the same object names, it {_lacks_adds(lacks, adds)}."
            ),
        )
    mine = Counter(f[0] for f in task.init)
    theirs = Counter(f[0] for f in ref.init)
    parts = [
        f"{mine[p]} `{p}` facts where the reference has {theirs[p]}"
        for p in sorted(mine | theirs)
        if mine[p] != theirs[p]
    ]
    detail = (
        ("you have " + "; ".join(parts))
        if parts
        else ("it has as many facts of each predicate, but they relate the objects differently")
    )
    return (), (), f"Your initial state is not the reference's under any renaming of objects: {detail}."


def _lacks_adds(lacks: Iterable[str], adds: Iterable[str]) -> str:
    lacks, adds = list(lacks), list(adds)
    parts = []
    if lacks:
        parts.append("lacks " + ", ".join(lacks))
    if adds:
        parts.append("adds " + ", ".join(adds))
    return " and ".join(parts) or "differs"


def _goal_difference(
    task: GroundTask,
    ref: GroundTask,
    mine_init: SceneGraph,
    ref_init: SceneGraph,
    mine: frozenset[Fact],
    theirs: frozenset[Fact],
) -> tuple[tuple[str, ...], tuple[str, ...], dict[str, str]]:
    """The smallest difference over the renamings that match the initial states (tried: the identity
    when names agree, then as many isomorphisms as a few milliseconds allow)."""
    options: list[dict[str, str]] = []
    if (
        set(task.objects) == set(ref.objects)
        and all(f in ref.init for f in task.init)
        and len(task.init) == len(ref.init)
    ):
        options.append({o: o for o in task.objects})
    options.extend(object_matchings(mine_init, ref_init, _MATCHINGS_TRIED, _MATCHING_SECONDS))
    best: tuple[int, list[Fact], list[Fact], dict[str, str]] | None = None
    for mapping in options:
        back = {v: k for k, v in mapping.items()}
        translated = {(f[0], *(back.get(a, a) for a in f[1:])) for f in theirs}
        lacks = sorted(translated - mine)
        adds = sorted(mine - translated)
        if best is None or len(lacks) + len(adds) < best[0]:
            best = (len(lacks) + len(adds), lacks, adds, mapping)
    if best is None:
        return (), (), {}
    _, lacks, adds, mapping = best
    return tuple(task.show(f) for f in lacks), tuple(task.show(f) for f in adds), mapping


def _goal_message(
    task: GroundTask,
    ref: GroundTask,
    lacks: tuple[str, ...],
    adds: tuple[str, ...],
    matching: dict[str, str],
    placeholder: bool,
) -> str:
    renamed = [f"{task.show_object(k)}->{ref.show_object(v)}" for k, v in sorted(matching.items()) if k != v]
    under = (
        (" under the object matching " + ", ".join(renamed))
        if renamed
        else (" with the objects matched by name" if matching else "")
    )
    text = (
        f"Not equivalent: after completing the goal with what must hold anyway, your goal "
        f"{_lacks_adds(lacks, adds)}{under}."
    )
    if placeholder:
        text += " (Placeholder mode: no renaming of your goal's objects makes the goals match either.)"
    return text

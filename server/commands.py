"""Every command and custom request the server answers, with the arguments it takes and the shape of
its answer: one table, the single source for both sides of the wire.

The VS Code extension's copy (``vscode-client/src/serverProtocol.ts``) is generated from this module
by ``vscode-client/scripts/sync-server-commands.py``, and a test fails when the committed copy differs
from what the script would write; so an id renamed or a result key added here cannot silently
break the client. The result types are the JSON the client receives: ``TypedDict`` keys are the
JSON keys, ``None`` is ``null``; ``total=False`` marks answers whose keys depend on the case (a
verdict, or only a ``message`` saying why there is none).

Commands are run with ``workspace/executeCommand`` and take a single object argument
(``[{"uri": ...}]``, see ``command_arguments.py``); custom requests take that object as their params.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

from plansight.analyses.syntax.documents import FileKind
from plansight.analyses.workspace.association import How

# --- arguments ---------------------------------------------------------------------------------------


class UriArguments(TypedDict):
    """The document a command works on."""

    uri: str


class StepArguments(TypedDict):
    uri: str
    line: int
    """0-based, as LSP counts lines"""


class GradeArguments(TypedDict):
    """File-system paths: the server reads the folder and the reference, and writes the report."""

    folder: str
    reference: str
    report: str


# --- results -----------------------------------------------------------------------------------------

LinkRule: TypeAlias = How
"""which rule linked a partner: ``flag`` (the CLI's), ``directive``, ``setting`` or ``convention``"""


class PlanFailure(TypedDict):
    index: int
    action: str
    category: str
    unsatisfied: list[str]
    message: str


class PlanGoals(TypedDict):
    satisfied: list[str]
    unsatisfied: list[str]
    fraction: float


class PlanValueChange(TypedDict):
    term: str
    before: float | str | None
    after: float | str | None


class PlanTraceStep(TypedDict):
    index: int
    action: str
    added: list[str]
    deleted: list[str]
    changed: list[PlanValueChange]
    derived_added: NotRequired[list[str]]
    derived_deleted: NotRequired[list[str]]


class SimulatePlanResult(TypedDict):
    """The ``plansight plan --format json`` report of the plan, as the editor has it."""

    path: str
    length: int | None
    executable: bool | None
    valid: bool | None
    lea: int | None
    failure: PlanFailure | None
    goals: PlanGoals | None
    trace: list[PlanTraceStep]
    reference: dict[str, Any] | None
    recovery: dict[str, Any] | None
    skipped_reason: str | None
    stopped_reason: str | None
    redundant: list[int]
    domain: str | None
    problem: str | None
    error: str | None
    metric: dict[str, Any] | None
    pddl3: dict[str, Any] | None


class StepHappening(TypedDict):
    """Where a temporal plan's step starts: its start happening (0-based) and time, and every snap action
    of that happening (``(drive t1 a b) start, (at 2 (open a))``)."""

    index: int
    time: float
    label: str


class StateAtStepResult(TypedDict):
    """The state before the step on a line (the command answers ``null`` on a line without a step): its
    basic atoms, its fluent values as ``:init`` writes them, the atoms the ``:derived`` rules add, and
    for a temporal plan the happening the step starts at (the state is the one before it)."""

    index: int
    action: str
    state: list[str]
    values: list[str]
    derived: list[str]
    happening: StepHappening | None
    reached: bool


class RepairPlanResult(TypedDict, total=False):
    """The planner's repair; ``applied`` says whether the plan was rewritten. A plan that cannot be
    read gets only ``status`` and ``message``."""

    status: str
    message: str
    applied: bool
    prefix: list[str]
    completion: list[str]
    plan: list[str] | None
    planner: str
    prefix_rule: str
    seconds: float


class ViewResult(TypedDict):
    """A view page (``plansight plan --report``'s or ``plansight model --report``'s) to show in a webview:
    self-contained HTML under its own Content-Security-Policy, and a title for the tab."""

    title: str
    html: str


class SolveProblemResult(TypedDict):
    """The planner's outcome for the problem (``status``: ``solved``, ``unsolvable``, ``budget-exceeded``,
    ``planner-error``, ``cancelled``, or ``skipped`` when the problem or its domain cannot be read), the
    plan as the planner wrote it, and what plansight's simulator says of it (``valid``, ``verdict``)."""

    status: str
    message: str
    planner: str
    plan: str | None
    output: str
    seconds: float
    exit_code: int | None
    valid: bool | None
    verdict: str | None
    problem: str
    domain: str | None


class CheckEquivalenceResult(TypedDict, total=False):
    """A verdict against the reference problem, or only a ``message`` saying why there is none."""

    message: str
    candidate: str
    parseable: bool
    solvable: bool | None
    equivalent: bool | None
    mode: str
    explanation: str
    method: str
    reference: str
    summary: str


class GradeFolderResult(TypedDict, total=False):
    """Where the report was written and the count of each verdict, or only a ``message``."""

    message: str
    report: str
    summary: str
    counts: dict[str, int]


class LtlPosition(TypedDict):
    line: int
    character: int


class LtlRange(TypedDict):
    start: LtlPosition
    end: LtlPosition


class LtlFailure(TypedDict):
    message: str
    range: LtlRange


class LtlReportResult(TypedDict):
    """What ``plansight ltl --format json`` prints for the document (``null`` for a non-LTL file)."""

    path: str
    satisfied: bool | None
    satisfied_at: int | None
    f1: float | None
    failures: list[LtlFailure]
    notes: list[str]


class DomainLink(TypedDict):
    path: str
    name: str | None
    how: LinkRule | None


class Link(TypedDict):
    path: str
    how: LinkRule | None


class AssociationResult(TypedDict):
    """Which domain and problem a file is checked against, by which rule; ``reference`` is a problem's
    reference problem, ``referencePlan`` a plan's ground-truth plan."""

    kind: FileKind
    domain: DomainLink | None
    problem: Link | None
    reference: Link | None
    referencePlan: Link | None


# --- the table ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ServerCall:
    """One command (``workspace/executeCommand``) or custom request the server answers."""

    key: str
    """the name the client's code uses for it (``simulatePlan``)"""
    id: str
    """the command id or request method on the wire"""
    kind: Literal["command", "request"]
    arguments: type
    result: type
    nullable: bool = False
    """the answer may be ``null`` (nothing to say for this document or line)"""


SIMULATE_PLAN = ServerCall("simulatePlan", "plansight.server.simulatePlan", "command",
                           UriArguments, SimulatePlanResult)
STATE_AT_STEP = ServerCall("stateAtStep", "plansight.server.stateAtStep", "command",
                           StepArguments, StateAtStepResult, nullable=True)
REPAIR_PLAN = ServerCall("repairPlan", "plansight.server.repairPlan", "command",
                         UriArguments, RepairPlanResult)
SOLVE_PROBLEM = ServerCall("solveProblem", "plansight.server.solveProblem", "command",
                           UriArguments, SolveProblemResult)
CHECK_EQUIVALENCE = ServerCall("checkEquivalence", "plansight.server.checkEquivalence", "command",
                               UriArguments, CheckEquivalenceResult)
GRADE_FOLDER = ServerCall("gradeFolder", "plansight.server.gradeFolder", "command",
                          GradeArguments, GradeFolderResult)
LTL_REPORT = ServerCall("ltlReport", "plansight.server.ltlReport", "command",
                        UriArguments, LtlReportResult, nullable=True)
PLAN_VIEW = ServerCall("planView", "plansight.server.planView", "command", UriArguments, ViewResult)
MODEL_VIEW = ServerCall("modelView", "plansight.server.modelView", "command", UriArguments, ViewResult)
ASSOCIATION = ServerCall("association", "plansight/association", "request",
                         UriArguments, AssociationResult)

SERVER_CALLS: tuple[ServerCall, ...] = (SIMULATE_PLAN, STATE_AT_STEP, REPAIR_PLAN, SOLVE_PROBLEM,
                                        CHECK_EQUIVALENCE, GRADE_FOLDER, LTL_REPORT, PLAN_VIEW, MODEL_VIEW,
                                        ASSOCIATION)
"""Every command and custom request, in the order the generated client file lists them."""

COMMAND_IDS: frozenset[str] = frozenset(call.id for call in SERVER_CALLS if call.kind == "command")
REQUEST_METHODS: frozenset[str] = frozenset(call.id for call in SERVER_CALLS if call.kind == "request")

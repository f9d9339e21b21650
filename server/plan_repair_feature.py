"""The "Repair plan" quick fix: keep the plan's correct prefix and let a planner finish it (Fast Downward;
ENHSP for a numeric plan, TAMER, which plans a temporal one again).

On a plan that is not valid a code action offers ``plansight.server.repairPlan``; executing it runs
`analyses/plans/recovery.py` (pi_corr + pi_comp, docs/metrics.md) in a worker thread with a work-done progress
the user can cancel, within the `plansight.planner.*` budget. Editing the plan again cancels the
run (the planner's process group is killed) as does a newer repair of the same plan; a finished
repair is applied with ``workspace/applyEdit`` only while the document is still the version it was
computed for. The edit replaces everything below the plan's header (its leading `;` comment and
directive lines), so the links to its problem and reference plan survive.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from lsprotocol import types

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.pddl import Domain, Plan, Problem
from plansight.analyses.plans.metrics import actions_of
from plansight.analyses.syntax.lexical import is_comment_line
from plansight.server.command_arguments import argument_of, command_context
from plansight.server.commands import REPAIR_PLAN, RepairPlanResult
from plansight.server.context import DocumentContext
from plansight.server.feature_contract import HubSlot, ServerFeature
from plansight.server.plan_feature import PlanFeature

if TYPE_CHECKING:
    from plansight.analyses.plans.recovery import Budget, Recovery
    from plansight.server.app import PlansightServer
    from plansight.server.feature_hub import Provider

logger = logging.getLogger(__name__)

REPAIR_COMMAND = REPAIR_PLAN.id
POLL_SECONDS = 0.1
_tokens = itertools.count(1)


def header_end(text: str) -> int:
    """The offset where the plan proper starts: after the leading blank and `;` lines."""
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped and not is_comment_line(stripped):
            break
        offset += len(line)
    return offset


def repaired_text(lines: Sequence[str]) -> str:
    """A repaired plan as plan-file text, one step per line."""
    return "".join(line + "\n" for line in lines)


def repair_words(domain: Domain, problem: Problem) -> tuple[str, str]:
    """How the repair is done, for the action's title and the progress message: Fast Downward completes a
    classical plan, ENHSP a numeric one, TAMER plans a temporal one again (analyses/plans/recovery.py)."""
    from plansight.analyses.plans.task_planners import PLANNERS, task_kind

    kind = task_kind(domain, problem)
    if kind == "classical":
        return ("keep the correct prefix, complete it with Fast Downward",
                "Fast Downward is planning from the correct prefix…")
    label = PLANNERS[kind].label
    if kind == "temporal":
        return f"plan it again with {label}", f"{label} is planning the temporal problem…"
    return (f"keep the correct prefix, complete it with {label}",
            f"{label} is planning from the correct prefix…")


class PlanRepairFeature(ServerFeature):
    """The *Repair plan* code action and command: keep the plan's executable prefix and let a planner complete
    it.
    """

    commands = (REPAIR_COMMAND,)
    requires = (PlanFeature,)

    def __init__(self, server: PlansightServer) -> None:
        self._server = server
        self._plans = server.feature_of(PlanFeature)  # its simulations (one per version), reference lookup
        self._jobs: dict[str, threading.Event] = {}

    def providers(self) -> Sequence[tuple[HubSlot, Provider]]:
        # before the quick fixes (FEATURE_ORDER, app.py): on a plan that fails, repairing it is the fix
        return [("code_action", self.code_actions)]

    def register(self) -> None:
        """Install the repair command."""
        server = self._server

        @server.command(REPAIR_COMMAND)
        async def repair_plan(*arguments: Any) -> RepairPlanResult:
            if not isinstance(argument_of(arguments, "uri"), str):
                raise ValueError(f'{REPAIR_COMMAND} needs [{{"uri": ...}}], got {list(arguments)!r}')
            return await self.repair(await command_context(server, arguments, "plan", "a plan"))

    # --- the quick fix ------------------------------------------------------------------------------

    def _models(self, context: DocumentContext) -> tuple[Plan, Problem, Domain] | None:
        plan = context.parsed.plan if context.kind == "plan" else None
        problem = context.problem.problem if context.problem is not None else None
        domain = context.domain.domain if context.domain is not None else None
        if plan is None or problem is None or domain is None:
            return None
        return plan, problem, domain

    def code_actions(self, context: DocumentContext,
                     params: types.CodeActionParams) -> list[types.CodeAction]:
        """A *Repair plan* action when the plan is invalid; none for valid or unsimulated plans."""
        models = self._models(context)
        if models is None:
            return []
        plan, problem, domain = models
        simulation = self._plans.simulation(context, plan, problem, domain)
        if simulation.valid is not False:  # valid, or not simulated: nothing a planner should touch
            return []
        failure = simulation.failure
        why = (f"step {failure.index + 1} is not executable" if failure is not None
               else f"{len(simulation.goals.unsatisfied)} goal(s) do not hold")
        return [types.CodeAction(
            title=f"Repair plan ({why}): {repair_words(domain, problem)[0]}",
            kind=types.CodeActionKind.QuickFix,
            command=types.Command(title="Repair plan", command=REPAIR_COMMAND,
                                  arguments=[{"uri": context.uri}]),
        )]

    # --- the command --------------------------------------------------------------------------------

    def budget(self) -> Budget:
        """The planner's limits from the user's settings."""
        from plansight.analyses.plans.recovery import Budget

        settings = self._server.settings
        return Budget(float(settings.planner_time_limit_s), int(settings.planner_memory_limit_mb))

    def _current_version(self, uri: str) -> int | None:
        document = self._server.documents.open.get(uri)
        return document.version if document is not None else None

    def _recover(self, context: DocumentContext, cancel: threading.Event) -> Recovery | None:
        from plansight.analyses.plans.recovery import recover

        models = self._models(context)
        if models is None:
            return None
        plan, problem, domain = models
        reference = None
        path = self._plans.reference_plan_path(context)
        reference_doc = context.read_partner(path) if path is not None else None
        if reference_doc is not None and reference_doc.plan is not None:
            reference = actions_of(reference_doc.plan)
        return recover(domain, problem, actions_of(plan), reference, self.budget(), cancel)

    async def repair(self, context: DocumentContext) -> RepairPlanResult:
        """Run the repair with progress reporting, cancelling an earlier repair of the same plan; returns the
        outcome for the editor.
        """
        server, uri = self._server, context.uri
        if self._models(context) is None:
            return {"status": "skipped", "message": "the plan, its problem or its domain cannot be read"}
        previous = self._jobs.pop(uri, None)
        if previous is not None:
            previous.set()
        cancel = self._jobs[uri] = threading.Event()
        token = f"plansight-repair-{next(_tokens)}"
        progress = server.work_done_progress
        try:
            await progress.create_async(token)
        except Exception:  # a client without window/workDoneProgress/create still gets the repair
            logger.info("the client did not accept a progress token; repairing without progress")
        models = self._models(context)
        working = repair_words(models[2], models[1])[1] if models is not None else "planning…"
        progress.begin(token, types.WorkDoneProgressBegin(title="Repairing plan", message=working,
                                                          cancellable=True))
        why = "cancelled"
        try:
            job = asyncio.ensure_future(asyncio.to_thread(self._recover, context, cancel))
            while not job.done():
                await asyncio.wait({job}, timeout=POLL_SECONDS)
                user_cancel = progress.tokens.get(token)
                if user_cancel is not None and user_cancel.cancelled():
                    cancel.set()
                    why = "cancelled by the user"
                elif self._current_version(uri) != context.version:
                    cancel.set()
                    why = "cancelled: the plan was edited"
            recovery = job.result()
        finally:
            if self._jobs.get(uri) is cancel:
                del self._jobs[uri]
            progress.tokens.pop(token, None)
        if recovery is None:
            progress.end(token, types.WorkDoneProgressEnd(message="nothing to repair"))
            return {"status": "skipped", "message": "the plan, its problem or its domain cannot be read"}
        result = cast(RepairPlanResult, recovery.to_json())
        if recovery.status == "cancelled":
            result["message"] = why
        applied = False
        lines = recovery.plan_lines
        if recovery.status == "solved" and lines is not None:
            applied = await self._apply(context, lines)
            if not applied:
                result["message"] = "repaired, but the plan changed meanwhile: not applied"
        result["applied"] = applied
        progress.end(token, types.WorkDoneProgressEnd(message=result["message"]))
        return result

    async def _apply(self, context: DocumentContext, lines: Sequence[str]) -> bool:
        if self._current_version(context.uri) != context.version:
            return False
        span = Span(header_end(context.text), len(context.text))
        edit = types.WorkspaceEdit(changes={context.uri: [
            types.TextEdit(range=context.mapper.range(span), new_text=repaired_text(lines))]})
        response = await self._server.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=edit, label="Repair plan"))
        return bool(response is not None and response.applied)

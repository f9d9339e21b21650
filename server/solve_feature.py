"""*Plan this problem*: run a planner on the problem as the editor has it, and check the plan it finds.

A code lens on the problem's ``(:goal`` runs ``plansight.server.solveProblem``; so can any client.
The problem and its linked domain are taken from the editor's buffers (unsaved edits included) and
handed to ``analyses/plans/planner.py``, which writes them to a temporary folder. The planner is
the one ``plansight.planner.configuration`` names (a Fast Downward configuration, or one of
``plansight.planner.commands``), within the ``plansight.planner.*`` budgets; it runs in a worker
thread, with a work-done progress the user can cancel (as can a ``$/cancelRequest`` for the command:
``json_protocol.py`` passes it on), and its output is streamed to the client as
``window/logMessage`` lines starting with :data:`OUTPUT_PREFIX` (the VS Code extension moves those
to its *plansight planner* output channel). The answer carries the plan text and the simulator's
verdict on it; writing the plan file is the client's business (where, and whether to overwrite,
are the user's choices).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from plansight.analyses.model.pddl import Domain, Problem
from plansight.server.command_arguments import argument_of, command_context
from plansight.server.commands import SOLVE_PROBLEM, SolveProblemResult
from plansight.server.context import DocumentContext
from plansight.server.feature_contract import HubSlot, ServerFeature
from plansight.server.json_protocol import CURRENT_REQUEST, FastJsonProtocol

if TYPE_CHECKING:
    from plansight.analyses.plans.planner import PlannerBudget, PlannerChoice, SolveOutcome
    from plansight.server.app import PlansightServer
    from plansight.server.feature_hub import Provider
    from plansight.server.settings import Settings

logger = logging.getLogger(__name__)

SOLVE_COMMAND = SOLVE_PROBLEM.id
LENS_TITLE = "▷ Plan this problem"
OUTPUT_PREFIX = "[planner] "
"""Marks the planner's output among the server's log messages."""
POLL_SECONDS = 0.1
_tokens = itertools.count(1)


def planner_choice(settings: Settings) -> PlannerChoice | str:
    """The planner the settings name, or why they name none."""
    from plansight.analyses.plans.fast_downward import CONFIGURATIONS
    from plansight.analyses.plans.planner import PlannerChoice

    name = settings.planner_configuration
    if name in CONFIGURATIONS:
        return PlannerChoice(name)
    for entry in settings.planner_commands:
        if entry.name == name:
            return PlannerChoice(entry.name, entry.command)
    known = [*CONFIGURATIONS, *(entry.name for entry in settings.planner_commands)]
    return (f"`plansight.planner.configuration` is {name!r}, which is neither a Fast Downward configuration "
            f"nor the name of one of `plansight.planner.commands` (known: {', '.join(known)})")


class SolveFeature(ServerFeature):
    """The *Plan this problem* lens and command."""

    commands = (SOLVE_COMMAND,)

    def __init__(self, server: PlansightServer) -> None:
        self._server = server
        self._jobs: dict[str, threading.Event] = {}

    def providers(self) -> Sequence[tuple[HubSlot, Provider]]:
        return [("code_lens", self.code_lens)]

    def register(self) -> None:
        """Install the solve command."""
        server = self._server

        @server.command(SOLVE_COMMAND)
        async def solve_problem(*arguments: Any) -> SolveProblemResult:
            if not isinstance(argument_of(arguments, "uri"), str):
                raise ValueError(f'{SOLVE_COMMAND} needs [{{"uri": ...}}], got {list(arguments)!r}')
            return await self.solve(await command_context(server, arguments, "problem", "a PDDL problem"))

    def shutdown(self) -> None:
        """Stop the planners still running: their answer would go nowhere."""
        for cancel in self._jobs.values():
            cancel.set()

    # --- the lens -----------------------------------------------------------------------------------

    async def code_lens(self, context: DocumentContext, params: types.CodeLensParams) -> list[types.CodeLens]:
        """*▷ Plan this problem* above the problem's ``(:goal``."""
        problem = context.parsed.problem if context.kind == "problem" else None
        if problem is None:
            return []
        goal = next((name for name in problem.sections if name.key == ":goal"), None)
        if goal is None or goal.span.end <= goal.span.start:
            return []
        at = context.mapper.range(goal.span).start
        return [types.CodeLens(range=types.Range(start=at, end=at), command=types.Command(
            title=LENS_TITLE, command=SOLVE_COMMAND, arguments=[{"uri": context.uri}]))]

    # --- the command --------------------------------------------------------------------------------

    def budget(self) -> PlannerBudget:
        """The planner's limits from the user's settings."""
        from plansight.analyses.plans.planner import PlannerBudget

        settings = self._server.settings
        return PlannerBudget(float(settings.planner_time_limit_s), int(settings.planner_memory_limit_mb))

    def _models(self, context: DocumentContext) -> tuple[Domain, Problem] | str:
        problem = context.parsed.problem
        if problem is None:
            return "the problem cannot be read"
        if context.domain is None or context.domain.domain is None:
            return "no domain is linked to this problem (add a `; @domain` line or a domain.pddl beside it)"
        return context.domain.domain, problem

    async def solve(self, context: DocumentContext) -> SolveProblemResult:
        """Run the planner with progress and streamed output; a newer run on the same problem cancels this
        one."""
        models = self._models(context)
        choice = planner_choice(context.settings)
        if isinstance(models, str) or isinstance(choice, str):
            return self._skipped(context, models if isinstance(models, str) else str(choice))
        assert context.domain is not None
        previous = self._jobs.pop(context.uri, None)
        if previous is not None:
            previous.set()
        cancel = self._jobs[context.uri] = threading.Event()
        forget = self._listen_for_cancel(cancel)
        try:
            outcome = await self._run(context, choice, cancel)
        except asyncio.CancelledError:
            cancel.set()
            raise
        finally:
            forget()
            if self._jobs.get(context.uri) is cancel:
                del self._jobs[context.uri]
        return self._result(context, outcome, *models)

    def _listen_for_cancel(self, cancel: threading.Event) -> Callable[[], None]:
        """Stop the planner when the client cancels the request (the editor's own progress notification)."""
        protocol = self._server.protocol
        if not isinstance(protocol, FastJsonProtocol):
            return lambda: None
        return protocol.on_cancel(CURRENT_REQUEST.get(), cancel.set)

    async def _run(self, context: DocumentContext, choice: PlannerChoice,
                   cancel: threading.Event) -> SolveOutcome:
        from plansight.analyses.plans.planner import run_planner

        assert context.domain is not None
        server = self._server
        token = f"plansight-solve-{next(_tokens)}"
        progress = server.work_done_progress
        try:
            await progress.create_async(token)
        except Exception:  # a client without window/workDoneProgress/create still gets the plan
            logger.info("the client did not accept a progress token; planning without progress")
        progress.begin(token, types.WorkDoneProgressBegin(
            title="Planning", message=f"{choice.name} is searching for a plan…", cancellable=True))
        lines: deque[str] = deque()  # appended by the planner's reader thread, drained on the event loop
        domain_text, budget = context.domain.text, self.budget()
        job = asyncio.ensure_future(asyncio.to_thread(
            run_planner, domain_text, context.text, choice, budget, cancel, lines.append))
        try:
            while not job.done():
                await asyncio.wait({job}, timeout=POLL_SECONDS)
                self._flush(lines)
                user_cancel = progress.tokens.get(token)
                if user_cancel is not None and user_cancel.cancelled():
                    cancel.set()
            outcome = job.result()
            self._flush(lines)
        finally:
            progress.tokens.pop(token, None)
        progress.end(token, types.WorkDoneProgressEnd(message=outcome.message))
        return outcome

    def _flush(self, lines: deque[str]) -> None:
        batch = []
        while lines:
            batch.append(OUTPUT_PREFIX + lines.popleft())
        if batch:
            self._server.window_log_message(types.LogMessageParams(
                type=types.MessageType.Log, message="\n".join(batch)))

    def _skipped(self, context: DocumentContext, message: str) -> SolveProblemResult:
        return {"status": "skipped", "message": message, "planner": "", "plan": None, "output": "",
                "seconds": 0.0, "exit_code": None, "valid": None, "verdict": None, "problem": context.path,
                "domain": context.domain.path if context.domain is not None else None}

    def _result(self, context: DocumentContext, outcome: SolveOutcome, domain: Domain,
                problem: Problem) -> SolveProblemResult:
        from plansight.analyses.plans.solved_plan import check_plan, verdict

        valid, said = None, None
        if outcome.plan_text is not None:
            simulation = check_plan(domain, problem, outcome.plan_text)
            valid, said = (simulation.valid if simulation is not None else False), verdict(simulation)
        assert context.domain is not None
        return {"status": outcome.status, "message": outcome.message, "planner": outcome.planner,
                "plan": outcome.plan_text, "output": outcome.output, "seconds": round(outcome.seconds, 3),
                "exit_code": outcome.exit_code, "valid": valid, "verdict": said, "problem": context.path,
                "domain": context.domain.path}

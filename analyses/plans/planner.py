"""Run a planner on a domain and a problem given as text, within a time and memory budget.

The texts (an editor's unsaved buffers as well as files) are written to a temporary folder, so the
planner never writes next to the user's files. The planner is either Fast Downward in one of its
named configurations (``fast_downward.py``) or the user's own command line, a template with
``{domain}``, ``{problem}`` and ``{plan}`` placeholders, run without a shell: it is split into
words as a POSIX shell would (single and double quotes group words; backslashes are kept as
written, so Windows paths need no escaping; pipes, redirections and variables are not interpreted)
and each placeholder becomes the path of the file, as one word even when the path has spaces.
The plan is read back from ``{plan}`` (or, for a planner that only prints it, from its output).

The outcomes are distinct, because each asks the user for something different: ``solved`` (here is
the plan), ``unsolvable`` (the planner proved no plan exists: fix the model), ``budget-exceeded``
(give it more time or memory, or a faster configuration), ``planner-error`` (read its output) and
``cancelled``.
"""

from __future__ import annotations

import logging
import re
import shlex
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from plansight.analyses.plans import fast_downward
from plansight.analyses.plans.budgeted_process import ProcessRun, run_budgeted

log = logging.getLogger(__name__)

SolveStatus = Literal["solved", "unsolvable", "budget-exceeded", "planner-error", "cancelled"]
PLACEHOLDERS = ("{domain}", "{problem}", "{plan}")
GRACE_SECONDS = 5.0
"""Fast Downward enforces the time limit itself; our own guard fires this much later."""

_PLAN_LINE = re.compile(r"^\s*(?:\d+(?:\.\d+)?\s*:\s*)?\([^()]*\)(?:\s*\[\s*\d+(?:\.\d+)?\s*\])?\s*$")


@dataclass(frozen=True, slots=True)
class PlannerBudget:
    """The limits a planner run gets; the memory limit binds Fast Downward everywhere, a user's command
    only on Linux."""

    time_limit_s: float = 30.0
    memory_limit_mb: int = 2048


@dataclass(frozen=True, slots=True)
class PlannerChoice:
    """Which planner to run: a Fast Downward configuration, or a user's command template."""

    name: str = fast_downward.DEFAULT_CONFIGURATION
    command: str | None = None
    """the template; None runs the Fast Downward configuration called ``name``"""


@dataclass(frozen=True, slots=True)
class SolveOutcome:
    """What a planner run gave: the plan as the planner wrote it, or why there is none."""

    status: SolveStatus
    planner: str
    message: str
    plan_text: str | None
    output: str
    """the end of the planner's output"""
    seconds: float
    exit_code: int | None

    @property
    def solved(self) -> bool:
        """Whether there is a plan."""
        return self.status == "solved"

    def to_json(self) -> dict[str, Any]:
        """The outcome as ``plansight solve --format json`` and the editor command report it."""
        return {"status": self.status, "planner": self.planner, "message": self.message,
                "plan": self.plan_text, "output": self.output, "seconds": round(self.seconds, 3),
                "exit_code": self.exit_code}


def template_words(template: str, domain: str, problem: str, plan: str) -> list[str]:
    """The command line of a template (see the module docstring for its quoting rules)."""
    lexer = shlex.shlex(template, posix=True)
    lexer.whitespace_split = True
    lexer.escape = ""
    lexer.commenters = ""
    words = list(lexer)
    if not words:
        raise ValueError("the planner command is empty")
    values = {"{domain}": domain, "{problem}": problem, "{plan}": plan}
    out = []
    for word in words:
        for placeholder, value in values.items():
            word = word.replace(placeholder, value)
        out.append(word)
    return out


def template_problem(template: str) -> str | None:
    """Why a template cannot work, or None; it must name the problem, and can only be split when its quotes
    are balanced."""
    try:
        template_words(template, "d", "p", "plan")
    except ValueError as error:
        return f"the planner command cannot be read: {error}"
    if "{problem}" not in template:
        return "the planner command has no {problem} placeholder"
    return None


def plan_lines(output: str) -> str | None:
    """The plan a planner printed instead of writing a file: its step lines, or None when there are none."""
    steps = [line.strip() for line in output.splitlines() if _PLAN_LINE.match(line)]
    return "".join(step + "\n" for step in steps) if steps else None


def _last_lines(output: str, count: int = 3) -> str:
    return " | ".join([line for line in output.splitlines() if line.strip()][-count:])


def _read_plan(work: Path, plan: str) -> str | None:
    # Fast Downward's anytime configurations write plan.1, plan.2, ... (the last is the best)
    numbered = sorted(work.glob(plan + ".*"), key=lambda path: _suffix_number(path.name), reverse=True)
    candidates = [work / plan, *numbered]
    for candidate in candidates:
        if candidate.is_file():
            text = candidate.read_text(errors="replace")
            if text.strip():
                return text
    return None


def _suffix_number(file_name: str) -> int:
    tail = file_name.rsplit(".", 1)[-1]
    return int(tail) if tail.isdigit() else -1


def _stopped(run: ProcessRun, planner: str, budget: PlannerBudget) -> SolveOutcome | None:
    if run.cancelled:
        return SolveOutcome("cancelled", planner, "cancelled", None, run.output, run.seconds, None)
    if run.over_budget:
        return SolveOutcome("budget-exceeded", planner, f"no plan within {budget.time_limit_s:g} s",
                            None, run.output, run.seconds, None)
    return None


def _fast_downward(work: Path, choice: PlannerChoice, budget: PlannerBudget, cancel: threading.Event | None,
                   on_output: Callable[[str], None] | None) -> SolveOutcome:
    planner = f"fast-downward {choice.name}"
    search = fast_downward.CONFIGURATIONS.get(choice.name)
    if search is None:
        known = ", ".join(fast_downward.CONFIGURATIONS)
        return SolveOutcome("planner-error", planner, f"unknown planner {choice.name!r} (known: {known})",
                            None, "", 0.0, None)
    script = fast_downward.driver()
    if script is None:
        message = f"Fast Downward is not installed ({fast_downward.INSTALL_HINT})"
        return SolveOutcome("planner-error", planner, message, None, "", 0.0, None)
    command = fast_downward.command(script, search, budget.time_limit_s, budget.memory_limit_mb)
    run = run_budgeted(command, str(work), budget.time_limit_s + GRACE_SECONDS, cancel, on_output)
    stopped = _stopped(run, planner, budget)
    if stopped is not None:
        return stopped
    code = run.exit_code if run.exit_code is not None else -1
    meaning = fast_downward.meaning(code)
    plan = _read_plan(work, "plan")

    def outcome(status: SolveStatus, message: str, text: str | None = None) -> SolveOutcome:
        return SolveOutcome(status, planner, message, text, run.output, run.seconds, code)

    if meaning == "plan" and plan is not None:
        return outcome("solved", "plan found", plan)
    if meaning == "unsolvable":
        return outcome("unsolvable", "the planner proved that no plan reaches the goal")
    if meaning == "timeout":
        return outcome("budget-exceeded", f"no plan within {budget.time_limit_s:g} s")
    if meaning == "out-of-memory":
        return outcome("budget-exceeded", f"the planner needed more than {budget.memory_limit_mb} MB")
    if meaning == "no-plan":
        return outcome("planner-error", "the search ended without a plan, but this configuration's search is "
                       "incomplete, so the problem is not proved unsolvable (try seq-opt-lmcut)")
    if meaning == "unsupported":
        why = _last_lines(run.output)
        return outcome("planner-error", "Fast Downward does not support this task: " + why)
    return outcome("planner-error", f"Fast Downward failed (exit {code}): " + _last_lines(run.output))


def _user_command(work: Path, choice: PlannerChoice, budget: PlannerBudget, cancel: threading.Event | None,
                  on_output: Callable[[str], None] | None) -> SolveOutcome:
    assert choice.command is not None
    planner = choice.name
    problem = template_problem(choice.command)
    if problem is not None:
        return SolveOutcome("planner-error", planner, problem, None, "", 0.0, None)
    command = template_words(choice.command, str(work / "domain.pddl"), str(work / "problem.pddl"),
                             str(work / "plan"))
    try:
        run = run_budgeted(command, str(work), budget.time_limit_s, cancel, on_output, budget.memory_limit_mb)
    except OSError as error:
        message = f"cannot start {command[0]!r}: {error}"
        return SolveOutcome("planner-error", planner, message, None, "", 0.0, None)
    stopped = _stopped(run, planner, budget)
    if stopped is not None:
        return stopped
    plan = _read_plan(work, "plan") or plan_lines(run.output)
    if plan is not None:
        return SolveOutcome("solved", planner, "plan found", plan, run.output, run.seconds, run.exit_code)
    return SolveOutcome("planner-error", planner,
                        f"the planner wrote no plan (exit {run.exit_code}): " + _last_lines(run.output),
                        None, run.output, run.seconds, run.exit_code)


def run_planner(
    domain_text: str,
    problem_text: str,
    choice: PlannerChoice = PlannerChoice(),
    budget: PlannerBudget = PlannerBudget(),
    cancel: threading.Event | None = None,
    on_output: Callable[[str], None] | None = None,
) -> SolveOutcome:
    """Run the chosen planner on the texts; ``on_output`` gets each line the planner prints, as it prints it.

    Blocks until the planner is done: callers on an event loop run it in a worker thread."""
    with tempfile.TemporaryDirectory(prefix="plansight-plan-") as folder:
        work = Path(folder)
        (work / "domain.pddl").write_text(domain_text)
        (work / "problem.pddl").write_text(problem_text)
        if choice.command is None:
            return _fast_downward(work, choice, budget, cancel, on_output)
        return _user_command(work, choice, budget, cancel, on_output)

"""``plansight plan PLAN...``: simulate plans step by step and say where and why each one breaks.

JSON per docs/cli.md (one object per plan, a list when there are several). Exit codes: 0 every plan
is valid (or could not be simulated for a stated reason: an unknown verdict is not a failure), 1 some
plan is invalid, 2 a usage error or a plan whose problem or domain cannot be found or read.

The report itself (JSON, with the ``reference`` and ``recovery`` sections) is built by
:mod:`plansight.analyses.plans.plan_json`, which the editor shares; this module finds and simulates the
plans and writes the text form.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from plansight.budget_options import add_budget_options, budget_of
from plansight.executors import add_executor_options
from plansight.extract_option import (
    add_extract_option,
    extracted_json,
    extraction_of,
    file_source,
    write_extracted_text,
)
from plansight.json_text import dumps_indented
from plansight.plan_reference import add_reference_options, write_recovery_text, write_reference_text

if TYPE_CHECKING:
    from plansight.analyses.plans.constraints import TrajectoryReport
    from plansight.analyses.plans.plan_json import PlanJob, PlanOptions
    from plansight.analyses.plans.simulate import Simulation
    from plansight.analyses.semantics.budget import WorkBudget
    from plansight.analyses.syntax.documents import ParsedDocument
    from plansight.analyses.workspace.lint import Analyzer

def add_plan_parser(sub: Any) -> None:
    """Register ``plansight plan`` on the top-level parser."""
    plan = sub.add_parser(
        "plan", help="simulate plans: where and why they break, which goals hold",
        description="Simulate plans step by step from their problem's initial state. Folders are searched "
                    "recursively for plans (.plan, .soln, .sol, and .txt next to a problem). Exit code 0: "
                    "every plan is valid, 1: some plan is invalid, 2: usage error or missing input.")
    plan.add_argument("paths", nargs="+", metavar="PLAN", help="plan files or folders")
    plan.add_argument("--domain", metavar="FILE", help="use this domain for every plan")
    plan.add_argument("--problem", metavar="FILE", help="use this problem for every plan")
    plan.add_argument("--reference-plan", metavar="FILE",
                      help="a ground-truth plan to compare with (AQM, StV, LCS); "
                           "default: the plan's `; @reference-plan` line")
    plan.add_argument("--recover", action="store_true",
                      help="complete a broken plan with a planner from its longest executable prefix")
    plan.add_argument("--format", choices=("text", "json"), default="text",
                      help="report format (default: text)")
    plan.add_argument("--report", metavar="HTML",
                      help="also write the plan view (timeline, Gantt chart, states) of the one plan given "
                           "to this self-contained HTML file")
    plan.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    plan.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                      help="worker processes for many plans (default 1)")
    add_executor_options(plan)
    add_extract_option(plan)
    add_budget_options(plan, "simulating one plan")
    plan.add_argument("--epsilon", type=_tolerance, default=0.01, metavar="T",
                      help="a temporal plan's tolerance, as VAL's `Validate -t` (default 0.01): duration "
                           "constraints hold within it, snap actions within T/10 happen together")
    add_reference_options(plan)


def run_plan(args: argparse.Namespace) -> int:
    """Simulate every plan under the given paths and print the results; the exit code says whether every plan
    is valid.
    """
    from plansight.file_args import file_flag_problems

    problems = [f"no such file or folder: {path}" for path in args.paths if not os.path.exists(path)]
    problems += file_flag_problems(args, ("domain", "problem", "reference_plan"))
    files = plan_files(args.paths) if not problems else []
    if not problems and not files:
        problems.append("no plans (.plan, .soln, .sol) found in " + ", ".join(args.paths))
    if not problems and args.report is not None and len(files) != 1:
        problems.append(f"--report draws one plan, and {len(files)} were given")
    if problems:
        for problem in problems:
            print(f"plansight plan: error: {problem}", file=sys.stderr)
        return 2

    from plansight.analyses.workspace.lint import Analyzer

    source = file_source(args, memoize=True)
    analyzer = Analyzer(source)
    if args.scheduler and args.executor != "dask":
        print("plansight plan: error: --scheduler needs --executor dask", file=sys.stderr)
        return 2
    from plansight.executors import ExecutorError

    try:
        jobs, reports = _run_all(analyzer, files, args)
    except ExecutorError as error:
        print(f"plansight plan: error: {error}", file=sys.stderr)
        return 2
    if args.extract:
        for report in reports:
            report["extracted"] = extracted_json(source, report["path"])
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8", errors="replace")
    if args.format == "json":
        # one write: json.dump writes each of the indented encoder's pieces, tens of thousands for a batch
        document = reports[0] if len(reports) == 1 else reports
        sys.stdout.write(dumps_indented(document) + "\n")
    else:
        for number, (job, report) in enumerate(zip(jobs, reports, strict=True)):
            if number:
                sys.stdout.write("\n")
            write_text(job, report, sys.stdout)
            if args.extract:
                write_extracted_text(extraction_of(source, job.path), sys.stdout)
    sys.stdout.flush()
    if args.report is not None and not write_plan_view(jobs[0], args.report):
        return 2
    if any(job.error is not None for job in jobs):
        return 2
    return 1 if any(report["valid"] is False for report in reports) else 0


def write_plan_view(job: PlanJob, path: str) -> bool:
    """Write the plan view page of ``job`` to ``path``; False (and a message) when it cannot be written."""
    from plansight.analyses.plans.plan_html import plan_html
    from plansight.analyses.plans.plan_view import plan_view

    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(plan_html(plan_view(job)))
    except OSError as error:
        print(f"plansight plan: error: --report {path}: {error}", file=sys.stderr)
        return False
    return True


def plan_options(args: argparse.Namespace) -> PlanOptions:
    """The report options the flags of ``plansight plan`` ask for."""
    from plansight.analyses.plans.plan_json import PlanOptions

    return PlanOptions(similarity=args.similarity, recover=args.recover, time_limit_s=args.time_limit,
                       memory_limit_mb=args.memory_limit, epsilon=args.epsilon)


def _tolerance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return value


def plan_files(paths: Sequence[str]) -> list[str]:
    """Plans among the given files and inside the given folders (recursively)."""
    from plansight.analyses.syntax.documents import PLAN_SUFFIXES
    from plansight.analyses.workspace.lint import find_files

    found = []
    for path in paths:
        if os.path.isdir(path):
            found += [f for f in find_files([path]) if os.path.splitext(f)[1].lower() in PLAN_SUFFIXES]
        else:
            found.append(path)
    return list(dict.fromkeys(found))


def _run_all(
    analyzer: Analyzer, files: Sequence[str], args: argparse.Namespace
) -> tuple[list[PlanJob], list[dict[str, Any]]]:
    """Every plan linked here and simulated with its report on the chosen executor (docs/datasets.md), in
    the files' order."""
    from plansight.analyses.plans.plan_work import plan_chunk
    from plansight.executors import chunk_size, in_input_order, run_chunks
    from plansight.progress import should_show, with_progress

    work = [(index, link_file(analyzer, path, args.domain, args.problem, args.reference_plan))
            for index, path in enumerate(files)]
    workers = max(1, args.jobs)
    size = chunk_size(args.chunk_size, len(work), workers)
    chunks = [work[i : i + size] for i in range(0, len(work), size)]
    settings = {"budget": budget_of(args), "options": plan_options(args)}
    finished = in_input_order(
        run_chunks(plan_chunk, "plan", settings, chunks, args.executor, workers, args.scheduler),
        [index for index, _ in work],
    )
    show = should_show(len(files), args.format == "text", args.no_progress)
    jobs: list[PlanJob] = []
    reports: list[dict[str, Any]] = []
    for _, (job, report) in with_progress(finished, "Simulating", show, total=len(work),
                                          describe=lambda item: os.path.basename(item[1][0].path)):
        jobs.append(job)
        reports.append(report)
    return jobs, reports


def simulate_file(analyzer: Analyzer, path: str, domain: str | None = None, problem: str | None = None,
                  reference_plan: str | None = None, budget: WorkBudget | None = None) -> PlanJob:
    """Read, link (docs/files-and-links.md: flags, directives, conventions) and simulate one plan."""
    from plansight.analyses.plans.plan_work import simulate_job

    return simulate_job(link_file(analyzer, path, domain, problem, reference_plan), budget)


def link_file(analyzer: Analyzer, path: str, domain: str | None = None, problem: str | None = None,
              reference_plan: str | None = None) -> PlanJob:
    """Read one plan and link it to its domain, problem and reference plan, whose texts come along so the
    job can be simulated where the files are not."""
    from plansight.analyses.plans.plan_json import PlanJob
    from plansight.analyses.plans.simulate import unparsed_lines
    from plansight.analyses.syntax.reading import read_text_file
    from plansight.analyses.workspace.sources import ExplainsFailures

    job = PlanJob(path)
    document = analyzer.parse(path)
    if document is None:
        reason = analyzer.source.failure(path) if isinstance(analyzer.source, ExplainsFailures) else (
            "missing or unreadable")
        job.error = f"`{path}` could not be read: {reason}"
        return job
    if document.plan is None:
        document = read_as_plan(document)
    job.document = document
    assert document.plan is not None
    association = analyzer.associate(document, domain, problem)
    job.domain_path, job.problem_path = association.domain_path, association.problem_path
    job.domain = association.domain.domain if association.domain is not None else None
    job.problem = association.problem.problem if association.problem is not None else None
    job.reference_plan_path = reference_plan or _directive_path(document, "reference-plan")
    if job.reference_plan_path is not None:
        job.reference_read = read_text_file(job.reference_plan_path)
    if job.domain is None or job.problem is None:
        reasons = [d.message for d in association.diagnostics]
        missing = "problem" if job.problem is None else "domain"
        job.error = reasons[0] if reasons else f"no {missing} found for `{path}`"
        return job
    job.steps = unparsed_lines(document.text, document.plan, document.diagnostics)
    return job


def read_as_plan(document: ParsedDocument) -> ParsedDocument:
    """A file given as a plan is read as one whatever it holds: a model that answered with a problem or
    a domain wrote an invalid plan (its lines fail as `parse` steps), not a usage error that would stop a
    batch."""
    from plansight.analyses.syntax.documents import ParsedDocument
    from plansight.analyses.syntax.parse_plan import parse_plan

    parsed = parse_plan(document.text)
    return ParsedDocument(document.path, document.text, "plan", parsed.plan, parsed.diagnostics,
                          document.directives)


def _directive_path(document: ParsedDocument, key: str) -> str | None:
    directive = document.directive(key)
    if directive is None:
        return None
    return os.path.normpath(os.path.join(os.path.dirname(document.path), directive.value))


def write_text(job: PlanJob, report: dict[str, Any], out: TextIO) -> None:
    """A readable report: the verdict, each step with what it changed, the failure, the goals."""

    out.write(f"{job.path}\n")
    if job.error is not None:
        out.write(f"  not simulated: {job.error}\n")
        return
    sim = job.simulation
    assert sim is not None
    partners = ", ".join(f"{k} {os.path.relpath(v)}" for k, v in (("problem", job.problem_path),
                                                                  ("domain", job.domain_path)) if v)
    out.write(f"  against {partners}\n")
    if sim.skipped_reason is not None:
        out.write(f"  not simulated: {sim.skipped_reason}\n")
        write_recovery_text(report, out)
        return
    if sim.stopped_reason is not None:
        out.write(f"  UNKNOWN · {sim.stopped_reason} (after {len(sim.trace)} of {sim.length} steps; "
                  "--budget-seconds / --budget-units raise the budget)\n")
        return
    goals = sim.goals
    total = len(goals.satisfied) + len(goals.unsatisfied)
    verdict = "VALID" if sim.valid else (
        "INVALID" if not sim.executable else "INVALID (executable, goal not reached)" if goals.unsatisfied
        else "INVALID (executable, a constraint is violated)")
    if sim.temporal:
        out.write(f"  {verdict} · LEA {sim.lea}/{sim.length} happenings · {len(goals.satisfied)} of {total} "
                  f"goals hold · ε {report.get('epsilon', 0.01):g}\n")
        _write_happenings(sim, out)
    else:
        out.write(f"  {verdict} · LEA {sim.lea}/{sim.length} · {len(goals.satisfied)} of {total} "
                  "goals hold\n")
        _write_steps(sim, out)
    if goals.satisfied:
        out.write(f"  goals holding: {' '.join(goals.satisfied)}\n")
    if goals.unsatisfied:
        where = "where the plan stops" if sim.failure is not None else "at the end"
        out.write(f"  goals not holding {where}: {' '.join(goals.unsatisfied)}\n")
        for why in goals.why:
            out.write(f"    {why}\n")
    if sim.trajectory is not None:
        write_trajectory_text(sim.trajectory, out)
    if sim.metric is not None:
        out.write(f"  metric: {sim.metric.text}\n")
    write_reference_text(report, out)


def _write_steps(sim: Simulation, out: TextIO) -> None:
    """A classical plan: each executed step with what it changed, the failure, the steps not reached."""
    from plansight.analyses.plans.report import derived_note, effects_line
    from plansight.analyses.plans.simulate import CATEGORY_WORDS, step_text

    width = len(str(sim.length))
    column = min(40, max((len(step_text(s)) for s in sim.steps), default=0))
    redundant = set(sim.redundant)

    def line(index: int, text: str, note: str) -> None:
        out.write(f"  {index + 1:>{width}}  {text:<{column}}  {note}\n")

    for trace_step in sim.trace:
        # the editor's words (plan_report), but a terminal shows every effect instead of "… +N more"
        changes = effects_line(trace_step.added, trace_step.deleted, width=sys.maxsize,
                               changed=trace_step.changed)
        derived = derived_note(trace_step.derived_added, trace_step.derived_deleted)
        changes += f"  · {derived}" if derived else ""
        line(trace_step.index, trace_step.action,
             changes + ("  (changes nothing: redundant)" if trace_step.index in redundant else ""))
    if sim.failure is not None:
        failure = sim.failure
        line(failure.index, failure.action, f"✗ {CATEGORY_WORDS[failure.category]}")
        out.write(f"  {'':>{width}}  {failure.message}\n")
        for index in sim.unreached:
            line(index, step_text(sim.steps[index]), "(not reached)")


def write_trajectory_text(trajectory: TrajectoryReport, out: TextIO) -> None:
    """PDDL3's part of the verdict: each broken constraint on its line, how many hold, and each
    preference's violation count."""
    hard = [c for c in trajectory.constraints if c.preference is None]
    for constraint in trajectory.broken:
        out.write(f"  ✗ {constraint.message}\n")
    if hard:
        kept = sum(1 for c in hard if c.holds)
        open_ = sum(1 for c in hard if c.holds is None)
        undecided = f" ({open_} undecided: the plan stops before its end)" if open_ else ""
        out.write(f"  constraints holding: {kept} of {len(hard)}{undecided}\n")
    if trajectory.preferences:
        counts = ", ".join(f"{p.name} {p.violations}" for p in trajectory.preferences)
        out.write(f"  preferences violated (is-violated): {counts}\n")


def _write_happenings(sim: Simulation, out: TextIO) -> None:
    """A temporal plan: each happening (time, snap actions) with what it changed, the failing one with
    the reason, the happenings not reached."""
    from plansight.analyses.plans.report import effects_line
    from plansight.analyses.plans.simulate import CATEGORY_WORDS

    width = len(str(sim.length))
    times = [f"{h.time:g}" for h in sim.happenings]
    clock = max((len(t) for t in times), default=1)
    column = min(48, max((len(h.label) for h in sim.happenings), default=0))

    def line(index: int, note: str) -> None:
        label = sim.happenings[index].label
        out.write(f"  {index + 1:>{width}}  t={times[index]:<{clock}}  {label:<{column}}  {note}\n")

    for done in sim.trace:
        line(done.index, effects_line(done.added, done.deleted, width=sys.maxsize, changed=done.changed))
    failure = sim.failure
    if failure is None:
        return
    if failure.index < sim.length:
        line(failure.index, f"✗ {CATEGORY_WORDS[failure.category]}")
    out.write(f"  {'':>{width}}  {failure.message}\n")
    for index in range(failure.index + 1, sim.length):
        line(index, "(not reached)")

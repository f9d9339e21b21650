"""``plansight solve PROBLEM``: run a planner on a problem and check the plan it finds.

The planner is Fast Downward (``--planner lama-first``, the default, or ``seq-opt-lmcut``, optimal) or
the user's own (``--planner-command 'ff -o {domain} -f {problem}'``, named with ``--planner``). The
plan is printed, or written to ``-o`` with a ``; @problem`` line so the plan knows its problem; this
command never writes next to the problem on its own. The plan is then simulated from the problem's
initial state and the verdict printed with it (a ``;`` comment line, so the printed text is still a
plan file). Exit codes (docs/cli.md): 0 solved, 1 unsolvable, budget exceeded or planner error (or a
plan the simulator rejects), 2 usage error or unreadable input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from plansight.analyses.plans.planner import PlannerChoice, SolveOutcome
    from plansight.analyses.plans.simulate import Simulation

CONFIGURATIONS = ("lama-first", "seq-opt-lmcut")  # the names of analyses/plans/fast_downward.py


def add_solve_parser(sub: Any) -> None:
    """Register ``plansight solve`` on the top-level parser."""
    solve = sub.add_parser(
        "solve", help="run a planner on a problem and check the plan",
        description="Run a planner (Fast Downward, or your own command) on a problem and its domain, "
                    "print the plan or write it to -o, and check it with plansight's simulator. Exit code "
                    "0: solved, 1: unsolvable, budget exceeded or planner error, 2: usage error or missing "
                    "input.")
    solve.add_argument("problem", metavar="PROBLEM", help="the problem file")
    solve.add_argument("--domain", metavar="FILE",
                       help="the domain (default: the problem's `; @domain` line, or domain.pddl beside it)")
    solve.add_argument("--planner", metavar="NAME", default=None,
                       help="lama-first (default), seq-opt-lmcut (optimal), or the name of --planner-command")
    solve.add_argument("--planner-command", metavar="TEMPLATE",
                       help="your planner's command line with {domain}, {problem} and {plan} placeholders "
                            "(run without a shell; quote words with spaces)")
    solve.add_argument("--time-limit", type=float, default=30.0, metavar="SECONDS",
                       help="planner time limit (default 30)")
    solve.add_argument("--memory-limit", type=int, default=2048, metavar="MB",
                       help="planner memory limit (default 2048)")
    solve.add_argument("-o", "--output", metavar="PLAN", help="write the plan to this file")
    solve.add_argument("--format", choices=("text", "json"), default="text",
                       help="report format (default: text)")
    solve.add_argument("--verbose", action="store_true",
                       help="show the planner's output as it runs (on stderr)")


def _choice(args: argparse.Namespace) -> PlannerChoice | str:
    """The planner the flags ask for, or why they ask for none."""
    from plansight.analyses.plans.planner import PlannerChoice, template_problem, template_words

    if args.planner_command is not None:
        problem = template_problem(args.planner_command)
        if problem is not None:
            return f"--planner-command: {problem}"
        program = template_words(args.planner_command, "", "", "")[0]
        name = args.planner or os.path.basename(program.replace("\\", "/"))
        return PlannerChoice(name, args.planner_command)
    name = args.planner or "lama-first"
    if name not in CONFIGURATIONS:
        return (f"--planner {name}: not a Fast Downward configuration ({', '.join(CONFIGURATIONS)}); "
                "give your planner's command line with --planner-command")
    return PlannerChoice(name)


def _usage(args: argparse.Namespace) -> list[str]:
    problems = []
    if not os.path.isfile(args.problem):
        problems.append(f"no such file: {args.problem}")
    if args.domain is not None and not os.path.isfile(args.domain):
        problems.append(f"--domain {args.domain}: no such file")
    if args.time_limit <= 0:
        problems.append("--time-limit must be positive")
    if args.output is not None and not os.path.isdir(os.path.dirname(os.path.abspath(args.output))):
        problems.append(f"-o {args.output}: no such folder")
    if args.memory_limit < 64:
        problems.append("--memory-limit must be at least 64 MB")
    return problems


def run_solve(args: argparse.Namespace) -> int:
    """Run the planner and report; the exit code says whether a valid plan was found."""
    choice = _choice(args)
    problems = _usage(args) + ([choice] if isinstance(choice, str) else [])
    if problems or isinstance(choice, str):
        for problem in problems:
            print(f"plansight solve: error: {problem}", file=sys.stderr)
        return 2
    from plansight.analyses.model.pddl import Domain, Problem
    from plansight.analyses.workspace.lint import Analyzer, DiskSource

    analyzer = Analyzer(DiskSource())
    document = analyzer.parse(args.problem)
    if document is None or document.kind != "problem" or not isinstance(document.model, Problem):
        print(f"plansight solve: error: `{args.problem}` is not a PDDL problem", file=sys.stderr)
        return 2
    association = analyzer.associate(document, args.domain)
    domain = association.domain.domain if association.domain is not None else None
    if association.domain_path is None or association.domain is None or not isinstance(domain, Domain):
        reasons = [d.message for d in association.diagnostics]
        print(f"plansight solve: error: {reasons[0] if reasons else 'no domain found'} "
              "(give one with --domain)", file=sys.stderr)
        return 2
    return _solve(args, choice, document.text, association.domain.text, association.domain_path, domain,
                  document.model)


def _solve(args: argparse.Namespace, choice: PlannerChoice, problem_text: str, domain_text: str,
           domain_path: str, domain: Any, problem: Any) -> int:
    from plansight.analyses.plans.planner import PlannerBudget, run_planner
    from plansight.analyses.plans.solved_plan import check_plan, plan_file_text

    def echo(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    budget = PlannerBudget(args.time_limit, args.memory_limit)
    outcome = run_planner(domain_text, problem_text, choice, budget, on_output=echo if args.verbose else None)
    simulation = check_plan(domain, problem, outcome.plan_text) if outcome.plan_text is not None else None
    written = None
    if outcome.plan_text is not None and args.output is not None:
        explicit_domain = domain_path if args.domain is not None else None
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(plan_file_text(outcome.plan_text, args.output, args.problem, explicit_domain))
        written = args.output
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8", errors="replace")
    if args.format == "json":
        _write_json(args, outcome, simulation, domain_path, written)
    else:
        _write_text(outcome, simulation, written)
    if not outcome.solved:
        return 1
    return 1 if simulation is None or simulation.valid is False else 0


def _write_json(args: argparse.Namespace, outcome: SolveOutcome, simulation: Simulation | None,
                domain_path: str, written: str | None) -> None:
    report = {"problem": args.problem, "domain": domain_path, **outcome.to_json(),
              "valid": simulation.valid if simulation is not None else None,
              "written": written}
    if outcome.plan_text is not None:
        from plansight.analyses.plans.solved_plan import verdict

        report["verdict"] = verdict(simulation)
    json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def _write_text(outcome: SolveOutcome, simulation: Simulation | None, written: str | None) -> None:
    from plansight.analyses.plans.solved_plan import verdict

    took = f"{outcome.planner}, {outcome.seconds:.1f} s"
    if outcome.plan_text is None:
        print(f"{outcome.status}: {outcome.message} ({took})")
        if outcome.status == "planner-error" and outcome.output:
            print(outcome.output, file=sys.stderr)
        return
    check = verdict(simulation)
    if written is not None:
        print(f"solved ({took}); wrote {written}; plansight's simulator: {check}")
        return
    sys.stdout.write(outcome.plan_text if outcome.plan_text.endswith("\n") else outcome.plan_text + "\n")
    print(f"; solved ({took}); plansight's simulator: {check}")

"""The planner runner behind `plansight solve` and *Plan this problem*: Fast Downward's configurations
and a user's command template, each outcome distinct (solved, unsolvable, budget exceeded, planner
error, cancelled), and Fast Downward found without importing its package's unified-planning."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_recovery import hard_problem

from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.plans.comparison import simulate_actions
from plansight.analyses.plans.metrics import actions_of
from plansight.analyses.plans.planner import (
    PlannerBudget,
    PlannerChoice,
    plan_lines,
    run_planner,
    template_problem,
    template_words,
)
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DOMAIN = (EXAMPLES / "blocksworld" / "domain.pddl").read_text()
SUSSMAN = (EXAMPLES / "blocksworld" / "p01.pddl").read_text()
CYCLE = ("(define (problem cycle) (:domain blocksworld) (:objects a b c)\n"
         "  (:init (handempty) (clear a) (on-table a) (clear b) (on-table b) (clear c) (on-table c))\n"
         "  (:goal (and (on a b) (on b a))))\n")
FAKE_PLANNER = """import sys
domain, problem, plan = sys.argv[1:4]
assert open(domain).read().startswith("; Blocksworld") or "(define" in open(domain).read()
steps = ["(unstack c a)", "(put-down c)", "(pick-up b)", "(stack b c)", "(pick-up a)", "(stack a b)"]
open(plan, "w").write("".join(step + "\\n" for step in steps))
print("fake planner: done")
"""


def valid(plan_text: str, problem_text: str = SUSSMAN) -> bool:
    domain = parse_pddl(DOMAIN).model
    problem = parse_pddl(problem_text).model
    assert isinstance(domain, Domain) and isinstance(problem, Problem)
    plan = parse_plan(plan_text).plan
    assert plan is not None
    return bool(simulate_actions(domain, problem, actions_of(plan)).valid)


@pytest.mark.parametrize("configuration", ["lama-first", "seq-opt-lmcut"])
def test_fast_downward_solves_and_the_plan_is_valid(configuration: str) -> None:
    lines: list[str] = []
    outcome = run_planner(DOMAIN, SUSSMAN, PlannerChoice(configuration), on_output=lines.append)
    assert outcome.status == "solved", outcome.message
    assert outcome.plan_text is not None and valid(outcome.plan_text)
    assert outcome.planner == f"fast-downward {configuration}"
    assert any("Solution found" in line for line in lines), "the output is streamed as it comes"


def test_optimal_configuration_finds_the_shortest_plan() -> None:
    outcome = run_planner(DOMAIN, SUSSMAN, PlannerChoice("seq-opt-lmcut"))
    assert outcome.plan_text is not None
    assert len([line for line in outcome.plan_text.splitlines() if line.startswith("(")]) == 6


def test_a_proved_unsolvable_problem_is_unsolvable_not_an_error() -> None:
    outcome = run_planner(DOMAIN, CYCLE)
    assert outcome.status == "unsolvable"
    assert outcome.exit_code in (10, 11)
    assert outcome.plan_text is None


def test_a_hard_problem_exceeds_a_tiny_time_budget() -> None:
    started = time.monotonic()
    outcome = run_planner(DOMAIN, hard_problem(40), PlannerChoice("seq-opt-lmcut"), PlannerBudget(1, 1024))
    assert outcome.status == "budget-exceeded", outcome.message
    assert "1 s" in outcome.message
    assert time.monotonic() - started < 10


def test_cancel_stops_the_planner_and_its_helpers_quickly() -> None:
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    started = time.monotonic()
    outcome = run_planner(DOMAIN, hard_problem(40), PlannerChoice("seq-opt-lmcut"), PlannerBudget(60, 1024),
                          cancel)
    assert outcome.status == "cancelled"
    assert time.monotonic() - started < 4


def test_unknown_configuration_is_a_planner_error_naming_the_known_ones() -> None:
    outcome = run_planner(DOMAIN, SUSSMAN, PlannerChoice("lama-fist"))
    assert outcome.status == "planner-error"
    assert "lama-first" in outcome.message and "seq-opt-lmcut" in outcome.message


def test_a_command_template_runs_without_a_shell_and_its_plan_file_is_read_back(tmp_path: Path) -> None:
    script = tmp_path / "my planner.py"  # a space in the path: quoted in the template
    script.write_text(FAKE_PLANNER)
    template = f'"{sys.executable}" "{script}" {{domain}} {{problem}} {{plan}}'
    lines: list[str] = []
    outcome = run_planner(DOMAIN, SUSSMAN, PlannerChoice("fake", template), on_output=lines.append)
    assert outcome.status == "solved", outcome.message
    assert outcome.planner == "fake"
    assert outcome.plan_text is not None and valid(outcome.plan_text)
    assert lines == ["fake planner: done"]


def test_a_planner_that_prints_its_plan_is_read_from_its_output(tmp_path: Path) -> None:
    script = tmp_path / "printer.py"
    script.write_text("print('searching...')\nprint('0.000: (unstack c a) [1.000]')\n"
                      "for s in ['(put-down c)', '(pick-up b)', '(stack b c)',\n"
                      "          '(pick-up a)', '(stack a b)']:\n"
                      "    print(s)\n")
    outcome = run_planner(DOMAIN, SUSSMAN, PlannerChoice("printer", f"{sys.executable} {script} {{problem}}"))
    assert outcome.status == "solved", outcome.message
    assert outcome.plan_text is not None and outcome.plan_text.startswith("0.000: (unstack c a) [1.000]\n")


def test_a_command_that_fails_is_a_planner_error_with_its_output(tmp_path: Path) -> None:
    script = tmp_path / "fails.py"
    script.write_text("import sys\nprint('cannot parse :durative-actions')\nsys.exit(3)\n")
    outcome = run_planner(DOMAIN, SUSSMAN, PlannerChoice("bad", f"{sys.executable} {script} {{problem}}"))
    assert outcome.status == "planner-error"
    assert "exit 3" in outcome.message and "cannot parse :durative-actions" in outcome.message
    missing = run_planner(DOMAIN, SUSSMAN, PlannerChoice("gone", "no-such-planner-xyz {problem}"))
    assert missing.status == "planner-error" and "no-such-planner-xyz" in missing.message


def test_a_user_command_obeys_the_time_budget(tmp_path: Path) -> None:
    script = tmp_path / "slow.py"
    script.write_text("import time\ntime.sleep(30)\n")
    started = time.monotonic()
    outcome = run_planner(DOMAIN, SUSSMAN, PlannerChoice("slow", f"{sys.executable} {script} {{problem}}"),
                          PlannerBudget(0.5, 1024))
    assert outcome.status == "budget-exceeded"
    assert time.monotonic() - started < 5


def test_template_quoting() -> None:
    words = template_words(r"'C:\planners\ff.exe' -o {domain} -f {problem} --out={plan}",
                           "/tmp/a b/domain.pddl", "/tmp/a b/problem.pddl", "/tmp/a b/plan")
    assert words == [r"C:\planners\ff.exe", "-o", "/tmp/a b/domain.pddl", "-f", "/tmp/a b/problem.pddl",
                     "--out=/tmp/a b/plan"]
    assert template_words("planner a|b $HOME #x", "d", "p", "q") == ["planner", "a|b", "$HOME", "#x"]
    assert template_problem("ff -o {domain}") == "the planner command has no {problem} placeholder"
    assert template_problem("ff 'unclosed {problem}") is not None


def test_plan_lines_keep_only_steps() -> None:
    output = "found!\n(a b)\n; cost 1\n0.5: (c) [2]\nsteps: (x y z) and more\n"
    assert plan_lines(output) == "(a b)\n0.5: (c) [2]\n"
    assert plan_lines("no plan\n") is None


def test_fast_downward_is_located_without_importing_unified_planning() -> None:
    code = ("import sys\nfrom plansight.analyses.plans import fast_downward\n"
            "assert fast_downward.driver() is not None\n"
            "assert 'up_fast_downward' not in sys.modules and 'unified_planning' not in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)

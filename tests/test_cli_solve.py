"""`plansight solve`: the plan is printed (or written with its `; @problem` line), checked by the
simulator, and the exit code says solved (0), not solved (1) or a usage error (2)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_planner import CYCLE, FAKE_PLANNER
from test_recovery import hard_problem

from plansight.main import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A copy of the blocksworld example: the domain beside the problems, found by convention."""
    shutil.copytree(EXAMPLES / "blocksworld", tmp_path / "bw")
    return tmp_path / "bw"


def test_prints_the_plan_and_the_simulators_verdict(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = sorted(path.name for path in folder.iterdir())
    assert main(["solve", str(folder / "p01.pddl")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("(unstack c a)\n")
    assert out.rstrip().splitlines()[-1].startswith("; solved (fast-downward lama-first")
    assert "plansight's simulator: valid: 6 steps, 2 of 2 goals hold" in out
    assert sorted(path.name for path in folder.iterdir()) == before, "nothing is written beside the problem"


def test_writes_the_plan_with_a_problem_directive_that_plansight_plan_follows(
        folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "plans" / "p01.plan"
    target.parent.mkdir()
    assert main(["solve", str(folder / "p01.pddl"), "--planner", "seq-opt-lmcut", "-o", str(target)]) == 0
    assert "wrote" in capsys.readouterr().out
    text = target.read_text()
    assert text.startswith("; @problem ../bw/p01.pddl\n")
    assert "; @domain" not in text  # the problem finds its domain by itself
    assert main(["plan", str(target), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["valid"] is True


def test_an_explicit_domain_is_written_as_a_directive_too(folder: Path, tmp_path: Path) -> None:
    (folder / "domain.pddl").rename(tmp_path / "bw-domain.pddl")
    target = tmp_path / "out.plan"
    assert main(["solve", str(folder / "p01.pddl"), "--domain", str(tmp_path / "bw-domain.pddl"),
                 "-o", str(target)]) == 0
    assert target.read_text().splitlines()[:2] == ["; @problem bw/p01.pddl", "; @domain bw-domain.pddl"]
    assert main(["plan", str(target)]) == 0


def test_unsolvable_and_budget_exceeded_are_reported_as_such(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "cycle.pddl").write_text(CYCLE)
    assert main(["solve", str(folder / "cycle.pddl"), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == "unsolvable" and report["plan"] is None and report["valid"] is None
    (folder / "hard.pddl").write_text(hard_problem(40))
    assert main(["solve", str(folder / "hard.pddl"), "--planner", "seq-opt-lmcut", "--time-limit", "1"]) == 1
    assert capsys.readouterr().out.startswith("budget-exceeded: no plan within 1 s")


def test_a_planner_command_template(folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "fake planner.py"
    script.write_text(FAKE_PLANNER)
    template = f'"{sys.executable}" "{script}" {{domain}} {{problem}} {{plan}}'
    assert main(["solve", str(folder / "p01.pddl"), "--planner", "fake", "--planner-command", template,
                 "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["planner"] == "fake" and report["valid"] is True


def test_a_plan_the_simulator_rejects_is_not_a_success(
        folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "liar.py"
    script.write_text("import sys\nopen(sys.argv[1], 'w').write('(pick-up a)\\n')\n")
    assert main(["solve", str(folder / "p01.pddl"), "--planner-command",
                 f"{sys.executable} {script} {{plan}} {{problem}}"]) == 1
    assert "NOT valid: step 1 fails" in capsys.readouterr().out


@pytest.mark.parametrize("flags", [
    ["--planner", "ff"],
    ["--planner-command", "ff -o {domain}"],
    ["--time-limit", "0"],
    ["-o", "/no/such/folder/x.plan"],
    ["--domain", "/no/such/domain.pddl"],
])
def test_usage_errors_exit_2(folder: Path, flags: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", str(folder / "p01.pddl"), *flags]) == 2
    assert "plansight solve: error:" in capsys.readouterr().err


def test_a_plan_or_domain_is_not_a_problem(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", str(folder / "domain.pddl")]) == 2
    assert "is not a PDDL problem" in capsys.readouterr().err


def test_verbose_streams_the_planner_output_to_stderr(folder: Path) -> None:
    command = [sys.executable, "-m", "plansight", "solve", str(folder / "p01.pddl"), "--verbose"]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    assert result.returncode == 0
    assert "Solution found" in result.stderr and "Solution found" not in result.stdout

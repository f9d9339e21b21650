"""What `plansight lint` loads of the plan simulators: nothing for a domain and its problem, and for a
classical plan the sequential simulator without the temporal one (analyses/plans/simulate.py imports it
on the first temporal plan), so neither pays for the other's start-up."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BLOCKS = ROOT / "examples" / "blocksworld"


def _plan_modules(*files: Path) -> set[str]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "plansight", "lint", *map(str, files)],
                            capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert result.returncode in (0, 1), result.stderr[-2000:]
    names = {line.rsplit("|", 1)[1].strip() for line in result.stderr.splitlines()
             if line.startswith("import time:")}
    assert "plansight.analyses.workspace.lint" in names
    return {name for name in names if name.startswith("plansight.analyses.plans")}


def test_a_domain_and_problem_lint_loads_no_simulator() -> None:
    assert _plan_modules(BLOCKS / "domain.pddl", BLOCKS / "p01.pddl") == set()


def test_a_classical_plan_lint_loads_the_sequential_simulator_only() -> None:
    loaded = _plan_modules(BLOCKS / "domain.pddl", BLOCKS / "p01.pddl", BLOCKS / "p01.plan")
    assert "plansight.analyses.plans.simulate" in loaded
    assert "plansight.analyses.plans.temporal" not in loaded

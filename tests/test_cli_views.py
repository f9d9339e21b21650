"""End to end: ``plansight plan --report`` and ``plansight model`` write the view pages a user opens."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from view_html import read_page

PLANSIGHT = Path(sys.executable).parent / "plansight"
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "FORCE_COLOR"}
    return subprocess.run([str(PLANSIGHT), *args], cwd=cwd, capture_output=True, text=True, encoding="utf-8",
                          env=env, timeout=60, check=False)


def copy_example(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(EXAMPLES / name, target)
    return target


def test_plan_report_writes_the_plan_view_and_keeps_the_usual_output_and_exit_code(tmp_path: Path) -> None:
    folder = copy_example(tmp_path, "blocksworld")
    (folder / "wrong.plan").write_text("; @problem p01.pddl\n(unstack c a)\n(pick-up b)\n")
    result = run("plan", "wrong.plan", "--report", "view.html", cwd=folder)
    assert result.returncode == 1, result.stderr
    assert "INVALID" in result.stdout
    page = read_page((folder / "view.html").read_text(encoding="utf-8"))
    assert page.problems == []
    assert "Plan view: wrong.plan" in page.plain_text
    assert "Step 2 fails" in page.plain_text


def test_plan_report_of_a_temporal_plan_draws_the_gantt_chart(tmp_path: Path) -> None:
    folder = copy_example(tmp_path, "temporal")
    result = run("plan", "p01.plan", "--report", "view.html", cwd=folder)
    assert result.returncode == 0, result.stderr
    page = read_page((folder / "view.html").read_text(encoding="utf-8"))
    assert "Gantt chart" in page.plain_text
    bars = [a for a in page.all("rect") if a.get("class") == "bar"]
    assert len(bars) == 2


def test_plan_report_takes_exactly_one_plan(tmp_path: Path) -> None:
    folder = copy_example(tmp_path, "blocksworld")
    result = run("plan", ".", "--report", "view.html", cwd=folder)
    assert result.returncode == 2
    assert "--report draws one plan, and 2 were given" in result.stderr
    assert not (folder / "view.html").exists()


def test_model_prints_the_view_model_as_json(tmp_path: Path) -> None:
    folder = copy_example(tmp_path, "logistics")
    result = run("model", "domain.pddl", cwd=folder)
    assert result.returncode == 0, result.stderr
    view = json.loads(result.stdout)
    rows = {row["name"]: row for row in view["predicates"]}
    assert rows["in"]["added_by"] == ["load-truck", "load-airplane"]
    problem = json.loads(run("model", "p01.pddl", cwd=folder).stdout)
    assert problem["kind"] == "problem" and problem["graph"]["edges"]


def test_model_report_writes_the_page(tmp_path: Path) -> None:
    folder = copy_example(tmp_path, "logistics")
    for source in ("domain.pddl", "p01.pddl"):
        result = run("model", source, "--report", "model.html", cwd=folder)
        assert (result.returncode, result.stdout) == (0, ""), result.stderr
        page = read_page((folder / "model.html").read_text(encoding="utf-8"))
        assert page.problems == []
    assert "Binary facts as a graph" in page.plain_text


def test_model_refuses_what_is_not_a_domain_or_problem(tmp_path: Path) -> None:
    folder = copy_example(tmp_path, "logistics")
    assert run("model", "missing.pddl", cwd=folder).returncode == 2
    result = run("model", "p01.plan", cwd=folder)
    assert result.returncode == 2
    assert "not a PDDL domain or problem" in result.stderr

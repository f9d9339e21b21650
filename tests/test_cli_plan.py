"""End to end: ``plansight plan`` as a user runs it — JSON (docs/cli.md), text, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

PLANSIGHT = Path(sys.executable).parent / "plansight"

DOMAIN = (Path(__file__).resolve().parents[1] / "examples" / "blocksworld" / "domain.pddl").read_text()
PROBLEM = """(define (problem example) (:domain blocksworld) (:objects a b c)
  (:init (on b c) (on-table a) (on-table c) (clear a) (clear b) (handempty))
  (:goal (and (on a c) (on c b))))
"""
VALID = "(unstack b c)\n(put-down b)\n(pick-up c)\n(stack c b)\n(pick-up a)\n(stack a c)\n"
WRONG_ORDER = "(unstack b c)\n(put-down b)\n(pick-up a)\n(stack a c)\n(pick-up c)\n(stack c b)\n"
KEYS = {"path", "length", "executable", "valid", "lea", "failure", "goals", "trace", "reference", "recovery"}


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "FORCE_COLOR"}
    return subprocess.run([str(PLANSIGHT), "plan", *args], cwd=cwd, capture_output=True, text=True,
                          encoding="utf-8", env=env, timeout=60, check=False)


def run_json(*args: str, cwd: Path) -> tuple[int, Any]:
    completed = run(*args, "--format", "json", cwd=cwd)
    return completed.returncode, json.loads(completed.stdout)


def folder(tmp_path: Path, plans: dict[str, str]) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "domain.pddl").write_text(DOMAIN)
    for stem, text in plans.items():
        (tmp_path / f"{stem}.pddl").write_text(PROBLEM)
        (tmp_path / f"{stem}.plan").write_text(text)
    return tmp_path


def test_valid_plan_json_has_exactly_the_spec_shape(tmp_path: Path) -> None:
    folder(tmp_path, {"p01": VALID})
    code, report = run_json("p01.plan", cwd=tmp_path)
    assert code == 0
    assert set(report) >= KEYS
    assert (report["path"], report["length"], report["executable"], report["valid"], report["lea"]) == (
        "p01.plan", 6, True, True, 6)
    assert report["failure"] is None and report["reference"] is None and report["recovery"] is None
    assert report["goals"] == {"satisfied": ["(on a c)", "(on c b)"], "unsatisfied": [], "fraction": 1.0}
    assert report["trace"][0] == {"index": 0, "action": "(unstack b c)",
                                  "added": ["(holding b)", "(clear c)"],
                                  "deleted": ["(on b c)", "(clear b)", "(handempty)"], "changed": []}
    assert [t["index"] for t in report["trace"]] == list(range(6))
    assert report["metric"] is None


def test_invalid_plan_json_failure_and_goal_fraction(tmp_path: Path) -> None:
    folder(tmp_path, {"p01": WRONG_ORDER})
    code, report = run_json("p01.plan", cwd=tmp_path)
    assert code == 1
    assert (report["executable"], report["valid"], report["lea"]) == (False, False, 4)
    failure = report["failure"]
    assert set(failure) == {"index", "action", "category", "unsatisfied", "message"}
    assert (failure["index"], failure["action"], failure["category"], failure["unsatisfied"]) == (
        4, "(pick-up c)", "wrong_order", ["(clear c)"])
    assert "(clear c) is false: it stopped holding after step 4 (stack a c)" in failure["message"]
    assert report["goals"] == {"satisfied": ["(on a c)"], "unsatisfied": ["(on c b)"], "fraction": 0.5}
    assert len(report["trace"]) == 4


def test_several_plans_give_a_list_and_one_invalid_plan_fails_the_run(tmp_path: Path) -> None:
    folder(tmp_path / "set", {"p01": VALID, "p02": WRONG_ORDER, "p03": "(pick-up z)\n"})
    (tmp_path / "set" / "notes.txt").write_text("not a plan")
    code, reports = run_json("set", cwd=tmp_path)
    assert code == 1
    assert [(Path(r["path"]).name, r["valid"], r["lea"]) for r in reports] == [
        ("p01.plan", True, 6), ("p02.plan", False, 4), ("p03.plan", False, 0)]
    assert reports[2]["failure"]["category"] == "unknown_object"


def test_flags_link_a_plan_anywhere_and_a_missing_problem_exits_2(tmp_path: Path) -> None:
    (tmp_path / "d.pddl").write_text(DOMAIN)
    (tmp_path / "task.pddl").write_text(PROBLEM)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "answer.plan").write_text(VALID)
    code, report = run_json("out/answer.plan", "--problem", "task.pddl", "--domain", "d.pddl", cwd=tmp_path)
    assert (code, report["valid"]) == (0, True)
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "x.plan").write_text(VALID)
    code, report = run_json("alone/x.plan", cwd=tmp_path)
    assert code == 2 and report["valid"] is None and report["error"]
    assert run("nowhere.plan", cwd=tmp_path).returncode == 2


def test_unsupported_domain_is_skipped_with_its_reason_not_judged(tmp_path: Path) -> None:
    (tmp_path / "domain.pddl").write_text("""(define (domain d) (:requirements :strips :non-deterministic)
      (:predicates (p) (q))
      (:action go :parameters () :precondition (q) :effect (oneof (p) (q))))""")
    (tmp_path / "p.pddl").write_text("(define (problem x) (:domain d) (:init (q)) (:goal (p)))")
    (tmp_path / "p.plan").write_text("(go)\n")
    code, report = run_json("p.plan", cwd=tmp_path)
    assert code == 0
    assert report["valid"] is None and report["lea"] is None and report["executable"] is None
    assert "non-deterministic effects" in report["skipped_reason"]


def test_unparseable_line_is_a_parse_failure(tmp_path: Path) -> None:
    folder(tmp_path, {"p01": "(unstack b c)\nthen put b down\n(put-down b)\n"})
    code, report = run_json("p01.plan", cwd=tmp_path)
    assert code == 1
    assert report["length"] == 3 and report["lea"] == 1
    assert (report["failure"]["category"], report["failure"]["action"]) == ("parse", "then put b down")


def test_text_report_explains_the_failure_step_by_step(tmp_path: Path) -> None:
    folder(tmp_path, {"p01": WRONG_ORDER})
    completed = run("p01.plan", cwd=tmp_path)
    assert completed.returncode == 1
    lines = completed.stdout.splitlines()
    assert lines[0] == "p01.plan"
    assert "INVALID · LEA 4/6 · 1 of 2 goals hold" in lines[2]
    assert "  4  (stack a c)    +(on a c) +(clear a) +(handempty) -(holding a) -(clear c)" in lines
    assert "  5  (pick-up c)    ✗ wrong order" in lines
    assert "  6  (stack c b)    (not reached)" in lines
    assert "  goals not holding where the plan stops: (on c b)" in lines


NUMERIC = Path(__file__).parent / "fixtures" / "beyond_classical" / "numeric" / "trucks"


def test_a_numeric_plan_reports_value_changes_and_the_metric(tmp_path: Path) -> None:
    for name in ("domain.pddl", "problem.pddl", "plan.txt"):
        (tmp_path / name).write_text((NUMERIC / name).read_text())
    flags = ["--domain", "domain.pddl", "--problem", "problem.pddl"]
    code, report = run_json("plan.txt", *flags, cwd=tmp_path)
    assert code == 0 and report["valid"] is True
    assert report["trace"][0]["changed"] == [{"term": "(fuel t1)", "before": 8, "after": 2},
                                             {"term": "(total-cost)", "before": 0, "after": 6}]
    assert report["metric"] == {"direction": "minimize", "expression": "(total-cost)", "value": 23,
                                "reason": None}
    text = run("plan.txt", *flags, cwd=tmp_path).stdout
    assert "(fuel t1) 8→2 (total-cost) 0→6" in text and "metric: minimize (total-cost) = 23" in text

"""End to end: ``plansight ltl`` as a user runs it on the bundled examples (docs/cli.md)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PLANSIGHT = Path(sys.executable).with_name("plansight")
if not PLANSIGHT.exists():
    PLANSIGHT = Path(shutil.which("plansight") or "plansight")


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(PLANSIGHT), "ltl", *args], cwd=cwd, capture_output=True, text=True,
                          encoding="utf-8", timeout=120, check=False)


def run_json(*args: str, cwd: Path = ROOT) -> tuple[int, Any]:
    completed = run(*args, "--format", "json", cwd=cwd)
    return completed.returncode, json.loads(completed.stdout)


def test_json_has_the_spec_keys_and_a_satisfied_goal_exits_0() -> None:
    code, report = run_json("examples/ltl/sussman-order.ltl")
    assert code == 0
    assert list(report)[:5] == ["path", "diagnostics", "satisfied", "satisfied_at", "f1"]
    assert report["path"] == "examples/ltl/sussman-order.ltl"
    assert report["diagnostics"] == []
    assert (report["satisfied"], report["satisfied_at"], report["f1"]) == (True, 5, None)


def test_an_unsatisfied_goal_exits_1_and_names_the_failed_stage() -> None:
    code, report = run_json("examples/ltl/sussman-wrong-order.ltl")
    assert code == 1
    assert (report["satisfied"], report["satisfied_at"]) == (False, None)
    [failure] = report["failures"]
    assert failure["message"].startswith("`stack(b, c)` is never performed after step 5 (stage 2 of 2")
    assert failure["range"] == {"start": {"line": 4, "character": 17}, "end": {"line": 4, "character": 28}}


def test_reference_gives_goal_f1() -> None:
    code, report = run_json("examples/ltl/sussman-interpreted.ltl")
    assert code == 0
    # reference: exists x. (unstack(c, x)) then on(a, b) and on(b, c) and on-table(c); the best expansion
    # (x = a) shares the sequence, on(a, b) and on(b, c): precision 3/3, recall 3/4
    assert (report["f1"], report["precision"], report["recall"]) == (0.8571, 1.0, 0.75)
    assert report["reference"] == "examples/ltl/reference.ltl"


def test_flags_override_the_directives(tmp_path: Path) -> None:
    goal = tmp_path / "goal.ltl"
    goal.write_text("pick-up(b) then on(b, c)\n")
    ref = tmp_path / "ref.ltl"
    ref.write_text("pick-up(b) then stack(b, c) then on(b, c)\n")
    code, report = run_json(str(goal), "--problem", "examples/blocksworld/p01.pddl",
                            "--plan", "examples/blocksworld/p01.plan", "--reference", str(ref))
    assert code == 0
    assert (report["satisfied"], report["satisfied_at"]) == (True, 4)
    assert report["f1"] == 0.5  # sequences differ (one element each), on(b, c) shared


def test_folder_is_a_batch_with_a_summary_table() -> None:
    completed = run("examples/ltl")
    assert completed.returncode == 1  # one goal is not satisfied, two files have mistakes
    out = completed.stdout
    assert "examples/ltl/sussman-wrong-order.ltl: not satisfied on plan examples/blocksworld/p01.plan" in out
    assert "examples/ltl/sussman-order.ltl: satisfied at step 5 on plan examples/blocksworld/p01.plan" in out
    table = out[out.index("formula "):]
    lines = [line.split() for line in table.splitlines()[2:] if line.startswith("examples")]
    rows = {cells[0]: cells[1:] for cells in lines}
    assert rows["examples/ltl/sussman-interpreted.ltl"] == ["0", "yes", "6", "0.86"]
    assert rows["examples/ltl/mistakes/hallucinations.ltl"] == ["4", "-", "-", "-"]
    assert out.rstrip().endswith("9 formulas: 5 of 6 evaluated satisfied.")
    _, documents = run_json("examples/ltl")
    assert isinstance(documents, list) and len(documents) == 9


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run("no-such.ltl").returncode == 2
    assert run(str(tmp_path)).returncode == 2  # no .ltl files
    completed = run("examples/ltl/sussman-order.ltl", "--plan", "missing.plan")
    assert completed.returncode == 2 and "--plan missing.plan: no such file" in completed.stderr

"""`plansight plan` with a reference plan and `--recover`: the `reference` and `recovery` sections."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_plan_metrics import PAPER_V1_LABELS

from plansight.main import main

DATASET = Path(__file__).resolve().parent.parent / "examples" / "plan-evaluation"
PI0 = str(DATASET / "generated" / "p10.plan")
PI1 = str(DATASET / "remapped" / "p10.plan")


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any]:
    code = main(["plan", *args, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_reference_from_the_directive(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = run_json(capsys, PI0)
    assert code == 1 and report["lea"] == 0 and report["recovery"] is None
    reference = report["reference"]
    assert Path(reference["path"]) == DATASET / "ground-truth" / "p10.plan"
    assert reference["aqm"] == list(PAPER_V1_LABELS)
    assert reference["np_aqm"][5] == "same_act"
    assert (reference["stv"], reference["lcs_subsequence"], reference["lcs_substring"]) == (7, 1, 1)
    assert (reference["similarity"], reference["score"], reference["score_normalised"]) == (
        11.2,
        18.5333,
        2.3167,
    )
    assert reference["final_score"] == 2.7625 and reference["similarity_source"] == "wordnet-3.0"
    assert reference["potential"]["mapping"] == {"a": "b", "b": "a"} and reference["potential"]["stv"] == 2
    assert reference["action_distance"] == round(1 - 1 / 13, 4)  # 8 + 6 distinct, only (pick-up c) shared


def test_reference_plan_flag_and_similarity_v2(capsys: pytest.CaptureFixture[str]) -> None:
    _, report = run_json(
        capsys, PI1, "--reference-plan", str(DATASET / "ground-truth" / "p10.plan"), "--similarity", "v2"
    )
    reference = report["reference"]
    assert report["executable"] is True and report["valid"] is False
    assert reference["stv"] == 2 and reference["similarity_version"] == "v2"
    assert [s["kind"] for s in reference["steps"]] == ["remove", "remove"]


def test_an_unreadable_reference_plan_is_reported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    plan = tmp_path / "p10.plan"
    plan.write_text(
        f"; @problem {DATASET / 'problems' / 'p10.pddl'}\n; @reference-plan missing.plan\n(pick-up a)\n"
    )
    code, report = run_json(capsys, str(plan))
    assert code == 1 and report["valid"] is False
    assert (
        "missing.plan" in report["reference"]["error"] and "cannot be read" in report["reference"]["error"]
    )


def test_recover_json(capsys: pytest.CaptureFixture[str]) -> None:
    _, report = run_json(capsys, PI1, "--recover")
    recovery = report["recovery"]
    assert recovery["status"] == "solved" and recovery["prefix_rule"] == "reference-state"
    assert recovery["prefix"] == ["(unstack b c)", "(put-down b)", "(pick-up c)", "(stack c b)"]
    assert recovery["completion"] == ["(pick-up a)", "(stack a c)"]
    assert recovery["plan"] == recovery["prefix"] + recovery["completion"]
    assert recovery["planner"] == "fast-downward astar(lmcut())"


def test_recover_gives_the_planner_the_limits_of_the_flags(capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from plansight.analyses.plans import recovery

    budgets = []
    real_recover = recovery.recover

    def recover(*args: Any, **kwargs: Any) -> recovery.Recovery:
        budgets.append(args[4])
        return real_recover(*args, **kwargs)

    monkeypatch.setattr(recovery, "recover", recover)
    _, report = run_json(capsys, PI1, "--recover", "--time-limit", "12.5", "--memory-limit", "900")
    assert report["recovery"]["status"] == "solved"
    assert budgets == [recovery.Budget(time_limit_s=12.5, memory_limit_mb=900)]


def test_text_shows_the_aqm_table_and_the_recovered_plan(capsys: pytest.CaptureFixture[str]) -> None:
    main(["plan", PI0, "--recover"])
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.startswith("      ")]
    assert ["6", "(put-down", "c)", "redundant"] in rows
    assert ["1", "(unstack", "a", "c)", "same_act", "~", "(unstack", "b", "c)", "(1.25)"] in rows
    assert "StV 7 (2 remove, 0 reorder, 5 repair, 0 add)" in out
    assert "recovered plan (fast-downward astar(lmcut()), solved): keeps 0 step(s), adds 6:" in out
    assert "    6  (stack a c)" in out

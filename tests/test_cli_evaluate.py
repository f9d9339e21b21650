"""`plansight evaluate` over the bundled dataset (examples/plan-evaluation): the paper's table."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from plansight.main import main

DATASET = Path(__file__).resolve().parent.parent / "examples" / "plan-evaluation"
ARGS = [
    "evaluate",
    "--generated",
    str(DATASET / "generated"),
    "--ground-truth",
    str(DATASET / "ground-truth"),
    "--problems",
    str(DATASET / "problems"),
]


def run_json(capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    code = main([*ARGS, "--format", "json", *extra])
    return code, json.loads(capsys.readouterr().out)


def test_json_rows_and_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, report = run_json(capsys)
    assert code == 1  # some generated plans are invalid
    rows = {row["name"]: row for row in report["plans"]}
    assert sorted(rows) == ["p10", "p11", "p12", "p13", "p14"]
    running = rows["p10"]  # the paper's running example
    assert (running["valid"], running["lea"], running["stv"]) == (False, 0, 7)
    assert (running["score"], running["score_normalised"], running["final_score"]) == (
        18.5333,
        2.3167,
        2.7625,
    )
    assert (
        rows["p11"]["valid"] is True and rows["p11"]["stv"] == 0 and rows["p11"]["action_distance"] == 0.0
    )
    assert rows["p13"]["lea"] == 2 and rows["p13"]["executable"] is False  # `move` is hallucinated
    assert (
        rows["p14"]["executable"] is True
        and rows["p14"]["valid"] is False
        and rows["p14"]["goal_fraction"] == 0
    )
    summary = report["summary"]
    assert summary["plans"] == 5 and summary["sr"] == 0.4
    assert summary["mean_lea"] == pytest.approx((0 + 6 + 8 + 2 + 2) / 5)
    assert summary["mean_stv"] == pytest.approx(sum(r["stv"] for r in rows.values()) / 5)
    assert summary["similarity_source"] == "wordnet-3.0"
    assert "recovery_sr" not in summary


def test_similarity_v2_changes_the_running_example(capsys: pytest.CaptureFixture[str]) -> None:
    _, report = run_json(capsys, "--similarity", "v2")
    running = next(row for row in report["plans"] if row["name"] == "p10")
    assert running["final_score"] == 2.7722 and running["stv"] == 7


def test_recover_repairs_every_invalid_plan(capsys: pytest.CaptureFixture[str]) -> None:
    _, report = run_json(capsys, "--recover", "--time-limit", "20")
    rows = {row["name"]: row for row in report["plans"]}
    assert rows["p10"]["recovery_status"] == "solved" and rows["p10"]["recovered_length"] == 6
    assert rows["p10"]["prefix_length"] == 0
    assert rows["p11"]["recovery_status"] == "already-valid"
    assert rows["p13"]["recovery_status"] == "solved" and rows["p13"]["prefix_length"] == 2
    assert report["summary"]["recovery_sr"] == 1.0


def test_csv_has_one_row_per_plan(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*ARGS, "--format", "csv"]) == 1
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [row["name"] for row in rows] == ["p10", "p11", "p12", "p13", "p14"]
    assert rows[0]["stv"] == "7" and rows[0]["valid"] == "False" and rows[1]["valid"] == "True"


def test_text_table(capsys: pytest.CaptureFixture[str]) -> None:
    main(ARGS)
    out = capsys.readouterr().out
    header = out.splitlines()[0].split()
    assert header[:5] == ["plan", "valid", "LEA", "len", "StV"]
    line = next(line for line in out.splitlines() if line.startswith("p10"))
    assert line.split()[:5] == ["p10", "no", "0", "8", "7"]
    assert "SR 0.40" in out and "similarity: wordnet-3.0" in out


def test_unpaired_plans_are_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    generated, truth = tmp_path / "generated", tmp_path / "truth"
    generated.mkdir()
    truth.mkdir()
    shutil.copy(DATASET / "generated" / "p11.plan", generated / "p11.plan")
    shutil.copy(DATASET / "generated" / "p10.plan", generated / "extra.plan")
    shutil.copy(DATASET / "ground-truth" / "p11.plan", truth / "p11.plan")
    shutil.copy(DATASET / "ground-truth" / "p12.plan", truth / "p12.plan")
    code = main(
        [
            "evaluate",
            "--generated",
            str(generated),
            "--ground-truth",
            str(truth),
            "--problems",
            str(DATASET / "problems"),
            "--domain",
            str(DATASET / "domain.pddl"),
            "--format",
            "json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    rows = {row["name"]: row for row in report["plans"]}
    assert code == 1
    assert rows["p12"]["error"] == "no generated plan" and rows["p12"]["valid"] is False
    assert rows["extra"]["error"] == "no ground-truth plan; no problem or domain found for this plan"
    assert rows["extra"]["valid"] is None and rows["extra"]["length"] == 8
    assert rows["p11"]["valid"] is True
    assert report["summary"]["checked"] == 2 and report["summary"]["sr"] == 0.5


def test_missing_folder_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "--generated", str(tmp_path / "nope"), "--ground-truth", str(tmp_path)]) == 2
    assert "no such folder" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["p10", "p11", "p12", "p13", "p14"])
def test_dataset_verdicts_agree_with_unified_planning(name: str, tmp_path: Path) -> None:
    """The bundled ground truth is valid for an independent validator, and so are exactly the
    generated plans `evaluate` calls valid."""
    from test_recovery import up_accepts

    from plansight.analyses.plans.metrics import actions_of
    from plansight.analyses.syntax.parse_plan import parse_plan

    def plan(folder: str) -> list[tuple[str, ...]]:
        return actions_of(parse_plan((DATASET / folder / f"{name}.plan").read_text()).plan)

    domain, problem = DATASET / "domain.pddl", DATASET / "problems" / f"{name}.pddl"
    assert up_accepts(domain, problem, plan("ground-truth"), tmp_path)
    assert up_accepts(domain, problem, plan("generated"), tmp_path) == (name in ("p11", "p12"))

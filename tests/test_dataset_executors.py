"""The executors give the same rows: in-process, a local process pool, a Dask ``LocalCluster`` of worker
processes, and a ``dask scheduler`` / ``dask worker`` pair started here, all on 127.0.0.1 only."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from plansight.analyses.workspace.dataset_tables import read_rows
from plansight.main import main

DATA = Path(__file__).resolve().parent / "fixtures" / "datasets"
EVALUATE = [
    "evaluate",
    str(DATA / "lea-stv.csv"),
    "--preset",
    "lea-stv",
    "--domains",
    str(DATA / "domains"),
    "--problems",
    str(DATA / "problems"),
    "--chunk-size",
    "1",
]
GRADE = ["grade", str(DATA / "planetarium.jsonl"), "--preset", "planetarium", "--chunk-size", "1"]


def rows_of(command: list[str], output: Path, *extra: str) -> list[dict[str, Any]]:
    code = main([*command, "--output", str(output), *extra])
    assert code == 1  # each fixture holds wrong answers
    return sorted(read_rows(str(output)), key=lambda row: row["row_index"])


@pytest.fixture(scope="module")
def in_process(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, Any]]]:
    folder = tmp_path_factory.mktemp("in-process")
    return {"evaluate": rows_of(EVALUATE, folder / "e.jsonl"), "grade": rows_of(GRADE, folder / "g.jsonl")}


def test_a_local_process_pool_gives_the_same_rows(in_process: dict[str, Any], tmp_path: Path) -> None:
    assert rows_of(EVALUATE, tmp_path / "e.jsonl", "--jobs", "2") == in_process["evaluate"]
    assert rows_of(GRADE, tmp_path / "g.jsonl", "--jobs", "2") == in_process["grade"]


def test_a_dask_local_cluster_gives_the_same_rows(in_process: dict[str, Any], tmp_path: Path) -> None:
    assert (
        rows_of(EVALUATE, tmp_path / "e.jsonl", "--executor", "dask", "--jobs", "2") == in_process["evaluate"]
    )


@pytest.fixture
def scheduler(tmp_path: Path) -> Iterator[str]:
    """A real scheduler and one worker process, as an operator would start them, on loopback."""
    address_file = tmp_path / "scheduler.json"
    dask = [sys.executable, "-m", "dask"]
    started = [
        subprocess.Popen(
            [
                *dask,
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(address_file),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    ]
    try:
        deadline = time.monotonic() + 60
        address = ""
        while not address and time.monotonic() < deadline:
            time.sleep(0.2)
            try:  # the file may be there before it is complete
                address = json.loads(address_file.read_text())["address"]
            except (OSError, ValueError, KeyError):
                continue
        started.append(
            subprocess.Popen(
                [
                    *dask,
                    "worker",
                    address,
                    "--host",
                    "127.0.0.1",
                    "--nworkers",
                    "1",
                    "--nthreads",
                    "1",
                    "--no-dashboard",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        from distributed import Client

        with Client(address, timeout="30s") as client:
            client.wait_for_workers(1, timeout=60)
        yield address
    finally:
        for process in reversed(started):
            process.terminate()
        for process in started:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def test_an_existing_cluster_gives_the_same_rows(
    in_process: dict[str, Any], tmp_path: Path, scheduler: str
) -> None:
    assert (
        rows_of(GRADE, tmp_path / "g.jsonl", "--executor", "dask", "--scheduler", scheduler)
        == in_process["grade"]
    )
    assert rows_of(EVALUATE, tmp_path / "e.csv", "--executor", "dask", "--scheduler", scheduler) == [
        dict(row) for row in read_rows(str(_as_csv(in_process["evaluate"], tmp_path)))
    ]


def _as_csv(rows: list[dict[str, Any]], folder: Path) -> Path:
    from plansight.analyses.workspace.dataset_tables import write_table

    path = folder / "expected.csv"
    write_table(str(path), rows, list(rows[0]))
    return path


def test_an_unreachable_scheduler_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code = main([*GRADE, "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9"])
    assert code == 2
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err


def test_a_scheduler_without_dask_executor_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*GRADE, "--scheduler", "tcp://127.0.0.1:8786"]) == 2
    assert "--scheduler needs --executor dask" in capsys.readouterr().err


def test_a_folder_is_graded_the_same_on_dask(capsys: pytest.CaptureFixture[str]) -> None:
    """`--executor dask` is not only for tables: a folder's files travel as text to the workers."""
    grading = Path(__file__).resolve().parent.parent / "examples" / "grading"
    command = [
        "grade",
        str(grading / "submissions"),
        "--reference",
        str(grading / "reference.pddl"),
        "--format",
        "json",
    ]
    assert main(command) == 1
    local = json.loads(capsys.readouterr().out)
    assert main([*command, "--executor", "dask", "--jobs", "2", "--chunk-size", "2"]) == 1
    assert json.loads(capsys.readouterr().out) == local
    assert len(local["submissions"]) == 7


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """One Dask ``LocalCluster`` of two worker processes on loopback, shared by the commands below through
    ``--scheduler`` so each does not pay for starting its own."""
    import logging

    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        silence_logs=logging.ERROR,
    ) as started:
        yield started.scheduler_address


def same_on_every_executor(
    command: list[str], code: int, capsys: pytest.CaptureFixture[str], cluster: str
) -> str:
    """The command's output in-process, which a local pool of two and the Dask cluster must repeat."""
    assert main([*command, "--chunk-size", "1"]) == code
    alone = capsys.readouterr().out
    assert main([*command, "--chunk-size", "1", "--jobs", "2"]) == code
    assert capsys.readouterr().out == alone
    assert main([*command, "--chunk-size", "1", "--executor", "dask", "--scheduler", cluster]) == code
    assert capsys.readouterr().out == alone
    return alone


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_a_folder_of_plans_is_evaluated_the_same_on_every_executor(
    capsys: pytest.CaptureFixture[str], cluster: str
) -> None:
    """`evaluate --generated DIR` reads its files here and sends the parsed tasks to the workers."""
    plans = EXAMPLES / "plan-evaluation"
    command = [
        "evaluate",
        "--generated",
        str(plans / "generated"),
        "--ground-truth",
        str(plans / "ground-truth"),
        "--problems",
        str(plans / "problems"),
        "--format",
        "json",
    ]
    table = json.loads(same_on_every_executor(command, 1, capsys, cluster))
    assert [row["valid"] for row in table["plans"]].count(True) >= 1 and len(table["plans"]) >= 3


def _reasoning_cases(folder: Path) -> Path:
    """Truth questions and scored answers over examples/blocksworld, one of each failure a user meets."""
    blocks = EXAMPLES / "blocksworld"
    common = {"domain": str(blocks / "domain.pddl"), "problem": str(blocks / "p01.pddl")}
    rows = [
        {"task": "applicable", **common, "answer": "[pick-up(b)]", "model": "m"},
        {"task": "state", **common, "answer": "[on(c,a), clear(b)]", "model": "m"},
        {"task": "tracking", **common, "actions": ["unstack(c,a)", "stack(c,b)"], "answer": "[on(c,b)]"},
        {"task": "progression-delete", **common, "action": "unstack(c,a)", "answer": "[nonsense!!]"},
        {"task": "flying", **common, "answer": "[x]"},
        {"task": "state", **common, "actions": ["pick-up(a)"], "answer": "[]"},
    ]
    path = folder / "cases.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_truth_cases_are_answered_the_same_on_every_executor(
    capsys: pytest.CaptureFixture[str], cluster: str, tmp_path: Path
) -> None:
    """A case carries its texts to the worker; answers print in the cases' order whatever finishes first."""
    cases = _reasoning_cases(tmp_path)
    out = same_on_every_executor(["truth", "--cases", str(cases), "--format", "json"], 1, capsys, cluster)
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["case"] for line in lines] == [1, 2, 3, 4, 5, 6]
    assert lines[0]["actions"] == ["(pick-up b)", "(unstack c a)"]
    assert "unknown task `flying`" in lines[4]["error"] and "not executable" in lines[5]["error"]


def test_iou_dataset_is_scored_the_same_on_every_executor(
    capsys: pytest.CaptureFixture[str], cluster: str, tmp_path: Path
) -> None:
    cases = _reasoning_cases(tmp_path)
    report = json.loads(same_on_every_executor(["iou", str(cases), "--format", "json"], 1, capsys, cluster))
    by_case = {answer["case"]: answer for answer in report["answers"]}
    assert by_case[1]["iou"] == 0.5 and by_case[4]["iou"] == 0.0
    assert "unknown task" in by_case[5]["error"]


def test_many_plans_are_simulated_the_same_on_every_executor(
    capsys: pytest.CaptureFixture[str], cluster: str, tmp_path: Path
) -> None:
    """`plan` links each file here and sends the plan with its task and reference plan to the workers; the
    reports (text and JSON, the reference comparison included) come back in the files' order."""
    blocks = EXAMPLES / "blocksworld"
    sussman = ["(unstack c a)", "(put-down c)", "(pick-up b)", "(stack b c)", "(pick-up a)", "(stack a b)"]
    plans = {"a-valid": sussman, "b-broken": ["(pick-up a)", *sussman], "c-prose": ["Sure!", *sussman[:3]],
             "d-short": sussman[:4]}
    for name, steps in plans.items():
        (tmp_path / f"{name}.plan").write_text("\n".join(steps) + "\n")
    (tmp_path / "truth.txt").write_text("\n".join(sussman) + "\n")
    command = ["plan", *(str(tmp_path / f"{name}.plan") for name in plans), "--domain",
               str(blocks / "domain.pddl"), "--problem", str(blocks / "p01.pddl"),
               "--reference-plan", str(tmp_path / "truth.txt")]
    reports = json.loads(same_on_every_executor([*command, "--format", "json"], 1, capsys, cluster))
    assert [report["valid"] for report in reports] == [True, False, False, False]
    assert reports[0]["reference"]["lcs_subsequence"] == 6
    text = same_on_every_executor(command, 1, capsys, cluster)
    assert text.index("a-valid.plan") < text.index("b-broken.plan") < text.index("d-short.plan")


def test_many_candidates_are_judged_the_same_on_every_executor(
    capsys: pytest.CaptureFixture[str], cluster: str
) -> None:
    """`equiv` with many candidates grades them as `grade` grades a folder, on the same executors."""
    grading = EXAMPLES / "grading"
    candidates = sorted(str(path) for path in (grading / "submissions").glob("*.pddl"))
    command = ["equiv", *candidates, "--reference", str(grading / "reference.pddl"), "--format", "json"]
    verdicts = json.loads(same_on_every_executor(command, 1, capsys, cluster))
    assert len(verdicts) == len(candidates) >= 3
    assert {verdict["equivalent"] for verdict in verdicts} >= {True, False}


@pytest.mark.parametrize("suffix", ["jsonl", "csv"])
def test_a_folder_evaluation_resumes_from_its_output(
    suffix: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`evaluate --generated DIR -o FILE` writes each plan's row as it finishes; `--resume` keeps the rows of
    an interrupted run, scores only the other plans, and prints the table of the whole folder."""
    from plansight.analyses.workspace.dataset_tables import write_table

    plans = EXAMPLES / "plan-evaluation"
    output = tmp_path / f"rows.{suffix}"
    command = ["evaluate", "--generated", str(plans / "generated"), "--ground-truth",
               str(plans / "ground-truth"), "--problems", str(plans / "problems"), "-o", str(output),
               "--format", "json"]
    assert main([*command, "--jobs", "2", "--chunk-size", "1"]) == 1
    whole = json.loads(capsys.readouterr().out)
    written = read_rows(str(output))
    assert sorted(row["name"] for row in written) == [row["name"] for row in whole["plans"]]
    done = written[:2]
    done[0]["lea"] = 99  # a kept row is taken as written, never scored again
    write_table(str(output), done, list(written[0]))
    with output.open("a", encoding="utf-8") as handle:
        handle.write(output.read_text().splitlines()[-1][:12])  # the run stopped mid-row
    assert main([*command, "--resume"]) == 1
    resumed = json.loads(capsys.readouterr().out)
    by_name = {row["name"]: row for row in resumed["plans"]}
    assert by_name[done[0]["name"]]["lea"] == 99
    assert [row["name"] for row in resumed["plans"]] == [row["name"] for row in whole["plans"]]
    for row in whole["plans"]:
        if row["name"] != done[0]["name"]:
            assert {k: v for k, v in by_name[row["name"]].items() if v is not None} == {
                k: v for k, v in row.items() if v is not None}
    assert len(read_rows(str(output))) == len(written)

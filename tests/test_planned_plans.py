"""Real plans of numeric and temporal domains, from planners installed from PyPI, judged by VAL and plansight.

ENHSP (numeric) and TAMER (temporal) run through unified-planning (tests/pypi_planners.py) on the domains
of tests/fixtures/beyond_classical/planned/. VAL must accept what they find: that proves the pipeline the
differential tests stand on. The committed plans (regenerate.py rewrites them) and their mutations
(tests/plan_mutations.py) are then judged by VAL and plansight side by side (tests/val_oracle.py): where
plansight simulates the domain, it must agree with VAL on every plan, or the difference must be VAL's own.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus import FIXTURES
from pypi_planners import PLANNERS, missing, solve
from val_oracle import CRASH, INVALID, VALID, compare_with_mutations, run_val

from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.semantics.world import World
from plansight.analyses.syntax.parse_pddl import parse_pddl

PLANNED = FIXTURES / "beyond_classical" / "planned"


@pytest.mark.parametrize("kind", sorted(PLANNERS))
def test_the_planner_finds_a_plan_val_accepts(kind: str, tmp_path: Path) -> None:
    engine = PLANNERS[kind]
    why = missing(engine)
    if why is not None:
        pytest.fail(why)
    folder = PLANNED / kind
    plan = tmp_path / "p01.plan"
    plan.write_text(solve(folder / "domain.pddl", folder / "p01.pddl", engine, timeout=60))
    verdict = run_val(folder / "domain.pddl", folder / "p01.pddl", plan)
    assert verdict.status == VALID, verdict.output
    if kind == "temporal":
        assert all(":" in line and "[" in line for line in plan.read_text().splitlines())


def _models(folder: Path) -> tuple[Domain, Problem]:
    domain = parse_pddl((folder / "domain.pddl").read_text()).model
    problem = parse_pddl((folder / "p01.pddl").read_text()).model
    assert isinstance(domain, Domain) and isinstance(problem, Problem)
    return domain, problem


@pytest.mark.parametrize("kind", sorted(PLANNERS))
def test_plansight_and_val_on_the_planned_plan_and_its_mutations(kind: str, tmp_path: Path) -> None:
    folder = PLANNED / kind
    domain, problem = _models(folder)
    comparisons = compare_with_mutations(folder / "domain.pddl", folder / "p01.pddl", folder / "p01.plan",
                                         tmp_path)
    assert comparisons[0][1].val.status == VALID
    assert len(comparisons) >= 11
    simulated = not World.build(domain, problem).unsupported
    for name, comparison in comparisons:
        if simulated:
            assert comparison.agree or comparison.val_at_fault, f"{name}: {comparison}"
        else:  # until this kind is simulated plansight must say so, never guess
            assert comparison.plansight.verdict is None, name
            assert comparison.plansight.simulation is not None
            assert comparison.plansight.simulation.skipped_reason
    statuses = [comparison.val.status for _, comparison in comparisons]
    assert set(statuses) <= {VALID, INVALID, CRASH}
    assert statuses.count(INVALID) >= len(comparisons) // 2

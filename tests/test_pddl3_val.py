"""VAL's ``Validate`` as the oracle for PDDL3 (docs/beyond-classical-pddl3.md): on four domains of our own
(every trajectory operator VAL handles, preferences in goals, preconditions and constraints, ``forall``
over preferences, metrics over ``is-violated``), each base plan, hand-written variants and systematic
mutations must get the same verdict from both, the same failing step or state, and for valid plans the
same violation counts and metric value. The cases where VAL is wrong are pinned in
``test_val_slips`` with minimal examples.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pddl3_oracle import VALIDATE, Outcome, run_plansight, run_val

from plansight.analyses.plans.simulate import Simulation

ROOT = Path(__file__).parent / "fixtures" / "beyond_classical" / "pddl3"
DOMAINS = ("lights", "courier", "blocks", "tanker")

def mutations(steps: list[str]) -> dict[str, list[str]]:
    """Systematic mutations of a plan: drop, swap, repeat, truncate, reverse and move steps, and give the
    steps times (closer together, further apart)."""
    n = len(steps)
    middle = n // 2
    return {
        "drop-first": steps[1:],
        "drop-middle": steps[:middle] + steps[middle + 1:],
        "drop-last": steps[:-1],
        "swap-first": [steps[1], steps[0], *steps[2:]],
        "swap-middle": [*steps[:middle - 1], steps[middle], steps[middle - 1], *steps[middle + 1:]],
        "repeat-middle": [*steps[:middle + 1], steps[middle], *steps[middle + 1:]],
        "truncate-half": steps[:middle],
        "reverse": steps[::-1],
        "last-first": [steps[-1], *steps[:-1]],
        "first-last": [*steps[1:], steps[0]],
        # VAL reads `t: (a)` as a happening at time t: deadlines (`within`, `always-within`) move with it
        "timed-early": [f"{0.5 * (i + 1):g}: {step}" for i, step in enumerate(steps)],
        "timed-late": [f"{2 * (i + 1) + 0.25:g}: {step}" for i, step in enumerate(steps)],
    }


def cases() -> list[tuple[str, str, list[str]]]:
    """(domain, plan name, steps) for every base plan, hand-written variant and mutation."""
    found: list[tuple[str, str, list[str]]] = []
    for domain in DOMAINS:
        base = (ROOT / domain / "plan.txt").read_text().split("\n")
        base = [line for line in base if line.strip()]
        found.append((domain, "plan", base))
        for extra in sorted((ROOT / domain).glob("extra-*.txt")):
            found.append((domain, extra.stem, [s for s in extra.read_text().split("\n") if s.strip()]))
        found.extend((domain, name, steps) for name, steps in mutations(base).items())
    return found


@pytest.mark.parametrize(("domain", "name", "steps"), cases(), ids=[f"{d}-{n}" for d, n, _ in cases()])
def test_same_verdict_as_val(domain: str, name: str, steps: list[str], tmp_path: Path) -> None:
    plan = tmp_path / f"{name}.plan"
    plan.write_text("\n".join(steps) + "\n")
    expected = run_val(ROOT / domain / "domain.pddl", ROOT / domain / "problem.pddl", plan)
    found, _ = run_plansight(ROOT / domain / "domain.pddl", ROOT / domain / "problem.pddl", plan)
    assert found == expected


def test_the_cases_cover_every_verdict() -> None:
    """The mutations are not all alike: valid plans, failing steps, constraints broken on the way and at
    the end all occur, in each domain a constraint broken during the plan."""
    seen: dict[str, set[str]] = {d: set() for d in DOMAINS}
    for domain, name, steps in cases():
        path = ROOT / domain / "domain.pddl"
        problem = ROOT / domain / "problem.pddl"
        plan = Path(f"/tmp/pddl3-{domain}-{name}.plan")
        plan.write_text("\n".join(steps) + "\n")
        found, _ = run_plansight(path, problem, plan)
        plan.unlink()
        seen[domain].add(found.where[0])
    assert all({"valid", "state", "step"} <= kinds for kinds in seen.values()), seen
    assert any("end" in kinds for kinds in seen.values())
    assert sum(1 for d, _, _ in cases() if d == "lights") >= 11


SLIPS = ROOT / "val_slips"


def both(name: str) -> tuple[Outcome, Outcome, Simulation]:
    """VAL's outcome and plansight's (with its simulation) on the slip example ``name``."""
    files = (SLIPS / "domain.pddl", SLIPS / f"{name}.pddl", SLIPS / f"{name}.plan")
    ours, simulation = run_plansight(*files)
    return run_val(*files), ours, simulation


def test_val_slip_hold_during_checks_the_first_state_only(tmp_path: Path) -> None:
    """VAL calls a plan valid although ``(hold-during 0 3 (not (on)))`` is false at time 1."""
    val, ours, simulation = both("hold-during")
    assert val.valid
    assert ours.where == ("state", 1)
    assert "violated after step 1" in simulation.broken_constraints[0].message


def test_val_slip_hold_after_ignores_its_time() -> None:
    """VAL fails ``(hold-after 1 (on))`` in the initial state, before time 1."""
    val, ours, _ = both("hold-after-time")
    assert val.where == ("state", 0)
    assert ours.valid


def test_val_slip_hold_after_crashes() -> None:
    """VAL dies of a segmentation fault on a ``hold-after`` that holds from the start."""
    import subprocess

    files = (SLIPS / "domain.pddl", SLIPS / "hold-after-crash.pddl", SLIPS / "hold-after-crash.plan")
    done = subprocess.run([str(VALIDATE), "-v", *map(str, files)], capture_output=True, text=True, timeout=60)
    ours, _ = run_plansight(*files)
    assert done.returncode != 0 and "Plan valid" not in done.stdout
    assert ours.valid

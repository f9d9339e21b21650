"""Planners installed from PyPI, run through unified-planning: ENHSP (``up-enhsp``, numeric; a Java jar)
and TAMER (``up-tamer``, temporal and numeric). They give the differential tests real plans of numeric and
temporal domains, written the way planners write them (IPC format), for VAL and plansight to judge.
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

from plansight.analyses.plans.up_planner_process import plan_text

PLANNERS = {"numeric": "enhsp", "temporal": "tamer"}
"""The planner for each kind of domain, by its unified-planning engine name."""
PACKAGES = {"enhsp": "up-enhsp", "tamer": "up-tamer"}


def missing(engine: str) -> str | None:
    """Why ``engine`` cannot run here (a package or Java is missing), or None."""
    import importlib.util

    package = PACKAGES[engine]
    if importlib.util.find_spec(package.replace("-", "_")) is None:
        return f"{package} is not installed (pip install -e '.[test]')"
    if engine == "enhsp" and shutil.which("java") is None:
        return "ENHSP needs Java: run tests/install-java.sh (Debian's default-jre-headless)"
    return None


def solve(domain: Path, problem: Path, engine: str, timeout: float = 60.0) -> str:
    """The plan ``engine`` finds for the files, as IPC plan text; raises when it finds none."""
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import OneshotPlanner, get_environment

    get_environment().credits_stream = None
    up_problem = PDDLReader().parse_problem(str(domain), str(problem))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with OneshotPlanner(name=engine) as planner:
            result = planner.solve(up_problem, timeout=timeout)
    if result.plan is None:
        raise RuntimeError(f"{engine} found no plan: {result.status.name}")
    return plan_text(result.plan)

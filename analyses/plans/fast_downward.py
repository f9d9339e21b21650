"""Fast Downward, as the `up-fast-downward` wheel ships it: where its driver is, which search
configurations plansight offers, and what its exit codes mean.

The driver is located with :func:`importlib.util.find_spec`, which finds the package without running
its ``__init__`` (that imports unified-planning, which plansight never uses and a bare install lacks).
The exit codes are Fast Downward's documented ones (its driver's ``returncodes.py``): 10 and 11 are
proofs that the task is unsolvable, 12 and 13 are not (an incomplete search, or a cost bound, ended
without a plan).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Literal

PACKAGE = "up_fast_downward"
INSTALL_HINT = "pip install up-fast-downward"

CONFIGURATIONS: dict[str, tuple[str, ...]] = {
    "lama-first": ("--alias", "lama-first"),
    "seq-opt-lmcut": ("--alias", "seq-opt-lmcut"),
}
"""The configurations a user can choose by name: LAMA's first iteration (fast, not optimal) and A*
with LM-cut (optimal, slower)."""
DEFAULT_CONFIGURATION = "lama-first"

ExitMeaning = Literal[
    "plan", "unsolvable", "no-plan", "timeout", "out-of-memory", "unsupported", "error"
]

_MEANINGS: dict[int, ExitMeaning] = {
    0: "plan", 1: "plan", 2: "plan", 3: "plan",
    10: "unsolvable", 11: "unsolvable",
    12: "no-plan", 13: "no-plan",
    20: "out-of-memory", 22: "out-of-memory",
    21: "timeout", 23: "timeout", 24: "timeout",
    -24: "timeout", 232: "timeout",  # -SIGXCPU: a component hit the CPU-time limit
    34: "unsupported", 37: "unsupported",
}


def driver() -> Path | None:
    """The driver script inside the installed wheel, or None when the wheel is missing."""
    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        script = Path(location) / "downward" / "fast-downward.py"
        if script.is_file():
            return script
    return None


def command(
    script: Path, search: tuple[str, ...], time_limit_s: float, memory_limit_mb: int,
    domain: str = "domain.pddl", problem: str = "problem.pddl", plan: str = "plan",
) -> list[str]:
    """The driver's command line; ``search`` is an alias (``--alias NAME``) or ``--search ...``.

    The driver's options go before the files, the search's after them, as the driver requires."""
    seconds = max(1, int(time_limit_s))
    before, after = (list(search), []) if search[:1] == ("--alias",) else ([], list(search))
    return [sys.executable, str(script), *before, "--plan-file", plan,
            "--overall-time-limit", f"{seconds}s", "--overall-memory-limit", f"{memory_limit_mb}M",
            domain, problem, *after]


def meaning(exit_code: int) -> ExitMeaning:
    """What an exit code of the driver says about the task."""
    return _MEANINGS.get(exit_code, "error")

"""``--budget-seconds`` / ``--budget-units``: the work budget of ``plansight plan`` and ``plansight ltl``.

Simulating a plan and evaluating an LTL goal stop when their budget runs out and answer "unknown" with
the reason (analyses/semantics/budget.py, docs/reliability.md); both commands take the same flags.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from plansight.analyses.semantics.budget import WorkBudget


def add_budget_options(parser: argparse.ArgumentParser, what: str) -> None:
    """``--budget-seconds`` / ``--budget-units``: the work budget of simulation and LTL evaluation
    (analyses/semantics/budget.py), shared by ``plan`` and ``ltl``."""
    from plansight.analyses.semantics.budget import DEFAULT_MAX_UNITS, DEFAULT_TIME_LIMIT_S

    parser.add_argument("--budget-seconds", type=_positive(float), default=DEFAULT_TIME_LIMIT_S,
                        metavar="SECONDS",
                        help=f"time budget for {what}; past it the verdict is unknown (valid: null) "
                             f"with the reason (default {DEFAULT_TIME_LIMIT_S:g})")
    parser.add_argument("--budget-units", type=_positive(int), default=DEFAULT_MAX_UNITS, metavar="N",
                        help=f"units of work (quantifier instances, steps, LTL sub-formula evaluations) "
                             f"for {what} (default {DEFAULT_MAX_UNITS:,})")


def budget_of(args: argparse.Namespace) -> WorkBudget:
    """The work budget the ``--budget-*`` flags ask for."""
    from plansight.analyses.semantics.budget import WorkBudget

    return WorkBudget(args.budget_seconds, args.budget_units)


def _positive(kind: Callable[[str], float]) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
        return value

    return parse

"""Static checks of a plan against its problem and domain. (Being implemented.)"""

from __future__ import annotations

from .diagnostics import Diagnostic
from .model import Domain, Plan, Problem


def check_plan(plan: Plan, problem: Problem | None, domain: Domain | None) -> list[Diagnostic]:
    return []

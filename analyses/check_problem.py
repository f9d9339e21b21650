"""Semantic checks of a problem against its domain. (Being implemented.)"""

from __future__ import annotations

from .diagnostics import Diagnostic
from .model import Domain, Problem


def check_problem(problem: Problem, domain: Domain | None) -> list[Diagnostic]:
    return []

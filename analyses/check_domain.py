"""Semantic checks of a domain. (Being implemented.)"""

from __future__ import annotations

from .diagnostics import Diagnostic
from .model import Domain


def check_domain(domain: Domain) -> list[Diagnostic]:
    return []

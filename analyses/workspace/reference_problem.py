"""Load a reference problem and the domain it is read in, for `equiv`, `grade` and the lint path.

Candidates are always compared in the reference's domain (the instructor's choice): a student's own
`(:domain ...)` line or `; @domain` directive cannot change what the reference means.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from plansight.analyses.equivalence.verdict import Budget, Reference

if TYPE_CHECKING:
    from plansight.analyses.workspace.lint import Analyzer


@dataclass(frozen=True, slots=True)
class ReferenceLoad:
    """A prepared reference, or ``error`` saying why there is none."""

    reference: Reference | None
    error: str = ""
    domain_path: str | None = None


def load_reference(
    analyzer: Analyzer, reference_path: str, domain_path: str | None = None, budget: Budget | None = None
) -> ReferenceLoad:
    """Parse the reference problem and find its domain, or say in words why it cannot serve as a reference;
    grading needs one before any submission is read.
    """
    document = analyzer.parse(reference_path)
    name = os.path.basename(reference_path)
    if document is None:
        return ReferenceLoad(None, f"the reference `{reference_path}` cannot be read")
    if document.problem is None:
        return ReferenceLoad(None, f"the reference `{name}` is not a PDDL problem (`(define (problem ...)`)")
    association = analyzer.associate(document, domain_path)
    if association.domain is None or association.domain.domain is None:
        how = (
            f"`{domain_path}` is not a readable domain"
            if domain_path
            else "no domain file was found for it (give one with --domain, or a `; @domain PATH` line)"
        )
        return ReferenceLoad(None, f"the reference `{name}` cannot be used: {how}")
    return ReferenceLoad(
        Reference(association.domain.domain, document.problem, budget or Budget()),
        "",
        association.domain.path,
    )

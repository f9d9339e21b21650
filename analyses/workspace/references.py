"""Which reference a file is compared with: the reference problem of a problem (equivalence,
grading) and the ground-truth plan of a plan (StV, AQM), by the rules of docs/files-and-links.md.

A ``; @reference PATH`` / ``; @reference-plan PATH`` directive at the top of the file wins (relative
to the file), then the editor's globs (``plansight.referenceGlobs`` / ``plansight.referencePlanGlobs``,
given here already made absolute by the caller). There is no convention: a reference is a choice an
instructor makes, never a guess. The CLI's ``--reference`` / ``--reference-plan`` flags are applied
by their commands before this is asked.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from plansight.analyses.syntax.documents import ParsedDocument
from plansight.analyses.workspace.association import glob_matches, resolve_link

STEM = "{stem}"
"""In a reference-plan glob's target: the plan's file name without its extension."""


@dataclass(frozen=True, slots=True)
class ReferenceLink:
    """Where a file's reference (ground-truth plan or problem) is, and which rule linked it."""

    path: str
    how: Literal["directive", "setting"]
    """The rule that linked it, which the editor shows so the user knows what to change."""


def find_reference(document: ParsedDocument, globs: Sequence[tuple[str, str]] = ()) -> ReferenceLink | None:
    """The reference problem of a problem: ``; @reference`` first, then the first matching glob."""
    return _find(document, "reference", globs)


def find_reference_plan(document: ParsedDocument,
                        globs: Sequence[tuple[str, str]] = ()) -> ReferenceLink | None:
    """The ground-truth plan of a plan: ``; @reference-plan`` first, then the first matching glob,
    whose target may name the plan's stem (``gold/{stem}.plan``)."""
    return _find(document, "reference-plan", globs)


def _find(document: ParsedDocument, key: str, globs: Sequence[tuple[str, str]]) -> ReferenceLink | None:
    directive = document.directive(key)
    if directive is not None:
        return ReferenceLink(resolve_link(document.path, directive.value), "directive")
    stem = os.path.splitext(os.path.basename(document.path))[0]
    for pattern, target in globs:
        if glob_matches(pattern, document.path):
            path = os.path.normpath(target.replace(STEM, stem))
            # the reference itself matches its folder's glob: it is not compared with itself
            return ReferenceLink(path, "setting") if path != os.path.normpath(document.path) else None
    return None

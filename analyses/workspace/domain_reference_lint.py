"""A domain compared with its reference domain as a lint check: a domain with ``; @reference PATH`` gets an
``action-differs`` diagnostic on each action that differs from the reference's (docs/domain-equivalence.md).

Running it in the lint path means ``plansight lint`` prints exactly what the editor underlines, with the
server's debouncing and version guard. Only the directive links a domain to its reference: the editor's
``referenceGlobs`` map problems to reference problems, and a domain in such a folder is not meant to be
compared with a problem. The comparison is memoised by the two texts in the linter's verdict memo, so the
code lens asked right after the diagnostics gets it without recomputing.
"""

from __future__ import annotations

import os
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Protocol

from plansight.analyses.diagnostics.diagnostic import Diagnostic, make
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.domain_equivalence.comparison import DomainComparison, compare_domains
from plansight.analyses.memo import Memo
from plansight.analyses.syntax.documents import ParsedDocument
from plansight.analyses.workspace.association import resolve_link

DIRECTIVE = "reference"


class VerdictMemos(Protocol):
    """Where the linter keeps verdicts (its ``AnalyzerCaches``)."""

    verdicts: Memo[Hashable, object]


class DomainLinker(Protocol):
    """What the check needs of the linter: read the reference through its cache, and its memo."""

    @property
    def caches(self) -> VerdictMemos:
        """The linter's memos."""
        ...

    def parse(self, path: str, text: str | None = None) -> ParsedDocument | None:
        """The parsed file (through the caller's cache), or None when it cannot be read."""
        ...


@dataclass(frozen=True, slots=True)
class LinkedDomain:
    """The reference domain a domain is linked to and the comparison, or why there is none (``error``)."""

    reference_path: str
    comparison: DomainComparison | None
    error: str = ""


def linked_domain(analyzer: DomainLinker, document: ParsedDocument) -> LinkedDomain | None:
    """None when the domain has no ``; @reference`` line (or is not a domain)."""
    candidate = document.domain
    directive = document.directive(DIRECTIVE)
    if candidate is None or directive is None:
        return None
    path = resolve_link(document.path, directive.value)
    reference_doc = analyzer.parse(path)
    name = os.path.basename(path)
    if reference_doc is None:
        return LinkedDomain(path, None, f"the reference `{name}` cannot be read")
    reference = reference_doc.domain
    if reference is None:
        return LinkedDomain(path, None, f"the reference `{name}` is not a PDDL domain")
    key = ("domain-reference", reference_doc.text, document.text)
    comparison = analyzer.caches.verdicts.get(key, lambda: compare_domains(candidate, reference))
    assert isinstance(comparison, DomainComparison)
    return LinkedDomain(path, comparison)


def domain_reference_diagnostics(analyzer: DomainLinker, document: ParsedDocument) -> list[Diagnostic]:
    """One ``action-differs`` diagnostic per action that differs (on its name), declarations that differ on
    the domain's name, or ``domain-reference-unusable`` when the reference cannot be compared with."""
    linked = linked_domain(analyzer, document)
    domain = document.domain
    if linked is None or domain is None:
        return []
    header = domain.name.span if domain.name.span.end > domain.name.span.start else Span(0, 0)
    if linked.comparison is None:
        message = f"Cannot compare with the reference: {linked.error}."
        return [make("domain-reference-unusable", message, header)]
    comparison = linked.comparison
    if comparison.equivalent:
        return []
    name = os.path.basename(linked.reference_path)
    out = []
    if comparison.declarations:
        listed = "; ".join(d.message for d in comparison.declarations)
        out.append(make("action-differs", f"Declarations differ from the reference `{name}`: {listed}.",
                        header, data=(("reference", linked.reference_path),)))
    for action in comparison.actions:
        if not action.differences:
            continue
        span = action.span if action.candidate is not None else header
        what = "; ".join(d.message.removeprefix(f"`{action.name}`: ") for d in action.differences)
        where = "" if action.candidate is None else (
            f" (precondition F1 {action.precondition.f1:.2f}, effect F1 {action.effect.f1:.2f})")
        out.append(make("action-differs", f"`{action.name}` differs from the reference `{name}`{where}: "
                        f"{what}.", span, data=(("reference", linked.reference_path),)))
    return out


def lens_title(linked: LinkedDomain) -> str:
    """``≡ reference domain``, ``F1 0.83 vs reference`` or why there is no answer."""
    comparison = linked.comparison
    if comparison is None:
        return f"? reference domain ({linked.error})"
    if comparison.equivalent:
        return "≡ reference domain"
    return f"F1 {comparison.overall.f1:.2f} vs reference"

"""The partner files of a ``.ltl`` goal: its problem (then the problem's domain), plan and reference.

A goal is linked like a plan (docs/files-and-links.md): ``--problem`` / ``; @problem PATH`` /
``X.pddl`` next to ``X.ltl`` (or the folder's only problem), and the domain through the problem
unless ``--domain`` / ``; @domain`` says otherwise. So :meth:`Associator.for_plan` does the work and
only its wording is adapted. ``; @plan PATH`` and ``; @reference PATH`` (a reference formula for goal
F1) are followed here; a link that leads nowhere is an error on the link, as for any other directive.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from plansight.analyses.diagnostics.diagnostic import Diagnostic, make
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.ltl import LtlFormula
from plansight.analyses.model.pddl import Plan
from plansight.analyses.syntax.documents import ParsedDocument
from plansight.analyses.syntax.lexical import first_line_span
from plansight.analyses.workspace.association import (
    Association,
    Associator,
    Parse,
    resolve_link,
)
from plansight.analyses.workspace.sources import ExplainsFailures, FileSource


def associate_ltl(associator: Associator, document: ParsedDocument, domain: str | None = None,
                  problem: str | None = None) -> Association:
    """The domain and problem of an LTL goal file, found as for a plan, with messages that speak of the goal
    file instead of a plan.
    """
    found = associator.for_plan(document, domain, problem)
    return replace(found, diagnostics=tuple(_reworded(d) for d in found.diagnostics))


def _reworded(diagnostic: Diagnostic) -> Diagnostic:
    if diagnostic.code == "missing-problem":
        return replace(diagnostic, message=(
            "No problem is linked to this LTL goal, so its predicate and action names are not checked "
            "and it cannot be evaluated. Add a line `; @problem path/to/problem.pddl` at the top of this "
            "file (or name it like the problem: `p01.ltl` next to `p01.pddl`, or use "
            "`plansight ltl --problem FILE`); the domain is found from the problem."))
    if diagnostic.code == "missing-domain":
        return replace(diagnostic, message=diagnostic.message.replace("This plan's", "This LTL goal's"))
    return diagnostic


@dataclass(frozen=True, slots=True)
class LinkedFile:
    """A followed ``; @plan`` / ``; @reference`` link: the parse, or the diagnostic that explains why not."""

    path: str | None = None
    document: ParsedDocument | None = None
    diagnostic: Diagnostic | None = None

    @property
    def plan(self) -> Plan | None:
        """The linked file's plan, or None when it is missing or not a plan."""
        return self.document.plan if self.document is not None else None

    @property
    def formula(self) -> LtlFormula | None:
        """The linked file's LTL formula, or None when it is missing, not an LTL goal or does not parse."""
        goal = self.document.ltl if self.document is not None else None
        return goal.formula if goal is not None else None


def follow_link(document: ParsedDocument, key: str, source: FileSource, parse: Parse,
                override: str | None = None) -> LinkedFile:
    """The file named by ``--plan``/``--reference`` (``override``) or by the ``; @key`` directive.

    ``parse`` is the caller's cached ``parse(path) -> ParsedDocument | None``.
    """
    expected = "plan" if key == "plan" else "ltl"
    directive = document.directive(key)
    if override is None and directive is None:
        return LinkedFile()
    if override is not None:
        target, span, written = override, first_line_span(document.text), override
    else:
        assert directive is not None
        written = directive.value.rstrip()
        target = resolve_link(document.path, written)
        span = Span(directive.span.start, directive.span.start + len(written))
    linked = parse(target)
    what = "a plan" if expected == "plan" else "an LTL formula (`.ltl`)"
    if linked is None:
        reason = source.failure(target) if isinstance(source, ExplainsFailures) else "missing or unreadable"
        problem = f"cannot be read ({reason})"
    elif linked.kind != expected:
        problem = f"is not {what}"
    else:
        return LinkedFile(target, linked)
    where = "given on the command line" if override is not None else f"named by `; @{key}`"
    return LinkedFile(target, None, make(
        "broken-link",
        f"The {key} `{written}` {where} {problem}; looked for `{target}`. "
        "Paths are relative to this file's folder.", span))


def link_diagnostics(document: ParsedDocument, source: FileSource, parse: Parse) -> list[Diagnostic]:
    """Broken ``; @plan`` / ``; @reference`` links, for lint."""
    found = (follow_link(document, key, source, parse) for key in ("plan", "reference"))
    return [link.diagnostic for link in found if link.diagnostic is not None]

"""Equivalence as a lint check: a problem linked to a reference gets a diagnostic saying how it differs.

Running it in the lint path means `plansight lint` prints exactly what the editor underlines, and the
server's debouncing, cancellation by the next edit and version guard apply to it. Results are memoised
in the analyzer's caches by the texts involved (Python caches a string's hash, so the key costs
nothing) so the code lens, asked right after the diagnostics were computed, gets the same verdict
without recomputing it.
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Protocol

from plansight.analyses.diagnostics.diagnostic import Diagnostic, make
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.equivalence.verdict import Budget, Cancelled, Reference, Verdict, compare
from plansight.analyses.memo import Memo
from plansight.analyses.model.pddl import Problem
from plansight.analyses.syntax.documents import ParsedDocument
from plansight.analyses.syntax.lexical import first_line_span
from plansight.analyses.workspace.association import Association
from plansight.analyses.workspace.references import find_reference


class EquivalenceMemos(Protocol):
    """Where the linter keeps prepared references and verdicts (its ``AnalyzerCaches``)."""

    references: Memo[Hashable, object]
    verdicts: Memo[Hashable, object]


class Linker(Protocol):
    """What the check needs of the linter (:class:`~plansight.analyses.workspace.lint.Analyzer`): read
    the reference through the caller's cache, find its domain, and remember results in the caller's
    memos. The linter calls this module, so naming the protocol here instead of importing the linter
    keeps the two modules free of a cycle."""

    @property
    def caches(self) -> EquivalenceMemos:
        """The linter's memos: one per analyzer (the server shares one between its analyzers)."""
        ...

    def parse(self, path: str, text: str | None = None) -> ParsedDocument | None:
        """The parsed file (through the caller's cache), or None when it cannot be read."""
        ...

    def associate(self, document: ParsedDocument, domain: str | None = None,
                  problem: str | None = None) -> Association:
        """The partners of ``document``: the reference problem's domain is the one it is read in."""
        ...


LIVE_FACT_LIMIT = 20_000
"""Larger problems are not compared while typing (``plansight equiv`` still does it)."""
LINT_BUDGET = Budget(states=200_000, seconds=10.0, planner_seconds=0.0)
MODE_DIRECTIVE = "equivalence"
"""``; @equivalence placeholder`` (or ``identity``, the default) chooses the mode of the live check."""


def lint_budget(states: int, seconds: float) -> Budget:
    """The live check's budget: the editor's settings, and never the planner (too slow per keystroke)."""
    return Budget(states=states, seconds=seconds, planner_seconds=0.0)


@dataclass(frozen=True, slots=True)
class LinkedVerdict:
    """The reference a problem is linked to and the verdict, or why there is none (``error``)."""

    reference_path: str
    how: str
    verdict: Verdict | None
    error: str = ""


def linked_verdict(
    analyzer: Linker,
    document: ParsedDocument,
    reference_globs: Sequence[tuple[str, str]] = (),
    budget: Budget = LINT_BUDGET,
    cancelled: Cancelled | None = None,
) -> LinkedVerdict | None:
    """None when the problem is linked to no reference; raises ``Interrupted`` when ``cancelled()``
    turns true during a state search (nothing is memoised then)."""
    problem = document.problem
    if problem is None:
        return None
    link = find_reference(document, reference_globs)
    if link is None:
        return None
    reference_doc = analyzer.parse(link.path)
    name = os.path.basename(link.path)
    if reference_doc is None or reference_doc.problem is None:
        why = "cannot be read" if reference_doc is None else "is not a PDDL problem"
        return LinkedVerdict(link.path, link.how, None, f"the reference `{name}` {why}")
    association = analyzer.associate(reference_doc)
    domain_doc = association.domain
    if domain_doc is None or domain_doc.domain is None:
        return LinkedVerdict(link.path, link.how, None, f"no domain was found for the reference `{name}`")
    placeholder = _placeholder_mode(document)
    if placeholder is None:
        mode_error = _MODE_ERROR.format(document.directive(MODE_DIRECTIVE))
        return LinkedVerdict(link.path, link.how, None, mode_error)
    if len(problem.init) > LIVE_FACT_LIMIT:
        return LinkedVerdict(
            link.path,
            link.how,
            None,
            f"more than {LIVE_FACT_LIMIT:,} initial facts: run `plansight equiv` to compare it",
        )
    domain_model, reference_problem = domain_doc.domain, reference_doc.problem
    reference_key = (domain_doc.text, reference_doc.text, budget)
    caches = analyzer.caches
    reference = caches.references.get(reference_key,
                                      lambda: Reference(domain_model, reference_problem, budget))
    assert isinstance(reference, Reference)
    verdict = caches.verdicts.get((reference_key, document.text, placeholder),
                            lambda: compare(reference, problem, placeholder, cancelled))
    assert isinstance(verdict, Verdict)
    return LinkedVerdict(link.path, link.how, verdict)


def equivalence_diagnostics(
    analyzer: Linker,
    document: ParsedDocument,
    reference_globs: Sequence[tuple[str, str]] = (),
    budget: Budget = LINT_BUDGET,
    cancelled: Cancelled | None = None,
) -> list[Diagnostic]:
    """The diagnostic a problem linked to a reference gets (nothing when equivalent, or when the
    problem has errors of its own: those are reported already, and fixing them comes first)."""
    linked = linked_verdict(analyzer, document, reference_globs, budget, cancelled)
    problem = document.problem
    if linked is None or problem is None:
        return []
    name = os.path.basename(linked.reference_path)
    if linked.verdict is None:
        return [
            make(
                "equivalence-unknown",
                f"Cannot compare with the reference: {linked.error}.",
                _place(problem, "file", document.text),
            )
        ]
    verdict = linked.verdict
    if verdict.equivalent is True or verdict.outcome == "invalid":
        return []
    if verdict.equivalent is None:
        return [
            make(
                "equivalence-unknown",
                f"Equivalence with the reference `{name}` is unknown: "
                f"{verdict.explanation.removeprefix('Unknown: ')}",
                _place(problem, verdict.where, document.text),
            )
        ]
    return [
        make(
            "not-equivalent",
            f"Not equivalent to the reference `{name}`: "
            f"{_lowered(verdict.explanation.removeprefix('Not equivalent: '))}",
            _place(problem, verdict.where, document.text),
            data=(("reference", linked.reference_path),),
        )
    ]


_MODE_ERROR = "`; @equivalence` takes `placeholder` or `identity`, not `{0.value}`"


def _placeholder_mode(document: ParsedDocument) -> bool | None:
    """Whether ``; @equivalence placeholder`` asks for placeholder mode (None: an unknown mode)."""
    directive = document.directive(MODE_DIRECTIVE)
    if directive is None:
        return False
    return {"placeholder": True, "identity": False}.get(directive.value.strip().lower())


def _lowered(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


def _place(problem: Problem, where: str, text: str) -> Span:
    """The `:goal` / `:init` / `:objects` keyword the verdict is about; else the problem's name."""
    keyword = {"goal": ":goal", "init": ":init", "objects": ":objects"}.get(where)
    for section in problem.sections:
        if section.key == keyword:
            return section.span
    if problem.name.span.end > problem.name.span.start:
        return problem.name.span
    return first_line_span(text)

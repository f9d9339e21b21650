"""Equivalence with a reference problem in the editor: a code lens on the problem's header, and the
commands the VS Code extension sends (*Check equivalence*, *Grade folder*). A domain with
``; @reference`` to a reference domain gets the same lens, ``≡ reference domain`` or ``F1 0.83 vs
reference`` (docs/domain-equivalence.md), from the comparison the lint path memoised
(``analyses/workspace/domain_reference_lint.py``).

The verdict itself is computed in the lint path (``analyses/workspace/equivalence_lint.py``), so the
diagnostic on `:goal` / `:init` gets the diagnostics feature's debouncing, coalescing (an edit
cancels the running check), progress, worker threads and version guard; the lens asks the same memo,
which answers at once when the diagnostics run already computed it, and otherwise computes it in a
worker thread (bounded by ``plansight.equivalence.stateBudget`` / ``timeLimitSeconds``, and stopped
by the next edit).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from lsprotocol import types

from plansight.analyses.diagnostics.spans import Span
from plansight.server.analysis import reference_globs_of_settings
from plansight.server.command_arguments import argument_of, command_context
from plansight.server.commands import (
    CHECK_EQUIVALENCE,
    GRADE_FOLDER,
    CheckEquivalenceResult,
    GradeFolderResult,
)
from plansight.server.context import DocumentContext, in_worker
from plansight.server.feature_contract import HubSlot, ServerFeature

if TYPE_CHECKING:
    from plansight.analyses.equivalence.verdict import Budget
    from plansight.analyses.workspace.equivalence_lint import LinkedVerdict
    from plansight.server.app import PlansightServer
    from plansight.server.feature_hub import Provider

logger = logging.getLogger(__name__)

CHECK_COMMAND = CHECK_EQUIVALENCE.id
GRADE_COMMAND = GRADE_FOLDER.id
LENS_TITLE_WIDTH = 100


class EquivalenceFeature(ServerFeature):
    """Compares a problem with its reference problem: the code lens above it, the check command and the
    folder-grading command.
    """

    commands = (CHECK_COMMAND, GRADE_COMMAND)

    def __init__(self, server: PlansightServer) -> None:
        self._server = server

    def providers(self) -> Sequence[tuple[HubSlot, Provider]]:
        return [("code_lens", self.code_lens)]

    def register(self) -> None:
        """Install the check and grade commands."""
        server = self._server

        @server.command(CHECK_COMMAND)
        async def check_equivalence(*arguments: Any) -> CheckEquivalenceResult:
            context = await self._problem_or_domain(arguments)
            if context.kind == "domain":
                return await in_worker(self._server, self.check_domain, context)
            linked = await in_worker(self._server, self.linked, context)
            if linked is None:
                return {
                    "message": "This problem is linked to no reference problem: add `; @reference PATH` "
                    "at its top, or map its folder in `plansight.referenceGlobs`."
                }
            if linked.verdict is None:
                return {"message": f"Cannot compare with the reference: {linked.error}."}
            verdict = cast(CheckEquivalenceResult, linked.verdict.as_json(context.path))
            return {**verdict, "reference": linked.reference_path, "summary": lens_title(linked)}

        @server.command(GRADE_COMMAND)
        async def grade_folder(*arguments: Any) -> GradeFolderResult:
            folder, reference, report = (argument_of(arguments, k) for k in ("folder", "reference", "report"))
            if not all(isinstance(v, str) for v in (folder, reference, report)):
                raise ValueError(f'{GRADE_COMMAND} needs [{{"folder", "reference", "report"}}] paths')
            return await in_worker(self._server, self.grade, folder, reference, report)

    async def _problem_or_domain(self, arguments: Sequence[Any]) -> DocumentContext:
        try:
            return await command_context(self._server, arguments, "problem", "a PDDL problem or domain")
        except ValueError:
            return await command_context(self._server, arguments, "domain", "a PDDL problem or domain")

    def check_domain(self, context: DocumentContext) -> CheckEquivalenceResult:
        """The check command on a domain: the comparison with its ``; @reference`` domain."""
        from plansight.analyses.workspace.domain_reference_lint import lens_title as domain_lens_title
        from plansight.analyses.workspace.domain_reference_lint import linked_domain

        linked = linked_domain(context.analyzer, context.parsed)
        if linked is None:
            return {"message": "This domain is linked to no reference domain: add `; @reference PATH` at "
                    "its top."}
        if linked.comparison is None:
            return {"message": f"Cannot compare with the reference: {linked.error}."}
        comparison = linked.comparison
        return {"candidate": context.path, "equivalent": comparison.equivalent,
                "explanation": comparison.explanation, "reference": linked.reference_path,
                "summary": domain_lens_title(linked)}

    # --- lens ---------------------------------------------------------------------------------------

    async def code_lens(self, context: DocumentContext, params: types.CodeLensParams) -> list[types.CodeLens]:
        """The lens showing the problem's verdict against its reference; none when the problem is linked to no
        reference.
        """
        if context.kind == "domain" and context.parsed.domain is not None:
            return await self._domain_lens(context)
        if context.kind != "problem" or context.parsed.problem is None:
            return []
        linked = await in_worker(self._server, self.linked, context, lambda: self._edited_since(context))
        if linked is None:
            return []
        problem = context.parsed.problem
        span = problem.name.span if problem.name.span.end > problem.name.span.start else Span(0, 0)
        start = context.mapper.range(span).start
        at = types.Position(line=start.line, character=0)
        title = lens_title(linked)
        if len(title) > LENS_TITLE_WIDTH:
            title = title[: LENS_TITLE_WIDTH - 1] + "…"
        return [
            types.CodeLens(
                range=types.Range(start=at, end=at),
                command=types.Command(title=title, command=CHECK_COMMAND, arguments=[{"uri": context.uri}]),
            )
        ]

    async def _domain_lens(self, context: DocumentContext) -> list[types.CodeLens]:
        """The lens of a domain linked to a reference domain; none without a ``; @reference`` line."""
        from plansight.analyses.workspace.domain_reference_lint import lens_title as domain_lens_title
        from plansight.analyses.workspace.domain_reference_lint import linked_domain

        if context.parsed.directive("reference") is None:
            return []
        linked = await in_worker(self._server, linked_domain, context.analyzer, context.parsed)
        domain = context.parsed.domain
        if linked is None or domain is None:
            return []
        span = domain.name.span if domain.name.span.end > domain.name.span.start else Span(0, 0)
        at = types.Position(line=context.mapper.range(span).start.line, character=0)
        title = domain_lens_title(linked)
        if len(title) > LENS_TITLE_WIDTH:
            title = title[: LENS_TITLE_WIDTH - 1] + "…"
        return [types.CodeLens(range=types.Range(start=at, end=at), command=types.Command(
            title=title, command=CHECK_COMMAND, arguments=[{"uri": context.uri}]))]

    def linked(self, context: DocumentContext,
               cancelled: Callable[[], bool] | None = None) -> LinkedVerdict | None:
        """None also when ``cancelled()`` stopped the comparison (the lens is asked again after an
        edit; the diagnostics run has usually memoised the verdict by then)."""
        globs = reference_globs_of_settings(context.settings, self._server.workspace_root)
        from plansight.analyses.equivalence.goal_closure import Interrupted
        from plansight.analyses.workspace.equivalence_lint import (
            linked_verdict,  # networkx: only once a problem is open
        )

        try:
            return linked_verdict(context.analyzer, context.parsed, globs, self.budget(), cancelled)
        except Interrupted:
            return None

    def _edited_since(self, context: DocumentContext) -> bool:
        document = self._server.documents.open.get(context.uri)
        return document is None or document.version != context.version

    def budget(self) -> Budget:
        """The search budget from the user's equivalence settings."""
        from plansight.analyses.workspace.equivalence_lint import lint_budget

        settings = self._server.settings
        return lint_budget(settings.equivalence_state_budget, settings.equivalence_time_limit_s)

    # --- grading ------------------------------------------------------------------------------------

    def grade(self, folder: str, reference_path: str, report: str) -> GradeFolderResult:
        """Grade a folder of submissions against a reference and write the report; returns a summary message
        for the editor.
        """
        from plansight.analyses.equivalence.grade_report import write_report
        from plansight.analyses.equivalence.grading import grade_file, submissions, summary_text
        from plansight.analyses.workspace.lint import Analyzer, DiskSource
        from plansight.analyses.workspace.reference_problem import load_reference

        if _is_domain(reference_path):
            return self.grade_domains(folder, reference_path, report)
        loaded = load_reference(Analyzer(DiskSource()), reference_path, None, self.budget())
        if loaded.reference is None:
            return {"message": f"Cannot grade: {loaded.error}."}
        graded = [
            grade_file(loaded.reference, student, path, False)
            for student, path in submissions(folder, reference_path)
        ]
        counts = Counter(g.verdict.outcome for g in graded)
        write_report(report, graded, counts, reference=reference_path, placeholder=False)
        return {
            "report": report,
            "summary": summary_text(counts),
            "counts": dict(counts),
        }


    def grade_domains(self, folder: str, reference_path: str, report: str) -> GradeFolderResult:
        """*Grade folder* with a reference domain: every domain in the folder compared with it
        (docs/domain-equivalence.md)."""
        from plansight.analyses.workspace.domain_grading import (
            compare_file,
            domain_submissions,
            load_domain,
            summary_text,
            write_report,
        )

        loaded = load_domain(reference_path)
        if loaded.domain is None:
            return {"message": f"Cannot grade: the reference {loaded.error}."}
        reference = loaded.domain
        results = [compare_file(reference, s, p) for s, p in domain_submissions(folder, reference_path)]
        write_report(report, results, reference_path)
        return {"report": report, "summary": summary_text(results),
                "counts": dict(Counter(r.outcome for r in results))}


def _is_domain(path: str) -> bool:
    from plansight.analyses.syntax.lexical import sniff_header
    from plansight.analyses.syntax.reading import read_text_file

    head = read_text_file(path, limit=1 << 16).text
    header = sniff_header(head) if head is not None else None
    return header is not None and header.kind == "domain"


def lens_title(linked: LinkedVerdict) -> str:
    """The lens text: equivalent, not equivalent or unknown, with the reason when unknown."""
    verdict = linked.verdict
    if verdict is None:
        return f"? reference (unknown: {linked.error})"
    if verdict.equivalent is True:
        return f"≡ reference ({verdict.mode})"
    if verdict.equivalent is None:
        return f"? reference (unknown: {verdict.explanation.removeprefix('Unknown: ').rstrip('.')})"
    return "≢ reference" if verdict.outcome == "not equivalent" else f"≢ reference ({verdict.outcome})"

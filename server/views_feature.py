"""The plan view and the model view in the editor: the pages ``plansight plan --report`` and
``plansight model --report`` write, answered by two commands and offered by code lenses.

* ``plansight.server.planView`` answers a plan's view page, drawn from the simulation the plan feature
  already has (so the page, the lens and the hints never disagree); a **code lens** *Show plan view*
  sits on the plan's first line.
* ``plansight.server.modelView`` answers a domain's or a problem's model view page; a **code lens**
  *Show model view* sits on ``(:types`` of a domain and on ``(:objects`` and ``(:init`` of a problem.

Each answer is a whole, self-contained page with its own Content-Security-Policy; the VS Code
extension shows it in a locked-down webview (docs/server-features.md). Editors without webviews can
save the ``html`` and open it in a browser.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lsprotocol import types

from plansight.analyses.editing.model_html import model_html
from plansight.analyses.editing.model_view import domain_model, problem_model
from plansight.analyses.plans.plan_html import plan_html
from plansight.analyses.plans.plan_view import plan_view
from plansight.server.command_arguments import command_context
from plansight.server.commands import MODEL_VIEW, PLAN_VIEW, ViewResult
from plansight.server.context import DocumentContext, in_worker
from plansight.server.feature_contract import HubSlot, ServerFeature
from plansight.server.feature_hub import Provider
from plansight.server.plan_feature import PlanFeature

MODEL_SECTIONS = {"domain": (":types",), "problem": (":objects", ":init")}
"""The section keywords that carry the *Show model view* lens, per kind of file."""


class ViewsFeature(ServerFeature):
    """The plan view and model view commands, and the lenses that open them."""

    commands = (PLAN_VIEW.id, MODEL_VIEW.id)
    requires = (PlanFeature,)

    def providers(self) -> Sequence[tuple[HubSlot, Provider]]:
        return [("code_lens", self.code_lens)]

    def register(self) -> None:
        """Install the two view commands."""
        server = self._server

        @server.command(PLAN_VIEW.id)
        async def plan_view_command(*arguments: Any) -> ViewResult:
            context = await command_context(self._server, arguments, "plan", "a plan")
            return await in_worker(self._server, self.plan_page, context)

        @server.command(MODEL_VIEW.id)
        async def model_view_command(*arguments: Any) -> ViewResult:
            context = await command_context(self._server, arguments, ("domain", "problem"),
                                            "a domain or a problem")
            return await in_worker(self._server, self.model_page, context)

    def plan_page(self, context: DocumentContext) -> ViewResult:
        """The plan view page of a plan document."""
        job = self._server.feature_of(PlanFeature).plan_job(context)
        view = plan_view(job)
        return {"title": f"Plan view: {view['name']}", "html": plan_html(view)}

    def model_page(self, context: DocumentContext) -> ViewResult:
        """The model view page of a domain or problem document (a file that does not parse far enough to
        have a model gets a page saying so)."""
        parsed = context.parsed
        if parsed.domain is not None:
            view = domain_model(parsed.domain, context.path)
        elif parsed.problem is not None:
            domain = context.domain.domain if context.domain is not None else None
            view = problem_model(parsed.problem, context.path, domain)
        else:
            raise ValueError(f"{context.uri} has errors that stop it from being read; fix them first")
        return {"title": f"Model view: {view['name']}", "html": model_html(view)}

    async def code_lens(self, context: DocumentContext, params: types.CodeLensParams) -> list[types.CodeLens]:
        """*Show plan view* on a plan's first line; *Show model view* on a domain's ``(:types`` and a
        problem's ``(:objects`` and ``(:init``."""
        arguments = [{"uri": context.uri}]
        if context.kind == "plan" and context.parsed.plan is not None:
            start = types.Position(line=0, character=0)
            return [types.CodeLens(range=types.Range(start=start, end=start), command=types.Command(
                title="Show plan view", command=PLAN_VIEW.id, arguments=arguments))]
        model = context.parsed.domain or context.parsed.problem
        if model is None or context.kind not in MODEL_SECTIONS:
            return []
        wanted = MODEL_SECTIONS[context.kind]
        return [types.CodeLens(range=context.mapper.range(section.span), command=types.Command(
            title="Show model view", command=MODEL_VIEW.id, arguments=arguments))
            for section in model.sections if section.key in wanted]

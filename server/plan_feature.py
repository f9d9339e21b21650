"""Plans in the editor: what each step changed, the state before it, and where the plan stands.

For a plan document linked to its problem and domain (docs/files-and-links.md) the plan is simulated
(:func:`~plansight.analyses.plans.simulate.simulate`) and shown as

* **inlay hints** after each executed step: ``+(holding a) -(on-table a)``, and with a reference plan
  the step's AQM label (docs/metrics.md);
* a **hover** on a step: the full state before it, grouped by predicate, and what the step changed;
* a **code lens** on the first line: ``valid`` or ``LEA 3/8 · 2 of 5 goals hold · StV 4``;
* two **commands** any client can execute: ``plansight.server.simulatePlan`` (the ``plansight plan``
  JSON of the plan) and ``plansight.server.stateAtStep`` (the state before the step on a line).

Hover, inlay hints and the lens of one version arrive as separate requests, often together; the
simulation (and the reference metrics) are computed once per (plan, problem, domain[, reference])
text and shared through the feature's two :class:`~plansight.analyses.memo.Memo` (one per server
instance). Inlay hints are produced only for the requested range, so a 10,000-step plan costs one
simulation and then a binary search per scroll.
"""

from __future__ import annotations

import asyncio
import bisect
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, cast

from lsprotocol import types

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.memo import Memo
from plansight.analyses.model.pddl import Domain, Plan, PlanStep, Problem
from plansight.analyses.plans.comparison import validity_checker
from plansight.analyses.plans.metrics import Evaluation, action_text, actions_of, evaluate
from plansight.analyses.plans.plan_json import PlanJob, PlanOptions, plan_json
from plansight.analyses.plans.report import (
    derived_lines,
    effect_items,
    effects_line,
    sorted_atoms,
    state_lines,
    summary_line,
    value_groups,
)
from plansight.analyses.plans.simulate import (
    Simulation,
    SnapEffect,
    TraceStep,
    Unparsed,
    simulate,
    step_text,
    unparsed_lines,
)
from plansight.analyses.plans.word_similarity import SimilarityVersion
from plansight.analyses.reasoning.plan_steps import applicable_before, step_key
from plansight.analyses.semantics.budget import WorkBudget
from plansight.analyses.semantics.state import EMPTY, State
from plansight.analyses.syntax.documents import ParsedDocument
from plansight.analyses.workspace.association import glob_matches, resolve_link
from plansight.server.command_arguments import argument_of, command_context
from plansight.server.commands import SIMULATE_PLAN, STATE_AT_STEP, SimulatePlanResult, StateAtStepResult
from plansight.server.context import DocumentContext
from plansight.server.feature_contract import HubSlot, ServerFeature
from plansight.server.feature_hub import Provider, refresh
from plansight.server.settings import simulation_budget

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer

logger = logging.getLogger(__name__)

SIMULATE_COMMAND = SIMULATE_PLAN.id
STATE_COMMAND = STATE_AT_STEP.id

LENS_TITLE_WIDTH = 100
"""A lens title longer than this (a long skip reason) is cut: the full text is in the diagnostics."""

AQM_MEANINGS = {
    "correct": "the same action as the reference plan's at this position",
    "misplaced": "an action of the reference plan, at another position",
    "same_act": "the right action name with arguments that are not all right",
    "diff_act": "a different action with some similarity in its arguments",
    "redundant": "resembles no unpaired action of the reference plan",
}

@dataclass(frozen=True, slots=True)
class ReferenceResult:
    """The reference plan of a plan and the plan metrics against it (``problem`` when unusable).

    The first comparison of a server's life loads WordNet (seconds); until it is done ``evaluation``
    is None and ``pending`` computes it, so the lens and the hints can answer without the metrics
    and ask the client to refresh when they are there.
    """

    path: str
    evaluation: Evaluation | None
    problem: str | None = None
    pending: Callable[[], Evaluation] | None = None


@dataclass(frozen=True, slots=True)
class PlanView:
    """One plan version as the editor shows it: its simulation, or why there is none."""

    plan: Plan | None
    simulation: Simulation | None
    not_simulated: str | None
    reference: ReferenceResult | None = None

    def step_index_at(self, offset: int) -> int | None:
        """The index of the simulated step whose text contains ``offset`` (ends included)."""
        if self.simulation is None:
            return None
        steps = self.simulation.steps
        position = bisect.bisect_right(steps, offset, key=lambda step: step.span.start) - 1
        if position >= 0 and offset <= steps[position].span.end:
            return position
        return None

    def labels_by_span(self) -> dict[Span, tuple[str, int | None]]:
        """AQM label (and the paired reference index) of each parsed step, keyed by its span."""
        if self.plan is None or self.reference is None or self.reference.evaluation is None:
            return {}
        alignment = self.reference.evaluation.alignment
        paired = {pair.index: pair.reference_index for pair in alignment.pairs}
        return {step.span: (label, paired.get(index))
                for index, (step, label) in enumerate(zip(self.plan.steps, alignment.labels, strict=False))}


class PlanFeature(ServerFeature):
    """Inlay hints, hover, code lens and commands for plan documents."""

    commands = (SIMULATE_COMMAND, STATE_COMMAND)

    def __init__(self, server: PlansightServer) -> None:
        self._server = server
        self._simulations: Memo[tuple[str, str, str, float], Simulation] = Memo(8)
        self._evaluations: Memo[tuple[str, str, str, str, str], Evaluation] = Memo(8)
        for memo in (self._simulations, self._evaluations):  # forgotten with the texts they used
            server.diagnostics.caches.track(memo)
        self._computing: set[str] = set()
        """reference plans whose metrics are being computed in the background (event loop only)"""

    def simulation(self, context: DocumentContext, plan: Plan, problem: Problem,
                   domain: Domain) -> Simulation:
        """The plan's simulation against its linked problem and domain, once per version of the three
        texts, shared by every feature that reads it (hints, hover, lens, the repair quick fix)."""
        assert context.problem is not None and context.domain is not None
        epsilon = context.settings.simulation_epsilon
        key = (context.text, context.problem.text, context.domain.text, epsilon)
        budget = simulation_budget(context.settings)
        return self._simulations.get(key, lambda: _simulate(context.parsed, plan, problem, domain, budget,
                                                            epsilon))

    def providers(self) -> Sequence[tuple[HubSlot, Provider]]:
        # The plan feature comes before the editing features in FEATURE_ORDER (app.py): on a plan step
        # the state before it is what a user hovers for, and the generic hover (an action's
        # signature) would otherwise answer first and hide it. Anywhere else this provider returns
        # None and the others answer.
        return [("inlay_hint", self.inlay_hints), ("hover", self.hover), ("code_lens", self.code_lens)]

    def register(self) -> None:
        """Install the simulate and state commands."""
        server = self._server

        @server.command(SIMULATE_COMMAND)
        async def simulate_plan(*arguments: Any) -> SimulatePlanResult:
            context = await command_context(self._server, arguments, "plan", "a plan")
            return await asyncio.to_thread(self.plan_json, context)

        @server.command(STATE_COMMAND)
        async def state_at_step(*arguments: Any) -> StateAtStepResult | None:
            context = await command_context(self._server, arguments, "plan", "a plan")
            line = argument_of(arguments, "line")
            if not isinstance(line, int) or isinstance(line, bool) or line < 0:
                raise ValueError(f"{STATE_COMMAND} needs a 0-based line number, got {line!r}")
            return await asyncio.to_thread(self.state_at_line, context, line)

    # --- the simulation of a document -------------------------------------------------------------

    def view(self, context: DocumentContext) -> PlanView | None:
        """The simulated plan of a plan document (None for any other kind of document), with the
        reference metrics if they are ready."""
        if context.kind != "plan":
            return None
        plan = context.parsed.plan
        if plan is None:
            return PlanView(None, None, "the plan could not be read")
        domain_doc, problem_doc = context.domain, context.problem
        if problem_doc is None:
            return PlanView(plan, None, "no problem is linked to this plan (add `; @problem PATH`)")
        if domain_doc is None:
            return PlanView(plan, None, "no domain is linked to this plan's problem")
        problem, domain = problem_doc.problem, domain_doc.domain
        if problem is None or domain is None:
            broken = "problem" if problem is None else "domain"
            return PlanView(plan, None, f"the {broken} has errors that stop it from being read")
        simulation = self.simulation(context, plan, problem, domain)
        unknown = simulation.skipped_reason or simulation.stopped_reason
        if unknown is not None:  # not simulated, or its budget ran out: no verdict to show
            return PlanView(plan, simulation, unknown)
        reference = self._reference(context, plan, simulation, problem_doc, domain_doc)
        return PlanView(plan, simulation, None, reference)

    def _reference(self, context: DocumentContext, plan: Plan, simulation: Simulation,
                   problem_doc: ParsedDocument, domain_doc: ParsedDocument) -> ReferenceResult | None:
        path = self.reference_plan_path(context)
        if path is None:
            return None
        reference = context.read_partner(path)
        if reference is None:
            return ReferenceResult(path, None, f"the reference plan `{path}` cannot be read")
        if reference.plan is None or reference.kind != "plan":
            return ReferenceResult(path, None, f"`{path}` is not a plan")
        problem, domain = problem_doc.problem, domain_doc.domain
        assert problem is not None and domain is not None
        version: SimilarityVersion = "v2" if context.settings.similarity_version == "v2" else "v1"
        key = (context.text, reference.text, problem_doc.text, domain_doc.text, version)
        valid = bool(simulation.valid)

        def compute() -> Evaluation:
            # no potential search (pi1): it simulates thousands of variants, too slow for a lens
            is_valid = validity_checker(domain, problem, simulation.world)
            return evaluate(actions_of(plan), actions_of(reference.plan or Plan()), valid=valid,
                            is_valid=is_valid, version=version, with_potential=False)

        ready = self._evaluations.ready(key)
        if ready is not None:
            return ReferenceResult(path, ready)
        return ReferenceResult(path, None, pending=lambda: self._evaluations.get(key, compute))

    async def _view_now(self, context: DocumentContext) -> PlanView | None:
        """The view for a lens or hints: computed off the loop; pending metrics finish in the
        background and then the client is asked to re-request lenses and hints."""
        view = await asyncio.to_thread(self.view, context)
        reference = view.reference if view is not None else None
        if reference is not None and reference.pending is not None and reference.path not in self._computing:
            self._computing.add(reference.path)
            self._server.spawn(self._finish(reference.path, reference.pending))
        return view

    async def _finish(self, path: str, pending: Callable[[], Evaluation]) -> None:
        try:
            await asyncio.to_thread(pending)
        except Exception:
            logger.exception("comparing with the reference plan %s failed", path)
        finally:
            self._computing.discard(path)
        await refresh(self._server, "code_lens")
        await refresh(self._server, "inlay_hint")

    def reference_plan_path(self, context: DocumentContext) -> str | None:
        """``; @reference-plan PATH`` (relative to the plan), else the first matching
        ``plansight.referencePlanGlobs`` entry (``{stem}`` = the plan's name without extension)."""
        directive = context.parsed.directive("reference-plan")
        if directive is not None:
            return resolve_link(context.path, directive.value)
        globs = context.settings.reference_plan_globs
        if not globs or not os.path.isabs(context.path):
            return None
        root = self._server.workspace_root or os.path.dirname(context.path)
        for entry in globs:
            pattern = entry.glob if os.path.isabs(entry.glob) else os.path.join(root, entry.glob)
            if glob_matches(pattern, context.path):
                target = entry.reference_plan.replace("{stem}", PurePath(context.path).stem)
                return os.path.normpath(target if os.path.isabs(target) else os.path.join(root, target))
        return None

    # --- providers ----------------------------------------------------------------------------------

    async def inlay_hints(self, context: DocumentContext,
                          params: types.InlayHintParams) -> list[types.InlayHint]:
        """Each visible step's effects and AQM label as inlay hints, as the settings ask."""
        view = await self._view_now(context)
        if view is None or view.simulation is None:
            return []
        show_effects = context.settings.inlay_plan_effects
        labels = view.labels_by_span() if context.settings.inlay_aqm_labels else {}
        wanted = context.mapper.span(params.range)
        simulation = view.simulation
        hints: list[types.InlayHint] = []
        steps = simulation.steps
        first = max(bisect.bisect_left(steps, wanted.start, key=lambda step: step.span.end), 0)
        last = bisect.bisect_left(steps, max(wanted.end, wanted.start + 1), key=lambda step: step.span.start)
        for index in range(first, last):
            step = steps[index]
            position = context.mapper.position(step.span.end)
            label = labels.get(step.span)
            if label is not None:
                hints.append(_label_hint(position, label, view))
            if show_effects and simulation.temporal:
                effects = simulation.effects_of_step(index)
                if effects:
                    hints.append(_snap_effects_hint(position, index, effects))
            elif show_effects and index < len(simulation.trace):
                hints.append(_effects_hint(position, simulation.trace[index]))
        return hints

    def hover(self, context: DocumentContext, params: types.HoverParams) -> types.Hover | None:
        """On a plan step, the state before it and what the step changes; None elsewhere so other providers
        answer.
        """
        view = self.view(context)
        if view is None or view.simulation is None or view.not_simulated is not None:
            return None
        index = view.step_index_at(context.mapper.offset(params.position))
        if index is None:
            return None
        simulation = view.simulation
        step = simulation.steps[index]
        text = hover_markdown(simulation, index, _label_line(view, step))
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
                           range=context.mapper.range(step.span))

    async def code_lens(self, context: DocumentContext, params: types.CodeLensParams) -> list[types.CodeLens]:
        """The summary lens on the plan's first line (valid, or LEA and the goals that hold), which runs the
        simulate command.
        """
        view = await self._view_now(context)
        if view is None:
            return []
        title = lens_title(view)
        if len(title) > LENS_TITLE_WIDTH:
            title = title[:LENS_TITLE_WIDTH - 1] + "…"
        start = types.Position(line=0, character=0)
        return [types.CodeLens(range=types.Range(start=start, end=start), command=types.Command(
            title=title, command=SIMULATE_COMMAND, arguments=[{"uri": context.uri}]))]

    # --- commands ----------------------------------------------------------------------------------

    def plan_json(self, context: DocumentContext) -> SimulatePlanResult:
        """The ``plansight plan --format json`` object of the plan (docs/cli.md), built by the same code
        as the CLI's from the simulation the editor already has, so both always agree."""
        job = self.plan_job(context)
        version: SimilarityVersion = "v2" if context.settings.similarity_version == "v2" else "v1"
        return cast(SimulatePlanResult, plan_json(job, PlanOptions(similarity=version)))

    def plan_job(self, context: DocumentContext) -> PlanJob:
        """The plan with its partners and the simulation the editor already has, in the form the CLI's
        reports (JSON, the plan view) are built from."""
        view = self.view(context)
        assert view is not None
        simulation = view.simulation
        domain, problem = context.domain, context.problem
        return PlanJob(
            context.path, context.parsed,
            domain=domain.domain if domain is not None else None,
            problem=problem.problem if problem is not None else None,
            domain_path=domain.path if domain is not None else None,
            problem_path=problem.path if problem is not None else None,
            reference_plan_path=self.reference_plan_path(context),
            steps=list(simulation.steps) if simulation is not None else [],
            world=simulation.world if simulation is not None else None,
            simulation=simulation,
            error=view.not_simulated if simulation is None else None)

    def state_at_line(self, context: DocumentContext, line: int) -> StateAtStepResult | None:
        """The state before the step written on ``line`` (0-based); None when no step is there."""
        view = self.view(context)
        if view is None or view.simulation is None or view.not_simulated is not None:
            return None
        simulation = view.simulation
        start = context.mapper.offset(types.Position(line=line, character=0))
        end = context.mapper.offset(types.Position(line=line + 1, character=0))
        position = bisect.bisect_left(simulation.steps, start, key=lambda step: step.span.start)
        if position >= len(simulation.steps) or simulation.steps[position].span.start >= max(end, start + 1):
            return None
        step = simulation.steps[position]
        before = simulation.step_happening(position)
        reached = before <= len(simulation.trace)
        state = simulation.state_before(before) if reached else EMPTY
        happening = simulation.happenings[before] if before < len(simulation.happenings) else None
        return {"index": position, "action": step_text(step),
                "state": sorted_atoms(state),
                "values": [value for _, values in value_groups(state) for value in values],
                "derived": sorted_atoms(State(simulation.derived_before(before))) if reached else [],
                "happening": None if happening is None else {
                    "index": happening.index, "time": happening.time, "label": happening.label},
                "reached": reached}


# --- pure helpers ------------------------------------------------------------------------------------


def _simulate(document: ParsedDocument, plan: Plan, problem: Problem, domain: Domain,
              budget: WorkBudget, epsilon: float) -> Simulation:
    """Simulate as ``plansight lint`` does: unreadable lines count as steps in their places."""
    return simulate(domain, problem, unparsed_lines(document.text, plan, document.diagnostics), budget=budget,
                    epsilon=epsilon)


def _effects_hint(position: types.Position, step: TraceStep) -> types.InlayHint:
    items = effect_items(step.added, step.deleted, step.changed)
    full = "\n".join(f"- `{item}`" for item in items) or "nothing changed"
    derived = effect_items(step.derived_added, step.derived_deleted)
    if derived:
        listed = "\n".join(f"- `{item}`" for item in derived)
        full += f"\n\nDerived atoms (by the `:derived` rules):\n\n{listed}"
    return types.InlayHint(
        position=position, label=effects_line(step.added, step.deleted, changed=step.changed),
        padding_left=True,
        tooltip=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                    value=f"Step {step.index + 1} `{step.action}` changed:\n\n{full}"))


def _snap_effects_hint(position: types.Position, index: int, effects: list[SnapEffect]) -> types.InlayHint:
    """A temporal step's changes at its start and at its end (``start -(dark a) · end +(lit a)``)."""
    parts = [f"{e.snap.kind} {effects_line(e.added, e.deleted, changed=e.changed)}" if e.snap.kind != "at"
             else effects_line(e.added, e.deleted, changed=e.changed) for e in effects]
    lines = [f"- {e.snap.kind} at time {e.snap.time:g} (happening {e.happening + 1}): "
             + (" ".join(f"`{item}`" for item in effect_items(e.added, e.deleted, e.changed))
                or "nothing changed")
             for e in effects]
    return types.InlayHint(
        position=position, label=" · ".join(parts), padding_left=True,
        tooltip=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                    value=f"Step {index + 1} `{effects[0].snap.text}` changed:\n\n"
                                          + "\n".join(lines)))


def _label_hint(position: types.Position, label: tuple[str, int | None], view: PlanView) -> types.InlayHint:
    value, paired = label
    tooltip = f"AQM label `{value}`: {AQM_MEANINGS.get(value, value)}."
    partner = _paired_action(view, paired)
    if partner is not None:
        tooltip += f" Paired with step {partner[0]} of the reference plan, `{partner[1]}`."
    return types.InlayHint(position=position, label=value, padding_left=True,
                           tooltip=types.MarkupContent(kind=types.MarkupKind.Markdown, value=tooltip))


def _label_line(view: PlanView, step: PlanStep | Unparsed) -> str | None:
    label = view.labels_by_span().get(step.span)
    if label is None:
        return None
    value, paired = label
    line = f"AQM: `{value}` ({AQM_MEANINGS.get(value, value)})"
    partner = _paired_action(view, paired)
    if partner is not None:
        line += f", paired with reference step {partner[0]} `{partner[1]}`"
    return line


def _paired_action(view: PlanView, paired: int | None) -> tuple[int, str] | None:
    """The reference step (1-based number, action) a step was paired with by the AQM alignment."""
    evaluation = view.reference.evaluation if view.reference is not None else None
    if paired is None or evaluation is None:
        return None
    return paired + 1, action_text(evaluation.reference[paired])


def hover_markdown(simulation: Simulation, index: int, label_line: str | None = None) -> str:
    """The hover of step ``index``: what happened to it, then the state before it."""
    if simulation.temporal:
        return _temporal_hover(simulation, index, label_line)
    step = simulation.steps[index]
    text = step_text(step)
    failure = simulation.failure
    if index < len(simulation.trace):
        trace = simulation.trace[index]
        effects = " ".join(f"`{item}`" for item in effect_items(trace.added, trace.deleted, trace.changed))
        lines = [f"**Step {index + 1}** `{text}` — executed",
                 f"Changed: {effects}" if effects else "It changed nothing (a redundant step)."]
        derived = " ".join(f"`{item}`" for item in effect_items(trace.derived_added, trace.derived_deleted))
        if derived:
            lines.append(f"Derived atoms changed: {derived}")
    elif failure is not None and index == failure.index:
        lines = [f"**Step {index + 1}** `{text}` — not executable", failure.message]
    else:
        assert failure is not None
        lines = [f"**Step {index + 1}** `{text}` — not reached",
                 f"The plan stops at step {failure.index + 1} `{failure.action}`, which is not executable."]
    if label_line is not None:
        lines.append(label_line)
    applicability = applicability_line(simulation, index)
    if applicability is not None:
        lines.append(applicability)
    if index <= len(simulation.trace):
        lines += _state_blocks(simulation, index, f"State before step {index + 1}")
    return "\n\n".join(lines)


def _state_blocks(simulation: Simulation, before: int, heading: str) -> list[str]:
    """The state before step (or happening) ``before`` as hover blocks: its atoms and fluent values, then,
    with ``:derived`` rules, the atoms they derive, apart (no effect sets those; the rules do)."""
    state = simulation.state_before(before)
    body = "\n".join(state_lines(state)) or "; (no atom holds)"
    count = len(state.atoms)
    fluents = len(state.values)
    values = f", {fluents} fluent value{'s' if fluents != 1 else ''}" if fluents else ""
    blocks = [f"{heading} ({count} atom{'s' if count != 1 else ''}{values}):\n```pddl\n{body}\n```"]
    if simulation.world is not None and simulation.world.derived is not None:
        derived_atoms = simulation.derived_before(before)
        body = "\n".join(derived_lines(derived_atoms)) or "; (no derived atom holds)"
        count = len(derived_atoms)
        blocks.append(f"Derived by the `:derived` rules ({count} atom{'s' if count != 1 else ''}):"
                      f"\n```pddl\n{body}\n```")
    return blocks


def _temporal_hover(simulation: Simulation, index: int, label_line: str | None) -> str:
    """A temporal step's hover: its start and end happenings, what each changed, the state before it
    starts (docs/beyond-classical-temporal.md)."""
    text = step_text(simulation.steps[index])
    failure = simulation.failure
    lines = [f"**Step {index + 1}** `{text}`"]
    for effect in simulation.effects_of_step(index):
        changed = " ".join(f"`{item}`" for item in effect_items(effect.added, effect.deleted, effect.changed))
        lines.append(f"{effect.snap.kind.capitalize()} at time {effect.snap.time:g} (happening "
                     f"{effect.happening + 1}): " + (f"changed {changed}" if changed else "changed nothing"))
    if failure is not None and failure.span == simulation.steps[index].span:
        lines.append(failure.message)
    elif failure is not None and index in set(simulation.unreached):
        lines.append(f"Not reached: the plan stops at happening {failure.index + 1}.")
    if label_line is not None:
        lines.append(label_line)
    start = simulation.step_happening(index)
    if start <= len(simulation.trace):
        lines += _state_blocks(simulation, start, "State before it starts")
    return "\n\n".join(lines)


def applicability_line(simulation: Simulation, index: int) -> str | None:
    """How many actions were applicable in the state before the step, and whether the step was one of
    them (the action-applicability task of Murthy, Mink and Sanneman 2025); None for an unreached step."""
    applicable = applicable_before(simulation, index)
    if applicable is None:
        return None
    key = step_key(simulation.steps[index])
    count = len(applicable)
    among = "this step was one of them" if key in set(applicable) else "this step was not one of them"
    if count == 0:
        return "No action was applicable before this step."
    noun = "action was" if count == 1 else "actions were"
    return f"{count} {noun} applicable before this step; {among}."


def lens_title(view: PlanView) -> str:
    """The summary text of the plan lens, or why the plan was not simulated."""
    simulation = view.simulation
    if view.not_simulated is not None or simulation is None:
        return f"plan not simulated: {view.not_simulated}"
    goals = simulation.goals
    evaluation = view.reference.evaluation if view.reference is not None else None
    title = summary_line(
        valid=simulation.valid, lea=simulation.lea, length=simulation.length,
        goals_satisfied=len(goals.satisfied), goals_total=len(goals.satisfied) + len(goals.unsatisfied),
        stv=evaluation.stv if evaluation is not None else None,
        lcs=len(evaluation.subsequence) if evaluation is not None else None,
        score=evaluation.score if evaluation is not None else None,
        metric=simulation.metric.summary if simulation.metric is not None else None,
        broken_constraints=len(simulation.broken_constraints))
    if view.reference is not None and view.reference.problem is not None:
        title += f" · {view.reference.problem}"
    elif view.reference is not None and view.reference.evaluation is None:
        title += " · comparing with the reference plan…"
    return title

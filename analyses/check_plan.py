"""Static checks of a plan: every step must name a domain action with the right number of arguments,
each a declared object of a compatible type. These are the "hallucination" failures of LLM-written
plans; whether the steps are executable is for the simulator to say.
"""

from __future__ import annotations

from typing import Any

from .argument_checks import ObjectTable, Signatures, arity_message, fits, mismatch_message, swapped
from .diagnostics import Diagnostic, make
from .model import Domain, Name, Plan, PlanStep, Problem, atom_text
from .suggest import suffix
from .vocabulary import vocabulary

_MISSING = object()


def check_plan(plan: Plan, problem: Problem | None, domain: Domain | None) -> list[Diagnostic]:
    if domain is None:
        return []
    vocab = vocabulary(domain)
    typed = vocab.typing or bool(vocab.types)
    objects = ObjectTable(vocab, problem, typed) if problem is not None else None
    actions = Signatures(vocab.actions, vocab.types)
    action_names = [a.name.display for a in vocab.actions.values() if a.kind in ("action", "durative-action")]
    out: list[Diagnostic] = []
    for step in plan.steps:
        name = step.action
        action = vocab.actions.get(name.key)
        if action is None or action.kind not in ("action", "durative-action"):
            if action is None:
                message = (
                    f"`{name.display}` is not an action of domain `{domain.name.display}`."
                    f"{suffix(name.display, action_names)}"
                )
            else:
                message = (
                    f"`{name.display}` is {'a process' if action.kind == 'process' else 'an event'}, which "
                    "happens by itself when its condition holds: a plan cannot contain it."
                )
            out.append(make("unknown-action", message, name.span))
            if objects is not None:
                _check_objects(step, objects, out)
            continue
        signature = actions.get(name.key)
        assert signature is not None
        parameters, wanted = signature
        if len(parameters) != len(step.args):
            out.append(
                make(
                    "wrong-arity",
                    arity_message(name, len(parameters), len(step.args)),
                    name.span,
                    data=(("expected", str(len(parameters))),),
                )
            )
            if objects is not None:
                _check_objects(step, objects, out)
            continue
        if objects is None:
            continue
        values: list[Any] = [objects.ancestry.get(arg.key, _MISSING) for arg in step.args]
        for index, (arg, value) in enumerate(zip(step.args, values, strict=True)):
            if value is _MISSING:
                out.append(_undeclared(arg, objects))
            elif not fits(value, wanted[index]):
                actual = objects.declared[arg.key].type
                message = mismatch_message(arg, actual, name, index, parameters[index])
                other = swapped(values, wanted, index)
                if other is not None:
                    fixed = [a.display for a in step.args]
                    fixed[index], fixed[other] = fixed[other], fixed[index]
                    message += f" The arguments look swapped: `{atom_text(name.display, fixed)}`."
                out.append(make("type-mismatch", message, arg.span))
    return out


def _check_objects(step: PlanStep, objects: ObjectTable, out: list[Diagnostic]) -> None:
    for arg in step.args:
        if arg.key not in objects.ancestry:
            out.append(_undeclared(arg, objects))


def _undeclared(arg: Name, objects: ObjectTable) -> Diagnostic:
    return make(
        "undeclared-object",
        f"`{arg.display}` is neither an object of the problem nor a constant of the domain."
        f"{objects.suggestion(arg.display)}",
        arg.span,
    )

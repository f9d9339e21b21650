"""The fast constructors of the simulators' per-step records (analyses/plans/slot_init.py): generated from
the dataclass fields, so a field added, renamed, reordered or given a new default is a parameter of the
constructor at once, and a record is built with exactly the values it was given."""

from __future__ import annotations

import inspect
from dataclasses import MISSING, dataclass, field, fields, replace

import pytest

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.pddl import Name, PlanStep
from plansight.analyses.plans.simulation import Snap, TraceStep
from plansight.analyses.plans.slot_init import slot_init

STEP = PlanStep(Name("pick-up", "pick-up"), (Name("a", "a"),), None, None, Span(0, 12))


@pytest.mark.parametrize("cls", [TraceStep, Snap])
def test_the_constructor_takes_the_fields_in_order_with_their_defaults(cls: type) -> None:
    parameters = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert [(p.name, p.default) for p in parameters] == [
        (f.name, inspect.Parameter.empty if f.default is MISSING else f.default) for f in fields(cls)]


def test_a_trace_step_holds_what_it_was_given_positionally_or_by_name() -> None:
    values = (3, STEP, (("clear", "a"),), (("on", "a", "b"),), ((("fuel",), 1.0, 2.0),),
              (("above", "a"),), (("below", "b"),), "(pick-up a) start")
    positional = TraceStep(*values)
    named = TraceStep(**{f.name: v for f, v in zip(fields(TraceStep), values, strict=True)})
    assert positional == named
    assert tuple(getattr(positional, f.name) for f in fields(TraceStep)) == values
    assert positional.action == "(pick-up a) start"
    short = TraceStep(0, STEP, (), ())
    assert (short.changed, short.derived_added, short.derived_deleted, short.label) == ((), (), (), None)
    assert short.action == "(pick-up a)"
    assert replace(short, label="x").label == "x"


def test_records_stay_frozen_and_reject_unknown_or_missing_arguments() -> None:
    snap = Snap("start", 0, "(light a)", 1.5, Span(0, 9))
    assert (snap.kind, snap.step, snap.text, snap.time, snap.label) == ("start", 0, "(light a)", 1.5,
                                                                       "(light a) start")
    with pytest.raises(AttributeError):
        snap.time = 2.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        Snap("start", 0, "(light a)", 1.5)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        TraceStep(0, STEP, (), (), colour="red")  # type: ignore[call-arg]


def test_a_field_added_to_a_record_is_a_parameter_of_its_constructor() -> None:
    @slot_init
    @dataclass(frozen=True, slots=True)
    class Record:
        first: int
        added: str = "default"

    assert Record(1) == Record(1, "default")
    assert Record(1, added="x").added == "x"


def test_fields_the_generated_constructor_cannot_build_are_refused() -> None:
    with pytest.raises(TypeError):
        @slot_init
        @dataclass(frozen=True, slots=True)
        class Factory:
            items: list[int] = field(default_factory=list)

    with pytest.raises(TypeError):
        @slot_init
        @dataclass(frozen=True)
        class Unslotted:
            value: int

"""A faster constructor for the frozen, slotted dataclasses the simulators build once per step.

A frozen dataclass's generated ``__init__`` sets each field through ``object.__setattr__``: for
:class:`~plansight.analyses.plans.simulation.TraceStep`, one per executed step with eight fields, that was
1.19 µs a step, a third of simulating a classical step; calling the slots' own setters takes 0.71 µs
(benchmarks/RESULTS.md, plan simulation). The constructor is generated here from the dataclass's fields,
once at import, so its parameters, their order and their defaults cannot drift from the fields; type
checkers keep reading the dataclass's own signature.
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import Any, TypeVar

_Class = TypeVar("_Class", bound=type)


def slot_init(cls: _Class) -> _Class:
    """Give ``cls`` (a ``@dataclass(frozen=True, slots=True)``, the decorator above it) an ``__init__``
    that calls each slot's setter: the same parameters as the dataclass's own, but faster."""
    members = fields(cls)
    namespace: dict[str, Any] = {}
    parameters: list[str] = []
    body: list[str] = []
    for number, member in enumerate(members):
        if not member.init or member.default_factory is not MISSING or member.kw_only:
            raise TypeError(f"{cls.__name__}.{member.name}: only positional fields with plain defaults")
        slot = vars(cls).get(member.name)
        if slot is None or not hasattr(slot, "__set__"):
            raise TypeError(f"{cls.__name__} is not a slotted dataclass: {member.name} has no slot")
        namespace[f"_set{number}"] = slot.__set__
        if member.default is MISSING:
            parameters.append(member.name)
        else:
            namespace[f"_default{number}"] = member.default
            parameters.append(f"{member.name}=_default{number}")
        body.append(f"    _set{number}(self, {member.name})")
    source = f"def __init__(self, {', '.join(parameters)}):\n" + "\n".join(body or ["    pass"]) + "\n"
    exec(source, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__annotations__ = dict(getattr(vars(cls).get("__init__"), "__annotations__", {}))
    setattr(cls, "__init__", init)  # noqa: B010 - mypy refuses an assignment to a class's __init__
    return cls

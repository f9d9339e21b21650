"""How a simulated plan is written for people: a step's effects, a state, the one-line summary.

The editor (inlay hints, hover, code lens) and the CLI's text output describe the same simulation, so
they share these words: a user who reads `+(holding a) -(on-table a)` in the terminal sees the same in
the editor. Everything here takes plain values (ground atoms, counts) and returns strings.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import groupby

from plansight.analyses.plans.simulate import ValueChange, number_text
from plansight.analyses.semantics.fluents import term_text
from plansight.analyses.semantics.state import State
from plansight.analyses.semantics.world import GroundAtom, format_atom

EFFECTS_WIDTH = 60
"""Characters an inlay hint may take before the rest is summarised as "… +N": a hint wider than
this pushes the plan text off the screen, and the full list is one hover away in the tooltip."""


def value_item(change: ValueChange) -> str:
    """``(fuel t1) 10→4``: a fluent's value before and after the step (``undefined`` before its first)."""
    term, before, after = change
    return f"{term_text(term)} {number_text(before)}→{number_text(after)}"


def effect_items(added: Iterable[GroundAtom], deleted: Iterable[GroundAtom],
                 changed: Iterable[ValueChange] = ()) -> list[str]:
    """``+(holding a)``, ``-(on-table a)``, ``(fuel t1) 10→4``: additions first, then deletions, then
    value changes, each group in the order given."""
    return [*("+" + format_atom(atom) for atom in added), *("-" + format_atom(atom) for atom in deleted),
            *(value_item(change) for change in changed)]


def derived_note(added: Sequence[GroundAtom], deleted: Sequence[GroundAtom]) -> str:
    """``derived: +(above a c) -(above b c)``: what a step's change did to the derived atoms, shown after
    its own effects and apart from them (no effect changes a derived atom; the rules do); empty when
    nothing derived changed."""
    items = effect_items(added, deleted)
    return "derived: " + " ".join(items) if items else ""


def effects_line(added: Sequence[GroundAtom], deleted: Sequence[GroundAtom],
                 width: int = EFFECTS_WIDTH, changed: Sequence[ValueChange] = ()) -> str:
    """The effects on one line of at most about ``width`` characters; what does not fit becomes
    ``… +N more`` (the first item is always shown, however long). A step that changed nothing
    says so rather than showing an empty hint."""
    items = effect_items(added, deleted, changed)
    if not items:
        return "no change"
    shown: list[str] = []
    used = 0
    for position, item in enumerate(items):
        rest = len(items) - position
        tail = len(f" … +{rest - 1} more") if rest > 1 else 0
        if shown and used + 1 + len(item) + tail > width:
            return " ".join(shown) + f" … +{rest} more"
        used += len(item) + (1 if shown else 0)
        shown.append(item)
    return " ".join(shown)


def state_groups(state: State) -> list[tuple[str, list[str]]]:
    """The atoms of a state sorted and grouped by predicate: ``[("clear", ["(clear a)", ...]), ...]``."""
    ordered = sorted(state.atoms)
    return [(predicate, [format_atom(atom) for atom in atoms])
            for predicate, atoms in groupby(ordered, key=lambda atom: atom[0])]


def state_lines(state: State) -> list[str]:
    """One line per predicate, its atoms side by side: a 40-atom state stays readable at a glance; then
    one line per function with its values as ``:init`` writes them, ``(= (fuel t1) 4)``."""
    return [*(" ".join(atoms) for _predicate, atoms in state_groups(state)),
            *(" ".join(values) for _function, values in value_groups(state))]


def value_groups(state: State) -> list[tuple[str, list[str]]]:
    """The fluent values of a state sorted and grouped by function: ``[("fuel", ["(= (fuel t1) 4)"])]``."""
    ordered = sorted(state.values.items())
    return [(function, [f"(= {term_text(term)} {number_text(value)})" for term, value in items])
            for function, items in groupby(ordered, key=lambda item: item[0][0])]


def derived_lines(derived: Iterable[GroundAtom]) -> list[str]:
    """The derived atoms of a state, one line per predicate like :func:`state_lines` (shown in a block
    of their own, after the basic atoms)."""
    return state_lines(State(frozenset(derived)))


def sorted_atoms(state: State) -> list[str]:
    """The atoms of a state as PDDL text, in a stable order (predicate, then arguments)."""
    return [format_atom(atom) for atom in sorted(state.atoms)]


def summary_line(*, valid: bool | None, lea: int | None, length: int, goals_satisfied: int,
                 goals_total: int, stv: int | None = None, lcs: int | None = None,
                 score: float | None = None, metric: str | None = None,
                 broken_constraints: int = 0) -> str:
    """``valid`` (``valid · (total-cost) = 12`` with the metric's value) or ``LEA 3/8 · 2 of 5 goals hold ·
    StV 4``; the reference metrics follow when known.

    An executable plan whose goal fails is not "valid" but has nothing to locate, so its summary
    leads with the goals instead of an LEA equal to the length; one that breaks PDDL3 trajectory
    constraints says how many (docs/beyond-classical-pddl3.md).
    """
    parts: list[str] = []
    if valid:
        parts.append("valid")
        if metric is not None:
            parts.append(metric)
    else:
        if lea is not None and lea < length:
            parts.append(f"LEA {lea}/{length}")
        elif lea is not None:
            parts.append(f"executable ({length} step{'s' if length != 1 else ''})")
        parts.append(f"{goals_satisfied} of {goals_total} goal holds" if goals_total == 1
                     else f"{goals_satisfied} of {goals_total} goals hold")
        if broken_constraints:
            parts.append(f"{broken_constraints} constraint{'s' if broken_constraints != 1 else ''} violated")
    if stv is not None:
        parts.append(f"StV {stv}")
    if lcs is not None:
        parts.append(f"LCS {lcs}")
    if score is not None:
        parts.append(f"score {score:.2f}")
    return " · ".join(parts)

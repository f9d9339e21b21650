"""A world state as one value: the ground atoms that hold and, once numeric fluents are simulated,
the values of ground function terms.

Plan simulation, the editor's state views, equivalence's state search and LTL trajectories pass
states around, store them in sets and compare them. A bare ``frozenset`` of atoms did that until
numeric fluents needed a second component; this class is the seam where fluent values land, so
callers that ask :meth:`State.holds` or :meth:`State.value` need no change when they do.

It is deliberately light: the equivalence search keeps up to 200,000 states in a set and a 10,000-step
simulation builds a state per step, so a state is two slots, and its hash is the atoms' frozenset's
(which CPython computes on first use and caches; nothing is hashed for states nobody puts in a set).
Hot loops that test many atoms take :attr:`State.atoms` once and test the frozenset.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, NoReturn

GroundAtom = tuple[str, ...]
"""``("on", "a", "b")``: the predicate then the arguments, all lower-cased keys."""
GroundTerm = tuple[str, ...]
"""``("fuel", "truck1")``: a function then its arguments, lower-cased keys like a ground atom."""
Number = float

_NO_VALUES: Mapping[GroundTerm, Number] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class StateDiff:
    """What changed between two states: atoms that became true / false, and function terms whose
    value changed as ``term -> (before, after)`` (None where undefined)."""

    added: frozenset[GroundAtom]
    deleted: frozenset[GroundAtom]
    changed: Mapping[GroundTerm, tuple[Number | None, Number | None]]

    def __bool__(self) -> bool:
        return bool(self.added or self.deleted or self.changed)


class State:
    """The atoms that hold (closed world: every other atom is false) and the defined fluent values.

    Immutable and hashable: two states are equal when they have the same atoms and the same values.
    """

    __slots__ = ("atoms", "values")

    atoms: frozenset[GroundAtom]
    values: Mapping[GroundTerm, Number]

    def __init__(self, atoms: frozenset[GroundAtom],
                 values: Mapping[GroundTerm, Number] = _NO_VALUES) -> None:
        setter = object.__setattr__
        setter(self, "atoms", atoms)
        setter(self, "values", MappingProxyType(dict(values)) if values else _NO_VALUES)

    @classmethod
    def of(cls, atoms: Iterable[GroundAtom], values: Mapping[GroundTerm, Number] = _NO_VALUES) -> State:
        """A state from any iterable of atoms (a set a simulation stepped forward, a list in a test)."""
        return cls(atoms if isinstance(atoms, frozenset) else frozenset(atoms), values)

    def apply(self, adds: Iterable[GroundAtom], deletes: Iterable[GroundAtom],
              values: Mapping[GroundTerm, Number] | None = None) -> State:
        """The state after an effect: deletes first, then adds (an atom both deleted and added holds);
        ``values`` replaces the fluent values when the effect changed some (they are kept otherwise)."""
        return State(self.atoms.difference(deletes).union(adds), self.values if values is None else values)

    def __contains__(self, atom: object) -> bool:
        # compiled checks of a world with numeric conditions read atoms and values from the same object
        return atom in self.atoms

    def holds(self, atom: GroundAtom) -> bool:
        """Whether ``atom`` is true (closed world: an atom not listed is false)."""
        return atom in self.atoms

    def value(self, term: GroundTerm) -> Number | None:
        """The value of a ground function term, None when the state does not define it."""
        return self.values.get(term)

    def diff(self, after: State) -> StateDiff:
        """What changes going from this state to ``after``."""
        if self.values is after.values:  # no value can differ (every step of a classical plan)
            changed: dict[GroundTerm, tuple[Number | None, Number | None]] = {}
        else:
            terms = self.values.keys() | after.values.keys()
            changed = {term: (self.values.get(term), after.values.get(term)) for term in terms
                       if self.values.get(term) != after.values.get(term)}
        return StateDiff(after.atoms - self.atoms, self.atoms - after.atoms, changed)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, State):
            return NotImplemented
        return self.atoms == other.atoms and (self.values is other.values or self.values == other.values)

    def __hash__(self) -> int:
        if self.values is _NO_VALUES:  # the empty mapping is always this one (see __init__)
            return hash(self.atoms)
        return hash((self.atoms, frozenset(self.values.items())))

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        raise AttributeError(f"a State is immutable (cannot set {name!r})")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"a State is immutable (cannot delete {name!r})")

    def __repr__(self) -> str:
        atoms = " ".join("(" + " ".join(atom) + ")" for atom in sorted(self.atoms))
        values = "".join(f" (= ({' '.join(term)}) {value:g})" for term, value in sorted(self.values.items()))
        return f"State({atoms}{values})"

    def __reduce__(self) -> tuple[Any, ...]:
        # slots plus a raising __setattr__ defeat the default pickling; worker processes need it
        return (State, (self.atoms, dict(self.values)))


EMPTY = State(frozenset())
"""The state where nothing holds."""

"""States as values: what the simulator, the state search and the editor rely on."""

from __future__ import annotations

import pickle

import pytest

from plansight.analyses.semantics.state import EMPTY, State


def test_states_with_the_same_atoms_are_one_set_member_whatever_built_them() -> None:
    built = State.of([("on", "a", "b"), ("clear", "a")])
    stepped = State.of({("clear", "a")}).apply([("on", "a", "b")], [])
    assert built == stepped and hash(built) == hash(stepped)
    assert len({built, stepped, EMPTY}) == 2


def test_fluent_values_take_part_in_equality_and_are_undefined_until_set() -> None:
    plain = State.of([("p",)])
    fuelled = State.of([("p",)], {("fuel", "t1"): 3.0})
    assert plain != fuelled
    assert fuelled.value(("fuel", "t1")) == 3.0
    assert plain.value(("fuel", "t1")) is None and fuelled.value(("fuel", "t2")) is None
    assert fuelled.apply([("q",)], [("p",)]).value(("fuel", "t1")) == 3.0


def test_apply_deletes_before_it_adds() -> None:
    state = State.of([("p",), ("q",)])
    after = state.apply(adds=[("p",), ("r",)], deletes=[("p",), ("q",)])
    assert after.atoms == frozenset({("p",), ("r",)})
    assert after.holds(("p",)) and not after.holds(("q",))
    assert state.atoms == frozenset({("p",), ("q",)})  # the original is untouched


def test_diff_lists_added_and_deleted_atoms_and_changed_values() -> None:
    before = State.of([("p",), ("q",)], {("fuel",): 2.0, ("cost",): 1.0})
    after = State.of([("q",), ("r",)], {("fuel",): 1.0, ("cost",): 1.0, ("load",): 4.0})
    diff = before.diff(after)
    assert diff.added == {("r",)} and diff.deleted == {("p",)}
    assert dict(diff.changed) == {("fuel",): (2.0, 1.0), ("load",): (None, 4.0)}
    assert not before.diff(before)


def test_a_state_cannot_be_changed_in_place() -> None:
    state = State.of([("p",)], {("fuel",): 1.0})
    with pytest.raises(AttributeError):
        state.atoms = frozenset()  # type: ignore[misc]
    with pytest.raises(TypeError):
        state.values[("fuel",)] = 2.0  # type: ignore[index]
    assert state.value(("fuel",)) == 1.0


def test_a_state_survives_pickling_for_worker_processes() -> None:
    state = State.of([("p", "a")], {("fuel",): 1.5})
    copy = pickle.loads(pickle.dumps(state))
    assert copy == state and copy.value(("fuel",)) == 1.5

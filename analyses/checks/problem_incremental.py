"""The checks of successive versions of one problem, each reusing what the previous version's check
learned about the parts that did not change.

Typing in a 1 MB problem changes one fact of tens of thousands, but a check from scratch
(:func:`~plansight.analyses.checks.problem.check_problem`) relates every fact to every other (duplicates,
contradictions, static goals) and looks every name up again: about 90 ms per keystroke. What a fact
contributes depends only on its content and on the context it is checked in (the domain, the
problem's ``:objects``), so a :class:`ProblemChecker` keeps, per element of ``:init`` and of the goal's
top-level conjunction, its key and whether it is clean, and per key how often it occurs. A new version
is compared with the previous one by *content*, never by offset: the unchanged elements on both sides
of the edit are found by identity, or, for nodes rebuilt by the parser with the same content (at other
offsets), by their names. Only the changed elements are looked at; the diagnostics are then made from
the current nodes of the few elements that have one (an unknown name, a duplicate, a contradiction, a
static goal), so every span is the current version's.

An incremental parse may leave ``:init`` and the goal as runs whose elements after the edit are the
previous version's nodes still to be moved (``syntax/runs.py``). The check never builds those lists:
it compares the runs' original nodes (the previous version's own objects, so found by identity in C),
and reads by index, moved, only the few elements it reports on. An edit at the start of ``:init`` of a
1 MB problem thus costs milliseconds instead of the copy of every fact after it.

The result is exactly that of a check from scratch, in the same order (``tests/test_problem_incremental.py``
compares both over random edit sequences). Anything the bookkeeping does not cover (``:init`` with
negated, timed or contingent elements, a goal that is not a flat ``(and ...)``, another domain, other
objects) is checked from scratch for that part, and the bookkeeping starts again from that version.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Container, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import attrgetter, is_
from typing import Any

from plansight.analyses.checks.problem import (
    CONTINGENT_REQUIREMENTS,
    FactKey,
    Tables,
    _key,
    _ProblemCheck,
    check_problem,
    goal_literal_of,
)
from plansight.analyses.diagnostics.diagnostic import Diagnostic
from plansight.analyses.model.deferred import Deferred, peek
from plansight.analyses.model.pddl import (
    And,
    Atom,
    Comparison,
    Domain,
    Formula,
    Modal,
    Name,
    Problem,
    TimedLiteral,
    TypedName,
    walk,
)
from plansight.analyses.syntax.runs import MovedAnd, Run

CLEAN, NAMES, ASSIGNMENT, OTHER = 0, 1, 2, 3
"""What an ``:init`` element needs on every version: nothing, its names checked again (it has a
diagnostic), the function-value checks (``(= (f a) 3)``), or, for any other element (a negated fact,
a stray ``(and ...)``, the ``()`` an editor's bracket closing leaves while a fact is typed), the
checks of the elements that are not plain atoms. The last two are run again on every version, in
the list's order, as a check from scratch runs them: they are few."""
FORMULA, STATIC = 1, 2
"""Bits of a goal conjunct: its names are checked again on every version (it has a diagnostic, or
is not a plain literal); it is a literal over a static predicate, decided by ``:init``."""


class ProblemChecker:
    """The checks of one problem file as it is edited; safe to call from several threads (a second
    caller while one check runs checks from scratch instead of waiting)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state: _State | None = None

    def check(self, problem: Problem, domain: Domain | None) -> list[Diagnostic]:
        """Every semantic diagnostic of ``problem``, as :func:`check_problem` gives them."""
        if not self._lock.acquire(blocking=False):
            return check_problem(problem, domain)
        try:
            previous, self._state = self._state, None  # a check that fails must not leave half an update
            check = _IncrementalCheck(problem, domain, previous)
            out = check.run()
            self._state = check.state
            return out
        finally:
            self._lock.release()


@dataclass(slots=True)
class _InitState:
    elements: Run
    keys: list[FactKey | None]
    """per element, the key of an atom (None for a function value)"""
    needs: bytearray
    """per element, CLEAN, NAMES or ASSIGNMENT"""
    counts: dict[FactKey, int]
    repeated: set[FactKey]
    """the keys listed more than once"""


@dataclass(slots=True)
class _GoalState:
    conjuncts: Run
    keys: list[FactKey | None]
    """per conjunct, the key of a ground literal's atom (None otherwise)"""
    bits: bytearray
    """per conjunct, FORMULA and STATIC"""
    positive: bytearray
    counts: dict[FactKey, list[int]]
    """per key, how often it is required true and false"""
    contradicted: set[FactKey]
    """the keys required both true and false"""


@dataclass(slots=True)
class _State:
    domain: Domain | None
    objects: Run | None
    """the ``:objects`` list as the parse left it (moved lazily, never built here); None when it is not a
    list of names (then a change of it is checked from scratch)"""
    tables: Tables
    objects_clean: bool
    init: _InitState | None = None
    goal: _GoalState | None = None


class _IncrementalCheck(_ProblemCheck):
    """One check of one version, given the bookkeeping of the previous one (None: from scratch)."""

    def __init__(self, problem: Problem, domain: Domain | None, previous: _State | None) -> None:
        objects = _as_run(peek(problem, "objects"))
        tables: Tables | None = None
        self.previous: _State | None = None
        self.renamed: frozenset[str] = frozenset()
        """the names an edit of ``:objects`` declared or undeclared: the elements naming one are looked
        at again (the others' names mean what they meant)"""
        if previous is not None and previous.domain is domain and objects is not None and (
                previous.objects is not None):
            old, new = previous.objects.originals(), objects.originals()
            start, old_stop, new_stop = _changed(old, new)
            if start == old_stop == new_stop:
                tables = _fresh(previous.tables)
            else:
                tables, self.renamed = _objects_edited(previous, old[start:old_stop], new[start:new_stop])
            if tables is not None:
                self.previous = previous
        if tables is None:
            tables = Tables(problem, domain)
        super().__init__(problem, domain, tables)
        self.state = _State(domain, objects, tables, False)
        self._columns: dict[str, tuple[Container[str], ...] | None] = {}

    # --- objects ---------------------------------------------------------------------------------------
    def check_objects(self) -> None:
        """Skipped when the objects and the domain are those of the previous version, which had nothing
        to say about them."""
        if self.previous is not None and self.previous.objects_clean:
            self.state.objects_clean = True
            return
        before = len(self.out)
        super().check_objects()
        self.state.objects_clean = len(self.out) == before

    # --- init --------------------------------------------------------------------------------------------
    def check_init(self) -> None:
        old = self.previous.init if self.previous is not None else None
        elements = _as_run(peek(self.problem, "init"))
        if elements is None:
            super().check_init()
            return
        if old is None:
            old = _InitState(Run.of(()), [], bytearray(), {}, set())
        originals = elements.originals()
        start, old_stop, new_stop = _changed(old.elements.originals(), originals)
        fresh = originals[start:new_stop]
        if not self._incremental_init(fresh, old.needs, start, old_stop):
            super().check_init()
            return
        keys, needs, counts, repeated = old.keys, old.needs, old.counts, old.repeated
        if self.renamed:  # before the splice below: the old positions name the old originals
            self._recheck_names(keys, needs, old.elements.originals(), start, old_stop)
        for key in keys[start:old_stop]:
            if key is not None:
                left = counts[key] - 1
                if left:
                    counts[key] = left
                    if left == 1:
                        repeated.discard(key)
                else:
                    del counts[key]
        added_keys: list[FactKey | None] = []
        added_needs = bytearray()
        for element in fresh:
            if type(element) is Atom:
                key = _key(element)
                count = counts.get(key, 0) + 1
                counts[key] = count
                if count == 2:
                    repeated.add(key)
                added_keys.append(key)
                added_needs.append(CLEAN if self.vocab is None or self.clean(element) else NAMES)
            else:
                added_keys.append(None)
                added_needs.append(ASSIGNMENT if type(element) is Comparison else OTHER)
        keys[start:old_stop] = added_keys
        needs[start:old_stop] = added_needs
        self.state.init = _InitState(elements, keys, needs, counts, repeated)
        self._report_init(elements, keys, needs, repeated)

    def _report_init(self, elements: Run, keys: list[FactKey | None], needs: bytearray,
                     repeated: set[FactKey]) -> None:
        """The diagnostics of the elements that have some, in the order a check from scratch makes them:
        per atom its duplicate then its names, then the function values."""
        marked = _positions(needs, NAMES)
        copies = [i for i, key in enumerate(keys) if key in repeated] if repeated else []
        first: dict[FactKey, Atom] = {}
        for index in sorted({*marked, *copies}) if copies else marked:
            element = elements.current(index)
            assert type(element) is Atom
            key = keys[index]
            if key in repeated:
                assert key is not None
                earlier = first.setdefault(key, element)
                if earlier is not element:
                    self.duplicate_fact(True, element, earlier)
            if needs[index] == NAMES:
                self.check_atom(element, None, "init")
        others = _positions(needs, ASSIGNMENT)
        if OTHER in needs:
            others = sorted(others + _positions(needs, OTHER))
        if others:
            self.check_other_init([elements.current(i) for i in others])

    def _recheck_names(self, keys: list[FactKey | None], needs: bytearray, originals: Sequence[Formula],
                       start: int, stop: int) -> None:
        """After an edit of ``:objects``: whether each atom outside ``[start, stop)`` that names a
        declared or undeclared object is clean now (found by its key; the others keep their answer)."""
        renamed = self.renamed
        for index in _naming(keys, renamed):
            atom = originals[index]
            if (index < start or index >= stop) and type(atom) is Atom:
                needs[index] = CLEAN if self.clean(atom) else NAMES

    def _incremental_init(self, fresh: Sequence[Formula], needs: bytearray, start: int, stop: int) -> bool:
        """Whether the bookkeeping can take the new elements ``fresh`` (replacing ``[start:stop]``).

        Elements that are neither plain atoms nor function values are checked with the others, again on
        every version, except where their checks read what the bookkeeping does not keep: a timed
        literal or a ``oneof`` / ``unknown`` makes facts uncertain, and in a contingent problem an
        ``(and ...)`` lists facts the duplicate check must see."""
        contingent = bool(CONTINGENT_REQUIREMENTS & self.requirements)
        for element in fresh:
            kind = type(element)
            if kind is Atom or kind is Comparison:
                continue
            if contingent or any(isinstance(node, (Modal, TimedLiteral)) for node in walk(element)):
                return False
        return not contingent or (OTHER not in needs[:start] and OTHER not in needs[stop:])

    def clean(self, atom: Atom) -> bool:
        """Whether an atom's predicate is declared with its arity and every argument is a declared object
        its parameter accepts (then its names have nothing to report)."""
        predicate = atom.predicate.key
        columns = self._columns
        if predicate in columns:
            accepting = columns[predicate]
        else:
            accepting = columns[predicate] = self.accepting(predicate)
        args = atom.args
        if accepting is None or len(accepting) != len(args):
            return False
        return all(a.key in c for a, c in zip(args, accepting, strict=True))

    def first_true(self, key: FactKey) -> Atom | None:
        """The first ``:init`` fact with this key, found through the counts (the keys are in order)."""
        init = self.state.init
        if init is None:
            return super().first_true(key)
        if key not in init.counts:
            return None
        element = init.elements.current(init.keys.index(key))
        assert type(element) is Atom
        return element

    # --- goal ----------------------------------------------------------------------------------------------
    def check_goal(self, goal: Formula | Deferred) -> None:
        """A flat conjunction (as parsed, or still deferred: its moved conjuncts are not built) through the
        bookkeeping, any other goal from scratch."""
        if self.state.init is None or (type(goal) is not And and type(goal) is not MovedAnd):
            super().check_goal(goal)
            return
        assert isinstance(goal, (And, MovedAnd))
        old = self.previous.goal if self.previous is not None else None
        if old is None:
            old = _GoalState(Run.of(()), [], bytearray(), bytearray(), {}, set())
        conjuncts = Run.of(goal.args)
        originals = conjuncts.originals()
        start, old_stop, new_stop = _changed(old.conjuncts.originals(), originals)
        fresh = originals[start:new_stop]
        if any(type(c) is And and c.args for c in fresh):  # its literals are the goal's: from scratch
            super().check_goal(goal)
            return
        keys, bits, positive = old.keys, old.bits, old.positive
        counts, contradicted = old.counts, old.contradicted
        static = self.vocab is not None and bool(self.vocab.domain.actions)
        if self.renamed and self.vocab is not None:  # literals naming a declared or undeclared object
            previous_conjuncts = old.conjuncts.originals()
            for index in _naming(keys, self.renamed):
                literal = goal_literal_of(previous_conjuncts[index])
                key = keys[index]
                if start <= index < old_stop or literal is None or key is None:
                    continue
                named = literal[1]
                bits[index] = (0 if self.clean(named) else FORMULA) | (
                    STATIC if static and self.is_static_literal(named, key) else 0)
        for key, polarity in zip(keys[start:old_stop], positive[start:old_stop], strict=True):
            if key is not None:
                tally = counts[key]
                tally[polarity] -= 1
                if not tally[polarity]:
                    contradicted.discard(key)
                    if not tally[1 - polarity]:
                        del counts[key]
        added_keys: list[FactKey | None] = []
        added_bits, added_positive = bytearray(), bytearray()
        for node in fresh:
            literal = goal_literal_of(node)
            bit = 0
            if self.vocab is not None:
                atom = literal[1] if literal is not None else None
                if atom is None or not self.clean(atom):
                    bit = FORMULA
            if literal is None:
                added_keys.append(None)
                added_positive.append(0)
            else:
                polarity, atom = int(literal[0]), literal[1]
                key = _key(atom)
                tally = counts.setdefault(key, [0, 0])
                tally[polarity] += 1
                if tally[1 - polarity]:
                    contradicted.add(key)
                if static and self.is_static_literal(atom, key):
                    bit |= STATIC
                added_keys.append(key)
                added_positive.append(polarity)
            added_bits.append(bit)
        keys[start:old_stop] = added_keys
        bits[start:old_stop] = added_bits
        positive[start:old_stop] = added_positive
        self.state.goal = _GoalState(conjuncts, keys, bits, positive, counts, contradicted)
        self._report_goal(conjuncts, keys, bits, contradicted, static)

    def _report_goal(self, conjuncts: Run, keys: list[FactKey | None], bits: bytearray,
                     contradicted: set[FactKey], static: bool) -> None:
        """The goal's diagnostics in a check from scratch's order: names, then literals."""
        for index in _positions_with(bits, FORMULA):
            self.check_formula(conjuncts.current(index), "goal")
        literals = set(_positions_with(bits, STATIC))
        if contradicted:
            literals.update(i for i, key in enumerate(keys) if key in contradicted)
        seen: dict[FactKey, tuple[bool, Formula]] = {}
        for index in sorted(literals):
            self.goal_literal(conjuncts.current(index), seen, static)


def _objects_edited(previous: _State, removed: Sequence[Any], added: Sequence[Any]
                    ) -> tuple[Tables | None, frozenset[str]]:
    """The tables after an edit of ``:objects`` that replaced the declarations ``removed`` by ``added``,
    made from the previous version's, and the names whose meaning changed; ``(None, ...)`` when the
    edit leaves something to report about the objects (a name declared twice or shadowing a domain
    constant, a type the domain does not declare or cannot have), or the previous version had, and the
    whole check runs from scratch.

    A new object typed into the 25,000 of a 1 MB problem then costs a look at the facts and goal atoms
    that name it (or the name it had a keystroke ago), not a check of every fact against a table built
    from every object (~300 ms, most of it moving the object list to build that table)."""
    tables = previous.tables
    vocab = tables.vocab
    none: tuple[None, frozenset[str]] = (None, frozenset())
    if vocab is None or not previous.objects_clean or not all(
            type(item) is TypedName for item in (*removed, *added)):
        return none
    removed_keys = [item.name.key for item in removed]
    added_keys = [item.name.key for item in added]
    gone = set(removed_keys)
    declared = tables.objects.declared
    if len(set(added_keys)) != len(added_keys) or any(
            key in vocab.constants or (key in declared and key not in gone) for key in added_keys):
        return none
    for item in added:
        if item.type is not None and (not tables.typed or not all(
                vocab.declares_type(t.key) for t in item.type.names)):
            return none
    updated = Tables.__new__(Tables)
    updated.vocab, updated.typed = vocab, tables.typed
    updated.predicates, updated.functions = tables.predicates, tables.functions
    updated.objects = tables.objects.updated(removed_keys, added)
    return updated, frozenset(gone | set(added_keys))


def _naming(keys: list[FactKey | None], names: frozenset[str]) -> list[int]:
    """The positions of the keys that hold one of ``names`` (as an argument or, harmlessly, as the
    predicate), found by set operations in C."""
    meets = map(names.isdisjoint, map(_or_empty, keys))
    return [index for index, disjoint in enumerate(meets) if not disjoint]


def _or_empty(key: FactKey | None) -> FactKey:
    return () if key is None else key


def _as_run(value: Any) -> Run | None:
    """A list field's value as a run: as the parse left it (moved lazily) or a plain tuple; None for
    anything else (then the field is read as usual)."""
    if type(value) is Run:
        return value
    if type(value) is tuple:
        return Run.of(value)
    return None


def _fresh(tables: Tables) -> Tables:
    """The previous version's tables, with the object table's per-check state reset."""
    fresh = Tables.__new__(Tables)
    fresh.vocab, fresh.typed = tables.vocab, tables.typed
    if tables.vocab is not None:
        fresh.objects = tables.objects.fresh()
        fresh.predicates, fresh.functions = tables.predicates, tables.functions
    return fresh


def _positions(values: bytearray, value: int) -> list[int]:
    """Where ``values`` holds ``value``, found by the bytearray's own search (most elements are clean)."""
    found: list[int] = []
    index = values.find(value)
    while index >= 0:
        found.append(index)
        index = values.find(value, index + 1)
    return found


def _positions_with(values: bytearray, bit: int) -> list[int]:
    """Where ``values`` has ``bit`` set (the values are small: every combination is searched for)."""
    found: list[int] = []
    for value in range(1, 4):
        if value & bit:
            found.extend(_positions(values, value))
    return sorted(found)


def _changed(old: Sequence[Any], new: Sequence[Any]) -> tuple[int, int, int]:
    """``(start, old_stop, new_stop)``: ``old[start:old_stop]`` became ``new[start:new_stop]``, the
    elements before and after being the same on both sides (by content)."""
    limit = min(len(old), len(new))
    start = _same_prefix(old, new, limit)
    end = _same_prefix(old[::-1], new[::-1], limit - start)
    return start, len(old) - end, len(new) - end


def _same_prefix(old: Sequence[Any], new: Sequence[Any], limit: int) -> int:
    """How many leading elements of both sequences have the same content (at most ``limit``).

    Identical nodes are skipped in C; a run of equal nodes that are not identical (an incremental
    parse rebuilds the nodes after an edit at their new offsets) is compared in growing blocks, a
    block's names at once (:func:`_same_block`), so even tens of thousands of them cost milliseconds.
    """
    identical = list(map(is_, old[:limit], new[:limit]))
    index = 0
    size = _BLOCK
    while index < limit:
        try:
            index = identical.index(False, index)
        except ValueError:
            return limit
        stop = min(index + size, limit)
        if _same_block(old[index:stop], new[index:stop]):
            index = stop
            size *= 2
            continue
        while stop - index > _BLOCK:  # the first difference is in [index, stop): halve until small
            middle = (index + stop) // 2
            if _same_block(old[index:middle], new[index:middle]):
                index = middle
            else:
                stop = middle
        while index < stop and _same(old[index], new[index]):
            index += 1
        return index
    return limit


_BLOCK = 16
_PREDICATE = attrgetter("predicate")
_ARGS = attrgetter("args")
_KEY = attrgetter("key")
_NAME, _TEXT, _TYPE = attrgetter("name"), attrgetter("text"), attrgetter("type")


def _same_block(old: Sequence[Any], new: Sequence[Any]) -> bool:
    """Whether two equally long runs of nodes have the same content (:func:`_same`); runs of atoms are
    compared column by column (types, predicates, arities, arguments) in C."""
    kinds = list(map(type, old))
    if kinds != list(map(type, new)):
        return False
    if kinds.count(TypedName) == len(kinds):
        return _same_declarations(old, new)
    if kinds.count(Atom) != len(kinds):
        return all(map(_same, old, new))
    old_predicates, new_predicates = list(map(_PREDICATE, old)), list(map(_PREDICATE, new))
    if list(map(_KEY, old_predicates)) != list(map(_KEY, new_predicates)):
        return False
    old_args, new_args = list(map(_ARGS, old)), list(map(_ARGS, new))
    if list(map(len, old_args)) != list(map(len, new_args)):
        return False
    old_names, new_names = chain.from_iterable(old_args), chain.from_iterable(new_args)
    return list(map(_KEY, old_names)) == list(map(_KEY, new_names))


def _same_declarations(old: Sequence[TypedName], new: Sequence[TypedName]) -> bool:
    """:func:`_same` over two runs of object declarations: names by key and spelling, column by column in
    C, and each distinct pair of types once (the names of one ``a b c - t`` group share one type): an edit
    inside a typed object list parses the whole section again, 25,000 new declarations in a large
    problem."""
    old_names, new_names = list(map(_NAME, old)), list(map(_NAME, new))
    if list(map(_KEY, old_names)) != list(map(_KEY, new_names)) or list(map(_TEXT, old_names)) != list(
            map(_TEXT, new_names)):
        return False
    old_types, new_types = list(map(_TYPE, old)), list(map(_TYPE, new))
    by_id = dict(zip(map(id, old_types), old_types, strict=True))
    by_id.update(zip(map(id, new_types), new_types, strict=True))
    pairs = set(zip(map(id, old_types), map(id, new_types), strict=True))
    return all(_same(by_id[a], by_id[b]) for a, b in pairs)


def _same(a: Any, b: Any) -> bool:
    """Whether two model nodes say the same thing, wherever they are written: every field but the spans is
    compared, names by their key and their spelling (messages quote the spelling, and the object table
    keeps the declarations' spelling), except in atoms, whose spelling only shows in their own
    diagnostics: those are made again from the current node."""
    if a is b:
        return True
    kind = type(a)
    if kind is not type(b):
        return False
    if kind is Atom:
        # by key: an atom's spelling only shows in its own diagnostics, made again from the current node
        return bool(a.predicate.key == b.predicate.key and len(a.args) == len(b.args) and all(
            x.key == y.key for x, y in zip(a.args, b.args, strict=True)))
    if kind is Name:
        return bool(a.key == b.key and a.text == b.text)
    if kind is TypedName:
        return _same(a.name, b.name) and _same(a.type, b.type)
    if kind is tuple:
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    fields = _compared_fields(kind)
    if fields is None:
        return bool(a == b)
    return all(_same(getattr(a, f), getattr(b, f)) for f in fields)


_FIELDS: dict[type, tuple[str, ...] | None] = {}


def _compared_fields(kind: type) -> tuple[str, ...] | None:
    """The fields of a model node that say what it means (None: not a node, compared with ``==``)."""
    found = _FIELDS.get(kind, ())
    if found == ():
        found = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind) if f.name != "span") if (
            dataclasses.is_dataclass(kind)) else None
    return found

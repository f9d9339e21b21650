"""The problem checks of ``problem.py`` run on a problem read a chunk at a time (``problem_stream.py``).

A 100 MB problem's model does not fit in memory (docs/reliability.md, "Why 50 MiB"), but its checks
need little of it: each fact is checked on its own against the domain and the objects, and only
three checks relate facts to each other (a duplicate fact in ``:init``, a contradiction in the goal,
a goal over a static predicate that ``:init`` does or does not state). So the same checks run here,
chunk after chunk, and what they would remember of every fact is kept compactly: a 64-bit hash of
its key and where it is in the text, in open-addressing tables of machine integers
(:class:`_HashIndex`, 16 bytes a slot). A hash match is always verified by reading the fact (or
object name) back from the text, so a collision can cost time but never a wrong diagnostic.

Not the same as a full check in one respect, the order in which a few elements of a contingent
problem's ``:init`` are visited: ``(and ...)``, ``(or ...)`` and ``(oneof ...)`` at the top of
``:init`` are checked after every other element (a full check visits them in text order), which can
change only which of two identical negated facts, one of them inside such a form, is "the copy".
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import replace
from typing import TypeVar

from plansight.analyses.checks.derived_rules import check_derived_init
from plansight.analyses.checks.problem import (
    CONTINGENT_REQUIREMENTS,
    UNCERTAIN_OPS,
    FactKey,
    _ProblemCheck,
)
from plansight.analyses.diagnostics.diagnostic import Diagnostic
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.pddl import (
    And,
    Atom,
    Domain,
    Formula,
    Modal,
    Name,
    Not,
    Or,
    Problem,
    TypedName,
    TypeRef,
    conjuncts,
    walk,
)
from plansight.analyses.semantics.argument_checks import Accepted, Ancestry, ObjectTable, ancestry_of, fits
from plansight.analyses.syntax.build_model import Outline, Section
from plansight.analyses.syntax.lexical import NAME
from plansight.analyses.syntax.problem_stream import (
    SMALL_SECTION,
    NotStreamable,
    ProblemStream,
    SectionSpan,
)

_NAME_AT = re.compile(NAME)
_NAME_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_EMPTY = 0
_SECTIONS = 64
"""At most this many sections: a value packs a section's index with an offset."""


class _HashIndex:
    """A multimap from 64-bit hashes to non-negative integers in two arrays (open addressing, linear
    probing, at most 3/4 full): 16 bytes a slot, where a dict of Python ints takes about 100 an
    entry. Entries are never removed."""

    __slots__ = ("_hashes", "_mask", "_size", "_values")

    def __init__(self, capacity: int = 1 << 10) -> None:
        self._hashes = array("q", bytes(8 * capacity))
        self._values = array("q", bytes(8 * capacity))
        self._mask = capacity - 1
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def find(self, hashed: int) -> Iterator[int]:
        """The values stored under ``hashed`` (usually none or one)."""
        hashed = hashed or 1
        hashes, mask = self._hashes, self._mask
        slot = hashed & mask
        while True:
            found = hashes[slot]
            if found == _EMPTY:
                return
            if found == hashed:
                yield self._values[slot]
            slot = (slot + 1) & mask

    def first(self, hashed: int) -> int:
        """The first value stored under ``hashed``, or -1: the common case without a generator."""
        hashed = hashed or 1
        hashes, mask = self._hashes, self._mask
        slot = hashed & mask
        while True:
            found = hashes[slot]
            if found == hashed:
                return self._values[slot]
            if found == _EMPTY:
                return -1
            slot = (slot + 1) & mask

    def add(self, hashed: int, value: int) -> None:
        """Store ``value`` under ``hashed`` (beside any value already there)."""
        if 4 * (self._size + 1) > 3 * (self._mask + 1):
            self._grow()
        self._put(hashed or 1, value)
        self._size += 1

    def replace(self, hashed: int, old: int, new: int) -> None:
        """Store ``new`` in place of ``old`` under ``hashed``."""
        hashed = hashed or 1
        hashes, values, mask = self._hashes, self._values, self._mask
        slot = hashed & mask
        while hashes[slot] != _EMPTY:
            if hashes[slot] == hashed and values[slot] == old:
                values[slot] = new
                return
            slot = (slot + 1) & mask
        raise KeyError(old)

    def values(self) -> Iterator[int]:
        """Every stored value, in no particular order."""
        for hashed, value in zip(self._hashes, self._values, strict=True):
            if hashed != _EMPTY:
                yield value

    def _put(self, hashed: int, value: int) -> None:
        hashes, mask = self._hashes, self._mask
        slot = hashed & mask
        while hashes[slot] != _EMPTY:
            slot = (slot + 1) & mask
        hashes[slot] = hashed
        self._values[slot] = value

    def _grow(self) -> None:
        old_hashes, old_values = self._hashes, self._values
        capacity = 2 * (self._mask + 1)
        self._hashes = array("q", bytes(8 * capacity))
        self._values = array("q", bytes(8 * capacity))
        self._mask = capacity - 1
        for hashed, value in zip(old_hashes, old_values, strict=True):
            if hashed != _EMPTY:
                self._put(hashed, value)


def _atom_key(atom: Atom) -> FactKey:
    return (atom.predicate.key, *[a.key for a in atom.args])


_V = TypeVar("_V")


class _TextBackedTable(MutableMapping[FactKey, _V]):
    """A dict by fact key, as ``problem.py`` keeps one, that holds per entry only a hash and an
    integer saying where the entry is in the text; an entry is read back when a check asks for it, and
    a hash match is confirmed by the key of what is read back, so a collision cannot mislead a check.
    Entries are never removed (``problem.py``'s tables only grow)."""

    _what = "entries"
    """What the entries are, for the refusal to remove one."""

    def __init__(self, stream: ProblemStream) -> None:
        self._stream = stream
        self._index = _HashIndex()

    def _read(self, value: int) -> _V:
        """The entry stored as ``value``."""
        raise NotImplementedError

    def _key_of(self, value: int) -> FactKey | None:
        """The key of the entry stored as ``value``, read back from the text."""
        raise NotImplementedError

    def _value(self, key: FactKey) -> int:
        for value in self._index.find(hash(key)):
            if self._key_of(value) == key:
                return value
        return -1

    def _store(self, key: FactKey, value: int) -> None:
        hashed = hash(key)
        if self._index.first(hashed) >= 0:
            old = self._value(key)
            if old >= 0:
                self._index.replace(hashed, old, value)
                return
        self._index.add(hashed, value)

    def __getitem__(self, key: FactKey) -> _V:
        value = self._value(key)
        if value < 0:
            raise KeyError(key)
        return self._read(value)

    def __delitem__(self, key: FactKey) -> None:
        raise TypeError(f"{self._what} are never removed")

    def __len__(self) -> int:
        return len(self._index)


class _FactTable(_TextBackedTable[Atom]):
    """``:init``'s facts by key, holding only where each fact is (its section and offset)."""

    _what = "facts"

    def __init__(self, stream: ProblemStream, sections: list[SectionSpan]) -> None:
        super().__init__(stream)
        self._sections = sections
        self.section = 0
        """The index of the section the facts being added come from."""

    def _read(self, value: int) -> Atom:
        node = self._stream.node_at(value // _SECTIONS, self._sections[value % _SECTIONS])
        assert isinstance(node, Atom)
        return node

    def _key_of(self, value: int) -> FactKey:
        return _atom_key(self._read(value))

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, tuple) or self._index.first(hash(key)) < 0:
            return False  # the common case, without reading anything back
        return self._value(key) >= 0

    def __setitem__(self, key: FactKey, atom: Atom) -> None:
        self._store(key, atom.span.start * _SECTIONS + self.section)

    def __iter__(self) -> Iterator[FactKey]:
        return (self._key_of(value) for value in self._index.values())


class _GoalLiterals(_TextBackedTable[tuple[bool, Formula]]):
    """The goal's literals seen so far by key, as ``goal_literal`` keeps them: the polarity and
    where the literal is; the literal is read back from the text when a contradiction is reported."""

    _what = "goal literals"

    def __init__(self, stream: ProblemStream, section: SectionSpan) -> None:
        super().__init__(stream)
        self._section = section

    def _read(self, value: int) -> tuple[bool, Formula]:
        return bool(value & 1), self._stream.node_at(value >> 1, self._section)

    def _key_of(self, value: int) -> FactKey | None:
        node = self._read(value)[1]
        atom = node.arg if isinstance(node, Not) else node
        return _atom_key(atom) if isinstance(atom, Atom) else None

    def setdefault(self, key: FactKey, default: tuple[bool, Formula]) -> tuple[bool, Formula]:  # type: ignore[override]
        """The entry of ``key``, stored as ``default`` when there is none (without an exception: this
        runs once per goal literal)."""
        hashed = hash(key)
        if self._index.first(hashed) >= 0:
            value = self._value(key)
            if value >= 0:
                return self._read(value)
        self._index.add(hashed, default[1].span.start * 2 + int(default[0]))
        return default

    def __setitem__(self, key: FactKey, entry: tuple[bool, Formula]) -> None:
        self._store(key, entry[1].span.start * 2 + int(entry[0]))

    def __iter__(self) -> Iterator[FactKey]:
        raise TypeError("the goal's literals are not listed")


class _StreamedObjects(ObjectTable):
    """The :class:`ObjectTable` of a problem whose objects are never all in memory: each object is
    a hash of its name, its offset and the index of its type in :attr:`_types`; the domain's
    constants are held as usual."""

    def __init__(self, stream: ProblemStream, check: _ProblemCheck, constants: ObjectTable) -> None:
        self.vocab = constants.vocab
        self._stream = stream
        self._check = check
        self._constants = constants
        self._index = _HashIndex()
        self._types: list[tuple[TypeRef | None, Ancestry]] = [(None, None)]
        self._type_ids: dict[tuple[tuple[str, ...], bool, bool], int] = {}
        self._groups: list[tuple[int, int]] = []
        self._shadowed = 0
        self.declared = _Declared(self)  # type: ignore[assignment]
        self.ancestry = _Ancestries(self)  # type: ignore[assignment]
        self._suggestions: dict[str, str] = {}
        self._budget = constants._budget
        self._fitting: dict[Accepted, object] = {}  # type: ignore[assignment]

    def type_id(self, type_ref: TypeRef | None, typed: bool) -> int:
        """The index of a group's type: groups spelled alike share one."""
        if type_ref is None:
            return 0
        names = tuple(t.key for t in type_ref.names)
        spelled = (tuple(t.display for t in type_ref.names), type_ref.is_either, typed)
        found = self._type_ids.get(spelled)
        if found is None:
            known = all(n == "object" or n in self.vocab.types for n in names)
            ancestry = ancestry_of(self.vocab, type_ref) if typed and known else None
            found = self._type_ids[spelled] = len(self._types)
            self._types.append((type_ref, ancestry))
        return found

    def entry(self, key: str) -> int:
        """The packed (offset, type) of object ``key``, or -1 when it is no object of the problem."""
        hashed = hash(key) or 1
        index = self._index
        hashes, mask = index._hashes, index._mask  # _HashIndex.first, inlined: once per argument
        slot = hashed & mask
        while True:
            found_hash = hashes[slot]
            if found_hash == hashed:
                value = index._values[slot]
                break
            if found_hash == _EMPTY:
                return -1
            slot = (slot + 1) & mask
        text = self._stream.text
        offset = value >> 16
        end = offset + len(key)
        if text.startswith(key, offset) and (end == len(text) or text[end] not in _NAME_CHARACTERS):
            return value  # verified: the name written there is this one, in lower case
        found = _NAME_AT.match(text, offset)
        if found is not None and _key(found.group()) == key:
            return value
        for value in self._index.find(hashed):  # a hash collision: the slow way
            found = _NAME_AT.match(text, value >> 16)
            if found is not None and _key(found.group()) == key:
                return value
        return -1

    def add(self, key: str, offset: int, type_id: int) -> int:
        """Declare ``key``; the packed entry of its earlier declaration when it has one (then nothing
        is added), else -1."""
        earlier = self.entry(key)
        if earlier >= 0:
            return earlier
        if type_id >= 1 << 16:
            raise ValueError("too many object types")
        self._index.add(hash(key), offset << 16 | type_id)
        if key in self._constants.declared:
            self._shadowed += 1
        return -1

    def typed_name(self, value: int) -> TypedName:
        """The declaration an entry stands for, read back from the text."""
        found = _NAME_AT.match(self._stream.text, value >> 16)
        assert found is not None
        word = found.group()
        name = Name(_key(word), word, Span(found.start(), found.end()))
        return TypedName(name, self._types[value & 0xFFFF][0], name.span)

    def ancestry_of_entry(self, value: int) -> Ancestry:
        """The type ancestry of an entry."""
        return self._types[value & 0xFFFF][1]

    def count(self) -> int:
        """How many names are declared (objects and constants, each once)."""
        return len(self._index) + len(self._constants.declared) - self._shadowed

    def keys(self) -> Iterator[str]:
        """Every declared name, the constants first (read back from the text: only for suggestions,
        which a problem with more than ``SUGGESTION_BUDGET`` names never makes)."""
        seen: set[str] = set()
        for key in self._constants.declared:
            if self.entry(key) < 0:
                seen.add(key)
                yield key
        for section in self._stream.sections:
            if section.key != ":objects":
                continue
            for group in self._stream.object_groups(section):
                for batch in self._stream.object_names(group):
                    for word, _ in batch:
                        key = _key(word)
                        if key not in seen:
                            seen.add(key)
                            yield key

    def fitting(self, wanted: Accepted) -> _Fitting:  # type: ignore[override]
        """The declared names that may stand where ``wanted`` is declared, answered per name."""
        found = self._fitting.get(wanted)
        if found is None:
            found = self._fitting[wanted] = _Fitting(self, wanted)
        return found  # type: ignore[return-value]


def _key(word: str) -> str:
    return word if word.islower() else word.lower()


class _Fitting:
    """``name in fitting``: declared, and of a type ``wanted`` accepts."""

    __slots__ = ("_objects", "_wanted")

    def __init__(self, objects: _StreamedObjects, wanted: Accepted) -> None:
        self._objects = objects
        self._wanted = wanted

    def __contains__(self, key: object) -> bool:
        assert isinstance(key, str)
        objects = self._objects
        value = objects.entry(key)
        if value >= 0:
            return self._wanted is None or fits(objects.ancestry_of_entry(value), self._wanted)
        constants = objects._constants.ancestry
        return key in constants and fits(constants[key], self._wanted)


class _Declared(Mapping[str, TypedName]):
    """``ObjectTable.declared`` of a streamed problem."""

    def __init__(self, objects: _StreamedObjects) -> None:
        self._objects = objects

    def __getitem__(self, key: str) -> TypedName:
        value = self._objects.entry(key)
        if value >= 0:
            return self._objects.typed_name(value)
        return self._objects._constants.declared[key]

    def __contains__(self, key: object) -> bool:
        objects = self._objects
        return isinstance(key, str) and (objects.entry(key) >= 0 or key in objects._constants.declared)

    def __iter__(self) -> Iterator[str]:
        return self._objects.keys()

    def __len__(self) -> int:
        return self._objects.count()


_MISSING = object()


class _Ancestries(Mapping[str, Ancestry]):
    """``ObjectTable.ancestry`` of a streamed problem."""

    def __init__(self, objects: _StreamedObjects) -> None:
        self._objects = objects

    def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
        """The ancestry of ``key``, or ``default`` when it is not declared."""
        value = self._objects.entry(key)
        if value >= 0:
            return self._objects.ancestry_of_entry(value)
        return self._objects._constants.ancestry.get(key, default)

    def __getitem__(self, key: str) -> Ancestry:
        found = self.get(key, _MISSING)
        if found is _MISSING:
            raise KeyError(key)
        return found  # type: ignore[return-value]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key, _MISSING) is not _MISSING

    def __iter__(self) -> Iterator[str]:
        return self._objects.keys()

    def __len__(self) -> int:
        return self._objects.count()


class StreamedProblem:
    """A problem read through a :class:`ProblemStream`: :attr:`problem` is its model without the long
    lists (enough to link it to its domain), and :meth:`check` gives every diagnostic
    ``check_problem`` gives the full model. Both raise ``NotStreamable`` for what cannot be read in
    pieces."""

    def __init__(self, stream: ProblemStream) -> None:
        self.stream = stream
        self.domain: Domain | None = None
        self.parsed: dict[int, Section] = {}
        streamed = (":objects", ":init")
        sections = []
        self.goal: SectionSpan | None = None
        for index, section in enumerate(stream.sections):
            key = section.key
            if key == ":goal" and self.goal is None and section.size > SMALL_SECTION // 4:
                self.goal = section
                stream_it = True
            else:
                stream_it = key in streamed
            if stream_it:
                payload: object = And((), Span(section.start, section.end)) if key == ":goal" else ()
                sections.append(Section(section.keyword, payload, Span(section.start, section.end)))
            else:
                sections.append(stream.parse_section(section))
                self.parsed[index] = sections[-1]
        if len(stream.sections) > _SECTIONS:
            raise NotStreamable(f"it has {len(stream.sections)} sections", stream.sections[_SECTIONS].start)
        outline = Outline(tuple(stream.head), tuple(sections), stream.close, True)
        problem = outline.fold()
        assert isinstance(problem, Problem)
        self.problem = problem

    def check(self, domain: Domain | None) -> list[Diagnostic]:
        """The semantic diagnostics, against ``domain`` when it is known."""
        self.domain = domain
        stream, problem = self.stream, self.problem
        check = _ProblemCheck(replace(problem, objects=(), init=()), domain)
        check.true_facts = _FactTable(stream, stream.sections)
        check.false_facts = _FactTable(stream, stream.sections)
        objects: _StreamedObjects | None = None
        if check.vocab is not None:
            objects = _StreamedObjects(stream, check, check.objects)
            check.objects = objects
        check.check_sections()
        self.check_objects(check, objects)
        self.check_init(check)
        goal = problem.goal
        if self.goal is not None:
            self.check_goal(check)
        elif goal is not None:
            check.check_goal(goal)
        if check.vocab is not None:
            if problem.constraints is not None:
                check.check_formula(problem.constraints, "constraints")
            if problem.metric is not None:
                check.check_numeric(problem.metric.expr, {}, "metric")
        check.out.sort(key=lambda d: (d.span, d.code))
        return check.out

    def check_objects(self, check: _ProblemCheck, objects: _StreamedObjects | None) -> None:
        """Every ``:objects`` section, a run of names at a time."""
        stream = self.stream
        if objects is None:  # no domain: only duplicates are checked, by the same table
            objects = _StreamedObjects(stream, check, ObjectTable(_NoVocabulary(), None, False))  # type: ignore[arg-type]
        constants = objects._constants.declared
        for section in stream.sections:
            if section.key != ":objects":
                continue
            for group in stream.object_groups(section):
                type_id = objects.type_id(group.type, check.typed)
                for batch in stream.object_names(group):
                    for word, offset in batch:
                        key = _key(word)
                        earlier = objects.add(key, offset, type_id)
                        if earlier >= 0 or key in constants:
                            value = offset << 16 | type_id
                            obj = objects.typed_name(value)
                            check.check_object(obj, objects.typed_name(earlier) if earlier >= 0 else obj)
                if group.type is not None and check.vocab is not None:
                    if check.typed:
                        check.check_type_ref(group.type)
                    else:
                        check.check_untyped_group(group.type, [
                            word for batch in stream.object_names(group) for word, _ in batch])

    def check_init(self, check: _ProblemCheck) -> None:
        """Every ``:init`` section, a chunk at a time; ``(and ...)``, ``(or ...)`` and ``(oneof ...)``
        wait for the end, when it is known whether the problem is a contingent one."""
        stream, domain = self.stream, self.domain
        facts = check.true_facts
        assert isinstance(facts, _FactTable) and isinstance(check.false_facts, _FactTable)
        waiting: list[Formula] = []
        contingent = bool(CONTINGENT_REQUIREMENTS & check.requirements)
        for index, section in enumerate(stream.sections):
            if section.key != ":init":
                continue
            facts.section = check.false_facts.section = index
            for batch in stream.elements(section):
                others: list[Formula] = []
                check.check_init_atoms(batch, others)
                if domain is not None and domain.derived:
                    check.out.extend(check_derived_init(replace(self.problem, init=tuple(batch)), domain))
                now: list[Formula] = []
                for element in others:
                    contingent = contingent or any(
                        isinstance(node, Modal) and node.op in UNCERTAIN_OPS for node in walk(element))
                    (waiting if isinstance(element, (And, Or, Modal)) else now).append(element)
                if now:
                    check.check_other_init(now, contingent=False)
        if waiting:
            check.check_other_init(waiting, contingent=contingent)

    def check_goal(self, check: _ProblemCheck) -> None:
        """The goal's ``(and ...)``, a chunk of conjuncts at a time."""
        assert self.goal is not None
        seen = _GoalLiterals(self.stream, self.goal)
        static = check.vocab is not None and bool(check.vocab.domain.actions)
        for batch in self.stream.elements(self.goal):
            for node in batch:
                if check.vocab is not None:
                    check.check_formula(node, "goal")
                for literal in conjuncts(node):
                    check.goal_literal(literal, seen, static)


class _NoVocabulary:
    """What an object table needs of a domain when there is none: no constants, no types."""

    def __init__(self) -> None:
        self.constants: dict[str, TypedName] = {}
        self.types: dict[str, object] = {}


__all__ = ["StreamedProblem"]

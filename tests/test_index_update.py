"""An index updated edit after edit answers every question as the index built from scratch does.

An updated index moves the occurrences after an edit only when they are read
(``editing/symbols.py``, ``_Pieces``), so here the questions are asked of a chain of updates that are
never read as a whole in between (``test_incremental_parse.py`` compares whole occurrence lists, which
makes every update's copies): the name at each offset, the occurrences in a range, the references to
each declaration, and finally the whole list.
"""

from __future__ import annotations

import bisect
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_incremental_parse import DOMAIN, edit_sequences, index_of
from test_lazy_readers import FACTS, apply, render
from test_lazy_readers import edits as list_edits

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from workloads import BLOCKSWORLD as BLOCKSWORLD_DOMAIN
from workloads import blocksworld_problem

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing import symbols
from plansight.analyses.editing.symbols import SymbolIndex, build_index, update_index
from plansight.analyses.model.pddl import Problem
from plansight.analyses.syntax.documents import ParsedDocument, parse_document, reparse_document
from plansight.analyses.syntax.incremental import changed_range
from plansight.server.caches import ServerCaches
from plansight.server.symbol_lookup import index_of_document


def assert_answers_alike(updated: SymbolIndex, full: SymbolIndex, text: str) -> None:
    assert len(updated.occurrences) == len(full.occurrences)
    for offset in range(0, len(text) + 1, 3):
        assert updated.at(offset) == full.at(offset), offset
    for start in range(0, len(text), 97):
        window = Span(start, start + 150)
        assert updated.in_range(window) == full.in_range(window)
    for target in {o.target for o in full.occurrences if o.target is not None}:
        assert updated.references_to(target) == full.references_to(target)
    assert updated.occurrences[-3:] == list(full.occurrences)[-3:]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edit_sequences())
def test_a_chain_of_updates_answers_as_a_full_build(
        case: tuple[str, str, list[tuple[int, int, str]]]) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(symbols, "_SHORT_RUN", 0)  # small files: keep even short runs moved when read
        _check_chain(*case)


def _check_chain(path: str, text: str, edits: list[tuple[int, int, str]]) -> None:
    current = parse_document(path, text)
    index = index_of(current)
    chained = 0
    for start, end, inserted in edits:
        text = text[:start] + inserted + text[end:]
        current = reparse_document(current, path, text)
        full = index_of(current)
        updated = None if current.derived is None else update_index(index, current.model,
                                                                     current.derived.splice)
        if updated is None:
            index, chained = full, 0
            continue
        chained += 1
        assert_answers_alike(updated, full, text)
        index = updated
    assert list(index.occurrences) == list(index_of(current).occurrences)


def test_typing_at_one_place_keeps_the_moved_occurrences_in_one_piece(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The case the pieces are for: many edits at the start of a long ``:init``."""
    facts = " ".join(f"(clear b{i})" for i in range(3000))
    objects = " ".join(f"b{i}" for i in range(3000))
    text = f"(define (problem p) (:domain bw) (:objects {objects}) (:init {facts}) (:goal (clear b1)))"
    monkeypatch.setattr(symbols, "_SHORT_RUN", 100)
    current = parse_document("p.pddl", text)
    index = index_of(current)
    at = text.index("(:init") + len("(:init")
    for i in range(20):
        text = text[:at] + f" (clear b{i})" + text[at:]
        current = reparse_document(current, "p.pddl", text)
        assert current.derived is not None
        updated = update_index(index, current.model, current.derived.splice)
        assert updated is not None
        index = updated
    assert len(index.occurrences._pieces) <= 2  # type: ignore[attr-defined]
    assert list(index.occurrences) == list(index_of(current).occurrences)


PARTNER_PATH = "/w/partner-domain.pddl"
STEPS = ("typed", "parsed", "asked", "asked late")
"""What happens to each version in the server: nothing but the keystroke (the analysis runs later on
a newer text: versions skipped, edits coalesced), parsed only (an analysis overtaken by the next edit,
or a request that reads no index), parsed and its index asked for (a definition request), or parsed
and then a request still computing for the version before asks for that one's (out of order)."""


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edit_sequences(), st.data())
def test_the_servers_chains_of_updates_answer_as_full_builds(
        case: tuple[str, str, list[tuple[int, int, str]]], data: st.DataObject) -> None:
    """The server indexes each parse by updating its previous parse's index (``index_chain.py``),
    through whatever versions went by unparsed; every index a request gets is the full build's."""
    path, text, edits = case
    steps = data.draw(st.lists(st.sampled_from(STEPS), min_size=len(edits), max_size=len(edits)))
    texts = []
    for start, end, inserted in edits:
        text_after = (texts[-1] if texts else text)
        texts.append(text_after[:start] + inserted + text_after[end:])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(symbols, "_SHORT_RUN", 0)
        _check_server_chain("/w/" + path, text, list(zip(texts, steps, strict=True)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(list_edits, st.data())
def test_the_servers_chains_of_updates_answer_as_full_builds_when_typing_in_the_lists(
        history: list[tuple[str, int, str, str]], data: st.DataObject) -> None:
    """The same, for the edits a chain of updates is made of: facts and goal atoms inserted and
    removed anywhere in a problem's ``:init`` and goal (a random edit often ends the chain)."""
    facts, goals = [*FACTS, *FACTS], ["(on b1 b2)", "(clear b3)"]
    text = render(facts, goals)
    texts = []
    for edit in history:
        apply(facts, goals, edit)
        texts.append(render(facts, goals))
    steps = data.draw(st.lists(st.sampled_from(STEPS), min_size=len(texts), max_size=len(texts)))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(symbols, "_SHORT_RUN", 0)
        _check_server_chain("/w/p.pddl", text, list(zip(texts, steps, strict=True)))


def _check_server_chain(path: str, text: str, history: list[tuple[str, str]]) -> None:
    caches = ServerCaches()
    partner = caches.parses.parse(PARTNER_PATH, DOMAIN)

    def asked(parsed: ParsedDocument) -> None:
        index = index_of_document(caches, parsed, partner, None)
        full = build_index(parse_document(path, parsed.text).model, path, domain=partner.domain,
                           domain_path=PARTNER_PATH)
        assert_answers_alike(index, full, parsed.text)

    previous = caches.parses.parse(path, text)
    asked(previous)  # the first index, built in full (the server warms it after opening the file)
    for text, step in history:
        caches.retire(path, text)  # what the server does on each keystroke
        if step == "typed":
            continue
        current = caches.parses.parse(path, text)
        if step == "asked":
            asked(current)
        elif step == "asked late":
            asked(previous)
        previous = current
    asked(caches.parses.parse(path, text))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 50), min_size=0, max_size=40, unique=True),
       st.lists(st.tuples(st.integers(0, 60), st.integers(0, 8), st.integers(-5, 5), st.integers(0, 4)),
                max_size=12),
       st.sampled_from([0, 3, 4096]))
def test_shifted_runs_of_starts_answer_as_the_shifted_list(
        first: list[int], edits: list[tuple[int, int, int, int]], short: int) -> None:
    """An updated index keeps its occurrences' starts as runs of older lists, shifted when read
    (``_Starts``): the bisections that find the name under the cursor and the names in a range must
    count what they count in the plain list. Each edit replaces the starts in ``[at, at + removed)``
    by ``inserted`` new ones and shifts the rest by ``delta`` (never below what precedes them)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(symbols, "_SHORT_RUN", short)
        plain = sorted(first)
        runs = symbols._Starts.of(list(plain))
        for at, removed, delta, inserted in edits:
            low = bisect.bisect_left(plain, at)
            high = bisect.bisect_left(plain, at + removed)
            shift = max(delta, inserted - removed)  # the starts after the edit stay after the new ones
            fresh = [at + i for i in range(inserted)]
            plain = [*plain[:low], *fresh, *(s + shift for s in plain[high:])]
            assert runs.bisect_left(at) == low and runs.bisect_left(at + removed) == high
            runs = symbols._Starts([*runs.cut(0, low), (fresh, 0, len(fresh), 0), *(
                (base, lo, hi, moved + shift) for base, lo, hi, moved in runs.cut(high, len(runs)))])
            assert list(runs) == plain and len(runs) == len(plain)
            assert [runs[i] for i in range(-len(plain), len(plain))] == plain + plain
            for value in range(-2, (plain[-1] if plain else 0) + 3):
                assert runs.bisect_left(value) == bisect.bisect_left(plain, value), value
                assert runs.bisect_right(value) == bisect.bisect_right(plain, value), value


OBJECT_DOMAIN = """(define (domain blocks)
  (:requirements :strips)
  (:constants k1 b3)
  (:predicates (on ?x ?y) (clear ?x) (on-table ?x)))
"""
"""A domain with constants: a problem object of the same name shadows one (``b3``), and removing the
object lets the name fall back to the constant."""

OBJECT_NAMES = ["b1", "b2", "b3", "b4", "b9", "k1", "zz", "b1", "x"]
"""Names typed into a problem's object list: used by its facts or not, a domain constant's, repeated."""


def _objects_problem(tail: list[str]) -> str:
    return ("(define (problem p)\n  (:domain blocks)\n  (:objects t1 t2 - table " + " ".join(tail)
            + ")\n  (:init (clear b1) (on b1 b2) (on-table b3) (clear k1) (clear b9)\n    (on b2 t1))\n"
            "  (:goal (and (on b1 b2) (exists (?x) (clear ?x)) (clear zz)))\n)\n")


@st.composite
def object_tails(draw: st.DrawFn) -> list[list[str]]:
    """Successive versions of the untyped names at the end of a problem's object list, each made from
    the one before by typing or deleting a character or a name, as in an editor."""
    tail = draw(st.lists(st.sampled_from(OBJECT_NAMES), max_size=5))
    versions = [tail]
    for _ in range(draw(st.integers(1, 10))):
        tail = list(tail)
        kind = draw(st.sampled_from(["name+", "name-", "char+", "char-"]))
        if kind == "name+" or not tail:
            tail.insert(draw(st.integers(0, len(tail))), draw(st.sampled_from(OBJECT_NAMES)))
        elif kind == "name-":
            del tail[draw(st.integers(0, len(tail) - 1))]
        elif kind == "char+":
            at = draw(st.integers(0, len(tail) - 1))
            tail[at] += draw(st.sampled_from("129x"))
        else:
            at = draw(st.integers(0, len(tail) - 1))
            tail[at] = tail[at][:-1] or "y"
        versions.append(tail)
    return versions


def _check_object_chain(versions: list[list[str]], lazy: bool) -> int:
    """Each version's index made by updating the previous one's answers as a full build; how many
    versions were updated (not built in full)."""
    partner = parse_document("d.pddl", OBJECT_DOMAIN).domain
    current = parse_document("p.pddl", _objects_problem(versions[0]))
    index = build_index(current.model, "p.pddl", domain=partner, domain_path="d.pddl")
    updated_count = 0
    for tail in versions[1:]:
        text = _objects_problem(tail)
        current = reparse_document(current, "p.pddl", text, lazy=lazy)
        full = build_index(parse_document("p.pddl", text).model, "p.pddl", domain=partner,
                           domain_path="d.pddl")
        updated = None if current.derived is None else update_index(index, current.model,
                                                                     current.derived.splice)
        if updated is None:
            index = full
            continue
        updated_count += 1
        assert_answers_alike(updated, full, text)
        assert updated.declarations == full.declarations and updated.visible == full.visible
        assert list(updated.occurrences) == list(full.occurrences)
        index = updated
    return updated_count


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(object_tails(), st.booleans())
def test_a_chain_of_updates_through_edits_of_the_object_list_answers_as_a_full_build(
        versions: list[list[str]], lazy: bool) -> None:
    """Objects declared and undeclared at the end of the list: the names in facts and goals that now
    mean the new object, a domain constant again, or nothing, answer as in a full build."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(symbols, "_SHORT_RUN", 0)
        _check_object_chain(versions, lazy)


def test_typing_a_new_object_updates_the_index_at_every_key() -> None:
    # `b9` is used by a fact before it is declared: once typed, definition from the fact lands on it
    versions = [["b1", "b2"], ["b1", "b2", "b"], ["b1", "b2", "b9"], ["b1", "b2", "b9", "b3"],
                ["b1", "b2", "b9", "b"], ["b1", "b2", "b9"]]
    assert _check_object_chain(versions, lazy=True) == len(versions) - 1
    partner = parse_document("d.pddl", OBJECT_DOMAIN).domain
    first = parse_document("p.pddl", _objects_problem(versions[0]))
    index = build_index(first.model, "p.pddl", domain=partner, domain_path="d.pddl")
    text = _objects_problem(versions[2])
    typed = reparse_document(reparse_document(first, "p.pddl", _objects_problem(versions[1])), "p.pddl", text)
    between = reparse_document(first, "p.pddl", _objects_problem(versions[1]))
    assert between.derived is not None and typed.derived is not None
    middle = update_index(index, between.model, between.derived.splice)
    assert middle is not None
    updated = update_index(middle, typed.model, typed.derived.splice)
    assert updated is not None
    used = updated.at(text.index("(clear b9)") + len("(clear "))
    assert used is not None and used.kind == "object" and used.target is not None
    assert used.target.span.start == text.index("b9)")
    # and `b3`, declared, shadows the domain's constant `b3` in the fact that uses it
    shadowing = updated.at(text.index("(on-table b3)") + len("(on-table "))
    assert shadowing is not None and shadowing.kind == "constant"


def test_deleting_the_first_of_a_repeated_object_gives_its_place_to_the_next() -> None:
    # `b1` declared twice: once the first goes, the second declares it (a full build; the update
    # cannot see where the second is), and declaring it again in the edit makes the new one first
    repeated = ["b1", "x", "y", "b1"]
    for versions in ([repeated, ["x", "y", "b1"]], [repeated, ["b4", "x", "y", "b1"]],
                     [repeated, ["b1", "b1", "x", "y", "b1"], ["b", "b1", "x", "y", "b1"]]):
        _check_object_chain(versions, lazy=True)


# --- edits of a problem's declarations (``:objects``) ----------------------------------------------

CONSTANT_DOMAIN = """(define (domain bw)
  (:requirements :strips :typing)
  (:types block place)
  (:constants table - place)
  (:predicates (on ?x - block ?y - object) (clear ?x - object)))
"""
CONSTANT_DOMAIN_PATH = "/w/bw.pddl"
OBJECT_NAMES = ("b1", "b2", "b3", "c", "cc", "table", "ghost")
"""``table`` is also the domain's constant (an object of that name shadows it); ``ghost`` and ``c`` are
used by facts whether or not they are declared."""
FACTS_USING_OBJECTS = ("(on b1 table) (on b2 b1) (clear b2) (clear ghost) (clear c) (on cc b3) "
                       "(on b3 table) (clear cc)")


def problem_text(groups: list[tuple[list[str], str | None]]) -> str:
    """A problem whose ``:objects`` are ``groups`` of names, each with its type or untyped."""
    objects = " ".join(" ".join(names) + (f" - {kind}" if kind else "") for names, kind in groups)
    return (f"(define (problem p) (:domain bw)\n  (:objects {objects})\n  (:init {FACTS_USING_OBJECTS})\n"
            "  (:goal (and (on b1 b2) (clear ghost) (forall (?x - block) (clear ?x)))))\n")


def typed_keystrokes(text: str, at: int, typed: str) -> list[str]:
    """The texts an editor goes through while ``typed`` is typed at ``at``, one character at a time."""
    return [text[:at] + typed[:i] + text[at:] for i in range(1, len(typed) + 1)]


def deleted_keystrokes(text: str, start: int, end: int) -> list[str]:
    """The texts an editor goes through while ``text[start:end]`` is deleted backwards, one by one."""
    return [text[:start] + text[start:i] + text[end:] for i in range(end - 1, start - 1, -1)]


def full_index(path: str, text: str) -> SymbolIndex:
    return build_index(parse_document(path, text).model, path,
                       domain=parse_document(CONSTANT_DOMAIN_PATH, CONSTANT_DOMAIN).model,
                       domain_path=CONSTANT_DOMAIN_PATH)


def follow_declaration_edits(path: str, text: str, texts: list[str], domain_text: str = CONSTANT_DOMAIN,
                             domain_path: str = CONSTANT_DOMAIN_PATH) -> int:
    """Update an index along ``texts`` and compare every update with a full build, as a user would
    see it (names, ranges, references) and as semantic tokens see it (declaration tables new objects
    whenever a declaration changed); returns how many of the edits of ``:objects`` were updates."""
    domain = parse_document(domain_path, domain_text).model

    def built(parsed: ParsedDocument) -> SymbolIndex:
        return build_index(parsed.model, path, domain=domain, domain_path=domain_path)

    current = parse_document(path, text)
    index = built(current)
    updated_declarations = 0
    for new_text in texts:
        current = reparse_document(current, path, new_text)
        fresh = parse_document(path, new_text)
        full = built(fresh)
        splice = None if current.derived is None else current.derived.splice
        updated = None if splice is None else update_index(index, current.model, splice)
        if updated is None:
            index = full
            continue
        assert_answers_alike(updated, full, new_text)
        assert updated.declarations == full.declarations and updated.visible == full.visible
        assert list(updated.declarations) == list(full.declarations)  # in declaration order
        if updated.declarations != index.declarations:
            assert updated.declarations is not index.declarations and updated.visible is not index.visible
            updated_declarations += 1
        index = updated
    assert list(index.occurrences) == list(built(parse_document(path, current.text)).occurrences)
    return updated_declarations


UNTYPED = [(["b1", "b2", "b3", "c"], None)]
TYPED = [(["b1", "b2"], "block"), (["b3"], "block"), (["c"], "place")]


@pytest.mark.parametrize("groups", [UNTYPED, TYPED], ids=["untyped", "typed"])
@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_typing_and_deleting_an_object_name_updates_the_index(
        groups: list[tuple[list[str], str | None]], where: str) -> None:
    """The common edit: a name typed into ``:objects`` keystroke by keystroke (``g``, ``gh``, ...
    ``ghost``: a name facts already used undeclared, which now resolve to it), then deleted again.
    Every keystroke is an update, never a full build."""
    text = problem_text(groups)
    objects = text.index("(:objects ") + len("(:objects ")
    at = {"start": objects, "middle": text.index("b3"), "end": text.index(")", objects)}[where]
    typed = " ghost" if where == "end" else "ghost "
    typing = typed_keystrokes(text, at, typed)
    deleting = deleted_keystrokes(typing[-1], at, at + len(typed))
    assert deleting[-1] == text
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(symbols, "_SHORT_RUN", 0)
        updates = follow_declaration_edits("/w/p.pddl", text, typing + deleting)
    changing = sum(1 for t in typing + deleting if t.count("ghost") or t != text)
    assert updates >= changing - 2  # a blank typed or deleted alone declares nothing new


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.lists(st.sampled_from(OBJECT_NAMES), min_size=1, max_size=3, unique=True),
                          st.sampled_from([None, "block", "place", "object"])), min_size=1, max_size=4),
       st.lists(st.tuples(st.sampled_from(["add", "remove", "rename", "retype", "swap"]),
                          st.integers(0, 20), st.sampled_from(OBJECT_NAMES), st.booleans()),
                min_size=1, max_size=6))
def test_chains_of_object_edits_answer_as_full_builds(
        groups: list[tuple[list[str], str | None]], edits: list[tuple[str, int, str, bool]]) -> None:
    """Objects added, removed, renamed, given another type or reordered, in typed and untyped lists,
    each edit typed keystroke by keystroke or made at once; names facts use while undeclared, and an
    object that shadows a domain constant. Duplicated names are allowed (those fall back to a full
    build, which must still be what the chain continues from)."""
    texts = []
    current = [(list(names), kind) for names, kind in groups]
    for operation, which, name, keystrokes in edits:
        before = problem_text(current)
        group = current[which % len(current)]
        names = group[0]
        if operation == "add":
            names.insert(which % (len(names) + 1), name)
        elif operation == "remove" and len(names) > 1:
            names.pop(which % len(names))
        elif operation == "rename":
            names[which % len(names)] = name
        elif operation == "retype":
            current[which % len(current)] = (names, None if group[1] else "block")
        elif operation == "swap" and len(current) > 1:
            other = (which + 1) % len(current)
            current[which % len(current)], current[other] = current[other], current[which % len(current)]
        after = problem_text(current)
        change = changed_range(before, after)
        if keystrokes and change is not None and change.old_end == change.start and change.delta > 0:
            inserted = after[change.start:change.start + change.delta]
            texts.extend(typed_keystrokes(before, change.start, inserted))
            continue
        texts.append(after)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(symbols, "_SHORT_RUN", 0)
        follow_declaration_edits("/w/p.pddl", problem_text(groups), texts)



EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _declares_objects(path: Path) -> bool:
    model = parse_document(str(path), path.read_text()).model
    return isinstance(model, Problem) and bool(model.objects)


EXAMPLE_PROBLEMS = sorted(p for p in EXAMPLES.glob("*/*.pddl")
                          if p.name != "domain.pddl" and (p.parent / "domain.pddl").exists()
                          and _declares_objects(p))
"""the bundled problems that parse and declare objects (the LLM answers include broken ones)"""


@pytest.mark.parametrize("problem", EXAMPLE_PROBLEMS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_object_edits_of_the_bundled_problems_answer_as_full_builds(problem: Path) -> None:
    """A new object typed at the start of ``:objects`` and deleted again, the first object renamed,
    and the last one deleted, on every bundled problem with its domain."""
    text = problem.read_text()
    domain = (problem.parent / "domain.pddl").read_text()
    at = text.index("(:objects") + len("(:objects")
    typing = typed_keystrokes(text, at, " extra")
    texts = typing + deleted_keystrokes(typing[-1], at, at + len(" extra"))
    model = parse_document(str(problem), text).model
    assert isinstance(model, Problem)
    first, last = model.objects[0].name.span, model.objects[-1].name.span
    texts.append(text[:first.start] + "renamed" + text[first.end:])
    texts.append(text)
    texts.extend(deleted_keystrokes(text, last.start, last.end))
    path = "/w/" + problem.name
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(symbols, "_SHORT_RUN", 0)
        assert follow_declaration_edits(path, text, texts, domain, "/w/domain.pddl") >= len(" extra")


def test_an_object_typed_into_a_generated_problem_is_an_update() -> None:
    """The benchmark's edit on a smaller problem of the same shape (one long untyped line of objects,
    facts naming them all): each keystroke of a new object at the start of ``:objects`` is an update."""
    text = blocksworld_problem(20_000)
    at = text.index("(:objects") + len("(:objects")
    typing = typed_keystrokes(text, at, " x1y")
    deleting = deleted_keystrokes(typing[-1], at, at + len(" x1y"))
    duplicate = text[:at] + " b0" + text[at:]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(symbols, "_SHORT_RUN", 50)
        updates = follow_declaration_edits("/w/p.pddl", text, [*typing, *deleting, duplicate, text],
                                           BLOCKSWORLD_DOMAIN, "/w/domain.pddl")
    # every edit but the one that declares `b0` twice and the one that undoes it (both built in full)
    # is an update, and each gives new declaration tables (the declarations after it moved, or one
    # was added or removed)
    assert updates == len(typing) + len(deleting)

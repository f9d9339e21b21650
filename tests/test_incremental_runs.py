"""Lists moved lazily by the incremental re-parse (``analyses/syntax/runs.py``,
``analyses/model/deferred.py``).

An edit re-parses only the facts or goal atoms it touched; those after it are moved without being
copied until someone reads them. What a user could notice: every version of the model, read in any
order, early or late, equals a full parse of its own text (the previous version keeps its offsets
after the next one is built and read), and an edit at the start of a long ``:init`` copies no node.
"""

from __future__ import annotations

import pickle
import random
import threading
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.pddl import Atom, Problem, name
from plansight.analyses.syntax import runs, span_shift
from plansight.analyses.syntax.documents import ParsedDocument, parse_document, reparse_document
from plansight.analyses.syntax.runs import Run


def problem_text(blocks: int, seed: int = 3) -> str:
    """A blocksworld problem with ``blocks`` blocks: long :objects, :init and goal lists."""
    rng = random.Random(seed)
    objects = " ".join(f"b{i}" for i in range(blocks))
    facts = []
    for i in range(blocks):
        facts.append(f"(on b{i} b{i - 1})" if i and rng.random() < 0.6 else f"(ontable b{i})")
        if rng.random() < 0.3:
            facts.append(f"(clear b{i})")
    goal = [f"(on b{i} b{i + 1})" for i in range(0, blocks - 1, 3)]
    return (f"(define (problem bw-{blocks})\n  (:domain blocksworld)\n  (:objects {objects})\n"
            "  (:init\n    (handempty)\n    " + "\n    ".join(facts) + ")\n"
            "  (:goal (and\n    " + "\n    ".join(goal) + "))\n  (:metric minimize (total-cost))\n)\n")


TEXT = problem_text(300)


def same_as_full(parsed: ParsedDocument) -> None:
    """The model with every span, and the diagnostics, as a full parse of the same text gives them."""
    full = parse_document(parsed.path, parsed.text)
    assert repr(parsed.model) == repr(full.model)
    assert repr(parsed.diagnostics) == repr(full.diagnostics)


def read(parsed: ParsedDocument) -> None:
    """What the checks do first: read the facts and the goal."""
    problem = parsed.problem
    if problem is not None:
        _ = (problem.init, problem.goal)


def at(text: str, anchor: str, start: int = 0) -> int:
    """Where ``anchor`` is (from ``start``), or the middle of the text when earlier edits removed it."""
    found = text.find(anchor, start)
    return found if found >= 0 else len(text) // 2


PLACES = {
    "init start": lambda t: at(t, "(handempty)"),
    "init middle": lambda t: at(t, "(", at(t, "(handempty)") + (at(t, "(:goal") - at(t, "(handempty)")) // 2),
    "init end": lambda t: at(t, ")\n  (:goal"),
    "goal start": lambda t: at(t, "(on", at(t, "(:goal")),
    "goal end": lambda t: at(t, "))\n  (:metric"),
    "objects": lambda t: at(t, " b7 "),
    "between sections": lambda t: at(t, "  (:goal"),
    "metric": lambda t: at(t, "(total-cost)"),
}
FITTING = {"between sections": "\n  ; a comment\n", "metric": " ", "objects": "zz "}
"""What keeps the file clean where a fact would not (elsewhere: a new fact)."""
CLEAN = ["(clear b1) ", "(not (on b2 b3)) ", "(= (weight b4) 2) ", " ", "; note\n"]
"""Insertions that keep the file clean at most places, so that runs of edits stay incremental."""
BREAKING = ["x", "(", ")", "(on b1 ", "; unterminated"]


@st.composite
def edit_runs(draw: st.DrawFn) -> list[tuple[str, int, str]]:
    """Edits at the start, middle and end of the long lists and between sections: mostly insertions that
    keep the file clean, sometimes ones that break its syntax or delete a few characters."""
    edits = []
    for _ in range(draw(st.integers(1, 8))):
        place = draw(st.sampled_from(sorted(PLACES)))
        if draw(st.integers(0, 3)):
            edits.append((place, 0, draw(st.sampled_from(CLEAN))))
        else:
            edits.append((place, draw(st.integers(0, 12)), draw(st.sampled_from(["", *BREAKING]))))
    return edits


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edit_runs(), st.randoms(use_true_random=False))
def test_every_version_read_in_any_order_equals_its_full_parse(
        edits: list[tuple[str, int, str]], rng: random.Random) -> None:
    """Chained edits with no read in between, so the lists are pieces of several versions at once;
    then every version is read, in a random order, and compared with a full parse of its text."""
    text = TEXT
    versions = [parse_document("p.pddl", text)]
    for place, removed, inserted in edits:
        start = PLACES[place](text)
        text = text[:start] + inserted + text[start + removed:]
        versions.append(reparse_document(versions[-1], "p.pddl", text, lazy=True))
        if rng.random() < 0.2:  # sometimes a reader comes between two edits: it copies the moved nodes
            read(versions[-1])
    order = list(range(len(versions)))
    rng.shuffle(order)
    for index in order:
        same_as_full(versions[index])


@pytest.mark.parametrize("place", sorted(PLACES))
def test_an_edit_anywhere_reparses_exactly_and_leaves_the_previous_version_alone(place: str) -> None:
    before = parse_document("p.pddl", TEXT)
    before_model = repr(before.model)
    start = PLACES[place](TEXT)
    text = TEXT[:start] + FITTING.get(place, "(clear b9) ") + TEXT[start:]
    after = reparse_document(before, "p.pddl", text, lazy=True)
    assert after.derived is not None  # parsed incrementally
    same_as_full(after)
    assert repr(before.model) == before_model


def _counted_copies(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The nodes moved spans are copied for from now on (``span_shift.shifted`` through the runs), one
    count per call."""
    copied: list[int] = []
    real = span_shift.shifted

    def counting(value: object, delta: int) -> object:
        copied.append(len(value) if isinstance(value, tuple) else 1)
        return real(value, delta)

    monkeypatch.setattr(runs, "shifted", counting)
    return copied


def test_an_edit_at_the_start_of_init_copies_no_node_until_the_model_is_read(
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = problem_text(3000)
    before = parse_document("p.pddl", text)
    start = PLACES["init start"](text)
    new_text = text[:start] + "(clear b1) " + text[start:]
    copied = _counted_copies(monkeypatch)
    monkeypatch.setattr("plansight.analyses.syntax.incremental.shifted", runs.shifted)  # the same counter
    after = reparse_document(before, "p.pddl", new_text, lazy=True)
    assert after.derived is not None and copied == []
    problem = after.problem
    assert problem is not None
    facts = problem.init  # the first read moves what lies after the edit, once: facts, goal, metric
    fresh = len(after.derived.splice.elements)  # the facts the edit touched, parsed again
    goal = problem.goal
    assert goal is not None and problem.metric is not None
    assert sum(copied) == len(facts) - fresh + len(goal.args) + 1
    assert problem.init is facts
    old = before.problem.init if before.problem is not None else ()
    assert facts[-1] is not old[-1] and facts[-1].span.start == old[-1].span.start + 11
    same_as_full(after)


def test_without_lazy_the_moved_nodes_are_copied_before_the_parse_returns(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """What the server asks for while its checks read every list right after the parse."""
    before = parse_document("p.pddl", TEXT)
    start = PLACES["init start"](TEXT)
    copied = _counted_copies(monkeypatch)
    after = reparse_document(before, "p.pddl", TEXT[:start] + "(clear b1) " + TEXT[start:])
    assert after.derived is not None and after.problem is not None
    assert sum(copied) == len(after.problem.init) - len(after.derived.splice.elements) + len(
        after.problem.goal.args) + 1  # type: ignore[union-attr]
    same_as_full(after)


def test_edits_that_break_the_syntax_and_their_undo_come_back_to_the_full_parse() -> None:
    current = parse_document("p.pddl", TEXT)
    start = PLACES["init middle"](TEXT)
    broken = TEXT[:start] + "(on b1 " + TEXT[start:]
    current = reparse_document(current, "p.pddl", broken, lazy=True)
    same_as_full(current)
    assert current.diagnostics
    current = reparse_document(current, "p.pddl", TEXT, lazy=True)
    same_as_full(current)
    edited = TEXT[:start] + "(clear b2) " + TEXT[start:]
    current = reparse_document(current, "p.pddl", edited, lazy=True)
    assert current.derived is not None
    same_as_full(current)


def test_an_edit_across_two_sections_parses_both_again() -> None:
    before = parse_document("p.pddl", TEXT)
    start, stop = at(TEXT, "(:init"), at(TEXT, "(:goal")
    text = TEXT[:start] + "(:init (handempty))\n  " + TEXT[stop:]
    same_as_full(reparse_document(before, "p.pddl", text, lazy=True))


def test_a_deferred_field_reads_as_the_same_value_from_every_thread() -> None:
    before = parse_document("p.pddl", TEXT)
    start = PLACES["init start"](TEXT)
    after = reparse_document(before, "p.pddl", TEXT[:start] + "(clear b1) " + TEXT[start:], lazy=True)
    problem = after.problem
    assert problem is not None
    seen: list[object] = []
    barrier = threading.Barrier(4)

    def read() -> None:
        barrier.wait()
        seen.append(problem.init)

    threads = [threading.Thread(target=read) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 4 and all(s is seen[0] for s in seen)


def test_a_model_with_deferred_fields_behaves_as_an_ordinary_one() -> None:
    before = parse_document("p.pddl", TEXT)
    start = PLACES["objects"](TEXT)
    text = TEXT[:start] + "zz " + TEXT[start:]
    after = reparse_document(before, "p.pddl", text, lazy=True)
    full = parse_document("p.pddl", text).problem
    problem = after.problem
    assert isinstance(problem, Problem) and full is not None
    assert problem == full and hash(problem) == hash(full)
    assert repr(pickle.loads(pickle.dumps(problem))) == repr(full)
    assert repr(replace(problem, name=name("other"))) == repr(replace(full, name=name("other")))
    assert type(problem.init) is tuple and type(problem.objects) is tuple


def atoms(spans: list[tuple[int, int]]) -> tuple[Atom, ...]:
    return tuple(Atom(name("p"), (), Span(s, e)) for s, e in spans)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=0, max_size=30), st.data())
def test_a_run_answers_like_the_list_it_stands_for(widths: list[int], data: st.DataObject) -> None:
    """Edits spliced into a run (a window kept, new nodes, a window moved), against the same edits made
    to a list by copying: the same spans, the same answers to "how many end by / start before"."""
    spans, end = [], 0
    for width in widths:
        spans.append((end, end + width))
        end += width + data.draw(st.integers(0, 2))
    run, expected = Run.of(atoms(spans)), list(atoms(spans))
    for _ in range(data.draw(st.integers(0, 4))):
        low = data.draw(st.integers(0, len(expected)))
        high = data.draw(st.integers(low, len(expected)))
        gap = expected[low - 1].span.end if low else 0
        fresh = atoms([(gap, gap + data.draw(st.integers(0, 3)))])
        least = fresh[0].span.end - expected[high].span.start if high < len(expected) else -3
        delta = data.draw(st.integers(least, least + 4))
        run = Run.join(run.window(0, low), fresh, run.window(high, len(run)).moved(delta))
        expected = [*expected[:low], *fresh, *span_shift.shifted(expected[high:], delta)]
    assert len(run) == len(expected)
    assert [run.span(i) for i in range(len(run))] == [a.span for a in expected]
    last = expected[-1].span.end if expected else 0
    for offset in range(-2, last + 3):
        assert run.ending_by(offset) == sum(1 for a in expected if a.span.end <= offset)
        assert run.starting_before(offset) == sum(1 for a in expected if a.span.start < offset)
    assert repr(run.materialize()) == repr(tuple(expected))
    assert run.materialize() is run.materialize()


TYPED = problem_text(60).replace(
    "(:objects " + " ".join(f"b{i}" for i in range(60)) + ")",
    "(:objects " + " ".join(f"b{i}" for i in range(20)) + " - block "
    + " ".join(f"b{i}" for i in range(20, 40)) + " - (either block table) "
    + " ".join(f"b{i}" for i in range(40, 60)) + ")")
NAME_EDITS = ["z", " zz ", "- block ", " - thing", "x - t ", "-", " ", "(", "; c\n", ""]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.floats(0, 1), st.integers(0, 6), st.sampled_from(NAME_EDITS)),
                min_size=1, max_size=8),
       st.randoms(use_true_random=False))
def test_edits_of_typed_object_lists_equal_a_full_parse(
        edits: list[tuple[float, int, str]], rng: random.Random) -> None:
    """Names typed after the stretch, names whose `- type` is edited away or typed in, names glued to
    their neighbours: chained edits anywhere in the object list, every version checked at the end."""
    assert "- block" in TYPED
    text = TYPED
    versions = [parse_document("p.pddl", text)]
    for where, removed, inserted in edits:
        low, high = text.find("(:objects") + 10, text.find("(:init") - 4
        start = low + int(where * max(high - low, 0))
        text = text[:start] + inserted + text[start + removed:]
        versions.append(reparse_document(versions[-1], "p.pddl", text, lazy=True))
    rng.shuffle(versions)
    for parsed in versions:
        same_as_full(parsed)


@pytest.mark.parametrize(("anchor", "inserted", "only_names"), [
    (" b45 ", " new", True),  # a name in the untyped last group
    (" b45 ", "x", True),  # a name grown at its end
    (" b59)", " - thing", False),  # the last group typed: the names before it change type
    (" b5 ", " new", False),  # a typed group: its names before the edit take the moved type
    (" - block", " new", False),  # right before the group's type
])
def test_an_object_edit_reparses_only_names_where_none_is_typed(anchor: str, inserted: str,
                                                                only_names: bool) -> None:
    before = parse_document("p.pddl", TYPED)
    at_ = TYPED.index(anchor) + (4 if inserted == "x" else 0)
    text = TYPED[:at_] + inserted + TYPED[at_:]
    after = reparse_document(before, "p.pddl", text, lazy=True)
    same_as_full(after)
    assert after.derived is not None
    # a stretch of names starts past the section's keyword; a re-parsed section starts at its `(`
    assert (after.derived.splice.start > TYPED.index("(:objects") + 1) == only_names


def keystrokes_without_bracket_closing(text: str, start: int, fact: str) -> list[str]:
    """The versions an editor that does not close brackets sends while ``fact`` is typed at ``start``:
    `(` alone, then one character at a time, the `)` last."""
    return [text[:start] + fact[:typed] + text[start:] for typed in range(1, len(fact) + 1)]


@pytest.mark.parametrize("place", ["init start", "init middle", "init end", "goal start", "goal end"])
def test_a_fact_typed_without_its_closing_bracket_equals_the_full_parse_at_every_keystroke(
        place: str) -> None:
    """While the `)` is missing the file does not balance: every keystroke must still give the model,
    spans and diagnostics (the missing `)` with its range) of a full parse, and so must the `)` typed."""
    current = parse_document("p.pddl", TEXT)
    versions = keystrokes_without_bracket_closing(TEXT, PLACES[place](TEXT), "(clear b7) ")
    for text in versions:
        current = reparse_document(current, "p.pddl", text, lazy=True)
        same_as_full(current)
    before_bracket = parse_document("p.pddl", versions[-3])
    assert "unclosed-paren" in [d.code for d in before_bracket.diagnostics]
    assert not current.diagnostics  # once the `)` is typed the file is clean again


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(PLACES)), st.sampled_from(["(clear b1) ", "(on b2 b3) ", "(not (on b4 b5)) "]),
       st.integers(0, 3))
def test_a_deleted_closing_bracket_and_its_return_equal_the_full_parse(
        place: str, fact: str, later: int) -> None:
    """A `)` deleted from a fact, characters typed after the gap, then the `)` typed back: every version
    equals a full parse of its text."""
    current = parse_document("p.pddl", TEXT)
    start = PLACES[place](TEXT)
    text = TEXT[:start] + fact + TEXT[start:]
    current = reparse_document(current, "p.pddl", text, lazy=True)
    same_as_full(current)
    gap = start + fact.rindex(")")
    text = text[:gap] + text[gap + 1:]
    current = reparse_document(current, "p.pddl", text, lazy=True)
    same_as_full(current)
    for letter in " b9"[:later]:
        text = text[:gap] + letter + text[gap:]
        gap += 1
        current = reparse_document(current, "p.pddl", text, lazy=True)
        same_as_full(current)
    text = text[:gap] + ")" + text[gap:]
    current = reparse_document(current, "p.pddl", text, lazy=True)
    same_as_full(current)

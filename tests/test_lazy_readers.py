"""Editor requests on a lazily re-parsed problem answer exactly what they answer on a full parse, and
read only the part of ``:init`` and the goal they need.

After an edit the server re-parses with ``reparse_document(..., lazy=True)``: ``:init`` and the goal's
conjunction are left as runs of moved nodes, copied on the first whole read (``analyses/syntax/runs.py``).
The outline, the quick fixes' atom lookup, the hover on a bound variable and the completion's variable
types read windows of them instead. Each version of a random edit history is parsed lazily from the
previous lazy version and from scratch; the answers are compared with the answers the code gave before
(whole lists read from the full parse), and the lazy version's lists must still be unbuilt after them.
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing.object_type_hints import object_type_hints
from plansight.analyses.editing.quick_fixes import _atom_at, _problem_formulas
from plansight.analyses.model.deferred import Deferred, peek
from plansight.analyses.model.pddl import Problem, Quantified, walk
from plansight.analyses.syntax.documents import ParsedDocument, parse_document, reparse_document
from plansight.analyses.syntax.runs import Run, list_length, list_touching, list_window
from plansight.server.completion_feature import _typed_names
from plansight.server.convert import RangeMapper
from plansight.server.hover_feature import _find_variable, _object
from plansight.server.symbols_feature import MAX_CHILDREN, outline

OBJECTS = " ".join(f"b{i} - block" for i in range(8))
FACTS = ["(clear b1)", "(on b1 b2)", "(on-table b3)", "(clear b4)", "(handempty)", "(on b5 b6)",
         "(holding b7)", "(on-table b0)", "(= (weight b1) 3)"]
GOALS = ["(on b1 b2)", "(clear b3)", "(exists (?x - block) (clear ?x))", "(not (on b4 b5))",
         "(forall (?y - block) (on-table ?y))", "(on-table b6)"]


def render(facts: list[str], goals: list[str]) -> str:
    """A problem whose facts sit one per line and whose goal is a conjunction."""
    init = "\n    ".join(facts)
    return (f"(define (problem p)\n  (:domain blocks)\n  (:objects {OBJECTS})\n"
            f"  (:init\n    {init})\n  (:goal (and {' '.join(goals)}))\n)\n")


edits = st.lists(st.tuples(st.sampled_from(["fact+", "fact-", "goal+", "goal-", "space"]),
                           st.integers(0, 10_000), st.sampled_from(FACTS), st.sampled_from(GOALS)),
                 min_size=1, max_size=6)


def apply(facts: list[str], goals: list[str], edit: tuple[str, int, str, str]) -> None:
    """One editor-like change of the lists (a fact or goal atom inserted or removed anywhere)."""
    kind, where, fact, goal = edit
    if kind == "fact+":
        facts.insert(where % (len(facts) + 1), fact)
    elif kind == "fact-" and len(facts) > 1:
        facts.pop(where % len(facts))
    elif kind == "goal+":
        goals.insert(where % (len(goals) + 1), goal)
    elif kind == "goal-" and len(goals) > 1:
        goals.pop(where % len(goals))
    elif kind == "space":
        facts[where % len(facts)] = " " + facts[where % len(facts)]


def unbuilt(problem: Problem) -> bool:
    """Whether the lazily moved lists are still runs (nobody copied them whole)."""
    return isinstance(peek(problem, "init"), Deferred) or isinstance(peek(problem, "goal"), Deferred)


_WORD = re.compile(r"[\w?-]+")


def words(text: str) -> list[Span]:
    """The span of every predicate and argument word of the facts and the goal."""
    return [Span(m.start(), m.end()) for m in _WORD.finditer(text, text.index("(:init") + 6)]


def variables(text: str) -> list[Span]:
    """The spans of the variables declared by the goal's quantifiers."""
    return [Span(m.start(1), m.end(1)) for m in re.finditer(r"\((\?\w+) - block\)", text)]


def old_typed_names(problem: Problem) -> list[Any]:
    """The completion's variable declarations as the code read them before: the whole goal walked."""
    return [v for formula in (problem.goal, problem.constraints) for node in walk(formula)
            if isinstance(node, Quantified) for v in node.variables]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits)
def test_lazy_readers_answer_as_a_full_parse(history: list[tuple[str, int, str, str]]) -> None:
    facts = FACTS * 3
    goals = list(GOALS)
    lazy: ParsedDocument = parse_document("p.pddl", render(facts, goals))
    for edit in history:
        apply(facts, goals, edit)
        text = render(facts, goals)
        lazy = reparse_document(lazy, "p.pddl", text, lazy=True)
        full = parse_document("p.pddl", text)
        assert lazy.problem is not None and full.problem is not None
        was_lazy = unbuilt(lazy.problem)
        mapper = RangeMapper(text, "utf-16")
        assert outline(lazy, mapper) == outline(full, mapper)
        for span in words(text):
            for by_argument in (False, True):
                want = _atom_at([*full.problem.init, full.problem.goal, full.problem.constraints], span,
                                by_argument)
                assert _atom_at(_problem_formulas(lazy.problem, span), span, by_argument) == want
        for span in variables(text):
            target: Any = SimpleNamespace(span=span)
            assert _find_variable(lazy.problem, target) == _find_variable(full.problem, target)
            assert _find_variable(full.problem, target) is not None
            got = [v for v in _typed_names(lazy.problem, span) if v.name.span == span]
            assert got == [v for v in old_typed_names(full.problem) if v.name.span == span]
            assert got
        assert unbuilt(lazy.problem) == was_lazy  # none of the readers above copied a whole list


def test_an_edit_at_the_start_of_init_leaves_the_lists_unbuilt_for_the_outline() -> None:
    facts = [f"(clear b{i % 8})" for i in range(300)]
    before = parse_document("p.pddl", render(facts, list(GOALS)))
    text = render(["(handempty)", *facts], list(GOALS))
    lazy = reparse_document(before, "p.pddl", text, lazy=True)
    assert lazy.problem is not None
    assert unbuilt(lazy.problem)
    symbols = outline(lazy, RangeMapper(text, "utf-16"))
    assert unbuilt(lazy.problem)
    full = parse_document("p.pddl", text)
    assert symbols == outline(full, RangeMapper(text, "utf-16"))
    init = next(s for s in symbols[0].children or [] if s.name == "init")
    assert init.detail == "301 facts" and len(init.children or []) == MAX_CHILDREN


def test_list_readers_match_slices_of_the_built_list() -> None:
    facts = [f"(clear b{i % 8})" for i in range(50)]
    before = parse_document("p.pddl", render(facts, list(GOALS)))
    text = render(["(handempty)", *facts[:20], "(on b1 b2)", *facts[20:]], list(GOALS))
    lazy = reparse_document(before, "p.pddl", text, lazy=True)
    full = parse_document("p.pddl", text)
    assert lazy.problem is not None and full.problem is not None
    run = peek(lazy.problem, "init")
    assert isinstance(run, Deferred)
    whole = full.problem.init
    assert list_length(run) == len(whole) == 52
    for start, stop in ((0, 10), (-1, None), (15, 30), (40, 100), (30, 10)):
        assert list_window(run, start, stop) == whole[start:stop]
    for node in whole[::7]:
        touching = list_touching(run, node.span.start, node.span.end)
        assert node in touching and len(touching) == 1
        assert list_touching(whole, node.span.start, node.span.end) == touching
    assert list_touching(run, 0, 10) == ()
    assert unbuilt(lazy.problem)


def test_inlay_hints_and_hover_read_the_objects_alone_after_an_edit_before_them() -> None:
    objects = " ".join(f"o{i}" for i in range(40)) + " - block"
    before_text = render(FACTS * 20, list(GOALS)).replace(OBJECTS, objects)
    before = parse_document("p.pddl", before_text)
    text = before_text.replace("(:domain blocks)", "(:domain blocksworld)")
    lazy = reparse_document(before, "p.pddl", text, lazy=True)
    full = parse_document("p.pddl", text)
    assert lazy.problem is not None and full.problem is not None
    assert isinstance(peek(lazy.problem, "objects"), Deferred) and unbuilt(lazy.problem)
    assert object_type_hints(lazy.problem, text) == object_type_hints(full.problem, text)
    assert object_type_hints(full.problem, text)
    at = text.index(" o7 ") + 1
    target: Any = SimpleNamespace(span=Span(at, at + 2), kind="object")
    assert _object(target, None, lazy) == _object(target, None, full) == "**object** `o7 - block`"
    assert unbuilt(lazy.problem)


def test_the_outline_and_type_hints_leave_the_objects_unbuilt_after_an_edit_of_them_or_before_them() -> None:
    """An object typed at the start of a long untyped object list moves every other one, and so does an
    edit of the header for a typed list spread over lines: the outline (objects grouped by type) and
    the inlay hints of each line read the list as the parse left it, moving only what they show, and
    answer what they answer on a full parse."""
    untyped = render(FACTS * 5, list(GOALS)).replace(OBJECTS, " ".join(f"o{i}" for i in range(300)))
    typed = render(FACTS * 5, list(GOALS)).replace(OBJECTS, "o0 o1 o2 o3\n    o4 o5 - block\n"
                                                   "    t1 t2 - table\n    x y z w - block u")
    edits = [(untyped, untyped.replace("(:objects o0", "(:objects n0 o0")),
             (typed, typed.replace("(:domain blocks)", "(:domain blocksworld)"))]
    for before_text, text in edits:
        lazy = reparse_document(parse_document("p.pddl", before_text), "p.pddl", text, lazy=True)
        full = parse_document("p.pddl", text)
        assert lazy.problem is not None and full.problem is not None
        assert isinstance(peek(lazy.problem, "objects"), Deferred)
        mapper = RangeMapper(text, "utf-16")
        assert outline(lazy, mapper) == outline(full, mapper)
        lines = [Span(m.start(), m.end()) for m in re.finditer(r"[^\n]*\n", text)]
        for span in [None, *lines]:
            assert object_type_hints(lazy.problem, text, span) == object_type_hints(full.problem, text, span)
        objects = peek(lazy.problem, "objects")
        assert isinstance(objects, Run) and objects._state[2] is None  # never built: no tuple of them made
    assert object_type_hints(full.problem, text)

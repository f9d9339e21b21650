"""The checks of an edited problem, reusing the previous version's, say exactly what a check from
scratch says: same codes, messages, spans, related locations, quick-fix data, in the same order.

Problems are generated with planted errors (duplicate facts, unknown objects and predicates, wrong
arities and types, free variables, contradictory and statically unreachable goals, function values,
misplaced constructs) and edited at random: facts and goal conjuncts inserted, removed and replaced,
objects added and removed, the domain swapped. Each version is parsed every way the server may parse
it (incrementally from the previous version, whose unchanged nodes are partly the same objects and partly
copies at new offsets, or, with ``lazy``, still to be moved when the check runs; and from scratch, where
every node is new), and checked by one :class:`ProblemChecker` that has seen every version before it.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plansight.analyses.checks.problem import check_problem
from plansight.analyses.checks.problem_incremental import ProblemChecker, _IncrementalCheck
from plansight.analyses.diagnostics.diagnostic import Diagnostic
from plansight.analyses.model.deferred import peek
from plansight.analyses.model.pddl import Atom, Domain, Problem
from plansight.analyses.syntax.documents import ParsedDocument, parse_document, reparse_document
from plansight.analyses.syntax.runs import MovedAnd, Run

TYPED = """(define (domain blocks)
  (:requirements :strips :typing :numeric-fluents)
  (:types block table)
  (:predicates (on ?x - block ?y - block) (clear ?x - block) (fixed ?x - block) (heavy ?t - table))
  (:functions (weight ?x - block))
  (:action move :parameters (?x ?y - block)
    :precondition (and (clear ?x) (clear ?y))
    :effect (and (on ?x ?y) (not (clear ?y)))))
"""

UNTYPED = """(define (domain blocks)
  (:requirements :strips)
  (:constants c)
  (:predicates (on ?x ?y) (clear ?x) (fixed ?x))
  (:action move :parameters (?x ?y)
    :precondition (clear ?x)
    :effect (and (on ?x ?y) (not (clear ?y)))))
"""

CONTINGENT = UNTYPED.replace(":strips", ":strips :non-deterministic")

DOMAINS: list[Domain | None] = [parse_document("d1.pddl", TYPED).domain,
                                parse_document("d2.pddl", UNTYPED).domain, None,
                                parse_document("d3.pddl", CONTINGENT).domain]

OBJECTS = ["a - block", "b - block", "c - block", "d - block", "t1 - table", "a - block", "C - block",
           "e - crate", "f", "B"]

FACTS = [
    "(fixed a)", "(fixed b)", "(on a b)", "(on a b)", "(on b c)", "(clear a)", "(clear b)", "(CLEAR A)",
    "(clear c)", "(fixed a)",
    "(fixed b)", "(heavy t1)", "(clear zz)", "(on a)", "(clear t1)", "(undef a)", "(weight a)",
    "(clear ?x)", "(on c a)", "(= (weight a) 3)", "(= (weight zz) 1)", "(= (weight a) (weight b))",
    "(< (weight a) 2)", "(on d c)", "(fixed d)",
]
RARE_FACTS = ["(not (clear a))", "(at 5 (clear b))", "(and (clear a))", "()", "(and)", "(not (clear b))",
              "(not (clear a))", "(or (clear a) (clear b))", "(oneof (clear a) (clear b))",
              "(unknown (on a b))", "(not (undef a))", "(and (clear a) (not (clear a)))"]
"""Elements that are neither atoms nor function values: checked with each other on every version, or
left to a check from scratch (timed, uncertain, or in a contingent problem)."""

GOALS = [
    "(on a b)", "(not (on a b))", "(clear c)", "(not (clear c))", "(fixed b)", "(not (fixed a))",
    "(fixed d)", "(FIXED B)", "(clear ?x)", "(clear zz)", "(on a)", "(heavy t1)", "(undef b)",
    "(exists (?x - block) (clear ?x))", "(or (clear a) (clear b))", "(> (weight a) 2)", "(on b c)",
    "(not (on b c))", "(when (clear a) (clear b))",
]
RARE_GOALS = ["(and (clear a) (clear d))", "()", "(and)"]


def render(objects: list[str], facts: list[str], goals: list[str], flat: bool) -> str:
    goal = f"(and {' '.join(goals)})" if flat or len(goals) != 1 else goals[0]
    return (f"(define (problem p)\n  (:domain blocks)\n  (:objects {' '.join(objects)})\n"
            f"  (:init\n    {chr(10).join('    ' + f for f in facts)})\n  (:goal {goal})\n)\n")


def same(got: list[Diagnostic], want: list[Diagnostic]) -> None:
    assert repr(got) == repr(want)
    assert [d.data for d in got] == [d.data for d in want]


@st.composite
def histories(draw: st.DrawFn) -> list[tuple[str, int]]:
    """Texts of successive versions of a problem, with the domain each is checked against."""
    objects = draw(st.lists(st.sampled_from(OBJECTS), min_size=1, max_size=6))
    facts = draw(st.lists(st.sampled_from(FACTS), max_size=12))
    goals = draw(st.lists(st.sampled_from(GOALS), min_size=1, max_size=8))
    domain = draw(st.sampled_from([0, 0, 0, 1, 2, 3]))
    versions = [(render(objects, facts, goals, True), domain)]
    for _ in range(draw(st.integers(1, 12))):
        action = draw(st.sampled_from(["fact+", "fact+", "fact-", "fact-", "fact~", "goal+", "goal-",
                                       "goal~", "object", "domain", "rare", "same"]))
        if action.startswith("fact") or action == "rare":
            target, pool = facts, FACTS if action != "rare" else RARE_FACTS
        elif action.startswith("goal"):
            target, pool = goals, GOALS
        else:
            target, pool = objects, OBJECTS
        at = draw(st.integers(0, len(target)))
        if action == "domain":
            domain = draw(st.sampled_from([0, 1, 2, 3]))
        elif action in ("fact+", "goal+", "rare") or (action == "object" and draw(st.booleans())):
            choices = RARE_GOALS if target is goals and draw(st.integers(0, 9)) == 0 else pool
            target.insert(at, draw(st.sampled_from(choices)))
        elif action != "same" and len(target) > (target is not facts):
            index = min(at, len(target) - 1)
            if action.endswith("~"):
                target[index] = draw(st.sampled_from(pool))
            else:
                del target[index]
        versions.append((render(objects, facts, goals, draw(st.integers(0, 9)) > 0), domain))
    return versions


PARSES = ("full", "incremental", "lazy", "lazy, then read")
"""How a version is parsed: from scratch; incrementally with the moved nodes copied; lazily, its lists
never built (the check from scratch it is compared with runs on a parse of its own), so that the next
version's runs are pieces of this one's; lazily, then read whole by the check from scratch."""


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(histories(), st.lists(st.sampled_from(PARSES), min_size=14, max_size=14))
def test_each_version_gets_the_diagnostics_of_a_check_from_scratch(
        history: list[tuple[str, int]], parses: list[str]) -> None:
    checker = ProblemChecker()
    previous: ParsedDocument | None = None
    for (text, domain_index), how in zip(history, parses, strict=False):
        lazy = how.startswith("lazy")
        parsed = (reparse_document(previous, "p.pddl", text, lazy=lazy)
                  if how != "full" and previous is not None else parse_document("p.pddl", text))
        problem = parsed.problem
        assert isinstance(problem, Problem), parsed.diagnostics
        domain = DOMAINS[domain_index]
        got = checker.check(problem, domain)
        reference = parse_document("p.pddl", text).problem if how == "lazy" else problem
        assert reference is not None
        same(got, check_problem(reference, domain))
        previous = parsed


def test_planted_errors_are_found_after_edits() -> None:
    """Not only equal to a check from scratch: the errors an edit brings are reported, and those it
    removes are gone."""
    domain = DOMAINS[0]
    checker = ProblemChecker()
    facts = ["(on a b)", "(clear a)", "(fixed a)"]
    base = render(["a b c - block"], facts, ["(on b c)", "(fixed a)"], True)
    parsed = parse_document("p.pddl", base)
    assert checker.check(parsed.problem, domain) == []  # type: ignore[arg-type]
    edited = render(["a b c - block"], [*facts, "(clear zz)", "(on a b)"],
                    ["(on b c)", "(fixed a)", "(fixed b)", "(not (on b c))"], True)
    parsed = reparse_document(parsed, "p.pddl", edited)
    codes = sorted(d.code for d in checker.check(parsed.problem, domain))  # type: ignore[arg-type]
    assert codes == ["contradictory-goal", "duplicate-init-fact", "static-goal-unreachable",
                     "undeclared-object"]
    parsed = reparse_document(parsed, "p.pddl", base)
    assert checker.check(parsed.problem, domain) == []  # type: ignore[arg-type]


def _agree_on_each(texts: list[str], domain: Domain | None) -> None:
    """Each version, parsed incrementally from the one before, gets a check from scratch's diagnostics."""
    checker = ProblemChecker()
    parsed: ParsedDocument | None = None
    for text in texts:
        parsed = (reparse_document(parsed, "p.pddl", text) if parsed is not None
                  else parse_document("p.pddl", text))
        assert isinstance(parsed.problem, Problem)
        same(checker.check(parsed.problem, domain), check_problem(parsed.problem, domain))


def test_an_object_declared_or_undeclared_changes_what_its_facts_and_goals_say() -> None:
    """A goal literal over a static predicate is decided by `:init` only once its objects are
    declared; a fact naming an object that goes turns unknown; both follow the object list's edits
    (one a property test found: the goal's static bit must follow the object table too)."""
    texts = [render([objects], ["(fixed a)", "(clear b)"], ["(on a b)", "(not (fixed a))"], True)
             for objects in ("b - block", "a - block b - block", "a - block", "a b - block", "b - block")]
    _agree_on_each(texts, DOMAINS[0])
    _agree_on_each([text.replace(" - block", "") for text in texts], DOMAINS[1])


def test_an_object_retyped_or_respelt_in_a_typed_list_is_seen() -> None:
    """An edit inside a typed object list parses the whole section again: its new declarations are
    compared with the previous ones by content, their types and their spelling included (a message
    quotes the declaration's spelling: `Did you mean `Block1`?`)."""
    facts = ["(on block1 b)", "(clear block2)"]
    texts = [render([objects], facts, ["(on block1 b)"], True)
             for objects in ("block1 b - block", "block1 - table b - block", "block1 b - block",
                             "Block1 b - block", "Block1 - block b - block")]
    _agree_on_each(texts, DOMAINS[0])
    respelt = parse_document("p.pddl", texts[3]).problem
    assert respelt is not None
    assert any("`Block1`" in d.message for d in check_problem(respelt, DOMAINS[0]))
    retyped = parse_document("p.pddl", texts[1]).problem
    assert retyped is not None
    assert "type-mismatch" in {d.code for d in check_problem(retyped, DOMAINS[0])}


@pytest.mark.parametrize(("domain_index", "added"), [
    (3, "(and (clear a))"),  # contingent: the atoms in `and` are facts, duplicates of the plain ones
    (3, "(oneof (clear a) (clear b))"),
    (0, "(at 5 (fixed b))"),  # timed: the fact is no longer static for the goal
    (0, "(and (fixed b))"),
    (0, "()"),
    (0, "(not (fixed b))"),
])
def test_elements_that_are_not_atoms_are_checked_as_from_scratch(domain_index: int, added: str) -> None:
    """An element typed into `:init` that is neither an atom nor a function value, in a problem whose
    bookkeeping is reused: the diagnostics are a check from scratch's, before and after it goes."""
    domain = DOMAINS[domain_index]
    facts = ["(clear a)", "(fixed b)", "(on a b)"]
    goals = ["(fixed b)", "(clear a)"]
    texts = [render(["a b - block"], facts, goals, True),
             render(["a b - block"], [*facts[:2], added, *facts[2:]], goals, True),
             render(["a b - block"], [*facts[:2], added, "(clear b)", *facts[2:]], goals, True),
             render(["a b - block"], facts, goals, True)]
    _agree_on_each(texts, domain)


@pytest.mark.parametrize("added", ["()", "(and)", "(and (not (fixed b)))", "(and (clear b) (fixed a))"])
def test_goal_conjuncts_that_are_conjunctions_are_checked_as_from_scratch(added: str) -> None:
    """A `()` typed into the goal (a bracket-closing editor's first keystroke) is checked with the goal's
    other formulas; a conjunction with literals, whose literals are the goal's own, from scratch."""
    domain = DOMAINS[0]
    goals = ["(fixed b)", "(clear a)", "(on a b)"]
    texts = [render(["a b - block"], ["(clear a)"], goals, True),
             render(["a b - block"], ["(clear a)"], [*goals[:2], added, *goals[2:]], True),
             render(["a b - block"], ["(clear a)"], [*goals[:2], added, "(on b a)", *goals[2:]], True),
             render(["a b - block"], ["(clear a)"], goals, True)]
    _agree_on_each(texts, domain)


def _large(facts: int) -> str:
    objects = [f"b{i}" for i in range(facts)]
    init = [f"(clear b{i})" for i in range(facts)]
    goals = [f"(on b{i} b{i + 1})" for i in range(0, facts - 1, 2)]
    return render([" ".join(objects) + " - block"], init, goals, True)


def _looked_at(monkeypatch: pytest.MonkeyPatch) -> list[Atom]:
    """The atoms the incremental check looks up from now on, in order."""
    looked_at: list[Atom] = []
    original = _IncrementalCheck.clean

    def counting(self: _IncrementalCheck, atom: Atom) -> bool:
        looked_at.append(atom)
        return original(self, atom)

    monkeypatch.setattr(_IncrementalCheck, "clean", counting)
    return looked_at


def test_an_edit_of_a_large_problem_looks_only_at_what_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of the bookkeeping: one fact added at the end of a 20,000-fact ``:init`` has its own
    names looked up, not every fact's again (counted, not timed: the time is in
    ``benchmarks/lsp_edit_cpu.py``), and the answer is still that of a check from scratch."""
    domain = DOMAINS[0]
    text = _large(20_000)
    parsed = parse_document("p.pddl", text)
    checker = ProblemChecker()
    looked_at = _looked_at(monkeypatch)
    checker.check(parsed.problem, domain)  # type: ignore[arg-type]
    assert len(looked_at) >= 20_000  # the first version is checked whole
    end = text.index(")\n  (:goal")
    for i in range(3):
        text = text[:end] + f" (clear b{i})" + text[end:]
        parsed = reparse_document(parsed, "p.pddl", text)
        problem = parsed.problem
        assert problem is not None
        looked_at.clear()
        got = checker.check(problem, domain)
        assert [(a.predicate.key, *(n.key for n in a.args)) for a in looked_at] == [("clear", f"b{i}")]
        same(got, check_problem(problem, domain))


def test_a_lazy_edit_at_the_start_of_init_is_checked_without_building_the_moved_lists(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With the server's lazy parse, a fact added at the start of a 20,000-fact ``:init`` moves every fact
    and goal atom after it; the check looks at the new fact only and leaves the moved lists unbuilt
    (their copy is what made such an edit slow), yet says what a check from scratch says."""
    domain = DOMAINS[0]
    text = _large(20_000)
    parsed = parse_document("p.pddl", text)
    checker = ProblemChecker()
    checker.check(parsed.problem, domain)  # type: ignore[arg-type]
    looked_at = _looked_at(monkeypatch)
    start = text.index("(:init") + len("(:init")
    for i, fact in enumerate(["(clear b7)", "(clear zz)", "(on b1 b2)"]):
        text = text[:start] + f" {fact}" + text[start:]
        parsed = reparse_document(parsed, "p.pddl", text, lazy=True)
        problem = parsed.problem
        assert problem is not None
        looked_at.clear()
        got = checker.check(problem, domain)
        assert len(looked_at) == 1, i
        assert isinstance(peek(problem, "init"), Run) and isinstance(peek(problem, "goal"), MovedAnd)
        same(got, check_problem(parse_document("p.pddl", text).problem, domain))  # type: ignore[arg-type]
    assert {d.code for d in got} == {"duplicate-init-fact", "undeclared-object"}


@pytest.mark.parametrize("typed", [False, True])
def test_objects_typed_at_the_start_of_a_large_list_look_only_at_the_facts_naming_them(
        monkeypatch: pytest.MonkeyPatch, typed: bool) -> None:
    """A new object's name typed key by key before the first of 20,000 objects: on the way it renames
    that object (`nb0`, `n0b0`), so the facts and goal atoms naming `b0` turn unknown and back. Each
    version looks at the atoms naming a declared or undeclared name only (the object table follows the
    edit instead of being built from every object), and says what a check from scratch says."""
    domain = DOMAINS[0]
    text = _large(20_000) if typed else _large(20_000).replace(" - block", "")
    parsed = parse_document("p.pddl", text)
    checker = ProblemChecker()
    checker.check(parsed.problem, domain)  # type: ignore[arg-type]
    looked_at = _looked_at(monkeypatch)
    at = text.index("(:objects ") + len("(:objects ")
    codes = []
    for i, key in enumerate("n0 "):
        text = text[:at + i] + key + text[at + i:]
        parsed = reparse_document(parsed, "p.pddl", text, lazy=True)
        problem = parsed.problem
        assert problem is not None
        looked_at.clear()
        got = checker.check(problem, domain)
        assert {n.key for a in looked_at for n in a.args} <= {"b0", "b1", "nb0", "n0b0", "n0"}, i
        assert len(looked_at) <= 3, i
        same(got, check_problem(parse_document("p.pddl", text).problem, domain))  # type: ignore[arg-type]
        codes.append(sorted({d.code for d in got}))
    assert codes == [["undeclared-object"], ["undeclared-object"], []]


def test_a_fact_typed_without_its_closing_paren_is_checked_at_every_key() -> None:
    """The parse of each key repairs the open fact on the typed facts alone (``local_repair.py``): the
    checks of the version it gives (the repaired fact among the others) are those from scratch."""
    base = render(["a - block", "b - block", "c - block"], ["(fixed a)", "(on a b)", "(clear c)"],
                  ["(on a b)"], True)
    at = base.index("    (on a b)")
    texts = []
    text = base[:at] + "    \n" + base[at:]
    at += 4
    for key in "(clear zz":
        text, at = text[:at] + key + text[at:], at + 1
        texts.append(text)
    texts.append(text[:at] + ")" + text[at:])
    _agree_on_each([base, *texts], DOMAINS[0])

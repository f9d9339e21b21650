"""The symbol index: every name resolved to the declaration an editor should jump to."""

from __future__ import annotations

from typing import Any

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing.symbols import (
    BUILT_IN_FUNCTIONS,
    Occurrence,
    SymbolIndex,
    build_index,
    declarations_of,
    symbol_at,
)
from plansight.analyses.syntax.documents import parse_document

DOMAIN = """\
(define (domain shop)
  (:requirements :strips :typing :negative-preconditions :universal-preconditions)
  (:types crate pallet - thing
          thing - place)
  (:constants depot - place)
  (:predicates (on ?c - crate ?p - pallet) (at ?x - thing ?where - place) (empty ?p - pallet))
  (:action stack
    :parameters (?c - crate ?p - pallet)
    :precondition (and (empty ?p) (forall (?c - crate) (not (on ?c ?p))))
    :effect (and (on ?c ?p) (not (empty ?p)) (at ?c depot))))
"""

PROBLEM = """\
(define (problem small)
  (:domain shop)
  (:objects c1 c2 - crate p1 - pallet)
  (:init (empty p1) (at c1 depot))
  (:goal (on c1 p1)))
"""

PLAN = "(stack c1 p1)\n"


def parse(path: str, text: str) -> Any:
    return parse_document(path, text).model


def at(text: str, needle: str, nth: int = 0, shift: int = 0) -> int:
    """The offset of the ``nth`` occurrence of ``needle`` (plus ``shift``)."""
    offset = -1
    for _ in range(nth + 1):
        offset = text.index(needle, offset + 1)
    return offset + shift


def span_of(text: str, needle: str, nth: int = 0) -> Span:
    start = at(text, needle, nth)
    return Span(start, start + len(needle))


def domain_index() -> SymbolIndex:
    return build_index(parse("/w/domain.pddl", DOMAIN), "/w/domain.pddl")


def test_a_predicate_in_a_precondition_resolves_to_its_declaration() -> None:
    index = domain_index()
    occurrence = symbol_at(index, at(DOMAIN, "(empty ?p)", 0, 2))
    assert occurrence is not None
    assert (occurrence.kind, occurrence.text, occurrence.role) == ("predicate", "empty", "reference")
    assert occurrence.span == span_of(DOMAIN, "empty", 1)
    assert occurrence.target is not None
    assert occurrence.target.span == span_of(DOMAIN, "empty", 0)
    assert occurrence.target.path == "/w/domain.pddl"


def test_the_cursor_just_after_a_name_still_finds_it() -> None:
    index = domain_index()
    end = at(DOMAIN, "stack") + len("stack")
    found = symbol_at(index, end)
    assert found is not None and found.kind == "action" and found.role == "declaration"
    assert symbol_at(index, at(DOMAIN, "(define")) is None


def test_a_quantified_variable_shadows_the_parameter_of_the_same_name() -> None:
    index = domain_index()
    parameter = symbol_at(index, at(DOMAIN, "?c - crate ?p", 1))
    bound = symbol_at(index, at(DOMAIN, "(?c - crate)", 0, 1))
    inner_use = symbol_at(index, at(DOMAIN, "(on ?c ?p)", 0, 4))
    effect_use = symbol_at(index, at(DOMAIN, "(on ?c ?p)", 1, 4))
    assert parameter and bound and inner_use and effect_use
    assert inner_use.target == bound.target != parameter.target
    assert effect_use.target == parameter.target
    assert parameter.target is not None and parameter.target.scope is not None
    # `?p` inside the forall is still the action's parameter
    p_inside = symbol_at(index, at(DOMAIN, "(on ?c ?p)", 0, 8))
    assert p_inside is not None and p_inside.target == symbol_at(index, at(DOMAIN, "?p - pallet)", 2)).target


def test_a_type_used_before_its_declaration_resolves_forward() -> None:
    index = domain_index()
    parent = symbol_at(index, at(DOMAIN, "- thing", 0, 2))
    assert parent is not None and parent.role == "reference"
    assert parent.target is not None and parent.target.span == span_of(DOMAIN, "thing", 1)


def test_a_type_named_only_as_a_parent_is_declared_at_its_first_mention() -> None:
    index = domain_index()
    place = symbol_at(index, at(DOMAIN, "place"))
    later = symbol_at(index, at(DOMAIN, "place", 1))
    assert place and later and place.target == later.target
    assert place.target is not None and place.target.span == span_of(DOMAIN, "place")


def test_requirements_and_built_in_types_have_no_target() -> None:
    index = domain_index()
    requirement = symbol_at(index, at(DOMAIN, ":typing", 0, 1))
    assert requirement == Occurrence(span_of(DOMAIN, ":typing"), "requirement", ":typing", ":typing",
                                     "reference", None)


def test_problem_names_resolve_into_the_domain_file() -> None:
    domain = parse("/w/domain.pddl", DOMAIN)
    index = build_index(parse("/w/p1.pddl", PROBLEM), "/w/p1.pddl", domain=domain,
                        domain_path="/w/domain.pddl")
    empty = symbol_at(index, at(PROBLEM, "empty"))
    assert empty is not None and empty.target is not None
    assert (empty.target.path, empty.target.span) == ("/w/domain.pddl", span_of(DOMAIN, "empty"))
    depot = symbol_at(index, at(PROBLEM, "depot"))
    assert depot is not None and depot.kind == "constant" and depot.target is not None
    assert depot.target.span == span_of(DOMAIN, "depot")
    c1 = symbol_at(index, at(PROBLEM, "c1", 2))
    assert c1 is not None and c1.kind == "object" and c1.target is not None
    assert (c1.target.path, c1.target.span) == ("/w/p1.pddl", span_of(PROBLEM, "c1"))
    domain_name = symbol_at(index, at(PROBLEM, "shop"))
    assert domain_name is not None and domain_name.kind == "domain"
    assert domain_name.target is not None and domain_name.target.span == span_of(DOMAIN, "shop")
    crate = symbol_at(index, at(PROBLEM, "crate"))
    assert crate is not None and crate.target is not None and crate.target.span == span_of(DOMAIN, "crate")
    assert [d.key for d in declarations_of(index, "object")] == ["c1", "c2", "p1"]


def test_plan_steps_resolve_to_actions_and_objects() -> None:
    domain = parse("/w/domain.pddl", DOMAIN)
    problem = parse("/w/p1.pddl", PROBLEM)
    index = build_index(parse("/w/p1.plan", PLAN), "/w/p1.plan", domain=domain, domain_path="/w/domain.pddl",
                        problem=problem, problem_path="/w/p1.pddl")
    assert [(o.kind, o.text, o.target.path if o.target else None) for o in index.occurrences] == [
        ("action", "stack", "/w/domain.pddl"), ("object", "c1", "/w/p1.pddl"), ("object", "p1", "/w/p1.pddl")]
    assert index.occurrences[0].target is not None
    assert index.occurrences[0].target.span == span_of(DOMAIN, "stack")


def test_without_partners_names_stay_unresolved_but_indexed() -> None:
    index = build_index(parse("/w/p1.pddl", PROBLEM), "/w/p1.pddl")
    empty = symbol_at(index, at(PROBLEM, "empty"))
    assert empty is not None and empty.kind == "predicate" and empty.target is None


def test_references_across_files_compare_equal() -> None:
    domain = parse("/w/domain.pddl", DOMAIN)
    own = build_index(domain, "/w/domain.pddl")
    problem = build_index(parse("/w/p1.pddl", PROBLEM), "/w/p1.pddl", domain=domain,
                          domain_path="/w/domain.pddl")
    on = own.declarations[("predicate", "on")]
    # the declaration, the use inside the forall, the effect
    assert [o.span for o in own.references_to(on)] == [Span(at(DOMAIN, "(on", i, 1), at(DOMAIN, "(on", i, 3))
                                                       for i in range(3)]
    assert [o.span for o in problem.references_to(on)] == [span_of(PROBLEM, "on")]


def test_a_one_megabyte_problem_is_indexed_completely() -> None:
    """Every fact of a 1 MB problem is in the index (its speed is measured in benchmarks/lsp_requests.py,
    not asserted here: a timed test fails on a loaded machine without telling anything)."""
    domain = parse("/w/domain.pddl", DOMAIN)
    objects = " ".join(f"crate{i}" for i in range(5000))
    init = " ".join(f"(on crate{i % 5000} p{i % 7})" for i in range(45000))
    text = f"(define (problem big) (:domain shop) (:objects {objects} - crate) (:init {init}) (:goal (and)))"
    assert len(text) > 800_000
    model = parse("/w/big.pddl", text)
    index = build_index(model, "/w/big.pddl", domain=domain, domain_path="/w/domain.pddl")
    # 5,000 object declarations, then per fact the predicate and its two arguments
    assert len(index.occurrences) > 135_000
    assert sum(1 for o in index.occurrences if o.text == "on") == 45_000
    assert sum(1 for o in index.occurrences if o.text == "crate4999") == 1 + 9


def test_ltl_atoms_resolve_to_predicates_or_actions_and_bind_their_variables() -> None:
    domain = parse("/w/domain.pddl", DOMAIN)
    problem = parse("/w/p1.pddl", PROBLEM)
    text = "forall x. (on(x, p1) then stack(x, depot))\n"
    goal = parse_document("/w/p1.ltl", text).ltl
    index = build_index(goal, "/w/p1.ltl", domain=domain, domain_path="/w/domain.pddl", problem=problem,
                        problem_path="/w/p1.pddl")
    assert [(o.kind, o.text, o.role) for o in index.occurrences] == [
        ("variable", "x", "declaration"), ("predicate", "on", "reference"), ("variable", "x", "reference"),
        ("object", "p1", "reference"), ("action", "stack", "reference"), ("variable", "x", "reference"),
        ("constant", "depot", "reference")]
    x = index.occurrences[0].target
    assert x is not None and x.scope == Span(0, len(text) - 1)
    assert index.occurrences[2].target == index.occurrences[5].target == x
    stack = index.occurrences[4].target
    assert stack is not None and stack.span == span_of(DOMAIN, "stack")


# --- the whole corpus -------------------------------------------------------------------------------

UNRESOLVED_CODES = frozenset({"undeclared-predicate", "undeclared-function", "undeclared-type",
                              "undeclared-constant", "undeclared-object", "unknown-action", "free-variable"})
"""A file without these diagnostics must have every name resolved..."""
SDIST_STRIDE = 10
"""Every tenth pair of the ``pddl`` sdist's 750: its other files are the same domains again."""
BUILT_IN_KINDS = frozenset({"requirement", "type", "variable", "preference"})
"""...except built-ins (`object`, `?duration`) and undeclared types or variables (reported by other
codes) and preferences of a domain's preconditions named in a problem's metric."""


def test_every_name_in_the_corpus_is_indexed_exactly_and_resolves_when_lint_agrees() -> None:
    from corpus import corpus_files, pairs

    from plansight.analyses.workspace.lint import Analyzer, DiskSource

    analyzer = Analyzer(DiskSource())
    checked = 0
    every = pairs(corpus_files(include_sdist=True))
    sdist = [pair for pair in every if pair[1].source == "pddl-sdist"]
    chosen = [pair for pair in every if pair[1].source != "pddl-sdist"] + sdist[::SDIST_STRIDE]
    for domain_file, problem_file in chosen:
        domain_doc = analyzer.parse(str(domain_file.path))
        problem_doc = analyzer.parse(str(problem_file.path))
        assert domain_doc is not None and problem_doc is not None
        if domain_doc.domain is None or problem_doc.problem is None:
            continue
        texts = {domain_doc.path: domain_doc.text, problem_doc.path: problem_doc.text}
        indexes = [(domain_doc, build_index(domain_doc.domain, domain_doc.path)),
                   (problem_doc, build_index(problem_doc.problem, problem_doc.path, domain=domain_doc.domain,
                                             domain_path=domain_doc.path))]
        for document, index in indexes:
            unresolved = []
            for occurrence in index.occurrences:
                where = f"{document.path}:{occurrence.span}"
                assert document.text[occurrence.span.start:occurrence.span.end] == occurrence.text, where
                target = occurrence.target
                if target is not None:
                    declared = texts[target.path][target.span.start:target.span.end]
                    assert declared.lower() == occurrence.key, where
                elif occurrence.kind not in BUILT_IN_KINDS and occurrence.key not in BUILT_IN_FUNCTIONS:
                    unresolved.append(f"{where}: `{occurrence.text}` ({occurrence.kind})")
            if unresolved:  # only a file lint finds undeclared names in may have them
                lint = analyzer.lint(document.path, domain=domain_doc.path)
                assert any(d.code in UNRESOLVED_CODES for d in lint.diagnostics), unresolved
            checked += 1
    assert checked > 200  # every domain and problem of the corpus, and a tenth of the pddl sdist's

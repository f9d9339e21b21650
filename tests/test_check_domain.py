"""Semantic checks of a domain: for every code, a small file that triggers it at the exact range with
the message a user needs, and the corrected file without it; plus the real corpus, which must not
get a single false error.

Ranges are computed from the text (``text.index``), never typed in as numbers.
"""

from __future__ import annotations

import pytest
from corpus import PLANETARIUM_SOURCE, UNIFIED_PLANNING, corpus_files

from plansight.analyses.checks.domain import check_domain
from plansight.analyses.checks.requirements import KNOWN, closure, requirement_uses
from plansight.analyses.diagnostics.diagnostic import CODES, Diagnostic, Severity, Tag
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.pddl import Domain
from plansight.analyses.syntax.parse_pddl import parse_pddl

BLOCKS = """(define (domain blocks)
  (:requirements :strips :typing :negative-preconditions)
  (:types block)
  (:predicates (on ?x - block ?y - block) (clear ?x - block) (holding ?x - block) (handempty))
  (:action stack
    :parameters (?x - block ?y - block)
    :precondition (and (holding ?x) (clear ?y) (not (on ?x ?y)))
    :effect (and (on ?x ?y) (clear ?x) (handempty) (not (holding ?x)) (not (clear ?y))))
  (:action unstack
    :parameters (?x - block ?y - block)
    :precondition (and (on ?x ?y) (clear ?x) (handempty))
    :effect (and (holding ?x) (clear ?y) (not (on ?x ?y)) (not (clear ?x)) (not (handempty)))))
"""

LOGISTICS = """(define (domain logistics)
  (:requirements :strips :typing)
  (:types truck airplane - vehicle vehicle package - object location)
  (:constants depot - location)
  (:predicates (at ?v - (either vehicle package) ?l - location) (in ?p - package ?v - vehicle))
  (:action drive
    :parameters (?t - truck ?from ?to - location)
    :precondition (and (at ?t ?from))
    :effect (and (at ?t ?to) (not (at ?t ?from))))
  (:action unload-at-depot
    :parameters (?p - package ?v - (either truck airplane))
    :precondition (and (in ?p ?v) (at ?v depot))
    :effect (and (at ?p depot) (not (in ?p ?v)))))
"""

TEMPORAL = """(define (domain rovers)
  (:requirements :strips :typing :durative-actions :numeric-fluents :conditional-effects
                 :continuous-effects)
  (:types rover site)
  (:predicates (at ?r - rover ?s - site) (visited ?s - site) (ready ?r - rover))
  (:functions (distance ?a ?b - site) (energy ?r - rover))
  (:durative-action navigate
    :parameters (?r - rover ?from ?to - site)
    :duration (= ?duration (distance ?from ?to))
    :condition (and (at start (at ?r ?from)) (over all (ready ?r)) (at start (>= (energy ?r) ?duration)))
    :effect (and (at start (not (at ?r ?from))) (at end (at ?r ?to))
                 (forall (?s - site) (when (at start (at ?r ?s)) (at end (visited ?s))))
                 (decrease (energy ?r) (* #t 2)))))
"""


def lint(text: str) -> list[Diagnostic]:
    parsed = parse_pddl(text)
    assert parsed.diagnostics == (), parsed.diagnostics
    assert isinstance(parsed.model, Domain)
    return check_domain(parsed.model)


def edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"{old!r} must occur exactly once"
    return text.replace(old, new)


def at(text: str, needle: str, after: str = "") -> Span:
    """The span of the first ``needle`` after the first ``after`` (from the start when empty)."""
    start = text.index(needle, text.index(after) if after else 0)
    return Span(start, start + len(needle))


def only(diagnostics: list[Diagnostic], code: str) -> list[Diagnostic]:
    assert code in CODES
    return [d for d in diagnostics if d.code == code]


def single(diagnostics: list[Diagnostic], code: str) -> Diagnostic:
    found = only(diagnostics, code)
    assert len(found) == 1, diagnostics
    return found[0]


def problems(diagnostics: list[Diagnostic]) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in diagnostics if d.severity in (Severity.ERROR, Severity.WARNING)]


@pytest.mark.parametrize("text", [BLOCKS, LOGISTICS, TEMPORAL], ids=["blocks", "logistics", "temporal"])
def test_correct_domains_get_no_diagnostic_at_all(text: str) -> None:
    assert [(d.code, d.message) for d in lint(text)] == []


# --- undeclared names -----------------------------------------------------------------------------


def test_undeclared_predicate_points_at_the_name_and_suggests_the_near_one() -> None:
    text = edit(
        BLOCKS, ":precondition (and (holding ?x) (clear ?y)", ":precondition (and (holding ?x) (claer ?y)"
    )
    found = single(lint(text), "undeclared-predicate")
    assert found.severity is Severity.ERROR
    assert found.span == at(text, "claer")
    assert "`claer`" in found.message and "Did you mean `clear`?" in found.message
    assert dict(found.data) == {"suggestion": "clear"}
    assert not only(lint(BLOCKS), "undeclared-predicate")


def test_a_function_used_as_an_atom_is_called_a_function() -> None:
    text = edit(TEMPORAL, "(over all (ready ?r))", "(over all (energy ?r))")
    found = single(lint(text), "undeclared-predicate")
    assert found.span == at(text, "energy", after="over all")
    assert "`energy` is a function, not a predicate" in found.message


def test_undeclared_function_suggests_the_declared_one() -> None:
    text = edit(TEMPORAL, "(>= (energy ?r) ?duration)", "(>= (enrgy ?r) ?duration)")
    found = single(lint(text), "undeclared-function")
    assert found.span == at(text, "enrgy")
    assert "Function `enrgy` is not declared" in found.message and "Did you mean `energy`?" in found.message
    assert not only(lint(TEMPORAL), "undeclared-function")


def test_undeclared_type_in_a_parameter_list() -> None:
    text = edit(
        BLOCKS,
        "(?x - block ?y - block)\n    :precondition (and (holding",
        "(?x - block ?y - blok)\n    :precondition (and (holding",
    )
    found = single(lint(text), "undeclared-type")
    assert found.span == at(text, "blok")
    assert "Type `blok` is not declared" in found.message and "Did you mean `block`?" in found.message
    assert not only(lint(BLOCKS), "undeclared-type")


def test_a_type_named_only_as_a_parent_counts_as_declared() -> None:
    text = edit(
        LOGISTICS,
        "truck airplane - vehicle vehicle package - object location",
        "truck airplane - vehicle package location",
    )
    assert not only(lint(text), "undeclared-type")


def test_undeclared_constant_suggests_the_constant() -> None:
    text = edit(LOGISTICS, "(at ?v depot))", "(at ?v depto))")
    found = single(lint(text), "undeclared-constant")
    assert found.span == at(text, "depto")
    assert "`depto` is not a declared constant" in found.message and "Did you mean `depot`?" in found.message
    assert not only(lint(LOGISTICS), "undeclared-constant")


def test_a_parameter_written_without_its_question_mark_is_recognised() -> None:
    text = edit(
        BLOCKS, ":precondition (and (holding ?x) (clear ?y)", ":precondition (and (holding x) (clear ?y)"
    )
    found = single(lint(text), "undeclared-constant")
    start = text.index("(holding x)") + len("(holding ")
    assert found.span == Span(start, start + 1)
    assert "Did you mean `?x`?" in found.message


# --- arity and types ------------------------------------------------------------------------------


def test_wrong_arity_names_the_counts_and_the_declaration() -> None:
    text = edit(
        BLOCKS, "(and (on ?x ?y) (clear ?x) (handempty))", "(and (on ?x ?y) (clear ?x ?y) (handempty))"
    )
    found = single(lint(text), "wrong-arity")
    assert found.span == at(text, "clear", after="(and (on ?x ?y) (clear ?x ?y)")
    assert "`clear` takes 1 argument, got 2" in found.message
    assert "`(clear ?x - block)`" in found.message
    assert found.related[0].span == at(text, "clear")
    assert not only(lint(BLOCKS), "wrong-arity")


def test_wrong_arity_of_a_function_term() -> None:
    text = edit(TEMPORAL, "(distance ?from ?to))", "(distance ?from))")
    found = single(lint(text), "wrong-arity")
    assert found.span == at(text, "distance", after=":duration")
    assert "`distance` takes 2 arguments, got 1" in found.message


def test_type_mismatch_names_both_types_and_the_parameter() -> None:
    text = edit(LOGISTICS, "(and (at ?t ?from))", "(and (at ?from ?t))")
    found = only(lint(text), "type-mismatch")
    swapped = text.index("(and (at ?from ?t))") + len("(and (at ")
    assert [d.span for d in found] == [Span(swapped, swapped + 5), Span(swapped + 6, swapped + 8)]
    assert "`?from` has type `location`, but parameter `?v` of `at` expects `(either vehicle package)`" in (
        found[0].message
    )
    assert "`?t` has type `truck`, but parameter `?l` of `at` expects `location`" in found[1].message
    assert not only(lint(LOGISTICS), "type-mismatch")


def test_subtypes_and_either_fit_their_supertypes() -> None:
    # `?t - truck` fits `vehicle` through the hierarchy; `?v - (either truck airplane)` fits `vehicle`;
    # the constant `depot - location` fits `?l - location`.
    assert not only(lint(LOGISTICS), "type-mismatch")


def test_a_constant_of_the_wrong_type_is_a_mismatch() -> None:
    text = edit(LOGISTICS, "(at ?p depot)", "(at depot ?p)")
    spans = [d.span for d in only(lint(text), "type-mismatch")]
    assert at(text, "depot", after="(at depot") in spans


# --- variables ------------------------------------------------------------------------------------


def test_free_variable_in_a_precondition() -> None:
    text = edit(
        BLOCKS, ":precondition (and (holding ?x) (clear ?y)", ":precondition (and (holding ?x) (clear ?z)"
    )
    found = single(lint(text), "free-variable")
    assert found.span == at(text, "?z")
    assert "`?z` is not a parameter of `stack`" in found.message
    assert not only(lint(BLOCKS), "free-variable")


def test_quantified_and_derived_head_variables_are_bound() -> None:
    text = """(define (domain d)
  (:requirements :strips :universal-preconditions :existential-preconditions :derived-predicates
                 :conditional-effects)
  (:predicates (on ?x ?y) (above ?x ?y) (marked ?x))
  (:derived (above ?x ?y) (or (on ?x ?y) (exists (?z) (and (on ?x ?z) (above ?z ?y)))))
  (:action mark
    :parameters (?x)
    :precondition (forall (?y) (above ?x ?y))
    :effect (forall (?y) (when (on ?y ?x) (marked ?y)))))
"""
    text = edit(text, ":existential-preconditions", ":existential-preconditions :disjunctive-preconditions")
    assert problems(lint(text)) == []
    unbound = edit(text, "(above ?z ?y)))))", "(above ?w ?y)))))")
    found = single(lint(unbound), "free-variable")
    assert found.span == at(unbound, "?w")
    assert "derived predicate `(above ?x ?y)`" in found.message


def test_duration_variable_is_bound_only_in_durative_actions() -> None:
    assert not only(lint(TEMPORAL), "free-variable")
    text = edit(
        BLOCKS,
        ":precondition (and (holding ?x) (clear ?y)",
        ":precondition (and (holding ?x) (clear ?duration)",
    )
    assert single(lint(text), "free-variable").span == at(text, "?duration")


# --- duplicates -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "name", "what"),
    [
        (
            "(holding ?x - block) (handempty))",
            "(holding ?x - block) (handempty) (clear ?b - block))",
            "clear",
            "Predicate",
        ),
        ("(:types block)", "(:types block block)", "block", "Type"),
    ],
)
def test_duplicate_declaration_points_at_the_second_and_relates_the_first(
    old: str, new: str, name: str, what: str
) -> None:
    text = edit(BLOCKS, old, new)
    found = single(lint(text), "duplicate-declaration")
    first = text.index(name, text.index("(:types"))
    second = text.index(name, first + len(name))
    assert found.span == Span(second, second + len(name))
    assert found.related[0].span == Span(first, first + len(name))
    assert f"{what} `{name}` is already declared" in found.message
    assert not only(lint(BLOCKS), "duplicate-declaration")


def test_duplicate_action_and_parameter() -> None:
    text = edit(BLOCKS, "(:action unstack", "(:action stack")
    text = edit(
        text,
        "(?x - block ?y - block)\n    :precondition (and (on",
        "(?x - block ?x - block)\n    :precondition (and (on",
    )
    found = only(lint(text), "duplicate-declaration")
    second_stack = text.index("stack", text.index("(:action stack") + 10)
    assert found[0].span == Span(second_stack, second_stack + 5)
    assert "Action `stack` is already declared" in found[0].message
    second_x = text.index("?x - block ?x") + len("?x - block ")
    assert found[1].span == Span(second_x, second_x + 2)
    assert "`?x` is already a variable of action `stack`" in found[1].message


def test_duplicate_constant() -> None:
    text = edit(LOGISTICS, "(:constants depot - location)", "(:constants depot hub depot - location)")
    found = single(lint(text), "duplicate-declaration")
    assert found.span == at(text, "depot", after="hub")
    assert "Constant `depot` is already declared" in found.message


# --- sections -------------------------------------------------------------------------------------


def test_duplicate_precondition_is_an_error_on_the_second_keyword() -> None:
    text = edit(
        BLOCKS, "    :effect (and (on ?x ?y)", "    :precondition (handempty)\n    :effect (and (on ?x ?y)"
    )
    found = single(lint(text), "duplicate-section")
    second = text.index(":precondition (handempty)")
    assert found.span == Span(second, second + len(":precondition"))
    assert found.severity is Severity.ERROR
    assert "second `:precondition`" in found.message


def test_a_second_predicates_section_is_only_a_warning() -> None:
    text = edit(
        BLOCKS, "(holding ?x - block) (handempty))", "(holding ?x - block))\n  (:predicates (handempty))"
    )
    diagnostics = lint(text)
    found = single(diagnostics, "duplicate-section")
    assert found.severity is Severity.WARNING
    assert found.span == at(text, ":predicates", after="(holding ?x - block))")
    assert not only(diagnostics, "undeclared-predicate")  # both sections count


def test_action_without_effect_is_a_warning_on_its_name() -> None:
    text = edit(
        BLOCKS,
        "\n    :effect (and (holding ?x) (clear ?y) (not (on ?x ?y)) (not (clear ?x)) (not (handempty)))",
        "",
    )
    found = single(lint(text), "missing-section")
    assert found.severity is Severity.WARNING
    assert found.span == at(text, "unstack")
    assert "`unstack` has no `:effect`" in found.message
    assert not only(lint(BLOCKS), "missing-section")


def test_a_sensing_action_needs_no_effect() -> None:
    text = """(define (domain sense)
  (:requirements :strips :contingent)
  (:predicates (dark))
  (:action look :parameters () :precondition (and) :observe (dark)))
"""
    assert not only(lint(text), "missing-section")


# --- requirements ---------------------------------------------------------------------------------


def test_missing_requirement_points_at_the_first_keyword_and_counts_the_rest() -> None:
    text = edit(BLOCKS, " :negative-preconditions)", ")")
    text = edit(
        text, "(and (on ?x ?y) (clear ?x) (handempty))", "(and (on ?x ?y) (not (clear ?y)) (handempty))"
    )
    found = single(lint(text), "missing-requirement")
    first_not = text.index("(not (on ?x ?y)))") + 1
    assert found.span == Span(first_not, first_not + 3)
    assert found.message == (
        "`not` in a precondition needs `:negative-preconditions` (and 1 more place): "
        "add it to `(:requirements ...)`."
    )
    assert dict(found.data) == {"requirement": ":negative-preconditions"}
    assert found.severity is Severity.WARNING
    assert not only(lint(BLOCKS), "missing-requirement")


def test_negated_effects_need_no_requirement() -> None:
    text = edit(BLOCKS, " :negative-preconditions)", ")")
    text = edit(text, " (not (on ?x ?y)))\n    :effect", ")\n    :effect")
    assert not only(lint(text), "missing-requirement")


@pytest.mark.parametrize(
    ("construct", "requirement", "keyword"),
    [
        ("(or (clear ?x) (handempty))", ":disjunctive-preconditions", "or"),
        ("(imply (clear ?x) (handempty))", ":disjunctive-preconditions", "imply"),
        ("(exists (?z - block) (on ?z ?x))", ":existential-preconditions", "exists"),
        ("(forall (?z - block) (clear ?z))", ":universal-preconditions", "forall"),
        ("(= ?x ?y)", ":equality", "="),
    ],
)
def test_each_precondition_construct_needs_its_requirement(
    construct: str, requirement: str, keyword: str
) -> None:
    text = edit(BLOCKS, "(and (on ?x ?y) (clear ?x) (handempty))", f"(and (on ?x ?y) {construct})")
    found = single(lint(text), "missing-requirement")
    start = text.index(construct) + 1
    assert found.span == Span(start, start + len(keyword))
    assert f"`{keyword}` in a precondition needs `{requirement}`" in found.message
    fixed = edit(text, ":negative-preconditions)", f":negative-preconditions {requirement})")
    assert problems(lint(fixed)) == []


def test_conditional_effects_and_typing_requirements() -> None:
    text = edit(
        BLOCKS, "(not (clear ?y))))", "(not (clear ?y)) (forall (?z - block) (when (on ?z ?x) (clear ?z)))))"
    )
    found = single(lint(text), "missing-requirement")
    assert found.span == at(text, "forall", after="(not (clear ?y))")
    assert "`forall` in an effect needs `:conditional-effects` (and 1 more place)" in found.message
    untyped = edit(BLOCKS, ":typing ", "")
    typing = single(lint(untyped), "missing-requirement")
    assert typing.span == at(untyped, ":types")
    assert "needs `:typing`" in typing.message


def test_adl_and_fluents_imply_what_they_bundle() -> None:
    assert {":typing", ":negative-preconditions", ":existential-preconditions", ":conditional-effects"} <= (
        closure([":adl"])
    )
    text = edit(BLOCKS, ":requirements :strips :typing :negative-preconditions", ":requirements :adl")
    text = edit(
        text, "(and (on ?x ?y) (clear ?x) (handempty))", "(and (on ?x ?y) (or (clear ?x) (handempty)))"
    )
    assert not only(lint(text), "missing-requirement")
    fluents = edit(TEMPORAL, ":numeric-fluents", ":fluents")
    assert not only(lint(fluents), "missing-requirement")


def test_action_costs_cover_total_cost_but_not_other_numbers() -> None:
    costs = """(define (domain costs)
  (:requirements :strips :action-costs)
  (:predicates (p))
  (:functions (total-cost) - number)
  (:action a :parameters () :precondition (p) :effect (and (not (p)) (increase (total-cost) 2))))
"""
    assert problems(lint(costs)) == []
    compared = edit(costs, ":precondition (p)", ":precondition (and (p) (< (total-cost) 10))")
    found = single(lint(compared), "missing-requirement")
    assert found.span == at(compared, "<", after=":precondition")
    assert "needs `:numeric-fluents`" in found.message
    undeclared = edit(costs, ":strips :action-costs", ":strips")
    assert dict(single(lint(undeclared), "missing-requirement").data) == {"requirement": ":action-costs"}


def test_durative_derived_preferences_and_constraints_need_their_requirements() -> None:
    durative = single(lint(edit(TEMPORAL, ":durative-actions ", "")), "missing-requirement")
    assert "`:durative-action` needs `:durative-actions`" in durative.message
    text = """(define (domain d)
  (:requirements :strips)
  (:predicates (p) (q))
  (:derived (q) (p))
  (:constraints (always (p)))
  (:action a :parameters () :precondition (preference ok (p)) :effect (p)))
"""
    messages = {
        dict(d.data)["requirement"]: (d.span, d.message) for d in only(lint(text), "missing-requirement")
    }
    assert set(messages) == {":derived-predicates", ":constraints", ":preferences"}
    assert messages[":derived-predicates"][0] == at(text, ":derived")
    assert messages[":constraints"][0] == at(text, ":constraints")
    assert messages[":preferences"][0] == at(text, "preference")
    fixed = edit(
        text,
        "(:requirements :strips)",
        "(:requirements :strips :derived-predicates :constraints :preferences)",
    )
    assert problems(lint(fixed)) == []


def test_a_domain_without_requirements_section_gets_one_gentle_note() -> None:
    text = edit(BLOCKS, "  (:requirements :strips :typing :negative-preconditions)\n", "")
    found = single(lint(text), "missing-requirement")
    assert found.severity is Severity.INFORMATION
    assert found.span == at(text, "blocks")
    assert "`:typing`, `:negative-preconditions`" in found.message
    assert dict(found.data) == {"requirements": ":strips :typing :negative-preconditions"}


def test_unknown_requirement_suggests_the_real_keyword() -> None:
    text = edit(BLOCKS, ":negative-preconditions)", ":negative-precondition)")
    diagnostics = lint(text)
    found = single(diagnostics, "unknown-requirement")
    assert found.span == at(text, ":negative-precondition")
    assert "`:negative-precondition` is not a PDDL requirement" in found.message
    assert "Did you mean `:negative-preconditions`?" in found.message
    assert not only(lint(BLOCKS), "unknown-requirement")
    assert {":action-costs", ":time", ":contingent", ":non-deterministic", ":hierarchy"} <= set(KNOWN)


def test_unused_requirement_is_a_hint_tagged_unnecessary() -> None:
    text = edit(BLOCKS, ":negative-preconditions)", ":negative-preconditions :conditional-effects)")
    found = single(lint(text), "unused-requirement")
    assert found.span == at(text, ":conditional-effects")
    assert found.severity is Severity.HINT and found.tags == (Tag.UNNECESSARY,)
    assert "`:conditional-effects` is declared but nothing in the domain needs it" in found.message
    assert not only(lint(BLOCKS), "unused-requirement")


def test_requirements_a_problem_may_need_are_never_called_unused() -> None:
    text = edit(BLOCKS, ":negative-preconditions)", ":negative-preconditions :equality :preferences :adl)")
    assert not only(lint(text), "unused-requirement")


def test_requirement_uses_are_in_source_order() -> None:
    parsed = parse_pddl(TEMPORAL).model
    assert isinstance(parsed, Domain)
    spans = [u.span for u in requirement_uses(parsed)]
    assert spans == sorted(spans)


# --- unused declarations --------------------------------------------------------------------------


def test_unused_predicate_parameter_type_and_constant_are_hints() -> None:
    text = edit(
        BLOCKS, "(holding ?x - block) (handempty))", "(holding ?x - block) (handempty) (sticky ?x - block))"
    )
    text = edit(text, "(:types block)", "(:types block pyramid)\n  (:constants floor - block)")
    text = edit(
        text,
        "(?x - block ?y - block)\n    :precondition (and (on",
        "(?x - block ?y - block ?z - block)\n    :precondition (and (on",
    )
    diagnostics = lint(text)
    expected = {
        "unused-predicate": (at(text, "sticky"), "predicate `sticky`"),
        "unused-type": (at(text, "pyramid"), "uses type `pyramid`"),
        "unused-constant": (at(text, "floor"), "constant `floor`"),
        "unused-parameter": (at(text, "?z"), "Parameter `?z` of `unstack` is never used"),
    }
    for code, (span, words) in expected.items():
        found = single(diagnostics, code)
        assert found.span == span
        assert words in found.message
        assert found.severity is Severity.HINT and found.tags == (Tag.UNNECESSARY,)
    assert problems(diagnostics) == []
    for code in expected:
        assert not only(lint(BLOCKS), code)


# --- effects --------------------------------------------------------------------------------------


def test_add_and_delete_of_the_same_atom_is_reported_on_the_delete() -> None:
    text = edit(BLOCKS, "(handempty) (not (holding ?x))", "(handempty) (not (handempty)) (not (holding ?x))")
    found = single(lint(text), "add-delete-conflict")
    assert found.severity is Severity.INFORMATION
    assert found.span == at(text, "(not (handempty))")
    assert found.related[0].span == at(text, "(handempty)", after=":effect (and (on ?x ?y)")
    assert "`stack` both adds and deletes `(handempty)`" in found.message
    assert not only(lint(BLOCKS), "add-delete-conflict")


def test_deleting_at_start_and_adding_at_end_is_no_conflict() -> None:
    text = edit(TEMPORAL, "(at end (at ?r ?to))", "(at end (at ?r ?from))")
    assert not only(lint(text), "add-delete-conflict")


# --- misplaced constructs -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "keyword", "words"),
    [
        (
            ":precondition (and (holding ?x)",
            ":precondition (and (at start (holding ?x))",
            "at start",
            "only allowed in a `:durative-action`",
        ),
        (
            ":precondition (and (holding ?x)",
            ":precondition (and (when (holding ?x) (handempty))",
            "when",
            "belongs in an `:effect`",
        ),
        (
            ":effect (and (on ?x ?y)",
            ":effect (and (on ?x ?y) (or (clear ?x) (handempty))",
            "or",
            "`or` cannot appear in an effect",
        ),
        (
            ":effect (and (on ?x ?y)",
            ":effect (and (on ?x ?y) (preference p (clear ?x))",
            "preference",
            "`preference` cannot appear in an effect",
        ),
    ],
)
def test_misplaced_construct_points_at_its_keyword(old: str, new: str, keyword: str, words: str) -> None:
    text = edit(BLOCKS, old, new)
    found = single(lint(text), "misplaced-construct")
    start = text.index("(" + keyword) + 1
    assert found.span == Span(start, start + len(keyword))
    assert found.severity is Severity.ERROR
    assert words in found.message


def test_numeric_effect_in_a_precondition_is_misplaced() -> None:
    text = edit(TEMPORAL, "(at start (>= (energy ?r) ?duration))", "(at start (decrease (energy ?r) 1))")
    found = single(lint(text), "misplaced-construct")
    assert found.span == at(text, "decrease")
    assert "belongs in an `:effect`" in found.message


def test_untimed_condition_of_a_durative_action_is_misplaced() -> None:
    text = edit(TEMPORAL, "(over all (ready ?r))", "(ready ?r)")
    found = single(lint(text), "misplaced-construct")
    assert found.span == at(text, "(ready ?r)", after=":condition")
    assert "wrap this in `(at start ...)`, `(over all ...)` or `(at end ...)`" in found.message


def test_over_all_in_an_effect_and_condition_section_in_an_action_are_misplaced() -> None:
    text = edit(TEMPORAL, "(at end (at ?r ?to))", "(over all (at ?r ?to))")
    found = single(lint(text), "misplaced-construct")
    assert found.span == at(text, "over all", after=":effect")
    section = edit(BLOCKS, ":precondition (and (on", ":condition (and (on")
    wrong = single(lint(section), "misplaced-construct")
    assert wrong.span == at(section, ":condition")
    assert "write `:precondition` instead" in wrong.message


def test_nested_conditional_effects_and_continuous_effects_are_not_misplaced() -> None:
    # TEMPORAL has `forall` + `when` with timed parts and an untimed `#t` effect.
    assert not only(lint(TEMPORAL), "misplaced-construct")


# --- the real corpus ------------------------------------------------------------------------------

KNOWN_OMISSIONS = {
    # Real files that use a construct without declaring its requirement. VAL warns about each
    # ("Undeclared requirement"), which is why missing-requirement is a warning, not an error.
    "unified-planning/test/contingent_pddl/colorballs/domain.pddl": ":conditional-effects",
    "unified-planning/test/pddl/matchcellar/domain.pddl": ":duration-inequalities",
    "unified-planning/test/pddl/parking_action_cost/domain.pddl": ":action-costs",
    "unified-planning/test/pddl/robot_fastener/domain.pddl": ":universal-preconditions",
}


def _corpus_domains() -> list[tuple[str, Domain]]:
    domains = []
    for file in corpus_files(include_sdist=False):
        if file.source not in (UNIFIED_PLANNING, PLANETARIUM_SOURCE):
            continue
        model = parse_pddl(file.text()).model
        if isinstance(model, Domain):
            domains.append((file.id, model))
    return domains


def test_corpus_domains_get_no_error_and_only_the_known_requirement_warnings() -> None:
    domains = _corpus_domains()
    sources = {name.split("/")[0] for name, _ in domains}
    assert sources == {UNIFIED_PLANNING, PLANETARIUM_SOURCE}
    assert len(domains) >= 17
    warned: dict[str, str] = {}
    for name, domain in domains:
        diagnostics = check_domain(domain)
        assert [d for d in diagnostics if d.severity is Severity.ERROR] == [], name
        for d in diagnostics:
            if d.severity is Severity.WARNING:
                assert d.code == "missing-requirement", (name, d)
                warned[name] = dict(d.data)["requirement"]
    assert warned == KNOWN_OMISSIONS


def test_free_variable_in_domain_constraints() -> None:
    text = """(define (domain d)
  (:requirements :strips :constraints :universal-preconditions)
  (:predicates (p ?x) (q ?x))
  (:constraints (forall (?x) (always (p ?y))))
  (:action a :parameters (?x) :precondition (q ?x) :effect (p ?x)))
"""
    found = single(lint(text), "free-variable")
    assert found.span == at(text, "?y")
    assert "`?y` is not bound by an enclosing `forall`/`exists`" in found.message
    assert problems(lint(edit(text, "(p ?y)", "(p ?x)"))) == []


def test_inequality_needs_only_equality() -> None:
    text = edit(BLOCKS, ":negative-preconditions)", ":equality)")
    text = edit(text, " (not (on ?x ?y)))\n    :effect", " (not (= ?x ?y)))\n    :effect")
    assert problems(lint(text)) == []


def test_duplicate_function() -> None:
    text = edit(TEMPORAL, "(energy ?r - rover))", "(energy ?r - rover) (distance ?a ?b - site))")
    found = single(lint(text), "duplicate-declaration")
    assert found.span == at(text, "distance", after="(energy ?r - rover)")
    assert "Function `distance` is already declared" in found.message


def test_a_variable_as_the_target_of_a_numeric_effect_is_explained() -> None:
    text = (
        "(define (domain d) (:requirements :numeric-fluents :typing) (:types car)\n"
        "  (:functions (fuel ?c - car))\n"
        "  (:action refuel :parameters (?t - car) :precondition (> (fuel ?t) 0)\n"
        "    :effect (increase ?t 1)))\n"
    )
    domain = parse_pddl(text).model
    assert isinstance(domain, Domain)
    found = check_domain(domain)
    [misplaced] = only(found, "misplaced-construct")
    start = text.index("?t 1)")
    assert misplaced.span == Span(start, start + 2)
    assert "`?t` is a variable" in misplaced.message and "`(fuel ?t)`" in misplaced.message
    # not also an "undeclared function `?t`", nor an unused parameter
    assert only(found, "undeclared-function") == [] and only(found, "unused-parameter") == []

    fixed = parse_pddl(text.replace("(increase ?t 1)", "(increase (fuel ?t) 1)")).model
    assert isinstance(fixed, Domain)
    assert only(check_domain(fixed), "misplaced-construct") == []

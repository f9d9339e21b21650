"""Where the cursor is in a text being typed: what completion and signature help build on."""

from __future__ import annotations

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing.cursor_context import LONG_FORM, cursor_context
from plansight.analyses.editing.describe import (
    action_schema,
    declaration_comment,
    requirement_text,
    type_chain,
)
from plansight.analyses.model.vocabulary import vocabulary
from plansight.analyses.syntax.documents import parse_document


def at(text: str) -> tuple[str, int]:
    """``text`` without its ``|``, and the offset the ``|`` marked."""
    return text.replace("|", "", 1), text.index("|")


def test_an_unfinished_atom_gives_its_head_and_the_argument_being_typed() -> None:
    text, offset = at("(define (problem p) (:init (on a b|")
    cursor = cursor_context(text, offset)
    assert cursor.heads == ("define", ":init", "on")
    assert cursor.prefix == "b" and cursor.prefix_span == (offset - 1, offset)
    assert cursor.words_before == ("on", "a") and cursor.argument_index == 1
    assert not cursor.at_head


def test_closed_forms_and_comments_do_not_count() -> None:
    text, offset = at("(define (domain d)\n  ; (not here\n  (:predicates (p) (q ?x))\n  (|")
    cursor = cursor_context(text, offset)
    assert cursor.heads == ("define", "")
    assert cursor.at_head and cursor.prefix == ""
    inside_comment, offset = at("(define ; (:re|")
    assert cursor_context(inside_comment, offset).forms == ()


def test_a_long_form_counts_its_children_without_rereading_them() -> None:
    facts = " ".join(f"(on b{i} b{i + 1})" for i in range(LONG_FORM // 4))
    text, offset = at(f"(define (problem p) (:init {facts} |")
    cursor = cursor_context(text, offset)
    assert cursor.heads == ("define", ":init")
    assert len(cursor.words_before) == 1 + LONG_FORM // 4
    assert cursor.previous_word == "(...)"


DOMAIN = """\
(define (domain d)
  (:requirements :strips :typing)
  (:types truck - vehicle vehicle - thing)
  (:predicates
    ; where a thing is
    (at ?t - thing ?p - place)   ; a trailing comment wins
    (free ?v - vehicle))
  (:action go :parameters (?v - vehicle) :precondition (free ?v) :effect (not (free ?v))))
"""


def test_comments_on_or_above_a_declaration() -> None:
    assert declaration_comment(DOMAIN, _span("(at", 1, 2)) == "a trailing comment wins"
    free = DOMAIN.index("(free ?v - vehicle)") + 1
    assert declaration_comment(DOMAIN, Span(free, free + 4)) == ""  # the comment above belongs to `at`
    text = DOMAIN.replace("   ; a trailing comment wins", "")
    assert declaration_comment(text, _span("(at", 1, 2, text)) == "where a thing is"


def test_type_chain_schema_and_requirement_texts() -> None:
    domain = parse_document("d.pddl", DOMAIN).domain
    assert domain is not None
    vocab = vocabulary(domain)
    assert type_chain(vocab, "truck") == "truck < vehicle < thing < object"
    assert action_schema(domain.actions[0]) == (
        "(:action go\n  :parameters (?v - vehicle)\n  :precondition (free ?v)\n  :effect (not (free ?v)))")
    assert requirement_text(":adl").startswith("The ADL bundle")
    assert "Implies `:conditional-effects`" in requirement_text(":adl")
    assert requirement_text(":typo") == "`:typo` is not a PDDL requirement."


def _span(needle: str, shift: int, length: int, text: str = DOMAIN) -> Span:
    start = text.index(needle) + shift
    return Span(start, start + length)

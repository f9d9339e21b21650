"""The pure cores behind semantic tokens, folding and object-type hints: what the editor colours,
folds and annotates, on small texts where the answer is known."""

from __future__ import annotations

from plansight.analyses.editing.folding import Fold, folding_ranges
from plansight.analyses.editing.object_type_hints import object_type_hints
from plansight.analyses.editing.semantic_tokens import TOKEN_TYPES, encode, semantic_tokens
from plansight.analyses.editing.symbols import build_index
from plansight.analyses.syntax.documents import parse_document

DOMAIN = """\
(define (domain d) ; at (not a keyword here) 3
  (:requirements :typing :numeric-fluents :durative-actions)
  (:types t)
  (:predicates (at ?x - t))
  (:functions (fuel))
  (:durative-action go :parameters (?x - t) :duration (= ?duration 2.5)
    :condition (at start (at ?x)) :effect (at end (decrease (fuel) 1))))
"""


def named(text: str) -> list[tuple[str, str]]:
    parsed = parse_document("d.pddl", text)
    tokens = semantic_tokens(text, build_index(parsed.model, "d.pddl"))
    return [(text[s:e], TOKEN_TYPES[kind]) for s, e, kind, _ in tokens]


def test_the_same_word_is_a_keyword_or_a_predicate_by_its_place() -> None:
    tokens = named(DOMAIN)
    assert tokens[:4] == [("define", "keyword"), ("domain", "keyword"), ("d", "namespace"),
                          ("; at (not a keyword here) 3", "comment")]
    condition = tokens[tokens.index((":condition", "keyword")):]
    assert condition[:5] == [(":condition", "keyword"), ("at", "keyword"), ("start", "keyword"),
                             ("at", "function"), ("?x", "parameter")]
    assert ("2.5", "number") in tokens and ("1", "number") in tokens
    assert ("fuel", "property") in tokens and (":typing", "modifier") in tokens


def test_positions_are_counted_in_utf16_units_after_a_non_ascii_comment() -> None:
    text = "; π 😀\n(define (domain d))"
    parsed = parse_document("d.pddl", text)
    tokens = semantic_tokens(text, build_index(parsed.model, "d.pddl"))
    data = encode(text, tokens, "utf-16")
    assert data[:5] == [0, 0, 6, TOKEN_TYPES.index("comment"), 0]  # `; π 😀` is 6 UTF-16 units
    assert encode(text, tokens, "utf-32")[2] == 5
    assert data[5:10] == [1, 1, 6, TOKEN_TYPES.index("keyword"), 0]  # `define` on the next line


def test_folding_covers_sections_and_comment_blocks_even_in_a_broken_file() -> None:
    text = "; one\n; two\n(define (domain d)\n  (:predicates\n    (p)\n    (q))\n  (:action a\n"
    assert folding_ranges(text) == [Fold(0, 1, "comment"), Fold(3, 5, "region")]


def test_object_type_hints_mark_long_runs_and_names_far_from_their_type() -> None:
    text = "(define (problem p) (:domain d)\n  (:objects a b c - t\n    x\n    y - u z))"
    parsed = parse_document("p.pddl", text)
    assert parsed.problem is not None
    hints = [(text[:h.offset].rsplit(None, 1)[-1], h.label) for h in object_type_hints(parsed.problem, text)]
    assert hints == [("a", ": t"), ("b", ": t"), ("x", ": u")]

"""The lexical rules every scanner shares (analyses/syntax/lexical.py): comments never count."""

from __future__ import annotations

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.syntax.documents import detect_kind, directives
from plansight.analyses.syntax.lexical import first_line_span, in_comment, sniff_header, sniff_kind


def test_a_header_inside_a_comment_is_not_the_files_header() -> None:
    text = "; copied from (define (domain other))\n(define (problem p1) (:domain blocks))"
    assert sniff_kind(text) == "problem"
    header = sniff_header(text)
    assert header is not None and (header.kind, header.name, header.key) == ("problem", "p1", "p1")
    assert detect_kind("notes.plan", "; solves (define (problem p1)\n(pick-up a)\n") == "plan"


def test_a_header_still_being_typed_gives_its_kind_but_no_name() -> None:
    assert sniff_kind("(define (domain") == "domain"
    assert sniff_header("(define (domain") is None
    assert sniff_kind("(define (domains x))") is None
    assert detect_kind("new.pddl", "(define (problem") == "problem"


def test_an_unfinished_pddl_file_is_guessed_from_its_code_not_its_comments() -> None:
    assert detect_kind("draft.pddl", "; will get an :init later\n(") == "domain"
    assert detect_kind("draft.pddl", "(:init (p))") == "problem"


def test_directives_are_read_only_from_the_comment_lines_at_the_top() -> None:
    text = "; @domain ../d.pddl\n;; @equivalence placeholder\n(define (problem p)\n; @plan ignored.plan\n"
    found = [(d.key, d.value, text[d.span.start:d.span.end]) for d in directives(text)]
    assert found == [("domain", "../d.pddl", "../d.pddl"), ("equivalence", "placeholder", "placeholder")]


def test_first_line_span_and_comment_positions() -> None:
    assert first_line_span("(define\r\n(domain d))") == Span(0, 7)
    assert first_line_span("") == Span(0, 0)
    text = "(p a) ; note (q)\n(r)"
    assert in_comment(text, text.index("(q)")) and not in_comment(text, text.index("(r)"))

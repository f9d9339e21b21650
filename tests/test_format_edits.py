"""The formatting edits: they give the formatted text on every corpus file and on arbitrary pairs of
texts, and they leave alone the lines formatting does not change."""

from __future__ import annotations

from itertools import pairwise

from corpus import corpus_files
from hypothesis import given, settings
from hypothesis import strategies as st

from plansight.analyses.editing.format_edits import line_edits
from plansight.analyses.editing.formatter import TextEdit, Unbalanced, format_text, whole_document_edit


def applied(text: str, edits: list[TextEdit]) -> str:
    for edit in reversed(edits):
        text = text[:edit.span.start] + edit.new_text + text[edit.span.end:]
    return text


def test_the_edits_give_the_formatted_corpus_and_replace_no_more_than_one_edit_would() -> None:
    checked = 0
    for file in corpus_files(include_sdist=False):
        text = file.path.read_text(encoding="utf-8", errors="replace")
        for width in (100, 40):
            try:
                formatted = format_text(text, 2, width, plan=file.path.suffix != ".pddl")
            except Unbalanced:
                continue
            edits = line_edits(text, formatted)
            assert applied(text, edits) == formatted, file.path
            assert all(a.span.end <= b.span.start for a, b in pairwise(edits))
            one = whole_document_edit(text, formatted)  # never more than the one-edit answer replaces
            replaced = one.span.end - one.span.start if one else 0
            assert sum(e.span.end - e.span.start for e in edits) <= replaced
            checked += 1
    assert checked > 100


def test_a_long_init_with_two_unformatted_lines_gets_two_small_edits() -> None:
    facts = "".join(f"    (on b{i} b{i + 1})\n" for i in range(3000))
    text = f"(define (problem p) (:domain d)\n  (:objects b0 b1 - block)\n  (:init\n{facts}  ))\n"
    formatted = format_text(text)
    edits = line_edits(text, formatted)
    assert applied(text, edits) == formatted
    assert len(edits) == 2 and sum(len(e.new_text) for e in edits) < 10
    assert [(text[e.span.start:e.span.end], e.new_text) for e in edits] == [("", "\n "), ("\n  ", "")]
    assert edits[1].span.start == text.rindex("\n  ))")  # the facts in between are not touched


def test_equal_texts_need_no_edit() -> None:
    assert line_edits("(a)\n", "(a)\n") == []


PIECES = ["a", "b", " ", "\n", "\r\n", "\r", "(", ")", ";", "\t"]
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(texts, texts)
def test_the_edits_turn_any_text_into_any_other(text: str, formatted: str) -> None:
    edits = line_edits(text, formatted)
    assert applied(text, edits) == formatted
    assert all(a.span.end <= b.span.start for a, b in pairwise(edits))

"""A new version's layout made from the previous version's (``format_reuse.py``) is exactly the layout of
the new text from scratch, after every edit of random edit sequences on corpus files and on generated
problems with large ``:init`` sections and goals, with the reused layout carried from edit to edit; and so
are range formatting's edits read from it. It is also made from the previous layout most of the time, and
without laying out what the edit did not touch."""

from __future__ import annotations

import random

import pytest
from corpus import corpus_files

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing import format_reuse, formatter
from plansight.analyses.editing.format_reuse import LaidOut, format_again, lay_out, relaid
from plansight.analyses.editing.formatter import ListMarks, Unbalanced, format_range, format_text
from plansight.analyses.syntax.documents import parse_document

SNIPPETS = [" ", "\n", "\n\n", "  ", "\t", " ; note\n", ";", "(on a b)", "(clear c)\n", "(and (p) (q))",
            "x", "-", ")", "(", "(not (on a b))", "\n    (on b1 b2)", "(:goal (p))", "\r\n"]


def mutated(text: str, rng: random.Random) -> str:
    """One edit as a user makes them: a snippet typed, a few characters deleted or replaced, a line
    duplicated or deleted."""
    at = rng.randint(0, len(text))
    kind = rng.random()
    if kind < 0.4:
        return text[:at] + rng.choice(SNIPPETS) + text[at:]
    if kind < 0.6:
        return text[:at] + text[at + rng.randint(1, 12):]
    if kind < 0.75:
        return text[:at] + rng.choice(SNIPPETS) + text[at + rng.randint(1, 6):]
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    end = len(text) if end < 0 else end + 1
    if kind < 0.9:
        return text[:end] + text[start:end] + text[end:]
    return text[:start] + text[end:]


def marks_of(marks: ListMarks | None) -> tuple[object, ...] | None:
    """What the next edit reads from ``marks`` (the one-line length only where it decides anything)."""
    if marks is None:
        return None
    return (marks.head, marks.context, marks.deeper, marks.column, marks.always_broken,
            None if marks.always_broken else marks.flat_len, marks.end, marks.items_from, list(marks.starts),
            list(marks.lengths), list(marks.element_lengths), list(marks.firsts), list(marks.heights),
            list(marks.last_lens))


def fresh_or_none(text: str, width: int) -> LaidOut | None:
    try:
        return lay_out(text, 2, width)
    except Unbalanced:
        return None


def follow(text: str, rng: random.Random, edits: int, width: int) -> tuple[int, int]:
    """Edit ``text`` ``edits`` times, each time comparing the reused layout with a fresh one; returns
    how many layouts were compared and how many of them were made from the previous one."""
    previous = fresh_or_none(text, width)
    compared = reused = 0
    for _ in range(edits):
        edited = mutated(text, rng)
        fresh = fresh_or_none(edited, width)
        again = relaid(previous, edited) if previous is not None else None
        if fresh is None:  # unbalanced: the editor's next edit starts from the text before this one
            assert again is None
            continue
        text = edited
        compared += 1
        if again is not None:
            reused += 1
            assert again.lines == fresh.lines, text
            assert again.placed() == fresh.placed()
            assert again.formatted() == format_text(text, 2, width)
            assert marks_of(again.define) == marks_of(fresh.define)
            assert [marks_of(m) for m in again.inner] == [marks_of(m) for m in fresh.inner]
            for _ in range(3):  # range formatting read from the kept layout
                start = rng.randint(0, len(text))
                span = Span(start, min(len(text), start + rng.choice([0, 3, 40, 400])))
                assert (format_range(text, span, 2, width, laid_out=(again.lines, again.placed()))
                        == format_range(text, span, 2, width))
        previous = again if again is not None else fresh
    return compared, reused


PROBLEMS = [f for f in corpus_files(include_sdist=False) if f.path.suffix == ".pddl"]


@pytest.mark.parametrize("seed", range(4))
def test_the_reused_layout_equals_a_fresh_one_on_corpus_files(seed: int) -> None:
    rng = random.Random(seed)
    compared = reused = 0
    for file in rng.sample(PROBLEMS, 40):
        text = file.path.read_text(encoding="utf-8", errors="replace")
        done = follow(text, rng, 12, rng.choice([100, 40]))
        compared, reused = compared + done[0], reused + done[1]
    assert compared > 100 and reused > compared // 2


def big_problem(rng: random.Random, facts: int, goals: int) -> str:
    """A problem with a large ``:init`` and goal, some comments and blank lines among the facts."""
    def fact(k: int) -> str:
        choice = rng.random()
        if choice < 0.02:
            return f"    ; block {k}\n"
        if choice < 0.04:
            return f"\n    (on b{k} b{k + 1}) ; stacked\n"
        return f"    (on b{k} b{k + 1})\n" if choice < 0.5 else f"  (clear b{k})"
    objects = " ".join(f"b{k}" for k in range(facts + 2))
    init = "".join(fact(k) for k in range(facts))
    goal = " ".join(f"(on b{k + 1} b{k})" for k in range(goals))
    return (f"; generated\n(define (problem big) (:domain blocksworld)\n  (:objects {objects} - block)\n"
            f"  (:init\n    (arm-empty)\n{init})\n  (:goal (and {goal}))\n)\n")


@pytest.mark.parametrize("seed", range(3))
def test_the_reused_layout_equals_a_fresh_one_on_large_problems(seed: int) -> None:
    rng = random.Random(seed)
    text = big_problem(rng, 1500, 300)
    compared, reused = follow(text, rng, 60, 100)
    assert compared > 30 and reused > compared * 3 // 4


def _count_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The lengths of text the reuse reads again, one per read, as it reads them."""
    read: list[int] = []
    real = formatter.read_tree

    def counting(source: str, start: int = 0, end: int | None = None) -> list[formatter.Element]:
        read.append((len(source) if end is None else end) - start)
        return real(source, start, end)

    monkeypatch.setattr(format_reuse, "read_tree", counting)
    return read


def test_an_edit_of_one_fact_lays_out_that_fact_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(7)
    text = big_problem(rng, 3000, 500)
    laid = lay_out(text, 2, 100)
    read = _count_reads(monkeypatch)
    fact = text.index("(on b", len(text) // 3)  # a fact in the middle of `:init`
    goal = text.index("(on b6 b5)")
    for at, old, new in ((fact, ")", "x)"), (goal, "(on b6 b5)", "(on b6 b5) (on b7 b8)")):
        at += text[at:].index(old)
        text = text[:at] + new + text[at + len(old):]
        laid = relaid(laid, text)  # type: ignore[assignment]
        assert read and max(read) < 100  # the touched fact and its neighbours, not the section
        read.clear()
        assert laid is not None and laid.lines == format_text(text).splitlines()


def test_format_again_keeps_the_layout_for_the_next_version_and_refuses_what_format_parsed_refuses() -> None:
    text = big_problem(random.Random(3), 200, 50)
    result, laid = format_again(None, parse_document("p.pddl", text))
    assert result.text == format_text(text) and laid is not None
    edited = text.replace("(arm-empty)", "(arm-empty) (holding b3)")
    result, again = format_again(laid, parse_document("p.pddl", edited))
    assert result.text == format_text(edited) and again is not None and again.text == edited
    broken = edited.replace("(arm-empty)", "(arm-empty")
    result, none = format_again(again, parse_document("p.pddl", broken))
    assert result.text is None and "syntax error" in result.reason and none is None


@pytest.mark.parametrize("piece", ["(clear b1) ", "(clear b1)\n", " ; note\n", "; note\n", "x ", "- ", "\n\n",
                                   "(clear b1) ; note\n", ")", "(and (p) (q)) "])
def test_an_insertion_between_a_list_head_and_its_first_item(piece: str) -> None:
    text = big_problem(random.Random(11), 40, 6)
    laid = lay_out(text, 2, 100)
    for head in ("(:init", "(:goal (and", "(:domain blocksworld)"):
        for at in (text.index(head) + len(head), text.index(head) + len(head) + 1):
            edited = text[:at] + piece + text[at:]
            fresh = fresh_or_none(edited, 100)
            again = relaid(laid, edited)
            if fresh is None:
                assert again is None
                continue
            assert again is None or again.lines == fresh.lines, (head, at)
            if again is not None:
                assert marks_of(again.define) == marks_of(fresh.define)
                assert [marks_of(m) for m in again.inner] == [marks_of(m) for m in fresh.inner]


def test_a_fact_inserted_at_the_start_of_init_is_laid_out_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    text = big_problem(random.Random(2), 2000, 10)
    laid = lay_out(text, 2, 100)
    at = text.index("\n", text.index("(:init")) + 1  # where lsp_requests.py --edit init types
    read = _count_reads(monkeypatch)
    for _ in range(3):
        text = text[:at] + "(clear b1) " + text[at:]
        again = relaid(laid, text)
        assert again is not None and max(read) < 100
        read.clear()
        assert again.lines == format_text(text).splitlines()
        laid = again

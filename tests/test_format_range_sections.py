"""Range formatting of one section laid out alone (from the parse's section spans) gives exactly the
edit that laying out the whole text gives, on corpus files with their whitespace and comments
shuffled, for ranges anywhere; and it does not lay out what it does not need."""

from __future__ import annotations

import random
import re

import pytest
from corpus import corpus_files

from plansight.analyses.diagnostics.diagnostic import Severity
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing import formatter
from plansight.analyses.editing.formatter import format_range
from plansight.analyses.syntax.documents import parse_document

SPACES = [" ", "\n", "\n\n\n", "  ", "\t", " ; note\n", "\r\n"]


def shuffled(text: str, rng: random.Random) -> str:
    """The text with a fifth of its whitespace runs replaced (comments and blank lines added)."""
    parts = re.split(r"(\s+)", text)
    return "".join(rng.choice(SPACES) if part.isspace() and rng.random() < 0.2 else part for part in parts)


FILES = [f for f in corpus_files(include_sdist=False) if f.path.suffix == ".pddl"]


@pytest.mark.parametrize("seed", range(4))
def test_one_section_alone_gives_the_edit_of_the_whole_layout(seed: int) -> None:
    rng = random.Random(seed)
    compared = alone = 0
    for file in rng.sample(FILES, min(100, len(FILES))):
        text = shuffled(file.path.read_text(encoding="utf-8", errors="replace"), rng)
        parsed = parse_document(str(file.path), text)
        if parsed.outline is None or any(d.severity is Severity.ERROR for d in parsed.diagnostics):
            continue
        sections = [section.span for section in parsed.outline.sections]
        for _ in range(8):
            start = rng.randint(0, len(text))
            span = Span(start, min(len(text), start + rng.choice([0, 3, 40, 400])))
            width = rng.choice([100, 40])
            whole = format_range(text, span, 2, width)
            assert format_range(text, span, 2, width, False, sections) == whole, (file.path, span, width)
            compared += 1
            alone += not isinstance(formatter._one_section_edit(text, span, 2, width, sections), bool)
    assert compared > 150 and alone > compared // 3  # most ranges lie within one section


def test_a_range_in_the_goal_of_a_large_problem_reads_only_the_goal(monkeypatch: pytest.MonkeyPatch) -> None:
    facts = "".join(f"    (on b{i} b{i + 1})\n" for i in range(3000))
    text = f"(define (problem p) (:domain d)\n  (:objects b0 b1 - block)\n  (:init\n{facts}  )\n" \
           f"  (:goal   (on b1 b0)))\n"
    parsed = parse_document("p.pddl", text)
    assert parsed.outline is not None
    read: list[int] = []
    real = formatter.read_tree

    def counting(source: str, start: int = 0, end: int | None = None) -> list[formatter.Element]:
        read.append((len(source) if end is None else end) - start)
        return real(source, start, end)

    monkeypatch.setattr(formatter, "read_tree", counting)
    at = text.index("(on b1 b0)")
    edit = format_range(text, Span(at, at + 3), sections=[s.span for s in parsed.outline.sections])
    assert edit is not None and text[:edit.span.start] + edit.new_text + text[edit.span.end:] == \
        text.replace("(:goal   (on", "(:goal (on")
    assert sum(read) < 40  # the goal only, not the 3,000 facts

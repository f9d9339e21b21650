"""Grading a folder of submissions against a reference problem: which files are submissions, and
one row per submission. Shared by ``plansight grade`` and the editor's *Grade folder* command.

A submission is a `.pddl` problem directly in the folder (the student is the file's name) or a
folder (the student is the folder's name; every problem file inside is graded, a folder without
one is graded "unparseable" so no student silently disappears from the sheet).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from plansight.analyses.equivalence.verdict import Reference, Verdict, compare_text, unparseable
from plansight.analyses.syntax.extraction import Extraction
from plansight.analyses.syntax.extraction import extract as extract_answer
from plansight.analyses.syntax.lexical import sniff_header
from plansight.analyses.syntax.reading import read_text_file

OUTCOMES = ("equivalent", "not equivalent", "unsolvable", "invalid", "unparseable", "unknown")
"""Every outcome, in the order reports list them."""


def summary_text(counts: Mapping[str, int]) -> str:
    """``7 submissions: 2 equivalent, 2 not equivalent, ...`` (outcomes in the reports' order)."""
    listed = ", ".join(f"{counts[o]} {o}" for o in OUTCOMES if counts.get(o))
    return f"{sum(counts.values())} submissions: {listed or 'none found'}"


@dataclass(frozen=True, slots=True)
class Graded:
    """The verdict for one student's file, as one row of the grading report."""

    student: str
    path: str
    verdict: Verdict
    extracted: Extraction | None = None
    """What extraction removed from the file (``--extract``, docs/llm-output.md); None when read as is."""

    def row(self) -> dict[str, object]:
        """The row as the JSON and CSV reports write it."""
        v = self.verdict
        return {
            "student": self.student,
            "path": self.path,
            "outcome": v.outcome,
            "parseable": v.parseable,
            "solvable": v.solvable,
            "equivalent": v.equivalent,
            "mode": v.mode,
            "explanation": v.explanation,
            "method": v.method,
            **({"warnings": list(v.warnings)} if v.warnings else {}),
            **({"extracted": self.extracted.to_json()} if self.extracted is not None else {}),
        }


def grade_file(reference: Reference, student: str, path: str, placeholder: bool,
               extract: bool = False) -> Graded:
    """Grade one submission against the reference; an unreadable file or a folder without a problem is graded
    as unparseable rather than raising. With ``extract`` the file is read as a language model's answer:
    the problem is taken out of its prose and fences first.
    """
    if os.path.isdir(path):
        return Graded(student, path, unparseable("the folder holds no `.pddl` problem.", placeholder))
    read = read_text_file(path)
    if read.text is None:
        return Graded(student, path, unparseable(f"{read.failure}.", placeholder))
    text = read.text
    extraction = extract_answer(text, "problem") if extract else None
    if extraction is not None:
        text = extraction.text
    return Graded(student, path, compare_text(reference, path, text, placeholder), extraction)


def submissions(folder: str, reference: str) -> list[tuple[str, str]]:
    """(student, problem path) pairs, sorted by student; the reference and domain files are skipped."""
    skip = os.path.normcase(os.path.abspath(reference))
    found: list[tuple[str, str]] = []

    def is_candidate(path: str) -> bool:
        if os.path.normcase(os.path.abspath(path)) == skip:
            return False
        head = read_text_file(path, limit=1 << 16).text
        if head is None:
            return True  # reported as unreadable
        header = sniff_header(head)
        return header is None or header.kind == "problem"

    for entry in sorted(os.listdir(folder)):
        path = os.path.join(folder, entry)
        if entry.startswith("."):
            continue
        if os.path.isdir(path):
            inner = sorted(_pddl_files(path))
            problems = [p for p in inner if is_candidate(p)]
            if not problems:
                found.append((entry, path))  # a student who handed in nothing usable
            for problem in problems:
                name = entry if len(problems) == 1 else f"{entry}/{os.path.relpath(problem, path)}"
                found.append((name, problem))
        elif entry.lower().endswith(".pddl") and is_candidate(path):
            found.append((os.path.splitext(entry)[0], path))
    return found


def _pddl_files(folder: str) -> Iterator[str]:
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            if name.lower().endswith(".pddl"):
                yield os.path.join(root, name)

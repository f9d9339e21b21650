"""Foldable regions: each multi-line form down to the parts of an action, and runs of comment lines.

Works on the raw text (parentheses and comments only), so a file with syntax errors still folds, and
a 1 MB problem is scanned in one regular-expression pass: its thousands of one-line init facts are
never candidates.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from plansight.analyses.diagnostics.spans import LineIndex
from plansight.analyses.syntax.lexical import COMMENT

MAX_DEPTH = 3
"""``define`` (0), its sections and actions (1), an action's parts and a goal's conjunction (2, 3)."""

_SCAN = re.compile(r"\([^()\r\n;]*\)|[()]|" + COMMENT)
"""a one-line innermost form (the bulk of a large problem, which never folds) is skipped in one step"""


class Fold(NamedTuple):
    """One foldable region: a multi-line form or a run of comment lines."""

    start_line: int
    end_line: int
    kind: str  # region | comment


def folding_ranges(text: str) -> list[Fold]:
    """The foldable regions of a PDDL text, from parentheses and comments alone, so folding works on files
    with syntax errors.
    """
    lines = LineIndex(text)
    line_of = lines.line_of
    folds: list[Fold] = []
    opened: list[int] = []
    comment_run: tuple[int, int] | None = None  # first and last line of consecutive comment lines
    for m in _SCAN.finditer(text):
        token = m.group()
        if len(token) > 1 and token[0] == "(":
            continue
        if token == "(":
            opened.append(m.start())
        elif token == ")":
            if opened:
                start = opened.pop()
                if len(opened) <= MAX_DEPTH:
                    first, last = line_of(start), line_of(m.start())
                    if last > first:
                        folds.append(Fold(first, last, "region"))
        else:
            line = line_of(m.start())
            if text[lines.line_start(line):m.start()].strip():  # a comment after code does not join a run
                continue
            if comment_run is not None and comment_run[1] == line - 1:
                comment_run = (comment_run[0], line)
            else:
                if comment_run is not None and comment_run[1] > comment_run[0]:
                    folds.append(Fold(comment_run[0], comment_run[1], "comment"))
                comment_run = (line, line)
    if comment_run is not None and comment_run[1] > comment_run[0]:
        folds.append(Fold(comment_run[0], comment_run[1], "comment"))
    folds.sort()
    return folds

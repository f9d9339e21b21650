"""Checks of the file paths given to a subcommand's flags, worded as the reading policy words them.

A flag naming a FIFO or a device is refused up front with the reason (``it is a FIFO (named pipe),
not a regular file``) instead of a misleading "no such file", and before anything could block on it.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable

from plansight.analyses.syntax.reading import path_problem


def file_flag_problems(args: argparse.Namespace, flags: Iterable[str]) -> list[str]:
    """``--FLAG VALUE: reason`` for each given flag whose file would not be read."""
    problems = []
    for flag in flags:
        value = getattr(args, flag)
        if value is None:
            continue
        problem = path_problem(value)
        if problem is not None:
            problems.append(f"--{flag.replace('_', '-')} {value}: {problem}")
    return problems

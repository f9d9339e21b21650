"""The live equivalence check as the editor runs it through ``Analyzer.lint``: the budget it is given,
the cancellation hook a newer edit flips, and the ``; @equivalence placeholder`` directive."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from plansight.analyses.workspace.lint import Analyzer, AnalyzerOptions, MemorySource

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "grading"

SWITCHES_DOMAIN = """\
(define (domain switches)
  (:requirements :strips)
  (:predicates (on ?x) (off ?x))
  (:action switch-on :parameters (?x) :precondition (off ?x) :effect (and (on ?x) (not (off ?x))))
  (:action switch-off :parameters (?x) :precondition (on ?x) :effect (and (off ?x) (not (on ?x)))))
"""
"""A domain outside the three Appendix C knows: FS needs the state search, over 2^n states."""


def switches_problem(name: str, switches: int, goal: str, reference: str | None = "reference.pddl") -> str:
    objects = " ".join(f"s{i}" for i in range(switches))
    init = " ".join(f"(off s{i})" for i in range(switches))
    header = f"; @reference {reference}\n" if reference else ""
    return (f"{header}(define (problem {name}) (:domain switches)\n  (:objects {objects})\n"
            f"  (:init {init})\n  (:goal {goal}))\n")


SLOW_REFERENCE = switches_problem("reference", 20, "(on s0)", None)
SLOW_STUDENT = switches_problem("student", 20, "(and (on s0) (on s1))")
"""The student's goal is not the reference's as written, so its FS is searched: 2^20 states, minutes."""

BLOCKS_STUDENT = """\
; @reference reference.pddl
(define (problem student)
  (:domain blocksworld)
  (:objects x y z)
  (:init (arm-empty) (on x y) (on-table y) (on-table z) (clear x) (clear z))
  (:goal (and (on x z) (on z y))))
"""
"""A tower of three like the reference's, but of other blocks: wrong by name, right as a placeholder."""


def _switches(tmp: str = "/w") -> MemorySource:
    return MemorySource({f"{tmp}/domain.pddl": SWITCHES_DOMAIN, f"{tmp}/reference.pddl": SLOW_REFERENCE})


def _blocks(student: str) -> tuple[Analyzer, str]:
    source = MemorySource({
        "/g/domain.pddl": (EXAMPLE / "domain.pddl").read_text(),
        "/g/reference.pddl": (EXAMPLE / "reference.pddl").read_text(),
        "/g/student.pddl": student,
    })
    return Analyzer(source), "/g/student.pddl"


def test_the_budget_reaches_the_state_search() -> None:
    analyzer = Analyzer(_switches(), AnalyzerOptions(equivalence_budget=(500, 60.0)))
    result = analyzer.lint("/w/student.pddl", SLOW_STUDENT)
    (diagnostic,) = [d for d in result.diagnostics if d.code == "equivalence-unknown"]
    assert "more than 500 reachable states" in diagnostic.message


def test_a_cancelled_search_stops_at_once_and_says_nothing() -> None:
    analyzer = Analyzer(_switches(), AnalyzerOptions(equivalence_budget=(30_000, 600.0)))  # a second or more
    stop = threading.Event()
    timer = threading.Timer(0.3, stop.set)
    timer.start()
    started = time.monotonic()
    result = analyzer.lint("/w/student.pddl", SLOW_STUDENT, cancelled=stop.is_set)
    elapsed = time.monotonic() - started
    timer.cancel()
    assert stop.is_set()
    assert [d.code for d in result.diagnostics] == []  # no verdict, and no internal error either
    finished = time.monotonic()
    # nothing interrupted was remembered: the same text and budget, not cancelled, get the real answer
    again = analyzer.lint("/w/student.pddl", SLOW_STUDENT)
    (diagnostic,) = again.diagnostics
    assert "more than 30,000 reachable states" in diagnostic.message
    assert elapsed < (time.monotonic() - finished) / 2, "the cancelled search did not stop early"


def test_a_hook_that_never_fires_changes_nothing() -> None:
    analyzer, path = _blocks(BLOCKS_STUDENT)
    plain = analyzer.lint(path)
    hooked = analyzer.lint(path, cancelled=lambda: False)
    assert [d.code for d in hooked.diagnostics] == [d.code for d in plain.diagnostics] == ["not-equivalent"]


def test_the_placeholder_directive_accepts_another_tower_of_the_same_shape() -> None:
    analyzer, path = _blocks(BLOCKS_STUDENT)
    assert [d.code for d in analyzer.lint(path).diagnostics] == ["not-equivalent"]

    placeholder = BLOCKS_STUDENT.replace("; @reference", "; @equivalence placeholder\n; @reference")
    analyzer, path = _blocks(placeholder)
    assert [d.code for d in analyzer.lint(path).diagnostics] == []

    identity = BLOCKS_STUDENT.replace("; @reference", "; @equivalence Identity\n; @reference")
    analyzer, path = _blocks(identity)
    assert [d.code for d in analyzer.lint(path).diagnostics] == ["not-equivalent"]


def test_an_unknown_mode_is_named_in_the_diagnostic() -> None:
    text = BLOCKS_STUDENT.replace("; @reference", "; @equivalence placeholders\n; @reference")
    analyzer, path = _blocks(text)
    (diagnostic,) = analyzer.lint(path).diagnostics
    assert diagnostic.code == "equivalence-unknown"
    assert "`; @equivalence` takes `placeholder` or `identity`, not `placeholders`" in diagnostic.message
    assert text[diagnostic.span.start:diagnostic.span.end] == "student"

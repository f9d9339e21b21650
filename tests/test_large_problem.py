"""A problem too large for a full analysis is checked a chunk at a time with the very same result.

The oracle is the full analysis itself: generated problems of a few hundred KB to a few MB, with
planted mistakes of every kind the problem checks report and with syntax errors, are linted both
ways (the streaming threshold forced to 0) and must give identical diagnostics: code, severity,
message, range and related locations. Files the streaming reader cannot handle get one clear
``file-too-large`` error, never a crash.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from plansight.analyses.workspace.lint import Analyzer, AnalyzerOptions, MemorySource

TYPED_DOMAIN = """(define (domain typed-blocks)
  (:requirements :strips :typing :negative-preconditions :numeric-fluents :derived-predicates)
  (:types block table - object)
  (:constants t0 - table)
  (:predicates (clear ?x - block) (on ?x - block ?y - block) (on-table ?x - block) (arm-empty)
               (holding ?x - block) (heavy ?x - block) (above ?x - block ?y - block))
  (:functions (weight ?x - block) (total-cost))
  (:derived (above ?x - block ?y - block) (on ?x ?y))
  (:action pickup :parameters (?x - block)
    :precondition (and (clear ?x) (on-table ?x) (arm-empty) (not (heavy ?x)))
    :effect (and (holding ?x) (not (clear ?x)) (not (on-table ?x)) (not (arm-empty))
                 (increase (total-cost) 1)))
  (:action stack :parameters (?x - block ?y - block)
    :precondition (and (holding ?x) (clear ?y))
    :effect (and (on ?x ?y) (clear ?x) (arm-empty) (not (holding ?x)) (not (clear ?y)))))
"""

UNTYPED_DOMAIN = """(define (domain plain-blocks)
  (:requirements :strips)
  (:predicates (clear ?x) (on ?x ?y) (on-table ?x) (arm-empty))
  (:action pickup :parameters (?x) :precondition (clear ?x) :effect (not (clear ?x))))
"""

INIT_MISTAKES = [
    "(onn b1 b2)", "(clear b1 b2)", "(clear zz9)", "(on t0 b1)", "(clear ?x)", "(above b1 b2)",
    "(= (weight b1) 3)", "(= (weightt b1) 3)", "(= (weight b1) (+ 1 2))", "(> (weight b1) 2)",
    "(or (clear b1) (clear b2))", "(and (clear b4))", "(not (clear b3))", "(not (clear b3))",
    "(at 10 (clear b1))", "(= b1 b2)", "(not (and (clear b1)))", "(heavy b6)", "(Clear B7)", "(clear b8)",
]
GOAL_MISTAKES = [
    "(on b1 b2)", "(not (on b1 b2))", "(heavy b5)", "(not (heavy b6))", "(onn b1 b3)", "(clear ?y)",
    "(exists (?z - block) (holding ?z))", "(exists (?z - blok) (holding ?z))", "(increase (total-cost) 1)",
    "(> (weight b2) (total-cost))", "(on b9 t0)", "(clear qq)",
]
SYNTAX_MISTAKES = ["(on b1 - b2)", "foo", "(clear b1 3)", "(on b1 (b2))", "(clear b1 é)", "(:bad x)"]


def _problem(blocks: int, seed: int, *, typed: bool = True, syntax: bool = False) -> str:
    """A towers problem with every planted mistake at a random place of its lists."""
    rng = random.Random(seed)
    names = [f"b{i}" for i in range(blocks)]
    init = ["(arm-empty)"] + [f"(on-table {b})" for b in names[::3]] + [
        f"(on {a} {b})" for a, b in zip(names[1::3], names[::3], strict=False)] + [
        f"(clear {b})" for b in names[1::3]] + ["(clear b8)"]
    goal = [f"(on {a} {b})" for a, b in zip(names[2::3], names[1::3], strict=False)]
    for mistake in INIT_MISTAKES + (SYNTAX_MISTAKES if syntax else []):
        init.insert(rng.randrange(len(init) + 1), mistake)
    for mistake in GOAL_MISTAKES + (SYNTAX_MISTAKES[:4] if syntax else []):
        goal.insert(rng.randrange(len(goal) + 1), mistake)
    objects = [*names, "b3", "t0"]
    rng.shuffle(objects)
    typing = " - block\n    x1 y1 - blok\n    b2 - (either block table)\n    " if typed else " - block\n    "
    half = len(objects) // 2
    return "\n".join([
        f"; a generated problem, seed {seed}",
        f"(define (problem towers-{blocks})",
        "  (:domain typed-blocks)" if typed else "  (:domain plain-blocks)",
        "  (:objects " + " ".join(objects[:half]) + typing + " ".join(objects[half:]) + ")",
        "  (:init ; the towers",
        *(f"    {fact}" for fact in init),
        "  )",
        "  (:goal (and",
        *(f"    {g}" for g in goal),
        "  ))",
        "  (:metric minimize (total-cost))",
        ")",
        "",
    ])


def _both_ways(text: str, domain: str | None) -> tuple[tuple, tuple]:
    files = {"/t/p.pddl": text}
    if domain is not None:
        files["/t/domain.pddl"] = domain
    source = MemorySource(files)
    flag = "/t/domain.pddl" if domain is not None else None
    full = Analyzer(source).lint("/t/p.pddl", domain=flag)
    streamed = Analyzer(source, AnalyzerOptions(stream_above=0)).lint("/t/p.pddl", domain=flag)
    return full.diagnostics, streamed.diagnostics


def _comparable(diagnostics: tuple) -> list[tuple]:
    return [(d.code, d.severity, d.message, d.span, d.related) for d in diagnostics]


@pytest.mark.parametrize("seed", range(4))
def test_streamed_check_equals_full_check_on_planted_mistakes(seed: int) -> None:
    text = _problem(3000 + 1000 * seed, seed)
    full, streamed = _both_ways(text, TYPED_DOMAIN)
    codes = {d.code for d in full}
    assert {"duplicate-init-fact", "undeclared-predicate", "wrong-arity", "undeclared-object",
            "type-mismatch", "free-variable", "derived-in-init", "undeclared-function", "misplaced-construct",
            "missing-requirement", "contradictory-goal", "static-goal-unreachable", "duplicate-declaration",
            "object-shadows-constant", "undeclared-type"} <= codes
    assert _comparable(streamed) == _comparable(full)


@pytest.mark.parametrize("seed", range(3))
def test_streamed_check_equals_full_check_with_syntax_errors(seed: int) -> None:
    text = _problem(2000, 10 + seed, syntax=True)
    full, streamed = _both_ways(text, TYPED_DOMAIN)
    assert {"syntax-error", "invalid-character"} <= {d.code for d in full}
    assert _comparable(streamed) == _comparable(full)


def test_streamed_check_equals_full_check_without_domain_and_untyped() -> None:
    text = _problem(2000, 20, typed=False)
    for domain in (None, UNTYPED_DOMAIN):
        full, streamed = _both_ways(text, domain)
        assert full
        assert _comparable(streamed) == _comparable(full)
    assert "typed-objects-untyped-domain" in {d.code for d in _both_ways(text, UNTYPED_DOMAIN)[0]}


def test_a_few_megabytes_read_in_many_chunks_give_the_same_result() -> None:
    text = _problem(120_000, 5)
    assert len(text) > 2_000_000
    full, streamed = _both_ways(text, TYPED_DOMAIN)
    assert _comparable(streamed) == _comparable(full)


@pytest.mark.parametrize(("text", "reason"), [
    ("(define (problem p) (:domain d) (:init (on a b) (:goal (and)))\n", "never closed"),
    ("(define (problem) (:domain d) (:init) (:goal (and)))\n", "does not start with `(define (problem"),
    ("x (define (problem p) (:domain d) (:init) (:goal (and)))\n", "does not start"),
    ("(define (problem p) (:domain d) (:init (p a)) (:goal (and))) (extra)\n", "text follows"),
])
def test_what_the_stream_cannot_read_gets_one_clear_error(text: str, reason: str) -> None:
    source = MemorySource({"/t/p.pddl": text})
    result = Analyzer(source, AnalyzerOptions(stream_above=0)).lint("/t/p.pddl")
    assert [d.code for d in result.diagnostics] == ["file-too-large"]
    assert "too large to analyse fully" in result.diagnostics[0].message
    assert reason in result.diagnostics[0].message


def test_other_files_are_analysed_in_full_below_the_limit_and_refused_above_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from plansight.analyses.workspace import large_problem

    source = MemorySource({"/t/d.pddl": UNTYPED_DOMAIN})
    below = Analyzer(source, AnalyzerOptions(stream_above=0)).lint("/t/d.pddl")
    assert below.diagnostics == Analyzer(source).lint("/t/d.pddl").diagnostics
    monkeypatch.setattr(large_problem, "FULL_ANALYSIS_CHARS", 100)
    above = Analyzer(source, AnalyzerOptions(stream_above=0)).lint("/t/d.pddl")
    assert [d.code for d in above.diagnostics] == ["file-too-large"]
    assert "it is a domain, and only problems over 100 characters" in above.diagnostics[0].message


def test_cli_json_is_identical_both_ways(tmp_path: Path) -> None:
    (tmp_path / "domain.pddl").write_text(TYPED_DOMAIN)
    (tmp_path / "p.pddl").write_text(_problem(4000, 3, syntax=True))

    def lint(*flags: str) -> dict:
        run = subprocess.run([sys.executable, "-m", "plansight", "lint", str(tmp_path / "p.pddl"), "--domain",
                              str(tmp_path / "domain.pddl"), "--format", "json", *flags],
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 1, run.stderr
        return json.loads(run.stdout)

    streamed, full = lint("--stream-above", "0"), lint()
    assert streamed["summary"]["errors"] > 20
    assert streamed == full


def test_comments_crlf_mixed_case_and_repeated_sections_give_the_same_result() -> None:
    text = _problem(1500, 30, syntax=True).replace("(on-table b3", "(ON-table B3").replace(
        "    (clear b1", "    ; (clear b1) commented out (\n    (clear b1").replace(
        " b10 ", " b10 ; a comment in the objects (x\n    ").replace(
        "  (:goal", "  (:init (clear b2) (clear b2))\n  (:goal").replace("\n", "\r\n")
    full, streamed = _both_ways(text, TYPED_DOMAIN)
    assert "duplicate-section" in {d.code for d in full}
    assert _comparable(streamed) == _comparable(full)


@pytest.mark.parametrize("seed", range(30))
def test_a_damaged_problem_is_either_checked_exactly_or_refused_with_one_error(seed: int) -> None:
    """Random damage (a stray parenthesis, word, comment, keyword, line break or character): the
    chunked check gives the full check's diagnostics or, when it cannot, one clear refusal; never a
    crash or a different result."""
    rng = random.Random(seed)
    text = _problem(300, 1)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(text))
        piece = rng.choice(["(", ")", "x", " ", "-", "?y", ";", "\n", "(and", "(not ", ":init", "3", "é",
                            "(= (weight b1) 2)"])
        text = text[:at] + piece + text[at + (1 if rng.random() < 0.3 else 0):]
    full, streamed = _both_ways(text, TYPED_DOMAIN)
    if [d.code for d in streamed] != ["file-too-large"]:
        assert _comparable(streamed) == _comparable(full)


def test_finding_a_domain_reads_only_the_head_of_a_large_sibling(tmp_path: Path) -> None:
    """The domain search sniffs every file of the folder; a huge problem there must not be read whole."""
    from plansight.analyses.workspace.sources import DiskSource

    (tmp_path / "domain-big.pddl").write_text(_problem(40_000, 2))  # about 1 MB: over the 256 KiB head
    (tmp_path / "domain.pddl").write_text(TYPED_DOMAIN)
    (tmp_path / "small.pddl").write_text(_problem(30, 2))
    whole: list[str] = []

    class Recording(DiskSource):
        def read(self, path: str) -> str | None:
            whole.append(Path(path).name)
            return super().read(path)

    source = Recording(memoize=True)
    result = Analyzer(source, AnalyzerOptions(stream_above=0)).lint(str(tmp_path / "small.pddl"))
    assert result.domain_path == str(tmp_path / "domain.pddl")
    assert "domain-big.pddl" not in whole and "domain.pddl" in whole

"""Property-based tests: broken and random input never crashes the parsers, the printer or the checks.

Valid corpus files are damaged the way editing damages them — characters and whole tokens deleted,
inserted, replaced, duplicated — and thrown at the parser, the semantic checks and the printer. The
properties: nothing raises; every diagnostic range lies inside the document; and whatever model was
recovered prints as PDDL that parses back, without a syntax error, to the same model (so the editor
can always offer to format what it understood). Plus pathological input: random unicode, 10,000
nested parentheses, very long lines.
"""

from __future__ import annotations

import os
import re
from functools import cache

import pytest
from corpus import corpus_files, pairs, plan_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plansight.analyses.checks.domain import check_domain
from plansight.analyses.checks.plan import check_plan
from plansight.analyses.checks.problem import check_problem
from plansight.analyses.diagnostics.diagnostic import Diagnostic
from plansight.analyses.diagnostics.spans import LineIndex, line_start_at
from plansight.analyses.editing.semantic_tokens import encode, lexical_tokens
from plansight.analyses.model.pddl import Domain, Problem, walk
from plansight.analyses.model.printer import print_domain, print_plan, print_problem
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan
from plansight.analyses.workspace.lint import Analyzer, MemorySource

SMALL = 12_000  # characters: keeps one example to milliseconds
# A long exploration (e.g. PLANSIGHT_FUZZ_EXAMPLES=5000) is worth running now and then; the default keeps
# this file to a few seconds.
EXAMPLES = int(os.environ.get("PLANSIGHT_FUZZ_EXAMPLES", "120"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@cache
def _seeds() -> list[tuple[str, str, str | None]]:
    """(kind, text, partner text) for small valid files: a problem's partner is its domain."""
    files = [f for f in corpus_files(include_sdist=False) if f.path.stat().st_size <= SMALL]
    domain_of = {problem.path: domain for domain, problem in pairs(files)}
    seeds: list[tuple[str, str, str | None]] = []
    for file in files:
        text = file.text()
        kind = "problem" if re.search(r"\(\s*define\s*\(\s*problem", text, re.IGNORECASE) else "domain"
        partner = domain_of.get(file.path)
        seeds.append((kind, text, partner.text() if partner else None))
    plans = [p for p in plan_files(include_sdist=False) if p.path.stat().st_size <= SMALL]
    seeds += [("plan", p.text(), None) for p in plans]
    return seeds


_TOKEN = re.compile(r"[()]|[^\s()]+")
_NOISE = st.sampled_from([
    *"()()?:-;=<>#\n\r\t ", "(and", "(not", ":effect", "?x", "at", "start", "(:init", "0.5", "é", "🧱",
    "\x00", "\ufeff",
])
_EDITS = ["delete", "insert", "replace", "drop-token", "copy-token", "swap-tokens"]


@st.composite
def damaged(draw: st.DrawFn) -> tuple[str, str, str | None]:
    kind, text, partner = draw(st.sampled_from(_seeds()))
    for _ in range(draw(st.integers(1, 4))):
        tokens = [m.span() for m in _TOKEN.finditer(text)]
        how = draw(st.sampled_from(_EDITS))
        if how in ("delete", "insert", "replace"):
            start = draw(st.integers(0, len(text)))
            end = min(len(text), start + draw(st.integers(0 if how == "insert" else 1, 8)))
            new = "" if how == "delete" else draw(st.one_of(_NOISE, st.text(max_size=4)))
            text = text[:start] + new + text[end if how != "insert" else start:]
        elif tokens:
            a = draw(st.integers(0, len(tokens) - 1))
            b = draw(st.integers(0, len(tokens) - 1))
            (a_start, a_end), (b_start, b_end) = tokens[a], tokens[b]
            if how == "drop-token":
                text = text[:a_start] + text[a_end:]
            elif how == "copy-token":
                text = text[:b_start] + text[a_start:a_end] + " " + text[b_start:]
            elif a != b:
                (a_start, a_end), (b_start, b_end) = sorted([tokens[a], tokens[b]])
                text = (text[:a_start] + text[b_start:b_end] + text[a_end:b_start] + text[a_start:a_end]
                        + text[b_end:])
    return kind, text, partner


def _inside(diagnostics: tuple[Diagnostic, ...] | list[Diagnostic], text: str) -> None:
    for d in diagnostics:
        assert 0 <= d.span.start <= d.span.end <= len(text), (d.code, d.span, len(text))
        for related in d.related:
            if related.path is None:
                assert 0 <= related.span.start <= related.span.end <= len(text), (d.code, related)


def _reprints(model: Domain | Problem) -> None:
    """A recovered model prints as clean PDDL that parses back to the same model."""
    printed = print_domain(model) if isinstance(model, Domain) else print_problem(model)
    again = parse_pddl(printed)
    assert [(d.code, d.message) for d in again.diagnostics] == [], printed
    assert again.model == model, printed


@FUZZ
@given(damaged())
def test_damaged_files_never_crash_and_ranges_stay_inside(case: tuple[str, str, str | None]) -> None:
    kind, text, partner = case
    if kind == "plan":
        parsed_plan = parse_plan(text)
        _inside(parsed_plan.diagnostics, text)
        assert parsed_plan.plan is not None
        _inside(check_plan(parsed_plan.plan, None, None), text)
        again = parse_plan(print_plan(parsed_plan.plan))
        assert again.diagnostics == () and again.plan == parsed_plan.plan
        return
    parsed = parse_pddl(text)
    _inside(parsed.diagnostics, text)
    model = parsed.model
    if model is None:
        return
    _reprints(model)
    if isinstance(model, Domain):
        _inside(check_domain(model), text)
    else:
        domain = parse_pddl(partner).model if partner else None
        _inside(check_problem(model, domain if isinstance(domain, Domain) else None), text)


def test_a_lone_surrogate_in_a_problem_is_one_invalid_character_and_the_rest_is_checked() -> None:
    domain = "(define (domain d) (:predicates (p ?x)))"
    problem = "(define (problem q) (:domain d) (:objects a)\n  (:init (p a) \ud800 (r a))\n  (:goal (p a)))"
    result = Analyzer(MemorySource({"/w/domain.pddl": domain, "/w/problem.pddl": problem})).lint(
        "/w/problem.pddl")
    index = LineIndex(problem)
    found = [(d.code, index.position(d.span.start)) for d in result.diagnostics]
    assert [code for code, _ in found] == ["invalid-character", "undeclared-predicate"]
    assert [(p.line, p.character) for _, p in found] == [(1, 15), (1, 18)]


_SURROGATES = st.sampled_from(["\ud800", "\udbff", "\udc00", "\udce9", "\udfff"])
"""What an editor's broken buffer (JSON ``"\\ud800"``) or ``surrogateescape`` text can hold."""


@FUZZ
@given(damaged(), st.integers(0, 1 << 20), _SURROGATES)
def test_a_lone_surrogate_anywhere_is_diagnosed_where_it_is_and_never_crashes(
        case: tuple[str, str, str | None], where: int, surrogate: str) -> None:
    """The whole pipeline an editor's buffer goes through: lint with partners, then LSP positions in
    every negotiable encoding and the semantic tokens. A lone surrogate outside a comment is reported
    at its own offset; before, converting any position on its line raised."""
    kind, text, partner = case
    at = where % (len(text) + 1)
    text = text[:at] + surrogate + text[at:]
    path = "/w/file.plan" if kind == "plan" else "/w/file.pddl"
    files = {path: text, **({"/w/domain.pddl": partner} if partner else {})}
    result = Analyzer(MemorySource(files)).lint(path)
    assert [d.message for d in result.diagnostics if d.code == "internal-error"] == []
    if ";" not in text[line_start_at(text, at):at]:  # in a comment any character is allowed
        assert any(d.span.start <= at < d.span.end for d in result.diagnostics), surrogate
    index = LineIndex(text)
    for diagnostic in result.diagnostics:
        start = index.range(diagnostic.span)[0]  # a start inside a line break clamps to the line's end
        assert index.offset(start) == min(diagnostic.span.start, index.line_end(start.line))
    for encoding in ("utf-8", "utf-16", "utf-32"):
        encode(text, lexical_tokens(text), encoding)


@FUZZ
@given(st.text(max_size=300))
def test_random_unicode_text(text: str) -> None:
    parsed = parse_pddl(text)
    _inside(parsed.diagnostics, text)
    if parsed.model is not None:
        _reprints(parsed.model)
    plan = parse_plan(text)
    _inside(plan.diagnostics, text)


@settings(max_examples=max(60, EXAMPLES // 2), deadline=None)
@given(st.lists(st.sampled_from(["(", ")", "(and ", "(not ", "(define ", "(domain d)", "(:action a ",
                                 ":effect ", "(p)", ";c\n", "?x ", "- t "]), max_size=80))
def test_random_token_soup(pieces: list[str]) -> None:
    text = "".join(pieces)
    parsed = parse_pddl(text)
    _inside(parsed.diagnostics, text)
    if parsed.model is not None:
        _reprints(parsed.model)


DEPTH = 10_000


@pytest.mark.parametrize(
    "text",
    [
        "(" * DEPTH,
        ")" * DEPTH,
        "(" * DEPTH + ")" * DEPTH,
        "(define (domain d) (:predicates (p)) (:action a :parameters () :effect " + "(and " * DEPTH,
        "(define (domain d) (:predicates (p)) (:action a :parameters () :effect "
        + "(not " * DEPTH + "(p)" + ")" * DEPTH + "))",
        "(define (problem p) (:domain d) (:goal " + "(or " * DEPTH + "(p)" + ")" * DEPTH + "))",
    ],
    ids=["opens", "closes", "balanced", "unclosed-and", "deep-not", "deep-goal"],
)
def test_deep_nesting_does_not_recurse(text: str) -> None:
    parsed = parse_pddl(text)
    _inside(parsed.diagnostics, text)
    model = parsed.model
    if model is None:
        return
    printed = print_domain(model) if isinstance(model, Domain) else print_problem(model)
    assert printed.count("(") == printed.count(")")
    reparsed = parse_pddl(printed)
    assert reparsed.diagnostics == ()
    # the models are too deep for dataclass equality (recursive); compare the node sequences
    formulas = [a.effect for a in model.actions] if isinstance(model, Domain) else [model.goal]
    again = reparsed.model
    assert again is not None
    formulas_again = [a.effect for a in again.actions] if isinstance(again, Domain) else [again.goal]
    shape = [type(node).__name__ for f in formulas for node in walk(f)]
    assert shape == [type(node).__name__ for f in formulas_again for node in walk(f)]
    assert len(shape) >= DEPTH


def test_deep_nesting_in_a_plan() -> None:
    text = "(" * DEPTH + "move a b" + ")" * DEPTH + "\n(move b c)\n"
    parsed = parse_plan(text)
    _inside(parsed.diagnostics, text)
    assert parsed.plan is not None and parsed.plan.steps[-1].action.key == "move"


def test_very_long_lines() -> None:
    facts = " ".join(f"(on b{i} b{i + 1})" for i in range(50_000))
    objects = " ".join(f"b{i}" for i in range(50_001))
    problem = (f"(define (problem long) (:domain blocks) (:objects {objects}) (:init {facts})"
               " (:goal (on b0 b1)))")
    parsed = parse_pddl(problem)
    assert parsed.diagnostics == ()
    assert isinstance(parsed.model, Problem) and len(parsed.model.init) == 50_000
    long_name = "x" * 1_000_000
    text = f"(define (domain {long_name}) (:predicates ({long_name} ?{long_name})))"
    parsed = parse_pddl(text)
    assert parsed.diagnostics == ()
    assert isinstance(parsed.model, Domain) and parsed.model.predicates[0].name.span.end - (
        parsed.model.predicates[0].name.span.start) == len(long_name)
    broken = problem[: len(problem) // 2] + "€" + problem[len(problem) // 2 :]
    _inside(parse_pddl(broken).diagnostics, broken)
    plan = " ".join(f"(move b{i} b{i + 1})" for i in range(20_000))
    assert len(parse_plan(plan).plan.steps) == 20_000  # type: ignore[union-attr]

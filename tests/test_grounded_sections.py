"""Whole `(:action ...)` and `(:predicates ...)` sections of a grounded domain are read in one step
(`analyses/syntax/grounded_sections.py`): the model, its spans and the diagnostics are exactly what the
token-by-token parse gives, on generated grounded domains, on every shape the shortcut must leave to the
tokens, and on broken files, where the whole file goes through the tokens so that recovery is unchanged.
The full fast parse (runs of facts and names too) is compared with the token-by-token one on random slips
of a grounded domain and of a problem."""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest
from test_fast_facts import _nodes

from plansight.analyses.model.pddl import Domain
from plansight.analyses.syntax.grounded_sections import SECTION, GroundedSections
from plansight.analyses.syntax.lexer import lex_pddl
from plansight.analyses.syntax.parse_pddl import parse_pddl

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from workloads import blocksworld_problem, grounded_domain

HEAD = "(define (domain d) (:requirements :strips)\n (:predicates (p) (q) (r-1))\n"
GROUNDED = (
    "(:action a-b :parameters () :precondition (and (p) (q)) :effect (and (r-1) (not (p))))\n"
    " (:action b :parameters ()\n    :precondition (p)\n    :effect (not (q)))\n"
)

# sections read in one step: plain shapes, spellings and spacing the tokens read the same way
FAST = [
    HEAD + GROUNDED + ")",
    HEAD + "(:ACTION A :Parameters ( ) :PRECONDITION (AND (P) (Q)) :EFFECT (And (R-1) (NOT (P))))\n)",
    HEAD + "(:action a :effect (and))\n(:action b :precondition (and) :effect (p))\n)",
    HEAD + "(:action a)\n(:action at :effect (and (at) (start) (over) (either) (define)))\n)",
    HEAD + "(:action a :effect (p)) (:action b :parameters ()) (:action c :precondition (not (p)))\n)",
    HEAD + "(:action a :effect (and (p a b) (not (q c))))\n)",  # ground literals with arguments
    HEAD + "(:action a :precondition (and (p)(q)) :effect(and(r-1)(not(p))))\n)",
    "(define (domain d)\n\t(:predicates\n\t\t(p)\n\t\t(q)\n\t)\n\t(:action a\n\t\t:effect (p)\n\t)\n)",
    HEAD + "(:action a :effect (p))\n(:predicates (s))\n)",  # a repeated section
    HEAD + "(:action a :effect (and (p)))\n(:action a :effect (and (q)))\n)",  # a repeated action
    HEAD + "(:action a :effect (and (r-1) (not (r-2))))\n)",  # undeclared: a check's diagnostic
    HEAD + "(:action a :effect (and (p) ; a comment (q)\n (q)))\n)",  # the facts' reader skips comments
]

# shapes the shortcut steps aside from, in sections that are otherwise plain
ASIDE = [
    HEAD + "(:action a :parameters (?x) :precondition (p ?x) :effect (not (p ?x)))\n)",
    HEAD + "(:action a :parameters (?x - (either t u)) :effect (p))\n)",
    HEAD + "(:action a :effect (and (p) (increase (total-cost) 1)))\n)",
    HEAD + "(:action a :effect (and (p) (when (q) (r-1))))\n)",
    HEAD + "(:action a :effect (and (p) (and (q))))\n)",
    HEAD + "(:action a :precondition (and (p) (= a b)) :effect (p))\n)",
    HEAD + "(:action a :precondition (or (p) (q)) :effect (p))\n)",
    HEAD + "(:action a :precondition () :effect (p))\n)",
    HEAD + "(:action a ; a comment\n :effect (p))\n)",
    HEAD + "(:action a :effect (p) :effect (q))\n)",  # a repeated part keeps the first
    HEAD + "(:action a :precondition (p) (q) :effect (p))\n)",
    HEAD + "(:action a :vars (?x) :effect (p))\n)",
    HEAD + "(:action a :effect (p ?x))\n)",
    HEAD + "(:action a :effect (p 1))\n)",
    HEAD + "(:action a :effect (not (not (p))))\n)",
    HEAD + "(:action a :effect (and (p) (not (p) (q))))\n)",
    HEAD + "(:action 1a :effect (p))\n)",
    HEAD + "(:action a.b :effect (p))\n)",
    HEAD + "(:action a :effect (p.q))\n)",
    HEAD + "(:durative-action a :parameters () :duration (= ?duration 1) :condition (at start (p))"
    " :effect (at end (q)))\n)",
    "(define (domain d) (:types t) (:predicates (p ?x - t) (q)) (:action a :effect (q)))",
    "(define (domain d) (:predicates (p) (q - t)) (:action a :effect (q)))",
    "(define (domain d) (:predicates (p) ; a comment\n (q)) (:action a :effect (q)))",
    "(define (domain d) (:predicates) (:action a :effect (q)))",
    "(define (domain d) (:predicates (p) (and) (not) (at)) (:action a :effect (not)))",
]

# broken files: the tokens must see the whole file, so recovery and repair are the usual ones
BROKEN = [
    HEAD + "(:action a :parameters () :precondition (and (p) (q) :effect (and (r-1) (not (p))))\n"
    + GROUNDED + ")",  # a missing `)` inside a grounded action
    HEAD + "(:action a :parameters () :precondition (and (p) (q)) :effect (and (r-1) (not (p)))\n"
    + GROUNDED + ")",  # the action's own `)` missing
    HEAD + GROUNDED + "(:action c :parameters () :precondtion (p) :effect (q))\n" + GROUNDED + ")",
    HEAD + GROUNDED + "(:action c :parameters () :precondition (p) :effect (q)))\n" + GROUNDED + ")",
    HEAD + GROUNDED + "(:action c :parameters () :precondition (p) :effect (q) :cost 1)\n" + GROUNDED + ")",
    HEAD + GROUNDED + "(:action :parameters () :effect (q))\n" + GROUNDED + ")",
    HEAD + GROUNDED + "(:action c :parameters () :effect (q)\n" + GROUNDED + ")",
    HEAD + GROUNDED + "(:action c :parameters () :effect (q))))\n",
    HEAD + GROUNDED,  # the `(define` never closed
    HEAD + GROUNDED + ") " + GROUNDED,  # sections after the end of `(define`
    "(define (problem x) (:domain d) " + GROUNDED + ")",  # actions in a problem
    "(define (domain d) (:predicates (p) (q)" + GROUNDED + ")",
    "(define (domain d) (:predicates (p) (q)) " + GROUNDED + " (:action c :effect (q) (:action e))",
    "(:action a :effect (p))",
    "(define (domain d) (:action a :effect (p)) ; é\n (:action b :effect (p) é))",
]


def _agree(text: str) -> None:
    fast = parse_pddl(text)
    for slow in (parse_pddl(text, fast_sections=False), parse_pddl(text, fast_facts=False)):
        assert fast.diagnostics == slow.diagnostics
        assert fast.model == slow.model
        spans = [(type(n).__name__, n.span) for n in _nodes(fast.model)]
        assert spans == [(type(n).__name__, n.span) for n in _nodes(slow.model)]
        assert (fast.outline is None) == (slow.outline is None)


def _sections(text: str) -> list[str]:
    """The keywords of the sections the shortcut reads in ``text``."""
    tokens = lex_pddl(text, read_section=GroundedSections())
    return [t.value.keyword.text.lower() for t in tokens if t.kind == SECTION]  # type: ignore[attr-defined]


@pytest.mark.parametrize("text", FAST)
def test_plain_sections_are_read_in_one_step_and_parse_as_the_tokens_do(text: str) -> None:
    assert _sections(text)
    _agree(text)


@pytest.mark.parametrize("text", ASIDE)
def test_other_shapes_are_left_to_the_tokens(text: str) -> None:
    assert len(_sections(text)) < len(re.findall(r"\(:(?:action|durative-action|predicates)", text))
    _agree(text)


@pytest.mark.parametrize("text", BROKEN)
def test_broken_files_report_what_the_tokens_report(text: str) -> None:
    _agree(text)
    assert parse_pddl(text).diagnostics


def test_a_grounded_domain_is_read_section_by_section() -> None:
    text = grounded_domain(80_000)
    taken = _sections(text)
    model = parse_pddl(text).model
    assert isinstance(model, Domain)
    assert taken.count(":action") == len(model.actions) > 300
    assert taken.count(":predicates") == 1
    _agree(text)


def test_an_edit_inside_a_section_read_in_one_step_reparses_only_that_section() -> None:
    from plansight.analyses.syntax.incremental import reparse_pddl

    old_text = HEAD + GROUNDED + ")"
    old = parse_pddl(old_text)
    assert old.outline is not None
    new_text = old_text.replace("(and (p) (q))", "(and (p) (q) (r-1))")
    new = reparse_pddl(old_text, old, new_text)
    assert new is not None and new.splice is not None and new.splice.list is None
    assert new.model == parse_pddl(new_text).model
    assert new.diagnostics == parse_pddl(new_text).diagnostics


_EDITS = ["", "(", ")", ";", " ", "?x", "- t", "1", "é", "(p)", "(and", ":effect", "not", "\n"]


def _mutants(text: str, count: int, seed: int) -> list[str]:
    """``count`` variants of ``text``, each with one random stretch of up to three characters replaced by
    one of ``_EDITS`` (deleted, when that is empty), the kind of slip an editor sees between keystrokes."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        at = rng.randrange(len(text))
        out.append(text[:at] + rng.choice(_EDITS) + text[at + rng.randrange(4):])
    return out


@pytest.mark.parametrize("seed", range(4))
def test_a_grounded_domain_one_slip_away_parses_as_without_the_shortcut(seed: int) -> None:
    for text in _mutants(grounded_domain(3_000), 50, seed):
        fast, slow = parse_pddl(text), parse_pddl(text, fast_sections=False)
        assert fast.diagnostics == slow.diagnostics
        assert fast.model == slow.model
        assert [n.span for n in _nodes(fast.model)] == [n.span for n in _nodes(slow.model)]


def _same_as_token_by_token(text: str) -> None:
    """The full fast parse (runs of facts and names, whole sections) against the token-by-token one."""
    fast, slow = parse_pddl(text), parse_pddl(text, fast_facts=False)
    assert [d.message for d in fast.diagnostics] == [d.message for d in slow.diagnostics], text
    assert fast.diagnostics == slow.diagnostics, text
    assert fast.model == slow.model, text
    spans = [(type(n).__name__, n.span) for n in _nodes(fast.model)]
    assert spans == [(type(n).__name__, n.span) for n in _nodes(slow.model)], text


def test_an_error_before_a_run_of_facts_names_the_parenthesis_and_recovers_as_the_tokens_do() -> None:
    text = HEAD + "(:action a :parameters () :effect (and:effect (p) (q) (not (r-1))))\n)"
    _same_as_token_by_token(text)
    messages = [d.message for d in parse_pddl(text).diagnostics]
    assert any(m.startswith("Unexpected `(`: expected `)`, `:condition`") for m in messages)
    assert not any("FACTS" in m for m in messages)


# one-character slips that put a syntax error next to a run of facts or names: about one in 400 did
# recover differently from the token-by-token parse (or named the runs' internal token) before the
# parse spelled the runs out from the error on; these seeds and counts caught it
@pytest.mark.parametrize("seed", range(4))
def test_a_grounded_domain_one_slip_away_parses_as_token_by_token(seed: int) -> None:
    for text in _mutants(grounded_domain(3_000), 250, seed):
        _same_as_token_by_token(text)


@pytest.mark.parametrize("seed", range(4))
def test_a_problem_one_slip_away_parses_as_token_by_token(seed: int) -> None:
    for text in _mutants(blocksworld_problem(3_000), 250, seed):
        _same_as_token_by_token(text)


def _slipped(text: str, where: float, slip: str) -> str:
    """``text`` with ``slip`` put before the first fact at or after fraction ``where`` of it."""
    at = text.index("\n    (", int(len(text) * where)) + 5
    return text[:at] + slip + text[at:]


@pytest.mark.parametrize(
    "slips",
    [
        [(0.3, " 5 ")],  # a stray token inside the facts of `:init`
        [(0.2, " :effect "), (0.6, " ?x ")],  # two, far apart, in one run of facts
        [(0.1, "(p) 5 "), (0.5, "(and:effect (p) (q)) "), (0.9, " - ")],  # in the goal's `(and` too
        [(0.4, "(and:effect (p) (q)) ")],
    ],
)
def test_errors_inside_a_large_problem_recover_as_token_by_token(slips: list[tuple[float, str]]) -> None:
    # the runs of facts come back after each error (several, far apart, in one run and in later ones):
    # the stretch read token by token in between must make the parse the token-by-token one
    text = blocksworld_problem(40_000)
    for where, slip in reversed(slips):
        text = _slipped(text, where, slip)
    _same_as_token_by_token(text)
    assert len(parse_pddl(text).diagnostics) >= len(slips)

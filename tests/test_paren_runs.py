"""A `)` missing or too many in a large problem is repaired without reading every fact token by token
(``analyses/syntax/paren_runs.py``), and the result is exactly the token-by-token parse's: the same
diagnostics (the repair's guesses, the syntax errors after them) and the same model, spans included.

The oracle is the parse with runs of facts switched off (``parse_pddl(text, fast_facts=False)``), on
problems laid out every way the repair's indentation rule can see (facts at, left of and right of their
list's column, several to a line, tabs, all three line endings, comments holding parentheses, negated
facts split over lines) and damaged by parentheses added or removed anywhere.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fast_facts import _agree

from plansight.analyses.syntax.lexer import BAD, FACTS, lex_pddl
from plansight.analyses.syntax.paren_runs import balance_keeping_runs
from plansight.analyses.syntax.parens import balance
from plansight.analyses.syntax.parse_pddl import parse_pddl

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from workloads import blocksworld_problem, grounded_domain

_FACT = st.sampled_from(["(on a b)", "(clear c)", "(arm-empty)", "(not (on b a))", "(not\n  (clear a))",
                         "(on-table d)", "(holding a)"])
_GAP = st.sampled_from([" ", "\n", "\r\n", "\r", "\n\t", "\n        ", "\n  ", "\n    ", "  ; (note\n",
                        "\n; ) closed\n    ", "\n(", ""])
_LAYOUT = st.sampled_from(["\n  ", "\n", " ", "\n    ", "\n\t"])


@st.composite
def problems(draw: st.DrawFn) -> str:
    """A small problem whose `:init` and goal hold runs of facts laid out at random."""
    facts = draw(st.lists(st.tuples(_FACT, _GAP), min_size=1, max_size=12))
    goals = draw(st.lists(st.tuples(_FACT, _GAP), min_size=1, max_size=6))
    before, after = draw(_LAYOUT), draw(_LAYOUT)
    init = "".join(fact + gap for fact, gap in facts)
    goal = "".join(fact + gap for fact, gap in goals)
    return (f"(define (problem p){before}(:domain blocksworld){before}(:objects a b c d){before}"
            f"(:init {init}){after}(:goal (and {goal})){after})\n")


@st.composite
def damaged(draw: st.DrawFn) -> str:
    """A problem with one to three parentheses added or removed."""
    text = draw(problems())
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            parens = [i for i, c in enumerate(text) if c in "()"]
            if parens:
                at = draw(st.sampled_from(parens))
                text = text[:at] + text[at + 1:]
                continue
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(["(", ")", "\n(", "\n  (", "(on a"])) + text[at:]
    return text


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged())
def test_a_repaired_problem_parses_as_the_tokens_do(text: str) -> None:
    _agree(text)


def _slips(text: str) -> list[str]:
    """``text`` with one parenthesis of a fact in the middle of `:init` removed or doubled, and one of the
    goal's."""
    init = text.index("(", (text.index("(:init") + text.index("(:goal")) // 2)
    close = text.index(")", init)
    goal = text.index("(", text.index("(and", text.index("(:goal")) + 1)
    return [text[:close] + text[close + 1:], text[:init] + "(" + text[init:],
            text[:close] + ")" + text[close:], text[:goal] + text[goal + 1:],
            text[:init] + "(clear" + text[init:]]


def test_slips_in_a_large_problem_parse_as_the_tokens_do() -> None:
    for text in _slips(blocksworld_problem(200_000)):
        _agree(text)


def test_slips_in_a_grounded_domain_parse_as_the_tokens_do() -> None:
    text = grounded_domain(60_000)
    at = text.index("(and", len(text) // 2)
    close = text.index(")", at)
    for damaged_text in (text[:close] + text[close + 1:], text[:at] + "(" + text[at:]):
        _agree(damaged_text)


def test_the_facts_after_a_fact_left_open_are_read_as_runs_again() -> None:
    """Typing a fact before its `)` leaves it open: the thousands of facts after it are read in runs, not
    token by token (what keeps a keystroke in a large problem cheap)."""
    text = _slips(blocksworld_problem(200_000))[0]
    tokens = [t for t in lex_pddl(text) if t.kind != BAD]
    opaque: list[int] = []
    out, diagnostics = balance(tokens, text, opaque)
    repaired = balance_keeping_runs(tokens, text, (out, diagnostics, opaque))
    assert repaired is not None
    kept, found = repaired
    assert [d.code for d in found] == ["unclosed-paren"]
    slip = found[0].span.start
    after = [t for t in kept if t.start > slip]
    assert any(t.kind == FACTS for t in after)
    assert len(after) < 50  # the rest of `:init` and the goal: a few runs and their parentheses
    parsed = parse_pddl(text)
    assert [d.code for d in parsed.diagnostics] == ["unclosed-paren"]

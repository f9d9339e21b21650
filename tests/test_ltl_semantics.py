"""LTL evaluation on trajectories (Li et al. 2024, Appendix C.3; docs/metrics.md).

The product composes bit sets of segment ends; the oracle here is written separately and literally
from the definition: a state formula holds on a piece iff some pair in it satisfies it, and ``then``
tries every split into a non-empty prefix and a non-empty rest."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ltl_strategies import ltl_formulas

from plansight.analyses.ltl.evaluate import Pair, evaluate, exactly
from plansight.analyses.ltl.scope import LtlScope
from plansight.analyses.model.ltl import (
    LtlAnd,
    LtlAtom,
    LtlFormula,
    LtlImplies,
    LtlNot,
    LtlOr,
    LtlQuantified,
    LtlThen,
    is_temporal,
)
from plansight.analyses.model.pddl import name
from plansight.analyses.semantics.state import EMPTY, State
from plansight.analyses.syntax.parse_ltl import parse_ltl

OBJECTS = ("o1", "o2", "o3")
ACTIONS = ("act", "go")
SCOPE = LtlScope.abstract(OBJECTS, ACTIONS)


# --- the oracle ----------------------------------------------------------------------------------

def holds_on_pair(f: LtlFormula, pair: Pair, env: dict[str, str]) -> bool:
    state, action = pair
    if isinstance(f, LtlAtom):
        ground = (f.name.key, *(env.get(a.key, a.key) for a in f.args))
        return ground == action if f.name.key in ACTIONS else state.holds(ground)
    if isinstance(f, LtlNot):
        return not holds_on_pair(f.operand, pair, env)
    if isinstance(f, LtlAnd):
        return all(holds_on_pair(o, pair, env) for o in f.operands)
    if isinstance(f, LtlOr):
        return any(holds_on_pair(o, pair, env) for o in f.operands)
    if isinstance(f, LtlImplies):
        return not holds_on_pair(f.left, pair, env) or holds_on_pair(f.right, pair, env)
    assert isinstance(f, LtlQuantified)
    count = sum(holds_on_pair(f.body, pair, {**env, f.variable.key: o}) for o in OBJECTS)
    return {"forall": count == len(OBJECTS), "exists": count > 0, "forn": count == f.count}[f.quantifier]


def holds_on(f: LtlFormula, pairs: Sequence[Pair], env: dict[str, str]) -> bool:
    """``f`` on a non-empty piece of a trajectory, straight from the definition."""
    assert pairs
    if not is_temporal(f):
        return any(holds_on_pair(f, pair, env) for pair in pairs)
    if isinstance(f, LtlThen):
        first, rest = f.stages[0], f.stages[1:]
        remainder = rest[0] if len(rest) == 1 else LtlThen(rest)
        return any(holds_on(first, pairs[:k], env) and holds_on(remainder, pairs[k:], env)
                   for k in range(1, len(pairs)))
    if isinstance(f, LtlNot):
        return not holds_on(f.operand, pairs, env)
    if isinstance(f, LtlAnd):
        return all(holds_on(o, pairs, env) for o in f.operands)
    if isinstance(f, LtlOr):
        return any(holds_on(o, pairs, env) for o in f.operands)
    if isinstance(f, LtlImplies):
        return not holds_on(f.left, pairs, env) or holds_on(f.right, pairs, env)
    assert isinstance(f, LtlQuantified)
    count = sum(holds_on(f.body, pairs, {**env, f.variable.key: o}) for o in OBJECTS)
    return {"forall": count == len(OBJECTS), "exists": count > 0, "forn": count == f.count}[f.quantifier]


def oracle(f: LtlFormula, pairs: Sequence[Pair]) -> tuple[bool, int | None]:
    satisfied = holds_on(f, pairs, {})
    at = next((k for k in range(len(pairs)) if holds_on(f, pairs[:k + 1], {})), None) if satisfied else None
    return satisfied, at


# --- random formulas and trajectories -------------------------------------------------------------

TERMS = st.sampled_from([*OBJECTS, "x", "y"])
VARIABLES = st.sampled_from(["x", "y"])


def atoms() -> st.SearchStrategy[LtlFormula]:
    def make(kind: str, a: str, b: str) -> LtlAtom:
        args = {"p": (a,), "q": (a, b), "r": (), "act": (a,), "go": ()}[kind]
        return LtlAtom(name(kind), tuple(name(t) for t in args))
    return st.builds(make, st.sampled_from(["p", "q", "r", "act", "go"]), TERMS, TERMS)


FORMULAS = ltl_formulas(atoms(), VARIABLES, max_count=3, max_leaves=7)

GROUND_FACTS = [("p", o) for o in OBJECTS] + [("q", a, b) for a in OBJECTS for b in OBJECTS] + [("r",)]
GROUND_ACTIONS = [("act", o) for o in OBJECTS] + [("go",)]


@st.composite
def trajectories(draw: st.DrawFn) -> list[Pair]:
    length = draw(st.integers(1, 6))
    states = [State.of(draw(st.sets(st.sampled_from(GROUND_FACTS), max_size=5))) for _ in range(length)]
    actions = [draw(st.sampled_from(GROUND_ACTIONS)) for _ in range(length - 1)]
    return [(state, actions[i] if i < length - 1 else None) for i, state in enumerate(states)]


@settings(max_examples=3000, deadline=None)
@given(FORMULAS, trajectories())
def test_product_agrees_with_brute_force_on_random_formulas(formula: LtlFormula, pairs: list[Pair]) -> None:
    result = evaluate(formula, pairs, SCOPE)
    assert (result.satisfied, result.satisfied_at) == oracle(formula, pairs)
    assert bool(result.failures) == (not result.satisfied)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 4), st.lists(st.integers(0, 63), min_size=0, max_size=6))
def test_exactly_counts_bits(count: int, bitsets: list[int]) -> None:
    expected = sum(1 << bit for bit in range(6) if sum(b >> bit & 1 for b in bitsets) == count)
    assert exactly(count, bitsets, 63) == expected


# --- worked examples: what a user sees -----------------------------------------------------------

def state(*facts: str) -> State:
    return State.of(tuple(f.split()) for f in facts)


# pick-up a, stack a b: three pairs (s0, pick-up a), (s1, stack a b), (s2, None)
BLOCKS: list[Pair] = [
    (state("on-table a", "on-table b", "clear a", "clear b", "handempty"), ("pick-up", "a")),
    (state("holding a", "on-table b", "clear b"), ("stack", "a", "b")),
    (state("on a b", "on-table b", "clear a", "handempty"), None),
]
BLOCKS_SCOPE = LtlScope.abstract(["a", "b"], ["pick-up", "stack"])


@pytest.mark.parametrize(("text", "satisfied", "at"), [
    ("on(a, b)", True, 2),
    ("pick-up(a) then stack(a, b)", True, 1),  # an action atom holds on the pair that performs it
    ("pick-up(a) then on(a, b)", True, 2),
    ("on(a, b) then on(a, b)", False, None),  # then needs two non-empty pieces
    ("handempty() then handempty()", True, 2),
    ("forn 2. x. (clear(x))", True, 0),
    ("forn 1 x. (clear(x))", True, 1),
    ("forn 3. x. (clear(x))", False, None),
    ("forall x. (clear(x)) then exists x. (holding(x))", True, 1),
    ("stack(a, b) then pick-up(a)", False, None),
])
def test_worked_examples(text: str, satisfied: bool, at: int | None) -> None:
    formula = parse_ltl(text).formula
    assert formula is not None
    result = evaluate(formula, BLOCKS, BLOCKS_SCOPE)
    assert (result.satisfied, result.satisfied_at) == (satisfied, at)


def test_failure_names_the_then_stage_not_achieved() -> None:
    text = "pick-up(a) then stack(a, b) then pick-up(b)"
    result = evaluate(parse_ltl(text).formula, BLOCKS, BLOCKS_SCOPE)  # type: ignore[arg-type]
    [failure] = result.failures
    assert text[failure.node.span.start:failure.node.span.end] == "pick-up(b)"
    assert failure.message == ("`pick-up(b)` is never performed after step 1 (stage 3 of 3 in "
                               f"`{text}`, after stage 2 was achieved at step 1)")


def test_failure_names_the_innermost_conjuncts_not_achieved() -> None:
    text = "pick-up(a) then on(a, b) and holding(b) and on-table(a)"
    result = evaluate(parse_ltl(text).formula, BLOCKS, BLOCKS_SCOPE)  # type: ignore[arg-type]
    assert [f.text for f in result.failures] == ["holding(b)", "on-table(a)"]  # on(a, b) was achieved
    assert all("stage 2 of 2" in f.reason for f in result.failures)


def test_failure_of_forall_names_the_instance() -> None:
    result = evaluate(parse_ltl("forall x. (on(x, b))").formula, BLOCKS, BLOCKS_SCOPE)  # type: ignore[arg-type]
    assert [f.message for f in result.failures] == ["`on(b, b)` never holds"]


def test_conjuncts_that_hold_apart_but_never_together() -> None:
    result = evaluate(parse_ltl("holding(a) and on(a, b)").formula, BLOCKS, BLOCKS_SCOPE)  # type: ignore[arg-type]
    assert [f.message for f in result.failures] == [
        "`holding(a) and on(a, b)` never holds: its parts never hold together"]


def test_forn_counts_exactly_n_objects_not_at_least() -> None:
    # the reference implementation compares n as a string, so its forn is never true: ours is an integer
    pairs: list[Pair] = [(state("p o1", "p o2"), None)]
    for n, expected in ((1, False), (2, True), (3, False)):
        formula = parse_ltl(f"forn {n}. x. (p(x))").formula
        assert evaluate(formula, pairs, SCOPE).satisfied is expected  # type: ignore[arg-type]


def test_oracle_is_not_trivial() -> None:
    # the brute force itself enumerates every split: a 3-stage then over 4 pairs has 3 split choices
    stages = LtlThen((LtlAtom(name("r")), LtlAtom(name("r")), LtlAtom(name("r"))))
    pairs = [(state("r"), None)] * 4
    assert holds_on(stages, pairs, {}) and not holds_on(stages, pairs[:2], {})
    assert len(list(combinations(range(1, 4), 2))) == 3


def test_a_10k_step_trajectory_is_evaluated_quickly() -> None:
    import time

    # pair i: p(o(i % 3 + 1)) holds and act(o(i % 2 + 1)) is performed; the last pair is empty
    pairs: list[Pair] = [(State.of([("p", f"o{i % 3 + 1}")]), ("act", f"o{i % 2 + 1}"))
                         for i in range(10_000)]
    pairs.append((EMPTY, None))
    stages = "p(o3) then act(o2) then exists x. (p(x) and act(x)) then not (p(o1) then p(o2))"
    started = time.monotonic()
    # p(o3) at pair 2, act(o2) at 3, p(o1) and act(o1) together at 6; a one-pair rest has no split, so
    # the negated `then` holds on pair 7 alone
    result = evaluate(parse_ltl(stages).formula, pairs, SCOPE)  # type: ignore[arg-type]
    assert (result.satisfied, result.satisfied_at) == (True, 7)
    failing = evaluate(parse_ltl(stages + " and act(o3)").formula, pairs, SCOPE)  # type: ignore[arg-type]
    assert time.monotonic() - started < 10
    assert not failing.satisfied
    # from pair 7 on (the earliest start of the last stage) neither conjunct holds on the rest
    assert [f.text for f in failing.failures] == ["not (p(o1) then p(o2))", "act(o3)"]

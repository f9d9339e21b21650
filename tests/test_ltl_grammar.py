"""The LTL grammar (Li et al. 2024, Appendix C.3): the paper's formulas parse to the intended trees,
precedence and associativity are the paper's, and broken formulas give diagnostics, never exceptions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ltl_strategies import ltl_formulas

from plansight.analyses.model.ltl import (
    LtlAnd,
    LtlAtom,
    LtlFormula,
    LtlImplies,
    LtlNot,
    LtlOr,
    LtlQuantified,
    LtlThen,
    format_ltl,
)
from plansight.analyses.model.pddl import name
from plansight.analyses.syntax.parse_ltl import parse_ltl


def atom(predicate: str, *args: str) -> LtlAtom:
    return LtlAtom(name(predicate), tuple(name(a) for a in args))


def forall(var: str, body: LtlFormula) -> LtlQuantified:
    return LtlQuantified("forall", name(var), body)


def exists(var: str, body: LtlFormula) -> LtlQuantified:
    return LtlQuantified("exists", name(var), body)


def forn(count: int, var: str, body: LtlFormula) -> LtlQuantified:
    return LtlQuantified("forn", name(var), body, count)


def tree(text: str) -> LtlFormula | None:
    parsed = parse_ltl(text)
    assert parsed.diagnostics == (), [d.message for d in parsed.diagnostics]
    return parsed.formula


P, Q, R, S = atom("p"), atom("q"), atom("r"), atom("s")

# Every LTL formula written in the paper (Li et al. 2024), with `∧` spelled `and` where the paper typeset it.
PAPER_FORMULAS = [
    # Section 2.2: the subgoal plan for "browse Internet"
    ("ontop(character, chair) then holds_rh(character, mouse) and holds_lh(character, keyboard) "
     "then facing(character, computer)",
     LtlThen((atom("ontop", "character", "chair"),
              LtlAnd((atom("holds_rh", "character", "mouse"), atom("holds_lh", "character", "keyboard"))),
              atom("facing", "character", "computer")))),
    # Appendix C.3: a state proposition and an action proposition
    ("ontop(book1, chair1)", atom("ontop", "book1", "chair1")),
    ("touch(cat)", atom("touch", "cat")),
    ("on(x, y)", atom("on", "x", "y")),
    # Appendix D.1: state, relation and action goals
    ("facing(cat)", atom("facing", "cat")),
    ("next_to(character, cat)", atom("next_to", "character", "cat")),
    ("switched_on(television)", atom("switched_on", "television")),
    # Appendix L.1, Figure 54 (VirtualHome "Watch TV"): object names with ids, upper-case names
    ("(exists x0. ((LOOKAT(x0) or WATCH(x0))) then (ON(television.410) and PLUGGED_IN(television.410) and "
     "FACING(character.65, television.410)))",
     LtlThen((exists("x0", LtlOr((atom("lookat", "x0"), atom("watch", "x0")))),
              LtlAnd((atom("on", "television.410"), atom("plugged_in", "television.410"),
                      atom("facing", "character.65", "television.410")))))),
    # Figure 55 (BEHAVIOR "cleaning high chair")
    ("not dusty(highchair.0)", LtlNot(atom("dusty", "highchair.0"))),
    # Figure 51's goal states, in the grammar's quantifier syntax
    ("forall jar_n_01. (not open(jar_n_01))", forall("jar_n_01", LtlNot(atom("open", "jar_n_01")))),
    ("sliced(strawberry.0)", atom("sliced", "strawberry.0")),
    # the counting quantifier as the reference implementation writes it (docs/metrics.md), both spellings
    ("forn 2. x. (holding(x))", forn(2, "x", atom("holding", "x"))),
    ("forn 2 x. (holding(x))", forn(2, "x", atom("holding", "x"))),
    ("forn 2. jar_n_01. (not open(jar_n_01))", forn(2, "jar_n_01", LtlNot(atom("open", "jar_n_01")))),
]


@pytest.mark.parametrize(("text", "expected"), PAPER_FORMULAS, ids=[t[:40] for t, _ in PAPER_FORMULAS])
def test_paper_formulas_parse_to_the_intended_tree(text: str, expected: LtlFormula) -> None:
    assert tree(text) == expected


PRECEDENCE = [
    # () > quantifiers > not > and > or > implies > then
    ("not p() and q()", LtlAnd((LtlNot(P), Q))),
    ("p() and q() or r()", LtlOr((LtlAnd((P, Q)), R))),
    ("p() or q() and r()", LtlOr((P, LtlAnd((Q, R))))),
    ("p() or q() then r()", LtlThen((LtlOr((P, Q)), R))),
    ("p() then q() or r()", LtlThen((P, LtlOr((Q, R))))),
    ("p() and (q() or r())", LtlAnd((P, LtlOr((Q, R))))),
    ("not (p() and q())", LtlNot(LtlAnd((P, Q)))),
    ("not not p()", LtlNot(LtlNot(P))),
    ("forall x. (p(x)) and q()", LtlAnd((forall("x", atom("p", "x")), Q))),
    ("not forall x. (p(x)) or q()", LtlOr((LtlNot(forall("x", atom("p", "x"))), Q))),
    ("p() or q() implies r() then s()", LtlThen((LtlImplies(LtlOr((P, Q)), R), S))),
    ("p() => q() and r()", LtlImplies(P, LtlAnd((Q, R)))),
    # associativity: n-ary and / or / then; implication to the right
    ("p() and q() and r()", LtlAnd((P, Q, R))),
    ("p() or q() or r()", LtlOr((P, Q, R))),
    ("p() then q() then r()", LtlThen((P, Q, R))),
    ("(p() then q()) then r()", LtlThen((LtlThen((P, Q)), R))),
    ("p() implies q() => r()", LtlImplies(P, LtlImplies(Q, R))),
    ("(p() implies q()) implies r()", LtlImplies(LtlImplies(P, Q), R)),
    # quantifier bodies are parenthesised statements: a whole `then` fits inside
    ("exists x. (p(x) then q(x))", exists("x", LtlThen((atom("p", "x"), atom("q", "x"))))),
    # extensions: `-` in names, comments
    ("pick-up(block-1) ; a comment\n then on-table(block-1)",
     LtlThen((atom("pick-up", "block-1"), atom("on-table", "block-1")))),
    # a keyword where only a name can stand is a name; PDDL names may start with a digit
    ("on(then, or)", atom("on", "then", "or")),
    ("at(3, room-1)", atom("at", "3", "room-1")),
]


@pytest.mark.parametrize(("text", "expected"), PRECEDENCE, ids=[t for t, _ in PRECEDENCE])
def test_precedence_and_associativity(text: str, expected: LtlFormula) -> None:
    assert tree(text) == expected


def test_forn_count_is_an_integer() -> None:
    parsed = tree("forn 02. x. (p(x))")
    assert isinstance(parsed, LtlQuantified) and parsed.count == 2


def test_spans_cover_the_written_text() -> None:
    text = "not (on(a, b) and clear(a)) then stack(a, b)"
    parsed = tree(text)
    assert isinstance(parsed, LtlThen)
    first, second = parsed.stages
    assert text[first.span.start:first.span.end] == "not (on(a, b) and clear(a))"
    assert text[second.span.start:second.span.end] == "stack(a, b)"
    assert isinstance(second, LtlAtom)
    assert text[second.name.span.start:second.name.span.end] == "stack"
    assert [text[a.span.start:a.span.end] for a in second.args] == ["a", "b"]


ERRORS = [
    # (text, exact flagged text, message fragment, recovered formula or None)
    ("forall x (p(x))", "(", "expected `.`", "forall x. (p(x))"),
    ("on(a b)", "b", "expected `)`, `,`", "on(a, b)"),
    ("p(a) and and q(b)", "and", "Unexpected `and`", "p(a) and q(b)"),
    ("handempty and on(a, b)", "and", "`handempty()`", "handempty() and on(a, b)"),
    ("p(a) AND q(b)", "AND", "Keywords are lower-case: write `and`", "p(a) and q(b)"),
    ("forall(x, p(x))", "(", "`forall x. (body)`", None),
    ("p(a) then", "", "ends too early", None),
]


@pytest.mark.parametrize(("text", "flagged", "fragment", "recovered"), ERRORS, ids=[e[0] for e in ERRORS])
def test_syntax_errors_have_exact_ranges_and_recover(text: str, flagged: str, fragment: str,
                                                     recovered: str | None) -> None:
    parsed = parse_ltl(text)
    first = parsed.diagnostics[0]
    assert first.code == "syntax-error"
    assert text[first.span.start:first.span.end] == flagged
    assert fragment in first.message
    if recovered is not None:
        assert parsed.formula is not None and format_ltl(parsed.formula) == recovered


def test_unclosed_parenthesis_is_closed_at_the_end_and_reported_once() -> None:
    parsed = parse_ltl("forall x. (p(x) and q(x)")
    assert [d.message for d in parsed.diagnostics] == [
        "The file ends too early: expected `)`, `and`, `implies`, `or`, `then`."]
    assert parsed.formula == forall("x", LtlAnd((atom("p", "x"), atom("q", "x"))))


def test_empty_file_and_invalid_characters() -> None:
    assert [d.code for d in parse_ltl("; only a comment\n").diagnostics] == ["empty-file"]
    parsed = parse_ltl("on(a, b) & clear(a)")
    codes = [d.code for d in parsed.diagnostics]
    assert codes[0] == "invalid-character"
    assert parsed.diagnostics[0].span == (9, 10)


# --- properties --------------------------------------------------------------------------------

NAMES = st.sampled_from(["a", "b", "on-table", "x", "block.1", "p_q"])


def formulas() -> st.SearchStrategy[LtlFormula]:
    atoms = st.builds(lambda n, args: LtlAtom(name(n), tuple(name(a) for a in args)),
                      NAMES, st.lists(NAMES, max_size=3))
    return ltl_formulas(atoms, NAMES, max_count=12, max_leaves=8)


@settings(max_examples=400, deadline=None)
@given(formulas())
def test_printing_then_parsing_gives_the_same_tree(formula: LtlFormula) -> None:
    assert tree(format_ltl(formula)) == formula


PIECES = ["p(a)", "on(a, b)", "(", ")", ",", ".", "and", "or", "not", "then", "implies", "=>", "forall",
          "exists", "forn", "2", "x", "AND", ";c\n", "&", "?", "p", "a.1", " "]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=25).map(" ".join) | st.text(max_size=60))
def test_any_text_gives_diagnostics_never_an_exception(text: str) -> None:
    parsed = parse_ltl(text)
    for diagnostic in parsed.diagnostics:
        assert 0 <= diagnostic.span.start <= diagnostic.span.end <= len(text)
    if parsed.formula is not None and not parsed.diagnostics:
        assert tree(format_ltl(parsed.formula)) == parsed.formula

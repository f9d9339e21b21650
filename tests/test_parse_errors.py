"""Syntax errors are each reported once, on the token at fault, and never hide the rest of the file.

Every test plants mistakes a person (or an LLM) makes, then checks the exact diagnostics — code,
range, and the part of the message that tells the user what to do — and that the model recovered
around them still holds what the file says elsewhere.
"""

from __future__ import annotations

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.pddl import Action, And, Atom, Domain, Name, Not, Problem
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan


def at(text: str, snippet: str, offset: int = 0, length: int = 1) -> Span:
    """The span of ``length`` characters at ``offset`` into the only occurrence of ``snippet``."""
    assert text.count(snippet) == 1, snippet
    start = text.index(snippet) + offset
    return Span(start, start + length)


def atom(predicate: str, *args: str) -> Atom:
    return Atom(Name(predicate), tuple(Name(a) for a in args))


def action(domain: Domain, name: str) -> Action:
    return next(a for a in domain.actions if a.name.key == name)


THREE_MISTAKES = """\
(define (domain blocks)
  (:requirements :strips)
  (:predicates (on ?x ?y) (clear ?x) (holding ?x) (handempty))
  (:action pick-up
    :parameters (?x)
    :precondition (and (clear ?x) (handempty)
    :effect (and (holding ?x) (not (clear ?x)) (not (handempty))))
  (:action put-down
    :parameters (?x)
    :precondtion (holding ?x)
    :effect (and (clear ?x) (handempty) (not (holding ?x))))
  (:action stack
    :parameters (?x ?y)
    :precondition (and (holding ?x) (clear ?y))
    :effect (and (on ?x ?y) (clear ?x) (handempty) (not (holding ?x)) (not (clear ?y)) 5))
  (:action unstack
    :parameters (?x ?y)
    :precondition (and (on ?x ?y) (clear ?x) (handempty))
    :effect (and (holding ?x) (clear ?y) (not (on ?x ?y)) (not (clear ?x)) (not (handempty)))))
"""


def test_a_missing_paren_does_not_hide_the_other_errors() -> None:
    text = THREE_MISTAKES
    parsed = parse_pddl(text)
    assert [(d.code, d.span) for d in parsed.diagnostics] == [
        ("unclosed-paren", at(text, "(and (clear ?x) (handempty)\n")),
        ("syntax-error", at(text, ":precondtion", length=len(":precondtion"))),
        ("syntax-error", at(text, " 5))", offset=1)),
    ]
    unclosed, misspelled, stray = (d.message for d in parsed.diagnostics)
    assert "`(and` on line 6 is not closed: add `)` before `:effect`" in unclosed
    assert misspelled.endswith("Did you mean `:precondition`?")
    assert stray == "Unexpected `5`: expected `(`, `)`."
    domain = parsed.model
    assert isinstance(domain, Domain)
    assert [a.name.key for a in domain.actions] == ["pick-up", "put-down", "stack", "unstack"]
    assert action(domain, "pick-up").precondition == And((atom("clear", "?x"), atom("handempty")))
    assert [s.key for s in action(domain, "put-down").sections] == [":parameters", ":effect"]
    stack = action(domain, "stack")
    assert isinstance(stack.effect, And) and len(stack.effect.args) == 5  # only the `5` was dropped
    assert action(domain, "unstack").effect == And((
        atom("holding", "?x"), atom("clear", "?y"), Not(atom("on", "?x", "?y")), Not(atom("clear", "?x")),
        Not(atom("handempty")),
    ))


def test_misspelled_section_keyword_gets_a_suggestion() -> None:
    text = "(define (domain d)\n  (:predicates (p))\n  (:action a\n    :parameters ()\n" \
           "    :efect (p)))\n"
    parsed = parse_pddl(text)
    assert [(d.code, d.span) for d in parsed.diagnostics] == [("syntax-error", at(text, ":efect", length=6))]
    assert parsed.diagnostics[0].message.endswith("Did you mean `:effect`?")
    assert isinstance(parsed.model, Domain) and parsed.model.actions[0].name.key == "a"


def test_an_extra_paren_that_ends_an_action_early_is_the_one_reported() -> None:
    text = "(define (domain d)\n  (:predicates (p) (q))\n  (:action a\n    :parameters ()\n" \
           "    :precondition (p))\n    :effect (q))\n  (:action b :parameters () :effect (p)))\n"
    parsed = parse_pddl(text)
    assert [(d.code, d.span) for d in parsed.diagnostics] == [
        ("unexpected-close-paren", at(text, "(p))\n", offset=3)),
    ]
    assert "closes `(:action` on line 3 but `:effect` after it belongs to that action" in (
        parsed.diagnostics[0].message
    )
    domain = parsed.model
    assert isinstance(domain, Domain)
    assert [(a.name.key, a.precondition, a.effect) for a in domain.actions] == [
        ("a", atom("p"), atom("q")), ("b", None, atom("p")),
    ]


def test_an_extra_paren_that_ends_init_early_keeps_the_facts_after_it() -> None:
    text = "(define (problem p) (:domain d) (:objects a b)\n  (:init (p a)) (q b))\n  (:goal (p b)))\n"
    parsed = parse_pddl(text)
    assert [(d.code, d.span) for d in parsed.diagnostics] == [
        ("unexpected-close-paren", at(text, "(p a))", offset=5)),
    ]
    assert isinstance(parsed.model, Problem)
    assert parsed.model.init == (atom("p", "a"), atom("q", "b"))
    assert parsed.model.goal == atom("p", "b")


def test_an_extra_paren_at_the_end_closes_nothing() -> None:
    text = "(define (domain d) (:predicates (p)) (:action a :parameters () :effect (p))))\n"
    parsed = parse_pddl(text)
    assert [(d.code, d.span, d.message) for d in parsed.diagnostics] == [
        ("unexpected-close-paren", Span(len(text) - 2, len(text) - 1), "This `)` closes nothing: remove it."),
    ]
    assert isinstance(parsed.model, Domain) and parsed.model.actions[0].effect == atom("p")


def test_a_missing_paren_before_the_next_section_keeps_both_sections() -> None:
    text = "(define (problem p) (:domain d) (:objects a b)\n  (:init (p a) (q b)\n  (:goal (p b)))\n"
    parsed = parse_pddl(text)
    assert [(d.code, d.span) for d in parsed.diagnostics] == [("unclosed-paren", at(text, "(:init"))]
    assert "add `)` before `(:goal`" in parsed.diagnostics[0].message
    assert isinstance(parsed.model, Problem)
    assert parsed.model.init == (atom("p", "a"), atom("q", "b"))
    assert parsed.model.goal == atom("p", "b")


def test_an_unclosed_file_keeps_what_was_written() -> None:
    text = "(define (domain d)\n  (:predicates (p) (q))\n  (:action a\n    :parameters ()\n" \
           "    :effect (and (p) (q)"
    parsed = parse_pddl(text)
    assert [(d.code, d.span) for d in parsed.diagnostics] == [
        ("unclosed-paren", Span(0, 1)),
        ("unclosed-paren", at(text, "(:action")),
        ("unclosed-paren", at(text, "(and")),
    ]
    message = parsed.diagnostics[0].message
    assert "`(define` on line 1 is not closed: add `)` at the end of the file" in message
    assert isinstance(parsed.model, Domain)
    assert parsed.model.actions[0].effect == And((atom("p"), atom("q")))


def test_an_unclosed_problem_keeps_its_facts() -> None:
    text = "(define (problem p) (:domain d) (:objects a b) (:init (p a) (q b) (r"
    parsed = parse_pddl(text)
    assert {d.code for d in parsed.diagnostics} == {"unclosed-paren"}
    assert isinstance(parsed.model, Problem)
    assert parsed.model.init[:2] == (atom("p", "a"), atom("q", "b"))


def test_empty_and_comment_only_files() -> None:
    for text in ("", "   \n\t\n", "; just a comment\n; and another ü\n"):
        parsed = parse_pddl(text)
        assert parsed.model is None
        assert [(d.code, d.span) for d in parsed.diagnostics] == [("empty-file", Span(0, len(text)))]
        assert "(define (domain NAME)" in parsed.diagnostics[0].message


def test_garbage_bytes_are_reported_once_per_run() -> None:
    garbage = bytes(range(0, 256, 7)).decode("utf-8", errors="replace")
    parsed = parse_pddl(garbage)
    assert parsed.model is None
    for diagnostic in parsed.diagnostics:
        assert 0 <= diagnostic.span.start <= diagnostic.span.end <= len(garbage)
    invalid = [d for d in parsed.diagnostics if d.code == "invalid-character"]
    assert invalid
    assert "empty-file" not in {d.code for d in parsed.diagnostics}  # the file is not empty, it is garbage
    # adjacent invalid characters share one diagnostic; control characters are named, not printed raw
    control = next(d for d in invalid if garbage[d.span.start] == "\x00")
    assert "U+0000" in control.message


def test_a_binary_file_gets_a_bounded_number_of_diagnostics() -> None:
    binary = "\x00 " * 5000
    invalid = [d for d in parse_pddl(binary).diagnostics if d.code == "invalid-character"]
    assert len(invalid) == 101
    assert "5000" not in invalid[-1].message and "4900 more runs" in invalid[-1].message


def test_stray_characters_inside_a_domain_do_not_stop_it() -> None:
    text = "(define (domain d) \x00(:predicates (p) €(q))\n" \
           " (:action a :parameters () :effect (and (p) (q) @)))"
    parsed = parse_pddl(text)
    assert [(d.code, d.span) for d in parsed.diagnostics] == [
        ("invalid-character", at(text, "\x00")),
        ("invalid-character", at(text, "€")),
        ("invalid-character", at(text, "@")),
    ]
    assert "`€` cannot appear in PDDL" in parsed.diagnostics[1].message
    assert isinstance(parsed.model, Domain)
    assert [p.name.key for p in parsed.model.predicates] == ["p", "q"]
    assert parsed.model.actions[0].effect == And((atom("p"), atom("q")))


def test_text_outside_define_is_an_error_on_that_text() -> None:
    text = "(hello world)"
    parsed = parse_pddl(text)
    assert parsed.model is None
    assert [(d.code, d.span, d.message) for d in parsed.diagnostics] == [
        ("syntax-error", Span(1, 6), "Unexpected `hello`: expected `define`."),
    ]


def test_a_broken_plan_line_keeps_the_other_steps() -> None:
    text = "(move a b)\n(move b c\n(pick x)\n3 (drop x)\n(stack a b))\n(put ? a)\n(finish)\n"
    parsed = parse_plan(text)
    assert [(d.code, d.span) for d in parsed.diagnostics] == [
        ("unclosed-paren", at(text, "(move b c")),
        ("syntax-error", at(text, "(drop")),
        ("unexpected-close-paren", at(text, "b))", offset=2)),
        ("invalid-character", at(text, "?")),
    ]
    assert parsed.diagnostics[1].message == "Unexpected `(`: expected `:`."
    assert parsed.plan is not None
    assert [(s.action.key, [a.key for a in s.args]) for s in parsed.plan.steps] == [
        ("move", ["a", "b"]), ("move", ["b", "c"]), ("pick", ["x"]), ("drop", ["x"]), ("stack", ["a", "b"]),
        ("put", ["a"]), ("finish", []),
    ]


def test_several_broken_plan_lines_each_lose_only_themselves() -> None:
    text = "(a)\n3 (b x)\n(c)\n4 (d y\n(e)\n"
    parsed = parse_plan(text)
    assert [(d.code, d.span) for d in parsed.diagnostics] == [
        ("syntax-error", at(text, "(b x")),
        ("unclosed-paren", at(text, "(d y")),
        ("syntax-error", at(text, "(d y")),
    ]
    assert parsed.plan is not None
    assert [(s.action.key, [a.key for a in s.args]) for s in parsed.plan.steps] == [
        ("a", []), ("b", ["x"]), ("c", []), ("d", ["y"]), ("e", []),
    ]


def test_a_flood_of_unclosed_or_stray_parens_is_summed_up() -> None:
    opens = parse_pddl("(" * 5000).diagnostics
    unclosed = [d for d in opens if d.code == "unclosed-paren"]
    assert len(unclosed) == 51
    assert unclosed[-1].message.startswith("4950 more `(` are not closed")
    closes = parse_pddl("(define (domain d))" + ")" * 5000).diagnostics
    strays = [d for d in closes if d.code == "unexpected-close-paren"]
    assert len(strays) == 51 and strays[-1].message.startswith("4950 more `)` close nothing")


def test_a_flood_of_broken_plan_lines_is_summed_up() -> None:
    text = ")" * 500 + "\n(move a b)\n"
    parsed = parse_plan(text)
    strays = [d for d in parsed.diagnostics if d.code == "unexpected-close-paren"]
    assert len(strays) == 101 and strays[-1].message.startswith("400 more `unexpected-close-paren`")
    assert parsed.plan is not None and [s.action.key for s in parsed.plan.steps] == ["move"]

"""Extraction mode (docs/llm-output.md): the plan or problem taken out of a model's answer, and what was
removed, reported with offsets into the original text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from plansight.analyses.plans.metrics import actions_of
from plansight.analyses.plans.simulate import simulate, unparsed_lines
from plansight.analyses.syntax.extraction import extract
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import parse_plan
from plansight.analyses.workspace.lint import Analyzer
from plansight.analyses.workspace.sources import MemorySource

DOMAIN = """(define (domain blocksworld)
  (:requirements :strips)
  (:predicates (clear ?x) (on-table ?x) (handempty) (holding ?x) (on ?x ?y))
  (:action pick-up :parameters (?x)
    :precondition (and (clear ?x) (on-table ?x) (handempty))
    :effect (and (not (on-table ?x)) (not (clear ?x)) (not (handempty)) (holding ?x)))
  (:action put-down :parameters (?x)
    :precondition (holding ?x)
    :effect (and (not (holding ?x)) (clear ?x) (handempty) (on-table ?x)))
  (:action stack :parameters (?x ?y)
    :precondition (and (holding ?x) (clear ?y))
    :effect (and (not (holding ?x)) (not (clear ?y)) (clear ?x) (handempty) (on ?x ?y)))
  (:action unstack :parameters (?x ?y)
    :precondition (and (on ?x ?y) (clear ?x) (handempty))
    :effect (and (holding ?x) (clear ?y) (not (clear ?x)) (not (handempty)) (not (on ?x ?y)))))
"""
PROBLEM = """(define (problem sussman)
  (:domain blocksworld)
  (:objects a b c)
  (:init (on c a) (on-table a) (on-table b) (clear c) (clear b) (handempty))
  (:goal (and (on a b) (on b c))))"""
PLAN = ["(unstack c a)", "(put-down c)", "(pick-up b)", "(stack b c)", "(pick-up a)", "(stack a b)"]


def removed(text: str, kind: str = "plan") -> list[tuple[str, str]]:
    extraction = extract(text, kind)  # type: ignore[arg-type]
    return [(text[r.span.start:r.span.end], r.reason) for r in extraction.removed]


def test_offsets_and_line_breaks_are_the_originals() -> None:
    text = "Here you go:\n```\n1. **(pick-up a)**\n```\nDone."
    extraction = extract(text, "plan")
    assert len(extraction.text) == len(text)
    assert extraction.text.count("\n") == text.count("\n")
    step = parse_plan(extraction.text).plan.steps[0]  # type: ignore[union-attr]
    assert text[step.span.start:step.span.end] == "(pick-up a)"
    assert extraction.compact() == "(pick-up a)"


def test_each_decoration_is_reported_with_its_reason() -> None:
    text = ("1. **(unstack c a)**\nStep 2: (put-down c) - c goes to the table\n- (3. pick-up b)\n"
            "* `(stack b c)`")
    assert removed(text) == [
        ("1. **", "list numbering"), ("**", "Markdown emphasis"), ("Step 2:", "list numbering"),
        ("- c goes to the table", "prose around the action"), ("-", "list numbering"),
        ("3.", "list numbering"), ("* `", "list numbering"), ("`", "Markdown emphasis"),
    ]
    assert extract(text, "plan").compact().splitlines() == PLAN[:4]


def test_prose_lines_go_only_when_the_answer_is_not_delimited() -> None:
    assert removed("The plan is:\n(pick-up a)") == [("The plan is:", "prose (no action on this line)")]
    # inside a fence or [PLAN] markers a line that is not an action is part of the answer: it stays and fails
    fenced = extract("```\n(pick-up a)\npick up the blue block\n```", "plan")
    assert "pick up the blue block" in fenced.text


def test_planbench_markers_keep_what_lies_between() -> None:
    text = "; @problem p.pddl\n[PLAN]\n(pick-up a)\n(stack a b)\n[PLAN END]\n[STATEMENT]\n(on a b) holds"
    extraction = extract(text, "plan")
    assert extraction.compact().splitlines() == ["; @problem p.pddl", "(pick-up a)", "(stack a b)"]
    reasons = [r.reason for r in extraction.removed]
    assert reasons == ["[PLAN] marker", "[PLAN END] marker", "after [PLAN END]"]


def test_timestamps_and_durations_of_temporal_plans_are_kept() -> None:
    text = "1. 0.000: (drive r a b) [2.000]\n2. 2.001: (sample r b) [1.0]"
    assert extract(text, "plan").compact() == "0.000: (drive r a b) [2.000]\n2.001: (sample r b) [1.0]"


def test_the_problem_is_taken_out_of_prose_and_a_pddl_fence() -> None:
    text = f"Here is the problem:\n\n```pddl\n{PROBLEM}\n```\n\nIt has (three) blocks."
    assert removed(text, "problem") == [
        ("Here is the problem:", "prose before the definition"), ("```pddl", "Markdown fence"),
        ("```", "Markdown fence"), ("It has (three) blocks.", "after the definition"),
    ]
    assert parse_pddl(extract(text, "problem").text).model == parse_pddl(PROBLEM).model


def test_the_problem_is_preferred_over_a_domain_in_the_same_answer() -> None:
    text = f"Domain:\n{DOMAIN}\nProblem:\n{PROBLEM}\n"
    assert parse_pddl(extract(text, "problem").text).model == parse_pddl(PROBLEM).model


def test_a_truncated_definition_runs_to_the_end() -> None:
    text = "Sure:\n" + PROBLEM[:-3]
    assert extract(text, "problem").text.strip() == PROBLEM[:-3]


# --- properties ------------------------------------------------------------------------------------------

PROSE = st.text(alphabet="abcdefghij klmnop,.!?:'", min_size=1, max_size=40).filter(
    lambda s: s.strip() and not s.strip()[0].isdigit() and ":" not in s[:6])
NUMBERING = st.sampled_from(["", "1. ", "2) ", "- ", "* ", "Step 3: ", "**4.** ", "+ "])
EMPHASIS = st.sampled_from(["", "**", "`", "*"])
FENCE = st.sampled_from([None, "```", "```pddl", "~~~"])


@st.composite
def wrapped_plans(draw: st.DrawFn) -> str:
    lines = []
    for step in PLAN:
        mark = draw(EMPHASIS)
        inner = draw(st.sampled_from(["", "1. ", "Step 2: "]))
        lines.append(f"{draw(NUMBERING)}{mark}({inner}{step[1:]}{mark}")
    fence = draw(FENCE)
    body = "\n".join(lines)
    if fence is not None:
        body = f"{fence}\n{body}\n{fence[:3]}"
    return f"{draw(PROSE)}\n\n{body}\n\n{draw(PROSE)}"


@settings(max_examples=60, deadline=None)
@given(wrapped_plans())
def test_extracting_a_wrapped_plan_gives_back_its_steps(text: str) -> None:
    parsed = parse_plan(extract(text, "plan").text)
    assert parsed.diagnostics == ()
    assert parsed.plan is not None
    assert [f"({' '.join(a)})" for a in actions_of(parsed.plan)] == PLAN


@settings(max_examples=40, deadline=None)
@given(st.lists(PROSE, max_size=3), FENCE, st.lists(PROSE, max_size=3))
def test_extracting_a_wrapped_problem_gives_back_the_same_model(
    before: list[str], fence: str | None, after: list[str]
) -> None:
    body = PROBLEM if fence is None else f"{fence}\n{PROBLEM}\n{fence[:3]}"
    text = "\n".join([*before, body, *after])
    extraction = extract(text, "problem")
    assert extraction.text.strip() == PROBLEM
    assert parse_pddl(extraction.text).model == parse_pddl(PROBLEM).model


MESSY_LINES = st.sampled_from([
    "(1. pick-up b)", "**(stack b c)**", "[PLAN]", "[PLAN END]", "```", "(pick-up a", "put down c",
    "(stack a b))", "- (put-down c)", "0.5: (pick-up b)", "; a comment", "", "(unstack c a) !",
])
DECORATIONS = st.sampled_from(["(1. {}", "**({}**", "({}", "- ({})", "({}) !", "`({})`", "({}))"])


@st.composite
def messy_plans(draw: st.DrawFn) -> str:
    """Sussman's valid plan with some lines decorated, and messy lines inserted anywhere."""
    lines = [draw(DECORATIONS).format(step[1:-1]) if draw(st.booleans()) else step for step in PLAN]
    for _ in range(draw(st.integers(0, 3))):
        lines.insert(draw(st.integers(0, len(lines))), draw(MESSY_LINES))
    return "\n".join(lines) + "\n"


@settings(max_examples=80, deadline=None)
@given(messy_plans())
def test_strict_mode_never_says_valid_for_a_text_lint_rejects(text: str) -> None:
    analyzer = Analyzer(MemorySource({"/d/domain.pddl": DOMAIN, "/d/p.pddl": PROBLEM, "/d/p.plan": text}))
    result = analyzer.lint("/d/p.plan")
    parsed = parse_plan(text)
    assert parsed.plan is not None
    simulation = simulate(parse_pddl(DOMAIN).model, parse_pddl(PROBLEM).model,  # type: ignore[arg-type]
                          unparsed_lines(text, parsed.plan, parsed.diagnostics))
    rejected = any(d.severity.value == "error" for d in result.diagnostics)
    assert simulation.valid is not True or not rejected

"""The shortcuts that make `plansight plan` fast on a batch of plans must not change a single answer.

Plan lines of the usual shapes skip the LALR driver (analyses/syntax/parse_plan.py): the result must be
exactly the grammar's (the same steps, names, numbers and spans, the same diagnostics) for well-formed
lines and for every near miss that has to fall back to the grammar. Plans of one batch that share their
domain and problem share one world (analyses/plans/plan_work.py): the reports must be those of plans
simulated each in a world of its own."""

from __future__ import annotations

import random

import pytest
from corpus import EXAMPLES, FIXTURES
from hypothesis import given, settings
from hypothesis import strategies as st

from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.plans import plan_work
from plansight.analyses.plans.plan_json import PlanJob, PlanOptions, plan_json
from plansight.analyses.semantics.world import World
from plansight.analyses.syntax import parse_plan as module
from plansight.analyses.syntax.parse_pddl import parse_pddl
from plansight.analyses.syntax.parse_plan import PlanParse, parse_plan

PIECES = ["(", ")", "[", "]", ":", " ", "\n", "\r\n", "; c\n", "0.5", "3", "1.", ".25", "pick-up", "a", "b",
          "x_1", "**", "1.", "-", "#", "?v", "(nested (x))"]


def _without_fast_path(text: str, monkeypatch: pytest.MonkeyPatch) -> PlanParse:
    with monkeypatch.context() as patch:
        patch.setattr(module, "_well_formed_step", lambda group: None)
        return parse_plan(text)


def _shape(parsed: PlanParse) -> object:
    assert parsed.plan is not None
    steps = [(s, s.span, s.action.span, tuple(a.span for a in s.args)) for s in parsed.plan.steps]
    diagnostics = [(d.code, d.span, d.message) for d in parsed.diagnostics]
    return steps, parsed.plan.cost, parsed.plan.span, diagnostics


def _texts() -> list[str]:
    plans = sorted(EXAMPLES.rglob("*.plan")) + sorted(FIXTURES.rglob("*.plan"))
    texts = [p.read_text(errors="replace") for p in plans]
    rng = random.Random(7)
    for _ in range(300):
        texts.append("".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 30))))
    texts += ["0.000: (light) [1.000]\n", "(a)\n", "(a b) [2]\n", "1: (a b)\n", "1 (a b)\n", "(a 1)\n",
              "0.5: (a b) [x]\n", "(a b)[2]; c\n", ": (a)\n", "(a b) [2] [3]\n", "[1] (a)\n"]
    return texts


def test_the_fast_path_parses_as_the_grammar_does(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _texts()
    assert len(texts) > 300
    for text in texts:
        assert _shape(parse_plan(text)) == _shape(_without_fast_path(text, monkeypatch)), repr(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_any_arrangement_of_plan_tokens(pieces: list[str]) -> None:
    text = "".join(pieces)
    with pytest.MonkeyPatch.context() as patch:
        assert _shape(parse_plan(text)) == _shape(_without_fast_path(text, patch)), repr(text)


def _jobs(domain: Domain, problem: Problem, plans: list[str]) -> list[tuple[int, PlanJob]]:
    jobs = []
    for index, text in enumerate(plans):
        parsed = parse_plan(text).plan
        assert parsed is not None
        job = PlanJob(f"p{index}.plan", domain=domain, problem=problem, steps=list(parsed.steps))
        jobs.append((index, job))
    return jobs


def test_plans_sharing_a_problem_share_one_world(monkeypatch: pytest.MonkeyPatch) -> None:
    folder = EXAMPLES / "blocksworld"
    domain = parse_pddl((folder / "domain.pddl").read_text()).model
    problem = parse_pddl((folder / "p01.pddl").read_text()).model
    assert isinstance(domain, Domain) and isinstance(problem, Problem)
    valid = (folder / "p01.plan").read_text()
    plans = [valid, "(pick-up a)\n", valid, "(unstack c a)\n(put-down c)\n", valid]
    alone = [plan_json(plan_work.simulate_job(job), PlanOptions())
             for _, job in _jobs(domain, problem, plans)]
    built: list[int] = []
    real_build = World.build

    def counting(domain: Domain, problem: Problem) -> World:
        built.append(1)
        return real_build(domain, problem)

    monkeypatch.setattr(World, "build", counting)
    shared = [report for _, (_, report) in plan_work.plan_chunk("plan", {"options": PlanOptions()},
                                                                _jobs(domain, problem, plans))]
    assert len(built) == 1
    assert shared == alone
    assert [r["valid"] for r in shared] == [True, False, True, False, True]

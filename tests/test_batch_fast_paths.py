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
          "x_1", "**", "1.", "-", "#", "?v", "(nested (x))", "\t", "Ab", "; cost = 3\n", "\r"]


def _without_fast_path(text: str, monkeypatch: pytest.MonkeyPatch) -> PlanParse:
    with monkeypatch.context() as patch:
        patch.setattr(module, "_well_formed_step", lambda group: None)
        patch.setattr(module, "read_plain_plan", lambda text: None)
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
    texts += PLAIN + NEAR_PLAIN
    return texts


PLAIN = ["(pick-up a)\r\n(stack A b)\r\n; cost = 2 (unit cost)\n", "\n\n  ( move  t1 c0\tc1 )  ; first\n\n",
         "0.000: (light) [1.000]\n0.000: (fill p0) [2.000]\n2.010: (heat p0) [3.000]\n; cost = 5.01",
         "1: (a b)\r(c)\r", ".5 :( a ) [ 2. ] ;; cost=7\n(b)", "; cost = 1\n; cost = 4\n(a)\n\n"]
"""Plans the plain reader takes (analyses/syntax/plain_plan.py): spaces, tabs, comments, cost lines, line
breaks of every kind, times and durations."""
NEAR_PLAIN = ["(a) (b)\n", "(a\n b)\n", "(a (b))\n", "(move 1 2)\n", "(_a)\n", "(a b)\x0b\n", "(a b)c\n",
              "((a))\n", "(a))\n", "(a\n", "0.5: (a) [2] x\n", "-1: (a)\n", "(a) [2]:\n",
              "; only a comment\n", "", "(a)\u00a0\n", "(a) ; fine\n[PLAN]\n", "1e3: (a)\n",
              "(a-b_c d-)\n(A)"]
"""Texts one character away from plain: the full reader must read them, as if there were no shortcut."""


def test_the_fast_path_parses_as_the_grammar_does(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _texts()
    assert len(texts) > 300
    for text in texts:
        assert _shape(parse_plan(text)) == _shape(_without_fast_path(text, monkeypatch)), repr(text)


def test_plain_plans_skip_the_tokenizer() -> None:
    """The shortcut is really taken on the plans batches are made of, and only there."""
    assert all(module.read_plain_plan(text) is not None for text in PLAIN)
    taken = [text for text in NEAR_PLAIN if module.read_plain_plan(text) is not None]
    assert taken == ["(a-b_c d-)\n(A)"]


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


BUSY_DOMAIN = """(define (domain busy)
  (:requirements :typing :durative-actions :numeric-fluents :universal-preconditions)
  (:types obj)
  (:predicates (p ?o - obj) (q ?o - obj))
  (:functions (level ?o - obj))
  (:durative-action touch :parameters (?o - obj) :duration (= ?duration 1)
    :condition (at start (p ?o)) :effect (at end (q ?o)))
  (:durative-action clear :parameters (?o - obj) :duration (= ?duration 1)
    :condition (at start (q ?o)) :effect (at start (not (p ?o))))
  (:durative-action mark :parameters (?o - obj) :duration (= ?duration 1)
    :condition (at start (p ?o)) :effect (at start (q ?o)))
  (:durative-action bump :parameters (?o - obj) :duration (= ?duration 1)
    :condition (at start (p ?o)) :effect (at start (increase (level ?o) 1)))
  (:durative-action reset :parameters (?o - obj) :duration (= ?duration 1)
    :condition (at start (p ?o)) :effect (at start (assign (level ?o) 0)))
  (:durative-action read :parameters (?o - obj) :duration (= ?duration 1)
    :condition (at start (>= (level ?o) 0)) :effect (at end (p ?o)))
  (:durative-action restore :parameters (?o - obj) :duration (= ?duration 1)
    :condition (at start (q ?o)) :effect (at start (p ?o)))
  (:durative-action sweep :parameters () :duration (= ?duration 1)
    :condition (at start (forall (?x - obj) (p ?x))) :effect (at end (q o1))))"""
BUSY_PROBLEM = """(define (problem crowd) (:domain busy) (:objects o1 o2 o3 - obj)
  (:init (p o1) (p o2) (p o3) (q o1) (q o2) (q o3) (= (level o1) 0) (= (level o2) 0) (= (level o3) 0))
  (:goal (and (q o1))))"""


def _busy_plans(count: int) -> list[str]:
    """Plans whose snaps all start together: a happening of up to 12 snaps where any pair may interfere
    (reading what another deletes, adding what another deletes, changing a fluent another reads or sets)."""
    rng = random.Random(12)
    actions = ["touch", "clear", "mark", "bump", "reset", "read", "restore"]
    plans = []
    for _ in range(count):
        steps = ["(sweep)" if rng.random() < 0.05 else f"({rng.choice(actions)} o{rng.randrange(1, 4)})"
                 for _ in range(rng.randrange(2, 13))]
        plans.append("".join(f"0.000: {step} [1.000]\n" for step in steps))
    return plans


def test_the_mutex_index_names_the_pair_every_pair_test_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """VAL's mutex rule over a happening's snaps is applied through an index of what each snap reads and
    writes (analyses/plans/temporal.py): it must stop at the very pair that testing every pair in turn
    stops at, with the same message, with and without quantified conditions."""
    from plansight.analyses.plans import temporal

    domain = parse_pddl(BUSY_DOMAIN).model
    problem = parse_pddl(BUSY_PROBLEM).model
    assert isinstance(domain, Domain) and isinstance(problem, Problem)
    plans = _busy_plans(300)
    indexed = [plan_json(plan_work.simulate_job(job), PlanOptions())
               for _, job in _jobs(domain, problem, plans)]

    def every_pair(effects: list, reads: list, fluents: list):  # type: ignore[no-untyped-def]
        count = len(reads)
        return ((i, j) for i in range(count) for j in range(count) if i != j)

    monkeypatch.setattr(temporal, "_interfering", every_pair)
    tested = [plan_json(plan_work.simulate_job(job), PlanOptions())
              for _, job in _jobs(domain, problem, plans)]
    assert indexed == tested
    failures = [r["failure"] for r in indexed if r["failure"] is not None]
    mutexes = [f for f in failures if f["category"] == "mutex"]
    assert len(mutexes) > 100 and any("sweep" in f["message"] for f in mutexes)
    assert any("which (restore" in f["message"] and "adds" in f["message"] for f in mutexes)
    assert any(r["valid"] for r in indexed)

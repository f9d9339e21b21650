"""The lexer reads `(not (atom))` beside plain atoms in one step (the delete effects of grounded domains,
negative literals): the model, its spans and the diagnostics are exactly what the token-by-token parse
gives, on every corpus file, a grounded domain and forms the shortcut must leave alone."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus import corpus_files

from plansight.analyses.model.pddl import Domain, Not
from plansight.analyses.syntax.lexer import FACTS, lex_pddl
from plansight.analyses.syntax.parse_pddl import parse_pddl

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from workloads import grounded_domain

EDGE_CASES = [
    "(define (domain d) (:predicates (p) (q ?x)) (:action a :parameters (?x)"
    " :precondition (and (p) (not (q ?x)))"
    " :effect (and (p) (NOT (p)) (not(p)) (not (and)) (not (p) ) (not ; why\n (p)) (not (at start))"
    " (q a) ; (not (q z))\n (not (q b)) (not (p) (q)) (not (q c)))))",
    "(define (problem x) (:domain d) (:objects a b) (:init (p a) (not (p b)) (not (at a b)) (Not (p a)))"
    " (:goal (and (not (p a)) (not (p b)) (p a) (not (p)) 5)))",
    "(define (problem x) (:domain d) (:init (not (p a) (q))) (:goal (and (not (p a) (not (q b))))))",
    "(define (problem x) (:domain d) (:init (not (p 1)) (not (p ?x)) (not (- a))) (:goal (not (p a))))",
]


def _nodes(node: Any) -> Iterator[Any]:
    """Every model node under ``node`` with a span, depth first (equality ignores spans)."""
    if isinstance(node, tuple):
        for item in node:
            yield from _nodes(item)
    elif hasattr(node, "__dataclass_fields__") and hasattr(node, "span"):
        yield node
        for field in node.__dataclass_fields__:
            yield from _nodes(getattr(node, field))


def _agree(text: str) -> None:
    fast, slow = parse_pddl(text), parse_pddl(text, fast_facts=False)
    assert fast.diagnostics == slow.diagnostics
    assert fast.model == slow.model
    spans = [(type(n).__name__, n.span) for n in _nodes(fast.model)]
    assert spans == [(type(n).__name__, n.span) for n in _nodes(slow.model)]


@pytest.mark.parametrize("text", EDGE_CASES)
def test_negated_facts_read_in_one_step_parse_as_the_tokens_do(text: str) -> None:
    _agree(text)


def test_a_grounded_domain_reads_its_delete_effects_in_one_step() -> None:
    text = grounded_domain(60_000)
    _agree(text)
    facts = [t for t in lex_pddl(text) if t.kind == FACTS]
    assert any(isinstance(f, Not) for t in facts for f in t.value)  # type: ignore[attr-defined]
    model = parse_pddl(text).model
    assert isinstance(model, Domain) and len(model.actions) > 250


DOMAINS = [f for f in corpus_files(include_sdist=False) if "(domain" in f.text().lower()[:400]]


@pytest.mark.parametrize("file", DOMAINS, ids=lambda f: f.id)
def test_corpus_domains_parse_alike_either_way(file: object) -> None:
    _agree(file.text())  # type: ignore[attr-defined]

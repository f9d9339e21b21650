"""Every real PDDL file parses without a false error, and the model survives the printer.

The corpus (see ``corpus.py``): the PDDL files shipped in unified-planning's wheel, the bundled
examples, the Planetarium domains, the construct fixtures, and the ``pddl`` 0.5.1 sdist when it has
been fetched. For each file: zero syntax diagnostics; spans that point at what they name;
parse -> print -> parse gives an equal model and printing is stable; the fast fact scanner of
``:init`` and the general parser give the same model with the same spans.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

import pytest
from corpus import (
    CONSTRUCTS_SOURCE,
    EXAMPLES_SOURCE,
    PDDL_SDIST,
    PDDL_SDIST_SOURCE,
    UNIFIED_PLANNING,
    CorpusFile,
    corpus_files,
    counts,
    plan_files,
)

from plansight.analyses.model import (
    Action,
    And,
    Atom,
    Domain,
    Name,
    Number,
    Plan,
    Problem,
)
from plansight.analyses.parse_pddl import PddlParse, parse_pddl
from plansight.analyses.parse_plan import parse_plan
from plansight.analyses.printer import print_domain, print_plan, print_problem
from plansight.analyses.spans import Span

FILES = corpus_files()
PLANS = plan_files()


@cache
def _parsed(file: CorpusFile) -> tuple[str, PddlParse]:
    text = file.text()
    return text, parse_pddl(text)


def _print(model: Domain | Problem) -> str:
    return print_domain(model) if isinstance(model, Domain) else print_problem(model)


def _nodes(root: Any) -> Iterator[Any]:
    """Every model node under ``root`` (names and numbers included), without recursion."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(node)
            continue
        slots = getattr(type(node), "__slots__", None)
        if slots is None or not hasattr(node, "span"):
            continue
        yield node
        for slot in slots:
            value = getattr(node, slot)
            if isinstance(value, (tuple, Name, Number)) or hasattr(value, "__dataclass_fields__"):
                stack.append(value)


def _span_errors(text: str, model: Domain | Problem | Plan) -> list[str]:
    """Spans that do not cover what they describe: a name's own spelling, a form's parentheses."""
    errors = []
    for node in _nodes(model):
        span: Span = node.span
        if not 0 <= span.start <= span.end <= len(text):
            errors.append(f"{type(node).__name__} span {span} outside the text")
        elif isinstance(node, Name) and node.text and text[span.start : span.end] != node.text:
            errors.append(f"name {node.text!r} at {span} covers {text[span.start : span.end]!r}")
        elif isinstance(node, Number) and node.text and text[span.start : span.end] != node.text:
            errors.append(f"number {node.text!r} at {span} covers {text[span.start : span.end]!r}")
        elif isinstance(node, (Atom, And, Action, Domain, Problem)) and span.end > span.start and (
            text[span.start] != "(" or text[span.end - 1] != ")"
        ):
            errors.append(f"{type(node).__name__} at {span} covers {text[span.start : span.end][:40]!r}")
    return errors[:5]


def test_corpus_has_every_source() -> None:
    """The corpus must not silently shrink: a missing wheel or folder would make every test vacuous."""
    found = counts(FILES)
    assert found.get(UNIFIED_PLANNING, 0) >= 29
    assert found.get(CONSTRUCTS_SOURCE, 0) >= 20
    assert found.get(EXAMPLES_SOURCE, 0) >= 5
    if PDDL_SDIST.is_dir():
        assert found.get(PDDL_SDIST_SOURCE, 0) == 836


@pytest.mark.parametrize("file", FILES, ids=lambda f: f.id)
def test_parses_without_diagnostics(file: CorpusFile) -> None:
    text, parsed = _parsed(file)
    assert [(d.code, d.message, d.span) for d in parsed.diagnostics] == []
    assert isinstance(parsed.model, (Domain, Problem))
    assert _span_errors(text, parsed.model) == []


@pytest.mark.parametrize("file", FILES, ids=lambda f: f.id)
def test_print_then_parse_gives_the_same_model(file: CorpusFile) -> None:
    _, parsed = _parsed(file)
    assert parsed.model is not None
    printed = _print(parsed.model)
    reparsed = parse_pddl(printed)
    assert [(d.code, d.message, printed[d.span.start : d.span.end + 20]) for d in reparsed.diagnostics] == []
    assert reparsed.model == parsed.model
    assert reparsed.model is not None
    assert _print(reparsed.model) == printed, "printing is not stable"
    assert _span_errors(printed, reparsed.model) == []


@pytest.mark.parametrize(
    "file", [f for f in FILES if "(:init" in _parsed(f)[0].lower()], ids=lambda f: f.id
)
def test_fast_fact_scanner_agrees_with_the_parser(file: CorpusFile) -> None:
    text, fast = _parsed(file)
    slow = parse_pddl(text, fast_facts=False)
    assert slow.diagnostics == fast.diagnostics
    assert isinstance(fast.model, Problem) and isinstance(slow.model, Problem)
    assert slow.model == fast.model
    # equality ignores spans; the fast path builds them itself, so compare them too
    assert [[n.span for n in _nodes(f)] for f in fast.model.init] == [
        [n.span for n in _nodes(f)] for f in slow.model.init
    ]


@pytest.mark.parametrize("file", PLANS, ids=lambda f: f.id)
def test_plans_parse_and_print_back(file: CorpusFile) -> None:
    text = file.text()
    parsed = parse_plan(text)
    assert parsed.diagnostics == ()
    assert parsed.plan is not None and parsed.plan.steps
    assert _span_errors(text, parsed.plan) == []
    printed = print_plan(parsed.plan)
    again = parse_plan(printed)
    assert again.diagnostics == ()
    assert again.plan == parsed.plan
    assert print_plan(again.plan) == printed

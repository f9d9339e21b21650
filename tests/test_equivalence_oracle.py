"""The product's equivalence verdicts against the independent brute-force oracle.

Hundreds of random small problems of blocksworld, gripper and floor-tile (Appendix C's rules), and of
two domains no rule covers, so the exact state search decides: a typed gripper (Planetarium's
structure with types) and keys-and-rooms (tests/fixtures/equivalence/: typed, negative
preconditions, an inequality, static facts, goals with negative literals). In both modes, every
verdict must be the oracle's, and none may be "unknown" at these sizes.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from equivalence_generators import load_domain, mutate, random_spec
from equivalence_oracle import equivalent

from plansight.analyses.equivalence.verdict import Reference, compare

PAIRS_PER_DOMAIN = {"keys-and-rooms": 150}
"""Pairs per domain and mode: 60, or more for the domain furthest from the rules (cheap to search)."""
SEARCHED = ("typed-gripper", "keys-and-rooms")
"""Domains no rule of Appendix C recognises: their verdicts come from the exact state search."""


@pytest.mark.parametrize("placeholder", [False, True], ids=["identity", "placeholder"])
@pytest.mark.parametrize("kind", ["blocksworld", "gripper", "floor-tile", "typed-gripper", "keys-and-rooms"])
def test_agrees_with_the_oracle(kind: str, placeholder: bool) -> None:
    rng = random.Random(f"{kind}-{placeholder}")
    domain = load_domain(kind)
    outcomes: Counter[tuple[bool, str]] = Counter()
    for _ in range(PAIRS_PER_DOMAIN.get(kind, 60)):
        spec, states = random_spec(rng, kind)
        candidate = mutate(rng, spec, states)
        reference = Reference(domain, spec.problem())
        verdict = compare(reference, candidate.problem(), placeholder)
        expected = equivalent(domain, spec.problem(), candidate.problem(), placeholder)
        assert verdict.equivalent is expected, (
            f"{kind} placeholder={placeholder}: product says {verdict.equivalent} ({verdict.explanation}, "
            f"{verdict.method}), oracle {expected}\nreference:\n{spec.text()}\ncandidate:\n{candidate.text()}"
        )
        outcomes[(expected, verdict.method.split(" (")[0])] += 1
    # the sample is only meaningful if both answers occur
    assert {e for e, _ in outcomes} == {True, False}, outcomes
    if kind not in SEARCHED:
        assert any(m == "fullySpecify" for _, m in outcomes), outcomes
    else:
        assert any(m.startswith("state search") for _, m in outcomes), outcomes
        assert not any(m.startswith("fullySpecify") for _, m in outcomes), outcomes

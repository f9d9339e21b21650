"""Logic-form F1 between operator definitions (Embodied Agent Interface, Li et al. 2024, Appendix D.4): the
error examples of the paper's transition-modelling figure, scored by hand; the places where plansight departs
from the paper's reference code; and properties on random domains (renaming invariance, F1 = 1 exactly when
the domains are equal up to renaming and order)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from domain_generators import Names, mutate, plain_names, random_shape, renamed_names, write
from hypothesis import given, settings
from hypothesis import strategies as st

from plansight.analyses.domain_equivalence.comparison import compare_domains
from plansight.analyses.domain_equivalence.logic_f1 import Reading, score_section
from plansight.analyses.domain_equivalence.renaming import Kind, Renaming
from plansight.analyses.model.pddl import Domain, Formula
from plansight.analyses.syntax.parse_pddl import parse_pddl

PARAMETERS = "?char ?obj ?obj1 ?obj2 ?room ?scrub_brush"


def formula(text: str) -> Formula | None:
    text = f"(define (domain d) (:action a :parameters ({PARAMETERS}) :precondition {text}))"
    model = parse_pddl(text).model
    assert isinstance(model, Domain)
    return model.actions[0].precondition


def scores(candidate: str, reference: str) -> tuple[float, float, float]:
    """(precision, recall, F1) of a candidate formula against a reference one, same names on both sides."""
    names = {w.strip("()") for w in (candidate + " " + reference).split() if not w.startswith(("?", "("))}
    names |= {w.lstrip("(") for w in (candidate + " " + reference).split() if w.startswith("(")}
    variables = {v: v for v in PARAMETERS.split()}
    reading = Reading(Renaming(predicates={n: n for n in names}), variables)
    score = score_section(formula(candidate), formula(reference), reading)
    return round(score.precision, 4), round(score.recall, 4), round(score.f1, 4)


# The figure "Transition modeling error examples" (Li et al. 2024, Appendix E.4.3): LLM output, ground truth.
@pytest.mark.parametrize(("candidate", "reference", "expected"), [
    pytest.param(  # missing object state: 3 of the 4 reference clauses, nothing extra
        "(and (can_open ?obj) (closed ?obj) (next_to ?char ?obj))",
        "(and (can_open ?obj) (closed ?obj) (next_to ?char ?obj) (not (on ?obj)))",
        (1.0, 0.75, 0.8571), id="open"),
    pytest.param(  # missing non-spatial relation: the `or` of holding is not matched by any literal
        "(and (next_to ?char ?obj2) (next_to ?char ?obj1) (grabbable ?obj1) (movable ?obj1) (movable ?obj2))",
        "(and (next_to ?char ?obj2) (or (holds_lh ?char ?obj1) (holds_rh ?char ?obj1)))",
        (0.2, 0.5, 0.2857), id="put_on"),
    pytest.param(  # missing object affordance: sittable instead of lieable, the `not lying` forgotten
        "(and (next_to ?char ?obj) (sittable ?obj))",
        "(and (lieable ?obj) (next_to ?char ?obj) (not (lying ?char)))",
        (0.5, 0.3333, 0.4), id="lie"),
    pytest.param(  # missing spatial relation: a `not exists` where the reference has a `forall ... when`
        "(and (inside ?char ?room) (not (exists (?cur_room - object) (not (inside ?char ?cur_room)))))",
        "(and (inside ?char ?room) (forall (?far_obj - object) (when (not (not (inside_room ?far_obj ?room)))"
        " (not (next_to ?char ?far_obj)))))",
        (0.5, 0.5, 0.5), id="walk_into"),
    pytest.param(  # object property hallucination: a conjunction where the reference has a disjunction
        "(and (holds_rh ?char ?obj) (wearable ?obj))",
        "(or (holds_lh ?char ?obj) (holds_rh ?char ?obj))",
        (0.0, 0.0, 0.0), id="put_on_character"),
    pytest.param(  # additional object state: one extra delete effect
        "(and (not (stained ?obj)) (not (stained ?scrub_brush)))",
        "(not (stained ?obj))",
        (0.5, 1.0, 0.6667), id="clean_stained_brush"),
    pytest.param(  # additional object orientation: nothing in common
        "(and (obj_nearest ?char ?obj) (not (facing ?char ?obj)))",
        "(and (not (sitting ?char)) (not (lying ?char)))",
        (0.0, 0.0, 0.0), id="walk_towards"),
])
def test_the_papers_error_examples(candidate: str, reference: str,
                                   expected: tuple[float, float, float]) -> None:
    assert scores(candidate, reference) == expected


def test_empty_against_empty_is_a_perfect_match() -> None:
    """The paper: an empty reference clause matches only an empty prediction."""
    assert scores("()", "()") == (1.0, 1.0, 1.0)
    assert scores("(and (holds_rh ?char ?obj))", "()")[2] == 0.0


def test_a_nested_clause_that_matches_in_part_earns_part_credit() -> None:
    """Departure from the reference code, which truncates nested partial scores to 0 (an int matrix): two of
    the three disjuncts right is worth 2·2/(2+3) = 0.8 of a clause, not nothing."""
    assert scores("(or (a ?obj) (b ?obj))", "(or (a ?obj) (b ?obj) (c ?obj))") == (0.8, 0.8, 0.8)


def test_quantified_variables_are_aligned_whatever_their_names() -> None:
    assert scores("(forall (?x ?y - object) (link ?x ?y ?obj))",
                  "(forall (?b ?a - object) (link ?a ?b ?obj))") == (1.0, 1.0, 1.0)
    assert scores("(exists (?x - object) (holds_rh ?char ?x))",
                  "(forall (?x - object) (holds_rh ?char ?x))") == (0.0, 0.0, 0.0)


def test_order_and_repetition_of_conjuncts_do_not_count() -> None:
    assert scores("(and (b ?obj) (a ?obj) (b ?obj))", "(and (a ?obj) (b ?obj))") == (1.0, 1.0, 1.0)


# --- properties on random domains ---------------------------------------------------------------------


def _domain(text: str) -> Domain:
    model = parse_pddl(text).model
    assert isinstance(model, Domain)
    return model


def _inverse_mapping(plain: Names, fresh: Names) -> dict[Kind, dict[str, str]]:
    """The mapping a user would give: each fresh name -> the reference's name."""
    return {
        "types": dict(zip(fresh.types[1:], plain.types[1:], strict=True)),
        "predicates": dict(zip(fresh.predicates, plain.predicates, strict=True)),
        "actions": dict(zip(fresh.actions, plain.actions, strict=True)),
    }


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6))
def test_f1_is_invariant_under_renaming(seed: int) -> None:
    rng = random.Random(seed)
    shape = random_shape(rng)
    reference = _domain(write(shape, plain_names(shape)))
    other = mutate(rng, shape)
    plain = plain_names(other)
    fresh = renamed_names(rng, other)
    as_written = compare_domains(_domain(write(other, plain)), reference)
    renamed = compare_domains(_domain(write(other, fresh)), reference,
                              _inverse_mapping(plain, fresh))
    assert renamed.overall.f1 == pytest.approx(as_written.overall.f1)
    assert renamed.precondition.f1 == pytest.approx(as_written.precondition.f1)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.booleans())
def test_f1_is_one_exactly_when_equal_up_to_renaming_and_order(seed: int, change: bool) -> None:
    rng = random.Random(seed)
    shape = random_shape(rng)
    reference = _domain(write(shape, plain_names(shape)))
    other = mutate(rng, shape) if change else shape
    fresh = renamed_names(rng, other)
    comparison = compare_domains(_domain(write(other, fresh)), reference,
                                 _inverse_mapping(plain_names(other), fresh))
    assert (comparison.overall.f1 == 1.0) is (not change)
    if not change:
        assert comparison.equivalent


ROOT = Path(__file__).resolve().parent.parent
DOMAINS = sorted(p for p in [*ROOT.glob("examples/**/*.pddl"), *ROOT.glob("tests/fixtures/**/*.pddl")]
                 if isinstance(parse_pddl(p.read_text(errors="replace")).model, Domain))


@pytest.mark.parametrize("path", DOMAINS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_bundled_domain_is_equivalent_to_itself_with_f1_one(path: Path) -> None:
    """Quantifiers, conditional effects, durative actions, numeric effects, free variables and PDDL 1.2's
    `:vars` all compare equal to themselves."""
    model = _domain(path.read_text(errors="replace"))
    comparison = compare_domains(model, model)
    assert comparison.equivalent
    assert comparison.overall.f1 == 1.0
    assert comparison.renaming.renamed() == []

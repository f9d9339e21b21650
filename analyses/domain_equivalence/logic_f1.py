"""Logic-form F1 between a candidate's and a reference's precondition (or effect), after the Embodied Agent
Interface (Li et al. 2024, Sec. 2.6 and Appendix D.4): the formulas are split into clauses (the parts of
the top-level conjunction), clauses are paired by a maximum-weight bipartite matching, and the matched
weight is the true positives; unmatched candidate clauses are false positives, unmatched reference clauses
false negatives.

A literal matches a literal when they are equal once the candidate's names are read through the renaming
(parameters by position); connectives are compared recursively: ``and`` / ``or`` score the F1 of their own
parts, ``not`` its argument, ``forall`` / ``exists`` their bodies under the best alignment of the bound
variables, ``when`` / ``imply`` the mean of condition and consequence. Where this departs from the
paper's reference code, and why, is in docs/domain-equivalence.md ("Logic-form F1"): nested partial scores
are kept instead of truncated to 0, quantified variables are aligned by the best bijection instead of by
textual substitution, and the nested score is an F1 instead of matched / min(sizes).
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from plansight.analyses.domain_equivalence.renaming import Renaming
from plansight.analyses.model.pddl import (
    Action,
    And,
    Arithmetic,
    Atom,
    Comparison,
    Equality,
    Formula,
    FunctionTerm,
    Imply,
    Modal,
    Name,
    Not,
    Number,
    NumericEffect,
    NumericExpr,
    Or,
    Preference,
    Quantified,
    TimedLiteral,
    TimeSpecified,
    TypeRef,
    When,
    conjuncts,
)
from plansight.analyses.model.printer import print_formula

MAX_ALIGNED_VARIABLES = 5
"""Quantifiers binding more variables are aligned by position only (5! = 120 alignments at most)."""

_UNMAPPED = "\x00"
"""Prefix of a candidate name the renaming does not map: it then equals no reference name."""


@dataclass(frozen=True, slots=True)
class Reading:
    """How candidate names read in the reference's vocabulary inside one pair of actions."""

    renaming: Renaming
    variables: Mapping[str, str]

    def term(self, term: Name) -> str:
        """A candidate argument (variable or constant) as the reference would name it."""
        if term.is_variable:
            # a variable that is neither a parameter nor bound (a free variable, PDDL 1.2's `:vars`,
            # `?duration`) is compared by its name: there is nothing to align it with
            return self.variables.get(term.key, term.key)
        return self.renaming.constants.get(term.key, term.key)

    def predicate(self, key: str) -> str:
        """A candidate predicate's reference name (``=`` and other built-ins are kept)."""
        return self.renaming.predicates.get(key, _UNMAPPED + key)

    def function(self, key: str) -> str:
        """A candidate function's reference name (``total-cost`` and the like are kept when unmapped)."""
        return self.renaming.functions.get(key, key)

    def type(self, ref: TypeRef | None) -> frozenset[str]:
        """A candidate type as the set of reference type names (``object`` when untyped)."""
        if ref is None:
            return frozenset({"object"})
        return frozenset(self.renaming.types.get(n.key, n.key) if n.key != "object" else "object"
                         for n in ref.names)

    def bind(self, pairs: Mapping[str, str]) -> Reading:
        """The reading inside a quantifier that binds the candidate's variables to the reference's."""
        return Reading(self.renaming, {**self.variables, **pairs})


def action_reading(renaming: Renaming, candidate: Action, reference: Action) -> Reading:
    """The reading for a pair of actions: parameters correspond by position (a plan step names arguments by
    position, so this is the only correspondence a plan cannot tell apart)."""
    pairs = {c.name.key: r.name.key for c, r in zip(candidate.parameters, reference.parameters, strict=False)}
    return Reading(renaming, pairs)


@dataclass(frozen=True, slots=True)
class Pairing:
    """A candidate clause matched with a reference clause, and how well (1 when equal)."""

    candidate: Formula
    reference: Formula
    score: float


@dataclass(frozen=True, slots=True)
class ClauseScore:
    """The clause-level comparison of one section (precondition or effect) of one action pair.

    ``tp`` is the matched weight (fractional when a nested clause matches partly), ``predicted`` and
    ``gold`` the number of candidate and reference clauses.
    """

    tp: float
    predicted: int
    gold: int
    pairs: tuple[Pairing, ...] = ()
    extra: tuple[Formula, ...] = ()
    missing: tuple[Formula, ...] = ()

    @property
    def precision(self) -> float:
        """Matched weight over candidate clauses; 1 when the candidate claims nothing."""
        return self.tp / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        """Matched weight over reference clauses; 1 when the reference has none."""
        return self.tp / self.gold if self.gold else 1.0

    @property
    def f1(self) -> float:
        """2·TP / (predicted + gold): the harmonic mean of precision and recall, 1 when both are empty."""
        total = self.predicted + self.gold
        return 2 * self.tp / total if total else 1.0

    @property
    def partial(self) -> tuple[Pairing, ...]:
        """Pairs that match only in part (a nested clause with some parts wrong)."""
        return tuple(p for p in self.pairs if p.score < 1.0)


def clauses(formula: Formula | None) -> list[Formula]:
    """The clauses the F1 counts: the parts of the top-level conjunction, each once."""
    return list(dict.fromkeys(conjuncts(formula)))


def score_section(candidate: Formula | None, reference: Formula | None, reading: Reading) -> ClauseScore:
    """Compare one precondition (or effect) with the reference's, clause by clause."""
    left, right = clauses(candidate), clauses(reference)
    pairs = _assign(left, right, reading)
    used_left = {id(p.candidate) for p in pairs}
    used_right = {id(p.reference) for p in pairs}
    return ClauseScore(
        tp=sum(p.score for p in pairs),
        predicted=len(left),
        gold=len(right),
        pairs=tuple(pairs),
        extra=tuple(c for c in left if id(c) not in used_left),
        missing=tuple(c for c in right if id(c) not in used_right),
    )


def match(candidate: Formula, reference: Formula, reading: Reading) -> float:
    """How well one candidate clause matches one reference clause, from 0 to 1."""
    left_key, right_key = literal_key(candidate, reading), literal_key(reference, _IDENTITY)
    if left_key is not None or right_key is not None:
        return 1.0 if left_key == right_key else 0.0
    if type(candidate) is not type(reference):
        return 0.0
    if isinstance(candidate, Not):
        assert isinstance(reference, Not)
        return match(candidate.arg, reference.arg, reading)
    if isinstance(candidate, (And, Or)):
        assert isinstance(reference, (And, Or))
        return _dice(clauses(candidate) if isinstance(candidate, And) else list(candidate.args),
                     clauses(reference) if isinstance(reference, And) else list(reference.args), reading)
    if isinstance(candidate, Quantified):
        assert isinstance(reference, Quantified)
        return _quantified(candidate, reference, reading)
    if isinstance(candidate, (When, Imply)):
        assert isinstance(reference, (When, Imply))
        parts = _two_parts(candidate), _two_parts(reference)
        return (_dice(clauses(parts[0][0]), clauses(parts[1][0]), reading)
                + _dice(clauses(parts[0][1]), clauses(parts[1][1]), reading)) / 2
    if isinstance(candidate, (TimeSpecified, Preference, TimedLiteral)):
        assert isinstance(reference, (TimeSpecified, Preference, TimedLiteral))
        if _head(candidate) != _head(reference):
            return 0.0
        return _dice(clauses(candidate.body), clauses(reference.body), reading)
    if isinstance(candidate, Modal):
        assert isinstance(reference, Modal)
        if (candidate.op, candidate.numbers) != (reference.op, reference.numbers):
            return 0.0
        if len(candidate.args) != len(reference.args):
            return 0.0
        scores = [match(a, b, reading) for a, b in zip(candidate.args, reference.args, strict=False)]
        return sum(scores) / len(scores) if scores else 1.0
    return 0.0


def _two_parts(formula: When | Imply) -> tuple[Formula, Formula]:
    return (formula.condition, formula.effect) if isinstance(formula, When) else (
        formula.condition, formula.consequence)


def _head(formula: TimeSpecified | Preference | TimedLiteral) -> Hashable:
    if isinstance(formula, TimeSpecified):
        return ("time", formula.when)
    if isinstance(formula, TimedLiteral):
        return ("at", formula.time.value)
    return ("preference",)


def literal_key(formula: Formula, reading: Reading) -> Hashable | None:
    """A literal as a comparable key in the reference's vocabulary; None when the formula is not a literal."""
    if isinstance(formula, Atom):
        return ("atom", reading.predicate(formula.predicate.key), *(reading.term(a) for a in formula.args))
    if isinstance(formula, Equality):
        return ("=", frozenset({reading.term(formula.left), reading.term(formula.right)}))
    if isinstance(formula, Not) and isinstance(formula.arg, (Atom, Equality, Comparison)):
        inner = literal_key(formula.arg, reading)
        return ("not", inner)
    if isinstance(formula, Comparison):
        return ("compare", formula.op, _expression(formula.left, reading),
                _expression(formula.right, reading))
    if isinstance(formula, NumericEffect):
        return ("numeric", formula.op, _expression(formula.target, reading),
                _expression(formula.value, reading))
    return None


def _expression(expr: NumericExpr, reading: Reading) -> Hashable:
    if isinstance(expr, Number):
        return ("number", expr.value)
    if isinstance(expr, Name):
        return ("term", reading.term(expr))
    if isinstance(expr, FunctionTerm):
        if not expr.args and expr.function.is_variable:
            return ("term", reading.term(expr.function))
        return ("function", reading.function(expr.function.key), *(reading.term(a) for a in expr.args))
    assert isinstance(expr, Arithmetic)
    return ("arithmetic", expr.op, *(_expression(a, reading) for a in expr.args))


_IDENTITY_RENAMING = Renaming()


class _IdentityReading(Reading):
    """The reference read as itself: every name is its own."""

    def term(self, term: Name) -> str:
        return term.key

    def predicate(self, key: str) -> str:
        return key

    def function(self, key: str) -> str:
        return key

    def type(self, ref: TypeRef | None) -> frozenset[str]:
        return frozenset({"object"}) if ref is None else frozenset(n.key for n in ref.names)

    def bind(self, pairs: Mapping[str, str]) -> Reading:
        return self


_IDENTITY = _IdentityReading(_IDENTITY_RENAMING, {})


def _quantified(candidate: Quantified, reference: Quantified, reading: Reading) -> float:
    if candidate.quantifier != reference.quantifier or len(candidate.variables) != len(reference.variables):
        return 0.0
    left, right = candidate.variables, reference.variables
    orders: Sequence[Sequence[int]] = (
        list(itertools.permutations(range(len(right)))) if len(right) <= MAX_ALIGNED_VARIABLES
        else [range(len(right))]
    )
    best = 0.0
    for order in orders:
        aligned = [(left[i], right[j]) for i, j in enumerate(order)]
        if any(reading.type(a.type) != _IDENTITY.type(b.type) for a, b in aligned):
            continue
        inner = reading.bind({a.name.key: b.name.key for a, b in aligned})
        best = max(best, _dice(clauses(candidate.body), clauses(reference.body), inner))
        if best == 1.0:
            break
    return best


def _dice(left: list[Formula], right: list[Formula], reading: Reading) -> float:
    """The F1 of two clause lists (1 when both are empty): how a nested connective scores."""
    if not left and not right:
        return 1.0
    pairs = _assign(left, right, reading)
    return 2 * sum(p.score for p in pairs) / (len(left) + len(right))


def _assign(left: list[Formula], right: list[Formula], reading: Reading) -> list[Pairing]:
    """A maximum-weight matching of candidate clauses to reference clauses.

    Literals match only equal literals (weight 1), so they are paired by their keys directly; only the
    compound clauses need the general matching, which networkx solves on the (small) bipartite graph.
    """
    pairs: list[Pairing] = []
    waiting: dict[Hashable, list[Formula]] = {}
    for clause in right:
        key = literal_key(clause, _IDENTITY)
        if key is not None:
            waiting.setdefault(key, []).append(clause)
    compound_left: list[Formula] = []
    for clause in left:
        key = literal_key(clause, reading)
        if key is None:
            compound_left.append(clause)
        elif waiting.get(key):
            pairs.append(Pairing(clause, waiting[key].pop(0), 1.0))
    compound_right = [c for c in right if literal_key(c, _IDENTITY) is None]
    if compound_left and compound_right:
        pairs.extend(_weighted_matching(compound_left, compound_right, reading))
    return pairs


def _weighted_matching(left: list[Formula], right: list[Formula], reading: Reading) -> list[Pairing]:
    import networkx as nx

    graph = nx.Graph()
    for i, a in enumerate(left):
        for j, b in enumerate(right):
            weight = match(a, b, reading)
            if weight > 0:
                graph.add_edge(("l", i), ("r", j), weight=weight)
    out = []
    for u, v in nx.max_weight_matching(graph):
        i, j = (u[1], v[1]) if u[0] == "l" else (v[1], u[1])
        out.append(Pairing(left[i], right[j], graph.edges[u, v]["weight"]))
    return sorted(out, key=lambda p: left.index(p.candidate))


def clause_text(formula: Formula) -> str:
    """A clause on one line, as written (for messages)."""
    return " ".join(print_formula(formula).split())


@dataclass(frozen=True, slots=True)
class Micro:
    """Micro-averaged precision, recall and F1 over many sections: the matched weights and clause counts are
    summed first, so a long action weighs more than a short one (the paper's overall scores)."""

    tp: float
    predicted: int
    gold: int

    @staticmethod
    def of(scores: Sequence[ClauseScore]) -> Micro:
        """The micro average of several section scores."""
        return Micro(sum(s.tp for s in scores), sum(s.predicted for s in scores), sum(s.gold for s in scores))

    @property
    def precision(self) -> float:
        """Matched weight over all candidate clauses."""
        return self.tp / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        """Matched weight over all reference clauses."""
        return self.tp / self.gold if self.gold else 1.0

    @property
    def f1(self) -> float:
        """2·TP / (predicted + gold)."""
        total = self.predicted + self.gold
        return 2 * self.tp / total if total else 1.0

    def as_json(self) -> dict[str, float]:
        """The three scores, rounded for reports."""
        return {"precision": round(self.precision, 4), "recall": round(self.recall, 4),
                "f1": round(self.f1, 4), "tp": round(self.tp, 4), "candidate_clauses": self.predicted,
                "reference_clauses": self.gold}

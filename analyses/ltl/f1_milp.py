"""Goal F1 as a mixed-integer linear programme, solved exactly on every input (docs/metrics.md, goal F1).

The fast solvers (``f1_parts.py``, ``f1_search.py``) are exact but exponential on goals whose choices
share many conditions (twenty keys of five options with eight conditions every key may bring); this
one has no such shape to fear. Each side's tree of choices (``goal_options.py``) becomes binaries: a
node is taken or not, the root is, a conjunction's parts are taken with it, exactly one alternative of a
taken ``or``. Per element, ``r_e`` (in the reference) is at least every taken node holding it, ``s_e``
likewise for the candidate, and ``c_e`` (in both) at most the nodes holding it on each side. F1 is a
ratio, ``2Σc / (Σr + Σs)``; Dinkelbach's method ("On nonlinear fractional programming", Dinkelbach
1967) maximises ``2q·Σc − p·(Σr + Σs)`` for the best F1 so far, ``p/q``, until no pair makes it
positive. The MILP solver is HiGHS through ``scipy.optimize.milp`` (Huangfu and Hall, "Parallelizing
the dual revised simplex method", 2018), run without a gap: the objective has integer coefficients.

The action sequence is one element, matched only when both sequences are equal, which is not a sum
over nodes; so there are two programmes. In the first the sequences never match (each side's sequence
only costs). In the second they match: both sides lay their taken actions, in formula order, onto one
common word (a binary per position and action), each action-holding node at one start position, its
actions covering positions that no other node covers, and the nodes' order along the word the order
of the formula. A pair's F1 is the better of its two values; the maximum over both is the maximum.

Nothing is read off the solver's floating point but which nodes are taken: the F1 of the chosen pair
is recomputed from its sets, in integers. Ties are broken as listing every pair would (reference
expansions first, then the candidate's; the first best pair kept): the ``or`` nodes are decided in
formula order, a block at a time (``BLOCK_ORDERS``): among the pairs reaching the best F1, one
programme minimises the positions of the block's chosen alternatives, weighted so that an earlier
node's position outweighs all later ones' (no programme when the pair in hand takes every first
alternative). The weights stay below 2^16, so the solver's integrality tolerance (1e-6 a binary) cannot
reorder two choices, and the worth is an integer, so its row is exact to within half a unit.

There is no work limit, only the run's time budget (analyses/semantics/budget.py: 10 s by default,
``--budget-seconds`` on the command line, ``plansight.simulation.timeLimitSeconds`` in the editor),
which each programme gets what is left of: the maximisation is NP-hard in general, and a hostile goal
can take minutes (40 keys of 8 options with 16 shared conditions on both sides take about one,
benchmarks/RESULTS.md). Past the budget the F1 is "not computed", with the reason, never a pair the
solver has not proven best. The ``cancelled`` hook (a newer edit in the editor) is asked between
programmes.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import csr_array

from plansight.analyses.ltl.goal_options import AllOf, Element, Fixed, Options, SimpleGoal
from plansight.analyses.semantics.budget import Cancelled, Meter
from plansight.analyses.semantics.world import GroundAtom

__all__ = ["best_pair_milp"]

_LOG = logging.getLogger(__name__)

Pair = tuple[SimpleGoal, SimpleGoal]
_TIMED_OUT = np.zeros(0)
"""What a programme returns when the time left ran out first (compared by identity)."""

BLOCK_ORDERS = 1 << 16
"""Choices of the ``or`` nodes one tie-breaking programme orders at most (its weights stay below it)."""


def best_pair_milp(reference: Options, candidate: Options, meter: Meter | None = None) -> Pair:
    """The (reference, candidate) simple goals with the highest F1, the first such pair in listing order.
    ``meter``'s budget bounds the time (each programme gets what is left of it; past it
    ``BudgetExceeded``, never an answer that is not proven best) and its ``cancelled`` hook is asked
    between two programmes (true raises ``Cancelled``); its units do not apply here."""
    return _Problem(reference, candidate, meter or Meter()).first_best()


@dataclass(slots=True)
class _Tree:
    """One side's choice tree, one entry per occurrence of a node (``forn`` shares sub-trees)."""

    kinds: list[str] = field(default_factory=list)
    children: list[list[int]] = field(default_factory=list)
    goals: list[SimpleGoal] = field(default_factory=list)
    variable: list[int] = field(default_factory=list)
    """The binary saying whether the node is taken (a conjunction's parts share their parent's)."""


@dataclass(slots=True)
class _Model:
    """Binaries and rows of one programme, grown one at a time."""

    upper: list[int] = field(default_factory=list)
    lower: list[int] = field(default_factory=list)
    rows: list[dict[int, int]] = field(default_factory=list)
    row_low: list[float] = field(default_factory=list)
    row_high: list[float] = field(default_factory=list)
    gains: list[int] = field(default_factory=list)
    """Binaries worth ``2q`` each (an element in both goals)."""
    costs: list[int] = field(default_factory=list)
    """Binaries costing ``p`` each (an element in one goal)."""

    def binary(self, low: int = 0, high: int = 1) -> int:
        """A new binary, fixed when ``low == high``."""
        self.lower.append(low)
        self.upper.append(high)
        return len(self.lower) - 1

    def row(self, terms: dict[int, int], low: float, high: float) -> None:
        """``low ≤ Σ coefficient·binary ≤ high``."""
        self.rows.append(terms)
        self.row_low.append(low)
        self.row_high.append(high)

    def copy(self) -> _Model:
        """An independent copy to extend into the other programme."""
        return _Model(list(self.upper), list(self.lower), [dict(r) for r in self.rows], list(self.row_low),
                      list(self.row_high), list(self.gains), list(self.costs))


class _Compiled:
    """A model in scipy's arrays, built once and solved at many ``p/q`` and choices fixed."""

    def __init__(self, model: _Model) -> None:
        self.size = len(model.lower)
        data: list[int] = []
        columns: list[int] = []
        pointers = [0]
        for terms in model.rows:
            columns.extend(terms)
            data.extend(terms.values())
            pointers.append(len(columns))
        shape = (len(model.rows), self.size)
        matrix = csr_array((np.array(data, dtype=np.float64), np.array(columns, dtype=np.int64),
                            np.array(pointers, dtype=np.int64)), shape=shape)
        self.constraints = [LinearConstraint(matrix, np.array(model.row_low), np.array(model.row_high))]
        self.lower = np.array(model.lower, dtype=float)
        self.upper = np.array(model.upper, dtype=float)
        self.gains = np.array(model.gains, dtype=np.int64)
        self.costs = np.array(model.costs, dtype=np.int64)

    def solve(self, t: Fraction, fixed: dict[int, int], order: dict[int, int] | None = None,
              time_limit: float | None = None) -> np.ndarray | None:
        """The taken binaries maximising ``2q·Σgains − p·Σcosts`` at ``t = p/q`` with ``fixed`` binaries
        set; with ``order``, those minimising ``Σ weight·binary`` among the pairs worth at least 0 (F1 at
        least ``t``) instead. None when nothing is feasible; ``_TIMED_OUT`` when ``time_limit`` seconds
        went by before the solver proved its answer best."""
        if self.size == 0:
            return np.zeros(0)
        worth = np.zeros(self.size)
        np.add.at(worth, self.gains, 2.0 * t.denominator)
        np.add.at(worth, self.costs, -float(t.numerator))
        lower, upper = self.lower.copy(), self.upper.copy()
        for variable, value in fixed.items():
            lower[variable] = upper[variable] = value
        constraints = self.constraints
        if order is None:
            cost = -worth  # milp minimises
        else:
            cost = np.zeros(self.size)
            for variable, weight in order.items():
                cost[variable] += weight
            # the worth is an integer: at least -0.5 is at least 0, whatever the solver's tolerances
            constraints = [*constraints, LinearConstraint(worth.reshape(1, -1), -0.5, np.inf)]
        options: dict[str, float] = {"mip_rel_gap": 0.0}
        if time_limit is not None:
            options["time_limit"] = time_limit
        result = milp(cost, integrality=np.ones(self.size), bounds=Bounds(lower, upper),
                      constraints=constraints, options=options)
        if result.status == 1:  # the time limit: whatever it found is not proven best
            return _TIMED_OUT
        if result.x is None:
            if result.status != 2:  # pragma: no cover - HiGHS stops early only on the limit above
                raise RuntimeError(f"the F1 programme was not solved: {result.message}")
            return None
        return np.asarray(result.x)


class _Problem:
    """The programmes of one pair of goals, and the search for the first best pair."""

    def __init__(self, reference: Options, candidate: Options, meter: Meter) -> None:
        self.meter = meter
        base = _Model()
        self.trees = (_flatten(reference, base), _flatten(candidate, base))
        holders: tuple[dict[Element, set[int]], dict[Element, set[int]]] = ({}, {})
        for side, tree in enumerate(self.trees):
            for node, kind in enumerate(tree.kinds):
                if kind == "fixed":
                    for element in tree.goals[node].propositions:
                        holders[side].setdefault(element, set()).add(tree.variable[node])
        for side in (0, 1):
            paths = _paths(self.trees[side])
            for element, variables in holders[side].items():
                held = base.binary()
                base.costs.append(held)
                for group in _exclusive_groups(paths, sorted(variables)):
                    base.row({held: 1, **dict.fromkeys(group, -1)}, 0, np.inf)  # held ≥ a taken holder
                if element in holders[1 - side] and side == 0:
                    both = base.binary()
                    base.gains.append(both)
                    for side_variables in (variables, holders[1][element]):  # both ≤ Σ holders, each side
                        base.row({both: 1, **{v: -1 for v in side_variables}}, -np.inf, 0)
        acting = [self._acting(side) for side in (0, 1)]
        matched = base.copy() if all(acting) else None
        for side in (0, 1):
            if acting[side]:
                sequence = base.binary()
                base.costs.append(sequence)
                for variable, _ in acting[side]:
                    base.row({sequence: 1, variable: -1}, 0, np.inf)
        self.models = [_Compiled(base)]
        if matched is not None and _one_word(matched, acting[0], acting[1]):
            self.models.append(_Compiled(matched))

    def _acting(self, side: int) -> list[tuple[int, tuple[GroundAtom, ...]]]:
        """(binary, actions) of the nodes holding actions, in formula order."""
        tree = self.trees[side]
        return [(tree.variable[node], tree.goals[node].actions) for node in _preorder(tree)
                if tree.kinds[node] == "fixed" and tree.goals[node].actions]

    # --- the answer ------------------------------------------------------------------------------

    def first_best(self) -> Pair:
        """The best F1 by Dinkelbach's rounds, then the first pair in listing order reaching it."""
        taken = self._first_taken()
        best = _score(self._pair(taken))
        if best < 1 and all(self._can_be_empty(side) for side in (0, 1)):
            best = Fraction(1)  # two empty goals: worth 0 in every round, so found here
            found = self._reach(best, {})
            assert found is not None
            taken = found
        for model in self.models:
            while best < 1:
                improved = self._solve(model, best, {})
                if improved is None or _score(self._pair(improved)) <= best:
                    break
                taken, best = improved, _score(self._pair(improved))
        _LOG.debug("goal F1 by the programme: %s", best)
        fixed: dict[int, int] = {}
        for side in (0, 1):
            while block := self._next_block(side, fixed):
                fixed, taken = self._first_of_block(side, block, best, fixed, taken)
        return self._pair(taken)

    def _next_block(self, side: int, fixed: dict[int, int]) -> list[int]:
        """The next ``or`` nodes of the side still undecided, in formula order, as many as one programme
        orders exactly (``BLOCK_ORDERS``)."""
        tree = self.trees[side]
        block: list[int] = []
        orders = 1
        stack = [0]
        while stack:
            node = stack.pop()
            kids = tree.children[node]
            if tree.kinds[node] == "one" and kids:
                decided = [k for k in kids if fixed.get(tree.variable[k]) == 1]
                if decided:
                    kids = decided
                else:
                    if block and orders * len(kids) > BLOCK_ORDERS:
                        break
                    block.append(node)
                    orders *= len(kids)
            stack.extend(reversed(kids))
        return block

    def _first_of_block(self, side: int, block: list[int], best: Fraction, fixed: dict[int, int],
                        taken: tuple[set[int], set[int]]) -> tuple[dict[int, int], tuple[set[int], set[int]]]:
        """The first choice in listing order, among the pairs reaching ``best``, of the ``or`` nodes of
        ``block``: one programme minimising the alternatives' positions, weighted so that an earlier node's
        position outweighs every later one's (the listing order), then those taken fixed."""
        tree = self.trees[side]
        weights: dict[int, int] = {}
        weight = 1
        for node in reversed(block):
            kids = tree.children[node]
            for position, kid in enumerate(kids):
                weights[tree.variable[kid]] = position * weight
            weight *= len(kids)
        found: tuple[int, tuple[set[int], set[int]]] | None = None
        if not any(weights.get(tree.variable[k]) for k in taken[side]):
            found = (0, taken)  # the pair in hand takes every first alternative: none comes earlier
        for model in self.models if found is None else ():
            result = self._solve(model, best, fixed, weights)
            if result is None or _score(self._pair(result)) < best:
                continue
            rank = sum(weights.get(tree.variable[k], 0) for k in result[side])
            if found is None or rank < found[0]:
                found = (rank, result)
        if found is None:  # pragma: no cover - the pair in hand reaches the best: never infeasible
            raise RuntimeError("no pair reaches the best goal F1")
        taken = found[1]
        fixed = dict(fixed)
        for node in block:
            for kid in tree.children[node]:
                if kid in taken[side]:
                    fixed[tree.variable[kid]] = 1
        return fixed, taken

    def _reach(self, best: Fraction, fixed: dict[int, int]) -> tuple[set[int], set[int]] | None:
        """The nodes taken by a pair with F1 ``best`` whose binaries in ``fixed`` are as given, if any."""
        for model in self.models:
            found = self._solve(model, best, fixed)
            if found is not None and _score(self._pair(found)) >= best:
                return found
        return None

    def _solve(self, model: _Compiled, t: Fraction, fixed: dict[int, int],
               order: dict[int, int] | None = None) -> tuple[set[int], set[int]] | None:
        """The nodes each side takes in the programme's best pair at ``t`` (see ``_Compiled.solve``)."""
        cancelled = self.meter.budget.cancelled
        if cancelled is not None and cancelled():
            raise Cancelled("a newer version replaces this text")
        remaining = self.meter.remaining_s()
        if remaining is not None and remaining <= 0:
            raise self.meter.out_of_time()
        values = model.solve(t, fixed, order, remaining)
        if values is _TIMED_OUT:
            raise self.meter.out_of_time()
        if values is None:
            return None
        chosen = [{n for n, variable in enumerate(tree.variable) if values[variable] > 0.5}
                  for tree in self.trees]
        return chosen[0], chosen[1]

    def _pair(self, taken: tuple[set[int], set[int]]) -> Pair:
        """The simple goals of the taken nodes, merged in formula order."""
        goals = []
        for side, tree in enumerate(self.trees):
            goal = SimpleGoal()
            for node in _preorder(tree, taken[side]):
                if tree.kinds[node] == "fixed":
                    goal = goal.merge(tree.goals[node])
            goals.append(goal)
        return goals[0], goals[1]

    def _first_taken(self) -> tuple[set[int], set[int]]:
        """The nodes of the first pair in listing order (every ``or`` takes its first alternative)."""
        chosen: list[set[int]] = []
        for tree in self.trees:
            firsts = {kids[0] for kind, kids in zip(tree.kinds, tree.children, strict=True)
                      if kind == "one" and kids}
            chosen.append(set(_preorder(tree, firsts)))
        return chosen[0], chosen[1]

    def _can_be_empty(self, side: int) -> bool:
        """Whether some expansion of the side holds no element at all."""
        tree = self.trees[side]
        empty: dict[int, bool] = {}
        for node in reversed(_preorder(tree)):
            kids = [empty[k] for k in tree.children[node]]
            kind = tree.kinds[node]
            goal = tree.goals[node]
            empty[node] = (not goal.propositions and not goal.actions if kind == "fixed"
                           else all(kids) if kind == "all" else any(kids))
        return empty[0]


def _paths(tree: _Tree) -> dict[int, dict[int, int]]:
    """Per binary, the alternative each ``or`` above its node takes (``or`` node → alternative node)."""
    paths: dict[int, dict[int, int]] = {}
    stack: list[tuple[int, dict[int, int]]] = [(0, {})]
    while stack:
        node, path = stack.pop()
        paths.setdefault(tree.variable[node], path)
        for kid in tree.children[node]:
            stack.append((kid, {**path, node: kid} if tree.kinds[node] == "one" else path))
    return paths


def _exclusive_groups(paths: dict[int, dict[int, int]], variables: list[int]) -> list[list[int]]:
    """``variables`` in groups of which at most one can be taken (below different alternatives of one
    ``or``): ``held ≥ Σ group`` says for whole pairs what one row per holder says, and is a much tighter
    row for the solver's relaxation."""
    groups: list[list[int]] = []
    for variable in variables:
        mine = paths[variable]
        for group in groups:
            if all(any(paths[other].get(n, k) != k for n, k in mine.items()) for other in group):
                group.append(variable)
                break
        else:
            groups.append([variable])
    return groups


def _preorder(tree: _Tree, taken: set[int] | None = None) -> list[int]:
    """The nodes in formula order; with ``taken``, only those below taken alternatives (an ``or``'s
    others and what is below them left out)."""
    order: list[int] = []
    stack = [0]
    while stack:
        node = stack.pop()
        order.append(node)
        kids = tree.children[node]
        if taken is not None and tree.kinds[node] == "one":
            kids = [k for k in kids if k in taken]
        stack.extend(reversed(kids))
    return order


def _flatten(options: Options, model: _Model) -> _Tree:
    """``options`` as a :class:`_Tree`, its binaries and their rows added to ``model``."""
    tree = _Tree()

    def add(node: Options, variable: int) -> int:
        index = len(tree.kinds)
        tree.kinds.append("fixed" if isinstance(node, Fixed) else "all" if isinstance(node, AllOf) else "one")
        tree.children.append([])
        tree.goals.append(node.goal if isinstance(node, Fixed) else SimpleGoal())
        tree.variable.append(variable)
        if isinstance(node, AllOf):
            tree.children[index] = [add(part, variable) for part in node.parts]
        elif not isinstance(node, Fixed):
            kids = [model.binary() for _ in node.alternatives]
            model.row({variable: -1, **dict.fromkeys(kids, 1)}, 0, 0)  # exactly one if taken
            tree.children[index] = [add(a, k) for a, k in zip(node.alternatives, kids, strict=True)]
        return index

    add(options, model.binary(1, 1))
    return tree


def _one_word(model: _Model, reference: list[tuple[int, tuple[GroundAtom, ...]]],
              candidate: list[tuple[int, tuple[GroundAtom, ...]]]) -> bool:
    """Add to ``model`` that both sides' action sequences are one and the same non-empty word, and that it
    counts as matched; False when no such word exists."""
    alphabet = sorted({a for _, acts in reference for a in acts} & {a for _, acts in candidate for a in acts})
    length = min(sum(len(acts) for _, acts in side) for side in (reference, candidate))
    if not alphabet or length == 0:
        return False
    word = [{a: model.binary() for a in alphabet} for _ in range(length)]
    model.row(dict.fromkeys(word[0].values(), 1), 1, 1)  # non-empty
    for position in range(1, length):  # used positions are a prefix, one action each
        model.row({**dict.fromkeys(word[position].values(), 1),
                   **dict.fromkeys(word[position - 1].values(), -1)}, -np.inf, 0)
    for side in (reference, candidate):
        sequence = model.binary(1, 1)
        model.costs.append(sequence)
        cover: list[dict[GroundAtom, dict[int, int]]] = [{a: {} for a in alphabet} for _ in range(length)]
        order: list[dict[int, int]] = [{} for _ in range(length)]
        for number, (variable, actions) in enumerate(side):
            starts = {}
            if all(a in word[0] for a in actions):
                for start in range(length - len(actions) + 1):
                    placed = model.binary()
                    starts[placed] = 1
                    for offset, action in enumerate(actions):
                        cover[start + offset][action][placed] = 1
                        order[start + offset][placed] = number
            model.row({**starts, variable: -1}, 0, 0)  # a taken node is placed once
        for position in range(length):
            for action, placements in cover[position].items():  # covered exactly by the word
                model.row({**placements, word[position][action]: -1}, 0, 0)
        big = len(side)
        for position in range(1, length):  # formula order along the word: the covering node's number
            used = dict.fromkeys(word[position].values(), 0)  # never decreases over the used positions
            terms: dict[int, int] = {}
            for placed, number in order[position].items():
                terms[placed] = terms.get(placed, 0) + number
            for placed, number in order[position - 1].items():
                terms[placed] = terms.get(placed, 0) - number
            for variable in used:
                terms[variable] = terms.get(variable, 0) - big
            model.row(terms, -big, np.inf)
    both = model.binary(1, 1)
    model.gains.append(both)
    return True


def _score(pair: Pair) -> Fraction:
    """F1 of the pair, exactly; two empty goals match perfectly."""
    reference, candidate = pair[0].elements(), pair[1].elements()
    total = len(reference) + len(candidate)
    return Fraction(2 * len(reference & candidate), total) if total else Fraction(1)

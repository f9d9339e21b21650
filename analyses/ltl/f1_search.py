"""The pair of simple goals with the best F1, found exactly without listing every expansion.

Goal F1 is the best set-matching F1 over every (reference expansion, candidate expansion) pair; listing
them multiplies the options of every part (331,776 for BEHAVIOR's "assembling gift baskets"). This is a
depth-first branch-and-bound over the two choice trees of ``goal_options.py``: it decides the
reference's alternatives, then the candidate's, in formula order, and skips a branch when no completion
of it can beat the best pair found so far.

The bound: F1 = 2c / (|C| + |R|) beats t = num/den iff ``G = 2·den·c − num·(|C| + |R|) > 0``. Summing
over the elements e of R, ``G ≤ Σ_e∈R (2·den·[e possible in C] − num) − num·|C so far|`` (plus the
action sequence), and the best R for that sum is a dynamic programme over the reference's remaining
choice tree: a sum over the parts of a conjunction, a maximum over the alternatives. A negative weight
is left out (0) for an element two parts of one conjunction could both contribute, so that the sum
never undercounts the union; the bound is exact when the candidate is decided and no element repeats
across parts, which is the shape of BEHAVIOR's goals (each goal a choice of one of its options). The
same bound is taken from the candidate's side, and the smaller of the two is used.

Ties are broken as listing them would: branches are visited in the order :func:`expansions` lists the
pairs (reference first), and a pair replaces the best only if its F1 is strictly higher, so a skipped
branch (no completion strictly better) can never hold the pair listing would have kept.
"""

from __future__ import annotations

from dataclasses import dataclass

from plansight.analyses.ltl.goal_options import AllOf, Element, Fixed, Options, SimpleGoal
from plansight.analyses.semantics.budget import Meter
from plansight.analyses.semantics.world import GroundAtom

Pending = tuple[int, "Pending"] | None
"""The parts still to decide on one side, first part first, as a linked list (shared between branches)."""


@dataclass(slots=True)
class _Tree:
    """A choice tree in flat arrays, so the bound's programme indexes instead of hashing nodes."""

    kinds: list[str]
    children: list[tuple[int, ...]]
    propositions: list[frozenset[Element]]
    actions: list[tuple[GroundAtom, ...]]
    reach: list[frozenset[Element]]
    """Every proposition some expansion of the node holds."""
    has_actions: list[bool]
    can_be_empty: list[bool]
    repeated: frozenset[Element] = frozenset()
    """Propositions that two parts of one conjunction could both contribute."""
    root: int = 0


def _flatten(tree: Options) -> _Tree:
    flat = _Tree([], [], [], [], [], [], [])
    repeated: set[Element] = set()

    def add(node: Options) -> int:
        kids: tuple[int, ...] = ()
        if isinstance(node, Fixed):
            kind = "fixed"
            props, acts = node.goal.propositions, node.goal.actions
            reach, has_actions, empty = props, bool(acts), not props and not acts
        else:
            kind = "all" if isinstance(node, AllOf) else "one"
            below = node.parts if isinstance(node, AllOf) else node.alternatives
            kids = tuple(add(child) for child in below)
            props, acts = frozenset(), ()
            reach = frozenset().union(*(flat.reach[k] for k in kids))
            has_actions = any(flat.has_actions[k] for k in kids)
            combine = all if kind == "all" else any
            empty = combine(flat.can_be_empty[k] for k in kids)
            if kind == "all":
                seen: set[Element] = set()
                for k in kids:
                    repeated.update(seen & flat.reach[k])
                    seen.update(flat.reach[k])
        flat.kinds.append(kind)
        flat.children.append(kids)
        flat.propositions.append(props)
        flat.actions.append(acts)
        flat.reach.append(reach)
        flat.has_actions.append(has_actions)
        flat.can_be_empty.append(empty)
        return len(flat.kinds) - 1

    flat.root = add(tree)
    flat.repeated = frozenset(repeated)
    return flat


@dataclass(slots=True)
class _Side:
    """One side of a branch: what is decided (propositions, actions in order) and what is not."""

    pending: Pending
    propositions: frozenset[Element]
    actions: tuple[GroundAtom, ...]


def best_pair(reference: Options, candidate: Options, meter: Meter) -> tuple[SimpleGoal, SimpleGoal]:
    """The (reference, candidate) simple goals with the highest F1, the first such pair in listing order."""
    trees = (_flatten(reference), _flatten(candidate))
    start = tuple(_settle(tree, _Side((tree.root, None), frozenset(), ())) for tree in trees)
    stack: list[tuple[_Side, _Side]] = [(start[0], start[1])]
    best: tuple[int, int] | None = None  # (2·common, |C| + |R|) of the best pair
    best_goals = (SimpleGoal(), SimpleGoal())
    while stack:
        ref, cand = stack.pop()
        meter.spend(1)
        if best is not None and not _may_beat(best, trees, ref, cand, meter):
            continue
        branching = 0 if ref.pending is not None else 1 if cand.pending is not None else None
        if branching is None:
            goals = (SimpleGoal(ref.actions, ref.propositions), SimpleGoal(cand.actions, cand.propositions))
            score = _score(*goals)
            if best is None or score[0] * best[1] > best[0] * score[1]:
                best, best_goals = score, goals
                if score[0] == score[1]:  # F1 = 1: nothing is strictly better
                    break
            continue
        side = (ref, cand)[branching]
        tree = trees[branching]
        assert side.pending is not None
        node, rest = side.pending
        for alternative in reversed(tree.children[node]):
            settled = _settle(tree, _Side((alternative, rest), side.propositions, side.actions))
            stack.append((settled, cand) if branching == 0 else (ref, settled))
    return best_goals


def _score(reference: SimpleGoal, candidate: SimpleGoal) -> tuple[int, int]:
    """F1 as the fraction (2·common, |C| + |R|); two empty goals match perfectly (1/1)."""
    ref, cand = reference.elements(), candidate.elements()
    total = len(ref) + len(cand)
    return (2 * len(ref & cand), total) if total else (1, 1)


def _settle(tree: _Tree, side: _Side) -> _Side:
    """Take in the fixed parts and conjunctions at the front, up to the first choice."""
    pending, props, acts = side.pending, side.propositions, side.actions
    while pending is not None:
        node, rest = pending
        kind = tree.kinds[node]
        if kind == "one":
            break
        pending = rest
        if kind == "fixed":
            props = props | tree.propositions[node] if tree.propositions[node] else props
            acts = acts + tree.actions[node]
        else:
            for child in reversed(tree.children[node]):
                pending = (child, pending)
    return _Side(pending, props, acts)


def _may_beat(best: tuple[int, int], trees: tuple[_Tree, _Tree], ref: _Side, cand: _Side,
              meter: Meter) -> bool:
    """Whether some completion of the branch could have a strictly higher F1 than ``best``."""
    num, den = best
    if _can_be_empty(trees[0], ref) and _can_be_empty(trees[1], cand):
        return True  # two empty goals: F1 = 1
    sides = tuple(zip(trees, (ref, cand), strict=True))
    possible = [_possible(tree, side) for tree, side in sides]
    # the action sequences add 2·den − 2·num when they match, at most 0 otherwise
    both_act = all(side.actions or _pending_has_actions(tree, side) for tree, side in sides)
    sequence = 2 * den - 2 * num if both_act else 0
    bounds = []
    for tree, side, other_possible, other in ((trees[0], ref, possible[1], cand),
                                              (trees[1], cand, possible[0], ref)):
        value = _side_value(tree, side, other_possible, 2 * den - num, -num, meter)
        bounds.append(value - num * len(other.propositions) + sequence)
    return min(bounds) > 0


def _can_be_empty(tree: _Tree, side: _Side) -> bool:
    if side.propositions or side.actions:
        return False
    pending = side.pending
    while pending is not None:
        if not tree.can_be_empty[pending[0]]:
            return False
        pending = pending[1]
    return True


def _pending_has_actions(tree: _Tree, side: _Side) -> bool:
    pending = side.pending
    while pending is not None:
        if tree.has_actions[pending[0]]:
            return True
        pending = pending[1]
    return False


def _possible(tree: _Tree, side: _Side) -> frozenset[Element]:
    """Every proposition some completion of the side could hold."""
    parts = [side.propositions]
    pending = side.pending
    while pending is not None:
        parts.append(tree.reach[pending[0]])
        pending = pending[1]
    return frozenset().union(*parts)


def _side_value(tree: _Tree, side: _Side, other_possible: frozenset[Element], gain: int, cost: int,
                meter: Meter) -> int:
    """An upper bound of ``Σ_e (gain if e is possible on the other side else cost)`` over the side's
    propositions, for its best completion."""
    decided = side.propositions
    matched = len(decided & other_possible)
    total = gain * matched + cost * (len(decided) - matched)

    def best(node: int) -> int:
        kind = tree.kinds[node]
        if kind == "fixed":
            props = tree.propositions[node] - decided
            hits = props & other_possible
            misses = len(props - hits - tree.repeated)
            return gain * len(hits) + cost * misses
        values = [best(child) for child in tree.children[node]]
        meter.spend(len(values))
        return sum(values) if kind == "all" else max(values)

    pending = side.pending
    while pending is not None:
        total += best(pending[0])
        pending = pending[1]
    return total

"""Evaluate an LTL goal on a state-action trajectory (docs/metrics.md, LTL goals).

A trajectory is the list of pairs (s0, a1), (s1, a2), ..., (s_n, None). A state formula (no
``then``) holds on a piece of the trajectory iff some pair in it satisfies the formula; a state atom
holds on a pair iff it is true in the pair's state, an action atom iff it is the pair's action.
``p then q`` holds on a piece iff it splits into a non-empty prefix satisfying ``p`` and a non-empty
rest satisfying ``q``; ``and`` / ``or`` / ``not`` / quantifiers over temporal formulas combine the
answers on the same piece. ``forn n x. (phi)`` holds iff exactly n objects satisfy phi.

Trying every split is exponential in the number of ``then``; instead, for every start i the ends j
such that the formula holds on pairs [i, j) are computed once per sub-formula (see
:meth:`_Evaluator.ends` for the three forms), and ``then`` composes them. The tests compare this with
a brute-force evaluator that enumerates every split.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from plansight.analyses.ltl.depth import too_deep
from plansight.analyses.ltl.scope import LtlScope
from plansight.analyses.model.ltl import (
    LtlAnd,
    LtlAtom,
    LtlFormula,
    LtlImplies,
    LtlNot,
    LtlOr,
    LtlQuantified,
    LtlThen,
    format_ltl,
    is_temporal,
)
from plansight.analyses.model.pddl import Name
from plansight.analyses.semantics.budget import BudgetExceeded, Meter, WorkBudget
from plansight.analyses.semantics.state import GroundAtom, State

Pair = tuple[State, GroundAtom | None]
"""A state and the action taken in it (``("stack", "a", "b")``, lower-cased keys like a state atom)."""
Trajectory = Sequence[Pair]
Env = Mapping[str, str]
Ends = tuple[Literal["earliest", "suffix", "bits"], list[int]]


@dataclass(frozen=True, slots=True)
class Failure:
    """A sub-formula that was not achieved: ``node`` (with its span in the file), grounded ``text``."""

    node: LtlFormula
    text: str
    reason: str

    @property
    def message(self) -> str:
        """The failed sub-formula and why, as one sentence for users."""
        return f"`{self.text}` {self.reason}"


@dataclass(frozen=True, slots=True)
class LtlEvaluation:
    """Whether a plan's trajectory satisfies an LTL goal, and the sub-formulas that failed when it does not.
    """

    satisfied: bool | None
    """None when the evaluation stopped before its answer (``stopped_reason``)."""
    satisfied_at: int | None
    """0-based index of the earliest state s_k such that the pairs up to s_k satisfy the formula
    (None when the whole trajectory does not satisfy it)."""
    failures: tuple[Failure, ...] = ()
    stopped_reason: str | None = None
    """Why there is no answer: the work budget ran out, or the formula nests too deeply."""


def evaluate(formula: LtlFormula, trajectory: Trajectory, scope: LtlScope,
             budget: WorkBudget | None = None) -> LtlEvaluation:
    """Whether ``trajectory`` satisfies ``formula``, when, and if not, which sub-formulas failed.

    ``budget`` (default: :class:`WorkBudget`'s) bounds the work, one unit per sub-formula evaluated
    on one pair; past it, or for a formula nested deeper than ``depth.MAX_DEPTH``, the answer is
    None with ``stopped_reason``. Its ``cancelled`` hook raises ``Cancelled`` out of this call."""
    deep = too_deep(formula)
    if deep is not None:
        return LtlEvaluation(None, None, stopped_reason=f"not evaluated: {deep}")
    if not trajectory:
        return LtlEvaluation(False, None, (Failure(formula, format_ltl(formula), "cannot hold: no states"),))
    evaluator = _Evaluator(trajectory, scope, (budget or WorkBudget()).meter())
    try:
        return _judge(evaluator, formula)
    except BudgetExceeded as exceeded:
        exceeded.where = "the LTL goal"
        return LtlEvaluation(None, None, stopped_reason=exceeded.reason)


def _judge(evaluator: _Evaluator, formula: LtlFormula) -> LtlEvaluation:
    n = evaluator.n
    kind, values = evaluator.ends(formula, {})
    if kind != "bits" and values[0] <= n:
        return LtlEvaluation(True, values[0] - 1)
    if kind == "bits" and values[0] >> n & 1:
        return LtlEvaluation(True, (values[0] & -values[0]).bit_length() - 2)
    return LtlEvaluation(False, None, tuple(evaluator.explain(formula, {}, 0)))


def ground(formula: LtlFormula, env: Env) -> LtlFormula:
    """``formula`` with bound variables replaced by the objects ``env`` gives them."""
    if not env:
        return formula
    if isinstance(formula, LtlAtom):
        return replace(formula, args=tuple(
            Name(env[a.key], env[a.key], a.span) if a.key in env else a for a in formula.args))
    if isinstance(formula, LtlQuantified):
        inner = {k: v for k, v in env.items() if k != formula.variable.key}
        return replace(formula, body=ground(formula.body, inner))
    if isinstance(formula, LtlNot):
        return replace(formula, operand=ground(formula.operand, env))
    if isinstance(formula, LtlImplies):
        return replace(formula, left=ground(formula.left, env), right=ground(formula.right, env))
    if isinstance(formula, LtlThen):
        return replace(formula, stages=tuple(ground(s, env) for s in formula.stages))
    return replace(formula, operands=tuple(ground(o, env) for o in formula.operands))


def exactly(count: int, bitsets: Sequence[int], everything: int) -> int:
    """The bits set in exactly ``count`` of ``bitsets`` (bit-sliced counting, no per-bit loop)."""
    levels = [everything] + [0] * (count + 1)  # levels[m]: count so far == m; the last: more than count
    for bits in bitsets:
        levels[-1] |= levels[-2] & bits
        for m in range(count, 0, -1):
            levels[m] = (levels[m] & ~bits) | (levels[m - 1] & bits)
        levels[0] &= ~bits
    return levels[count] & everything if count >= 0 else 0


class _Evaluator:
    def __init__(self, trajectory: Trajectory, scope: LtlScope, meter: Meter | None = None) -> None:
        self.n = len(trajectory)
        self.scope = scope
        self.meter = meter or Meter()
        self._row_cost = 1 + self.n // 64
        """Units charged per sub-formula evaluated on the whole trajectory: one big-integer operation
        per 64 pairs for a state formula; temporal forms charge one unit per start on top."""
        self.all_pairs = (1 << self.n) - 1
        self.state_bits: dict[GroundAtom, int] = {}
        self.action_bits: dict[GroundAtom, int] = {}
        for k, (state, action) in enumerate(trajectory):
            bit = 1 << k
            for atom in state.atoms:
                self.state_bits[atom] = self.state_bits.get(atom, 0) | bit
            if action is not None:
                self.action_bits[action] = self.action_bits.get(action, 0) | bit
        self._masks: dict[int, int] = {}

    # --- pair by pair (state formulas) ---------------------------------------------------------

    def truth(self, node: LtlFormula, env: Env) -> int:
        """The pairs at which the state formula ``node`` holds, as a bit set."""
        self.meter.spend(self._row_cost)
        if isinstance(node, LtlAtom):
            key = (node.name.key, *(env.get(a.key, a.key) for a in node.args))
            table = self.action_bits if self.scope.is_action(node.name.key) else self.state_bits
            return table.get(key, 0)
        if isinstance(node, LtlNot):
            return self.all_pairs & ~self.truth(node.operand, env)
        if isinstance(node, LtlAnd):
            result = self.all_pairs
            for operand in node.operands:
                result &= self.truth(operand, env)
                if not result:
                    break
            return result
        if isinstance(node, LtlOr):
            result = 0
            for operand in node.operands:
                result |= self.truth(operand, env)
            return result
        if isinstance(node, LtlImplies):
            return (self.all_pairs & ~self.truth(node.left, env)) | self.truth(node.right, env)
        if isinstance(node, LtlQuantified):
            instances = (self.truth(node.body, {**env, node.variable.key: o})
                         for o in self.scope.range_of(node))
            return self._quantify(node, instances, self.all_pairs)
        raise TypeError(f"`then` inside a state formula: {format_ltl(node)}")

    @staticmethod
    def _quantify(node: LtlQuantified, instances: Iterable[int], everything: int) -> int:
        bitsets = list(instances)
        if node.quantifier == "forall":
            return everything & _all(bitsets)
        if node.quantifier == "exists":
            return _any(bitsets)
        return exactly(node.count or 0, bitsets, everything)

    # --- on pieces of the trajectory (temporal formulas) ---------------------------------------
    #
    # ends(node)[i] describes every j such that node holds on the pairs [i, j), in one of three forms:
    # "bits": one bit set per start (bit j set: holds on [i, j)); "suffix": every row is "from some
    # end on" (a formula that holds on [i, j) holds on [i, j') for j' > j), stored as that earliest
    # end (n + 1: never); "earliest": a suffix form whose earliest end also never decreases as the
    # start moves right. State formulas are "earliest", and then / and / or / forall / exists keep
    # the form of their parts, so `then` composes in O(n); temporal `not`, `implies` and `forn` need
    # bit sets, which `then` composes in up to O(n^2) big-integer operations.

    def mask(self, first: int) -> int:
        """Bits ``first`` .. n: every end from ``first`` on."""
        if first > self.n:
            return 0
        found = self._masks.get(first)
        if found is None:
            found = self._masks[first] = ((1 << (self.n + 1)) - 1) ^ ((1 << first) - 1)
        return found

    def bits(self, ends: Ends) -> list[int]:
        kind, values = ends
        return values if kind == "bits" else [self.mask(e) for e in values]

    def holds_to_end(self, ends: Ends, start: int) -> bool:
        kind, values = ends
        return bool(values[start] >> self.n & 1) if kind == "bits" else values[start] <= self.n

    def ends(self, node: LtlFormula, env: Env) -> Ends:
        n, never = self.n, self.n + 1
        self.meter.spend(n + 1)
        if not is_temporal(node):
            truth = self.truth(node, env)
            earliest, first = [never] * (n + 1), never
            for i in range(n - 1, -1, -1):
                if truth >> i & 1:
                    first = i + 1
                earliest[i] = first
            return "earliest", earliest
        if isinstance(node, LtlThen):
            current = self.ends(node.stages[0], env)
            for stage in node.stages[1:]:
                current = self._then(current, self.ends(stage, env))
            return current
        if isinstance(node, (LtlAnd, LtlOr)):
            return self._combine(isinstance(node, LtlAnd), [self.ends(o, env) for o in node.operands])
        if isinstance(node, LtlQuantified) and node.quantifier != "forn":
            instances = [self.ends(node.body, {**env, node.variable.key: o})
                         for o in self.scope.range_of(node)]
            return self._combine(node.quantifier == "forall", instances)
        if isinstance(node, LtlNot):
            inner = self.bits(self.ends(node.operand, env))
            return "bits", [self.mask(i + 1) & ~inner[i] for i in range(n + 1)]
        if isinstance(node, LtlImplies):
            left, right = self.bits(self.ends(node.left, env)), self.bits(self.ends(node.right, env))
            return "bits", [(self.mask(i + 1) & ~left[i]) | right[i] for i in range(n + 1)]
        assert isinstance(node, LtlQuantified)
        per_object = [self.bits(self.ends(node.body, {**env, node.variable.key: o}))
                      for o in self.scope.range_of(node)]
        return "bits", [self._quantify(node, (p[i] for p in per_object), self.mask(i + 1))
                        for i in range(n + 1)]

    def _then(self, current: Ends, following: Ends) -> Ends:
        """Ends of ``A then B``: for each start i, the union of B's ends over every end k < n of A."""
        n, never = self.n, self.n + 1
        (current_kind, starts), (following_kind, values) = current, following
        if current_kind != "bits":  # A ends at every k >= starts[i]: take B from there on
            if following_kind == "bits":
                from_k = [0] * (n + 1)  # from_k[k]: B's ends from any start k' >= k
                for k in range(n - 1, -1, -1):
                    from_k[k] = values[k] | from_k[k + 1]
                return "bits", [from_k[c] if c < n else 0 for c in starts]
            if following_kind == "suffix":
                best = [never] * (n + 1)
                for k in range(n - 1, -1, -1):
                    best[k] = min(values[k], best[k + 1])
                values = best  # now never decreasing, like an "earliest" form
            return current_kind, [values[c] if c < n else never for c in starts]
        if following_kind == "earliest":  # B's earliest end only grows with its start: take the first k
            out = []
            for row in starts:
                reachable = row & ~(1 << n)
                out.append(values[(reachable & -reachable).bit_length() - 1] if reachable else never)
            return "suffix", out
        following_bits = self.bits(following)
        out = []
        for row in starts:  # up to n big-integer unions per start: charged as such
            self.meter.spend(1 + row.bit_count())
            out.append(_union_at(following_bits, row & ~(1 << n)))
        return "bits", out

    def _combine(self, conjunctive: bool, parts: list[Ends]) -> Ends:
        """All (``conjunctive``) or any of ``parts`` on the same piece."""
        n, never = self.n, self.n + 1
        if not parts:
            return "earliest", [i + 1 if conjunctive and i < n else never for i in range(n + 1)]
        if all(kind != "bits" for kind, _ in parts):
            pick = max if conjunctive else min
            kind: Literal["earliest", "suffix"] = (
                "earliest" if all(k == "earliest" for k, _ in parts) else "suffix")
            return kind, [pick(values) for values in zip(*(v for _, v in parts), strict=True)]
        sets = [self.bits(part) for part in parts]
        if conjunctive:
            return "bits", [_all(p[i] for p in sets) & self.mask(i + 1) for i in range(n + 1)]
        return "bits", [_any(p[i] for p in sets) for i in range(n + 1)]

    # --- why it failed -------------------------------------------------------------------------

    def explain(self, node: LtlFormula, env: Env, start: int) -> list[Failure]:
        """The innermost sub-formulas (conjuncts, ``then`` stages, instances) not achieved from ``start``."""
        text = format_ltl(ground(node, env))
        if self.holds_to_end(self.ends(node, env), start):
            return []
        if isinstance(node, LtlThen):
            return self._explain_then(node, env, start, text)
        if isinstance(node, LtlAnd):
            failed = [f for o in node.operands for f in self.explain(o, env, start)]
            return failed or [Failure(node, text, "never holds: its parts never hold together"
                                      if not is_temporal(node) else "does not hold")]
        if isinstance(node, LtlQuantified) and node.quantifier == "forall":
            for obj in self.scope.range_of(node):
                failed = self.explain(node.body, {**env, node.variable.key: obj}, start)
                if failed:
                    return failed
            return [Failure(node, text, "never holds for every object at once")]
        if isinstance(node, LtlAtom):
            what = "is never performed" if self.scope.is_action(node.name.key) else "never holds"
            return [Failure(node, text, what + _after(start))]
        if isinstance(node, LtlQuantified) and node.quantifier == "forn":
            return [Failure(node, text, f"never holds for exactly {node.count} objects{_after(start)}")]
        reason = "does not hold" if is_temporal(node) else "never holds" + _after(start)
        return [Failure(node, text, reason)]

    def _explain_then(self, node: LtlThen, env: Env, start: int, text: str) -> list[Failure]:
        """The first stage that no split reaches; the stages before it were achieved (earliest first)."""
        parts = [self.ends(stage, env) for stage in node.stages]
        if all(kind == "earliest" for kind, _ in parts):
            begin, done_at = start, start
            for number, (_, earliest) in enumerate(parts, 1):
                end = earliest[begin]
                if end > self.n:
                    return self._stage_failed(node, env, text, number, begin, done_at, True)
                begin, done_at = end, end - 1
            return [Failure(node, text, "does not hold")]  # pragma: no cover - the caller checked it fails
        reached, done_at = 1 << start, start
        for number, part in enumerate(parts, 1):
            following = _union_at(self.bits(part), reached & ~(1 << self.n))
            if not following or (number == len(parts) and not following >> self.n & 1):
                begin = (reached & -reached).bit_length() - 1
                return self._stage_failed(node, env, text, number, begin, done_at, not following)
            reached = following
            done_at = (following & -following).bit_length() - 2
        return [Failure(node, text, "does not hold")]  # pragma: no cover - the caller checked it fails

    def _stage_failed(self, node: LtlThen, env: Env, text: str, number: int, begin: int, done_at: int,
                      unreached: bool) -> list[Failure]:
        stage = node.stages[number - 1]
        inner = self.explain(stage, env, begin) if unreached else []
        if not inner:
            inner = [Failure(stage, format_ltl(ground(stage, env)), "is not achieved")]
        where = f"stage {number} of {len(node.stages)} in `{text}`"
        after = f", after stage {number - 1} was achieved at step {done_at}" if number > 1 else ""
        return [replace(f, reason=f"{f.reason} ({where}{after})") for f in inner]


def _after(start: int) -> str:
    return f" after step {start - 1}" if start else ""


def _union_at(rows: Sequence[int], starts: int) -> int:
    """The union of ``rows[k]`` over every bit k set in ``starts``."""
    union = 0
    while starts:
        low = starts & -starts
        union |= rows[low.bit_length() - 1]
        starts ^= low
    return union


def _all(values: Iterable[int]) -> int:
    result = -1
    for v in values:
        result &= v
    return result


def _any(values: Iterable[int]) -> int:
    result = 0
    for v in values:
        result |= v
    return result


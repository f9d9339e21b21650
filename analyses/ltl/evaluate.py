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

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import repeat
from operator import contains, eq
from typing import Literal, overload

from plansight.analyses.ltl.depth import MAX_DEPTH, too_deep
from plansight.analyses.ltl.scope import LtlScope
from plansight.analyses.model.ltl import (
    LtlAnd,
    LtlAtom,
    LtlFormula,
    LtlImplies,
    LtlNot,
    LtlQuantified,
    LtlThen,
    format_ltl,
)
from plansight.analyses.model.pddl import Name
from plansight.analyses.semantics.budget import BudgetExceeded, Meter, WorkBudget
from plansight.analyses.semantics.state import GroundAtom, State

Pair = tuple[State, GroundAtom | None]
"""A state and the action taken in it (``("stack", "a", "b")``, lower-cased keys like a state atom)."""
Trajectory = Sequence[Pair]
Env = Mapping[str, str]
Ends = tuple[Literal["earliest", "suffix", "bits"], Sequence[int]]


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
    None with ``stopped_reason``. Its ``cancelled`` hook raises ``Cancelled`` out of this call.
    To judge one goal on many trajectories, :func:`prepare` it once instead."""
    return prepare(formula, scope).evaluate(trajectory, budget)


_DEFAULT_BUDGET = WorkBudget()


class PreparedGoal:
    """An LTL goal made ready for evaluation once (which sub-formulas are temporal, which atoms are
    actions, what each quantifier ranges over), to be judged on any number of trajectories."""

    __slots__ = ("_root", "_too_deep", "formula")

    def __init__(self, formula: LtlFormula, scope: LtlScope) -> None:
        self.formula = formula
        try:
            self._root: _Node | None = _prepare(formula, scope)
            self._too_deep: str | None = None
        except _TooDeep:  # stopped at MAX_DEPTH + 1 levels, far from the recursion limit
            self._root, self._too_deep = None, f"not evaluated: {too_deep(formula)}"

    def evaluate(self, trajectory: Trajectory, budget: WorkBudget | None = None) -> LtlEvaluation:
        """Like :func:`evaluate` for this goal and its scope."""
        if self._root is None:
            return LtlEvaluation(None, None, stopped_reason=self._too_deep)
        if not trajectory:
            failure = Failure(self.formula, format_ltl(self.formula), "cannot hold: no states")
            return LtlEvaluation(False, None, (failure,))
        evaluator = _Evaluator(trajectory, (budget or _DEFAULT_BUDGET).meter())
        try:
            return _judge(evaluator, self._root)
        except BudgetExceeded as exceeded:
            exceeded.where = "the LTL goal"
            return LtlEvaluation(None, None, stopped_reason=exceeded.reason)


def prepare(formula: LtlFormula, scope: LtlScope) -> PreparedGoal:
    """``formula`` in ``scope``, ready to be evaluated on many trajectories (see :class:`PreparedGoal`);
    prepared once per formula object and scope (``LtlScope.memo``), so that :func:`evaluate` on many
    trajectories costs what evaluating a prepared goal does."""
    goal: PreparedGoal = scope.memo.get(formula, lambda: PreparedGoal(formula, scope))
    return goal


def _judge(evaluator: _Evaluator, formula: _Node) -> LtlEvaluation:
    n = evaluator.n
    if not formula.temporal:  # a state formula: the first pair where it holds, chunk by chunk
        evaluator.meter.spend(n + 1)
        for number in range(evaluator.chunk_count()):
            truth = evaluator.truth(formula, {}, evaluator.chunk(number))
            if truth:
                return LtlEvaluation(True, number * CHUNK + (truth & -truth).bit_length() - 1)
        return LtlEvaluation(False, None, tuple(evaluator.explain(formula, {}, 0)))
    kind, values = evaluator.ends(formula, {})
    first = values[0]
    if kind != "bits" and first <= n:
        return LtlEvaluation(True, first - 1)
    if kind == "bits" and first >> n & 1:
        return LtlEvaluation(True, (first & -first).bit_length() - 2)
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


_ATOM, _NOT, _AND, _OR, _IMPLIES, _THEN, _QUANTIFIED = range(7)
_BINARY = bytes.maketrans(b"\x00\x01", b"01")


@dataclass(slots=True, eq=False)
class _Node:
    """A sub-formula prepared for evaluation: what the evaluator asks of it at every pair and every
    instance (is it temporal, which atom, which objects a quantifier ranges over) is worked out once,
    instead of walking the sub-formula again each time."""

    formula: LtlFormula
    kind: int
    temporal: bool
    children: tuple[_Node, ...] = ()
    name: str = ""
    args: tuple[tuple[bool, str], ...] = ()
    """(bound by an enclosing quantifier, key) per argument."""
    key: GroundAtom | None = None
    """The atom itself when no argument is a bound variable."""
    action: bool = False
    objects: tuple[str, ...] = ()
    variable: str = ""
    state_variables: frozenset[str] = frozenset()
    """The enclosing quantifiers' variables this sub-formula passes to a state atom."""
    object_set: frozenset[str] = frozenset()
    disjuncts: tuple[_Node, ...] = ()
    """``exists x. (a1 or a2 ...)`` over action atoms only: those atoms (see ``_some_action``)."""
    actions_only: bool = False
    """A quantifier whose variable only appears in action atoms (``exists x. (look(x) or watch(x))``):
    every object no action of the trajectory names gives its body the same truth, so one of them
    stands for all."""
    texts: dict[tuple[tuple[str, str], ...], str] = field(default_factory=dict)
    """The sub-formula written out, per binding of the enclosing variables: a prepared goal judged on
    many trajectories quotes the same failed parts again and again."""

    def text(self, env: Env) -> str:
        """The sub-formula with ``env``'s objects put in, as failure messages quote it."""
        key = tuple(env.items()) if env else ()
        found = self.texts.get(key)
        if found is None:
            found = self.texts[key] = format_ltl(ground(self.formula, env))
        return found


class _TooDeep(Exception):
    """The formula nests deeper than ``MAX_DEPTH``."""


_NONE: frozenset[str] = frozenset()


def _prepare(formula: LtlFormula, scope: LtlScope, bound: frozenset[str] = _NONE, depth: int = 1) -> _Node:
    """The prepared tree; raises :class:`_TooDeep` past ``MAX_DEPTH`` levels, before recursing further."""
    if depth > MAX_DEPTH:
        raise _TooDeep
    if isinstance(formula, LtlAtom):
        args = tuple((a.key in bound, a.key) for a in formula.args)
        key = None if any(v for v, _ in args) else (formula.name.key, *(k for _, k in args))
        action = scope.is_action(formula.name.key)
        used = _NONE if action or key is not None else frozenset(k for v, k in args if v)
        return _Node(formula, _ATOM, False, name=formula.name.key, args=args, key=key, action=action,
                     state_variables=used)
    if isinstance(formula, LtlQuantified):
        variable = formula.variable.key
        body = _prepare(formula.body, scope, bound | {variable}, depth + 1)
        objects = tuple(scope.range_of(formula))
        disjuncts = _action_disjuncts(body) if formula.quantifier == "exists" else ()
        return _Node(formula, _QUANTIFIED, body.temporal, (body,), objects=objects, variable=variable,
                     state_variables=body.state_variables - {variable}, object_set=frozenset(objects),
                     disjuncts=disjuncts, actions_only=variable not in body.state_variables)
    parts: tuple[LtlFormula, ...]
    if isinstance(formula, LtlNot):
        kind, parts = _NOT, (formula.operand,)
    elif isinstance(formula, LtlImplies):
        kind, parts = _IMPLIES, (formula.left, formula.right)
    elif isinstance(formula, LtlThen):
        kind, parts = _THEN, formula.stages
    else:
        kind, parts = (_AND if isinstance(formula, LtlAnd) else _OR), formula.operands
    children = tuple(_prepare(p, scope, bound, depth + 1) for p in parts)
    used = _NONE if not bound else frozenset().union(*(c.state_variables for c in children))
    return _Node(formula, kind, kind == _THEN or any(c.temporal for c in children), children,
                 state_variables=used)


def _action_disjuncts(node: _Node) -> tuple[_Node, ...]:
    """The action atoms ``node`` is a disjunction of (nested ``or`` flattened), or () when it is not."""
    if node.kind == _ATOM:
        return (node,) if node.action else ()
    if node.kind != _OR:
        return ()
    atoms = [_action_disjuncts(child) for child in node.children]
    return () if not all(atoms) else tuple(a for group in atoms for a in group)


class _Lazy(Sequence[int]):
    """Earliest ends (one per start 0..n) answered on demand: evaluating a goal asks for the ends from
    start 0, and ``then`` for the ends from where its previous stage ended, so most are never needed."""

    __slots__ = ("size",)

    def __init__(self, size: int) -> None:
        self.size = size

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[int]:
        return (self.at(i) for i in range(self.size))

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[int]: ...
    def __getitem__(self, index: int | slice) -> int | Sequence[int]:
        if type(index) is int:
            return self.at(index)
        return list(self)[index]

    def at(self, start: int) -> int:
        """The earliest end from ``start``."""
        raise NotImplementedError


class _Scan(_Lazy):
    """A state formula holds on pairs [i, j) iff it holds at some pair in it: the earliest end is one
    past the first pair at or after i where it holds, found by evaluating the formula on runs of
    ``CHUNK`` pairs from i on, each run once."""

    __slots__ = ("env", "evaluator", "node", "truths")

    def __init__(self, evaluator: _Evaluator, node: _Node, env: Env) -> None:
        self.size = evaluator.n + 1
        self.evaluator, self.node, self.env = evaluator, node, env
        self.truths: list[int | None] = [None] * evaluator.chunk_count()

    def at(self, start: int) -> int:
        """One past the first pair at or after ``start`` where the formula holds (n + 1: none)."""
        number, offset = divmod(start, CHUNK)
        while number < len(self.truths):
            truth = self.truths[number]
            if truth is None:
                evaluator = self.evaluator
                truth = self.truths[number] = evaluator.truth(self.node, self.env, evaluator.chunk(number))
            rest = truth >> offset
            if rest:
                return number * CHUNK + offset + (rest & -rest).bit_length()
            number, offset = number + 1, 0
        return self.size


class _Composed(_Lazy):
    """``A then B`` where A's earliest end from i is ``first[i]`` and B's (never decreasing) is
    ``second``."""

    __slots__ = ("first", "second")

    def __init__(self, size: int, first: Sequence[int], second: Sequence[int]) -> None:
        super().__init__(size)
        self.first, self.second = first, second

    def at(self, start: int) -> int:
        """B's earliest end from where A first ends."""
        middle = self.first[start]
        return self.second[middle] if middle < self.size - 1 else self.size


class _Picked(_Lazy):
    """All (latest earliest end) or any (earliest) of several parts on the same piece."""

    __slots__ = ("parts", "pick")

    def __init__(self, size: int, parts: list[Sequence[int]], pick: Callable[[Iterable[int]], int]) -> None:
        super().__init__(size)
        self.parts, self.pick = parts, pick

    def at(self, start: int) -> int:
        """The latest (all) or earliest (any) of the parts' earliest ends."""
        return self.pick(part[start] for part in self.parts)


CHUNK = 64
"""Pairs a state formula is evaluated on at a time: the earliest end from a start needs only the pairs up
to the first one where the formula holds, which in most goals and plans comes early."""


class _Chunk:
    """Pairs ``first`` .. ``first + size - 1`` of a trajectory, with what state formulas ask of them:
    last pair first, so that a test of every pair reads as a binary number (bit j: pair first + j)."""

    __slots__ = ("_acting", "_actions", "_by_name", "_pairs", "_performed", "_tested", "everything", "known",
                 "states")

    def __init__(self, pairs: Trajectory) -> None:
        self._pairs = pairs
        self.states = [state.atoms for state, _ in reversed(pairs)]
        self.everything = (1 << len(pairs)) - 1
        self._tested: dict[GroundAtom, int] = {}
        self.known: dict[_Node, int] = {}
        """The truths of the sub-formulas without bound variables asked so far (see ``_Evaluator.truth``)."""
        self._performed: dict[GroundAtom, int] = {}
        self._actions: list[GroundAtom | None] | None = None
        self._by_name: dict[tuple[str, int], list[GroundAtom]] | None = None
        self._acting: set[str] | None = None

    @property
    def actions(self) -> list[GroundAtom | None]:
        """The pairs' actions, last first (read the first time an action atom asks)."""
        if self._actions is None:
            self._actions = [action for _, action in reversed(self._pairs)]
        return self._actions

    def state_bits(self, atom: GroundAtom) -> int:
        """The pairs whose state holds ``atom``, tested the first time the goal asks (a state may hold
        thousands of atoms the goal never names)."""
        found = self._tested.get(atom)
        if found is None:
            if len(self.states) > 12:
                found = int(bytes(map(contains, self.states, repeat(atom))).translate(_BINARY), 2)
            else:  # a few pairs: a plain loop costs less than building the binary number
                found = 0
                for atoms in self.states:
                    found = found << 1 | (atom in atoms)
            self._tested[atom] = found
        return found

    def action_bits(self, action: GroundAtom) -> int:
        """The pairs whose action is ``action``."""
        found = self._performed.get(action)
        if found is None:
            tests = bytes(map(eq, self.actions, repeat(action)))
            found = self._performed[action] = int(tests.translate(_BINARY), 2)
        return found

    def by_name(self) -> dict[tuple[str, int], list[GroundAtom]]:
        """The actions taken, by name and length."""
        if self._by_name is None:
            by_name: dict[tuple[str, int], list[GroundAtom]] = {}
            self._by_name = by_name
            for action in set(self.actions):
                if action is not None:
                    found = by_name.get((action[0], len(action)))
                    if found is None:
                        by_name[action[0], len(action)] = [action]
                    else:
                        found.append(action)
        return self._by_name

    def acting(self) -> set[str]:
        """Every object some action of these pairs names."""
        if self._acting is None:
            named = self.by_name().values()
            self._acting = {arg for group in named for action in group for arg in action[1:]}
        return self._acting

    def some_action(self, node: _Node, env: Env) -> int:
        """``exists x. (a1 or a2 ...)`` over action atoms: the pairs whose action fits one of the atoms with
        x in the quantifier's range, found by matching the actions taken against the atoms instead of
        trying every object."""
        if not node.objects:
            return 0
        by_name = self.by_name()
        variable, objects = node.variable, node.object_set
        fitting: set[GroundAtom] = set()
        for atom in node.disjuncts:
            candidates = by_name.get((atom.name, len(atom.args) + 1))
            if not candidates:
                continue
            if atom.args == ((True, variable),):  # the usual shape: look(x)
                fitting.update(a for a in candidates if a[1] in objects)
            else:
                fitting.update(a for a in candidates if _fits(atom, variable, objects, env, a))
        if not fitting:
            return 0
        actions = self.actions
        if len(actions) > 12:
            return int(bytes(map(fitting.__contains__, actions)).translate(_BINARY), 2)
        found = 0  # a few pairs: a plain loop costs less than building the binary number
        for action in actions:
            found = found << 1 | (action in fitting)
        return found


class _Evaluator:
    def __init__(self, trajectory: Trajectory, meter: Meter | None = None) -> None:
        self.n = len(trajectory)
        self.trajectory = trajectory
        self.meter = meter or Meter()
        self._chunks: list[_Chunk | None] = [None] * ((self.n + CHUNK - 1) // CHUNK)
        self._acting: set[str] | None = None
        self._masks: dict[int, int] = {}
        self._ends: dict[tuple[_Node, tuple[tuple[str, str], ...]], Ends] = {}

    def chunk(self, number: int) -> _Chunk:
        """The ``number``-th run of ``CHUNK`` pairs, read the first time a state formula needs it."""
        found = self._chunks[number]
        if found is None:
            first = number * CHUNK
            found = self._chunks[number] = _Chunk(self.trajectory[first:first + CHUNK])
        return found

    def chunk_count(self) -> int:
        """How many runs of ``CHUNK`` pairs the trajectory has."""
        return len(self._chunks)

    # --- pair by pair (state formulas) ---------------------------------------------------------

    def truth(self, node: _Node, env: Env, chunk: _Chunk) -> int:
        """The pairs of ``chunk`` at which the state formula ``node`` holds, as a bit set; kept for a
        sub-formula without bound variables, which explaining a failure asks for again."""
        self.meter.spend(1)
        if node.kind == _ATOM:
            key = node.key or (node.name, *(env[k] if bound else k for bound, k in node.args))
            return chunk.action_bits(key) if node.action else chunk.state_bits(key)
        if env:
            return self._composite_truth(node, env, chunk)
        found = chunk.known.get(node)
        if found is None:
            found = chunk.known[node] = self._composite_truth(node, env, chunk)
        return found

    def _composite_truth(self, node: _Node, env: Env, chunk: _Chunk) -> int:
        kind = node.kind
        if kind == _AND:
            result = chunk.everything
            for operand in node.children:
                result &= self.truth(operand, env, chunk)
                if not result:
                    break
            return result
        if kind == _OR:
            result = 0
            for operand in node.children:
                result |= self.truth(operand, env, chunk)
            return result
        if kind == _NOT:
            return chunk.everything & ~self.truth(node.children[0], env, chunk)
        if kind == _IMPLIES:
            left, right = node.children
            return (chunk.everything & ~self.truth(left, env, chunk)) | self.truth(right, env, chunk)
        if kind == _QUANTIFIED:
            if node.disjuncts:
                return chunk.some_action(node, env)
            body, variable = node.children[0], node.variable
            acting = chunk.acting() if node.actions_only else None
            instances = [(self.truth(body, {**env, variable: o}, chunk), times)
                         for o, times in _objects(node, acting)]
            return self._quantify(node.formula, instances, chunk.everything)
        raise TypeError(f"`then` inside a state formula: {format_ltl(node.formula)}")

    def acting(self) -> set[str]:
        """Every object some action of the trajectory names."""
        if self._acting is None:
            self._acting = {arg for _, action in self.trajectory if action is not None for arg in action[1:]}
        return self._acting

    def _objects(self, node: _Node) -> list[tuple[str, int]]:
        """The objects a quantifier over a temporal formula tries (see :func:`_objects`)."""
        return _objects(node, self.acting() if node.actions_only else None)

    @staticmethod
    def _quantify(node: LtlFormula, instances: Iterable[tuple[int, int]], everything: int) -> int:
        """The quantifier over its instances' bit sets, each counted ``times`` (``forn`` counts)."""
        assert isinstance(node, LtlQuantified)
        if node.quantifier == "forall":
            return everything & _all(bits for bits, _ in instances)
        if node.quantifier == "exists":
            return _any(bits for bits, _ in instances)
        return exactly(node.count or 0, [bits for bits, times in instances for _ in range(times)], everything)

    # --- on pieces of the trajectory (temporal formulas) ---------------------------------------
    #
    # ends(node)[i] describes every j such that node holds on the pairs [i, j), in one of three forms:
    # "bits": a bit set of the ends j; "suffix": every j from values[i] on (n + 1: none), because a
    # formula that holds on [i, j) with j < n also holds on [i, j + 1) when it only asks for some pair
    # or stage to be reached; "earliest": a suffix form whose earliest end also never decreases as the
    # start moves right. State formulas are "earliest", and then / and / or / forall / exists keep
    # the form of their parts, so `then` composes in O(n); temporal `not`, `implies` and `forn` need
    # bit sets, which `then` composes in up to O(n^2) big-integer operations. "earliest" ends are
    # answered on demand (:class:`_Lazy`), so a goal made of those forms costs a few big-integer
    # operations per sub-formula, whatever the trajectory's length.

    def mask(self, first: int) -> int:
        """Bits ``first`` .. n: every end from ``first`` on."""
        if first > self.n:
            return 0
        found = self._masks.get(first)
        if found is None:
            found = self._masks[first] = ((1 << (self.n + 1)) - 1) ^ ((1 << first) - 1)
        return found

    def bits(self, ends: Ends) -> Sequence[int]:
        """The ends as bit sets, one per start."""
        kind, values = ends
        return values if kind == "bits" else [self.mask(e) for e in values]

    def holds_to_end(self, ends: Ends, start: int) -> bool:
        """Whether the formula holds on the pairs from ``start`` to the end of the trajectory."""
        kind, values = ends
        return bool(values[start] >> self.n & 1) if kind == "bits" else values[start] <= self.n

    def ends(self, node: _Node, env: Env) -> Ends:
        """Every end of every piece the formula holds on, per start (see above); each sub-formula and
        binding once, since explaining a failure asks again for the parts the verdict needed."""
        key = (node, tuple(env.items()))
        found = self._ends.get(key)
        if found is None:
            found = self._ends[key] = self._ends_of(node, env)
        return found

    def _ends_of(self, node: _Node, env: Env) -> Ends:
        n = self.n
        self.meter.spend(n + 1)
        if not node.temporal:
            return "earliest", _Scan(self, node, env)
        kind = node.kind
        if kind == _THEN:
            current = self.ends(node.children[0], env)
            for stage in node.children[1:]:
                current = self._then(current, self.ends(stage, env))
            return current
        if kind in (_AND, _OR):
            return self._combine(kind == _AND, [self.ends(o, env) for o in node.children])
        formula = node.formula
        if isinstance(formula, LtlQuantified) and formula.quantifier != "forn":
            body, variable = node.children[0], node.variable
            instances = [self.ends(body, {**env, variable: o}) for o, _ in self._objects(node)]
            return self._combine(formula.quantifier == "forall", instances)
        if kind == _NOT:
            inner = self.bits(self.ends(node.children[0], env))
            return "bits", [self.mask(i + 1) & ~inner[i] for i in range(n + 1)]
        if kind == _IMPLIES:
            left = self.bits(self.ends(node.children[0], env))
            right = self.bits(self.ends(node.children[1], env))
            return "bits", [(self.mask(i + 1) & ~left[i]) | right[i] for i in range(n + 1)]
        body, variable = node.children[0], node.variable
        per_object = [(self.bits(self.ends(body, {**env, variable: o})), times)
                      for o, times in self._objects(node)]
        return "bits", [self._quantify(formula, ((p[i], times) for p, times in per_object), self.mask(i + 1))
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
            if current_kind == "earliest":
                return "earliest", _Composed(n + 1, starts, values)
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
            if all(k == "earliest" for k, _ in parts):
                return "earliest", _Picked(n + 1, [v for _, v in parts], pick)
            return "suffix", [pick(values) for values in zip(*(v for _, v in parts), strict=True)]
        sets = [self.bits(part) for part in parts]
        if conjunctive:
            return "bits", [_all(p[i] for p in sets) & self.mask(i + 1) for i in range(n + 1)]
        return "bits", [_any(p[i] for p in sets) for i in range(n + 1)]

    # --- why it failed -------------------------------------------------------------------------

    def explain(self, node: _Node, env: Env, start: int) -> list[Failure]:
        """The innermost sub-formulas (conjuncts, ``then`` stages, instances) not achieved from ``start``."""
        formula = node.formula
        if self._holds_from(node, env, start):
            return []
        text = _Text(node, env)  # written out only for the failures reported
        if node.kind == _THEN:
            return self._explain_then(node, env, start, text)
        if node.kind == _AND:
            failed = [f for o in node.children for f in self.explain(o, env, start)]
            return failed or [Failure(formula, str(text), "never holds: its parts never hold together"
                                      if not node.temporal else "does not hold")]
        if isinstance(formula, LtlQuantified) and formula.quantifier == "forall":
            for obj in node.objects:
                failed = self.explain(node.children[0], {**env, node.variable: obj}, start)
                if failed:
                    return failed
            return [Failure(formula, str(text), "never holds for every object at once")]
        if node.kind == _ATOM:
            what = "is never performed" if node.action else "never holds"
            return [Failure(formula, str(text), what + _after(start))]
        if isinstance(formula, LtlQuantified) and formula.quantifier == "forn":
            reason = f"never holds for exactly {formula.count} objects{_after(start)}"
            return [Failure(formula, str(text), reason)]
        reason = "does not hold" if node.temporal else "never holds" + _after(start)
        return [Failure(formula, str(text), reason)]

    def _holds_from(self, node: _Node, env: Env, start: int) -> bool:
        """Whether ``node`` holds on the pairs from ``start`` to the end (a state formula: at some pair)."""
        if node.temporal:
            return self.holds_to_end(self.ends(node, env), start)
        if env:  # a state formula's truths are kept per chunk only without bound variables
            known = self._ends.get((node, tuple(env.items())))
            if known is not None:
                return self.holds_to_end(known, start)
        number, offset = divmod(start, CHUNK)
        while number < len(self._chunks):
            if self.truth(node, env, self.chunk(number)) >> offset:
                return True
            number, offset = number + 1, 0
        return False

    def _explain_then(self, node: _Node, env: Env, start: int, text: _Text) -> list[Failure]:
        """The first stage that no split reaches; the stages before it were achieved (earliest first)."""
        parts = [self.ends(stage, env) for stage in node.children]
        if all(kind == "earliest" for kind, _ in parts):
            begin, done_at = start, start
            for number, (_, earliest) in enumerate(parts, 1):
                end = earliest[begin]
                if end > self.n:
                    return self._stage_failed(node, env, text, number, begin, done_at, True)
                begin, done_at = end, end - 1
            return [Failure(node.formula, str(text), "does not hold")]  # pragma: no cover - caller checked
        reached, done_at = 1 << start, start
        for number, part in enumerate(parts, 1):
            following = _union_at(self.bits(part), reached & ~(1 << self.n))
            if not following or (number == len(parts) and not following >> self.n & 1):
                begin = (reached & -reached).bit_length() - 1
                return self._stage_failed(node, env, text, number, begin, done_at, not following)
            reached = following
            done_at = (following & -following).bit_length() - 2
        return [Failure(node.formula, str(text), "does not hold")]  # pragma: no cover - checked by the caller

    def _stage_failed(self, node: _Node, env: Env, text: _Text, number: int, begin: int, done_at: int,
                      unreached: bool) -> list[Failure]:
        stage = node.children[number - 1]
        inner = self.explain(stage, env, begin) if unreached else []
        if not inner:
            inner = [Failure(stage.formula, stage.text(env), "is not achieved")]
        where = f"stage {number} of {len(node.children)} in `{text}`"
        after = f", after stage {number - 1} was achieved at step {done_at}" if number > 1 else ""
        return [Failure(f.node, f.text, f"{f.reason} ({where}{after})") for f in inner]


class _Text:
    """A sub-formula with its variables bound, written out only if a failure message quotes it."""

    __slots__ = ("_env", "_node")

    def __init__(self, node: _Node, env: Env) -> None:
        self._node, self._env = node, env

    def __str__(self) -> str:
        return self._node.text(self._env)


def _objects(node: _Node, acting: set[str] | None) -> list[tuple[str, int]]:
    """The objects a quantifier tries, each with how many objects of its range it stands for: with
    ``acting`` (the objects the actions name; the quantifier's variable appears in action atoms only),
    one object no action names stands for all of them."""
    if acting is None:
        return [(o, 1) for o in node.objects]
    named = [(o, 1) for o in node.objects if o in acting]
    idle = [o for o in node.objects if o not in acting]
    return [*named, (idle[0], len(idle))] if idle else named


def _fits(atom: _Node, variable: str, objects: frozenset[str], env: Env, action: GroundAtom) -> bool:
    """Whether ``action`` (of the atom's name and arity) is ``atom`` with ``variable`` (any object of
    ``objects``) and ``env`` put in."""
    value = None
    for (bound, key), given in zip(atom.args, action[1:], strict=True):
        if bound and key == variable:
            if given not in objects or (value is not None and value != given):
                return False
            value = given
        elif (env[key] if bound else key) != given:
            return False
    return True


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


"""Derived predicates (PDDL 2.2 axioms): which derived atoms hold in a state, and why one does not.

A derived atom is never stored in a state: it holds exactly when some ``(:derived ...)`` rule's body
holds, so a state's derived atoms are the least fixpoint of the rules over its basic atoms, computed
afresh in every state before a precondition, a ``when`` condition or the goal reads it (Thiébaux,
Hoffmann and Nebel 2005, "In defense of PDDL axioms"). Rules may be recursive (``above`` through
``on``); negation is allowed where the rules are *stratified*: a derived predicate may read the
negation of another only when that one does not depend on it. :func:`stratify` orders the rules'
strongly connected components so that each is computed after everything it negates, and names the
cycle through a negation when there is none.

Each rule's body is split once into conjunctive clauses (``or`` and ``exists`` unfold into clauses of
literals), so a clause is evaluated by joining its positive atoms with the atoms of the state (only
bindings the state supports are tried) rather than by enumerating every tuple of objects. Recursive
components run semi-naively: after the first round a clause is re-joined only with one of its
recursive atoms drawn from the atoms derived in the round before. Every candidate binding is charged
to the world's meter, so a closure too large for the budget stops with the budget's reason instead of
hanging (analyses/semantics/budget.py).

:meth:`DerivedRules.explain` says why a derived atom is false by naming, for each rule instance tried,
the first body literal that is not met: ``(above a c) is false: no rule derives it — (on a c) is false;
(on a ?z) holds for no ?z``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Collection, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from plansight.analyses.model.pddl import (
    And,
    Atom,
    Comparison,
    DerivedPredicate,
    Domain,
    Formula,
    FunctionTerm,
    Imply,
    Not,
    Or,
    Quantified,
    TimeSpecified,
    TypedName,
    When,
    numeric_terms,
    walk,
)
from plansight.analyses.model.printer import print_formula
from plansight.analyses.semantics.budget import Meter
from plansight.analyses.semantics.fluents import UndefinedValue
from plansight.analyses.semantics.state import GroundAtom, GroundTerm

Atoms = Collection[GroundAtom]
Binding = Mapping[str, str]
Check = Callable[[Atoms, Binding], bool]
Pool = tuple[str, ...]

MAX_CLAUSES = 64
"""A body whose unfolding into clauses would exceed this stays one clause with a residual check: the
product of nested ``or``\\ s grows exponentially and a residual check is exact anyway."""
_VARIABLE = re.compile(r"\?[^\s()]+")
SHOWN_VALUES = 3
"""Objects named in an explanation before the rest are counted (``?z = b, c, d and 2 more``)."""


class ValuedAtoms(set[GroundAtom]):
    """The atoms a closure grows, with the state's fluent values beside them, so that a rule body's
    comparison (``(:derived (low ?r) (< (fuel ?r) 5))``) reads the state it is closed over."""

    __slots__ = ("values",)

    def __init__(self, atoms: Iterable[GroundAtom], values: Mapping[GroundTerm, float]) -> None:
        super().__init__(atoms)
        self.values = values

    def value(self, term: GroundTerm) -> float | None:
        """The value of a ground function term, None when it is undefined."""
        return self.values.get(term)


def _functions_read(rules: Sequence[DerivedPredicate]) -> frozenset[str]:
    """The functions the rules' comparisons read: a closure depends on their values."""
    return frozenset(
        term.function.key for rule in rules for node in walk(rule.body) if isinstance(node, Comparison)
        for side in (node.left, node.right) for term in numeric_terms(side) if isinstance(term, FunctionTerm))


# --- stratification -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Strata:
    """The derived predicates in evaluation order: each component after those it reads; ``cycle`` names
    the predicates of a cycle through a negation when the rules cannot be stratified (then
    ``components`` is empty)."""

    components: tuple[frozenset[str], ...]
    cycle: tuple[str, ...] = ()

    @property
    def stratified(self) -> bool:
        """Whether the rules have a meaning (no derived predicate depends on its own negation)."""
        return not self.cycle


def dependencies(rules: Sequence[DerivedPredicate]) -> dict[str, dict[str, bool]]:
    """head -> {derived predicate its bodies read -> read negatively somewhere}. Polarity follows the
    negation normal form: ``not`` and the condition of ``imply`` flip it."""
    heads = {rule.head.name.key for rule in rules}
    out: dict[str, dict[str, bool]] = {head: {} for head in heads}
    for rule in rules:
        reads = out[rule.head.name.key]
        for predicate, negative in _polarities(rule.body, False):
            if predicate in heads:
                reads[predicate] = reads.get(predicate, False) or negative
    return out


def _polarities(formula: Formula, negative: bool) -> Iterable[tuple[str, bool]]:
    stack: list[tuple[Formula, bool]] = [(formula, negative)]
    while stack:
        node, flipped = stack.pop()
        if isinstance(node, Atom):
            yield node.predicate.key, flipped
        elif isinstance(node, Not):
            stack.append((node.arg, not flipped))
        elif isinstance(node, Imply):
            stack.append((node.condition, not flipped))
            stack.append((node.consequence, flipped))
        elif isinstance(node, (And, Or)):
            stack.extend((arg, flipped) for arg in node.args)
        elif isinstance(node, Quantified):
            stack.append((node.body, flipped))
        else:  # comparisons, equalities, anything else: read both ways to be safe
            for inner in walk(node):
                if isinstance(inner, Atom):
                    yield inner.predicate.key, True
                    yield inner.predicate.key, False


def stratify(rules: Sequence[DerivedPredicate]) -> Strata:
    """Order the strongly connected components of the dependency graph (Tarjan's algorithm, which
    emits a component after every component it reaches: exactly the order of evaluation)."""
    graph = dependencies(rules)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[frozenset[str]] = []
    counter = itertools.count()

    def visit(node: str) -> None:
        # the dependency chains of real domains are a handful deep; recursion is fine here
        index[node] = low[node] = next(counter)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph[node]):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component: set[str] = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            components.append(frozenset(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    for component in components:
        for head in sorted(component):
            for read, negative in graph[head].items():
                if negative and read in component:
                    return Strata((), _cycle(graph, head, read, component))
    return Strata(tuple(components))


def _cycle(graph: Mapping[str, Mapping[str, bool]], start: str, end: str,
           component: frozenset[str]) -> tuple[str, ...]:
    """A path ``start`` -> ... -> ``end`` inside the component, each predicate read by the next
    (``start`` reads ``end`` negatively), so the message can show the whole loop."""
    paths: dict[str, tuple[str, ...]] = {start: (start,)}
    frontier = [start]
    while frontier and end not in paths:
        node = frontier.pop(0)
        for head, reads in sorted(graph.items()):
            if head in component and node in reads and head not in paths:
                paths[head] = (*paths[node], head)
                frontier.append(head)
    return paths.get(end, (start, end))


def stratification_problem(rules: Sequence[DerivedPredicate]) -> str | None:
    """Why the rules have no meaning, in words a user understands; None when they are stratified."""
    strata = stratify(rules)
    if strata.stratified:
        return None
    cycle = strata.cycle
    links = [f"`{cycle[0]}` reads the negation of `{cycle[-1]}`"]
    links += [f"`{reader}` reads `{read}`" for read, reader in itertools.pairwise(cycle)]
    return (f"the derived predicates cannot be stratified: `{cycle[0]}` depends on its own negation "
            f"({', '.join(links)}), so no fixpoint defines them")


# --- clauses --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Literal:
    """One conjunct of a clause: a (possibly negated) atom, or any other formula (a residual check)."""

    formula: Formula
    positive: bool
    predicate: str | None = None
    terms: tuple[str, ...] = ()

    def ground(self, binding: Binding) -> GroundAtom:
        """The literal's atom with ``binding`` applied (variables left unbound stay as written)."""
        assert self.predicate is not None
        return (self.predicate, *(binding.get(t, t) for t in self.terms))


@dataclass(frozen=True, slots=True)
class _Clause:
    """A conjunction of literals with existentially quantified ``variables`` (beyond the head's)."""

    variables: tuple[TypedName, ...]
    literals: tuple[_Literal, ...]

    @property
    def atoms(self) -> tuple[_Literal, ...]:
        """The positive atoms, joined with the state."""
        return tuple(lit for lit in self.literals if lit.predicate is not None and lit.positive)

    @property
    def filters(self) -> tuple[_Literal, ...]:
        """Everything else, tested once every variable is bound."""
        return tuple(lit for lit in self.literals if not (lit.predicate is not None and lit.positive))


def clauses(body: Formula, taken: frozenset[str]) -> list[_Clause]:
    """``body`` as a disjunction of clauses; ``taken`` are the variable names already in scope (a nested
    ``exists`` reusing one of them stays a residual check, so that its variable is not confused)."""
    found = _clauses(body, taken)
    return found if found is not None else [_Clause((), (_residual(body),))]


def _residual(formula: Formula) -> _Literal:
    return _Literal(formula, True)


def _clauses(formula: Formula, taken: frozenset[str]) -> list[_Clause] | None:
    if isinstance(formula, Atom):
        terms = tuple(a.key for a in formula.args)
        return [_Clause((), (_Literal(formula, True, formula.predicate.key, terms),))]
    if isinstance(formula, Not) and isinstance(formula.arg, Atom):
        atom = formula.arg
        return [_Clause((), (_Literal(formula, False, atom.predicate.key, tuple(a.key for a in atom.args)),))]
    if isinstance(formula, Or):
        out: list[_Clause] = []
        for arg in formula.args:
            inner = _clauses(arg, taken)
            if inner is None or len(out) + len(inner) > MAX_CLAUSES:
                return None
            out.extend(inner)
        return out
    if isinstance(formula, And):
        product = [_Clause((), ())]
        for arg in formula.args:
            inner = _clauses(arg, taken) or [_Clause((), (_residual(arg),))]
            bound = {v.name.key for clause in product for v in clause.variables}
            if len(product) * len(inner) > MAX_CLAUSES or any(
                    v.name.key in bound for clause in inner for v in clause.variables):
                # too many clauses, or two sibling `exists` naming the same variable (distinct variables)
                inner = [_Clause((), (_residual(arg),))]
            product = [_Clause((*left.variables, *right.variables), (*left.literals, *right.literals))
                       for left in product for right in inner]
        return product
    if isinstance(formula, Quantified) and formula.quantifier == "exists":
        names = [v.name.key for v in formula.variables]
        if taken.intersection(names) or len(set(names)) != len(names):
            return None
        inner = _clauses(formula.body, taken | set(names))
        if inner is None:
            return None
        return [_Clause((*formula.variables, *clause.variables), clause.literals) for clause in inner]
    return [_Clause((), (_residual(formula),))]


# --- rules ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Rule:
    head: str
    parameters: tuple[str, ...]
    clauses: tuple[_Clause, ...]
    rule: DerivedPredicate


@dataclass
class _Compiled:
    """A clause ready to evaluate: join order, pools and checks for its variables."""

    rule: _Rule
    clause: _Clause
    join: tuple[_Literal, ...]
    fitting: dict[str, Container[str]]
    pools: dict[str, Pool]
    filters: tuple[tuple[_Literal, Check], ...]
    recursive: tuple[int, ...] = ()
    """Positions in ``join`` of atoms whose predicate is in the clause's own component."""
    naive: bool = False
    """A filter reads the clause's own component: re-evaluate it whole each round (not semi-naively)."""
    variables: tuple[str, ...] = field(default=())


class DerivedRules:
    """The domain's rules compiled against one world; :meth:`closure` gives the derived atoms of a state.

    Built by the world with its own formula compiler (``compile``), its typed object pools (``pool``)
    and a getter for its current meter, so that the work is charged where the world's is.
    """

    def __init__(self, rules: Sequence[DerivedPredicate], compile_check: Callable[[Formula], Check],
                 pool: Callable[[TypedName], tuple[Pool, Container[str]]],
                 meter: Callable[[], Meter],
                 unmet: Callable[[Formula, Atoms, Binding], list[str]] | None = None) -> None:
        self.rules = tuple(rules)
        self.heads = frozenset(rule.head.name.key for rule in rules)
        self.strata = stratify(rules)
        self._meter = meter
        self._pool = pool
        self._compile = compile_check
        self._unmet = unmet
        """The world's account of why a formula is false (its failing literals, ground), for the parts of
        a body that are not plain literals (``forall``, ``imply``)."""
        self._by_head: dict[str, list[_Rule]] = {}
        for rule in rules:
            parameters = tuple(p.name.key for p in rule.head.parameters)
            compiled_rule = _Rule(rule.head.name.key, parameters,
                                  tuple(clauses(rule.body, frozenset(parameters))), rule)
            self._by_head.setdefault(compiled_rule.head, []).append(compiled_rule)
        self._components: list[list[_Compiled]] = []
        for component in self.strata.components:
            self._components.append([
                self._prepare(rule, clause, component)
                for head in sorted(component) for rule in self._by_head.get(head, ())
                for clause in rule.clauses])
        self.reads = frozenset(
            inner.predicate.key for rule in rules for inner in walk(rule.body) if isinstance(inner, Atom))
        """Every predicate a rule body mentions: a step changing none of them keeps the closure."""
        self.functions = _functions_read(rules)
        """Every function a rule body compares: a step changing none of their values (nor an atom of
        :attr:`reads`) keeps the closure; empty for rules over atoms only."""

    @property
    def stratified(self) -> bool:
        """Whether the closure is defined (see :class:`Strata`)."""
        return self.strata.stratified

    def _prepare(self, rule: _Rule, clause: _Clause, component: frozenset[str]) -> _Compiled:
        typed = [*rule.rule.head.parameters, *clause.variables]
        fitting: dict[str, Container[str]] = {}
        pools: dict[str, Pool] = {}
        for variable in typed:
            pools[variable.name.key], fitting[variable.name.key] = self._pool(variable)
        join = _join_order(clause.atoms)
        filters = tuple((lit, self._compile(lit.formula)) for lit in clause.filters)
        recursive = tuple(i for i, lit in enumerate(join) if lit.predicate in component)
        naive = any(isinstance(inner, Atom) and inner.predicate.key in component
                    for lit, _ in filters for inner in walk(lit.formula))
        return _Compiled(rule, clause, join, fitting, pools, filters, recursive, naive,
                         tuple(v.name.key for v in typed))

    # --- closure ----------------------------------------------------------------------------------

    def closure(self, basic: Atoms,
                values: Mapping[GroundTerm, float] | None = None) -> frozenset[GroundAtom]:
        """The derived atoms that hold over ``basic`` (the least fixpoint, stratum by stratum). Rules that
        compare numbers read ``values`` (by default those ``basic`` carries, when it is a valued set)."""
        if not self.stratified:
            return frozenset()
        meter = self._meter()
        full: set[GroundAtom]
        if self.functions:
            given = values if values is not None else getattr(basic, "values", None)
            full = ValuedAtoms(basic, given if isinstance(given, Mapping) else {})
        else:
            full = set(basic)
        reads = self.reads
        index = _Index(atom for atom in basic if atom[0] in reads)
        derived: set[GroundAtom] = set()
        for compiled in self._components:
            delta: set[GroundAtom] = set()
            for clause in compiled:
                self._evaluate(clause, full, index, None, -1, delta, meter)
            while delta:
                _absorb(delta, full, index, derived)
                fresh: set[GroundAtom] = set()
                delta_index = _Index(delta)
                for clause in compiled:
                    if clause.naive:
                        self._evaluate(clause, full, index, None, -1, fresh, meter)
                        continue
                    for position in clause.recursive:
                        self._evaluate(clause, full, index, delta_index, position, fresh, meter)
                delta = fresh
        return frozenset(derived)

    def _evaluate(self, clause: _Compiled, full: set[GroundAtom], index: _Index,
                  delta: _Index | None, position: int, out: set[GroundAtom],
                  meter: Meter) -> None:
        """Add to ``out`` the head atoms the clause derives that ``full`` lacks; with ``delta``, the atom
        at ``position`` of the join is drawn from it (semi-naive evaluation)."""
        head = clause.rule.head
        parameters = clause.rule.parameters
        for binding in self._bindings(clause, full, index, delta, position, {}, meter):
            atom = (head, *(binding[p] if p[0] == "?" else p for p in parameters))
            if atom not in full and atom not in out:
                out.add(atom)

    def _bindings(self, clause: _Compiled, full: Atoms, index: _Index,
                  delta: _Index | None, position: int, start: dict[str, str],
                  meter: Meter) -> Iterable[dict[str, str]]:
        """Every full binding of the clause's variables that makes its body true in ``full``."""
        join = clause.join
        order = list(range(len(join)))
        if position >= 0:  # start from the delta atom: the smallest relation
            order.remove(position)
            order.insert(0, position)

        def extend(step: int, binding: dict[str, str]) -> Iterable[dict[str, str]]:
            if step == len(order):
                yield from self._complete(clause, binding, full, meter)
                return
            at = order[step]
            literal = join[at]
            source = delta if at == position and delta is not None else index
            terms = literal.terms
            if source is index and all(t[0] != "?" or t in binding for t in terms):
                meter.spend(1)
                if literal.ground(binding) in full:
                    yield from extend(step + 1, binding)
                return
            for atom in source.candidates(literal, binding):
                meter.spend(1)
                extended = _match(terms, atom, binding, clause.fitting)
                if extended is not None:
                    yield from extend(step + 1, extended)

        yield from extend(0, start)

    def _complete(self, clause: _Compiled, binding: dict[str, str], full: Atoms,
                  meter: Meter) -> Iterable[dict[str, str]]:
        free = [v for v in clause.variables if v not in binding]
        if not free:  # the join bound everything: the usual case
            if all(check(full, binding) for _, check in clause.filters):
                yield binding
            return
        pools = [clause.pools[v] for v in free]
        for values in itertools.product(*pools):
            meter.spend(1)
            whole = dict(binding)
            whole.update(zip(free, values, strict=True))
            if all(check(full, whole) for _, check in clause.filters):
                yield whole

    # --- explanation ------------------------------------------------------------------------------

    def explain(self, atom: GroundAtom, full: Atoms) -> str:
        """Why the derived ``atom`` is false in the state whose atoms (basic and derived) are ``full``:
        for each rule for its predicate, the first unmet literal of each clause instance tried."""
        reasons: list[str] = []
        meter = self._meter()
        for rule in self._by_head.get(atom[0], ()):
            if len(rule.parameters) != len(atom) - 1:
                continue
            binding: dict[str, str] = {}
            fits = True
            for parameter, value in zip(rule.rule.head.parameters, atom[1:], strict=True):
                key = parameter.name.key
                _, fitting = self._pool(parameter)
                if value not in fitting or binding.get(key, value) != value:
                    fits = False
                binding[key] = value
            if not fits:
                reasons.append("the rule's parameter types do not admit these objects")
                continue
            for clause in rule.clauses:
                reasons.append(self._clause_reason(rule, clause, binding, full, meter))
        text = "; ".join(dict.fromkeys(reasons)) or "no rule has this predicate as its head"
        return f"no rule derives it — {text}"

    def _clause_reason(self, rule: _Rule, clause: _Clause, binding: dict[str, str], full: Atoms,
                       meter: Meter) -> str:
        """The first literal (positive atoms first, in the order written, then the others) that no
        candidate binding meets."""
        candidates = [binding]
        pools: dict[str, tuple[Pool, Container[str]]] = {v.name.key: self._pool(v) for v in clause.variables}
        fitting = {k: fit for k, (_, fit) in pools.items()}
        wanted = {lit.predicate for lit in clause.atoms}
        index = _Index(fact for fact in full if fact[0] in wanted)
        for literal in clause.atoms:
            unbound = [t for t in literal.terms if t[0] == "?" and t not in candidates[0]]
            extended: list[dict[str, str]] = []
            for candidate in candidates:
                if not unbound:
                    meter.spend(1)
                    if literal.ground(candidate) in full:
                        extended.append(candidate)
                    continue
                for fact in index.candidates(literal, candidate):
                    meter.spend(1)
                    match = _match(literal.terms, fact, candidate, fitting)
                    if match is not None:
                        extended.append(match)
            if not extended:
                return _failed(literal, candidates, binding, unbound)
            candidates = extended
        free = [v.name.key for v in clause.variables if v.name.key not in candidates[0]]
        if free and clause.filters:  # variables no positive atom binds range over their objects
            expanded = []
            for candidate in candidates:
                for values in itertools.product(*(pools[v][0] for v in free)):
                    meter.spend(1)
                    expanded.append({**candidate, **dict(zip(free, values, strict=True))})
            if not expanded:
                return f"no object can stand for {', '.join(free)}"
            candidates = expanded
        for literal in clause.filters:
            check = self._compile(literal.formula)
            survivors = []
            for candidate in candidates:
                meter.spend(1)
                try:
                    if check(full, candidate):
                        survivors.append(candidate)
                except UndefinedValue as undefined:  # a comparison reads a value the state lacks
                    return f"{print_formula(literal.formula)} reads an undefined value ({undefined.text})"
            if not survivors:
                if literal.predicate is None and len(candidates) == 1 and self._unmet:
                    parts = self._unmet(literal.formula, full, candidates[0])
                    if parts:
                        chosen = [v for v in candidates[0] if v not in binding]
                        return _for(chosen, candidates) + "; ".join(f"{part} is false" for part in parts[:3])
                return _failed(literal, candidates, binding, ())
            candidates = survivors
        return "its body holds"  # unreachable for a false atom; kept honest rather than asserted


def _failed(literal: _Literal, candidates: list[dict[str, str]], head: Mapping[str, str],
            unbound: Sequence[str]) -> str:
    """``(on a c) is false``, ``(on a ?z) holds for no ?z``, ``for ?z = b: (above b c) is false``."""
    chosen = [v for v in candidates[0] if v not in head]  # existential variables bound so far
    prefix = _for(chosen, candidates)
    if literal.predicate is None:
        bound = candidates[0] if len(candidates) == 1 else head
        return f"{prefix}{ground_text(literal.formula, bound)} is false"
    if unbound:  # a positive atom of the join that no atom of the state matches
        shown = _with_variables(literal, candidates[0] if len(candidates) == 1 else head)
        return f"{prefix}{shown} holds for no {', '.join(unbound)}"
    shown = _with_variables(literal, candidates[0] if len(candidates) == 1 else head)
    return f"{prefix}{shown} is false" if literal.positive else f"{prefix}{shown} holds"


def ground_text(formula: Formula, binding: Mapping[str, str]) -> str:
    """A formula on one line with its bound variables replaced by their objects (the world's own
    ``ground_text`` lives above this module, which it imports)."""
    text = " ".join(print_formula(formula).split())
    return _VARIABLE.sub(lambda m: binding.get(m.group(0).lower(), m.group(0)), text)


def _for(chosen: Sequence[str], candidates: list[dict[str, str]]) -> str:
    """``for ?z = b: `` / ``for ?z = b, c: `` (the objects the earlier literals allowed), or nothing."""
    if not chosen:
        return ""
    values = sorted({" ".join(c[v] for v in chosen) for c in candidates})
    listed = ", ".join(values[:SHOWN_VALUES])
    if len(values) > SHOWN_VALUES:
        listed += f" and {len(values) - SHOWN_VALUES} more"
    return f"for {' '.join(chosen)} = {listed}: "


def _with_variables(literal: _Literal, binding: Mapping[str, str]) -> str:
    return "(" + " ".join((literal.predicate or "", *(binding.get(t, t) for t in literal.terms))) + ")"


def _match(terms: tuple[str, ...], atom: GroundAtom, binding: dict[str, str],
           fitting: Mapping[str, Container[str]]) -> dict[str, str] | None:
    """``binding`` extended so that the literal's terms match ``atom``, or None."""
    if len(atom) != len(terms) + 1:
        return None
    extended = binding
    for term, value in zip(terms, atom[1:], strict=True):
        if term[0] == "?":
            bound = extended.get(term)
            if bound is None:
                allowed = fitting.get(term)
                if allowed is not None and value not in allowed:
                    return None
                if extended is binding:
                    extended = dict(binding)
                extended[term] = value
            elif bound != value:
                return None
        elif term != value:
            return None
    return extended


def _absorb(delta: set[GroundAtom], full: set[GroundAtom], index: _Index, derived: set[GroundAtom]) -> None:
    full.update(delta)
    derived.update(delta)
    for atom in delta:
        index.add(atom)


class _Index:
    """Atoms by predicate and, built on first use, by (predicate, argument position) -> object: a join
    step with a bound argument reads only the atoms that agree with it (the link after a path of a
    transitive closure) instead of every atom of the predicate."""

    __slots__ = ("by_position", "by_predicate")

    def __init__(self, atoms: Iterable[GroundAtom] = ()) -> None:
        self.by_predicate: dict[str, list[GroundAtom]] = {}
        self.by_position: dict[str, dict[int, dict[str, list[GroundAtom]]]] = {}
        for atom in atoms:
            self.by_predicate.setdefault(atom[0], []).append(atom)

    def add(self, atom: GroundAtom) -> None:
        """One more atom, in every table built so far."""
        self.by_predicate.setdefault(atom[0], []).append(atom)
        for position, table in self.by_position.get(atom[0], {}).items():
            if position + 1 < len(atom):
                table.setdefault(atom[position + 1], []).append(atom)

    def candidates(self, literal: _Literal, binding: Mapping[str, str]) -> Sequence[GroundAtom]:
        """The atoms that may match ``literal`` under ``binding`` (its first bound argument agrees)."""
        predicate = literal.predicate or ""
        for position, term in enumerate(literal.terms):
            value = binding.get(term) if term[0] == "?" else term
            if value is None:
                continue
            tables = self.by_position.setdefault(predicate, {})
            table = tables.get(position)
            if table is None:
                table = tables[position] = {}
                for atom in self.by_predicate.get(predicate, ()):
                    if position + 1 < len(atom):
                        table.setdefault(atom[position + 1], []).append(atom)
            return table.get(value, ())
        return self.by_predicate.get(predicate, ())


def _join_order(atoms: Sequence[_Literal]) -> tuple[_Literal, ...]:
    """Ground atoms first, then each next atom the one sharing the most variables with those joined."""
    ordered: list[_Literal] = []
    bound: set[str] = set()
    remaining = list(atoms)
    while remaining:
        def rank(lit: _Literal) -> tuple[int, int]:
            variables = {t for t in lit.terms if t[0] == "?"}
            return (len(variables - bound), -len(variables & bound))

        best = min(remaining, key=rank)
        remaining.remove(best)
        ordered.append(best)
        bound.update(t for t in best.terms if t[0] == "?")
    return tuple(ordered)


# --- what makes a domain's rules unusable ------------------------------------------------------------


def derived_reasons(domain: Domain) -> list[str]:
    """Why simulating with this domain's rules would be wrong: they cannot be stratified, or an action's
    effect changes a derived predicate (whose truth only its rules decide). Empty when they are fine."""
    if not domain.derived:
        return []
    reasons: list[str] = []
    problem = stratification_problem(domain.derived)
    if problem is not None:
        reasons.append(problem)
    touched = effects_on_derived(domain)
    if touched:
        listed = ", ".join(f"`{action}` changes `{predicate}`" for action, predicate in touched[:3])
        more = f" and {len(touched) - 3} more" if len(touched) > 3 else ""
        reasons.append(f"an effect changes a derived predicate ({listed}{more}): only its `:derived` rules "
                       "may decide when it holds")
    return reasons


def effects_on_derived(domain: Domain) -> list[tuple[str, str]]:
    """(action, derived predicate) for every action effect that adds or deletes a derived atom."""
    heads = {rule.head.name.key: rule.head.name.display for rule in domain.derived}
    found: dict[tuple[str, str], None] = {}
    for action in domain.actions:
        for atom in effect_atoms(action.effect):
            if atom.predicate.key in heads:
                found[(action.name.display, heads[atom.predicate.key])] = None
    return list(found)


def effect_atoms(effect: Formula | None) -> Iterable[Atom]:
    """The atoms an effect adds or deletes (not those its ``when`` conditions read)."""
    stack = [effect] if effect is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, Atom):
            yield node
        elif isinstance(node, Not):
            stack.append(node.arg)
        elif isinstance(node, When):
            stack.append(node.effect)
        elif isinstance(node, And):
            stack.extend(node.args)
        elif isinstance(node, (Quantified, TimeSpecified)):
            stack.append(node.body)

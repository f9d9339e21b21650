"""PDDL requirement keywords: which exist, what each implies, and which ones a domain's constructs need.

The domain checks (missing, unused and unknown requirements) and editor features (hover, completion
of `(:requirements ...)`) ask the same questions, so the knowledge lives here once. The inference is
deliberately lenient where real corpora disagree with the letter of the BNF (``(not (= ?x ?y))``
with only ``:equality``; a ``not`` over a compound condition with ``:negative-preconditions``): a
linter that rejects files every planner accepts gets switched off.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.pddl import (
    Action,
    And,
    Atom,
    Comparison,
    Domain,
    Equality,
    Formula,
    FunctionTerm,
    Imply,
    Name,
    Not,
    Number,
    NumericEffect,
    NumericExpr,
    Or,
    Preference,
    Quantified,
    TypedName,
    TypeRef,
    When,
    children,
    numeric_terms,
    walk,
)
from plansight.analyses.syntax.keyword_spans import SectionKeywords, keyword_span

KNOWN: dict[str, str] = {
    # PDDL 1.2
    ":strips": "Basic STRIPS: add and delete effects over atoms.",
    ":typing": "Typed objects, parameters and constants (`(:types ...)`, `?x - block`).",
    ":negative-preconditions": "`(not atom)` in preconditions and goals.",
    ":disjunctive-preconditions": "`or` and `imply` in preconditions and goals.",
    ":equality": "`(= t1 t2)` between terms.",
    ":existential-preconditions": "`exists` in preconditions and goals.",
    ":universal-preconditions": "`forall` in preconditions and goals.",
    ":quantified-preconditions": "Both `exists` and `forall` in preconditions and goals.",
    ":conditional-effects": "`when` and `forall` in effects.",
    ":fluents": "Functions: numeric and object fluents.",
    ":adl": "The ADL bundle: typing, negative, disjunctive and quantified preconditions, equality, "
    "conditional effects.",
    ":domain-axioms": "PDDL 1.2 axioms.",
    ":safety-constraints": "PDDL 1.2 safety constraints.",
    ":expression-evaluation": "PDDL 1.2 `eval` expressions.",
    ":open-world": "PDDL 1.2 open-world assumption.",
    ":true-negation": "PDDL 1.2 true (not failure) negation.",
    ":ucpop": "PDDL 1.2 bundle: ADL, domain axioms and safety constraints.",
    ":action-expansions": "PDDL 1.2 hierarchical action expansions.",
    ":foreach-expansions": "PDDL 1.2 `foreach` in action expansions.",
    ":dag-expansions": "PDDL 1.2 partially ordered action expansions.",
    ":subgoals-through-axioms": "PDDL 1.2 subgoaling through axioms.",
    # PDDL 2.1 - 3.1
    ":numeric-fluents": "Numeric functions, comparisons and `increase` / `assign` effects.",
    ":object-fluents": "Functions whose values are objects.",
    ":durative-actions": "`:durative-action` with `:duration` and timed conditions and effects.",
    ":duration-inequalities": "Duration constraints with `<=` / `>=` instead of `=`.",
    ":continuous-effects": "Effects that change a value continuously over time (`#t`).",
    ":derived-predicates": "`(:derived ...)` rules.",
    ":timed-initial-literals": "`(at 10 atom)` facts in a problem's `:init`.",
    ":preferences": "Soft goals and preconditions: `(preference name ...)`.",
    ":constraints": "PDDL3 trajectory constraints: `(:constraints ...)` with `always`, `sometime`, ...",
    ":action-costs": "A `total-cost` function increased by actions, for cost-optimal planning.",
    ":goal-utilities": "IPC-2008 net-benefit planning: utilities of goals in a problem's `:goal-utilities`.",
    # extensions found in public corpora
    ":time": "PDDL+ processes, events and continuous change.",
    ":non-deterministic": "FOND planning: `oneof` effects.",
    ":probabilistic-effects": "PPDDL: `probabilistic` effects.",
    ":rewards": "PPDDL: rewards.",
    ":contingent": "Contingent planning: `:observe` and `unknown` / `oneof` initial states.",
    ":partial-observability": "Planning with partially observable states.",
    ":hierarchy": "HDDL: tasks and methods.",
    ":method-preconditions": "HDDL: preconditions on methods.",
    ":multi-agent": "MA-PDDL: several agents.",
    ":unfactored-privacy": "MA-PDDL: private predicates in one file.",
    ":factored-privacy": "MA-PDDL: private predicates in one file per agent.",
}

IMPLIES: dict[str, frozenset[str]] = {
    ":adl": frozenset(
        (
            ":strips",
            ":typing",
            ":negative-preconditions",
            ":disjunctive-preconditions",
            ":equality",
            ":quantified-preconditions",
            ":conditional-effects",
        )
    ),
    ":quantified-preconditions": frozenset((":existential-preconditions", ":universal-preconditions")),
    ":fluents": frozenset((":numeric-fluents", ":object-fluents")),
    ":ucpop": frozenset((":adl", ":domain-axioms", ":safety-constraints")),
    ":timed-initial-literals": frozenset((":durative-actions",)),
    ":time": frozenset((":continuous-effects",)),
}

UNUSED_DETECTABLE = frozenset(
    (
        ":typing",
        ":conditional-effects",
        ":fluents",
        ":numeric-fluents",
        ":object-fluents",
        ":action-costs",
        ":durative-actions",
        ":duration-inequalities",
        ":continuous-effects",
        ":derived-predicates",
    )
)
"""Requirements whose non-use a domain alone proves. The others can be needed by a problem's goal
(`:negative-preconditions`, `:preferences`, ...) or by constructs outside this analysis (`:time`,
HDDL, FOND), so calling them unused would be a guess."""

TOTAL_COST = "total-cost"


def closure(requirements: Iterable[str]) -> frozenset[str]:
    """The requirements together with everything they imply (transitively)."""
    result = set()
    stack = list(requirements)
    while stack:
        key = stack.pop()
        if key not in result:
            result.add(key)
            stack.extend(IMPLIES.get(key, ()))
    return frozenset(result)


@dataclass(frozen=True, slots=True)
class RequirementUse:
    """One construct that needs a requirement.

    ``requirement`` is the keyword to suggest; ``accepted`` holds every keyword that (with its
    implications) makes the construct legal.
    """

    requirement: str
    construct: str
    span: Span
    accepted: frozenset[str]

    def covered_by(self, declared: frozenset[str]) -> bool:
        """Whether ``declared`` (already closed under implication) allows the construct."""
        return not self.accepted.isdisjoint(declared)


def _use(requirement: str, construct: str, span: Span, *also: str) -> RequirementUse:
    return RequirementUse(requirement, construct, span, frozenset((requirement, *also)))


def requirement_uses(domain: Domain) -> list[RequirementUse]:
    """Every construct of the domain that needs a requirement beyond `:strips`, in source order."""
    inference = _Inference(domain)
    uses = sorted(inference.run(), key=lambda u: u.span)
    return _settle_costs(uses)


def used_requirements(uses: Iterable[RequirementUse]) -> frozenset[str]:
    """The requirements some construct could rely on: a declared one outside this set is unused."""
    return frozenset(key for use in uses for key in use.accepted)


def _settle_costs(uses: list[RequirementUse]) -> list[RequirementUse]:
    """Suggest `:action-costs` rather than `:numeric-fluents` when every numeric construct is a cost."""
    numeric = [u for u in uses if ":numeric-fluents" in u.accepted]
    if not numeric or not all(":action-costs" in u.accepted for u in numeric):
        return uses
    return [
        RequirementUse(":action-costs", u.construct, u.span, u.accepted)
        if ":numeric-fluents" in u.accepted
        else u
        for u in uses
    ]


class _Inference:
    def __init__(self, domain: Domain) -> None:
        self.domain = domain
        self.keywords = SectionKeywords(domain.sections)
        self.object_functions = {
            f.name.key
            for f in domain.functions
            if f.type is not None and any(t.key != "number" for t in f.type.names)
        }

    def run(self) -> Iterator[RequirementUse]:
        domain = self.domain
        keywords = {section.key: section for section in reversed(domain.sections)}
        if domain.types and ":types" in keywords:
            yield _use(":typing", "`(:types ...)`", keywords[":types"].span)
        yield from self._typed(domain.constants)
        for predicate in domain.predicates:
            yield from self._typed(predicate.parameters)
        for function in domain.functions:
            yield from self._typed(function.parameters)
            if function.name.key in self.object_functions:
                assert function.type is not None
                yield _use(
                    ":object-fluents", f"object function `{function.name}`", function.type.span, ":fluents"
                )
            else:
                yield _use(
                    ":numeric-fluents",
                    f"numeric function `{function.name}`",
                    function.name.span,
                    ":action-costs",
                )
        if domain.constraints is not None and ":constraints" in keywords:
            yield _use(":constraints", "`(:constraints ...)`", keywords[":constraints"].span)
            yield from self._condition(domain.constraints, "a constraint")
        for rule in domain.derived:
            yield _use(":derived-predicates", "`(:derived ...)`", self.keywords.of(rule.span, ":derived"))
            yield from self._typed(rule.head.parameters)
            yield from self._condition(rule.body, "a derived predicate")
        for action in domain.actions:
            if not _plain(action):
                yield from self._action(action)

    def _typed(self, names: Iterable[TypedName]) -> Iterator[RequirementUse]:
        for item in names:
            if item.type is not None:
                yield _use(":typing", f"the type in `{item.name} - {_type_text(item.type)}`", item.type.span)

    def _action(self, action: Action) -> Iterator[RequirementUse]:
        if action.durative:
            keyword = self.keywords.of(action.span, ":durative-action")
            yield _use(":durative-actions", "`:durative-action`", keyword)
        elif action.kind in ("process", "event"):
            keyword = self.keywords.of(action.span, ":" + action.kind)
            yield _use(":time", f"`:{action.kind}`", keyword)
        yield from self._typed((*action.parameters, *action.variables))
        where = "a condition" if action.durative else "a precondition"
        yield from self._condition(action.precondition, where)
        yield from self._effect(action.effect, action)
        if action.duration is not None:
            for node in walk(action.duration):
                if not isinstance(node, Comparison):
                    continue
                if node.op in ("<=", ">="):
                    yield _use(
                        ":duration-inequalities",
                        f"`{node.op}` in a `:duration`",
                        keyword_span(node.span, node.op),
                    )
                yield from self._duration_functions(node)

    def _duration_functions(self, node: Comparison) -> Iterator[RequirementUse]:
        """A function in a duration is a numeric fluent: `:action-costs` allows only `total-cost`."""
        declared = {f.name.key for f in self.domain.functions}
        for side in (node.left, node.right):
            for term in numeric_terms(side):
                name = term.function if isinstance(term, FunctionTerm) else term
                if isinstance(name, Name) and name.key in declared and name.key not in self.object_functions:
                    yield _use(":numeric-fluents", f"function `{name}` in a `:duration`", name.span)

    def _condition(self, formula: Formula | None, where: str) -> Iterator[RequirementUse]:
        if _atoms_only(formula):  # a STRIPS precondition needs nothing (the bulk of a grounded domain)
            return
        for node in walk(formula):
            span = node.span
            if isinstance(node, Not):
                if not isinstance(node.arg, Equality):
                    yield _use(
                        ":negative-preconditions",
                        f"`not` in {where}",
                        keyword_span(span, "not"),
                        ":disjunctive-preconditions",
                    )
            elif isinstance(node, Or):
                yield _use(":disjunctive-preconditions", f"`or` in {where}", keyword_span(span, "or"))
            elif isinstance(node, Imply):
                yield _use(":disjunctive-preconditions", f"`imply` in {where}", keyword_span(span, "imply"))
            elif isinstance(node, Quantified):
                yield from self._typed(node.variables)
                if node.quantifier == "exists":
                    yield _use(
                        ":existential-preconditions", f"`exists` in {where}", keyword_span(span, "exists")
                    )
                else:
                    yield _use(
                        ":universal-preconditions", f"`forall` in {where}", keyword_span(span, "forall")
                    )
            elif isinstance(node, Equality):
                yield _use(":equality", f"`=` in {where}", keyword_span(span, "="))
            elif isinstance(node, Comparison):
                yield self._comparison(node, where)
            elif isinstance(node, Preference):
                yield _use(":preferences", f"`preference` in {where}", keyword_span(span, "preference"))
            elif isinstance(node, When):
                yield _use(":conditional-effects", f"`when` in {where}", keyword_span(span, "when"))

    def _comparison(self, node: Comparison, where: str) -> RequirementUse:
        span = keyword_span(node.span, node.op)
        if node.op == "=" and any(
            isinstance(side, FunctionTerm) and side.function.key in self.object_functions
            for side in (node.left, node.right)
        ):
            return _use(":object-fluents", f"`=` on an object function in {where}", span, ":fluents")
        return _use(":numeric-fluents", f"`{node.op}` in {where}", span)

    def _effect(self, formula: Formula | None, action: Action | None) -> Iterator[RequirementUse]:
        if _literals_only(formula):  # adds and deletes need nothing
            return
        stack: list[Formula] = [formula] if formula is not None else []
        while stack:
            node = stack.pop()
            span = node.span
            if isinstance(node, When):
                yield _use(":conditional-effects", "`when` in an effect", keyword_span(span, "when"))
                yield from self._condition(node.condition, "a `when` condition")
                stack.append(node.effect)
                continue
            if isinstance(node, Quantified):
                yield from self._typed(node.variables)
                if node.quantifier == "forall":
                    yield _use(":conditional-effects", "`forall` in an effect", keyword_span(span, "forall"))
            elif isinstance(node, NumericEffect):
                yield from self._numeric_effect(node, action)
            elif isinstance(node, Preference):
                yield _use(":preferences", "`preference` in an effect", keyword_span(span, "preference"))
            stack.extend(reversed(children(node)))

    def _numeric_effect(self, node: NumericEffect, action: Action | None) -> Iterator[RequirementUse]:
        span = keyword_span(node.span, node.op)
        target = node.target.function.key
        if target in self.object_functions:
            yield _use(":object-fluents", f"`{node.op}` of an object function", span, ":fluents")
        elif _is_cost_increase(node):
            yield _use(":numeric-fluents", f"`{node.op}` of `{node.target.function}`", span, ":action-costs")
        else:
            yield _use(":numeric-fluents", f"`{node.op}` in an effect", span)
        if action is not None and action.durative and _mentions_time(node.value):
            yield _use(":continuous-effects", "`#t` in an effect", span, ":time")


def _plain(action: Action) -> bool:
    """Whether ``action`` needs nothing beyond `:strips`: a parameterless `:action` whose precondition is
    atoms and whose effect is literals (the bulk of a grounded domain, skipped whole)."""
    return (action.kind == "action" and not action.parameters and not action.variables
            and action.duration is None and _atoms_only(action.precondition)
            and _literals_only(action.effect))


def _atoms_only(formula: Formula | None) -> bool:
    """Whether ``formula`` is missing, an atom or a conjunction of atoms."""
    if formula is None or type(formula) is Atom:
        return True
    return type(formula) is And and all(type(arg) is Atom for arg in formula.args)


def _literals_only(formula: Formula | None) -> bool:
    """Whether ``formula`` is missing, a literal or a conjunction of literals (``(not atom)`` included)."""
    if formula is None:
        return True
    parts = formula.args if type(formula) is And else (formula,)
    return all(type(part) is Atom or (type(part) is Not and type(part.arg) is Atom) for part in parts)


def _type_text(type_ref: TypeRef) -> str:
    names = " ".join(t.display for t in type_ref.names)
    return f"(either {names})" if type_ref.is_either else names


def _is_cost_increase(node: NumericEffect) -> bool:
    """`(increase (total-cost) N)` with N a number or a (static) function term: all `:action-costs` allows."""
    return (
        node.op == "increase"
        and node.target.function.key == TOTAL_COST
        and not node.target.args
        and isinstance(node.value, (Number, FunctionTerm))
    )


def _mentions_time(expr: NumericExpr) -> bool:
    return any(isinstance(t, Name) and t.key == "#t" for t in numeric_terms(expr))

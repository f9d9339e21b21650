"""tarski as an independent oracle for the parser.

On every corpus (domain, problem) pair, tarski 0.9.1's reader (``strict_with_requirements=False``)
runs on the same text. Where it accepts the pair, it must agree with our model on the names and
arities of types (and their parents), predicates, functions, actions, the objects and constants,
and the sizes of init and goal. Where it rejects the pair, the pair must use a construct tarski does
not support, found in *our* model (durative actions, `either`, derived predicates, ...) — a
rejection we cannot explain fails the test, and so does checking fewer pairs than the corpus has.

tarski is imported inside the fixture only: it is a test dependency and never on the product's path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from corpus import PDDL_SDIST, PDDL_SDIST_SOURCE, CorpusFile, corpus_files, pairs

from plansight.analyses.model.pddl import (
    And,
    Arithmetic,
    Atom,
    Comparison,
    Domain,
    Equality,
    FunctionTerm,
    Modal,
    Not,
    Problem,
    TypeRef,
    numeric_terms,
    walk,
)
from plansight.analyses.syntax.parse_pddl import parse_pddl

PAIRS = pairs(corpus_files())
TARSKI_SORTS = {"object", "Real", "Integer", "Natural", "number"}  # built in, never declared by a file
TARSKI_FUNCTIONS = {"ite"}  # registered by tarski's arithmetic theory


@dataclass
class Outcome:
    pair: tuple[CorpusFile, CorpusFile]
    error: str = ""  # tarski's exception, when it rejected the pair
    unsupported: list[str] = field(default_factory=list)  # constructs of the pair tarski does not support
    differences: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # ours vs tarski's

    @property
    def checked(self) -> bool:
        return not self.error


# --- what our model says --------------------------------------------------------------------------


def _ours(domain: Domain, problem: Problem) -> dict[str, Any]:
    goal = sum(1 for node in walk(problem.goal) if isinstance(node, (Atom, Equality, Comparison)))
    return {
        "types": {t.name.key for t in domain.types}
        | {n.key for t in domain.types if t.parent for n in t.parent.names} - {"object"},
        "type parents": {t.name.key: t.parent.names[0].key if t.parent else "object" for t in domain.types},
        "predicates": {(p.name.key, len(p.parameters)) for p in domain.predicates},
        "functions": {(f.name.key, len(f.parameters)) for f in domain.functions},
        "actions": {(a.name.key, len(a.parameters)) for a in domain.actions},
        "objects and constants": {c.name.key for c in (*domain.constants, *problem.objects)},
        # tarski's initial state is a set of true atoms plus function values: negative literals and
        # repeats leave no trace in it
        "init size": len({fact for fact in problem.init if not isinstance(fact, Not)}),
        "goal atoms": goal,
    }


def _tarski(problem: Any) -> dict[str, Any]:
    from tarski.syntax import formulas

    language = problem.language
    sorts = [s for s in language.sorts if s.name not in TARSKI_SORTS]
    goal, stack = 0, [problem.goal]
    while stack:
        node = stack.pop()
        if isinstance(node, formulas.Atom):
            goal += 1
        elif isinstance(node, formulas.CompoundFormula):
            stack.extend(node.subformulas)
        elif isinstance(node, formulas.QuantifiedFormula):
            stack.append(node.formula)
    return {
        "types": {s.name for s in sorts},
        "type parents": {s.name: language.immediate_parent[s].name for s in sorts},
        "predicates": {(p.symbol, p.arity) for p in language.predicates if isinstance(p.symbol, str)},
        "functions": {
            (f.symbol, f.arity) for f in language.functions
            if isinstance(f.symbol, str) and f.symbol not in TARSKI_FUNCTIONS
        },
        # tarski keeps action names as written; PDDL names are case-insensitive
        "actions": {(name.lower(), len(action.parameters)) for name, action in problem.actions.items()},
        "objects and constants": {c.name for c in language.constants()},
        "init size": len(problem.init.as_atoms()),
        "goal atoms": goal,
    }


# --- constructs tarski 0.9.1 does not support, found in our model ---------------------------------

_KEYWORD = re.compile(r"\(\s*([A-Za-z][A-Za-z-]*)|(:[A-Za-z][A-Za-z-]*)")
_KEYWORDS = frozenset(
    "define domain problem and or not imply exists forall when either preference at over start end all "
    "assign increase decrease scale-up scale-down minimize maximize".split()
)
_FOND_OR_CONTINGENT = frozenset({"oneof", "unknown"})


def _all_formulas(domain: Domain, problem: Problem) -> list[Any]:
    roots: list[Any] = [domain.constraints, problem.goal, problem.constraints, *problem.init]
    roots += [d.body for d in domain.derived]
    roots += [f for a in domain.actions for f in (a.precondition, a.effect, a.duration, a.observe)]
    return [node for root in roots for node in walk(root)]


def _numeric_exprs(nodes: list[Any], problem: Problem) -> list[Any]:
    exprs = [problem.metric.expr] if problem.metric else []
    for node in nodes:
        if isinstance(node, Comparison):
            exprs += [node.left, node.right]
        elif hasattr(node, "target"):
            exprs += [node.target, node.value]
    return [e for expr in exprs for e in numeric_terms(expr)]


def _type_refs(domain: Domain, problem: Problem, nodes: list[Any]) -> list[TypeRef | None]:
    refs: list[TypeRef | None] = [t.parent for t in domain.types]
    for typed in (domain.constants, problem.objects, *(p.parameters for p in domain.predicates),
                  *(f.parameters for f in domain.functions), *(a.parameters for a in domain.actions),
                  *(n.variables for n in nodes if hasattr(n, "variables"))):
        refs += [t.type for t in typed]
    return refs + [f.type for f in domain.functions]


def _parent_before_declaration(domain: Domain) -> list[str]:
    position = {t.name.key: i for i, t in enumerate(domain.types)}
    return [
        f"type `{t.name.key}` has a parent declared after it, `{t.parent.names[0].key}`"
        for i, t in enumerate(domain.types)
        if t.parent and len(t.parent.names) == 1 and position.get(t.parent.names[0].key, -1) > i
    ]


def _subtyped_fluent_arguments(domain: Domain, problem: Problem) -> list[str]:
    """tarski 0.9.1 raises TypeError (Sort.to_constant) on `(= (f o) v)` in :init when o's type is a
    proper subtype of f's parameter type."""
    object_type = {o.name.key: o.type for o in (*domain.constants, *problem.objects)}
    parameters = {f.name.key: f.parameters for f in domain.functions}
    found = []
    for fact in problem.init:
        if isinstance(fact, Comparison) and isinstance(fact.left, FunctionTerm):
            declared = parameters.get(fact.left.function.key, ())
            for arg, parameter in zip(fact.left.args, declared, strict=False):
                if object_type.get(arg.key) != parameter.type:
                    found.append(f"`{fact.left.function.key}` set in :init on an object of a subtype")
                    break
    return found[:1]


def unsupported(domain: Domain, problem: Problem, texts: tuple[str, str], rejected: set[str]) -> list[str]:
    nodes = _all_formulas(domain, problem)
    reasons = [f"requirement `{r.key}` is not in tarski's grammar"
               for r in (*domain.requirements, *problem.requirements) if r.key in rejected]
    labels = {"durative-action": "durative actions", "process": "processes", "event": "events"}
    reasons += [labels[a.kind] for a in domain.actions if a.kind in labels]
    if domain.derived:
        reasons.append("derived predicates")
    if any(ref is not None and ref.is_either for ref in _type_refs(domain, problem, nodes)):
        reasons.append("`either` types")
    if any(isinstance(n, Modal) and n.op in _FOND_OR_CONTINGENT for n in nodes) or any(
        a.observe is not None for a in domain.actions
    ):
        reasons.append("FOND / contingent constructs (`oneof`, `unknown`, `:observe`)")
    if domain.constraints is not None or problem.constraints is not None:
        reasons.append("PDDL3 `:constraints`")
    exprs = _numeric_exprs(nodes, problem)
    if any(isinstance(e, Arithmetic) and e.op == "-" and len(e.args) == 1 for e in exprs):
        reasons.append("unary minus")
    if problem.metric and any(isinstance(e, FunctionTerm) and e.function.key == "total-time"
                              for e in numeric_terms(problem.metric.expr)):
        reasons.append("a `total-time` metric")
    for text, model in zip(texts, (domain, problem), strict=True):
        words = [m.group(1) or m.group(2) for m in _KEYWORD.finditer(re.sub(r";[^\n]*", "", text))]
        if any(w.lower() in _KEYWORDS or w.startswith(":") for w in words if w != w.lower()):
            reasons.append("keywords not in lower case (tarski's grammar is case-sensitive)")
        empty = [n for n in walk_model(model) if isinstance(n, And) and not n.args]
        if any(re.fullmatch(r"\(\s*\)", text[n.span.start : n.span.end]) for n in empty):
            reasons.append("an empty formula `()`")
    reasons += _parent_before_declaration(domain)
    reasons += _subtyped_fluent_arguments(domain, problem)
    return sorted(set(reasons))


def walk_model(model: Domain | Problem) -> list[Any]:
    if isinstance(model, Domain):
        roots = [model.constraints, *(d.body for d in model.derived)]
        roots += [f for a in model.actions for f in (a.precondition, a.effect, a.duration, a.observe)]
    else:
        roots = [model.goal, model.constraints, *model.init]
    return [node for root in roots for node in walk(root)]


# --- running tarski --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def outcomes() -> dict[str, Outcome]:
    import logging

    from tarski.io import PDDLReader

    logging.getLogger().setLevel(logging.ERROR)  # tarski warns through the root logger

    def reader() -> Any:
        return PDDLReader(raise_on_error=True, strict_with_requirements=False)

    probed: dict[str, bool] = {}

    def rejects_requirement(requirement: str) -> bool:
        """Whether tarski's grammar rejects a requirement keyword even in a minimal domain."""
        if requirement not in probed:
            minimal = f"(define (domain probe) (:requirements {requirement}) (:predicates (p)))"
            try:
                reader().parse_domain_string(minimal)
                probed[requirement] = False
            except Exception:
                probed[requirement] = True
        return probed[requirement]

    results: dict[str, Outcome] = {}
    for domain_file, problem_file in PAIRS:
        outcome = Outcome((domain_file, problem_file))
        results[problem_file.id] = outcome
        texts = (domain_file.text(), problem_file.text())
        domain, problem = (parse_pddl(t).model for t in texts)
        assert isinstance(domain, Domain) and isinstance(problem, Problem)
        tarski = reader()
        try:
            tarski.parse_domain_string(texts[0])
            tarski.parse_instance_string(texts[1])
        except Exception as error:  # tarski raises many kinds; each is explained or fails below
            outcome.error = f"{type(error).__name__}: {str(error)[:200]}"
            requirements = {r.key for r in (*domain.requirements, *problem.requirements)}
            rejected = {r for r in requirements if rejects_requirement(r)}
            outcome.unsupported = unsupported(domain, problem, texts, rejected)
            continue
        ours, theirs = _ours(domain, problem), _tarski(tarski.problem)
        outcome.differences = {k: (ours[k], theirs[k]) for k in ours if ours[k] != theirs[k]}
    return results


@pytest.mark.parametrize("pair", PAIRS, ids=lambda pair: pair[1].id)
def test_tarski_agrees_or_the_construct_is_unsupported(
    pair: tuple[CorpusFile, CorpusFile], outcomes: dict[str, Outcome]
) -> None:
    outcome = outcomes[pair[1].id]
    if outcome.checked:
        assert outcome.differences == {}
    else:
        assert outcome.unsupported, f"tarski rejected a pair in its fragment: {outcome.error}"


def test_enough_pairs_are_checked(outcomes: dict[str, Outcome]) -> None:
    """The cross-check must not pass on nothing: most of the classical corpus is in tarski's fragment."""
    checked = [o for o in outcomes.values() if o.checked]
    bundled = [o for o in checked if o.pair[1].source != PDDL_SDIST_SOURCE]
    assert len(bundled) >= 12
    if PDDL_SDIST.is_dir():
        assert len(checked) - len(bundled) >= 150

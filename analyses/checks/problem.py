"""Semantic checks of a problem: against its domain when one is known, and, without one, the checks
that need no domain (sections, duplicate objects and facts, contradictory goals, the shape of
``:init``).

Problems are the files that get large (generated instances, tens of thousands of init facts), so the
init pass is a tight loop over plain atoms: the common, correct fact costs a few dictionary lookups
and one set intersection per argument; anything unusual falls through to the careful, slower path.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, MutableMapping

from plansight.analyses.checks.derived_rules import check_derived_init
from plansight.analyses.diagnostics.diagnostic import Diagnostic, Related, Tag, make
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.diagnostics.suggest import suffix
from plansight.analyses.model.deferred import Deferred, built, peek
from plansight.analyses.model.pddl import (
    And,
    Atom,
    Comparison,
    Domain,
    Equality,
    Formula,
    FunctionTerm,
    Modal,
    Name,
    Not,
    Number,
    NumericEffect,
    NumericExpr,
    Or,
    Problem,
    Quantified,
    TimedLiteral,
    TypedName,
    TypeRef,
    When,
    atom_text,
    children,
    conjuncts,
    numeric_terms,
    walk,
)
from plansight.analyses.model.vocabulary import Vocabulary, vocabulary
from plansight.analyses.semantics.argument_checks import (
    Ancestry,
    ObjectTable,
    Signature,
    Signatures,
    ancestry_of,
    arity_message,
    fits,
    mismatch_message,
    swap_hint,
)

_MISSING = object()
UNCERTAIN_OPS = frozenset({"oneof", "unknown"})
"""Contingent / conformant planning's incomplete initial states (``(oneof ...)``, ``(unknown ...)``);
problems that use them also wrap ``:init`` in ``(and ...)`` and use ``(or ...)`` there."""
CONTINGENT_REQUIREMENTS = frozenset({":contingent", ":non-deterministic"})
SPECIAL_FUNCTIONS = frozenset({"total-time", "is-violated"})
"""Functions PDDL defines for metrics: the makespan and the count of violated preferences."""

Scope = dict[str, tuple[TypeRef | None, Ancestry]]
FactKey = tuple[str, ...]


def check_problem(problem: Problem, domain: Domain | None) -> list[Diagnostic]:
    """Every semantic diagnostic of a problem; without its domain only what the problem says about itself is
    checked.
    """
    return _ProblemCheck(problem, domain).run()


def _head(node: Formula, keyword: str) -> Span:
    """The span of ``(keyword`` at the start of a form (the model keeps no keyword spans; PDDL is
    written ``(and`` in practice, and the span never runs past the form's first child)."""
    end = node.span.start + 1 + len(keyword)
    first = next(iter(children(node)), None)
    if first is not None and first.span.start > node.span.start:
        end = min(end, first.span.start)
    return Span(node.span.start, min(end, node.span.end))


def _key(atom: Atom) -> FactKey:
    return (atom.predicate.key, *[a.key for a in atom.args])


def _is_ground(atom: Atom) -> bool:
    return not any(a.key.startswith("?") for a in atom.args)


def goal_literal_of(node: Formula) -> tuple[bool, Atom] | None:
    """(polarity, atom) of a ground literal among the goal's conjuncts; None for anything else, which
    the contradiction and reachability checks leave alone."""
    if isinstance(node, Atom):
        positive, atom = True, node
    elif isinstance(node, Not) and isinstance(node.arg, Atom):
        positive, atom = False, node.arg
    else:
        return None
    return (positive, atom) if _is_ground(atom) else None


def _literal_text(positive: bool, atom: Atom) -> str:
    text = atom_text(atom.predicate.display, [a.display for a in atom.args])
    return text if positive else f"(not {text})"


class Tables:
    """What the checks look names up in: the domain's vocabulary, the problem's objects with their
    types, and the signatures of predicates and functions. Built from the domain and the problem's
    ``:objects`` alone, so successive versions of a problem that differ elsewhere can share them
    (``problem_incremental.py``)."""

    __slots__ = ("functions", "objects", "predicates", "typed", "vocab")

    def __init__(self, problem: Problem, domain: Domain | None) -> None:
        self.vocab: Vocabulary | None = vocabulary(domain) if domain is not None else None
        self.typed = self.vocab is not None and (self.vocab.typing or bool(self.vocab.types))
        if self.vocab is not None:
            self.objects = ObjectTable(self.vocab, problem, self.typed)
            self.predicates = Signatures(self.vocab.predicates, self.vocab.types)
            self.functions = Signatures(self.vocab.functions, self.vocab.types)


class _ProblemCheck:
    def __init__(self, problem: Problem, domain: Domain | None, tables: Tables | None = None) -> None:
        self.problem = problem
        self.domain = domain
        self.out: list[Diagnostic] = []
        tables = tables if tables is not None else Tables(problem, domain)
        self.vocab = tables.vocab
        self.typed = tables.typed
        if self.vocab is not None:
            self.objects = tables.objects
            self.predicates = tables.predicates
            self.functions = tables.functions
        # facts of :init, for duplicates, contradictions and reachability
        self.true_facts: MutableMapping[FactKey, Atom] = {}
        self.false_facts: MutableMapping[FactKey, Atom] = {}
        self.uncertain: set[FactKey] = set()
        self._columns: dict[str, tuple[Container[str], ...] | None] = {}
        self._timed_reported = False
        self._suggestions: dict[tuple[str, str], str] = {}
        self.requirements = {r.key for r in problem.requirements}
        if domain is not None:
            self.requirements |= {r.key for r in domain.requirements}

    def suggest(self, word: str, kind: str, candidates: list[str]) -> str:
        """"Did you mean" once per misspelled name: a generated problem may repeat it thousands of
        times."""
        memo = (kind, word.lower())
        found = self._suggestions.get(memo)
        if found is None:
            found = self._suggestions[memo] = suffix(word, candidates)
        return found

    def report(self, code: str, message: str, span: Span, **kwargs: object) -> None:
        self.out.append(make(code, message, span, **kwargs))

    def run(self) -> list[Diagnostic]:
        self.check_sections()
        self.check_objects()
        self.check_init()
        if self.domain is not None:
            self.out.extend(check_derived_init(self.problem, self.domain))
        # peeked, not read: a goal or list still deferred by an incremental parse is left to check_goal,
        # which may not need all of it built (checks/problem_incremental.py)
        goal = peek(self.problem, "goal")
        if goal is not None:
            self.check_goal(goal)
        if self.vocab is not None:
            constraints = built(peek(self.problem, "constraints"))
            if constraints is not None:
                self.check_formula(constraints, "constraints")
            metric = built(peek(self.problem, "metric"))
            if metric is not None:
                self.check_numeric(metric.expr, {}, "metric")
        self.out.sort(key=lambda d: (d.span, d.code))
        return self.out

    def check_goal(self, goal: Formula | Deferred) -> None:
        """The goal's names, then its contradictions and statically unreachable literals."""
        formula: Formula = built(goal)
        if self.vocab is not None:
            self.check_formula(formula, "goal")
        self.check_goal_literals(formula)

    # --- sections and objects ----------------------------------------------------------------------
    def check_sections(self) -> None:
        problem = self.problem
        first: dict[str, Name] = {}
        for keyword in problem.sections:
            earlier = first.setdefault(keyword.key, keyword)
            if earlier is not keyword:
                self.report(
                    "duplicate-section",
                    f"`{keyword.display}` appears twice in this problem: merge the two sections into one.",
                    keyword.span,
                    related=(Related(f"first `{earlier.display}` section", earlier.span),),
                )
        if problem.domain_name is None:
            self.report(
                "missing-section",
                "The problem does not say which domain it is for: add `(:domain NAME)` after "
                "`(problem ...)`.",
                problem.name.span,
            )
        if peek(problem, "goal") is None:
            self.report(
                "missing-section",
                "The problem has no `:goal`, so there is nothing to plan for: add `(:goal (and ...))`.",
                problem.name.span,
            )

    def check_objects(self) -> None:
        first: dict[str, TypedName] = {}
        for obj in self.problem.objects:
            self.check_object(obj, first.setdefault(obj.name.key, obj))
        if self.vocab is not None:
            if self.typed:
                self.check_object_types()
            else:
                self.check_untyped_domain_objects()

    def check_object(self, obj: TypedName, earlier: TypedName) -> None:
        """One declaration of ``:objects``; ``earlier`` is the first one of its name (``obj`` itself
        when it is the first). Shared with the chunked check of huge problems (``problem_stream.py``)."""
        if earlier is not obj:
            self.report(
                "duplicate-declaration",
                f"Object `{obj.name.display}` is already declared: remove this declaration.",
                obj.name.span,
                related=(Related(f"`{earlier.name.display}` first declared here", earlier.name.span),),
            )
        elif self.vocab is not None and obj.name.key in self.vocab.constants:
            domain_name = self.domain.name.display if self.domain is not None else ""
            self.report(
                "object-shadows-constant",
                f"`{obj.name.display}` is already a constant of domain `{domain_name}`: remove it from "
                "`:objects` (constants are available in every problem).",
                obj.name.span,
            )

    def _typed_groups(self) -> list[tuple[TypeRef, list[TypedName]]]:
        groups: dict[Span, tuple[TypeRef, list[TypedName]]] = {}
        for obj in self.problem.objects:
            if obj.type is not None:
                groups.setdefault(obj.type.span, (obj.type, []))[1].append(obj)
        return list(groups.values())

    def check_object_types(self) -> None:
        for type_ref, _ in self._typed_groups():
            self.check_type_ref(type_ref)

    def check_type_ref(self, type_ref: TypeRef | None) -> None:
        assert self.vocab is not None
        if type_ref is None or not self.typed:
            return
        for t in type_ref.names:
            if not self.vocab.declares_type(t.key):
                hint = self.suggest(t.display, "type", [d.name.display for d in self.vocab.domain.types])
                self.report(
                    "undeclared-type",
                    f"Type `{t.display}` is not declared in the domain's `:types`.{hint}",
                    t.span,
                )

    def check_untyped_domain_objects(self) -> None:
        for type_ref, members in self._typed_groups():
            self.check_untyped_group(type_ref, [m.name.display for m in members])

    def check_untyped_group(self, type_ref: TypeRef, members: list[str]) -> None:
        """Objects written with a type although the domain is untyped."""
        assert self.domain is not None
        names = " ".join(members)
        types = " ".join(t.display for t in type_ref.names)
        written = f"{names} - {types}" if not type_ref.is_either else f"{names} - (either {types})"
        self.report(
            "typed-objects-untyped-domain",
            f"The domain `{self.domain.name.display}` is untyped (no `:typing`), so objects cannot have "
            f"types: write `{names}` instead of `{written}`.",
            type_ref.span,
            data=(("fix", "remove-types"),),
        )

    # --- init ----------------------------------------------------------------------------------------
    def check_init(self) -> None:
        """Plain atoms take the fast path; every other element is handled after the loop, once it is
        known whether the problem is a contingent one (where ``and``/``or`` in init are allowed)."""
        others: list[Formula] = []
        self.check_init_atoms(self.problem.init, others)
        if others:
            self.check_other_init(others)

    def check_init_atoms(self, elements: Iterable[Formula], others: list[Formula]) -> None:
        """The fast path over plain atoms of ``:init``; every other element is put in ``others``. Called
        once on the whole list, or chunk after chunk by the chunked check of huge problems."""
        true_facts = self.true_facts
        fast = self.vocab is not None
        columns = self._columns
        for element in elements:
            if type(element) is not Atom:
                others.append(element)
                continue
            predicate = element.predicate.key
            keys = [a.key for a in element.args]
            key = (predicate, *keys)
            if key in true_facts:
                self.duplicate_fact(True, element, true_facts[key])
            else:
                true_facts[key] = element
            if not fast:
                continue
            if predicate in columns:
                accepting = columns[predicate]
            else:
                accepting = columns[predicate] = self.accepting(predicate)
            if accepting is None or len(accepting) != len(keys):
                self.check_atom(element, None, "init")
                continue
            for k, container in zip(keys, accepting, strict=True):
                if k not in container:
                    self.check_atom(element, None, "init")
                    break

    def accepting(self, predicate: str) -> tuple[Container[str], ...] | None:
        """Per parameter of ``predicate``, the objects that may be passed there (None: undeclared)."""
        signature = self.predicates.get(predicate)
        if signature is None:
            return None
        return tuple(self.objects.fitting(wanted) for wanted in signature[1])

    def check_other_init(self, elements: list[Formula], contingent: bool | None = None) -> None:
        """The elements of ``:init`` that are not plain atoms; ``contingent`` (worked out from them when
        not given) says whether ``and``/``or``/``oneof`` may appear there."""
        if contingent is None:
            contingent = bool(CONTINGENT_REQUIREMENTS & self.requirements) or any(
                isinstance(node, Modal) and node.op in UNCERTAIN_OPS for e in elements for node in walk(e)
            )
        stack = list(reversed(elements))
        while stack:
            element = stack.pop()
            if isinstance(element, Atom):
                self.init_literal(True, element, element)
            elif isinstance(element, Not) and isinstance(element.arg, Atom):
                self.init_literal(False, element.arg, element)
            elif isinstance(element, Comparison):
                self.init_assignment(element)
            elif isinstance(element, TimedLiteral):
                if not self._timed_reported and self.domain is not None and ":timed-initial-literals" not in (
                    self.requirements
                ):
                    self._timed_reported = True
                    self.report(
                        "missing-requirement",
                        "Timed initial literals like this `(at ...)` need the `:timed-initial-literals` "
                        "requirement: add it to the domain's `:requirements`.",
                        Span(element.span.start, element.time.span.end),
                        data=(("requirement", ":timed-initial-literals"),),
                    )
                self.init_timed(element)
            elif contingent and isinstance(element, And):
                stack.extend(reversed(element.args))
            elif contingent and (
                isinstance(element, Or) or (isinstance(element, Modal) and element.op in UNCERTAIN_OPS)
            ):
                self.init_uncertain(element)
            else:
                self.init_misplaced(element)

    def init_literal(self, positive: bool, atom: Atom, node: Formula) -> None:
        facts = self.true_facts if positive else self.false_facts
        key = _key(atom)
        if key in facts:
            self.duplicate_fact(positive, node, facts[key])
        else:
            facts[key] = atom
        if self.vocab is not None:
            self.check_atom(atom, None, "init")

    def duplicate_fact(self, positive: bool, node: Formula, first: Atom) -> None:
        atom = node if isinstance(node, Atom) else first
        text = _literal_text(positive, atom)
        self.report(
            "duplicate-init-fact",
            f"`{text}` is already in `:init`: remove this copy.",
            node.span,
            tags=(Tag.UNNECESSARY,),
            related=(Related(f"`{text}` first listed here", first.span),),
        )

    def init_assignment(self, node: Comparison) -> None:
        if node.op != "=":
            self.report(
                "misplaced-construct",
                f"`{node.op}` compares values; in `:init` a function gets its value with `=`, "
                "e.g. `(= (fuel truck1) 10)`.",
                _head(node, node.op),
            )
            return
        if not isinstance(node.right, (Number, Name)):
            self.report(
                "misplaced-construct",
                "The value given to a function in `:init` must be a number (or, for object fluents, an "
                "object), not an expression: compute it and write the result.",
                node.right.span,
            )
        if self.vocab is None:
            return
        self.check_numeric(node.left, None, "init")
        if isinstance(node.right, Name):
            self.check_term(node.right, None, "init")

    def init_timed(self, node: TimedLiteral) -> None:
        body = node.body
        for inner in walk(body):
            if isinstance(inner, Atom):
                self.uncertain.add(_key(inner))
        if isinstance(body, Atom) or (isinstance(body, Not) and isinstance(body.arg, Atom)):
            if self.vocab is not None:
                self.check_atom(body if isinstance(body, Atom) else body.arg, None, "init")  # type: ignore[arg-type]
        elif isinstance(body, Comparison):
            self.init_assignment(body)
        else:
            self.init_misplaced(body)

    def init_uncertain(self, node: Formula) -> None:
        for inner in walk(node):
            if isinstance(inner, Atom):
                self.uncertain.add(_key(inner))
                if self.vocab is not None:
                    self.check_atom(inner, None, "init")

    def init_misplaced(self, node: Formula) -> None:
        if isinstance(node, (And, Or)):
            keyword = "and" if isinstance(node, And) else "or"
            message = (
                f"`:init` lists facts, not a formula: remove `({keyword}` and its `)` and list the facts "
                "directly."
                if keyword == "and"
                else "`:init` lists facts that are all true; `(or ...)` cannot appear there (only in "
                "contingent problems, which use `oneof`): state which facts hold."
            )
            self.report("misplaced-construct", message, _head(node, keyword))
        elif isinstance(node, Not):
            self.report(
                "misplaced-construct",
                "Only atoms can be negated in `:init`, e.g. `(not (on a b))`.",
                _head(node, "not"),
            )
        elif isinstance(node, Equality):
            self.report(
                "misplaced-construct",
                "`(= a b)` compares objects and cannot be a fact in `:init`; functions get values with "
                "`(= (f a) 3)`.",
                node.span,
            )
        else:
            self.report(
                "misplaced-construct",
                "`:init` can only hold facts `(p a b)`, negated facts `(not (p a b))`, function values "
                "`(= (f a) 3)` and timed facts `(at 10 (p a))`: move this out of `:init`.",
                node.span,
            )
        # the names inside still deserve checking, but a misplaced formula states no certain fact
        for inner in walk(node):
            if isinstance(inner, Atom):
                self.uncertain.add(_key(inner))
                if self.vocab is not None:
                    self.check_atom(inner, None, "init")

    # --- formulas: goal, constraints -----------------------------------------------------------------
    def check_formula(self, root: Formula, where: str) -> None:
        assert self.vocab is not None
        stack: list[tuple[Formula, Scope]] = [(root, {})]
        while stack:
            node, scope = stack.pop()
            if isinstance(node, Atom):
                self.check_atom(node, scope, where)
            elif isinstance(node, Equality):
                self.check_term(node.left, scope, where)
                self.check_term(node.right, scope, where)
            elif isinstance(node, Comparison):
                self.check_numeric(node.left, scope, where)
                self.check_numeric(node.right, scope, where)
            elif isinstance(node, Quantified):
                inner = dict(scope)
                for variable in node.variables:
                    self.check_type_ref(variable.type)
                    inner[variable.name.key] = (variable.type, ancestry_of(self.vocab, variable.type))
                stack.append((node.body, inner))
            elif isinstance(node, NumericEffect):
                self.report(
                    "misplaced-construct",
                    f"`{node.op}` is an effect; the {where} can only state conditions: compare instead, "
                    "e.g. `(>= (f) 10)`.",
                    _head(node, node.op),
                )
            elif isinstance(node, When):
                self.report(
                    "misplaced-construct",
                    f"`when` is a conditional effect; in the {where} write `(imply CONDITION FORMULA)`.",
                    _head(node, "when"),
                )
            elif isinstance(node, TimedLiteral):
                self.report(
                    "misplaced-construct",
                    f"A timed literal `(at {node.time.text} ...)` belongs in `:init`, not in the {where}.",
                    Span(node.span.start, node.time.span.end),
                )
            else:
                stack.extend((child, scope) for child in reversed(children(node)))

    def check_goal_literals(self, goal: Formula) -> None:
        """Contradictions and statically unreachable atoms among the goal's top-level literals."""
        seen: dict[FactKey, tuple[bool, Formula]] = {}
        static = self.vocab is not None and bool(self.vocab.domain.actions)
        for node in conjuncts(goal):
            self.goal_literal(node, seen, static)

    def goal_literal(self, node: Formula, seen: MutableMapping[FactKey, tuple[bool, Formula]],
                     static: bool) -> None:
        """One top-level conjunct of the goal: whether it contradicts an earlier one (``seen``: per
        ground atom, the polarity last required and where it first was), and whether it is a static
        literal the initial state decides."""
        literal = goal_literal_of(node)
        if literal is None:
            return
        positive, atom = literal
        key = _key(atom)
        earlier = seen.setdefault(key, (positive, node))
        if earlier[0] != positive:
            seen[key] = (positive, node)  # report each later contradiction once
            self.report(
                "contradictory-goal",
                f"The goal requires both `{_literal_text(True, atom)}` and "
                f"`{_literal_text(False, atom)}`, so it can never hold: remove one of them.",
                node.span,
                related=(Related(f"`{_literal_text(earlier[0], atom)}` required here", earlier[1].span),),
            )
        if static:
            self.check_static_goal(positive, atom, node, key)

    def is_static_literal(self, atom: Atom, key: FactKey) -> bool:
        """Whether a ground goal atom is over a predicate no action changes, with declared arguments:
        its truth is then the initial state's."""
        assert self.vocab is not None
        predicate = atom.predicate.key
        signature = self.predicates.get(predicate)
        return not (
            signature is None
            or len(signature[0]) != len(atom.args)
            or not self.vocab.is_static(predicate)
            or key in self.uncertain
            or any(a.key not in self.objects.ancestry for a in atom.args)
        )

    def first_true(self, key: FactKey) -> Atom | None:
        """The first `:init` fact with this key (None: the fact is not initially true)."""
        return self.true_facts.get(key)

    def check_static_goal(self, positive: bool, atom: Atom, node: Formula, key: FactKey) -> None:
        if not self.is_static_literal(atom, key):
            return
        text = _literal_text(True, atom)
        first = self.first_true(key)
        if positive and first is None:
            self.report(
                "static-goal-unreachable",
                f"`{text}` can never become true: no action changes `{atom.predicate.display}` and the "
                "fact is not in `:init`, so the goal is unreachable. Add it to `:init` or remove it from "
                "the goal.",
                node.span,
            )
        elif not positive and first is not None:
            self.report(
                "static-goal-unreachable",
                f"`(not {text})` can never hold: no action changes `{atom.predicate.display}` and `{text}` "
                "is true in `:init`, so the goal is unreachable. Remove the fact from `:init` or the "
                "condition from the goal.",
                node.span,
                related=(Related(f"`{text}` is set here", first.span),),
            )

    # --- names ---------------------------------------------------------------------------------------
    def check_atom(self, atom: Atom, scope: Scope | None, where: str) -> None:
        assert self.vocab is not None
        predicate = atom.predicate
        signature = self.predicates.get(predicate.key)
        if signature is None:
            if predicate.key in self.vocab.functions:
                hint = (
                    f" `{predicate.display}` is a function: give it a value with "
                    f"`(= ({predicate.display} ...) 3)` or compare it with `(> ...)`."
                )
            else:
                declared = [p.name.display for p in self.vocab.predicates.values()]
                hint = self.suggest(predicate.display, "predicate", declared)
            self.report(
                "undeclared-predicate",
                f"`{predicate.display}` is not a predicate of domain "
                f"`{self.vocab.domain.name.display}`.{hint}",
                predicate.span,
            )
            for arg in atom.args:
                self.check_term(arg, scope, where)
            return
        parameters = signature[0]
        if len(parameters) != len(atom.args):
            self.report(
                "wrong-arity",
                arity_message(predicate, len(parameters), len(atom.args)),
                predicate.span,
                data=(("expected", str(len(parameters))),),
            )
            for arg in atom.args:
                self.check_term(arg, scope, where)
            return
        self.check_arguments(predicate, atom.args, signature, scope, where)

    def type_of(self, term: Name, scope: Scope | None) -> TypeRef | None:
        if scope is not None and term.key in scope:
            return scope[term.key][0]
        entry = self.objects.declared.get(term.key)
        return entry.type if entry is not None else None

    def check_arguments(
        self, owner: Name, args: tuple[Name, ...], signature: Signature, scope: Scope | None, where: str
    ) -> None:
        """Each argument declared, and of a type its parameter accepts (arity already checked)."""
        parameters, wanted = signature
        values = [self.check_term(arg, scope, where) for arg in args]
        for index, (arg, value) in enumerate(zip(args, values, strict=True)):
            if value is _MISSING or fits(value, wanted[index]):  # type: ignore[arg-type]
                continue
            message = mismatch_message(arg, self.type_of(arg, scope), owner, index, parameters[index])
            message += swap_hint(owner, args, values, wanted, index)
            self.report("type-mismatch", message, arg.span)

    def check_term(self, term: Name, scope: Scope | None, where: str) -> object:
        """The term's type ancestry, or ``_MISSING`` (and a diagnostic) when it names nothing."""
        key = term.key
        if key.startswith("?"):
            if scope is not None and key in scope:
                return scope[key][1]
            if where == "init":
                message = f"`{term.display}` is a variable; facts in `:init` must name objects."
            else:
                message = (
                    f"`{term.display}` is not bound in the {where}: declare it with "
                    f"`(exists ({term.display}) ...)` or `(forall ...)`, or name an object."
                )
            self.report("free-variable", message, term.span)
            return _MISSING
        value = self.objects.ancestry.get(key, _MISSING)
        if value is _MISSING:
            self.report(
                "undeclared-object",
                f"`{term.display}` is neither an object of this problem nor a constant of the domain: "
                f"declare it in `:objects`.{self.objects.suggestion(term.display)}",
                term.span,
            )
        return value

    def check_numeric(self, expr: NumericExpr, scope: Scope | None, where: str) -> None:
        for node in numeric_terms(expr):
            if isinstance(node, FunctionTerm):
                self.check_function(node, scope, where)
            elif isinstance(node, Name):
                self.check_numeric_name(node, scope, where)

    def check_function(self, term: FunctionTerm, scope: Scope | None, where: str) -> None:
        assert self.vocab is not None
        function = term.function
        if function.key in SPECIAL_FUNCTIONS and function.key not in self.vocab.functions:
            return
        signature = self.functions.get(function.key)
        if signature is None:
            self.undeclared_function(function)
            for arg in term.args:
                self.check_term(arg, scope, where)
            return
        parameters = signature[0]
        if len(parameters) != len(term.args):
            self.report(
                "wrong-arity",
                arity_message(function, len(parameters), len(term.args)),
                function.span,
                data=(("expected", str(len(parameters))),),
            )
            for arg in term.args:
                self.check_term(arg, scope, where)
            return
        self.check_arguments(function, term.args, signature, scope, where)

    def check_numeric_name(self, term: Name, scope: Scope | None, where: str) -> None:
        """A bare name where a number is expected: a variable, a 0-ary function written without
        parentheses (``total-cost``), ``total-time``, or an object (object fluents)."""
        assert self.vocab is not None
        key = term.key
        if key.startswith("?"):
            self.check_term(term, scope, where)
            return
        if key.startswith("#") or key in SPECIAL_FUNCTIONS or key in self.objects.ancestry:
            return
        signature = self.functions.get(key)
        if signature is None:
            self.undeclared_function(term)
        elif signature[0]:
            self.report(
                "wrong-arity",
                arity_message(term, len(signature[0]), 0),
                term.span,
                data=(("expected", str(len(signature[0]))),),
            )

    def undeclared_function(self, function: Name) -> None:
        assert self.vocab is not None
        if function.key in self.vocab.predicates:
            hint = f" `{function.display}` is a predicate, which is true or false, not a number."
        else:
            declared = [f.name.display for f in self.vocab.functions.values()]
            hint = self.suggest(function.display, "function", declared)
        self.report(
            "undeclared-function",
            f"`{function.display}` is not a function of domain `{self.vocab.domain.name.display}`.{hint}",
            function.span,
        )

"""Checks every name a domain's formulas refer to: predicates, functions, constants, variables, types.

One walk over each action, derived rule and constraint resolves each reference against the
vocabulary and the variables in scope, reports what does not resolve (with a near name when there is
one), wrong arities and type mismatches, and records what was used so that the unused-declaration
hints need no second walk.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from plansight.analyses.diagnostics.diagnostic import Diagnostic, Related, Severity, make
from plansight.analyses.diagnostics.suggest import did_you_mean
from plansight.analyses.model.pddl import (
    Action,
    And,
    Atom,
    Comparison,
    Domain,
    Equality,
    Formula,
    FunctionDecl,
    FunctionTerm,
    Name,
    Not,
    NumericEffect,
    NumericExpr,
    PredicateDecl,
    Quantified,
    TypedName,
    TypeRef,
    children,
    numeric_terms,
)
from plansight.analyses.model.vocabulary import OBJECT, Vocabulary

NUMBER = "number"
DURATION = "?duration"
TIME = "#t"
CONSTRAINTS = "the domain's `:constraints`"

Scope = dict[str, TypedName]


@dataclass
class Usage:
    """What the formulas mention, for the unused-declaration hints."""

    predicates: set[str] = field(default_factory=set)
    functions: set[str] = field(default_factory=set)
    constants: set[str] = field(default_factory=set)
    types: set[str] = field(default_factory=set)
    bindings: set[int] = field(default_factory=set)
    """``id()`` of every parameter or quantified variable some formula refers to."""


def plural(count: int, word: str) -> str:
    """``count`` and ``word``, with an English plural ``s`` unless the count is one; messages must read
    naturally for any count.
    """
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def type_text(type_ref: TypeRef | None) -> str:
    """A type as PDDL spells it, for messages: ``object`` when none was declared, ``(either a b)`` for a
    union.
    """
    if type_ref is None:
        return OBJECT
    if type_ref.is_either:
        return "(either " + " ".join(t.display for t in type_ref.names) + ")"
    return type_ref.names[0].display


def signature(name: Name, parameters: Iterable[TypedName]) -> str:
    """A declaration written back as ``(name ?x - type ...)``, so a message can show the user which
    declaration it means.
    """
    parts = [name.display]
    for p in parameters:
        parts.append(p.name.display if p.type is None else f"{p.name.display} - {type_text(p.type)}")
    return "(" + " ".join(parts) + ")"


def duplicate_variables(
    variables: Iterable[TypedName],
    owner: str,
    advice: str = ": rename or remove this one.",
    severity: Severity | None = None,
) -> list[Diagnostic]:
    """A variable listed twice in one parameter list, quantifier or declaration."""
    seen: dict[str, TypedName] = {}
    out = []
    for item in variables:
        first = seen.setdefault(item.name.key, item)
        if first is not item:
            out.append(
                make(
                    "duplicate-declaration",
                    f"`{item.name}` is already a variable of {owner}{advice}",
                    item.name.span,
                    severity=severity,
                    related=(Related(f"`{first.name}` first declared here", first.name.span),),
                )
            )
    return out


class ReferenceChecker:
    """Resolves the references of one domain's formulas against its vocabulary."""

    def __init__(self, vocab: Vocabulary) -> None:
        self.vocab = vocab
        self.diagnostics: list[Diagnostic] = []
        self.usage = Usage()
        self._fits: dict[tuple[tuple[str, ...], tuple[str, ...]], bool] = {}
        domain = vocab.domain
        parents = {p.key for t in domain.types if t.parent is not None for p in t.parent.names}
        self.known_types = set(vocab.types) | parents | {OBJECT}
        """Declared types, plus types named only as a parent (implicitly declared, as planners accept)."""

    # --- entry points ------------------------------------------------------------------------------
    def check(self, domain: Domain) -> None:
        """Walk every action, derived predicate and the constraints once, collecting diagnostics and the usage
        that the unused-declaration check reads afterwards.
        """
        for action in domain.actions:
            self._action(action)
        for rule in domain.derived:
            head = signature(rule.head.name, rule.head.parameters)
            scope = _scope(rule.head.parameters)
            self.usage.predicates.add(rule.head.name.key)
            self._formula(rule.body, scope, f"the derived predicate `{head}`", durative=False)
        if domain.constraints is not None:
            self._formula(domain.constraints, {}, CONSTRAINTS, durative=False)

    def type_ref(self, type_ref: TypeRef | None, allow_number: bool = False) -> None:
        """Reports undeclared types in a type reference and records the declared ones as used."""
        if type_ref is None:
            return
        for t in type_ref.names:
            if t.key in self.known_types or (allow_number and t.key == NUMBER):
                self.usage.types.add(t.key)
                continue
            candidates = [k for k in self.known_types if k != OBJECT]
            best = did_you_mean(t.key, candidates)
            hint = f" Did you mean `{best}`?" if best else ""
            self.diagnostics.append(
                make(
                    "undeclared-type",
                    f"Type `{t}` is not declared: add it to `(:types ...)`.{hint}",
                    t.span,
                    data=(("suggestion", best),) if best else (),
                )
            )

    # --- actions and formulas ----------------------------------------------------------------------
    def _action(self, action: Action) -> None:
        scope = _scope((*action.parameters, *action.variables))
        owner = f"`{action.name}`"
        for section in (action.precondition, action.effect, action.duration, action.observe):
            self._formula(section, scope, owner, durative=action.durative)

    def _formula(self, formula: Formula | None, scope: Scope, owner: str, durative: bool) -> None:
        if formula is None:
            return
        predicates = self.vocab.predicates
        used = self.usage.predicates
        if type(formula) is And and self._nullary_literals(formula):
            return
        stack: list[tuple[Formula, Scope]] = [(formula, scope)]
        while stack:
            node, here = stack.pop()
            if type(node) is Atom:
                if not node.args:
                    # a nullary atom (every literal of a grounded domain) of a nullary predicate: only its
                    # use is recorded; anything else goes the general way, to its diagnostics
                    decl = predicates.get(node.predicate.key)
                    if decl is not None and not decl.parameters:
                        used.add(node.predicate.key)
                        continue
                self._atom(node, here, owner, durative)
                continue  # an atom has no sub-formulas: the commonest node skips asking for them
            if type(node) is And or type(node) is Not:
                stack.extend((child, here) for child in reversed(children(node)))
                continue
            if isinstance(node, Equality):
                self._term(node.left, None, here, owner, durative, None)
                self._term(node.right, None, here, owner, durative, None)
            elif isinstance(node, Comparison):
                self._numeric(node.left, here, owner, durative)
                self._numeric(node.right, here, owner, durative)
            elif isinstance(node, NumericEffect):
                self._function_term(node.target, here, owner, durative)
                self._numeric(node.value, here, owner, durative)
            elif isinstance(node, Quantified):
                self.diagnostics.extend(duplicate_variables(node.variables, f"this `{node.quantifier}`"))
                for variable in node.variables:
                    self.type_ref(variable.type)
                here = {**here, **_scope(node.variables)}
            stack.extend((child, here) for child in reversed(children(node)))

    def _nullary_literals(self, conjunction: And) -> bool:
        """Record the predicates of a conjunction of nullary literals of nullary predicates (a grounded
        action's every condition and effect), which is all there is to check of them; False, recording
        nothing, for any other conjunction."""
        predicates = self.vocab.predicates
        keys = []
        for part in conjunction.args:
            atom = part.arg if type(part) is Not else part
            if type(atom) is not Atom or atom.args:
                return False
            key = atom.predicate.key
            decl = predicates.get(key)
            if decl is None or decl.parameters:
                return False
            keys.append(key)
        self.usage.predicates.update(keys)
        return True

    def _atom(self, atom: Atom, scope: Scope, owner: str, durative: bool) -> None:
        decl = self.vocab.predicates.get(atom.predicate.key)
        self._application(
            atom.predicate,
            atom.args,
            decl,
            self.usage.predicates,
            self._undeclared_predicate,
            scope,
            owner,
            durative,
        )

    def _function_term(self, term: FunctionTerm, scope: Scope, owner: str, durative: bool) -> None:
        if term.function.is_variable:  # `(increase ?t 1)`: the grammar lets a variable stand there
            self._term(term.function, None, scope, owner, durative, None)
            self.diagnostics.append(
                make(
                    "misplaced-construct",
                    f"`{term.function}` is a variable, but `assign`/`increase`/`decrease`/`scale-up`/"
                    "`scale-down` change a function: write a function term such as `(total-cost)` or "
                    f"`(fuel {term.function})`.",
                    term.function.span,
                )
            )
            return
        decl = self.vocab.functions.get(term.function.key)
        self._application(
            term.function,
            term.args,
            decl,
            self.usage.functions,
            self._undeclared_function,
            scope,
            owner,
            durative,
        )

    def _application(
        self,
        symbol: Name,
        args: tuple[Name, ...],
        decl: PredicateDecl | FunctionDecl | None,
        used: set[str],
        undeclared: Callable[[Name], None],
        scope: Scope,
        owner: str,
        durative: bool,
    ) -> None:
        """A predicate or function applied to arguments: declared? then its arity and argument types."""
        if decl is None:
            undeclared(symbol)
            for arg in args:
                self._term(arg, None, scope, owner, durative, None)
            return
        used.add(symbol.key)
        self._arguments(symbol, args, decl, scope, owner, durative)

    def _arguments(
        self,
        symbol: Name,
        args: tuple[Name, ...],
        decl: PredicateDecl | FunctionDecl,
        scope: Scope,
        owner: str,
        durative: bool,
    ) -> None:
        params = decl.parameters
        if len(args) != len(params):
            self.diagnostics.append(
                make(
                    "wrong-arity",
                    f"`{symbol}` takes {plural(len(params), 'argument')}, got {len(args)}: it is declared as "
                    f"`{signature(decl.name, params)}`.",
                    symbol.span,
                    related=(Related("declared here", decl.name.span),),
                )
            )
        for index, arg in enumerate(args):
            param = params[index] if index < len(params) else None
            self._term(arg, param, scope, owner, durative, symbol)

    def _numeric(self, expr: NumericExpr, scope: Scope, owner: str, durative: bool) -> None:
        for term in numeric_terms(expr):
            if isinstance(term, FunctionTerm):
                self._function_term(term, scope, owner, durative)
            elif isinstance(term, Name):
                self._bare_name(term, scope, owner, durative)

    def _bare_name(self, item: Name, scope: Scope, owner: str, durative: bool) -> None:
        """A name standing alone in a numeric expression: a variable, `#t`, a 0-ary function or a constant."""
        key = item.key
        if key == TIME:
            return
        if item.is_variable:
            self._term(item, None, scope, owner, durative, None)
        elif key in self.vocab.functions:
            self._function_term(FunctionTerm(item, (), item.span), scope, owner, durative)
        elif key in self.vocab.constants:
            self.usage.constants.add(key)
        else:
            self._undeclared_function(item)

    # --- terms -------------------------------------------------------------------------------------
    def _term(
        self,
        arg: Name,
        param: TypedName | None,
        scope: Scope,
        owner: str,
        durative: bool,
        symbol: Name | None,
    ) -> None:
        if arg.is_variable:
            binding = scope.get(arg.key)
            if binding is None:
                if not (durative and arg.key == DURATION):
                    self._free_variable(arg, scope, owner)
                return
            self.usage.bindings.add(id(binding))
            value_type = binding.type
        else:
            constant = self.vocab.constants.get(arg.key)
            if constant is None:
                self._undeclared_constant(arg, scope)
                return
            self.usage.constants.add(arg.key)
            value_type = constant.type
        if param is not None and symbol is not None:
            self._type_compatible(arg, value_type, param, symbol)

    def _type_compatible(self, arg: Name, value_type: TypeRef | None, param: TypedName, symbol: Name) -> None:
        expected = param.type
        if value_type is None or expected is None:
            return
        pair = (tuple(t.key for t in value_type.names), tuple(t.key for t in expected.names))
        fits = self._fits.get(pair)
        if fits is None:
            known = self.known_types
            # an undeclared type is reported as such; a mismatch message would only confuse
            fits = any(t not in known for t in (*pair[0], *pair[1])) or self.vocab.fits(pair[0], expected)
            self._fits[pair] = fits
        if fits:
            return
        self.diagnostics.append(
            make(
                "type-mismatch",
                f"`{arg}` has type `{type_text(value_type)}`, but parameter `{param.name}` of `{symbol}` "
                f"expects `{type_text(expected)}`.",
                arg.span,
            )
        )

    # --- diagnostics -------------------------------------------------------------------------------
    def _undeclared_predicate(self, symbol: Name) -> None:
        if symbol.key in self.vocab.functions:
            message = (
                f"`{symbol}` is a function, not a predicate: compare its value instead, "
                f"e.g. `(> ({symbol} ...) 0)`."
            )
            best = None
        else:
            best = did_you_mean(symbol.key, self.vocab.predicates)
            hint = f" Did you mean `{best}`?" if best else ""
            message = f"Predicate `{symbol}` is not declared in `(:predicates ...)`.{hint}"
        self.diagnostics.append(
            make("undeclared-predicate", message, symbol.span, data=(("suggestion", best),) if best else ())
        )

    def _undeclared_function(self, symbol: Name) -> None:
        if symbol.key in self.vocab.predicates:
            message = f"`{symbol}` is a predicate, not a function: numeric expressions need a function."
            best = None
        else:
            best = did_you_mean(symbol.key, self.vocab.functions)
            hint = f" Did you mean `{best}`?" if best else ""
            message = f"Function `{symbol}` is not declared in `(:functions ...)`.{hint}"
        self.diagnostics.append(
            make("undeclared-function", message, symbol.span, data=(("suggestion", best),) if best else ())
        )

    def _undeclared_constant(self, arg: Name, scope: Scope) -> None:
        as_variable = "?" + arg.key
        if as_variable in scope:
            best: str | None = scope[as_variable].name.display
        else:
            best = did_you_mean(arg.key, [*self.vocab.constants, *scope])
        hint = f" Did you mean `{best}`?" if best else ""
        self.diagnostics.append(
            make(
                "undeclared-constant",
                f"`{arg}` is not a declared constant: declare it in `(:constants ...)`, or use a "
                f"variable.{hint}",
                arg.span,
                data=(("suggestion", best),) if best else (),
            )
        )

    def _free_variable(self, arg: Name, scope: Scope, owner: str) -> None:
        best = did_you_mean(arg.key, scope)
        hint = f" Did you mean `{scope[best].name.display}`?" if best else ""
        if owner == CONSTRAINTS:
            message = f"`{arg}` is not bound by an enclosing `forall`/`exists`: bind it with one."
        elif owner.startswith("`"):
            message = (
                f"`{arg}` is not a parameter of {owner} nor bound by an enclosing `forall`/`exists`: add it "
                "to the action's `:parameters` or bind it with `forall`/`exists`."
            )
        else:
            message = (
                f"`{arg}` is not a variable of {owner} nor bound by an enclosing `forall`/`exists`: bind it "
                "with `forall`/`exists`."
            )
        self.diagnostics.append(
            make(
                "free-variable",
                message + hint,
                arg.span,
                data=(("suggestion", scope[best].name.display),) if best else (),
            )
        )


def _scope(variables: Iterable[TypedName]) -> Scope:
    scope: Scope = {}
    for v in variables:
        scope.setdefault(v.name.key, v)
    return scope

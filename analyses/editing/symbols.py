"""Every name in a domain, problem or plan, with what it refers to: the editor's map of the files.

Hover, go to definition, references, rename, highlight and semantic tokens all ask "which name is at
this offset, and which declaration does it mean?". The index answers once per parse: it walks the
model (whose names carry exact spans, so nothing is re-lexed) and resolves each occurrence against
the declarations of the document and of its partners (a problem's atoms resolve to the domain's
predicates, a plan's steps to the domain's actions and the problem's objects). A declaration is
identified by its file and the span of its name, so occurrences found in different files' indexes
can be compared directly.

Occurrences and declarations are named tuples: a 1 MB problem has a few hundred thousand names and
tuples are several times cheaper to create than dataclasses.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate, compress, islice, repeat
from operator import add, eq, is_, itemgetter
from typing import Literal, NamedTuple, overload

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.ltl import LtlAtom, LtlFormula, LtlGoal, LtlQuantified, ltl_children
from plansight.analyses.model.pddl import (
    Action,
    And,
    Arithmetic,
    Atom,
    Comparison,
    DerivedPredicate,
    Domain,
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
    Plan,
    Preference,
    Problem,
    Quantified,
    TimedLiteral,
    TimeSpecified,
    TypedName,
    TypeRef,
    When,
)
from plansight.analyses.syntax.build_model import Section, Splice

SymbolKind = Literal["type", "predicate", "function", "action", "constant", "object", "variable",
                     "requirement", "domain", "problem", "preference"]
Role = Literal["declaration", "reference"]

BUILT_IN_TYPES = frozenset({"object", "number"})
"""Types every domain has without declaring them (``number`` for function values)."""
BUILT_IN_VARIABLES = frozenset({"?duration", "#t"})
BUILT_IN_FUNCTIONS = frozenset({"total-time", "is-violated"})
"""Functions of a problem's ``:metric`` that no domain declares (``is-violated``'s argument is a
preference name)."""


class Declaration(NamedTuple):
    """Where a symbol is declared: the file, and the span of the declaring name there.

    ``scope`` is the span of the action, derived rule or quantifier a variable belongs to (None for
    the global symbols); two variables of the same name in different actions are different symbols.
    """

    kind: SymbolKind
    key: str
    path: str
    span: Span
    scope: Span | None = None


class Occurrence(NamedTuple):
    """One written name: its span in the indexed document, what it is, and what it refers to.

    ``target`` is None for built-ins (requirements, the type ``object``, ``?duration``) and for
    names that resolve to nothing (those have a diagnostic of their own).
    """

    span: Span
    kind: SymbolKind
    key: str
    text: str
    role: Role
    target: Declaration | None

    @property
    def is_declaration(self) -> bool:
        """Whether this occurrence declares the symbol, which is where go-to-definition lands."""
        return self.role == "declaration"


class SymbolIndex:
    """The occurrences of one document, in text order, and its own global declarations by kind."""

    __slots__ = ("_by_target", "_object_repeats", "_starts", "_targets", "_update", "declarations",
                 "kinds_kept_from", "occurrences", "path", "visible")

    def __init__(self, path: str, occurrences: Sequence[Occurrence],
                 declarations: dict[tuple[SymbolKind, str], Declaration],
                 visible: dict[tuple[SymbolKind, str], Declaration] | None = None,
                 starts: Sequence[int] | None = None) -> None:
        """``starts``, when given, are the occurrences' starts, already in order (an update knows them)."""
        if starts is None:
            starts = [o.span.start for o in occurrences]
            ordered = starts == sorted(starts)  # a domain's declarations are collected before its formulas
        else:
            ordered = True
        if not ordered:
            # a stable sort by start, keyed in C (``list.__getitem__``): a Python key function per
            # occurrence is measurably slower on the occurrences of a large problem
            order = sorted(range(len(starts)), key=starts.__getitem__)
            occurrences = [occurrences[i] for i in order]
            starts = [starts[i] for i in order]
        self.path = path
        self.occurrences: Sequence[Occurrence] = occurrences
        """in text order; never mutate"""
        self.declarations = declarations
        self.visible = visible if visible is not None else declarations
        """every global declaration names here can resolve to: this document's and its partners'"""
        self._starts: Sequence[int] = starts
        self._by_target: dict[Declaration, list[Occurrence]] = {}
        self._targets: list[Declaration | None] | None = None
        self._update: _UpdateTables | None = None
        """what :func:`update_index` derives from the declarations, kept along a chain of updates"""
        self.kinds_kept_from: tuple[object, object] | None = None
        """``(declarations, visible)`` of the index this one was updated from by an edit of the object
        list, when every name outside the edit kept its kind (an object typed that nothing names yet):
        its semantic tokens may then follow the edit (``semantic_token_edits.py``)"""
        self._object_repeats: dict[str, int] | None = None
        """how many times each object declared more than once is declared here (None: not known): an
        update of the object list must know where a name's declaration goes when its first one goes"""

    def at(self, offset: int) -> Occurrence | None:
        """The occurrence under the cursor; a cursor just after a name still finds it."""
        return symbol_at(self, offset)

    def references_to(self, target: Declaration) -> list[Occurrence]:
        """Every occurrence here that means ``target`` (its declaration included), in text order.

        Found by comparing the target of every occurrence with ``target`` in C, and remembered per
        target (highlight and rename ask again and again about the same one): a table of every target's
        occurrences, built on the first question, took ~50 ms on a 1 MB problem, paid again after each
        edit. After an edit of ``:objects`` the occurrences of an updated index resolve names only when
        made (:class:`_Pieces`): an object or constant is then found by its name.
        """
        found = self._by_target.get(target)
        occurrences = self.occurrences
        if found is None and isinstance(occurrences, _Pieces) and target.kind in _ARGUMENTS:
            found = occurrences.meaning(target)
        if found is None:
            targets = self._targets
            if targets is None:
                targets = self._targets = occurrences.targets() if isinstance(occurrences, _Pieces) else list(
                    map(_TARGET, occurrences))
            local = self.visible.get((target.kind, target.key))
            if local is not None and local == target:
                # a global declaration: every occurrence meaning it holds this very object (the builder
                # resolves through one table), so comparing pointers is enough
                matches = compress(range(len(targets)), map(is_, targets, repeat(local)))
            else:
                matches = compress(range(len(targets)), map(eq, targets, repeat(target)))
            found = [self.occurrences[i] for i in matches]
            if len(self._by_target) >= _REMEMBERED_TARGETS:
                self._by_target.clear()
            self._by_target[target] = found
        return list(found)

    def in_range(self, span: Span) -> list[Occurrence]:
        """The occurrences that start inside ``span`` (semantic tokens for a visible range)."""
        lo = _bisect_left(self._starts, span.start)
        hi = _bisect_left(self._starts, span.end)
        return list(self.occurrences[lo:hi])


_VARIABLE_MARKS = ("?", "#")
"""``?x`` and PDDL+'s ``#t``"""
_new = tuple.__new__
"""``Occurrence(...)`` without the keyword-handling wrapper, on the hot path."""


def symbol_at(index: SymbolIndex, offset: int) -> Occurrence | None:
    """The occurrence under the cursor; a cursor just after a name (``clear|``) still counts."""
    i = _bisect_right(index._starts, offset) - 1
    if i < 0:
        return None
    found = index.occurrences[i]
    if found.span.start <= offset < found.span.end:
        return found
    if offset == found.span.end:
        return found
    return None


# --- building ------------------------------------------------------------------------------------


class _Builder:
    """Walks one model, resolving names against tables of declarations collected first."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.out: list[Occurrence] = []
        self.seen_types: set[int] = set()
        """starts of type names already recorded: typed lists share one TypeRef between names"""
        self.globals: dict[tuple[SymbolKind, str], Declaration] = {}
        self.own: dict[tuple[SymbolKind, str], Declaration] = {}
        self.objects: dict[str, Declaration] = {}
        """what a non-variable argument can name: problem objects, then domain constants"""
        self.object_repeats: dict[str, int] = {}
        """how many times each object declared more than once in the indexed document is declared"""

    # declarations

    def declare(self, kind: SymbolKind, name: Name, path: str, own: bool) -> Declaration:
        """Record a global declaration (the first of a duplicated name wins, as in the checks);
        ``own`` when it is written in the indexed document (not in a partner)."""
        decl = _new(Declaration, (kind, name.key, path, name.span, None))
        existing = self.globals.setdefault((kind, name.key), decl)
        if kind == "constant":
            self.objects.setdefault(name.key, existing)
        elif kind == "object":  # an object shadows a domain constant of the same name
            previous = self.objects.get(name.key)
            if previous is None or previous.kind == "constant":
                self.objects[name.key] = existing
        if own:
            if kind == "object" and existing is not decl:
                self.object_repeats[name.key] = self.object_repeats.get(name.key, 1) + 1
            self.own.setdefault((kind, name.key), existing)
            self.out.append(_new(Occurrence, (name.span, kind, name.key, name.text, "declaration", existing)))
        return existing

    # references

    def ref(self, kind: SymbolKind, name: Name) -> None:
        self.out.append(Occurrence(name.span, kind, name.key, name.text, "reference",
                                   self.globals.get((kind, name.key))))

    def type_ref(self, type_ref: TypeRef | None) -> None:
        if type_ref is None:
            return
        for t in type_ref.names:
            if t.span.start in self.seen_types:
                continue
            self.seen_types.add(t.span.start)
            self.ref("type", t)

    def term(self, name: Name, scope: dict[str, Declaration]) -> None:
        key = name.key
        if key.startswith(_VARIABLE_MARKS):
            self.out.append(Occurrence(name.span, "variable", key, name.text, "reference", scope.get(key)))
            return
        decl = self.objects.get(key)
        self.out.append(Occurrence(name.span, decl.kind if decl else "constant", key, name.text,
                                   "reference", decl))

    def atom(self, node: Atom, scope: dict[str, Declaration]) -> None:
        """The hot path: a large problem is mostly ground atoms in ``:init``."""
        append, objects = self.out.append, self.objects
        predicate = node.predicate
        append(_new(Occurrence, (predicate.span, "predicate", predicate.key, predicate.text, "reference",
                                 self.globals.get(("predicate", predicate.key)))))
        for arg in node.args:
            key = arg.key
            if key.startswith(_VARIABLE_MARKS):
                append(_new(Occurrence, (arg.span, "variable", key, arg.text, "reference", scope.get(key))))
                continue
            decl = objects.get(key)
            append(_new(Occurrence, (arg.span, decl.kind if decl else "constant", key, arg.text,
                                     "reference", decl)))

    def bind(self, variables: Iterable[TypedName], owner: Span,
             scope: dict[str, Declaration]) -> dict[str, Declaration]:
        """A new scope with ``variables`` declared in it (inner bindings shadow outer ones)."""
        inner = dict(scope)
        for item in variables:
            self.type_ref(item.type)
            existing = inner.get(item.name.key)
            if existing is None or existing.scope != owner:  # a repeated variable: the first one wins
                inner[item.name.key] = Declaration("variable", item.name.key, self.path, item.name.span,
                                                   owner)
            self.out.append(Occurrence(item.name.span, "variable", item.name.key, item.name.text,
                                       "declaration", inner[item.name.key]))
        return inner

    def formula(self, root: Formula | None, scope: dict[str, Declaration]) -> None:
        if root is None:
            return
        stack: list[tuple[Formula, dict[str, Declaration]]] = [(root, scope)]
        while stack:
            node, env = stack.pop()
            if isinstance(node, Atom):
                self.atom(node, env)
            elif isinstance(node, (And, Or)):
                stack.extend((child, env) for child in reversed(node.args))
            elif isinstance(node, Not):
                stack.append((node.arg, env))
            elif isinstance(node, Equality):
                self.term(node.left, env)
                self.term(node.right, env)
            elif isinstance(node, Imply):
                stack.append((node.consequence, env))
                stack.append((node.condition, env))
            elif isinstance(node, Quantified):
                stack.append((node.body, self.bind(node.variables, node.span, env)))
            elif isinstance(node, Comparison):
                self.numeric(node.left, env)
                self.numeric(node.right, env)
            elif isinstance(node, Preference):
                if node.name is not None:
                    self.preference(node.name)
                stack.append((node.body, env))
            elif isinstance(node, (TimeSpecified, TimedLiteral)):
                stack.append((node.body, env))
            elif isinstance(node, Modal):
                stack.extend((child, env) for child in reversed(node.args))
            elif isinstance(node, When):
                stack.append((node.effect, env))
                stack.append((node.condition, env))
            elif isinstance(node, NumericEffect):
                self.numeric(node.target, env)
                self.numeric(node.value, env)

    def numeric(self, root: NumericExpr, scope: dict[str, Declaration]) -> None:
        stack: list[NumericExpr] = [root]
        while stack:
            node = stack.pop()
            if isinstance(node, FunctionTerm):
                self.ref("function", node.function)
                if node.function.key == "is-violated":
                    for arg in node.args:
                        self.ref("preference", arg)
                    continue
                for arg in node.args:
                    self.term(arg, scope)
            elif isinstance(node, Arithmetic):
                stack.extend(reversed(node.args))
            elif isinstance(node, Name):
                self.term(node, scope)
            elif isinstance(node, Number):
                continue

    def preference(self, name: Name) -> None:
        """A preference is declared where it is written (several may share one name: the first is
        the declaration the others and ``(is-violated NAME)`` refer to)."""
        decl = self.globals.get(("preference", name.key))
        if decl is None:
            decl = self.globals[("preference", name.key)] = Declaration("preference", name.key, self.path,
                                                                        name.span)
        self.out.append(Occurrence(name.span, "preference", name.key, name.text,
                                   "declaration" if decl.span == name.span else "reference", decl))

    def requirements(self, names: Iterable[Name]) -> None:
        for r in names:
            self.out.append(Occurrence(r.span, "requirement", r.key, r.text, "reference", None))

    # the three kinds of document

    def domain_tables(self, domain: Domain, path: str, own: bool) -> None:
        """Declare a domain's global symbols (``own``: it is the indexed document, not a partner)."""
        self.declare("domain", domain.name, path, own)
        for t in domain.types:
            self.declare("type", t.name, path, own)
        for t in domain.types:  # a type named only as a parent is implicitly declared there
            for parent in t.parent.names if t.parent is not None else ():
                if parent.key not in BUILT_IN_TYPES and ("type", parent.key) not in self.globals:
                    self.globals[("type", parent.key)] = Declaration("type", parent.key, path, parent.span)
        for c in domain.constants:
            self.declare("constant", c.name, path, own)
        for p in domain.predicates:
            self.declare("predicate", p.name, path, own)
        for rule in domain.derived:
            if ("predicate", rule.head.name.key) not in self.globals:
                self.declare("predicate", rule.head.name, path, own)
        for f in domain.functions:
            self.declare("function", f.name, path, own)
        for a in domain.actions:
            self.declare("action", a.name, path, own)

    def domain_body(self, domain: Domain) -> None:
        self.requirements(domain.requirements)
        for t in domain.types:
            self.type_ref(t.parent)
        for c in domain.constants:
            self.type_ref(c.type)
        for p in domain.predicates:
            self.bind(p.parameters, p.span, {})
        for f in domain.functions:
            self.bind(f.parameters, f.span, {})
            self.type_ref(f.type)
        for rule in domain.derived:
            self.derived(rule)
        for action in domain.actions:
            self.action(action)
        self.formula(domain.constraints, {})

    def derived(self, rule: DerivedPredicate) -> None:
        head = rule.head.name
        decl = self.globals.get(("predicate", head.key))
        if decl is None or decl.span != head.span:
            self.ref("predicate", head)
        scope = self.bind(rule.head.parameters, rule.span, {})
        self.formula(rule.body, scope)

    def action(self, action: Action) -> None:
        scope = self.bind((*action.parameters, *action.variables), action.span, {})
        self.formula(action.duration, scope)
        self.formula(action.precondition, scope)
        self.formula(action.effect, scope)
        self.formula(action.observe, scope)

    def problem_tables(self, problem: Problem, path: str, own: bool) -> None:
        self.declare("problem", problem.name, path, own)
        for o in problem.objects:
            self.declare("object", o.name, path, own)

    def problem_body(self, problem: Problem) -> None:
        if problem.domain_name is not None:
            self.ref("domain", problem.domain_name)
        self.requirements(problem.requirements)
        for o in problem.objects:
            self.type_ref(o.type)
        atom, formula = self.atom, self.formula
        no_variables: dict[str, Declaration] = {}
        for fact in problem.init:  # mostly ground atoms: straight to the hot path
            if type(fact) is Atom:
                atom(fact, no_variables)
            else:
                formula(fact, {})
        self.formula(problem.goal, {})
        self.formula(problem.constraints, {})
        if problem.metric is not None:
            self.numeric(problem.metric.expr, {})

    def ltl_body(self, goal: LtlGoal) -> None:
        """An LTL goal's atoms name a predicate or else an action; their arguments are objects or
        variables bound by an enclosing ``forall x.`` / ``exists x.`` (written without ``?``)."""
        if goal.formula is None:
            return
        stack: list[tuple[LtlFormula, dict[str, Declaration]]] = [(goal.formula, {})]
        while stack:
            node, env = stack.pop()
            if isinstance(node, LtlAtom):
                kind: SymbolKind = "action" if ("predicate", node.name.key) not in self.globals and (
                    "action", node.name.key) in self.globals else "predicate"
                self.ref(kind, node.name)
                for arg in node.args:
                    bound = env.get(arg.key)
                    if bound is not None:
                        self.out.append(Occurrence(arg.span, "variable", arg.key, arg.text, "reference",
                                                   bound))
                    else:
                        self.term(arg, env)
                continue
            if isinstance(node, LtlQuantified):
                variable = node.variable
                decl = Declaration("variable", variable.key, self.path, variable.span, node.span)
                self.out.append(Occurrence(variable.span, "variable", variable.key, variable.text,
                                           "declaration", decl))
                stack.append((node.body, {**env, variable.key: decl}))
                continue
            stack.extend((child, env) for child in reversed(ltl_children(node)))

    def plan_body(self, plan: Plan) -> None:
        for step in plan.steps:
            self.ref("action", step.action)
            for arg in step.args:
                self.term(arg, {})


Indexed = Domain | Problem | Plan | LtlGoal | None
"""What an index can be built over: a PDDL model, a plan, or an ``.ltl`` goal."""


def build_index(model: Indexed, path: str = "", *,
                domain: Domain | None = None, domain_path: str = "",
                problem: Problem | None = None, problem_path: str = "") -> SymbolIndex:
    """The occurrence index of ``model`` (the document at ``path``), resolved against its partners.

    For a problem pass its ``domain``; for a plan or an LTL goal its ``problem`` and ``domain``. A
    partner that is missing just leaves the names that would resolve to it without a target.
    """
    return _build(model, path, domain, domain_path, problem, problem_path)


def _build(model: Indexed, path: str, domain: Domain | None, domain_path: str,
           problem: Problem | None, problem_path: str) -> SymbolIndex:
    builder = _Builder(path)
    if isinstance(model, Domain):
        builder.domain_tables(model, path, own=True)
        builder.domain_body(model)
    elif isinstance(model, Problem):
        if domain is not None:
            builder.domain_tables(domain, domain_path, own=False)
        builder.problem_tables(model, path, own=True)
        builder.problem_body(model)
    elif isinstance(model, (Plan, LtlGoal)):
        if domain is not None:
            builder.domain_tables(domain, domain_path, own=False)
        if problem is not None:
            builder.problem_tables(problem, problem_path, own=False)
        if isinstance(model, Plan):
            builder.plan_body(model)
        else:
            builder.ltl_body(model)
    index = SymbolIndex(path, builder.out, builder.own, builder.globals)
    if isinstance(model, Problem):
        index._object_repeats = builder.object_repeats
    return index


def update_index(old: SymbolIndex, model: Indexed, splice: Splice) -> SymbolIndex | None:
    """The index of ``model``, made from ``old`` (the index of the model ``splice`` was made from, with
    the same partners) the way the incremental parse made the model: the occurrences of the
    re-parsed stretch built again, those after it moved. An edit of the problem's ``:objects`` also
    derives the declarations again: names at the end of the list by :func:`_update_object_run`,
    anything else by :func:`_update_declarations`. None when that cannot give exactly what
    :func:`build_index` gives (a domain, whose every section declares; re-parsed sections other than
    ``:objects``; a name declared twice whose winning declaration an edit moves; preferences, which
    are declared where first written) and the caller builds the index in full."""
    if not isinstance(model, Problem):
        return None
    start = splice.start
    visible = old.visible
    tables = old._update
    if tables is None:
        # the declarations and what they resolve to are the same along a chain of updates: derived once
        tables = _UpdateTables.of(old.declarations, visible)
    if tables.preferences:
        return None
    if splice.list == ":objects" or (splice.list is None and (
            splice.elements or tables.last_declaration_end > start)):
        updated = None
        if splice.list == ":objects" and _Pieces.of(old.occurrences).resolve is None:
            updated = _update_object_run(old, splice, tables)
        return updated if updated is not None else _update_declarations(old, splice, tables)
    if tables.last_declaration_end > start:
        return None
    builder = _Builder(old.path)
    builder.globals = dict(visible)
    # shared: facts and goal atoms declare no object or constant, so the builder only reads it
    builder.objects = tables.objects
    for element in splice.elements:
        if type(element) is Atom:
            builder.atom(element, {})
        else:
            builder.formula(element, {})
    if len(builder.globals) != len(visible):
        return None
    tables.named.add(builder.out)
    return _spliced(old, splice, builder.out, old.declarations, visible, tables,
                    _Pieces.of(old.occurrences).resolve)


def _spliced(old: SymbolIndex, splice: Splice, built: list[Occurrence],
             declarations: dict[tuple[SymbolKind, str], Declaration],
             visible: dict[tuple[SymbolKind, str], Declaration], tables: _UpdateTables,
             resolve: _Resolution | None,
             patch: Callable[[_Piece], _Piece | None] | None = None) -> SymbolIndex | None:
    """The new index: ``old``'s occurrences before the re-parsed stretch, ``built`` in its place, and
    those after it moved (all of them read through ``resolve``, see :class:`_Pieces`); each piece
    passed through ``patch`` first, when given (None from it for any piece: no index)."""
    start, stop, delta = splice.start, splice.stop, splice.delta
    fresh = sorted(built, key=_start_of)
    starts = _Starts.of(old._starts)
    low, high = starts.bisect_left(start), starts.bisect_left(stop)
    pieces = _Pieces.of(old.occurrences)
    kept: list[_Piece] = [*pieces.cut(0, low), _Listed(fresh), *(
        piece.moved(delta, stop) for piece in pieces.cut(high, len(pieces)))]
    if patch is not None:
        patched = [patch(piece) for piece in kept]
        if any(piece is None for piece in patched):
            return None
        kept = [piece for piece in patched if piece is not None]
    occurrences = _Pieces(kept, old.path, resolve).settled()
    fresh_starts = list(map(_start_of, fresh))
    new_starts = _Starts([*starts.cut(0, low), (fresh_starts, 0, len(fresh_starts), 0), *(
        (base, lo, hi, moved + delta) for base, lo, hi, moved in starts.cut(high, len(starts)))])
    index = SymbolIndex(old.path, occurrences, declarations, visible, new_starts)
    index._update = tables
    index._object_repeats = old._object_repeats
    return index


def _update_object_run(old: SymbolIndex, splice: Splice, tables: _UpdateTables) -> SymbolIndex | None:
    """The update for names typed or deleted in the untyped run at the end of a problem's object list,
    after every other declaration of the document (where a new object is usually written).

    No declaration moves then, so the occurrences outside the stretch keep their targets, except those
    whose name the edit declared, stopped declaring or declared elsewhere: found by their keys in C
    and patched where they lie (:func:`_resolved`). Anything else (declarations after the stretch, a
    name whose first declaration goes while a later one stays, preferences) is left to
    :func:`_update_declarations`, which moves declarations and re-resolves every name."""
    start, stop = splice.start, splice.stop
    path, own, visible = old.path, old.declarations, old.visible
    repeats = old._object_repeats
    if repeats is None or tables.preferences or tables.last_declaration_end > stop:
        return None
    starts = _Starts.of(old._starts)
    low, high = starts.bisect_left(start), starts.bisect_left(stop)
    pieces = _Pieces.of(old.occurrences)
    removed = [o for piece in pieces.cut(low, high) for o in piece.made(path)]
    if any(o.kind != "object" or o.role != "declaration" for o in removed):
        return None  # not a run of object names alone
    new_own, new_visible, objects, repeats = dict(own), dict(visible), dict(tables.objects), dict(repeats)
    gone: dict[str, Declaration] = {}
    count: dict[str, int] = {}
    """how many times each name the stretch declared or declares is declared in the document"""
    for occurrence in removed:
        key, decl = occurrence.key, occurrence.target
        count[key] = count.get(key, repeats.get(key, 1)) - 1
        if decl is not None and decl.span == occurrence.span:  # the name's first declaration goes
            gone[key] = decl
            del new_own[("object", key)], new_visible[("object", key)]
    if any(count[key] for key in gone) and not all(
            any(type(e) is TypedName and e.name.key == key for e in splice.elements)
            for key in gone if count[key]):
        return None  # a later declaration of the name, after the stretch, would declare it now
    fresh: list[Occurrence] = []
    for element in splice.elements:
        if type(element) is not TypedName or element.type is not None:
            return None
        name = element.name
        key = name.key
        decl = new_visible.get(("object", key))
        if decl is None:
            earlier = gone.get(key)
            # the same name where it was: the same declaration, so nothing that names it changes
            decl = earlier if earlier is not None and earlier.span == name.span else _new(
                Declaration, ("object", key, path, name.span, None))
            new_own[("object", key)] = new_visible[("object", key)] = decl
        count[key] = count.get(key, repeats.get(key, 1) if ("object", key) in visible else 0) + 1
        fresh.append(_new(Occurrence, (name.span, "object", key, name.text, "declaration", decl)))
    for key, times in count.items():
        if times > 1:
            repeats[key] = times
        else:
            repeats.pop(key, None)
    # what each name whose object came or went now resolves to: the object, else a domain constant
    resolved: dict[str, Declaration | None] = {}
    for key in {*gone, *(o.key for o in fresh)}:
        now = new_visible.get(("object", key)) or new_visible.get(("constant", key))
        if now is not objects.get(key):
            resolved[key] = now
            if now is None:
                del objects[key]
            else:
                objects[key] = now
    recoloured: list[Occurrence] = []
    new_tables = _UpdateTables(_last_end(new_own), False, objects, tables.constants, tables.partners,
                               tables.changed | frozenset(resolved), tables.named)
    index = _spliced(old, splice, fresh, new_own, new_visible, new_tables, None,
                     (lambda piece: piece.resolved(resolved, recoloured)) if resolved else None)
    if index is None:
        return None
    index._object_repeats = repeats
    if not recoloured:
        index.kinds_kept_from = (own, visible)
    return index


class _Resolution:
    """How the object and constant names of the older indexes along a chain resolve against the latest
    ``:objects``: ``table`` maps an occurrence's (kind, key) to its kind and target now, for every
    object name and every name declared or undeclared as an object since the chain began. Applied to
    the columns of many occurrences at once, in C."""

    __slots__ = ("table",)

    def __init__(self, table: dict[tuple[SymbolKind, str], tuple[SymbolKind, Declaration | None]]) -> None:
        self.table = table

    def columns(self, kinds: list[SymbolKind], keys: list[str],
                targets: list[Declaration | None]) -> tuple[list[SymbolKind], list[Declaration | None]]:
        """The kinds and targets now of occurrences with these kinds, keys and targets."""
        now = list(map(self.table.get, zip(kinds, keys, strict=True), zip(kinds, targets, strict=True)))
        return list(map(_FIRST, now)), list(map(_SECOND, now))


def _update_declarations(old: SymbolIndex, splice: Splice, tables: _UpdateTables) -> SymbolIndex | None:
    """The index after an edit of ``:objects``: the object declarations before the stretch kept, those
    in it declared again, those after it moved; the occurrences as :func:`update_index` makes them.

    An object typed at the start of a 1 MB problem's ``:objects`` moves 25,000 declarations, and
    nearly every one of ~140,000 occurrences refers to one of them. The occurrences are not rewritten
    here: the new index reads every occurrence of the older ones through a table of what each
    object name (and each name added or removed since the chain began) means now, applied column by
    column in C when the occurrences are made (:func:`_moved`), the way they are moved. The declaration
    tables are new objects, so that semantic tokens see the declarations changed."""
    names = _object_names(splice.elements)
    if names is None or old._object_repeats != {}:
        return None  # or a name declared twice (or not known not to be) before the edit
    start, stop, delta = splice.start, splice.stop, splice.delta
    own = old.declarations
    items = list(own.items())
    low = bisect.bisect_left(items, start, key=_item_start)
    high = bisect.bisect_left(items, stop, key=_item_start)
    before, gone, after = items[:low], items[low:high], items[high:]
    after_keys = list(map(_FIRST, after))
    if list(map(_FIRST, map(_FIRST, gone + after))).count("object") != len(gone) + len(after):
        return None  # the problem's name is in its header, never re-parsed: only objects lie here
    after_declarations: list[Declaration] = list(map(_SECOND, after))
    if delta and after_declarations:
        spans = list(map(_DECLARED_SPAN, after_declarations))
        moved = map(_new, repeat(Span), zip(map(add, map(_FIRST, spans), repeat(delta)),
                                            map(add, map(_SECOND, spans), repeat(delta)), strict=True))
        after_declarations = list(map(_new, repeat(Declaration), zip(
            map(_FIRST, after_declarations), map(_SECOND, after_declarations),
            map(_DECLARED_PATH, after_declarations), moved, repeat(None))))
    path = old.path
    added: list[tuple[tuple[SymbolKind, str], Declaration]] = [
        (("object", item.name.key), _new(Declaration, ("object", item.name.key, path, item.name.span, None)))
        for item in names]
    declarations = dict(before)
    others = len(before) - list(map(_FIRST, map(_FIRST, before))).count("object")
    for declared, declaration in added:
        declarations.setdefault(declared, declaration)
    declarations.update(zip(after_keys, after_declarations, strict=True))
    if len(declarations) != len(own) - len(gone) + len(names):
        return None  # a name declared twice now: which declaration wins moves with the edit
    visible = {**tables.partners, **declarations}
    objects = dict(tables.constants)
    object_declarations = [d for d in declarations.values() if d.kind == "object"] if others else list(
        declarations.values())
    object_keys = list(map(_SECOND, object_declarations))
    objects.update(zip(object_keys, object_declarations, strict=True))
    # a name re-parsed in place (the whole section, after an edit in a typed list) has not changed
    edited = {key for (_, key), _ in gone} ^ {key for (_, key), _ in added}
    changed = tables.changed | edited
    table: dict[tuple[SymbolKind, str], tuple[SymbolKind, Declaration | None]] = dict(zip(
        zip(repeat("object"), object_keys), zip(repeat("object"), object_declarations), strict=True))
    for name in changed:
        now = objects.get(name)
        if now is not None and now.kind == "object":
            table[("constant", name)] = ("object", now)
        else:
            table[("object", name)] = ("constant", now)
    resolve = _Resolution(table)
    builder = _Builder(path)
    builder.globals = visible
    for item in names:
        builder.out.append(_new(Occurrence, (item.name.span, "object", item.name.key, item.name.text,
                                             "declaration", declarations[("object", item.name.key)])))
    for item in names:
        builder.type_ref(item.type)
    new_tables = _UpdateTables(_last_end(declarations), False, objects, tables.constants, tables.partners,
                               frozenset(changed), tables.named)
    index = _spliced(old, splice, builder.out, declarations, visible, new_tables, resolve)
    if index is not None:  # always: nothing is patched here
        index._object_repeats = {}  # no name is declared twice (see above)
        if tables.named.none_of(old, {
                key for key in edited if _kind_of(tables.objects.get(key)) != _kind_of(objects.get(key))}):
            index.kinds_kept_from = (own, old.visible)
    return index


def _last_end(declarations: dict[tuple[SymbolKind, str], Declaration]) -> int:
    """Where the last of a problem's own declarations ends: they are kept in text order (an update of
    the object list inserts and moves them where they are written), so that is the last one's end."""
    return next(reversed(declarations.values())).span.end if declarations else -1


def _kind_of(declaration: Declaration | None) -> SymbolKind:
    """The kind of an argument that resolves to ``declaration`` (an unknown name reads as a constant)."""
    return declaration.kind if declaration is not None else "constant"


def _object_names(elements: tuple[object, ...]) -> list[TypedName] | None:
    """The object names a re-parsed stretch declares (a run of names, or the whole ``:objects``
    section when the edit was in a typed list); None when it holds anything else."""
    if all(type(element) is TypedName for element in elements):
        return list(elements)  # type: ignore[arg-type]
    if len(elements) == 1 and type(elements[0]) is Section and elements[0].keyword.text.lower() == ":objects":
        names = list(elements[0].payload)
        return names if all(type(name) is TypedName for name in names) else None
    return None


def _item_start(item: tuple[tuple[SymbolKind, str], Declaration]) -> int:
    return item[1].span.start


class _Named:
    """Every name an object or constant argument uses, in any version along a chain of updates: a
    superset of the names a version's arguments use (names only come in), enough to tell that a name an
    edit of ``:objects`` turned from an object into an unknown name, or back, is used nowhere, so that no
    token changes colour. Gathered from the index's occurrences on the first such edit (in C, ~10 ms for
    a 1 MB problem), then added to by each update of facts, so that the next keystroke in ``:objects``
    asks a set instead of reading every occurrence again."""

    __slots__ = ("keys",)

    def __init__(self) -> None:
        self.keys: set[str] | None = None

    def add(self, occurrences: Sequence[Occurrence]) -> None:
        """Count the arguments of new occurrences (none is gathered yet: nothing to add to)."""
        if self.keys is not None:
            self.keys.update(_argument_keys(occurrences))

    def none_of(self, index: SymbolIndex, keys: set[str]) -> bool:
        """Whether no argument of ``index`` (an index along the chain) uses one of ``keys``."""
        if not keys:
            return True
        if self.keys is None:
            self.keys = {key for piece in _Pieces.of(index.occurrences)._pieces
                         for key in _argument_keys(piece.base)}
        return self.keys.isdisjoint(keys)


def _argument_keys(occurrences: Sequence[Occurrence]) -> Iterable[str]:
    return compress(map(_KEY, occurrences), map(_ARGUMENT_REFERENCES.__contains__, zip(
        map(_KIND, occurrences), map(_ROLE, occurrences), strict=True)))


@dataclass(frozen=True, slots=True)
class _UpdateTables:
    """What :func:`update_index` needs of an index's declarations, derived once per chain of updates."""

    last_declaration_end: int
    preferences: bool
    objects: dict[str, Declaration]
    """what a non-variable argument resolves to: an object, or else a domain constant"""
    constants: dict[str, Declaration]
    """the domain's constants (what a name resolves to once no object has it)"""
    partners: dict[tuple[SymbolKind, str], Declaration]
    """the partners' declarations, which come first in ``visible``"""
    changed: frozenset[str]
    """the names declared or undeclared as objects since the chain began (see :data:`_Resolution`)"""
    named: _Named
    """the names arguments use anywhere along the chain (see :class:`_Named`)"""

    @staticmethod
    def of(declarations: dict[tuple[SymbolKind, str], Declaration],
           visible: dict[tuple[SymbolKind, str], Declaration]) -> _UpdateTables:
        """The tables of an index built in full."""
        # a 1 MB problem declares 25,000 objects: what is read of every declaration is read in C
        partners = dict(islice(visible.items(), len(visible) - len(declarations)))
        constants: dict[str, Declaration] = {}
        for (kind, key), decl in partners.items():
            if kind == "constant":
                constants.setdefault(key, decl)
        objects = dict(constants)
        own_objects = compress(declarations.items(), map("object".__eq__, map(_FIRST, declarations)))
        objects.update((key, decl) for (_, key), decl in own_objects)
        ends = map(_SECOND, map(_DECLARED_SPAN, declarations.values()))
        return _UpdateTables(max(ends, default=-1), "preference" in set(map(_FIRST, visible)), objects,
                             constants, partners, frozenset(), _Named())


def _start_of(occurrence: Occurrence) -> int:
    return occurrence.span.start


def _moved(occurrences: Sequence[Occurrence], delta: int, path: str, after: int,
           resolve: _Resolution | None) -> list[Occurrence]:
    """Occurrences after an edit, moved by ``delta``; so are their targets when those are declared in
    this document after the edit too (a quantifier's variables; an object an edit at the end of the
    object list declared is already where it is, and so are the objects declared after an edit of
    ``:objects`` anywhere, found through ``resolve``).

    Everything after an edit at the start of a 1 MB problem's ``:init`` is a hundred thousand
    occurrences, so the copies are made column by column in C (``map`` over ``tuple.__new__``); so are
    their kinds and targets read through ``resolve`` after an edit of ``:objects``."""
    if not occurrences:
        return []
    if not delta and resolve is None:
        return list(occurrences)
    kinds, keys, texts, roles, targets = (list(map(getter, occurrences)) for getter in _COLUMNS)
    spans = list(map(_SPAN, occurrences))
    moved = map(_new, repeat(Span), zip(map(add, map(_FIRST, spans), repeat(delta)),
                                        map(add, map(_SECOND, spans), repeat(delta)), strict=True)
                ) if delta else spans
    if resolve is not None:
        kinds, targets = resolve.columns(kinds, keys, targets)
    if delta and kinds.count("variable"):  # only variables are declared after the edit (see above)
        for i, target in enumerate(targets):
            if target is not None and target.kind == "variable" and target.path == path and (
                    target.span.start >= after):
                scope = target.scope
                targets[i] = _new(Declaration, (target.kind, target.key, path, _new(Span, (
                    target.span.start + delta, target.span.end + delta)), None if scope is None else _new(
                    Span, (scope.start + delta, scope.end + delta))))
    return list(map(_new, repeat(Occurrence), zip(moved, kinds, keys, texts, roles, targets, strict=True)))


class _Moved:
    """Occurrences of an older index, moved by ``delta`` when read: ``after`` is where the edit that
    first moved them ended, in the coordinates of ``base`` (their variables' declarations lie after it
    and move with them; see :func:`_moved`). Later edits before them only add to ``delta``: the
    occurrences of a list element and the declarations of its variables always move together."""

    __slots__ = ("after", "base", "delta")

    def __init__(self, base: list[Occurrence], delta: int, after: int) -> None:
        self.base, self.delta, self.after = base, delta, after

    def __len__(self) -> int:
        return len(self.base)

    def cut(self, start: int, stop: int) -> _Moved:
        return _Moved(self.base[start:stop], self.delta, self.after)

    def moved(self, delta: int, after: int) -> _Moved:
        return _Moved(self.base, self.delta + delta, self.after)

    def made(self, path: str, resolve: _Resolution | None = None) -> list[Occurrence]:
        return _moved(self.base, self.delta, path, self.after, resolve)

    def one(self, index: int, path: str, resolve: _Resolution | None) -> Occurrence:
        return _moved(self.base[index:index + 1], self.delta, path, self.after, resolve)[0]

    def targets(self, path: str, resolve: _Resolution | None) -> list[Declaration | None]:
        if self.delta and list(map(_KIND, self.base)).count("variable"):
            return list(map(_TARGET, self.made(path, resolve)))
        return _resolved_targets(self.base, resolve)

    def resolved(self, now: dict[str, Declaration | None], recoloured: list[Occurrence]) -> _Moved | None:
        """These occurrences with the names in ``now`` resolving as it says (:func:`_resolved`)."""
        base = _resolved(self.base, now, recoloured)
        return None if base is None else _Moved(base, self.delta, self.after)


class _Listed:
    """Occurrences of this index or an older one that did not move."""

    __slots__ = ("base",)

    def __init__(self, base: list[Occurrence]) -> None:
        self.base = base

    def __len__(self) -> int:
        return len(self.base)

    def cut(self, start: int, stop: int) -> _Listed:
        return _Listed(self.base[start:stop])

    def moved(self, delta: int, after: int) -> _Moved | _Listed:
        return _Moved(self.base, delta, after) if delta else self

    def made(self, path: str, resolve: _Resolution | None = None) -> list[Occurrence]:
        return self.base if resolve is None else _moved(self.base, 0, path, 0, resolve)

    def one(self, index: int, path: str, resolve: _Resolution | None) -> Occurrence:
        return self.base[index] if resolve is None else _moved(self.base[index:index + 1], 0, path, 0,
                                                                resolve)[0]

    def targets(self, path: str, resolve: _Resolution | None) -> list[Declaration | None]:
        return _resolved_targets(self.base, resolve)

    def resolved(self, now: dict[str, Declaration | None], recoloured: list[Occurrence]) -> _Listed | None:
        """These occurrences with the names in ``now`` resolving as it says (:func:`_resolved`)."""
        base = _resolved(self.base, now, recoloured)
        return None if base is None else _Listed(base)


def _resolved_targets(occurrences: list[Occurrence], resolve: _Resolution | None) -> list[Declaration | None]:
    """The targets of occurrences that did not move, read through ``resolve`` (see :func:`_moved`)."""
    targets = list(map(_TARGET, occurrences))
    if resolve is None:
        return targets
    return resolve.columns(list(map(_KIND, occurrences)), list(map(_KEY, occurrences)), targets)[1]


_Piece = _Moved | _Listed


def _resolved(base: list[Occurrence], now: dict[str, Declaration | None],
              recoloured: list[Occurrence]) -> list[Occurrence] | None:
    """``base`` with every argument whose name is a key of ``now`` resolved to its value (an object
    declared or undeclared by an edit of the object list): the same list when none is, a patched copy
    when a few are (found by key in C), None when too many are to be worth it. The occurrences whose
    kind changed (a constant or unknown name now an object, or back) are added to ``recoloured``."""
    hits = list(compress(range(len(base)), map(now.__contains__, map(_KEY, base))))
    if not hits:
        return base
    if len(hits) > _MAX_RESOLVED:
        return None
    out = list(base)
    for i in hits:
        occurrence = base[i]
        decl = now[occurrence.key]
        if occurrence.role == "reference" and occurrence.kind in _ARGUMENTS:
            out[i] = _new(Occurrence, (occurrence.span, decl.kind if decl else "constant", occurrence.key,
                                       occurrence.text, "reference", decl))
            if out[i].kind != occurrence.kind:
                recoloured.append(occurrence)
        elif occurrence.kind == "object" and decl is not None:  # a repeated declaration: of the first one
            out[i] = _new(Occurrence, (occurrence.span, "object", occurrence.key, occurrence.text,
                                       "declaration", decl))
    return out


class _Pieces(Sequence[Occurrence]):
    """An updated index's occurrences: runs of the previous index's, moved when read.

    An edit at the start of a 1 MB problem's ``:init`` moves a hundred thousand occurrences; copying
    them cost more than building the index again (~100 ms). Here they are moved one by one as they are
    read (hover, definition: one occurrence; references: the matches), and all at once on the first
    walk over every occurrence (semantic tokens, completion), which then keeps the copies. Typing in
    one place keeps two pieces (what is before the edit, what is after it); edits in many places
    add pieces, and past ``_MAX_PIECES`` they are all made at once."""

    __slots__ = ("_layout", "_made", "_path", "resolve")

    def __init__(self, pieces: list[_Piece], path: str, resolve: _Resolution | None = None) -> None:
        kept = [piece for piece in pieces if len(piece)]
        self._layout = (kept, list(accumulate(map(len, kept))))
        """the pieces and where each ends, replaced together (requests read them from several threads)"""
        self._path = path
        self._made: list[Occurrence] | None = None
        self.resolve = resolve
        """what the pieces' occurrences mean now, when an edit of ``:objects`` came after them"""

    @property
    def _pieces(self) -> list[_Piece]:
        return self._layout[0]

    @staticmethod
    def of(occurrences: Sequence[Occurrence]) -> _Pieces:
        """``occurrences`` as pieces (an index built in full is one list)."""
        if isinstance(occurrences, _Pieces):
            return occurrences if occurrences._made is None else _Pieces(
                [_Listed(occurrences._made)], occurrences._path)  # made: already resolved
        return _Pieces([_Listed(list(occurrences))], "")

    def settled(self) -> _Pieces:
        """The same occurrences in few pieces: short moved runs made at once, neighbouring lists
        joined, and everything made once there are too many pieces."""
        if len(self._pieces) > _MAX_PIECES:
            return _Pieces([_Listed(list(self))], self._path)  # made: resolved
        pieces: list[_Piece] = []
        for piece in self._pieces:
            if isinstance(piece, _Moved) and len(piece) < _SHORT_RUN:
                piece = _Listed(piece.made(self._path))
            if pieces and isinstance(piece, _Listed) and isinstance(pieces[-1], _Listed):
                pieces[-1] = _Listed(pieces[-1].base + piece.base)
            else:
                pieces.append(piece)
        return _Pieces(pieces, self._path, self.resolve)

    def cut(self, start: int, stop: int) -> list[_Piece]:
        """The pieces holding occurrences ``[start, stop)``."""
        out: list[_Piece] = []
        offset = 0
        for piece, end in zip(*self._layout, strict=True):
            if end > start and offset < stop:
                out.append(piece.cut(max(start, offset) - offset, min(stop, end) - offset))
            offset = end
        return out

    def targets(self) -> list[Declaration | None]:
        """Every occurrence's target, in order, without making the occurrences; after an edit of
        ``:objects`` (``resolve``), what they were when read, which is still right for every target but
        an object or a constant (:meth:`meaning` finds those)."""
        if self._made is not None:
            return list(map(_TARGET, self._made))
        return [target for piece in self._pieces for target in piece.targets(self._path, None)]

    def meaning(self, target: Declaration) -> list[Occurrence] | None:
        """The occurrences that mean ``target``, an object or constant, when names are resolved as they
        are read (``resolve``): those with its name, found in C, then made one by one; None otherwise.
        Resolving every occurrence's target to compare them took ~40 ms on a 1 MB problem."""
        if self.resolve is None or self._made is not None:
            return None
        pieces = self._layout[0]
        keys = [key for piece in pieces for key in map(_KEY, piece.base)]
        named = compress(range(len(keys)), map(eq, keys, repeat(target.key)))
        return [o for o in map(self.__getitem__, named) if o.target == target]

    def __len__(self) -> int:
        ends = self._layout[1]
        return ends[-1] if ends else 0

    def __iter__(self) -> Iterator[Occurrence]:
        return iter(self._all())

    def _all(self) -> list[Occurrence]:
        made = self._made
        if made is None:
            made = self._made = [o for piece in self._pieces for o in piece.made(self._path, self.resolve)]
            # the previous index's occurrences are no longer needed: keeping them would hold both copies
            self._layout = ([_Listed(made)], [len(made)])
        return made

    @overload
    def __getitem__(self, index: int) -> Occurrence: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Occurrence]: ...

    def __getitem__(self, index: int | slice) -> Occurrence | Sequence[Occurrence]:
        if self._made is not None:
            return self._made[index]
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return self._all()[index]
            return [o for piece in self.cut(start, stop) for o in piece.made(self._path, self.resolve)]
        if index < 0:
            index += len(self)
        pieces, ends = self._layout
        which = bisect.bisect_right(ends, index)
        if which >= len(pieces):
            raise IndexError(index)
        return pieces[which].one(index - (ends[which - 1] if which else 0), self._path, self.resolve)


_Run = tuple[Sequence[int], int, int, int]
"""``(base, lo, hi, delta)``: the starts ``base[lo:hi]``, each plus ``delta``"""


class _Starts(Sequence[int]):
    """Where the occurrences of an updated index start, in order: runs of older indexes' starts,
    shifted when read, as :class:`_Pieces` holds the occurrences themselves.

    An edit at the start of a 1 MB problem's ``:init`` shifts ~140,000 starts; making the shifted list
    took ~3.5 of an update's ~4.5 ms, which the server pays on every keystroke since it indexes every
    version it parses (``server/index_chain.py``). The questions asked of the starts are bisections (the
    name under the cursor, the names in a range), answered here by one bisection over the runs' first
    starts and one inside a run, without making the list."""

    __slots__ = ("_ends", "_firsts", "_runs")

    def __init__(self, runs: list[_Run]) -> None:
        kept: list[_Run] = []
        for run in runs:
            length = run[2] - run[1]
            if not length:
                continue
            if length < _SHORT_RUN and kept and kept[-1][2] - kept[-1][1] < _SHORT_RUN:
                # neighbouring short runs (what typing in one place adds, edit after edit) joined
                joined = [*_values(kept[-1]), *_values(run)]
                kept[-1] = (joined, 0, len(joined), 0)
            else:
                kept.append(run)
        if len(kept) > _MAX_PIECES:
            made = [start for run in kept for start in _values(run)]
            kept = [(made, 0, len(made), 0)]
        self._runs = kept
        self._ends = list(accumulate(hi - lo for _, lo, hi, _ in kept))
        self._firsts = [base[lo] + delta for base, lo, _, delta in kept]

    @staticmethod
    def of(starts: Sequence[int]) -> _Starts:
        """``starts`` as runs (an index built in full has one list)."""
        return starts if isinstance(starts, _Starts) else _Starts([(starts, 0, len(starts), 0)])

    def cut(self, start: int, stop: int) -> list[_Run]:
        """The runs holding starts ``[start, stop)``."""
        out: list[_Run] = []
        offset = 0
        for (base, lo, _, delta), end in zip(self._runs, self._ends, strict=True):
            if end > start and offset < stop:
                out.append((base, lo + max(start, offset) - offset, lo + min(stop, end) - offset, delta))
            offset = end
        return out

    def bisect_left(self, value: int) -> int:
        """How many starts are below ``value``."""
        return self._bisect(value, bisect.bisect_left)

    def bisect_right(self, value: int) -> int:
        """How many starts are at or below ``value``."""
        return self._bisect(value, bisect.bisect_right)

    def _bisect(self, value: int, search: Callable[..., int]) -> int:
        # the runs are in order, so only the last run starting before ``value`` (at or before, for
        # bisect_right) holds both starts below it and starts above it
        which = search(self._firsts, value) - 1
        if which < 0:
            return 0
        base, lo, hi, delta = self._runs[which]
        return (self._ends[which - 1] if which else 0) + search(base, value - delta, lo, hi) - lo

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def __iter__(self) -> Iterator[int]:
        for run in self._runs:
            yield from _values(run)

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[int]: ...

    def __getitem__(self, index: int | slice) -> int | Sequence[int]:
        if isinstance(index, slice):
            return list(self)[index]
        if index < 0:
            index += len(self)
        which = bisect.bisect_right(self._ends, index)
        if not 0 <= index < len(self):
            raise IndexError(index)
        base, lo, _, delta = self._runs[which]
        return base[lo + index - (self._ends[which - 1] if which else 0)] + delta


def _values(run: _Run) -> Iterable[int]:
    base, lo, hi, delta = run
    values = islice(base, lo, hi)
    return map(add, values, repeat(delta)) if delta else values


def _bisect_left(starts: Sequence[int], value: int) -> int:
    return starts.bisect_left(value) if isinstance(starts, _Starts) else bisect.bisect_left(starts, value)


def _bisect_right(starts: Sequence[int], value: int) -> int:
    return starts.bisect_right(value) if isinstance(starts, _Starts) else bisect.bisect_right(starts, value)


_MAX_PIECES = 8
_SHORT_RUN = 4096
_MAX_RESOLVED = 4096
"""names an edit of the object list may re-resolve in one piece of an update before a full build is
cheaper"""
_KIND, _KEY = itemgetter(1), itemgetter(2)
_SPAN, _TARGET = itemgetter(0), itemgetter(5)
_DECLARED_PATH, _DECLARED_SPAN = itemgetter(2), itemgetter(3)
_ARGUMENTS = frozenset({"object", "constant"})
_ARGUMENT_REFERENCES = frozenset({("object", "reference"), ("constant", "reference")})
_ROLE = itemgetter(4)
_COLUMNS = tuple(itemgetter(i) for i in range(1, 6))
_FIRST, _SECOND = itemgetter(0), itemgetter(1)
_REMEMBERED_TARGETS = 64


def declarations_of(index: SymbolIndex, kind: SymbolKind) -> Iterator[Declaration]:
    """This document's own global declarations of one kind, in declaration order."""
    return (d for (k, _), d in index.declarations.items() if k == kind)

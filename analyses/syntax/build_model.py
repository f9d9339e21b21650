"""Builds the immutable model while the LALR parser reduces (no parse tree is materialised).

Each method receives the children of one grammar rule, tokens included, so every node's span is
exactly from its ``(`` to its ``)``.

A few dialect constructs the model has no place for (a `- type` that types nothing, PDDL 1.2's
`:vars`, IPC-2008's `:goal-utilities`) are read and left as *notes*: diagnostics the parser adds to
its own. They travel through a context variable because the tables, and with them this builder, are
built once and shared by every parse, in whichever thread it runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from plansight.analyses.diagnostics.diagnostic import Diagnostic, make
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.deferred import Deferred
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
    FunctionDecl,
    FunctionTerm,
    Imply,
    Metric,
    Modal,
    Name,
    Not,
    Number,
    NumericEffect,
    NumericExpr,
    Or,
    PredicateDecl,
    Preference,
    Problem,
    Quantified,
    TimedLiteral,
    TimeSpecified,
    TypeDecl,
    TypedName,
    TypeRef,
    When,
)
from plansight.analyses.syntax.lexer import Token

Children = list[Any]

_NOTES: ContextVar[list[Diagnostic] | None] = ContextVar("plansight_model_notes", default=None)


@contextmanager
def collecting_notes() -> Iterator[list[Diagnostic]]:
    """The notes the builder leaves while one parse runs (with duplicates: recovery replays forms)."""
    notes: list[Diagnostic] = []
    reset = _NOTES.set(notes)
    try:
        yield notes
    finally:
        _NOTES.reset(reset)


_OUTLINES: ContextVar[list[Children] | None] = ContextVar("plansight_model_outlines", default=None)


@contextmanager
def collecting_outlines() -> Iterator[list[Children]]:
    """The children of every ``(define ...)`` folded while one parse runs: its header tokens, its
    :class:`Section` objects and its closing parenthesis, which the incremental re-parse
    (``incremental.py``) reuses for the sections an edit leaves alone."""
    outlines: list[Children] = []
    reset = _OUTLINES.set(outlines)
    try:
        yield outlines
    finally:
        _OUTLINES.reset(reset)


def _record_outline(children: Children) -> None:
    outlines = _OUTLINES.get()
    if outlines is not None:
        outlines.append(list(children))


def _note(diagnostic: Diagnostic) -> None:
    notes = _NOTES.get()
    if notes is not None:
        notes.append(diagnostic)


def _span(children: Children) -> Span:
    return Span(children[0].start, children[-1].end)


def _number(token: Token) -> Number:
    try:
        value = float(token.text)
    except ValueError:
        value = 0.0
    return Number(value, token.text, Span(token.start, token.end))


def numeric(item: Any) -> NumericExpr:
    """A numeric-expression child: tokens become numbers or names, nodes pass through."""
    if isinstance(item, Token):
        return _number(item) if item.type == "NUMBER" else item.name()
    return item  # type: ignore[no-any-return]


def _groups(children: Children) -> Iterator[tuple[list[Any], TypeRef | None]]:
    """The groups of a typed list given as children ``[[a, b], DASH, TypeRef, [c]]``."""
    index = 0
    while index < len(children):
        items = children[index]
        if isinstance(items, Token):  # `- t` with no names before it: it types nothing
            _empty_group(items, children[index + 1])
            index += 2
            continue
        if index + 1 < len(children) and isinstance(children[index + 1], Token):
            yield items, children[index + 2]
            index += 3
        else:
            yield items, None
            index += 1


def _empty_group(dash: Token, type_ref: TypeRef) -> None:
    shown = "(either ...)" if type_ref.is_either else type_ref.names[0].display
    _note(
        make(
            "empty-typed-list",
            f"`- {shown}` types nothing: no names come before it, so it can be removed.",
            Span(dash.start, type_ref.span.end),
        )
    )


def _typed(children: Children) -> tuple[TypedName, ...]:
    return tuple(
        TypedName(item, type_ref, item.span) for items, type_ref in _groups(children) for item in items
    )


SKIPPED = object()
"""The payload of a section the model does not record (IPC-2008 `:goal-utilities`)."""


class Section:
    """A parsed top-level section, before it is folded into its Domain or Problem."""

    __slots__ = ("keyword", "payload", "span")

    def __init__(self, keyword: Token, payload: Any, span: Span) -> None:
        self.keyword = keyword
        self.payload = payload
        self.span = span

    def __deepcopy__(self, memo: dict) -> Section:
        return self


@dataclass(frozen=True, slots=True)
class Outline:
    """The top level of a file that parsed cleanly: ``(define (domain|problem NAME)``, its sections in
    order and its closing parenthesis. An edit inside one section re-parses only that section and folds
    the others back in unchanged (``incremental.py``)."""

    head: tuple[Token, ...]
    sections: tuple[Section, ...]
    close: Token
    problem: bool

    @classmethod
    def of(cls, children: Children, problem: bool) -> Outline:
        """The outline of one ``(define ...)`` from the children its fold received."""
        return cls(tuple(children[:6]), tuple(children[6:-1]), children[-1], problem)

    def fold(self) -> Domain | Problem:
        """The Domain or Problem these sections make, exactly as the parser's own fold builds it."""
        children: Children = [*self.head, *self.sections, self.close]
        builder = ModelBuilder()
        return builder.problem(children) if self.problem else builder.domain(children)


@dataclass(frozen=True, slots=True)
class Splice:
    """How an incremental parse made its model from the previous one: ``[start, stop)`` of the previous
    text (a run of list elements, ``list`` says which list, or of whole sections when ``list`` is
    None) was parsed again into ``elements``, and everything after it moved by ``delta``. What the
    symbol index needs to update itself the same way (``editing/symbols.py``)."""

    start: int
    stop: int
    delta: int
    list: str | None
    """``:init`` or ``:goal`` (the ``and`` inside it), or ``:objects`` (a run of a problem's untyped object
    names: they declare, so whoever follows the splice must account for what names now resolve to);
    None for a run of sections"""
    elements: tuple[Any, ...]
    """the new nodes of the re-parsed stretch, in text order"""


def _section(children: Children, payload: Any) -> Section:
    return Section(children[1], payload, _span(children))


class ModelBuilder:
    """The callbacks run on each reduction of ``grammar/pddl.lark``, one method per rule; each returns
    the model node for its form, so the finished parse is the Domain or Problem itself.
    """

    # --- files ---------------------------------------------------------------------------------
    def start(self, children: Children) -> Any:
        """The file's one top-level form, already built."""
        return children[0]

    def domain(self, children: Children) -> Domain:
        """Fold the sections of ``(define (domain ...))`` into a Domain, merging repeated sections so that
        checks, not the parser, complain about them.
        """
        _record_outline(children)
        fields: dict[str, list[Any]] = {}
        sections = []
        for section in children[6:-1]:
            sections.append(section.keyword.name())
            fields.setdefault(section.keyword.text.lower(), []).append(section.payload)
        actions = tuple(
            a for key in (":action", ":durative-action", ":process", ":event") for a in fields.get(key, ())
        )
        actions = tuple(sorted(actions, key=lambda a: a.span.start))
        constraints = fields.get(":constraints")
        return Domain(
            name=children[4].name(),
            requirements=_concat(fields.get(":requirements")),
            types=tuple(TypeDecl(t.name, t.type, t.span) for t in _concat(fields.get(":types"))),
            constants=_concat(fields.get(":constants")),
            predicates=_concat(fields.get(":predicates")),
            functions=_concat(fields.get(":functions")),
            constraints=constraints[0] if constraints else None,
            actions=actions,
            derived=tuple(fields.get(":derived", ())),
            sections=tuple(sections),
            span=_span(children),
        )

    def problem(self, children: Children) -> Problem:
        """Fold the sections of ``(define (problem ...))`` into a Problem, merging repeated sections so that
        checks, not the parser, complain about them.
        """
        _record_outline(children)
        fields: dict[str, list[Any]] = {}
        sections = []
        for section in children[6:-1]:
            if section.payload is SKIPPED:
                continue
            sections.append(section.keyword.name())
            fields.setdefault(section.keyword.text.lower(), []).append(section.payload)
        domain_ref = fields.get(":domain")
        goal = fields.get(":goal")
        constraints = fields.get(":constraints")
        metric = fields.get(":metric")
        return Problem(
            name=children[4].name(),
            domain_name=domain_ref[0] if domain_ref else None,
            requirements=_concat(fields.get(":requirements")),
            objects=_concat(fields.get(":objects")),
            init=_concat(fields.get(":init")),
            goal=goal[0] if goal else None,
            constraints=constraints[0] if constraints else None,
            metric=metric[0] if metric else None,
            sections=tuple(sections),
            span=_span(children),
        )

    # --- sections ------------------------------------------------------------------------------
    def requirements(self, children: Children) -> Section:
        """``(:requirements ...)``: the requirement keys as written."""
        return _section(children, tuple(t.name() for t in children[2:-1]))

    def types(self, children: Children) -> Section:
        """``(:types ...)`` (and ``:constants``, ``:objects``): the typed names."""
        return _section(children, children[2])

    constants = types
    objects = types

    def predicates(self, children: Children) -> Section:
        """``(:predicates ...)``: the predicate skeletons."""
        return _section(children, tuple(children[2:-1]))

    def functions(self, children: Children) -> Section:
        """``(:functions ...)``: the fluent declarations with their types."""
        return _section(children, children[2])

    def constraints(self, children: Children) -> Section:
        """``(:constraints ...)`` (and ``:goal``): the formula."""
        return _section(children, children[2])

    goal = constraints

    def skipped_section(self, children: Children) -> Section:
        keyword = children[1]
        _note(
            make(
                "unsupported-dialect",
                f"`{keyword.text}` is the IPC-2008 net-benefit extension, not PDDL 3.1: plansight skips it.",
                Span(keyword.start, keyword.end),
            )
        )
        return Section(keyword, SKIPPED, _span(children))

    def opaque_form(self, children: Children) -> None:
        return None

    def domain_ref(self, children: Children) -> Section:
        """A problem's ``(:domain name)``."""
        return _section(children, children[2].name())

    def init(self, children: Children) -> Section:
        """``(:init ...)``, with runs of facts the lexer read in one step spelled out as atoms."""
        return _section(children, tuple(_expand_facts(children[2:-1])))

    def metric(self, children: Children) -> Section:
        """``(:metric minimize|maximize expr)``."""
        return _section(children, Metric(children[2].text.lower(), numeric(children[3]), _span(children)))

    def action(self, children: Children) -> Section:
        """One ``:action``, ``:durative-action``, ``:process`` or ``:event``; a repeated part keeps its first
        occurrence, and every part keyword is recorded for the structure checks.
        """
        kind = children[1].text.lower()
        parts: dict[str, Any] = {}
        sections = []
        for keyword, payload in children[3:-1]:
            sections.append(keyword.name())
            parts.setdefault(keyword.text.lower(), payload)
        action = Action(
            name=children[2].name(),
            parameters=parts.get(":parameters", ()),
            variables=parts.get(":vars", ()),
            precondition=parts.get(":precondition", parts.get(":condition")),
            effect=parts.get(":effect"),
            kind=kind[1:],
            duration=parts.get(":duration"),
            observe=parts.get(":observe"),
            sections=tuple(sections),
            span=_span(children),
        )
        return Section(children[1], action, action.span)

    def prebuilt(self, children: Children) -> Section:
        """A whole section the lexer read in one step (``grounded_sections.py``), already built."""
        return children[0].value  # type: ignore[no-any-return]

    def action_part(self, children: Children) -> tuple[Token, Any]:
        """One keyword of an action and its value; ``:parameters`` comes with the parentheses around its list.
        """
        if len(children) == 4:
            keyword = children[0]
            if keyword.type == "K_VARS":
                _note(
                    make(
                        "legacy-construct",
                        f"`{keyword.text}` is PDDL 1.2: its variables are in scope in the whole action and "
                        "the planner binds them (plans do not list them). PDDL 2.1 dropped it and most "
                        "planners reject it; for them, move the variables to `:parameters`.",
                        Span(keyword.start, keyword.end),
                    )
                )
            return children[0], children[2]
        return children[0], children[1]

    def derived(self, children: Children) -> Section:
        """``(:derived (head ...) body)``."""
        return _section(children, DerivedPredicate(children[2], children[3], _span(children)))

    # --- declarations --------------------------------------------------------------------------
    def typed_names(self, children: Children) -> tuple[TypedName, ...]:
        """Names with their optional ``- type`` groups."""
        return _typed(children)

    typed_vars = typed_names

    def name_list(self, children: Children) -> list[Name]:
        """Names, with the runs the lexer read in one step (NAMES tokens) spelled out."""
        names: list[Name] = []
        for token in children:
            if token.type == "NAMES":
                names.extend(token.value)
            else:
                names.append(token.name())
        return names

    def var_list(self, children: Children) -> list[Name]:
        """The variables of one ``- type`` group."""
        return [t.name() for t in children]

    def type_ref(self, children: Children) -> TypeRef:
        """A type, or an ``(either ...)`` union of types."""
        if len(children) == 1:
            item = children[0].name()
            return TypeRef((item,), item.span)
        return TypeRef(tuple(t.name() for t in children[2:-1]), _span(children))

    def skeleton(self, children: Children) -> PredicateDecl:
        """``(name ?x - type ...)``: a predicate or function declaration."""
        return PredicateDecl(children[1].name(), children[2], _span(children))

    def skeleton_list(self, children: Children) -> list[PredicateDecl]:
        """The declarations of one ``- type`` group of functions."""
        return list(children)

    def function_decls(self, children: Children) -> tuple[FunctionDecl, ...]:
        """Function declarations, each carrying the type of its group (None for numeric fluents)."""
        return tuple(
            FunctionDecl(d.name, d.parameters, type_ref, d.span)
            for decls, type_ref in _groups(children)
            for d in decls
        )

    # --- formulas ------------------------------------------------------------------------------
    def atomic(self, children: Children) -> Atom:
        """An atom ``(predicate arg ...)``."""
        return Atom(children[1].name(), tuple(t.name() for t in children[2:-1]), _span(children))

    def and_f(self, children: Children) -> And:
        """``(and ...)``, with runs of facts the lexer read in one step spelled out as atoms."""
        return And(tuple(_expand_facts(children[2:-1])), _span(children))

    def or_f(self, children: Children) -> Or:
        """``(or ...)``."""
        return Or(tuple(children[2:-1]), _span(children))

    def not_f(self, children: Children) -> Not:
        """``(not ...)``."""
        return Not(children[2], _span(children))

    def imply_f(self, children: Children) -> Imply:
        """``(imply condition consequence)``."""
        return Imply(children[2], children[3], _span(children))

    def quantified(self, children: Children) -> Quantified:
        """``(exists|forall (?x - type ...) body)``."""
        return Quantified(children[1].text.lower(), children[3], children[5], _span(children))

    def comparison(self, children: Children) -> Formula:
        """``(op left right)``; ``=`` between two names or variables is object equality, anything else a
        numeric comparison.
        """
        op = children[1].text
        left, right = children[2], children[3]
        if (
            op == "="
            and isinstance(left, Token)
            and isinstance(right, Token)
            and left.type in ("NAME", "VARIABLE")
            and right.type in ("NAME", "VARIABLE")
        ):
            return Equality(left.name(), right.name(), _span(children))
        return Comparison(op, numeric(left), numeric(right), _span(children))

    def preference(self, children: Children) -> Preference:
        """``(preference [name] body)``."""
        label = children[2].name() if isinstance(children[2], Token) else None
        return Preference(label, children[-2], _span(children))

    def time_spec(self, children: Children) -> TimeSpecified:
        """``(at start|end ...)`` or ``(over all ...)`` inside a durative action."""
        return TimeSpecified(children[2].text.lower(), children[3], _span(children))

    def timed_literal(self, children: Children) -> TimedLiteral:
        """``(at number literal)`` in a problem's init: a timed initial literal."""
        return TimedLiteral(_number(children[2]), children[3], _span(children))

    def modal(self, children: Children) -> Modal:
        """A trajectory constraint (``always``, ``within``, ...), its numbers and formulas kept apart."""
        numbers = tuple(_number(c) for c in children[2:-1] if isinstance(c, Token))
        args = tuple(c for c in children[2:-1] if not isinstance(c, Token))
        return Modal(children[1].text.lower(), numbers, args, _span(children))

    def when_f(self, children: Children) -> When:
        """``(when condition effect)``."""
        return When(children[2], children[3], _span(children))

    def numeric_effect(self, children: Children) -> NumericEffect:
        """``(assign|increase|... fluent value)``; a bare fluent name becomes a nullary function term."""
        target = numeric(children[2])
        if isinstance(target, Name):
            target = FunctionTerm(target, (), target.span)
        return NumericEffect(children[1].text.lower(), target, numeric(children[3]), _span(children))  # type: ignore[arg-type]

    def empty_f(self, children: Children) -> And:
        """``()``: the empty conjunction, which is always true."""
        return And((), _span(children))

    # --- numeric expressions -------------------------------------------------------------------
    def f_app(self, children: Children) -> FunctionTerm:
        """A function term ``(function arg ...)``."""
        return FunctionTerm(children[1].name(), tuple(t.name() for t in children[2:-1]), _span(children))

    def f_arith(self, children: Children) -> Arithmetic:
        """An arithmetic expression ``(op expr ...)``."""
        return Arithmetic(children[1].text, tuple(numeric(c) for c in children[2:-1]), _span(children))


def _expand_facts(items: Children) -> list[Formula]:
    """Formulas, with each FACTS token (a run of ground atoms read by the lexer) spelled out."""
    out: list[Formula] = []
    for item in items:
        if isinstance(item, Token):
            out.extend(item.value)  # type: ignore[arg-type]
        else:
            out.append(item)
    return out


def _concat(groups: list[Any] | None) -> tuple[Any, ...]:
    if not groups:
        return ()
    if len(groups) == 1:  # a deferred run of an incremental re-parse stays one (model/deferred.py)
        return groups[0] if isinstance(groups[0], Deferred) else tuple(groups[0])  # type: ignore[return-value]
    return tuple(item for group in groups for item in group)

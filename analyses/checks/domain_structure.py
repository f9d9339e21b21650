"""Checks of a domain's shape: sections, constructs in the wrong place, effects that undo each other.

Conditions and effects share one grammar rule so that a `when` in a precondition or an `at start` in
an instantaneous action parses; this module says precisely why such a construct is wrong where it
is. It never reports a construct that is legal somewhere in the place it appears: nested
`forall`/`when` effects, `(at start (and ...))` conditions, continuous `#t` effects outside a time
specifier, preferences in preconditions.
"""

from __future__ import annotations

from collections.abc import Iterator

from plansight.analyses.diagnostics.diagnostic import Diagnostic, Related, Severity, make
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.pddl import (
    Action,
    And,
    Atom,
    Comparison,
    Domain,
    Equality,
    Formula,
    Imply,
    Modal,
    Name,
    Not,
    NumericEffect,
    Or,
    Preference,
    Quantified,
    TimedLiteral,
    TimeSpecified,
    When,
    atom_text,
    children,
    numeric_terms,
)
from plansight.analyses.syntax.keyword_spans import keyword_span

TRAJECTORY_OPERATORS = frozenset(
    (
        "always",
        "sometime",
        "within",
        "at-most-once",
        "sometime-after",
        "sometime-before",
        "always-within",
        "hold-during",
        "hold-after",
    )
)
"""PDDL3 modal operators; `oneof` / `unknown` (FOND, contingent) are the other `Modal` nodes."""

Misplacement = tuple[Span, str]
"""Where a construct is misplaced, and the message saying why."""

_TIME_WORDS = {"start": "at start", "end": "at end", "all": "over all"}
_SECTIONS = {
    "durative-action": frozenset((":parameters", ":duration", ":condition", ":effect")),
    "action": frozenset((":parameters", ":vars", ":precondition", ":effect", ":observe")),
    "process": frozenset((":parameters", ":precondition", ":effect")),
    "event": frozenset((":parameters", ":precondition", ":effect")),
}
_ARTICLED = {"action": "an action", "process": "a process", "event": "an event"}
_SECTION_FIX = {":condition": ":precondition", ":precondition": ":condition"}
_DOMAIN_SECTIONS_MERGED = frozenset((":requirements", ":types", ":constants", ":predicates", ":functions"))


def check_structure(domain: Domain) -> list[Diagnostic]:
    """The structural diagnostics of a domain: sections an action kind does not take or repeats, constructs in
    the wrong place, effects that add and delete the same atom.
    """
    out = _domain_sections(domain)
    for action in domain.actions:
        out.extend(_action_sections(action))
        out.extend(_misplaced_in_action(action))
        out.extend(_add_delete_conflicts(action))
    for rule in domain.derived:
        out.extend(_misplaced(rule.body, Place("condition", "the body of a derived predicate", timed=False)))
    if domain.constraints is not None:
        out.extend(_misplaced(domain.constraints, Place("constraint", "`(:constraints ...)`", timed=False)))
    return out


# --- sections -------------------------------------------------------------------------------------


def _domain_sections(domain: Domain) -> list[Diagnostic]:
    out = []
    first: dict[str, Name] = {}
    for section in domain.sections:
        if section.key in (":action", ":durative-action", ":process", ":event", ":derived"):
            continue
        earlier = first.setdefault(section.key, section)
        if earlier is section:
            continue
        if section.key in _DOMAIN_SECTIONS_MERGED:
            message = (
                f"A second `({section.key} ...)` section: its entries count, but most planners expect one; "
                "merge it into the first."
            )
            severity = Severity.WARNING
        else:
            message = f"A second `({section.key} ...)` section is ignored: merge it into the first."
            severity = Severity.ERROR
        out.append(
            make(
                "duplicate-section",
                message,
                section.span,
                severity=severity,
                related=(Related(f"first `{section.key}` here", earlier.span),),
            )
        )
    return out


def _action_sections(action: Action) -> list[Diagnostic]:
    out = []
    allowed = _SECTIONS.get(action.kind, _SECTIONS["action"])
    first: dict[str, Name] = {}
    for section in action.sections:
        earlier = first.setdefault(section.key, section)
        if earlier is not section:
            out.append(
                make(
                    "duplicate-section",
                    f"`{action.name}` has a second `{section.key}`, which is ignored: merge the two.",
                    section.span,
                    related=(Related(f"first `{section.key}` here", earlier.span),),
                )
            )
        elif section.key not in allowed:
            kind = f":{action.kind}"
            fix = _SECTION_FIX.get(section.key)
            hint = f" write `{fix}` instead" if fix in allowed else f" allowed: {', '.join(sorted(allowed))}"
            out.append(
                make(
                    "misplaced-construct",
                    f"`{section.key}` is not a section of `({kind} ...)`:{hint}.",
                    section.span,
                    data=(("suggestion", fix),) if fix in allowed and fix else (),
                )
            )
    keys = set(first)
    if ":effect" not in keys and ":observe" not in keys:  # a sensing action may only observe
        out.append(
            make(
                "missing-section",
                f"`{action.name}` has no `:effect`, so applying it changes nothing: add `:effect (and ...)`.",
                action.name.span,
            )
        )
    if action.durative and ":duration" not in keys:
        out.append(
            make(
                "missing-section",
                f"Durative action `{action.name}` has no `:duration`: add e.g. `:duration (= ?duration 1)`.",
                action.name.span,
            )
        )
    return out


# --- constructs in the wrong place ----------------------------------------------------------------


class Place:
    """Where a formula sits: a condition, an effect, a duration or a constraint, and its wording."""

    __slots__ = ("durative", "label", "role", "timed")

    def __init__(self, role: str, label: str, timed: bool, durative: bool = False) -> None:
        self.role = role  # condition | effect | constraint
        self.label = label
        self.timed = timed  # inside `at start` / `at end` / `over all` (or needs no time at all)
        self.durative = durative

    def inside(self, role: str | None = None, label: str | None = None, timed: bool | None = None) -> Place:
        """The place one level deeper, keeping whatever the caller does not override; the durative flag never
        changes inside an action.
        """
        return Place(
            role or self.role,
            label or self.label,
            self.timed if timed is None else timed,
            self.durative,
        )


def _places(kind: str) -> tuple[Place, Place]:
    """Where an action's condition and effect sit, by the action's kind."""
    if kind == "durative-action":
        return (Place("condition", "the `:condition` of a durative action", timed=False, durative=True),
                Place("effect", "the `:effect` of a durative action", timed=False, durative=True))
    articled = _ARTICLED.get(kind, "an action")
    return (Place("condition", f"the `:precondition` of {articled}", timed=True),
            Place("effect", f"the `:effect` of {articled}", timed=True))


# Places are never changed (``inside`` makes a new one): every action of a kind shares its two
_PLACES = {kind: _places(kind) for kind in ("action", "durative-action", "process", "event")}


def _misplaced_in_action(action: Action) -> list[Diagnostic]:
    condition, effect = _PLACES.get(action.kind) or _places(action.kind)
    out = _misplaced(action.precondition, condition)
    out.extend(_misplaced(action.effect, effect))
    if action.observe is not None:
        out.extend(_misplaced(action.observe, Place("condition", "`:observe`", timed=True)))
    return out


def _misplaced(formula: Formula | None, place: Place) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    if formula is None or ((place.timed or not place.durative) and _literals(formula)):
        return out  # the shortcut below for a whole formula of literals (every action of a grounded domain)
    stack: list[tuple[Formula, Place]] = [(formula, place)]
    while stack:
        node, here = stack.pop()
        if (here.timed or not here.durative) and (
                type(node) is Atom or (type(node) is Not and type(node.arg) is Atom)):
            # the bulk of every formula: a literal is misplaced only untimed in a durative action, and
            # nothing inside it can be (a shortcut that a grounded domain's 60,000 literals notice)
            continue
        if type(node) is And:  # never misplaced itself, and its parts sit where it does
            stack.extend((child, here) for child in reversed(node.args))
            continue
        problem = _problem(node, here)
        if problem is not None:
            out.append(make("misplaced-construct", problem[1], problem[0]))
            continue  # what is inside a misplaced construct would only repeat the point
        stack.extend(reversed(list(_inner(node, here))))
    return out


def _literals(formula: Formula) -> bool:
    """Whether ``formula`` is a literal or a conjunction of literals."""
    parts = formula.args if type(formula) is And else (formula,)
    return all(type(part) is Atom or (type(part) is Not and type(part.arg) is Atom) for part in parts)


def _inner(node: Formula, here: Place) -> Iterator[tuple[Formula, Place]]:
    if isinstance(node, When):
        yield node.condition, here.inside(role="condition", label="the condition of a `when`")
        yield node.effect, here
    elif isinstance(node, TimeSpecified):
        yield node.body, here.inside(timed=True)
    elif isinstance(node, (And, Quantified, Preference)):
        for child in children(node):
            yield child, here
    else:
        # below a literal, an `or`, a `not`: any time specifier must already have been given
        for child in children(node):
            yield child, here.inside(timed=True)


def _problem(node: Formula, here: Place) -> Misplacement | None:
    """The (span, message) of what is wrong with ``node`` at ``here``, if anything."""
    span = node.span
    if isinstance(node, TimeSpecified):
        words = _TIME_WORDS.get(node.when, node.when)
        if here.role == "constraint" and node.when == "end" and not here.timed:
            return None  # PDDL3's `(at end GD)`: the condition holds in the final state
        if here.role == "constraint" and not here.timed:
            return keyword_span(span, words), (
                f"`{words}` is not a trajectory constraint: in {here.label} only `(at end ...)` names a "
                "time point; use `always`, `sometime` or `within` for the others."
            )
        if not here.durative:
            return keyword_span(span, words), (
                f"`{words}` is only allowed in a `:durative-action`; {here.label} holds at one instant: "
                "remove the time specifier."
            )
        if here.timed:
            return keyword_span(span, words), f"`{words}` cannot be nested inside another time specifier."
        if here.role == "effect" and node.when == "all":
            return keyword_span(span, words), (
                "`over all` cannot appear in an effect: effects happen `at start` or `at end`."
            )
        return None
    if isinstance(node, Modal) and node.op in TRAJECTORY_OPERATORS and here.role != "constraint":
        return keyword_span(span, node.op), (
            f"`{node.op}` is a trajectory constraint: it belongs in `(:constraints ...)`, "
            f"not in {here.label}."
        )
    if isinstance(node, TimedLiteral):
        return keyword_span(span, "at"), (
            f"`(at {node.time.text} ...)` is a timed initial literal: it belongs in a problem's `:init`."
        )
    problem = _effect_problem(node, here) if here.role == "effect" else _condition_problem(node, here)
    if problem is not None:
        return problem
    if here.durative and not here.timed and _is_leaf(node):
        if here.role == "effect" and isinstance(node, NumericEffect) and _continuous(node):
            return None
        if here.role == "effect":
            when = "`(at start ...)` or `(at end ...)`"
        else:
            when = "`(at start ...)`, `(over all ...)` or `(at end ...)`"
        return span, f"In {here.label} every part must say when it holds: wrap this in {when}."
    return None


def _condition_problem(node: Formula, here: Place) -> Misplacement | None:
    span = node.span
    if isinstance(node, When):
        return keyword_span(span, "when"), (
            f"`when` is a conditional effect: it belongs in an `:effect`, not in {here.label}."
        )
    if isinstance(node, NumericEffect):
        return keyword_span(span, node.op), (
            f"`{node.op}` changes a value, so it belongs in an `:effect`, not in {here.label}; "
            "to test a value use a comparison like `(< (f) 10)`."
        )
    return None


def _effect_problem(node: Formula, here: Place) -> Misplacement | None:
    span = node.span
    allowed = "an effect is a conjunction of atoms, `(not atom)`, `forall`, `when` and numeric updates"
    if isinstance(node, (Or, Imply)):
        word = "or" if isinstance(node, Or) else "imply"
        return keyword_span(span, word), (
            f"`{word}` cannot appear in an effect: {allowed}. A choice between outcomes needs two actions."
        )
    if isinstance(node, Quantified) and node.quantifier == "exists":
        return keyword_span(span, "exists"), f"`exists` cannot appear in an effect: {allowed}."
    if isinstance(node, (Comparison, Equality)):
        op = node.op if isinstance(node, Comparison) else "="
        return keyword_span(span, op), (
            f"`{op}` is a test and cannot appear in an effect: {allowed}. To change a value use `assign`."
        )
    if isinstance(node, Preference):
        return keyword_span(span, "preference"), (
            "`preference` cannot appear in an effect: preferences are soft goals and preconditions."
        )
    if isinstance(node, Not) and not isinstance(node.arg, Atom):
        return keyword_span(span, "not"), "`not` in an effect must wrap a single atom, as in `(not (p ?x))`."
    return None


def _is_leaf(node: Formula) -> bool:
    """A node that must sit inside a time specifier in a durative action."""
    return not isinstance(node, (And, Quantified, Preference, When, TimeSpecified, Modal))


def _continuous(node: NumericEffect) -> bool:
    return any(isinstance(t, Name) and t.key == "#t" for t in numeric_terms(node.value))


# --- add and delete of the same atom --------------------------------------------------------------


def _add_delete_conflicts(action: Action) -> list[Diagnostic]:
    """An unconditional effect that adds and deletes the same atom at the same time point."""
    effect = action.effect
    if type(effect) is And and _literals(effect):
        # a flat conjunction: a conflict needs a deleted predicate among the added ones
        added_keys = {part.predicate.key for part in effect.args if isinstance(part, Atom)}
        if not any(isinstance(part, Not) and isinstance(part.arg, Atom)
                   and part.arg.predicate.key in added_keys for part in effect.args):
            return []
    added_atoms: list[tuple[str, Atom]] = []
    deletes: list[tuple[str, Not, Atom]] = []
    stack: list[tuple[Formula, str]] = [(action.effect, "")] if action.effect is not None else []
    while stack:
        node, when = stack.pop()
        if isinstance(node, And):
            stack.extend((child, when) for child in reversed(node.args))
        elif isinstance(node, TimeSpecified) and not when:
            stack.append((node.body, node.when))
        elif isinstance(node, Atom):
            added_atoms.append((when, node))
        elif isinstance(node, Not) and isinstance(node.arg, Atom):
            deletes.append((when, node, node.arg))
    out: list[Diagnostic] = []
    if not deletes or not added_atoms:
        return out
    # atoms compare by their keys: keyed by those directly, the first add of each atom is kept
    adds: dict[tuple[str, str, tuple[str, ...]], Atom] = {}
    for when, added_atom in added_atoms:
        adds.setdefault((when, added_atom.predicate.key, tuple(a.key for a in added_atom.args)), added_atom)
    for when, delete, deleted in deletes:
        added = adds.get((when, deleted.predicate.key, tuple(a.key for a in deleted.args)))
        if added is None:
            continue
        atom = atom_text(added.predicate.display, [a.display for a in added.args])
        moment = f" {_TIME_WORDS[when]}" if when in _TIME_WORDS else ""
        out.append(
            make(
                "add-delete-conflict",
                f"`{action.name}` both adds and deletes `{atom}`{moment}; the add wins, so this delete has "
                "no effect: remove one of them.",
                delete.span,
                related=(Related(f"`{atom}` is added here", added.span),),
            )
        )
    return out

"""Model -> PDDL text, in one canonical layout.

The printer is the inverse of the parser up to layout: parsing what it prints gives a model equal to
the one printed (the round-trip tests hold it to that on the whole corpus), so it prints the sections
in the order the model records them and keeps the user's spelling of every name and number. The
layout is deliberately plain and deterministic (2-space indentation, one section per block, one
action part per line, a form broken over lines only when it does not fit in ``WIDTH`` columns) so
that a formatter can be built on it. Formulas are laid out with an explicit stack, not recursion, so a
pathologically deep model prints instead of raising ``RecursionError``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from plansight.analyses.diagnostics.spans import NO_SPAN
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
    Plan,
    PlanStep,
    PredicateDecl,
    Preference,
    Problem,
    Quantified,
    TimedLiteral,
    TimeSpecified,
    TypedName,
    TypeRef,
    When,
)

WIDTH = 80
"""Forms longer than this (counted from their line's start) are broken, one argument per line."""

Printable = Formula | NumericExpr

ACTION_KEYWORDS = (":action", ":durative-action", ":process", ":event")
_TIME_HEADS = {"start": "at start", "end": "at end", "all": "over all"}


# --- terms and typed lists ---------------------------------------------------------------------------


def number_text(number: Number) -> str:
    """The number as the user wrote it, or its shortest exact spelling for a built model."""
    if number.text:
        return number.text
    value = number.value
    return str(int(value)) if value == int(value) else repr(value)


def type_text(type_ref: TypeRef) -> str:
    """A type reference as PDDL text."""
    if len(type_ref.names) == 1:
        return type_ref.names[0].display
    return "(either " + " ".join(n.display for n in type_ref.names) + ")"


def _groups(items: Sequence[tuple[Name, TypeRef | None]], untyped: str) -> list[list[str]]:
    """A typed list as one group per run of names sharing a type: ``["a", "b", "- t"]``.

    PDDL only allows an untyped run at the end of a list (anything before the next ``-`` takes that
    type), so an untyped run elsewhere — possible only in a built model — is written ``- <untyped>``.
    """
    groups: list[list[str]] = []
    index = 0
    while index < len(items):
        type_ref = items[index][1]
        end = index
        while end < len(items) and items[end][1] == type_ref:
            end += 1
        words = [item[0].display for item in items[index:end]]
        if type_ref is not None:
            words.append("- " + type_text(type_ref))
        elif end < len(items):
            words.append("- " + untyped)
        groups.append(words)
        index = end
    return groups


def typed_list(items: Sequence[TypedName]) -> str:
    """``?x ?y - block ?z`` (the inside of a parameter list, a quantifier or a section)."""
    return " ".join(word for group in _groups([(i.name, i.type) for i in items], "object") for word in group)


def _declaration(decl: PredicateDecl | FunctionDecl) -> str:
    if not decl.parameters:
        return f"({decl.name.display})"
    return f"({decl.name.display} {typed_list(decl.parameters)})"


# --- formulas ------------------------------------------------------------------------------------------

_Form = str | tuple[str, Sequence[Printable]]


def _form(node: Printable) -> _Form:
    """A node as a leaf text, or as the head words and argument nodes of a ``(head arg ...)`` form."""
    if isinstance(node, Name):
        return node.display
    if isinstance(node, Number):
        return number_text(node)
    if isinstance(node, FunctionTerm) and not node.args and node.function.key[:1] in ("?", "#"):
        return node.function.display  # `(increase ?v 1)`: the parser made the variable a target term
    if isinstance(node, (Atom, FunctionTerm)):
        head = node.predicate if isinstance(node, Atom) else node.function
        return "(" + " ".join([head.display, *(a.display for a in node.args)]) + ")"
    if isinstance(node, Equality):
        return f"(= {node.left.display} {node.right.display})"
    if isinstance(node, (And, Or)):
        return ("and" if isinstance(node, And) else "or", node.args)
    if isinstance(node, Not):
        return ("not", (node.arg,))
    if isinstance(node, Imply):
        return ("imply", (node.condition, node.consequence))
    if isinstance(node, Quantified):
        return (f"{node.quantifier} ({typed_list(node.variables)})", (node.body,))
    if isinstance(node, (Comparison, Arithmetic)):
        return (node.op, (node.left, node.right) if isinstance(node, Comparison) else node.args)
    if isinstance(node, Preference):
        return ("preference" + (f" {node.name.display}" if node.name else ""), (node.body,))
    if isinstance(node, TimeSpecified):
        return (_TIME_HEADS.get(node.when, node.when), (node.body,))
    if isinstance(node, TimedLiteral):
        return (f"at {number_text(node.time)}", (node.body,))
    if isinstance(node, Modal):
        return (" ".join([node.op, *(number_text(n) for n in node.numbers)]), node.args)
    if isinstance(node, When):
        return ("when", (node.condition, node.effect))
    if isinstance(node, NumericEffect):
        return (node.op, (node.target, node.value))
    raise TypeError(f"not a formula or numeric expression: {type(node).__name__}")


def _widths(root: Printable) -> dict[int, int]:
    """The one-line width of every form under ``root``, keyed by node identity."""
    widths: dict[int, int] = {}
    stack: list[tuple[Printable, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        form = _form(node)
        if isinstance(form, str):
            widths[id(node)] = len(form)
        elif children_done:
            head, args = form
            widths[id(node)] = 2 + len(head) + sum(1 + widths[id(a)] for a in args)
        else:
            stack.append((node, True))
            stack.extend((a, False) for a in form[1] if id(a) not in widths)
    return widths


def _layout(root: Printable, column: int, indent: int) -> str:
    """``root`` starting at ``column`` of a line indented by ``indent``: on one line if it fits,
    otherwise with its head kept on the line and each argument on its own line, 2 columns deeper."""
    widths = _widths(root)
    out: list[str] = []
    stack: list[str | tuple[Printable, int, bool]] = [(root, indent, False)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            newline = item.rfind("\n")
            column = column + len(item) if newline < 0 else len(item) - newline - 1
            continue
        node, node_indent, flat = item
        form = _form(node)
        if isinstance(form, str):
            stack.append(form)
            continue
        head, args = form
        stack.append(")")
        if flat or not args or column + widths[id(node)] <= WIDTH:
            for arg in reversed(args):
                stack.append((arg, node_indent, True))
                stack.append(" ")
        else:
            deeper = node_indent + 2
            for arg in reversed(args):
                stack.append((arg, deeper, False))
                stack.append("\n" + " " * deeper)
        stack.append("(" + head)
    return "".join(out)


def print_formula(formula: Printable, indent: int = 0) -> str:
    """A formula or numeric expression as it would appear on a line indented by ``indent`` (the
    returned text itself carries no leading indentation)."""
    return _layout(formula, indent, indent)


# --- sections ------------------------------------------------------------------------------------------


def _fill(words: Sequence[str], indent: int) -> list[str]:
    """Words packed into lines of at most ``WIDTH`` columns (a longer word gets a line of its own)."""
    lines: list[str] = []
    line = ""
    for word in words:
        if line and len(line) + 1 + len(word) > WIDTH:
            lines.append(line)
            line = ""
        line = (line + " " + word) if line else " " * indent + word
    if line:
        lines.append(line)
    return lines


def _list_section(keyword: str, groups: Sequence[Sequence[str]]) -> list[str]:
    """``(:objects a b - t c)``: on one line if it fits, else the keyword alone and each group of
    words (names of one type) packed on lines of its own below it."""
    one_line = "  (" + " ".join([keyword, *(word for group in groups for word in group)]) + ")"
    if len(one_line) <= WIDTH:
        return [one_line]
    lines = [f"  ({keyword}"]
    for group in groups:
        lines.extend(_fill(group, 4))
    lines[-1] += ")"
    return lines


def _typed_section(keyword: str, items: Sequence[tuple[Name, TypeRef | None]]) -> list[str]:
    return _list_section(keyword, _groups(items, "object"))


def _block_section(keyword: str, entries: Iterable[Printable | str]) -> list[str]:
    """``(:init`` and ``(:predicates``: one entry per line."""
    lines = [f"  ({keyword}"]
    for entry in entries:
        text = entry if isinstance(entry, str) else _layout(entry, 4, 4)
        lines.extend((" " * 4 + text).split("\n"))
    lines[-1] += ")"
    return lines


def _formula_section(prefix: str, formula: Printable, indent: int = 2) -> list[str]:
    """``prefix`` followed by a formula that continues on its line (``(:goal (and`` ...)."""
    start = " " * indent + prefix + " "
    return (start + _layout(formula, len(start), indent)).split("\n")


def _functions(functions: Sequence[FunctionDecl]) -> list[str]:
    entries = []
    for index, decl in enumerate(functions):
        text = _declaration(decl)
        if decl.type is not None:
            text += " - " + type_text(decl.type)
        elif any(later.type is not None for later in functions[index + 1 :]):
            text += " - number"  # see _groups: an untyped entry may only end the list
        entries.append(text)
    return _block_section(":functions", entries)


def _action(action: Action) -> list[str]:
    condition_keyword = ":condition" if action.durative else ":precondition"
    values: dict[str, Formula | None] = {
        ":duration": action.duration,
        ":precondition": action.precondition,
        ":condition": action.precondition,
        ":effect": action.effect,
        ":observe": action.observe,
    }
    written = [s.key for s in action.sections if s.key in (":parameters", ":vars") or s.key in values]
    present = {k for k, v in values.items() if v is not None}
    if {":precondition", ":condition"} & set(written):
        present.discard(condition_keyword)  # printed under the keyword the user wrote
    if action.parameters or action.span == NO_SPAN:  # an action built in code gets its `:parameters ()`
        present.add(":parameters")
    if action.variables:
        present.add(":vars")
    default = [":parameters", ":vars", ":duration", condition_keyword, ":effect", ":observe"]
    keys = written + [k for k in default if k in present and k not in written]
    lines = [f"  (:{action.kind} {action.name.display}"]
    for key in keys:
        if key == ":parameters":
            lines.append(f"    :parameters ({typed_list(action.parameters)})")
            continue
        if key == ":vars":
            lines.append(f"    :vars ({typed_list(action.variables)})")
            continue
        formula = values[key]
        if formula is not None:
            lines.extend(_formula_section(key, formula, 4))
    lines[-1] += ")"
    return lines


def _derived(derived: DerivedPredicate) -> list[str]:
    return _close(_formula_section("(:derived " + _declaration(derived.head), derived.body))


def _close(lines: list[str]) -> list[str]:
    lines[-1] += ")"
    return lines


def _ordered(
    written: Sequence[Name], canonical: Sequence[str], present: set[str]
) -> Iterator[tuple[str, bool]]:
    """The sections to print: those the model records, in order, then any with content it does not
    record (a model built in code), in the canonical order. The flag says whether this is the
    keyword's first occurrence: a repeated list section was concatenated by the parser, so its
    content is printed once and the repeat is printed empty to keep the model's section list."""
    seen: set[str] = set()
    for keyword in written:
        yield keyword.key, keyword.key not in seen
        seen.add(keyword.key)
    for key in canonical:
        if key in present and key not in seen:
            yield key, True


# --- files ---------------------------------------------------------------------------------------------


def print_domain(domain: Domain) -> str:
    """The domain as PDDL text, for writing a model that was built or rewritten rather than read from a file.
    """
    present = {
        key
        for key, value in (
            (":requirements", domain.requirements),
            (":types", domain.types),
            (":constants", domain.constants),
            (":predicates", domain.predicates),
            (":functions", domain.functions),
            (":constraints", domain.constraints),
        )
        if value
    }
    canonical = [":requirements", ":types", ":constants", ":predicates", ":functions", ":constraints"]
    actions = iter(domain.actions)
    derived = iter(domain.derived)
    lines = [f"(define (domain {domain.name.display})"]
    for key, first in _ordered(domain.sections, canonical, present):
        if key in ACTION_KEYWORDS:
            action = next(actions, None)
            if action is not None:
                lines.extend(_action(action))
        elif key == ":derived":
            axiom = next(derived, None)
            if axiom is not None:
                lines.extend(_derived(axiom))
        elif key == ":requirements":
            lines.extend(_list_section(key, [[r.display for r in domain.requirements]] if first else []))
        elif key == ":types":
            lines.extend(_typed_section(key, [(t.name, t.parent) for t in domain.types] if first else []))
        elif key == ":constants":
            lines.extend(_typed_section(key, [(c.name, c.type) for c in domain.constants] if first else []))
        elif key == ":predicates":
            lines.extend(_block_section(key, [_declaration(p) for p in domain.predicates] if first else []))
        elif key == ":functions":
            lines.extend(_functions(domain.functions if first else ()))
        elif key == ":constraints" and domain.constraints is not None:
            lines.extend(_close(_formula_section("(:constraints", domain.constraints)))
    for action in actions:
        lines.extend(_action(action))
    for axiom in derived:
        lines.extend(_derived(axiom))
    lines.append(")")
    return "\n".join(lines) + "\n"


def print_problem(problem: Problem) -> str:
    """The problem as PDDL text, for writing a model that was built or rewritten rather than read from a file.
    """
    present = {
        key
        for key, value in (
            (":domain", problem.domain_name),
            (":requirements", problem.requirements),
            (":objects", problem.objects),
            (":init", problem.init or problem.span == NO_SPAN),  # a built problem gets its `(:init)`
            (":goal", problem.goal),
            (":constraints", problem.constraints),
            (":metric", problem.metric),
        )
        if value
    }
    canonical = [":domain", ":requirements", ":objects", ":init", ":goal", ":constraints", ":metric"]
    lines = [f"(define (problem {problem.name.display})"]
    for key, first in _ordered(problem.sections, canonical, present):
        if key == ":domain" and problem.domain_name is not None:
            lines.append(f"  (:domain {problem.domain_name.display})")
        elif key == ":requirements":
            lines.extend(_list_section(key, [[r.display for r in problem.requirements]] if first else []))
        elif key == ":objects":
            lines.extend(_typed_section(key, [(o.name, o.type) for o in problem.objects] if first else []))
        elif key == ":init":
            lines.extend(_block_section(key, problem.init if first else ()))
        elif key == ":goal" and problem.goal is not None:
            lines.extend(_close(_formula_section("(:goal", problem.goal)))
        elif key == ":constraints" and problem.constraints is not None:
            lines.extend(_close(_formula_section("(:constraints", problem.constraints)))
        elif key == ":metric" and problem.metric is not None:
            lines.extend(_metric(problem.metric))
    lines.append(")")
    return "\n".join(lines) + "\n"


def _metric(metric: Metric) -> list[str]:
    return _close(_formula_section(f"(:metric {metric.direction}", metric.expr))


def print_step(step: PlanStep) -> str:
    """``0.5: (move a b) [2]``; the time and the duration only when the step has them."""
    text = "(" + " ".join([step.action.display, *(a.display for a in step.args)]) + ")"
    if step.time is not None:
        text = f"{number_text(step.time)}: {text}"
    if step.duration is not None:
        text += f" [{number_text(step.duration)}]"
    return text


def print_plan(plan: Plan) -> str:
    """One step per line, and the cost as the ``; cost = N`` comment planners write."""
    lines = [print_step(step) for step in plan.steps]
    if plan.cost is not None:
        lines.append(f"; cost = {number_text(plan.cost)}")
    return "".join(line + "\n" for line in lines)

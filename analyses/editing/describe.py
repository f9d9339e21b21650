"""Plain-text descriptions of declarations: what a hover, a completion's detail or a CLI explanation
shows about a name.

Kept apart from the editor protocol so that every front end describes a predicate, an action or a
type the same way; the server only wraps these strings in Markdown.
"""

from __future__ import annotations

import re

from plansight.analyses.checks.domain_references import signature, type_text
from plansight.analyses.checks.requirements import IMPLIES, KNOWN
from plansight.analyses.diagnostics.spans import Span, line_end_at, line_start_at
from plansight.analyses.model.pddl import Action, Domain, FunctionDecl
from plansight.analyses.model.printer import print_formula, typed_list
from plansight.analyses.model.vocabulary import OBJECT, Vocabulary
from plansight.analyses.syntax.lexical import is_comment_line

_SECTION_PREFIX = re.compile(r"^[\s(]*(?::[\w-]+)?[\s(]*$")
MAX_CHAIN = 32


def declaration_comment(text: str, span: Span) -> str:
    """The ``;`` comment that documents the declaration at ``span``: the comment at the end of its
    line, or else the block of comment lines directly above it (when the declaration starts its line,
    possibly after its section keyword, so a comment above describes it and not a neighbour)."""
    line_start = line_start_at(text, span.start)
    line_end = line_end_at(text, span.end)
    rest = text[span.end:line_end]
    if ";" in rest:
        after = rest[rest.index(";"):]
        if rest[:rest.index(";")].count("(") == 0:  # the comment is not after a neighbour's form
            return _strip_comment(after)
    if not _SECTION_PREFIX.match(text[line_start:span.start]):
        return ""
    lines: list[str] = []
    end = line_start - 1
    while end > 0:
        start = line_start_at(text, end)
        line = text[start:end].strip()
        if not is_comment_line(line):
            break
        lines.append(_strip_comment(line))
        end = start - 1
    return "\n".join(reversed(lines)).strip()


def _strip_comment(comment: str) -> str:
    return comment.lstrip(";").strip()


def function_signature(decl: FunctionDecl) -> str:
    """``(distance ?a ?b - place) - number``"""
    return signature(decl.name, decl.parameters) + " - " + (type_text(decl.type) if decl.type else "number")


def action_schema(action: Action) -> str:
    """The action as PDDL, laid out by the printer: what the action needs and what it changes."""
    lines = [f"(:{action.kind} {action.name.display}",
             f"  :parameters ({typed_list(action.parameters)})"]
    parts = [(":duration", action.duration),
             (":condition" if action.durative else ":precondition", action.precondition),
             (":effect", action.effect), (":observe", action.observe)]
    for keyword, formula in parts:
        if formula is not None:
            lines.append(f"  {keyword} " + print_formula(formula, len(keyword) + 3))
    lines[-1] += ")"
    return "\n".join(lines)


def type_chain(vocab: Vocabulary, type_name: str) -> str:
    """``truck < vehicle < physobj < object``; several parents are shown together: ``(either a b)``
    as written, or ``a and b`` for a type declared under each (`c - a c - b`)."""
    chain = [type_name]
    seen = {type_name}
    current = type_name
    while current != OBJECT and len(chain) < MAX_CHAIN:
        parent = vocab.types.get(current)
        if parent is None:
            chain.append(OBJECT)
            break
        if parent.is_either:
            declarations = sum(1 for t in vocab.domain.types if t.name.key == current)
            both = " and ".join(p.display for p in parent.names)
            chain.append(type_text(parent) if declarations == 1 else both)
            break
        current = parent.names[0].key
        if current in seen:
            chain.append(current + " (cycle)")
            break
        seen.add(current)
        chain.append(parent.names[0].display)
    return " < ".join(chain)


def subtypes_of(domain: Domain, type_name: str) -> list[str]:
    """The types declared directly below ``type_name``."""
    return [t.name.display for t in domain.types
            if t.parent is not None and any(p.key == type_name for p in t.parent.names)]


def requirement_text(requirement: str) -> str:
    """What a requirement allows, and what it implies, or that PDDL does not define it."""
    meaning = KNOWN.get(requirement)
    if meaning is None:
        return f"`{requirement}` is not a PDDL requirement."
    implied = sorted(IMPLIES.get(requirement, ()))
    also = (" Implies " + ", ".join(f"`{r}`" for r in implied) + ".") if implied else ""
    return meaning + also

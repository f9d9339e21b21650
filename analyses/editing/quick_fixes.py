"""Mechanical fixes for diagnostics: a diagnostic plus the models -> text edits.

Pure: the server turns :class:`Fix` into code actions, a test applies the edits and re-lints. A fix is
offered only when it is certain to be right (a declaration inferred from a use whose types are all
known still compiles if the guess was too narrow; a guess that could change what other lines mean is
not made): adding a typed object to ``(:objects a b)`` would silently type ``a`` and ``b`` too, so the
new object goes to the front of the list. Edits are found from the model's spans and a small scan of
the text for the parentheses around a section, never by re-parsing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from plansight.analyses.diagnostics.diagnostic import Diagnostic
from plansight.analyses.diagnostics.spans import Span, line_end_at, line_start_at
from plansight.analyses.model.deferred import built, peek
from plansight.analyses.model.pddl import (
    Action,
    Atom,
    Domain,
    Formula,
    Name,
    PredicateDecl,
    Problem,
    Quantified,
    TypedName,
    TypeRef,
    walk,
)
from plansight.analyses.model.printer import type_text, typed_list
from plansight.analyses.syntax.documents import ParsedDocument
from plansight.analyses.syntax.lexical import COMMENT, WORD, in_comment, is_comment_line
from plansight.analyses.syntax.runs import formula_parts, list_touching


@dataclass(frozen=True, slots=True)
class FileEdit:
    """One text replacement in one file; a fix may touch the domain while the diagnostic is in the problem."""

    path: str
    span: Span
    new_text: str


@dataclass(frozen=True, slots=True)
class Fix:
    """A quick fix as the core describes it; the server turns it into an LSP code action."""

    title: str
    edits: tuple[FileEdit, ...]
    kind: str = "quickfix"  # quickfix | source
    preferred: bool = False
    create: str | None = None
    """a file to create first (the edits then fill it)"""


# --- text helpers ----------------------------------------------------------------------------------------

_SCAN = re.compile(COMMENT + r"|\(|\)|" + WORD)


def _tokens(text: str, start: int) -> Iterator[re.Match[str]]:
    return _SCAN.finditer(text, start)


def form_span(text: str, inside: int) -> Span | None:
    """The ``( ... )`` whose opening parenthesis is the last one before ``inside``, comments aside."""
    opening = text.rfind("(", 0, inside)
    while opening >= 0 and in_comment(text, opening):
        opening = text.rfind("(", 0, opening)  # that `(` was inside a comment
    if opening < 0:
        return None
    depth = 0
    for m in _tokens(text, opening):
        token = m.group()
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
            if depth == 0:
                return Span(opening, m.end())
    return None


def _section(text: str, sections: Sequence[Name], keyword: str) -> Span | None:
    for section in sections:
        if section.key == keyword:
            return form_span(text, section.span.start)
    return None


def _line_indent(text: str, offset: int) -> str:
    start = line_start_at(text, offset)
    line = text[start:offset]
    return line[:len(line) - len(line.lstrip())]


def _append_to_section(path: str, text: str, section: Span, entry: str) -> FileEdit:
    """``entry`` on a line of its own at the end of a block section (``:predicates``, ``:init``)."""
    indent = _line_indent(text, section.start) + "  "
    close = section.end - 1
    before = text[:close].rstrip()
    return FileEdit(path, Span(len(before), close), f"\n{indent}{entry}")


def _after_sections(path: str, text: str, model: Domain | Problem, keywords: Sequence[str],
                    new_section: str) -> FileEdit | None:
    """A new section after the last of ``keywords`` present (or after the header)."""
    anchor: Span | None = None
    for keyword in keywords:
        found = _section(text, model.sections, keyword)
        if found is not None and (anchor is None or found.end > anchor.end):
            anchor = found
    if anchor is None:
        anchor = form_span(text, model.name.span.start)  # `(domain NAME)` / `(problem NAME)`
    if anchor is None:
        return None
    indent = _line_indent(text, anchor.start) or "  "
    return FileEdit(path, Span(anchor.end, anchor.end), f"\n{indent}{new_section}")


def _remove(path: str, text: str, span: Span) -> FileEdit:
    """Delete ``span``; its whole line when nothing else is on it, else with the space before it."""
    line_start = line_start_at(text, span.start)
    line_end = line_end_at(text, span.end)
    alone = not text[line_start:span.start].strip()
    if alone and not text[span.end:line_end].strip():
        return FileEdit(path, Span(line_start, min(line_end + 1, len(text))), "")
    if alone and text[span.end:line_end].lstrip().startswith(")"):  # the last entry: `)` moves up
        return FileEdit(path, Span(len(text[:span.start].rstrip()), span.end), "")
    start = span.start
    while start > 0 and text[start - 1] in " \t":
        start -= 1
    return FileEdit(path, Span(start, span.end), "")


# --- what a use says about a declaration -------------------------------------------------------------------


def _atom_at(formulas: Sequence[Formula | None], span: Span, by_argument: bool = False) -> Atom | None:
    for formula in formulas:
        for node in walk(formula):
            if isinstance(node, Atom):
                if not by_argument and node.predicate.span == span:
                    return node
                if by_argument and any(arg.span == span for arg in node.args):
                    return node
    return None


def _domain_formulas(domain: Domain) -> list[Formula | None]:
    formulas: list[Formula | None] = []
    for action in domain.actions:
        formulas.extend((action.precondition, action.effect, action.duration, action.observe))
    formulas.extend(d.body for d in domain.derived)
    formulas.append(domain.constraints)
    return formulas


def _problem_formulas(problem: Problem, span: Span) -> list[Formula | None]:
    """The problem's formulas a node at ``span`` can be in: after an edit, only the facts and goal
    arguments around it are copied with their moved spans, not the whole lists (``syntax/runs.py``)."""
    start, end = span.start, span.end
    return [*list_touching(peek(problem, "init"), start, end),
            *formula_parts(peek(problem, "goal"), start, end), built(peek(problem, "constraints"))]


def _variable_types(domain: Domain, span: Span) -> dict[str, TypeRef | None]:
    """The variables in scope at ``span``: the enclosing action's parameters and quantifiers."""
    scope: dict[str, TypeRef | None] = {}
    owner: Action | None = next((a for a in domain.actions if a.span.start <= span.start < a.span.end), None)
    formulas: list[Formula | None] = []
    if owner is not None:
        scope.update((p.name.key, p.type) for p in (*owner.parameters, *owner.variables))
        formulas = [owner.precondition, owner.effect, owner.duration]
    for derived in domain.derived:
        if derived.span.start <= span.start < derived.span.end:
            scope.update((p.name.key, p.type) for p in derived.head.parameters)
            formulas = [derived.body]
    for formula in formulas:
        for node in walk(formula):
            if isinstance(node, Quantified) and node.span.start <= span.start < node.span.end:
                scope.update((v.name.key, v.type) for v in node.variables)
    return scope


def _object_types(domain: Domain | None, problem: Problem | None) -> dict[str, TypeRef | None]:
    known: dict[str, TypeRef | None] = {}
    if domain is not None:
        known.update((c.name.key, c.type) for c in domain.constants)
    if problem is not None:
        known.update((o.name.key, o.type) for o in built(peek(problem, "objects")))
    return known


def _typing(domain: Domain) -> bool:
    return any(r.key == ":typing" for r in domain.requirements) or bool(domain.types)


def inferred_declaration(atom: Atom, types: dict[str, TypeRef | None], typed: bool) -> str:
    """``(name ?a - t ...)`` for a use: variables keep their names, other arguments get their type's."""
    parameters: list[TypedName] = []
    used: set[str] = set()
    for index, arg in enumerate(atom.args):
        type_ref = types.get(arg.key) if typed else None
        base = arg.key if arg.key.startswith("?") else "?" + (type_ref.names[0].key if type_ref and len(
            type_ref.names) == 1 else f"x{index + 1}")
        name = base
        count = 2
        while name in used:
            name = f"{base}{count}"
            count += 1
        used.add(name)
        parameters.append(TypedName(Name(name, name), type_ref))
    if not parameters:
        return f"({atom.predicate.text or atom.predicate.key})"
    return f"({atom.predicate.text or atom.predicate.key} {typed_list(parameters)})"


# --- the fixes ---------------------------------------------------------------------------------------------


def fixes_for(diagnostic: Diagnostic, document: ParsedDocument, domain: ParsedDocument | None) -> list[Fix]:
    """The quick fixes for one diagnostic of ``document`` (``domain``: its linked domain, or itself)."""
    data = dict(diagnostic.data)
    handler = _HANDLERS.get(diagnostic.code)
    fixes = handler(diagnostic, data, document, domain) if handler is not None else []
    suggestion = data.get("suggestion")
    if not suggestion:  # some checks only say it in the message
        said = _DID_YOU_MEAN.search(diagnostic.message)
        suggestion = said.group(1) if said is not None else None
    if suggestion and diagnostic.span.end > diagnostic.span.start:
        written = document.text[diagnostic.span.start:diagnostic.span.end]
        if suggestion != written:
            title = (f"Change the domain name to `{suggestion}`"
                     if diagnostic.code in ("unknown-domain", "domain-name-mismatch")
                     else f"Replace `{written}` with `{suggestion}`")
            edit = FileEdit(document.path, diagnostic.span, suggestion)
            fixes.insert(0, Fix(title, (edit,), preferred=True))
    return fixes


_DID_YOU_MEAN = re.compile(r"[Dd]id you mean `([^`\s]+)`\?")

_Handler = Callable[[Diagnostic, dict[str, str], ParsedDocument, "ParsedDocument | None"], list[Fix]]


def _missing_requirement(diagnostic: Diagnostic, data: dict[str, str], document: ParsedDocument,
                         domain: ParsedDocument | None) -> list[Fix]:
    target = domain if domain is not None and domain.domain is not None else None
    if target is None or target.domain is None:
        return []
    model, text = target.domain, target.text
    if "requirements" in data:
        edit = _after_sections(target.path, text, model, (), f"(:requirements {data['requirements']})")
        return [] if edit is None else [Fix(f"Add `(:requirements {data['requirements']})`", (edit,),
                                            preferred=True)]
    key = data.get("requirement")
    if not key:
        return []
    section = _section(text, model.sections, ":requirements")
    if section is None:
        edit = _after_sections(target.path, text, model, (), f"(:requirements :strips {key})")
    else:
        close = section.end - 1
        edit = FileEdit(target.path, Span(close, close), f" {key}")
    if edit is None:
        return []
    return [Fix(f"Add `{key}` to the domain's requirements", (edit,), preferred=True)]


def _undeclared_predicate(diagnostic: Diagnostic, data: dict[str, str], document: ParsedDocument,
                          domain: ParsedDocument | None) -> list[Fix]:
    if domain is None or domain.domain is None:
        return []
    model = domain.domain
    if document.problem is not None:
        atom = _atom_at(_problem_formulas(document.problem, diagnostic.span), diagnostic.span)
        types = _object_types(model, document.problem)
    elif document.domain is not None:
        atom = _atom_at(_domain_formulas(document.domain), diagnostic.span)
        types = {**_object_types(model, None), **_variable_types(document.domain, diagnostic.span)}
    else:
        return []
    if atom is None:
        return []
    declaration = inferred_declaration(atom, types, _typing(model))
    return [Fix(f"Declare predicate `{declaration}`", (_declare(domain, ":predicates", declaration),))]


def _declare(domain: ParsedDocument, keyword: str, entry: str) -> FileEdit:
    assert domain.domain is not None
    text = domain.text
    section = _section(text, domain.domain.sections, keyword)
    if section is not None:
        return _append_to_section(domain.path, text, section, entry)
    edit = _after_sections(domain.path, text, domain.domain, (":requirements", ":types", ":constants"),
                           f"({keyword}\n    {entry})")
    assert edit is not None  # the domain header is always there in a parsed domain
    return edit


def _undeclared_object(diagnostic: Diagnostic, data: dict[str, str], document: ParsedDocument,
                       domain: ParsedDocument | None) -> list[Fix]:
    problem = document.problem
    if problem is None:
        return []
    name = document.text[diagnostic.span.start:diagnostic.span.end]
    type_ref: TypeRef | None = None
    model = domain.domain if domain is not None else None
    if model is not None and _typing(model):
        atom = _atom_at(_problem_formulas(problem, diagnostic.span), diagnostic.span, by_argument=True)
        declared = {p.name.key: p for p in model.predicates}
        if atom is not None and atom.predicate.key in declared:
            parameters = declared[atom.predicate.key].parameters
            index = next(i for i, a in enumerate(atom.args) if a.span == diagnostic.span)
            if index < len(parameters):
                type_ref = parameters[index].type
    entry = name if type_ref is None else f"{name} - {type_text(type_ref)}"
    section = _section(document.text, problem.sections, ":objects")
    if section is not None:
        keyword_end = next(s.span.end for s in problem.sections if s.key == ":objects")
        # at the front: after an untyped run `a b`, `c - t` would give `a` and `b` the type too
        edit = FileEdit(document.path, Span(keyword_end, keyword_end), f" {entry}")
    else:
        made = _after_sections(document.path, document.text, problem, (":domain", ":requirements"),
                               f"(:objects {entry})")
        if made is None:
            return []
        edit = made
    return [Fix(f"Declare object `{entry}`", (edit,), preferred=True)]


def _typed_objects(diagnostic: Diagnostic, data: dict[str, str], document: ParsedDocument,
                   domain: ParsedDocument | None) -> list[Fix]:
    problem = document.problem
    if problem is None:
        return []
    text = document.text
    section = _section(text, problem.sections, ":objects")
    if section is None:
        return []
    edits = []
    scan = list(_tokens(text[:section.end], section.start))
    index = 0
    while index < len(scan):
        m = scan[index]
        if m.group() == "-":
            start = m.start()
            while start > 0 and text[start - 1] in " \t":
                start -= 1
            nxt = scan[index + 1] if index + 1 < len(scan) else None
            if nxt is None:
                break
            end = nxt.end()
            if nxt.group() == "(":
                inner = form_span(text, nxt.start() + 1)
                end = inner.end if inner is not None else end
                while index + 1 < len(scan) and scan[index + 1].start() < end:
                    index += 1
            else:
                index += 1
            edits.append(FileEdit(document.path, Span(start, end), ""))
        index += 1
    if not edits:
        return []
    return [Fix("Remove the object types (the domain is untyped)", tuple(edits), preferred=True)]


def _unused(diagnostic: Diagnostic, data: dict[str, str], document: ParsedDocument,
            domain: ParsedDocument | None) -> list[Fix]:
    model = document.domain
    if model is None:
        return []
    text, path, span = document.text, document.path, diagnostic.span
    code = diagnostic.code
    name = text[span.start:span.end]
    if code == "unused-requirement":
        return [Fix(f"Remove `{name}`", (_remove(path, text, span),))]
    if code == "unused-predicate":
        decl = next((p for p in model.predicates if p.name.span == span), None)
        if decl is None:
            return []
        return [Fix(f"Remove the declaration of `{name}`", (_remove(path, text, decl.span),))]
    pairs = ([(c.name, c.type) for c in model.constants] if code == "unused-constant"
             else [(t.name, t.parent) for t in model.types])
    position = next((i for i, pair in enumerate(pairs) if pair[0].span == span), None)
    if position is None:
        return []
    own_type = pairs[position][1]

    def shares_type(other: int) -> bool:
        if not 0 <= other < len(pairs):
            return False
        other_type = pairs[other][1]
        if own_type is None or other_type is None:
            return own_type is None and other_type is None
        return other_type.span == own_type.span  # the same `- type` written once for a run of names

    end = span.end
    if own_type is not None and not shares_type(position - 1) and not shares_type(position + 1):
        end = own_type.span.end  # the name was alone before its `- type`: the type goes with it
    return [Fix(f"Remove the unused declaration of `{name}`", (_remove(path, text, Span(span.start, end)),))]


def _remove_it(diagnostic: Diagnostic, data: dict[str, str], document: ParsedDocument,
               domain: ParsedDocument | None) -> list[Fix]:
    """Text that means nothing (a `- board` typing no names, a Lisp `(in-package ...)` header)."""
    written = document.text[diagnostic.span.start:diagnostic.span.end]
    return [Fix(f"Remove `{written}`", (_remove(document.path, document.text, diagnostic.span),),
                preferred=True)]


def _empty_file(diagnostic: Diagnostic, data: dict[str, str], document: ParsedDocument,
                domain: ParsedDocument | None) -> list[Fix]:
    return skeletons(document, domain)


_HANDLERS: dict[str, _Handler] = {
    "missing-requirement": _missing_requirement,
    "undeclared-predicate": _undeclared_predicate,
    "undeclared-object": _undeclared_object,
    "typed-objects-untyped-domain": _typed_objects,
    "unused-predicate": _unused,
    "unused-requirement": _unused,
    "unused-constant": _unused,
    "unused-type": _unused,
    "empty-file": _empty_file,
    "empty-typed-list": _remove_it,
    "skipped-form": _remove_it,
}


# --- new content -------------------------------------------------------------------------------------------

DOMAIN_SKELETON = """\
(define (domain {name})
  (:requirements :strips :typing)
  (:types item)
  (:predicates
    (ready ?i - item))

  (:action act
    :parameters (?i - item)
    :precondition (ready ?i)
    :effect (not (ready ?i))))
"""

PROBLEM_SKELETON = """\
(define (problem {name})
  (:domain {domain})
  (:objects)
  (:init)
  (:goal (and)))
"""


def _stem(path: str) -> str:
    stem = os.path.splitext(os.path.basename(path))[0]
    return re.sub(r"[^A-Za-z0-9_\-]", "-", stem).strip("-") or "new"


def skeletons(document: ParsedDocument, domain: ParsedDocument | None) -> list[Fix]:
    """A domain and a problem to start an empty file from."""
    if document.text.strip() and not all(is_comment_line(line) for line in document.text.splitlines()
                                         if line.strip()):
        return []
    end = len(document.text)
    separator = "" if not document.text or document.text.endswith("\n") else "\n"
    domain_name = domain.domain.name.text if domain is not None and domain.domain is not None else "DOMAIN"
    name = _stem(document.path)
    return [
        Fix("Insert a domain skeleton",
            (FileEdit(document.path, Span(end, end), separator + DOMAIN_SKELETON.format(name=name)),)),
        Fix("Insert a problem skeleton",
            (FileEdit(document.path, Span(end, end),
                      separator + PROBLEM_SKELETON.format(name=name, domain=domain_name)),)),
    ]


def problem_from_domain(document: ParsedDocument, exists: Callable[[str], bool]) -> Fix | None:
    """A new problem file next to a domain: its objects section lists the types to fill in (with the
    constants that already exist), its init the predicates, as comments."""
    model = document.domain
    if model is None:
        return None
    name = re.sub(r"[^A-Za-z0-9_\-]", "-", model.name.text or model.name.key)
    folder = os.path.dirname(document.path)
    path = os.path.join(folder, f"{name}-problem.pddl")
    count = 2
    while exists(path):
        path = os.path.join(folder, f"{name}-problem-{count}.pddl")
        count += 1
    lines = [f"; @domain {os.path.basename(document.path)}", f"(define (problem {name}-problem)",
             f"  (:domain {model.name.text})", "  (:objects"]
    constants: dict[str, list[str]] = {}
    for constant in model.constants:
        type_name = type_text(constant.type) if constant.type else "object"
        constants.setdefault(type_name, []).append(constant.name.text)
    type_names = [t.name.text for t in model.types] or (["object"] if _typing(model) else [])
    for type_name in type_names:
        known = constants.get(type_name)
        lines.append(f"    ; {type_name}" + (f" (constants: {' '.join(known)})" if known else ""))
    lines.append("  )")
    lines.append("  (:init")
    lines.extend(f"    ; {_signature(p)}" for p in model.predicates)
    lines.append("  )")
    lines.append("  (:goal (and")
    lines.append("  )))")
    content = "\n".join(lines) + "\n"
    return Fix(f"Create a problem for `{model.name.text}` ({os.path.basename(path)})",
               (FileEdit(path, Span(0, 0), content),), kind="source", create=path)


def _signature(decl: PredicateDecl) -> str:
    return f"({decl.name.text} {typed_list(decl.parameters)})" if decl.parameters else f"({decl.name.text})"

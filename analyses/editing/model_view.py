"""What the model view shows, as plain JSON-able data.

For a domain: the type hierarchy as a tree, and for each predicate (and numeric fluent) which actions
read it in a precondition or an effect's ``when`` condition, and which add or delete it; a predicate
that no action changes is static, one that none reads is only ever a goal. For a problem: its objects
grouped by type, its initial state as one table per predicate, and the graph that the binary
predicates of the initial state draw between objects.

The page (:mod:`plansight.analyses.editing.model_html`) only draws this; tests check the facts here.
Names are shown as written in the file (the first spelling); they are grouped case-insensitively, as
PDDL compares them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from plansight.analyses.model.pddl import (
    Action,
    Atom,
    Comparison,
    Domain,
    Formula,
    FunctionTerm,
    Name,
    Not,
    Number,
    NumericEffect,
    Problem,
    TypeRef,
    When,
    children,
    numeric_terms,
    walk,
)
from plansight.analyses.model.printer import number_text, print_formula, type_text, typed_list

ROOT_TYPE = "object"


def _text(name: Name) -> str:
    return name.text or name.key


def domain_model(domain: Domain, path: str = "") -> dict[str, Any]:
    """The view model of a domain (see the module docstring)."""
    reads: dict[str, dict[str, None]] = {}
    adds: dict[str, dict[str, None]] = {}
    deletes: dict[str, dict[str, None]] = {}
    numeric_reads: dict[str, dict[str, None]] = {}
    numeric_changes: dict[str, dict[str, None]] = {}
    spelled: dict[str, str] = {}
    for action in domain.actions:
        who = _text(action.name)
        for atom in _condition_atoms(action):
            spelled.setdefault(atom.predicate.key, _text(atom.predicate))
            reads.setdefault(atom.predicate.key, {})[who] = None
        for atom, positive in _effect_literals(action.effect):
            spelled.setdefault(atom.predicate.key, _text(atom.predicate))
            (adds if positive else deletes).setdefault(atom.predicate.key, {})[who] = None
        for function in _functions_read(action):
            numeric_reads.setdefault(function, {})[who] = None
        for node in walk(action.effect):
            if isinstance(node, NumericEffect):
                numeric_changes.setdefault(node.target.function.key, {})[who] = None
    for derived in domain.derived:
        who = f"{_text(derived.head.name)} (derived)"
        adds.setdefault(derived.head.name.key, {})[who] = None
        for node in walk(derived.body):
            if isinstance(node, Atom):
                spelled.setdefault(node.predicate.key, _text(node.predicate))
                reads.setdefault(node.predicate.key, {})[who] = None

    declared = {decl.name.key: decl for decl in domain.predicates}
    for derived in domain.derived:
        declared.setdefault(derived.head.name.key, derived.head)
    keys = list(dict.fromkeys([*declared, *spelled]))
    predicates = [{
        "name": _text(declared[key].name) if key in declared else spelled[key],
        "signature": _signature(declared[key].name, typed_list(declared[key].parameters))
        if key in declared else f"({spelled[key]} …)",
        "declared": key in declared,
        "read_by": list(reads.get(key, {})),
        "added_by": list(adds.get(key, {})),
        "deleted_by": list(deletes.get(key, {})),
    } for key in keys if key != "="]
    functions = [{
        "name": _text(decl.name),
        "signature": _signature(decl.name, typed_list(decl.parameters)),
        "read_by": list(numeric_reads.get(decl.name.key, {})),
        "changed_by": list(numeric_changes.get(decl.name.key, {})),
    } for decl in domain.functions]
    return {
        "kind": "domain",
        "path": path,
        "file": os.path.basename(path),
        "name": _text(domain.name),
        "types": type_tree(domain),
        "predicates": predicates,
        "functions": functions,
        "actions": [_text(action.name) for action in domain.actions],
    }


def _signature(name: Name, parameters: str) -> str:
    return f"({_text(name)}{' ' + parameters if parameters else ''})"


def type_tree(domain: Domain) -> dict[str, Any]:
    """``{"name": "object", "children": [...], "constants": [...]}``; a type declared under two parents
    (``- (either a b)``) appears under both, and a cycle is cut where it closes (``"cycle": true``)."""
    spelled: dict[str, str] = {ROOT_TYPE: ROOT_TYPE}
    parents: dict[str, list[str]] = {}
    for decl in domain.types:
        spelled.setdefault(decl.name.key, _text(decl.name))
        names = decl.parent.names if decl.parent is not None else ()
        for parent in names:
            spelled.setdefault(parent.key, _text(parent))
        parent_keys = [p.key for p in names] or [ROOT_TYPE]
        parents.setdefault(decl.name.key, [])
        parents[decl.name.key] += [p for p in parent_keys if p not in parents[decl.name.key]]
    for key in list(spelled):  # parents used but never declared hang under object
        if key != ROOT_TYPE and key not in parents:
            parents[key] = [ROOT_TYPE]
    kids: dict[str, list[str]] = {}
    for child, of in parents.items():
        for parent_key in of:
            if child != ROOT_TYPE:
                kids.setdefault(parent_key, []).append(child)
    constants: dict[str, list[str]] = {}
    for constant in domain.constants:
        for type_key in _type_keys(constant.type):
            constants.setdefault(type_key, []).append(_text(constant.name))

    def node(key: str, path: tuple[str, ...]) -> dict[str, Any]:
        if key in path:
            return {"name": spelled[key], "children": [], "constants": [], "cycle": True}
        return {"name": spelled[key], "constants": constants.get(key, []),
                "children": [node(k, (*path, key)) for k in kids.get(key, [])]}

    return node(ROOT_TYPE, ())


def _type_keys(type_ref: TypeRef | None) -> list[str]:
    return [n.key for n in type_ref.names] if type_ref is not None and type_ref.names else [ROOT_TYPE]


def _condition_atoms(action: Action) -> Iterator[Atom]:
    for node in walk(action.precondition):
        if isinstance(node, Atom):
            yield node
    for node in walk(action.effect):
        if isinstance(node, When):
            yield from (n for n in walk(node.condition) if isinstance(n, Atom))


def _effect_literals(effect: Formula | None) -> Iterator[tuple[Atom, bool]]:
    """The atoms an effect makes true (``True``) or false, under ``and``, ``forall``, time specifiers
    and the effect part of ``when``."""
    stack = [effect] if effect is not None else []
    while stack:
        node = stack.pop()
        if isinstance(node, Atom):
            yield node, True
        elif isinstance(node, Not) and isinstance(node.arg, Atom):
            yield node.arg, False
        elif isinstance(node, When):
            stack.append(node.effect)
        else:
            stack.extend(reversed(children(node)))


def _functions_read(action: Action) -> Iterator[str]:
    for formula in (action.precondition, action.effect, action.duration):
        for node in walk(formula):
            exprs = ((node.left, node.right) if isinstance(node, Comparison)
                     else (node.value,) if isinstance(node, NumericEffect) else ())
            for expr in exprs:
                for term in numeric_terms(expr):
                    if isinstance(term, FunctionTerm):
                        yield term.function.key


def problem_model(problem: Problem, path: str = "", domain: Domain | None = None) -> dict[str, Any]:
    """The view model of a problem (see the module docstring); with its ``domain``, the domain's
    constants are listed with the objects."""
    declared: list[tuple[str, str, str]] = []  # (key, name, type) for constants, then objects
    if domain is not None:
        declared += [(c.name.key, _text(c.name), _type_name(c.type)) for c in domain.constants]
    declared += [(o.name.key, _text(o.name), _type_name(o.type)) for o in problem.objects]
    by_type: dict[str, list[str]] = {}
    spelled: dict[str, str] = {}
    object_type: dict[str, str] = {}
    for key, name, type_name in declared:
        if key in spelled:
            continue
        spelled[key] = name
        object_type[key] = type_name
        by_type.setdefault(type_name, []).append(name)

    tables: dict[str, dict[str, Any]] = {}
    numeric: list[dict[str, Any]] = []
    other: list[str] = []
    edges: list[dict[str, str]] = []
    for fact in problem.init:
        if isinstance(fact, Atom):
            table = tables.setdefault(fact.predicate.key, {"predicate": _text(fact.predicate), "rows": []})
            row = [spelled.get(arg.key, _text(arg)) for arg in fact.args]
            if row not in table["rows"]:
                table["rows"].append(row)
            if len(row) == 2:
                edge = {"source": row[0], "target": row[1], "predicate": _text(fact.predicate)}
                if edge not in edges:
                    edges.append(edge)
        elif (isinstance(fact, Comparison) and fact.op == "=" and isinstance(fact.left, FunctionTerm)
              and not isinstance(fact.right, FunctionTerm)):
            value = number_text(fact.right) if isinstance(fact.right, Number) else print_formula(fact.right)
            numeric.append({"function": _text(fact.left.function),
                            "args": [spelled.get(a.key, _text(a)) for a in fact.left.args], "value": value})
        else:
            other.append(print_formula(fact))
    in_graph = {name for edge in edges for name in (edge["source"], edge["target"])}
    nodes = [name for name in spelled.values() if name in in_graph]
    nodes += [name for name in dict.fromkeys(n for e in edges for n in (e["source"], e["target"]))
              if name not in nodes]
    type_of = {spelled[key]: object_type[key] for key in spelled}
    return {
        "kind": "problem",
        "path": path,
        "file": os.path.basename(path),
        "name": _text(problem.name),
        "domain_name": _text(problem.domain_name) if problem.domain_name is not None else None,
        "objects_by_type": [{"type": type_name, "objects": names} for type_name, names in by_type.items()],
        "init": list(tables.values()),
        "numeric": numeric,
        "other_init": other,
        "graph": {"nodes": [{"name": n, "type": type_of.get(n)} for n in nodes], "edges": edges},
    }


def _type_name(type_ref: TypeRef | None) -> str:
    return type_text(type_ref) if type_ref is not None and type_ref.names else ROOT_TYPE

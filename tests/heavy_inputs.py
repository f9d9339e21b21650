"""Inputs whose plain evaluation would take hours or overflow Python's stack: wide quantifiers over
many objects and LTL goals nested thousands of levels deep (docs/reliability.md, budgets)."""

from __future__ import annotations


def wide_domain(variables: int, where: str = "precondition") -> str:
    """A domain whose action `check` quantifies over ``variables`` variables: in its precondition
    (``forall``, false only on an instance that never comes), its effect (``forall``) or nowhere."""
    names = " ".join(f"?v{i}" for i in range(variables))
    body = "(and " + " ".join(f"(q ?v{i})" for i in range(variables)) + ")"
    precondition = f"(forall ({names}) (not {body}))" if where == "precondition" else "(and)"
    effect = f"(and (done) (forall ({names}) (when {body} (done))))" if where == "effect" else "(done)"
    return f"""(define (domain wide)
  (:requirements :strips :universal-preconditions :negative-preconditions :conditional-effects)
  (:predicates (p ?x) (q ?x) (done))
  (:action check
    :parameters ()
    :precondition {precondition}
    :effect {effect})
  (:action cheap
    :parameters (?x)
    :precondition (p ?x)
    :effect (done)))
"""


def wide_problem(objects: int, goal: str = "(done)") -> str:
    """``objects`` objects, each with ``(p o)``, none with ``(q o)``."""
    names = " ".join(f"o{i}" for i in range(objects))
    facts = " ".join(f"(p o{i})" for i in range(objects))
    return f"""(define (problem wide-p) (:domain wide)
  (:objects {names})
  (:init {facts})
  (:goal {goal}))
"""


def wide_goal(variables: int) -> str:
    """A goal quantifying over ``variables`` variables."""
    names = " ".join(f"?v{i}" for i in range(variables))
    return f"(and (done) (forall ({names}) (not (and {' '.join(f'(q ?v{i})' for i in range(variables))}))))"


def nested_ltl(shape: str, depth: int) -> str:
    """An LTL goal nesting ``depth`` levels of ``shape`` around ``on(a, b)`` (blocksworld)."""
    atom = "on(a, b)"
    if shape == "not":
        return "not " * (depth - 1) + atom
    if shape == "parens":  # parentheses alone add no level: the formula stays an atom
        return "(" * depth + atom + ")" * depth
    if shape == "then":
        return "(clear(a) then " * (depth - 1) + atom + ")" * (depth - 1)
    if shape == "and":
        return "(clear(a) and " * (depth - 1) + atom + ")" * (depth - 1)
    if shape == "implies":
        return "(clear(a) implies " * (depth - 1) + atom + ")" * (depth - 1)
    if shape == "forall":
        return "".join(f"forall x{i}. (" for i in range(depth - 1)) + atom + ")" * (depth - 1)
    raise ValueError(shape)


LTL_SHAPES = ("not", "parens", "then", "and", "implies", "forall")

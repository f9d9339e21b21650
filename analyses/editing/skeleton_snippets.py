"""Skeletons to start writing from, as snippets with tab stops (``${1:name}``): a whole domain or
problem in an empty or unfinished ``.pddl`` file, an action or a ``:predicates`` section at the head
of a domain's section, a predicate inside ``(:predicates``.

Each skeleton is laid out as the formatter lays out PDDL (``formatter.py``: a section per line, an
action's parts one step deeper), with the user's indentation step. Lines after the first are
indented relative to the line the snippet starts on; editors shift them by that line's own
indentation when they insert a snippet. ``closed`` says whether the form's ``)`` is already there
(an editor that closes brackets has typed it with the ``(``): then the skeleton leaves it out.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Skeleton:
    """One snippet: ``label`` is what the user types to find it, ``body`` the snippet text."""

    label: str
    detail: str
    body: str


def _stem(path: str) -> str:
    stem = os.path.splitext(os.path.basename(path))[0]
    return re.sub(r"[^A-Za-z0-9_\-]", "-", stem).strip("-") or "new"


def _close(body: str, open_paren: bool, closed: bool) -> str:
    """The body with its own ``(`` when the user has not typed one, and its ``)`` unless already there."""
    return ("(" if open_paren else "") + body + ("" if closed else ")")


def file_skeletons(path: str, indent: int, open_paren: bool, closed: bool,
                   domain_name: str | None = None) -> list[Skeleton]:
    """A domain and a problem to start a file from; the problem names ``domain_name`` when one is known."""
    step = " " * indent
    name = _stem(path)
    domain = (f"define (domain ${{1:{name}}})\n"
              f"{step}(:requirements :strips :typing)\n"
              f"{step}(:types ${{2:item}})\n"
              f"{step}(:predicates\n"
              f"{step * 2}(${{3:ready}} ?i - ${{2:item}}))\n"
              "\n"
              f"{step}(:action ${{4:act}}\n"
              f"{step * 2}:parameters (?i - ${{2:item}})\n"
              f"{step * 2}:precondition (${{3:ready}} ?i)\n"
              f"{step * 2}:effect (not (${{3:ready}} ?i))$0)")
    target = domain_name if domain_name else "domain-name"
    problem = (f"define (problem ${{1:{name}}})\n"
               f"{step}(:domain ${{2:{target}}})\n"
               f"{step}(:objects ${{3}})\n"
               f"{step}(:init ${{4}})\n"
               f"{step}(:goal (and ${{0}}))")
    return [
        Skeleton("domain", "(define (domain …)) skeleton: types, predicates, an action",
                 _close(domain, open_paren, closed)),
        Skeleton("problem", "(define (problem …)) skeleton: domain, objects, init, goal",
                 _close(problem, open_paren, closed)),
    ]


def domain_section_skeletons(indent: int, closed: bool) -> list[Skeleton]:
    """Skeletons typed after a ``(`` directly inside a domain's ``define``."""
    step = " " * indent
    action = (":action ${1:name}\n"
              f"{step}:parameters (${{2:?x - object}})\n"
              f"{step}:precondition (and ${{3}})\n"
              f"{step}:effect (and ${{0}})")
    durative = (":durative-action ${1:name}\n"
                f"{step}:parameters (${{2:?x - object}})\n"
                f"{step}:duration (= ?duration ${{3:1}})\n"
                f"{step}:condition (and (at start ${{4}}))\n"
                f"{step}:effect (and (at end ${{0}}))")
    predicates = (":predicates\n"
                  f"{step}(${{1:name}} ${{2:?x - object}})$0")
    return [
        Skeleton(":action …", "an action with :parameters, :precondition and :effect",
                 _close(action, False, closed)),
        Skeleton(":durative-action …", "a durative action with :duration, :condition and :effect",
                 _close(durative, False, closed)),
        Skeleton(":predicates …", "the predicates section with a first predicate",
                 _close(predicates, False, closed)),
    ]


def predicate_skeleton(typed: bool, closed: bool) -> Skeleton:
    """A predicate declaration typed after a ``(`` inside ``(:predicates``."""
    parameter = "?${2:x} - ${3:object}" if typed else "?${2:x}"
    body = _close(f"${{1:name}} {parameter}", False, closed)
    return Skeleton("predicate …", "a predicate declaration", body)

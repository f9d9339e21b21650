"""The project and the pytest-lsp client shared by the editor-feature tests (hover, completion,
navigation, rename): a small warehouse domain with two problems and a plan, on disk under
``tmp_path``, served by the real ``plansight serve`` process."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsp_session import SERVER, session
from pytest_lsp import ClientServerConfig, LanguageClient

DOMAIN = """\
; Crates stacked on pallets.
(define (domain shop)
  (:requirements :strips :typing :negative-preconditions)
  (:types crate pallet - thing)
  (:constants depot - pallet)
  (:predicates
    ; the crate ?c stands on the pallet ?p
    (on ?c - crate ?p - pallet)
    (empty ?p - pallet) ; nothing stands on it
    (sealed ?c - crate))
  (:action stack
    :parameters (?c - crate ?p - pallet)
    :precondition (and (empty ?p) (not (sealed ?c)))
    :effect (and (on ?c ?p) (not (empty ?p))))
  (:action unstack
    :parameters (?c - crate ?p - pallet)
    :precondition (on ?c ?p)
    :effect (and (not (on ?c ?p)) (empty ?p)))
  (:action ship
    :parameters (?c - crate)
    :precondition (on ?c depot)
    :effect (and (not (on ?c depot)) (empty depot) (sealed ?c))))
"""

PROBLEM = """\
(define (problem p1)
  (:domain shop)
  (:objects c1 c2 - crate pal1 - pallet)
  (:init (empty pal1) (empty depot))
  (:goal (and (on c1 pal1) (on c2 depot))))
"""

PLAN = """\
(stack c1 pal1)
(stack c2 depot)
"""

LTL_GOAL = "on(c1, pal1) then on(c2, depot)\n"
"""``p1.ltl``: an LTL goal over ``p1.pddl`` (linked by its name), never opened either"""

OTHER_PROBLEM = """\
(define (problem p2)
  (:domain shop)
  (:objects c3 - crate)
  (:init (empty depot))
  (:goal (on c3 depot)))
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The files on disk; deep enough that the domain search (three folders up) stays in ``tmp_path``.
    ``problems/p2.pddl`` and ``p1.ltl`` are never opened: cross-file features must find them by the
    folder rules."""
    folder = tmp_path / "one" / "two" / "three" / "shop"
    (folder / "problems").mkdir(parents=True)
    (folder / "domain.pddl").write_text(DOMAIN)
    (folder / "p1.pddl").write_text(PROBLEM)
    (folder / "p1.plan").write_text(PLAN)
    (folder / "problems" / "p2.pddl").write_text(OTHER_PROBLEM)
    (folder / "p1.ltl").write_text(LTL_GOAL)
    return folder


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, project: Path):
    async with session(lsp_client, project):
        yield

"""The project and the pytest-lsp client shared by the editor-feature tests (hover, completion,
navigation, rename): a small warehouse domain with two problems and a plan, on disk under
``tmp_path``, served by the real ``plansight serve`` process."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

SERVER = [sys.executable, "-m", "plansight", "serve"]

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
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        root_uri=project.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name="shop")],
    ))
    yield
    await lsp_client.shutdown_session()


def open_file(client: LanguageClient, path: Path, text: str | None = None) -> str:
    """Open ``path`` in the editor (with ``text`` as its unsaved contents when given)."""
    if text is None:
        text = path.read_text()
    language = "plan" if path.suffix == ".plan" else "pddl"
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=path.as_uri(), language_id=language, version=1, text=text)))
    return path.as_uri()


def position(text: str, needle: str, nth: int = 0, shift: int = 0) -> types.Position:
    """The position of the ``nth`` ``needle`` in ``text`` (plus ``shift`` characters; ASCII only)."""
    offset = -1
    for _ in range(nth + 1):
        offset = text.index(needle, offset + 1)
    offset += shift
    line = text.count("\n", 0, offset)
    return types.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))


def span(text: str, needle: str, nth: int = 0, word: str | None = None) -> types.Range:
    """The range of ``word`` (default: all of it) inside the ``nth`` ``needle``."""
    shift = needle.index(word) if word is not None else 0
    start = position(text, needle, nth, shift)
    length = len(word if word is not None else needle)
    return types.Range(start=start, end=types.Position(line=start.line, character=start.character + length))


def text_document(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)

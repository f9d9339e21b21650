"""Definition and references on a large problem right after bursts of edits answer exactly what they
answer on a freshly opened document with the same text, through the real server.

The server indexes each new parse of a file by updating the previous parse's index
(``server/index_chain.py``), whatever versions went by unparsed while the user typed, and whether the
request comes before or after the version's diagnostics. A fresh document has no previous index, so
its answers are those of a full build. The problem is over ``CHEAP_INDEX_CHARS``, the size from which
the server stops building the index before publishing diagnostics.
"""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path

import pytest
import pytest_lsp
from lsp_session import SERVER, at_offset, open_file, session, text_document
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from plansight.server.diagnostics_feature import CHEAP_INDEX_CHARS

pytestmark = pytest.mark.lsp

DOMAIN = """(define (domain blocks)
  (:requirements :strips)
  (:predicates (on ?x ?y) (on-table ?x) (clear ?x) (handempty) (holding ?x))
  (:action pick-up :parameters (?x)
    :precondition (and (clear ?x) (on-table ?x) (handempty))
    :effect (and (holding ?x) (not (on-table ?x)) (not (clear ?x)) (not (handempty)))))
"""
BLOCKS = 400


def fact(rng: random.Random) -> str:
    a, b = rng.randrange(BLOCKS), rng.randrange(BLOCKS)
    return rng.choice([f"(on b{a} b{b})", f"(on-table b{a})", f"(clear b{a})", "(handempty)"])


def problem(rng: random.Random) -> str:
    objects = " ".join(f"b{i}" for i in range(BLOCKS))
    facts = "\n    ".join(fact(rng) for _ in range(6000))
    return (f"(define (problem big)\n  (:domain blocks)\n  (:objects {objects})\n"
            f"  (:init\n    {facts})\n  (:goal (and (on b1 b2) (clear b3) (on-table b4)))\n)\n")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "domain.pddl").write_text(DOMAIN)
    return tmp_path


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, folder: Path):
    async with session(lsp_client, folder):
        yield


def _edit(text: str, rng: random.Random) -> tuple[int, int, str]:
    """One keystroke-sized change: a fact inserted or removed in ``:init``, a goal atom added, a space;
    now and then an object added at the end, the start or the middle of the list, or an added one
    deleted (new declarations, or declarations moved, which the updates follow)."""
    facts = [m.start() for m in re.finditer(r"\((?:on|on-table|clear|handempty)[ )]", text)]
    at = rng.choice(facts)
    kind = rng.choice(["insert", "insert", "remove", "goal", "space", "object", "object-start",
                       "object-middle", "object-remove"])
    objects = text.index("(:objects") + len("(:objects ")
    if kind == "object-start":
        return objects, objects, f"extra{rng.randrange(100)} "
    if kind == "object-middle":
        after = text.index(" ", text.index(f" b{rng.randrange(BLOCKS)} ", objects) + 1)
        return after, after, f" extra{rng.randrange(100)}"
    added = list(re.finditer(r" ?extra\d+", text[:text.index(")", objects)]))
    if kind == "object-remove" and added:
        gone = rng.choice(added)
        return gone.start(), gone.end(), ""
    if kind == "insert":
        return at, at, fact(rng) + " "
    if kind == "remove":
        return at, text.index(")", at) + 1, ""
    if kind == "goal":
        goal = text.index("(:goal (and") + len("(:goal (and")
        return goal, goal, " " + fact(rng)
    if kind == "object":
        end = text.index(")", text.index("(:objects"))
        return end, end, f" extra{rng.randrange(100)}"
    return at, at, " "


async def _answers(client: LanguageClient, uri: str, text: str,
                   offsets: list[int]) -> list[tuple[object, object]]:
    """Definition and references at each offset, with this document's own URI written as ``self``."""
    answers: list[tuple[object, object]] = []
    for offset in offsets:
        position = at_offset(text, offset)
        found = await client.text_document_definition_async(types.DefinitionParams(
            text_document=text_document(uri), position=position))
        uses = await client.text_document_references_async(types.ReferenceParams(
            text_document=text_document(uri), position=position,
            context=types.ReferenceContext(include_declaration=True)))
        answers.append((_located(found, uri), _located(uses, uri)))
    return answers


def _located(locations: object, uri: str) -> object:
    """The locations in this document and in the domain, in order; a domain name's references in the
    other open problem (the edited one, seen from its fresh copy, and the other way round) differ."""
    if not isinstance(locations, (list, tuple)):
        return locations
    return sorted(("self" if loc.uri == uri else loc.uri, loc.range.start.line, loc.range.start.character,
                    loc.range.end.line, loc.range.end.character) for loc in locations
                   if loc.uri == uri or loc.uri.endswith("/domain.pddl"))


async def test_answers_after_bursts_of_edits_equal_a_fresh_documents(client: LanguageClient,
                                                                      folder: Path) -> None:
    rng = random.Random(17)
    text = problem(rng)
    assert len(text) > CHEAP_INDEX_CHARS
    path = folder / "big.pddl"
    path.write_text(text)
    uri = open_file(client, path)
    await asyncio.sleep(1.0)  # diagnostics and the first index, built in full
    version = 1
    for burst in range(12):
        for _ in range(rng.randint(1, 5)):
            start, end, inserted = _edit(text, rng)
            version += 1
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangePartial(
                    range=types.Range(start=at_offset(text, start), end=at_offset(text, end)),
                    text=inserted)]))
            text = text[:start] + inserted + text[end:]
        # right away (the request parses the text itself), while the analysis runs, or after it
        await asyncio.sleep(rng.choice([0.0, 0.02, 0.1, 0.4]))
        words = [m.start() + 1 for m in re.finditer(r"\b(?:b\d+|extra\d+|on-table|clear|on)\b", text)]
        offsets = [rng.choice(words) for _ in range(3)]
        edited = await _answers(client, uri, text, offsets)
        copy = folder / f"copy{burst}.pddl"
        copy_uri = open_file(client, copy, text)
        fresh = await _answers(client, copy_uri, text, offsets)
        client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=text_document(copy_uri)))
        assert edited == fresh, (burst, offsets)
        assert all(definition for definition, _ in edited)  # every word chosen is a declared name

"""``semanticTokens/full/delta`` through the real ``plansight serve`` process (pytest-lsp), as VS Code
uses it: after each change the client sends the id of the array it holds and applies the edits it gets
back. Over random edit sequences the array so maintained must be the tokens a fresh request computes
(a whole-document range request, which never uses the previous answer)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import pytest_lsp
from lsp_session import SERVER, close_session, open_session
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

pytestmark = pytest.mark.lsp

DOMAIN = """\
(define (domain shop)
  (:requirements :strips :typing)
  (:types crate pallet)
  (:constants depot - pallet)
  (:predicates (on ?c - crate ?p - pallet) (empty ?p - pallet))
  (:action stack
    :parameters (?c - crate ?p - pallet)
    :precondition (empty ?p)
    :effect (and (on ?c ?p) (not (empty ?p)))))
"""

PROBLEM = """\
(define (problem two)
  (:domain shop)
  (:objects c1 c2 - crate p1 - pallet) ; the stock
  (:init (empty p1) (empty depot)
    (on c1 p1))
  (:goal (and (on c1 p1) (on c2 depot))))
"""

PIECES = ["(", ")", " ", "\n", ";", "; note\n", "(on c1 p1)", "(empty ", "c3", " - crate", "p2", "depot",
          "(and ", ":init", "?x", "12", "é"]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, tmp_path: Path):
    result = await open_session(lsp_client, tmp_path)
    provider = result.capabilities.semantic_tokens_provider
    assert isinstance(provider, types.SemanticTokensOptions)
    assert isinstance(provider.full, types.SemanticTokensFullDelta) and provider.full.delta
    yield
    await close_session(lsp_client)


def _position(text: str, offset: int) -> types.Position:
    line = text.count("\n", 0, offset)
    before = text[text.rfind("\n", 0, offset) + 1:offset]
    return types.Position(line=line, character=len(before.encode("utf-16-le")) // 2)


def _apply(data: list[int], delta: types.SemanticTokensDelta) -> list[int]:
    for edit in sorted(delta.edits, key=lambda e: e.start, reverse=True):
        data = data[:edit.start] + list(edit.data or []) + data[edit.start + edit.delete_count:]
    return data


async def test_deltas_applied_by_the_client_give_the_tokens_of_each_version(
        client: LanguageClient, tmp_path: Path) -> None:
    (tmp_path / "domain.pddl").write_text(DOMAIN)
    problem = tmp_path / "p01.pddl"
    problem.write_text(PROBLEM)
    uri = problem.as_uri()
    doc = types.TextDocumentIdentifier(uri=uri)
    for path, text in ((tmp_path / "domain.pddl", DOMAIN), (problem, PROBLEM)):
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=path.as_uri(), language_id="pddl", version=1, text=text)))
    first = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=doc))
    assert first is not None and first.result_id is not None
    held, result_id, text = list(first.data), first.result_id, PROBLEM
    rng = random.Random(17)
    changed = 0
    for version in range(2, 42):
        start = rng.randint(0, len(text))
        end = min(len(text), start + rng.choice([0, 0, 1, 3, 12]))
        piece = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 2)))
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=_position(text, start), end=_position(text, end)), text=piece)]))
        text = text[:start] + piece + text[end:]
        answer = await client.text_document_semantic_tokens_full_delta_async(
            types.SemanticTokensDeltaParams(text_document=doc, previous_result_id=result_id))
        assert isinstance(answer, types.SemanticTokensDelta), "the server forgot the array the client holds"
        assert answer.result_id is not None
        held, result_id = _apply(held, answer), answer.result_id
        changed += bool(answer.edits)
        whole = types.Range(start=types.Position(line=0, character=0), end=_position(text, len(text)))
        fresh = await client.text_document_semantic_tokens_range_async(
            types.SemanticTokensRangeParams(text_document=doc, range=whole))
        assert fresh is not None
        assert held == list(fresh.data), f"after version {version}: {text!r}"
    assert changed > 10  # the edits did change the tokens, most of the time


async def test_an_unknown_previous_id_gets_the_whole_array(client: LanguageClient, tmp_path: Path) -> None:
    (tmp_path / "domain.pddl").write_text(DOMAIN)
    uri = (tmp_path / "domain.pddl").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id="pddl", version=1, text=DOMAIN)))
    doc = types.TextDocumentIdentifier(uri=uri)
    full = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=doc))
    assert full is not None and full.data
    answer = await client.text_document_semantic_tokens_full_delta_async(
        types.SemanticTokensDeltaParams(text_document=doc, previous_result_id="not-an-id"))
    assert isinstance(answer, types.SemanticTokens) and list(answer.data) == list(full.data)
    same = await client.text_document_semantic_tokens_full_delta_async(
        types.SemanticTokensDeltaParams(text_document=doc, previous_result_id=answer.result_id))
    assert isinstance(same, types.SemanticTokensDelta) and list(same.edits) == []

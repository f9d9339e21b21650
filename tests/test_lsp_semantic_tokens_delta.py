"""``semanticTokens/full/delta`` through the real ``plansight serve`` process (pytest-lsp), as VS Code
uses it: after each change the client sends the id of the array it holds and applies the edits it gets
back. Over random edit sequences the array so maintained must be the tokens a fresh request computes
(a whole-document range request, which never uses the previous answer)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import pytest_lsp
from lsp_session import SERVER, at_offset, close_session, open_session
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
                range=types.Range(start=at_offset(text, start), end=at_offset(text, end)), text=piece)]))
        text = text[:start] + piece + text[end:]
        answer = await client.text_document_semantic_tokens_full_delta_async(
            types.SemanticTokensDeltaParams(text_document=doc, previous_result_id=result_id))
        assert isinstance(answer, types.SemanticTokensDelta), "the server forgot the array the client holds"
        assert answer.result_id is not None
        held, result_id = _apply(held, answer), answer.result_id
        changed += bool(answer.edits)
        whole = types.Range(start=types.Position(line=0, character=0), end=at_offset(text, len(text)))
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


def _long_problem() -> str:
    init = "".join(f"    (on c{i % 3 + 1} p1) (empty p{i % 2 + 1})\n" for i in range(60))
    return ("(define (problem long)\n  (:domain shop)\n  (:objects c1 c2 c3 - crate p1 p2 - pallet)\n"
            f"  (:init\n{init}  )\n  (:goal (and (on c1 p1) (forall (?c - crate) (on ?c depot)))))\n")


def _change(text: str, start: int, end: int, piece: str) -> types.TextDocumentContentChangePartial:
    return types.TextDocumentContentChangePartial(
        range=types.Range(start=at_offset(text, start), end=at_offset(text, end)), text=piece)


async def test_deltas_after_declarations_bursts_and_several_changes_at_once(
        client: LanguageClient, tmp_path: Path) -> None:
    """Scripted edits of the kinds that do and do not change what names mean: typing facts in ``:init``
    and goal elements (only the edited lines recoloured), an object added, renamed and removed, a
    constant of the partner domain renamed, edits at the start and end of the file, several changes
    in one notification, and bursts of versions the client never asks tokens for."""
    domain_path, problem = tmp_path / "domain.pddl", tmp_path / "p01.pddl"
    text = _long_problem()
    domain_path.write_text(DOMAIN)
    problem.write_text(text)
    uri, domain_uri = problem.as_uri(), domain_path.as_uri()
    doc = types.TextDocumentIdentifier(uri=uri)
    for path, content in ((domain_path, DOMAIN), (problem, text)):
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
            uri=path.as_uri(), language_id="pddl", version=1, text=content)))
    first = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=doc))
    assert first is not None and first.result_id is not None
    held, result_id = list(first.data), first.result_id
    version, domain_version, domain_text = 1, 1, DOMAIN

    def edit(*spans: tuple[str, str]) -> None:
        """Send one notification replacing each ``old`` by ``new`` in turn (first occurrence)."""
        nonlocal text, version
        changes = []
        for old, new in spans:
            at = text.index(old)
            changes.append(_change(text, at, at + len(old), new))
            text = text[:at] + new + text[at + len(old):]
        version += 1
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=changes))

    async def check(label: str) -> list[int]:
        nonlocal held, result_id
        answer = await client.text_document_semantic_tokens_full_delta_async(
            types.SemanticTokensDeltaParams(text_document=doc, previous_result_id=result_id))
        assert isinstance(answer, types.SemanticTokensDelta) and answer.result_id is not None, label
        held, result_id = _apply(held, answer), answer.result_id
        whole = types.Range(start=types.Position(line=0, character=0), end=at_offset(text, len(text)))
        fresh = await client.text_document_semantic_tokens_range_async(
            types.SemanticTokensRangeParams(text_document=doc, range=whole))
        assert fresh is not None and held == list(fresh.data), f"{label}: {text!r}"
        return held

    def kinds_of(name: str) -> list[int]:
        """The token types of every token spelled ``name``, from the array the client holds."""
        found, line, column = [], 0, 0
        lines = text.split("\n")
        for i in range(0, len(held), 5):
            line += held[i]
            column = held[i + 1] if held[i] else column + held[i + 1]
            if lines[line][column:column + held[i + 2]] == name:
                found.append(held[i + 3])
        return found

    object_type = 5  # "variable": a problem object
    edit(("    (on c2 p1)", "    (on c2 p1) ()"))
    await check("brackets typed between two facts")
    current = "()"
    for typed in ("(e)", "(em)", "(empty)", "(empty p2)"):
        edit((current, typed))
        current = typed
        await check(f"typing {typed}")
    edit(("(on c1 p1) (forall", "(on c3 p2) (on c1 p1) (forall"))
    await check("a goal element added")
    for _ in range(4):  # a burst: versions the client never asks about
        edit(("    (on c3 p1)", "    (on c3 p1) (empty p1)"))
    await check("after a burst of four versions")
    edit(("c1 c2 c3 - crate", "c1 c2 c3 c4 - crate"), ("(on c1 p1) (empty p2)", "(on c4 p1) (empty p2)"))
    await check("an object added and used, in one notification")
    assert object_type in kinds_of("c4")
    edit(("c3 c4 - crate", "c3 c5 - crate"))
    await check("the object renamed: its use no longer resolves")
    assert kinds_of("c4") and object_type not in kinds_of("c4")
    edit(("(:objects c1 c2 c3 c5 - crate", "(:objects c1 c2 c3 - crate"))
    await check("an object removed")
    edit(("(define", "; head\n(define"))
    await check("a comment at the start of the file")
    edit(("(define (problem long)", "(define (problem longer)"))
    await check("the problem's name, in the header")
    text_end = text.rstrip()
    edit((text[len(text_end) - 2:], text[len(text_end) - 2:] + " ; tail"))
    await check("a comment after the last bracket")
    edit(("(empty p2)", "(empty p2) ; two\n"), ("(on c1 p1) (forall", "(on c1 p1)\n  (forall"))
    await check("two changes in one notification, far apart")
    domain_version += 1
    new_domain = domain_text.replace("(:constants depot - pallet)", "(:constants dock - pallet)")
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=domain_uri, version=domain_version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=new_domain)]))
    await check("the partner domain's constant renamed")  # the goal's `depot` names nothing now
    edit(("(empty p2) ; two\n", "(empty p2)"))
    await check("an edit of the problem after its partner changed")

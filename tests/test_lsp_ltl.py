"""LTL goals in the editor, through the real ``plansight serve`` process: diagnostics, completion,
hover and the code lenses of a goal linked to a plan and to a reference formula."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsp_editing import client, project
from lsp_session import open_file, position, text_document
from lsprotocol import types
from pytest_lsp import LanguageClient

__all__ = ["client", "project"]  # pytest fixtures, imported for their side effect
pytestmark = pytest.mark.lsp

# the shop project of lsp_editing: stack(c, p) puts crate c on pallet p; the plan stacks c1 on pal1
# (step 0) and c2 on the constant depot (step 1)
GOAL = """\
; @problem p1.pddl
; @plan p1.plan
; @reference ref.ltl
stack(c1, pal1) then on(c1, pal1) and on(c2, depot)
"""
FAILING = """\
; @problem p1.pddl
; @plan p1.plan
stack(c2, depot) then stack(c1, pal1)
"""
REFERENCE = "stack(c1, pal1) then on(c1, pal1) and on(c2, depot) and sealed(c1)\n"
MISTAKES = """\
; @problem p1.pddl
stak(c1, pal1) and on(c3, pal1) and empty(pal1, depot)
"""


async def published(client: LanguageClient, uri: str, timeout: float = 30.0) -> list[types.Diagnostic]:
    for _ in range(int(timeout * 20)):
        if uri in client.diagnostics:
            return list(client.diagnostics[uri])
        await asyncio.sleep(0.05)
    raise AssertionError(f"no diagnostics published for {uri}")


def covered(text: str, diagnostic: types.Diagnostic) -> str:
    lines = text.splitlines()
    start, end = diagnostic.range.start, diagnostic.range.end
    assert start.line == end.line
    return lines[start.line][start.character:end.character]


async def test_diagnostics_use_eai_categories_with_exact_ranges(client: LanguageClient,
                                                                project: Path) -> None:
    path = project / "mistakes.ltl"
    path.write_text(MISTAKES)
    uri = open_file(client, path)
    found = await published(client, uri)
    assert [(str(d.code), covered(MISTAKES, d)) for d in found] == [
        ("hallucinated-predicate", "stak"), ("hallucinated-object", "c3"),
        ("argument-count", "empty(pal1, depot)")]
    assert "Did you mean the action `stack`?" in found[0].message


async def test_completion_offers_predicates_actions_and_typed_objects(client: LanguageClient,
                                                                      project: Path) -> None:
    text = "; @problem p1.pddl\nexists x. (on(x, ))\n"
    path = project / "complete.ltl"
    path.write_text(text)
    uri = open_file(client, path)
    heads = await client.text_document_completion_async(types.CompletionParams(
        text_document=text_document(uri), position=position(text, "exists")))
    assert heads is not None
    by_label = {item.label: item for item in heads.items}
    assert by_label["on"].detail == "predicate/2 (on ?c - crate ?p - pallet)"
    assert by_label["stack"].detail == "action/2 (stack ?c - crate ?p - pallet)"
    assert by_label["ship"].text_edit.new_text == "ship(${1:c})"  # type: ignore[union-attr]
    arguments = await client.text_document_completion_async(types.CompletionParams(
        text_document=text_document(uri), position=position(text, ", )", shift=2)))
    assert arguments is not None
    # the second argument of `on` is a pallet: pal1 and the constant depot, plus the variable x
    assert sorted(item.label for item in arguments.items) == ["depot", "pal1", "x"]


async def test_completion_is_for_ltl_documents_only(client: LanguageClient, project: Path) -> None:
    uri = open_file(client, project / "p1.plan")
    result = await client.text_document_completion_async(types.CompletionParams(
        text_document=text_document(uri), position=types.Position(line=0, character=1)))
    # the LTL items are the only ones whose detail reads `predicate/ARITY ...`
    items = result.items if result is not None else []
    assert not [item for item in items if (item.detail or "").startswith("predicate/")]


async def test_hover_shows_the_pddl_declaration(client: LanguageClient, project: Path) -> None:
    path = project / "goal.ltl"
    path.write_text(GOAL)
    (project / "ref.ltl").write_text(REFERENCE)
    uri = open_file(client, path)
    on = await client.text_document_hover_async(types.HoverParams(
        text_document=text_document(uri), position=position(GOAL, "on(c1", shift=1)))
    assert on is not None and isinstance(on.contents, types.MarkupContent)
    assert on.contents.value.startswith("**predicate** `on` (state proposition)\n\n```pddl\n"
                                        "(on ?c - crate ?p - pallet)\n```")
    stack = await client.text_document_hover_async(types.HoverParams(
        text_document=text_document(uri), position=position(GOAL, "stack")))
    assert stack is not None and isinstance(stack.contents, types.MarkupContent)
    assert "**action** `stack` (action proposition)" in stack.contents.value
    assert ":precondition (and (empty ?p) (not (sealed ?c)))" in stack.contents.value
    assert stack.range == types.Range(start=types.Position(line=3, character=0),
                                      end=types.Position(line=3, character=5))


async def lens_titles(client: LanguageClient, uri: str) -> list[str]:
    found = await client.text_document_code_lens_async(types.CodeLensParams(text_document=text_document(uri)))
    return [lens.command.title for lens in found or [] if lens.command is not None]


async def test_lens_on_a_linked_plan_and_reference(client: LanguageClient, project: Path) -> None:
    path = project / "goal.ltl"
    path.write_text(GOAL)
    (project / "ref.ltl").write_text(REFERENCE)
    uri = open_file(client, path)
    # reference set: {sequence (stack c1 pal1), on(c1, pal1), on(c2, depot), sealed(c1)}; ours lacks
    # sealed(c1): precision 1, recall 3/4, F1 6/7
    assert await lens_titles(client, uri) == ["satisfied at step 2", "F1 0.86 vs reference ref.ltl"]


async def test_lens_names_the_stage_that_failed_and_the_command_returns_the_report(
        client: LanguageClient, project: Path) -> None:
    path = project / "failing.ltl"
    path.write_text(FAILING)
    uri = open_file(client, path)
    [title] = await lens_titles(client, uri)
    assert title.startswith("not satisfied: `stack(c1, pal1)` is never performed after step 1 (stage 2 of 2")
    result: Any = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="plansight.server.ltlReport", arguments=[{"uri": uri}]))
    report = result if isinstance(result, dict) else result._asdict()
    assert report["satisfied"] is False and report["satisfied_at"] is None

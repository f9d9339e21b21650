"""Go to definition, find references and highlight through the real server, across domain, problems
and plans."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_editing import DOMAIN, LTL_GOAL, OTHER_PROBLEM, PLAN, PROBLEM, client, project
from lsp_session import open_file, position, span, text_document
from lsprotocol import types
from pytest_lsp import LanguageClient

__all__ = ["client", "project"]  # pytest fixtures, imported for their side effect
pytestmark = pytest.mark.lsp


def location(path: Path, range_: types.Range) -> types.Location:
    return types.Location(uri=path.as_uri(), range=range_)


async def test_definition_of_a_problem_atom_jumps_to_the_domain_predicate(client: LanguageClient,
                                                                           project: Path) -> None:
    uri = open_file(client, project / "p1.pddl")
    result = await client.text_document_definition_async(types.DefinitionParams(
        text_document=text_document(uri), position=position(PROBLEM, "(on c1", shift=2)))
    assert result == [location(project / "domain.pddl", span(DOMAIN, "(on ?c - crate", word="on"))]


async def test_definition_of_a_plan_step_jumps_to_the_action_and_its_objects(client: LanguageClient,
                                                                              project: Path) -> None:
    uri = open_file(client, project / "p1.plan")
    action = await client.text_document_definition_async(types.DefinitionParams(
        text_document=text_document(uri), position=position(PLAN, "stack", 1, shift=3)))
    assert action == [location(project / "domain.pddl", span(DOMAIN, "(:action stack", word="stack"))]
    obj = await client.text_document_declaration_async(types.DeclarationParams(
        text_document=text_document(uri), position=position(PLAN, "pal1")))
    assert obj == [location(project / "p1.pddl", span(PROBLEM, "pal1"))]
    constant = await client.text_document_definition_async(types.DefinitionParams(
        text_document=text_document(uri), position=position(PLAN, "depot")))
    assert constant == [location(project / "domain.pddl", span(DOMAIN, "depot"))]


async def test_definition_of_a_parameter_is_in_its_action(client: LanguageClient, project: Path) -> None:
    uri = open_file(client, project / "domain.pddl")
    # `?p` in unstack's precondition: the `?p` of unstack's parameters, not stack's
    result = await client.text_document_definition_async(types.DefinitionParams(
        text_document=text_document(uri), position=position(DOMAIN, "(on ?c ?p)", 1, shift=8)))
    parameter = span(DOMAIN, "?c - crate ?p - pallet)", 2, word="?p")
    assert result == [location(project / "domain.pddl", parameter)]


async def test_definition_on_a_keyword_finds_nothing(client: LanguageClient, project: Path) -> None:
    uri = open_file(client, project / "domain.pddl")
    result = await client.text_document_definition_async(types.DefinitionParams(
        text_document=text_document(uri), position=position(DOMAIN, ":precondition", shift=3)))
    assert result in (None, [])


async def test_references_of_a_predicate_span_the_domain_and_every_linked_problem(client: LanguageClient,
                                                                                 project: Path) -> None:
    uri = open_file(client, project / "domain.pddl")
    result = await client.text_document_references_async(types.ReferenceParams(
        text_document=text_document(uri), position=position(DOMAIN, "(empty ?p - pallet)", shift=1),
        context=types.ReferenceContext(include_declaration=True)))
    assert result is not None
    domain, problem, other = project / "domain.pddl", project / "p1.pddl", project / "problems" / "p2.pddl"
    expected = [location(domain, span(DOMAIN, "(empty", n, word="empty")) for n in range(5)]
    expected += [location(problem, span(PROBLEM, "(empty", n, word="empty")) for n in range(2)]
    expected += [location(other, span(OTHER_PROBLEM, "(empty", word="empty"))]
    assert sorted(result, key=_order) == sorted(expected, key=_order)

    without = await client.text_document_references_async(types.ReferenceParams(
        text_document=text_document(uri), position=position(DOMAIN, "(empty ?p - pallet)", shift=1),
        context=types.ReferenceContext(include_declaration=False)))
    assert without is not None and len(without) == len(expected) - 1
    assert location(domain, span(DOMAIN, "(empty ?p - pallet)", word="empty")) not in without


async def test_references_of_an_action_include_the_plan_steps(client: LanguageClient, project: Path) -> None:
    uri = open_file(client, project / "domain.pddl")
    result = await client.text_document_references_async(types.ReferenceParams(
        text_document=text_document(uri), position=position(DOMAIN, "(:action stack", shift=10),
        context=types.ReferenceContext(include_declaration=False)))
    plan = project / "p1.plan"
    assert list(result or []) == [location(plan, span(PLAN, "stack", 0)),
                                  location(plan, span(PLAN, "stack", 1))]


async def test_references_of_a_problem_object_from_the_plan(client: LanguageClient, project: Path) -> None:
    uri = open_file(client, project / "p1.plan")
    result = await client.text_document_references_async(types.ReferenceParams(
        text_document=text_document(uri), position=position(PLAN, "c1"),
        context=types.ReferenceContext(include_declaration=True)))
    assert result is not None
    problem, plan, goal = project / "p1.pddl", project / "p1.plan", project / "p1.ltl"
    assert sorted(result, key=_order) == sorted([
        location(problem, span(PROBLEM, "c1", 0)), location(problem, span(PROBLEM, "c1", 1)),
        location(plan, span(PLAN, "c1")), location(goal, span(LTL_GOAL, "c1"))], key=_order)


async def test_highlight_marks_the_declaration_as_written_and_uses_as_read(client: LanguageClient,
                                                                           project: Path) -> None:
    uri = open_file(client, project / "domain.pddl")
    # `?c` in ship: its parameter and its three uses, nothing from the other actions
    result = await client.text_document_document_highlight_async(types.DocumentHighlightParams(
        text_document=text_document(uri), position=position(DOMAIN, "(sealed ?c))))", shift=9)))
    assert result is not None
    ship = DOMAIN.index("(:action ship")
    offsets = [ship + i for i, _ in enumerate(DOMAIN[ship:]) if DOMAIN.startswith("?c", ship + i)]
    assert len(offsets) == 4
    assert [(h.range.start.line, h.range.start.character, h.kind) for h in result] == [
        (_line_col(o)[0], _line_col(o)[1],
         types.DocumentHighlightKind.Write if n == 0 else types.DocumentHighlightKind.Read)
        for n, o in enumerate(offsets)]


def _line_col(offset: int) -> tuple[int, int]:
    return DOMAIN.count("\n", 0, offset), offset - (DOMAIN.rfind("\n", 0, offset) + 1)


def _order(item: types.Location) -> tuple[str, int, int]:
    return item.uri, item.range.start.line, item.range.start.character


# --- outline, workspace symbols, links ------------------------------------------------------------


def tree(symbols: object) -> list[tuple[str, str, list[object]]]:
    """(name, kind, children) of each symbol, recursively."""
    assert isinstance(symbols, (list, tuple))
    out: list[tuple[str, str, list[object]]] = []
    for symbol in symbols:
        assert isinstance(symbol, types.DocumentSymbol)
        out.append((symbol.name, symbol.kind.name, tree(symbol.children or [])))
    return out


async def test_domain_outline_lists_declarations_and_actions_with_parameters(client: LanguageClient,
                                                                              project: Path) -> None:
    uri = open_file(client, project / "domain.pddl")
    result = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        text_document=text_document(uri)))
    assert tree(result) == [("domain shop", "Module", [
        ("types", "Namespace", [("crate", "Class", []), ("pallet", "Class", [])]),
        ("constants", "Namespace", [("depot", "Constant", [])]),
        ("predicates", "Namespace", [("on", "Function", []), ("empty", "Function", []),
                                     ("sealed", "Function", [])]),
        ("stack", "Method", [("?c", "Variable", []), ("?p", "Variable", [])]),
        ("unstack", "Method", [("?c", "Variable", []), ("?p", "Variable", [])]),
        ("ship", "Method", [("?c", "Variable", [])]),
    ])]
    assert result is not None
    domain = result[0]
    assert isinstance(domain, types.DocumentSymbol) and domain.children is not None
    on = domain.children[2].children[0]  # type: ignore[index]
    assert on.detail == "(on ?c - crate ?p - pallet)"
    assert on.selection_range == span(DOMAIN, "(on ?c - crate", word="on")
    ship = domain.children[-1]
    assert ship.selection_range == span(DOMAIN, "(:action ship", word="ship")


async def test_problem_outline_groups_objects_by_type(client: LanguageClient, project: Path) -> None:
    uri = open_file(client, project / "p1.pddl")
    result = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        text_document=text_document(uri)))
    assert tree(result) == [("problem p1", "Module", [
        ("objects", "Namespace", [("crate", "Class", [("c1", "Constant", []), ("c2", "Constant", [])]),
                                  ("pallet", "Class", [("pal1", "Constant", [])])]),
        ("init", "Namespace", [("(empty pal1)", "Boolean", []), ("(empty depot)", "Boolean", [])]),
        ("goal", "Namespace", []),
    ])]


async def test_workspace_symbols_find_declarations_by_fuzzy_name(client: LanguageClient,
                                                                 project: Path) -> None:
    open_file(client, project / "p1.pddl")
    result = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="stk"))
    assert result is not None
    found = {(s.name, s.kind.name, s.container_name) for s in result
             if isinstance(s, types.SymbolInformation)}
    assert found == {("stack", "Method", "shop"), ("unstack", "Method", "shop")}
    stack = next(s for s in result if s.name == "stack")
    assert isinstance(stack.location, types.Location)
    assert stack.location == location(project / "domain.pddl", span(DOMAIN, "(:action stack", word="stack"))


async def test_document_links_on_directives_and_the_domain_name(client: LanguageClient,
                                                                project: Path) -> None:
    (project / "drafts").mkdir()
    text = "; @domain ../domain.pddl\n; @problem ../p1.pddl\n; @reference ../missing.plan\n" + PLAN
    uri = open_file(client, project / "drafts" / "draft.plan", text)
    result = await client.text_document_document_link_async(types.DocumentLinkParams(
        text_document=text_document(uri)))
    assert [(link.range, link.target) for link in result or []] == [
        (span(text, "../domain.pddl"), (project / "domain.pddl").as_uri()),
        (span(text, "../p1.pddl"), (project / "p1.pddl").as_uri())]  # the missing file gets no link

    problem_uri = open_file(client, project / "p1.pddl")
    result = await client.text_document_document_link_async(types.DocumentLinkParams(
        text_document=text_document(problem_uri)))
    assert [(link.range, link.target) for link in result or []] == [
        (span(PROBLEM, "(:domain shop)", word="shop"), (project / "domain.pddl").as_uri())]

"""Rename through the real server: one workspace edit over the domain, its problems and plans, that
leaves every file lint-clean; and the refusals that keep a rename from changing what the files mean."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_editing import DOMAIN, LTL_GOAL, OTHER_PROBLEM, PLAN, PROBLEM, client, project
from lsp_session import open_file, position, span, text_document
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from plansight.analyses.diagnostics.spans import LineIndex, Position
from plansight.analyses.workspace.lint import Analyzer, DiskSource, find_files

__all__ = ["client", "project"]  # pytest fixtures, imported for their side effect
pytestmark = pytest.mark.lsp


def apply(edit: types.WorkspaceEdit) -> dict[str, str]:
    """Write the edit to disk (as the editor would on save); returns the new texts by file name."""
    assert edit.changes is not None
    written = {}
    for uri, edits in edit.changes.items():
        path = Path(uri.removeprefix("file://"))
        text = path.read_text()
        index = LineIndex(text)
        for change in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character),
                             reverse=True):
            start = index.offset(Position(change.range.start.line, change.range.start.character))
            end = index.offset(Position(change.range.end.line, change.range.end.character))
            text = text[:start] + change.new_text + text[end:]
        path.write_text(text)
        written[path.name] = text
    return written


def lint_findings(folder: Path) -> list[str]:
    analyzer = Analyzer(DiskSource())
    return [f"{Path(path).name}: {d.code} {d.message}" for path in find_files([str(folder)])
            for d in analyzer.lint(path).diagnostics]


async def rename_at(client: LanguageClient, uri: str, at: types.Position,
                    new_name: str) -> types.WorkspaceEdit:
    result = await client.text_document_rename_async(types.RenameParams(
        text_document=text_document(uri), position=at, new_name=new_name))
    assert result is not None
    return result


async def test_renaming_a_predicate_from_a_problem_edits_domain_problems_and_stays_clean(
        client: LanguageClient, project: Path) -> None:
    assert lint_findings(project) == []
    uri = open_file(client, project / "p1.pddl")
    edit = await rename_at(client, uri, position(PROBLEM, "(empty pal1)", shift=2), "free")
    assert edit.changes is not None
    domain_uri, other_uri = (project / "domain.pddl").as_uri(), (project / "problems" / "p2.pddl").as_uri()
    assert set(edit.changes) == {uri, domain_uri, other_uri}
    assert [e.range for e in edit.changes[uri]] == [span(PROBLEM, "(empty", n, word="empty")
                                                    for n in range(2)]
    assert [e.range for e in edit.changes[domain_uri]] == [span(DOMAIN, "(empty", n, word="empty")
                                                           for n in range(5)]
    assert [e.range for e in edit.changes[other_uri]] == [span(OTHER_PROBLEM, "(empty", word="empty")]
    assert {e.new_text for edits in edit.changes.values() for e in edits} == {"free"}

    written = apply(edit)
    assert "(free ?p - pallet) ; nothing stands on it" in written["domain.pddl"]
    assert "empty" not in written["p1.pddl"] and "(:init (free depot))" in written["p2.pddl"]
    assert lint_findings(project) == []


async def test_renaming_an_action_from_the_domain_edits_the_plan(client: LanguageClient,
                                                                 project: Path) -> None:
    uri = open_file(client, project / "domain.pddl")
    edit = await rename_at(client, uri, position(DOMAIN, "(:action stack", shift=10), "put-on")
    assert edit.changes is not None
    plan_uri = (project / "p1.plan").as_uri()
    assert set(edit.changes) == {uri, plan_uri}
    assert [e.range for e in edit.changes[plan_uri]] == [span(PLAN, "stack", 0), span(PLAN, "stack", 1)]
    written = apply(edit)
    assert written["p1.plan"] == PLAN.replace("stack", "put-on")
    assert lint_findings(project) == []


async def test_renaming_an_object_edits_its_problem_plan_and_ltl_goal_only(client: LanguageClient,
                                                                           project: Path) -> None:
    uri = open_file(client, project / "p1.plan")
    edit = await rename_at(client, uri, position(PLAN, "pal1"), "left-pallet")
    assert edit.changes is not None
    assert set(edit.changes) == {uri, (project / "p1.pddl").as_uri(), (project / "p1.ltl").as_uri()}
    written = apply(edit)
    assert written["p1.pddl"] == PROBLEM.replace("pal1", "left-pallet")
    assert written["p1.ltl"] == LTL_GOAL.replace("pal1", "left-pallet")
    assert lint_findings(project) == []


async def test_renaming_a_type_and_a_constant(client: LanguageClient, project: Path) -> None:
    uri = open_file(client, project / "domain.pddl")
    edit = await rename_at(client, uri, position(DOMAIN, "crate pallet", shift=7), "skid")
    apply(edit)
    domain_text = (project / "domain.pddl").read_text()
    code = "\n".join(line.split(";")[0] for line in domain_text.splitlines())
    assert "pallet" not in code and "(:constants depot - skid)" in code
    assert "; Crates stacked on pallets." in domain_text  # comments are prose: left alone
    assert "pal1 - skid" in (project / "p1.pddl").read_text()
    assert lint_findings(project) == []

    edit = await rename_at(client, uri, position(DOMAIN, "depot"), "dock")
    assert edit.changes is not None and len(edit.changes) == 5  # domain, both problems, the plan, the goal
    apply(edit)
    assert lint_findings(project) == []


async def test_renaming_a_parameter_stays_inside_its_action(client: LanguageClient, project: Path) -> None:
    uri = open_file(client, project / "domain.pddl")
    parameter = position(DOMAIN, "(?c - crate)\n    :precondition (on ?c depot)", shift=1)
    edit = await rename_at(client, uri, parameter, "box")
    assert edit.changes is not None and list(edit.changes) == [uri]
    edits = edit.changes[uri]
    ship = DOMAIN.index("(:action ship")
    assert len(edits) == 4 and all(e.new_text == "?box" for e in edits)
    assert all(e.range.start.line >= DOMAIN.count("\n", 0, ship) for e in edits)


async def test_prepare_rename_gives_the_name_and_refuses_keywords(client: LanguageClient,
                                                                  project: Path) -> None:
    uri = open_file(client, project / "domain.pddl")
    prepared = await client.text_document_prepare_rename_async(types.PrepareRenameParams(
        text_document=text_document(uri), position=position(DOMAIN, "(sealed ?c))", shift=3)))
    assert prepared == types.PrepareRenamePlaceholder(range=span(DOMAIN, "(sealed ?c)", word="sealed"),
                                                      placeholder="sealed")
    for needle, shift, message in [(":precondition", 3, "`:precondition` is not a name that can be renamed"),
                                   (":typing", 2, "`:typing` is a PDDL requirement keyword"),
                                   ("(and", 2, "is not a name that can be renamed")]:
        with pytest.raises(JsonRpcException) as refused:
            await client.text_document_prepare_rename_async(types.PrepareRenameParams(
                text_document=text_document(uri), position=position(DOMAIN, needle, shift=shift)))
        assert message in refused.value.message


async def test_rename_refuses_a_collision_and_an_invalid_name(client: LanguageClient, project: Path) -> None:
    uri = open_file(client, project / "domain.pddl")
    at = position(DOMAIN, "(sealed ?c))", shift=3)
    with pytest.raises(JsonRpcException) as collision:
        await rename_at(client, uri, at, "on")
    assert "`on` is already declared as a predicate" in collision.value.message
    with pytest.raises(JsonRpcException) as invalid:
        await rename_at(client, uri, at, "2fast")
    assert "`2fast` is not a valid PDDL name" in invalid.value.message
    with pytest.raises(JsonRpcException) as keyword:
        await rename_at(client, uri, at, "forall")
    assert "`forall` is a PDDL keyword" in keyword.value.message

"""The "Repair plan" quick fix against the real ``plansight serve`` process (pytest-lsp): the code
action on a broken plan, the command that runs Fast Downward with progress, the edit it applies
(which unified-planning's validator accepts), and cancellation by a new edit."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any, Union

import pytest
import pytest_lsp
from lsp_session import session
from lsprotocol import types
from pytest_lsp import ClientServerConfig
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features
from test_lsp_diagnostics import SERVER, RecordingClient, _record, open_document, replace, version_is
from test_recovery import hard_problem

from plansight.analyses.plans.metrics import actions_of
from plansight.analyses.syntax.parse_plan import parse_plan

pytestmark = pytest.mark.lsp

DATASET = Path(__file__).resolve().parent.parent / "examples" / "plan-evaluation"
COMMAND = "plansight.server.repairPlan"
HEADER = "; pi0 of the running example, written by an LLM\n"
BROKEN = HEADER + "(unstack a c)\n(put-down a)\n(pick-up c)\n(stack c a)\n"
HARD_BROKEN = "(unstack b1 b2)\n(put-down b1)\n"  # b0 is on b1: the first step fails


class EditingClient(RecordingClient):
    """Records every workspace/applyEdit and accepts it, as an editor would."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.edits: list[types.WorkspaceEdit] = []


def _apply_edit(
    client: EditingClient, params: types.ApplyWorkspaceEditParams
) -> types.ApplyWorkspaceEditResult:
    client.edits.append(params.edit)
    return types.ApplyWorkspaceEditResult(applied=True)


def converter() -> Any:
    """pygls' converter, except that a code action carrying a command stays a CodeAction (lsprotocol
    2025.0 structures every `{"command": ...}` answer as a Command, losing the action's title/kind)."""
    from pygls.protocol import default_converter

    made = default_converter()

    def code_action_or_command(value: Any, _: type) -> types.Command | types.CodeAction:
        if isinstance(value.get("command"), str):
            return made.structure(value, types.Command)  # type: ignore[no-any-return]
        return made.structure(value, types.CodeAction)  # type: ignore[no-any-return]

    made.register_structure_hook(types.Command | types.CodeAction, code_action_or_command)
    made.register_structure_hook(Union[types.Command, types.CodeAction], code_action_or_command)  # noqa: UP007
    return made


def make_client() -> EditingClient:
    client = EditingClient(converter_factory=converter)
    register_lsp_features(
        client,
        {
            **DEFAULT_CLIENT_FEATURES,
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: _record,
            types.WORKSPACE_APPLY_EDIT: _apply_edit,
        },
    )
    return client


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "one" / "two" / "three" / "project"
    folder.mkdir(parents=True)
    (folder / "domain.pddl").write_text((DATASET / "domain.pddl").read_text())
    (folder / "p10.pddl").write_text((DATASET / "problems" / "p10.pddl").read_text())
    (folder / "hard.pddl").write_text(hard_problem(40))
    return folder


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def client(lsp_client: EditingClient, project: Path):
    async with session(lsp_client, project):
        yield


async def actions_at(client: EditingClient, uri: str, line: int) -> list[types.CodeAction]:
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(
                start=types.Position(line=line, character=1), end=types.Position(line=line, character=1)
            ),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    return [
        a
        for a in found or []
        if isinstance(a, types.CodeAction) and a.command is not None and a.command.command == COMMAND
    ]


def applied_text(original: str, edit: types.WorkspaceEdit, uri: str) -> str:
    assert edit.changes is not None
    (change,) = edit.changes[uri]
    lines = original.splitlines(keepends=True)

    def offset(position: types.Position) -> int:
        return sum(len(line) for line in lines[: position.line]) + position.character

    return original[: offset(change.range.start)] + change.new_text + original[offset(change.range.end) :]


def up_accepts(folder: Path, problem: str, plan_text: str) -> bool:
    from unified_planning.engines import ValidationResultStatus
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import PlanValidator, get_environment

    get_environment().credits_stream = None
    parsed = PDDLReader().parse_problem(str(folder / "domain.pddl"), str(folder / problem))
    (folder / "repaired.plan").write_text(plan_text)
    plan = PDDLReader().parse_plan(parsed, str(folder / "repaired.plan"))
    with PlanValidator(problem_kind=parsed.kind) as validator:
        return bool(validator.validate(parsed, plan).status == ValidationResultStatus.VALID)


async def test_repair_quick_fix_applies_a_valid_plan(client: EditingClient, project: Path) -> None:
    uri = open_document(client, project / "p10.plan", BROKEN)
    await client.diagnostics_for(uri, version_is(1))
    (action,) = await actions_at(client, uri, 1)  # the failing first step
    assert action.kind == types.CodeActionKind.QuickFix
    assert action.title.startswith("Repair plan (step 1 is not executable)")
    assert action.command is not None and list(action.command.arguments or ()) == [{"uri": uri}]

    result: Any = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=COMMAND, arguments=list(action.command.arguments or ()))
    )
    answer = result if isinstance(result, dict) else result._asdict()
    assert answer["status"] == "solved" and answer["applied"] is True
    assert answer["prefix"] == [] and len(answer["plan"]) == 6

    (edit,) = client.edits
    repaired = applied_text(BROKEN, edit, uri)
    assert repaired.startswith(HEADER)  # the comment header is kept
    assert actions_of(parse_plan(repaired).plan) == [tuple(a[1:-1].split()) for a in answer["plan"]]
    assert up_accepts(project, "p10.pddl", repaired)
    kinds = [type(value).__name__ for values in client.progress_reports.values() for value in values]
    assert kinds[0] == "WorkDoneProgressBegin" and kinds[-1] == "WorkDoneProgressEnd"


async def test_no_repair_offered_for_a_valid_plan(client: EditingClient, project: Path) -> None:
    valid = (DATASET / "ground-truth" / "p10.plan").read_text()
    uri = open_document(client, project / "p10.plan", valid)
    await client.diagnostics_for(uri, version_is(1))
    assert await actions_at(client, uri, 1) == []


async def test_an_edit_cancels_the_running_repair(client: EditingClient, project: Path) -> None:
    uri = open_document(client, project / "hard.plan", HARD_BROKEN)
    await client.diagnostics_for(uri, version_is(1))
    assert await actions_at(client, uri, 0)
    started = time.monotonic()
    running = asyncio.ensure_future(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=COMMAND, arguments=[{"uri": uri}])
        )
    )
    await asyncio.sleep(1.5)  # the planner is busy with 40 blocks (it needs far longer than this)
    assert not running.done()
    replace(client, uri, 2, (1, 0), (1, 0), "; an edit\n")
    result: Any = await asyncio.wait_for(running, 20)
    answer = result if isinstance(result, dict) else result._asdict()
    assert answer["status"] == "cancelled" and answer["message"] == "cancelled: the plan was edited"
    assert answer["applied"] is False and client.edits == []
    assert time.monotonic() - started < 15

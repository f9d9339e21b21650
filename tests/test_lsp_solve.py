"""*Plan this problem* against the real ``plansight serve`` process (pytest-lsp): the lens on
``(:goal``, and the ``plansight.server.solveProblem`` command on the editor's unsaved buffers, with
its progress, the planner's output streamed as log messages, and each outcome distinct: solved,
unsolvable, budget exceeded, cancelled."""

from __future__ import annotations

import asyncio
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsp_session import session
from lsprotocol import types
from pytest_lsp import ClientServerConfig
from test_lsp_diagnostics import SERVER, RecordingClient, make_recording_client, open_document, version_is
from test_planner import CYCLE, SUSSMAN
from test_recovery import hard_problem

pytestmark = pytest.mark.lsp

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
COMMAND = "plansight.server.solveProblem"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "one" / "two" / "three" / "project"
    folder.mkdir(parents=True)
    shutil.copy(EXAMPLES / "blocksworld" / "domain.pddl", folder / "domain.pddl")
    return folder


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_recording_client))
async def client(lsp_client: RecordingClient, project: Path):
    async with session(lsp_client, project):
        yield


def configure(client: RecordingClient, **planner: object) -> None:
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"plansight": {"planner": planner}}))


async def solve(client: RecordingClient, uri: str) -> dict[str, Any]:
    result: Any = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=COMMAND, arguments=[{"uri": uri}]))
    return result if isinstance(result, dict) else dict(result._asdict())


async def test_the_goal_has_a_plan_this_problem_lens(client: RecordingClient, project: Path) -> None:
    uri = open_document(client, project / "p01.pddl", SUSSMAN)
    await client.diagnostics_for(uri, version_is(1))
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    (lens,) = [lens for lens in lenses or [] if lens.command is not None and lens.command.command == COMMAND]
    assert lens.command is not None and lens.command.title == "▷ Plan this problem"
    assert lens.range.start.line == SUSSMAN.splitlines().index("  (:goal (and (on a b) (on b c))))")
    assert list(lens.command.arguments or ()) == [{"uri": uri}]
    domain = open_document(client, project / "domain.pddl", (project / "domain.pddl").read_text())
    await client.diagnostics_for(domain, version_is(1))
    none = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=domain)))
    assert not [lens for lens in none or [] if lens.command and lens.command.command == COMMAND]


async def test_solves_the_unsaved_buffer_and_streams_the_planner_output(
        client: RecordingClient, project: Path) -> None:
    uri = open_document(client, project / "p01.pddl", CYCLE)  # on disk: an unsolvable problem
    await client.diagnostics_for(uri, version_is(1))
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=SUSSMAN)]))
    answer = await solve(client, uri)
    assert answer["status"] == "solved", answer["message"]
    assert answer["planner"] == "fast-downward lama-first"
    assert answer["valid"] is True and answer["verdict"] == "valid: 6 steps, 2 of 2 goals hold"
    assert answer["plan"].startswith("(unstack c a)\n")
    assert Path(answer["domain"]) == project / "domain.pddl"
    logged = [line for message in client.log_messages for line in message.message.splitlines()]
    lines = [line for line in logged if "Solution found!" in line]
    assert lines and all(line.startswith("[planner] ") for line in lines)
    kinds = [type(value).__name__ for values in client.progress_reports.values() for value in values]
    assert kinds[0] == "WorkDoneProgressBegin" and kinds[-1] == "WorkDoneProgressEnd"


async def test_unsolvable_is_its_own_outcome(client: RecordingClient, project: Path) -> None:
    configure(client, configuration="seq-opt-lmcut")
    uri = open_document(client, project / "cycle.pddl", CYCLE)
    await client.diagnostics_for(uri, version_is(1))
    answer = await solve(client, uri)
    assert answer["status"] == "unsolvable" and answer["plan"] is None
    assert answer["planner"] == "fast-downward seq-opt-lmcut"
    assert answer["message"] == "the planner proved that no plan reaches the goal"


async def test_a_tiny_time_limit_on_a_hard_problem_exceeds_the_budget(
        client: RecordingClient, project: Path) -> None:
    configure(client, configuration="seq-opt-lmcut", timeLimitSeconds=1)
    uri = open_document(client, project / "hard.pddl", hard_problem(40))
    await client.diagnostics_for(uri, version_is(1))
    started = time.monotonic()
    answer = await solve(client, uri)
    assert answer["status"] == "budget-exceeded" and answer["message"] == "no plan within 1 s"
    assert time.monotonic() - started < 15


async def test_the_user_cancels_the_progress(client: RecordingClient, project: Path) -> None:
    configure(client, configuration="seq-opt-lmcut")
    uri = open_document(client, project / "hard.pddl", hard_problem(40))
    await client.diagnostics_for(uri, version_is(1))
    running = asyncio.ensure_future(solve(client, uri))
    deadline = time.monotonic() + 30
    while not client.progress_reports and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    (token,) = client.progress_reports
    await asyncio.sleep(1.0)
    assert not running.done()
    started = time.monotonic()
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    answer = await asyncio.wait_for(running, 20)
    assert answer["status"] == "cancelled" and answer["plan"] is None
    assert time.monotonic() - started < 5


async def test_an_unknown_planner_name_says_which_ones_exist(client: RecordingClient, project: Path) -> None:
    lpg = {"name": "lpg", "command": "lpg -o {domain} -f {problem}"}
    configure(client, configuration="ff", commands=[lpg])
    uri = open_document(client, project / "p01.pddl", SUSSMAN)
    await client.diagnostics_for(uri, version_is(1))
    answer = await solve(client, uri)
    assert answer["status"] == "skipped"
    assert "'ff'" in answer["message"] and "lama-first, seq-opt-lmcut, lpg" in answer["message"]


def _descendants(root: int) -> set[int]:
    """The processes below ``root`` (from /proc: the planner's driver, translator and search)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                parents[int(entry.name)] = int(fields[1])
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


async def test_a_cancelled_request_stops_the_planner(client: RecordingClient, project: Path) -> None:
    configure(client, configuration="seq-opt-lmcut")
    uri = open_document(client, project / "hard.pddl", hard_problem(40))
    await client.diagnostics_for(uri, version_is(1))
    server = client._server  # the `plansight serve` process pytest-lsp started
    assert server is not None
    params = types.ExecuteCommandParams(command=COMMAND, arguments=[{"uri": uri}])
    request = asyncio.wrap_future(client.protocol.send_request(
        types.WORKSPACE_EXECUTE_COMMAND, params, msg_id="solve-to-cancel"))
    deadline = time.monotonic() + 30
    while not _descendants(server.pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert _descendants(server.pid), "the planner never started"
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="solve-to-cancel"))
    with pytest.raises(Exception):  # noqa: B017 (the server answers a cancelled request with an error)
        await asyncio.wait_for(request, 20)
    deadline = time.monotonic() + 10
    while _descendants(server.pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert not _descendants(server.pid), "the planner outlived the cancelled request"

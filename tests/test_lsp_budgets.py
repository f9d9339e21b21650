"""The work budget in the editor, against the real ``plansight serve`` process (pytest-lsp): a plan
whose precondition has 4.1e9 instances does not stall the server. A later edit interrupts its
simulation at once, hover keeps being answered, and with a short budget the plan gets a
``budget-exceeded`` warning instead of a verdict (docs/reliability.md)."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
import pytest_lsp
from heavy_inputs import wide_domain, wide_problem
from lsp_session import session
from lsprotocol import types
from pytest_lsp import ClientServerConfig
from test_lsp_diagnostics import (
    SERVER,
    RecordingClient,
    codes,
    make_recording_client,
    open_document,
    version_is,
)

pytestmark = pytest.mark.lsp

HEAVY_PLAN = "(cheap o1)\n(check)\n"
CHEAP_PLAN = "(cheap o1)\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "one" / "two" / "three" / "project"
    folder.mkdir(parents=True)
    return folder


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_recording_client))
async def client(lsp_client: RecordingClient, project: Path):
    async with session(lsp_client, project):
        yield


def _cpu_seconds(client: RecordingClient) -> float:
    """CPU time the server process has used so far (Linux: /proc/PID/stat, user + system)."""
    pid = client._server.pid  # type: ignore[union-attr]  # pytest-lsp keeps the process it started
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _configure(client: RecordingClient, seconds: float) -> None:
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"plansight": {"simulation": {"timeLimitSeconds": seconds}}}))


def _open_all(client: RecordingClient, project: Path) -> str:
    open_document(client, project / "domain.pddl", wide_domain(6))
    open_document(client, project / "p.pddl", wide_problem(40))
    return open_document(client, project / "p.plan", HEAVY_PLAN)


async def test_an_edit_interrupts_the_simulation_and_hover_is_answered(client: RecordingClient,
                                                                       project: Path) -> None:
    _configure(client, 600)  # far away: only the edit can end the first simulation this soon
    uri = _open_all(client, project)
    await asyncio.sleep(1.5)  # the 4.1e9-instance simulation is running now
    assert uri not in client.diagnostics
    edited_at = time.monotonic()
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=CHEAP_PLAN)]))
    arrived, published = await client.diagnostics_for(uri, version_is(2), timeout=20)
    assert arrived - edited_at < 5, arrived - edited_at
    assert codes(published.diagnostics) == []  # the cheap plan is valid
    hover_started = time.monotonic()
    hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=2))),
        timeout=10)
    assert time.monotonic() - hover_started < 5
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "(p o1)" in hover.contents.value  # the state before step 1
    # the old simulation really stopped (not merely outrun by a second thread): the server idles
    before = _cpu_seconds(client)
    await asyncio.sleep(1.5)
    assert _cpu_seconds(client) - before < 0.5


async def test_hover_is_answered_while_the_heavy_simulation_runs(client: RecordingClient,
                                                                  project: Path) -> None:
    _configure(client, 600)
    _open_all(client, project)
    domain_uri = (project / "domain.pddl").as_uri()
    await asyncio.sleep(1.0)
    started = time.monotonic()
    hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=domain_uri),
        position=types.Position(line=3, character=14))), timeout=10)  # on `check`
    assert time.monotonic() - started < 5
    assert hover is not None


async def test_a_short_budget_gives_a_budget_exceeded_warning(client: RecordingClient, project: Path) -> None:
    _configure(client, 1)
    uri = _open_all(client, project)
    _, published = await client.diagnostics_for(
        uri, lambda p: p.version == 1 and "budget-exceeded" in codes(p.diagnostics), timeout=30)
    (diagnostic,) = published.diagnostics
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    assert diagnostic.range.start.line == 1  # on (check), the step where it stopped
    assert "stopped after 1 s: the precondition of step 2 (forall over 6 variables) has 4.1e9 instances" in (
        diagnostic.message)

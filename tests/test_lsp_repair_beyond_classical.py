"""The editor's "Repair plan" command on a temporal plan, through the real ``plansight serve`` process: TAMER
plans it again and the edit writes timed lines (``0.000: (fill p1) [2.000]``) that VAL accepts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from corpus import FIXTURES
from lsp_session import session
from lsprotocol import types
from pytest_lsp import ClientServerConfig
from test_lsp_diagnostics import SERVER, open_document, version_is
from test_lsp_repair import COMMAND, EditingClient, applied_text, make_client
from val_oracle import VALID, run_val

pytestmark = pytest.mark.lsp

TEMPORAL = FIXTURES / "beyond_classical" / "planned" / "temporal"
HEADER = "; a temporal plan with its last heating missing\n"
BROKEN = HEADER + "0.000: (light) [1.000]\n0.000: (fill p1) [2.000]\n2.010: (heat p1) [3.000]\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "kitchen"
    folder.mkdir()
    for name in ("domain.pddl", "p01.pddl"):
        (folder / name).write_text((TEMPORAL / name).read_text())
    return folder


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def client(lsp_client: EditingClient, project: Path):
    async with session(lsp_client, project):
        yield


async def test_repair_writes_a_temporal_plan_val_accepts(client: EditingClient, project: Path) -> None:
    uri = open_document(client, project / "p01.plan", BROKEN)
    await client.diagnostics_for(uri, version_is(1))
    result: Any = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=COMMAND, arguments=[{"uri": uri}]))
    answer = result if isinstance(result, dict) else result._asdict()
    assert answer["status"] == "solved" and answer["applied"] is True, answer
    assert answer["planner"] == "tamer (unified-planning)"
    assert answer["message"].startswith("Fast Downward cannot complete a temporal plan")
    (edit,) = client.edits
    repaired = applied_text(BROKEN, edit, uri)
    assert repaired.startswith(HEADER)
    steps = repaired[len(HEADER):].splitlines()
    assert steps == answer["plan"] and all(":" in s and s.endswith("]") for s in steps)
    (project / "repaired.plan").write_text(repaired)
    verdict = run_val(project / "domain.pddl", project / "p01.pddl", project / "repaired.plan")
    assert verdict.status == VALID, verdict.output

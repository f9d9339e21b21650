"""A domain compared with its reference domain in the editor, against the real ``plansight serve`` process:
the `action-differs` diagnostic on the action's name and the header lens (`F1 … vs reference`, then
`≡ reference domain` once the action is fixed), and `plansight lint` printing the same diagnostic
(docs/domain-equivalence.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsp_session import session
from lsprotocol import types
from pytest_lsp import ClientServerConfig
from test_lsp_diagnostics import (
    SERVER,
    RecordingClient,
    make_recording_client,
    open_document,
    replace,
    version_is,
)

pytestmark = pytest.mark.lsp

REFERENCE = (Path(__file__).resolve().parent.parent / "examples" / "blocksworld" / "domain.pddl").read_text()
RIGHT = ":precondition (and (holding ?x) (clear ?y))"
WRONG = ":precondition (holding ?x)"
STUDENT = "; @reference reference.pddl\n" + REFERENCE.replace(RIGHT, WRONG).replace("on-table", "ontable")
STACK_LINE = next(i for i, line in enumerate(STUDENT.splitlines()) if "(:action stack" in line)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "reference.pddl").write_text(REFERENCE)
    return tmp_path


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_recording_client))
async def client(lsp_client: RecordingClient, project: Path):
    async with session(lsp_client, project):
        yield


async def lens_titles(client: RecordingClient, uri: str) -> list[str]:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return [lens.command.title for lens in found or [] if lens.command is not None]


async def test_the_action_that_differs_is_underlined_and_the_lens_shows_the_f1(
    client: RecordingClient, project: Path
) -> None:
    uri = open_document(client, project / "student.pddl", STUDENT)
    _, published = await client.diagnostics_for(uri, version_is(1))
    (diagnostic,) = [d for d in published.diagnostics if d.code == "action-differs"]
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    assert diagnostic.range.start.line == diagnostic.range.end.line == STACK_LINE
    assert diagnostic.message == (
        "`stack` differs from the reference `reference.pddl` (precondition F1 0.67, "
        "effect F1 1.00): missing precondition (clear ?y)."
    )
    # 26 of 27 reference clauses matched and nothing extra: 2·26 / 53
    assert await lens_titles(client, uri) == ["F1 0.98 vs reference"]

    line = STUDENT.splitlines()[STACK_LINE + 2]
    start = line.index(WRONG)
    replace(client, uri, 2, (STACK_LINE + 2, start), (STACK_LINE + 2, start + len(WRONG)), RIGHT)
    _, fixed = await client.diagnostics_for(uri, version_is(2))
    assert [d.code for d in fixed.diagnostics if d.code == "action-differs"] == []
    assert await lens_titles(client, uri) == ["≡ reference domain"]


def test_lint_prints_the_same_diagnostic(project: Path) -> None:
    (project / "student.pddl").write_text(STUDENT)
    done = subprocess.run(
        [sys.executable, "-m", "plansight", "lint", str(project / "student.pddl")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (
        f"student.pddl:{STACK_LINE + 1}:12: warning action-differs: `stack` differs from the reference "
        "`reference.pddl` (precondition F1 0.67, effect F1 1.00): missing precondition (clear ?y)."
    ) in done.stdout


async def test_the_check_command_and_grade_folder_work_with_a_reference_domain(
    client: RecordingClient, project: Path
) -> None:
    uri = open_document(client, project / "student.pddl", STUDENT)
    await client.diagnostics_for(uri, version_is(1))
    checked: Any = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="plansight.server.checkEquivalence", arguments=[{"uri": uri}])
    )
    answer = checked if isinstance(checked, dict) else checked._asdict()
    assert answer["equivalent"] is False and answer["summary"] == "F1 0.98 vs reference"
    assert "First difference: `stack`: missing precondition (clear ?y)" in answer["explanation"]

    (project / "submissions").mkdir()
    (project / "submissions" / "ann.pddl").write_text(REFERENCE.replace("clear", "free"))
    (project / "submissions" / "ben.pddl").write_text(STUDENT)
    report = project / "grades.html"
    graded: Any = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="plansight.server.gradeFolder",
            arguments=[
                {
                    "folder": str(project / "submissions"),
                    "reference": str(project / "reference.pddl"),
                    "report": str(report),
                }
            ],
        )
    )
    answer = graded if isinstance(graded, dict) else graded._asdict()
    assert answer["summary"] == "2 submissions: 1 equivalent, 1 not equivalent; mean F1 0.99"
    assert "ben" in report.read_text() and "Domain grading report" in report.read_text()

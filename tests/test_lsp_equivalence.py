"""Equivalence with a reference problem in the editor, against the real ``plansight serve`` process:
the `not-equivalent` diagnostic on `:goal` and the header lens appear, and both follow an edit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, client_capabilities
from test_lsp_diagnostics import (
    SERVER,
    RecordingClient,
    make_recording_client,
    open_document,
    replace,
    version_is,
)

pytestmark = pytest.mark.lsp

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "grading"
STUDENT = """\
; @reference reference.pddl
(define (problem student)
  (:domain blocksworld)
  (:objects x y z)
  (:init (arm-empty) (on x y) (on-table y) (on-table z) (clear x) (clear z))
  (:goal (and (on x z) (on z y))))
"""
GOAL_LINE = 5
WRONG_GOAL = "(and (on x z) (on z y))"
RIGHT_GOAL = "(and (on z x) (on x y))"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "one" / "two" / "three" / "project"
    folder.mkdir(parents=True)
    (folder / "domain.pddl").write_text((EXAMPLE / "domain.pddl").read_text())
    (folder / "reference.pddl").write_text((EXAMPLE / "reference.pddl").read_text())
    return folder


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_recording_client))
async def client(lsp_client: RecordingClient, project: Path):
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=project.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name="test")],
        )
    )
    yield
    await lsp_client.shutdown_session()


async def lens_titles(client: RecordingClient, uri: str) -> list[str]:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return [lens.command.title for lens in found or [] if lens.command is not None]


async def test_lens_and_diagnostic_appear_and_follow_an_edit(client: RecordingClient, project: Path) -> None:
    uri = open_document(client, project / "student.pddl", STUDENT)
    _, published = await client.diagnostics_for(uri, version_is(1))
    (diagnostic,) = [d for d in published.diagnostics if d.code == "not-equivalent"]
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (GOAL_LINE, 3)
    assert (diagnostic.range.end.line, diagnostic.range.end.character) == (GOAL_LINE, 8)
    assert "your goal lacks" in diagnostic.message and "under the object matching" in diagnostic.message
    assert "(on x z)" in diagnostic.message  # what the student wrote and the reference does not have
    assert await lens_titles(client, uri) == ["≢ reference"]

    start = STUDENT.splitlines()[GOAL_LINE].index(WRONG_GOAL)
    replace(client, uri, 2, (GOAL_LINE, start), (GOAL_LINE, start + len(WRONG_GOAL)), RIGHT_GOAL)
    _, fixed = await client.diagnostics_for(uri, version_is(2))
    assert [d.code for d in fixed.diagnostics] == []
    assert await lens_titles(client, uri) == ["≡ reference (identity)"]

    result: Any = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="plansight.server.checkEquivalence", arguments=[{"uri": uri}])
    )
    answer = result if isinstance(result, dict) else result._asdict()
    assert answer["equivalent"] is True and answer["mode"] == "identity" and answer["parseable"] is True


async def test_an_unusable_reference_says_why(client: RecordingClient, project: Path) -> None:
    text = STUDENT.replace("reference.pddl", "missing.pddl")
    uri = open_document(client, project / "student.pddl", text)
    _, published = await client.diagnostics_for(uri, version_is(1))
    (diagnostic,) = [d for d in published.diagnostics if d.code == "equivalence-unknown"]
    assert "missing.pddl" in diagnostic.message and "cannot be read" in diagnostic.message
    (title,) = await lens_titles(client, uri)
    assert title.startswith("? reference (unknown: the reference `missing.pddl` cannot be read")


async def test_a_reference_glob_setting_links_a_folder_of_submissions(
    client: RecordingClient, project: Path
) -> None:
    text = STUDENT.replace("; @reference reference.pddl\n", "")
    (project / "students").mkdir()
    (project / "students" / "domain.pddl").write_text((EXAMPLE / "domain.pddl").read_text())
    uri = open_document(client, project / "students" / "s1.pddl", text)
    await client.diagnostics_for(uri, version_is(1))
    assert await lens_titles(client, uri) == []  # not linked yet
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={
                "plansight": {"referenceGlobs": [{"glob": "students/*.pddl", "reference": "reference.pddl"}]}
            }
        )
    )
    assert await lens_titles(client, uri) == ["≢ reference"]
    result: Any = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="plansight.server.checkEquivalence", arguments=[{"uri": uri}])
    )
    answer = result if isinstance(result, dict) else result._asdict()
    assert answer["equivalent"] is False and "your goal lacks" in answer["explanation"]


async def test_grade_folder_command_writes_the_html_report(client: RecordingClient, project: Path) -> None:
    import shutil

    shutil.copytree(EXAMPLE / "submissions", project / "submissions")
    report = project / "out" / "grades.html"
    report.parent.mkdir()
    result: Any = await client.workspace_execute_command_async(
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
    answer = result if isinstance(result, dict) else result._asdict()
    assert answer["report"] == str(report)
    assert answer["summary"].startswith("7 submissions: 2 equivalent, 2 not equivalent")
    assert "<svg" in report.read_text() and "carol" in report.read_text()

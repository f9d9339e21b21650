"""Equivalence with a reference problem in the editor, against the real ``plansight serve`` process:
the `not-equivalent` diagnostic on `:goal` and the header lens appear, and both follow an edit; a slow
comparison shows progress and is cancelled by the next edit; the settings and the mode directive apply."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsp_session import session
from lsprotocol import types
from pytest_lsp import ClientServerConfig
from test_equivalence_editor import BLOCKS_STUDENT, SLOW_REFERENCE, SLOW_STUDENT, SWITCHES_DOMAIN
from test_lsp_diagnostics import (
    SERVER,
    TIMEOUT,
    RecordingClient,
    codes,
    make_recording_client,
    open_document,
    replace,
    version_is,
)

pytestmark = pytest.mark.lsp

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "grading"
STUDENT = BLOCKS_STUDENT
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
    async with session(lsp_client, project):
        yield


async def lens_titles(client: RecordingClient, uri: str) -> list[str]:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    # the verdict's lens only: the *Show model view* lenses on (:objects and (:init are test_lsp_views.py's,
    # *Plan this problem* on (:goal is test_lsp_solve.py's
    others = {"plansight.server.modelView", "plansight.server.solveProblem"}
    return [lens.command.title for lens in found or []
            if lens.command is not None and lens.command.command not in others]


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
    seen = len(client.published)
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={
                "plansight": {"referenceGlobs": [{"glob": "students/*.pddl", "reference": "reference.pddl"}]}
            }
        )
    )
    _, published = await client.diagnostics_for(uri, after=seen)
    (diagnostic,) = [d for d in published.diagnostics if d.code == "not-equivalent"]
    assert "reference.pddl" in diagnostic.message and "your goal lacks" in diagnostic.message
    assert diagnostic.range.start.line == GOAL_LINE - 1  # the directive line is gone
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


async def test_the_placeholder_directive_switches_the_mode(client: RecordingClient, project: Path) -> None:
    text = STUDENT.replace("; @reference", "; @equivalence placeholder\n; @reference")
    uri = open_document(client, project / "student.pddl", text)
    _, published = await client.diagnostics_for(uri, version_is(1))
    assert codes(published.diagnostics) == []  # the tower x-z-y is the reference's tower, renamed
    assert await lens_titles(client, uri) == ["≡ reference (placeholder)"]

    replace(client, uri, 2, (0, 0), (1, 0), "")  # the directive is deleted: identity mode
    _, identity = await client.diagnostics_for(uri, version_is(2))
    assert codes(identity.diagnostics) == ["not-equivalent"]
    assert await lens_titles(client, uri) == ["≢ reference"]


# --- a slow comparison: progress, and cancellation by the next edit --------------------------------


def slow_project(client: RecordingClient, project: Path, seconds: float) -> None:
    """A domain outside Appendix C's three, whose FS needs a search of 2^20 states (minutes), with the
    editor's budget raised so that only ``seconds`` (or an edit) ends it."""
    (project / "domain.pddl").write_text(SWITCHES_DOMAIN)
    (project / "reference.pddl").write_text(SLOW_REFERENCE)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"plansight": {
        "equivalence": {"stateBudget": 50_000_000, "timeLimitSeconds": seconds}}}))


async def progress_of(client: RecordingClient, title: str, ended: bool) -> list[Any]:
    """The reports of the progress token whose begin has ``title`` (once it began, or ended)."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        for reports in list(client.progress_reports.values()):
            begun = bool(reports) and isinstance(reports[0], types.WorkDoneProgressBegin)
            if begun and reports[0].title == title and (
                    not ended or isinstance(reports[-1], types.WorkDoneProgressEnd)):
                return reports
        await asyncio.sleep(0.01)
    raise AssertionError(f"no progress {title!r} (ended={ended}); got {client.progress_reports}")


TITLE = "Checking equivalence with reference.pddl…"


async def test_a_slow_comparison_shows_progress_until_it_ends(client: RecordingClient, project: Path) -> None:
    slow_project(client, project, seconds=1.5)
    uri = open_document(client, project / "student.pddl", SLOW_STUDENT)
    _, published = await client.diagnostics_for(uri, version_is(1))
    (diagnostic,) = published.diagnostics
    assert diagnostic.code == "equivalence-unknown" and "more than 1.5 s" in diagnostic.message
    reports = await progress_of(client, TITLE, ended=True)
    assert isinstance(reports[-1], types.WorkDoneProgressEnd) and reports[-1].message == "done"


async def test_an_edit_cancels_a_slow_comparison(client: RecordingClient, project: Path) -> None:
    slow_project(client, project, seconds=3600)
    uri = open_document(client, project / "student.pddl", SLOW_STUDENT)
    await progress_of(client, TITLE, ended=False)  # version 1's search is running
    lens = asyncio.ensure_future(lens_titles(client, uri))  # the lens of version 1 starts its own
    await asyncio.sleep(0.5)

    objects_line = SLOW_STUDENT.splitlines()[2]
    end = len(objects_line) - 1  # before the `)` of `(:objects s0 ... s19)`
    edited_at = time.monotonic()
    replace(client, uri, 2, (2, end), (2, end), " s20")
    arrived, published = await client.diagnostics_for(uri, version_is(2))
    (diagnostic,) = published.diagnostics
    assert diagnostic.code == "not-equivalent" and "21 objects, the reference 20" in diagnostic.message

    # version 1's search stopped: it says so, its progress ended, and it never published
    reports = await progress_of(client, TITLE, ended=True)
    assert reports[-1].message == "cancelled: the file was edited"
    assert any("stopped comparing student.pddl (version 1) with reference.pddl" in m.message
               for m in client.log_messages)
    assert [p.version for _, p in client.published if p.uri == uri] == [2]
    # without cancellation version 2 would have waited for the whole 2^20-state search (minutes)
    assert arrived - edited_at < 20
    assert await asyncio.wait_for(lens, 20) == []  # version 1's lens search stopped too

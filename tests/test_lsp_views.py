"""The plan view and the model view in the editor, against the real ``plansight serve`` (pytest-lsp):
the lenses that offer them, and the pages the two commands answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsp_session import SERVER, open_file, session, write
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient
from view_html import read_page

pytestmark = pytest.mark.lsp

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DOMAIN = (EXAMPLES / "blocksworld" / "domain.pddl").read_text()
SUSSMAN = (EXAMPLES / "blocksworld" / "p01.pddl").read_text()
PLAN_VIEW = "plansight.server.planView"
MODEL_VIEW = "plansight.server.modelView"
FAILS_AT_STEP_2 = "(unstack c a)\n(pick-up b)\n(stack b c)\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "one" / "two" / "three" / "project"
    folder.mkdir(parents=True)
    write(folder / "domain.pddl", DOMAIN)
    write(folder / "p01.pddl", SUSSMAN)
    write(folder / "p01.plan", FAILS_AT_STEP_2)
    return folder


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, project: Path):
    async with session(lsp_client, project):
        yield


async def view_lenses(client: LanguageClient, uri: str) -> list[tuple[int, str, str]]:
    found = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    return [(lens.range.start.line, lens.command.title, lens.command.command) for lens in found or []
            if lens.command is not None and lens.command.command in (PLAN_VIEW, MODEL_VIEW)]


async def execute(client: LanguageClient, command: str, uri: str) -> Any:
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=command, arguments=[{"uri": uri}]))


async def test_a_plan_has_a_plan_view_lens_and_the_command_answers_its_page(
        client: LanguageClient, project: Path) -> None:
    uri = open_file(client, project / "p01.plan")
    assert await view_lenses(client, uri) == [(0, "Show plan view", PLAN_VIEW)]
    result = await execute(client, PLAN_VIEW, uri)
    assert result["title"] == "Plan view: p01.plan"
    page = read_page(result["html"])
    assert page.problems == []
    assert "Step 2 fails" in page.plain_text
    assert "(pick-up b)" in page.plain_text


async def test_the_plan_view_shows_the_unsaved_buffer(client: LanguageClient, project: Path) -> None:
    uri = open_file(client, project / "p01.plan", "(unstack c a)\n(put-down c)\n")
    page = read_page((await execute(client, PLAN_VIEW, uri))["html"])
    assert "(put-down c)" in page.plain_text and "fails" not in page.plain_text


async def test_model_view_lenses_sit_on_types_objects_and_init(client: LanguageClient, project: Path) -> None:
    typed = DOMAIN.replace("(:predicates", "(:types block)\n  (:predicates", 1)
    domain_uri = open_file(client, project / "domain.pddl", typed)
    types_line = typed.splitlines().index("  (:types block)")
    assert await view_lenses(client, domain_uri) == [(types_line, "Show model view", MODEL_VIEW)]
    problem_uri = open_file(client, project / "p01.pddl")
    lines = SUSSMAN.splitlines()
    objects_line = next(i for i, line in enumerate(lines) if "(:objects" in line)
    init_line = next(i for i, line in enumerate(lines) if "(:init" in line)
    assert await view_lenses(client, problem_uri) == [
        (objects_line, "Show model view", MODEL_VIEW), (init_line, "Show model view", MODEL_VIEW)]


async def test_the_model_view_command_answers_a_domain_or_a_problem_page(
        client: LanguageClient, project: Path) -> None:
    domain = await execute(client, MODEL_VIEW, open_file(client, project / "domain.pddl"))
    assert domain["title"] == "Model view: blocksworld"
    page = read_page(domain["html"])
    assert page.problems == [] and "Predicates: who reads and who changes them" in page.plain_text
    problem = await execute(client, MODEL_VIEW, open_file(client, project / "p01.pddl"))
    page = read_page(problem["html"])
    assert page.problems == [] and "(on c a)" in page.plain_text  # the one binary fact, as an edge
    with pytest.raises(JsonRpcException, match="is not a domain or a problem"):
        await execute(client, MODEL_VIEW, open_file(client, project / "p01.plan"))

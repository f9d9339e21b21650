"""``plansight/association`` against the real ``plansight serve`` process (pytest-lsp): what the
editor's status bar shows, namely which domain/problem a file is checked against and by which rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsp_session import SERVER, session, write
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

pytestmark = pytest.mark.lsp

DOMAIN = """\
(define (domain Tiny)
  (:requirements :strips)
  (:predicates (clear ?x) (holding ?x))
  (:action pick :parameters (?x) :precondition (clear ?x) :effect (holding ?x)))
"""

PROBLEM = """\
(define (problem one)
  (:domain tiny)
  (:objects a)
  (:init (clear a))
  (:goal (holding a)))
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """Deep enough that the domain search (three folders up) never leaves ``tmp_path``."""
    folder = tmp_path / "one" / "two" / "three" / "project"
    folder.mkdir(parents=True)
    return folder


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, project: Path):
    async with session(lsp_client, project):
        yield


def open_document(client: LanguageClient, path: Path, language_id: str = "pddl") -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri, language_id=language_id, version=1, text=path.read_text())))
    return uri


async def association(client: LanguageClient, uri: str) -> dict[str, Any]:
    result = await client.protocol.send_request_async("plansight/association", {"uri": uri})
    return _plain(result)


def _plain(value: Any) -> Any:
    """The JSON the editor receives (pygls may hand results back as attribute objects)."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if hasattr(value, "_asdict"):
        return _plain(value._asdict())
    return value


async def test_a_problem_found_by_its_domain_name_in_the_same_folder(client: LanguageClient,
                                                                     project: Path) -> None:
    domain = write(project / "domain.pddl", DOMAIN)
    problem = write(project / "p1.pddl", PROBLEM)
    assert await association(client, open_document(client, problem)) == {
        "kind": "problem",
        "domain": {"path": str(domain), "name": "Tiny", "how": "convention"},
        "problem": None,
        "reference": None,
        "referencePlan": None,
    }


async def test_a_problem_linked_by_a_domain_directive(client: LanguageClient, project: Path) -> None:
    write(project / "domain.pddl", DOMAIN)  # the convention would find this one: the directive wins
    linked = write(project / "shared" / "tiny-v2.pddl", DOMAIN)
    problem = write(project / "p1.pddl", "; @domain shared/tiny-v2.pddl\n" + PROBLEM)
    assert await association(client, open_document(client, problem)) == {
        "kind": "problem",
        "domain": {"path": str(linked), "name": "Tiny", "how": "directive"},
        "problem": None,
        "reference": None,
        "referencePlan": None,
    }


async def test_a_plan_gets_its_problem_and_the_problems_domain(client: LanguageClient, project: Path) -> None:
    domain = write(project / "domain.pddl", DOMAIN)
    problem = write(project / "p1.pddl", PROBLEM)
    plan = write(project / "p1.plan", "(pick a)\n")
    assert await association(client, open_document(client, plan, "pddl-plan")) == {
        "kind": "plan",
        "domain": {"path": str(domain), "name": "Tiny", "how": "convention"},
        "problem": {"path": str(problem), "how": "convention"},
        "reference": None,
        "referencePlan": None,
    }


async def test_a_domain_has_a_kind_and_no_partners(client: LanguageClient, project: Path) -> None:
    domain = write(project / "domain.pddl", DOMAIN)
    assert await association(client, open_document(client, domain)) == {
        "kind": "domain", "domain": None, "problem": None, "reference": None, "referencePlan": None}


async def test_an_unsaved_directive_counts_and_a_missing_domain_is_null(client: LanguageClient,
                                                                        project: Path) -> None:
    problem = write(project / "p1.pddl", PROBLEM)  # no domain anywhere
    uri = open_document(client, problem)
    assert await association(client, uri) == {"kind": "problem", "domain": None, "problem": None,
                                              "reference": None, "referencePlan": None}
    linked = write(project / "elsewhere" / "d.pddl", DOMAIN)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(
            text="; @domain elsewhere/d.pddl\n" + PROBLEM)]))
    found = await association(client, uri)
    assert found["domain"] == {"path": str(linked), "name": "Tiny", "how": "directive"}


async def test_a_problems_reference_by_directive_and_a_plans_reference_plan_by_setting(
        client: LanguageClient, project: Path) -> None:
    write(project / "domain.pddl", DOMAIN)
    reference = write(project / "reference" / "goal.pddl", PROBLEM)
    problem = write(project / "students" / "ann.pddl", "; @reference ../reference/goal.pddl\n" + PROBLEM)
    found = await association(client, open_document(client, problem))
    assert found["reference"] == {"path": str(reference), "how": "directive"}
    assert found["referencePlan"] is None

    write(project / "p1.pddl", PROBLEM)
    plan = write(project / "p1.plan", "(pick a)\n")
    uri = open_document(client, plan, "pddl-plan")
    assert (await association(client, uri))["referencePlan"] is None
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"plansight": {
        "referencePlanGlobs": [{"glob": "*.plan", "referencePlan": "gold/{stem}.soln"}]}}))
    found = await association(client, uri)
    assert found["referencePlan"] == {"path": str(project / "gold" / "p1.soln"), "how": "setting"}
    assert found["reference"] is None

"""Writing a file from scratch in the real ``plansight serve`` (pytest-lsp): completion in an empty or
unfinished ``.pddl`` offers domain and problem skeletons, and action and predicate skeletons where
they fit, as snippets whose expansion is a file plansight reads without a syntax error; Enter
indents the new line as the formatter would."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import pytest_lsp
from lsp_session import SERVER, at_offset, open_file, session, text_document
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from plansight.analyses.diagnostics.diagnostic import Severity
from plansight.analyses.syntax.documents import parse_document

pytestmark = pytest.mark.lsp


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "one" / "two" / "three" / "project"
    folder.mkdir(parents=True)
    return folder


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, project: Path):
    async with session(lsp_client, project):
        yield


def _offset(text: str, position: types.Position) -> int:
    lines = text.splitlines(keepends=True)
    return sum(len(line) for line in lines[:position.line]) + position.character


async def complete(client: LanguageClient, path: Path, text: str) -> tuple[str, list[types.CompletionItem]]:
    """The items at the ``|`` in ``text`` (opened unsaved as ``path``), and the text without the ``|``."""
    offset = text.index("|")
    text = text.replace("|", "", 1)
    uri = open_file(client, path, text)
    result = await client.text_document_completion_async(types.CompletionParams(
        text_document=text_document(uri), position=at_offset(text, offset)))
    items = result.items if isinstance(result, types.CompletionList) else list(result or [])
    return text, items


def expand(text: str, item: types.CompletionItem) -> str:
    """The text after accepting ``item``, its snippet's tab stops filled with their placeholders and its
    later lines shifted by the indentation of the line it starts on, as VS Code inserts snippets."""
    assert item.insert_text_format == types.InsertTextFormat.Snippet
    edit = item.text_edit
    assert isinstance(edit, types.TextEdit)
    body = re.sub(r"\$\{\d+:([^}]*)\}", r"\1", edit.new_text)
    body = re.sub(r"\$\{\d+\}|\$\d+", "", body)
    start = _offset(text, edit.range.start)
    line = text[text.rfind("\n", 0, start) + 1:start]
    body = body.replace("\n", "\n" + line[:len(line) - len(line.lstrip())])
    return text[:start] + body + text[_offset(text, edit.range.end):]


def errors(path: str, text: str) -> list[str]:
    return [d.code for d in parse_document(path, text).diagnostics if d.severity is Severity.ERROR]


def by_label(items: list[types.CompletionItem]) -> dict[str, types.CompletionItem]:
    return {item.label: item for item in items}


async def test_an_empty_file_offers_a_domain_and_a_problem_skeleton(client: LanguageClient,
                                                                    project: Path) -> None:
    text, items = await complete(client, project / "rooms.pddl", "|")
    offered = by_label(items)
    assert set(offered) == {"domain", "problem"}
    domain = expand(text, offered["domain"])
    assert domain.startswith("(define (domain rooms)\n  (:requirements :strips :typing)\n")
    assert errors("rooms.pddl", domain) == []
    problem = expand(text, offered["problem"])
    assert problem.startswith("(define (problem rooms)\n  (:domain domain-name)\n")
    assert errors("rooms.pddl", problem) == []
    assert all(item.kind == types.CompletionItemKind.Snippet for item in items)


async def test_the_problem_skeleton_names_the_domain_beside_it(client: LanguageClient, project: Path) -> None:
    (project / "domain.pddl").write_text("(define (domain blocksworld) (:predicates (clear ?x)))\n")
    text, items = await complete(client, project / "p02.pddl", "|")
    problem = expand(text, by_label(items)["problem"])
    assert problem.startswith("(define (problem p02)\n  (:domain blocksworld)\n")


async def test_after_comments_and_a_typed_bracket_the_skeleton_fits_in(client: LanguageClient,
                                                                        project: Path) -> None:
    text, items = await complete(client, project / "p.pddl", "; my first problem\n(def|)")
    filled = expand(text, by_label(items)["problem"])
    assert filled.startswith("; my first problem\n(define (problem p)\n")
    assert filled.count("(") == filled.count(")") and errors("p.pddl", filled) == []
    _, in_comment = await complete(client, project / "q.pddl", "; write a domain|\n")
    assert not in_comment


async def test_a_file_with_a_define_gets_no_file_skeletons(client: LanguageClient, project: Path) -> None:
    _, items = await complete(client, project / "d.pddl", "(define (domain d))\n|")
    assert not {"domain", "problem"} & set(by_label(items))


async def test_an_action_skeleton_at_a_section_head_of_a_domain(client: LanguageClient,
                                                                 project: Path) -> None:
    written = "(define (domain d)\n  (:requirements :strips)\n  (:predicates (p))\n  (|))\n"
    text, items = await complete(client, project / "d.pddl", written)
    offered = by_label(items)
    assert ":action" in offered  # the keywords are still there, the skeletons come after them
    filled = expand(text, offered[":action …"])
    action = "  (:action name\n    :parameters (?x - object)\n    :precondition (and )\n    :effect (and ))"
    assert action in filled
    assert errors("d.pddl", filled) == []
    assert errors("d.pddl", expand(text, offered[":durative-action …"])) == []


async def test_a_predicate_skeleton_inside_predicates(client: LanguageClient, project: Path) -> None:
    written = "(define (domain d)\n  (:requirements :strips :typing)\n  (:predicates\n    (|)))\n"
    text, items = await complete(client, project / "d.pddl", written)
    filled = expand(text, by_label(items)["predicate …"])
    assert "(:predicates\n    (name ?x - object)))" in filled and errors("d.pddl", filled) == []


async def test_enter_indents_the_new_line_to_the_layout(client: LanguageClient, project: Path) -> None:
    text = "(define (domain d)\n  (:action a\n    :precondition (and\n  \n"
    uri = open_file(client, project / "d.pddl", text)
    edits = await client.text_document_on_type_formatting_async(types.DocumentOnTypeFormattingParams(
        text_document=text_document(uri), position=types.Position(line=3, character=2), ch="\n",
        options=types.FormattingOptions(tab_size=2, insert_spaces=True)))
    assert edits is not None and len(edits) == 1
    (edit,) = edits
    assert edit.new_text == "      "  # the conjuncts of `:precondition (and`, one step past its line
    assert (edit.range.start.line, edit.range.start.character, edit.range.end.character) == (3, 0, 2)
    done = "(define (domain d)\n  \n"
    uri = open_file(client, project / "e.pddl", done)
    assert not await client.text_document_on_type_formatting_async(types.DocumentOnTypeFormattingParams(
        text_document=text_document(uri), position=types.Position(line=1, character=2), ch="\n",
        options=types.FormattingOptions(tab_size=2, insert_spaces=True)))

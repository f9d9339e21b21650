"""Formatting, quick fixes, folding, semantic tokens and inlay hints through the real
``plansight serve`` process (pytest-lsp), as an editor uses them: each quick fix is applied to the
buffer and the diagnostic it fixes must disappear from the next publication."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
import pytest_lsp
from lsp_session import SERVER, close_session, open_session
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from plansight.analyses.diagnostics.spans import LineIndex, Position

pytestmark = pytest.mark.lsp

TIMEOUT = 60.0

DOMAIN = """\
; Crates on pallets.
(define (domain shop)
  (:requirements :strips :typing)
  (:types crate pallet)
  (:constants depot - pallet)
  (:predicates
    (on ?c - crate ?p - pallet) ; where it stands
    (empty ?p - pallet))
  (:action stack
    :parameters (?c - crate ?p - pallet)
    :precondition (empty ?p)
    :effect (and (on ?c ?p) (not (empty ?p)))))
"""

PROBLEM = """\
(define (problem two)
  (:domain shop)
  (:objects c1 c2 - crate p1 - pallet)
  (:init (empty p1) (empty depot))
  (:goal (and (on c1 p1) (on c2 depot))))
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "one" / "two" / "three" / "project"
    folder.mkdir(parents=True)
    return folder


LEGENDS: dict[int, list[str]] = {}
"""the semantic token legend each client was given at ``initialize``"""


async def _start(client: LanguageClient, project: Path, options: dict[str, object] | None) -> None:
    result = await open_session(client, project, initialization_options=options)
    provider = result.capabilities.semantic_tokens_provider
    LEGENDS[id(client)] = list(provider.legend.token_types) if provider is not None else []


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, project: Path):
    await _start(lsp_client, project, None)
    yield
    await close_session(lsp_client)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def hinting_client(lsp_client: LanguageClient, project: Path):
    await _start(lsp_client, project, {"plansight": {"inlayHints": {"objectTypes": True}}})
    yield
    await close_session(lsp_client)


class Buffer:
    """One open document and its text as the client holds it."""

    def __init__(self, client: LanguageClient, path: Path, text: str) -> None:
        self.client, self.path, self.text, self.version = client, path, text, 1
        path.write_text(text)
        self.uri = path.as_uri()
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=self.uri, language_id="pddl", version=1, text=text)))

    @property
    def id(self) -> types.TextDocumentIdentifier:
        return types.TextDocumentIdentifier(uri=self.uri)

    def apply(self, edits: Sequence[types.TextEdit]) -> None:
        self.text = apply_edits(self.text, edits)
        self.version += 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=self.text)]))

    async def diagnostics(self, accept: Callable[[list[types.Diagnostic]], bool]) -> list[types.Diagnostic]:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            found = self.client.diagnostics.get(self.uri)
            if found is not None and accept(list(found)):
                return list(found)
            await asyncio.sleep(0.02)
        seen = self.client.diagnostics.get(self.uri)
        raise AssertionError(f"diagnostics of {self.uri} never matched: {seen}")


def apply_edits(text: str, edits: Sequence[types.TextEdit]) -> str:
    index = LineIndex(text)
    spans = [(index.offset(Position(e.range.start.line, e.range.start.character)),
              index.offset(Position(e.range.end.line, e.range.end.character)), e.new_text) for e in edits]
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def has(code: str) -> Callable[[list[types.Diagnostic]], bool]:
    return lambda found: any(d.code == code for d in found)


def lacks(code: str) -> Callable[[list[types.Diagnostic]], bool]:
    return lambda found: not any(d.code == code for d in found)


def rng(a: tuple[int, int], b: tuple[int, int]) -> types.Range:
    return types.Range(start=types.Position(line=a[0], character=a[1]),
                       end=types.Position(line=b[0], character=b[1]))


# --- formatting ------------------------------------------------------------------------------------------


async def test_formatting_returns_one_minimal_edit_that_gives_the_canonical_layout(
        client: LanguageClient, project: Path) -> None:
    messy = "(define (problem two) (:domain shop)\n(:objects c1 c2 - crate p1 - pallet) ; three\n" \
            "(:init (empty p1) (empty depot)) (:goal (and (on c1 p1) (on c2 depot))))\n"
    buffer = Buffer(client, project / "p.pddl", messy)
    edits = await client.text_document_formatting_async(types.DocumentFormattingParams(
        text_document=buffer.id, options=types.FormattingOptions(tab_size=2, insert_spaces=True)))
    assert edits is not None and len(edits) == 1
    assert edits[0].range.start == types.Position(line=0, character=21)  # the common prefix is kept
    assert apply_edits(messy, edits) == (
        "(define (problem two)\n  (:domain shop)\n  (:objects c1 c2 - crate p1 - pallet) ; three\n"
        "  (:init\n    (empty p1)\n    (empty depot))\n  (:goal (and (on c1 p1) (on c2 depot))))\n")


async def test_formatting_a_formatted_or_broken_file_changes_nothing(client: LanguageClient,
                                                                      project: Path) -> None:
    buffer = Buffer(client, project / "domain.pddl", DOMAIN)
    params = types.DocumentFormattingParams(text_document=buffer.id, options=types.FormattingOptions(
        tab_size=2, insert_spaces=True))
    assert not await client.text_document_formatting_async(params)
    broken = Buffer(client, project / "broken.pddl", DOMAIN.replace("(empty ?p))", "(empty ?p)"))
    assert not await client.text_document_formatting_async(types.DocumentFormattingParams(
        text_document=broken.id, options=types.FormattingOptions(tab_size=2, insert_spaces=True)))


async def test_range_formatting_formats_only_the_section_under_the_range(client: LanguageClient,
                                                                          project: Path) -> None:
    text = PROBLEM.replace("(:init (empty p1) (empty depot))", "(:init   (empty p1)   (empty depot))")
    text = text.replace("(:objects c1 c2 - crate p1 - pallet)", "(:objects   c1 c2 - crate p1 - pallet)")
    buffer = Buffer(client, project / "p.pddl", text)
    edits = await client.text_document_range_formatting_async(types.DocumentRangeFormattingParams(
        text_document=buffer.id, range=rng((3, 4), (3, 8)),
        options=types.FormattingOptions(tab_size=2, insert_spaces=True)))
    assert edits
    result = apply_edits(text, edits)
    assert "(:objects   c1 c2 - crate p1 - pallet)" in result  # outside the range
    assert "  (:init\n    (empty p1)\n    (empty depot))\n" in result


# --- quick fixes -------------------------------------------------------------------------------------------


async def _fix(client: LanguageClient, buffer: Buffer, code: str, title: str,
               mentions: str = "") -> types.CodeAction:
    found = await buffer.diagnostics(has(code))
    diagnostic = next(d for d in found if d.code == code and mentions in d.message)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=buffer.id, range=diagnostic.range,
        context=types.CodeActionContext(diagnostics=[diagnostic])))
    assert actions is not None
    titles = [a.title for a in actions]
    action = next((a for a in actions if isinstance(a, types.CodeAction) and title in a.title), None)
    assert action is not None, titles
    return action


def _edits_for(action: types.CodeAction, uri: str) -> list[types.TextEdit]:
    assert action.edit is not None and action.edit.document_changes is not None
    return [e for change in action.edit.document_changes if isinstance(change, types.TextDocumentEdit)
            and change.text_document.uri == uri for e in change.edits]  # type: ignore[misc]


@pytest.mark.parametrize(("before", "after", "code", "title"), [
    ((":requirements :strips :typing", ":requirements :strips :typing"), ("(empty ?p)\n    :effect",
     "(not (empty ?p))\n    :effect"), "missing-requirement", "Add `:negative-preconditions`"),
    (("", ""), ("(not (empty ?p)))))", "(not (empty ?p)) (full ?p))))"), "undeclared-predicate",
     "Declare predicate `(full ?p - pallet)`"),
    (("", ""), ("(:action stack", "(:action stack\n    :parameters (?c - crate ?p - pallet)\n"
                "    :precondition (emty ?p)\n    :effect (empty ?p))\n  (:action stack2"),
     "undeclared-predicate", "Replace `emty` with `empty`"),
    (("", ""), ("(:constants depot - pallet)", "(:constants depot spare - pallet)"), "unused-constant",
     "Remove the unused declaration of `spare`"),
])
async def test_domain_quick_fix_removes_its_diagnostic(client: LanguageClient, project: Path,
                                                       before: tuple[str, str], after: tuple[str, str],
                                                       code: str, title: str) -> None:
    text = DOMAIN.replace(*before).replace(*after)
    buffer = Buffer(client, project / "domain.pddl", text)
    action = await _fix(client, buffer, code, title, "spare" if code == "unused-constant" else "")
    buffer.apply(_edits_for(action, buffer.uri))
    if code == "unused-constant":
        await buffer.diagnostics(lambda found: not any("spare" in d.message for d in found))
    else:
        await buffer.diagnostics(lambda found: not any(d.code == code for d in found))
    assert not [d for d in client.diagnostics[buffer.uri] if d.severity == types.DiagnosticSeverity.Error]


@pytest.mark.parametrize(("old", "new", "code", "title"), [
    ("(:goal (and (on c1 p1) (on c2 depot)))", "(:goal (and (on c1 p1) (on c3 depot)))", "undeclared-object",
     "Declare object `c3 - crate`"),
    ("(:domain shop)", "(:domain shp)", None, "Change the domain name to `shop`"),
])
async def test_problem_quick_fix_removes_its_diagnostic(client: LanguageClient, project: Path, old: str,
                                                        new: str, code: str | None, title: str) -> None:
    Buffer(client, project / "domain.pddl", DOMAIN)
    buffer = Buffer(client, project / "p01.pddl", PROBLEM.replace(old, new))
    if code is None:
        names = ("unknown-domain", "domain-name-mismatch")
        found = await buffer.diagnostics(lambda f: any(d.code in names for d in f))
        code = next(str(d.code) for d in found if d.code in names)
    action = await _fix(client, buffer, code, title)
    buffer.apply(_edits_for(action, buffer.uri))
    await buffer.diagnostics(lacks(code))
    if code != "undeclared-object":
        assert buffer.text == PROBLEM


async def test_typed_objects_of_an_untyped_domain_are_untyped_by_the_fix(client: LanguageClient,
                                                                         project: Path) -> None:
    untyped = ("(define (domain shop)\n  (:predicates (empty ?p))\n"
               "  (:action a :parameters (?p) :effect (empty ?p)))\n")
    Buffer(client, project / "domain.pddl", untyped)
    buffer = Buffer(client, project / "p01.pddl",
                    "(define (problem two)\n  (:domain shop)\n  (:objects p1 p2 - pallet)\n  (:init)\n"
                    "  (:goal (empty p1)))\n")
    action = await _fix(client, buffer, "typed-objects-untyped-domain", "Remove the object types")
    buffer.apply(_edits_for(action, buffer.uri))
    await buffer.diagnostics(lacks("typed-objects-untyped-domain"))
    assert "(:objects p1 p2)" in buffer.text


async def test_undeclared_predicate_in_a_problem_is_declared_in_the_domain_file(client: LanguageClient,
                                                                                 project: Path) -> None:
    domain = Buffer(client, project / "domain.pddl", DOMAIN)
    problem = PROBLEM.replace("(empty depot))", "(empty depot) (big c1))")
    buffer = Buffer(client, project / "p01.pddl", problem)
    action = await _fix(client, buffer, "undeclared-predicate", "Declare predicate `(big ?crate - crate)`")
    domain.apply(_edits_for(action, domain.uri))
    await buffer.diagnostics(lacks("undeclared-predicate"))
    assert "    (empty ?p - pallet)\n    (big ?crate - crate))" in domain.text


async def test_empty_file_gets_skeletons_and_a_domain_gets_create_problem(client: LanguageClient,
                                                                           project: Path) -> None:
    empty = Buffer(client, project / "new.pddl", "")
    await empty.diagnostics(has("empty-file"))
    action = await _fix(client, empty, "empty-file", "Insert a domain skeleton")
    empty.apply(_edits_for(action, empty.uri))
    await empty.diagnostics(lacks("empty-file"))
    assert not [d for d in client.diagnostics[empty.uri] if d.severity == types.DiagnosticSeverity.Error]

    domain = Buffer(client, project / "domain.pddl", DOMAIN)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=domain.id, range=rng((0, 0), (0, 0)),
        context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.Source])))
    assert actions is not None
    create = next(a for a in actions
                  if isinstance(a, types.CodeAction) and a.title.startswith("Create a problem"))
    assert create.kind == types.CodeActionKind.Source and create.edit and create.edit.document_changes
    created, filled = create.edit.document_changes
    assert isinstance(created, types.CreateFile) and created.uri == (project / "shop-problem.pddl").as_uri()
    assert isinstance(filled, types.TextDocumentEdit)
    assert "(:domain shop)" in filled.edits[0].new_text


# --- folding, semantic tokens, inlay hints -----------------------------------------------------------------


async def test_folding_ranges_cover_define_every_section_action_and_comment_block(client: LanguageClient,
                                                                                  project: Path) -> None:
    text = "; a shop\n; two lines of notes\n" + DOMAIN.split("\n", 1)[1]
    buffer = Buffer(client, project / "domain.pddl", text)
    folds = await client.text_document_folding_range_async(types.FoldingRangeParams(text_document=buffer.id))
    assert folds is not None
    spans = {(f.start_line, f.end_line, f.kind) for f in folds}
    region, comment = types.FoldingRangeKind.Region, types.FoldingRangeKind.Comment
    assert (0, 1, comment) in spans  # the comment block
    assert (2, 12, region) in spans  # (define
    assert (6, 8, region) in spans  # (:predicates
    assert (9, 12, region) in spans  # (:action stack
    assert all(f.end_line > f.start_line for f in folds)


def decode(data: Sequence[int], text: str, legend: Sequence[str]) -> list[tuple[str, str, bool]]:
    """(token text, type, is a declaration) per token."""
    lines = text.split("\n")
    found = []
    line = column = 0
    for i in range(0, len(data), 5):
        delta_line, delta_start, length, kind, modifiers = data[i:i + 5]
        line += delta_line
        column = column + delta_start if delta_line == 0 else delta_start
        found.append((lines[line][column:column + length], legend[kind], bool(modifiers & 1)))
    return found


async def test_semantic_tokens_say_what_each_name_means(client: LanguageClient, project: Path) -> None:
    Buffer(client, project / "domain.pddl", DOMAIN)
    problem = PROBLEM.replace("(empty depot))", "(empty depot)) ; 2 facts")
    buffer = Buffer(client, project / "p01.pddl", problem)
    legend = LEGENDS[id(client)]
    result = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=buffer.id))
    assert result is not None
    tokens = decode(result.data, problem, legend)
    assert tokens[:9] == [
        ("define", "keyword", False), ("problem", "keyword", False), ("two", "namespace", True),
        (":domain", "keyword", False), ("shop", "namespace", False), (":objects", "keyword", False),
        ("c1", "variable", True), ("c2", "variable", True), ("crate", "type", False)]
    assert ("empty", "function", False) in tokens  # a predicate
    assert ("depot", "enumMember", False) in tokens  # the domain's constant
    assert ("; 2 facts", "comment", False) in tokens
    assert ("and", "keyword", False) in tokens

    ranged = await client.text_document_semantic_tokens_range_async(types.SemanticTokensRangeParams(
        text_document=buffer.id, range=rng((4, 0), (5, 0))))
    assert ranged is not None
    in_goal = decode(ranged.data, problem, legend)
    assert [t for t in in_goal if t[1] != "keyword"] == [
        ("on", "function", False), ("c1", "variable", False), ("p1", "variable", False),
        ("on", "function", False), ("c2", "variable", False), ("depot", "enumMember", False)]


async def test_object_type_hints_show_where_a_long_run_of_names_has_its_type_far_away(
        hinting_client: LanguageClient, project: Path) -> None:
    Buffer(hinting_client, project / "domain.pddl", DOMAIN)
    problem = PROBLEM.replace("c1 c2 - crate", "c1 c2 c3 c4 - crate")
    buffer = Buffer(hinting_client, project / "p01.pddl", problem)
    hints = await hinting_client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=buffer.id, range=rng((0, 0), (6, 0))))
    assert hints is not None
    shown = [(h.position.line, h.position.character, h.label)
             for h in hints if h.kind == types.InlayHintKind.Type]
    assert shown == [(2, 14, ": crate"), (2, 17, ": crate"), (2, 20, ": crate")]


async def test_object_type_hints_are_off_by_default(client: LanguageClient, project: Path) -> None:
    Buffer(client, project / "domain.pddl", DOMAIN)
    problem = PROBLEM.replace("c1 c2 - crate", "c1 c2 c3 c4 - crate")
    buffer = Buffer(client, project / "p01.pddl", problem)
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=buffer.id, range=rng((0, 0), (6, 0))))
    assert not [h for h in hints or [] if h.kind == types.InlayHintKind.Type]

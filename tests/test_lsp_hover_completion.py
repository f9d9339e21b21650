"""Hover, completion and signature help through the real server: what the user reads in the popup."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_editing import DOMAIN, PLAN, PROBLEM, client, project
from lsp_session import open_file, position, span, text_document
from lsprotocol import types
from pytest_lsp import LanguageClient

__all__ = ["client", "project"]  # pytest fixtures, imported for their side effect
pytestmark = pytest.mark.lsp


async def hover_at(client: LanguageClient, uri: str, at: types.Position) -> types.Hover:
    result = await client.text_document_hover_async(types.HoverParams(text_document=text_document(uri),
                                                                      position=at))
    assert result is not None
    assert isinstance(result.contents, types.MarkupContent)
    assert result.contents.kind == types.MarkupKind.Markdown
    return result


def shown(result: types.Hover) -> str:
    assert isinstance(result.contents, types.MarkupContent)
    return result.contents.value


async def test_hover_on_a_problem_atom_shows_the_signature_and_its_comment(client: LanguageClient,
                                                                            project: Path) -> None:
    uri = open_file(client, project / "p1.pddl")
    result = await hover_at(client, uri, position(PROBLEM, "(on c1", shift=1))
    assert result.range == span(PROBLEM, "(on c1", word="on")
    assert shown(result) == ("**predicate** `on`\n\n```pddl\n(on ?c - crate ?p - pallet)\n```\n\n"
                             "the crate ?c stands on the pallet ?p")


async def test_hover_takes_the_comment_at_the_end_of_the_declaration_line(client: LanguageClient,
                                                                          project: Path) -> None:
    uri = open_file(client, project / "domain.pddl")
    result = await hover_at(client, uri, position(DOMAIN, "(empty ?p)", shift=3))
    assert shown(result) == ("**predicate** `empty`\n\n```pddl\n(empty ?p - pallet)\n```\n\n"
                             "nothing stands on it")


async def test_hover_on_a_plan_step_shows_the_action_schema_and_the_binding(client: LanguageClient,
                                                                            project: Path) -> None:
    # linked to the domain only: with a problem the plan feature's hover (the state before the step)
    # is registered first and wins on steps
    (project / "drafts").mkdir()
    text = "; @domain ../domain.pddl\n" + PLAN
    uri = open_file(client, project / "drafts" / "draft.plan", text)
    result = await hover_at(client, uri, position(text, "stack", 1, shift=2))
    assert result.range == span(text, "stack", 1)
    assert shown(result) == (
        "**action** `stack`\n\n```pddl\n"
        "(:action stack\n"
        "  :parameters (?c - crate ?p - pallet)\n"
        "  :precondition (and (empty ?p) (not (sealed ?c)))\n"
        "  :effect (and (on ?c ?p) (not (empty ?p))))\n```\n\n"
        "This step: `?c` = `c2`, `?p` = `depot`")


async def test_hover_on_an_object_shows_its_type_chain(client: LanguageClient, project: Path) -> None:
    uri = open_file(client, project / "p1.pddl")
    result = await hover_at(client, uri, position(PROBLEM, "pal1", 1))
    assert shown(result) == "**object** `pal1 - pallet`\n\n`pallet < thing < object`"
    constant = await hover_at(client, uri, position(PROBLEM, "depot"))
    assert shown(constant) == "**constant** `depot - pallet`\n\n`pallet < thing < object`"


async def test_hover_on_a_requirement_and_a_type(client: LanguageClient, project: Path) -> None:
    uri = open_file(client, project / "domain.pddl")
    requirement = await hover_at(client, uri, position(DOMAIN, ":negative-preconditions", shift=4))
    assert shown(requirement) == ("**requirement** `:negative-preconditions`\n\n"
                                  "`(not atom)` in preconditions and goals.")
    type_ = await hover_at(client, uri, position(DOMAIN, "thing"))
    assert shown(type_) == "**type** `thing`\n\n`thing < object`\n\nSubtypes: `crate`, `pallet`"


async def test_hover_on_a_parameter_names_its_type_and_action(client: LanguageClient, project: Path) -> None:
    uri = open_file(client, project / "domain.pddl")
    result = await hover_at(client, uri, position(DOMAIN, "(sealed ?c))))", shift=8))
    assert shown(result) == "**variable** `?c - crate` of action `ship`"


async def test_no_hover_on_a_keyword(client: LanguageClient, project: Path) -> None:
    uri = open_file(client, project / "domain.pddl")
    result = await client.text_document_hover_async(types.HoverParams(
        text_document=text_document(uri), position=position(DOMAIN, ":effect", shift=2)))
    assert result is None


# --- completion ------------------------------------------------------------------------------------


async def complete(client: LanguageClient, path: Path, text: str) -> list[types.CompletionItem]:
    """Completion at the ``|`` in ``text``, opened unsaved as ``path``."""
    offset = text.index("|")
    text = text.replace("|", "", 1)
    uri = open_file(client, path, text)
    line = text.count("\n", 0, offset)
    at = types.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))
    result = await client.text_document_completion_async(types.CompletionParams(
        text_document=text_document(uri), position=at))
    items = result.items if isinstance(result, types.CompletionList) else list(result or [])
    return sorted(items, key=lambda item: item.sort_text or item.label)


def edits(items: list[types.CompletionItem]) -> list[tuple[str, str]]:
    out = []
    for item in items:
        assert isinstance(item.text_edit, types.TextEdit)
        out.append((item.label, item.text_edit.new_text))
    return out


async def test_completion_in_init_offers_only_objects_of_the_parameter_type(client: LanguageClient,
                                                                            project: Path) -> None:
    items = await complete(client, project / "p1.pddl", PROBLEM.replace("(empty depot)", "(on c2 |)"))
    assert [(i.label, i.detail) for i in items] == [("depot", "constant - pallet"),
                                                    ("pal1", "object - pallet")]
    first = await complete(client, project / "p1.pddl", PROBLEM.replace("(empty depot)", "(on c|)"))
    assert [i.label for i in first] == ["c1", "c2"]
    edit = first[0].text_edit
    assert isinstance(edit, types.TextEdit)
    line = PROBLEM.replace("(empty depot)", "(on c)").splitlines()[3]
    column = line.index("(on c)") + 4
    # the edit replaces the `c` already typed
    assert edit.range == types.Range(start=types.Position(line=3, character=column),
                                     end=types.Position(line=3, character=column + 1))


async def test_a_capped_object_list_is_marked_incomplete_so_typing_narrows_it(client: LanguageClient,
                                                                             project: Path) -> None:
    crates = " ".join(f"c{i}" for i in range(1500))
    many = PROBLEM.replace("c1 c2 - crate", f"{crates} - crate")
    text = many.replace("(empty depot)", "(on |)")
    offset = text.index("|")
    text = text.replace("|", "", 1)
    uri = open_file(client, project / "p1.pddl", text)
    line = text.count("\n", 0, offset)
    at = types.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))
    capped = await client.text_document_completion_async(types.CompletionParams(
        text_document=text_document(uri), position=at))
    assert isinstance(capped, types.CompletionList)
    assert capped.is_incomplete is True
    assert len(capped.items) == 1000
    # a longer prefix fits under the cap: the answer is then complete, and has the objects past the cap
    narrowed = await complete(client, project / "p1.pddl", many.replace("(empty depot)", "(on c149|)"))
    assert [i.label for i in narrowed] == ["c149", *(f"c149{d}" for d in range(10))]


async def test_completion_of_a_predicate_is_a_snippet_with_its_arity(client: LanguageClient,
                                                                     project: Path) -> None:
    items = await complete(client, project / "domain.pddl",
                           DOMAIN.replace("(not (sealed ?c)))", "(not (sealed ?c)) (|))"))
    snippets = {i.label: i.text_edit.new_text for i in items if isinstance(i.text_edit, types.TextEdit)}
    assert snippets["on"] == "on ${1:?c} ${2:?p}"
    assert snippets["empty"] == "empty ${1:?p}"
    assert next(i for i in items if i.label == "on").insert_text_format == types.InsertTextFormat.Snippet
    assert {"and", "or", "not", "forall", "exists"} <= set(snippets)
    assert "when" not in snippets  # a precondition, not an effect
    assert "at start" not in snippets  # not a durative action


async def test_completion_of_variables_in_scope(client: LanguageClient, project: Path) -> None:
    items = await complete(client, project / "domain.pddl",
                           DOMAIN.replace("(on ?c depot)", "(on ?c ?|)"))
    assert [(i.label, i.detail) for i in items] == [("?c", "crate")]  # ship's only parameter
    typed = await complete(client, project / "domain.pddl",
                           DOMAIN.replace("(empty ?p) (not", "(on ?c |) (not"))
    # the second argument of `on` is a pallet: stack's `?p` and the constant, not `?c`
    assert [i.label for i in typed] == ["?p", "depot"]


async def test_completion_of_requirements_sections_and_types(client: LanguageClient, project: Path) -> None:
    requirements = await complete(client, project / "domain.pddl",
                                  DOMAIN.replace(":negative-preconditions)", ":negative-preconditions :|)"))
    labels = [i.label for i in requirements]
    assert ":typing" not in labels and ":strips" not in labels  # already there
    assert ":adl" in labels and ":action-costs" in labels
    edit = requirements[0].text_edit
    assert isinstance(edit, types.TextEdit) and edit.range.end.character - edit.range.start.character == 1

    sections = await complete(client, project / "p1.pddl", PROBLEM.replace("  (:goal", "  (:|)\n  (:goal"))
    assert [i.label for i in sections] == [":domain", ":requirements", ":objects", ":init", ":goal",
                                           ":constraints", ":metric"]
    action_parts = await complete(client, project / "domain.pddl",
                                  DOMAIN.replace("    :precondition (on ?c ?p)\n", "    :|\n"))
    assert [i.label for i in action_parts] == [":parameters", ":precondition", ":effect"]
    type_names = await complete(client, project / "domain.pddl",
                                DOMAIN.replace(":parameters (?c - crate)", ":parameters (?c - |)"))
    assert [i.label for i in type_names] == ["crate", "pallet", "thing", "object"]


async def test_completion_in_a_plan(client: LanguageClient, project: Path) -> None:
    """After (stack c1 pal1) (stack c2 depot) both crates stand on pallets: unstacking either and
    shipping c2 (on the depot) apply, and come first; then every action."""
    actions = await complete(client, project / "p1.plan", PLAN + "|")
    assert edits(actions) == [("ship c2", "(ship c2)"), ("unstack c1 pal1", "(unstack c1 pal1)"),
                              ("unstack c2 depot", "(unstack c2 depot)"),
                              ("stack", "(stack ${1:c} ${2:p})"), ("unstack", "(unstack ${1:c} ${2:p})"),
                              ("ship", "(ship ${1:c})")]
    assert [i.detail for i in actions[:3]] == ["applicable here"] * 3
    assert "applicable here" not in {i.detail for i in actions[3:]}
    arguments = await complete(client, project / "p1.plan", PLAN + "(ship |)")
    assert [i.label for i in arguments] == ["c1", "c2"]


async def test_completion_at_a_step_offers_what_applies_in_the_state_reached_there(
        client: LanguageClient, project: Path) -> None:
    """Between the two steps only (stack c1 pal1) has run: the inner step's head is completed with
    the actions applicable then, inside its `(` without one; a step before that cannot run leaves
    the state unknown and only the action names are offered."""
    first = await complete(client, project / "p1.plan", "(stack c1 pal1)\n(|\n(stack c2 depot)\n")
    applicable = [(i.label, i.text_edit.new_text) for i in first
                  if i.detail == "applicable here" and isinstance(i.text_edit, types.TextEdit)]
    # pal1 is taken, the depot still empty, and nothing in this domain stops restacking c1
    assert applicable == [("stack c1 depot", "stack c1 depot"), ("stack c2 depot", "stack c2 depot"),
                          ("unstack c1 pal1", "unstack c1 pal1")]
    assert [i.label for i in first[:3]] == ["stack c1 depot", "stack c2 depot", "unstack c1 pal1"]
    at_start = await complete(client, project / "p1.plan", "|\n(stack c1 pal1)\n")
    assert [i.label for i in at_start if i.detail == "applicable here"] == [
        "stack c1 depot", "stack c1 pal1", "stack c2 depot", "stack c2 pal1"]
    broken = await complete(client, project / "p1.plan", "(ship c1)\n|")
    assert [i.label for i in broken] == ["stack", "unstack", "ship"]


# --- signature help -------------------------------------------------------------------------------


async def test_signature_help_names_the_parameter_being_typed(client: LanguageClient, project: Path) -> None:
    text = PROBLEM.replace("(empty depot)", "(on c1 )")
    uri = open_file(client, project / "p1.pddl", text)
    result = await client.text_document_signature_help_async(types.SignatureHelpParams(
        text_document=text_document(uri), position=position(text, "(on c1 )", shift=7)))
    assert result is not None
    (signature,) = result.signatures
    assert signature.label == "(on ?c - crate ?p - pallet)"
    assert result.active_parameter == 1
    parameters = signature.parameters or []
    assert [signature.label[p.label[0]:p.label[1]] for p in parameters if isinstance(p.label, tuple)] == [
        "?c - crate", "?p - pallet"]
    assert parameters[1].documentation == "argument 2 of 2: pallet"
    assert isinstance(signature.documentation, types.MarkupContent)
    assert signature.documentation.value == "the crate ?c stands on the pallet ?p"


async def test_signature_help_in_a_plan_step(client: LanguageClient, project: Path) -> None:
    text = PLAN + "(stack c1"
    uri = open_file(client, project / "p1.plan", text)
    result = await client.text_document_signature_help_async(types.SignatureHelpParams(
        text_document=text_document(uri), position=types.Position(line=2, character=9)))  # after `c1`
    assert result is not None and result.signatures[0].label == "(stack ?c - crate ?p - pallet)"
    assert result.active_parameter == 0

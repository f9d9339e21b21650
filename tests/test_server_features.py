"""The server's feature contract (``server/feature_contract.py``), and features driven in-process.

Each feature declares what it adds to the protocol; the first tests build a server with that feature
alone and check that it registers exactly what it declares, so the declarations (and
``docs/server-features.md``, which lists them) cannot drift from the code. The rest drive single
features through ``tests/server_harness.py``: a server with only the features under test, in this
process, answering the JSON an editor would send.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from server_harness import ServerError, editor

from plansight.server import commands
from plansight.server.app import FEATURE_ORDER, create_server, feature_order
from plansight.server.association_feature import AssociationFeature
from plansight.server.diagnostics_feature import DiagnosticsFeature
from plansight.server.feature_contract import ServerFeature
from plansight.server.feature_hub import SLOT_METHODS
from plansight.server.folding_feature import FoldingFeature
from plansight.server.formatting_feature import FormattingFeature
from plansight.server.hover_feature import HoverFeature
from plansight.server.plan_feature import PlanFeature
from plansight.server.plan_repair_feature import PlanRepairFeature

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
BLOCKS_DOMAIN = (EXAMPLES / "blocksworld" / "domain.pddl").read_text()
SUSSMAN = (EXAMPLES / "blocksworld" / "p01.pddl").read_text()
"""init (on c a) (on-table a) (on-table b) (clear c) (clear b) (handempty)"""
SUSSMAN_PLAN = "(unstack c a)\n(put-down c)\n(pick-up b)\n(stack b c)\n(pick-up a)\n(stack a b)\n"

DOMAIN = """\
(define (domain depot)
  (:requirements :strips :typing)
  (:types crate pallet)
  (:predicates
    (on ?c - crate ?p - pallet) ; the crate ?c stands on the pallet ?p
    (empty ?p - pallet))
  (:action drop
    :parameters (?c - crate ?p - pallet)
    :precondition (empty ?p)
    :effect (and (on ?c ?p) (not (empty ?p)))))
"""

PROBLEM = """\
(define (problem p1) (:domain depot)
  (:objects c1 - crate p1 - pallet)
  (:init (empty p1))
  (:goal (on c1 p1)))
"""

SERVER_METHODS = {"initialize", "initialized", "shutdown", "exit", "workspace/didChangeConfiguration"}
"""what every server answers besides its features: the lifecycle and the settings"""


def _position(text: str, needle: str, shift: int = 0) -> dict[str, int]:
    offset = text.index(needle) + shift
    line = text.count("\n", 0, offset)
    return {"line": line, "character": offset - (text.rfind("\n", 0, offset) + 1)}


# --- the contract ------------------------------------------------------------------------------------


def _declared(kinds: list[type[ServerFeature]]) -> tuple[set[str], set[str]]:
    methods, commands_ = set(SERVER_METHODS), set()
    server = create_server(kinds)
    for feature in server.installed_features:
        methods |= set(feature.methods) | {SLOT_METHODS[slot] for slot, _ in feature.providers()}
        commands_ |= set(feature.commands)
    return methods, commands_


@pytest.mark.parametrize("kind", FEATURE_ORDER, ids=lambda kind: kind.__name__)
def test_a_feature_alone_registers_exactly_what_it_declares(kind: type[ServerFeature]) -> None:
    kinds = [*kind.requires, kind]
    server = create_server(kinds)
    methods, commands_ = _declared(kinds)
    assert set(server.protocol.fm.features) == methods
    assert set(server.protocol.fm.commands) == commands_
    assert commands_ <= commands.COMMAND_IDS  # every command is in the table the client is generated from


def test_the_full_server_registers_exactly_the_declared_union() -> None:
    server = create_server()
    methods, commands_ = _declared(list(FEATURE_ORDER))
    assert set(server.protocol.fm.features) == methods
    assert set(server.protocol.fm.commands) == commands_ == commands.COMMAND_IDS
    assert [type(f) for f in server.installed_features] == list(FEATURE_ORDER)


def test_a_subset_keeps_the_documented_order_whatever_order_it_is_given_in() -> None:
    order = feature_order([HoverFeature, PlanRepairFeature, PlanFeature])
    assert order == [DiagnosticsFeature, PlanFeature, PlanRepairFeature, HoverFeature]


def test_a_feature_without_what_it_requires_is_refused() -> None:
    with pytest.raises(ValueError, match="PlanRepairFeature needs PlanFeature"):
        create_server([PlanRepairFeature])


def test_two_servers_share_no_feature_instance() -> None:
    first, second = create_server(), create_server()
    assert not {id(f) for f in first.installed_features} & {id(f) for f in second.installed_features}
    assert first.feature_of(PlanFeature) is not second.feature_of(PlanFeature)


def test_the_feature_page_lists_every_feature_and_what_it_adds() -> None:
    page = (Path(__file__).resolve().parent.parent / "docs" / "server-features.md").read_text()
    rows = {line.split("`")[1]: line for line in page.splitlines() if line.startswith("| `")}
    assert list(rows) == [kind.__name__ for kind in FEATURE_ORDER]
    for kind in FEATURE_ORDER:
        row = rows[kind.__name__]
        for method in kind.methods:
            assert f"`{method.removeprefix('textDocument/')}`" in row, (kind.__name__, method)
        for command in kind.commands:
            assert f"`{command.removeprefix('plansight.server.')}`" in row, (kind.__name__, command)


async def test_shutdown_reaches_every_feature_in_reverse_order_even_when_one_fails(tmp_path: Path) -> None:
    stopped: list[str] = []

    class Failing(ServerFeature):
        def shutdown(self) -> None:
            stopped.append("failing")
            raise RuntimeError("cannot stop")

    class Last(ServerFeature):
        def shutdown(self) -> None:
            stopped.append("last")

    async with editor([Failing, Last], tmp_path) as client:
        assert [type(f) for f in client.server.installed_features] == [DiagnosticsFeature, Failing, Last]
    assert stopped == ["last", "failing"]


# --- features driven in-process ----------------------------------------------------------------------


async def test_a_server_announces_only_the_capabilities_of_its_features(tmp_path: Path) -> None:
    async with editor([FoldingFeature], tmp_path) as client:
        capabilities = client.capabilities
        assert capabilities["foldingRangeProvider"]
        assert "hoverProvider" not in capabilities and "completionProvider" not in capabilities
        assert capabilities["executeCommandProvider"]["commands"] == []


async def test_diagnostics_are_published_for_an_undeclared_predicate(tmp_path: Path) -> None:
    (tmp_path / "domain.pddl").write_text(DOMAIN)
    async with editor([], tmp_path) as client:
        text = PROBLEM.replace("(:goal (on c1 p1))", "(:goal (onn c1 p1))")
        uri = client.open(tmp_path / "p1.pddl", text)
        diagnostics = await client.diagnostics_of(uri)
        undeclared = [d for d in diagnostics if "onn" in d["message"]]
        assert undeclared, diagnostics
        assert undeclared[0]["range"]["start"] == _position(text, "onn")
        # the fix: after the edit, the version the editor has is clean
        client.replace(uri, PROBLEM)
        assert await client.diagnostics_of(uri) == []


async def test_hover_on_a_problem_atom_shows_the_predicate_and_its_comment(tmp_path: Path) -> None:
    (tmp_path / "domain.pddl").write_text(DOMAIN)
    async with editor([HoverFeature], tmp_path) as client:
        uri = client.open(tmp_path / "p1.pddl", PROBLEM)
        hover = await client.request("textDocument/hover", {
            "textDocument": {"uri": uri}, "position": _position(PROBLEM, "(on c1", shift=1)})
        assert hover["contents"] == {"kind": "markdown", "value": (
            "**predicate** `on`\n\n```pddl\n(on ?c - crate ?p - pallet)\n```\n\n"
            "the crate ?c stands on the pallet ?p")}
        assert hover["range"]["start"] == _position(PROBLEM, "(on c1", shift=1)
        keyword = await client.request("textDocument/hover", {
            "textDocument": {"uri": uri}, "position": _position(PROBLEM, ":objects", shift=2)})
        assert keyword is None


async def test_on_a_plan_step_the_state_before_it_wins_over_the_action_schema(tmp_path: Path) -> None:
    (tmp_path / "domain.pddl").write_text(BLOCKS_DOMAIN)
    (tmp_path / "p01.pddl").write_text(SUSSMAN)
    at_step_2 = {"line": 1, "character": 2}  # on `put-down`
    # given in the "wrong" order: the server still asks the plan feature first (FEATURE_ORDER)
    async with editor([HoverFeature, PlanFeature], tmp_path) as client:
        uri = client.open(tmp_path / "p01.plan", SUSSMAN_PLAN, "pddl-plan")
        hover = await client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                            "position": at_step_2})
        shown = hover["contents"]["value"]
        assert shown.startswith("**Step 2** `(put-down c)` — executed")
        assert "(holding c)" in shown  # the state before the step
    async with editor([HoverFeature], tmp_path) as client:  # without plans: the action's schema
        uri = client.open(tmp_path / "p01.plan", SUSSMAN_PLAN, "pddl-plan")
        hover = await client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                            "position": at_step_2})
        assert hover["contents"]["value"].startswith("**action** `put-down`")


async def test_folding_ranges_cover_each_section_and_action(tmp_path: Path) -> None:
    async with editor([FoldingFeature], tmp_path) as client:
        uri = client.open(tmp_path / "domain.pddl", DOMAIN)
        folds = await client.request("textDocument/foldingRange", {"textDocument": {"uri": uri}})
        spans = {(fold["startLine"], fold["endLine"]) for fold in folds}
        predicates = _position(DOMAIN, "(:predicates")["line"]
        action = _position(DOMAIN, "(:action drop")["line"]
        assert (predicates, predicates + 2) in spans
        assert any(start == action and end == DOMAIN.count("\n") - 1 for start, end in spans)


async def test_formatting_lays_out_a_squashed_domain_and_then_has_nothing_to_change(tmp_path: Path) -> None:
    squashed = " ".join(DOMAIN.replace(" ; the crate ?c stands on the pallet ?p", "").split()) + "\n"
    async with editor([FormattingFeature], tmp_path) as client:
        uri = client.open(tmp_path / "domain.pddl", squashed)
        options = {"tabSize": 2, "insertSpaces": True}
        edits = await client.request("textDocument/formatting",
                                     {"textDocument": {"uri": uri}, "options": options})
        assert len(edits) == 1
        formatted = _apply(squashed, edits[0])
        assert formatted.count("\n") > 5 and "\n  (:action drop" in formatted
        assert _tokens(formatted) == _tokens(squashed)  # only the layout changed
        client.replace(uri, formatted)
        again = await client.request("textDocument/formatting",
                                     {"textDocument": {"uri": uri}, "options": options})
        assert again == []


async def test_the_state_at_step_command_answers_the_table_s_result_shape(tmp_path: Path) -> None:
    (tmp_path / "domain.pddl").write_text(BLOCKS_DOMAIN)
    (tmp_path / "p01.pddl").write_text(SUSSMAN)
    async with editor([PlanFeature], tmp_path) as client:
        assert set(client.capabilities["executeCommandProvider"]["commands"]) == set(PlanFeature.commands)
        uri = client.open(tmp_path / "p01.plan", SUSSMAN_PLAN, "pddl-plan")
        state = await client.execute(commands.STATE_AT_STEP.id, {"uri": uri, "line": 1})
        assert state == {"index": 1, "action": "(put-down c)", "reached": True,
                         "state": ["(clear a)", "(clear b)", "(holding c)", "(on-table a)", "(on-table b)"],
                         "values": [], "derived": [], "happening": None}
        assert set(state) == _keys(commands.StateAtStepResult)
        assert await client.execute(commands.STATE_AT_STEP.id, {"uri": uri, "line": 40}) is None
        report = await client.execute(commands.SIMULATE_PLAN.id, {"uri": uri})
        assert report["valid"] is True and report["length"] == 6
        assert set(report) == _keys(commands.SimulatePlanResult)
        with pytest.raises(ServerError, match="0-based line number"):
            await client.execute(commands.STATE_AT_STEP.id, {"uri": uri, "line": -1})


async def test_the_association_request_names_the_domain_and_the_rule_that_found_it(tmp_path: Path) -> None:
    (tmp_path / "domain.pddl").write_text(DOMAIN)
    async with editor([AssociationFeature], tmp_path) as client:
        uri = client.open(tmp_path / "p1.pddl", PROBLEM)
        answer = await client.request(commands.ASSOCIATION.id, {"uri": uri})
        assert answer["kind"] == "problem"
        domain = str(tmp_path / "domain.pddl")
        assert answer["domain"] == {"path": domain, "name": "depot", "how": "convention"}
        assert set(answer) == _keys(commands.AssociationResult)
        # linked by a directive instead: the rule the status bar shows changes with it
        (tmp_path / "other").mkdir()
        (tmp_path / "other" / "d.pddl").write_text(DOMAIN)
        linked = client.open(tmp_path / "p2.pddl", "; @domain other/d.pddl\n" + PROBLEM)
        answer = await client.request(commands.ASSOCIATION.id, {"uri": linked})
        assert answer["domain"]["how"] == "directive"
        assert answer["domain"]["path"] == str(tmp_path / "other" / "d.pddl")


def _tokens(text: str) -> list[str]:
    return text.replace("(", " ( ").replace(")", " ) ").split()


def _keys(result: Any) -> set[str]:
    return set(result.__annotations__)


def _apply(text: str, edit: dict[str, Any]) -> str:
    lines = [*text.splitlines(keepends=True), ""]

    def offset(position: dict[str, int]) -> int:
        return sum(len(line) for line in lines[: position["line"]]) + position["character"]

    start, end = offset(edit["range"]["start"]), offset(edit["range"]["end"])
    return text[:start] + edit["newText"] + text[end:]

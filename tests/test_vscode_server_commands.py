"""The VS Code extension's copy of the server's commands (``vscode-client/src/serverProtocol.ts``) is
what ``server/commands.py`` generates, and that table is every command the server really registers.

``vscode-client/scripts/sync-server-commands.py`` writes the copy; these tests run its check (no Node
needed) and show that it catches drift, so a green run means the two sides agree.
"""

from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from plansight.server import commands
from plansight.server.app import create_server

CLIENT = Path(__file__).resolve().parent.parent / "vscode-client"


def _load_sync() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sync_server_commands",
                                                  CLIENT / "scripts" / "sync-server-commands.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sync = _load_sync()


def test_the_committed_client_copy_is_what_the_server_table_generates() -> None:
    assert sync.main([]) == 0, "run vscode-client/scripts/sync-server-commands.py --write"


def test_the_table_lists_exactly_the_commands_and_requests_the_server_registers() -> None:
    server = create_server()
    assert set(server.protocol.fm.commands) == commands.COMMAND_IDS
    custom = {method for method in server.protocol.fm.features if method.startswith("plansight/")}
    assert custom == commands.REQUEST_METHODS


def test_the_client_copy_names_every_id_and_result_key() -> None:
    generated = sync.generate()
    for call in commands.SERVER_CALLS:
        assert f'  {call.key}: "{call.id}",' in generated
    # a result key the client reads (renderStepState reads `reached`) is in the generated interface
    state = generated.split("export interface StateAtStepResult {")[1].split("}")[0]
    assert "  reached: boolean;" in state
    assert "  stateAtStep: StateAtStepResult | null;" in generated


def test_a_renamed_command_fails_the_check(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "serverProtocol.ts"
    copy.write_text(sync.generate(), encoding="utf-8")
    monkeypatch.setattr(sync, "GENERATED", copy)
    assert sync.main([]) == 0
    renamed = dataclasses.replace(commands.REPAIR_PLAN, id="plansight.server.fixPlan")
    monkeypatch.setattr(commands, "SERVER_CALLS",
                        tuple(renamed if c is commands.REPAIR_PLAN else c for c in commands.SERVER_CALLS))
    assert sync.main([]) == 1
    assert "sync-server-commands.py --write" in capsys.readouterr().err
    assert sync.main(["--write"]) == 0
    assert '  repairPlan: "plansight.server.fixPlan",' in copy.read_text(encoding="utf-8")


def test_a_result_key_added_on_the_server_fails_the_check(monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    copy = tmp_path / "serverProtocol.ts"
    copy.write_text(sync.generate(), encoding="utf-8")
    monkeypatch.setattr(sync, "GENERATED", copy)

    class Grown(commands.StateAtStepResult):
        effects: list[str]

    grown = dataclasses.replace(commands.STATE_AT_STEP, result=Grown)
    monkeypatch.setattr(commands, "SERVER_CALLS",
                        tuple(grown if c is commands.STATE_AT_STEP else c for c in commands.SERVER_CALLS))
    assert sync.main([]) == 1
    assert "  effects: string[];" in sync.generate()

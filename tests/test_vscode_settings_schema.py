"""The VS Code extension declares exactly the server's settings (one source: server/settings.py).

``vscode-client/scripts/sync-settings.py`` holds the comparison; these tests run it (no Node needed)
and show that it catches each kind of drift, so a green run means the two really agree.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from plansight.server import settings as server_settings

CLIENT = Path(__file__).resolve().parent.parent / "vscode-client"


def _load_sync() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sync_settings", CLIENT / "scripts" / "sync-settings.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sync = _load_sync()


@pytest.fixture
def package() -> dict[str, Any]:
    return json.loads((CLIENT / "package.json").read_text(encoding="utf-8"))


def _properties(package: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return package["contributes"]["configuration"]["properties"]


def test_package_json_declares_the_server_settings_key_for_key(package: dict[str, Any]) -> None:
    problems = sync.package_problems(package, sync.server_schema(), sync.client_only_settings())
    assert problems == []


def test_the_schema_is_what_the_server_reader_enforces() -> None:
    assert sync.behaviour_problems(sync.server_schema()) == []


def test_the_declared_defaults_are_the_server_defaults(package: dict[str, Any]) -> None:
    # Independently of the script: the defaults VS Code shows are what the server uses with no settings.
    properties = _properties(package)
    defaults = server_settings.Settings()
    assert properties["plansight.diagnostics.debounceMs"]["default"] == defaults.debounce_ms
    assert properties["plansight.diagnostics.maxFileSizeMB"]["default"] == defaults.max_file_size_mb
    assert properties["plansight.domainGlobs"]["default"] == list(defaults.domain_globs)
    assert properties["plansight.diagnostics.debounceMs"]["maximum"] == server_settings.MAX_DEBOUNCE_MS


def test_a_changed_default_or_range_in_package_json_is_reported(package: dict[str, Any]) -> None:
    properties = _properties(package)
    properties["plansight.diagnostics.debounceMs"]["default"] = 50
    properties["plansight.diagnostics.maxFileSizeMB"]["type"] = "integer"
    problems = sync.package_problems(package, sync.server_schema(), sync.client_only_settings())
    assert problems == [
        "plansight.diagnostics.debounceMs: `default` is 50 in package.json, 20 in the server's schema",
        "plansight.diagnostics.maxFileSizeMB: `type` is 'integer' in package.json, "
        "'number' in the server's schema",
    ]


def test_missing_unknown_and_undescribed_keys_are_reported(package: dict[str, Any]) -> None:
    properties = _properties(package)
    del properties["plansight.domainGlobs"]
    properties["plansight.planner.timeout"] = {"type": "number", "default": 5, "markdownDescription": "x"}
    properties["plansight.diagnostics.debounceMs"]["markdownDescription"] = ""
    problems = sync.package_problems(package, sync.server_schema(), sync.client_only_settings())
    assert "plansight.domainGlobs is a server setting missing from package.json" in problems
    assert ("plansight.planner.timeout is in package.json but is neither a server setting nor in "
            "CLIENT_ONLY_SETTINGS") in problems
    assert "plansight.diagnostics.debounceMs has no description in package.json: write one" in problems


def test_write_restores_the_schema_and_keeps_the_descriptions(package: dict[str, Any]) -> None:
    drifted = copy.deepcopy(package)
    _properties(drifted)["plansight.diagnostics.debounceMs"].update(maximum=5000, default=1)
    del _properties(drifted)["plansight.domainGlobs"]
    synced = sync.synced_package(drifted, sync.server_schema(), sync.client_only_settings())
    properties = _properties(synced)
    debounce = "plansight.diagnostics.debounceMs"
    assert properties[debounce] == _properties(package)[debounce]
    # a key the server gained comes back with an empty description, which --check then asks a person to write
    assert properties["plansight.domainGlobs"]["markdownDescription"] == ""
    assert properties["plansight.domainGlobs"]["items"]["required"] == ["glob", "domain"]


def test_a_schema_the_server_does_not_enforce_is_reported() -> None:
    schema = sync.server_schema()
    schema["plansight.diagnostics.debounceMs"]["maximum"] = 5000  # the server stops at 2000
    schema["plansight.diagnostics.renamed"] = schema.pop("plansight.diagnostics.maxFileSizeMB")
    problems = sync.behaviour_problems(schema)
    allows = "plansight.diagnostics.debounceMs: the schema allows 5000 but the server refuses it"
    assert any(p.startswith(allows) for p in problems)
    assert any(p.startswith("plansight.diagnostics.renamed: the server ignores this key") for p in problems)
    assert "Settings.max_file_size_mb is read by the server but no setting in the schema sets it" in problems


def test_a_new_server_setting_without_a_key_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    # The server grows a field (read from `diagnostics.severity`); the schema has no key for it yet.
    base = server_settings.Settings

    @dataclasses.dataclass(frozen=True, slots=True)
    class Grown(base):  # type: ignore[misc,valid-type]
        severity: str = "error"

    def read(section: Any) -> server_settings.SettingsRead:
        read = server_settings.read_settings(section)
        return server_settings.SettingsRead(Grown(**dataclasses.asdict(read.settings)), read.complaints)

    monkeypatch.setattr(server_settings, "Settings", Grown)
    assert sync.behaviour_problems(sync.server_schema(), read) == [
        "Settings.severity is read by the server but no setting in the schema sets it"]


def test_client_only_settings_are_read_from_the_extension_source() -> None:
    source = 'export const CLIENT_ONLY_SETTINGS: ReadonlySet<string> = new Set([\n  "a",\n  "b.c",\n]);'
    assert sync.client_only_settings(source) == ["plansight.a", "plansight.b.c"]
    assert set(sync.client_only_settings()) == {"plansight.interpreter", "plansight.serverPath",
                                                "plansight.trace.server", "plansight.planner.whenPlanExists"}

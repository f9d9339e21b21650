"""The settings a user writes (VS Code's ``settings.json``, ``plansight lint --severity-override``):
each key read when valid, refused with a sentence that names it when not, and the severity overrides
changing what the user sees in the editor and on the command line.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsp_session import session
from lsprotocol import types
from pytest_lsp import ClientServerConfig, client_capabilities
from samples import TINY_DOMAIN
from test_lsp_diagnostics import (
    SERVER,
    RecordingClient,
    codes,
    make_recording_client,
    open_document,
    version_is,
)

from plansight.analyses.diagnostics.diagnostic import Severity, make
from plansight.analyses.diagnostics.severity_overrides import apply_severity_overrides
from plansight.analyses.diagnostics.spans import Span
from plansight.server.settings import (
    KEYS,
    PlannerCommand,
    ReferenceGlob,
    ReferencePlanGlob,
    Settings,
    read_settings,
    section_of,
)

# --- the reader, key by key ----------------------------------------------------------------------

# key, a valid value, the field it sets and the value the server then uses, an invalid value
VALID_AND_INVALID: list[tuple[str, object, str, object, object]] = [
    ("referenceGlobs", [{"glob": "s/*.pddl", "reference": "ref.pddl"}],
     "reference_globs", (ReferenceGlob("s/*.pddl", "ref.pddl"),), {"glob": "s/*.pddl"}),
    ("referencePlanGlobs", [{"glob": "p/*.plan", "referencePlan": "gold/{stem}.plan"}],
     "reference_plan_globs", (ReferencePlanGlob("p/*.plan", "gold/{stem}.plan"),), "gold/{stem}.plan"),
    ("planner.timeLimitSeconds", 2.5, "planner_time_limit_s", 2.5, 0),
    ("planner.memoryLimitMB", 512, "planner_memory_limit_mb", 512, 10),
    ("planner.configuration", " seq-opt-lmcut ", "planner_configuration", "seq-opt-lmcut", ""),
    ("planner.commands", [{"name": "ff", "command": "ff -o {domain} -f {problem}"}],
     "planner_commands", (PlannerCommand("ff", "ff -o {domain} -f {problem}"),), [{"name": "ff"}]),
    ("planMetrics.similarity", "v2", "similarity_version", "v2", "v3"),
    ("inlayHints.planEffects", False, "inlay_plan_effects", False, "no"),
    ("inlayHints.aqmLabels", False, "inlay_aqm_labels", False, 0),
    ("inlayHints.objectTypes", True, "inlay_object_types", True, "yes"),
    ("formatting.indentWidth", 4, "format_indent", 4, 9),
    ("formatting.lineWidth", 80, "format_line_width", 80, 5),
    ("equivalence.stateBudget", 1000, "equivalence_state_budget", 1000, 0),
    ("equivalence.timeLimitSeconds", 60, "equivalence_time_limit_s", 60.0, -1),
    ("simulation.timeLimitSeconds", 2.5, "simulation_time_limit_s", 2.5, 0),
    ("simulation.workBudget", 1000, "simulation_work_budget", 1000, 0.5),
    ("simulation.epsilon", 0.001, "simulation_epsilon", 0.001, 0),
    ("diagnostics.severity", {"unused-parameter": "off"}, "severity_overrides", {"unused-parameter": "off"},
     ["unused-parameter"]),
    ("diagnostics.debounceMs", 100, "debounce_ms", 100, 2001),
    ("diagnostics.maxFileSizeMB", 1.5, "max_file_size_mb", 1.5, 0),
]


def test_every_key_of_the_schema_is_exercised_here() -> None:
    assert {key.key for key in KEYS} - {"domainGlobs"} == {row[0] for row in VALID_AND_INVALID}


def test_the_defaults_are_the_promised_ones() -> None:
    defaults = Settings()
    assert (defaults.planner_time_limit_s, defaults.planner_memory_limit_mb) == (30, 2048)
    assert (defaults.similarity_version, defaults.format_indent, defaults.format_line_width) == ("v1", 2, 100)
    assert (defaults.inlay_plan_effects, defaults.inlay_aqm_labels, defaults.inlay_object_types) == (
        True, True, False)
    assert (defaults.equivalence_state_budget, defaults.equivalence_time_limit_s) == (200_000, 10)
    assert defaults.severity_overrides == {}
    assert defaults.reference_globs == defaults.reference_plan_globs == ()


def _nested(dotted: str, value: object) -> dict[str, Any]:
    head, _, rest = dotted.partition(".")
    return {head: _nested(rest, value) if rest else value}


@pytest.mark.parametrize(("key", "valid", "field", "used", "invalid"), VALID_AND_INVALID,
                         ids=[row[0] for row in VALID_AND_INVALID])
def test_each_key_is_read_when_valid_and_refused_with_its_name_when_not(
        key: str, valid: object, field: str, used: object, invalid: object) -> None:
    nested = read_settings(section_of({"plansight": _nested(key, valid)}))
    dotted = read_settings(section_of({key: valid}))
    assert nested.complaints == dotted.complaints == ()
    assert getattr(nested.settings, field) == getattr(dotted.settings, field) == used

    refused = read_settings({"plansight": _nested(key, invalid)}["plansight"])
    assert getattr(refused.settings, field) == getattr(Settings(), field)
    (complaint,) = refused.complaints
    assert complaint.startswith(f"`plansight.{key}")
    assert repr(invalid) in complaint or repr(invalid[0]) in complaint  # type: ignore[index]


def test_complaints_say_what_was_expected_and_what_is_used_instead() -> None:
    read = read_settings({"planner": {"timeLimitSeconds": 0}, "planMetrics": {"similarity": "V3"},
                          "formatting": {"indentWidth": 9}, "inlayHints": {"aqmLabels": "on"}})
    assert read.complaints == (
        "`plansight.planner.timeLimitSeconds` is 0: expected a positive number of seconds up to 3600; "
        "using 30.",
        "`plansight.planMetrics.similarity` is 'V3': expected \"v1\" or \"v2\"; using 'v1'.",
        "`plansight.inlayHints.aqmLabels` is 'on': expected true or false; using true.",
        "`plansight.formatting.indentWidth` is 9: expected a whole number of spaces from 0 to 8; using 2.",
    )


def test_a_bad_reference_glob_entry_is_dropped_and_the_good_ones_kept() -> None:
    read = read_settings({"referencePlanGlobs": [
        {"glob": "a/*.plan", "referencePlan": "gold/{stem}.plan"},
        {"glob": "b/*.plan", "reference": "gold.plan"},  # the key of referenceGlobs, by mistake
        {"glob": " c/*.plan ", "referencePlan": " gold/c.plan "}]})
    assert read.settings.reference_plan_globs == (ReferencePlanGlob("a/*.plan", "gold/{stem}.plan"),
                                                  ReferencePlanGlob("c/*.plan", "gold/c.plan"))
    assert read.complaints == (
        "`plansight.referencePlanGlobs[1]` is {'glob': 'b/*.plan', 'reference': 'gold.plan'}: expected "
        '{"glob": ..., "referencePlan": ...}; ignoring this entry.',)


def test_an_unknown_code_gets_a_did_you_mean_and_the_valid_overrides_still_apply() -> None:
    read = read_settings({"diagnostics": {"severity": {
        "unused-paramter": "off", "wrong-arity": "warn", "type-mismatch": "Warning"}}})
    assert read.settings.severity_overrides == {"type-mismatch": "warning"}
    assert read.complaints == (
        "`plansight.diagnostics.severity`: plansight has no diagnostic code 'unused-paramter' "
        "(`plansight codes` lists them). Did you mean `unused-parameter`? This entry is ignored.",
        "`plansight.diagnostics.severity`: the level of `wrong-arity` is 'warn': expected one of "
        '"error", "warning", "information", "hint", "off". This entry is ignored.',
    )


def test_new_top_level_keys_are_recognised_as_our_section() -> None:
    assert section_of({"planner": {"timeLimitSeconds": 5}}) == {"planner": {"timeLimitSeconds": 5}}
    assert section_of({"inlayHints.objectTypes": True}) == {"inlayHints.objectTypes": True}
    assert section_of({"editor": {"tabSize": 4}}) is None


# --- the overrides -------------------------------------------------------------------------------


def test_overrides_change_the_severity_or_drop_the_code_and_leave_the_rest() -> None:
    arity = make("wrong-arity", "`clear` takes 1 argument, got 2", Span(3, 8))
    unused = make("unused-predicate", "No action uses `spare`", Span(10, 15))
    syntax = make("syntax-error", "unexpected `)`", Span(20, 21))
    overrides = {"wrong-arity": "warning", "unused-predicate": "off"}
    result = apply_severity_overrides([arity, unused, syntax], overrides)
    assert [(d.code, d.severity, d.span) for d in result] == [
        ("wrong-arity", Severity.WARNING, Span(3, 8)), ("syntax-error", Severity.ERROR, Span(20, 21))]
    assert result[0].message == arity.message


# The tiny domain with a wrong arity (error) on line 6 and an unused predicate (hint) on line 3.
MISTAKES = (TINY_DOMAIN.replace("(handempty))", "(handempty) (spare ?x))", 1)
            .replace("(clear ?x) (handempty))", "(clear ?x ?x) (handempty))"))


def _lint(path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "plansight", "lint", str(path), "--format", "json", *flags],
                          capture_output=True, text=True, timeout=120, check=False)


def test_lint_severity_override_demotes_and_hides_codes(tmp_path: Path) -> None:
    domain = tmp_path / "domain.pddl"
    domain.write_text(MISTAKES)
    plain = _lint(domain)
    assert plain.returncode == 1
    assert [(d["code"], d["severity"]) for d in json.loads(plain.stdout)["files"][0]["diagnostics"]] == [
        ("unused-predicate", "hint"), ("wrong-arity", "error")]

    overridden = _lint(domain, "--severity-override", "wrong-arity=warning",
                       "--severity-override", "unused-predicate=off")
    assert overridden.returncode == 0, "a demoted error no longer fails the run"
    report = json.loads(overridden.stdout)
    reported = [(d["code"], d["severity"]) for d in report["files"][0]["diagnostics"]]
    assert reported == [("wrong-arity", "warning")]
    assert report["summary"]["errors"] == 0


def test_lint_refuses_an_unknown_code_as_a_usage_error(tmp_path: Path) -> None:
    domain = tmp_path / "domain.pddl"
    domain.write_text(MISTAKES)
    result = _lint(domain, "--severity-override", "wrong-arty=off", "--severity-override", "nonsense")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        "plansight lint: error: --severity-override wrong-arty=off: plansight has no diagnostic code "
        "'wrong-arty' (`plansight codes` lists them). Did you mean `wrong-arity`?",
        "plansight lint: error: --severity-override nonsense: expected CODE=LEVEL, "
        "e.g. unused-parameter=off.",
    ]


# --- end to end: the real server, configured through initializationOptions -----------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "one" / "two" / "three" / "project"
    folder.mkdir(parents=True)
    return folder


OPTIONS = {"plansight": {"diagnostics": {"severity": {
    "wrong-arity": "information", "unused-predicate": "off", "unused-paramter": "off"}}}}


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_recording_client))
async def client(lsp_client: RecordingClient, project: Path):
    # neovim's capabilities: no workspace/configuration, so the initialization options stand
    async with session(lsp_client, project, client_capabilities("neovim"), OPTIONS):
        yield


@pytest.mark.lsp
async def test_the_server_applies_severity_overrides_from_initialization_options(
        client: RecordingClient, project: Path) -> None:
    uri = open_document(client, project / "domain.pddl", MISTAKES)
    _, published = await client.diagnostics_for(uri, version_is(1))
    assert codes(published.diagnostics) == ["wrong-arity"]
    (arity,) = published.diagnostics
    assert arity.severity == types.DiagnosticSeverity.Information
    assert arity.range == types.Range(start=types.Position(line=5, character=24),
                                      end=types.Position(line=5, character=29))
    warnings = [m.message for m in client.messages if m.type == types.MessageType.Warning]
    assert any("'unused-paramter'" in m and "Did you mean `unused-parameter`?" in m
               for m in warnings), warnings

    # a configuration change that drops the overrides brings the catalogue severities back
    mark = len(client.published)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"plansight": {"diagnostics": {"severity": {}}}}))
    _, restored = await client.diagnostics_for(uri, after=mark)
    assert [(d.code, d.severity) for d in restored.diagnostics] == [
        ("unused-predicate", types.DiagnosticSeverity.Hint), ("wrong-arity", types.DiagnosticSeverity.Error)]


# --- the README's settings table -------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_settings_table_lists_every_setting_with_its_default() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = re.search(r"<!-- settings-table:[^\n]*-->\n(.*?)<!-- end settings-table -->", readme, re.DOTALL)
    assert table, "README.md lost its settings table"
    documented = {key: json.loads(default) for key, default in
                  re.findall(r"^\| `(plansight\.[^`]+)` \| `([^`]*)` \|", table.group(1), re.MULTILINE)}
    package = json.loads((ROOT / "vscode-client" / "package.json").read_text(encoding="utf-8"))
    properties = package["contributes"]["configuration"]["properties"]
    declared = {key: schema["default"] for key, schema in properties.items()}
    assert documented == declared

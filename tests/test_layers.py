"""The layers of the code base hold: the import-linter contracts of pyproject.toml, run on every test run.

The contracts say who may import whom (docs/layers.md): the core never imports a front end, the server
and the CLI never import each other (except ``plansight serve``), the core's subpackages import only
downwards, and no module takes part in an import cycle. They are checked on the package as installed
(:mod:`installed_tree`), since import-linter cannot follow setuptools' folder mapping.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from installed_tree import ROOT, link_installed_tree, pyproject

BIN = Path(sys.executable).parent
CONTRACTS: list[dict[str, Any]] = pyproject()["tool"]["importlinter"]["contracts"]
CONTRACT_NAMES = {str(contract["id"]): str(contract["name"]) for contract in CONTRACTS}


def _lint_imports(tree: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    tool = BIN / "lint-imports"
    command = str(tool) if tool.exists() else shutil.which("lint-imports") or "lint-imports"
    environment = {**os.environ, "PYTHONPATH": str(tree), "COLUMNS": "1000", "NO_COLOR": "1"}
    return subprocess.run([command, str(ROOT / "pyproject.toml"), "--no-cache", *arguments],
                          capture_output=True, text=True, cwd=tree, env=environment)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return link_installed_tree(tmp_path_factory.mktemp("installed"))


@pytest.mark.parametrize("contract", sorted(CONTRACT_NAMES))
def test_the_contract_holds(tree: Path, contract: str) -> None:
    result = _lint_imports(tree, "--contract", contract)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{CONTRACT_NAMES[contract]} KEPT" in result.stdout


def test_every_cli_module_is_named_in_the_contracts() -> None:
    """A new ``cli/*.py`` module that the contracts do not list would be free to import anything."""
    cli = {f"plansight.{path.stem}" for path in (ROOT / "cli").glob("*.py") if path.stem != "__init__"}
    by_id = {contract["id"]: contract for contract in CONTRACTS}
    core_forbids = set(by_id["core-is-front-end-free"]["forbidden_modules"])
    server_forbids = set(by_id["server-is-cli-free"]["forbidden_modules"])
    cli_sources = set(by_id["cli-is-server-free"]["source_modules"])
    assert cli <= core_forbids, sorted(cli - core_forbids)
    assert cli <= server_forbids, sorted(cli - server_forbids)
    assert cli - {"plansight.server_command"} == cli_sources


def test_the_contracts_catch_imports_that_break_the_layers(tmp_path: Path) -> None:
    """The contracts can fail: each catches the kind of import it exists to forbid, deep in a package."""
    tree = link_installed_tree(tmp_path)
    model = tree / "plansight" / "analyses" / "model"
    (model / "probe_up.py").write_text("import plansight.analyses.workspace.lint\n"
                                       "import plansight.server.app\n")
    (model / "probe_ping.py").write_text("import plansight.analyses.model.probe_pong\n")
    (model / "probe_pong.py").write_text("import plansight.analyses.model.probe_ping\n")
    (tree / "plansight" / "server" / "probe.py").write_text("import plansight.plan_command\n")
    progress = tree / "plansight" / "progress.py"
    text = progress.read_text()
    progress.unlink()
    progress.write_text(text + "\nimport plansight.server.settings\n")

    result = _lint_imports(tree)

    assert result.returncode != 0
    for name in CONTRACT_NAMES.values():
        assert f"{name} BROKEN" in result.stdout, result.stdout

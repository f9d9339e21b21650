"""ruff, mypy and interrogate run as part of the suite, so style and type errors, and public definitions
without a docstring, fail CI like any other test.

mypy cannot follow setuptools' folder-to-package mapping (``analyses/`` is ``plansight.analyses``),
so it checks a tree of symbolic links laid out the way the wheel installs the package
(:mod:`installed_tree`).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from installed_tree import link_installed_tree

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    return str(BIN / name) if (BIN / name).exists() else shutil.which(name) or name


def test_ruff_is_clean() -> None:
    result = subprocess.run([_tool("ruff"), "check", str(ROOT)], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_is_clean(tmp_path: Path) -> None:
    link_installed_tree(tmp_path)
    result = subprocess.run(
        [_tool("mypy"), "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(tmp_path / "cache"),
         "-p", "plansight"],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_public_definitions_have_docstrings() -> None:
    # The threshold and what is ignored (private names, __init__, nested functions, ...) live in
    # pyproject.toml's [tool.interrogate]; the listing names each public definition still missing one.
    result = subprocess.run(
        [sys.executable, "-m", "interrogate", "--config", str(ROOT / "pyproject.toml"), "-vv",
         "analyses", "server", "cli"],
        capture_output=True, text=True, cwd=ROOT,
    )
    missed = [line for line in result.stdout.splitlines() if "MISSED" in line or "RESULT" in line]
    assert result.returncode == 0, "\n".join(missed) + result.stderr

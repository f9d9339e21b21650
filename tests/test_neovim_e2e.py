"""End-to-end through a second real editor: Neovim's built-in LSP client against ``plansight serve``.

The VS Code tests exercise one client stack; Neovim's is written independently (its own JSON-RPC,
its own change tracking and diagnostic store), so this catches protocol habits that only happen to
suit one editor. Neovim runs headless with no user configuration; ``editors/neovim_diagnostics.lua``
opens a problem with a planted mistake next to its domain, lets the client talk to the real server,
fixes the mistake through the buffer API (so the client sends its own ``didChange``), and writes
what arrived as JSON for the assertions here.

``nvim`` is a test dependency like pytest: ``tests/editors/install-neovim.sh`` installs it, and the
test fails (not skips) without it, so a CI run can never pass by silently leaving this editor out.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from samples import TINY_DOMAIN

pytestmark = pytest.mark.lsp

EDITORS = Path(__file__).parent / "editors"
SCRIPT = EDITORS / "neovim_diagnostics.lua"
INSTALL = EDITORS / "install-neovim.sh"
SERVER = [sys.executable, "-m", "plansight", "serve"]
SCRIPT_TIMEOUT_MS = 30_000  # the Lua script gives up and reports what it saw
HARD_TIMEOUT_S = 60.0  # and if even that fails, Neovim and the server are killed

DOMAIN = TINY_DOMAIN

# the planted mistake: `clear` is declared with one parameter in the domain, used with two here
PROBLEM = """\
(define (problem one)
  (:domain tiny)
  (:objects a b)
  (:init (clear a b) (clear b) (handempty))
  (:goal (holding a)))
"""
MISTAKE_LINE = 3
FIXED_LINE = "  (:init (clear a) (clear b) (handempty))"


@pytest.fixture
def nvim() -> str:
    found = shutil.which("nvim")
    if found is None:
        pytest.fail(f"nvim is not installed: run {INSTALL} (the Makefile's setup-test does) and re-run")
    return found


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """Deep enough that the domain search (which climbs three folders) never leaves ``tmp_path``."""
    folder = tmp_path / "one" / "two" / "three" / "project"
    folder.mkdir(parents=True)
    (folder / "domain.pddl").write_text(DOMAIN)
    (folder / "problem.pddl").write_text(PROBLEM)
    return folder


def run_neovim(nvim: str, project: Path, tmp_path: Path) -> dict[str, Any]:
    """Run the Lua driver in a headless Neovim isolated from the user's config, and return its report."""
    output = tmp_path / "neovim-result.json"
    config = tmp_path / "neovim-config.json"
    config.write_text(json.dumps({
        "server_cmd": SERVER,
        "root_dir": str(project),
        "file": str(project / "problem.pddl"),
        "output": str(output),
        "timeout_ms": SCRIPT_TIMEOUT_MS,
        "edit": {"line": MISTAKE_LINE, "text": FIXED_LINE},
        "hover": {"line": MISTAKE_LINE, "character": 11},  # on `clear`
    }))
    home = tmp_path / "nvim-home"  # Neovim's lsp.log lands in home/state or home/cache, never in ~
    env = {**os.environ, "PLANSIGHT_NVIM_CONFIG": str(config)}
    for kind in ("CONFIG", "DATA", "STATE", "CACHE"):
        env[f"XDG_{kind}_HOME"] = str(home / kind.lower())

    command = [nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {SCRIPT}"]
    # a session of its own so that on a hang the server (Neovim's child) is killed along with Neovim
    process = subprocess.Popen(command, cwd=project, env=env, text=True, start_new_session=True,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        stdout, stderr = process.communicate(timeout=HARD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        pytest.fail(f"Neovim hung for {HARD_TIMEOUT_S}s\n{stdout}\n{stderr}\n{lsp_log(home)}")

    if not output.exists():
        pytest.fail(f"Neovim exited {process.returncode} without a report\n"
                    f"{stdout}\n{stderr}\n{lsp_log(home)}")
    result: dict[str, Any] = json.loads(output.read_text())
    if process.returncode != 0 or result.get("failure"):
        pytest.fail(f"{result.get('failure')} (exit {process.returncode})\n"
                    f"report: {json.dumps(result, indent=1)}\n{stderr}\n{lsp_log(home)}")
    return result


def lsp_log(home: Path) -> str:
    """Neovim's client log, which holds the server's stderr: the first thing to read when this fails."""
    logs = sorted(home.rglob("lsp.log"))
    return "\n".join(f"--- {log}\n{log.read_text()[-4000:]}" for log in logs) or "(no lsp.log)"


def test_neovim_shows_the_planted_mistake_and_clears_it_when_fixed(nvim: str, project: Path,
                                                                    tmp_path: Path) -> None:
    result = run_neovim(nvim, project, tmp_path)
    uri = (project / "problem.pddl").as_uri()

    # what the server sent for the text Neovim opened (0.7 always opens at version 0)
    opened = result["opened"]["published"]
    assert opened["uri"] == uri
    (diagnostic,) = opened["diagnostics"]
    assert diagnostic["code"] == "wrong-arity"
    # "  (:init (clear a b) ...": the predicate name `clear`, columns 10-15 of line 4
    assert diagnostic["range"] == {"start": {"line": 3, "character": 10}, "end": {"line": 3, "character": 15}}
    assert diagnostic["severity"] == 1
    assert diagnostic["source"] == "plansight"
    assert "`clear` takes 1 argument, got 2" in diagnostic["message"]

    # what the user sees: Neovim's own diagnostic store for the buffer (0-based, byte columns)
    assert result["opened"]["shown"] == [{
        "lnum": 3, "col": 10, "end_lnum": 3, "end_col": 15, "severity": 1,  # vim.diagnostic.severity.ERROR
        "code": "wrong-arity", "source": "plansight", "message": diagnostic["message"],
    }]

    # hovering `clear` shows its declaration from the domain, through Neovim's own request
    hover = result["hover"]
    assert hover["supported"] is True and hover.get("error") is None
    assert hover["result"]["contents"] == {
        "kind": "markdown", "value": "**predicate** `clear`\n\n```pddl\n(clear ?x)\n```"}
    assert hover["result"]["range"] == diagnostic["range"]  # the name `clear`

    # the fix went through Neovim's didChange, not the disk: the newer version comes back clean
    edited = result["edited"]
    assert edited["version"] > result["opened"]["version"]
    assert edited["published"]["diagnostics"] == []
    assert edited["shown"] == []
    assert (project / "problem.pddl").read_text() == PROBLEM, "the edit must stay in the unsaved buffer"

    # exactly one publication per version the client sent: nothing stale, nothing repeated
    assert [(p["uri"], p["version"]) for p in result["published"]] == [
        (uri, result["opened"]["version"]), (uri, edited["version"])]

    # and the server honoured Neovim's shutdown/exit
    assert result["server_exit"] == {"code": 0, "signal": 0}

"""Editing a large file keeps the real server's memory level, and idling gives it back.

A 1 MB problem is a model and a symbol index of about 70 MB per version. The server used to keep
the two newest versions of everything (parses, indexes, semantic tokens, line tables), and the old
published snapshot through the whole next analysis: its resident size doubled within a few edits and
never came down (docs/reliability.md, Memory). These tests run ``plansight serve`` as a separate
process and read its resident set size from ``/proc/<pid>/status``, as the user's system monitor
would, while an editor types into a generated 1 MB problem.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from raw_server import RawServer, frame, request

pytestmark = pytest.mark.lsp

EDITS = 60
EDIT_EVERY_S = 0.2
"""A typist's pace: the analyses of a 1 MB file take longer, so edits arrive while one runs and
supersede it; every tenth edit the user pauses until the diagnostics and highlighting arrive."""
IDLE_WAIT_S = 12.0
"""The server gives memory back 2 s after its last analysis (``server/memory.py``); the margin is
for a loaded machine."""


def _workloads() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "workloads.py"
    spec = importlib.util.spec_from_file_location("plansight_bench_workloads", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for process {pid}")


def _notify(server: RawServer, method: str, params: dict[str, Any]) -> None:
    server.send(frame({"jsonrpc": "2.0", "method": method, "params": params}))


def _published(server: RawServer, uri: str, version: int, timeout: float = 120.0) -> None:
    """Wait for the diagnostics of ``version`` (analyses of a 1 MB problem take seconds when loaded)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
               and m["params"].get("version") == version for m in list(server.received)):
            return
        if server.process.poll() is not None:
            raise AssertionError(f"the server died: {server.stderr.decode(errors='replace')[-2000:]}")
        time.sleep(0.05)
    raise AssertionError(f"no diagnostics for version {version} within {timeout}s")


def test_editing_a_1mb_problem_keeps_memory_level_and_idling_gives_it_back(tmp_path: Path) -> None:
    workloads = _workloads()
    (tmp_path / "domain.pddl").write_text(workloads.BLOCKSWORLD)
    text = workloads.blocksworld_problem(1_000_000)
    assert len(text) > 900_000
    problem = tmp_path / "problem.pddl"
    problem.write_text(text)
    uri = problem.as_uri()
    first_fact = text.splitlines().index("  (:init") + 1

    server = RawServer()
    try:
        server.initialize()
        pid = server.process.pid
        _notify(server, "textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "pddl", "version": 1, "text": text}})
        _published(server, uri, 1)
        server.send(frame(request("tokens-1", "textDocument/semanticTokens/full",
                                  {"textDocument": {"uri": uri}})))
        assert server.response("tokens-1", timeout=120)["result"]["data"]
        first = rss_mb(pid)

        levels = []
        for edit in range(EDITS):
            version = edit + 2
            at = {"line": first_fact, "character": 4}
            _notify(server, "textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {"start": at, "end": at}, "text": f"(clear b{edit}) "}]})
            time.sleep(EDIT_EVERY_S)
            if edit % 10 == 9:  # the user pauses: diagnostics and highlighting of this version
                server.send(frame(request(f"tokens-{version}", "textDocument/semanticTokens/full",
                                          {"textDocument": {"uri": uri}})))
                _published(server, uri, version)
                assert server.response(f"tokens-{version}", timeout=120)["result"]["data"]
            levels.append(rss_mb(pid))

        # one model and index alive between analyses, two at most while one is built
        assert max(levels) < 2 * first, (first, levels)

        deadline = time.monotonic() + IDLE_WAIT_S
        idle = rss_mb(pid)
        while time.monotonic() < deadline and idle > 1.2 * first:
            time.sleep(0.5)
            idle = rss_mb(pid)
        assert idle <= 1.2 * first, (first, max(levels), idle)
        assert server.close() == 0
    finally:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait()

"""Time from ``textDocument/didChange`` to the matching ``publishDiagnostics``, through the real server.

Starts ``plansight serve`` as a subprocess (stdio), opens a domain and a problem (timing the first
diagnostics from ``didOpen``, and from the moment the server process was started: what a user waits
for after opening the editor), then makes N small edits to the problem (each inserts one more fact
into :init, sent as an incremental change the way an editor sends them) and waits, after each edit,
for diagnostics of exactly that version. With ``--typing`` each edit is one keystroke instead, typing
facts character by character the way VS Code sends them (``keystrokes``). Reports the open time and
p50/p95/max per problem size, and the server process's CPU time (user + system, from ``/proc``) per
edit, which the machine's load moves far less than the wall clock. With ``--objects`` the keystrokes
type new object names at the start of ``:objects`` instead, each of which moves every declaration.

    python benchmarks/lsp_latency.py [--edits 50] [--typing [--no-bracket-closing] | --objects] [--tokens]
                                     [--json OUT]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workloads import BLOCKSWORLD, blocksworld_problem


class Watcher:
    """Resolves a future when diagnostics for (uri, version) arrive.

    Every edit inserts a different text, so the server cannot answer from a cached parse.
    """

    def __init__(self) -> None:
        self.waiting: dict[tuple[str, int], asyncio.Future[float]] = {}

    def expect(self, uri: str, version: int) -> asyncio.Future[float]:
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiting[(uri, version)] = future
        return future

    def arrived(self, params: lsp.PublishDiagnosticsParams) -> None:
        future = self.waiting.pop((params.uri, params.version or -1), None)
        if future is not None and not future.done():
            future.set_result(time.perf_counter())


def keystrokes(count: int) -> list[tuple[int, str]]:
    """``count`` keystrokes typing facts ``(clear bN)`` one after another before the first fact of
    `:init`, as VS Code sends them: `(` arrives with the `)` it closes, the letters go between, the typed
    `)` only steps over the closing one (no change at all), then a space. (column, text) per change."""
    changes: list[tuple[int, str]] = []
    column, n = 4, 0
    while len(changes) < count:
        changes.append((column, "()"))
        column += 1
        for letter in f"clear b{n % 50}":
            changes.append((column, letter))
            column += 1
        column += 1  # over the `)`
        changes.append((column, " "))
        column += 1
        n += 1
    return changes[:count]


def keystrokes_unclosed(count: int) -> list[tuple[int, int, str]]:
    """``count`` keystrokes typing facts ``(clear bN)`` each on a new line after ``(:init``, as an editor
    that does not close brackets sends them: Enter (the new line indented), then `(`, the letters and
    `)` one by one, so the fact is open until its last key. (line after ``(:init``'s, column, text) per
    change."""
    changes: list[tuple[int, int, str]] = [(0, len("  (:init"), "\n    ")]
    line, n = 1, 0
    while len(changes) < count:
        column = 4
        for key in f"(clear b{n % 50})":
            changes.append((line, column, key))
            column += 1
        changes.append((line, column, "\n    "))
        line, n = line + 1, n + 1
    return changes[:count]


def keystrokes_objects(count: int) -> list[tuple[int, str]]:
    """``count`` keystrokes typing new object names ``nN`` at the start of ``:objects``, before the
    first object, each followed by a space: every key moves all the declarations after it. (column,
    text) per change."""
    changes: list[tuple[int, str]] = []
    column, n = len("  (:objects "), 0
    while len(changes) < count:
        for key in f"n{n} ":
            changes.append((column, key))
            column += 1
        n += 1
    return changes[:count]


async def measure(size: int, edits: int, folder: Path, typing: bool = False,
                  closing: bool = True, objects: bool = False, tokens: bool = False) -> dict[str, float]:
    domain = folder / "domain.pddl"
    domain.write_text(BLOCKSWORLD)
    problem = folder / f"problem-{size}.pddl"
    text = blocksworld_problem(size)
    problem.write_text(text)
    client = LanguageClient("plansight-bench", "1")
    watcher = Watcher()

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
        watcher.arrived(params)

    launched = time.perf_counter()
    await client.start_io(sys.executable, "-m", "plansight", "serve")
    await client.initialize_async(
        lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), root_uri=folder.as_uri())
    )
    client.initialized(lsp.InitializedParams())
    uri = problem.as_uri()
    first = watcher.expect(uri, 1)
    opened = time.perf_counter()
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=uri, language_id="pddl", version=1, text=text)
        )
    )
    first_at = await asyncio.wait_for(first, 120)
    open_ms = (first_at - opened) * 1000
    start_ms = (first_at - launched) * 1000
    if tokens:  # as VS Code does on opening: the server then follows its index and tokens along the edits
        await asyncio.wait_for(client.text_document_semantic_tokens_full_async(
            lsp.SemanticTokensParams(text_document=lsp.TextDocumentIdentifier(uri=uri))), 120)
    server = client._server
    assert server is not None
    cpu_before = _cpu_seconds(server.pid)
    init_line = text.splitlines().index("  (:init")
    objects_line = next(n for n, line in enumerate(text.splitlines()) if line.startswith("  (:objects "))
    keys = ([(objects_line, column, key) for column, key in keystrokes_objects(edits)] if objects else
            [(init_line + after, column, key) for after, column, key in keystrokes_unclosed(edits)]
            if typing and not closing else
            [(init_line + 1, column, key) for column, key in keystrokes(edits)] if typing else
            [(init_line + 1, 4, f"(clear b{i % 50}) ") for i in range(edits)])
    latencies = []
    for i, (line, column, inserted) in enumerate(keys):
        version = i + 2
        # whole facts: a fresh fact each time, (clear bN) with a new N, inserted before the first fact;
        # typing: one keystroke each, as an editor that closes brackets sends them
        change = lsp.TextDocumentContentChangePartial(
            range=lsp.Range(lsp.Position(line=line, character=column),
                            lsp.Position(line=line, character=column)),
            text=inserted,
        )
        done = watcher.expect(uri, version)
        start = time.perf_counter()
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[change],
            )
        )
        latencies.append((await asyncio.wait_for(done, 120)) - start)
    cpu_ms = (_cpu_seconds(server.pid) - cpu_before) * 1000 / max(edits, 1)
    await client.shutdown_async(None)
    client.exit(None)
    await asyncio.sleep(0.2)
    latencies_ms = sorted(x * 1000 for x in latencies)
    return {
        "bytes": len(text.encode()),
        "start_ms": start_ms,
        "open_ms": open_ms,
        "edits": edits,
        "p50_ms": statistics.median(latencies_ms),
        "p95_ms": latencies_ms[max(0, round(0.95 * len(latencies_ms)) - 1)],
        "max_ms": latencies_ms[-1],
        "server_cpu_ms_per_edit": cpu_ms,
        "latencies_ms_in_order": [round(x * 1000, 1) for x in latencies],
    }


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def main_async(edits: int, typing: bool, closing: bool = True,
                     objects: bool = False, tokens: bool = False) -> dict[str, dict[str, float]]:
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, size in (("2 KB problem", 2_000), ("1 MB problem", 1_000_000)):
            results[label] = await measure(size, edits, Path(tmp), typing, closing, objects, tokens)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--edits", type=int, default=50)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--typing", action="store_true",
                        help="one keystroke per edit, typing facts character by character")
    parser.add_argument("--no-bracket-closing", action="store_true",
                        help="with --typing: each fact on a new line, its `(` typed alone and its `)` last, "
                             "as an editor that does not close brackets sends them")
    parser.add_argument("--objects", action="store_true",
                        help="one keystroke per edit, typing new object names at the start of :objects")
    parser.add_argument("--tokens", action="store_true",
                        help="ask for the semantic tokens once after opening, as VS Code does: the server "
                             "then keeps its symbol index and tokens up to date at every edit")
    args = parser.parse_args()
    results = asyncio.run(main_async(args.edits, args.typing, not args.no_bracket_closing, args.objects,
                                     args.tokens))
    print(f"{'workload':<16}{'bytes':>10}{'start ms':>10}{'open ms':>10}{'p50 ms':>10}{'p95 ms':>10}"
          f"{'max ms':>10}{'cpu/edit':>10}")
    for label, row in results.items():
        print(
            f"{label:<16}{row['bytes']:>10.0f}{row['start_ms']:>10.1f}{row['open_ms']:>10.1f}{row['p50_ms']:>10.1f}{row['p95_ms']:>10.1f}"
            f"{row['max_ms']:>10.1f}{row['server_cpu_ms_per_edit']:>10.1f}"
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

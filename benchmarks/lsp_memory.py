"""Resident memory of the real server while an editor types into a large problem, and after it idles.

Starts ``plansight serve`` (stdio), opens a generated problem, then makes N edits, each followed by
the diagnostics of that version and the requests an editor sends after an edit (semantic tokens,
document symbols, folding ranges, a hover), and prints the server's VmRSS from
``/proc/<pid>/status`` (Linux) every few edits and each second while idle.

    python benchmarks/lsp_memory.py [--size 1000000] [--edits 60] [--idle 20]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workloads import BLOCKSWORLD, blocksworld_problem


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


async def run(size: int, edits: int, idle: int) -> None:
    folder = Path(tempfile.mkdtemp())
    (folder / "domain.pddl").write_text(BLOCKSWORLD)
    problem = folder / "problem.pddl"
    text = blocksworld_problem(size)
    problem.write_text(text)
    client = LanguageClient("plansight-memory", "1")
    waiting: dict[int, asyncio.Future[None]] = {}

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: lsp.PublishDiagnosticsParams) -> None:
        future = waiting.pop(params.version or -1, None)
        if future is not None and not future.done():
            future.set_result(None)

    await client.start_io(sys.executable, "-m", "plansight", "serve")
    server = client._server  # pygls keeps the server process it started here
    assert server is not None
    pid = server.pid
    await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(),
                                                       root_uri=folder.as_uri()))
    client.initialized(lsp.InitializedParams())
    uri = problem.as_uri()
    doc = lsp.TextDocumentIdentifier(uri=uri)
    loop = asyncio.get_running_loop()

    async def editor_requests() -> None:
        await client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(doc))
        await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(doc))
        await client.text_document_folding_range_async(lsp.FoldingRangeParams(doc))
        await client.text_document_hover_async(lsp.HoverParams(doc, lsp.Position(5, 6)))

    waiting[1] = loop.create_future()
    opened = waiting[1]
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id="pddl", version=1, text=text)))
    await asyncio.wait_for(opened, 300)
    await editor_requests()
    print(f"after the first analysis: {rss_mb(pid):.0f} MB", flush=True)
    line = text.splitlines().index("  (:init") + 1
    for edit in range(edits):
        version = edit + 2
        done = waiting[version] = loop.create_future()
        at = lsp.Position(line, 4)
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [lsp.TextDocumentContentChangePartial(range=lsp.Range(at, at), text=f"(clear b{edit % 50}) ")]))
        await asyncio.wait_for(done, 300)
        await editor_requests()
        if (edit + 1) % 5 == 0:
            print(f"edit {edit + 1}: {rss_mb(pid):.0f} MB", flush=True)
    for second in range(1, idle + 1):
        await asyncio.sleep(1)
        if second % 5 == 0:
            print(f"idle {second} s: {rss_mb(pid):.0f} MB", flush=True)
    await client.shutdown_async(None)
    client.exit(None)
    await asyncio.sleep(0.5)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--edits", type=int, default=60)
    parser.add_argument("--idle", type=int, default=20)
    args = parser.parse_args()
    asyncio.run(run(args.size, args.edits, args.idle))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The server's own CPU time for the semantic tokens of a 1 MB problem, repeated and right after edits.

``lsp_requests.py`` times requests from the client, so its figures for a whole-document answer include
what the Python client spends reading ~700,000 integers of JSON and the pipe carrying 2 MB; an editor's
cost there is its own. This script runs the same server (``plansight serve`` over stdio), opens the
same blocksworld domain and 1 MB problem, waits for the diagnostics, and reads the server process's
CPU time (every thread's, from ``/proc/PID/task/*/schedstat``: nanoseconds, Linux only) around each
request: whole-document requests repeated on one version, then ``--edits`` edits (a fact inserted at
the start of ``:init``, each followed by its diagnostics) with a delta request, or a full one, or a
range request for the first 100 lines, after each. The server's work between the edit and the request
(the lint) is outside the window; what the request waits for (the symbol index, when the lint did not
build it yet) is inside.

    python benchmarks/semantic_tokens_server_cpu.py [--edits 5] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_client import EditedDocument, token_reading_client
from workloads import BLOCKSWORLD, blocksworld_problem


def server_cpu_ms(pid: int) -> float:
    """The CPU time of every thread of process ``pid`` so far, in ms."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):  # a thread that ended meanwhile
            continue
    return total / 1e6


async def run(edits: int, repeat: int) -> dict[str, list[tuple[float, float]]]:
    """(server CPU ms, round-trip ms) of each request, by kind."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "domain.pddl").write_text(BLOCKSWORLD)
        problem = folder / "problem.pddl"
        text = blocksworld_problem(1_000_000)
        problem.write_text(text)
        client = token_reading_client()
        document = EditedDocument(client, problem)
        await document.start(folder)
        uri = document.uri
        doc = lsp.TextDocumentIdentifier(uri=uri)
        await document.open(text)
        server = client._server
        assert server is not None
        pid = server.pid
        last_id: list[str | None] = [None]

        async def full() -> Any:
            answer = await client.text_document_semantic_tokens_full_async(lsp.SemanticTokensParams(
                text_document=doc))
            last_id[0] = answer.result_id
            return answer

        async def delta() -> Any:
            answer = await client.text_document_semantic_tokens_full_delta_async(
                lsp.SemanticTokensDeltaParams(text_document=doc, previous_result_id=last_id[0] or ""))
            last_id[0] = answer.result_id
            return answer

        async def in_range() -> Any:
            return await client.text_document_semantic_tokens_range_async(lsp.SemanticTokensRangeParams(
                text_document=doc, range=lsp.Range(start=lsp.Position(line=0, character=0),
                                                   end=lsp.Position(line=100, character=0))))

        async def timed(send: Callable[[], Awaitable[Any]]) -> tuple[float, float]:
            cpu, wall = server_cpu_ms(pid), time.perf_counter()
            await asyncio.wait_for(send(), 120)
            return server_cpu_ms(pid) - cpu, (time.perf_counter() - wall) * 1000

        rows: dict[str, list[tuple[float, float]]] = {}
        await full()
        rows["full, repeated"] = [await timed(full) for _ in range(repeat)]
        rows["delta, repeated"] = [await timed(delta) for _ in range(repeat)]
        init_line = text.count("\n", 0, text.index("(:init")) + 1
        for kind, send in (("delta", delta), ("full", full), ("range", in_range)):
            found = rows.setdefault(f"{kind}, after an edit", [])
            for _ in range(edits):
                await document.insert(lsp.Position(line=init_line, character=0), "(clear b1) ")
                await asyncio.sleep(0.3)  # the diagnostics worker's follow-up work (the index) settles
                found.append(await timed(send))
        await client.shutdown_async(None)
        client.exit(None)
        await asyncio.sleep(0.2)
        return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rows = asyncio.run(run(args.edits, args.repeat))
    print(f"{'request (1 MB problem)':<24}{'server CPU p50':>16}{'max':>8}{'round trip p50':>16}{'max':>8}")
    for name, samples in rows.items():
        cpu = [c for c, _ in samples]
        wall = [w for _, w in samples]
        print(f"{name:<24}{statistics.median(cpu):>16.1f}{max(cpu):>8.1f}"
              f"{statistics.median(wall):>16.1f}{max(wall):>8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

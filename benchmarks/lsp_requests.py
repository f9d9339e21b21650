"""Latency of every editor request of issue 5, through the real server process.

Starts ``plansight serve`` over stdio (like ``lsp_latency.py``), opens the blocksworld domain and a
generated problem of about 2 KB, then one of about 1 MB, waits for the first diagnostics (so the
figures are the steady state an editor sees between keystrokes), and sends each request type
``--repeat`` times, one at a time, timing the round trip from the client. Positions are real names:
hover and signature help on an init fact, definition/references/highlight/rename on an object,
completion right after an init fact's ``(``; range requests (inlay hints, semantic tokens range) ask for
the first 100 lines, the viewport an editor asks for. The first request of each type is reported
apart (``first ms``): it is the one that computes what the server then keeps for the version (the
symbol index, the semantic tokens, the formatting edit), i.e. the cost right after an edit. Semantic
tokens are asked for in full and as a delta (``full/delta`` naming the result id of the client's last
answer, as VS Code does after each change); range formatting asks for the line of an init fact, and
on-type formatting for Enter at its start.

Then, for each request type, ``--after-edit`` times: edit the document (append a space, with
``--edit init`` insert a fact at the start of ``:init``, with ``--edit objects`` a new object name at the
end of ``:objects``, a declaration, with ``--edit objects-start`` one at its start, which moves every
declaration after it), wait for that version's diagnostics, and time
one request of that type, the first on the new version. The
server's resident memory is read after each of those edits (``/proc``, Linux) to show that keeping
models out of the garbage collector's reach does not make memory grow with the edits.

    python benchmarks/lsp_requests.py [--repeat 30] [--after-edit 5] [--only tokens,format]
                                      [--edit end|init|objects|objects-start] [--json OUT]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_client import EditedDocument, token_reading_client
from workloads import BLOCKSWORLD, blocksworld_problem

TARGETS_MS = {"2 KB problem": 15.0, "1 MB problem": 50.0}
"""issue 17: every request within 15 ms on a 2 KB file and 50 ms on a 1 MB problem (issue 5 asked for
50 and 200 ms)"""


def _position(text: str, needle: str, shift: int = 0) -> lsp.Position:
    offset = text.index(needle) + shift
    line = text.count("\n", 0, offset)
    return lsp.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))


def _rss_mb(pid: int | None) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return None


class _ResultIds:
    """The id of the last whole-document semantic-token answer, which a delta request names (as an
    editor does: it asks for the delta against the array it holds)."""

    def __init__(self) -> None:
        self.last: str | None = None

    async def full(self, client: LanguageClient, doc: lsp.TextDocumentIdentifier) -> Any:
        answer = await client.text_document_semantic_tokens_full_async(
            lsp.SemanticTokensParams(text_document=doc))
        self.last = getattr(answer, "result_id", None)
        return answer

    async def delta(self, client: LanguageClient, doc: lsp.TextDocumentIdentifier) -> Any:
        if self.last is None:
            return await self.full(client, doc)
        answer = await client.text_document_semantic_tokens_full_delta_async(
            lsp.SemanticTokensDeltaParams(text_document=doc, previous_result_id=self.last))
        self.last = getattr(answer, "result_id", None)
        return answer


def requests(client: LanguageClient, uri: str, text: str,
             ids: _ResultIds | None = None) -> dict[str, Callable[[], Awaitable[Any]]]:
    doc = lsp.TextDocumentIdentifier(uri=uri)
    ids = ids if ids is not None else _ResultIds()
    fact = _position(text, "(on-table ", 1)  # on the predicate name
    argument = _position(text, "(on-table ", len("(on-table ") + 1)  # inside the object name
    opening = _position(text, "(on-table ", 1)
    viewport = lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=100, character=0))
    line_range = lsp.Range(start=lsp.Position(line=fact.line, character=0),
                           end=lsp.Position(line=fact.line, character=20))
    options = lsp.FormattingOptions(tab_size=2, insert_spaces=True)
    line_start = lsp.Position(line=fact.line, character=0)
    return {
        "hover": lambda: client.text_document_hover_async(lsp.HoverParams(text_document=doc, position=fact)),
        "completion": lambda: client.text_document_completion_async(
            lsp.CompletionParams(text_document=doc, position=opening)),
        "signature help": lambda: client.text_document_signature_help_async(
            lsp.SignatureHelpParams(text_document=doc, position=argument)),
        "definition": lambda: client.text_document_definition_async(
            lsp.DefinitionParams(text_document=doc, position=argument)),
        "references": lambda: client.text_document_references_async(lsp.ReferenceParams(
            text_document=doc, position=argument, context=lsp.ReferenceContext(include_declaration=True))),
        "highlight": lambda: client.text_document_document_highlight_async(
            lsp.DocumentHighlightParams(text_document=doc, position=argument)),
        "rename": lambda: client.text_document_rename_async(
            lsp.RenameParams(text_document=doc, position=argument, new_name="renamed-block")),
        "document symbols": lambda: client.text_document_document_symbol_async(
            lsp.DocumentSymbolParams(text_document=doc)),
        "workspace symbols": lambda: client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="b1")),
        "semantic tokens (full)": lambda: ids.full(client, doc),
        "semantic tokens (delta)": lambda: ids.delta(client, doc),
        "semantic tokens (range)": lambda: client.text_document_semantic_tokens_range_async(
            lsp.SemanticTokensRangeParams(text_document=doc, range=viewport)),
        "folding": lambda: client.text_document_folding_range_async(
            lsp.FoldingRangeParams(text_document=doc)),
        "formatting": lambda: client.text_document_formatting_async(
            lsp.DocumentFormattingParams(text_document=doc, options=options)),
        "range formatting": lambda: client.text_document_range_formatting_async(
            lsp.DocumentRangeFormattingParams(text_document=doc, range=line_range, options=options)),
        "on-type formatting": lambda: client.text_document_on_type_formatting_async(
            lsp.DocumentOnTypeFormattingParams(text_document=doc, position=line_start, ch="\n",
                                               options=options)),
        "code actions": lambda: client.text_document_code_action_async(lsp.CodeActionParams(
            text_document=doc, range=line_range, context=lsp.CodeActionContext(diagnostics=[]))),
        "document links": lambda: client.text_document_document_link_async(
            lsp.DocumentLinkParams(text_document=doc)),
        "inlay hints": lambda: client.text_document_inlay_hint_async(
            lsp.InlayHintParams(text_document=doc, range=viewport)),
    }


async def measure(label: str, size: int, repeat: int, cold_rounds: int, folder: Path,
                  only: tuple[str, ...] = (), edit_at: str = "end") -> dict[str, Any]:
    (folder / "domain.pddl").write_text(BLOCKSWORLD)
    problem = folder / f"problem-{size}.pddl"
    text = blocksworld_problem(size)
    problem.write_text(text)
    client = token_reading_client()
    document = EditedDocument(client, problem)
    await document.start(folder, {"plansight": {"inlayHints": {"objectTypes": True}}})
    uri = document.uri
    await document.open(text)
    rows: dict[str, Any] = {}
    ids = _ResultIds()
    chosen = {name: send for name, send in requests(client, uri, text, ids).items()
              if not only or any(part in name for part in only)}
    for name, send in chosen.items():
        start = time.perf_counter()
        try:
            await asyncio.wait_for(send(), 120)  # warm-up: lazy imports, first index build
        except Exception as error:  # a request the server does not support: say so, measure the rest
            rows[name] = {"error": f"{type(error).__name__}: {error}"}
            continue
        first = (time.perf_counter() - start) * 1000
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            await asyncio.wait_for(send(), 120)
            times.append((time.perf_counter() - start) * 1000)
        times.sort()
        rows[name] = {"first_ms": first, "p50_ms": statistics.median(times),
                      "p95_ms": times[max(0, round(0.95 * len(times)) - 1)], "max_ms": times[-1]}
    # After an edit: each request type alone, first on a new version (its diagnostics published, so
    # the parse is there, but nothing else computed for the version: the symbol index, the tokens,
    # the formatting edit are all built by this request). The edit appends a space to the last line, or
    # (--edit init) inserts a fact at the start of `:init`, which changes the tokens after it.
    last_line, last_column = text.count("\n"), len(text) - (text.rfind("\n") + 1)
    init_line = text.count("\n", 0, text.index("(:init")) + 1
    insertion = " " if edit_at == "end" else "(clear b1) "
    objects_at = text.index(")", text.index("(:objects"))
    objects_line = text.count("\n", 0, objects_at)
    objects_column = objects_at - (text.rfind("\n", 0, objects_at) + 1)
    first_object = text.index("(:objects") + len("(:objects ")
    first_object_line = text.count("\n", 0, first_object)
    first_object_column = first_object - (text.rfind("\n", 0, first_object) + 1)
    typed = 0
    server = client._server  # the subprocess: its memory is read from /proc
    pid = server.pid if server is not None else None
    rss: list[float] = []
    for name, send in chosen.items():
        if "error" in rows[name]:
            continue
        cold = []
        for _ in range(cold_rounds):
            if edit_at == "end":
                end = lsp.Position(line=last_line, character=last_column)
                last_column += 1
            elif edit_at == "objects":  # a new object typed at the end of the list, a name at a time
                typed += 1
                insertion = f" o{typed}"
                end = lsp.Position(line=objects_line, character=objects_column)
                objects_column += len(insertion)
            elif edit_at == "objects-start":  # a new object typed before the first one, a name at a time
                typed += 1
                insertion = f"s{typed} "
                end = lsp.Position(line=first_object_line, character=first_object_column)
            else:
                end = lsp.Position(line=init_line, character=0)
            await document.insert(end, insertion)
            start = time.perf_counter()
            await asyncio.wait_for(send(), 120)
            cold.append((time.perf_counter() - start) * 1000)
            memory = _rss_mb(pid)
            if memory is not None:
                rss.append(memory)
        cold.sort()
        rows[name]["after_edit_p50_ms"] = statistics.median(cold)
        rows[name]["after_edit_max_ms"] = cold[-1]
    await client.shutdown_async(None)
    client.exit(None)
    await asyncio.sleep(0.2)
    return {"bytes": len(text.encode()), "repeat": repeat, "after_edit_rounds": cold_rounds,
            "target_p95_ms": TARGETS_MS[label],
            "rss_mb_after_edits": rss,
            "requests": rows}


async def main_async(repeat: int, after_edit: int, only: tuple[str, ...] = (),
                     edit_at: str = "end") -> dict[str, Any]:
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        workloads = (("2 KB problem", 2_000, repeat), ("1 MB problem", 1_000_000, max(5, repeat // 3)))
        for label, size, count in workloads:
            results[label] = await measure(label, size, count, after_edit, Path(tmp), only, edit_at)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=30,
                        help="timed requests of each type (a third as many on the 1 MB problem)")
    parser.add_argument("--after-edit", type=int, default=5,
                        help="edits after each of which one request of each type is timed")
    parser.add_argument("--only", default="",
                        help="comma-separated parts of request names to measure (default: all)")
    parser.add_argument("--edit", choices=("end", "init", "objects", "objects-start"), default="end",
                        help="the edit before each after-edit request: a space appended at the end, a "
                             "fact inserted at the start of :init, or a new object name at the end of "
                             ":objects or at its start")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    only = tuple(part.strip() for part in args.only.split(",") if part.strip())
    results = asyncio.run(main_async(args.repeat, args.after_edit, only, args.edit))
    for label, result in results.items():
        print(f"== {label} ({result['bytes']:,} bytes, {result['repeat']} requests each; "
              f"target p95 {result['target_p95_ms']:.0f} ms)")
        print(f"{'':<36}{'repeated on one version':^40}  {'after an edit':^18}")
        print(f"{'request':<26}{'first ms':>10}{'p50 ms':>10}{'p95 ms':>10}{'max ms':>10}  target"
              f"{'p50 ms':>10}{'max ms':>10}  target")
        for name, row in result["requests"].items():
            if "error" in row:
                print(f"{name:<26}  not measured: {row['error']}")
                continue
            target = result["target_p95_ms"]
            verdict = "met" if row["p95_ms"] <= target else "MISSED"
            cold = "met" if row["after_edit_max_ms"] <= target else "MISSED"
            print(f"{name:<26}{row['first_ms']:>10.1f}{row['p50_ms']:>10.1f}{row['p95_ms']:>10.1f}"
                  f"{row['max_ms']:>10.1f}  {verdict:<6}{row['after_edit_p50_ms']:>10.1f}"
                  f"{row['after_edit_max_ms']:>10.1f}  {cold}")
        rss = result["rss_mb_after_edits"]
        if rss:
            print(f"server RSS over the {len(rss)} edits: first {rss[0]:.0f} MB, max {max(rss):.0f} MB, "
                  f"last {rss[-1]:.0f} MB")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

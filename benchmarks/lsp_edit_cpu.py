"""CPU time the server's worker spends on one edit of the 1 MB problem of ``lsp_latency.py``, in process.

Wall-clock figures through the real server (``lsp_latency.py``, ``lsp_requests.py``) move by a factor of
two with the load of this shared machine; the CPU time of the worker thread does not. This runs the
server's own analysis path (``server/analysis.py`` ``analyse``, with the server's caches, the garbage
collector paused as the server pauses it) and then builds the version's symbol index the way the
diagnostics worker warms it (``warm_version``), for several kinds of edit, each repeated with a
different text, and reports the median ``time.thread_time`` of each step (and the analysis's largest:
typing a fact costs most at its first keystroke). The same script runs
against an older checkout (``PYTHONPATH``) for a before / after comparison.

    python benchmarks/lsp_edit_cpu.py [--edits 10] [--json OUT]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workloads import BLOCKSWORLD, blocksworld_problem

from plansight.analyses.workspace.sources import DiskSource
from plansight.server.analysis import AnalysisRequest, analyse
from plansight.server.caches import ServerCaches
from plansight.server.diagnostics_feature import warm_version
from plansight.server.documents import OverlaySource
from plansight.server.settings import Settings


def edits(text: str) -> dict[str, Callable[[str, int], str]]:
    """Edit kinds: where an editor's keystroke lands in a large problem."""
    init = text.index("(:init") + len("(:init")
    goal = text.rindex("))")

    def fact_at_start(current: str, i: int) -> str:
        return current[:init] + f" (clear b{i})" + current[init:]

    middle = text.index("(", (init + text.index("(:goal")) // 2)
    goal_start = text.index("(and", text.index("(:goal")) + len("(and")

    def fact_in_middle(current: str, i: int) -> str:
        return current[:middle] + f"(clear b{i}) " + current[middle:]

    def goal_at_start(current: str, i: int) -> str:
        return current[:goal_start] + f" (on b{i} b{i + 1})" + current[goal_start:]

    def goal_at_end(current: str, i: int) -> str:
        at = current.rindex("))")
        return current[:at] + f" (on b{i} b{i + 1})" + current[at:]

    open_at = middle + len("(clear b")

    def fact_left_open(current: str, i: int) -> str:
        # a fact typed without its `)` (an editor that does not close brackets): the first edit opens it,
        # the next ones type digits into it, so every version has one `)` missing
        if i == 0:
            return current[:middle] + "(clear b" + current[middle:]
        return current[:open_at] + str(i % 10) + current[open_at:]

    new_line = text.index("\n", middle) + 1  # the start of a line in the middle of `:init`
    open_on_its_line = new_line + len("    (clear b")

    def fact_left_open_on_its_line(current: str, i: int) -> str:
        # the same, typed on a new line of its own (where a new fact usually goes): the next fact's line
        # tells the repair where the `)` belongs
        if i == 0:
            return current[:new_line] + "    (clear b\n" + current[new_line:]
        return current[:open_on_its_line] + str(i % 10) + current[open_on_its_line:]

    def bracket_closed(where: int, typed: str) -> Callable[[str, int], str]:
        def edit(current: str, i: int) -> str:
            # typed in an editor that closes brackets: `()` first, then the letters inside it
            if i == 0:
                return current[:where] + "()" + current[where:]
            at = where + i  # after the `(` and the i - 1 letters typed so far
            return current[:at] + (typed[i - 1] if i <= len(typed) else str(i % 10)) + current[at:]
        return edit

    first_goal = text.index("(", goal_start)
    first_object = text.index("(:objects") + len("(:objects ")

    def object_at_start(current: str, i: int) -> str:
        # new objects' names typed before the first one, a key at a time (`n0 n1 ...`): every key moves all
        # the declarations after it
        keys = "".join(f"n{n} " for n in range(i + 1))
        return current[:first_object + i] + keys[i] + current[first_object + i:]

    assert goal > init
    return {"a fact inserted at the start of `:init`": fact_at_start,
            "a letter typed into a fact left open": fact_left_open,
            "… the fact on a line of its own": fact_left_open_on_its_line,
            "a fact typed into the `()` the editor closed": bracket_closed(middle, "clear b"),
            "a goal atom typed into the `()` the editor closed": bracket_closed(first_goal, "on b"),
            "a fact inserted in the middle of `:init`": fact_in_middle,
            "a goal atom inserted at the start of `:goal`": goal_at_start,
            "a goal atom inserted at the end of `:goal`": goal_at_end,
            "a space appended after the last `)`": lambda current, i: current + " ",
            "an object typed at the start of `:objects`": object_at_start}


def request(folder: Path, path: Path, text: str, version: int) -> AnalysisRequest:
    source = OverlaySource({str(path): text}, DiskSource())
    return AnalysisRequest(uri=path.as_uri(), path=str(path), version=version, text=text, source=source,
                           settings=Settings(), encoding="utf-16", workspace_root=str(folder))


def timed(work: Callable[[], object]) -> float:
    started = time.thread_time()
    work()
    return (time.thread_time() - started) * 1000


def measure(count: int) -> dict[str, dict[str, float]]:
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "domain.pddl").write_text(BLOCKSWORLD)
        base = blocksworld_problem(1_000_000)
        path = folder / "problem.pddl"
        path.write_text(base)
        for label, edit in edits(base).items():
            caches = ServerCaches()
            text, version = base, 1
            first = request(folder, path, text, version)
            opened = timed(lambda first=first, caches=caches: analyse(first, caches))  # type: ignore[misc]
            warm_version(first, caches)
            analysis, index = [], []
            for i in range(count):
                text, version = edit(text, i), version + 1
                caches.retire(str(path), text)  # what the server does when the edit arrives
                current = request(folder, path, text, version)
                analysis.append(timed(lambda c=current, caches=caches: analyse(c, caches)))  # type: ignore[misc]
                index.append(timed(lambda c=current, caches=caches: warm_version(c, caches)))  # type: ignore[misc]
            results[label] = {"open_ms": opened, "analysis_ms": statistics.median(analysis),
                              "analysis_max_ms": max(analysis), "index_ms": statistics.median(index)}
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    gc.disable()  # as the server's worker runs (server/memory.py)
    results = measure(args.edits)
    print(f"{'edit':<48}{'open ms':>10}{'analysis ms':>13}{'(max)':>8}{'index ms':>10}")
    for label, row in results.items():
        print(f"{label:<48}{row['open_ms']:>10.1f}{row['analysis_ms']:>13.1f}{row['analysis_max_ms']:>8.1f}"
              f"{row['index_ms']:>10.1f}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

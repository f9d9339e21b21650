"""CPU time of the incremental re-parse of one edit of the 1 MB problem, and of the first read after it.

In process, as the server's worker does it: ``time.thread_time`` with the garbage collector paused.
Each edit is made to the freshly parsed file (so every sample does the same work) at the start,
middle or end of ``:init``, the goal's ``and`` and ``:objects``, or in the ``(:domain ...)`` line,
which moves every section after it. "parse" is ``reparse_document(..., lazy=True)`` alone; "first
read" is the first read of the problem's ``init``, ``goal`` and ``objects`` afterwards (the nodes
after an edit are moved lazily, ``analyses/syntax/runs.py``, and that read is where they are copied;
without ``lazy``, the parse makes that copy itself before it returns, as the server asks today).

    python benchmarks/incremental_parse.py [--repeat 7] [--json OUT]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workloads import blocksworld_problem

from plansight.analyses.syntax.documents import ParsedDocument, parse_document, reparse_document


def places(text: str) -> dict[str, tuple[int, str]]:
    """Where each edit goes in the generated problem, and what it inserts ({i}: the sample number)."""
    init = text.index("(:init") + len("(:init") + 3
    goal = text.index("(and", text.index("(:goal")) + 4
    middle = text.index("(", (init + goal) // 2 - 3000)
    goal_end = text.rindex(")", 0, text.rindex(")", 0, text.rindex(")")))
    objects = text.index("(:objects") + len("(:objects") + 1
    return {
        "fact at the start of :init": (init, "(clear b{i}) "),
        "fact in the middle of :init": (middle, "(clear b{i}) "),
        "goal atom at the start": (goal + 1, "(clear b{i}) "),
        "goal atom at the end": (goal_end, " (clear b{i})"),
        "object at the start of :objects": (objects, " zz{i} "),
        "a character in (:domain ...)": (text.index("blocksworld"), "x"),
    }


def read(parsed: ParsedDocument) -> None:
    """What the checks read first."""
    problem = parsed.problem
    if problem is not None:
        _ = (problem.init, problem.goal, problem.objects)


def measure(repeat: int) -> dict[str, dict[str, float]]:
    """Median and minimum CPU milliseconds per edit place, for the parse and for the first read."""
    text = blocksworld_problem(1_000_000)
    base = parse_document("problem.pddl", text)
    results: dict[str, dict[str, float]] = {}
    for label, (at, inserted) in places(text).items():
        parses, reads = [], []
        for i in range(repeat):
            new_text = text[:at] + inserted.format(i=i) + text[at:]
            started = time.thread_time()
            parsed = reparse_document(base, "problem.pddl", new_text, lazy=True)
            parses.append(time.thread_time() - started)
            if parsed.derived is None:
                raise SystemExit(f"{label}: parsed in full, not incrementally")
            started = time.thread_time()
            read(parsed)
            reads.append(time.thread_time() - started)
            del parsed  # freed outside the timed stretches
        results[label] = {"parse_median_ms": statistics.median(parses) * 1000,
                          "parse_min_ms": min(parses) * 1000,
                          "read_median_ms": statistics.median(reads) * 1000}
    started = time.thread_time()
    parse_document("problem.pddl", text)
    results["full parse"] = {"parse_median_ms": (time.thread_time() - started) * 1000}
    return results


def main() -> int:
    """Print the table (and write JSON when asked)."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    gc.disable()
    results = measure(args.repeat)
    print(f"{'edit':<34}{'parse ms':>10}{'min ms':>10}{'first read ms':>15}")
    for label, row in results.items():
        print(f"{label:<34}{row['parse_median_ms']:>10.2f}{row.get('parse_min_ms', 0):>10.2f}"
              f"{row.get('read_median_ms', 0):>15.1f}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Parse + lint throughput of plansight against the peer PDDL readers, in one run, on the same files.

Peers: tarski's PDDLReader, unified-planning's PDDLReader and the `pddl` package's parser. Each tool
reads each domain+problem pair; a pair counts for the comparison only if every tool accepts it, so
all tools are timed on exactly the same bytes. plansight's time includes its full lint (all semantic
checks), the peers' only their parse.

    python benchmarks/parse_throughput.py [--repeat N] [--clock cpu|wall] [--json OUT]

Times are CPU time of this process by default (``--clock cpu``): every reader runs in this one process,
single-threaded, so CPU time is what each tool costs, and it stays comparable when the machine is busy
with other work; ``--clock wall`` gives the elapsed time, right only on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workloads import Pair, corpus_pairs, generated_pairs

Reader = Callable[[Pair], object]


def plansight_reader() -> Reader:
    from plansight.analyses.checks.domain import check_domain
    from plansight.analyses.checks.problem import check_problem
    from plansight.analyses.syntax.parse_pddl import parse_pddl
    from plansight.batch_gc import collector_off

    def read(pair: Pair) -> object:
        with collector_off():  # as `plansight lint` runs it: the collector is the entry point's choice
            domain = parse_pddl(pair.domain.read_text(encoding="utf-8")).model
            problem = parse_pddl(pair.problem.read_text(encoding="utf-8")).model
            if domain is None or problem is None:
                raise ValueError("plansight could not build a model")
            check_domain(domain)  # type: ignore[arg-type]
            return check_problem(problem, domain)  # type: ignore[arg-type]

    return read


def tarski_reader() -> Reader:
    from tarski.io import PDDLReader

    def read(pair: Pair) -> object:
        reader = PDDLReader(raise_on_error=True, strict_with_requirements=False)
        reader.parse_domain(str(pair.domain))
        return reader.parse_instance(str(pair.problem))

    return read


def unified_planning_reader() -> Reader:
    from unified_planning.io import PDDLReader

    def read(pair: Pair) -> object:
        return PDDLReader().parse_problem(str(pair.domain), str(pair.problem))

    return read


def pddl_package_reader() -> Reader:
    import pddl

    def read(pair: Pair) -> object:
        pddl.parse_domain(str(pair.domain))
        return pddl.parse_problem(str(pair.problem))

    return read


TOOLS: dict[str, Callable[[], Reader]] = {
    "plansight": plansight_reader,
    "tarski": tarski_reader,
    "unified-planning": unified_planning_reader,
    "pddl": pddl_package_reader,
}


def accepted_by_all(pairs: list[Pair], readers: dict[str, Reader]) -> tuple[list[Pair], dict[str, int]]:
    rejected = dict.fromkeys(readers, 0)
    kept = []
    for pair in pairs:
        ok = True
        for name, read in readers.items():
            try:
                read(pair)
            except Exception:
                rejected[name] += 1
                ok = False
        if ok:
            kept.append(pair)
    return kept, rejected


def time_tool(read: Reader, pairs: list[Pair], repeat: int, clock: Callable[[], float]) -> float:
    """Best-of-``repeat`` total seconds to read every pair once."""
    totals = []
    for _ in range(repeat):
        start = clock()
        for pair in pairs:
            read(pair)
        totals.append(clock() - start)
    return min(totals)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    logging.disable(logging.WARNING)
    readers = {name: make() for name, make in TOOLS.items()}
    results: dict[str, object] = {}
    for workload, pairs in (
        ("corpus", corpus_pairs()),
        ("generated blocksworld 10 KB / 100 KB", generated_pairs((10_000, 100_000))),
    ):
        kept, rejected = accepted_by_all(pairs, readers)
        size = sum(p.size for p in kept)
        rows = {}
        for name, read in readers.items():
            seconds = time_tool(read, kept, args.repeat, clock)
            rows[name] = {
                "seconds": seconds,
                "files_per_s": 2 * len(kept) / seconds,
                "mb_per_s": size / 1e6 / seconds,
            }
        base = rows["plansight"]["seconds"]
        for name in rows:
            rows[name]["plansight_speedup"] = rows[name]["seconds"] / base
        results[workload] = {
            "clock": args.clock,
            "pairs": len(kept),
            "pairs_total": len(pairs),
            "rejected_by": rejected,
            "bytes": size,
            "tools": rows,
        }
        print(
            f"\n{workload}: {len(kept)} of {len(pairs)} domain+problem pairs accepted by every tool, "
            f"{size / 1e3:.0f} KB (rejected by: {rejected})"
        )
        print(f"{'tool':<18}{'files/s':>10}{'MB/s':>10}{args.clock + ' (s)':>11}{'plansight is':>16}")
        for name, row in rows.items():
            speed = "-" if name == "plansight" else f"{row['plansight_speedup']:.1f}x faster"
            print(
                f"{name:<18}{row['files_per_s']:>10.1f}{row['mb_per_s']:>10.3f}{row['seconds']:>11.3f}{speed:>16}"
            )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

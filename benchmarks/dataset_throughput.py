"""Rows per second of `plansight grade` over a Planetarium-layout table, with 1 and 2 workers, on the
local process pool and on a Dask ``LocalCluster``.

    python benchmarks/dataset_throughput.py [--rows N] [--repeat N] [--json OUT]

The table is generated (fixed seed): blocksworld problems of 25 to 40 blocks in Planetarium's columns,
each with a model answer that is the reference renamed (equivalent), its goal changed (not equivalent)
or cut short (unparseable). Each configuration runs the whole command in a fresh process, so the
times include start-up (and the cluster's start-up for Dask): what a user waits for. The best of
``--repeat`` runs is kept, since other processes on a shared machine only ever make a run slower.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONFIGURATIONS = [("local", 1), ("local", 2), ("dask", 1), ("dask", 2)]


def _problem(name: str, blocks: list[str], goal: list[tuple[str, str]]) -> str:
    init = ["(arm-empty)"] + [f"(on-table {b})" for b in blocks] + [f"(clear {b})" for b in blocks]
    atoms = " ".join(f"(on {top} {below})" for top, below in goal)
    return (f"(define (problem {name}) (:domain blocksworld) (:objects {' '.join(blocks)})\n"
            f" (:init {' '.join(init)})\n (:goal (and {atoms})))")


def table(rows: int, seed: int = 7) -> list[dict[str, object]]:
    """Planetarium-layout rows: reference, answer, domain, styles."""
    chooser = random.Random(seed)
    out: list[dict[str, object]] = []
    for index in range(rows):
        size = chooser.randint(25, 40)
        blocks = [f"b{i}" for i in range(1, size + 1)]
        order = blocks[:]
        chooser.shuffle(order)
        goal = list(itertools.pairwise(order))[: size // 2]
        reference = _problem(f"tower_{index}", blocks, goal)
        kind = index % 3
        if kind == 0:
            renamed = {b: f"x{i}" for i, b in enumerate(reversed(blocks))}
            answer = _problem("p", [renamed[b] for b in blocks], [(renamed[a], renamed[b]) for a, b in goal])
        elif kind == 1:
            answer = _problem("p", blocks, [*goal[:-1], (goal[-1][1], goal[-1][0])])
        else:
            answer = reference[: len(reference) // 2]
        out.append({"id": index, "name": f"tower_{index}", "domain": "blocksworld", "problem_pddl": reference,
                    "natural_language": "", "init_is_abstract": 0, "goal_is_abstract": index % 2,
                    "is_placeholder": 0, "num_objects": size, "model_name": "generated", "output": answer})
    return out


def measure(path: Path, executor: str, workers: int, folder: Path) -> float:
    """Wall-clock seconds of one whole `plansight grade` run."""
    output = folder / f"out-{executor}-{workers}.jsonl"
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "plansight", "grade", str(path), "--preset", "planetarium",
                    "--output", str(output), "--executor", executor, "--jobs", str(workers),
                    "--no-progress"], check=False, capture_output=True)
    elapsed = time.perf_counter() - start
    assert len(output.read_text().splitlines()) == len(path.read_text().splitlines()), "rows lost"
    return elapsed


def main() -> None:
    """Print rows/s per configuration (and write them as JSON with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=600)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        path = folder / "planetarium.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in table(args.rows)))
        results = []
        for executor, workers in CONFIGURATIONS:
            seconds = min(measure(path, executor, workers, folder) for _ in range(max(1, args.repeat)))
            results.append({"executor": executor, "workers": workers, "seconds": round(seconds, 2),
                            "rows_per_second": round(args.rows / seconds, 1)})
            print(f"{executor:<6} {workers} worker(s): {seconds:7.2f} s  {args.rows / seconds:7.1f} rows/s")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()

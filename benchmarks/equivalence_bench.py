"""Equivalence speed: time per pair by size, the growth curve, networkx vs rustworkx VF2, and the
throughput of `plansight grade` on 1,000 generated submissions with 1 and 2 processes.

python benchmarks/equivalence_bench.py [--json OUT] [--quick]

Pairs are generated with a fixed seed: a random state of n blocks (or a gripper world of n objects)
as the initial state, another as the goal; the candidate renames every object, writes the goal
differently (blocksworld: without the `clear` / `arm-empty` facts fullySpecify restores; gripper:
only the balls' places), and every other pair drops a goal atom so half are not equivalent. Each
pair prepares its reference from scratch, as the paper's "per pair" does. Wall time on this shared
2-core machine includes other processes' time slices, so the CPU time of the thread is reported too.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from equivalence_generators import Spec, blocks_state, gripper_state, load_domain  # noqa: E402

from plansight.analyses.equivalence.scene_graph import BACKENDS, ground_task, problem_graph  # noqa: E402
from plansight.analyses.equivalence.verdict import Reference, compare  # noqa: E402
from plansight.batch_gc import collector_off  # noqa: E402

SIZES = (5, 10, 20, 40, 80)


def blocks_pair(rng: random.Random, n: int, equivalent: bool) -> tuple[Spec, Spec]:
    blocks = [f"b{i}" for i in range(n)]
    init, goal = blocks_state(rng, blocks), blocks_state(rng, blocks)
    reference = Spec("blocksworld", {b: "" for b in blocks}, frozenset(init), tuple(sorted(goal)))
    written = sorted(f for f in goal if f[0] != "clear" and f != ("arm-empty",))
    if not equivalent:
        written.pop(rng.randrange(len(written)))
    return reference, _renamed(rng, Spec("blocksworld", reference.objects, reference.init, tuple(written)))


def gripper_pair(rng: random.Random, n: int, equivalent: bool) -> tuple[Spec, Spec]:
    rooms = [f"room{i}" for i in range(max(2, n // 5))]
    grippers = ["left", "right"]
    balls = [f"ball{i}" for i in range(n - len(rooms) - len(grippers))]
    objects = {o: "" for o in (*rooms, *balls, *grippers)}
    init, goal = (gripper_state(rng, rooms, balls, grippers, typed=False) for _ in range(2))
    reference = Spec(
        "gripper", objects, frozenset(init), tuple(sorted(f for f in goal if f[0] in ("at", "carry")))
    )
    written = sorted(f for f in goal if f[0] in ("at", "carry", "free"))
    if not equivalent:
        written.pop(rng.randrange(len(written)))
    return reference, _renamed(rng, Spec("gripper", objects, reference.init, tuple(written)))


def _renamed(rng: random.Random, spec: Spec) -> Spec:
    names = list(spec.objects)
    fresh = [f"x{i}" for i in range(len(names))]
    rng.shuffle(fresh)
    return spec.renamed(dict(zip(names, fresh, strict=True)))


PAIRS: dict[str, Callable[[random.Random, int, bool], tuple[Spec, Spec]]] = {
    "blocksworld": blocks_pair,
    "gripper": gripper_pair,
}


def per_pair(kind: str, n: int, count: int) -> dict[str, Any]:
    rng = random.Random(f"{kind}-{n}")
    domain = load_domain(kind)
    pairs = [PAIRS[kind](rng, n, i % 2 == 0) for i in range(count)]
    problems = [(r.problem(), c.problem()) for r, c in pairs]
    wall, cpu, answers = [], [], []
    for reference, candidate in problems:
        start_wall, start_cpu = time.perf_counter(), time.thread_time()
        with collector_off():  # as `plansight equiv` and the server's workers run it
            verdict = compare(Reference(domain, reference), candidate)
        cpu.append(time.thread_time() - start_cpu)
        wall.append(time.perf_counter() - start_wall)
        answers.append(verdict.equivalent)
    return {
        "kind": kind,
        "objects": n,
        "pairs": count,
        "median_ms": 1000 * statistics.median(wall),
        "median_cpu_ms": 1000 * statistics.median(cpu),
        "p90_ms": 1000 * _quantile(wall, 0.9),
        "equivalent": sum(a is True for a in answers),
    }


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def backends(kind: str, n: int, count: int) -> dict[str, Any]:
    """VF2 alone on the problem graphs (init + completed goal) of equivalent pairs."""
    from plansight.analyses.equivalence.verdict import _complete

    rng = random.Random(f"vf2-{kind}-{n}")
    domain = load_domain(kind)
    graphs = []
    for _ in range(count):
        reference, candidate = PAIRS[kind](rng, n, True)
        sides = []
        for spec in (reference, candidate):
            problem = spec.problem()
            task = ground_task(problem, domain)
            closure = _complete(domain, problem, task, None).closure
            assert closure is not None
            sides.append(problem_graph(task, closure))
        graphs.append(sides)
    result: dict[str, Any] = {"kind": kind, "objects": n, "pairs": count}
    for name, backend in BACKENDS.items():
        times = []
        for left, right in graphs:
            a, b = backend.build(left), backend.build(right)
            start = time.thread_time()
            assert backend.isomorphic(a, b)
            times.append(time.thread_time() - start)
        result[f"{name}_ms"] = 1000 * statistics.median(times)
    result["speedup"] = result["networkx_ms"] / max(result["rustworkx_ms"], 1e-9)
    return result


def grade_throughput(submissions: int, jobs: tuple[int, ...]) -> list[dict[str, Any]]:
    folder = Path(tempfile.mkdtemp(prefix="plansight-grade-"))
    try:
        rng = random.Random("grade")
        shutil.copy(ROOT / "examples" / "grading" / "domain.pddl", folder / "domain.pddl")
        reference, _ = blocks_pair(rng, 12, True)
        (folder / "reference.pddl").write_text(reference.text("reference"))
        students = folder / "submissions"
        students.mkdir()
        for i in range(submissions):
            _, candidate = blocks_pair(random.Random(i), 12, i % 2 == 0)
            same_init = Spec("blocksworld", reference.objects, reference.init, reference.goal)
            if i % 3 == 0:  # a third rename the reference itself: equivalent through the easy case
                candidate = _renamed(rng, same_init)
            elif i % 3 == 1:
                goal = list(reference.goal)
                goal.pop(rng.randrange(len(goal)))
                candidate = _renamed(rng, Spec("blocksworld", reference.objects, reference.init, tuple(goal)))
            (students / f"student{i:04}.pddl").write_text(candidate.text(f"s{i}"))
        rows = []
        for count in jobs:
            start = time.perf_counter()
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "plansight",
                    "grade",
                    str(students),
                    "--reference",
                    str(folder / "reference.pddl"),
                    "--jobs",
                    str(count),
                    "--format",
                    "json",
                ],
                capture_output=True,
                text=True,
            )
            seconds = time.perf_counter() - start
            summary = json.loads(done.stdout)["summary"]
            rows.append(
                {
                    "jobs": count,
                    "submissions": submissions,
                    "seconds": seconds,
                    "per_second": submissions / seconds,
                    "summary": summary,
                }
            )
        return rows
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="OUT", help="also write the results as JSON")
    parser.add_argument("--quick", action="store_true", help="fewer pairs and submissions (a smoke run)")
    args = parser.parse_args()
    count = 10 if args.quick else 60
    results: dict[str, Any] = {"per_pair": [], "backends": [], "grade": []}
    print("time per pair (reference prepared from scratch each time)")
    for kind in PAIRS:
        previous = None
        for n in SIZES:
            row = per_pair(kind, n, count)
            growth = f"x{row['median_ms'] / previous:.1f}" if previous else ""
            previous = row["median_ms"]
            results["per_pair"].append(row)
            print(
                f"  {kind:<12} {n:>3} objects: median {row['median_ms']:6.2f} ms "
                f"(CPU {row['median_cpu_ms']:6.2f} ms) p90 {row['p90_ms']:6.2f} ms {growth:>6}  "
                f"{row['equivalent']}/{row['pairs']} equivalent",
                flush=True,
            )
    print("VF2 on the problem graphs (CPU time, median)")
    for kind in PAIRS:
        for n in SIZES:
            row = backends(kind, n, 3 if n >= 40 or args.quick else 10)
            results["backends"].append(row)
            print(
                f"  {kind:<12} {n:>3} objects: networkx {row['networkx_ms']:8.2f} ms, rustworkx "
                f"{row['rustworkx_ms']:6.3f} ms ({row['speedup']:.0f}x)"
            )
    print("plansight grade (wall time, including start-up)")
    for row in grade_throughput(100 if args.quick else 1000, (1, 2)):
        results["grade"].append(row)
        print(
            f"  --jobs {row['jobs']}: {row['submissions']} submissions in {row['seconds']:.1f} s "
            f"= {row['per_second']:.0f}/s  {row['summary']}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Validating 1,000 plans of a numeric and of a temporal domain: one `plansight plan` call against VAL's
`Validate` run once per plan, in the same run, on the same files; and whether their verdicts agree.

The workloads are generated: the numeric one is the fuel-delivery domain of
``tests/fixtures/beyond_classical/planned/numeric`` over a chain of cities (a truck drives to the end,
refuelling at depots and delivering everywhere, 60 steps), the temporal one the kitchen domain of
``tests/fixtures/beyond_classical/planned/temporal`` with 20 pots (41 durative steps and a timed initial
literal). Each plan set is the valid plan and its mutations (``tests/plan_mutations.py``: dropped,
swapped, duplicated steps, wrong arguments, shifted times, shrunk durations, ...) up to 1,000 files, so
both tools meet the valid and the broken plans users write.

plansight's time is the whole process (start-up, reading 1,000 plans, simulating, the JSON report); VAL's is
the sum of its 1,000 processes. Wall and CPU time (user + system, ``os.wait4``) are per process.
The verdict agreement counts plans where both say valid or both invalid; plansight's ``null`` (it did not
simulate: the construct is not supported yet) and VAL's crashes are counted apart, so a re-run after the
simulators of numeric and temporal plans land shows the agreement directly.

    python benchmarks/beyond_classical_throughput.py [--plans N] [--json OUT]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from workloads import ROOT, WORK  # noqa: E402

sys.path.insert(0, str(ROOT / "tests"))
from plan_mutations import mutations  # noqa: E402
from val_oracle import parse_val_output, validate_binary  # noqa: E402

PLANNED = ROOT / "tests" / "fixtures" / "beyond_classical" / "planned"


@dataclass(frozen=True)
class Workload:
    """A domain, a problem, the valid plan and what its mutations may use."""

    label: str
    domain: str
    problem: str
    plan: str
    objects: tuple[str, ...]
    til_times: tuple[float, ...] = ()


def numeric(cities: int = 21) -> Workload:
    """A truck driving down a chain of cities, refuelling at every other one and delivering everywhere."""
    names = [f"c{i}" for i in range(cities)]
    roads = " ".join(f"(road {a} {b}) (road {b} {a})" for a, b in itertools.pairwise(names))
    distances = " ".join(f"(= (distance {a} {b}) {4 + i % 3}) (= (distance {b} {a}) {4 + i % 3})"
                         for i, (a, b) in enumerate(itertools.pairwise(names)))
    depots = " ".join(f"(depot {c})" for c in names[::2])
    goal = " ".join(f"(delivered {c})" for c in names)
    problem = ("(define (problem chain) (:domain fuel-delivery)\n"
               f"(:objects t1 - truck {' '.join(names)} - city)\n"
               f"(:init (at t1 c0) {depots} {roads} {distances} (= (fuel t1) 12) (= (capacity t1) 12)"
               " (= (total-cost) 0))\n"
               f"(:goal (and {goal}))\n(:metric minimize (total-cost)))\n")
    steps = []
    for i, city in enumerate(names):
        steps.append(f"(deliver t1 {city})")
        if i + 1 < len(names):
            if i % 2 == 0 and i:
                steps.append(f"(refuel t1 {city})")
            steps.append(f"(drive t1 {city} {names[i + 1]})")
    domain = (PLANNED / "numeric" / "domain.pddl").read_text()
    return Workload("numeric (fuel-delivery, 21 cities)", domain, problem, "\n".join(steps) + "\n",
                    ("t1", *names))


def temporal(pots: int = 20) -> Workload:
    """A stove lit once, every pot filled in daylight and heated while the stove burns."""
    names = [f"p{i}" for i in range(pots)]
    problem = (f"(define (problem many) (:domain kitchen) (:objects {' '.join(names)} - pot)\n"
               "(:init (daylight) (at 10 (not (daylight))))\n"
               f"(:goal (and {' '.join(f'(hot {p})' for p in names)}))\n(:metric minimize (total-time)))\n")
    lines = ["0.000: (light) [1.000]"]
    lines += [f"0.000: (fill {p}) [2.000]" for p in names]
    lines += [f"2.010: (heat {p}) [3.000]" for p in names]
    domain = (PLANNED / "temporal" / "domain.pddl").read_text()
    return Workload("temporal (kitchen, 20 pots, a TIL)", domain, problem, "\n".join(lines) + "\n",
                    tuple(names), (10.0,))


def plan_set(workload: Workload, count: int) -> list[str]:
    """The valid plan, then its mutations over successive seeds, ``count`` plans in all."""
    out = [workload.plan]
    seed = 0
    while len(out) < count:
        out += [m.text for m in mutations(workload.plan, workload.objects, workload.til_times, seed=seed)]
        seed += 1
    return out[:count]


@dataclass(frozen=True)
class Timed:
    """Wall and CPU seconds of one or many processes."""

    wall_s: float
    cpu_s: float


def run_process(argv: list[str], out: Path | None = None) -> tuple[Timed, str, int]:
    """Run one process to the end; its standard output (unless written to ``out``) and exit code are
    returned with its times."""
    start = time.perf_counter()
    sink = out.open("w") if out is not None else subprocess.PIPE
    try:
        process = subprocess.Popen(argv, stdout=sink, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
        text = process.stdout.read() if process.stdout is not None else ""
        _, status, usage = os.wait4(process.pid, 0)
    finally:
        if out is not None:
            sink.close()  # type: ignore[union-attr]
    timed = Timed(time.perf_counter() - start, usage.ru_utime + usage.ru_stime)
    return timed, text, os.waitstatus_to_exitcode(status)


def bench(workload: Workload, count: int) -> dict[str, object]:
    """Write the plan set, run plansight once and VAL once per plan, and compare their verdicts."""
    folder = WORK / "beyond_classical" / workload.label.split()[0]
    shutil.rmtree(folder, ignore_errors=True)
    plans = folder / "plans"
    plans.mkdir(parents=True)
    (folder / "domain.pddl").write_text(workload.domain)
    (folder / "problem.pddl").write_text(workload.problem)
    files = []
    for index, text in enumerate(plan_set(workload, count)):
        path = plans / f"plan{index:04d}.plan"
        path.write_text(text)
        files.append(path)
    domain, problem = folder / "domain.pddl", folder / "problem.pddl"

    report = folder / "plansight.json"
    plansight_time, _, _ = run_process([sys.executable, "-m", "plansight", "plan", str(plans), "--domain",
                                     str(domain), "--problem", str(problem), "--format", "json",
                                     "--no-progress"], report)
    ours = {Path(entry["path"]).name: entry for entry in json.loads(report.read_text())}

    val_wall = val_cpu = 0.0
    theirs = {}
    for path in files:
        command = [str(validate_binary()), "-v", str(domain), str(problem), str(path)]
        timed, output, code = run_process(command)
        val_wall += timed.wall_s
        val_cpu += timed.cpu_s
        theirs[path.name] = parse_val_output(output, code)

    agreement: Counter[str] = Counter()
    for path in files:
        mine, val = ours.get(path.name, {}).get("valid"), theirs[path.name]
        if val.verdict is None:
            agreement[f"VAL {val.status}"] += 1
        elif mine is None:
            agreement["plansight null"] += 1
        else:
            agreement["same verdict" if mine == val.verdict else "different verdict"] += 1
    val_valid = sum(1 for v in theirs.values() if v.status == "valid")
    return {
        "workload": workload.label, "plans": len(files), "valid_for_val": val_valid,
        "plansight": {"wall_s": round(plansight_time.wall_s, 3), "cpu_s": round(plansight_time.cpu_s, 3)},
        "val": {"wall_s": round(val_wall, 3), "cpu_s": round(val_cpu, 3)},
        "speedup_wall": round(val_wall / plansight_time.wall_s, 2),
        "agreement": dict(agreement),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--plans", type=int, default=1000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    results = [bench(workload, args.plans) for workload in (numeric(), temporal())]
    for result in results:
        print(f"{result['workload']}: {result['plans']} plans ({result['valid_for_val']} valid for VAL)")
        print(f"  plansight plan, one call: {result['plansight']}")
        print(f"  VAL Validate, once per plan: {result['val']}")
        print(f"  plansight is {result['speedup_wall']}x faster (wall); verdicts: {result['agreement']}")
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

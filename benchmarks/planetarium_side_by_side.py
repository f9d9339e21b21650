"""Equivalence speed next to Planetarium's own code, on the same pairs, in one run.

PLANETARIUM_SRC=/path/to/planetarium PLANETARIUM_PYTHON=/path/to/venv/bin/python \\
    python benchmarks/planetarium_side_by_side.py [--pairs N] [--json OUT]

Planetarium (Zuo et al. 2024, "Planetarium: A Rigorous Benchmark for Translating Text to Structured
Planning Languages") is not a dependency of plansight: its checkout (the BatsResearch/planetarium
repository on GitHub) runs in a virtualenv of its own, named by PLANETARIUM_PYTHON, with its
requirements installed there: networkx, rustworkx, pyyaml, jinja2, aenum, matplotlib and the `pddl`
fork its pyproject.toml names (maxzuo/pddl on GitHub; `pip install` of that checkout). The
benchmark puts PLANETARIUM_SRC on that interpreter's path, so Planetarium itself need not be
installed.

Pairs come from this repository's generators with a fixed seed, for blocksworld, gripper and
floor-tile, in four size buckets (4-8, 9-16, 17-32, 33-60 objects); half are equivalent, the
candidate renames every object and writes the goal differently. Each side is timed per pair, as
thread CPU time, the fastest of three runs, after one untimed pair of each domain on both sides:
"parse + check" (both problems read from text, then compared) and "check" alone (plansight:
preparing the reference and comparing; Planetarium: `evaluate`'s comparison steps, the init
isomorphism, fullySpecify of both sides and the final isomorphism, without its planner step).
"disagree" counts pairs whose answers differ: Planetarium without its planner step calls two
unsolvable problems equivalent, plansight does not, and a plansight "unknown" counts too.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from equivalence_bench import blocks_pair, gripper_pair  # noqa: E402
from equivalence_generators import Spec, load_domain  # noqa: E402

from plansight.analyses.equivalence.verdict import Reference, compare  # noqa: E402
from plansight.analyses.model.pddl import Problem  # noqa: E402
from plansight.analyses.syntax.parse_pddl import parse_pddl  # noqa: E402
from plansight.batch_gc import collector_off  # noqa: E402

BUCKETS = {"4-8": (5, 8), "9-16": (12, 16), "17-32": (24, 32), "33-60": (45, 60)}
"""Two sizes per bucket, at its middle and its top."""

REPEATS = 3
"""Each pair is run this many times on each side and its fastest run kept: on a shared machine the
other processes' time slices land in single runs of a millisecond or less."""

PLANETARIUM_SIDE = r"""
import json, sys, time
from planetarium import builder, metric, oracle

out = []
lines = sys.stdin.readlines()
warm, repeats = (int(x) for x in lines[0].split())
for number, line in enumerate(lines[1:]):
    pair = json.loads(line)
    parse_times, check_times = [], []
    for _ in range(repeats):
        start = time.thread_time()
        source, target = builder.build(pair["reference"]), builder.build(pair["candidate"])
        parsed = time.thread_time()
        if source == target:
            same = True
        elif not metric.equals(source.init(), target.init()):
            same = False
        else:
            same = metric.equals(
                oracle.fully_specify(source, return_reduced=True),
                oracle.fully_specify(target, return_reduced=True),
            )
        done = time.thread_time()
        parse_times.append(parsed - start)
        check_times.append(done - parsed)
    if number >= warm:
        fastest = min(check_times)
        out.append({"total": min(parse_times) + fastest, "check": fastest, "equivalent": bool(same)})
json.dump(out, sys.stdout)
"""


def tiles_pair(rng: random.Random, n: int, equivalent: bool) -> tuple[Spec, Spec]:
    """A floor-tile grid of about ``n`` objects, one or two robots, a goal painting some tiles."""
    robots = [f"robot{i}" for i in range(1 if n < 12 else 2)]
    colours = ["white", "black"]
    count = n - len(robots) - len(colours)
    width = max(2, int(count**0.5))
    tiles = [f"tile_{i // width}-{i % width}" for i in range(count)]
    objects = {**{t: "tile" for t in tiles}, **{r: "robot" for r in robots}, **{c: "color" for c in colours}}
    init: set[tuple[str, ...]] = set()
    for i, tile in enumerate(tiles):
        if i % width:
            init.add(("right", tile, tiles[i - 1]))
        if i >= width:
            init.add(("up", tile, tiles[i - width]))
    available = [c for c in colours if rng.random() < 0.7] or ["black"]
    init.update(("available-color", c) for c in available)
    for robot in robots:
        init.add(("robot-at", robot, rng.choice(tiles)))
        init.add(("robot-has", robot, rng.choice(colours)))
    painted = [("painted", t, rng.choice(available)) for t in rng.sample(tiles, max(1, count // 3))]
    reference = Spec("floor-tile", objects, frozenset(init), tuple(sorted(painted)))
    written = list(painted) + sorted(f for f in init if f[0] in ("up", "right", "available-color"))
    if not equivalent:
        written.pop(rng.randrange(len(painted)))
    names = list(objects)
    fresh = [f"x{i}" for i in range(len(names))]
    rng.shuffle(fresh)
    candidate = Spec("floor-tile", objects, frozenset(init), tuple(written))
    return reference, candidate.renamed(dict(zip(names, fresh, strict=True)))


GENERATORS = {"blocksworld": blocks_pair, "gripper": gripper_pair, "floor-tile": tiles_pair}


def pairs(count: int) -> list[dict[str, Any]]:
    made = []
    for kind, generate in GENERATORS.items():
        for bucket, sizes in BUCKETS.items():
            rng = random.Random(f"side-by-side-{kind}-{bucket}")
            for i in range(count):
                n = sizes[i % len(sizes)]
                reference, candidate = generate(rng, n, i % 2 == 0)
                made.append(
                    {
                        "kind": kind,
                        "bucket": bucket,
                        "objects": len(reference.objects),
                        "reference": reference.text("reference"),
                        "candidate": candidate.text("candidate"),
                    }
                )
    return made


def plansight_side(pair: dict[str, Any]) -> dict[str, Any]:
    domain = DOMAINS[pair["kind"]]
    parse_times, check_times = [], []
    with collector_off():  # as `plansight equiv` and `grade` run it
        for _ in range(REPEATS):
            start = time.thread_time()
            reference, candidate = (parse_pddl(pair[k]).model for k in ("reference", "candidate"))
            assert isinstance(reference, Problem) and isinstance(candidate, Problem)
            parsed = time.thread_time()
            verdict = compare(Reference(domain, reference), candidate)
            done = time.thread_time()
            parse_times.append(parsed - start)
            check_times.append(done - parsed)
    return {
        "total": min(parse_times) + min(check_times),
        "check": min(check_times),
        "equivalent": verdict.equivalent,
    }


DOMAINS = {kind: load_domain(kind) for kind in GENERATORS}


def planetarium_side(made: list[dict[str, Any]]) -> list[dict[str, Any]]:
    source, python = os.environ.get("PLANETARIUM_SRC"), os.environ.get("PLANETARIUM_PYTHON")
    if not source or not python:
        sys.exit(__doc__)
    warm = warm_up(made)
    lines = f"{len(warm)} {REPEATS}\n" + "".join(
        json.dumps({"reference": p["reference"], "candidate": p["candidate"]}) + "\n" for p in warm + made
    )
    env = {**os.environ, "PYTHONPATH": source}
    run = subprocess.run(
        [python, "-c", PLANETARIUM_SIDE], input=lines, capture_output=True, text=True, env=env, check=True
    )
    result: list[dict[str, Any]] = json.loads(run.stdout)
    return result


def warm_up(made: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One pair of each domain, run untimed before the timed ones on both sides: imports, grammar
    tables and per-domain caches are paid once per run, not per pair, in a batch of either tool."""
    return [next(p for p in made if p["kind"] == kind) for kind in GENERATORS]


def summary(
    made: list[dict[str, Any]], ours: list[dict[str, Any]], theirs: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    rows = []
    for kind in GENERATORS:
        for bucket in BUCKETS:
            index = [i for i, p in enumerate(made) if p["kind"] == kind and p["bucket"] == bucket]
            total = [theirs[i]["total"] / max(ours[i]["total"], 1e-9) for i in index]
            check = [theirs[i]["check"] / max(ours[i]["check"], 1e-9) for i in index]
            rows.append(
                {
                    "domain": kind,
                    "bucket": bucket,
                    "pairs": len(index),
                    "plansight_ms": 1000 * statistics.median(ours[i]["total"] for i in index),
                    "planetarium_ms": 1000 * statistics.median(theirs[i]["total"] for i in index),
                    "median_speedup": statistics.median(total),
                    "min_speedup": min(total),
                    "min_check_speedup": min(check),
                    "check_slower": sum(c < 1 for c in check),
                    "disagree": sum(ours[i]["equivalent"] is not theirs[i]["equivalent"] for i in index),
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pairs", type=int, default=20, help="pairs per domain and bucket")
    parser.add_argument("--json", type=Path, help="also write the rows and per-pair times here")
    args = parser.parse_args()
    made = pairs(args.pairs)
    theirs = planetarium_side(made)
    for pair in warm_up(made):
        plansight_side(pair)
    ours = [plansight_side(p) for p in made]
    rows = summary(made, ours, theirs)
    print(
        f"{'domain':12} {'bucket':6} {'pairs':>5} {'plansight ms':>12} {'Planetarium ms':>14} "
        f"{'median x':>8} {'min x':>6} {'min check x':>11} {'check slower':>12} {'disagree':>8}"
    )
    for r in rows:
        print(
            f"{r['domain']:12} {r['bucket']:6} {r['pairs']:5} {r['plansight_ms']:12.2f} "
            f"{r['planetarium_ms']:14.2f} "
            f"{r['median_speedup']:8.1f} {r['min_speedup']:6.2f} {r['min_check_speedup']:11.2f} "
            f"{r['check_slower']:12} {r['disagree']:8}"
        )
    if args.json:
        slow = [{**made[i], **ours[i], "planetarium": theirs[i]} for i in range(len(made))]
        args.json.write_text(json.dumps({"rows": rows, "pairs": slow}, indent=1))


if __name__ == "__main__":
    main()

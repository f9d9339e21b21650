"""`plansight evaluate` over the published results of Armony, Meroño-Peñuela and Canal 2025, "How Far Are
LLMs from Symbolic Planners? An NLP-Based Perspective": every Blocksworld and Logistics row of their
result CSVs, with the reference plans (so the final score's plan-potential search runs), no recovery.

    LEA_STV_RESULTS=... PLANBENCH=... python benchmarks/lea_stv_evaluate.py [--jobs 2] [--json OUT]

Inputs, from their public repositories (nothing is committed here):
- ``LEA_STV_RESULTS``: a checkout of the paper's code and results (``maayan25/llm-plan-evaluation`` on
  GitHub); the CSVs are under ``results/plan_recovery/final_evaluation/``.
- ``PLANBENCH``: a checkout of PlanBench (``karthikv792/LLMs-Planning``); the problems the rows name are
  ``plan-bench/instances/blocksworld/generated_basic_3/instance-N.pddl`` and
  ``plan-bench/instances/logistics/generated_basic/instance-N.pddl``.

The script lays those out as the ``lea-stv`` preset reads them (docs/datasets.md), runs the command once
in a fresh process (start-up included, as a user waits for it) and reports the wall time, rows per
second, and how often plansight's verdicts agree with the CSVs' own columns (validity by VAL, LEA).
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

DOMAINS = {
    "blocksworld_3": ("blocksworld", "generated_basic_3"),
    "logistics": ("logistics", "generated_basic"),
}


def _environment(name: str) -> Path:
    import os

    value = os.environ.get(name)
    if not value or not Path(value).is_dir():
        raise SystemExit(f"set {name} to a checkout (see this script's docstring)")
    return Path(value)


def lay_out(results: Path, planbench: Path, folder: Path) -> tuple[Path, int]:
    """The rows in one CSV, the domains and problems in the preset's folders; returns the CSV and its rows."""
    instances = planbench / "plan-bench" / "instances"
    rows: list[dict[str, str]] = []
    columns: list[str] = []
    for name, (source, problems) in DOMAINS.items():
        (folder / "domains").mkdir(parents=True, exist_ok=True)
        shutil.copy(instances / source / "generated_domain.pddl", folder / "domains" / f"{name}.pddl")
        shutil.copytree(instances / source / problems, folder / "problems" / name, dirs_exist_ok=True)
        for table in sorted((results / "results" / "plan_recovery" / "final_evaluation").glob(
                f"{name}_evaluation_*.csv")):
            with table.open(newline="", encoding="utf-8") as handle:
                reader = csv.DictReader(handle)
                columns += [c for c in reader.fieldnames or () if c not in columns]
                rows.extend(reader)
    table_path = folder / "lea-stv.csv"
    with table_path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, columns)
        writer.writeheader()
        writer.writerows(rows)
    return table_path, len(rows)


def agreement(output: Path) -> dict[str, Any]:
    """How often plansight's validity and LEA equal the CSVs' own (VAL's validity, the paper's LEA)."""
    valid = lea = total = 0
    with output.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            total += 1
            valid += row.get("valid", "").lower() == row.get("curr_validity", "").lower()
            lea += row.get("lea", "") == row.get("curr_last_act", "")
    return {"rows": total, "validity_agrees": valid, "lea_agrees": lea}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", type=Path)
    options = parser.parse_args()
    results, planbench = _environment("LEA_STV_RESULTS"), _environment("PLANBENCH")
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        table, rows = lay_out(results, planbench, folder)
        output = folder / "scored.csv"
        command = [sys.executable, "-m", "plansight", "evaluate", str(table), "--preset", "lea-stv",
                   "--domains", str(folder / "domains"), "--problems", str(folder / "problems"),
                   "-o", str(output), "--no-progress", "--jobs", str(options.jobs)]
        started = time.perf_counter()
        finished = subprocess.run(command, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        if finished.returncode > 1 or not output.exists():
            print(finished.stderr, file=sys.stderr)
            return 1
        report = {"rows": rows, "jobs": options.jobs, "seconds": round(seconds, 1),
                  "rows_per_second": round(rows / seconds, 1), **agreement(output)}
    print(json.dumps(report, indent=2))
    if options.json:
        options.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Runs every benchmark and writes their JSON next to RESULTS.md (which is edited by hand from it).

python benchmarks/run_all.py
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    out = HERE / ".work"
    out.mkdir(exist_ok=True)
    status = 0
    scripts = ("parse_throughput.py", "startup_and_scale.py", "lsp_latency.py", "lsp_requests.py",
               "simulate_throughput.py", "equivalence_bench.py", "beyond_classical_throughput.py")
    for script in scripts:
        print(f"== {script}", flush=True)
        result = subprocess.run(
            [sys.executable, str(HERE / script), "--json", str(out / f"{script[:-3]}.json")]
        )
        status = status or result.returncode
    return status


if __name__ == "__main__":
    raise SystemExit(main())

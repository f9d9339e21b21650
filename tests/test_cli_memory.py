"""``plansight lint`` of a folder holds memory per file, not per folder.

The model of a 1 MB problem is about 50 MB. A lint run used to keep every file's model (a parse cache
of 512 entries), every file's text and every result's text until the report was written, so a folder
of grounded IPC problems took gigabytes. Now a file's model is dropped once the files after it no
longer need it, and the report takes what it needs from the text as each file is linted. The peak
resident size of a run is measured from a separate process, as ``/usr/bin/time`` would.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

FILES = 16
SIZE = 1_000_000

_PEAK = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def _workloads() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "workloads.py"
    spec = importlib.util.spec_from_file_location("plansight_bench_workloads", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


def peak_of_lint(*args: str) -> tuple[int, float]:
    """Exit code and peak resident size (MB) of one ``plansight lint`` process."""
    measured = subprocess.run([sys.executable, "-c", _PEAK, sys.executable, "-m", "plansight", "lint",
                               "--no-progress", *args], capture_output=True, text=True, check=True)
    code, kilobytes = measured.stdout.split()
    return int(code), int(kilobytes) / 1024


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    workloads = _workloads()
    root = tmp_path_factory.mktemp("large-folder")
    (root / "domain.pddl").write_text(workloads.BLOCKSWORLD)
    for number in range(FILES):
        (root / f"p{number:02d}.pddl").write_text(workloads.blocksworld_problem(SIZE, seed=number))
    (root / "p00.plan").write_text("(pickup b0)\n(pickup b0)\n")  # invalid, right after its problem
    return root


def test_a_folder_of_large_problems_takes_the_memory_of_a_few_files(folder: Path) -> None:
    code, single = peak_of_lint(str(folder / "p00.pddl"))
    assert code == 0
    code, whole = peak_of_lint(str(folder))
    assert code == 1  # the plan is invalid: the run did link it to its problem and domain
    assert whole < 4 * single, (single, whole)


def test_the_json_report_of_a_folder_has_every_file_and_no_more_memory(folder: Path, tmp_path: Path) -> None:
    _, single = peak_of_lint("--format", "json", str(folder / "p00.pddl"))
    out = tmp_path / "report.json"
    _, whole = peak_of_lint("--format", "json", "-o", str(out), str(folder))
    assert whole < 4 * single, (single, whole)
    document = json.loads(out.read_text())
    assert document["summary"]["files"] == FILES + 2
    plan = next(entry for entry in document["files"] if entry["path"].endswith("p00.plan"))
    assert plan["kind"] == "plan" and plan["diagnostics"]
    assert all(entry["diagnostics"] == [] for entry in document["files"] if entry["kind"] == "problem")

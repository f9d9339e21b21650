"""`plansight codes` lists the catalogue CI pipelines filter on; piping into `head` is not an error."""

from __future__ import annotations

import json
import subprocess
import sys

from plansight.analyses.diagnostics.diagnostic import CODES

PLANSIGHT = [sys.executable, "-m", "plansight"]


def test_codes_json_lists_every_code_with_its_severity() -> None:
    out = subprocess.run(
        [*PLANSIGHT, "codes", "--format", "json"], capture_output=True, text=True, check=True
    )
    rows = json.loads(out.stdout)
    assert [row["code"] for row in rows] == list(CODES)
    assert {row["severity"] for row in rows} <= {"error", "warning", "information", "hint"}
    assert next(r for r in rows if r["code"] == "typed-objects-untyped-domain")["severity"] == "error"


def test_a_closed_pipe_ends_the_command_quietly() -> None:
    shell = f"{sys.executable} -m plansight codes | head -n 1"
    out = subprocess.run(["bash", "-o", "pipefail", "-c", shell], capture_output=True, text=True)
    assert out.stdout.startswith("syntax-error")
    assert "Traceback" not in out.stderr
    assert out.returncode == 0

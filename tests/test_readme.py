"""The README documents what the tool really does: its code table is the live catalogue."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_code_table_is_the_catalogue() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- codes-table:[^\n]*-->\n(.*?)<!-- end codes-table -->", readme, re.DOTALL)
    assert match, "README.md lost its generated code table"
    live = subprocess.run(
        [sys.executable, "-m", "plansight", "codes", "--format", "markdown"],
        capture_output=True, text=True, check=True,
    ).stdout
    assert match.group(1) == live, "run `plansight codes --format markdown` and paste it into README.md"


def test_readme_states_the_two_commands_that_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make demo" in readme and "make test" in readme
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")

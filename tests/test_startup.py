"""`plansight lint` starts fast: it imports neither the language server's libraries nor lark (whose
grammar tables are compiled ahead of time) nor any other heavy library the lint does not need, which
would cost more than linting a small file."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
NOT_FOR_LINT = ("lsprotocol", "pygls", "lark", "networkx", "rustworkx", "nltk", "unified_planning", "cattrs",
                "rich")
"""``rich`` colours the text report on a terminal only: piped, the report is written without it"""


def _modules_imported_by(*argv: str) -> set[str]:
    """The full names of the modules ``plansight ARGV`` imports, its output piped as a CI job's is."""
    env = {key: value for key, value in os.environ.items() if key not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "plansight", *argv],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=120,
    )
    assert result.returncode in (0, 1), result.stderr[-2000:]
    return {line.rsplit("|", 1)[1].strip() for line in result.stderr.splitlines()
            if line.startswith("import time:")}


def _imported_by(*argv: str) -> set[str]:
    """The top-level packages ``plansight ARGV`` imports."""
    modules = _modules_imported_by(*argv)
    assert modules, "python -X importtime reported nothing"
    return {module.split(".")[0] for module in modules}


def test_lint_imports_no_server_library_and_no_lark() -> None:
    files = [EXAMPLES / "blocksworld" / name for name in ("domain.pddl", "p01.pddl", "p01.plan")]
    files += sorted((EXAMPLES / "ltl").glob("*.ltl"))[:2]
    imported = _imported_by("lint", *map(str, files))
    assert "plansight" in imported
    assert not imported & set(NOT_FOR_LINT), sorted(imported & set(NOT_FOR_LINT))


def test_a_broken_file_is_reported_without_lark_too() -> None:
    broken = EXAMPLES / "llm-mistakes"
    imported = _imported_by("lint", "--format", "json", str(broken))
    assert not imported & set(NOT_FOR_LINT), sorted(imported & set(NOT_FOR_LINT))


def test_every_command_is_registered_for_lazy_parsing() -> None:
    # main.py registers a command's options only when it is named: one missing from _COMMANDS would
    # be unusable although its `run_...` is dispatched
    from plansight import main

    source = Path(main.__file__).read_text(encoding="utf-8")
    dispatched = set(re.findall(r'args\.command == "([a-z-]+)"', source))
    assert dispatched == set(main._COMMANDS), dispatched ^ set(main._COMMANDS)
    help_text = main.build_parser().format_help()
    assert all(re.search(rf"^\s+{name}\s", help_text, re.MULTILINE) for name in dispatched), help_text


def test_linting_a_domain_imports_only_what_a_domain_needs() -> None:
    # the plan, LTL and incremental parsers, the LTL model and links, the problem checks and the
    # derived-predicate stratifier are a third of the lint path's imports: a domain's lint starts without them
    imported = _modules_imported_by("lint", str(EXAMPLES / "blocksworld" / "domain.pddl"))
    assert "plansight.analyses.checks.domain" in imported
    unneeded = {
        "plansight.analyses.syntax.parse_plan",
        "plansight.analyses.syntax.parse_ltl",
        "plansight.analyses.model.ltl",
        "plansight.analyses.workspace.ltl_links",
        "plansight.analyses.syntax.incremental",
        "plansight.analyses.checks.problem",
        "plansight.analyses.semantics.derived",
    }
    assert not imported & unneeded, sorted(imported & unneeded)

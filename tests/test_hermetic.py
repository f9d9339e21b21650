"""The tests and scripts read nothing outside the repository, so `make test` passes in any clone.

Files beside a checkout (a folder of domains next to it, say) exist on one machine only: a test
reading them passes there and fails everywhere else. This scans every test, script and CI file for
the two ways such a path gets written: a path climbing out through ``..`` into a named folder, and
``Path(__file__)`` climbing more folders than the file sits below the repository root.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SCANNED = ("tests", "scripts", "benchmarks", ".ci", "vscode-client/test", "vscode-client/scripts")
SUFFIXES = {".py", ".sh", ".lua", ".ts", ".js", ".mjs", ".cjs", ""}
SKIPPED_FOLDERS = {"node_modules", "__pycache__", ".work", "out", "fixtures"}

# `REPO / ".." / "shared"` or the same as one string: a folder beside the checkout, by any spelling.
_BESIDE = re.compile(r"\.\.\W{0,6}shared\b")
# `REPO / ".."`, `path.join(REPO_ROOT, "..")`, `"$repo/.."`: up from the repository root itself. (Going
# up from a folder inside it, `path.resolve(CLIENT_ROOT, "..")`, or inside a test's own temporary
# project, `tmp_path / "sub" / ".."`, stays inside.)
_ABOVE_ROOT = re.compile(r"""(?:\b(?:repo|root|repo_root)\b\s*(?:/|,)\s*["']\.\.["'])"""
                         r"""|(?:\$\{?(?:repo|root|repo_root)\}?/\.\.)""", re.IGNORECASE)
# `Path(__file__).resolve().parents[2]` or `.parent.parent.parent`: how many folders up from the file.
_CLIMB = re.compile(r"Path\(__file__\)(?:\.resolve\(\))?"
                    r"(?P<chain>(?:\.parent\b)+|\.parents\[(?P<index>\d+)\])")


def _outside_references(text: str, depth: int) -> list[str]:
    """The lines of ``text`` that reach outside the repository, for a file whose folder is ``depth``
    folders below the root (``tests/corpus.py``: 1)."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if _BESIDE.search(line) or _ABOVE_ROOT.search(line):
            found.append(f"{number}: {line.strip()}")
            continue
        for match in _CLIMB.finditer(line):
            index = match.group("index")
            up = int(index) + 1 if index is not None else match.group("chain").count(".parent")
            if up > depth + 1:  # the file's folder is 1 up, the root depth + 1
                found.append(f"{number}: {line.strip()}")
    return found


def _scanned_files() -> list[Path]:
    files = [ROOT / "Makefile"]
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*")):
            parts = set(path.relative_to(ROOT).parts)
            if path.is_file() and path.suffix in SUFFIXES and not parts & SKIPPED_FOLDERS:
                files.append(path)
    return [path for path in files if path.resolve() != Path(__file__).resolve()]


def test_no_test_or_script_reads_a_path_outside_the_repository() -> None:
    files = _scanned_files()
    assert len(files) > 80  # tests/, scripts/, .ci/ and the extension's tests are all being scanned
    offenders = {}
    for path in files:
        relative = path.relative_to(ROOT)
        depth = len(relative.parts) - 1
        found = _outside_references(path.read_text(encoding="utf-8", errors="replace"), depth)
        if found:
            offenders[relative.as_posix()] = found
    assert offenders == {}


@pytest.mark.parametrize("line", [
    'PLANETARIUM = REPO / ".." / "shared" / "domains"',
    "domains = Path('" + ".." + "/shared/domains/planetarium')",  # one string (split here only)
    'const shared = path.join(REPO_ROOT, "..", "shared");',
    'const sibling = path.resolve(REPO_ROOT, "..");',
    'DOMAINS = ROOT / ".." / "planetarium"',
    'ls "$repo/../domains"',
    "ROOT = Path(__file__).resolve().parents[2]",
    "ROOT = Path(__file__).parent.parent.parent",
])
def test_the_scan_recognises_a_path_out_of_the_repository(line: str) -> None:
    assert _outside_references(line, depth=1) != []


@pytest.mark.parametrize("line", [
    'REPO = Path(__file__).resolve().parents[1]',
    'EXAMPLES = Path(__file__).resolve().parent.parent / "examples"',
    'export const REPO_ROOT = path.resolve(CLIENT_ROOT, "..");',
    'overlay.read(str(tmp_path / "sub" / ".." / "new.pddl"))',
    'fs.writeFileSync(problem, "; @domain ../domain.pddl")',
    'client="$(cd "$here/../.." && pwd)"',
])
def test_the_scan_lets_paths_inside_the_repository_through(line: str) -> None:
    assert _outside_references(line, depth=1) == []

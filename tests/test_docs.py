"""The repository explains itself: what it cites, users have, and its documents link to what exists.

Design notes and paper copies that live outside the repository are invisible to a user, so a
citation of them is a dead end; the papers are cited by title, authors and year (docs/references.md)
and the definitions live in docs/. Relative links in README.md and docs/*.md are checked down to the
heading they point at, because a renamed section silently breaks them.
"""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

import pytest

from plansight.main import build_parser

ROOT = Path(__file__).resolve().parents[1]

# Spelled in pieces so that this file does not match itself.
UNAVAILABLE = re.compile(
    "|".join((
        r"\bSPEC" + r"\.md\b",
        r"\bSPEC" + r" §",
        r"\bDESIGN" + r"\.md\b",
        r"\.\./" + r"shared\b",
        r"\bseeds?[ _-]?" + r"00[0-9]\b",
    )),
    re.IGNORECASE,
)
EXCLUDED_PREFIXES = (".ci/",)
"""The continuous-integration runner belongs to the machinery around the project, not to it."""

SKIPPED_DIRS = {".git", ".venv", "node_modules", ".cache", "__pycache__", "build", "dist", ".mypy_cache",
                ".ruff_cache", ".pytest_cache", ".hypothesis"}


def tracked_files() -> list[str]:
    """The files a clone has: git's list in a checkout, else every file outside build and tool folders."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        return [name for name in listed.decode("utf-8").split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        return [
            path.relative_to(ROOT).as_posix()
            for path in ROOT.rglob("*")
            if path.is_file() and not SKIPPED_DIRS.intersection(path.relative_to(ROOT).parts)
            and not path.name.endswith(".egg-info")
        ]


def citations_of_unavailable_documents(files: list[str]) -> list[str]:
    found = []
    for name in files:
        if name.startswith(EXCLUDED_PREFIXES):
            continue
        try:
            text = (ROOT / name).read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # binary files cite nothing; a deleted-but-tracked file is git's business
        for number, line in enumerate(text.splitlines(), 1):
            if UNAVAILABLE.search(line):
                found.append(f"{name}:{number}: {line.strip()[:120]}")
    return found


def test_nothing_cites_documents_a_user_does_not_have() -> None:
    found = citations_of_unavailable_documents(tracked_files())
    assert not found, "cite docs/... or the paper (title, authors, year) instead:\n" + "\n".join(found)


def test_the_citation_check_recognises_each_form() -> None:
    lines = ["see " + "SPEC" + ".md section 2", "DESIGN" + ".md habit 8", "from ." + "./" + "shared/domains",
             "Seed " + "004's tables", "(seed " + "002, Appendix C.3)"]
    for line in lines:
        assert UNAVAILABLE.search(line), line
    assert not UNAVAILABLE.search("a fixed seed: random.Random(7)")
    assert not UNAVAILABLE.search("SPECIAL_FUNCTIONS = frozenset()")


def markdown_documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces become hyphens."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    result = set()
    for match in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.MULTILINE):
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        result.add(base if count == 0 else f"{base}-{count}")
    return result


def broken_links(path: Path) -> list[str]:
    text = INLINE_CODE.sub("", FENCE.sub("", path.read_text(encoding="utf-8")))
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: ... are not files
            continue
        file_part, _, fragment = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            broken.append(f"{path.name}: {target} (no such file)")
        elif fragment and linked.suffix == ".md" and fragment not in anchors(linked):
            broken.append(f"{path.name}: {target} (no such heading)")
    return broken


@pytest.mark.parametrize("document", markdown_documents(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_point_at_files_and_headings_that_exist(document: Path) -> None:
    assert broken_links(document) == []


def test_the_link_check_notices_a_missing_file_and_a_missing_heading(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# A `plansight lint PATH...` heading\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](other.md#a-plansight-lint-path-heading) [gone](missing.md) [bad](other.md#nowhere)\n"
        "[web](https://example.org/x) `[code](not-a-link.md)`\n",
        encoding="utf-8",
    )
    assert broken_links(page) == [
        "page.md: missing.md (no such file)",
        "page.md: other.md#nowhere (no such heading)",
    ]


def test_the_readme_links_every_document() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for document in sorted((ROOT / "docs").glob("*.md")):
        assert f"](docs/{document.name}" in readme, f"README.md does not link docs/{document.name}"


def test_help_says_what_plansight_and_each_command_do_for_the_user() -> None:
    parser = build_parser()
    assert parser.description and parser.description.startswith("plansight checks PDDL")
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    listed = {choice.dest: choice.help for choice in commands._choices_actions}
    for name, subparser in commands.choices.items():
        assert listed.get(name), f"`plansight --help` lists {name} without a line saying what it does"
        assert subparser.description, f"`plansight {name} --help` does not say what the command does"

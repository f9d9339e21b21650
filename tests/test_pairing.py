"""The order a folder's files are tried as a problem's domain, and that a batch works it out once per folder
(docs/files-and-links.md; the batch figures are in benchmarks/RESULTS.md)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plansight.analyses.workspace import association
from plansight.analyses.workspace.lint import Analyzer, AnalyzerCaches, DiskSource, MemorySource
from plansight.analyses.workspace.pairing import FolderFiles

DOMAIN = (
    "(define (domain blocks)\n  (:requirements :strips)\n  (:predicates (clear ?x))\n"
    "  (:action pick :parameters (?x) :precondition (clear ?x) :effect (not (clear ?x))))\n"
)


def problem(name: str, domain: str = "blocks") -> str:
    return (f"(define (problem {name}) (:domain {domain})\n"
            "  (:objects a)\n  (:init (clear a))\n  (:goal (clear a)))\n")


def rule_order(folder: str, names: list[str], problem_path: str) -> list[str]:
    """The documented rule, written out the slow way: paired by name or numbers, then ``*domain*``, then
    the rest, each group by path; the problem itself left out."""
    problem_stem = os.path.splitext(os.path.basename(problem_path))[0].lower()
    numbers = re.findall(r"\d+", problem_stem)

    def rank(path: str) -> int:
        stem = os.path.splitext(os.path.basename(path))[0].lower()
        if problem_stem in stem or (numbers and re.findall(r"\d+", stem) == numbers):
            return 0
        return 1 if "domain" in stem else 2

    excluded = os.path.normcase(os.path.normpath(problem_path))
    paths = [os.path.normpath(os.path.join(folder, n)) for n in names if n.lower().endswith(".pddl")]
    paths = [p for p in paths if os.path.normcase(p) != excluded]
    return sorted(paths, key=lambda p: (rank(p), p))


@settings(max_examples=300, deadline=None)
@given(
    stems=st.lists(st.text(alphabet="pdPD0123-_omainxb.", min_size=1, max_size=9), max_size=14, unique=True),
    suffixes=st.lists(st.sampled_from([".pddl", ".PDDL", ".plan"]), min_size=14, max_size=14),
    problem_stem=st.text(alphabet="pdPD0123-_omainxb", min_size=0, max_size=6),
)
def test_the_index_orders_files_as_the_rule_says(
        stems: list[str], suffixes: list[str], problem_stem: str) -> None:
    names = sorted({stem + suffix for stem, suffix in zip(stems, suffixes, strict=False)})
    folder = os.path.join("work", "set")
    files = FolderFiles(folder, names)
    for problem_path in [os.path.join(folder, problem_stem + ".pddl"),
                         *(os.path.join(folder, name) for name in names[:3])]:
        assert list(files.ranked(problem_path)) == rule_order(folder, names, problem_path)


def test_paired_files_come_first_then_domain_files() -> None:
    names = ["a-domain.pddl", "d02.pddl", "d12.pddl", "domain.pddl", "notes.txt", "p02.pddl",
             "p02-extra.pddl", "zzz.pddl"]
    ranked = [os.path.basename(p) for p in FolderFiles("f", names).ranked(os.path.join("f", "p02.pddl"))]
    assert ranked == ["d02.pddl", "p02-extra.pddl", "a-domain.pddl", "domain.pddl", "d12.pddl", "zzz.pddl"]


def test_a_batch_indexes_each_folder_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every problem of a folder finds its domain from one index of the folder, not by ranking every file
    again: 200 problems, one index."""
    built: list[str] = []

    class Counting(FolderFiles):
        def __init__(self, folder: str, names: list[str]) -> None:
            built.append(folder)
            super().__init__(folder, names)

    monkeypatch.setattr(association, "FolderFiles", Counting)
    (tmp_path / "domain.pddl").write_text(DOMAIN)
    for i in range(200):
        (tmp_path / f"p{i:03d}.pddl").write_text(problem(f"p{i}"))
    analyzer = Analyzer(DiskSource(memoize=True))
    domains = {analyzer.lint(str(tmp_path / f"p{i:03d}.pddl")).domain_path for i in range(200)}

    assert domains == {str(tmp_path / "domain.pddl")}
    assert built.count(str(tmp_path)) == 1


def test_a_domain_added_in_the_editor_is_seen_at_once(tmp_path: Path) -> None:
    """The index follows the folder's listing: an unsaved new file paired with the problem wins over the
    folder's generic domain file as soon as it exists."""
    (tmp_path / "domain.pddl").write_text(DOMAIN)
    problem_path = str(tmp_path / "p02.pddl")
    (tmp_path / "p02.pddl").write_text(problem("p02"))
    disk = DiskSource()
    analyzer = Analyzer(disk)
    assert analyzer.lint(problem_path).domain_path == str(tmp_path / "domain.pddl")

    paired = str(tmp_path / "d02.pddl")
    with_buffer = Analyzer(MemorySource({paired: DOMAIN}, fallback=disk), caches=analyzer.caches)
    assert with_buffer.lint(problem_path).domain_path == paired


def test_a_batch_reads_each_files_header_once(tmp_path: Path) -> None:
    """A folder of problems whose domain is missing: every problem searches the whole folder, but a run
    over files that do not change reads each file's header once, not once per problem."""
    reads: dict[str, int] = {}

    class Counting(DiskSource):
        def read(self, path: str) -> str | None:
            reads[path] = reads.get(path, 0) + 1
            return super().read(path)

    folder = tmp_path / "a" / "b" / "c" / "d"
    folder.mkdir(parents=True)
    paths = [folder / f"p{i:02d}.pddl" for i in range(60)]
    for path in paths:
        path.write_text(problem(path.stem, domain="missing"))
    analyzer = Analyzer(Counting(), caches=AnalyzerCaches(headers=1000))
    codes = {d.code for path in paths for d in analyzer.lint(str(path)).diagnostics}

    assert "missing-domain" in codes
    assert max(reads[str(path)] for path in paths) <= 2  # its own lint, and its header for the others

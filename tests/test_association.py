"""How problems find their domain and plans their problem (docs/files-and-links.md), and linting."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.syntax.lexical import sniff_header
from plansight.analyses.workspace import lint as lint_module
from plansight.analyses.workspace.association import glob_matches
from plansight.analyses.workspace.lint import (
    Analyzer,
    AnalyzerOptions,
    DiskSource,
    LintResult,
    MemorySource,
    find_files,
)

LINK_CODES = {"missing-domain", "missing-problem", "unknown-domain", "broken-link", "domain-name-mismatch"}


def domain_text(name: str = "blocks") -> str:
    return (
        f"(define (domain {name})\n"
        "  (:requirements :strips)\n"
        "  (:predicates (on ?x ?y) (clear ?x))\n"
        "  (:action pick :parameters (?x) :precondition (clear ?x) :effect (not (clear ?x))))\n"
    )


def problem_text(domain: str = "blocks", name: str = "p1", header: str = "") -> str:
    return (
        f"{header}(define (problem {name}) (:domain {domain})\n"
        "  (:objects a b)\n  (:init (clear a))\n  (:goal (clear a)))\n"
    )


def write(path: Path, text: str, newline: str = "\n") -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return str(path)


def links(result: LintResult) -> list[tuple[str, Span, str]]:
    return [(d.code, d.span, d.message) for d in result.diagnostics if d.code in LINK_CODES]


def deep(tmp_path: Path) -> Path:
    """A folder deep enough that the parent search never leaves tmp_path (and sees no stray domains)."""
    folder = tmp_path / "a" / "b" / "c" / "d"
    folder.mkdir(parents=True)
    return folder


@pytest.fixture
def analyzer() -> Analyzer:
    return Analyzer(DiskSource())


def test_domain_in_the_same_folder_is_found_by_name(tmp_path: Path, analyzer: Analyzer) -> None:
    folder = deep(tmp_path)
    write(folder / "gripper.pddl", domain_text("gripper"))
    domain = write(folder / "blocks-domain.pddl", domain_text("blocks"))
    problem = write(folder / "p1.pddl", problem_text("BLOCKS"))  # names are case-insensitive

    result = analyzer.lint(problem)

    assert result.kind == "problem"
    assert result.domain_path == domain
    assert links(result) == []


def test_domain_in_a_parent_folder_is_found(tmp_path: Path, analyzer: Analyzer) -> None:
    folder = deep(tmp_path)
    domain = write(folder / "domain.pddl", domain_text())
    problem = write(folder / "problems" / "set1" / "p1.pddl", problem_text())

    assert analyzer.lint(problem).domain_path == os.path.normpath(domain)


def test_the_parent_search_stops_three_folders_up(tmp_path: Path, analyzer: Analyzer) -> None:
    folder = deep(tmp_path)
    write(folder / "domain.pddl", domain_text())
    problem = write(folder / "w" / "x" / "y" / "z" / "p1.pddl", problem_text())

    result = analyzer.lint(problem)

    assert result.domain_path is None
    [(code, span, message)] = links(result)
    assert code == "missing-domain"
    assert span == Span(0, len("(define (problem p1) (:domain blocks)"))  # the first line
    assert "; @domain path/to/domain.pddl" in message
    assert "--domain" in message


def test_directive_links_a_domain_relative_to_the_file(tmp_path: Path, analyzer: Analyzer) -> None:
    folder = deep(tmp_path)
    domain = write(folder / "elsewhere" / "my-domain.pddl", domain_text())
    header = "; @domain ../elsewhere/my-domain.pddl\n"
    problem = write(folder / "probs" / "p1.pddl", problem_text(header=header))

    result = analyzer.lint(problem)

    assert result.domain_path == os.path.normpath(domain)
    assert links(result) == []


def test_directive_wins_over_the_convention(tmp_path: Path, analyzer: Analyzer) -> None:
    folder = deep(tmp_path)
    write(folder / "domain.pddl", domain_text())
    chosen = write(folder / "v2" / "domain.pddl", domain_text())
    problem = write(folder / "p1.pddl", problem_text(header="; @domain v2/domain.pddl\n"))

    assert analyzer.lint(problem).domain_path == os.path.normpath(chosen)


def test_override_wins_over_the_directive(tmp_path: Path, analyzer: Analyzer) -> None:
    folder = deep(tmp_path)
    write(folder / "linked.pddl", domain_text())
    flag = write(folder / "flag.pddl", domain_text())
    problem = write(folder / "p1.pddl", problem_text(header="; @domain linked.pddl\n"))

    assert analyzer.lint(problem, domain=flag).domain_path == flag


def test_broken_directive_is_an_error_on_its_value(tmp_path: Path, analyzer: Analyzer) -> None:
    folder = deep(tmp_path)
    write(folder / "domain.pddl", domain_text())  # the convention would find this one: it must not
    header = "; @domain ../missing.pddl\n"
    problem = write(folder / "p1.pddl", problem_text(header=header))

    result = analyzer.lint(problem)

    assert result.domain_path is None
    [(code, span, message)] = links(result)
    assert code == "broken-link"
    assert span == Span(header.index("../"), header.index("\n"))
    assert "`../missing.pddl`" in message
    assert "no such file" in message


def test_directive_to_a_problem_is_a_broken_link(tmp_path: Path, analyzer: Analyzer) -> None:
    folder = deep(tmp_path)
    write(folder / "other.pddl", problem_text(name="other"))
    problem = write(folder / "p1.pddl", problem_text(header="; @domain other.pddl\n"))

    [(code, _, message)] = links(analyzer.lint(problem))

    assert code == "broken-link"
    assert "is a problem, not a domain" in message


def test_linked_domain_with_another_name_is_a_warning_on_the_name(tmp_path: Path, analyzer: Analyzer) -> None:
    folder = deep(tmp_path)
    domain = write(folder / "d.pddl", domain_text("gripper"))
    text = problem_text("blocks", header="; @domain d.pddl\n")
    problem = write(folder / "p1.pddl", text)

    result = analyzer.lint(problem)

    assert result.domain_path == domain
    [(code, span, message)] = links(result)
    assert code == "domain-name-mismatch"
    start = text.index("blocks")
    assert span == Span(start, start + len("blocks"))
    assert "`gripper`" in message and "`blocks`" in message


def test_unknown_domain_lists_the_domains_found(tmp_path: Path, analyzer: Analyzer) -> None:
    folder = deep(tmp_path)
    write(folder / "domain.pddl", domain_text("blocks"))
    write(folder.parent / "gripper.pddl", domain_text("gripper"))
    text = problem_text("blockz")
    problem = write(folder / "p1.pddl", text)

    result = analyzer.lint(problem)

    assert result.domain_path is None
    [(code, span, message)] = links(result)
    assert code == "unknown-domain"
    start = text.index("blockz")
    assert span == Span(start, start + len("blockz"))
    assert "`blocks` (domain.pddl)" in message
    assert "`gripper` (../gripper.pddl)" in message
    assert "Did you mean `blocks`?" in message
    [diagnostic] = [d for d in result.diagnostics if d.code == "unknown-domain"]
    assert diagnostic.severity.value == "error"


@pytest.mark.parametrize("plan_name", ["p1.plan", "p1.pddl.plan", "p1.soln", "p1.sol", "p1.txt"])
def test_plan_finds_its_problem_and_that_problems_domain(
    tmp_path: Path, analyzer: Analyzer, plan_name: str
) -> None:
    folder = deep(tmp_path)
    domain = write(folder.parent / "domain.pddl", domain_text())
    problem = write(folder / "p1.pddl", problem_text())
    write(folder / "p2.pddl", problem_text(name="p2"))
    plan = write(folder / plan_name, "(pick a)\n; cost = 1 (unit cost)\n")

    result = analyzer.lint(plan)

    assert result.kind == "plan"
    assert result.problem_path == problem
    assert result.domain_path == os.path.normpath(domain)
    assert links(result) == []


def test_plan_next_to_a_single_problem_of_another_name_uses_it(tmp_path: Path, analyzer: Analyzer) -> None:
    folder = deep(tmp_path)
    write(folder / "domain.pddl", domain_text())
    problem = write(folder / "problem.pddl", problem_text())
    plan = write(folder / "student-7.plan", "(pick a)\n")

    assert analyzer.lint(plan).problem_path == problem


def test_plan_without_a_problem_says_how_to_link_one(tmp_path: Path, analyzer: Analyzer) -> None:
    folder = deep(tmp_path)
    write(folder / "p1.pddl", problem_text(name="p1"))
    write(folder / "p2.pddl", problem_text(name="p2"))
    plan = write(folder / "other.plan", "(pick a)\n")

    result = analyzer.lint(plan)

    assert result.problem_path is None
    [(code, span, message)] = links(result)
    assert code == "missing-problem"
    assert span == Span(0, len("(pick a)"))
    assert "; @problem path/to/problem.pddl" in message
    assert "`other.pddl`" in message


def test_plan_whose_problem_has_no_domain_says_so(tmp_path: Path, analyzer: Analyzer) -> None:
    folder = deep(tmp_path)
    problem = write(folder / "p1.pddl", problem_text("nowhere"))
    plan = write(folder / "p1.plan", "(pick a)\n")

    result = analyzer.lint(plan)

    assert result.problem_path == problem
    [(code, _, message)] = links(result)
    assert code == "missing-domain"
    assert "`p1.pddl`" in message and "`nowhere`" in message


def test_plan_directives_and_flags(tmp_path: Path, analyzer: Analyzer) -> None:
    folder = deep(tmp_path)
    domain = write(folder / "dom" / "blocks.pddl", domain_text())
    problem = write(folder / "probs" / "first.pddl", problem_text("unlinked"))
    plan_text = "; @problem ../probs/first.pddl\n; @domain ../dom/blocks.pddl\n(pick a)\n"
    plan = write(folder / "plans" / "x.plan", plan_text)

    result = analyzer.lint(plan)
    assert (result.problem_path, result.domain_path) == (os.path.normpath(problem), os.path.normpath(domain))
    assert links(result) == []

    flagged = analyzer.lint(write(folder / "plans" / "y.plan", "(pick a)\n"), domain=domain, problem=problem)
    assert (flagged.problem_path, flagged.domain_path) == (problem, domain)


def test_broken_problem_directive_in_a_plan(tmp_path: Path, analyzer: Analyzer) -> None:
    folder = deep(tmp_path)
    text = "; @problem nope.pddl\n(pick a)\n"
    plan = write(folder / "x.plan", text)

    [(code, span, _)] = links(analyzer.lint(plan))

    assert code == "broken-link"
    assert span == Span(text.index("nope"), text.index("\n"))


def test_crlf_files_link_and_report_exact_spans(tmp_path: Path, analyzer: Analyzer) -> None:
    folder = deep(tmp_path)
    domain = write(folder / "domain.pddl", domain_text(), newline="\r\n")
    good = write(folder / "good.pddl", problem_text(header="; @domain domain.pddl  \n"), newline="\r\n")
    assert analyzer.lint(good).domain_path == domain

    text = problem_text(header="; @domain gone.pddl\n").replace("\n", "\r\n")
    broken = write(folder / "broken.pddl", text)
    [(code, span, _)] = links(analyzer.lint(broken))
    assert code == "broken-link"
    assert text[span.start : span.end] == "gone.pddl"  # no `\r` in the range

    unknown = problem_text("blockz").replace("\n", "\r\n")
    [(code, span, _)] = links(analyzer.lint(write(folder / "unknown.pddl", unknown)))
    assert code == "unknown-domain"
    assert unknown[span.start : span.end] == "blockz"


def test_settings_globs_link_problems_to_a_domain(tmp_path: Path) -> None:
    folder = deep(tmp_path)
    domain = write(folder / "shared" / "anything.pddl", domain_text("other-name"))
    problem = write(folder / "probs" / "p1.pddl", problem_text("other-name"))
    unmatched = write(folder / "elsewhere" / "p1.pddl", problem_text("other-name"))
    analyzer = Analyzer(DiskSource(), AnalyzerOptions(domain_globs=(("**/probs/*.pddl", domain),)))

    assert analyzer.lint(problem).domain_path == domain
    assert analyzer.lint(unmatched).domain_path is None


def test_glob_matching_rules() -> None:
    assert glob_matches("probs/*.pddl", "/home/u/blocks/probs/p1.pddl")
    assert glob_matches("**/p?.pddl", "/x/y/p1.pddl")
    assert glob_matches("/home/**/*.{pddl,txt}", "/home/u/a/b.txt")
    assert not glob_matches("probs/*.pddl", "/home/u/probs/deeper/p1.pddl")
    assert not glob_matches("/probs/*.pddl", "/home/u/probs/p1.pddl")
    assert not glob_matches("rob/*.pddl", "/home/u/probs/p1.pddl")  # only at folder boundaries


def test_unsaved_buffers_take_part_in_linking(tmp_path: Path) -> None:
    folder = deep(tmp_path)
    problem = write(folder / "p1.pddl", problem_text())
    unsaved_domain = str(folder / "domain.pddl")  # exists only in the editor
    analyzer = Analyzer(MemorySource({unsaved_domain: domain_text()}, fallback=DiskSource()))

    assert analyzer.lint(problem).domain_path == unsaved_domain


def test_header_sniffing_ignores_comments() -> None:
    header = sniff_header("; (define (domain fake))\n(define\n  (domain Real-One) ...")
    assert header is not None
    assert (header.kind, header.name, header.key) == ("domain", "Real-One", "real-one")
    assert sniff_header("; nothing here\n(:action") is None


def test_unreadable_paths_become_a_diagnostic(tmp_path: Path, analyzer: Analyzer) -> None:
    folder = deep(tmp_path)
    missing = analyzer.lint(str(folder / "missing.pddl"))
    assert [d.code for d in missing.diagnostics] == ["unreadable-file"]
    assert "no such file" in missing.diagnostics[0].message

    assert "it is a folder" in analyzer.lint(str(folder)).diagnostics[0].message

    binary = folder / "blob.pddl"
    binary.write_bytes(b"\x7fELF\x00\x00\x01")
    assert "binary" in analyzer.lint(str(binary)).diagnostics[0].message


def test_invalid_utf8_is_replaced_not_refused(tmp_path: Path, analyzer: Analyzer) -> None:
    path = tmp_path / "latin1.pddl"
    path.write_bytes(b"; caf\xe9\n" + domain_text().encode())
    result = analyzer.lint(str(path))
    assert result.kind == "domain"
    assert result.text.startswith("; caf\ufffd\n")


def test_a_crashing_check_becomes_an_internal_error(
    tmp_path: Path, analyzer: Analyzer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(*_: object) -> list[object]:
        raise RuntimeError("boom")

    monkeypatch.setattr(lint_module, "check_domain", explode)
    path = write(deep(tmp_path) / "domain.pddl", domain_text().rstrip()[:-1])  # also lose the last `)`

    codes = [d.code for d in analyzer.lint(path).diagnostics]

    assert "unclosed-paren" in codes  # the syntax result survives the crash
    [internal] = [d for d in analyzer.lint(path).diagnostics if d.code == "internal-error"]
    assert "RuntimeError: boom" in internal.message


def test_parse_cache_is_keyed_by_text(tmp_path: Path, analyzer: Analyzer) -> None:
    path = write(tmp_path / "domain.pddl", domain_text())
    first = analyzer.parse(path)
    assert analyzer.parse(path) is first
    changed = analyzer.parse(path, domain_text("other"))
    assert changed is not None and changed.domain is not None
    assert changed.domain.name.key == "other"


def test_find_files_walks_folders(tmp_path: Path) -> None:
    write(tmp_path / "domain.pddl", domain_text())
    write(tmp_path / "p1.pddl", problem_text())
    write(tmp_path / "p1.txt", "(pick a)\n")  # a plan: next to problem p1.pddl
    write(tmp_path / "domain.txt", "notes\n")  # next to a domain: not a plan
    write(tmp_path / "notes.txt", "notes\n")
    write(tmp_path / "sub" / "x.plan", "(pick a)\n")
    write(tmp_path / "sub" / "x.SOLN", "(pick a)\n")
    write(tmp_path / ".hidden" / "h.pddl", domain_text())
    write(tmp_path / "node_modules" / "n.pddl", domain_text())
    write(tmp_path / "README.md", "# hi\n")

    found = find_files([str(tmp_path), str(tmp_path / "p1.pddl"), str(tmp_path / "README.md")])

    relative = [os.path.relpath(path, tmp_path) for path in found]
    assert relative == [
        "domain.pddl",
        "p1.pddl",
        "p1.txt",
        os.path.join("sub", "x.SOLN"),
        os.path.join("sub", "x.plan"),
        "README.md",
    ]


@pytest.mark.parametrize(
    ("problem_name", "paired_domain"),
    [
        ("p02.pddl", "d02.pddl"),
        ("p02.pddl", "domain-p02.pddl"),
        ("probBLOCKS-4-1.pddl", "probBLOCKS-4-1-domain.pddl"),
    ],
)
def test_a_problem_prefers_the_domain_file_paired_with_it_by_name(
    tmp_path: Path, analyzer: Analyzer, problem_name: str, paired_domain: str
) -> None:
    """Benchmark sets give each problem its own domain file, all with the same domain name."""
    folder = deep(tmp_path)
    for other in ("d01.pddl", "domain.pddl", "d03.pddl"):
        write(folder / other, domain_text())
    paired = write(folder / paired_domain, domain_text())
    problem = write(folder / problem_name, problem_text())

    assert analyzer.lint(problem).domain_path == paired


def test_each_partner_records_the_rule_that_found_it(tmp_path: Path) -> None:
    folder = deep(tmp_path)
    domain = write(folder / "domain.pddl", domain_text())
    other = write(folder / "elsewhere" / "blocks.pddl", domain_text())
    by_name = write(folder / "p1.pddl", problem_text())
    linked = write(folder / "p2.pddl", problem_text(header="; @domain elsewhere/blocks.pddl\n"))
    globbed = write(folder / "globbed" / "p3.pddl", problem_text())
    plan = write(folder / "p2.plan", "(pick a)\n")
    plan_with_domain = write(folder / "p1.soln", "; @domain domain.pddl\n(pick a)\n")
    analyzer = Analyzer(DiskSource(), AnalyzerOptions(domain_globs=(("**/globbed/*.pddl", other),)))

    def hows(path: str, **override: str) -> tuple[str | None, str | None, str | None, str | None]:
        document = analyzer.parse(path)
        assert document is not None
        found = analyzer.associate(document, **override)
        return found.domain_path, found.domain_how, found.problem_path, found.problem_how

    assert hows(by_name) == (domain, "convention", None, None)
    assert hows(linked) == (other, "directive", None, None)
    assert hows(globbed) == (other, "setting", None, None)
    assert hows(by_name, domain=other) == (other, "flag", None, None)
    # a plan's domain comes through its problem, by the rule that linked the problem to it
    assert hows(plan) == (other, "directive", linked, "convention")
    assert hows(plan_with_domain) == (domain, "directive", by_name, "convention")
    assert hows(plan, problem=by_name) == (domain, "convention", by_name, "flag")
    # nothing found: no rule to report
    lost = write(folder / "lost.pddl", problem_text("nowhere"))
    assert hows(lost) == (None, None, None, None)

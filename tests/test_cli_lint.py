"""End to end: the installed ``plansight lint`` console script, as a user or a CI job runs it."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

PLANSIGHT = Path(sys.executable).with_name("plansight")
if not PLANSIGHT.exists():
    PLANSIGHT = Path(shutil.which("plansight") or "plansight")

DOMAIN = """(define (domain blocks)
  (:requirements :strips)
  (:predicates (clear ?x) (holding ?x))
  (:action pick-up
    :parameters (?x)
    :precondition (clear ?x)
    :effect (and (holding ?x) (not (clear ?x)))))
"""
PROBLEM = """(define (problem p1) (:domain blocks)
  (:objects a)
  (:init (clear a))
  (:goal (holding a)))
"""
MISSING_CLOSE = DOMAIN.rstrip()[:-1] + "\n"  # the last `)` of `(define` is gone
SEVERITIES = {"error", "warning", "information", "hint"}


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "FORCE_COLOR"}
    return subprocess.run([str(PLANSIGHT), "lint", *args], cwd=cwd, capture_output=True, text=True,
                          encoding="utf-8", env=env, timeout=60, check=False)


def run_json(*args: str, cwd: Path) -> tuple[int, dict[str, Any]]:
    completed = run(*args, "--format", "json", cwd=cwd)
    return completed.returncode, json.loads(completed.stdout)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def codes(document: dict[str, Any], path: str) -> list[str]:
    [entry] = [f for f in document["files"] if f["path"] == path]
    return [d["code"] for d in entry["diagnostics"]]


def test_text_report_points_at_the_unclosed_paren(tmp_path: Path) -> None:
    write(tmp_path / "domain.pddl", MISSING_CLOSE)

    completed = run("domain.pddl", cwd=tmp_path)

    assert completed.returncode == 1
    lines = completed.stdout.splitlines()
    [headline] = [line for line in lines if "unclosed-paren" in line]
    assert headline.startswith("domain.pddl:1:1: error unclosed-paren: `(define` on line 1 is not closed")
    excerpt = lines[lines.index(headline) + 1: lines.index(headline) + 3]
    assert excerpt == [" 1 | (define (domain blocks)", "   | ^"]
    assert lines[-1].startswith("Checked 1 file: 1 error")
    assert "\x1b[" not in completed.stdout  # piped: no colour codes
    assert completed.stderr == ""


def test_force_color_colours_the_same_report(tmp_path: Path) -> None:
    # CI logs are not terminals; FORCE_COLOR asks for colour anyway, and the words must not change
    write(tmp_path / "domain.pddl", MISSING_CLOSE)
    plain = run("domain.pddl", cwd=tmp_path)
    env = {**os.environ, "FORCE_COLOR": "1", "TERM": "xterm"}
    coloured = subprocess.run([str(PLANSIGHT), "lint", "domain.pddl"], cwd=tmp_path, capture_output=True,
                              text=True, encoding="utf-8", env=env, timeout=60, check=False)

    assert coloured.returncode == plain.returncode == 1
    assert "\x1b[1;31merror\x1b[0m" in coloured.stdout  # the severity in bold red
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured.stdout) == plain.stdout


def test_concise_text_and_output_file(tmp_path: Path) -> None:
    write(tmp_path / "domain.pddl", MISSING_CLOSE)
    write(tmp_path / "p1.pddl", PROBLEM)

    completed = run(".", "--concise", "--output", "report.txt", cwd=tmp_path)

    assert completed.returncode == 1
    assert completed.stdout == ""
    report = (tmp_path / "report.txt").read_text(encoding="utf-8").splitlines()
    assert report[0].startswith("domain.pddl:1:1: error unclosed-paren:")
    assert not any(line.startswith(" 1 |") for line in report)
    assert report[-1].startswith("Checked 2 files:")


def test_clean_files_exit_zero(tmp_path: Path) -> None:
    write(tmp_path / "domain.pddl", DOMAIN)
    write(tmp_path / "p1.pddl", PROBLEM)

    completed = run(".", "--severity", "error", cwd=tmp_path)

    assert completed.returncode == 0, completed.stdout
    assert completed.stdout.strip() == "No problems found in 2 files."


def test_json_has_exactly_the_spec_keys(tmp_path: Path) -> None:
    write(tmp_path / "domain.pddl", MISSING_CLOSE)
    write(tmp_path / "p1.pddl", PROBLEM)
    write(tmp_path / "p1.plan", "(pick-up a)\n")

    status, document = run_json(".", cwd=tmp_path)

    assert status == 1
    assert set(document) == {"files", "summary"}
    assert set(document["summary"]) == {"files", "errors", "warnings"}
    assert [f["path"] for f in document["files"]] == ["domain.pddl", "p1.pddl", "p1.plan"]
    assert [f["kind"] for f in document["files"]] == ["domain", "problem", "plan"]
    all_diagnostics = []
    for entry in document["files"]:
        assert set(entry) == {"path", "kind", "diagnostics"}
        for diagnostic in entry["diagnostics"]:
            assert set(diagnostic) == {"code", "severity", "message", "range"}
            assert diagnostic["severity"] in SEVERITIES
            assert set(diagnostic["range"]) == {"start", "end"}
            for end in ("start", "end"):
                assert set(diagnostic["range"][end]) == {"line", "character"}
            all_diagnostics.append(diagnostic)
    assert document["summary"] == {
        "files": 3,
        "errors": sum(d["severity"] == "error" for d in all_diagnostics),
        "warnings": sum(d["severity"] == "warning" for d in all_diagnostics),
    }
    [unclosed] = [d for d in document["files"][0]["diagnostics"] if d["code"] == "unclosed-paren"]
    assert unclosed["range"] == {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}


def test_positions_count_utf16_code_units(tmp_path: Path) -> None:
    line = "(define (domain d) (:predicates (p ?x) (q 😀 ?x)))"
    extra_close = len(line)  # code points before the stray `)`
    text = f"; Übung — émoji 😀 in a comment\n{line})\n"
    write(tmp_path / "d.pddl", text)

    status, document = run_json("d.pddl", cwd=tmp_path)

    assert status == 1
    [entry] = document["files"]
    by_code = {d["code"]: d["range"] for d in entry["diagnostics"]}
    emoji = line.index("😀")
    assert by_code["invalid-character"] == {"start": {"line": 1, "character": emoji},
                                            "end": {"line": 1, "character": emoji + 2}}
    # one emoji before it on the line: one more UTF-16 unit than code points
    assert by_code["unexpected-close-paren"] == {"start": {"line": 1, "character": extra_close + 1},
                                                 "end": {"line": 1, "character": extra_close + 2}}

    text_report = run("d.pddl", cwd=tmp_path).stdout
    assert f"d.pddl:2:{extra_close + 2}: error unexpected-close-paren:" in text_report


def test_sarif_2_1_0_structure(tmp_path: Path) -> None:
    write(tmp_path / "sub dir" / "domain.pddl", "; 😀\n" + MISSING_CLOSE)

    completed = run(".", "--format", "sarif", cwd=tmp_path)

    assert completed.returncode == 1
    sarif = json.loads(completed.stdout)
    assert sarif["version"] == "2.1.0"
    assert sarif["$schema"].endswith("sarif-2.1.0.json")
    [run_] = sarif["runs"]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "plansight"
    assert driver["version"]
    assert "informationUri" not in driver
    rule_ids = [rule["id"] for rule in driver["rules"]]
    assert len(rule_ids) == len(set(rule_ids))
    assert {"unclosed-paren", "unknown-domain", "broken-link", "internal-error"} <= set(rule_ids)
    assert all(rule["shortDescription"]["text"] for rule in driver["rules"])
    assert run_["results"]
    for result in run_["results"]:
        assert {"ruleId", "level", "message", "locations"} <= set(result)
        assert result["level"] in {"error", "warning", "note"}
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
        assert result["message"]["text"]
        [location] = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uri"] == "sub%20dir/domain.pddl"
        region = physical["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert (region["endLine"], region["endColumn"]) >= (region["startLine"], region["startColumn"])
    [unclosed] = [r for r in run_["results"] if r["ruleId"] == "unclosed-paren"]
    assert unclosed["level"] == "error"
    assert unclosed["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 2, "startColumn": 1, "endLine": 2, "endColumn": 2}


def test_information_diagnostics_are_sarif_notes(tmp_path: Path) -> None:
    problem = write(tmp_path / "a" / "b" / "c" / "d" / "p1.pddl", PROBLEM)

    sarif = json.loads(run(str(problem), "--format", "sarif", cwd=tmp_path).stdout)

    [missing] = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "missing-domain"]
    assert missing["level"] == "note"


def test_nonexistent_path_is_a_usage_error(tmp_path: Path) -> None:
    write(tmp_path / "domain.pddl", DOMAIN)

    completed = run("domain.pddl", "nope.pddl", cwd=tmp_path)

    assert completed.returncode == 2
    assert "no such file or folder: nope.pddl" in completed.stderr
    assert completed.stdout == ""

    flag = run("domain.pddl", "--domain", "missing.pddl", cwd=tmp_path)
    assert flag.returncode == 2
    assert "--domain missing.pddl" in flag.stderr


def test_folder_without_pddl_is_a_usage_error(tmp_path: Path) -> None:
    write(tmp_path / "notes" / "readme.md", "hello\n")

    completed = run("notes", cwd=tmp_path)

    assert completed.returncode == 2
    assert "no PDDL, plan or LTL files" in completed.stderr


def test_unreadable_input_exits_two_but_reports_the_rest(tmp_path: Path) -> None:
    write(tmp_path / "domain.pddl", MISSING_CLOSE)
    (tmp_path / "blob.pddl").write_bytes(b"\x00\x01binary")

    status, document = run_json(".", cwd=tmp_path)

    assert status == 2
    assert codes(document, "blob.pddl") == ["unreadable-file"]
    assert "unclosed-paren" in codes(document, "domain.pddl")


def test_nested_folders_and_partner_files(tmp_path: Path) -> None:
    write(tmp_path / "blocks" / "domain.pddl", DOMAIN)
    write(tmp_path / "blocks" / "problems" / "p1.pddl", PROBLEM)
    write(tmp_path / "blocks" / "problems" / "p1.plan", "(pick-up a)\n")
    write(tmp_path / "blocks" / "problems" / "p1.txt", "(pick-up a)\n")
    write(tmp_path / "blocks" / "problems" / "notes.txt", "not a plan\n")
    write(tmp_path / "blocks" / ".cache" / "junk.pddl", "((((")
    write(tmp_path / "other" / "deeper" / "x" / "y" / "broken.pddl", MISSING_CLOSE)

    status, document = run_json("blocks", "other", cwd=tmp_path)

    assert status == 1
    assert [f["path"] for f in document["files"]] == [
        "blocks/domain.pddl", "blocks/problems/p1.pddl", "blocks/problems/p1.plan",
        "blocks/problems/p1.txt", "other/deeper/x/y/broken.pddl"]
    assert [f["kind"] for f in document["files"]] == ["domain", "problem", "plan", "plan", "domain"]
    unlinked = {"missing-domain", "missing-problem", "unknown-domain"}
    for entry in document["files"][1:4]:
        assert not unlinked & set(codes(document, entry["path"]))
    assert "unclosed-paren" in codes(document, "other/deeper/x/y/broken.pddl")


def test_domain_flag_links_every_problem(tmp_path: Path) -> None:
    write(tmp_path / "domains" / "blocks.pddl", DOMAIN)
    write(tmp_path / "a" / "b" / "c" / "d" / "p1.pddl", PROBLEM)
    write(tmp_path / "a" / "b" / "c" / "d" / "p2.pddl", PROBLEM.replace("p1", "p2"))

    _, unlinked = run_json("a", cwd=tmp_path)
    assert [codes(unlinked, f["path"]).count("missing-domain") for f in unlinked["files"]] == [1, 1]

    _, linked = run_json("a", "--domain", "domains/blocks.pddl", cwd=tmp_path)
    assert [codes(linked, f["path"]).count("missing-domain") for f in linked["files"]] == [0, 0]


def test_fail_on_warning(tmp_path: Path) -> None:
    write(tmp_path / "gripper.pddl", DOMAIN.replace("(domain blocks)", "(domain gripper)"))
    write(tmp_path / "p1.pddl", PROBLEM)

    default = run("p1.pddl", "--domain", "gripper.pddl", "--concise", cwd=tmp_path)
    assert default.returncode == 0
    column = PROBLEM.index("blocks") + 1
    assert f"p1.pddl:1:{column}: warning domain-name-mismatch:" in default.stdout

    strict = run("p1.pddl", "--domain", "gripper.pddl", "--fail-on", "warning", cwd=tmp_path)
    assert strict.returncode == 1


def test_progress_bar_only_on_a_terminal_and_only_for_text(tmp_path: Path) -> None:
    for number in range(25):
        write(tmp_path / f"d{number:02}.pddl", DOMAIN)

    def stderr_on_a_terminal(*args: str) -> str:
        master, slave = pty.openpty()
        command = [str(PLANSIGHT), "lint", ".", *args]
        process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=slave,
                                   env={**os.environ, "TERM": "xterm"})
        os.close(slave)
        chunks = []
        while True:
            ready, _, _ = select.select([master], [], [], 30)
            if not ready:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        process.wait(timeout=60)
        os.close(master)
        return b"".join(chunks).decode("utf-8", errors="replace")

    assert "Linting" in stderr_on_a_terminal()
    assert "Linting" not in stderr_on_a_terminal("--format", "json")
    assert "Linting" not in stderr_on_a_terminal("--no-progress")
    assert "Linting" not in run(".", cwd=tmp_path).stderr  # piped stderr


def test_unknown_format_is_a_usage_error(tmp_path: Path) -> None:
    write(tmp_path / "domain.pddl", DOMAIN)

    completed = run("domain.pddl", "--format", "xml", cwd=tmp_path)

    assert completed.returncode == 2
    assert "invalid choice: 'xml'" in completed.stderr


def test_a_file_that_is_not_pddl_is_named_and_skipped(tmp_path: Path) -> None:
    write(tmp_path / "notes.md", "# my planning notes\n")
    status, report = run_json("notes.md", cwd=tmp_path)
    [entry] = report["files"]
    assert entry["kind"] == "unknown"
    [diagnostic] = entry["diagnostics"]
    assert diagnostic["code"] == "unknown-file-kind" and diagnostic["severity"] == "warning"
    assert diagnostic["range"]["start"] == {"line": 0, "character": 0}
    assert "`notes.md` is neither a PDDL domain or problem" in diagnostic["message"]
    assert status == 0  # a warning, not an error

    write(tmp_path / "notes.pddl", DOMAIN)  # the same file, as PDDL, is checked (and clean)
    status, report = run_json("notes.pddl", cwd=tmp_path)
    assert status == 0 and report["files"][0]["kind"] == "domain" and report["files"][0]["diagnostics"] == []


def test_a_plan_whose_comment_quotes_a_problem_header_is_linted_as_a_plan(tmp_path: Path) -> None:
    write(tmp_path / "domain.pddl", DOMAIN)
    write(tmp_path / "p1.pddl", PROBLEM)
    write(tmp_path / "p1.plan", "; a plan for (define (problem p1) (:domain blocks) ...)\n(pick-up a)\n")

    status, document = run_json(".", cwd=tmp_path)

    [plan] = [f for f in document["files"] if f["path"] == "p1.plan"]
    assert plan["kind"] == "plan"
    assert codes(document, "p1.plan") == [], plan["diagnostics"]
    assert status == 0

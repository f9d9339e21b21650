"""One reading policy for every command (docs/reliability.md): special files are refused instead of
hanging, every command has the same size limit and the same messages, a byte-order mark is accepted
everywhere and kept by ``format --write``.

Hostile inputs are real ones made in ``tmp_path``: FIFOs, a Unix socket, ``/dev/zero`` behind a
``.pddl`` symlink, sparse files over the size limit. A command that blocks fails its test through the
subprocess timeout instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plansight.analyses.syntax.reading import (
    MAX_FILE_BYTES,
    MAX_STREAMED_FILE_BYTES,
    path_problem,
    read_text_file,
)
from plansight.analyses.workspace.lint import Analyzer, DiskSource

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "blocksworld"
FIFO_REASON = "it is a FIFO (named pipe), not a regular file"
DOMAIN = (EXAMPLES / "domain.pddl").read_text()
PROBLEM = (EXAMPLES / "p01.pddl").read_text()

posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs, sockets and /dev are POSIX")


def plansight(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the CLI; a hang becomes a TimeoutExpired failure after 60 s rather than a stuck suite."""
    return subprocess.run([sys.executable, "-m", "plansight", *args], capture_output=True, text=True,
                          timeout=60, cwd=cwd)


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.pddl"
    os.mkfifo(path)
    return path


@pytest.fixture
def unix_socket(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "sock.pddl"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    yield path
    server.close()


# --- the policy itself ---------------------------------------------------------------------------

@posix_only
def test_a_fifo_is_refused_without_waiting_for_a_writer(fifo: Path) -> None:
    started = time.monotonic()
    read = read_text_file(str(fifo))
    assert read.text is None and read.failure == FIFO_REASON
    assert path_problem(str(fifo)) == FIFO_REASON
    assert time.monotonic() - started < 5


@posix_only
def test_a_socket_and_character_devices_are_refused_by_name(unix_socket: Path, tmp_path: Path) -> None:
    assert read_text_file(str(unix_socket)).failure == "it is a socket, not a regular file"
    zero = tmp_path / "zero.pddl"
    zero.symlink_to("/dev/zero")
    for device in ("/dev/zero", "/dev/null", str(zero)):
        assert read_text_file(device).failure == "it is a character device, not a regular file"


def test_size_limit_is_checked_before_reading(tmp_path: Path) -> None:
    sparse = tmp_path / "huge.pddl"
    with open(sparse, "wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: costs no disk, and would cost 50 MiB if read
    read = read_text_file(str(sparse))
    assert read.text is None and read.failure is not None and "are not read" in read.failure
    assert f"{MAX_FILE_BYTES + 1:,} bytes" in read.failure


def test_bom_dropped_and_remembered_invalid_utf8_replaced_and_remembered(tmp_path: Path) -> None:
    bom = tmp_path / "bom.pddl"
    bom.write_bytes(b"\xef\xbb\xbf(define (domain d))\r\n")
    read = read_text_file(str(bom))
    assert (read.text, read.bom, read.lossy) == ("(define (domain d))\r\n", True, False)
    latin = tmp_path / "latin.pddl"
    latin.write_bytes(b"; caf\xe9\n(define (domain d))\n")
    read = read_text_file(str(latin))
    assert (read.text, read.bom, read.lossy) == ("; caf\ufffd\n(define (domain d))\n", False, True)


def test_missing_folder_and_binary_files_say_why(tmp_path: Path) -> None:
    (tmp_path / "blob.pddl").write_bytes(b"\x7fELF\x00\x00")
    assert read_text_file(str(tmp_path / "nowhere.pddl")).failure == "no such file"
    assert read_text_file(str(tmp_path)).failure == "it is a folder"
    assert read_text_file(str(tmp_path / "blob.pddl")).failure == "it looks like a binary file"


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), st.booleans())
def test_any_bytes_are_read_as_utf8_or_refused_as_binary(tmp_path_factory: pytest.TempPathFactory,
                                                         data: bytes, bom: bool) -> None:
    path = tmp_path_factory.mktemp("bytes") / "any.pddl"
    raw = (b"\xef\xbb\xbf" if bom else b"") + data
    path.write_bytes(raw)
    read = read_text_file(str(path))
    if b"\0" in raw:
        assert read.text is None and read.failure == "it looks like a binary file"
    else:
        assert read.text == raw.decode("utf-8-sig", errors="replace")
        assert read.bom == raw.startswith(b"\xef\xbb\xbf")
        assert DiskSource().read(str(path)) == read.text


# --- every command that reads files --------------------------------------------------------------

@posix_only
def test_lint_refuses_a_fifo_argument_a_fifo_in_a_folder_and_a_fifo_directive_target(
        fifo: Path, tmp_path: Path) -> None:
    linked = tmp_path / "linked.pddl"
    linked.write_text(f"; @domain {fifo.name}\n" + PROBLEM)

    direct = plansight("lint", "--format", "json", str(fifo))
    assert direct.returncode == 2
    (entry,) = json.loads(direct.stdout)["files"]
    assert [d["code"] for d in entry["diagnostics"]] == ["unreadable-file"]
    assert FIFO_REASON in entry["diagnostics"][0]["message"]

    folder = plansight("lint", ".", cwd=tmp_path)
    assert folder.returncode == 2 and "pipe.pddl:1:1: error unreadable-file" in folder.stdout

    directive = plansight("lint", str(linked))
    assert "broken-link" in directive.stdout and FIFO_REASON in directive.stdout


@posix_only
@pytest.mark.parametrize("command", [
    ["format", "{fifo}"],
    ["plan", "{fifo}"],
    ["plan", "--domain", "{fifo}", str(EXAMPLES / "p01.plan")],
    ["ltl", "{fifo_ltl}"],
    ["ltl", "--domain", "{fifo}", "{goal}"],
    ["equiv", "--reference", str(EXAMPLES / "p01.pddl"), "{fifo}"],
    ["equiv", "--reference", "{fifo}", str(EXAMPLES / "p01.pddl")],
    ["evaluate", "--generated", "{folder}", "--ground-truth", "{folder}", "--domain", "{fifo}"],
    ["grade", "--reference", str(EXAMPLES / "p01.pddl"), "--domain", str(EXAMPLES / "domain.pddl"),
     "{submissions}"],
    # with a reference domain (docs/domain-equivalence.md)
    ["equiv", "--reference", str(EXAMPLES / "domain.pddl"), "{fifo}"],
    ["equiv", "--reference", str(EXAMPLES / "domain.pddl"), "--mapping", "{fifo}",
     str(EXAMPLES / "domain.pddl")],
    ["grade", "--reference", str(EXAMPLES / "domain.pddl"), "{submissions}"],
], ids=lambda command: "-".join(part for part in command if not part.startswith("/")))
def test_every_command_refuses_a_fifo_and_names_it(command: list[str], fifo: Path, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "goal-pipe.ltl")
    (tmp_path / "goal.ltl").write_text("F (on a b)\n")
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    os.mkfifo(submissions / "alice.pddl")
    values = {"fifo": str(fifo), "fifo_ltl": str(tmp_path / "goal-pipe.ltl"),
              "goal": str(tmp_path / "goal.ltl"), "folder": str(tmp_path), "submissions": str(submissions)}
    completed = plansight(*(part.format(**values) for part in command))
    assert completed.returncode in (1, 2)
    assert FIFO_REASON in completed.stdout + completed.stderr


def test_format_accepts_a_bom_file_as_lint_does_and_write_keeps_the_bom(tmp_path: Path) -> None:
    plain, messy = tmp_path / "plain.pddl", tmp_path / "domain.pddl"
    plain.write_text(DOMAIN.replace("\n  ", "\n"))
    messy.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    canonical = plansight("format", str(plain)).stdout
    assert plansight("lint", str(messy)).returncode == 0
    printed = plansight("format", str(messy))
    assert printed.returncode == 0 and printed.stdout == canonical

    assert plansight("format", "--write", str(messy)).returncode == 0
    assert messy.read_bytes() == b"\xef\xbb\xbf" + canonical.encode()


def test_format_write_never_rewrites_bytes_it_could_not_decode(tmp_path: Path) -> None:
    latin = tmp_path / "domain.pddl"
    original = b"; caf\xe9\n" + DOMAIN.replace("\n  ", "\n").encode()
    latin.write_bytes(original)
    assert plansight("format", "--check", str(latin)).returncode == 1  # it can be formatted ...
    written = plansight("format", "--write", str(latin))
    assert written.returncode == 1 and "not valid UTF-8" in written.stderr
    assert latin.read_bytes() == original  # ... but not written back with U+FFFD in place of the byte


def test_format_and_lint_refuse_oversized_files_quickly_with_the_policys_words(tmp_path: Path) -> None:
    """``format`` (like every command but ``lint``) refuses files over 50 MiB; ``lint``, which checks a
    large problem a chunk at a time, files over 1 GiB. Sparse files: they cost no disk."""
    over_format, over_lint = tmp_path / "over-50.pddl", tmp_path / "over-1g.pddl"
    for path, size in ((over_format, MAX_FILE_BYTES + 1), (over_lint, MAX_STREAMED_FILE_BYTES + 1)):
        with open(path, "wb") as handle:
            handle.truncate(size)
    format_reason = read_text_file(str(over_format)).failure
    lint_reason = read_text_file(str(over_lint), max_bytes=MAX_STREAMED_FILE_BYTES).failure
    assert format_reason is not None and lint_reason is not None
    assert "files over 1,073,741,824 bytes (1 GiB) are not read" in lint_reason
    started = time.monotonic()
    formatted, linted = plansight("format", str(over_format)), plansight("lint", str(over_lint))
    assert time.monotonic() - started < 30
    assert formatted.returncode == 2 and format_reason in formatted.stderr
    assert linted.returncode == 2 and lint_reason in linted.stdout


@posix_only
def test_format_refuses_dev_zero_instead_of_reading_it_forever(tmp_path: Path) -> None:
    zero = tmp_path / "zero.pddl"
    zero.symlink_to("/dev/zero")
    completed = plansight("format", str(zero))
    assert completed.returncode == 2
    assert "it is a character device, not a regular file" in completed.stderr


@posix_only
def test_the_analyzer_reports_a_fifo_partner_without_blocking(fifo: Path, tmp_path: Path) -> None:
    """What the language server's analysis threads run: a FIFO target must not wedge one for good."""
    problem = tmp_path / "problem.pddl"
    problem.write_text(f"; @domain {fifo.name}\n" + PROBLEM)
    with ThreadPoolExecutor(1) as pool:  # a blocked read fails the test after 30 s instead of hanging
        result = pool.submit(Analyzer(DiskSource()).lint, str(problem)).result(timeout=30)
    broken = [d for d in result.diagnostics if d.code == "broken-link"]
    assert broken and FIFO_REASON in broken[0].message


@posix_only
@pytest.mark.parametrize("side", ["generated", "ground-truth"])
def test_evaluate_names_a_fifo_plan_in_its_row_instead_of_hanging_or_dropping_it(
        tmp_path: Path, side: str) -> None:
    dataset = EXAMPLES.parent / "plan-evaluation"
    folders = {"generated": tmp_path / "generated", "ground-truth": tmp_path / "truth"}
    for name, folder in folders.items():
        folder.mkdir()
        if name == side:
            os.mkfifo(folder / "p11.plan")
        else:
            source = dataset / ("generated" if name == "generated" else "ground-truth") / "p11.plan"
            (folder / "p11.plan").write_text(source.read_text())
    completed = plansight("evaluate", "--generated", str(folders["generated"]), "--ground-truth",
                          str(folders["ground-truth"]), "--problems", str(dataset / "problems"),
                          "--domain", str(dataset / "domain.pddl"), "--format", "json")
    (row,) = json.loads(completed.stdout)["plans"]
    assert FIFO_REASON in row["error"]


@posix_only
@pytest.mark.parametrize("command", [
    ["truth", "applicable", "{fifo}", "{problem}"],
    ["truth", "--cases", "{fifo_jsonl}"],
    ["truth", "--cases", "{cases}"],
    ["iou", "--task", "applicable", "--domain", "{fifo}", "--problem", "{problem}", "--answer", "x"],
    ["iou", "--task", "applicable", "--domain", "{domain}", "--problem", "{problem}", "--answer-file",
     "{fifo}"],
    ["iou", "{fifo_jsonl}"],
], ids=lambda command: "-".join(part.strip("{}") for part in command if not part.startswith("--a")))
def test_the_reasoning_commands_refuse_a_fifo_and_name_it(command: list[str], fifo: Path,
                                                          tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "cases-pipe.jsonl")
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps({"task": "applicable", "domain": fifo.name,
                                 "problem": str(EXAMPLES / "p01.pddl")}) + "\n")
    values = {"fifo": str(fifo), "fifo_jsonl": str(tmp_path / "cases-pipe.jsonl"), "cases": str(cases),
              "domain": str(EXAMPLES / "domain.pddl"), "problem": str(EXAMPLES / "p01.pddl")}
    completed = plansight(*(part.format(**values) for part in command))
    assert completed.returncode in (1, 2)
    assert FIFO_REASON in completed.stdout + completed.stderr

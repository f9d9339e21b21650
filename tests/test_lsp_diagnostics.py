"""End-to-end tests of live diagnostics, against the real ``plansight serve`` process (pytest-lsp).

Each test talks to a fresh server over stdio exactly as an editor would: files live under ``tmp_path``
with ``file://`` URIs, edits are incremental ``didChange`` notifications, and assertions are on what
the user would see: the code, the exact range, the message, and when it arrives.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
import pytest_lsp
from lsp_session import SERVER, session
from lsprotocol import types
from pygls.lsp.client import LanguageClient as PlainClient
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features
from samples import TINY_DOMAIN

pytestmark = pytest.mark.lsp

TIMEOUT = 60.0  # generous: CI machines are slow and shared; the assertions on order carry the meaning


class RecordingClient(LanguageClient):
    """A pytest-lsp client that also keeps every publishDiagnostics with its arrival time."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.published: list[tuple[float, types.PublishDiagnosticsParams]] = []

    async def diagnostics_for(
        self,
        uri: str,
        accept: Callable[[types.PublishDiagnosticsParams], bool] = lambda _params: True,
        after: int = 0,
        timeout: float = TIMEOUT,
    ) -> tuple[float, types.PublishDiagnosticsParams]:
        """The first publication for ``uri`` (at index >= ``after``) that ``accept`` agrees to."""
        deadline = time.monotonic() + timeout
        index = after
        while True:
            while index < len(self.published):
                arrived, params = self.published[index]
                index += 1
                if params.uri == uri and accept(params):
                    return arrived, params
            if time.monotonic() > deadline:
                seen = [(p.uri, p.version, [d.code for d in p.diagnostics]) for _, p in self.published]
                raise AssertionError(f"no matching diagnostics for {uri} within {timeout}s; got {seen}")
            await asyncio.sleep(0.005)


def _record(client: RecordingClient, params: types.PublishDiagnosticsParams) -> None:
    client.published.append((time.monotonic(), params))
    client.diagnostics[params.uri] = params.diagnostics


def make_recording_client() -> RecordingClient:
    client = RecordingClient(converter_factory=default_converter)
    features = {**DEFAULT_CLIENT_FEATURES, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: _record}
    register_lsp_features(client, features)
    return client


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The workspace folder, deep enough that the domain search (which climbs three folders) never
    leaves ``tmp_path`` and finds strangers' files in ``/tmp``."""
    folder = tmp_path / "one" / "two" / "three" / "project"
    folder.mkdir(parents=True)
    return folder


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_recording_client))
async def client(lsp_client: RecordingClient, project: Path):
    async with session(lsp_client, project):
        yield


# --- files ---------------------------------------------------------------------------------------

DOMAIN = TINY_DOMAIN

PROBLEM = """\
(define (problem one)
  (:domain tiny)
  (:objects a b)
  (:init (clear a) (clear b) (handempty))
  (:goal (holding a)))
"""


def open_document(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    path.write_text(text)
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="pddl", version=version, text=text)))
    return uri


def replace(client: LanguageClient, uri: str, version: int, start: tuple[int, int], end: tuple[int, int],
            text: str) -> None:
    """An incremental edit, as editors send them."""
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=start[0], character=start[1]),
                              end=types.Position(line=end[0], character=end[1])),
            text=text)]))


def version_is(version: int) -> Callable[[types.PublishDiagnosticsParams], bool]:
    return lambda params: params.version == version


def codes(diagnostics: Sequence[types.Diagnostic]) -> list[str]:
    return [str(d.code) for d in diagnostics]


def rng(start: tuple[int, int], end: tuple[int, int]) -> types.Range:
    return types.Range(start=types.Position(line=start[0], character=start[1]),
                       end=types.Position(line=end[0], character=end[1]))


# --- tests ---------------------------------------------------------------------------------------

async def test_syntax_error_is_published_on_open_and_cleared_when_fixed(client: RecordingClient,
                                                                        project: Path) -> None:
    broken = DOMAIN.replace(":precondition", ":precondtion")
    uri = open_document(client, project / "domain.pddl", broken)

    _, published = await client.diagnostics_for(uri, version_is(1))
    assert codes(published.diagnostics) == ["syntax-error"]
    (diagnostic,) = published.diagnostics
    # line 6 of the file is "    :precondtion (and ...": the misspelled keyword is columns 4-16
    assert diagnostic.range == rng((5, 4), (5, 16))
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert diagnostic.source == "plansight"
    assert "Did you mean `:precondition`?" in diagnostic.message

    replace(client, uri, 2, (5, 4), (5, 16), ":precondition")
    _, fixed = await client.diagnostics_for(uri, version_is(2))
    assert codes(fixed.diagnostics) == []


async def test_ranges_count_utf16_code_units_as_editors_do(client: RecordingClient, project: Path) -> None:
    broken = DOMAIN.replace("(and (clear ?x) (handempty))", "(and (clear ?x) 😀 #)")
    uri = open_document(client, project / "domain.pddl", broken)
    _, published = await client.diagnostics_for(uri, version_is(1))
    assert codes(published.diagnostics) == ["invalid-character", "invalid-character"]
    emoji, hash_sign = published.diagnostics
    # "    :precondition (and (clear ?x) " is 34 units; the emoji takes two, a space, then `#`
    assert emoji.range == rng((5, 34), (5, 36))
    assert hash_sign.range == rng((5, 37), (5, 38))


async def test_editing_a_domain_rechecks_the_open_problem(client: RecordingClient, project: Path) -> None:
    domain_uri = open_document(client, project / "domain.pddl", DOMAIN)
    problem_uri = open_document(client, project / "problem.pddl", PROBLEM)
    await client.diagnostics_for(domain_uri, version_is(1))
    _, before = await client.diagnostics_for(problem_uri, version_is(1))
    assert codes(before.diagnostics) == []

    # rename `clear` to `free` in the domain's :predicates, without saving
    mark = len(client.published)
    replace(client, domain_uri, 2, (2, 16), (2, 21), "free")
    _, after = await client.diagnostics_for(problem_uri, lambda p: bool(p.diagnostics), after=mark)
    assert after.version == 1, "the problem's text did not change, only its domain"
    undeclared = [d for d in after.diagnostics if d.code == "undeclared-predicate"]
    # "  (:init (clear a) (clear b) (handempty))": both `clear`s, on line 4
    assert [d.range for d in undeclared] == [rng((3, 10), (3, 15)), rng((3, 20), (3, 25))]
    assert all("`clear`" in d.message for d in undeclared)
    assert (project / "domain.pddl").read_text() == DOMAIN, "the test must exercise the unsaved buffer"

    # and renaming it back clears the problem again
    mark = len(client.published)
    replace(client, domain_uri, 3, (2, 16), (2, 20), "clear")
    _, restored = await client.diagnostics_for(problem_uri, after=mark)
    assert codes(restored.diagnostics) == []


async def test_renaming_the_domain_breaks_the_problems_link(client: RecordingClient, project: Path) -> None:
    domain_uri = open_document(client, project / "domain.pddl", DOMAIN)
    problem_uri = open_document(client, project / "problem.pddl", PROBLEM)
    _, before = await client.diagnostics_for(problem_uri, version_is(1))
    assert codes(before.diagnostics) == []

    mark = len(client.published)
    replace(client, domain_uri, 2, (0, 16), (0, 20), "small")  # (domain tiny) -> (domain small)
    _, after = await client.diagnostics_for(problem_uri, lambda p: bool(p.diagnostics), after=mark)
    assert codes(after.diagnostics) == ["unknown-domain"]
    (diagnostic,) = after.diagnostics
    assert diagnostic.range == rng((1, 11), (1, 15))  # `tiny` in "  (:domain tiny)"
    assert "`small`" in diagnostic.message


async def test_a_domain_glob_setting_links_a_problem_and_rechecks_it(client: RecordingClient,
                                                                      project: Path) -> None:
    (project / "domains").mkdir()
    (project / "domains" / "tiny.pddl").write_text(DOMAIN)
    (project / "tasks").mkdir()
    problem_uri = open_document(client, project / "tasks" / "one.pddl", PROBLEM)
    _, unlinked = await client.diagnostics_for(problem_uri, version_is(1))
    assert codes(unlinked.diagnostics) == ["missing-domain"]  # domains/ is not on the search path

    mark = len(client.published)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"plansight": {
        "domainGlobs": [{"glob": "tasks/*.pddl", "domain": "domains/tiny.pddl"}]}}))
    _, linked = await client.diagnostics_for(problem_uri, after=mark)
    assert codes(linked.diagnostics) == []


async def test_closing_a_document_clears_its_diagnostics(client: RecordingClient, project: Path) -> None:
    uri = open_document(client, project / "domain.pddl", DOMAIN.replace(":precondition", ":precondtion"))
    _, published = await client.diagnostics_for(uri, version_is(1))
    assert published.diagnostics

    mark = len(client.published)
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    _, cleared = await client.diagnostics_for(uri, after=mark)
    assert codes(cleared.diagnostics) == []


async def test_a_burst_of_edits_publishes_only_the_newest_version(client: RecordingClient,
                                                                   project: Path) -> None:
    uri = open_document(client, project / "domain.pddl", DOMAIN)
    await client.diagnostics_for(uri, version_is(1))
    mark = len(client.published)
    # flip the keyword between a misspelling and the right spelling, one edit right after another
    current = ":precondition"
    for version in range(2, 13):
        wanted = ":precondtion" if version % 2 == 0 else ":precondition"
        replace(client, uri, version, (5, 4), (5, 4 + len(current)), wanted)
        current = wanted
    _, last = await client.diagnostics_for(uri, version_is(12), after=mark)
    assert codes(last.diagnostics) == ["syntax-error"]
    assert last.diagnostics[0].range == rng((5, 4), (5, 16))
    await asyncio.sleep(0.3)  # anything stale would have arrived by now
    versions = [p.version for _, p in client.published[mark:] if p.uri == uri]
    assert versions == sorted(versions), f"diagnostics went back in time: {versions}"
    assert versions[-1] == 12
    assert len(versions) < 11, f"the burst was not coalesced: {versions}"


def big_problem(size: int) -> str:
    """A valid blocks problem of about ``size`` characters (a generated instance, as in benchmarks)."""
    objects, facts, total, i = [], [], 0, 0
    while total < size:
        objects.append(f"    b{i}\n")
        facts.append(f"    (clear b{i})\n")
        total += len(objects[-1]) + len(facts[-1])
        i += 1
    return ("(define (problem big)\n  (:domain tiny)\n  (:objects\n" + "".join(objects) + "  )\n"
            "  (:init (handempty)\n" + "".join(facts) + "  )\n  (:goal (holding b0)))\n")


async def test_a_huge_problem_does_not_block_a_small_file(client: RecordingClient, project: Path) -> None:
    big_text = big_problem(5_000_000)
    assert len(big_text) >= 5_000_000
    (project / "domain.pddl").write_text(DOMAIN)
    big_uri = open_document(client, project / "big.pddl", big_text)
    small_uri = open_document(client, project / "small.pddl", DOMAIN.replace(":precondition", ":precondtion"))

    small_at, small = await client.diagnostics_for(small_uri, version_is(1))
    assert codes(small.diagnostics) == ["syntax-error"]
    assert big_uri not in client.diagnostics, "the small file's diagnostics must not wait for the big one"
    big_at, big = await client.diagnostics_for(big_uri, version_is(1), timeout=300)
    assert small_at < big_at
    assert codes(big.diagnostics) == [], [(d.code, d.message) for d in big.diagnostics]


async def test_files_over_the_size_limit_get_one_information_diagnostic(client: RecordingClient,
                                                                          project: Path) -> None:
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"plansight": {"diagnostics": {"maxFileSizeMB": 0.001}}}))
    uri = open_document(client, project / "problem.pddl", big_problem(5_000))
    _, published = await client.diagnostics_for(uri, version_is(1))
    assert codes(published.diagnostics) == ["file-too-large"]
    assert published.diagnostics[0].severity == types.DiagnosticSeverity.Information
    assert "maxFileSizeMB" in published.diagnostics[0].message


async def test_invalid_settings_fall_back_to_defaults_and_tell_the_user(client: RecordingClient,
                                                                          project: Path) -> None:
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"plansight": {"diagnostics": {"debounceMs": "soon"}}}))
    uri = open_document(client, project / "domain.pddl", DOMAIN.replace(":precondition", ":precondtion"))
    _, published = await client.diagnostics_for(uri, version_is(1))
    assert codes(published.diagnostics) == ["syntax-error"]
    warnings = [m.message for m in client.messages if m.type == types.MessageType.Warning]
    assert any("debounceMs" in m and "'soon'" in m for m in warnings), warnings


def free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_tcp_mode_answers_initialize() -> None:
    port = free_loopback_port()
    process = await asyncio.create_subprocess_exec(*SERVER, "--tcp", f"127.0.0.1:{port}",
                                                   stderr=asyncio.subprocess.DEVNULL)
    client = PlainClient("tcp-test", "1")
    try:
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                await client.start_tcp("127.0.0.1", port)
                break
            except OSError:
                if time.monotonic() > deadline or process.returncode is not None:
                    raise
                await asyncio.sleep(0.1)
        result = await asyncio.wait_for(
            client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities())), TIMEOUT)
        assert result.server_info is not None and result.server_info.name == "plansight"
        sync = result.capabilities.text_document_sync
        assert isinstance(sync, types.TextDocumentSyncOptions) and sync.open_close
        await asyncio.wait_for(client.shutdown_async(None), TIMEOUT)
        client.exit(None)
        assert await asyncio.wait_for(process.wait(), TIMEOUT) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
        await client.stop()

"""Caches belong to their owner (an analyzer, a server instance) and the collector to the entry point.

Two servers in one process (an editor host embedding several, or the test suite) must not hand each
other their documents' parses or answers, and dropping a server must free what it remembered; the
core must leave the process-wide garbage collector alone, since only the CLI or the server knows
whether pausing it is safe.
"""

from __future__ import annotations

import gc
import importlib
import pkgutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import plansight
from plansight.analyses.memo import Memo
from plansight.analyses.workspace.lint import Analyzer, AnalyzerCaches, AnalyzerOptions, MemorySource
from plansight.main import main
from plansight.server.app import create_server
from plansight.server.caches import ServerCaches
from plansight.server.documents import ParseCache
from plansight.server.memory import GcPolicy

DOMAIN = "(define (domain d) (:predicates (p ?x)))\n"
PROBLEM = "(define (problem q) (:domain d) (:objects a) (:init (p a)) (:goal (p a)))\n"


# --- the one memo ------------------------------------------------------------------------------


def test_a_memo_computes_each_key_once_and_keys_by_value() -> None:
    memo: Memo[tuple[str, int], str] = Memo(2)
    calls: list[str] = []

    def compute(label: str) -> str:
        calls.append(label)
        return label

    text = "".join(["(define", " (problem p))"])  # built at run time: a distinct but equal object
    equal_text = "".join(["(define (problem", " p))"])
    assert equal_text == text and equal_text is not text
    assert memo.get((text, 2), lambda: compute("a")) == "a"
    assert memo.get((equal_text, 2), lambda: compute("b")) == "a"  # an equal key, not an identity
    assert memo.get((text, 4), lambda: compute("c")) == "c"
    assert memo.get(("other", 2), lambda: compute("d")) == "d"  # third key: the oldest is evicted
    assert memo.get((text, 2), lambda: compute("e")) == "e"
    assert calls == ["a", "c", "d", "e"]


def test_a_memo_keeps_only_the_newest_entries_of_a_group() -> None:
    memo: Memo[tuple[str, str], str] = Memo(10, group=lambda key: key[0], per_group=2)
    for version in ("v1", "v2", "v3"):
        memo.get(("/w/p.pddl", version), lambda v=version: v)  # type: ignore[misc]
    memo.get(("/w/other.pddl", "v1"), lambda: "other")
    assert ("/w/p.pddl", "v1") not in memo
    assert ("/w/p.pddl", "v2") in memo and ("/w/p.pddl", "v3") in memo
    assert ("/w/other.pddl", "v1") in memo  # another group is not touched
    assert len(memo) == 3


def test_concurrent_askers_wait_for_one_computation_and_a_failure_is_not_kept() -> None:
    memo: Memo[str, int] = Memo(4)
    calls: list[int] = []

    def slow() -> int:
        calls.append(1)
        time.sleep(0.1)
        raise RuntimeError("bug")

    errors: list[str] = []

    def ask() -> None:
        try:
            memo.get("k", slow)
        except RuntimeError as error:
            errors.append(str(error))

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == [1] and errors == ["bug"] * 3
    assert memo.get("k", lambda: 7) == 7  # computed again, not stuck on the failure
    assert memo.ready("k") == 7


# --- owned by instances --------------------------------------------------------------------------


def test_two_analyzers_share_no_parse_and_no_option() -> None:
    source = MemorySource({"/w/d.pddl": DOMAIN})
    first = Analyzer(source, AnalyzerOptions(equivalence_budget=(10, 1.0)))
    second = Analyzer(source)
    parsed = first.parse("/w/d.pddl")
    assert parsed is not None and first.parse("/w/d.pddl") is parsed  # cached in ``first``
    assert second.parse("/w/d.pddl") is not parsed  # ``second`` parsed it on its own
    assert second.options.equivalence_budget == AnalyzerOptions().equivalence_budget
    with pytest.raises(AttributeError):
        first.options.equivalence_budget = (1, 1.0)  # type: ignore[misc]  # fixed for its lifetime


def test_analyzers_given_the_same_caches_share_their_parses() -> None:
    caches = AnalyzerCaches()
    source = MemorySource({"/w/d.pddl": DOMAIN})
    first, second = Analyzer(source, caches=caches), Analyzer(source, caches=caches)
    assert first.parse("/w/d.pddl") is second.parse("/w/d.pddl")


def test_two_servers_in_one_process_have_separate_caches() -> None:
    first, second = create_server(), create_server()
    one, other = first.diagnostics.caches, second.diagnostics.caches
    parsed = one.parses.parse("/w/p.pddl", PROBLEM)
    assert one.parses.parse("/w/p.pddl", PROBLEM) is parsed
    assert len(other.parses) == 0
    assert other.parses.parse("/w/p.pddl", PROBLEM) is not parsed
    memos = _memos(one)
    assert memos and not {id(m) for m in memos} & {id(m) for m in _memos(other)}


def _memos(caches: ServerCaches) -> list[object]:
    found: list[object] = []
    for value in vars(caches).values():
        if isinstance(value, (AnalyzerCaches, ParseCache)):
            found.extend(vars(value).values())
        else:
            found.append(value)
    return [m for m in found if isinstance(m, Memo)]


def _modules() -> Iterator[object]:
    for info in pkgutil.walk_packages(plansight.__path__, "plansight."):
        if not info.name.endswith("__main__"):
            yield importlib.import_module(info.name)


def test_no_module_keeps_a_cache_of_its_own() -> None:
    owned = (Memo, ParseCache, AnalyzerCaches, ServerCaches)
    globals_ = [f"{module.__name__}.{name}" for module in _modules()  # type: ignore[attr-defined]
                for name, value in vars(module).items() if isinstance(value, owned)]
    assert globals_ == []


# --- the collector is the entry point's ------------------------------------------------------------


@pytest.fixture
def collector_switches(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    calls: list[str] = []
    was_enabled = gc.isenabled()
    gc.enable()
    real_disable, real_enable = gc.disable, gc.enable
    monkeypatch.setattr(gc, "disable", lambda: (calls.append("disable"), real_disable())[1])
    monkeypatch.setattr(gc, "enable", lambda: (calls.append("enable"), real_enable())[1])
    yield calls
    monkeypatch.undo()
    (gc.enable if was_enabled else gc.disable)()


def test_the_core_never_switches_the_collector(collector_switches: list[str]) -> None:
    analyzer = Analyzer(MemorySource({"/w/d.pddl": DOMAIN, "/w/p.pddl": PROBLEM}))
    result = analyzer.lint("/w/p.pddl")
    assert result.kind == "problem" and result.domain_path == "/w/d.pddl"
    assert collector_switches == []
    assert gc.isenabled()


def test_a_cli_command_runs_with_the_collector_off_and_restores_it(
        collector_switches: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:


    folder = tmp_path
    (folder / "domain.pddl").write_text(DOMAIN)
    (folder / "p.pddl").write_text(PROBLEM)
    assert main(["lint", "--no-progress", str(folder)]) == 0
    assert collector_switches == ["disable", "enable"]
    assert gc.isenabled()
    assert "Checked 2 files" in capsys.readouterr().out


def test_pauses_of_two_servers_overlap_and_the_collector_returns_after_the_last(
        collector_switches: list[str]) -> None:
    first, second = GcPolicy(), GcPolicy()
    started = threading.Event()
    release = threading.Event()

    def other_server_request() -> None:
        with second.paused():
            started.set()
            release.wait(5)

    worker = threading.Thread(target=other_server_request)
    with first.paused():
        worker.start()
        assert started.wait(5)
    assert not gc.isenabled()  # the other server's request still runs
    release.set()
    worker.join()
    assert gc.isenabled()
    assert collector_switches == ["disable", "enable"]


def test_a_collector_switched_off_by_the_host_stays_off(collector_switches: list[str]) -> None:
    gc.disable()
    with GcPolicy().paused():
        assert not gc.isenabled()
    assert not gc.isenabled()
    assert collector_switches == ["disable"]  # the host's own call only

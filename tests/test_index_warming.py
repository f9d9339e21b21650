"""The symbol index is built by the diagnostics worker, not by the first request after an edit.

Otherwise hover, references, highlight, rename and semantic tokens on a 1 MB problem right after an
edit would pay for building the index and for the garbage collector walking it afterwards. The
server builds it after publishing a version's diagnostics (``diagnostics_feature.warm_version``),
so what a user notices is that the request finds it ready: here, the request path builds nothing and
gets the very index the worker built. The worker's leftovers must also be freed by reference counting
alone (the server freezes what survives an analysis out of the collector's reach).
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from plansight.analyses.editing import symbols
from plansight.analyses.workspace.sources import MemorySource
from plansight.server import index_chain, symbol_lookup
from plansight.server.analysis import AnalysisRequest, analyse
from plansight.server.caches import ServerCaches
from plansight.server.context import ContextRequest, build_context
from plansight.server.convert import RangeMapper
from plansight.server.diagnostics_feature import warm_version
from plansight.server.documents import OverlaySource
from plansight.server.settings import Settings
from plansight.server.symbol_lookup import index_of, index_of_document

DOMAIN = """(define (domain bw)
  (:requirements :strips)
  (:predicates (on-table ?x) (clear ?x)))
"""
PROBLEM = """(define (problem p) (:domain bw)
  (:objects a b)
  (:init (on-table a) (clear a) (on-table b))
  (:goal (clear b)))
"""


def _request(text: str = PROBLEM) -> AnalysisRequest:
    source = OverlaySource({}, MemorySource({"/w/domain.pddl": DOMAIN, "/w/p.pddl": text}))
    return AnalysisRequest(uri="file:///w/p.pddl", path="/w/p.pddl", version=3, text=text, source=source,
                           settings=Settings(), encoding="utf-16", workspace_root="/w")


def _as_context_request(request: AnalysisRequest) -> ContextRequest:
    return request  # a context is built from the very record an analysis takes


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The paths the server builds a symbol index for, or updates one of from the previous version's
    (each test has its own fresh caches): on the request path, or as a new version is parsed."""
    calls: list[str] = []
    original = symbol_lookup.build_index

    def counting(*args: object, **kwargs: object) -> symbols.SymbolIndex:
        calls.append(str(args[1]) if len(args) > 1 else str(kwargs.get("path", "")))
        return original(*args, **kwargs)  # type: ignore[arg-type]

    def updating(old: symbols.SymbolIndex, *args: object) -> symbols.SymbolIndex | None:
        updated = original_update(old, *args)  # type: ignore[arg-type]
        if updated is not None:
            calls.append(f"updated {old.path}")
        return updated

    original_update = symbol_lookup.update_index
    monkeypatch.setattr(symbol_lookup, "build_index", counting)
    monkeypatch.setattr(symbol_lookup, "update_index", updating)
    monkeypatch.setattr(index_chain, "update_index", updating)
    yield calls


def test_a_request_after_the_analysis_finds_the_index_the_worker_built(builds: list[str]) -> None:
    caches = ServerCaches()
    request = _request()
    analyse(request, caches)
    warm_version(request, caches)
    assert builds == ["/w/p.pddl"]

    context = build_context(_as_context_request(request), caches)  # what a hover does
    assert context is not None and context.domain is not None  # linked to its domain, as the worker did
    index = index_of(context)

    assert builds == ["/w/p.pddl"]  # nothing built on the request path
    occurrence = index.at(PROBLEM.index("(on-table a)") + 1)
    assert occurrence is not None and occurrence.target is not None
    assert occurrence.target.path == "/w/domain.pddl"  # resolved against the domain


def test_an_edited_version_is_warmed_again(builds: list[str]) -> None:
    caches = ServerCaches()
    for text in (PROBLEM, PROBLEM + " "):
        request = _request(text)
        analyse(request, caches)
        warm_version(request, caches)
        context = build_context(_as_context_request(request), caches)
        assert context is not None
        index_of(context)
    # one index per version, none by the requests; the edited version's is updated from the first's
    assert builds == ["/w/p.pddl", "updated /w/p.pddl"]


def _slow_build(delay: float,
                outcome: Callable[[], None] | None = None) -> Callable[..., symbols.SymbolIndex]:
    original = symbol_lookup.build_index

    def build(*args: object, **kwargs: object) -> symbols.SymbolIndex:
        time.sleep(delay)
        if outcome is not None:
            outcome()
        return original(*args, **kwargs)  # type: ignore[arg-type]
    return build


def test_a_request_during_the_background_build_waits_for_it_instead_of_building_again(
        builds: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    caches = ServerCaches()
    parsed = caches.parses.parse("/w/domain.pddl", DOMAIN)
    monkeypatch.setattr(symbol_lookup, "build_index", _slow_build(0.2))  # still counted by ``builds``
    results: list[symbols.SymbolIndex] = []
    threads = [threading.Thread(target=lambda: results.append(index_of_document(caches, parsed, None, None)))
               for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(builds) == 1
    assert len(results) == 3 and results[0] is results[1] is results[2]


def test_a_failed_build_reaches_the_waiters_and_the_next_request_builds_again(
        builds: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    caches = ServerCaches()
    parsed = caches.parses.parse("/w/domain.pddl", DOMAIN)
    original = symbols.build_index

    def broken() -> None:
        raise RuntimeError("index bug")

    monkeypatch.setattr(symbol_lookup, "build_index", _slow_build(0.2, broken))
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            index_of_document(caches, parsed, None, None)
        except RuntimeError as error:
            errors.append(error)

    threads = [threading.Thread(target=ask) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [str(e) for e in errors] == ["index bug", "index bug"]

    monkeypatch.setattr(symbol_lookup, "build_index", original)
    assert index_of_document(caches, parsed, None, None).declarations  # not stuck on the failed build


def test_an_analysis_and_its_warming_leave_no_reference_cycles() -> None:
    """Frozen survivors are only freed by reference counting until the server is idle: an analysis
    must not leave cycles behind (the analyzer's associator used to point back at the analyzer,
    keeping every open buffer's text of that moment alive). A first analysis imports what the analysis
    path imports lazily (a ``dataclass(slots=True)`` leaves its discarded first class behind as a cycle,
    once per process), so that only what the measured analysis leaves is counted, in any test order."""
    analyse(_request(), ServerCaches())
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        caches = ServerCaches()
        request = _request()
        analyse(request, caches)
        warm_version(request, caches)
        context = build_context(_as_context_request(request), caches)
        assert context is not None
        index_of(context)
        del context, caches, request
        assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()


def test_only_the_two_newest_versions_of_a_file_keep_their_index(builds: list[str]) -> None:
    """An index is about as large as its model (~100 MB for a 1 MB problem): editing one file must
    not fill the cache with its old versions."""
    caches = ServerCaches()
    versions = [caches.parses.parse("/w/domain.pddl", DOMAIN + " " * n) for n in range(3)]
    other = caches.parses.parse("/w/other.pddl", DOMAIN)
    indexes = [index_of_document(caches, v, None, None) for v in versions]
    index_of_document(caches, other, None, None)
    assert len(builds) == 4

    assert index_of_document(caches, versions[2], None, None) is indexes[2]
    assert index_of_document(caches, versions[1], None, None) is indexes[1]
    index_of_document(caches, other, None, None)  # another file's entry is not evicted
    assert len(builds) == 4
    index_of_document(caches, versions[0], None, None)  # the oldest was dropped
    assert len(builds) == 5


def test_retiring_a_version_forgets_everything_computed_from_it_and_nothing_else(
        builds: list[str]) -> None:
    """An edited file's old versions are dead weight (~70 MB each for a 1 MB problem): the server
    forgets them as soon as the buffer changes, but keeps the current text and other files."""
    caches = ServerCaches()
    old = caches.parses.parse("/w/domain.pddl", DOMAIN)
    other = caches.parses.parse("/w/other.pddl", DOMAIN + " ")
    old_index = index_of_document(caches, old, None, None)
    index_of_document(caches, other, None, None)
    new_text = DOMAIN + "  "
    new = caches.parses.parse("/w/domain.pddl", new_text)
    index_of_document(caches, new, None, None)
    caches.tokens.get((((old.path, old.text),), "utf-16", None), lambda: [1, 2])
    caches.mappers.get((old.path, old.text, "utf-16"), lambda: RangeMapper(old.text, "utf-16"))
    assert len(builds) == 3

    assert caches.retire("/w/../w/domain.pddl", new_text) == 4  # however the path is spelled
    assert len(caches.tokens) == 0 and len(caches.mappers) == 0
    assert caches.parses.parse("/w/domain.pddl", new_text) is new
    index_of_document(caches, new, None, None)
    index_of_document(caches, other, None, None)
    assert len(builds) == 3  # the current version and the other file were kept
    assert index_of_document(caches, old, None, None) is not old_index  # rebuilt if ever asked again
    assert len(builds) == 4


def test_a_text_still_open_elsewhere_is_not_retired() -> None:
    caches = ServerCaches()
    shared = caches.parses.parse("/w/a.pddl", DOMAIN)
    assert caches.retire("/w/a.pddl", None, live={DOMAIN}) == 0
    assert caches.parses.parse("/w/a.pddl", DOMAIN) is shared
    assert caches.retire("/w/a.pddl", None) == 1  # closed, and no other buffer has that text


def test_the_index_kept_for_the_next_update_is_the_current_one_and_goes_with_the_file() -> None:
    """Updating needs the previous version's index: the server keeps the latest one per file, which
    once the current version is indexed is that version's own (no second index held), and forgets it
    when the file is closed."""
    caches = ServerCaches()
    indexes = []
    for text in (PROBLEM, PROBLEM.replace("(clear a)", "(clear a) (clear b)")):
        request = _request(text)
        analyse(request, caches)
        caches.retire(request.path, text)
        context = build_context(_as_context_request(request), caches)
        assert context is not None
        indexes.append(index_of(context))
    base = caches.index_base("/w/p.pddl")
    assert base is not None and base[1] is indexes[-1]
    assert [o.text for o in indexes[-1].occurrences].count("b") == 4  # the new fact's `b` is indexed
    caches.retire("/w/p.pddl", None)
    assert caches.index_base("/w/p.pddl") is None


def _indexed_now(request: AnalysisRequest, caches: ServerCaches) -> symbols.SymbolIndex:
    context = build_context(_as_context_request(request), caches)  # what a definition request does
    assert context is not None
    return index_of(context)


def _full_build(request: AnalysisRequest) -> list[symbols.Occurrence]:
    return list(_indexed_now(request, ServerCaches()).occurrences)


def test_versions_that_go_by_unparsed_are_indexed_as_one_edit(builds: list[str]) -> None:
    """While the user types into a large file, the analysis runs on the text as it is when typing
    pauses: the versions in between are never parsed. The index kept is that of the latest parse, so
    the next one is updated from it across all the skipped versions, not built again."""
    caches = ServerCaches()
    request = _request()
    analyse(request, caches)
    warm_version(request, caches)
    texts = [PROBLEM.replace("(clear a)", "(clear a)" + " (clear b)" * n) for n in range(1, 4)]
    for text in texts:
        caches.retire("/w/p.pddl", text)  # each keystroke
        caches.retire("/w/p.pddl", text)  # (and again after each publication)
    assert caches.index_base("/w/p.pddl") is not None
    last = _request(texts[-1])
    analyse(last, caches)
    assert builds == ["/w/p.pddl", "updated /w/p.pddl"]  # indexed as it was parsed
    index = _indexed_now(last, caches)
    assert builds == ["/w/p.pddl", "updated /w/p.pddl"]  # the request found it
    base = caches.index_base("/w/p.pddl")
    assert base is not None and base[1] is index
    assert list(index.occurrences) == _full_build(last)


def test_every_parsed_version_is_indexed_even_when_no_request_asks(builds: list[str]) -> None:
    """A version whose analysis was overtaken by the next edit (never published, never warmed) is
    still indexed as it is parsed, so the chain of updates goes on through it."""
    caches = ServerCaches()
    request = _request()
    analyse(request, caches)
    warm_version(request, caches)
    text = PROBLEM
    for n in range(4):
        text = text.replace("(:init", f"(:init (clear b) (on-table a{' ' * (n % 2)})", 1)
        caches.retire("/w/p.pddl", text)
        caches.parses.parse("/w/p.pddl", text)  # parsed (by an analysis or a request), nothing else
    assert builds == ["/w/p.pddl"] + ["updated /w/p.pddl"] * 4
    index = _indexed_now(_request(text), caches)
    assert len(builds) == 5  # the request found the index of the last parse
    assert list(index.occurrences) == _full_build(_request(text))


def test_a_build_overtaken_by_the_next_parse_is_caught_up_with_it(builds: list[str]) -> None:
    """A full build (~150 ms for a 1 MB problem) often ends after the next keystroke's text has been
    parsed: that parse found no index to update, so the build's index is updated to it on the spot,
    and the chain goes on from the latest parse instead of staying broken."""
    caches = ServerCaches()
    older = PROBLEM.replace("(clear a)", "(clear a) (clear b)")
    newer = older.replace("(clear b)", "(clear b) (on-table a)", 1)
    caches.parses.parse("/w/p.pddl", older)
    caches.parses.parse("/w/p.pddl", newer)  # parsed while the build below still ran: no index yet
    assert caches.index_base("/w/p.pddl") is None
    _indexed_now(_request(older), caches)  # the build, ending late
    assert builds == ["/w/p.pddl", "updated /w/p.pddl"]
    base = caches.index_base("/w/p.pddl")
    assert base is not None and base[0][1] == newer
    index = _indexed_now(_request(newer), caches)
    assert builds == ["/w/p.pddl", "updated /w/p.pddl"]  # the request found the caught-up index
    assert base[1] is index
    assert list(index.occurrences) == _full_build(_request(newer))


def test_a_request_two_versions_late_does_not_turn_the_chain_back(builds: list[str]) -> None:
    """An index of a text that no parse starts from any more is not kept: the chain stays on the
    latest parse."""
    caches = ServerCaches()
    texts = [PROBLEM.replace("(clear a)", "(clear a)" + " (clear b)" * n) for n in range(3)]
    parsed = [caches.parses.parse("/w/p.pddl", text) for text in texts[:2]]
    _indexed_now(_request(texts[1]), caches)
    caches.parses.parse("/w/p.pddl", texts[2])
    base = caches.index_base("/w/p.pddl")
    assert base is not None and base[0][1] == texts[2]
    index_of_document(caches, parsed[0], caches.parses.parse("/w/domain.pddl", DOMAIN), None)  # late
    base = caches.index_base("/w/p.pddl")
    assert base is not None and base[0][1] == texts[2]


def test_a_late_build_of_the_previous_version_leaves_the_chains_index_of_the_latest(
        builds: list[str]) -> None:
    """A request still computing for the previous version (its index retired with the edit) builds
    that index again: the latest parse was indexed already, and that index stays the one the chain goes
    on from and requests share (updating the chain again from the late build would give the next
    version an index whose declarations the semantic tokens never saw, and recolour the document)."""
    caches = ServerCaches()
    older = PROBLEM.replace("(clear a)", "(clear a) (clear b)")
    newer = older.replace("(clear b)", "(clear b) (on-table a)", 1)
    parsed = caches.parses.parse("/w/p.pddl", older)
    _indexed_now(_request(older), caches)
    caches.parses.parse("/w/p.pddl", newer)
    base = caches.index_base("/w/p.pddl")
    assert base is not None and base[0][1] == newer
    caches.retire("/w/p.pddl", newer)
    index_of_document(caches, parsed, caches.parses.parse("/w/domain.pddl", DOMAIN), None)  # late
    assert builds == ["/w/p.pddl", "updated /w/p.pddl", "/w/p.pddl"]
    kept = caches.index_base("/w/p.pddl")
    assert kept is not None and kept[1] is base[1]
    assert _indexed_now(_request(newer), caches) is base[1]


def _indexed_then_edited(objects: str) -> tuple[ServerCaches, str]:
    """The problem analysed and indexed, then its object list edited to ``objects`` and analysed."""
    caches = ServerCaches()
    request = _request()
    analyse(request, caches)
    warm_version(request, caches)
    text = PROBLEM.replace("(:objects a b)", objects)
    caches.retire("/w/p.pddl", text)
    analyse(_request(text), caches)
    return caches, text


def test_an_edit_that_moves_a_repeated_declaration_lets_the_index_go() -> None:
    """An object declared again before its first declaration: which one the name means moves with the
    edit, which no update follows, so the old index is not kept (it would only pin its version's
    memory), and the next index is built in full."""
    caches, text = _indexed_then_edited("(:objects b a b)")
    assert caches.index_base("/w/p.pddl") is None
    assert list(_indexed_now(_request(text), caches).occurrences) == _full_build(_request(text))
    assert caches.index_base("/w/p.pddl") is not None


@pytest.mark.parametrize("objects", ["(:objects a b c)", "(:objects c a b)", "(:objects a c b)",
                                     "(:objects b)", "(:objects b a)"])
def test_an_object_added_removed_or_moved_keeps_the_chain(objects: str) -> None:
    """Wherever an object is typed, deleted or moved (the declarations after it move): the index
    follows the edit (``update_index``) and equals the full build."""
    caches, text = _indexed_then_edited(objects)
    base = caches.index_base("/w/p.pddl")
    assert base is not None and base[0][1] == text
    assert list(_indexed_now(_request(text), caches).occurrences) == _full_build(_request(text))


def test_a_failure_while_indexing_a_parse_costs_the_index_not_the_parse(
        monkeypatch: pytest.MonkeyPatch) -> None:
    caches = ServerCaches()
    request = _request()
    analyse(request, caches)
    warm_version(request, caches)

    def broken(self: index_chain.IndexChain, parsed: object) -> None:
        raise RuntimeError("index bug")

    monkeypatch.setattr(index_chain.IndexChain, "_advance", broken)
    text = PROBLEM.replace("(clear a)", "(clear a) (clear b)")
    outcome = analyse(_request(text), caches)
    assert outcome.snapshot.parsed is not None and outcome.snapshot.parsed.text == text
    assert [d.code for d in outcome.snapshot.diagnostics] == [
        d.code for d in analyse(_request(text), ServerCaches()).snapshot.diagnostics]


def test_a_failing_follower_costs_neither_the_parse_nor_its_index() -> None:
    """What follows each indexed parse (the semantic tokens) may fail; the parse keeps its diagnostics
    and its index, and later followers are still told."""
    caches = ServerCaches()
    request = _request()
    analyse(request, caches)
    warm_version(request, caches)
    told: list[str] = []

    def broken(parsed: object, index: object) -> None:
        raise RuntimeError("follower bug")

    caches.chain.listeners.extend([broken, lambda parsed, index: told.append(parsed.text)])  # type: ignore[attr-defined]
    text = PROBLEM.replace("(clear a)", "(clear a) (clear b)")
    outcome = analyse(_request(text), caches)
    assert outcome.snapshot.parsed is not None and outcome.snapshot.parsed.text == text
    assert told == [text]
    base = caches.chain.base("/w/p.pddl")
    assert base is not None and base[0][1] == text

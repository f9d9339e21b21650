"""Unit tests of the language server's parts that need no client: settings, conversion to LSP types,
the unsaved-buffer overlay, the shared parse cache, and the never-raising analysis job.

The end-to-end behaviour is in ``test_lsp_diagnostics.py``; these pin down the edge cases that are
awkward to reach through a real client (astral characters, concurrent parses, crashing checks).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types

from plansight.analyses.diagnostics.diagnostic import Related, Severity, Tag, make
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.workspace.sources import DiskSource, MemorySource
from plansight.server import analysis, documents
from plansight.server.analysis import AnalysisRequest, analyse
from plansight.server.caches import ServerCaches
from plansight.server.convert import RangeMapper, to_lsp_diagnostics
from plansight.server.documents import OpenDocument, OverlaySource, ParseCache
from plansight.server.settings import DomainGlob, Settings, read_settings, section_of

# --- settings ------------------------------------------------------------------------------------


def test_settings_are_read_from_nested_and_dotted_keys() -> None:
    nested = read_settings(section_of({"plansight": {
        "domainGlobs": [{"glob": "problems/*.pddl", "domain": "domain.pddl"}],
        "diagnostics": {"debounceMs": 5, "maxFileSizeMB": 2}}}))
    assert nested.complaints == ()
    assert nested.settings == Settings((DomainGlob("problems/*.pddl", "domain.pddl"),), 5, 2.0)
    dotted = read_settings(section_of({"diagnostics.debounceMs": 40}))
    assert dotted.settings.debounce_ms == 40 and dotted.complaints == ()


def test_each_invalid_setting_falls_back_to_its_default_with_a_complaint() -> None:
    read = read_settings({"diagnostics": {"debounceMs": -3, "maxFileSizeMB": "big"},
                          "domainGlobs": [{"glob": "*.pddl"}, {"glob": "p/*.pddl", "domain": "d.pddl"}]})
    assert read.settings == Settings((DomainGlob("p/*.pddl", "d.pddl"),))  # the valid entry survives
    assert len(read.complaints) == 3
    debounce, size, glob = read.complaints
    assert "debounceMs" in debounce and "-3" in debounce and "using 20" in debounce
    assert "maxFileSizeMB" in size and "'big'" in size
    assert "domainGlobs[0]" in glob


def test_a_boolean_is_not_a_number_of_milliseconds() -> None:
    read = read_settings({"diagnostics": {"debounceMs": True}})
    assert read.settings.debounce_ms == Settings().debounce_ms
    assert len(read.complaints) == 1


def test_unrelated_settings_are_not_mistaken_for_ours() -> None:
    assert section_of({"python": {"analysis": {}}}) is None
    assert section_of(None) is None
    assert section_of([1, 2]) is None


# --- conversion ----------------------------------------------------------------------------------


def test_ranges_count_utf16_code_units_by_default() -> None:
    text = "; 😀 é\n(define (domain x))\n"
    mapper = RangeMapper(text)
    x = text.index("x")
    assert mapper.range(Span(x, x + 1)) == types.Range(start=types.Position(line=1, character=16),
                                                       end=types.Position(line=1, character=17))
    after_emoji = text.index(" é")
    # the emoji is one code point but two UTF-16 units: "; " (2) + 2 = 4
    assert mapper.position(after_emoji) == types.Position(line=0, character=4)


def test_ranges_follow_a_negotiated_utf8_or_utf32_encoding() -> None:
    text = "é😀x"
    x = text.index("x")
    assert RangeMapper(text, types.PositionEncodingKind.Utf8).position(x).character == 2 + 4
    assert RangeMapper(text, types.PositionEncodingKind.Utf32).position(x).character == 2
    assert RangeMapper(text, types.PositionEncodingKind.Utf16).position(x).character == 1 + 2


def test_a_diagnostic_keeps_code_severity_tags_related_locations_and_data(tmp_path: Path) -> None:
    text = "(define (domain d)\n  (:predicates (p) (p)))\n"
    partner = tmp_path / "domain.pddl"
    partner_text = "(define (domain d)\n  (:predicates (clear ?x)))\n"
    first, second = text.index("(p)") + 1, text.rindex("(p)") + 1
    clear = partner_text.index("clear")
    diagnostic = make(
        "duplicate-declaration", "`p` is declared twice.", Span(second, second + 1),
        tags=(Tag.UNNECESSARY,),
        related=(Related("first declared here", Span(first, first + 1)),
                 Related("declared in the domain", Span(clear, clear + 5), str(partner))),
        data=(("suggestion", "q"),))
    (converted,) = to_lsp_diagnostics([diagnostic], text, "file:///w/x.pddl", "utf-16",
                                      lambda path: partner_text if path == str(partner) else None)
    assert converted.code == "duplicate-declaration"
    assert converted.source == "plansight"
    assert converted.severity == types.DiagnosticSeverity.Error
    assert converted.tags == [types.DiagnosticTag.Unnecessary]
    assert converted.range == types.Range(start=types.Position(line=1, character=20),
                                          end=types.Position(line=1, character=21))
    same, other = converted.related_information or []
    assert same.location.uri == "file:///w/x.pddl"
    assert same.location.range.start == types.Position(line=1, character=16)
    assert other.location.uri == partner.as_uri()
    assert other.location.range == types.Range(start=types.Position(line=1, character=16),
                                               end=types.Position(line=1, character=21))
    assert converted.data == {"code": "duplicate-declaration", "suggestion": "q"}


def test_severities_map_one_to_one() -> None:
    mapped = {
        severity: to_lsp_diagnostics([make("syntax-error", "m", Span(0, 0), severity=severity)], "", "u",
                                     "utf-16", lambda _p: None)[0].severity
        for severity in Severity
    }
    assert mapped == {Severity.ERROR: types.DiagnosticSeverity.Error,
                      Severity.WARNING: types.DiagnosticSeverity.Warning,
                      Severity.INFORMATION: types.DiagnosticSeverity.Information,
                      Severity.HINT: types.DiagnosticSeverity.Hint}


# --- overlay and parse cache ---------------------------------------------------------------------


def test_unsaved_buffers_win_over_the_disk_and_new_buffers_are_listed(tmp_path: Path) -> None:
    (tmp_path / "domain.pddl").write_text("on disk")
    unsaved = {
        "a": OpenDocument("a", str(tmp_path / "domain.pddl"), 3, "in the editor"),
        "b": OpenDocument("b", str(tmp_path / "new.pddl"), 1, "never saved"),
        "c": OpenDocument("c", "untitled:Untitled-1", 1, "no file"),
    }
    overlay = OverlaySource.of(unsaved, DiskSource())
    assert overlay.read(str(tmp_path / "domain.pddl")) == "in the editor"
    assert overlay.read(str(tmp_path / "sub" / ".." / "new.pddl")) == "never saved"
    assert overlay.list_dir(str(tmp_path)) == ["domain.pddl", "new.pddl"]
    # an untitled buffer's partners would be relative to the server's working directory: refused
    assert overlay.read("domain.pddl") is None and overlay.list_dir(".") == []


def test_the_parse_cache_parses_each_text_once_even_when_asked_concurrently(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = documents.parse_document

    def slow_parse(path: str, text: str):  # type: ignore[no-untyped-def]
        calls.append(text)
        time.sleep(0.05)
        return real(path, text)

    monkeypatch.setattr(documents, "parse_document", slow_parse)
    cache = ParseCache()
    results = []
    threads = [threading.Thread(target=lambda: results.append(cache.parse("/w/p.pddl", "(define")))
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == ["(define"]
    assert all(result is results[0] for result in results)


def test_the_parse_cache_keeps_only_the_latest_versions_of_a_file() -> None:
    cache = ParseCache(versions_per_file=2)
    first = cache.parse("/w/p.pddl", "v1")
    cache.parse("/w/p.pddl", "v2")
    assert cache.parse("/w/p.pddl", "v2") is cache.parse("/w/p.pddl", "v2")
    cache.parse("/w/p.pddl", "v3")
    assert len(cache) == 2
    assert cache.parse("/w/p.pddl", "v1") is not first  # evicted, so parsed again


# --- the analysis job ----------------------------------------------------------------------------


def _request(path: str, text: str, source: OverlaySource | None = None,
             **settings_: object) -> AnalysisRequest:
    return AnalysisRequest(
        uri="file://" + path, path=path, version=1, text=text,
        source=source or OverlaySource({}, MemorySource({})),
        settings=Settings(**settings_),  # type: ignore[arg-type]
        encoding="utf-16", workspace_root=None)


def test_a_file_over_the_limit_gets_one_information_diagnostic_instead_of_an_analysis() -> None:
    outcome = analyse(_request("/w/p.pddl", "(define (problem p)" + " " * 3000, max_file_size_mb=0.001),
                      ServerCaches())
    (diagnostic,) = outcome.lsp_diagnostics
    assert diagnostic.code == "file-too-large"
    assert diagnostic.severity == types.DiagnosticSeverity.Information
    assert outcome.snapshot.parsed is None


def test_a_crash_inside_the_analysis_becomes_an_internal_error_diagnostic(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(self: object, path: str, text: str | None = None, **options: object) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(analysis.CachedAnalyzer, "lint", explode)
    outcome = analyse(_request("/w/d.pddl", "(define (domain d))"), ServerCaches())
    (diagnostic,) = outcome.lsp_diagnostics
    assert diagnostic.code == "internal-error"
    assert "RecursionError" in diagnostic.message
    assert diagnostic.range.start == types.Position(line=0, character=0)


def test_a_partner_source_that_raises_does_not_escape(tmp_path: Path) -> None:
    class Exploding:
        def read(self, path: str) -> str | None:
            raise RuntimeError("disk on fire")

        def list_dir(self, directory: str) -> list[str]:
            raise RuntimeError("disk on fire")

    problem = "(define (problem p) (:domain d) (:objects a) (:init) (:goal (and)))"
    request = _request(str(tmp_path / "p.pddl"), problem, OverlaySource({}, Exploding()))
    outcome = analyse(request, ServerCaches())
    assert "internal-error" in [d.code for d in outcome.lsp_diagnostics]


PDDL_PIECES = st.sampled_from([
    "(", ")", "(define", "(domain d)", "(problem p)", "(:domain d)", "(:predicates (p ?x))", "(:action a",
    ":parameters (?x)", ":precondition", ":effect", "(and", "(not (p ?x))", "(:objects a b - t)", "(:init",
    "(:goal", "?x", "- object", ";comment\n", "\n", "\r\n", " ", "é", "😀", "\t", "#", "\"",
])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=st.lists(PDDL_PIECES, max_size=40), name=st.sampled_from(["/w/x.pddl", "/w/x.plan", "/w/x"]))
def test_any_text_yields_diagnostics_inside_the_document(pieces: list[str], name: str) -> None:
    text = "".join(pieces)
    outcome = analyse(_request(name, text), ServerCaches())
    lines = text.split("\n")
    for diagnostic in outcome.lsp_diagnostics:
        for position in (diagnostic.range.start, diagnostic.range.end):
            assert 0 <= position.line < len(lines)
            line = lines[position.line].removesuffix("\r")
            assert 0 <= position.character <= len(line.encode("utf-16-le")) // 2
        assert diagnostic.code != "internal-error", diagnostic.message

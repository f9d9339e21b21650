"""An index updated edit after edit answers every question as the index built from scratch does.

An updated index moves the occurrences after an edit only when they are read
(``editing/symbols.py``, ``_Pieces``), so here the questions are asked of a chain of updates that are
never read as a whole in between (``test_incremental_parse.py`` compares whole occurrence lists, which
makes every update's copies): the name at each offset, the occurrences in a range, the references to
each declaration, and finally the whole list.
"""

from __future__ import annotations

import bisect

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_incremental_parse import DOMAIN, edit_sequences, index_of
from test_lazy_readers import FACTS, apply, render
from test_lazy_readers import edits as list_edits

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing import symbols
from plansight.analyses.editing.symbols import SymbolIndex, build_index, update_index
from plansight.analyses.syntax.documents import ParsedDocument, parse_document, reparse_document
from plansight.server.caches import ServerCaches
from plansight.server.symbol_lookup import index_of_document


def assert_answers_alike(updated: SymbolIndex, full: SymbolIndex, text: str) -> None:
    assert len(updated.occurrences) == len(full.occurrences)
    for offset in range(0, len(text) + 1, 3):
        assert updated.at(offset) == full.at(offset), offset
    for start in range(0, len(text), 97):
        window = Span(start, start + 150)
        assert updated.in_range(window) == full.in_range(window)
    for target in {o.target for o in full.occurrences if o.target is not None}:
        assert updated.references_to(target) == full.references_to(target)
    assert updated.occurrences[-3:] == list(full.occurrences)[-3:]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edit_sequences())
def test_a_chain_of_updates_answers_as_a_full_build(
        case: tuple[str, str, list[tuple[int, int, str]]]) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(symbols, "_SHORT_RUN", 0)  # small files: keep even short runs moved when read
        _check_chain(*case)


def _check_chain(path: str, text: str, edits: list[tuple[int, int, str]]) -> None:
    current = parse_document(path, text)
    index = index_of(current)
    chained = 0
    for start, end, inserted in edits:
        text = text[:start] + inserted + text[end:]
        current = reparse_document(current, path, text)
        full = index_of(current)
        updated = None if current.derived is None else update_index(index, current.model,
                                                                     current.derived.splice)
        if updated is None:
            index, chained = full, 0
            continue
        chained += 1
        assert_answers_alike(updated, full, text)
        index = updated
    assert list(index.occurrences) == list(index_of(current).occurrences)


def test_typing_at_one_place_keeps_the_moved_occurrences_in_one_piece(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The case the pieces are for: many edits at the start of a long ``:init``."""
    facts = " ".join(f"(clear b{i})" for i in range(3000))
    objects = " ".join(f"b{i}" for i in range(3000))
    text = f"(define (problem p) (:domain bw) (:objects {objects}) (:init {facts}) (:goal (clear b1)))"
    monkeypatch.setattr(symbols, "_SHORT_RUN", 100)
    current = parse_document("p.pddl", text)
    index = index_of(current)
    at = text.index("(:init") + len("(:init")
    for i in range(20):
        text = text[:at] + f" (clear b{i})" + text[at:]
        current = reparse_document(current, "p.pddl", text)
        assert current.derived is not None
        updated = update_index(index, current.model, current.derived.splice)
        assert updated is not None
        index = updated
    assert len(index.occurrences._pieces) <= 2  # type: ignore[attr-defined]
    assert list(index.occurrences) == list(index_of(current).occurrences)


PARTNER_PATH = "/w/partner-domain.pddl"
STEPS = ("typed", "parsed", "asked", "asked late")
"""What happens to each version in the server: nothing but the keystroke (the analysis runs later on
a newer text: versions skipped, edits coalesced), parsed only (an analysis overtaken by the next edit,
or a request that reads no index), parsed and its index asked for (a definition request), or parsed
and then a request still computing for the version before asks for that one's (out of order)."""


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edit_sequences(), st.data())
def test_the_servers_chains_of_updates_answer_as_full_builds(
        case: tuple[str, str, list[tuple[int, int, str]]], data: st.DataObject) -> None:
    """The server indexes each parse by updating its previous parse's index (``index_chain.py``),
    through whatever versions went by unparsed; every index a request gets is the full build's."""
    path, text, edits = case
    steps = data.draw(st.lists(st.sampled_from(STEPS), min_size=len(edits), max_size=len(edits)))
    texts = []
    for start, end, inserted in edits:
        text_after = (texts[-1] if texts else text)
        texts.append(text_after[:start] + inserted + text_after[end:])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(symbols, "_SHORT_RUN", 0)
        _check_server_chain("/w/" + path, text, list(zip(texts, steps, strict=True)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(list_edits, st.data())
def test_the_servers_chains_of_updates_answer_as_full_builds_when_typing_in_the_lists(
        history: list[tuple[str, int, str, str]], data: st.DataObject) -> None:
    """The same, for the edits a chain of updates is made of: facts and goal atoms inserted and
    removed anywhere in a problem's ``:init`` and goal (a random edit often ends the chain)."""
    facts, goals = [*FACTS, *FACTS], ["(on b1 b2)", "(clear b3)"]
    text = render(facts, goals)
    texts = []
    for edit in history:
        apply(facts, goals, edit)
        texts.append(render(facts, goals))
    steps = data.draw(st.lists(st.sampled_from(STEPS), min_size=len(texts), max_size=len(texts)))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(symbols, "_SHORT_RUN", 0)
        _check_server_chain("/w/p.pddl", text, list(zip(texts, steps, strict=True)))


def _check_server_chain(path: str, text: str, history: list[tuple[str, str]]) -> None:
    caches = ServerCaches()
    partner = caches.parses.parse(PARTNER_PATH, DOMAIN)

    def asked(parsed: ParsedDocument) -> None:
        index = index_of_document(caches, parsed, partner, None)
        full = build_index(parse_document(path, parsed.text).model, path, domain=partner.domain,
                           domain_path=PARTNER_PATH)
        assert_answers_alike(index, full, parsed.text)

    previous = caches.parses.parse(path, text)
    asked(previous)  # the first index, built in full (the server warms it after opening the file)
    for text, step in history:
        caches.retire(path, text)  # what the server does on each keystroke
        if step == "typed":
            continue
        current = caches.parses.parse(path, text)
        if step == "asked":
            asked(current)
        elif step == "asked late":
            asked(previous)
        previous = current
    asked(caches.parses.parse(path, text))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 50), min_size=0, max_size=40, unique=True),
       st.lists(st.tuples(st.integers(0, 60), st.integers(0, 8), st.integers(-5, 5), st.integers(0, 4)),
                max_size=12),
       st.sampled_from([0, 3, 4096]))
def test_shifted_runs_of_starts_answer_as_the_shifted_list(
        first: list[int], edits: list[tuple[int, int, int, int]], short: int) -> None:
    """An updated index keeps its occurrences' starts as runs of older lists, shifted when read
    (``_Starts``): the bisections that find the name under the cursor and the names in a range must
    count what they count in the plain list. Each edit replaces the starts in ``[at, at + removed)``
    by ``inserted`` new ones and shifts the rest by ``delta`` (never below what precedes them)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(symbols, "_SHORT_RUN", short)
        plain = sorted(first)
        runs = symbols._Starts.of(list(plain))
        for at, removed, delta, inserted in edits:
            low = bisect.bisect_left(plain, at)
            high = bisect.bisect_left(plain, at + removed)
            shift = max(delta, inserted - removed)  # the starts after the edit stay after the new ones
            fresh = [at + i for i in range(inserted)]
            plain = [*plain[:low], *fresh, *(s + shift for s in plain[high:])]
            assert runs.bisect_left(at) == low and runs.bisect_left(at + removed) == high
            runs = symbols._Starts([*runs.cut(0, low), (fresh, 0, len(fresh), 0), *(
                (base, lo, hi, moved + shift) for base, lo, hi, moved in runs.cut(high, len(runs)))])
            assert list(runs) == plain and len(runs) == len(plain)
            assert [runs[i] for i in range(-len(plain), len(plain))] == plain + plain
            for value in range(-2, (plain[-1] if plain else 0) + 3):
                assert runs.bisect_left(value) == bisect.bisect_left(plain, value), value
                assert runs.bisect_right(value) == bisect.bisect_right(plain, value), value

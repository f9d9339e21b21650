"""An index updated edit after edit answers every question as the index built from scratch does.

An updated index moves the occurrences after an edit only when they are read
(``editing/symbols.py``, ``_Pieces``), so here the questions are asked of a chain of updates that are
never read as a whole in between (``test_incremental_parse.py`` compares whole occurrence lists, which
makes every update's copies): the name at each offset, the occurrences in a range, the references to
each declaration, and finally the whole list.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from test_incremental_parse import edit_sequences, index_of

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing import symbols
from plansight.analyses.editing.symbols import SymbolIndex, update_index
from plansight.analyses.syntax.documents import parse_document, reparse_document


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

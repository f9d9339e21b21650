"""The "did you mean" suggestion skips most candidates by cheap bounds; it must still name exactly the
candidate the plain definition names: the first with the highest difflib ratio, if at least 0.75."""

from __future__ import annotations

from difflib import SequenceMatcher

from hypothesis import given, settings
from hypothesis import strategies as st

from plansight.analyses.diagnostics.suggest import did_you_mean, suffix

_WORDS = st.text(alphabet="abcAB-_1é", max_size=8)


def _plain(word: str, candidates: list[str]) -> str | None:
    best, best_score = None, 0.0
    for candidate in candidates:
        if candidate == word.lower():
            continue
        score = SequenceMatcher(None, word.lower(), candidate.lower()).ratio()
        if score > best_score:
            best, best_score = candidate, score
    return best if best_score >= 0.75 else None


@settings(max_examples=3000, deadline=None)
@given(_WORDS, st.lists(_WORDS, max_size=10))
def test_the_suggestion_is_the_plain_definitions(word: str, candidates: list[str]) -> None:
    assert did_you_mean(word, candidates) == _plain(word, candidates)


def test_a_typo_among_many_objects_is_found() -> None:
    objects = [f"b{i}" for i in range(25_000)]
    for word in ("bx17", "B17", "b250000", "truck", "zz", ""):
        assert did_you_mean(word, objects) == _plain(word, objects)
    assert suffix("bx17", objects) == " Did you mean `b17`?"

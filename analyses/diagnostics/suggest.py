"""Near-miss names for "did you mean ...?" messages and quick fixes."""

from __future__ import annotations

from collections.abc import Iterable
from difflib import SequenceMatcher


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """The closest candidate if it is close enough to be a plausible typo of ``word``."""
    best, best_score = None, 0.0
    word = word.lower()
    for candidate in candidates:
        if candidate == word:
            continue
        score = SequenceMatcher(None, word, candidate.lower()).ratio()
        if score > best_score:
            best, best_score = candidate, score
    return best if best_score >= 0.75 else None


def suffix(word: str, candidates: Iterable[str]) -> str:
    """`` Did you mean `x`?`` or the empty string."""
    best = did_you_mean(word, candidates)
    return f" Did you mean `{best}`?" if best else ""

"""Near-miss names for "did you mean ...?" messages and quick fixes."""

from __future__ import annotations

from collections.abc import Iterable
from difflib import SequenceMatcher

_PLAUSIBLE = 0.75
"""The least similarity (difflib's ratio) at which a candidate is offered."""


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """The closest candidate if it is close enough to be a plausible typo of ``word``: the first of the
    candidates with the highest ``SequenceMatcher(None, word, candidate).ratio()`` (case folded), if that
    is at least 0.75.

    A problem of 25,000 objects asks this of every name it does not know, at every keystroke, and the
    ratio costs microseconds per candidate. Most candidates are ruled out first by two upper bounds of the
    ratio that cost far less, each ``2 * matches / total`` with more matches than the ratio can find: the
    shorter length, then the characters the two have in common, counted with repeats (difflib's
    ``quick_ratio``, with the word's counts made once). A candidate whose bound cannot beat the best so
    far (or reach 0.75) cannot change the answer.
    """
    best, best_score = None, 0.0
    word = word.lower()
    length = len(word)
    counts = [(c, word.count(c)) for c in set(word)]
    matcher = SequenceMatcher(None, word, "")
    for candidate in candidates:
        if candidate == word:
            continue
        lowered = candidate.lower()
        total = length + len(lowered)
        if total:
            bound = 2.0 * min(length, len(lowered)) / total
            if bound < _PLAUSIBLE or bound <= best_score:
                continue
            common = 0
            for character, count in counts:
                found = lowered.count(character)
                common += count if count < found else found
            bound = 2.0 * common / total
            if bound < _PLAUSIBLE or bound <= best_score:
                continue
        matcher.set_seq2(lowered)
        score = matcher.ratio()
        if score > best_score:
            best, best_score = candidate, score
    return best if best_score >= _PLAUSIBLE else None


def suffix(word: str, candidates: Iterable[str]) -> str:
    """`` Did you mean `x`?`` or the empty string."""
    best = did_you_mean(word, candidates)
    return f" Did you mean `{best}`?" if best else ""

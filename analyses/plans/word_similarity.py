"""Semantic similarity of action names (sigma, docs/metrics.md): Wu-Palmer over WordNet 3.0, or a fallback.

The paper (Armony et al. 2025) scores two differently named actions by NLTK's Wu-Palmer
similarity over WordNet. No PyPI package ships WordNet data NLTK reads offline, so we read Debian's
`wordnet-base` (WordNet 3.0 in `/usr/share/wordnet`) with NLTK's own reader. That directory lacks two
files NLTK's reader expects and our use never needs (`lexnames`, only for `Synset.lexname()`; the
`index.sense` mapping to other WordNet versions), so the reader is given a stand-in for the first
and told to skip the second.

Where WordNet is not installed, the fallback is a documented string similarity (difflib's ratio of
the normalised names), and every result says which source was used, because the two give different
numbers and a reader must know which ones they are looking at.
"""

from __future__ import annotations

import difflib
import io
import logging
import os
import threading
import warnings
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Literal

log = logging.getLogger(__name__)

SimilaritySource = Literal["wordnet-3.0", "fallback"]
SimilarityVersion = Literal["v1", "v2"]

WORDNET_DIRS = ("/usr/share/wordnet",)
"""Where Debian's `wordnet-base` puts WordNet 3.0; `PLANSIGHT_WORDNET` overrides (empty = none)."""

_LEXNAME_COUNT = 45  # WordNet 3.0 has 45 lexicographer files; their names do not matter here

_lock = threading.Lock()
_reader: Any = None
_loaded = False


def wordnet_dir() -> str | None:
    """The WordNet directory to read, or None when none is installed."""
    override = os.environ.get("PLANSIGHT_WORDNET")
    candidates = (override,) if override is not None else WORDNET_DIRS
    for directory in candidates:
        if directory and os.path.isfile(os.path.join(directory, "data.verb")):
            return directory
    return None


def _load_reader(directory: str) -> Any:
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class DebianWordNetReader(WordNetCorpusReader):  # type: ignore[misc]
        def open(self, file: str) -> Any:
            if file == "lexnames":
                return io.StringIO("".join(f"{i:02d}\tlex{i}\t1\n" for i in range(_LEXNAME_COUNT)))
            return super().open(file)

        def map_wn(self, version: str = "wordnet") -> None:
            return None

    # NLTK only opens corpus files under its data path (its path sandbox)
    if directory not in nltk.data.path:
        nltk.data.path.append(directory)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available": not needed
        return DebianWordNetReader(directory, None)


def wordnet() -> Any:
    """NLTK's WordNet reader over the installed WordNet 3.0, loaded once (about a second), or None."""
    global _reader, _loaded
    with _lock:
        if not _loaded:
            _loaded = True
            directory = wordnet_dir()
            if directory is not None:
                try:
                    _reader = _load_reader(directory)
                except Exception as error:  # a broken install must not break plan metrics
                    log.warning(
                        "cannot read WordNet in %s: %s; using the fallback similarity", directory, error
                    )
                    _reader = None
        return _reader


def source() -> SimilaritySource:
    """Which similarity `name_similarity` uses on this machine."""
    return "wordnet-3.0" if wordnet() is not None else "fallback"


def reset() -> None:
    """Forget the loaded reader (tests switch WordNet off and on with `PLANSIGHT_WORDNET`)."""
    global _reader, _loaded
    with _lock:
        _reader, _loaded = None, False
    _cached.cache_clear()


def _normalised(name: str) -> str:
    return name.lower().replace("_", " ").replace("-", " ")


def _first_verb_sense(wn: Any, first: str, second: str) -> float:
    """v1 (the paper's code of August 2025): first verb sense of each name as written, else 0."""
    senses1 = wn.synsets(first, pos=wn.VERB)
    senses2 = wn.synsets(second, pos=wn.VERB)
    if not senses1 or not senses2:
        return 0.0
    return float(senses1[0].wup_similarity(senses2[0]) or 0.0)


def _senses(wn: Any, word: str) -> list[Any]:
    return list(wn.synsets(word, pos=wn.VERB)) + list(wn.synsets(word, pos=wn.NOUN))


def _best_pair(wn: Any, first: str, second: str) -> float:
    best = 0.0
    for sense1 in _senses(wn, first):
        for sense2 in _senses(wn, second):
            value = sense1.wup_similarity(sense2)
            if value is not None and value > best:
                best = float(value)
    return best


def _phrase_then_words(wn: Any, first: str, second: str) -> float:
    """v2 (the code of January 2026): the whole name (verb or noun senses) when WordNet knows both,
    else the mean over the first name's words of the best pairing with any word of the second."""
    phrase1, phrase2 = _normalised(first), _normalised(second)
    senses1, senses2 = _senses(wn, phrase1), _senses(wn, phrase2)
    if senses1 and senses2:
        value = senses1[0].wup_similarity(senses2[0])
        if value is not None and value > 0:
            return float(value)
    words1, words2 = phrase1.split(), phrase2.split()
    if not words1:
        return 0.0
    scores = [max((_best_pair(wn, w1, w2) for w2 in words2), default=0.0) for w1 in words1]
    return sum(scores) / len(scores)


def fallback_similarity(first: str, second: str) -> float:
    """Without WordNet: difflib's ratio of the normalised names (0..1, 1 for equal names)."""
    return difflib.SequenceMatcher(None, _normalised(first), _normalised(second)).ratio()


@lru_cache(maxsize=65536)
def _cached(first: str, second: str, version: SimilarityVersion, use_wordnet: bool) -> float:
    wn = wordnet() if use_wordnet else None
    if wn is None:
        return fallback_similarity(first, second)
    measure: Callable[[Any, str, str], float] = _first_verb_sense if version == "v1" else _phrase_then_words
    try:
        return measure(wn, first, second)
    except Exception as error:  # NLTK on odd input (never seen); the pair then scores as unrelated
        log.warning("WordNet similarity of %r and %r failed: %s", first, second, error)
        return 0.0


def name_similarity(first: str, second: str, version: SimilarityVersion = "v1") -> float:
    """Wu-Palmer similarity of two action names (0..1) per the chosen version, or the fallback."""
    return _cached(first.lower(), second.lower(), version, wordnet() is not None)

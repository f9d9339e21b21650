"""Semantic similarity of action names (sigma, docs/metrics.md): Wu-Palmer over WordNet 3.0, or a fallback.

The paper (Armony et al. 2025) scores two differently named actions by NLTK's Wu-Palmer
similarity over WordNet 3.0, read with NLTK's own reader from the first of (see `locate_wordnet`):

1. `PLANSIGHT_WORDNET`: the copy the platform `.vsix` carries next to the server (its launcher
   points here), or any directory a user names; `PLANSIGHT_WORDNET=` (empty) switches WordNet off;
2. NLTK's data path (`nltk.data.path`), so that `pip install nltk` plus `nltk.download("wordnet")`
   works on macOS and Windows, which have no system WordNet;
3. Debian's `wordnet-base` in `/usr/share/wordnet` (`scripts/install-wordnet.sh`).

Debian's files (also what the `.vsix` carries) lack two files NLTK's reader expects and our use never
needs (`lexnames`, only for `Synset.lexname()`; the `index.sense` mapping to other WordNet
versions), so the reader is given a stand-in for the first and told to skip the second.

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
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

log = logging.getLogger(__name__)

SimilaritySource = Literal["wordnet-3.0", "fallback"]
SimilarityVersion = Literal["v1", "v2"]
WordNetOrigin = Literal["PLANSIGHT_WORDNET", "nltk-data", "debian"]

WORDNET_DIRS = ("/usr/share/wordnet",)
"""Where Debian's `wordnet-base` puts WordNet 3.0: the last place looked in."""

_LEXNAME_COUNT = 45  # WordNet 3.0 has 45 lexicographer files; their names do not matter here

_lock = threading.Lock()
_reader: Any = None
_loaded = False
_location: WordNetLocation | None = None


@dataclass(frozen=True, slots=True)
class WordNetLocation:
    """Where the WordNet being read comes from: a reader of numbers must be able to tell."""

    origin: WordNetOrigin
    root: Any
    """A directory path, or NLTK's path pointer (which may point into `wordnet.zip`)."""

    def describe(self) -> str:
        """For logs and the server's start-up notes: which copy, and where."""
        return f"WordNet 3.0 from {self.origin} ({self.root})"


def _has_wordnet(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "data.verb"))


def _nltk_data_wordnet() -> Any:
    """`corpora/wordnet` (a folder or NLTK's own `wordnet.zip`) on NLTK's data path, or None."""
    try:
        import nltk
    except ImportError:  # no NLTK (or no `regex`): nothing could read WordNet anyway
        return None
    # the folder first, then what `nltk.download("wordnet")` may leave alone (NLTK's own corpus
    # loader asks for the zip the same way)
    for resource in ("corpora/wordnet", "corpora/wordnet.zip/wordnet/"):
        try:
            root = nltk.data.find(resource)
            root.join("data.verb")  # raises when this is not WordNet
        except (LookupError, OSError):
            continue
        return root
    return None


def locate_wordnet() -> WordNetLocation | None:
    """The first WordNet 3.0 found in the order of this module's docstring, or None."""
    override = os.environ.get("PLANSIGHT_WORDNET")
    if override == "":
        return None
    if override:
        if _has_wordnet(override):
            return WordNetLocation("PLANSIGHT_WORDNET", override)
        log.warning("PLANSIGHT_WORDNET=%s has no WordNet (no data.verb); looking elsewhere", override)
    root = _nltk_data_wordnet()
    if root is not None:
        return WordNetLocation("nltk-data", root)
    for directory in WORDNET_DIRS:
        if _has_wordnet(directory):
            return WordNetLocation("debian", directory)
    return None


def wordnet_available() -> bool:
    """Whether some WordNet can be found, cheaply: NLTK (over a second to import) only when neither
    the bundled nor Debian's copy is there, as on macOS and Windows without the platform `.vsix`."""
    override = os.environ.get("PLANSIGHT_WORDNET")
    if override == "":
        return False
    if any(_has_wordnet(directory) for directory in (override or "", *WORDNET_DIRS) if directory):
        return True
    return locate_wordnet() is not None


def wordnet_dir() -> str | None:
    """The WordNet to read as a path (NLTK's pointer printed), or None when none is installed."""
    location = locate_wordnet()
    return None if location is None else str(location.root)


def _load_reader(directory: Any) -> Any:
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class DebianWordNetReader(WordNetCorpusReader):  # type: ignore[misc]
        def open(self, file: str) -> Any:
            if file == "lexnames":
                return io.StringIO("".join(f"{i:02d}\tlex{i}\t1\n" for i in range(_LEXNAME_COUNT)))
            return super().open(file)

        def map_wn(self, version: str = "wordnet") -> None:
            return None

    # NLTK only opens corpus files under its data path (its path sandbox); a pointer NLTK found
    # is under it already
    if isinstance(directory, str) and directory not in nltk.data.path:
        nltk.data.path.append(directory)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available": not needed
        return DebianWordNetReader(directory, None)


def wordnet() -> Any:
    """NLTK's WordNet reader over the installed WordNet 3.0, loaded once (about a second), or None."""
    global _reader, _loaded, _location
    with _lock:
        if not _loaded:
            _loaded = True
            location = locate_wordnet()
            if location is not None:
                try:
                    _reader = _load_reader(location.root)
                    _location = location
                    log.info("name similarity: %s", location.describe())
                except Exception as error:  # a broken install must not break plan metrics
                    log.warning(
                        "cannot read %s: %s; using the fallback similarity", location.describe(), error
                    )
                    _reader = None
        return _reader


def wordnet_location() -> WordNetLocation | None:
    """Which WordNet `name_similarity` reads (loading it if needed), or None for the fallback."""
    return _location if wordnet() is not None else None


def source() -> SimilaritySource:
    """Which similarity `name_similarity` uses on this machine."""
    return "wordnet-3.0" if wordnet() is not None else "fallback"


def reset() -> None:
    """Forget the loaded reader (tests switch WordNet off and on with `PLANSIGHT_WORDNET`)."""
    global _reader, _loaded, _location
    with _lock:
        _reader, _loaded, _location = None, False, None
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

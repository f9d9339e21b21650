"""The symbol index of each new version of a file, updated from the previous version's as it is parsed.

Requests that read the index (definition, references, highlight, rename, semantic tokens) need the
current version's. Building it for a 1 MB problem reads every list, ~150 ms; updating the previous
version's where the incremental parse changed the model (``editing/symbols.py``, ``update_index``)
takes ~5 ms for an edit in ``:init``. The update needs the index of the very text the new one was
parsed from, so the server indexes every parse as it is made (:meth:`IndexChain.follow`): indexing
only the versions some request or a pause in typing asked for broke the chain whenever a version went
by unindexed, and the next index was built from scratch (benchmarks/RESULTS.md, "Requests that read
part of a lazily moved list").
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable

from plansight.analyses.editing.symbols import SymbolIndex, update_index
from plansight.analyses.memo import Memo
from plansight.analyses.syntax.documents import ParsedDocument
from plansight.server.documents import path_key

logger = logging.getLogger(__name__)

VersionKey = tuple[str, str] | None
"""One document version: its path and text (None: no such partner)."""
IndexKey = tuple[str, str, bool, VersionKey, VersionKey]
"""A symbol index: the document's path and text, whether it is an LTL goal, its partners' versions."""
Base = tuple[IndexKey, SymbolIndex]

INDEX_BASES = 8
"""files whose latest index is kept for updating the next version's (the files being edited)"""


def same_text(a: str, b: str) -> bool:
    """Whether two texts are equal, without comparing a megabyte when they are one object."""
    return a is b or a == b


class IndexChain:
    """Per file, the index of its latest parse (the base), moved along by each new parse.

    Holds no reference to the parse cache that calls :meth:`follow` (nor to the server's caches),
    so that nothing here forms a reference cycle: the server frees what an analysis leaves by
    reference counting alone (``memory.py``).
    """

    def __init__(self, indexes: Memo[IndexKey, SymbolIndex]) -> None:
        self._indexes = indexes
        """the server's indexes by key, where each updated index is stored for the requests"""
        self._bases: OrderedDict[str, Base] = OrderedDict()
        """path key -> the index of the file's latest parse and its key; kept when an edit retires it
        from ``indexes``, for the next parse"""
        self._lock = threading.Lock()
        self.listeners: list[Callable[[ParsedDocument, SymbolIndex], None]] = []
        """told of each parse indexed by an update, outside the lock (the semantic tokens follow it)"""

    def base(self, path: str) -> Base | None:
        """The index of ``path``'s latest parse and its key (None when that parse could not be indexed
        by an update and no request has built its index since)."""
        with self._lock:
            return self._bases.get(path_key(path))

    def keep(self, key: IndexKey, index: SymbolIndex,
             latest: Callable[[str], ParsedDocument | None]) -> None:
        """Make ``index`` (of ``key``, just built in full by a request or a warm-up) its file's base.

        A build takes long enough (~150 ms for a 1 MB problem) for the user to type on meanwhile: when
        ``latest(path)``, the file's latest parse, has moved on to a newer text parsed from this one,
        that parse's index is updated from ``index`` at once and becomes the base instead; had the chain
        waited for the next parse, it would have found no base and stayed broken for as long as each
        build ends after the next keystroke's parse. An index of an older text still (a request that
        was computing for a version two edits back) is not kept: no parse starts from it. Nor is one
        whose newer parse the chain has indexed already: requests share that index, and the semantic
        tokens that followed it know its declarations (updating the chain again from a second index of
        the same declarations would make the next version's tokens recolour the whole document)."""
        with self._lock:
            parsed = latest(key[0])
            if parsed is not None and not same_text(parsed.text, key[1]):
                current = self._bases.get(path_key(key[0]))
                if current is not None and current[0][0] == key[0] and same_text(
                        current[0][1], parsed.text) and current[0][2:] == key[2:]:
                    return  # the chain has indexed the latest parse already
                derived = parsed.derived
                if derived is None or not same_text(derived.previous_text, key[1]):
                    return
                self._set(path_key(key[0]), key, index)
                made = self._advance(parsed)
            else:
                self._set(path_key(key[0]), key, index)
                made = None
        if made is not None and parsed is not None:
            self._store(*made)
            self._announce(parsed, made[1])

    def forget(self, path: str) -> None:
        """The file was closed: its base goes with it."""
        with self._lock:
            self._bases.pop(path_key(path), None)

    def follow(self, parsed: ParsedDocument) -> None:
        """Index a new parse of a file whose previous parse has an index, by updating that one, and
        make it the file's base. A parse that cannot be indexed this way (an edit to declarations other
        than a problem's objects, an object declared twice, a domain, a full parse) ends the chain:
        the base is let go, since it can never be updated again (it would only pin its version's
        memory), and the next index is built in full when a request or a pause in typing asks for it."""
        with self._lock:
            made = self._advance(parsed)
        if made is not None:
            self._store(*made)
            self._announce(parsed, made[1])

    def _announce(self, parsed: ParsedDocument, index: SymbolIndex) -> None:
        for listener in self.listeners:
            try:
                listener(parsed, index)
            except Exception:  # a listener's bug must not cost the parse its index or its diagnostics
                logger.exception("following the parse of %s failed", parsed.path)

    def _advance(self, parsed: ParsedDocument) -> Base | None:
        """Under the lock (so that a parse and a request's build never advance the chain at once and
        leave it behind the latest parse): move the file's base to ``parsed``, or let it go; returns
        the new base."""
        file = path_key(parsed.path)
        base = self._bases.get(file)
        if base is None or (base[0][0] == parsed.path and same_text(base[0][1], parsed.text)):
            return None  # no chain, or a request's build has caught up with this parse already
        updated = self._updated(parsed, base)
        if updated is None:
            del self._bases[file]
            return None
        key: IndexKey = (parsed.path, parsed.text, base[0][2], base[0][3], base[0][4])
        self._set(file, key, updated)
        return key, updated

    def _set(self, file: str, key: IndexKey, index: SymbolIndex) -> None:
        self._bases[file] = (key, index)
        self._bases.move_to_end(file)
        while len(self._bases) > INDEX_BASES:
            self._bases.popitem(last=False)

    def _store(self, key: IndexKey, index: SymbolIndex) -> None:
        """Offer an updated index to the requests, outside the lock: a request building the same
        version's index meanwhile holds that memo entry and asks for the base (:meth:`base`)."""
        if key not in self._indexes:
            self._indexes.get(key, lambda: index)

    def _updated(self, parsed: ParsedDocument, base: Base) -> SymbolIndex | None:
        """``parsed``'s index updated from that of the text it was parsed from: the base, or when the
        base is another version (two texts parsed at once) that text's index if it is still cached."""
        derived = parsed.derived
        base_key, base_index = base
        if derived is None or base_key[2] or base_key[0] != parsed.path:
            return None
        if not same_text(base_key[1], derived.previous_text):
            previous = self._indexes.ready((parsed.path, derived.previous_text, *base_key[2:]))
            if previous is None:
                return None
            base_index = previous
        try:
            return update_index(base_index, parsed.model, derived.splice)
        except Exception:  # a bug here must cost a full build when the index is asked for, not the parse
            logger.exception("updating the symbol index of %s failed", parsed.path)
            return None

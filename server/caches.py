"""Everything one server instance remembers between requests, in one place owned by that instance.

An editor asks about one version of a document many times (diagnostics, then hover, semantic
tokens, the code lens, formatting on save); on a 1 MB problem each answer costs hundreds of
milliseconds of pure Python, so each is kept for the latest versions. All of it hangs off the
server instance (``DiagnosticsFeature.caches``), never off a module: two servers in one process share
nothing, and the answers of a server that shut down are freed with it. Every cache is a
:class:`~plansight.analyses.memo.Memo` keyed by the texts involved (a document version is its path
and text), so an edit is a new key and nothing is ever stale.

What is never stale can still be dead: once the editor has moved a file to a new text, nothing asks
about the old one again (requests read the current buffer, and a published snapshot is only read
while its version is the buffer's). An old version of a 1 MB problem is a model and an index of
about 70 MB, so :meth:`ServerCaches.retire` forgets a file's other versions as soon as its text
changes, before the new text is analysed: the new model is then built in the memory the old one
gave back, and editing a large file holds one version instead of two (docs/reliability.md, Memory).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable
from typing import Any

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing.formatter import TextEdit
from plansight.analyses.editing.symbols import SymbolIndex
from plansight.analyses.memo import Memo
from plansight.analyses.syntax.documents import ParsedDocument
from plansight.analyses.workspace.lint import AnalyzerCaches
from plansight.server.convert import RangeMapper
from plansight.server.documents import ParseCache, path_key
from plansight.server.index_chain import IndexChain, IndexKey, VersionKey

INDEXES = 16
INDEX_VERSIONS_PER_FILE = 2
"""the version being edited and the one before it, as the parse cache keeps them: each index keeps
about as much memory as its model (~100 MB for a 1 MB problem), so editing one large file must not
fill the cache with its old versions"""


PROBLEM_CHECKS = 8
"""problems whose latest check is kept for the next version's (the files being edited, in practice):
the bookkeeping is a key and a byte per fact, a few megabytes for a 1 MB problem, and it holds only
nodes of the latest version"""


def version_of(parsed: ParsedDocument | None) -> VersionKey:
    return None if parsed is None else (parsed.path, parsed.text)


def _file_of(key: tuple[Hashable, ...]) -> Hashable:
    return key[0]


def _mentions(key: object, texts: Collection[str]) -> bool:
    """Whether a cache key names one of ``texts`` (keys hold the texts they depend on, as strings,
    possibly inside nested tuples)."""
    if isinstance(key, str):
        return key in texts
    if isinstance(key, tuple):
        return any(_mentions(part, texts) for part in key)
    return False


def _parse_versions(key: tuple[str, str]) -> tuple[VersionKey, ...]:
    return (key,)


def _index_versions(key: tuple[str, str, bool, VersionKey, VersionKey]) -> tuple[VersionKey, ...]:
    return (key[0], key[1]), key[3], key[4]


def _mapper_versions(key: tuple[str, str, str]) -> tuple[VersionKey, ...]:
    return ((key[0], key[1]),)


def _token_versions(key: tuple[tuple[VersionKey, ...], str, Span | None]) -> tuple[VersionKey, ...]:
    return key[0]


def _formatting_versions(key: tuple[VersionKey, tuple[int, int]]) -> tuple[VersionKey, ...]:
    return (key[0],)


class ServerCaches:
    """The parses, symbol indexes, line tables and whole-document answers of one server instance."""

    def __init__(self) -> None:
        self.analysis = AnalyzerCaches(parses=0, problem_checks=PROBLEM_CHECKS)
        """the equivalence check's references and verdicts (parses go through ``parses``), and per
        problem the bookkeeping of its latest check, which the next version's check reuses"""
        self.indexes: Memo[IndexKey, SymbolIndex] = Memo(
            INDEXES, group=_file_of, per_group=INDEX_VERSIONS_PER_FILE)
        """symbol indexes per (path, text, is LTL, domain version, problem version)"""
        self.mappers: Memo[tuple[str, str, str], RangeMapper] = Memo(8)
        """line tables per (path, text, encoding): building one walks the whole text (~15 ms for 1 MB)"""
        self.tokens: Memo[tuple[tuple[VersionKey, ...], str, Span | None], list[int]] = Memo(4)
        """encoded semantic tokens per (document and partners' versions, encoding, span)"""
        self.formatting: Memo[tuple[VersionKey, tuple[int, int]], tuple[tuple[TextEdit, ...], str]] = Memo(2)
        """the whole-document formatting edits (or why there are none) per version and (indent, width)"""
        self._features: list[Memo[Any, Any]] = []
        self.chain = IndexChain(self.indexes)
        """per file the index of its latest parse, updated as each new parse is made"""
        self.parses = ParseCache(then=self.chain.follow)
        """every analysis and request parses through this one cache (later callers wait for the first);
        each new parse of a file with an index is indexed at once (``index_chain.py``)"""

    def index_base(self, path: str) -> tuple[IndexKey, SymbolIndex] | None:
        """The index of ``path``'s latest parse and its key, to update the next version's from
        (``index_chain.py``); None when there is none to update from."""
        return self.chain.base(path)

    def keep_index_base(self, key: IndexKey, index: SymbolIndex) -> None:
        """Remember ``index`` (of ``key``), just built by a request, as its file's latest for
        :meth:`index_base`; if the file has been parsed again since, that parse's index is updated
        from it (``index_chain.py``)."""
        self.chain.keep(key, index, self.parses.latest)

    def track(self, memo: Memo[Any, Any]) -> None:
        """Have :meth:`retire` prune a feature's own memo too (one keyed by document texts)."""
        self._features.append(memo)

    def retire(self, path: str, current: str | None, live: Collection[str] = ()) -> int:
        """Forget everything computed from a version of ``path`` other than ``current`` (None: every
        version, the file was closed), including answers about other files that used it as a partner;
        ``live`` are texts still current in some buffer, never forgotten (two files may hold the same
        text). Returns how many entries were dropped.

        Called again after each publication: a request that was still computing for an old text when
        the edit came in stores its answer afterwards.
        """
        file = path_key(path)
        if current is None:
            self.chain.forget(path)
            self.parses.forget(path)
            self.analysis.problem_checks.discard(lambda key: path_key(key) == file)
        keep = set(live)
        if current is not None:
            keep.add(current)
        retired: set[str] = set()

        def stale(versions: tuple[VersionKey, ...]) -> bool:
            found = False
            for version in versions:
                if version is not None and version[1] not in keep and path_key(version[0]) == file:
                    retired.add(version[1])
                    found = True
            return found

        dropped = 0
        for memo, versions in self._by_version():
            dropped += memo.discard(lambda key, versions=versions: stale(versions(key)))  # type: ignore[misc]
        if retired:
            memos: list[Memo[Any, Any]] = [self.analysis.references, self.analysis.verdicts, *self._features]
            for memo in memos:
                dropped += memo.discard(lambda key: _mentions(key, retired))
        return dropped

    def _by_version(self) -> list[tuple[Memo[Any, Any], Callable[[Any], tuple[VersionKey, ...]]]]:
        """The memos whose keys say which (path, text) versions they depend on, and how to read them."""
        return [(self.parses.memo, _parse_versions), (self.indexes, _index_versions),
                (self.mappers, _mapper_versions), (self.tokens, _token_versions),
                (self.formatting, _formatting_versions)]

"""Everything one server instance remembers between requests, in one place owned by that instance.

An editor asks about one version of a document many times (diagnostics, then hover, semantic
tokens, the code lens, formatting on save); on a 1 MB problem each answer costs hundreds of
milliseconds of pure Python, so each is kept for the latest versions. All of it hangs off the
server instance (``DiagnosticsFeature.caches``), never off a module: two servers in one process share
nothing, and the answers of a server that shut down are freed with it. Every cache is a
:class:`~plansight.analyses.memo.Memo` keyed by the texts involved (a document version is its path
and text), so an edit is a new key and nothing is ever stale.
"""

from __future__ import annotations

from collections.abc import Hashable

from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.editing.formatter import TextEdit
from plansight.analyses.editing.symbols import SymbolIndex
from plansight.analyses.memo import Memo
from plansight.analyses.syntax.documents import ParsedDocument
from plansight.analyses.workspace.lint import AnalyzerCaches
from plansight.server.convert import RangeMapper
from plansight.server.documents import ParseCache

VersionKey = tuple[str, str] | None
"""One document version: its path and text (None: no such partner)."""

INDEXES = 16
INDEX_VERSIONS_PER_FILE = 2
"""the version being edited and the one before it, as the parse cache keeps them: each index keeps
about as much memory as its model (~100 MB for a 1 MB problem), so editing one large file must not
fill the cache with its old versions"""


def version_of(parsed: ParsedDocument | None) -> VersionKey:
    return None if parsed is None else (parsed.path, parsed.text)


def _file_of(key: tuple[Hashable, ...]) -> Hashable:
    return key[0]


class ServerCaches:
    """The parses, symbol indexes, line tables and whole-document answers of one server instance."""

    def __init__(self) -> None:
        self.parses = ParseCache()
        """every analysis and request parses through this one cache (later callers wait for the first)"""
        self.analysis = AnalyzerCaches(parses=0)
        """the equivalence check's references and verdicts (parses go through ``parses``)"""
        self.indexes: Memo[tuple[str, str, bool, VersionKey, VersionKey], SymbolIndex] = Memo(
            INDEXES, group=_file_of, per_group=INDEX_VERSIONS_PER_FILE)
        """symbol indexes per (path, text, is LTL, domain version, problem version)"""
        self.mappers: Memo[tuple[str, str], RangeMapper] = Memo(8)
        """line tables per (text, encoding): building one walks the whole text (~15 ms for 1 MB)"""
        self.tokens: Memo[tuple[tuple[VersionKey, ...], str, Span | None], list[int]] = Memo(4)
        """encoded semantic tokens per (document and partners' versions, encoding, span)"""
        self.formatting: Memo[tuple[VersionKey, tuple[int, int]], tuple[TextEdit | None, str]] = Memo(2)
        """the smallest whole-document edit (or why there is none) per version and (indent, width)"""

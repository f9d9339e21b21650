"""What the server knows about open documents: their live text, and frozen analysed snapshots.

Two kinds of record, kept apart on purpose:

* :class:`OpenDocument` is the editor's current buffer (mutated only on the event loop by
  ``didOpen``/``didChange``/``didClose``);
* :class:`DocumentSnapshot` is immutable: the text of one ``(uri, version)``, its parse and its
  diagnostics. Handlers read snapshots, never half-updated state, and a snapshot is only published if
  its version is still the buffer's version.

:class:`OverlaySource` is the file system as the analyses should see it: unsaved buffers win over the
disk, so a problem is checked against the domain the user is typing, not the one last saved.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from pygls.uris import to_fs_path

from plansight.analyses.diagnostics.diagnostic import Diagnostic
from plansight.analyses.memo import Memo
from plansight.analyses.syntax.documents import FileKind, ParsedDocument, parse_document, reparse_document
from plansight.analyses.workspace.sources import ExplainsFailures, FileSource

logger = logging.getLogger(__name__)


def path_key(path: str) -> str:
    """How two spellings of one file compare equal (``a/../b.pddl`` vs ``b.pddl``; case on Windows)."""
    return os.path.normcase(os.path.normpath(os.path.abspath(path)))


def uri_to_path(uri: str) -> str:
    """The filesystem path of a ``file://`` URI; other schemes (``untitled:``) keep the URI as a
    pseudo-path, so that they are still parsed but never matched with files on disk."""
    if uri.startswith("file:"):
        path = to_fs_path(uri)
        if path:
            return os.path.abspath(path)
    return uri


def is_file_path(path: str) -> bool:
    """Whether ``path`` is a real file-system path rather than a pseudo-path of an unsaved or virtual buffer.
    """
    return os.path.isabs(path) and "://" not in path and not path.startswith("untitled:")


@dataclass(slots=True)
class OpenDocument:
    """The editor's live buffer for one URI. Only the event loop mutates it."""

    uri: str
    path: str
    version: int | None
    text: str
    language_id: str = ""


@dataclass(frozen=True, slots=True)
class DocumentSnapshot:
    """One analysed ``(uri, version)``: the unit a publication and every later feature reads."""

    uri: str
    version: int | None
    path: str
    text: str
    kind: FileKind
    parsed: ParsedDocument | None
    """``None`` when the document was not analysed (too large, or the analysis failed), or when the
    buffer has moved on to a newer version (:meth:`retired`)."""
    diagnostics: tuple[Diagnostic, ...]
    domain_path: str | None = None
    problem_path: str | None = None

    def depends_on(self, key: str) -> bool:
        """Whether this document's checks read the file with path key ``key``."""
        return any(p is not None and path_key(p) == key for p in (self.domain_path, self.problem_path))

    def retired(self) -> DocumentSnapshot:
        """This snapshot once its buffer has a newer text: kind and links stay (dependents are
        scheduled by them until the new version is published), the model is let go."""
        return replace(self, parsed=None)

    @property
    def missing_partner(self) -> bool:
        """A problem without a domain or a plan without a problem: any new file might complete it."""
        if self.kind == "problem":
            return self.domain_path is None
        if self.kind in ("plan", "ltl"):
            return self.problem_path is None or self.domain_path is None
        return False


@dataclass(frozen=True, slots=True)
class OverlaySource:
    """A :class:`FileSource` where open buffers shadow the disk.

    Built once per analysis from a copy of the open texts, so a worker thread sees a consistent
    picture while the event loop keeps applying edits.
    """

    buffers: Mapping[str, str]
    """path key -> unsaved text"""
    disk: FileSource
    extra_names: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """directory key -> names of open buffers there that may not exist on disk yet"""

    @classmethod
    def of(cls, documents: Mapping[str, OpenDocument], disk: FileSource) -> OverlaySource:
        """An overlay of the open buffers that have file paths over ``disk``, frozen at this moment so a
        worker thread sees one consistent picture.
        """
        buffers: dict[str, str] = {}
        names: dict[str, list[str]] = {}
        for doc in documents.values():
            if not is_file_path(doc.path):
                continue
            buffers[path_key(doc.path)] = doc.text
            names.setdefault(path_key(os.path.dirname(doc.path)), []).append(os.path.basename(doc.path))
        return cls(MappingProxyType(buffers), disk,
                   MappingProxyType({k: tuple(v) for k, v in names.items()}))

    def read(self, path: str) -> str | None:
        """The open buffer for ``path`` when there is one, else the file on disk; None when neither can be
        read.
        """
        if not os.path.isabs(path):
            # only a pseudo-path (an ``untitled:`` buffer) yields relative partners: never resolve
            # them against the server's working directory
            return None
        text = self.buffers.get(path_key(path))
        if text is not None:
            return text
        try:
            return self.disk.read(path)
        except (OSError, ValueError):
            return None

    def list_dir(self, directory: str) -> list[str]:
        """The files in ``directory`` on disk together with the open buffers there (which may not be saved
        yet), sorted.
        """
        if not os.path.isabs(directory):
            return []
        try:
            listed = list(self.disk.list_dir(directory))
        except (OSError, ValueError):
            listed = []
        extra = self.extra_names.get(path_key(directory or "."), ())
        if not extra:
            return listed
        return sorted(set(listed).union(extra))

    def failure(self, path: str) -> str:
        """Why :meth:`read` gave nothing, in the disk source's words when it can say."""
        if isinstance(self.disk, ExplainsFailures):
            return self.disk.failure(path)
        return "missing or unreadable"


@dataclass(slots=True)
class DocumentStore:
    """Open buffers and their latest published snapshots, keyed by URI; owned by the event loop."""

    open: dict[str, OpenDocument] = field(default_factory=dict)
    snapshots: dict[str, DocumentSnapshot] = field(default_factory=dict)

    def snapshot(self, uri: str) -> DocumentSnapshot | None:
        """The latest analysed snapshot, only if it is still the buffer's current version."""
        snapshot = self.snapshots.get(uri)
        current = self.open.get(uri)
        if snapshot is None or current is None or snapshot.version != current.version:
            return None
        return snapshot


BASES = 8
"""Files whose latest parse is kept for the incremental parse of their next text, even once the caches
have retired it (``caches.py`` drops a file's old versions as soon as it is edited, before the new
text is parsed): the files being edited, in practice."""


def _file_of(key: tuple[str, str]) -> str:
    return key[0]


class ParseCache:
    """Parse each (file, text) once, however many analyses need it, and keep only what is current.

    A problem's analysis parses its domain, and so does the domain's own analysis and that of every
    other open problem: they share one parse here, even when they run at the same time (later callers
    wait for the first). Memory is what limits the policy: the model of a 1 MB problem takes tens of
    megabytes, so per file only the ``versions_per_file`` most recent texts are kept (the current
    one and the one an older analysis may still be reading), for at most ``max_files`` files.

    A new text of a file is parsed from the file's latest parse (``incremental.py`` re-parses only
    the edited section); that parse is kept for it (``BASES``) even after an edit retired it from the
    memo. While the new text is parsed both versions are alive, but they share every node before the
    edit, and the old one goes as soon as the new one replaces it.

    ``then`` runs on each new parse before any caller sees it (``caches.py`` moves the file's symbol
    index along with it), so whatever is derived from a parse is ready by the time the next text
    is parsed from it.
    """

    def __init__(self, versions_per_file: int = 2, max_files: int = 256, bases: int = BASES,
                 then: Callable[[ParsedDocument], None] | None = None) -> None:
        self._memo: Memo[tuple[str, str], ParsedDocument] = Memo(
            versions_per_file * max_files, group=_file_of, per_group=versions_per_file)
        self._bases: OrderedDict[str, ParsedDocument] = OrderedDict()
        """path key -> the file's latest parse with an outline, what its next text is parsed from"""
        self._bases_size = bases
        self._lock = threading.Lock()
        self._then = then

    def parse(self, path: str, text: str) -> ParsedDocument:
        """The parse of ``text`` as ``path``, computed by the first caller and awaited by concurrent ones;
        incrementally from the file's previous version when one is cached (``incremental.py`` in the core
        re-parses only the edited section)."""
        key = path_key(path)
        return self._memo.get((key, text), lambda: self._parse(path, key, text))

    def _parse(self, path: str, key: str, text: str) -> ParsedDocument:
        previous = self._memo.newest_ready(lambda other: other[0] == key and other[1] != text)
        if previous is None or previous.outline is None:
            with self._lock:
                previous = self._bases.get(key)
        # lazy: the nodes after an edit are moved when first read, and the diagnostics path reads none of
        # them (the incremental problem checks align the versions through the runs' pieces)
        parsed = (reparse_document(previous, path, text, lazy=True)
                  if previous is not None and previous.path == path else parse_document(path, text))
        with self._lock:
            if parsed.outline is None:
                self._bases.pop(key, None)
            else:
                self._bases[key] = parsed
                self._bases.move_to_end(key)
                while len(self._bases) > self._bases_size:
                    self._bases.popitem(last=False)
        if self._then is not None:
            try:
                self._then(parsed)
            except Exception:  # what follows a parse (its index) must never cost the parse itself
                logger.exception("after parsing %s", path)
        return parsed

    def latest(self, path: str) -> ParsedDocument | None:
        """``path``'s latest parse with an outline, the one its next text is parsed from."""
        with self._lock:
            return self._bases.get(path_key(path))

    def forget(self, path: str) -> None:
        """The file was closed: its next text, if it is ever opened again, is parsed in full."""
        with self._lock:
            self._bases.pop(path_key(path), None)

    @property
    def memo(self) -> Memo[tuple[str, str], ParsedDocument]:
        """The parses by (path key, text), for the server's caches to prune (``caches.py``)."""
        return self._memo

    def __len__(self) -> int:
        return len(self._memo)


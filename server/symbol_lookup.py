"""The symbol index of a request's document, and of every file that shares its names.

Hover, go to definition, references, highlight and rename start from the same two questions: which
name is under the cursor (the document's own index, resolved against its partners), and where else is
that name written. The second spans files: a domain's predicate is used by every problem linked to the
domain and its actions by every plan of those problems. Those files are found the way the user would
expect them: the open documents, and the problems in the domain's folder (and its direct subfolders,
the ``problems/`` layout) with the plans next to them; each candidate counts only if the association
rules really link it to the domain (or problem) in question.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from plansight.analyses.editing.symbols import Declaration, Occurrence, SymbolIndex, build_index, update_index
from plansight.analyses.syntax.documents import PLAN_SUFFIXES, ParsedDocument
from plansight.analyses.syntax.lexical import sniff_header
from plansight.server.caches import IndexKey, ServerCaches, version_of
from plansight.server.context import ContextRequest, DocumentContext, build_context, in_context
from plansight.server.convert import RangeMapper, encoding_name
from plansight.server.documents import is_file_path, path_key

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer

logger = logging.getLogger(__name__)
_T = TypeVar("_T")

MAX_SCANNED_FILES = 400
"""Files looked at per folder walk: a folder of thousands of generated problems must not stall a rename."""
MAX_SUBFOLDERS = 32


def index_of(context: DocumentContext) -> SymbolIndex:
    """The document's index, resolved against its linked domain and problem."""
    return index_of_document(context.caches, context.parsed, context.domain, context.problem)


def index_of_document(caches: ServerCaches, parsed: ParsedDocument, domain: ParsedDocument | None,
                      problem: ParsedDocument | None) -> SymbolIndex:
    """The index, built once per version of the document and of the partners it is resolved against.

    Every request on a document (hover, highlight, semantic tokens ...) needs the same index; a
    caller that asks while another thread builds it (the diagnostics worker warms it) waits for
    that build. A partner only counts with its model: the same problem indexed for its own requests
    and for references (as a partner of nothing) is one entry, not two 200 ms builds of a 1 MB file.
    """
    domain_model = domain.domain if domain is not None and domain is not parsed else None
    problem_model = problem.problem if problem is not None and problem is not parsed else None
    is_ltl = parsed.kind == "ltl"
    model = parsed.ltl if is_ltl else parsed.model
    domain_path = domain.path if domain is not None and domain_model is not None else ""
    problem_path = problem.path if problem is not None and problem_model is not None else ""
    key: IndexKey = (parsed.path, parsed.text, is_ltl,
                     version_of(domain) if domain_model is not None else None,
                     version_of(problem) if problem_model is not None else None)

    def build() -> SymbolIndex:
        index = _updated(caches, key, parsed)
        if index is None:
            index = build_index(model, parsed.path, domain=domain_model, domain_path=domain_path,
                                problem=problem_model, problem_path=problem_path)
        caches.keep_index_base(key, index)
        return index

    return caches.indexes.get(key, build)


def _updated(caches: ServerCaches, key: IndexKey, parsed: ParsedDocument) -> SymbolIndex | None:
    """The index of ``parsed`` updated from its previous version's, when ``parsed`` was parsed
    incrementally from the very text that index was built for, against the same partners: only the
    re-parsed stretch is indexed again (milliseconds instead of ~115 ms for a 1 MB problem)."""
    derived = parsed.derived
    if derived is None or key[2]:
        return None
    base = caches.index_base(parsed.path)
    if base is None:
        return None
    base_key, base_index = base
    if base_key != (key[0], derived.previous_text, *key[2:]):
        return None
    try:
        return update_index(base_index, parsed.model, derived.splice)
    except Exception:  # a bug here must cost a full build, not the request
        logger.exception("updating the symbol index of %s failed", parsed.path)
        return None


def warm_index(request: ContextRequest, caches: ServerCaches) -> None:
    """Build a version's line table and symbol index the way a request would, so they are cached.

    Otherwise the first hover / references / highlight / rename / semantic-tokens request after an
    edit would build the index itself and then pay for the garbage collector
    walking it. The diagnostics worker calls this right after a version's lint, while the collector
    is paused and before the analysis's results are frozen (``memory.py``), so the request finds
    both cached under the same keys (``build_context`` is the request path itself). Best effort:
    a failure here only means the request builds them.
    """
    try:
        context = build_context(request, caches)
        if context is not None:
            index_of(context)
    except Exception:
        logger.exception("warming the symbol index of %s failed", request.uri)


def occurrence_at(context: DocumentContext, offset: int) -> Occurrence | None:
    """The symbol occurrence at ``offset`` in the context's document."""
    return index_of(context).at(offset)


@dataclass(frozen=True, slots=True)
class FileOccurrences:
    """The occurrences of one symbol in one file, with that file's text for converting spans."""

    path: str
    text: str
    occurrences: tuple[Occurrence, ...]


def same_file(a: str, b: str) -> bool:
    """Whether two paths name the same file, however spelled (``a/../b``; case on Windows); pseudo-paths must
    match exactly.
    """
    return a == b or (is_file_path(a) and is_file_path(b) and path_key(a) == path_key(b))


def references(context: DocumentContext, target: Declaration) -> list[FileOccurrences]:
    """Every occurrence of ``target`` in the files that can mention it, the declaring file first."""
    found: list[FileOccurrences] = []
    for parsed, index in related_indexes(context, target):
        occurrences = tuple(index.references_to(target))
        if occurrences:
            found.append(FileOccurrences(parsed.path, parsed.text, occurrences))
    found.sort(key=lambda f: not same_file(f.path, target.path))
    return found


def related_indexes(context: DocumentContext, target: Declaration) -> Iterator[tuple[ParsedDocument,
                                                                                      SymbolIndex]]:
    """The indexes of the files that may refer to ``target``: for a variable only its own file; for a
    problem's object that problem and its plans; for a domain's symbol the domain, its problems and
    their plans."""
    if target.kind == "variable":
        if same_file(target.path, context.path):
            yield context.parsed, index_of(context)
        return
    declaring = _declaring_document(context, target.path)
    if declaring is None:
        yield context.parsed, index_of(context)
        return
    seen: set[str] = set()
    for parsed, domain, problem in _documents_sharing(context, declaring):
        key = path_key(parsed.path) if is_file_path(parsed.path) else parsed.path
        if key in seen:
            continue
        seen.add(key)
        try:
            yield parsed, index_of_document(context.caches, parsed, domain, problem)
        except Exception:  # one unreadable neighbour must not cost the user the others
            logger.exception("indexing %s failed", parsed.path)


def _declaring_document(context: DocumentContext, path: str) -> ParsedDocument | None:
    for candidate in (context.parsed, context.domain, context.problem):
        if candidate is not None and same_file(candidate.path, path):
            return candidate
    return context.read_partner(path) if is_file_path(path) else None


def _documents_sharing(context: DocumentContext, declaring: ParsedDocument) -> Iterator[
        tuple[ParsedDocument, ParsedDocument | None, ParsedDocument | None]]:
    """(document, its domain, its problem) for every file linked to ``declaring`` (itself included)."""
    if declaring.kind == "domain":
        yield declaring, None, None
    elif declaring.kind == "problem":
        yield declaring, _domain_of(context, declaring), None
    else:
        return
    for path in _candidate_paths(context, declaring.path):
        if same_file(path, declaring.path):
            continue
        parsed = context.read_partner(path)
        if parsed is None or parsed.kind not in ("problem", "plan", "ltl"):
            continue
        association = context.analyzer.associate(parsed)
        partner = association.domain if declaring.kind == "domain" else association.problem
        if partner is None or not same_file(partner.path, declaring.path):
            continue
        yield parsed, association.domain, association.problem


def _domain_of(context: DocumentContext, problem: ParsedDocument) -> ParsedDocument | None:
    if context.problem is problem or same_file(problem.path, context.path):
        return context.domain
    return context.analyzer.associate(problem).domain


def _candidate_paths(context: DocumentContext, anchor: str) -> list[str]:
    """Open documents, then the problems, plans and LTL goals in ``anchor``'s folder and its direct
    subfolders."""
    paths: list[str] = [p for p in getattr(context.source, "buffers", {}) if is_file_path(p)]
    if not is_file_path(anchor):
        return paths
    folder = os.path.dirname(anchor)
    folders = [folder]
    try:
        with os.scandir(folder) as entries:
            folders += sorted(e.path for e in entries if e.is_dir() and not e.name.startswith("."))[
                :MAX_SUBFOLDERS]
    except OSError:
        pass
    scanned = 0
    for directory in folders:
        for name in context.source.list_dir(directory):
            lowered = name.lower()
            if not (lowered.endswith((".pddl", ".ltl")) or os.path.splitext(lowered)[1] in PLAN_SUFFIXES):
                continue
            scanned += 1
            if scanned > MAX_SCANNED_FILES:
                return paths
            path = os.path.join(directory, name)
            if lowered.endswith(".pddl"):
                text = context.source.read(path)
                header = sniff_header(text) if text else None
                if header is None or header.kind != "problem":
                    continue
            paths.append(path)
    return paths


@dataclass(frozen=True, slots=True)
class SymbolRequest:
    """A request's document context, and the position encoding for ranges in other files."""

    context: DocumentContext
    encoding: str

    def mapper(self, path: str, text: str | None = None) -> RangeMapper | None:
        """The range mapper of ``path`` (the request's own document's, when it is that one)."""
        if same_file(path, self.context.path):
            return self.context.mapper
        if text is None:
            text = self.context.source.read(path)
        return RangeMapper(text, self.encoding) if text is not None else None


async def run_on_context(server: PlansightServer, uri: str,
                         work: Callable[[SymbolRequest], _T]) -> _T | None:
    """Build the document's context and run ``work`` on it, both in a worker thread.

    None when the document cannot be read, or when ``work`` fails (logged: a bug in one request must
    not take the server down).
    """
    encoding = encoding_name(server.workspace.position_encoding)
    try:
        return await in_context(server, uri, lambda context: work(SymbolRequest(context, encoding)))
    except Exception:
        logger.exception("%s on %s failed", getattr(work, "__qualname__", "request"), uri)
        return None

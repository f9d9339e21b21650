"""The outline of a document (document symbols) and the search over every declaration in the
workspace (workspace symbols).

The outline follows how PDDL authors think of their files: a domain's types, constants, predicates,
functions and actions (with their parameters); a problem's objects grouped by type, its initial state
and its goal; a plan's steps.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from lsprotocol import types

from plansight.analyses.checks.domain_references import signature, type_text
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.deferred import built, peek
from plansight.analyses.model.pddl import Domain, Name, Plan, Problem, TypedName, TypeRef
from plansight.analyses.model.printer import print_step
from plansight.analyses.syntax.documents import ParsedDocument
from plansight.analyses.syntax.runs import MovedAnd, list_length, list_run, list_window
from plansight.analyses.workspace.sources import DiskSource
from plansight.server.context import in_worker
from plansight.server.convert import RangeMapper, encoding_name, path_to_uri
from plansight.server.documents import OverlaySource, is_file_path
from plansight.server.feature_contract import ServerFeature
from plansight.server.symbol_lookup import run_on_context

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer

Kind = types.SymbolKind
MAX_CHILDREN = 100
"""A problem with 30,000 facts or 5,000 objects of one type lists the first ones (the group says how many
there are): an outline is for finding your way, and every entry costs the editor time."""
MAX_WORKSPACE_FILES = 300
MAX_WORKSPACE_DEPTH = 3
MAX_WORKSPACE_RESULTS = 500


class SymbolsFeature(ServerFeature):
    """The document outline and workspace-wide symbol search."""

    methods = (types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, types.WORKSPACE_SYMBOL)

    def __init__(self, server: PlansightServer) -> None:
        self._server = server

    def register(self) -> None:
        """Install the document-symbol and workspace-symbol handlers."""
        server = self._server

        @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
        async def document_symbol(params: types.DocumentSymbolParams) -> list[types.DocumentSymbol] | None:
            return await run_on_context(server, params.text_document.uri, lambda request: outline(
                request.context.parsed, request.context.mapper))

        @server.feature(types.WORKSPACE_SYMBOL)
        async def workspace_symbol(params: types.WorkspaceSymbolParams) -> list[types.SymbolInformation]:
            return await _workspace_symbols(server, params.query)


def outline(parsed: ParsedDocument, mapper: RangeMapper) -> list[types.DocumentSymbol]:
    """The outline of a domain, problem or plan; empty for other files."""
    model = parsed.model
    if isinstance(model, Domain):
        return [_node(f"domain {model.name.display}", Kind.Module, model.span, model.name.span, mapper,
                      list(_domain_children(model, mapper)))]
    if isinstance(model, Problem):
        return [_node(f"problem {model.name.display}", Kind.Module, model.span, model.name.span, mapper,
                      list(_problem_children(model, parsed.text, mapper)))]
    if isinstance(model, Plan):
        return [_node(f"{i}: {print_step(step)}", Kind.Event, step.span, step.action.span, mapper)
                for i, step in enumerate(model.steps, 1)]
    return []


def _node(name: str, kind: types.SymbolKind, span: Span, selection: Span, mapper: RangeMapper,
          children: list[types.DocumentSymbol] | None = None,
          detail: str | None = None) -> types.DocumentSymbol:
    whole = span.cover(selection)
    return types.DocumentSymbol(name=name, kind=kind, range=mapper.range(whole),
                                selection_range=mapper.range(selection), detail=detail,
                                children=children or None)


def _section(keyword: Name | None, children: list[types.DocumentSymbol], spans: Iterable[Span],
             mapper: RangeMapper, name: str) -> types.DocumentSymbol | None:
    """A group named after its section keyword, covering the keyword and its entries."""
    covered = list(spans)
    if not covered and keyword is None:
        return None
    selection = keyword.span if keyword is not None else covered[0]
    whole = Span(min([selection.start, *(s.start for s in covered)]),
                 max([selection.end, *(s.end for s in covered)]))
    return _node(name, Kind.Namespace, whole, selection, mapper, children)


def _keyword(sections: tuple[Name, ...], key: str) -> Name | None:
    return next((s for s in sections if s.key == key), None)


def _typed(item: TypedName) -> str:
    return type_text(item.type)


def _domain_children(domain: Domain, mapper: RangeMapper) -> Iterator[types.DocumentSymbol]:
    Entry = tuple[Name, Span, types.SymbolKind, str]
    groups: list[tuple[str, list[Entry]]] = [
        (":types", [(t.name, t.span, Kind.Class, type_text(t.parent)) for t in domain.types]),
        (":constants", [(c.name, c.span, Kind.Constant, _typed(c)) for c in domain.constants]),
        (":predicates", [(p.name, p.span, Kind.Function, signature(p.name, p.parameters))
                         for p in domain.predicates]),
        (":functions", [(f.name, f.span, Kind.Field, signature(f.name, f.parameters))
                        for f in domain.functions]),
    ]
    for key, entries in groups:
        if not entries:
            continue
        children = [_node(name.display, kind, span, name.span, mapper, None, detail)
                    for name, span, kind, detail in entries]
        group = _section(_keyword(domain.sections, key), children, (e[1] for e in entries), mapper, key[1:])
        if group is not None:
            yield group
    for rule in domain.derived:
        yield _node(rule.head.name.display, Kind.Function, rule.span, rule.head.name.span, mapper,
                    detail="derived " + signature(rule.head.name, rule.head.parameters))
    for action in domain.actions:
        parameters = [_node(p.name.display, Kind.Variable, p.span, p.name.span, mapper, detail=_typed(p))
                      for p in action.parameters]
        yield _node(action.name.display, Kind.Method, action.span, action.name.span, mapper, parameters,
                    detail=action.kind)


def _problem_children(problem: Problem, text: str, mapper: RangeMapper) -> Iterator[types.DocumentSymbol]:
    # the objects as the parse left them: grouped by their types' content, and only those shown moved to
    # their current spans (after an edit of a large problem's `:objects`, the list is not built)
    declared = list_run(peek(problem, "objects"))
    by_type: dict[TypeRef | None, list[int]] = {}
    for index, item in enumerate(declared.originals()):
        group = by_type.get(item.type)
        if group is None:
            by_type[item.type] = [index]
        else:
            group.append(index)
    type_groups = []
    for type_ref, indexes in by_type.items():
        type_name = type_text(type_ref)
        shown = [declared.current(index) for index in indexes[:MAX_CHILDREN]]
        children = [_node(o.name.display, Kind.Constant, o.span, o.name.span, mapper, detail=type_name)
                    for o in shown]
        # the objects are in text order: the group runs from its first one's start to its last one's end
        cover = Span(declared.span(indexes[0]).start, declared.span(indexes[-1]).end)
        type_groups.append(_node(type_name, Kind.Class, cover, shown[0].name.span, mapper, children,
                                 detail=f"{len(indexes)} object" + ("s" if len(indexes) != 1 else "")))
    count = len(declared)
    objects = _section(_keyword(problem.sections, ":objects"), type_groups,
                       (declared.span(0), declared.span(count - 1)) if count else (), mapper, "objects")
    if objects is not None and count:
        yield objects
    # :init and the goal as the parse left them: after an edit, only the facts shown are copied with
    # their moved spans, not all of them (analyses/syntax/runs.py)
    init_value = peek(problem, "init")
    facts = [_node(_fact_text(text, f.span), Kind.Boolean, f.span, f.span, mapper)
             for f in list_window(init_value, 0, MAX_CHILDREN)]
    init = _section(_keyword(problem.sections, ":init"), facts,
                    (f.span for f in list_window(init_value, -1, None)), mapper, "init")
    if init is not None:
        count = list_length(init_value)
        init.detail = f"{count} fact" + ("s" if count != 1 else "")
        yield init
    goal_value = peek(problem, "goal")
    if goal_value is not None:
        goal_span = goal_value.span if isinstance(goal_value, MovedAnd) else built(goal_value).span
        goal = _section(_keyword(problem.sections, ":goal"), [], (goal_span,), mapper, "goal")
        if goal is not None:
            yield goal


def _fact_text(text: str, span: Span) -> str:
    return " ".join(text[span.start:span.end].split())[:80]


# --- workspace symbols -------------------------------------------------------------------------


async def _workspace_symbols(server: PlansightServer, query: str) -> list[types.SymbolInformation]:
    """Declarations in the open documents and the PDDL files of the workspace folder whose name
    contains the query's letters in order (as editors' fuzzy pickers do)."""
    source = OverlaySource.of(server.documents.open, DiskSource())
    open_paths = [doc.path for doc in server.documents.open.values() if is_file_path(doc.path)]
    root = server.workspace_root
    encoding = encoding_name(server.workspace.position_encoding)

    def job() -> list[types.SymbolInformation]:
        paths = dict.fromkeys(open_paths + (_workspace_files(root) if root is not None else []))
        found: list[types.SymbolInformation] = []
        for path in paths:
            text = source.read(path)
            if text is None:
                continue
            found.extend(_declarations(server.diagnostics.parses.parse(path, text), query, encoding))
            if len(found) >= MAX_WORKSPACE_RESULTS:
                break
        return found[:MAX_WORKSPACE_RESULTS]

    return await in_worker(server, job)


def _workspace_files(root: str) -> list[str]:
    found: list[str] = []
    for folder, subfolders, names in os.walk(root):
        depth = folder[len(root):].count(os.sep)
        subfolders[:] = [] if depth >= MAX_WORKSPACE_DEPTH else sorted(
            s for s in subfolders if not s.startswith(".") and s not in ("node_modules", "__pycache__"))
        found += [os.path.join(folder, n) for n in sorted(names) if n.lower().endswith(".pddl")]
        if len(found) >= MAX_WORKSPACE_FILES:
            return found[:MAX_WORKSPACE_FILES]
    return found


def matches(query: str, name: str) -> bool:
    """Whether the query's characters appear in ``name`` in order, ignoring case."""
    position = 0
    lowered = name.lower()
    for char in query.lower():
        position = lowered.find(char, position) + 1
        if position == 0:
            return False
    return True


def _declarations(parsed: ParsedDocument, query: str, encoding: str) -> list[types.SymbolInformation]:
    model = parsed.model
    entries: list[tuple[Name, types.SymbolKind, str]] = []
    if isinstance(model, Domain):
        container = model.name.display
        entries += [(t.name, Kind.Class, container) for t in model.types]
        entries += [(c.name, Kind.Constant, container) for c in model.constants]
        entries += [(p.name, Kind.Function, container) for p in model.predicates]
        entries += [(f.name, Kind.Field, container) for f in model.functions]
        entries += [(a.name, Kind.Method, container) for a in model.actions]
        entries.append((model.name, Kind.Module, ""))
    elif isinstance(model, Problem):
        entries.append((model.name, Kind.Module, model.domain_name.display if model.domain_name else ""))
    chosen = [e for e in entries if matches(query, e[0].display)]
    if not chosen:
        return []
    mapper = RangeMapper(parsed.text, encoding)
    uri = path_to_uri(parsed.path)
    return [types.SymbolInformation(name=name.display, kind=kind, container_name=container or None,
                                    location=types.Location(uri=uri, range=mapper.range(name.span)))
            for name, kind, container in chosen]

"""Rename a predicate, function, action, type, constant, object, variable, domain or problem
everywhere it is written: one workspace edit over the domain, every problem linked to it and their
plans.

``prepareRename`` says up front what cannot be renamed (keywords, requirements, built-in types,
names that resolve to no declaration), so the editor never opens a rename box that would fail; the
rename itself refuses a new name that is not a PDDL name or that would collide with a declaration of
the same kind, because either would silently change the meaning of the files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from plansight.analyses.editing.symbols import Declaration, Occurrence, SymbolKind
from plansight.analyses.syntax.lexical import STRICT_NAME, WORD_CHAR
from plansight.server.convert import path_to_uri
from plansight.server.feature_contract import ServerFeature
from plansight.server.symbol_lookup import SymbolRequest, index_of, references, run_on_context

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer

_T = TypeVar("_T")
REQUEST_FAILED = -32803  # LSP's RequestFailed: the client shows the message
_BREAKS = frozenset(" \t\r\n();")
_NAME = re.compile(STRICT_NAME + r"\Z")
RESERVED = frozenset({"and", "or", "not", "imply", "exists", "forall", "when", "either", "object", "number",
                      "define", "domain", "problem", "at", "over", "increase", "decrease", "assign",
                      "scale-up", "scale-down", "preference", "always", "sometime", "within", "minimize",
                      "maximize", "total-time"})
"""Words a user-defined name must not become (``at`` is legal PDDL for a predicate, but renaming
something *to* it invites `at start` confusion)."""
RENAMABLE: frozenset[SymbolKind] = frozenset({"type", "predicate", "function", "action", "constant",
                                              "object", "variable", "domain", "problem"})
_COLLIDES_WITH: dict[str, tuple[SymbolKind, ...]] = {
    "constant": ("constant", "object"), "object": ("object", "constant")}


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a rename cannot happen, shown to the user instead of a silent no-op."""

    message: str


class RenameFeature(ServerFeature):
    """Renaming a predicate, action, type, object or variable consistently across the associated files."""

    methods = (types.TEXT_DOCUMENT_PREPARE_RENAME, types.TEXT_DOCUMENT_RENAME)

    def __init__(self, server: PlansightServer) -> None:
        self._server = server

    def register(self) -> None:
        """Install the prepare-rename and rename handlers."""
        server = self._server

        @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
        async def prepare_rename(params: types.PrepareRenameParams) -> types.PrepareRenamePlaceholder | None:
            answer = await run_on_context(server, params.text_document.uri,
                                          lambda request: prepare(request, params.position))
            return _unwrap(answer)

        @server.feature(types.TEXT_DOCUMENT_RENAME, types.RenameOptions(prepare_provider=True))
        async def rename_(params: types.RenameParams) -> types.WorkspaceEdit | None:
            answer = await run_on_context(server, params.text_document.uri,
                                          lambda request: rename(request, params.position, params.new_name))
            return _unwrap(answer)


def _unwrap(answer: _T | Refusal | None) -> _T | None:
    if isinstance(answer, Refusal):
        raise JsonRpcException(answer.message, code=REQUEST_FAILED)
    return answer


def _renamable(request: SymbolRequest, position: types.Position) -> Occurrence | Refusal:
    context = request.context
    offset = context.mapper.offset(position)
    occurrence = index_of(context).at(offset)
    if occurrence is None:
        start = offset
        while start > 0 and context.text[start - 1] not in _BREAKS:
            start -= 1
        word = re.match(WORD_CHAR + "*", context.text[start:])
        shown = f"`{word.group()}`" if word and word.group() else "this"
        return Refusal(f"{shown} is not a name that can be renamed (keywords and punctuation cannot).")
    if occurrence.kind == "requirement":
        return Refusal(f"`{occurrence.text}` is a PDDL requirement keyword; it cannot be renamed.")
    if occurrence.target is None:
        if (occurrence.kind == "type" and occurrence.key in ("object", "number")) or occurrence.key in (
                "?duration", "#t"):
            return Refusal(f"`{occurrence.text}` is built into PDDL; it cannot be renamed.")
        return Refusal(f"`{occurrence.text}` is not declared anywhere plansight can see, so there is "
                       "nothing to rename consistently; declare it first (or link this file to its domain).")
    if occurrence.target.kind not in RENAMABLE:
        return Refusal(f"`{occurrence.text}` cannot be renamed.")
    return occurrence


def prepare(request: SymbolRequest, position: types.Position) -> types.PrepareRenamePlaceholder | Refusal:
    """The range and current text of the name to rename, or why it cannot be renamed."""
    found = _renamable(request, position)
    if isinstance(found, Refusal):
        return found
    return types.PrepareRenamePlaceholder(range=request.context.mapper.range(found.span),
                                          placeholder=found.text)


def rename(request: SymbolRequest, position: types.Position, new_name: str) -> types.WorkspaceEdit | Refusal:
    """The edits that rename the symbol under the cursor in every file that uses it, or why they cannot be
    made (an invalid or colliding name).
    """
    found = _renamable(request, position)
    if isinstance(found, Refusal):
        return found
    assert found.target is not None
    target = found.target
    new_text = _checked_name(target, new_name.strip())
    if isinstance(new_text, Refusal):
        return new_text
    changes: dict[str, list[types.TextEdit]] = {}
    for file in references(request.context, target):
        if _collision(request, file.path, target, new_text.lower()):
            return Refusal(f"`{new_text}` is already declared as a {target.kind} in "
                           f"`{file.path.rsplit('/', 1)[-1]}`; renaming `{found.text}` to it would merge "
                           "two different things. Choose another name.")
        mapper = request.mapper(file.path, file.text)
        if mapper is None:
            continue
        uri = request.context.uri if file.path == request.context.path else path_to_uri(file.path)
        spans = sorted({o.span for o in file.occurrences})
        changes[uri] = [types.TextEdit(range=mapper.range(s), new_text=new_text) for s in spans]
    return types.WorkspaceEdit(changes=changes)


def _checked_name(target: Declaration, new_name: str) -> str | Refusal:
    if target.kind == "variable":
        marker = "?" if target.key.startswith("?") else ""  # an LTL goal's variables have no `?`
        bare = new_name[1:] if new_name.startswith("?") else new_name
        if not _NAME.match(bare):
            first = "`?` and a letter" if marker else "a letter"
            return Refusal(f"`{new_name}` is not a valid variable name: start with {first}, then letters, "
                           "digits, `-` or `_`.")
        return marker + bare
    if new_name.startswith("?"):
        return Refusal(f"`{new_name}` is a variable name; a {target.kind} needs a name without `?`.")
    if not _NAME.match(new_name):
        return Refusal(f"`{new_name}` is not a valid PDDL name: start with a letter, then letters, digits, "
                       "`-` or `_`.")
    if new_name.lower() in RESERVED:
        return Refusal(f"`{new_name}` is a PDDL keyword; choose another name.")
    return new_name


def _collision(request: SymbolRequest, path: str, target: Declaration, new_key: str) -> bool:
    """Whether ``new_key`` already names another symbol of the same kind visible in ``path``."""
    if new_key == target.key:
        return False
    context = request.context
    if path != context.path:
        return False  # the declaring file and the current one are checked; others see the same tables
    index = index_of(context)
    kinds = _COLLIDES_WITH.get(target.kind, (target.kind,))
    if target.kind == "variable":
        return any(o.target is not None and o.target.scope == target.scope and o.key == new_key
                   and o.is_declaration for o in index.occurrences)
    return any((kind, new_key) in index.visible for kind in kinds)

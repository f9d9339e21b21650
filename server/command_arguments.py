"""The arguments of ``workspace/executeCommand`` as clients send them, and the document they name.

Server commands take one JSON object (``[{"uri": ..., "line": ...}]``): positional arrays break as
soon as a command grows an option. pygls may hand that object over as a dict or as an attribute
object, so it is read through :func:`argument_of`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from plansight.analyses.syntax.documents import FileKind
from plansight.server.context import DocumentContext, capture_context, context_in_worker

if TYPE_CHECKING:
    from plansight.server.app import PlansightServer


def argument_of(arguments: Sequence[Any], key: str) -> Any:
    """``key`` of the first argument object; None when it is missing."""
    if not arguments:
        return None
    first = arguments[0]
    if isinstance(first, dict):
        return first.get(key)
    return getattr(first, key, None)


async def command_context(server: PlansightServer, arguments: Sequence[Any],
                          kind: FileKind | tuple[FileKind, ...], what: str) -> DocumentContext:
    """The context of the document named by the ``uri`` argument, which must be of ``kind`` (or one of
    them; ``what`` names the kind in the error a client shows: "a plan")."""
    uri = argument_of(arguments, "uri")
    if not isinstance(uri, str):
        raise ValueError(f'expected arguments [{{"uri": ...}}], got {list(arguments)!r}')
    request = capture_context(server, uri)
    if request is None:
        raise ValueError(f"cannot read {uri}")
    context = await context_in_worker(server, request)
    if context is None or context.kind not in (kind if isinstance(kind, tuple) else (kind,)):
        raise ValueError(f"{uri} is not {what}")
    return context

#!/usr/bin/env python3
"""Write the extension's copy of the server's commands and custom requests
(``src/serverProtocol.ts``) from the server's table (``server/commands.py``), which is the single
source: ids, argument objects and result shapes.

``--check`` (the default) exits 1 when the committed file differs from what would be written;
``--write`` rewrites it. ``tests/test_vscode_server_commands.py`` runs the check, so a command renamed
or a result key added on the server cannot leave the extension behind.

Run with the project's interpreter: ``.venv/bin/python vscode-client/scripts/sync-server-commands.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
import types
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

from plansight.server import commands

CLIENT_ROOT = Path(__file__).resolve().parent.parent
GENERATED = CLIENT_ROOT / "src" / "serverProtocol.ts"

HEADER = """\
/**
 * The language server's commands (`workspace/executeCommand`) and custom requests: their ids, the
 * one argument object each takes and the JSON each answers.
 *
 * GENERATED from the server's table (server/commands.py) by scripts/sync-server-commands.py
 * --write; do not edit by hand. A Python test fails when this file and the server's table differ.
 * The results are what the server sends; the extension still reads them defensively, since a server
 * of another version may send less.
 *
 * This module must not import `vscode`.
 */
"""


def _jsdoc(kind: type) -> list[str]:
    """The class docstring as a JSDoc comment, in Markdown's single backticks, wrapped like the code."""
    doc = kind.__doc__
    if not doc or doc.startswith(f"{kind.__name__}("):  # TypedDict's generated signature is not a doc
        return []
    text = " ".join(doc.split()).replace("``", "`")
    return ["/**", *(f" * {line}" for line in textwrap.wrap(text, 100)), " */"]


class Writer:
    """Turns the table's Python types into TypeScript, collecting the interfaces they name."""

    def __init__(self) -> None:
        self.interfaces: dict[str, type] = {}

    def type_of(self, hint: Any) -> str:
        if hint is type(None) or hint is None:
            return "null"
        if hint is Any:
            return "unknown"
        if hint is str:
            return "string"
        if hint is bool:
            return "boolean"
        if hint in (int, float):
            return "number"
        if is_typeddict(hint):
            self.interfaces.setdefault(hint.__name__, hint)
            return str(hint.__name__)
        origin, arguments = get_origin(hint), get_args(hint)
        if origin is Literal:
            return " | ".join(json.dumps(value) for value in arguments)
        if origin in (Union, types.UnionType):
            return " | ".join(self.type_of(argument) for argument in arguments)
        if origin is list:
            inner = self.type_of(arguments[0])
            return f"({inner})[]" if " | " in inner else f"{inner}[]"
        if origin is dict:
            return f"Record<string, {self.type_of(arguments[1])}>"
        raise TypeError(f"no TypeScript type for {hint!r}: extend sync-server-commands.py")

    def interface(self, kind: type) -> list[str]:
        hints = get_type_hints(kind)
        required = getattr(kind, "__required_keys__", frozenset(hints))
        lines = _jsdoc(kind)
        lines.append(f"export interface {kind.__name__} {{")
        for name, hint in hints.items():
            optional = "" if name in required else "?"
            lines.append(f"  {name}{optional}: {self.type_of(hint)};")
        lines.append("}")
        return lines


def generate() -> str:
    writer = Writer()
    calls = commands.SERVER_CALLS
    out = [HEADER]
    out.append("/** The `workspace/executeCommand` ids, by the name the extension's code uses. */")
    out.append("export const SERVER_COMMAND_IDS = {")
    out += [f"  {call.key}: {json.dumps(call.id)}," for call in calls if call.kind == "command"]
    out += ["} as const;", ""]
    out.append("/** The custom request methods, by the name the extension's code uses. */")
    out.append("export const SERVER_REQUEST_METHODS = {")
    out += [f"  {call.key}: {json.dumps(call.id)}," for call in calls if call.kind == "request"]
    out += ["} as const;", ""]
    out.append("/** The argument object of each command and request. */")
    out.append("export interface ServerArguments {")
    out += [f"  {call.key}: {writer.type_of(call.arguments)};" for call in calls]
    out += ["}", ""]
    out.append("/** What each one answers (`null`: nothing to say for this document or line). */")
    out.append("export interface ServerResults {")
    out += [f"  {call.key}: {writer.type_of(call.result)}{' | null' if call.nullable else ''};"
            for call in calls]
    out += ["}"]
    done: set[str] = set()
    while len(done) < len(writer.interfaces):  # interfaces may name further interfaces
        for name, kind in list(writer.interfaces.items()):
            if name not in done:
                done.add(name)
                out += ["", *writer.interface(kind)]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--write", action="store_true", help=f"rewrite {GENERATED.name}")
    args = parser.parse_args(argv)
    text = generate()
    if args.write:
        GENERATED.write_text(text, encoding="utf-8")
        return 0
    current = GENERATED.read_text(encoding="utf-8") if GENERATED.exists() else ""
    if current != text:
        print(f"{GENERATED} differs from server/commands.py: run {Path(__file__).name} --write",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Keep the extension's settings (``package.json``, ``contributes.configuration``) identical to the
language server's schema (``server/settings.py``), which is the single source.

``--check`` (the default) exits 1 and lists every difference; ``--write`` rewrites the server's keys
in ``package.json`` from the schema, keeping their descriptions (a new key gets an empty one, which
``--check`` then asks a person to write: a description is not something to generate).

The schema is read from the server module, and then *verified against the server's behaviour*:
each key is fed to ``read_settings`` at its default, at its bounds and just past them, so a key the
server no longer reads, a range that moved, or a new ``Settings`` field with no key fails here even
if nobody touched this file. Settings that only the extension reads are listed in
``src/serverSettings.ts`` (``CLIENT_ONLY_SETTINGS``) and read from there.

Run with the project's interpreter: ``.venv/bin/python vscode-client/scripts/sync-settings.py``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from plansight.analyses.diagnostics.diagnostic import CODES
from plansight.server import settings as server_settings

CLIENT_ROOT = Path(__file__).resolve().parent.parent
PACKAGE_JSON = CLIENT_ROOT / "package.json"
CLIENT_SETTINGS_TS = CLIENT_ROOT / "src" / "serverSettings.ts"

SECTION = server_settings.SECTION
# The parts of a setting's JSON schema that must agree; descriptions and scope are the extension's.
SCHEMA_FIELDS = ("type", "default", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "items",
                 "enum", "additionalProperties")

Schema = dict[str, dict[str, Any]]
DESCRIPTIONS = ("description", "markdownDescription", "enumDescriptions", "markdownEnumDescriptions")


def _meaning(value: object) -> object:
    """``value`` without descriptions at any depth: item descriptions are the extension's words."""
    if isinstance(value, dict):
        return {name: _meaning(inner) for name, inner in value.items() if name not in DESCRIPTIONS}
    if isinstance(value, list):
        return [_meaning(inner) for inner in value]
    return value


def server_schema() -> Schema:
    """The server's settings as JSON schema fragments, keyed ``plansight.<key>``.

    Built from the server's own table of keys (``server/settings.py`` ``KEYS``), so defaults and
    bounds are the server's values; :func:`behaviour_problems` then proves that ``read_settings``
    really enforces what each fragment says.
    """
    return {f"{SECTION}.{key.key}": key.json_schema() for key in server_settings.KEYS}


# --- the schema against the server's behaviour ----------------------------------------------------


def _nested(key: str, value: object) -> dict[str, Any]:
    """``plansight.diagnostics.debounceMs`` = 5 -> ``{"diagnostics": {"debounceMs": 5}}`` (the section)."""
    parts = key.split(".")[1:]
    node: dict[str, Any] = {}
    root = node
    for part in parts[:-1]:
        node[part] = {}
        node = node[part]
    node[parts[-1]] = value
    return root


def _changed_fields(read: server_settings.SettingsRead) -> set[str]:
    defaults = server_settings.Settings()
    return {
        field.name
        for field in dataclasses.fields(server_settings.Settings)
        if getattr(read.settings, field.name) != getattr(defaults, field.name)
    }


def _sample(schema: dict[str, Any]) -> object:
    """A valid value that differs from the default, to prove the server reads the key."""
    kind = schema["type"]
    if kind == "array":
        item = schema["items"]
        return [{name: f"sample-{name}" for name in item["properties"]}]
    if kind in ("integer", "number"):
        return schema.get("maximum", schema["default"] + 1)
    if kind == "boolean":
        return not schema["default"]
    if kind == "object":
        # a map whose values are constrained: the first allowed value for the first key the server knows
        return {_known_map_key(): schema["additionalProperties"]["enum"][0]}
    if "enum" in schema:
        return next(value for value in schema["enum"] if value != schema["default"])
    return f"{schema['default']}-sample"


def _known_map_key() -> str:
    """A key the server accepts in a map setting (``diagnostics.severity`` maps diagnostic codes)."""
    return next(iter(CODES))


def _invalid_values(schema: dict[str, Any]) -> list[object]:
    """Values the schema forbids; the server must refuse each one (with a complaint)."""
    kind = schema["type"]
    values: list[object] = ["not-a-valid-value"] if kind != "string" else [42]
    if "enum" in schema:
        values.append("not-one-of-the-choices")
    if kind == "object":
        values += [{_known_map_key(): "not-one-of-the-choices"}, {"no-such-key": schema["default"]}]
    if kind in ("integer", "number"):
        if "maximum" in schema:
            values.append(schema["maximum"] + 1)
        if "minimum" in schema:
            values.append(schema["minimum"] - 1)
        if "exclusiveMinimum" in schema:
            values.append(schema["exclusiveMinimum"])
        if "exclusiveMaximum" in schema:
            values.append(schema["exclusiveMaximum"])
        values.append(True)  # JSON booleans are not numbers, though Python's bool is an int
    return values


def _boundary_values(schema: dict[str, Any]) -> list[object]:
    """Values at the edge of the schema's range, which the server must accept."""
    values = [schema[bound] for bound in ("minimum", "maximum") if bound in schema]
    if schema["type"] == "number" and "exclusiveMinimum" in schema:
        values.append(schema["exclusiveMinimum"] + 0.001)
    unbounded = "maximum" not in schema and "exclusiveMaximum" not in schema
    if schema["type"] in ("integer", "number") and unbounded:
        values.append(10**9)  # no upper bound declared: the server must not have one either
    return values


def behaviour_problems(
    schema: Schema,
    read: Callable[[Any], server_settings.SettingsRead] = server_settings.read_settings,
) -> list[str]:
    """Every way ``schema`` disagrees with what ``read`` (the server's reader) accepts and refuses."""
    problems: list[str] = []
    covered: set[str] = set()
    for key, fragment in schema.items():
        at_default = read(_nested(key, fragment["default"]))
        if at_default.complaints or _changed_fields(at_default):
            why = at_default.complaints or sorted(_changed_fields(at_default))
            problems.append(f"{key}: the server does not take the declared default {fragment['default']!r} "
                            f"as its default ({why})")
        sample = _sample(fragment)
        changed = _changed_fields(read(_nested(key, sample)))
        if not changed:
            problems.append(f"{key}: the server ignores this key (setting it to {sample!r} changed nothing)")
        covered |= changed
        for value in _boundary_values(fragment):
            result = read(_nested(key, value))
            if result.complaints:
                problems.append(f"{key}: the schema allows {value!r} but the server refuses it: "
                                f"{result.complaints[0]}")
        for value in _invalid_values(fragment):
            result = read(_nested(key, value))
            if not any(key in complaint for complaint in result.complaints):
                problems.append(f"{key}: the schema forbids {value!r} "
                                "but the server accepts it without a word")
    for field in dataclasses.fields(server_settings.Settings):
        if field.name not in covered:
            problems.append(f"Settings.{field.name} is read by the server "
                            "but no setting in the schema sets it")
    return problems


# --- package.json ---------------------------------------------------------------------------------


def client_only_settings(source: str | None = None) -> list[str]:
    """``CLIENT_ONLY_SETTINGS`` from ``src/serverSettings.ts``, as full keys."""
    text = source if source is not None else CLIENT_SETTINGS_TS.read_text(encoding="utf-8")
    match = re.search(r"CLIENT_ONLY_SETTINGS\b[^=]*=\s*new Set\(\[(.*?)\]\)", text, re.DOTALL)
    if match is None:
        raise SystemExit(f"sync-settings: CLIENT_ONLY_SETTINGS not found in {CLIENT_SETTINGS_TS}")
    return [f"{SECTION}.{name}" for name in re.findall(r'"([^"]+)"', match.group(1))]


def package_problems(package: dict[str, Any], schema: Schema, client_only: list[str]) -> list[str]:
    """Every difference between ``package.json``'s settings and the server's schema."""
    properties: dict[str, dict[str, Any]] = package["contributes"]["configuration"]["properties"]
    problems: list[str] = []
    for key, expected in schema.items():
        declared = properties.get(key)
        if declared is None:
            problems.append(f"{key} is a server setting missing from package.json")
            continue
        for name in SCHEMA_FIELDS:
            if _meaning(declared.get(name)) != expected.get(name):
                problems.append(f"{key}: `{name}` is {declared.get(name)!r} in package.json, "
                                f"{expected.get(name)!r} in the server's schema")
        if not (declared.get("markdownDescription") or declared.get("description")):
            problems.append(f"{key} has no description in package.json: write one")
    for key in properties:
        if key not in schema and key not in client_only:
            problems.append(f"{key} is in package.json "
                            "but is neither a server setting nor in CLIENT_ONLY_SETTINGS")
    for key in client_only:
        if key not in properties:
            problems.append(f"{key} is in CLIENT_ONLY_SETTINGS but not declared in package.json")
    return problems


def synced_package(package: dict[str, Any], schema: Schema, client_only: list[str]) -> dict[str, Any]:
    """``package`` with its server settings rewritten from ``schema`` (descriptions and scope kept)."""
    properties: dict[str, dict[str, Any]] = package["contributes"]["configuration"]["properties"]
    synced: dict[str, dict[str, Any]] = {}
    for key, declared in properties.items():
        if key in client_only:
            synced[key] = declared
        elif key in schema:
            # a field that already means the same is kept as written, with its descriptions
            fields = {name: declared[name] if _meaning(declared.get(name)) == value else value
                      for name, value in schema[key].items()}
            kept = {name: value for name, value in declared.items() if name not in SCHEMA_FIELDS}
            synced[key] = {**fields, **kept}
    for key, expected in schema.items():
        if key not in synced:
            synced[key] = {**expected, "markdownDescription": ""}
    package["contributes"]["configuration"]["properties"] = synced
    return package


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite package.json from the server's schema")
    args = parser.parse_args(argv)

    schema = server_schema()
    problems = behaviour_problems(schema)
    if problems:
        print("The schema in sync-settings.py disagrees with the server's read_settings:",
              *problems, sep="\n  ")
        return 1
    client_only = client_only_settings()
    package = json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))
    if args.write:
        package = synced_package(package, schema, client_only)
        PACKAGE_JSON.write_text(json.dumps(package, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    problems = package_problems(package, schema, client_only)
    if problems:
        print("package.json differs from the server's settings (fix, or run with --write):",
              *problems, sep="\n  ")
        return 1
    print(f"package.json mirrors the server's {len(schema)} settings")
    return 0


if __name__ == "__main__":
    sys.exit(main())

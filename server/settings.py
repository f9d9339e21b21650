"""The language server's settings: one typed schema, its defaults, and a forgiving reader.

The editor sends settings as loose JSON (``initializationOptions`` and
``workspace/didChangeConfiguration``, section ``plansight``). A typo in a user's settings file must not
break diagnostics, so every value is validated on its own: a bad value falls back to its default and
produces a human-readable complaint that the server shows once. The VS Code extension's
``package.json`` mirrors this schema key for key:

===========================================  ================  =========================================
key                                          default           meaning
===========================================  ================  =========================================
``plansight.domainGlobs``                    ``[]``            ``[{"glob": "problems/**/*.pddl",
                                                               "domain": "domains/blocks.pddl"}]``:
                                                               problems (and their plans) matching a glob
                                                               use that domain (SPEC.md §1, rule 3). Both
                                                               are relative to the workspace folder.
``plansight.diagnostics.debounceMs``         ``20``            quiet time after a keystroke before a
                                                               document is re-analysed (0 – 2000).
``plansight.diagnostics.maxFileSizeMB``      ``20``            larger documents get one information
                                                               diagnostic instead of an analysis.
===========================================  ================  =========================================

Nested objects (``{"diagnostics": {"debounceMs": 20}}``) and dotted keys
(``{"diagnostics.debounceMs": 20}``) are both accepted, since clients send either.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SECTION = "plansight"

DEFAULT_DEBOUNCE_MS = 20
MAX_DEBOUNCE_MS = 2000
DEFAULT_MAX_FILE_SIZE_MB = 20.0


@dataclass(frozen=True, slots=True)
class DomainGlob:
    """Problems whose path matches ``glob`` use the domain at ``domain`` (both workspace-relative)."""

    glob: str
    domain: str


@dataclass(frozen=True, slots=True)
class Settings:
    domain_globs: tuple[DomainGlob, ...] = ()
    debounce_ms: int = DEFAULT_DEBOUNCE_MS
    max_file_size_mb: float = DEFAULT_MAX_FILE_SIZE_MB

    @property
    def max_file_chars(self) -> int:
        """The size limit in characters: a cheap, conservative stand-in for bytes (1 char >= 1 byte)."""
        return int(self.max_file_size_mb * 1_000_000)


@dataclass(frozen=True, slots=True)
class SettingsRead:
    """The settings that will be used, plus one sentence per value that was ignored."""

    settings: Settings
    complaints: tuple[str, ...] = field(default=())


def section_of(raw: object) -> Mapping[str, Any] | None:
    """The ``plansight`` section of what a client sent, or ``None`` when it sent nothing usable.

    Clients send either ``{"plansight": {...}}`` or the section itself; both are accepted.
    """
    if not isinstance(raw, Mapping):
        return None
    inner = raw.get(SECTION)
    if isinstance(inner, Mapping):
        return inner
    if any(isinstance(key, str) and (key in _TOP_KEYS or key.startswith("diagnostics")) for key in raw):
        return raw
    return None


_TOP_KEYS = frozenset({"domainGlobs", "diagnostics"})
_MISSING = object()


def _lookup(section: Mapping[str, Any], dotted: str) -> object:
    if dotted in section:
        return section[dotted]
    node: object = section
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return _MISSING
        node = node[part]
    return node


def read_settings(section: Mapping[str, Any] | None) -> SettingsRead:
    """Validate each known key of the ``plansight`` section independently; unknown keys are ignored."""
    if section is None:
        return SettingsRead(Settings())
    complaints: list[str] = []
    defaults = Settings()

    debounce = _lookup(section, "diagnostics.debounceMs")
    debounce_ms = defaults.debounce_ms
    if debounce is not _MISSING:
        if (isinstance(debounce, int | float) and not isinstance(debounce, bool)
                and math.isfinite(debounce) and 0 <= debounce <= MAX_DEBOUNCE_MS):
            debounce_ms = round(debounce)
        else:
            complaints.append(
                f"`{SECTION}.diagnostics.debounceMs` is {debounce!r}: expected a number of milliseconds "
                f"from 0 to {MAX_DEBOUNCE_MS}; using {defaults.debounce_ms}.")

    size = _lookup(section, "diagnostics.maxFileSizeMB")
    max_mb = defaults.max_file_size_mb
    if size is not _MISSING:
        if isinstance(size, int | float) and not isinstance(size, bool) and math.isfinite(size) and size > 0:
            max_mb = float(size)
        else:
            complaints.append(
                f"`{SECTION}.diagnostics.maxFileSizeMB` is {size!r}: expected a positive number of "
                f"megabytes; using {defaults.max_file_size_mb:g}.")

    globs = _lookup(section, "domainGlobs")
    domain_globs: list[DomainGlob] = []
    if globs is not _MISSING and globs is not None:
        if isinstance(globs, list):
            for index, entry in enumerate(globs):
                parsed = _domain_glob(entry)
                if parsed is None:
                    complaints.append(
                        f"`{SECTION}.domainGlobs[{index}]` is {entry!r}: expected "
                        '{"glob": "problems/*.pddl", "domain": "domain.pddl"}; ignoring this entry.')
                else:
                    domain_globs.append(parsed)
        else:
            complaints.append(
                f"`{SECTION}.domainGlobs` is {globs!r}: expected a list of "
                '{"glob": ..., "domain": ...} objects; using none.')

    return SettingsRead(Settings(tuple(domain_globs), debounce_ms, max_mb), tuple(complaints))


def _domain_glob(entry: object) -> DomainGlob | None:
    if not isinstance(entry, Mapping):
        return None
    glob, domain = entry.get("glob"), entry.get("domain")
    if isinstance(glob, str) and isinstance(domain, str) and glob.strip() and domain.strip():
        return DomainGlob(glob.strip(), domain.strip())
    return None

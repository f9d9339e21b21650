"""The language server's settings: one typed schema, its defaults, and a forgiving reader.

The editor sends settings as loose JSON (``initializationOptions`` and
``workspace/didChangeConfiguration``, section ``plansight``). A typo in a user's settings file must not
break diagnostics, so every value is validated on its own: a bad value falls back to its default and
produces a human-readable complaint that the server shows once.

The schema is a table, :data:`KEYS`: one line per setting, naming its key under ``plansight``, the
:class:`Settings` field it fills and the rule its value must follow. The same rules produce the JSON
schema that the VS Code extension's ``package.json`` declares (``vscode-client/scripts/sync-settings.py``
checks the two agree, and that the reader really enforces what the schema says); the README's settings
table explains every key.

Nested objects (``{"diagnostics": {"debounceMs": 20}}``) and dotted keys
(``{"diagnostics.debounceMs": 20}``) are both accepted, since clients send either.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from plansight.analyses.diagnostics.severity_overrides import SEVERITY_LEVELS, severity_override_problem
from plansight.analyses.diagnostics.suggest import suffix
from plansight.analyses.semantics.budget import WorkBudget

SECTION = "plansight"

DEFAULT_DEBOUNCE_MS = 20
MAX_DEBOUNCE_MS = 2000
DEFAULT_MAX_FILE_SIZE_MB = 20.0
SIMILARITY_VERSIONS = ("v1", "v2")


@dataclass(frozen=True, slots=True)
class DomainGlob:
    """Problems whose path matches ``glob`` use the domain at ``domain`` (both workspace-relative)."""

    glob: str
    domain: str


@dataclass(frozen=True, slots=True)
class ReferenceGlob:
    """Problems whose path matches ``glob`` are compared with the reference problem ``reference``."""

    glob: str
    reference: str


@dataclass(frozen=True, slots=True)
class ReferencePlanGlob:
    """Plans matching ``glob`` are scored against ``reference_plan``, where ``{stem}`` is the plan's
    file name without its extension (``gt/{stem}.plan``)."""

    glob: str
    reference_plan: str


@dataclass(frozen=True, slots=True)
class PlannerCommand:
    """A planner of the user's: ``command`` is a template with ``{domain}``, ``{problem}`` and ``{plan}``
    placeholders (docs/cli.md, ``plansight solve``); ``name`` is what ``planner.configuration`` calls it."""

    name: str
    command: str


def _no_overrides() -> Mapping[str, str]:
    # a plain dict, typed read-only: dataclasses.asdict and copy cannot handle a MappingProxyType
    return {}


@dataclass(frozen=True, slots=True)
class Settings:
    """The user's settings once validated; every field has a usable default, so analyses can start before the
    client's configuration arrives.
    """

    domain_globs: tuple[DomainGlob, ...] = ()
    debounce_ms: int = DEFAULT_DEBOUNCE_MS
    max_file_size_mb: float = DEFAULT_MAX_FILE_SIZE_MB
    reference_globs: tuple[ReferenceGlob, ...] = ()
    reference_plan_globs: tuple[ReferencePlanGlob, ...] = ()
    planner_time_limit_s: float = 30.0
    planner_memory_limit_mb: int = 2048
    planner_configuration: str = "lama-first"
    """a Fast Downward configuration (``lama-first``, ``seq-opt-lmcut``) or a ``planner_commands`` name"""
    planner_commands: tuple[PlannerCommand, ...] = ()
    similarity_version: str = "v1"
    inlay_plan_effects: bool = True
    inlay_aqm_labels: bool = True
    inlay_object_types: bool = False
    format_indent: int = 2
    format_line_width: int = 100
    equivalence_state_budget: int = 200_000
    equivalence_time_limit_s: float = 10.0
    simulation_time_limit_s: float = 10.0
    """How long one plan simulation or LTL evaluation may run (analyses/semantics/budget.py)."""
    simulation_work_budget: int = 50_000_000
    """How many units of work (quantifier instances, steps, LTL nodes) it may spend."""
    simulation_epsilon: float = 0.01
    """A temporal plan's tolerance, as VAL's ``Validate -t`` (docs/beyond-classical-temporal.md)."""
    severity_overrides: Mapping[str, str] = field(default_factory=_no_overrides)
    """Diagnostic code -> ``error``/``warning``/``information``/``hint``/``off``; only known codes."""

    @property
    def max_file_chars(self) -> int:
        """The size limit in characters: a cheap, conservative stand-in for bytes (1 char >= 1 byte)."""
        return int(self.max_file_size_mb * 1_000_000)


def simulation_budget(settings: Settings) -> WorkBudget:
    """The work budget of one plan simulation or LTL evaluation in the editor's features."""
    return WorkBudget(settings.simulation_time_limit_s, settings.simulation_work_budget)


@dataclass(frozen=True, slots=True)
class SettingsRead:
    """The settings that will be used, plus one sentence per value that was ignored."""

    settings: Settings
    complaints: tuple[str, ...] = field(default=())


# --- the rules a value must follow ------------------------------------------------------------------

Checked = tuple[object, list[str]]
"""A rule's verdict: the value to use (``_MISSING``: the default) and the complaints, each a sentence
that names the key, the bad value, what was expected and what is used instead."""


def _complaint(key: str, value: object, expected: str, instead: str) -> str:
    return f"`{SECTION}.{key}` is {value!r}: expected {expected}; {instead}."


def _one_of(options: tuple[str, ...]) -> str:
    quoted = [f'"{option}"' for option in options]
    return " or ".join(quoted) if len(quoted) < 3 else "one of " + ", ".join(quoted)


def _is_number(value: object) -> bool:
    # JSON booleans are not numbers, though Python's bool is an int
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


@dataclass(frozen=True, slots=True)
class Number:
    """A number within bounds; ``integer`` rounds it (a client may send ``2.0`` for ``2``)."""

    unit: str
    integer: bool = False
    minimum: float | None = None
    maximum: float | None = None
    above: float | None = None
    """An exclusive lower bound."""

    def check(self, key: str, value: object, default: object) -> Checked:
        """The value when it is a number within bounds, else a complaint naming the default used instead."""
        if (_is_number(value) and isinstance(value, int | float)
                and (self.minimum is None or value >= self.minimum)
                and (self.maximum is None or value <= self.maximum)
                and (self.above is None or value > self.above)):
            return (round(value) if self.integer else float(value)), []
        return _MISSING, [_complaint(key, value, self._expected(), f"using {default:g}")]

    def _expected(self) -> str:
        kind = "a whole number" if self.integer else "a number"
        if self.minimum is not None and self.maximum is not None:
            return f"{kind} of {self.unit} from {self.minimum:g} to {self.maximum:g}"
        if self.above is not None:
            lower = "positive" if self.above == 0 else f"greater than {self.above:g}"
            bound = f" up to {self.maximum:g}" if self.maximum is not None else ""
            return f"a {lower} {kind.removeprefix('a ')} of {self.unit}{bound}"
        if self.minimum is not None:
            return f"{kind} of {self.unit}, at least {self.minimum:g}"
        return f"{kind} of {self.unit}"

    def schema(self) -> dict[str, Any]:
        """The JSON schema of the setting, for the extension's manifest."""
        bounds = {"minimum": self.minimum, "maximum": self.maximum, "exclusiveMinimum": self.above}
        return {"type": "integer" if self.integer else "number",
                **{name: _json_number(bound) for name, bound in bounds.items() if bound is not None}}

    def json(self, value: Any) -> object:
        """The value as the manifest writes it."""
        return _json_number(value)


@dataclass(frozen=True, slots=True)
class Flag:
    """A boolean setting."""

    def check(self, key: str, value: object, default: object) -> Checked:
        """The value when it is a boolean, else a complaint naming the default used instead."""
        if isinstance(value, bool):
            return value, []
        return _MISSING, [_complaint(key, value, "true or false", f"using {str(default).lower()}")]

    def schema(self) -> dict[str, Any]:
        """The JSON schema of the setting, for the extension's manifest."""
        return {"type": "boolean"}

    def json(self, value: Any) -> object:
        """The value as the manifest writes it."""
        return value


@dataclass(frozen=True, slots=True)
class Choice:
    """A setting that takes one of a few strings, compared case-insensitively."""

    values: tuple[str, ...]

    def check(self, key: str, value: object, default: object) -> Checked:
        """The lower-cased value when it is one of the choices, else a complaint with a did-you-mean."""
        if isinstance(value, str) and value.strip().lower() in self.values:
            return value.strip().lower(), []
        options = _one_of(self.values)
        hint = suffix(value, self.values) if isinstance(value, str) else ""
        return _MISSING, [_complaint(key, value, options, f"using {default!r}") + hint]

    def schema(self) -> dict[str, Any]:
        """The JSON schema of the setting, for the extension's manifest."""
        return {"type": "string", "enum": list(self.values)}

    def json(self, value: Any) -> object:
        """The value as the manifest writes it."""
        return value


@dataclass(frozen=True, slots=True)
class Text:
    """A non-empty string, kept as written apart from surrounding blanks."""

    def check(self, key: str, value: object, default: object) -> Checked:
        """The stripped string, else a complaint naming the default used instead."""
        if isinstance(value, str) and value.strip():
            return value.strip(), []
        return _MISSING, [_complaint(key, value, "a non-empty string", f"using {default!r}")]

    def schema(self) -> dict[str, Any]:
        """The JSON schema of the setting, for the extension's manifest."""
        return {"type": "string"}

    def json(self, value: Any) -> object:
        """The value as the manifest writes it."""
        return value


@dataclass(frozen=True, slots=True)
class Records:
    """A list of objects of non-empty strings, one per ``record`` (a dataclass); ``names`` are the JSON
    names of the record's fields, in order. A bad entry is dropped on its own."""

    record: type
    names: tuple[str, ...]

    def check(self, key: str, value: object, default: object) -> Checked:
        """The valid entries of the list; each invalid entry is skipped with its own complaint."""
        if value is None:
            return (), []
        example = "{" + ", ".join(f'"{name}": ...' for name in self.names) + "}"
        if not isinstance(value, list):
            return _MISSING, [_complaint(key, value, f"a list of {example} objects", "using none")]
        entries, complaints = [], []
        for index, entry in enumerate(value):
            strings = [entry.get(name) for name in self.names] if isinstance(entry, Mapping) else []
            if strings and all(isinstance(s, str) and s.strip() for s in strings):
                entries.append(self.record(*(s.strip() for s in strings if isinstance(s, str))))
            else:
                complaints.append(_complaint(f"{key}[{index}]", entry, example, "ignoring this entry"))
        return tuple(entries), complaints

    def schema(self) -> dict[str, Any]:
        """The JSON schema of the setting, for the extension's manifest."""
        return {"type": "array", "items": {
            "type": "object",
            "properties": {name: {"type": "string"} for name in self.names},
            "required": list(self.names),
            "additionalProperties": False,
        }}

    def json(self, value: Any) -> object:
        """The records as the manifest writes them."""
        return [dict(zip(self.names, (getattr(entry, f.name) for f in fields(entry)), strict=True))
                for entry in value]


@dataclass(frozen=True, slots=True)
class SeverityMap:
    """``{code: level}``: a code must be in the catalogue (a typo gets a "did you mean"), a level one
    of :data:`SEVERITY_LEVELS`. Each bad entry is dropped on its own; the others still apply."""

    def check(self, key: str, value: object, default: object) -> Checked:
        """The valid overrides; each invalid code or level is skipped with its own complaint."""
        if value is None:
            return _no_overrides(), []
        if not isinstance(value, Mapping):
            return _MISSING, [_complaint(key, value, 'an object such as {"unused-parameter": "off"}',
                                         "overriding no severity")]
        overrides, complaints = {}, []
        for code, level in value.items():
            problem = severity_override_problem(code, level)
            if problem is None:
                overrides[code] = level.strip().lower()
            else:
                complaints.append(f"`{SECTION}.{key}`: {problem} This entry is ignored.")
        return overrides, complaints

    def schema(self) -> dict[str, Any]:
        """The JSON schema of the setting, for the extension's manifest."""
        return {"type": "object",
                "additionalProperties": {"type": "string", "enum": list(SEVERITY_LEVELS)}}

    def json(self, value: Any) -> object:
        """The overrides as the manifest writes them."""
        return dict(value)


Rule = Number | Flag | Choice | Text | Records | SeverityMap


@dataclass(frozen=True, slots=True)
class Key:
    """One setting: its dotted key under ``plansight``, the :class:`Settings` field it fills, its rule."""

    key: str
    field: str
    rule: Rule

    @property
    def default(self) -> object:
        """The value the setting has when the user has not set it."""
        return _DEFAULTS[self.field]

    def json_schema(self) -> dict[str, Any]:
        """The setting's JSON schema fragment, as ``package.json`` declares it."""
        return {**self.rule.schema(), "default": self.rule.json(self.default)}


_DEFAULTS: dict[str, object] = {f.name: getattr(Settings(), f.name) for f in fields(Settings)}

KEYS: tuple[Key, ...] = (
    Key("diagnostics.debounceMs", "debounce_ms", Number("milliseconds", True, 0, MAX_DEBOUNCE_MS)),
    Key("diagnostics.maxFileSizeMB", "max_file_size_mb", Number("megabytes", above=0)),
    Key("domainGlobs", "domain_globs", Records(DomainGlob, ("glob", "domain"))),
    Key("referenceGlobs", "reference_globs", Records(ReferenceGlob, ("glob", "reference"))),
    Key("referencePlanGlobs", "reference_plan_globs", Records(ReferencePlanGlob, ("glob", "referencePlan"))),
    Key("planner.timeLimitSeconds", "planner_time_limit_s", Number("seconds", maximum=3600, above=0)),
    Key("planner.memoryLimitMB", "planner_memory_limit_mb", Number("megabytes", True, minimum=64)),
    Key("planner.configuration", "planner_configuration", Text()),
    Key("planner.commands", "planner_commands", Records(PlannerCommand, ("name", "command"))),
    Key("planMetrics.similarity", "similarity_version", Choice(SIMILARITY_VERSIONS)),
    Key("inlayHints.planEffects", "inlay_plan_effects", Flag()),
    Key("inlayHints.aqmLabels", "inlay_aqm_labels", Flag()),
    Key("inlayHints.objectTypes", "inlay_object_types", Flag()),
    Key("formatting.indentWidth", "format_indent", Number("spaces", True, 0, 8)),
    Key("formatting.lineWidth", "format_line_width", Number("characters", True, 20, 1000)),
    Key("equivalence.stateBudget", "equivalence_state_budget", Number("states", True, minimum=1)),
    Key("equivalence.timeLimitSeconds", "equivalence_time_limit_s", Number("seconds", maximum=3600, above=0)),
    Key("simulation.timeLimitSeconds", "simulation_time_limit_s", Number("seconds", maximum=3600, above=0)),
    Key("simulation.workBudget", "simulation_work_budget", Number("units of work", True, minimum=1)),
    Key("simulation.epsilon", "simulation_epsilon", Number("time units", maximum=1000, above=0)),
    Key("diagnostics.severity", "severity_overrides", SeverityMap()),
)

_TOP_KEYS = frozenset(key.key.split(".")[0] for key in KEYS)
_MISSING = object()


def _json_number(value: float) -> int | float:
    """``20.0`` -> ``20``: package.json writes whole numbers without a fraction."""
    return int(value) if float(value).is_integer() else value


def section_of(raw: object) -> Mapping[str, Any] | None:
    """The ``plansight`` section of what a client sent, or ``None`` when it sent nothing usable.

    Clients send either ``{"plansight": {...}}`` or the section itself; both are accepted.
    """
    if not isinstance(raw, Mapping):
        return None
    inner = raw.get(SECTION)
    if isinstance(inner, Mapping):
        return inner
    if any(isinstance(key, str) and key.split(".")[0] in _TOP_KEYS for key in raw):
        return raw
    return None


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
    values: dict[str, object] = {}
    complaints: list[str] = []
    for key in KEYS:
        raw = _lookup(section, key.key)
        if raw is _MISSING:
            continue
        value, said = key.rule.check(key.key, raw, key.default)
        complaints.extend(said)
        if value is not _MISSING:
            values[key.field] = value
    return SettingsRead(Settings(**values), tuple(complaints))  # type: ignore[arg-type]


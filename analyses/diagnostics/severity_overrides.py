"""A user's severity overrides (``plansight.diagnostics.severity``, ``lint --severity-override``).

Teams disagree about what deserves an error: one course wants unused parameters ignored, another
wants them to fail the build. The checks keep their catalogue severities; the overrides are applied
last, in one place, so the editor and the command line agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from plansight.analyses.diagnostics.diagnostic import CODES, Diagnostic, Severity
from plansight.analyses.diagnostics.suggest import suffix

OFF = "off"
_LEVELS = {severity.value: severity for severity in Severity}
SEVERITY_LEVELS = ("error", "warning", "information", "hint", OFF)
"""What an override may set a code to; ``off`` hides the code."""


def severity_override_problem(code: object, level: object) -> str | None:
    """Why ``code`` cannot be set to ``level``, as a sentence; ``None`` when it can.

    The editor's settings reader and ``plansight lint --severity-override`` both ask here, so they
    accept and refuse the same things.
    """
    if code not in CODES:
        return (f"plansight has no diagnostic code {code!r} (`plansight codes` lists them)."
                f"{suffix(str(code), CODES)}")
    if not isinstance(level, str) or level.strip().lower() not in SEVERITY_LEVELS:
        hint = suffix(level, SEVERITY_LEVELS) if isinstance(level, str) else ""
        expected = "one of " + ", ".join(f'"{option}"' for option in SEVERITY_LEVELS)
        return f"the level of `{code}` is {level!r}: expected {expected}.{hint}"
    return None


def apply_severity_overrides(diagnostics: Iterable[Diagnostic],
                             overrides: Mapping[str, str]) -> tuple[Diagnostic, ...]:
    """``diagnostics`` with each overridden code at its new severity; codes set to ``off`` dropped.

    ``overrides`` maps a code to ``error``/``warning``/``information``/``hint``/``off`` (already
    validated by :func:`severity_override_problem`); anything else leaves the diagnostic as it is.
    """
    if not overrides:
        return tuple(diagnostics)
    kept = []
    for diagnostic in diagnostics:
        level = overrides.get(diagnostic.code)
        if level == OFF:
            continue
        if level in _LEVELS:
            diagnostic = replace(diagnostic, severity=_LEVELS[level])
        kept.append(diagnostic)
    return tuple(kept)

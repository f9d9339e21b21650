"""A user's severity overrides (``plansight.diagnostics.severity``, ``lint --severity-override``).

Teams disagree about what deserves an error: one course wants unused parameters ignored, another
wants them to fail the build. The checks keep their catalogue severities; the overrides are applied
last, in one place, so the editor and the command line agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from plansight.analyses.diagnostics.diagnostic import Diagnostic, Severity

OFF = "off"
_LEVELS = {severity.value: severity for severity in Severity}


def apply_severity_overrides(diagnostics: Iterable[Diagnostic],
                             overrides: Mapping[str, str]) -> tuple[Diagnostic, ...]:
    """``diagnostics`` with each overridden code at its new severity; codes set to ``off`` dropped.

    ``overrides`` maps a code to ``error``/``warning``/``information``/``hint``/``off`` (already
    validated by the settings reader); anything else leaves the diagnostic as it is.
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

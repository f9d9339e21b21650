"""The diagnostic record every analysis returns, and the catalogue of stable codes.

Codes are part of the product contract (CI pipelines filter on them), so they are declared once
here, each with its default severity and a one-line description that the README and SARIF rules
reuse.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from plansight.analyses.diagnostics.spans import Span


class Severity(str, Enum):
    """How serious a diagnostic is; the values are the names users write in severity overrides."""

    ERROR = "error"
    WARNING = "warning"
    INFORMATION = "information"
    HINT = "hint"


class Tag(str, Enum):
    """Extra rendering hints an editor understands: unnecessary code is faded, deprecated code struck through.
    """

    UNNECESSARY = "unnecessary"
    DEPRECATED = "deprecated"


@dataclass(frozen=True, slots=True)
class Related:
    """Another place that explains a diagnostic (the first declaration of a duplicate, say)."""

    message: str
    span: Span
    path: str | None = None  # None: the same document


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding about a file, independent of how it is shown: the CLI prints it, the server converts it to
    an LSP diagnostic, and quick fixes key off its ``code``.
    """

    code: str
    severity: Severity
    message: str
    span: Span
    tags: tuple[Tag, ...] = ()
    related: tuple[Related, ...] = ()
    data: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    """Machine-readable hints for quick fixes (e.g. ``(("suggestion", "on-table"),)``)."""


@dataclass(frozen=True, slots=True)
class CodeInfo:
    """What ``plansight codes`` lists for one diagnostic code: its default severity and a one-line summary."""

    code: str
    severity: Severity
    summary: str


def _catalogue(*rows: tuple[str, Severity, str]) -> dict[str, CodeInfo]:
    return {code: CodeInfo(code, severity, summary) for code, severity, summary in rows}


E, W, INFO, H = Severity.ERROR, Severity.WARNING, Severity.INFORMATION, Severity.HINT

CODES: dict[str, CodeInfo] = _catalogue(
    # --- syntax -------------------------------------------------------------------------------
    ("syntax-error", E, "A token the PDDL grammar does not allow here; the message lists what was expected."),
    ("unclosed-paren", E, "A `(` that is never closed; the `)` is probably missing where the message says."),
    ("unexpected-close-paren", E, "A `)` that closes nothing (or closes `(define` too early)."),
    ("invalid-character", E, "A character that cannot start any PDDL token."),
    ("empty-file", INFO, "The file has no PDDL content yet."),
    ("unknown-file-kind", W, "The text is neither a domain nor a problem nor a plan."),
    (
        "empty-typed-list",
        W,
        "A `- type` with no names before it (`(:objects - board)`): it types nothing and can be removed.",
    ),
    (
        "skipped-form",
        INFO,
        "A form plansight reads past without checking: a Lisp `(in-package ...)` header before `(define`.",
    ),
    (
        "unsupported-dialect",
        W,
        "A section of a PDDL dialect plansight does not model (IPC-2008 `:goal-utilities`); it is skipped.",
    ),
    (
        "legacy-construct",
        H,
        "A PDDL 1.2 construct later versions dropped (`:vars` in an action), read as PDDL 1.2 defines it.",
    ),
    # --- domain ---------------------------------------------------------------------------------
    ("undeclared-predicate", E, "An atom uses a predicate the domain does not declare."),
    ("undeclared-function", E, "A numeric expression uses a function the domain does not declare."),
    ("undeclared-type", E, "A type is used but not declared in `:types`."),
    (
        "undeclared-constant",
        E,
        "A name used as an argument is neither a constant nor (in a problem) an object.",
    ),
    ("wrong-arity", E, "A predicate, function or action is given the wrong number of arguments."),
    ("type-mismatch", E, "An argument's type is not compatible with the declared parameter type."),
    ("free-variable", E, "A variable that is neither a parameter nor bound by a quantifier."),
    ("duplicate-declaration", E, "The same name is declared twice in one scope."),
    (
        "multiple-parents",
        H,
        "A type declared under two parent types: it is a subtype of both, as VAL reads it.",
    ),
    (
        "missing-requirement",
        W,
        "A construct is used whose requirement is not declared (VAL warns; some planners refuse such files).",
    ),
    ("unused-requirement", H, "A declared requirement that nothing in the domain uses."),
    ("unknown-requirement", E, "A requirement keyword that PDDL does not define."),
    ("unused-predicate", H, "A predicate that no action, axiom, problem or constraint mentions."),
    ("unused-parameter", H, "An action parameter that neither its precondition nor its effect mentions."),
    ("unused-type", H, "A declared type that nothing uses."),
    ("unused-constant", H, "A declared constant that nothing uses."),
    ("add-delete-conflict", INFO, "An action both adds and deletes the same atom (the add wins)."),
    (
        "misplaced-construct",
        E,
        "A construct in a place PDDL does not allow (e.g. `at start` in an instantaneous action).",
    ),
    (
        "unstratified-derived",
        E,
        "The `:derived` rules cannot be stratified: a derived predicate depends on its own negation.",
    ),
    ("derived-effect", E, "An action's effect changes a derived predicate, which only its rules may decide."),
    ("duplicate-section", E, "A section (`:parameters`, `:init`, ...) appears twice."),
    ("missing-section", W, "A section that should be there is missing (an action without `:effect`)."),
    # --- problem --------------------------------------------------------------------------------
    ("unknown-domain", E, "The problem's `(:domain NAME)` matches no domain that could be found."),
    ("missing-domain", INFO, "No domain could be associated with the file, so only syntax is checked."),
    ("undeclared-object", E, "A name in the problem that is neither an object nor a domain constant."),
    ("typed-objects-untyped-domain", E, "Objects are given types but the domain does not declare `:typing`."),
    ("object-shadows-constant", W, "A problem object has the same name as a domain constant."),
    (
        "static-goal-unreachable",
        E,
        "A goal atom over a predicate no action changes, false in the initial state.",
    ),
    ("contradictory-goal", E, "The goal requires an atom and its negation."),
    ("duplicate-init-fact", H, "The same fact appears twice in `:init`."),
    ("derived-in-init", W, "A derived atom listed in `:init`: it is ignored (VAL too), its rules decide it."),
    # --- plan -----------------------------------------------------------------------------------
    ("unknown-action", E, "A plan step names an action the domain does not declare."),
    ("missing-problem", INFO, "No problem could be associated with the plan, so only its syntax is checked."),
    # --- plan simulation (analyses/plans/simulate.py) ---------------------------------------------------
    (
        "step-not-executable",
        E,
        "The first plan step that cannot be executed; the message names the false atoms and the category.",
    ),
    ("unreached-step", H, "A step after the first non-executable one: the simulation never reaches it."),
    ("redundant-step", W, "An executable step that changes nothing (everything it adds already holds)."),
    ("goal-not-satisfied", E, "Goals that do not hold after the plan (a warning when the plan stops early)."),
    (
        "constraint-violated",
        E,
        "A PDDL3 trajectory constraint the plan violates, on the step after which it broke.",
    ),
    (
        "preference-violated",
        INFO,
        "A PDDL3 preference the plan violates (soft: counted by `is-violated`, the plan stays valid).",
    ),
    (
        "simulation-skipped",
        INFO,
        "The plan is not simulated: the domain uses a construct the simulator does not model.",
    ),
    (
        "budget-exceeded",
        W,
        "A plan simulation or LTL evaluation went past its work budget (time, work, nesting): no verdict.",
    ),
    # --- files and links (association, lint orchestration) ----------------------------------------
    ("broken-link", E, "A `; @domain` / `; @problem` link or setting points at an unusable file."),
    ("domain-name-mismatch", W, "The problem's `(:domain NAME)` differs from its linked domain's name."),
    ("unreadable-file", E, "The file could not be read (missing, a folder, denied, binary, too large)."),
    ("internal-error", E, "plansight itself failed on this file (a bug); the other checks still ran."),
    # --- LTL goals (.ltl; the Embodied Agent Interface's error categories, Li et al. 2024) -----------
    (
        "hallucinated-predicate",
        E,
        "An LTL atom names neither a predicate nor an action of the domain (EAI: hallucination error).",
    ),
    (
        "hallucinated-object",
        E,
        "An LTL argument is neither a quantified variable nor an object or constant (EAI: hallucination).",
    ),
    ("argument-count", E, "An LTL atom has the wrong number of arguments (EAI: argument-number error)."),
    ("ltl-type-mismatch", W, "An LTL argument's type does not fit the parameter: the atom can never hold."),
    ("quantifier-range", H, "The objects a quantified LTL variable ranges over, narrowed by its typed uses."),
    # --- equivalence with a reference problem (`; @reference`, Planetarium, Zuo et al. 2024) --------
    (
        "not-equivalent",
        W,
        "The problem is not equivalent to its reference problem; the message says what differs.",
    ),
    (
        "equivalence-unknown",
        INFO,
        "Equivalence with the reference could not be decided (budget, unusable reference); says why.",
    ),
    # --- a domain compared with its reference domain (`; @reference`, docs/domain-equivalence.md) -----
    (
        "action-differs",
        W,
        "An action (or the declarations) differs from the reference domain's: missing or extra preconditions "
        "and effects, parameters.",
    ),
    (
        "domain-reference-unusable",
        INFO,
        "The domain's `; @reference` cannot be compared with (unreadable, or not a domain); says why.",
    ),
    # --- editor (language server) ------------------------------------------------------------------
    ("file-too-large", INFO, "An open file over `plansight.diagnostics.maxFileSizeMB`, not analysed live; in "
     "`plansight lint`, an error: a problem the chunked reader cannot check, or another file over 50 MiB."),
)


def make(code: str, message: str, span: Span, **kwargs: object) -> Diagnostic:
    """Build a diagnostic with the code's default severity (overridable with ``severity=``)."""
    severity = kwargs.pop("severity", None) or CODES[code].severity
    return Diagnostic(code, severity, message, span, **kwargs)  # type: ignore[arg-type]


def capped(diagnostics: list[Diagnostic], limit: int = 100) -> list[Diagnostic]:
    """At most ``limit`` diagnostics of each code, then one that says how many more there are.

    Garbage input (a binary file, a million parentheses) would otherwise produce a diagnostic per
    byte, which no one reads and which slows the editor down.
    """
    counts: dict[str, int] = {}
    kept: list[Diagnostic] = []
    last: dict[str, Diagnostic] = {}
    for diagnostic in diagnostics:
        seen = counts.get(diagnostic.code, 0) + 1
        counts[diagnostic.code] = seen
        if seen <= limit:
            kept.append(diagnostic)
        last[diagnostic.code] = diagnostic
    for code, seen in counts.items():
        if seen > limit:
            at = last[code].span
            kept.append(
                make(
                    code,
                    f"{seen - limit} more `{code}` problems like the ones above are not listed.",
                    Span(at.end, at.end),
                )
            )
    return kept

"""What kind of file a text is, the directive comments at its top, and its parse.

This is the one entry point the CLI and the server use to turn (path, text) into a model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath
from typing import TYPE_CHECKING, Literal

from plansight.analyses.diagnostics.diagnostic import Diagnostic
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.model.deferred import settle
from plansight.analyses.model.pddl import Domain, Plan, Problem
from plansight.analyses.syntax.build_model import Outline, Splice
from plansight.analyses.syntax.lexical import directive_comments, sniff_kind, without_comments
from plansight.analyses.syntax.parse_pddl import PddlParse, parse_pddl

if TYPE_CHECKING:
    from plansight.analyses.model.ltl import LtlGoal

FileKind = Literal["domain", "problem", "plan", "ltl", "unknown"]
PLAN_SUFFIXES = frozenset({".plan", ".soln", ".sol", ".txt"})
LTL_SUFFIXES = frozenset({".ltl"})
PDDL_SUFFIXES = frozenset({".pddl"})


@dataclass(frozen=True, slots=True)
class Directive:
    """``; @domain PATH`` and friends: an explicit link to a partner file, relative to this file."""

    key: str  # domain | problem | reference | reference-plan | plan | equivalence (a mode, not a path)
    value: str
    span: Span  # of the value, for document links and diagnostics


@dataclass(frozen=True, slots=True)
class Derivation:
    """An incremental parse's origin: the previous text (by which caches find what they computed from
    it) and the splice that turned its model into this one."""

    previous_text: str
    splice: Splice


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    """One file read and parsed according to its kind; what every feature starts from."""

    path: str
    text: str
    kind: FileKind
    model: Domain | Problem | Plan | None
    diagnostics: tuple[Diagnostic, ...]
    directives: tuple[Directive, ...]
    ltl: LtlGoal | None = None
    """The formula of an ``.ltl`` file (kept apart from ``model``, which is PDDL's)."""
    outline: Outline | None = field(default=None, compare=False, repr=False)
    """A domain's or problem's sections when it parsed cleanly, so that the next version of the text can
    be parsed incrementally (:func:`reparse_document`)."""
    derived: Derivation | None = field(default=None, compare=False, repr=False)
    """Set when this parse was made incrementally: from which text, and what was parsed again."""

    @property
    def domain(self) -> Domain | None:
        """The model when the file is a domain, else None."""
        return self.model if isinstance(self.model, Domain) else None

    @property
    def problem(self) -> Problem | None:
        """The model when the file is a problem, else None."""
        return self.model if isinstance(self.model, Problem) else None

    @property
    def plan(self) -> Plan | None:
        """The model when the file is a plan, else None."""
        return self.model if isinstance(self.model, Plan) else None

    def directive(self, key: str) -> Directive | None:
        """The first directive comment (``; @key value``) for ``key`` at the top of the file, or None."""
        return next((d for d in self.directives if d.key == key), None)


def detect_kind(path: str, text: str) -> FileKind:
    """Plans and LTL goals by extension; domains and problems by their ``(define (domain|problem``
    header (one in a comment does not count: a plan that quotes its problem stays a plan)."""
    suffix = PurePath(path).suffix.lower()
    if suffix in LTL_SUFFIXES:
        return "ltl"
    kind = sniff_kind(text)
    if kind is not None:
        return kind
    if suffix in PLAN_SUFFIXES:
        return "plan"
    if suffix in PDDL_SUFFIXES:
        # an unfinished file: guess from what is there so the user still gets syntax errors
        lowered = without_comments(text[:4096]).lower()
        if ":init" in lowered or ":objects" in lowered or ":goal" in lowered:
            return "problem"
        return "domain"
    return "unknown"


def directives(text: str) -> tuple[Directive, ...]:
    """Directive comments; only comment lines at the top count, before the first form."""
    return tuple(Directive(key, value, span) for key, value, span in directive_comments(text))


def parse_document(path: str, text: str) -> ParsedDocument:
    """Detect the file's kind from its name and text and parse it with the matching parser; a file of unknown
    kind keeps only its directives.
    """
    kind = detect_kind(path, text)
    found = directives(text)
    # the plan, LTL and incremental parsers are imported when first needed: a run over domains and
    # problems (or one small file) does not pay for them at start-up
    if kind == "plan":
        from plansight.analyses.syntax.parse_plan import parse_plan

        parsed_plan = parse_plan(text)
        return ParsedDocument(path, text, kind, parsed_plan.plan, parsed_plan.diagnostics, found)
    if kind == "unknown":
        return ParsedDocument(path, text, kind, None, (), found)
    if kind == "ltl":
        from plansight.analyses.syntax.parse_ltl import parse_ltl

        parsed_ltl = parse_ltl(text)
        return ParsedDocument(path, text, kind, None, parsed_ltl.diagnostics, found, parsed_ltl.goal)
    return _pddl_document(path, text, kind, found, parse_pddl(text))


def _pddl_document(path: str, text: str, kind: FileKind, found: tuple[Directive, ...],
                   parsed: PddlParse, derived: Derivation | None = None) -> ParsedDocument:
    model = parsed.model
    if model is not None:
        kind = "domain" if isinstance(model, Domain) else "problem"
    return ParsedDocument(path, text, kind, model, parsed.diagnostics, found, outline=parsed.outline,
                          derived=derived)


def reparse_document(previous: ParsedDocument, path: str, text: str, *, lazy: bool = False) -> ParsedDocument:
    """The parse of ``text``, a later version of the file ``previous`` was parsed from: equal to
    :func:`parse_document`'s, but when only the inside of one section changed, only that section is
    parsed again (``incremental.py``).

    The nodes after the edit are moved lazily (``runs.py``). With ``lazy``, they are copied by the
    first reader of the model's lists, and the parse itself costs about the same wherever the edit
    lies; without it, before this returns. ``lazy`` pays when what follows does not read every list:
    the server's diagnostics path does not (the incremental problem checks align the versions through
    the runs), so the server asks for it and an edit of a 1 MB problem costs its worker ~8 ms instead of
    ~140 ms; the first whole read (document symbols, code actions) pays the copy instead
    (benchmarks/RESULTS.md, "The lazy parse wired into the server")."""
    if previous.outline is not None and previous.path == path and previous.kind in ("domain", "problem"):
        from plansight.analyses.syntax.incremental import reparse_pddl

        pddl = PddlParse(previous.model, previous.diagnostics, previous.outline)  # type: ignore[arg-type]
        parsed = reparse_pddl(previous.text, pddl, text)
        if parsed is not None and not lazy:
            settle(parsed.model)
        if parsed is not None:
            # the edit lies after the header: the kind and the directive comments above it stand
            derived = Derivation(previous.text, parsed.splice) if parsed.splice is not None else None
            return _pddl_document(path, text, previous.kind, previous.directives, parsed, derived)
    return parse_document(path, text)

"""Which domain a problem belongs to, and which problem (and domain) a plan belongs to.

Cross-file checks are only as good as this link, so the rules are fixed (docs/files-and-links.md), first
that applies wins: an explicit override (the CLI's ``--domain`` / ``--problem``), a ``; @domain PATH`` /
``; @problem PATH`` directive at the top of the file (relative to it), the caller's glob -> domain
settings, then conventions (a domain with the problem's ``(:domain NAME)`` in the same folder or up to
three folders above; ``X.plan`` next to ``X.pddl``). When nothing is found the file gets one
information diagnostic saying how to link it; an explicit link that leads nowhere is an error on the
link itself, because the user asked for that file.

All file access goes through a :class:`~.sources.FileSource` and a ``parse`` callable (the caller's
cache), so this module is pure and works the same over the disk and over unsaved editor buffers.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Literal

from plansight.analyses.diagnostics.diagnostic import Diagnostic, Severity, make
from plansight.analyses.diagnostics.spans import Span
from plansight.analyses.diagnostics.suggest import did_you_mean
from plansight.analyses.memo import Memo
from plansight.analyses.syntax.documents import PLAN_SUFFIXES, Directive, ParsedDocument
from plansight.analyses.syntax.lexical import HEADER_WINDOW, Header, first_line_span, sniff_header
from plansight.analyses.workspace.pairing import FolderFiles
from plansight.analyses.workspace.sources import ExplainsFailures, FileSource, ReadsHeads

MAX_PARENT_LEVELS = 3
"""How many folders above the problem's own the domain search climbs (``problems/p01.pddl`` layouts)."""

MAX_LISTED_NAMES = 8

Parse = Callable[[str], ParsedDocument | None]
Origin = Literal["override", "directive", "setting"]
How = Literal["flag", "directive", "setting", "convention"]
"""Which rule linked a partner: the CLI's flag, a ``; @`` directive, the settings globs, or a convention.
Editors show it, because a user who wants another partner must know which rule to change."""


@dataclass(frozen=True, slots=True)
class Association:
    """The partners found for one file, and the diagnostics that explain a missing or broken link."""

    domain: ParsedDocument | None = None
    problem: ParsedDocument | None = None
    diagnostics: tuple[Diagnostic, ...] = ()
    domain_how: How | None = None
    """The rule that found ``domain`` (for a plan whose domain comes from its problem: the rule that
    linked the problem to it); None when there is no domain."""
    problem_how: How | None = None

    @property
    def domain_path(self) -> str | None:
        """The path of the associated domain, or None when none was found."""
        return self.domain.path if self.domain is not None else None

    @property
    def problem_path(self) -> str | None:
        """The path of the associated problem, or None when none was found."""
        return self.problem.path if self.problem is not None else None


def resolve_link(from_path: str, value: str) -> str:
    """A directive's path, relative to the folder of the file that holds it."""
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    return os.path.normpath(os.path.join(os.path.dirname(from_path), value))


def glob_matches(pattern: str, path: str) -> bool:
    """Editor-style globs: ``**`` spans folders, ``*``/``?`` stay inside one, ``{a,b}`` alternatives.

    A relative pattern may match any trailing part of the path that starts at a folder boundary, so
    ``problems/*.pddl`` matches ``/home/u/blocks/problems/p1.pddl``; an absolute one must match it all.
    """
    posix = path.replace(os.sep, "/")
    regex = _glob_regex(pattern.replace(os.sep, "/"))
    if pattern.startswith("/"):
        return regex.fullmatch(posix) is not None
    return re.fullmatch(r"(?:.*/)?" + regex.pattern, posix) is not None


@lru_cache(maxsize=256)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    return re.compile(_glob_body(pattern))


def _glob_body(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and (close := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : close]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = close + 1
            continue
        elif char == "{" and (close := pattern.find("}", i)) != -1:
            options = pattern[i + 1 : close].split(",")
            out.append("(?:" + "|".join(_glob_body(option) for option in options) + ")")
            i = close + 1
            continue
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


class Associator:
    """Applies the association rules; stateless apart from the collaborators it is given: ``folders``, the
    caller's memo of folder listings indexed for ranking, and ``headers``, the caller's memo of file
    headers by path, which only a caller whose files cannot change while it is kept may give (a batch
    run, not the editor). Both are shared by every problem of a batch."""

    def __init__(self, source: FileSource, parse: Parse,
                 domain_globs: Sequence[tuple[str, str]] = (),
                 folders: Memo[tuple[str, tuple[str, ...]], FolderFiles] | None = None,
                 headers: Memo[str, Header | None] | None = None) -> None:
        self._source = source
        self._parse = parse
        self._domain_globs = tuple(domain_globs)
        # keyed by the listing itself, so a file added or removed in the editor is seen at once
        self._folders = folders if folders is not None else Memo(8)
        self._headers = headers if headers is not None else Memo(0)

    # --- problems ------------------------------------------------------------------------------

    def for_problem(self, document: ParsedDocument, domain_override: str | None = None) -> Association:
        """The domain of a problem, by override, directive, settings glob, then convention."""
        diagnostics: list[Diagnostic] = []
        domain: ParsedDocument | None
        directive = document.directive("domain")
        glob = self._glob_domain(document.path)
        how: How
        if domain_override is not None:
            how = "flag"
            domain = self._follow(document, domain_override, "domain", "override", None, diagnostics)
        elif directive is not None:
            how = "directive"
            domain = self._follow_directive(document, directive, "domain", diagnostics)
        elif glob is not None:
            how = "setting"
            pattern, target = glob
            domain = self._follow(document, target, "domain", "setting", None, diagnostics, written=pattern)
        else:
            how = "convention"
            domain = self._domain_by_convention(document, diagnostics)
        if domain is not None and how != "convention":
            diagnostics.extend(_name_mismatch(document, domain))
        diagnostics.extend(_unusable_partner(document, domain))
        return Association(domain, None, tuple(diagnostics), _how_if(domain, how))

    def _glob_domain(self, path: str) -> tuple[str, str] | None:
        for pattern, target in self._domain_globs:
            if glob_matches(pattern, path):
                return pattern, target
        return None

    def _domain_by_convention(self, document: ParsedDocument, diagnostics: list[Diagnostic]) -> (
            ParsedDocument | None):
        problem = document.problem
        wanted = problem.domain_name if problem is not None else None
        found: dict[str, tuple[str, str]] = {}  # name key -> (name as written, path)
        for folder in _search_folders(document.path):
            for path in self._ranked_pddl_files(folder, document.path):
                header = self._header(path)
                if header is None or header.kind != "domain":
                    continue
                found.setdefault(header.key, (header.name, path))
                if wanted is not None and header.key == wanted.key:
                    domain = self._parse(path)
                    if domain is not None and domain.kind == "domain":
                        return domain
        span = first_line_span(document.text)
        if wanted is None:
            diagnostics.append(make(
                "missing-domain",
                "No domain is linked to this problem and it has no `(:domain NAME)` to look one up by. "
                + _HOW_TO_LINK_DOMAIN, span))
        elif found:
            diagnostics.append(_unknown_domain(document.path, wanted.display, wanted.span, found))
        else:
            diagnostics.append(make(
                "missing-domain",
                f"No domain found for this problem: no `.pddl` file in this folder or the "
                f"{MAX_PARENT_LEVELS} above it defines `(domain {wanted.display})`. " + _HOW_TO_LINK_DOMAIN,
                span))
        return None

    # --- plans ---------------------------------------------------------------------------------

    def for_plan(self, document: ParsedDocument, domain_override: str | None = None,
                 problem_override: str | None = None) -> Association:
        """The problem of a plan (override, directive, ``X.pddl`` next to it), and its domain."""
        diagnostics: list[Diagnostic] = []
        problem: ParsedDocument | None = None
        problem_linked = True  # an explicit link was given (so a failure is already reported)
        directive = document.directive("problem")
        problem_how: How = "convention"
        if problem_override is not None:
            problem_how = "flag"
            problem = self._follow(document, problem_override, "problem", "override", None, diagnostics)
        elif directive is not None:
            problem_how = "directive"
            problem = self._follow_directive(document, directive, "problem", diagnostics)
        else:
            problem_linked = False
            problem = self._problem_by_convention(document.path)

        domain: ParsedDocument | None = None
        domain_linked = True
        domain_directive = document.directive("domain")
        problem_link: Association | None = None
        domain_how: How | None = None
        if domain_override is not None:
            domain_how = "flag"
            domain = self._follow(document, domain_override, "domain", "override", None, diagnostics)
        elif domain_directive is not None:
            domain_how = "directive"
            domain = self._follow_directive(document, domain_directive, "domain", diagnostics)
        else:
            domain_linked = False
            if problem is not None:
                problem_link = self.for_problem(problem)
                domain = problem_link.domain
                domain_how = problem_link.domain_how

        diagnostics.extend(_unusable_partner(document, problem))
        if problem is None or problem.problem is not None:  # else the problem's own state says it all
            diagnostics.extend(_unusable_partner(document, domain))
        span = first_line_span(document.text)
        if problem is None and not problem_linked:
            diagnostics.append(make(
                "missing-problem",
                "No problem found for this plan: there is no problem file of the same name next to it "
                f"(`{_plan_stem(document.path)}.pddl`). Link one with a line "
                "`; @problem path/to/problem.pddl` at the top of this file (or "
                "`plansight lint --problem FILE`); its domain is found from the problem. "
                "Until then only the plan's syntax is checked.", span))
        elif domain is None and not domain_linked and problem is not None:
            reason = _why_no_domain(problem, problem_link)
            diagnostics.append(make(
                "missing-domain",
                f"This plan's problem is `{_shown(document.path, problem.path)}`, but no domain was found "
                f"for it{reason}. Link the problem to its domain, or add a line "
                "`; @domain path/to/domain.pddl` at the top of this file "
                "(or `plansight lint --domain FILE`).",
                span))
        return Association(domain, problem, tuple(diagnostics), _how_if(domain, domain_how),
                           _how_if(problem, problem_how))

    def _problem_by_convention(self, plan_path: str) -> ParsedDocument | None:
        """``X.plan`` -> ``X.pddl`` in the same folder; failing that, the folder's only problem."""
        folder = os.path.dirname(plan_path)
        names = self._source.list_dir(folder or ".")
        stem = _plan_stem(plan_path)
        candidate = stem if stem.lower().endswith(".pddl") else stem + ".pddl"
        lowered = {name.lower(): name for name in names}
        if candidate.lower() in lowered:
            document = self._parse(os.path.join(folder, lowered[candidate.lower()]))
            if document is not None and document.kind == "problem":
                return document
        problems = [path for path in self._ranked_pddl_files(folder or ".", plan_path, names)
                    if (header := self._header(path)) is not None and header.kind == "problem"]
        if len(problems) == 1:
            document = self._parse(problems[0])
            if document is not None and document.kind == "problem":
                return document
        return None

    # --- shared --------------------------------------------------------------------------------

    def _follow_directive(self, document: ParsedDocument, directive: Directive,
                          expected: Literal["domain", "problem"], diagnostics: list[Diagnostic]) -> (
            ParsedDocument | None):
        # a CRLF file's directive value may carry the `\r` and trailing blanks: keep them off the span
        value = directive.value.rstrip()
        span = Span(directive.span.start, directive.span.start + len(value))
        target = resolve_link(document.path, value)
        return self._follow(document, target, expected, "directive", span, diagnostics, written=value)

    def _follow(self, document: ParsedDocument, target: str, expected: Literal["domain", "problem"],
                origin: Origin, span: Span | None, diagnostics: list[Diagnostic],
                written: str | None = None) -> ParsedDocument | None:
        """Parse an explicitly linked file; explain on the link when it is unreadable or the wrong kind."""
        where = span if span is not None else first_line_span(document.text)
        linked = self._parse(target)
        if linked is None:
            reason = self._source.failure(target) if isinstance(self._source, ExplainsFailures) else (
                "missing or unreadable")
            diagnostics.append(make("broken-link", _broken_message(
                origin, expected, target, written, f"cannot be read ({reason})"), where))
            return None
        if linked.kind != expected:
            what = f"is a {linked.kind}, not a {expected}" if linked.kind != "unknown" else (
                f"is not a PDDL {expected}")
            diagnostics.append(make("broken-link", _broken_message(
                origin, expected, target, written,
                f"{what} (it does not start with `(define ({expected} ...`)"), where))
            return None
        return linked

    def _header(self, path: str) -> Header | None:
        return self._headers.get(path, lambda: self._sniff(path))

    def _sniff(self, path: str) -> Header | None:
        source = self._source
        # 4 bytes a character at most: the window of characters the header look-up reads
        text = source.read_head(path, 4 * HEADER_WINDOW) if isinstance(source, ReadsHeads) else (
            source.read(path))
        return sniff_header(text) if text else None

    def _ranked_pddl_files(self, folder: str, exclude: str, names: list[str] | None = None) -> Iterator[str]:
        """The folder's ``.pddl`` files, likely domains first (``pairing.py``), without ``exclude``."""
        if names is None:
            names = self._source.list_dir(folder)
        listing = tuple(names)
        key = (folder, listing)
        files = self._folders.get(key, lambda: FolderFiles(folder, listing))
        return files.ranked(exclude)


def _how_if(partner: ParsedDocument | None, how: How | None) -> How | None:
    return how if partner is not None else None


_HOW_TO_LINK_DOMAIN = ("Link one with a line `; @domain path/to/domain.pddl` at the top of this file (or "
                       "`plansight lint --domain FILE`); until then only the problem's syntax is checked.")


def _search_folders(path: str) -> list[str]:
    folder = os.path.dirname(os.path.normpath(path)) or "."
    folders = [folder]
    for _ in range(MAX_PARENT_LEVELS):
        parent = os.path.normpath(os.path.join(folders[-1], os.pardir))
        if os.path.isabs(parent) and parent == folders[-1]:  # the filesystem root
            break
        folders.append(parent)
    return folders


def _plan_stem(path: str) -> str:
    base = os.path.basename(path)
    lowered = base.lower()
    for suffix in sorted(PLAN_SUFFIXES, key=len, reverse=True):
        if lowered.endswith(suffix):
            return base[: -len(suffix)]
    return os.path.splitext(base)[0]


def _shown(from_path: str, path: str) -> str:
    """``path`` as the user would write it from ``from_path``'s folder."""
    try:
        return os.path.relpath(path, os.path.dirname(from_path) or ".")
    except ValueError:  # another drive on Windows
        return path


def _unknown_domain(path: str, wanted: str, span: Span, found: dict[str, tuple[str, str]]) -> Diagnostic:
    def distance(item: tuple[str, str]) -> float:
        return -SequenceMatcher(None, wanted.lower(), item[0].lower()).ratio()

    closest_first = sorted(found.values(), key=distance)  # the likeliest meant survive the truncation
    listed = [f"`{name}` ({_shown(path, where)})" for name, where in closest_first[:MAX_LISTED_NAMES]]
    more = len(found) - len(listed)
    names = ", ".join(listed) + (f" and {more} more" if more > 0 else "")
    guess = did_you_mean(wanted, [name for name, _ in found.values()])
    hint = f" Did you mean `{guess}`?" if guess else ""
    return make(
        "unknown-domain",
        f"No domain named `{wanted}` was found in this folder or the {MAX_PARENT_LEVELS} above it; found "
        f"{names}.{hint} Fix the name, or link the domain with a line `; @domain path/to/domain.pddl`.",
        span, data=(("suggestion", guess),) if guess else ())


def _name_mismatch(document: ParsedDocument, domain: ParsedDocument) -> list[Diagnostic]:
    problem, model = document.problem, domain.domain
    if problem is None or model is None or problem.domain_name is None:
        return []
    if problem.domain_name.key == model.name.key:
        return []
    return [make(
        "domain-name-mismatch",
        f"This problem is for domain `{problem.domain_name.display}`, but the domain linked to it "
        f"(`{_shown(document.path, domain.path)}`) is named `{model.name.display}`. "
        "Rename one so they match.",
        problem.domain_name.span, data=(("suggestion", model.name.display),))]


def _broken_message(origin: Origin, expected: str, target: str, written: str | None, problem: str) -> str:
    if origin == "override":
        return (f"The {expected} given on the command line, `{target}`, {problem}. "
                f"Only this file's own checks ran.")
    if origin == "setting":
        return (f"The {expected} `{target}` that the settings map `{written}` to {problem}. "
                "Fix the setting.")
    return (f"`@{expected}` points at `{written}`, which {problem}; looked for `{target}`. "
            "The path is relative to this file's folder.")


def _unusable_partner(document: ParsedDocument, partner: ParsedDocument | None) -> list[Diagnostic]:
    """A partner found but too broken to give a model would otherwise leave this file silently
    "clean": only its syntax can be checked, and the user must hear so."""
    if partner is None or partner.model is not None or partner.kind not in ("domain", "problem"):
        return []
    code = "missing-domain" if partner.kind == "domain" else "missing-problem"
    shown = _shown(document.path, partner.path)
    return [make(
        code,
        f"The {partner.kind} `{shown}` linked to this file has syntax errors that stop it from being read, "
        f"so this file is checked for syntax only: fix `{shown}` first (`plansight lint {shown}`).",
        first_line_span(document.text), severity=Severity.WARNING)]


def _why_no_domain(problem: ParsedDocument, link: Association | None) -> str:
    if link is not None and any(d.code == "broken-link" for d in link.diagnostics):
        return " (its `; @domain` link is broken)"
    model = problem.problem
    if model is not None and model.domain_name is not None:
        return f" (it names domain `{model.domain_name.display}`)"
    return ""

"""Semantic checks of a domain: declarations, references, requirements, structure, unused names.

Each concern is one pass over the model; references (predicates, functions, constants, variables)
are resolved in one walk that also records what is used, so the unused-declaration hints cost
nothing extra. The result is sorted by position.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from plansight.analyses.checks.derived_rules import check_derived
from plansight.analyses.checks.domain_references import (
    ReferenceChecker,
    Usage,
    duplicate_variables,
    signature,
)
from plansight.analyses.checks.domain_structure import check_structure
from plansight.analyses.checks.requirements import (
    KNOWN,
    UNUSED_DETECTABLE,
    RequirementUse,
    closure,
    requirement_uses,
    used_requirements,
)
from plansight.analyses.diagnostics.diagnostic import Diagnostic, Related, Severity, Tag, make
from plansight.analyses.diagnostics.suggest import did_you_mean
from plansight.analyses.model.pddl import Domain, Name, PredicateDecl, TypeDecl, TypedName, TypeRef
from plansight.analyses.model.vocabulary import OBJECT, merge_parents, vocabulary

Declared = TypeVar("Declared", PredicateDecl, TypeDecl, TypedName)


def check_domain(domain: Domain) -> list[Diagnostic]:
    """Every semantic diagnostic of a domain on its own (no problem is needed), sorted by position so editors
    and the CLI list them in reading order.
    """
    vocab = vocabulary(domain)
    out = _duplicates(domain)
    references = ReferenceChecker(vocab)
    _declared_types(domain, references)
    references.check(domain)
    out.extend(references.diagnostics)
    out.extend(_requirements(domain))
    out.extend(check_structure(domain))
    out.extend(check_derived(domain))
    out.extend(_unused(domain, references.usage))
    out.sort(key=lambda d: (d.span.start, d.span.end, d.code))
    return out


# --- declarations ---------------------------------------------------------------------------------


def _duplicate_names(names: Iterable[Name], what: str) -> list[Diagnostic]:
    seen: dict[str, Name] = {}
    out = []
    for item in names:
        first = seen.setdefault(item.key, item)
        if first is not item:
            out.append(
                make(
                    "duplicate-declaration",
                    f"{what.capitalize()} `{item}` is already declared: remove or rename this declaration.",
                    item.span,
                    related=(Related(f"`{first}` first declared here", first.span),),
                )
            )
    return out


def _duplicates(domain: Domain) -> list[Diagnostic]:
    out = _type_declarations(domain.types)
    out.extend(_duplicate_names((c.name for c in domain.constants), "constant"))
    out.extend(_duplicate_names((p.name for p in domain.predicates), "predicate"))
    out.extend(_duplicate_names((f.name for f in domain.functions), "function"))
    out.extend(_duplicate_names((a.name for a in domain.actions), "action"))
    for p in domain.predicates:
        out.extend(_repeated_placeholders(p.parameters, f"predicate `{p.name}`"))
    for f in domain.functions:
        out.extend(_repeated_placeholders(f.parameters, f"function `{f.name}`"))
    for a in domain.actions:
        out.extend(duplicate_variables((*a.parameters, *a.variables), f"action `{a.name}`"))
    for rule in domain.derived:
        head = signature(rule.head.name, rule.head.parameters)
        out.extend(duplicate_variables(rule.head.parameters, f"`{head}`"))
    return out


def _repeated_placeholders(variables: Iterable[TypedName], owner: str) -> list[Diagnostic]:
    """A variable twice in a predicate or function declaration: a warning, not an error.

    The names there bind nothing, they only count and type the arguments, so `(in ?obj ?obj)` (as
    in some IPC domains) means what it says and VAL accepts it; a reader still cannot tell the two
    arguments apart.
    """
    advice = (
        ". The names in a declaration only count its arguments, so this is accepted (VAL too), but "
        "rename one to say what each argument is."
    )
    return duplicate_variables(variables, owner, advice, Severity.WARNING)


def _type_declarations(types: Iterable[TypeDecl]) -> list[Diagnostic]:
    """A type declared again is a duplicate unless it adds a parent: VAL reads `c - a c - b` as a type
    with two parents, and IPC domains (storage among them) rely on it."""
    first: dict[str, TypeDecl] = {}
    parents: dict[str, TypeRef | None] = {}
    out = []
    for decl in types:
        key = decl.name.key
        earlier = first.setdefault(key, decl)
        if earlier is decl:
            parents[key] = decl.parent
            continue
        merged = merge_parents(parents[key], decl.parent)
        if merged is parents[key]:
            out.extend(_duplicate_names((earlier.name, decl.name), "type"))
            continue
        parents[key] = merged
        assert merged is not None
        listed = " and ".join(f"`{p.display}`" for p in merged.names)
        out.append(
            make(
                "multiple-parents",
                f"Type `{decl.name}` is declared again under another parent, so it is a subtype of {listed} "
                "(VAL reads it so). PDDL 3.1 gives a type one parent: a planner may keep only the first.",
                decl.name.span,
                related=(Related(f"`{earlier.name}` first declared here", earlier.name.span),),
            )
        )
    return out


def _declared_types(domain: Domain, references: ReferenceChecker) -> None:
    """Every type a declaration names must be declared; `object` (and `number` for functions) is built in."""
    for t in domain.types:
        references.type_ref(t.parent)
    for c in domain.constants:
        references.type_ref(c.type)
    for p in domain.predicates:
        for item in p.parameters:
            references.type_ref(item.type)
    for f in domain.functions:
        for item in f.parameters:
            references.type_ref(item.type)
        references.type_ref(f.type, allow_number=True)
    for a in domain.actions:
        for item in (*a.parameters, *a.variables):
            references.type_ref(item.type)
    for rule in domain.derived:
        for item in rule.head.parameters:
            references.type_ref(item.type)


# --- requirements ---------------------------------------------------------------------------------


def _requirements(domain: Domain) -> list[Diagnostic]:
    """Unknown, missing and unused requirements.

    A missing requirement is a warning, as in VAL ("Undeclared requirement"): most planners accept
    the file anyway, a few reject it, and real corpora (unified-planning's own test files among them)
    contain such omissions.
    """
    out = []
    for requirement in domain.requirements:
        if requirement.key not in KNOWN:
            best = did_you_mean(requirement.key, KNOWN)
            hint = f" Did you mean `{best}`?" if best else ""
            out.append(
                make(
                    "unknown-requirement",
                    f"`{requirement}` is not a PDDL requirement.{hint}",
                    requirement.span,
                    data=(("suggestion", best),) if best else (),
                )
            )
    uses = requirement_uses(domain)
    if not any(section.key == ":requirements" for section in domain.sections):
        out.extend(_no_requirements_section(domain, uses))
        return out
    declared = closure(r.key for r in domain.requirements)
    missing: dict[str, list[RequirementUse]] = {}
    for use in uses:
        if not use.covered_by(declared):
            missing.setdefault(use.requirement, []).append(use)
    for key, group in missing.items():
        first = group[0]
        more = f" (and {len(group) - 1} more place{'s' if len(group) > 2 else ''})" if len(group) > 1 else ""
        alternative = f" (or `{_BUNDLES[key]}`)" if key in _BUNDLES else ""
        note = _ACTION_COSTS_NOTE if key == ":numeric-fluents" and ":action-costs" in declared else ""
        out.append(
            make(
                "missing-requirement",
                f"{first.construct[0].upper()}{first.construct[1:]} needs `{key}`{alternative}{more}: "
                f"add it to `(:requirements ...)`.{note}",
                first.span,
                severity=Severity.WARNING,
                data=(("requirement", key),),
            )
        )
    used = used_requirements(uses)
    for requirement in domain.requirements:
        key = requirement.key
        if key in UNUSED_DETECTABLE and used.isdisjoint(closure((key,))):
            out.append(
                make(
                    "unused-requirement",
                    f"`{key}` is declared but nothing in the domain needs it (it allows "
                    f"{KNOWN[key][0].lower()}{KNOWN[key][1:-1]}): you can remove it.",
                    requirement.span,
                    tags=(Tag.UNNECESSARY,),
                )
            )
    return out


_BUNDLES = {":numeric-fluents": ":fluents", ":object-fluents": ":fluents"}
"""The older requirement that also allows a construct, named so that PDDL 2.1 users find theirs."""

_ACTION_COSTS_NOTE = (
    " (`:action-costs` only allows a `total-cost` function that actions increase by a number or a "
    "static function.)"
)


def _no_requirements_section(domain: Domain, uses: list[RequirementUse]) -> list[Diagnostic]:
    """PDDL reads a missing section as `:strips`; planners are lenient, so say it once, gently."""
    needed = [u for u in uses if not u.covered_by(frozenset((":strips",)))]
    if not needed:
        return []
    keys = list(dict.fromkeys(u.requirement for u in needed))
    listed = " ".join((":strips", *keys))
    return [
        make(
            "missing-requirement",
            f"The domain has no `(:requirements ...)` section, which means `:strips` only, but it uses "
            f"{', '.join(f'`{k}`' for k in keys)}: add `(:requirements {listed})`.",
            domain.name.span,
            severity=Severity.INFORMATION,
            data=(("requirements", listed),),
        )
    ]


# --- unused declarations --------------------------------------------------------------------------


def _unused(domain: Domain, usage: Usage) -> list[Diagnostic]:
    out = []
    unnecessary = (Tag.UNNECESSARY,)
    for p in _first_of_each(domain.predicates):
        if p.name.key not in usage.predicates:
            out.append(
                make(
                    "unused-predicate",
                    f"No action, derived predicate or constraint uses predicate `{p.name}`; only a problem "
                    "could mention it.",
                    p.name.span,
                    tags=unnecessary,
                )
            )
    for a in domain.actions:
        for param in _first_of_each(a.parameters):
            if id(param) not in usage.bindings:
                out.append(
                    make(
                        "unused-parameter",
                        f"Parameter `{param.name}` of `{a.name}` is never used in its precondition or "
                        "effect: remove it, or use it to constrain the action.",
                        param.name.span,
                        tags=unnecessary,
                    )
                )
    for c in _first_of_each(domain.constants):
        if c.name.key not in usage.constants:
            out.append(
                make(
                    "unused-constant",
                    f"No action, derived predicate or constraint mentions constant `{c.name}`; only a "
                    "problem could use it.",
                    c.name.span,
                    tags=unnecessary,
                )
            )
    for t in _first_of_each(domain.types):
        if t.name.key not in usage.types and t.name.key != OBJECT:
            out.append(
                make(
                    "unused-type",
                    f"No declaration in the domain uses type `{t.name}` (problems may still declare objects "
                    "of it).",
                    t.name.span,
                    tags=unnecessary,
                )
            )
    return out


def _first_of_each(declarations: Iterable[Declared]) -> list[Declared]:
    """The first declaration of each name: a duplicate is reported as such, not as unused."""
    seen: set[str] = set()
    out = []
    for item in declarations:
        if item.name.key not in seen:
            seen.add(item.name.key)
            out.append(item)
    return out

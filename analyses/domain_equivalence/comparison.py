"""Compare a candidate domain with a reference domain: structurally equivalent or not, the logic-form F1
per action and overall, and the differences a student can act on (docs/domain-equivalence.md).

The renaming comes from the isomorphism when there is one; otherwise from the user's mapping, completed by
a guess (equal names, then similar names, and actions paired by the F1 of their bodies). Every message
names things as the candidate wrote them, since the candidate's author is the reader.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from plansight.analyses.diagnostics.spans import NO_SPAN, Span
from plansight.analyses.domain_equivalence.logic_f1 import (
    ClauseScore,
    Micro,
    Reading,
    action_reading,
    clause_text,
    score_section,
)
from plansight.analyses.domain_equivalence.renaming import (
    KINDS,
    Kind,
    Renaming,
    declared,
    guess_renaming,
)
from plansight.analyses.domain_equivalence.structure import structural_match
from plansight.analyses.model.pddl import Action, Domain, Formula, TypeRef


@dataclass(frozen=True, slots=True)
class Difference:
    """One thing to change in the candidate: ``code`` is stable (``missing-precondition``, ``extra-effect``,
    ``partial-precondition``, ``parameter-count``, ``parameter-type``, ``missing-action``, ``extra-action``,
    ``missing-declaration``, ``extra-declaration``, ``type-hierarchy``)."""

    code: str
    message: str


@dataclass(frozen=True, slots=True)
class ActionComparison:
    """A candidate action and its reference counterpart (either may be missing) and how they differ."""

    candidate: Action | None
    reference: Action | None
    precondition: ClauseScore
    effect: ClauseScore
    differences: tuple[Difference, ...]

    @property
    def name(self) -> str:
        """The action's name as the candidate wrote it (the reference's when the candidate has none)."""
        action = self.candidate or self.reference
        assert action is not None
        return action.name.display

    @property
    def span(self) -> Span:
        """Where the candidate declares the action, for the editor's diagnostics."""
        return self.candidate.name.span if self.candidate is not None else NO_SPAN

    @property
    def overall(self) -> Micro:
        """Precondition and effect together."""
        return Micro.of([self.precondition, self.effect])

    def as_json(self) -> dict[str, object]:
        """The comparison as the JSON output writes it."""
        return {
            "action": self.candidate.name.display if self.candidate else None,
            "reference_action": self.reference.name.display if self.reference else None,
            "precondition": Micro.of([self.precondition]).as_json(),
            "effect": Micro.of([self.effect]).as_json(),
            "f1": round(self.overall.f1, 4),
            "differences": [{"code": d.code, "message": d.message} for d in self.differences],
        }


@dataclass(frozen=True, slots=True)
class DomainComparison:
    """The whole answer for one candidate domain."""

    equivalent: bool
    renaming: Renaming
    actions: tuple[ActionComparison, ...]
    declarations: tuple[Difference, ...]

    @property
    def precondition(self) -> Micro:
        """Micro P/R/F1 over every action's precondition."""
        return Micro.of([a.precondition for a in self.actions])

    @property
    def effect(self) -> Micro:
        """Micro P/R/F1 over every action's effect."""
        return Micro.of([a.effect for a in self.actions])

    @property
    def overall(self) -> Micro:
        """Micro P/R/F1 over preconditions and effects together: the domain's F1."""
        return Micro.of([s for a in self.actions for s in (a.precondition, a.effect)])

    @property
    def differences(self) -> list[Difference]:
        """Every difference, declarations first, then action by action."""
        return [*self.declarations, *(d for a in self.actions for d in a.differences)]

    @property
    def explanation(self) -> str:
        """One paragraph saying what the verdict is and the first thing to fix."""
        if self.equivalent:
            renamed = self.renaming.renamed()
            if not renamed:
                return "Structurally equivalent: the same domain (at most the order of conjuncts differs)."
            return f"Structurally equivalent up to renaming: {self.renaming.describe()}."
        differences = self.differences
        first = f" First difference: {differences[0].message}" if differences else ""
        more = f" ({len(differences) - 1} more)" if len(differences) > 1 else ""
        return (f"Not equivalent: logic-form F1 {self.overall.f1:.2f} (preconditions "
                f"{self.precondition.f1:.2f}, effects {self.effect.f1:.2f}).{first}{more}")

    def as_json(self) -> dict[str, object]:
        """The comparison as the JSON output writes it."""
        return {
            "equivalent": self.equivalent,
            "renaming_source": self.renaming.source,
            "renaming": self.renaming.as_json(),
            "precondition": self.precondition.as_json(),
            "effect": self.effect.as_json(),
            "overall": self.overall.as_json(),
            "actions": [a.as_json() for a in self.actions],
            "declarations": [{"code": d.code, "message": d.message} for d in self.declarations],
            "explanation": self.explanation,
        }


def compare_domains(candidate: Domain, reference: Domain,
                    mapping: Mapping[Kind, Mapping[str, str]] | None = None) -> DomainComparison:
    """The full comparison of a candidate domain with the reference."""
    structural = structural_match(candidate, reference)
    if structural.renaming is not None:
        renaming = structural.renaming
    else:
        by_name = {a.name.key: a for a in candidate.actions}
        by_name_ref = {a.name.key: a for a in reference.actions}

        def action_score(a: str, b: str, partial: Renaming) -> float:
            reading = action_reading(partial, by_name[a], by_name_ref[b])
            return Micro.of([score_section(by_name[a].precondition, by_name_ref[b].precondition, reading),
                             score_section(by_name[a].effect, by_name_ref[b].effect, reading)]).f1

        renaming = guess_renaming(candidate, reference, mapping, action_score)
    actions = _compare_actions(candidate, reference, renaming)
    declarations = () if structural.renaming is not None else _declarations(candidate, reference, renaming)
    return DomainComparison(structural.renaming is not None, renaming, actions, declarations)


def _compare_actions(candidate: Domain, reference: Domain, renaming: Renaming
                     ) -> tuple[ActionComparison, ...]:
    references = {a.name.key: a for a in reference.actions}
    paired: set[str] = set()
    out = []
    for action in candidate.actions:
        counterpart = references.get(renaming.actions.get(action.name.key, "\x00"))
        if counterpart is None:
            out.append(_unpaired(action, None, renaming))
            continue
        paired.add(counterpart.name.key)
        out.append(compare_actions(action, counterpart, renaming))
    out.extend(_unpaired(None, a, renaming) for a in reference.actions if a.name.key not in paired)
    return tuple(out)


def compare_actions(candidate: Action, reference: Action, renaming: Renaming) -> ActionComparison:
    """One action pair: section scores and what differs, in the candidate's words."""
    reading = action_reading(renaming, candidate, reference)
    precondition = score_section(candidate.precondition, reference.precondition, reading)
    effect = score_section(candidate.effect, reference.effect, reading)
    back = _Back(renaming, candidate, reference)
    differences = [*_parameter_differences(candidate, reference, reading, back)]
    for section, score in (("precondition", precondition), ("effect", effect)):
        differences.extend(Difference(f"missing-{section}", f"`{candidate.name.display}`: missing {section} "
                                      f"{back.text(clause)}") for clause in score.missing)
        differences.extend(Difference(f"extra-{section}", f"`{candidate.name.display}`: extra {section} "
                                      f"{clause_text(clause)} (not in the reference)")
                           for clause in score.extra)
        differences.extend(
            Difference(f"partial-{section}",
                       f"`{candidate.name.display}`: {section} {clause_text(p.candidate)} "
                       f"matches the reference's {back.text(p.reference)} only in part ({p.score:.2f})")
            for p in score.partial)
    return ActionComparison(candidate, reference, precondition, effect, tuple(differences))


def _unpaired(candidate: Action | None, reference: Action | None, renaming: Renaming) -> ActionComparison:
    if candidate is not None:
        precondition = score_section(candidate.precondition, None, Reading(renaming, {}))
        effect = score_section(candidate.effect, None, Reading(renaming, {}))
        difference = Difference("extra-action", f"`{candidate.name.display}` corresponds to no action of the "
                                "reference")
        return ActionComparison(candidate, None, precondition, effect, (difference,))
    assert reference is not None
    precondition = score_section(None, reference.precondition, Reading(renaming, {}))
    effect = score_section(None, reference.effect, Reading(renaming, {}))
    difference = Difference("missing-action", f"the reference's action `{reference.name.display}` "
                            f"({len(reference.parameters)} parameters) has no counterpart")
    return ActionComparison(None, reference, precondition, effect, (difference,))


def _parameter_differences(candidate: Action, reference: Action, reading: Reading, back: _Back
                           ) -> list[Difference]:
    if len(candidate.parameters) != len(reference.parameters):
        return [Difference("parameter-count", f"`{candidate.name.display}` takes {len(candidate.parameters)} "
                           f"parameters, the reference's takes {len(reference.parameters)}")]
    out = []
    for mine, theirs in zip(candidate.parameters, reference.parameters, strict=False):
        if reading.type(mine.type) != _type_keys(theirs.type):
            out.append(Difference(
                "parameter-type",
                f"`{candidate.name.display}`: parameter {mine.name.display} is of type "
                f"{_type_text(mine.type)}, the reference's is of type {back.type(theirs.type)}"))
    return out


def _type_keys(ref: TypeRef | None) -> frozenset[str]:
    return frozenset({"object"}) if ref is None else frozenset(n.key for n in ref.names)


def _type_text(ref: TypeRef | None) -> str:
    if ref is None:
        return "object"
    names = [n.display for n in ref.names]
    return names[0] if len(names) == 1 else "(either " + " ".join(names) + ")"


_TOKEN = re.compile(r"[^\s()]+")


class _Back:
    """Writes reference clauses in the candidate's names, so a student reads their own vocabulary."""

    def __init__(self, renaming: Renaming, candidate: Action | None, reference: Action | None) -> None:
        self.words: dict[str, str] = {}
        for kind in KINDS:
            for mine, theirs in renaming.of(kind).items():
                self.words.setdefault(theirs, mine)
        if candidate is not None and reference is not None:
            for mine_p, theirs_p in zip(candidate.parameters, reference.parameters, strict=False):
                self.words[theirs_p.name.key] = mine_p.name.display

    def text(self, clause: Formula) -> str:
        """A reference clause in the candidate's names."""
        return _TOKEN.sub(lambda m: self.words.get(m.group(0).lower(), m.group(0)), clause_text(clause))

    def type(self, ref: TypeRef | None) -> str:
        """A reference type in the candidate's names."""
        return _TOKEN.sub(lambda m: self.words.get(m.group(0).lower(), m.group(0)), _type_text(ref))


def _declarations(candidate: Domain, reference: Domain, renaming: Renaming) -> tuple[Difference, ...]:
    """Declared names with no counterpart, and type hierarchies that disagree."""
    out = []
    singular = {"types": "type", "predicates": "predicate", "functions": "function", "constants": "constant"}
    for kind in ("types", "predicates", "functions", "constants"):
        pairs = renaming.of(kind)
        for key in declared(candidate, kind):
            if key not in pairs:
                out.append(Difference("extra-declaration",
                                      f"{singular[kind]} `{key}` corresponds to nothing in the reference"))
        mapped = set(pairs.values())
        for key in declared(reference, kind):
            if key not in mapped:
                out.append(Difference("missing-declaration",
                                      f"the reference's {singular[kind]} `{key}` has no counterpart"))
    parents = {t.name.key: _type_keys(t.parent) for t in reference.types}
    for decl in candidate.types:
        theirs = renaming.types.get(decl.name.key)
        if theirs is None or theirs not in parents:
            continue
        mine = frozenset(renaming.types.get(k, k) for k in _type_keys(decl.parent))
        if mine != parents[theirs]:
            out.append(Difference("type-hierarchy",
                                  f"type `{decl.name.display}` is a {_type_text(decl.parent)}, "
                                  f"the reference's `{theirs}` is a {' or '.join(sorted(parents[theirs]))}"))
    return tuple(out)

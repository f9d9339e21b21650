"""How the candidate's names correspond to the reference's: found by the isomorphism, given by the user
(``--mapping FILE``), or guessed from the names.

Every comparison (F1, differences, translated problems and plans) goes through one :class:`Renaming`, so
the three sources are interchangeable. Parameters are matched by position, never by name: a plan step
gives an action's arguments by position, so two actions whose parameters are listed in different orders
are different actions to a planner and to a plan.
"""

from __future__ import annotations

import difflib
import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from plansight.analyses.model.pddl import Atom, Domain, Not, conjuncts

Kind = Literal["types", "predicates", "functions", "constants", "actions"]
KINDS: tuple[Kind, ...] = ("types", "predicates", "functions", "constants", "actions")
Source = Literal["isomorphism", "mapping", "names"]

NAME_SIMILARITY_FLOOR = 0.5
"""Two different names are paired by the guess only when difflib finds them at least this alike, so
unrelated leftovers stay unpaired (and show up as missing and extra) instead of being forced together."""


@dataclass(frozen=True, slots=True)
class Renaming:
    """Candidate name (lower-case key) -> reference name, per kind; ``source`` says where it came from."""

    types: Mapping[str, str] = field(default_factory=dict)
    predicates: Mapping[str, str] = field(default_factory=dict)
    functions: Mapping[str, str] = field(default_factory=dict)
    constants: Mapping[str, str] = field(default_factory=dict)
    actions: Mapping[str, str] = field(default_factory=dict)
    source: Source = "names"

    def of(self, kind: Kind) -> Mapping[str, str]:
        """The map of one kind of name."""
        return getattr(self, kind)  # type: ignore[no-any-return]

    def renamed(self) -> list[tuple[Kind, str, str]]:
        """The pairs whose names differ, which are what a user needs to be told."""
        return [(kind, a, b) for kind in KINDS for a, b in sorted(self.of(kind).items()) if a != b]

    def as_json(self) -> dict[str, dict[str, str]]:
        """Every pair, identical names included, per kind."""
        return {kind: dict(sorted(self.of(kind).items())) for kind in KINDS}

    @property
    def how(self) -> str:
        """Where the pairs came from, in words."""
        return {"isomorphism": "found by the isomorphism",
                "mapping": "from the given mapping, the rest guessed",
                "names": "guessed from names and how predicates are used"}[self.source]

    def describe(self) -> str:
        """The renamed pairs in one line, for the text output."""
        pairs = self.renamed()
        if not pairs:
            return "no renaming (the same names)"
        return ", ".join(f"{a} → {b}" for _, a, b in pairs)


def declared(domain: Domain, kind: Kind) -> list[str]:
    """The keys of one kind of declared name, in the order written (``object`` is implicit, not listed)."""
    if kind == "types":
        return list(dict.fromkeys(t.name.key for t in domain.types if t.name.key != "object"))
    if kind == "predicates":
        return [p.name.key for p in domain.predicates]
    if kind == "functions":
        return [f.name.key for f in domain.functions]
    if kind == "constants":
        return [c.name.key for c in domain.constants]
    return [a.name.key for a in domain.actions]


class MappingError(ValueError):
    """A mapping file that cannot be used; the message says why."""


def read_mapping(text: str, candidate: Domain | None, reference: Domain) -> dict[Kind, dict[str, str]]:
    """A user's mapping: a JSON object, either flat (``{"stack": "put-on"}``, each candidate name looked up in
    every kind) or per kind (``{"actions": {"stack": "put-on"}}``). Without a ``candidate`` (grading many
    at once) a flat pair applies to every kind whose reference names hold the target.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise MappingError(f"not JSON: {error.msg} (line {error.lineno})") from None
    if not isinstance(data, dict):
        raise MappingError("the mapping must be a JSON object of candidate name -> reference name")
    out: dict[Kind, dict[str, str]] = {kind: {} for kind in KINDS}
    flat: dict[str, str] = {}
    for key, value in data.items():
        if key in KINDS and isinstance(value, dict):
            for a, b in value.items():
                out[key][str(a).lower()] = str(b).lower()  # type: ignore[index]
        elif isinstance(value, str):
            flat[str(key).lower()] = value.lower()
        else:
            raise MappingError(f"`{key}`: expected a reference name (a string), got {json.dumps(value)}")
    for a, b in flat.items():
        kinds = [k for k in KINDS
                 if (candidate is None or a in declared(candidate, k)) and b in declared(reference, k)]
        if not kinds:
            raise MappingError(f"`{a}` -> `{b}`: `{b}` is not a name the reference declares"
                               + ("" if candidate is None else f", or `{a}` not one the candidate declares"))
        for kind in kinds:
            out[kind][a] = b
    return out


def guess_renaming(
    candidate: Domain,
    reference: Domain,
    given: Mapping[Kind, Mapping[str, str]] | None = None,
    action_score: Callable[[str, str, Renaming], float] | None = None,
) -> Renaming:
    """The best correspondence of names short of an isomorphism: the given pairs first, then equal names,
    then the leftovers paired greedily by similarity (same arity for predicates and functions, same number
    of parameters for actions). ``action_score`` rates a candidate/reference action pair under the names
    paired so far (the logic-form F1); without it actions are paired by name like the rest.
    """
    given = given or {}
    pairs: dict[Kind, dict[str, str]] = {}
    for kind in KINDS:
        if kind == "actions" and action_score is not None:
            continue
        if kind == "predicates":
            usage = _Usage(candidate, reference)
            pairs[kind] = _pair(declared(candidate, kind), declared(reference, kind), given.get(kind, {}),
                                _compatible(candidate, reference, kind), usage.score,
                                1e-3 * NAME_SIMILARITY_FLOOR)
            continue
        pairs[kind] = _pair(declared(candidate, kind), declared(reference, kind), given.get(kind, {}),
                            _compatible(candidate, reference, kind), _name_score, NAME_SIMILARITY_FLOOR)
    source: Source = "mapping" if any(given.values()) else "names"
    if action_score is not None:
        partial = Renaming(**pairs, actions={}, source=source)  # type: ignore[misc]

        def scored(a: str, b: str) -> float:
            # the F1 decides; the names only break ties between equally good pairs
            return action_score(a, b, partial) + _name_score(a, b) * 1e-3

        pairs["actions"] = _pair(declared(candidate, "actions"), declared(reference, "actions"),
                                 given.get("actions", {}), _compatible(candidate, reference, "actions"),
                                 scored, 1e-3 * NAME_SIMILARITY_FLOOR)
    return Renaming(**pairs, source=source)  # type: ignore[misc]


def _name_score(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b).ratio()


def _compatible(candidate: Domain, reference: Domain, kind: Kind) -> Callable[[str, str], bool]:
    def arity(domain: Domain) -> dict[str, int]:
        if kind == "predicates":
            return {p.name.key: len(p.parameters) for p in domain.predicates}
        if kind == "functions":
            return {f.name.key: len(f.parameters) for f in domain.functions}
        if kind == "actions":
            return {a.name.key: len(a.parameters) for a in domain.actions}
        return {}

    left, right = arity(candidate), arity(reference)
    return lambda a, b: left.get(a) == right.get(b)


def _pair(left: Iterable[str], right: Iterable[str], given: Mapping[str, str],
          compatible: Callable[[str, str], bool], score: Callable[[str, str], float],
          floor: float) -> dict[str, str]:
    left, right = list(left), list(right)
    out = {a: b for a, b in given.items() if a in left and b in right}
    used = set(out.values())
    for a in left:
        if a not in out and a in right and a not in used:
            out[a] = a
            used.add(a)
    rest_left = [a for a in left if a not in out]
    rest_right = [b for b in right if b not in used]
    candidates = sorted(((score(a, b), a, b) for a in rest_left for b in rest_right if compatible(a, b)),
                        key=lambda t: (-t[0], t[1], t[2]))
    for value, a, b in candidates:
        if value >= floor and a not in out and b not in used:
            out[a] = b
            used.add(b)
    return out


class _Usage:
    """How each predicate is used: in which action (by name when both domains have it), which section, with
    which sign and on which parameters. Two predicates used alike are likely one renamed, whatever their
    names (a student's ``free`` for the reference's ``clear``)."""

    def __init__(self, candidate: Domain, reference: Domain) -> None:
        shared = {a.name.key for a in candidate.actions} & {a.name.key for a in reference.actions}
        self.left = _uses(candidate, shared)
        self.right = _uses(reference, shared)

    def score(self, a: str, b: str) -> float:
        """Jaccard similarity of the two predicates' uses; names only break ties."""
        left, right = self.left.get(a, Counter()), self.right.get(b, Counter())
        union = sum((left | right).values())
        jaccard = sum((left & right).values()) / union if union else 0.0
        return jaccard + 1e-3 * _name_score(a, b)


def _uses(domain: Domain, shared: set[str]) -> dict[str, Counter[tuple[object, ...]]]:
    out: dict[str, Counter[tuple[object, ...]]] = {}
    for action in domain.actions:
        tag = action.name.key if action.name.key in shared else f"?{len(action.parameters)}"
        positions = {p.name.key: i for i, p in enumerate(action.parameters)}
        for section, formula in (("pre", action.precondition), ("eff", action.effect)):
            for part in conjuncts(formula):
                positive = not isinstance(part, Not)
                atom = part.arg if isinstance(part, Not) else part
                if isinstance(atom, Atom):
                    args = tuple(positions.get(arg.key, "c") for arg in atom.args)
                    out.setdefault(atom.predicate.key, Counter())[(tag, section, positive, args)] += 1
    return out

"""Plan metrics against a reference plan: AQM labels, similarity, score, StV, LCS, potential.

Everything works on action sequences (`Action` = the action name and its arguments, lower-cased), so
the metrics are pure; the one thing that needs the problem, "is this action sequence a valid plan?",
is a callback (`Validity`) the caller builds from the simulator. The definitions follow the paper
(Armony, Meroño-Peñuela and Canal 2025, "How Far Are LLMs from Symbolic Planners?") and,
where it is silent, the behaviour of its public reference implementation (read, not copied); every
choice is listed in docs/metrics.md. The running example of the paper is reproduced exactly by
tests/test_plan_metrics.py.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from plansight.analyses.model.pddl import Plan
from plansight.analyses.plans.word_similarity import SimilarityVersion, name_similarity, source

Action = tuple[str, ...]
"""A ground action: its name then its arguments, lower-cased: ``("stack", "a", "b")``."""

Label = Literal["correct", "misplaced", "same_act", "diff_act", "redundant"]
LABELS: tuple[Label, ...] = ("correct", "misplaced", "same_act", "diff_act", "redundant")
LABEL_VALUES: dict[Label, float] = {
    "correct": 4,
    "misplaced": 2,
    "same_act": 1,
    "diff_act": 0.5,
    "redundant": 0,
}
"""The AQM value of each label (the reference code's weights, 0 to 4 as the paper says)."""

Validity = Callable[[Sequence[Action]], bool]
"""Whether an action sequence is a valid plan of the problem (built from the simulator)."""

PAIR_BONUS = 0.5  # each paired action adds this to the similarity (paper: "a bonus 0.5")
MISPLACED_VALUE = 0.5  # a correct action in the wrong position adds this (reference code)
SUBSTRING_WEIGHT = 2.0  # the longest common contiguous run counts double (paper: "by 2 and 1")
VALID_BONUS_PER_REFERENCE_ACTION = 3.0  # a valid plan's raw score gets 3 * |reference| (reference code)
SHIFT_PENALTY = 0.5  # per position of circular shift in the potential search (reference code)
MAX_MAPPED_VARIABLES = 6  # all permutations up to 6 distinct arguments, else mappings from matches
DEFAULT_POTENTIAL_BUDGET = 20000  # plan variants evaluated at most in the potential search


def action_of(name: str, args: Iterable[str] = ()) -> Action:
    """A ground action in the lower-case form the metrics compare, since PDDL names are case-insensitive."""
    return (name.lower(), *(arg.lower() for arg in args))


def actions_of(plan: Plan) -> list[Action]:
    """A parsed plan's steps as ground actions for the metrics."""
    return [action_of(step.action.text, (arg.text for arg in step.args)) for step in plan.steps]


def action_text(action: Action) -> str:
    """A ground action written as PDDL, for reports."""
    return "(" + " ".join(action) + ")"


def parse_action_text(text: str) -> Action | None:
    """``"(stack a b)"`` -> ``("stack", "a", "b")``; None when the text holds no action name."""
    words = text.replace("(", " ").replace(")", " ").split()
    return action_of(words[0], words[1:]) if words else None


# --- similarity of two actions -------------------------------------------------------------------


def parameter_score(action: Action, reference: Action) -> float:
    """C(p, p'): 0.25 per argument equal in the same position, 0.1 per argument found elsewhere;
    with different arities -0.1 per missing/extra argument, plus 0.75 when every argument occurs in
    the reference action, else 0.25 per one that does (the reference code's rule for that case)."""
    args, reference_args = action[1:], reference[1:]
    if not args:
        return 0.0
    if len(args) == len(reference_args):
        return sum(
            0.25 if mine == theirs else 0.1 if mine in reference_args else 0.0
            for mine, theirs in zip(args, reference_args, strict=True)
        )
    matches = sum(1 for arg in args if arg in reference_args)
    overlap = 0.75 if matches == len(args) else 0.25 * matches
    return overlap - 0.1 * abs(len(args) - len(reference_args))


def action_similarity(action: Action, reference: Action, version: SimilarityVersion = "v1") -> float:
    """S(a, a') = sigma(names) + C(params); sigma is 1 for equal names, else Wu-Palmer."""
    sigma = 1.0 if action[0] == reference[0] else name_similarity(action[0], reference[0], version)
    return sigma + parameter_score(action, reference)


# --- AQM ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pair:
    """A plan step paired with a reference step, with its AQM label and similarity."""

    index: int
    reference_index: int
    label: Label
    similarity: float


@dataclass(frozen=True, slots=True)
class Alignment:
    """The pairing of a plan's actions with the reference's (the paper's Algorithm 1 and its text)."""

    labels: tuple[Label, ...]
    pairs: tuple[Pair, ...]

    def count(self, label: Label) -> int:
        """How many plan steps got ``label``."""
        return sum(1 for value in self.labels if value == label)

    @property
    def similar_pairs(self) -> tuple[Pair, ...]:
        """The pairs of similar but not identical steps, which add their similarity to the plan's score."""
        return tuple(pair for pair in self.pairs if pair.label in ("same_act", "diff_act"))


SimilarityRow = Callable[[Action], Sequence[float]]
"""S(a, ref_j) for every position j of the reference, for one similarity version; the potential search
passes a memoised one."""


def align(
    plan: Sequence[Action], reference: Sequence[Action], version: SimilarityVersion = "v1",
    similarities: SimilarityRow | None = None,
) -> Alignment:
    """Label every action, in the paper's order: (1) equal to the reference action at the same
    position, (2) equal to some unpaired reference action, then (3-4) paired with the most similar
    unpaired reference action (first best wins; a pair needs a similarity above 0), (5) the rest.

    ``similarities`` replaces :func:`action_similarity` against ``reference`` (same values): the potential
    search aligns thousands of renamings of the same actions and memoises it."""
    labels: list[Label | None] = [None] * len(plan)
    pairs: list[Pair] = []
    unpaired = list(range(len(reference)))
    for index, action in enumerate(plan):
        if index < len(reference) and reference[index] == action:
            labels[index] = "correct"
            pairs.append(Pair(index, index, "correct", 1.0))
            unpaired.remove(index)
    for index, action in enumerate(plan):
        if len(pairs) >= len(reference):
            break
        if labels[index] is None:
            match = next((j for j in unpaired if reference[j] == action), None)
            if match is not None:
                labels[index] = "misplaced"
                pairs.append(Pair(index, match, "misplaced", 1.0))
                unpaired.remove(match)
    for index, action in enumerate(plan):
        if labels[index] is not None or not unpaired or len(pairs) >= len(reference):
            continue
        best, best_match = 0.0, -1
        best_label: Label = "redundant"
        row = similarities(action) if similarities is not None else None
        for j in unpaired:
            value = row[j] if row is not None else action_similarity(action, reference[j], version)
            if value > best:
                best, best_match = value, j
                best_label = "same_act" if reference[j][0] == action[0] else "diff_act"
        if best_match >= 0:
            labels[index] = best_label
            pairs.append(Pair(index, best_match, best_label, best))
            unpaired.remove(best_match)
    final: tuple[Label, ...] = tuple(label or "redundant" for label in labels)
    return Alignment(final, tuple(sorted(pairs, key=lambda pair: pair.index)))


def np_aqm(
    plan: Sequence[Action], reference: Sequence[Action], labels: Sequence[Label]
) -> tuple[Label, ...]:
    """The non-positional AQM: misplaced counts as correct; a redundant action is relabelled by what it
    resembles in the whole reference (equal -> correct, same name -> same_act, some argument
    similarity -> diff_act), staying redundant only when it resembles nothing."""
    names = {action[0] for action in reference}
    result: list[Label] = []
    for action, label in zip(plan, labels, strict=True):
        if label == "misplaced":
            result.append("correct")
        elif label != "redundant":
            result.append(label)
        elif action in reference:
            result.append("correct")
        elif action[0] in names:
            result.append("same_act")
        else:
            first_nonzero = next(
                (s for s in (parameter_score(action, r) for r in reference) if s != 0), 0.0
            )
            result.append("diff_act" if first_nonzero > 0 else "redundant")
    return tuple(result)


def aqm_score(labels: Sequence[Label]) -> float:
    """Mean label value scaled to 0..1 (4 = every action correct and in place)."""
    return sum(LABEL_VALUES[label] for label in labels) / (4 * len(labels)) if labels else 0.0


# --- LCS ------------------------------------------------------------------------------------------


def lcs_subsequence(plan: Sequence[Action], reference: Sequence[Action]) -> list[Action]:
    """The longest common subsequence (ordered, not necessarily contiguous), two DP rows."""
    previous: list[tuple[int, tuple[Action, ...]]] = [(0, ())] * (len(reference) + 1)
    for action in plan:
        current: list[tuple[int, tuple[Action, ...]]] = [(0, ())]
        for j, other in enumerate(reference, start=1):
            if action == other:
                length, run = previous[j - 1]
                current.append((length + 1, (*run, action)))
            else:
                # ties keep the left cell, as the reference implementation does
                current.append(previous[j] if previous[j][0] > current[j - 1][0] else current[j - 1])
        previous = current
    return list(previous[-1][1])


def lcs_subsequence_length(plan: Sequence[Action], reference: Sequence[Action]) -> int:
    """``len(lcs_subsequence(plan, reference))`` without building the run, which is all the scores need
    (the potential search scores thousands of variants). Bit-parallel (Allison and Dix 1986, Hyyrö
    2004): one integer holds a DP row, so each plan action costs a few big-integer operations."""
    masks: dict[Action, int] = {}
    for j, other in enumerate(reference):
        masks[other] = masks.get(other, 0) | (1 << j)
    full = (1 << len(reference)) - 1
    row = full
    for action in plan:
        match = row & masks.get(action, 0)
        row = ((row + match) | (row - match)) & full
    return len(reference) - row.bit_count()


def lcs_substring_length(plan: Sequence[Action], reference: Sequence[Action]) -> int:
    """``len(lcs_substring(plan, reference))``, for the scores: runs are extended only where the actions
    are equal, so the work is the number of equal pairs, not |plan| x |reference|."""
    positions: dict[Action, list[int]] = {}
    for j, other in enumerate(reference):
        positions.setdefault(other, []).append(j)
    best = 0
    previous: dict[int, int] = {}
    for action in plan:
        current: dict[int, int] = {}
        for j in positions.get(action, ()):
            run = current[j] = previous.get(j - 1, 0) + 1
            if run > best:
                best = run
        previous = current
    return best


def lcs_substring(plan: Sequence[Action], reference: Sequence[Action]) -> list[Action]:
    """The longest common contiguous run (first longest in the plan), two DP rows."""
    best_length, best_end = 0, 0
    previous = [0] * (len(reference) + 1)
    for i, action in enumerate(plan, start=1):
        current = [0] * (len(reference) + 1)
        for j, other in enumerate(reference, start=1):
            if action == other:
                current[j] = previous[j - 1] + 1
                if current[j] > best_length:
                    best_length, best_end = current[j], i
        previous = current
    return list(plan[best_end - best_length : best_end])


# --- scores ---------------------------------------------------------------------------------------


def similarity_score(plan: Sequence[Action], reference: Sequence[Action], alignment: Alignment) -> float:
    """The plan's similarity: 1 per correct action, 0.5 per misplaced one, S + 0.5 per similar pair,
    plus |longest common subsequence| + 2 * |longest common contiguous run|."""
    similar = alignment.similar_pairs
    return (
        alignment.count("correct")
        + MISPLACED_VALUE * alignment.count("misplaced")
        + sum(pair.similarity for pair in similar)
        + PAIR_BONUS * len(similar)
        + lcs_subsequence_length(plan, reference)
        + SUBSTRING_WEIGHT * lcs_substring_length(plan, reference)
    )


def length_penalty(length: int, reference_length: int) -> float:
    """(|pi| - |GT|)^2 / |GT|, doubled for plans shorter than the reference."""
    if reference_length == 0:
        return 0.0
    difference = length - reference_length
    return (2 if difference < 0 else 1) * difference * difference / reference_length


def raw_score(
    plan: Sequence[Action], reference: Sequence[Action], valid: bool, alignment: Alignment
) -> float:
    """|pi| + similarity - penalty for an invalid plan; |pi| + 3|GT| - penalty (longer only) when valid."""
    if valid:
        longer = len(plan) > len(reference)
        return (
            len(plan)
            + VALID_BONUS_PER_REFERENCE_ACTION * len(reference)
            - (length_penalty(len(plan), len(reference)) if longer else 0.0)
        )
    return (
        len(plan) + similarity_score(plan, reference, alignment) - length_penalty(len(plan), len(reference))
    )


def normalised(raw: float, length: int) -> float:
    """A score per action; an empty plan scores 0 rather than dividing by zero."""
    return raw / length if length else 0.0


def action_distance(plan: Sequence[Action], reference: Sequence[Action]) -> float:
    """Murthy, Mink and Sanneman 2025: 1 - |A & B| / |A | B| over the sets of distinct ground actions
    (0 when both empty)."""
    mine, theirs = set(plan), set(reference)
    union = mine | theirs
    return 1.0 - len(mine & theirs) / len(union) if union else 0.0


# --- steps to validity ----------------------------------------------------------------------------

StepKind = Literal["remove", "reorder", "repair_parameters", "repair_action", "add"]


@dataclass(frozen=True, slots=True)
class Step:
    """One edit of the StV sequence that turns the plan into the reference."""

    kind: StepKind
    action: Action

    def to_json(self) -> dict[str, str]:
        """The edit as the CLI's JSON output writes it."""
        return {"kind": self.kind, "action": action_text(self.action)}


def steps_to_validity(
    plan: Sequence[Action],
    reference: Sequence[Action],
    labels: Sequence[Label],
    is_valid: Validity | None,
    version: SimilarityVersion = "v1",
) -> list[Step]:
    """The paper's Algorithm 2: remove redundant actions; if what remains is valid, stop. Otherwise
    re-label what remains, reorder correct-but-misplaced actions, repair paired ones (same_act:
    arguments, diff_act: the action), remove unpaired ones, and add each reference action missing
    from the plan unless a repair already accounts for it."""
    steps = [
        Step("remove", action) for action, label in zip(plan, labels, strict=True) if label == "redundant"
    ]
    kept = [action for action, label in zip(plan, labels, strict=True) if label != "redundant"]
    if is_valid is not None and is_valid(kept):
        return steps
    kept_labels = align(kept, reference, version).labels if steps else tuple(labels)
    repairs = 0
    for action, label in zip(kept, kept_labels, strict=True):
        if action in reference:
            if label != "correct":
                steps.append(Step("reorder", action))
        elif label in ("same_act", "diff_act"):
            repairs += 1
            steps.append(Step("repair_parameters" if label == "same_act" else "repair_action", action))
        else:
            steps.append(Step("remove", action))
    for action in reference:
        if action not in plan:
            if repairs > 0:
                repairs -= 1
            else:
                steps.append(Step("add", action))
    return steps


# --- plan potential (pi1) -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Potential:
    """The best transformed plan (pi1): a consistent renaming of arguments and a circular shift."""

    plan: tuple[Action, ...]
    mapping: dict[str, str]
    offset: int
    score: float  # normalised, after the renaming and shift penalties
    any_valid: bool  # some variant was a valid plan
    evaluated: int
    truncated: bool


def _arguments(plan: Sequence[Action]) -> list[str]:
    seen: dict[str, None] = {}
    for action in plan:
        for arg in action[1:]:
            seen.setdefault(arg, None)
    return list(seen)


def _mappings(plan: Sequence[Action], reference: Sequence[Action]) -> list[dict[str, str]]:
    variables = _arguments(plan)
    if len(variables) <= MAX_MAPPED_VARIABLES:
        return [
            dict(zip(variables, permutation, strict=True))
            for permutation in itertools.permutations(variables)
        ]
    found: dict[frozenset[tuple[str, str]], dict[str, str]] = {}
    for wanted in reference:
        for action in plan:
            if action[0] == wanted[0] and len(action) == len(wanted):
                mapping = {v: v for v in variables}
                mapping.update(zip(action[1:], wanted[1:], strict=True))
                found.setdefault(frozenset(mapping.items()), mapping)
    return list(found.values()) or [{v: v for v in variables}]


def _offsets(plan: Sequence[Action], reference: Sequence[Action]) -> list[int]:
    """Shifts to try: those that line most action names up with the reference first."""

    def aligned_names(offset: int) -> int:
        shifted = list(plan[offset:]) + list(plan[:offset])
        return sum(1 for mine, theirs in zip(shifted, reference, strict=False) if mine[0] == theirs[0])

    beam = max(7, min(15, len(plan)))
    return sorted(range(len(plan)), key=lambda offset: -aligned_names(offset))[:beam]


def renaming_penalty(mapping: dict[str, str]) -> float:
    """Each renamed argument costs 1/|arguments| (reference code), so renaming every argument costs 1.
    A plan whose actions take no arguments has nothing to rename: its renaming costs nothing."""
    if not mapping:
        return 0.0
    return sum(1 for key, value in mapping.items() if key != value) / len(mapping)


def potential(
    plan: Sequence[Action],
    reference: Sequence[Action],
    is_valid: Validity | None,
    version: SimilarityVersion = "v1",
    own_score: float | None = None,
    budget: int = DEFAULT_POTENTIAL_BUDGET,
) -> Potential:
    """The paper's plan potential: every consistent renaming of the plan's arguments (all permutations
    up to 6 distinct arguments, else the renamings that make some action equal a reference action)
    combined with the most promising circular shifts; the best normalised score wins, each renamed
    argument costing 1/|arguments| and each shifted position 0.5 of the raw score."""
    variables = _arguments(plan)
    identity = {v: v for v in variables}
    best = Potential(
        tuple(plan), identity, 0, own_score if own_score is not None else float("-inf"), False, 0, False
    )
    if not plan:
        return best
    seen: set[tuple[Action, ...]] = set()
    any_valid, evaluated, truncated = False, 0, False
    bounds = _SimilarityBounds(reference, version)
    length, reference_tuple = len(plan), tuple(reference)
    valid_raw = length - (length_penalty(length, len(reference)) if length > len(reference) else 0)
    for mapping in _mappings(plan, reference):
        renamed = [(action[0], *(mapping.get(arg, arg) for arg in action[1:])) for action in plan]
        renaming = renaming_penalty(mapping)
        # every shift of this renaming has the same actions, so one bound on the raw score of an invalid
        # variant serves them all (see _SimilarityBounds)
        invalid_bound = length + bounds.similarity_bound(renamed) - length_penalty(length, len(reference))
        for offset in _offsets(renamed, reference):
            variant = tuple(renamed[offset:] + renamed[:offset])
            if variant in seen:
                continue
            if evaluated >= budget:
                truncated = True
                break
            seen.add(variant)
            evaluated += 1
            penalty = renaming + SHIFT_PENALTY * offset
            bound = normalised(max(valid_raw, invalid_bound) - penalty, length)
            if any_valid and bound < best.score - _SLACK:
                continue  # cannot beat the best, and whether it is valid no longer changes the answer
            valid = is_valid(variant) if is_valid is not None else variant == reference_tuple
            any_valid = any_valid or valid
            if valid:
                raw = valid_raw
            elif normalised(invalid_bound - penalty, length) < best.score - _SLACK:
                continue  # its exact score cannot beat the best: skip aligning it
            else:
                raw = raw_score(variant, reference, False, align(variant, reference, version, bounds.row))
            score = normalised(raw - penalty, length)
            if score > best.score:
                best = Potential(variant, mapping, offset, score, False, 0, False)
        if truncated:
            break
    return Potential(best.plan, best.mapping, best.offset, best.score, any_valid, evaluated, truncated)


_SLACK = 1e-9
"""A variant is skipped only when its bound is below the best score by more than rounding: the bound and
the exact score sum the same terms in different orders."""


class _SimilarityBounds:
    """Memoised S(a, a') against one reference plan, and an upper bound on a plan's similarity score.

    The bound makes the potential search exact and fast: similarity_score is a sum over the plan's
    actions of at most max(1, max_j S(a, ref_j) + PAIR_BONUS) each (a correct action scores 1, a
    misplaced one 0.5, a similar pair its similarity plus the bonus), plus the two LCS terms, each at most
    the number of the plan's actions that occur in the reference (as a multiset). A variant whose bound
    cannot beat the best score found so far is never aligned, and the best is the one the full search
    would keep (the first strictly greatest)."""

    def __init__(self, reference: Sequence[Action], version: SimilarityVersion) -> None:
        self.reference = tuple(reference)
        self.version = version
        self.counts: dict[Action, int] = {}
        for action in self.reference:
            self.counts[action] = self.counts.get(action, 0) + 1
        self._rows: dict[Action, list[float]] = {}
        self._best: dict[Action, float] = {}

    def row(self, action: Action) -> list[float]:
        """S(action, ref_j) for every reference position j, computed once per distinct action."""
        found = self._rows.get(action)
        if found is None:
            found = self._rows[action] = [action_similarity(action, other, self.version)
                                          for other in self.reference]
        return found

    def _action_bound(self, action: Action) -> float:
        found = self._best.get(action)
        if found is None:
            best_pair = max(self.row(action), default=0.0)
            found = max(1.0 if action in self.counts else 0.0,
                        best_pair + PAIR_BONUS if best_pair > 0 else 0.0)
            self._best[action] = found
        return found

    def similarity_bound(self, plan: Sequence[Action]) -> float:
        """An upper bound on similarity_score(plan, reference, any alignment)."""
        remaining = dict(self.counts)
        shared = 0
        for action in plan:
            left = remaining.get(action, 0)
            if left:
                remaining[action] = left - 1
                shared += 1
        per_action = sum(self._action_bound(action) for action in plan)
        return per_action + shared + SUBSTRING_WEIGHT * shared


# --- everything at once ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Evaluation:
    """All metrics of one plan against its reference plan."""

    plan: tuple[Action, ...]
    reference: tuple[Action, ...]
    valid: bool
    alignment: Alignment
    np_labels: tuple[Label, ...]
    subsequence: tuple[Action, ...]
    substring: tuple[Action, ...]
    similarity: float
    raw_score: float
    score: float
    steps: tuple[Step, ...]
    distance: float
    version: SimilarityVersion
    similarity_source: str
    potential: Potential | None = None
    potential_steps: tuple[Step, ...] = ()
    final_score: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def stv(self) -> int:
        """Steps to valid: how many edits turn the plan into the reference."""
        return len(self.steps)

    def to_json(self) -> dict[str, Any]:
        """The `reference` object of `plansight plan --format json` (docs/cli.md, plus more keys)."""
        result: dict[str, Any] = {
            "stv": self.stv,
            "steps": [step.to_json() for step in self.steps],
            "actions": [action_text(a) for a in self.plan],
            "aqm": list(self.alignment.labels),
            "np_aqm": list(self.np_labels),
            "aqm_score": round(aqm_score(self.alignment.labels), 4),
            "pairs": [
                {
                    "index": pair.index,
                    "reference_index": pair.reference_index,
                    "label": pair.label,
                    "action": action_text(self.plan[pair.index]),
                    "reference_action": action_text(self.reference[pair.reference_index]),
                    "similarity": round(pair.similarity, 4),
                }
                for pair in self.alignment.pairs
            ],
            "lcs_subsequence": len(self.subsequence),
            "lcs_substring": len(self.substring),
            "lcs_subsequence_actions": [action_text(a) for a in self.subsequence],
            "lcs_substring_actions": [action_text(a) for a in self.substring],
            "similarity": round(self.similarity, 4),
            "score": round(self.raw_score, 4),
            "score_normalised": round(self.score, 4),
            "final_score": None if self.final_score is None else round(self.final_score, 4),
            "action_distance": round(self.distance, 4),
            "reference_length": len(self.reference),
            "similarity_version": self.version,
            "similarity_source": self.similarity_source,
            "potential": None,
        }
        if self.potential is not None:
            result["potential"] = {
                "plan": [action_text(a) for a in self.potential.plan],
                "mapping": {k: v for k, v in self.potential.mapping.items() if k != v},
                "offset": self.potential.offset,
                "score_normalised": round(self.potential.score, 4),
                "stv": len(self.potential_steps),
                "any_valid": self.potential.any_valid,
                "variants": self.potential.evaluated,
                "truncated": self.potential.truncated,
            }
        return result


def evaluate(
    plan: Sequence[Action],
    reference: Sequence[Action],
    *,
    valid: bool,
    is_valid: Validity | None = None,
    version: SimilarityVersion = "v1",
    with_potential: bool = True,
    potential_budget: int = DEFAULT_POTENTIAL_BUDGET,
) -> Evaluation:
    """All the paper's metrics of `plan` (whose validity the caller knows) against `reference`."""
    plan, reference = tuple(plan), tuple(reference)
    alignment = align(plan, reference, version)
    raw = raw_score(plan, reference, valid, alignment)
    score = normalised(raw, len(plan))
    steps = tuple(steps_to_validity(plan, reference, alignment.labels, is_valid, version))
    found: Potential | None = None
    potential_steps: tuple[Step, ...] = ()
    final: float | None = None
    if with_potential and plan and reference:
        if valid:
            potential_value = 4 * len(reference) / len(plan)  # reference code: a valid plan's potential
        else:
            found = potential(plan, reference, is_valid, version, score, potential_budget)
            potential_value = 2.0 if found.any_valid else found.score
            found_alignment = align(found.plan, reference, version)
            found_valid = is_valid(found.plan) if is_valid is not None else found.plan == reference
            potential_steps = (
                ()
                if found_valid
                else tuple(
                    steps_to_validity(found.plan, reference, found_alignment.labels, is_valid, version)
                )
            )
        final = -1.0 if score < 0 else (score + potential_value) / 2
    return Evaluation(
        plan=plan,
        reference=reference,
        valid=valid,
        alignment=alignment,
        np_labels=np_aqm(plan, reference, alignment.labels),
        subsequence=tuple(lcs_subsequence(plan, reference)),
        substring=tuple(lcs_substring(plan, reference)),
        similarity=similarity_score(plan, reference, alignment),
        raw_score=raw,
        score=score,
        steps=steps,
        distance=action_distance(plan, reference),
        version=version,
        similarity_source=source(),
        potential=found,
        potential_steps=potential_steps,
        final_score=final,
    )

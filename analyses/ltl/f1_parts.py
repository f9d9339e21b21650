"""Goal F1 solved part by part: a ratio turned into sums, split into independent groups of choices.

Both goals are conjunctions of *parts* (the top-level conjuncts of ``goal_options.py``'s trees), each
part a short list of simple goals to choose one from (a BEHAVIOR key and its options). The F1 of a
choice, ``2c / (|R| + |C|)``, is a ratio, so it does not add up over parts; but whether some choice
beats ``t = p/q`` is whether ``Σ_e g(e) > 0`` with ``g = 2q − 2p`` for an element in both goals and
``−p`` for one in only one of them: a sum over elements. Dinkelbach's method ("On nonlinear fractional
programming", Dinkelbach 1967) raises ``t`` to the F1 of the best choice for that sum until no choice
makes it positive, which takes a few rounds; the maximum is exact.

For a given ``t`` the sum splits into groups of parts that share no element (and the parts holding
actions, whose order makes the one action-sequence element): each group is maximised on its own, by
a depth-first search that decides parts next to the parts they share elements with, bounded by what
every undecided part could still add at best. An element contributes half of ``2q − 2p`` from each
side when it may still be matched, and a negative weight is dropped for an element that two parts of
one side could both bring (the union counts it once), so the bound never undercounts.

Ties are broken as listing every pair would (reference expansions in order, then the candidate's;
the first best pair kept): at the best ``t`` a pair is best iff every group reaches its own maximum,
and the first such pair in listing order takes, part by part in that order, the first option with
which its group can still reach its maximum.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from math import prod

from plansight.analyses.ltl.f1_hubs import HUB_LIMIT, Patterns, Programme, TooManyStates
from plansight.analyses.ltl.goal_options import AllOf, Element, Fixed, OneOf, Options, SimpleGoal, expansions
from plansight.analyses.semantics.budget import Meter
from plansight.analyses.semantics.world import GroundAtom

CLUSTER_CHOICES = 4096
"""Choices of a cluster tried one by one for its best; past it, each part's best is added up."""
SWEEPS = 4
"""Rounds of improving one part at a time for the starting choice (``_Problem._good_choice``)."""
PART_LIMIT = 4096
"""Expansions one part may have to be listed here; past it, the tree search of ``f1_search.py`` is used."""
MAX_PARTS = 400
"""Parts of both goals together (the search recurses once per part)."""


def best_pair_by_parts(reference: Options, candidate: Options,
                       meter: Meter) -> tuple[SimpleGoal, SimpleGoal] | None:
    """The (reference, candidate) simple goals with the highest F1, the first such pair in listing order;
    None when a part has more than ``PART_LIMIT`` expansions."""
    sides = (_parts(reference), _parts(candidate))
    if sides[0] is None or sides[1] is None or len(sides[0]) + len(sides[1]) > MAX_PARTS:
        return None
    return _Problem(sides[0], sides[1], meter).best()


def _count(tree: Options) -> int:
    if isinstance(tree, Fixed):
        return 1
    if isinstance(tree, OneOf):
        return sum(_count(a) for a in tree.alternatives)
    return prod(_count(p) for p in tree.parts)


def _parts(tree: Options) -> list[list[SimpleGoal]] | None:
    parts = tree.parts if isinstance(tree, AllOf) else (tree,)
    if any(_count(part) > PART_LIMIT for part in parts):
        return None
    listed = [list(expansions(part)) for part in parts]
    return None if any(not options for options in listed) else listed


@dataclass(slots=True)
class _Part:
    """One part with more than one option, and what the search needs to know about it."""

    side: int
    """0: the reference, 1: the candidate."""
    index: int
    options: list[SimpleGoal]
    reach: frozenset[Element]
    props: list[tuple[Element, ...]] = field(default_factory=list)
    has_actions: bool = False


@dataclass(slots=True)
class _Group:
    """Parts that share elements (or all hold actions), maximised together."""

    parts: list[int]
    """Indices into ``_Problem.parts``, in search order: cluster after cluster (see ``clusters``)."""
    clusters: list[list[int]]
    """The group split by the elements that are not hubs (an element two parts of one side may bring):
    what one cluster chooses changes no other cluster's elements but the hubs, so an undecided cluster
    adds at most its own best, found once per ``t``, plus what the hubs can still add."""
    hubs: frozenset[Element]
    sequence: bool = False
    """Whether the action sequences are decided in this group."""


class _Problem:
    """One F1 maximisation: the fixed parts, the choices grouped, and the search over them."""

    def __init__(self, reference: list[list[SimpleGoal]], candidate: list[list[SimpleGoal]],
                 meter: Meter) -> None:
        self.meter = meter
        self.sides = (reference, candidate)
        self.base: tuple[set[Element], set[Element]] = (set(), set())
        self.parts: list[_Part] = []
        for side, parts in enumerate(self.sides):
            for index, options in enumerate(parts):
                if len(options) == 1:
                    self.base[side].update(options[0].propositions)
                    continue
                reach = frozenset().union(*(o.propositions for o in options))
                self.parts.append(_Part(side, index, options, reach, [tuple(o.propositions) for o in options],
                                        any(o.actions for o in options)))
        repeated: tuple[set[Element], set[Element]] = (set(), set())
        seen: tuple[set[Element], set[Element]] = (set(), set())
        for part in self.parts:
            repeated[part.side].update(seen[part.side] & part.reach)
            seen[part.side].update(part.reach)
        self.hubs = frozenset(repeated[0] | repeated[1])
        self.best_of_cluster: dict[tuple[Fraction, tuple[tuple[int, int], ...]], int] = {}
        self.groups = self._group()
        self.sequence_fixed = not any(g.sequence for g in self.groups)

    # --- grouping -------------------------------------------------------------------------------

    def _group(self) -> list[_Group]:
        groups = []
        for parts in self._connected(range(len(self.parts)), frozenset()):
            hubs = self.hubs & frozenset().union(*(self.parts[k].reach for k in parts))
            clusters = [self._search_order(c) for c in self._connected(parts, hubs)]
            groups.append(_Group([k for c in clusters for k in c], clusters, hubs,
                                 any(self.parts[k].has_actions for k in parts)))
        return groups

    def _connected(self, parts: Iterable[int], ignored: frozenset[Element]) -> list[list[int]]:
        """``parts`` split into those that share elements (but ``ignored``) or hold actions."""
        members = list(parts)
        parent = {k: k for k in members}

        def root(k: int) -> int:
            while parent[k] != k:
                parent[k] = parent[parent[k]]
                k = parent[k]
            return k

        owner: dict[Element, int] = {}
        for k in members:
            for element in self.parts[k].reach - ignored:
                parent[root(owner.setdefault(element, k))] = root(k)
        acting = [k for k in members if self.parts[k].has_actions]
        for k in acting[1:]:
            parent[root(acting[0])] = root(k)
        split: dict[int, list[int]] = {}
        for k in members:
            split.setdefault(root(k), []).append(k)
        return list(split.values())

    def _search_order(self, parts: list[int]) -> list[int]:
        """Breadth first over shared elements from the first part, so a part's neighbours follow it."""
        by_element: dict[Element, list[int]] = {}
        for k in parts:
            for element in self.parts[k].reach:
                by_element.setdefault(element, []).append(k)
        order: list[int] = []
        placed: set[int] = set()
        for start in parts:
            if start in placed:
                continue
            queue = [start]
            placed.add(start)
            while queue:
                k = queue.pop(0)
                order.append(k)
                for element in sorted(self.parts[k].reach):
                    for neighbour in by_element[element]:
                        if neighbour not in placed:
                            placed.add(neighbour)
                            queue.append(neighbour)
        return order

    # --- the answer ------------------------------------------------------------------------------

    def best(self) -> tuple[SimpleGoal, SimpleGoal]:
        """Dinkelbach's rounds, then the first best pair in listing order."""
        empty_possible = all(any(not o.propositions and not o.actions for o in options)
                             for parts in self.sides for options in parts)
        if empty_possible:
            t = Fraction(1)
            maxima = [_known(self._group_best(g, t, None)[0]) for g in self.groups]
        else:
            choice: dict[int, int] = self._good_choice()
            t = Fraction(*_score(*self._goals(choice)))
            while True:
                found = [self._group_best(g, t, choice) for g in self.groups]
                maxima = [_known(value) for value, _ in found]
                total = self._constant(t) + sum(maxima)
                if total <= 0:
                    break
                choice = {}
                for _, chosen in found:
                    choice.update(chosen)
                num, den = _score(*self._goals(choice))
                t = Fraction(num, den)
        choice = {}
        for group, maximum in zip(self.groups, maxima, strict=True):
            fixed: dict[int, int] = {}
            if len(group.parts) == 1 and not group.sequence:  # the first option worth the maximum
                [k] = group.parts
                worth = self._option_values(self.parts[k], t)
                choice[k] = worth.index(maximum)
                continue
            if self._first_by_programme(group, t, maximum, fixed):
                choice.update(fixed)
                continue
            for k in sorted(group.parts, key=lambda k: (self.parts[k].side, self.parts[k].index)):
                for option in range(len(self.parts[k].options)):
                    fixed[k] = option
                    reached = self._search(group, t, fixed, maximum)[0]
                    if reached is not None and reached >= maximum:
                        break
                else:  # pragma: no cover - the maximum is reached by some option of every part
                    raise AssertionError("no option reaches the group's maximum")
            choice.update(fixed)
        return self._goals(choice)

    def _group_best(self, group: _Group, t: Fraction,
                    known: dict[int, int] | None) -> tuple[int | None, dict[int, int]]:
        """The group's best sum at ``t`` and a choice reaching it: by the programme over hubs when it
        applies (no worse than the ``known`` choice, whose sum lets it drop hopeless states), else by
        the search."""
        programme = self._programme(group, t, {}, known)
        if programme is None:
            return self._search(group, t, {}, None)
        try:
            total, picked = programme.best()
        except TooManyStates:
            return self._search(group, t, {}, None)
        choice: dict[int, int] = {}
        for cluster, options in zip(group.clusters, picked, strict=True):
            choice.update(zip(cluster, options, strict=True))
        return total, choice

    def _first_by_programme(self, group: _Group, t: Fraction, maximum: int, fixed: dict[int, int]) -> bool:
        """Fill ``fixed`` with the first choice in listing order reaching ``maximum``, part by part, by the
        programme over hubs; False (``fixed`` untouched) when it does not apply."""
        programme = self._programme(group, t, {}, maximum)
        if programme is None:
            return False
        layer_of = {k: n for n, cluster in enumerate(group.clusters) for k in cluster}
        settled: dict[int, int] = {}
        try:
            for k in sorted(group.parts, key=lambda k: (self.parts[k].side, self.parts[k].index)):
                layer = layer_of[k]
                for option in range(len(self.parts[k].options)):
                    settled[k] = option
                    patterns = self._patterns(group, layer, t, settled)
                    if programme.fits(layer, patterns) >= maximum:
                        programme.narrow(layer, patterns)
                        break
                else:  # pragma: no cover - the maximum is reached by some option of every part
                    raise AssertionError("no option reaches the group's maximum")
        except TooManyStates:
            return False
        fixed.update(settled)
        return True

    def _programme(self, group: _Group, t: Fraction, fixed: dict[int, int],
                   floor: dict[int, int] | int | None = None) -> Programme | None:
        """The programme over the hubs held for ``group`` at ``t``, when it has few hubs and every
        cluster few choices; ``floor``, a sum some choice reaches (or that choice), drops the states that
        cannot reach it."""
        sizes = [prod(len(self.parts[k].options) for k in cluster) for cluster in group.clusters]
        if len(group.hubs) > HUB_LIMIT or max(sizes) > CLUSTER_CHOICES:
            return None
        if len(group.clusters) == 1 and not group.hubs and len(group.parts) > 2:
            return None  # one cluster without hubs: the search's bound is exact enough, and cheaper
        p, q = t.numerator, t.denominator
        hubs = sorted(group.hubs)
        start = [(e in self.base[0], e in self.base[1]) for e in hubs]

        def worth(held: bool, theirs: bool) -> int:
            return (2 * q - 2 * p) if held and theirs else -p if held or theirs else 0

        def final(state: int) -> int:
            total = 0
            for n, (reference, candidate) in enumerate(start):
                now = (reference or bool(state >> 2 * n & 1), candidate or bool(state >> (2 * n + 1) & 1))
                if now != (reference, candidate):
                    total += worth(*now) - worth(reference, candidate)
            return total

        layers = [self._patterns(group, n, t, fixed) for n in range(len(group.clusters))]
        if isinstance(floor, dict):  # the sum of that choice: every layer down to its one pattern
            picked = [self._patterns(group, n, t, floor) for n in range(len(group.clusters))]
            floor = sum(worth for patterns in picked for worth, _ in patterns.values())
            floor += final(functools.reduce(operator.or_, (bits for patterns in picked for bits in patterns),
                                            0))
        suffix = [0] * (len(layers) + 1)  # the best the layers from here on add, hubs left out
        held = [0] * (len(layers) + 1)  # every hub bit the layers from here on may bring
        for n in range(len(layers) - 1, -1, -1):
            suffix[n] = suffix[n + 1] + max(worth for worth, _ in layers[n].values())
            held[n] = held[n + 1] | functools.reduce(operator.or_, layers[n], 0)

        def ceiling(state: int, layer: int) -> int:
            """The layers' best, and each hub at its best still reachable: in both goals when both may
            still hold it, else as it is (holding it on one more side only costs)."""
            total = suffix[layer]
            reachable = state | held[layer]
            for n, (reference, candidate) in enumerate(start):
                now = (reference or bool(state >> 2 * n & 1), candidate or bool(state >> (2 * n + 1) & 1))
                if (reference or reachable >> 2 * n & 1) and (candidate or reachable >> (2 * n + 1) & 1):
                    total += 2 * q - 2 * p - worth(reference, candidate)
                else:
                    total += worth(*now) - worth(reference, candidate)
            return total

        return Programme(layers, final, self.meter, ceiling, floor)

    def _patterns(self, group: _Group, layer: int, t: Fraction, fixed: dict[int, int]) -> Patterns:
        """A cluster's choices (``fixed`` ones fixed) by the hubs they bring: the best value of the
        elements but the hubs (and of the action sequences, in the group that decides them) and the
        first choice reaching it."""
        cluster = group.clusters[layer]
        p, q = t.numerator, t.denominator
        bit = {e: 2 * n for n, e in enumerate(sorted(group.hubs))}
        parts = [self.parts[k] for k in cluster]
        own = [[frozenset(o) - group.hubs for o in part.props] for part in parts]
        carried = [[sum(1 << (bit[e] + part.side) for e in option if e in bit) for option in part.props]
                   for part in parts]
        choices = [[fixed[k]] if k in fixed else range(len(self.parts[k].options)) for k in cluster]
        sequence = group.sequence and any(part.has_actions for part in parts)
        patterns: Patterns = {}
        count = 0
        for picked in itertools.product(*choices):
            count += 1
            added: tuple[set[Element], set[Element]] = (set(), set())
            bits = 0
            for n, option in enumerate(picked):
                added[parts[n].side].update(own[n][option])
                bits |= carried[n][option]
            value = _worth(added, self.base, p, q)
            if sequence:
                chosen = dict(zip(cluster, picked, strict=True))
                value += _sequence_value(self._actions(0, chosen), self._actions(1, chosen), p, q)
            if bits not in patterns or patterns[bits][0] < value:
                patterns[bits] = (value, picked)
        self.meter.spend(count)
        return patterns

    def _option_values(self, part: _Part, t: Fraction) -> list[int]:
        """What each option of a part alone in its group adds to the sum at ``t``."""
        p, q = t.numerator, t.denominator
        mine, theirs = self.base[part.side], self.base[1 - part.side]
        self.meter.spend(len(part.props))
        return [sum(2 * q - p if e in theirs else -p for e in props if e not in mine) for props in part.props]

    def _good_choice(self) -> dict[int, int]:
        """A good choice found fast, whose F1 starts Dinkelbach's rounds: from t = 0 every element in
        common is worth the same whatever it costs, and the first round's search has little to prune.
        Each part in turn takes its option with the best F1 given the others' (the action sequence left
        out), until no part changes (a few sweeps at most)."""
        counts: tuple[dict[Element, int], dict[Element, int]] = ({}, {})
        for side in (0, 1):
            for element in self.base[side]:
                counts[side][element] = 1
        choice = dict.fromkeys(range(len(self.parts)), 0)

        def move(part: _Part, option: int, step: int) -> None:
            mine = counts[part.side]
            for element in part.props[option]:
                left = mine.get(element, 0) + step
                if left:
                    mine[element] = left
                else:
                    del mine[element]

        for part in self.parts:
            move(part, 0, 1)
        for _ in range(SWEEPS):
            changed = False
            for k, part in enumerate(self.parts):
                move(part, choice[k], -1)
                mine, theirs = counts[part.side], counts[1 - part.side]
                size = len(mine) + len(theirs)
                common = sum(1 for e in mine if e in theirs)
                best, best_option = (-1, 1), choice[k]
                for option, props in enumerate(part.props):
                    new = [e for e in props if e not in mine]
                    num = 2 * (common + sum(1 for e in new if e in theirs))
                    den = size + len(new)
                    if den and num * best[1] > best[0] * den:
                        best, best_option = (num, den), option
                self.meter.spend(len(part.props))
                changed = changed or best_option != choice[k]
                choice[k] = best_option
                move(part, best_option, 1)
            if not changed:
                break
        return choice

    def _goals(self, choice: dict[int, int]) -> tuple[SimpleGoal, SimpleGoal]:
        picked = {(part.side, part.index): part.options[choice[k]] for k, part in enumerate(self.parts)}
        goals = []
        for side, parts in enumerate(self.sides):
            goal = SimpleGoal()
            for index, options in enumerate(parts):
                goal = goal.merge(picked.get((side, index), options[0]))
            goals.append(goal)
        return goals[0], goals[1]

    def _constant(self, t: Fraction) -> int:
        """The sum over the fixed parts' elements (and the fixed action sequences), times ``t``'s
        denominator."""
        p, q = t.numerator, t.denominator
        reference, candidate = self.base
        total = (2 * q - 2 * p) * len(reference & candidate) - p * len(reference ^ candidate)
        if self.sequence_fixed:
            total += _sequence_value(self._fixed_actions(0), self._fixed_actions(1), p, q)
        return total

    def _fixed_actions(self, side: int) -> tuple[GroundAtom, ...]:
        return tuple(a for options in self.sides[side] for a in options[0].actions)

    # --- one group, one t ------------------------------------------------------------------------

    def _search(self, group: _Group, t: Fraction, fixed: dict[int, int],
                target: int | None) -> tuple[int | None, dict[int, int]]:
        """The group's best sum at ``t`` (relative to the fixed parts alone, times the denominator) with
        ``fixed`` parts fixed, and a choice reaching it; with ``target``, the search stops at the first
        choice reaching it (and answers less than it, or None, when none does)."""
        if len(group.parts) == 1 and not group.sequence and not fixed and target is None:
            [k] = group.parts
            worth = self._option_values(self.parts[k], t)
            return max(worth), {k: worth.index(max(worth))}
        p, q = t.numerator, t.denominator
        both, one = 2 * q - p, -p  # adding an element the other side has / does not have
        half = q - p  # adding an element the other side may still get: at best half of 2q - 2p
        counts = ({e: 1 for e in self.base[0]}, {e: 1 for e in self.base[1]})
        undecided: tuple[dict[Element, int], dict[Element, int]] = ({}, {})
        for k in group.parts:
            part = self.parts[k]
            for element in part.reach:
                undecided[part.side][element] = undecided[part.side].get(element, 0) + 1
        order = group.parts
        parts = self.parts
        hubs = group.hubs
        ends: list[int] = []  # ends[depth]: where the cluster of order[depth] ends in the order
        later: list[int] = []  # later[depth]: the best the clusters after that one can add
        for cluster in group.clusters:
            ends.extend([len(ends) + len(cluster)] * len(cluster))
        bests = [self._cluster_best(cluster, t, fixed) for cluster in group.clusters]
        for number, cluster in enumerate(group.clusters):
            later.extend([sum(bests[number + 1:])] * len(cluster))
        chosen: dict[int, int] = {}
        best_value: int | None = None
        best_choice: dict[int, int] = {}
        value = 0

        def gain(side: int, element: Element) -> int:
            if element in hubs or counts[side].get(element):
                return 0  # a hub's gain is bounded once, in hub_bound
            if counts[1 - side].get(element):
                return both
            if undecided[1 - side].get(element):
                return half
            return one

        def hub_bound() -> int:
            """The most the hubs can still add: each at best ends in both goals."""
            total = 0
            for element in hubs:
                mine, theirs = counts[0].get(element), counts[1].get(element)
                if mine and theirs:
                    continue
                if (mine or undecided[0].get(element)) and (theirs or undecided[1].get(element)):
                    total += 2 * q - 2 * p if not mine and not theirs else both
            return total

        def option_gains(part: _Part) -> list[int]:
            side = part.side
            return [sum(gain(side, e) for e in props) for props in part.props]

        def bound(depth: int) -> int:
            total = value + later[depth] + hub_bound()
            for k in order[depth:ends[depth]]:
                part = parts[k]
                if k in fixed:
                    total += sum(gain(part.side, e) for e in part.props[fixed[k]])
                else:
                    total += max(option_gains(part))
            self.meter.spend(1 + ends[depth] - depth + len(hubs) // 8)
            if group.sequence:
                total += self._sequence_bound(order, chosen, fixed, p, q)
            return total

        def leaf_value() -> int:
            if not group.sequence:
                return value
            actions = [self._actions(side, chosen) for side in (0, 1)]
            return value + _sequence_value(actions[0], actions[1], p, q)

        def take(part: _Part, option: int, sign: int) -> int:
            mine, theirs = counts[part.side], counts[1 - part.side]
            change = 0
            for element in part.props[option]:
                before = mine.get(element, 0)
                if sign > 0:
                    if before == 0:
                        change += both if theirs.get(element) else one
                    mine[element] = before + 1
                else:
                    if before == 1:
                        change -= both if theirs.get(element) else one
                        del mine[element]
                    else:
                        mine[element] = before - 1
            return change

        def visit(depth: int) -> bool:
            """True when the target is reached (stop)."""
            nonlocal value, best_value, best_choice
            if depth == len(order):
                total = leaf_value()
                if best_value is None or total > best_value:
                    best_value, best_choice = total, dict(chosen)
                return target is not None and total >= target
            limit = bound(depth)
            if target is not None and limit < target:
                return False
            if target is None and best_value is not None and limit <= best_value:
                return False
            k = order[depth]
            part = parts[k]
            if k in fixed:
                options = [fixed[k]]
            else:
                gains = option_gains(part)
                options = sorted(range(len(part.options)), key=lambda o: -gains[o])
            pending = undecided[part.side]
            for element in part.reach:
                pending[element] -= 1
            stop = False
            for option in options:
                chosen[k] = option
                change = take(part, option, 1)
                value += change
                stop = visit(depth + 1)
                value -= change
                take(part, option, -1)
                if stop:
                    break
            del chosen[k]
            for element in part.reach:
                pending[element] += 1
            return stop

        visit(0)
        return best_value, best_choice

    def _cluster_best(self, cluster: list[int], t: Fraction, fixed: dict[int, int]) -> int:
        """The most a cluster's elements but the hubs can add to the sum at ``t``, over its choices
        (``fixed`` ones fixed): every choice when they are few, else each part's best on its own."""
        key = (t, tuple((k, fixed.get(k, -1)) for k in cluster))
        found = self.best_of_cluster.get(key)
        if found is not None:
            return found
        p, q = t.numerator, t.denominator
        own = [[props for props in (frozenset(o) - self.hubs for o in self.parts[k].props)] for k in cluster]
        choices = [[fixed[k]] if k in fixed else range(len(own[n])) for n, k in enumerate(cluster)]
        sides = [self.parts[k].side for k in cluster]

        if prod(len(c) for c in choices) <= CLUSTER_CHOICES:
            best: int | None = None
            for picked in itertools.product(*choices):
                added: tuple[set[Element], set[Element]] = (set(), set())
                for n, option in enumerate(picked):
                    added[sides[n]].update(own[n][option])
                value = _worth(added, self.base, p, q)
                best = value if best is None else max(best, value)
            self.meter.spend(prod(len(c) for c in choices))
            found = _known(best)
        else:
            reach: tuple[set[Element], set[Element]] = (set(), set())
            for n, options in enumerate(own):
                for option in choices[n]:
                    reach[sides[n]].update(options[option])
            found = 0
            for n, options in enumerate(own):
                side = sides[n]
                mine = self.base[side]
                found += max(worth_alone(options[option] - mine, self.base[1 - side], reach[1 - side], p, q)
                             for option in choices[n])
        self.best_of_cluster[key] = found
        return found

    def _actions(self, side: int, chosen: dict[int, int]) -> tuple[GroundAtom, ...]:
        picked = {self.parts[k].index: self.parts[k].options[o] for k, o in chosen.items()
                  if self.parts[k].side == side}
        return tuple(a for index, options in enumerate(self.sides[side])
                     for a in picked.get(index, options[0]).actions)

    def _sequence_bound(self, order: list[int], chosen: dict[int, int], fixed: dict[int, int],
                        p: int, q: int) -> int:
        """The most the action-sequence element can add: ``2q − 2p`` when both sides may still have
        actions, else nothing."""
        may = [any(options[0].actions for options in self.sides[side] if len(options) == 1)
               for side in (0, 1)]
        for k in order:
            part = self.parts[k]
            if k in chosen:
                may[part.side] = may[part.side] or bool(part.options[chosen[k]].actions)
            elif k in fixed:
                may[part.side] = may[part.side] or bool(part.options[fixed[k]].actions)
            else:
                may[part.side] = may[part.side] or part.has_actions
        return 2 * q - 2 * p if all(may) else 0


def _worth(added: tuple[set[Element], set[Element]], base: tuple[set[Element], set[Element]], p: int,
           q: int) -> int:
    """What adding ``added`` to both goals (already holding ``base``) brings to the sum, exactly."""
    total = 0
    for side in (0, 1):
        mine, theirs = base[side], base[1 - side]
        for element in added[side] - mine:
            if element in theirs:
                total += 2 * q - p
            elif element in added[1 - side]:
                total += q - p  # half of 2q - 2p from each side
            else:
                total -= p
    return total


def worth_alone(added: frozenset[Element], theirs: set[Element], possible: set[Element], p: int,
                q: int) -> int:
    """At most what adding ``added`` to one side brings, when the other side has ``theirs`` and may get
    ``possible``."""
    return sum(2 * q - p if e in theirs else q - p if e in possible else -p for e in added)


def _known(value: int | None) -> int:
    """A maximum without a target always has a choice (every part has an option)."""
    assert value is not None
    return value


def _sequence_value(reference: tuple[GroundAtom, ...], candidate: tuple[GroundAtom, ...], p: int,
                    q: int) -> int:
    if reference and candidate and reference == candidate:
        return 2 * q - 2 * p
    return -p * (bool(reference) + bool(candidate))


def _score(reference: SimpleGoal, candidate: SimpleGoal) -> tuple[int, int]:
    """F1 as the fraction (2·common, |C| + |R|); two empty goals match perfectly (1/1)."""
    ref, cand = reference.elements(), candidate.elements()
    total = len(ref) + len(cand)
    return (2 * len(ref & cand), total) if total else (1, 1)

"""Planetarium's fullySpecify (Zuo et al. 2024, Appendix C): complete a goal with what must hold anyway.

For blocksworld, gripper and the simplified floor-tile every valid state is reachable from every
other (floor-tile: within each robot's part of the grid and colour choices), so the atoms true in
every reachable goal state follow from the goal and a few facts of the initial state, without any
search. Each rule below is the appendix's, stated for the exact case it covers:

blocksworld
  * a block whose bottom is unspecified is on the table when no block of another tower has a free
    top it could stand on and it cannot be the held block (the appendix's rules 1 and 3);
  * a block whose top is unspecified is clear when no block of another tower could stand on it and
    it cannot be held (rules 2 and 3);
  * the arm is empty when no block is held and none is "floating" (both ends unspecified) (rule 4).
gripper
  * with every ball placed, every unspecified gripper is free;
  * with one room and every gripper specified, every unplaced ball is in that room;
  * with one room, the robot is in it.
floor-tile
  * painted tiles stay painted, static facts stay; a robot on a tile with no neighbour stays there;
  * a robot that cannot change colour keeps its colour;
  * a robot whose first colour is not available can switch away from it once and never back (the
    appendix does not cover this): it ends in its first colour when the goal needs none of its
    other colours' paint, in the one available colour when the goal cannot be reached without
    switching, and in neither for sure otherwise. Painting only adds facts and moving is undoable,
    so a robot can do all its first-colour painting before switching: the goal's paint is reachable
    exactly when each new painted fact can be made by a robot whose colours, as the goal leaves
    them, include that colour.

The rules are only valid for a well-formed initial state (each block in exactly one place, ...); for
anything else :func:`fully_specify` returns None and the caller falls back to the exact search. It
also decides whether the goal is reachable at all (two blocks on one, a ball in two rooms ...).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from plansight.analyses.equivalence.domain_recognition import Recognised
from plansight.analyses.equivalence.scene_graph import Fact, GroundTask


@dataclass(frozen=True, slots=True)
class Specified:
    """``reachable``: some reachable state satisfies the goal. ``closure``: FS (None if unreachable).
    ``reason``: why the goal is unreachable, in the domain's own words."""

    reachable: bool
    closure: frozenset[Fact] | None
    reason: str = ""


def fully_specify(task: GroundTask, recognised: Recognised) -> Specified | None:
    """FS of a positive-conjunction goal by Appendix C's rules, or None when they do not apply."""
    if task.goal is None or task.negative_goal:
        return None
    rename = recognised.to_template()
    if any(f[0] not in rename for f in task.init | task.goal):
        return None
    init = {(rename[f[0]], *f[1:]) for f in task.init}
    goal = {(rename[f[0]], *f[1:]) for f in task.goal}
    rule = _RULES[recognised.kind]
    result = rule(set(task.objects), init, goal)
    if result is None or result.closure is None:
        return result
    back = recognised.to_domain()
    return Specified(True, frozenset((back[f[0]], *f[1:]) for f in result.closure))


# --- blocksworld -------------------------------------------------------------------------------------


def _blocksworld(objects: set[str], init: set[Fact], goal: set[Fact]) -> Specified | None:
    if _blocks_problem(objects, init, complete=True) is not None:
        return None  # not a well-formed state: only the exact search can tell
    problem = _blocks_problem(objects, goal, complete=False)
    if problem is not None:
        return Specified(False, None, problem)
    below, above = _ends(goal)
    held = [f[1] for f in goal if f[0] == "holding"]
    arm_empty = ("arm-empty",) in goal
    tower = _towers(objects, goal)
    floating = [b for b in objects if b not in below and b not in above]
    holdable = set() if held or arm_empty else set(floating)
    open_top = [b for b in objects if b not in above]
    open_bottom = [b for b in objects if b not in below]
    closure = set(goal)
    for block in open_bottom:
        if block not in holdable and not any(tower[t] != tower[block] for t in open_top):
            closure.add(("on-table", block))
    for block in open_top:
        if block not in holdable and not any(tower[b] != tower[block] for b in open_bottom):
            closure.add(("clear", block))
    if not held and not holdable:
        closure.add(("arm-empty",))
    return Specified(True, frozenset(closure))


def _ends(facts: Iterable[Fact]) -> tuple[dict[str, list[Fact]], dict[str, list[Fact]]]:
    """What each block's bottom rests on and what is on its top, as stated by ``facts``."""
    below: dict[str, list[Fact]] = defaultdict(list)
    above: dict[str, list[Fact]] = defaultdict(list)
    for fact in facts:
        if fact[0] == "on":
            below[fact[1]].append(fact)
            above[fact[2]].append(fact)
        elif fact[0] == "on-table":
            below[fact[1]].append(fact)
        elif fact[0] == "clear":
            above[fact[1]].append(fact)
        elif fact[0] == "holding":
            below[fact[1]].append(fact)
            above[fact[1]].append(fact)
    return below, above


def _blocks_problem(objects: set[str], facts: set[Fact], complete: bool) -> str | None:
    """Why ``facts`` cannot all hold in one blocksworld state (or, when ``complete``, are not exactly
    one state); None when they can."""
    from plansight.analyses.model.pddl import atom_text

    below, above = _ends(facts)
    for fact in facts:
        if any(a not in objects for a in fact[1:]):
            return f"{atom_text(fact[0], fact[1:])} names an unknown object"
        if fact[0] == "on" and fact[1] == fact[2]:
            return f"{atom_text(fact[0], fact[1:])}: a block cannot be on itself"
    for block in sorted(objects):
        for where, what, side in ((below, "under", "bottom"), (above, "on top of", "top")):
            stated = where.get(block, [])
            if len(stated) > 1:
                listed = " and ".join(atom_text(f[0], f[1:]) for f in sorted(stated))
                return f"{listed} cannot hold together: only one thing can be {what} `{block}`"
            if complete and not stated:
                return f"the {side} of `{block}` is not described"
    held = sorted(f[1] for f in facts if f[0] == "holding")
    if len(held) > 1:
        return f"the arm cannot hold both `{held[0]}` and `{held[1]}`"
    if held and ("arm-empty",) in facts:
        return f"(arm-empty) and (holding {held[0]}) cannot hold together"
    if complete and not held and ("arm-empty",) not in facts:
        return "the arm is neither empty nor holding a block"
    support = {f[1]: f[2] for f in facts if f[0] == "on"}
    for start in support:
        seen = {start}
        block = start
        while block in support:
            block = support[block]
            if block in seen:
                return f"the `on` facts form a cycle through `{block}`"
            seen.add(block)
    return None


def _towers(objects: set[str], goal: set[Fact]) -> dict[str, str]:
    """Each block's tower (the lowest block of its stated `on` chain)."""
    support = {f[1]: f[2] for f in goal if f[0] == "on"}
    tower: dict[str, str] = {}
    for block in objects:
        bottom = block
        while bottom in support:
            bottom = support[bottom]
        tower[block] = bottom
    return tower


# --- gripper -----------------------------------------------------------------------------------------

_GRIPPER_TYPES = ("room", "ball", "gripper")


def _gripper(objects: set[str], init: set[Fact], goal: set[Fact]) -> Specified | None:
    kinds = _gripper_kinds(objects, init)
    if kinds is None:
        return None
    rooms, balls, grippers = (sorted(o for o in objects if kinds[o] == k) for k in _GRIPPER_TYPES)
    if not rooms or not grippers or _gripper_state_problem(kinds, init, complete=True) is not None:
        return None
    problem = _gripper_state_problem(kinds, goal, complete=False)
    if problem is not None:
        return Specified(False, None, problem)
    static = {f for f in init if f[0] in _GRIPPER_TYPES}
    missing = sorted(goal & {(k, o) for o in objects for k in _GRIPPER_TYPES} - static)
    if missing:
        return Specified(False, None, f"({' '.join(missing[0])}) is false initially and no action changes it")
    placed = {f[1] for f in goal if f[0] in ("at", "carry")}
    busy = {f[1] for f in goal if f[0] == "free"} | {f[2] for f in goal if f[0] == "carry"}
    closure = set(goal) | static
    if all(b in placed for b in balls):
        closure.update(("free", g) for g in grippers if g not in busy)
    if len(rooms) == 1:
        if all(g in busy for g in grippers):
            closure.update(("at", b, rooms[0]) for b in balls if b not in placed)
        closure.add(("at-robby", rooms[0]))
    return Specified(True, frozenset(closure))


def _gripper_kinds(objects: set[str], init: set[Fact]) -> dict[str, str] | None:
    kinds: dict[str, str] = {}
    for fact in init:
        if fact[0] in _GRIPPER_TYPES:
            if fact[1] in kinds:
                return None
            kinds[fact[1]] = fact[0]
    return kinds if set(kinds) == objects else None


def _gripper_state_problem(kinds: dict[str, str], facts: set[Fact], complete: bool) -> str | None:
    from plansight.analyses.model.pddl import atom_text

    expected = {
        "at": ("ball", "room"),
        "carry": ("ball", "gripper"),
        "free": ("gripper",),
        "at-robby": ("room",),
        "room": ("room",),
        "ball": ("ball",),
        "gripper": ("gripper",),
    }
    where: dict[str, list[Fact]] = defaultdict(list)
    hand: dict[str, list[Fact]] = defaultdict(list)
    robby: list[Fact] = []
    for fact in facts:
        wanted = expected[fact[0]]
        if tuple(kinds.get(a) for a in fact[1:]) != wanted:
            return f"{atom_text(fact[0], fact[1:])} expects {' and '.join('a ' + w for w in wanted)}"
        if fact[0] in ("at", "carry"):
            where[fact[1]].append(fact)
        if fact[0] in ("free", "carry"):
            hand[fact[-1]].append(fact)
        if fact[0] == "at-robby":
            robby.append(fact)
    for groups, what in ((where, "place"), (hand, "content")):
        for key in sorted(groups):
            if len(groups[key]) > 1:
                listed = " and ".join(atom_text(f[0], f[1:]) for f in sorted(groups[key]))
                return f"{listed} cannot hold together: `{key}` has one {what}"
    if len(robby) > 1:
        rooms = " and ".join(atom_text(f[0], f[1:]) for f in sorted(robby))
        return f"the robot cannot be in two rooms ({rooms})"
    if complete:
        if len(robby) != 1:
            return "the robot's room is not described"
        if any(k == "ball" and o not in where for o, k in kinds.items()):
            return "a ball's place is not described"
        if any(k == "gripper" and o not in hand for o, k in kinds.items()):
            return "a gripper's content is not described"
    return None


# --- floor-tile ----------------------------------------------------------------------------------------

_STATIC_TILE = ("up", "right", "available-color")


def _floor_tile(objects: set[str], init: set[Fact], goal: set[Fact]) -> Specified | None:
    from plansight.analyses.model.pddl import atom_text

    position: dict[str, list[str]] = defaultdict(list)
    colour: dict[str, list[str]] = defaultdict(list)
    neighbours: dict[str, set[str]] = defaultdict(set)
    for fact in init:
        if fact[0] == "robot-at":
            position[fact[1]].append(fact[2])
        elif fact[0] == "robot-has":
            colour[fact[1]].append(fact[2])
        elif fact[0] in ("up", "right"):
            neighbours[fact[1]].add(fact[2])
            neighbours[fact[2]].add(fact[1])
    robots = set(position) | set(colour)
    available = {f[1] for f in init if f[0] == "available-color"}
    tiles = (
        set(neighbours)
        | {t for ts in position.values() for t in ts}
        | {f[1] for f in init if f[0] == "painted"}
    )
    colours = (
        available | {c for cs in colour.values() for c in cs} | {f[2] for f in init if f[0] == "painted"}
    )
    if robots & tiles or robots & colours or tiles & colours:
        return None
    if any(len(position[r]) != 1 or len(colour[r]) > 1 for r in robots):
        return None
    reach = {r: _component(position[r][0], neighbours) for r in robots}
    one_way = {r for r in robots if colour[r] and colour[r][0] not in available and available}
    palette = {r: _palette(colour[r], available) for r in robots}
    # What each robot can paint with, given the colour the goal leaves it in: a one-way robot told to
    # end in its first colour never switched.
    paints = {
        r: {colour[r][0]} if r in one_way and (("robot-has", r, colour[r][0]) in goal) else palette[r]
        for r in robots
    }
    new_paint = sorted(f for f in goal if f[0] == "painted" and f not in init)
    stated_at: dict[str, list[Fact]] = defaultdict(list)
    stated_has: dict[str, list[Fact]] = defaultdict(list)
    for fact in sorted(goal):
        text = atom_text(fact[0], fact[1:])
        if fact[0] in _STATIC_TILE and fact not in init:
            return Specified(False, None, f"{text} is false initially and no action changes it")
        if fact[0] == "robot-at":
            stated_at[fact[1]].append(fact)
            if fact[1] not in robots or fact[2] not in reach[fact[1]]:
                return Specified(False, None, f"{text}: that tile cannot be reached by that robot")
        if fact[0] == "robot-has":
            stated_has[fact[1]].append(fact)
            if fact[1] not in robots or fact[2] not in palette[fact[1]]:
                return Specified(False, None, f"{text}: that robot can never hold that colour")
        if fact[0] == "painted" and fact not in init and not _paintable(fact, paints, reach, neighbours):
            return Specified(
                False, None, f"{text}: no robot can reach a neighbour of that tile with that colour"
            )
    for stated in (*stated_at.values(), *stated_has.values()):
        if len(stated) > 1:
            listed = " and ".join(atom_text(f[0], f[1:]) for f in stated)
            return Specified(False, None, f"{listed} cannot hold together")
    closure = set(goal) | {f for f in init if f[0] in (*_STATIC_TILE, "painted")}
    for robot in robots:
        if reach[robot] == {position[robot][0]}:
            closure.add(("robot-at", robot, position[robot][0]))
        if robot in stated_has:
            continue
        if robot in one_way:
            kept = {**paints, robot: {colour[robot][0]}}
            if len(available) == 1 and not all(_paintable(f, kept, reach, neighbours) for f in new_paint):
                closure.add(("robot-has", robot, next(iter(available))))
        elif len(palette[robot]) == 1:
            closure.add(("robot-has", robot, next(iter(palette[robot]))))
    return Specified(True, frozenset(closure))


def _palette(held: list[str], available: set[str]) -> set[str]:
    """Every colour a robot can ever hold: its own, and the available ones if it can change at all
    (changing needs a colour in hand)."""
    if not held:
        return set()
    return {held[0]} | available


def _paintable(
    fact: Fact, paints: dict[str, set[str]], reach: dict[str, set[str]], neighbours: dict[str, set[str]]
) -> bool:
    """Whether some robot can hold the fact's colour while standing next to its tile."""
    return any(fact[2] in paints[r] and reach[r] & neighbours.get(fact[1], set()) for r in paints)


def _component(start: str, neighbours: dict[str, set[str]]) -> set[str]:
    seen = {start}
    frontier = [start]
    while frontier:
        for nxt in neighbours.get(frontier.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                frontier.append(nxt)
    return seen


_RULES: dict[str, Callable[[set[str], set[Fact], set[Fact]], Specified | None]] = {
    "blocksworld": _blocksworld,
    "gripper": _gripper,
    "floor-tile": _floor_tile,
}

"""Random small problems of the Planetarium domains (and two others) for the equivalence tests.

Each generator returns (objects text, init facts, goal facts) from a ``random.Random``; states are
mostly well formed, sometimes not (to exercise the fall-back from Appendix C's rules to the search).
Besides a typed gripper (Planetarium's structure with types, which no rule recognises), there is a
keys-and-rooms domain (tests/fixtures/equivalence/) unlike any of the three: typed, with negative
preconditions, an inequality, static facts and goals with negative literals (``("not", ...)`` facts).
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from pathlib import Path

from plansight.analyses.model.pddl import Domain, Problem
from plansight.analyses.syntax.parse_pddl import parse_pddl

Fact = tuple[str, ...]
HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"
KEYS_AND_ROOMS = HERE / "fixtures" / "equivalence" / "keys-and-rooms.pddl"


def domain_text(kind: str) -> str:
    if kind == "typed-gripper":
        return (EXAMPLES / "gripper" / "domain.pddl").read_text()
    if kind == "keys-and-rooms":
        return KEYS_AND_ROOMS.read_text()
    from plansight.analyses.equivalence.domain_recognition import TEMPLATES

    return TEMPLATES[kind]


def load_domain(kind: str) -> Domain:
    model = parse_pddl(domain_text(kind)).model
    assert isinstance(model, Domain)
    return model


@dataclass(frozen=True)
class Spec:
    domain: str
    objects: dict[str, str]  # name -> type ("" when untyped)
    init: frozenset[Fact]
    goal: tuple[Fact, ...]

    def text(self, name: str = "p") -> str:
        objects = " ".join(f"{o} - {t}" if t else o for o, t in self.objects.items())
        init = " ".join("(" + " ".join(f) + ")" for f in sorted(self.init))
        goal = " ".join(_literal(f) for f in self.goal)
        domain_name = {"typed-gripper": "gripper"}.get(self.domain, self.domain)
        return (
            f"(define (problem {name}) (:domain {domain_name})\n (:objects {objects})\n"
            f" (:init {init})\n (:goal (and {goal})))\n"
        )

    def problem(self) -> Problem:
        model = parse_pddl(self.text()).model
        assert isinstance(model, Problem)
        return model

    def renamed(self, mapping: dict[str, str]) -> Spec:
        def move(f: Fact) -> Fact:
            return (f[0], *(mapping.get(a, a) for a in f[1:]))

        return Spec(
            self.domain,
            {mapping[o]: t for o, t in self.objects.items()},
            frozenset(move(f) for f in self.init),
            tuple(move(f) for f in self.goal),
        )


def _literal(fact: Fact) -> str:
    if fact[0] == "not":
        return f"(not {_literal(fact[1:])})"
    return "(" + " ".join(fact) + ")"


# --- states -------------------------------------------------------------------------------------------


def blocks_state(rng: random.Random, blocks: list[str]) -> set[Fact]:
    order = blocks[:]
    rng.shuffle(order)
    facts: set[Fact] = set()
    if rng.random() < 0.3:
        held = order.pop()
        facts.add(("holding", held))
    else:
        facts.add(("arm-empty",))
    towers: list[list[str]] = []
    for block in order:
        if towers and rng.random() < 0.5:
            rng.choice(towers).append(block)
        else:
            towers.append([block])
    for tower in towers:
        facts.add(("on-table", tower[0]))
        facts.update(("on", up, down) for down, up in itertools.pairwise(tower))
        facts.add(("clear", tower[-1]))
    return facts


def gripper_state(
    rng: random.Random, rooms: list[str], balls: list[str], grippers: list[str], typed: bool
) -> set[Fact]:
    facts: set[Fact] = (
        set()
        if typed
        else {
            *(("room", r) for r in rooms),
            *(("ball", b) for b in balls),
            *(("gripper", g) for g in grippers),
        }
    )
    facts.add(("at-robby", rng.choice(rooms)))
    free = grippers[:]
    for ball in balls:
        if free and rng.random() < 0.3:
            facts.add(("carry", ball, free.pop(rng.randrange(len(free)))))
        else:
            facts.add(("at", ball, rng.choice(rooms)))
    facts.update(("free", g) for g in free)
    return facts


def tile_layout(rng: random.Random, tiles: list[str]) -> set[Fact]:
    facts: set[Fact] = set()
    for a, b in itertools.pairwise(tiles):
        if rng.random() < 0.8:
            facts.add((rng.choice(("up", "right")), b, a))
    return facts


def tile_state(
    rng: random.Random,
    layout: set[Fact],
    robots: list[str],
    tiles: list[str],
    colours: list[str],
    available: list[str],
) -> set[Fact]:
    facts = set(layout) | {("available-color", c) for c in available}
    for robot in robots:
        facts.add(("robot-at", robot, rng.choice(tiles)))
        if rng.random() < 0.9:
            facts.add(("robot-has", robot, rng.choice(colours)))
    for tile in tiles:
        if rng.random() < 0.2:
            facts.add(("painted", tile, rng.choice(colours)))
    return facts


def keys_layout(rng: random.Random, rooms: list[str], keys: list[str]) -> set[Fact]:
    """The static facts: which doors connect (sometimes one way only, sometimes a room to itself, where
    only the domain's inequality stops the robot locking the room it stands in) and which key opens
    what."""
    facts: set[Fact] = {("connected", r, r) for r in rooms if rng.random() < 0.5}
    for a, b in itertools.combinations(rooms, 2):
        draw = rng.random()
        if draw < 0.6:
            facts.update({("connected", a, b), ("connected", b, a)})
        elif draw < 0.8:
            facts.add(("connected", *rng.sample([a, b], 2)))
    for key in keys:
        for room in rng.sample(rooms, rng.randint(0, 2)):
            facts.add(("opens", key, room))
    return facts


def keys_state(rng: random.Random, layout: set[Fact], rooms: list[str], keys: list[str]) -> set[Fact]:
    facts = set(layout) | {("robot-at", rng.choice(rooms))}
    facts.update(("locked", r) for r in rooms if rng.random() < 0.4)
    held = rng.choice(keys) if rng.random() < 0.3 else None
    if held is not None:
        facts.update({("holding", held), ("busy",)})
    facts.update(("key-at", k, rng.choice(rooms)) for k in keys if k != held)
    return facts


# --- problems -----------------------------------------------------------------------------------------


def random_spec(rng: random.Random, domain: str) -> tuple[Spec, list[set[Fact]]]:
    """A problem and a few other states of the same objects (sources of goals and mutations)."""
    if domain == "blocksworld":
        blocks = [f"b{i}" for i in range(rng.randint(2, 4))]
        objects = {b: "" for b in blocks}
        states = [blocks_state(rng, blocks) for _ in range(4)]
    elif domain in ("gripper", "typed-gripper"):
        typed = domain == "typed-gripper"
        rooms = [f"r{i}" for i in range(rng.randint(1, 2))]
        balls = [f"ball{i}" for i in range(rng.randint(1, 3))]
        grippers = [f"g{i}" for i in range(rng.randint(1, 2))]
        objects = {
            **{r: "room" if typed else "" for r in rooms},
            **{b: "ball" if typed else "" for b in balls},
            **{g: "gripper" if typed else "" for g in grippers},
        }
        states = [gripper_state(rng, rooms, balls, grippers, typed) for _ in range(4)]
    elif domain == "keys-and-rooms":
        rooms = [f"r{i}" for i in range(rng.randint(2, 3))]
        keys = [f"k{i}" for i in range(rng.randint(1, 2))]
        objects = {**{r: "room" for r in rooms}, **{k: "key" for k in keys}}
        layout = keys_layout(rng, rooms, keys)
        states = [keys_state(rng, layout, rooms, keys) for _ in range(4)]
    else:
        tiles = [f"t{i}" for i in range(rng.randint(2, 3))]
        robots = ["rob1"] if rng.random() < 0.7 else ["rob1", "rob2"]
        colours = ["white", "black"][: rng.randint(1, 2)]
        available = [c for c in colours if rng.random() < 0.7]
        objects = {
            **{t: "tile" for t in tiles},
            **{r: "robot" for r in robots},
            **{c: "color" for c in colours},
        }
        layout = tile_layout(rng, tiles)
        states = [tile_state(rng, layout, robots, tiles, colours, available) for _ in range(4)]
    init = states[0]
    if rng.random() < 0.1 and domain != "floor-tile":
        init = init - {rng.choice(sorted(init))}  # an incomplete initial state
    goal = random_goal(rng, states[1], states[2])
    if domain == "keys-and-rooms" and rng.random() < 0.4:
        goal = tuple(sorted({*goal, negated(rng, states[1], states[2])}))
    return Spec(domain, objects, frozenset(init), goal), states


def random_goal(rng: random.Random, state: set[Fact], other: set[Fact]) -> tuple[Fact, ...]:
    pool = sorted(state)
    size = rng.randint(1, max(1, min(4, len(pool))))
    goal = set(rng.sample(pool, size))
    if rng.random() < 0.1:
        goal.add(rng.choice(sorted(other)))  # maybe contradictory
    return tuple(sorted(goal))


def negated(rng: random.Random, state: set[Fact], other: set[Fact]) -> Fact:
    """A negative goal literal: an atom of ``other`` false in ``state`` (or, rarely, true in it)."""
    pool = sorted(other - state) or sorted(other)
    return ("not", *rng.choice(pool))


def mutate(rng: random.Random, spec: Spec, states: list[set[Fact]]) -> Spec:
    """A candidate for ``spec``: renamed, and sometimes changed (so some pairs are not equivalent)."""
    choice = rng.random()
    init, goal = spec.init, list(spec.goal)
    if choice < 0.2 and len(goal) > 1:
        goal.pop(rng.randrange(len(goal)))
    elif choice < 0.4:
        goal.append(rng.choice(sorted(states[1])))
    elif choice < 0.5:
        init = frozenset(states[3])
    elif choice < 0.6:
        goal = list(random_goal(rng, states[2], states[3]))
    elif choice < 0.7 and spec.domain == "keys-and-rooms":
        goal.append(negated(rng, states[1], states[2]))
    changed = Spec(spec.domain, spec.objects, init, tuple(sorted(set(goal))))
    names = list(spec.objects)
    same_type = {t: [o for o in names if spec.objects[o] == t] for t in set(spec.objects.values())}
    mapping = {}
    for _kind, group in same_type.items():
        image = group[:]
        rng.shuffle(image)
        mapping.update(zip(group, image, strict=True))
    return changed.renamed({o: f"{mapping[o]}x" for o in names})

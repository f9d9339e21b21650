"""The inputs every benchmark shares: the real corpus and generated problems of chosen sizes.

Generated problems are deterministic (fixed seeds) so runs on different days compare.
"""

from __future__ import annotations

import importlib.util
import random
import re
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "benchmarks" / ".work"

_DOMAIN_NAME = re.compile(r"\(\s*define\s*\(\s*domain\s+([^\s()]+)", re.IGNORECASE)
_PROBLEM_DOMAIN = re.compile(r"\(\s*:domain\s+([^\s()]+)", re.IGNORECASE)


@dataclass(frozen=True)
class Pair:
    """A problem with its domain: what every peer tool needs to read a problem."""

    label: str
    domain: Path
    problem: Path

    @property
    def size(self) -> int:
        return self.domain.stat().st_size + self.problem.stat().st_size


def corpus_pairs() -> list[Pair]:
    """Every domain/problem pair in examples/, the unified-planning wheel's corpus and, once
    ``tests/fetch_corpus.py`` has fetched it, the ``pddl`` 0.5.1 sdist's IPC/FOND benchmarks."""
    roots: list[Path] = [ROOT / "examples"]
    spec = importlib.util.find_spec("unified_planning")
    if spec is not None and spec.origin is not None:
        roots.append(Path(spec.origin).parent / "test")
    sdist = ROOT / ".cache" / "corpus" / "pddl-0.5.1"
    if sdist.is_dir():
        roots.append(sdist)
    pairs: list[Pair] = []
    for root in roots:
        for folder in sorted({p.parent for p in root.rglob("*.pddl")}):
            if "llm-mistakes" in folder.parts:
                continue
            domains: dict[str, Path] = {}
            problems: list[tuple[str, Path]] = []
            for path in sorted(folder.glob("*.pddl")):
                text = path.read_text(encoding="utf-8", errors="replace")
                if m := _DOMAIN_NAME.search(text):
                    domains[m.group(1).lower()] = path
                elif m := _PROBLEM_DOMAIN.search(text):
                    problems.append((m.group(1).lower(), path))
            for name, problem in problems:
                if name in domains:
                    pairs.append(Pair(f"{folder.name}/{problem.name}", domains[name], problem))
    return pairs


BLOCKSWORLD = """(define (domain blocksworld)
  (:requirements :strips)
  (:predicates (clear ?x) (on-table ?x) (arm-empty) (holding ?x) (on ?x ?y))
  (:action pickup :parameters (?ob)
    :precondition (and (clear ?ob) (on-table ?ob) (arm-empty))
    :effect (and (holding ?ob) (not (clear ?ob)) (not (on-table ?ob)) (not (arm-empty))))
  (:action putdown :parameters (?ob)
    :precondition (holding ?ob)
    :effect (and (clear ?ob) (arm-empty) (on-table ?ob) (not (holding ?ob))))
  (:action stack :parameters (?ob ?underob)
    :precondition (and (clear ?underob) (holding ?ob))
    :effect (and (arm-empty) (clear ?ob) (on ?ob ?underob) (not (clear ?underob)) (not (holding ?ob))))
  (:action unstack :parameters (?ob ?underob)
    :precondition (and (on ?ob ?underob) (clear ?ob) (arm-empty))
    :effect (and (holding ?ob) (clear ?underob) (not (on ?ob ?underob)) (not (clear ?ob)) (not (arm-empty)))))
"""


def blocksworld_problem(target_bytes: int, seed: int = 7) -> str:
    """A valid blocksworld problem of about ``target_bytes``: towers of blocks, goal = other towers."""
    rng = random.Random(seed)
    per_block = 40  # bytes of init + objects + goal per block, roughly
    count = max(4, target_bytes // per_block)
    blocks = [f"b{i}" for i in range(count)]
    order = blocks[:]
    rng.shuffle(order)
    init = ["(arm-empty)"]
    goal = []
    for tower_start in range(0, count, 8):
        tower = order[tower_start : tower_start + 8]
        init.append(f"(on-table {tower[0]})")
        init.extend(f"(on {upper} {lower})" for lower, upper in pairwise(tower))
        init.append(f"(clear {tower[-1]})")
    for lower, upper in pairwise(blocks):
        if rng.random() < 0.5:
            goal.append(f"(on {upper} {lower})")
    lines = [
        f"(define (problem bw-{count})",
        "  (:domain blocksworld)",
        "  (:objects " + " ".join(blocks) + ")",
        "  (:init",
        *(f"    {fact}" for fact in init),
        "  )",
        "  (:goal (and",
        *(f"    {g}" for g in goal),
        "  ))",
        ")",
        "",
    ]
    return "\n".join(lines)


def generated_pairs(sizes: tuple[int, ...]) -> list[Pair]:
    WORK.mkdir(parents=True, exist_ok=True)
    domain = WORK / "blocksworld-domain.pddl"
    domain.write_text(BLOCKSWORLD)
    pairs = []
    for size in sizes:
        problem = WORK / f"blocksworld-{size}.pddl"
        problem.write_text(blocksworld_problem(size))
        pairs.append(Pair(f"generated/{problem.name}", domain, problem))
    return pairs


def grounded_domain(target_bytes: int, seed: int = 11) -> str:
    """A STRIPS domain of about ``target_bytes`` with every parameter grounded into the action names, like
    the grounded IPC domains (trucks, logistics) that planners' preprocessors write out: thousands of
    parameterless actions over thousands of nullary predicates, each with a few preconditions and effects.
    """
    rng = random.Random(seed)
    per_action = 190  # bytes of one drive action plus its share of the predicates, roughly
    trucks = 3
    locations = max(4, round((target_bytes / per_action / trucks / 0.9) ** 0.5))
    links = [(a, b) for a in range(locations) for b in range(locations) if a != b and rng.random() < 0.9]
    predicates = [f"(at-truck{t}-l{a})" for t in range(trucks) for a in range(locations)]
    predicates += [f"(visited-l{a})" for a in range(locations)]
    actions = []
    for t in range(trucks):
        for a, b in links:
            actions.append(
                f"  (:action drive-truck{t}-l{a}-l{b}\n"
                "    :parameters ()\n"
                f"    :precondition (and (at-truck{t}-l{a}) (road-l{a}-l{b}))\n"
                f"    :effect (and (at-truck{t}-l{b}) (visited-l{b}) (not (at-truck{t}-l{a}))))"
            )
    predicates += [f"(road-l{a}-l{b})" for a, b in links]
    return "\n".join([
        "(define (domain grounded-trucks)",
        "  (:requirements :strips)",
        "  (:predicates " + " ".join(predicates) + ")",
        *actions,
        ")",
        "",
    ])

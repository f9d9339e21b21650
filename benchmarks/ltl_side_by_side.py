"""LTL goal evaluation and goal F1 next to the Embodied Agent Interface's own code, in one run.

EAI_SRC=/path/to/embodied-agent-interface \\
    python benchmarks/ltl_side_by_side.py [--short N] [--scene N] [--json OUT]

The Embodied Agent Interface (Li et al. 2024, "Embodied Agent Interface: Benchmarking LLMs for
Embodied Decision Making") is not a dependency of plansight: clone its repository
(embodied-agent-interface/embodied-agent-interface on GitHub) and point EAI_SRC at the checkout. Its
evaluator (``src/virtualhome_eval/tl_formula/simple_tl.py``) and parser need only ``lark``, which
plansight's benchmark environment has; the benchmark puts ``$EAI_SRC/src`` on the path.

Evaluation: every VirtualHome goal of its ``task_state_LTL_formula_accurate.json`` is parsed once by
each tool, then evaluated on the same trajectories: ``--short`` of 3 to 10 steps and one of 300 steps
per goal, built from a fixed seed out of the goal's own atoms and objects (plus four more objects):
each atom is true with probability 0.3 in each state, actions are drawn from the goal's action atoms.
``--scene N`` adds N relations over N / 4 more objects to every state (a VirtualHome scene graph holds
hundreds), each missing from a state with probability 0.05. Only evaluation is timed (thread CPU
time, the fastest of three runs of the whole set): the reference's ``eval_simple_tl`` against
plansight's ``evaluate`` from the parsed formula, and against ``prepare(formula, scope)`` done once
per goal then ``.evaluate(trajectory)`` (the counterpart of the reference's parsed expression
objects). "disagree" counts pairs whose answers differ: the reference's ``then`` takes the earliest
split of each stage, plansight tries every split (docs/metrics.md, LTL goals).

Goal F1: the 100 BEHAVIOR tasks of its goal-interpretation data (``all_conditions.json``,
``100_selected_demos.txt``), each goal ``(o11 or o12 ...) and (o21 or ...)`` over the options of
its keys, against a prediction built from the last option of each key with every third condition
left out and one made-up condition added. The exact F1 is checked independently: when no two keys
share a condition and the prediction is simple, the best reference is the best choice of one option
per key, which a dynamic programme over (size so far → most conditions in common) finds.

The same pairs go to the mixed-integer programme alone (``analyses/ltl/f1_milp.py``), which must
give the same pair of simple goals.

Goal F1 on generated pairs (no checkout needed): both goals with many keys of several options, some
conditions shared across keys (up to 10 on 30 keys of 6 options, where the fast solvers give up),
against the programme alone, the fast solvers alone under the default work budget (``goal_f1``
before the programme) and the tree search alone (the code before the part-by-part solver,
``analyses/ltl/f1_parts.py``), stopped past ``BEFORE_UNITS``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from plansight.analyses.ltl.evaluate import evaluate, prepare
from plansight.analyses.ltl.f1 import goal_f1
from plansight.analyses.ltl.f1_milp import best_pair_milp
from plansight.analyses.ltl.f1_parts import best_pair_by_parts
from plansight.analyses.ltl.f1_search import best_pair
from plansight.analyses.ltl.goal_options import goal_options
from plansight.analyses.ltl.scope import LtlScope
from plansight.analyses.model.ltl import LtlAtom, LtlFormula, ltl_walk
from plansight.analyses.semantics.budget import BudgetExceeded, WorkBudget
from plansight.analyses.semantics.state import State
from plansight.analyses.syntax.parse_ltl import parse_ltl
from plansight.batch_gc import collector_off

VH_GOALS = "src/virtualhome_eval/resources/task_state_LTL_formula_accurate.json"
BEHAVIOR_DATA = "src/behavior_eval/evaluation/goal_interpretation/resources/data"
REPEATS = 3
EXTRA_OBJECTS = {"character.65", "table.901", "chair.902", "floor.903"}
"""Objects every goal's quantifiers range over besides its own (a goal may name none)."""


def _cpu() -> float:
    return time.thread_time()


def _goals(eai: Path) -> list[tuple[str, list[str]]]:
    """(formula text, its action names) for every VirtualHome goal."""
    data = json.loads((eai / VH_GOALS).read_text(encoding="utf-8"))
    goals = []
    for tasks in data.values():
        for programs in tasks.values():
            for entry in programs.values():
                if not entry["tl_goal"]:
                    continue  # a few programs have no goal
                actions = sorted({a for text in entry["vh_goal"]["actions"] for a in text.split("|") if a})
                goals.append((entry["tl_goal"], actions))
    return goals


def _atoms(formula: LtlFormula) -> list[LtlAtom]:
    return [node for node in ltl_walk(formula) if isinstance(node, LtlAtom)]


def _trajectory(atoms: list[LtlAtom], actions: set[str], objects: list[str], length: int,
                rng: random.Random, scene: list[tuple[str, ...]]) -> tuple[list[list[tuple[str, ...]]],
                                                                           list[tuple[str, ...]]]:
    """States (lists of ground atoms, display case) and actions, from the goal's own atoms; variables
    are replaced by random objects. Every state also holds ``scene`` but for one atom in twenty."""
    def grounded(atom: LtlAtom) -> tuple[str, ...]:
        args = [a.display if "." in a.display else rng.choice(objects) for a in atom.args]
        return (atom.name.display, *args)
    props = [a for a in atoms if a.name.display not in actions]
    acts = [a for a in atoms if a.name.display in actions]
    states = [[grounded(a) for a in props if rng.random() < 0.3] + [s for s in scene if rng.random() >= 0.05]
              for _ in range(length)]
    steps = [grounded(rng.choice(acts)) if acts else ("WALK", rng.choice(objects)) for _ in range(length - 1)]
    return states, steps


def _eai_side(eai: Path) -> tuple[Callable[..., Any], Callable[..., Any], Any]:
    sys.path.insert(0, str(eai / "src"))
    from virtualhome_eval.tl_formula import simple_tl as tl  # type: ignore[import-not-found]
    from virtualhome_eval.tl_formula.simple_tl_parser import parse_simple_tl  # type: ignore[import-not-found]
    return parse_simple_tl, tl.eval_simple_tl, tl


def evaluation(eai: Path, short: int, scene_size: int, seed: int = 17) -> dict[str, Any]:
    """Both evaluators on the same goals and trajectories; CPU seconds per set, and disagreements."""
    parse_simple_tl, eval_simple_tl, tl = _eai_side(eai)
    rng = random.Random(seed)
    things = [f"thing_{k}.{900 + k}" for k in range(scene_size // 4)]
    scene = [("CLOSE", rng.choice(things), rng.choice(things)) for _ in range(scene_size)]
    cases: dict[str, list[tuple[Any, Any, Any, Any, LtlScope, Any]]] = {"short": [], "300 steps": []}
    for text, actions in _goals(eai):
        formula = parse_ltl(text).formula
        assert formula is not None, text
        atoms = _atoms(formula)
        predicates = sorted({a.name.display for a in atoms} - set(actions))
        reference = parse_simple_tl(text, predicates, actions)
        objects = sorted({a.display for atom in atoms for a in atom.args if "." in a.display}
                         | EXTRA_OBJECTS | set(things))
        scope = LtlScope.abstract([o.lower() for o in objects], [a.lower() for a in actions])
        prepared = prepare(formula, scope)
        for kind, lengths in (("short", [rng.randint(3, 10) for _ in range(short)]), ("300 steps", [300])):
            for length in lengths:
                states, steps = _trajectory(atoms, set(actions), objects, length, rng, scene)
                eai_states = [tl.State(objects, [tl.Proposition(s[0], list(s[1:])) for s in state])
                              for state in states]
                eai_actions = [tl.Action(s[0], list(s[1:])) for s in steps]
                eai_trajectory = tl.StateActionSequence(eai_states, eai_actions)
                ours = [(State.of(tuple(x.lower() for x in s) for s in state),
                         tuple(x.lower() for x in steps[k]) if k < len(steps) else None)
                        for k, state in enumerate(states)]
                cases[kind].append((reference, eai_trajectory, formula, ours, scope, prepared))
    results: dict[str, Any] = {}
    for kind, pairs in cases.items():
        eai_best, ours_best, prepared_best = float("inf"), float("inf"), float("inf")
        eai_answers: list[bool] = []
        our_answers: list[bool | None] = []
        for _ in range(REPEATS):
            start = _cpu()
            eai_answers = [eval_simple_tl(ref, trajectory) for ref, trajectory, *_ in pairs]
            eai_best = min(eai_best, _cpu() - start)
            start = _cpu()
            our_answers = [evaluate(f, t, s).satisfied for _, _, f, t, s, _ in pairs]
            ours_best = min(ours_best, _cpu() - start)
            start = _cpu()
            prepared_answers = [goal.evaluate(t).satisfied for _, _, _, t, _, goal in pairs]
            prepared_best = min(prepared_best, _cpu() - start)
            assert prepared_answers == our_answers
        disagree = sum(a != b for a, b in zip(eai_answers, our_answers, strict=True))
        results[kind] = {"pairs": len(pairs), "eai_ms_per_pair": 1000 * eai_best / len(pairs),
                         "plansight_ms_per_pair": 1000 * ours_best / len(pairs),
                         "plansight_prepared_ms_per_pair": 1000 * prepared_best / len(pairs),
                         "plansight_is_x_faster": eai_best / ours_best,
                         "prepared_is_x_faster": eai_best / prepared_best, "disagree": disagree}
    return results


def _condition(c: list[Any]) -> str:
    if c[0] == "not":
        return "not " + _condition(c[1])
    return f"{c[0]}({', '.join(a.replace('.', '_') for a in c[1:])})"


def goal_f1_behavior(eai: Path) -> dict[str, Any]:
    """Goal F1 on the 100 BEHAVIOR tasks; time per task and the exact answer checked independently."""
    data = json.loads((eai / BEHAVIOR_DATA / "all_conditions.json").read_text(encoding="utf-8"))
    demos = (eai / BEHAVIOR_DATA / "100_selected_demos.txt").read_text(encoding="utf-8").split()
    rows, slowest, checked, slowest_programme, agree = [], 0.0, 0, 0.0, 0
    for demo in demos:
        keys = list(data[demo]["goal_conditions"].values())
        reference_text = " and ".join(
            "(" + " or ".join("(" + " and ".join(_condition(c) for c in o) + ")" for o in options) + ")"
            for options in keys)
        predicted = [_condition(c) for options in keys for i, c in enumerate(options[-1]) if i % 3 != 1]
        predicted.append("ontop(made_up_1, table_1)")
        reference, candidate = parse_ltl(reference_text).formula, parse_ltl(" and ".join(predicted)).formula
        assert reference is not None and candidate is not None
        count = 1
        for options in keys:
            count *= len(options)
        start = time.perf_counter()
        result = goal_f1(candidate, reference, LtlScope(), LtlScope())
        elapsed = time.perf_counter() - start
        slowest = max(slowest, elapsed)
        start = time.process_time()
        programme = best_pair_milp(goal_options(reference, LtlScope()), goal_options(candidate, LtlScope()))
        programme_s = time.process_time() - start
        slowest_programme = max(slowest_programme, programme_s)
        agree += programme == (result.reference, result.candidate)
        exact = _exact_f1(keys, set(predicted))
        if exact is not None:
            checked += 1
            assert abs(exact - result.f1) < 1e-12, (demo, exact, result.f1)
        if count > 2000:
            rows.append({"task": demo.split("_0_")[0], "options": count, "ms": 1000 * elapsed,
                         "programme_ms": 1000 * programme_s, "f1": result.f1, "checked": exact is not None})
    return {"large": rows, "slowest_ms": 1000 * slowest, "checked_independently": checked,
            "programme_same_pair": agree, "programme_slowest_ms": 1000 * slowest_programme}


GENERATED = [(8, 4, 3), (20, 5, 0), (20, 5, 3), (20, 5, 6), (30, 6, 4), (20, 5, 8), (30, 6, 10)]
"""(keys, options per key, conditions shared across keys) of the generated goal pairs."""
BEFORE_UNITS = 1_000_000
"""The tree search alone (the code before the part-by-part solver) stops past this many units here."""


def _generated(rng: random.Random, keys: int, options: int, hubs: int) -> tuple[str, str]:
    """A reference and a candidate with ``keys`` keys of ``options`` options each: key k's options draw
    2 to 4 of its own 8 conditions, and half of them also hold one of ``hubs`` conditions that every
    key of both goals may hold (what links every choice to every other)."""
    shared = [f"near(s{i}, table)" for i in range(hubs)]

    def option(k: int) -> str:
        own = [f"inside(t{k}_{i}, box{b})" for i in range(4) for b in range(2)]
        atoms = rng.sample(own, rng.randint(2, 4))
        if shared and rng.random() < 0.5:
            atoms.append(rng.choice(shared))
        return "(" + " and ".join(atoms) + ")"

    def goal() -> str:
        return " and ".join("(" + " or ".join(option(k) for _ in range(options)) + ")" for k in range(keys))

    return goal(), goal()


def goal_f1_generated(seeds: int = 3) -> list[dict[str, Any]]:
    """Goal F1 on generated pairs where both goals have many choices: ``goal_f1`` as it is (CPU ms), the
    mixed-integer programme alone, the fast solvers alone under the default work budget (what
    ``goal_f1`` was before the programme: past it, "goal F1 not computed"), and the tree search alone
    (the code before the part-by-part solver, stopped past ``BEFORE_UNITS``)."""
    rows = []
    for keys, options, hubs in GENERATED:
        after_ms, after_units, before_ms, before_stopped, f1s = [], [], [], 0, []
        programme_ms, fast_ms, fast_stopped, same = [], [], 0, 0
        for seed in range(seeds):
            reference_text, candidate_text = _generated(random.Random(seed), keys, options, hubs)
            reference, candidate = parse_ltl(reference_text).formula, parse_ltl(candidate_text).formula
            assert reference is not None and candidate is not None
            meter = WorkBudget(time_limit_s=None, max_units=None).meter()
            start = time.process_time()
            result = goal_f1(candidate, reference, LtlScope(), LtlScope(), meter)
            after_ms.append(1000 * (time.process_time() - start))
            after_units.append(meter.used)
            f1s.append(result.f1)
            trees = [goal_options(goal, LtlScope()) for goal in (reference, candidate)]
            start = time.process_time()
            same += best_pair_milp(trees[0], trees[1]) == (result.reference, result.candidate)
            programme_ms.append(1000 * (time.process_time() - start))
            meter = WorkBudget().meter()
            start = time.process_time()
            try:
                if best_pair_by_parts(trees[0], trees[1], meter) is None:
                    best_pair(trees[0], trees[1], meter)
            except BudgetExceeded:
                fast_stopped += 1
            fast_ms.append(1000 * (time.process_time() - start))
            meter = WorkBudget(time_limit_s=None, max_units=BEFORE_UNITS).meter()
            start = time.process_time()
            try:
                trees = [goal_options(goal, LtlScope(), meter) for goal in (reference, candidate)]
                best_pair(trees[0], trees[1], meter)
            except BudgetExceeded:
                before_stopped += 1
            before_ms.append(1000 * (time.process_time() - start))
        rows.append({"keys": keys, "options": options, "shared": hubs, "pairs": seeds,
                     "after_slowest_ms": max(after_ms), "after_most_units": max(after_units),
                     "programme_slowest_ms": max(programme_ms), "programme_same_pair": same,
                     "fast_alone_slowest_ms": max(fast_ms), "fast_alone_stopped": fast_stopped,
                     "before_slowest_ms": max(before_ms), "before_stopped": before_stopped,
                     "f1": f1s})
    return rows


def _exact_f1(keys: list[list[list[Any]]], predicted: set[str]) -> float | None:
    """Best F1 by a programme over keys, when no condition occurs in two keys (else None)."""
    texts = [[{_condition(c) for c in option} for option in options] for options in keys]
    seen: set[str] = set()
    for options in texts:
        mine = set().union(*options)
        if mine & seen:
            return None
        seen |= mine
    best = {0: 0}  # reference size so far -> most conditions in common
    for options in texts:
        following: dict[int, int] = {}
        for size, common in best.items():
            for option in options:
                key, value = size + len(option), common + len(option & predicted)
                following[key] = max(following.get(key, -1), value)
        best = following
    return max(2 * common / (len(predicted) + size) for size, common in best.items())


def main() -> None:
    """Run both parts and print (or write) the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", type=int, default=10, help="short trajectories per goal")
    parser.add_argument("--scene", type=int, default=0,
                        help="atoms every state holds besides the goal's (a scene graph's relations)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    source = os.environ.get("EAI_SRC")
    if not source:
        sys.exit("set EAI_SRC to a checkout of the Embodied Agent Interface (see this file's docstring)")
    eai = Path(source)
    with collector_off():
        figures = {"evaluation": evaluation(eai, args.short, args.scene), "goal_f1": goal_f1_behavior(eai),
                   "goal_f1_generated": goal_f1_generated()}
    print(json.dumps(figures, indent=2))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()

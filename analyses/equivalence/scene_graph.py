"""Planetarium's scene graphs (Zuo et al. 2024, Sec. 3.3): a problem's objects and facts as a graph.

Equivalence is decided on graphs because "the same problem up to renaming objects" is exactly
"isomorphic graphs": object nodes carry their type (domain constants carry their own name, since a
renaming may not touch them), proposition nodes carry their predicate and whether they come from the
initial state or the goal, and each edge from a proposition to an argument carries the argument's
position.

The isomorphism test is VF2. rustworkx's implementation (Rust) is 100-400x faster than networkx's on
these graphs (``benchmarks/equivalence_bench.py``, RESULTS.md), so it is used when installed, and
networkx — always installed — otherwise; both answer the same question on the same graph.
"""

from __future__ import annotations

import operator
import time
from collections import Counter
from collections.abc import Hashable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from plansight.analyses.model.pddl import Atom, Domain, Not, Problem, conjuncts
from plansight.analyses.model.vocabulary import type_keys

Fact = tuple[str, ...]
"""A ground atom: ``("on", "a", "b")``; 0-ary atoms are ``("arm-empty",)``."""


@dataclass(frozen=True, slots=True)
class GroundTask:
    """A problem reduced to what equivalence compares: typed objects, init facts, goal facts.

    ``objects`` maps each object (problem objects and domain constants) to its type (``object`` when
    untyped); ``constants`` are the domain's constants, fixed points of every renaming. ``goal`` is
    None when the goal is not a conjunction of literals (then only the exact search applies);
    ``negative_goal`` holds the atoms a conjunction of literals requires to be false.
    """

    objects: Mapping[str, str]
    constants: frozenset[str]
    init: frozenset[Fact]
    goal: frozenset[Fact] | None
    negative_goal: frozenset[Fact] = frozenset()
    display: Mapping[str, str] | None = None

    def show(self, fact: Fact) -> str:
        """A fact written as PDDL with the objects' original spelling, for explanations shown to users."""
        names = self.display or {}
        return "(" + " ".join([fact[0], *(names.get(a, a) for a in fact[1:])]) + ")"

    def show_object(self, key: str) -> str:
        """An object's original spelling for messages (keys are lower case)."""
        return (self.display or {}).get(key, key)


def ground_task(problem: Problem, domain: Domain) -> GroundTask:
    """The task a (checked) problem describes; names are compared by their lower-cased keys."""
    objects: dict[str, str] = {}
    display: dict[str, str] = {}
    for entry in (*domain.constants, *problem.objects):
        keys = type_keys(entry.type)
        objects.setdefault(entry.name.key, keys[0] if len(keys) == 1 else "object")
        display.setdefault(entry.name.key, entry.name.display)
    init = frozenset(_fact(f) for f in problem.init if isinstance(f, Atom))
    goal, negative = _goal_literals(problem)
    constants = frozenset(c.name.key for c in domain.constants)
    return GroundTask(objects, constants, init, goal, negative, display)


def _fact(atom: Atom) -> Fact:
    return (atom.predicate.key, *(a.key for a in atom.args))


def _goal_literals(problem: Problem) -> tuple[frozenset[Fact] | None, frozenset[Fact]]:
    """The goal's positive and negative atoms, or (None, ...) when it is not a conjunction of literals."""
    positive: set[Fact] = set()
    negative: set[Fact] = set()
    for node in conjuncts(problem.goal):
        if isinstance(node, Atom):
            positive.add(_fact(node))
        elif isinstance(node, Not) and isinstance(node.arg, Atom):
            negative.add(_fact(node.arg))
        else:
            return None, frozenset(negative)
    return frozenset(positive), frozenset(negative)


# --- graphs -----------------------------------------------------------------------------------------

INIT, GOAL = "init", "goal"
_REFINEMENT_ROUNDS = 3
Label = tuple[str, ...]


@dataclass(slots=True)
class SceneGraph:
    """Object nodes first (``objects``), then one node per (scope, fact); built once, then handed to
    the isomorphism backend. ``labels[i]`` is node i's label; ``edges`` are (proposition, object,
    positions): one edge per argument, merged into one with several positions when an object is
    repeated (``(on a a)``), so that simple-graph backends lose nothing."""

    objects: list[str] = field(default_factory=list)
    labels: list[Label] = field(default_factory=list)
    edges: list[tuple[int, int, tuple[int, ...]]] = field(default_factory=list)
    _index: dict[str, int] = field(default_factory=dict)
    _native: Any = None
    _colours: list[Hashable] | None = None

    def add_scene(self, task: GroundTask, facts: Iterable[Fact], scope: str) -> SceneGraph:
        """Add the facts of one scope (init or goal) as labelled nodes linked to the objects they mention;
        returns the graph so calls chain.
        """
        if not self.objects:
            for obj in task.objects:
                self._index[obj] = len(self.labels)
                self.objects.append(obj)
                self.labels.append(object_label(task, obj))
        for fact in facts:
            node = len(self.labels)
            self.labels.append(("prop", fact[0], scope))
            args = fact[1:]
            if len(set(args)) == len(args):
                self.edges.extend((node, self._index[arg], (position,)) for position, arg in enumerate(args))
            else:
                for arg in dict.fromkeys(args):
                    positions = tuple(i for i, a in enumerate(args) if a == arg)
                    self.edges.append((node, self._index[arg], positions))
        self._native = None
        self._colours = None
        return self

    def signature(self) -> Counter[Hashable]:
        """An invariant (equal for isomorphic graphs) that also tells most non-isomorphic ones apart."""
        return Counter(self.colours())

    def colours(self) -> list[Hashable]:
        """Each node's label refined by its neighbourhood (Weisfeiler-Leman, a few rounds).

        VF2 is exponential when many nodes look alike: balls that start in the same room but must
        end in different ones are tried in every order before a goal fact rules the choice out. The
        refined colour tells such nodes apart up front, and it is isomorphism-invariant, so using
        it as VF2's node label prunes without changing the answer.
        """
        if self._colours is None:
            colours: list[Hashable] = list(self.labels)
            out: list[list[tuple[int, tuple[int, ...]]]] = [[] for _ in colours]
            into: list[list[tuple[int, tuple[int, ...]]]] = [[] for _ in colours]
            for a, b, positions in self.edges:
                out[a].append((b, positions))
                into[b].append((a, positions))
            for _ in range(_REFINEMENT_ROUNDS):
                colours = [
                    hash((colours[node],
                          tuple(sorted((p, hash(colours[b])) for b, p in out[node])),
                          tuple(sorted((p, hash(colours[a])) for a, p in into[node]))))
                    for node in range(len(colours))
                ]
            self._colours = colours
        return self._colours

    def native(self) -> Any:
        """The graph in the isomorphism backend's own representation, built once and reused for every
        comparison.
        """
        if self._native is None:
            self._native = _BACKEND.build(self)
        return self._native


def object_label(task: GroundTask, obj: str) -> Label:
    """The label an object node carries: constants must map to themselves, objects only to objects of the same
    type.
    """
    return ("const", obj) if obj in task.constants else ("object", task.objects[obj])


def scene_graph(task: GroundTask, facts: Iterable[Fact], scope: str) -> SceneGraph:
    """A fresh scene graph for one scope of a task."""
    return SceneGraph().add_scene(task, facts, scope)


def problem_graph(task: GroundTask, goal: Iterable[Fact]) -> SceneGraph:
    """The initial scene and a goal scene joined over the same object nodes."""
    return SceneGraph().add_scene(task, task.init, INIT).add_scene(task, goal, GOAL)


def isomorphic(left: SceneGraph, right: SceneGraph) -> bool:
    """Label- and position-preserving isomorphism, with the label counts compared first."""
    if len(left.edges) != len(right.edges) or left.signature() != right.signature():
        return False
    return _BACKEND.isomorphic(left.native(), right.native())


def object_matchings(left: SceneGraph, right: SceneGraph, limit: int, seconds: float
                     ) -> Iterator[dict[str, str]]:
    """Up to ``limit`` isomorphisms (for at most ``seconds``), as maps of left objects to right ones."""
    if len(left.edges) != len(right.edges) or left.signature() != right.signature():
        return
    deadline = time.monotonic() + seconds
    count = len(left.objects)
    for found, mapping in enumerate(_BACKEND.mappings(left.native(), right.native())):
        if found >= limit or time.monotonic() > deadline:
            return
        yield {left.objects[i]: right.objects[mapping[i]] for i in range(count)}


class _NetworkX:
    name = "networkx"

    @staticmethod
    def build(graph: SceneGraph) -> Any:
        import networkx as nx

        native = nx.DiGraph()
        native.add_nodes_from((i, {"label": colour}) for i, colour in enumerate(graph.colours()))
        native.add_edges_from((a, b, {"position": p}) for a, b, p in graph.edges)
        return native

    @staticmethod
    def _matcher(left: Any, right: Any) -> Any:
        from networkx.algorithms.isomorphism import DiGraphMatcher

        return DiGraphMatcher(left, right, node_match=lambda a, b: a["label"] == b["label"],
                              edge_match=lambda a, b: a["position"] == b["position"])

    @classmethod
    def isomorphic(cls, left: Any, right: Any) -> bool:
        return bool(cls._matcher(left, right).is_isomorphic())

    @classmethod
    def mappings(cls, left: Any, right: Any) -> Iterator[Mapping[int, int]]:
        return cls._matcher(left, right).isomorphisms_iter()  # type: ignore[no-any-return]


class _RustworkX:
    name = "rustworkx"

    @staticmethod
    def build(graph: SceneGraph) -> Any:
        import rustworkx as rx

        native = rx.PyDiGraph(multigraph=False)
        native.add_nodes_from(graph.colours())
        native.add_edges_from(graph.edges)
        return native

    @staticmethod
    def isomorphic(left: Any, right: Any) -> bool:
        import rustworkx as rx

        return bool(rx.is_isomorphic(left, right, node_matcher=operator.eq, edge_matcher=operator.eq,
                                     id_order=False))

    @staticmethod
    def mappings(left: Any, right: Any) -> Iterator[Mapping[int, int]]:
        import rustworkx as rx

        return iter(rx.vf2_mapping(left, right, node_matcher=operator.eq, edge_matcher=operator.eq,
                                   id_order=False))


def _default_backend() -> type[_NetworkX] | type[_RustworkX]:
    try:
        import rustworkx  # noqa: F401
    except ImportError:  # pragma: no cover - rustworkx is optional; networkx gives the same answers
        return _NetworkX
    return _RustworkX


_BACKEND = _default_backend()
BACKENDS = {"networkx": _NetworkX, "rustworkx": _RustworkX}


def backend_name() -> str:
    """Which graph library compares the scene graphs: rustworkx when installed, networkx otherwise; both give
    the same answers.
    """
    return _BACKEND.name

"""Systematic mutations of a plan: the ways plans go wrong, for differential tests against VAL.

Classical mutations are the ones LLM-written plans show (a step dropped, two swapped, one duplicated, a
wrong, extra or missing argument, a hallucinated action, the plan cut short); temporal ones move
happenings (a start shifted, a duration shrunk or stretched, two steps' times exchanged, a step moved past
the last timed initial literal, a step started within ε, or within ε/10, of another's end so the two may
interfere). Each mutation is deterministic for a given seed, so a failing case can be replayed by its
name.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

_TIMED = re.compile(r"\s*(?P<time>[-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*:\s*\((?P<words>[^()]*)\)"
                    r"\s*(?:\[\s*(?P<duration>[-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*\])?\s*(?:;.*)?")
_PLAIN = re.compile(r"\s*\((?P<words>[^()]*)\)\s*(?:;.*)?")


@dataclass(frozen=True)
class Step:
    """One plan line: the action's words, and for a temporal plan its start and duration."""

    words: tuple[str, ...]
    time: float | None = None
    duration: float | None = None

    def text(self) -> str:
        """The line as planners write it (IPC format for temporal steps)."""
        action = "(" + " ".join(self.words) + ")"
        if self.time is None:
            return action
        duration = f" [{_decimal(self.duration)}]" if self.duration is not None else ""
        return f"{_decimal(self.time)}: {action}{duration}"


def _decimal(value: float) -> str:
    """Three decimals as planners write them, more when a mutation needs them (ε/20 = 0.0005)."""
    text = f"{value:.6f}".rstrip("0")
    whole, _, fraction = text.partition(".")
    return f"{whole}.{fraction.ljust(3, '0')}"


@dataclass(frozen=True)
class Mutation:
    """A named mutation and the plan text it makes."""

    name: str
    text: str


def read_steps(text: str) -> list[Step]:
    """The plan's steps; comments, blank lines and anything else are left out."""
    steps = []
    for line in text.splitlines():
        if m := _TIMED.fullmatch(line):
            duration = float(m.group("duration")) if m.group("duration") else None
            steps.append(Step(tuple(m.group("words").split()), float(m.group("time")), duration))
        elif m := _PLAIN.fullmatch(line):
            steps.append(Step(tuple(m.group("words").split())))
    return steps


def render(steps: Sequence[Step]) -> str:
    """Plan text, one step a line."""
    return "".join(step.text() + "\n" for step in steps)


def mutations(text: str, objects: Sequence[str] = (), til_times: Sequence[float] = (),
              epsilon: float = 0.01, seed: int = 0) -> list[Mutation]:
    """At least ten mutations of the plan ``text`` (two steps or more), named by kind and position.

    ``objects`` are the problem's objects (for wrong arguments); ``til_times`` the times of its timed
    initial literals (a step moved past the last one); ``epsilon`` the tolerance two happenings must be
    apart (VAL's ``-t``, 0.01 by default)."""
    steps = read_steps(text)
    if not steps:
        return []
    rng = random.Random(seed)
    out: list[Mutation] = []

    def add(name: str, mutated: Sequence[Step]) -> None:
        rendered = render(mutated)
        if rendered != render(steps) and all(m.text != rendered for m in out):
            out.append(Mutation(name, rendered))

    n = len(steps)
    i = rng.randrange(n)
    j = rng.randrange(n - 1) if n > 1 else 0
    add("drop-first", steps[1:])
    add(f"drop-{i + 1}", [s for k, s in enumerate(steps) if k != i])
    add("cut-last", steps[:-1])
    add(f"duplicate-{i + 1}", [*steps[: i + 1], steps[i], *steps[i + 1:]])
    if n > 1:
        swapped = list(steps)
        swapped[j], swapped[j + 1] = swapped[j + 1], swapped[j]
        add(f"swap-{j + 1}-{j + 2}", _keep_times(steps, swapped))
        add("reverse", _keep_times(steps, steps[::-1]))
    for k in _with_arguments(steps, rng):
        words = steps[k].words
        choices = [o for o in objects if o not in words[1:]]
        if choices:
            replaced = (*words[:-1], rng.choice(sorted(choices)))
            add(f"wrong-argument-{k + 1}", _replace(steps, k, words=replaced))
        if len(words) >= 3:
            swapped_words = (words[0], words[2], words[1], *words[3:])
            add(f"swap-arguments-{k + 1}", _replace(steps, k, words=swapped_words))
        add(f"missing-argument-{k + 1}", _replace(steps, k, words=words[:-1]))
        extra = sorted(objects)[0] if objects else words[-1]
        add(f"extra-argument-{k + 1}", _replace(steps, k, words=(*words, extra)))
        add(f"unknown-object-{k + 1}", _replace(steps, k, words=(*words[:-1], "ghost-object")))
        break
    add(f"unknown-action-{i + 1}", _replace(steps, i, words=("teleport", *steps[i].words[1:])))
    if steps[0].time is not None:
        _temporal(steps, til_times, epsilon, rng, add)
    return out


def _temporal(steps: list[Step], til_times: Sequence[float], epsilon: float, rng: random.Random,
              add: Callable[[str, Sequence[Step]], None]) -> None:
    """The temporal mutations, recorded through ``add``."""
    n = len(steps)
    i = rng.randrange(n)
    step = steps[i]
    assert step.time is not None
    add(f"shift-later-{i + 1}", _replace(steps, i, time=step.time + 1.0))
    if step.time >= 0.5:
        add(f"shift-earlier-{i + 1}", _replace(steps, i, time=step.time - 0.5))
    add(f"start-at-zero-{i + 1}", _replace(steps, i, time=0.0))
    durative = [k for k, s in enumerate(steps) if s.duration is not None and s.duration > 0]
    if durative:
        k = rng.choice(durative)
        duration = steps[k].duration
        assert duration is not None
        add(f"shrink-duration-{k + 1}", _replace(steps, k, duration=duration / 2))
        add(f"stretch-duration-{k + 1}", _replace(steps, k, duration=duration * 2 + 1))
        add(f"zero-duration-{k + 1}", _replace(steps, k, duration=0.0))
    if n > 1:
        a, b = rng.sample(range(n), 2)
        ta, tb = steps[a].time, steps[b].time
        if ta != tb:
            exchanged = _replace(_replace(steps, a, time=tb), b, time=ta)
            add(f"exchange-times-{a + 1}-{b + 1}", exchanged)
        # overlap within ε: start the later step just after the earlier one's end, closer than ε
        first = min(range(n), key=lambda k: steps[k].time or 0.0)
        later = [k for k in range(n) if k != first]
        k = rng.choice(later)
        end = (steps[first].time or 0.0) + (steps[first].duration or 0.0)
        add(f"within-epsilon-{first + 1}-{k + 1}", _replace(steps, k, time=end + epsilon / 2))
        # VAL makes happenings at most ε/10 apart one happening
        add(f"within-tenth-epsilon-{first + 1}-{k + 1}", _replace(steps, k, time=end + epsilon / 20))
        add(f"same-time-{first + 1}-{k + 1}", _replace(steps, k, time=steps[first].time))
    if til_times:
        deadline = max(til_times)
        add(f"past-deadline-{i + 1}", _replace(steps, i, time=deadline + 0.5))


def _keep_times(original: Sequence[Step], reordered: Sequence[Step]) -> list[Step]:
    """The steps in the new order; in a temporal plan each position keeps its start time, so reordering
    changes when the actions happen, not only the lines' order."""
    if original[0].time is None:
        return list(reordered)
    return [Step(s.words, o.time, s.duration) for o, s in zip(original, reordered, strict=True)]


def _with_arguments(steps: Sequence[Step], rng: random.Random) -> list[int]:
    found = [k for k, s in enumerate(steps) if len(s.words) >= 2]
    rng.shuffle(found)
    return found


def _replace(steps: Sequence[Step], index: int, *, words: tuple[str, ...] | None = None,
             time: float | None = None, duration: float | None = None) -> list[Step]:
    out = list(steps)
    old = out[index]
    out[index] = Step(words if words is not None else old.words,
                      time if time is not None else old.time,
                      duration if duration is not None else old.duration)
    return out

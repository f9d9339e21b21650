"""How much work one simulation or LTL evaluation may do, and the hook that stops it early.

A plan over a problem with 40 objects whose precondition says ``forall`` over six variables asks for
4.1e9 instances: no answer is worth that wait, and in the editor the next keystroke makes the answer
useless anyway. So every grounding and evaluation loop (``world.py``'s quantifiers, the simulator's
steps, ``ltl/evaluate.py``'s nodes) spends units from one :class:`Meter`: past ``max_units`` or
``time_limit_s`` it raises :class:`BudgetExceeded` and the caller answers "unknown" (``valid: null``)
with the reason; once ``cancelled()`` is true it raises :class:`Cancelled` and the caller drops the
run. The clock and the hook are read every ``CHECK_EVERY`` units (well under a millisecond of work),
so a stop lands within milliseconds of the limit or of the cancellation.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

CHECK_EVERY = 2048
"""Units between two readings of the clock and of the cancellation hook (a unit is one quantifier
instance, one plan step or one LTL node over the trajectory: about a microsecond at most)."""

DEFAULT_TIME_LIMIT_S = 10.0
DEFAULT_MAX_UNITS = 50_000_000


@dataclass(frozen=True, slots=True)
class WorkBudget:
    """The limits of one run: wall-clock seconds and work units (None: no limit of that kind)."""

    time_limit_s: float | None = DEFAULT_TIME_LIMIT_S
    max_units: int | None = DEFAULT_MAX_UNITS
    cancelled: Callable[[], bool] | None = None
    """Asked every few thousand units; true stops the run with :class:`Cancelled` (a newer edit)."""

    def meter(self) -> Meter:
        """A fresh meter for one run, its clock started now."""
        return Meter(self)


UNLIMITED = WorkBudget(None, None)
"""No limit: what callers that bound their work by other means (equivalence's state budget) use."""


class BudgetExceeded(Exception):
    """The run went past its budget; ``reason`` says which limit and, once known, what was being done."""

    def __init__(self, limit: str) -> None:
        super().__init__(limit)
        self.limit = limit
        """``after 10 s`` / ``after 50,000,000 instances``"""
        self.quantifier: tuple[str, int, float] | None = None
        """(``forall``/``exists``, variables, instances) of the outermost quantifier being expanded."""
        self.where: str | None = None
        """What the caller was doing: ``the precondition of step 3``."""

    def within(self, kind: str, variables: int, instances: float) -> None:
        """Called by each enclosing quantifier on the way out: nested quantifiers multiply."""
        if self.quantifier is None:
            self.quantifier = (kind, variables, instances)
        else:
            _, inner_variables, inner_instances = self.quantifier
            self.quantifier = (kind, variables + inner_variables, instances * inner_instances)

    @property
    def reason(self) -> str:
        """``stopped after 10 s: the precondition of step 3 (forall over 6 variables) has 4.1e9
        instances``: the limit, then what was too big when it is known."""
        text = f"stopped {self.limit}"
        if self.where is not None and self.quantifier is not None:
            kind, variables, instances = self.quantifier
            plural = "s" if variables != 1 else ""
            return (f"{text}: {self.where} ({kind} over {variables} variable{plural}) has "
                    f"{_count(instances)} instances")
        if self.where is not None:
            return f"{text} while evaluating {self.where}"
        return text

    def __str__(self) -> str:
        return self.reason


class Cancelled(Exception):
    """The budget's ``cancelled`` hook said stop: the result would be dropped anyway."""


class Meter:
    """Counts the units one run spends and enforces its :class:`WorkBudget`.

    Not thread-safe: one meter per run, used by the thread doing the run.
    """

    __slots__ = ("_deadline", "_next_check", "_started", "budget", "used")

    def __init__(self, budget: WorkBudget = UNLIMITED) -> None:
        self.budget = budget
        self.used = 0
        self._started = time.monotonic()
        self._deadline = (self._started + budget.time_limit_s) if budget.time_limit_s is not None else None
        self._next_check = CHECK_EVERY

    def spend(self, units: int) -> None:
        """Count ``units`` of work; raises :class:`BudgetExceeded` or :class:`Cancelled` when it is time."""
        self.used += units
        if self.used >= self._next_check:
            self._check()

    def check(self) -> None:
        """Read the clock and the hook now (before a step that may be long)."""
        self._check()

    def _check(self) -> None:
        budget = self.budget
        if budget.cancelled is not None and budget.cancelled():
            raise Cancelled("a newer version replaces this text")
        if budget.max_units is not None and self.used > budget.max_units:
            raise BudgetExceeded(f"after {budget.max_units:,} units of work")
        if self._deadline is not None and time.monotonic() > self._deadline:
            raise BudgetExceeded(f"after {_seconds(budget.time_limit_s or 0.0)}")
        self._next_check = self.used + CHECK_EVERY

    def remaining_s(self) -> float | None:
        """Seconds left before the time limit (None: no time limit), for work done in one call that
        cannot be metered from inside (a solver given its own time limit)."""
        if self._deadline is None:
            return None
        return max(0.0, self._deadline - time.monotonic())

    def out_of_time(self) -> BudgetExceeded:
        """The error for a run past its time limit, as the meter words it."""
        return BudgetExceeded(f"after {_seconds(self.budget.time_limit_s or 0.0)}")

    @property
    def elapsed_s(self) -> float:
        """Seconds since the meter was made."""
        return time.monotonic() - self._started


def _seconds(value: float) -> str:
    return f"{value:g} s"


def _count(value: float) -> str:
    """``4.1e9`` for big counts, ``64,000`` for small ones."""
    if value < 1e7:
        return f"{int(value):,}"
    mantissa, exponent = f"{value:.1e}".split("e")
    return f"{mantissa}e{int(exponent)}"
